"""``ms-lint check --fix`` and ``--diff`` on real files: what is written, what is left, what is never touched."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.cli.support import run_process

PAIRS = Path(__file__).resolve().parent.parent / "fixtures" / "fixes"


def copy_pair(name: str, directory: Path) -> Path:
    target = directory / f"{name}.py"
    shutil.copy(PAIRS / f"{name}_before.py", target)
    return target


def test_diff_shows_the_fix_and_changes_nothing(tmp_path):
    target = copy_pair("conv", tmp_path)
    before = target.read_text()
    run = run_process("check", "--isolated", "--diff", "conv.py", cwd=tmp_path)
    assert run.status == 1
    assert '+        self.a = nn.Conv2d(3, 8, 3, padding=1, pad_mode="pad")' in run.out
    assert run.out.startswith("--- a/conv.py\n+++ b/conv.py\n")
    assert target.read_text() == before


def test_fix_writes_the_expected_file_and_reports_what_is_left(tmp_path):
    target = copy_pair("cells", tmp_path)
    run = run_process("check", "--isolated", "--fix", "cells.py", cwd=tmp_path)
    assert target.read_text() == (PAIRS / "cells_after.py").read_text()
    assert "fixed 5 finding(s) in 1 file(s)" in run.err
    # `self.added += [...]` has no mechanical fix: its list's one finding (naming both lines) remains and fails the
    # run.
    assert run.status == 1
    assert [line.split()[1] for line in run.out.splitlines()] == ["MS201"]
    assert "(self.added) (also filled on line 29)" in run.out


def test_fix_leaves_noqa_and_unselected_findings_alone(tmp_path):
    target = tmp_path / "stem.py"
    target.write_text(
        "from mindspore import nn\n\n\nclass Stem(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
        "        self.a = nn.Conv2d(3, 8, 3, padding=1)  # noqa: MS205\n"
        "        self.b = nn.Conv2d(8, 8, 5, padding=2)\n"  # another padding: a cause of its own
        "        self.c = [nn.Dense(2, 2)]\n"
    )
    run = run_process("check", "--isolated", "--fix", "--extend-ignore=MS201", "stem.py", cwd=tmp_path)
    lines = target.read_text().splitlines()
    assert lines[6] == "        self.a = nn.Conv2d(3, 8, 3, padding=1)  # noqa: MS205"
    assert lines[7] == '        self.b = nn.Conv2d(8, 8, 5, padding=2, pad_mode="pad")'
    assert lines[8] == "        self.c = [nn.Dense(2, 2)]"
    assert run.status == 0, run.out


def test_fix_on_standard_input_prints_the_fixed_code_and_reports_what_is_left_on_standard_error(tmp_path):
    source = (PAIRS / "set_data_before.py").read_bytes()
    run = run_process("check", "--isolated", "--fix", "--stdin-display-name=ema.py", "-", cwd=tmp_path,
                      stdin=source)
    assert run.out == (PAIRS / "set_data_after.py").read_text()
    # `init_data()` has no mechanical fix: its finding is left, on standard error, and fails the run.
    assert run.said == ("ema.py:12:9: MS107 Parameter.init_data() in graph code (Ema.construct) fails to compile at "
                        "every syntax level; use ops.assign(param, value)\nFound 1 finding in 1 file.\n")
    assert run.status == 1
    exit_zero = run_process("check", "--isolated", "--fix", "--exit-zero", "--stdin-display-name=ema.py", "-",
                            cwd=tmp_path, stdin=source)
    assert (exit_zero.status, exit_zero.out) == (0, run.out)
    as_json = run_process("check", "--isolated", "--fix", "--format=json", "--stdin-display-name=ema.py", "-",
                          cwd=tmp_path, stdin=source)
    assert as_json.out == run.out
    assert [finding["code"] for finding in json.loads(as_json.said)["findings"]] == ["MS107"]


def test_fix_on_standard_input_with_nothing_left_exits_zero(tmp_path):
    source = (PAIRS / "set_data_before.py").read_text().replace("        self.average.init_data()\n", "")
    run = run_process("check", "--isolated", "--fix", "--stdin-display-name=ema.py", "-", cwd=tmp_path,
                      stdin=source.encode())
    assert run.out == (PAIRS / "set_data_after.py").read_text().replace("        self.average.init_data()\n", "")
    assert (run.status, run.said) == (0, "No findings in 1 file.\n")


def test_fix_on_undecodable_standard_input_gives_it_back_unchanged_with_e902(tmp_path):
    source = b"from mindspore import nn\nname = '\xe9'\n"
    run = subprocess.run([sys.executable, "-m", "ms_lint.cli", "check", "--isolated", "--fix",
                          "--stdin-display-name=bad.py", "-"], cwd=tmp_path, input=source, capture_output=True,
                         timeout=120)
    assert run.stdout == source
    assert b"bad.py:2:1: E902 UnicodeDecodeError" in run.stderr
    assert run.returncode == 1


def test_fix_keeps_the_file_encoding_and_newlines(tmp_path):
    target = tmp_path / "latin.py"
    source = ("# -*- coding: latin-1 -*-\r\n# caf\xe9\r\nfrom mindspore import nn\r\n\r\n\r\n"
              "class S(nn.Cell):\r\n    def __init__(self):\r\n        super().__init__()\r\n"
              "        self.a = nn.Conv2d(3, 8, 3, padding=1)\r\n")
    target.write_bytes(source.encode("latin-1"))
    run_process("check", "--isolated", "--fix", "latin.py", cwd=tmp_path)
    fixed = target.read_bytes().decode("latin-1")
    assert fixed == source.replace("padding=1)", 'padding=1, pad_mode="pad")')


def test_help_names_the_rules_the_registry_fixes(tmp_path):
    from ms_lint.rules import ALL_RULES

    run = run_process("check", "--help", cwd=tmp_path)
    text = " ".join(run.out.split())
    fix_help = text[text.index("--fix "):text.index("--diff ")]
    assert re.findall(r"MS\d{3}", fix_help) == [rule.code for rule in ALL_RULES if rule.autofix]
    assert "standard error" in fix_help
