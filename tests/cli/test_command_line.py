"""The command line as Python tools have it: ``python -m ms_lint``, one error prefix for every subcommand, E902 for
a file Python cannot decode, and a README whose JSON keys are the output's."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ms_lint.findings import Finding
from ms_lint.output import Reported, format_json
from ms_lint.target import Target, TargetGroup

from .support import SAMPLE_FINDINGS, run_process

README = Path(__file__).resolve().parents[2] / "README.md"
LATIN_1 = b"import mindspore\n\nNAME = 'caf\xe9'\n"


def python_m(*args: str, cwd: Path, module: str = "ms_lint", stdin: bytes | None = None):
    return subprocess.run([sys.executable, "-m", module, *args], cwd=cwd, capture_output=True, input=stdin,
                          timeout=120)


def test_python_m_ms_lint_is_the_ms_lint_command(project):
    via_module = python_m("check", "--isolated", "--no-cache", ".", cwd=project)
    via_cli = python_m("check", "--isolated", "--no-cache", ".", cwd=project, module="ms_lint.cli")
    assert via_module.returncode == via_cli.returncode == 1
    assert via_module.stdout == via_cli.stdout
    found = [tuple(line.split(" ")[0].removeprefix("./").rstrip(":").rsplit(":", 2)) for line in
             via_module.stdout.decode().splitlines()]
    assert [(path, int(line), int(column)) for path, line, column in found] == [f[:3] for f in SAMPLE_FINDINGS]
    version = python_m("--version", cwd=project)
    assert version.returncode == 0 and version.stdout.decode().startswith("ms-lint ")
    usage = python_m(cwd=project)
    assert usage.returncode == 2 and b"usage: ms-lint" in usage.stderr
    assert python_m("check", "--isolated", "--no-cache", "pkg/clean.py", cwd=project).returncode == 0


@pytest.mark.parametrize("args", [
    ["check", "--format", "xml", "."],
    ["check", "missing.py"],
    ["check", "--jobs"],
    ["validate"],
    ["validate", "missing"],
    ["validate", "--syntax-level", "loose", "."],
    ["rules", "MS999"],
    ["parity"],
    ["frobnicate"],
    ["check", "--frobnicate", "."],
])
def test_every_subcommand_prints_errors_as_one_line_with_one_prefix(project, ms_lint, args):
    run = ms_lint(*args)
    assert run.status == 2
    assert len(run.err.splitlines()) == 1 and run.err.startswith("ms-lint: error: "), run.err


def test_an_unknown_option_is_the_one_error_line_and_no_usage(project, ms_lint):
    run = ms_lint("check", "--frobnicate", ".")
    assert (run.status, run.out, run.err) == (2, "", "ms-lint: error: unrecognized arguments: --frobnicate\n")


def test_a_file_python_cannot_decode_is_e902(tmp_path, ms_lint, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "latin.py").write_bytes(LATIN_1)
    (tmp_path / "declared.py").write_bytes(b"# -*- coding: latin-1 -*-\n" + LATIN_1)
    run = ms_lint("check", "--isolated", "--no-cache", ".")
    assert run.status == 1
    assert run.out == ("./latin.py:3:1: E902 UnicodeDecodeError: 'utf-8' codec can't decode byte 0xe9 in position "
                       "29: invalid continuation byte\n")
    document = json.loads(ms_lint("check", "--isolated", "--no-cache", "--format", "json", "latin.py").out)
    assert [(f["code"], f["line"], f["column"]) for f in document["findings"]] == [("E902", 3, 1)]
    # What --fix would rewrite with replacement characters is left as it is.
    assert ms_lint("check", "--isolated", "--no-cache", "--fix", "latin.py").status == 1
    assert (tmp_path / "latin.py").read_bytes() == LATIN_1
    # The cache keeps the E902 as any other result.
    assert ms_lint("check", "--isolated", "latin.py").out == ms_lint("check", "--isolated", "latin.py").out != ""


def test_standard_input_that_python_cannot_decode_is_e902(tmp_path):
    run = run_process("check", "--isolated", "--stdin-display-name", "pkg/x.py", "-", cwd=tmp_path, stdin=LATIN_1)
    assert run.status == 1
    assert run.out.startswith("pkg/x.py:3:1: E902 UnicodeDecodeError: ")
    assert run_process("check", "--isolated", "-", cwd=tmp_path, stdin=b"import mindspore\nx = 'caf\xc3\xa9'\n")\
        .status == 0


def test_the_readme_lists_the_json_keys_of_the_output():
    row = next(line for line in README.read_text(encoding="utf-8").splitlines() if line.startswith("| `json` |"))
    documented_top, _, documented_finding = row.partition('"findings": [')
    target = Target(project=str(README.parent))
    finding = Finding("a.py", 1, 0, "MS101", "message", "Net", target=target.summary())
    document = json.loads(format_json([Reported(finding)], files_checked=1, targets=[TargetGroup((target,))]))
    top = re.findall(r'"(\w+)"', documented_top)
    assert top + ["findings"] == list(document)
    assert re.findall(r'"(\w+)"', documented_finding) == list(document["findings"][0])
