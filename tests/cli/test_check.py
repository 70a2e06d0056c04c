"""``ms-lint check``: findings, flake8's text format, selection, per-file ignores, noqa, files, jobs, exit statuses."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ms_lint.lint import AUTO_PARALLEL_MIN_FILES, pool_size
from ms_lint.output import escape_data, escape_property
from ms_lint.rules import RULES_BY_CODE
from ms_lint.target import installed_mindspore

from .support import SAMPLE_FINDINGS, run_process

TEXT_LINE = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<code>MS\d{3}) (?P<message>.+)$")


def codes_of(run) -> list[tuple[str, str]]:
    return [(path, code) for path, _, _, code in run.findings()]


# ------------------------------------------------------------------------------------------------ findings and text


def test_reports_the_sample_findings_in_flake8_format(project, ms_lint):
    run = ms_lint("check", "--isolated")
    assert run.status == 1
    # standard error says what the run assumed (the sample package selects STRICT in pkg/__init__.py), then the total
    assert run.err.splitlines() == [
        f"target: MindSpore {installed_mindspore()} (installed) · any device (none named in the project) · graph "
        "(a library, checked as its users would compile it) · STRICT (pkg/__init__.py:6)",
        "Found 4 findings in 2 files (1 fixable with --fix)."]
    for line in run.out.splitlines():
        assert TEXT_LINE.match(line), line
    assert run.findings() == SAMPLE_FINDINGS


def test_same_lines_as_the_flake8_plugin(project, ms_lint):
    flake8 = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select=MS", "."],
        cwd=project, capture_output=True, text=True, timeout=120,
    )
    assert flake8.stdout.strip(), flake8.stderr
    run = ms_lint("check", "--isolated", ".")
    assert sorted(run.out.splitlines()) == sorted(flake8.stdout.splitlines())


def test_column_is_flake8s_one_based_column(project, ms_lint):
    run = ms_lint("check", "--isolated", "pkg/model.py")
    source_line = Path("pkg/model.py").read_text().splitlines()[10]
    (_, line, column, code), = [f for f in run.findings() if f[3] == "MS101"]
    assert (line, code) == (11, "MS101")
    assert source_line[column - 1:].startswith("np.sin(x)")


def test_clean_file_gives_no_output_and_status_0(project, ms_lint):
    run = ms_lint("check", "--isolated", "pkg/clean.py")
    assert (run.status, run.out) == (0, "")
    assert run.err.splitlines()[0].startswith("target: ")
    assert run.err.splitlines()[1:] == ["No findings in 1 file."]


def test_exit_zero_reports_but_succeeds(project, ms_lint):
    run = ms_lint("check", "--isolated", "--exit-zero")
    assert run.status == 0
    assert run.findings() == SAMPLE_FINDINGS


def test_output_file_receives_the_report(project, ms_lint, tmp_path):
    target = tmp_path / "report.txt"
    run = ms_lint("check", "--isolated", "--output-file", str(target))
    assert run.status == 1
    assert run.out == ""
    assert len(target.read_text().splitlines()) == len(SAMPLE_FINDINGS)


def test_real_process_exit_statuses(project):
    assert run_process("check", "--isolated", ".", cwd=project).status == 1
    assert run_process("check", "--isolated", "pkg/clean.py", cwd=project).status == 0
    assert run_process("check", "--isolated", "--exit-zero", ".", cwd=project).status == 0
    assert run_process("check", "--isolated", "--format", "xml", ".", cwd=project).status == 2


# --------------------------------------------------------------------------------------------------- usage errors


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--format", "xml"], "format must be one of text, json, sarif, github, not 'xml'"),
        (["--ms-mode", "grpah"], "ms-mode must be one of graph, pynative, not 'grpah'"),
        (["--ms-syntax-level", "compatible"], "ms-syntax-level must be one of strict, lax"),
        (["--select", "ms101"], "'ms101' is not an error code"),
        (["--extend-ignore", "MS999"], "MS999 matches no ms-lint rule"),
        (["--jobs", "0"], "jobs must be 'auto' or a positive number"),
        (["--per-file-ignores", "MS101"], "per-file-ignores must be 'PATTERNS:CODES' entries"),
        (["missing.py"], "missing.py: no such file or directory"),
    ],
)
def test_usage_errors_exit_2_with_one_line(project, ms_lint, args, fragment):
    run = ms_lint("check", "--isolated", *args)
    assert run.status == 2
    assert run.out == ""
    assert run.err.startswith("ms-lint: error: ")
    assert run.err.count("\n") == 1, run.err
    assert fragment in run.err


def test_unknown_flag_is_a_usage_error(project, ms_lint):
    run = ms_lint("check", "--fixx")
    assert run.status == 2
    assert "unrecognized arguments: --fixx" in run.err


def test_unreadable_file_is_reported_and_the_others_checked(project, ms_lint):
    (project / "pkg" / "gone.py").symlink_to(project / "nowhere.py")
    run = ms_lint("check", "--isolated", ".")
    assert run.status == 2
    assert run.findings() == SAMPLE_FINDINGS
    assert "ms-lint: error: ./pkg/gone.py: cannot read it (No such file or directory)" in run.err


# ------------------------------------------------------------------------------------------ selection (flake8's)


def test_select_keeps_only_the_selected_prefixes(project, ms_lint):
    assert codes_of(ms_lint("check", "--isolated", "--select", "MS101")) == [
        ("pkg/head.py", "MS101"), ("pkg/model.py", "MS101")]
    assert {code for _, code in codes_of(ms_lint("check", "--isolated", "--select", "MS1"))} == {"MS101", "MS102"}
    assert codes_of(ms_lint("check", "--isolated", "--select", "MS2,MS102")) == [
        ("pkg/model.py", "MS201"), ("pkg/model.py", "MS102")]


def test_repeated_select_options_add_up(project, ms_lint):
    run = ms_lint("check", "--isolated", "--select", "MS201", "--select", "MS102")
    assert {code for _, code in codes_of(run)} == {"MS201", "MS102"}


def test_ignore_and_extend_ignore(project, ms_lint):
    assert {code for _, code in codes_of(ms_lint("check", "--isolated", "--ignore", "MS1"))} == {"MS201"}
    assert {code for _, code in codes_of(ms_lint("check", "--isolated", "--extend-ignore", "MS201,MS102"))} == {
        "MS101"}


def test_longest_prefix_wins_between_select_and_ignore(project, ms_lint):
    run = ms_lint("check", "--isolated", "--extend-ignore", "MS1", "--extend-select", "MS102")
    assert {code for _, code in codes_of(run)} == {"MS102", "MS201"}


@pytest.fixture
def ms101_off_by_default(monkeypatch):
    monkeypatch.setattr(RULES_BY_CODE["MS101"], "enabled_by_default", False)


def test_rules_off_by_default_are_not_reported(project, ms_lint, ms101_off_by_default):
    assert "MS101" not in {code for _, code in codes_of(ms_lint("check", "--isolated"))}


@pytest.mark.parametrize(
    "args", [["--extend-select", "MS101"], ["--select", "MS"], ["--select", "MS101"], ["--ignore", "MS9"]]
)
def test_rules_off_by_default_are_enabled_as_flake8_enables_them(project, ms_lint, ms101_off_by_default, args):
    assert "MS101" in {code for _, code in codes_of(ms_lint("check", "--isolated", *args))}


def test_a_selection_without_ms_codes_warns(project, ms_lint):
    run = ms_lint("check", "--isolated", "--select", "E,W")
    assert run.status == 0
    assert run.out == ""
    assert "enables no MS rule" in run.err


# ----------------------------------------------------------------------------------------------- per-file ignores


def test_per_file_ignores_with_a_path(project, ms_lint):
    run = ms_lint("check", "--isolated", "--per-file-ignores", "pkg/model.py:MS101")
    assert codes_of(run) == [("pkg/head.py", "MS101"), ("pkg/model.py", "MS201"), ("pkg/model.py", "MS102")]


def test_per_file_ignores_with_a_file_name_and_prefix(project, ms_lint):
    run = ms_lint("check", "--isolated", "--per-file-ignores", "model.py:MS1")
    assert codes_of(run) == [("pkg/head.py", "MS101"), ("pkg/model.py", "MS201")]


def test_per_file_ignores_uses_the_longest_matching_pattern_only(project, ms_lint):
    run = ms_lint("check", "--isolated", "--per-file-ignores", "pkg/*:MS101 pkg/model.py:MS201")
    assert codes_of(run) == [("pkg/model.py", "MS101"), ("pkg/model.py", "MS102")]


# ------------------------------------------------------------------------------------------------------------ noqa


NOQA_MODULE = '''\
import numpy as np
from mindspore import nn


class Noisy(nn.Cell):
    def construct(self, x):
        a = np.sin(x)  # noqa
        b = np.cos(x)  # noqa: MS102
        c = np.tan(x)  # noqa:MS1
        d = np.exp(x)  # NOQA: E501,MS101
        e = np.log(x)  # noqa: E501
        f = np.sqrt(
            x)  # noqa: MS101
        return a + b + c + d + e + f
'''


def test_noqa_comments_as_flake8_reads_them(project, ms_lint):
    (project / "noisy.py").write_text(NOQA_MODULE)
    run = ms_lint("check", "--isolated", "noisy.py")
    assert [(line, code) for _, line, _, code in run.findings()] == [(8, "MS101"), (11, "MS101"), (12, "MS101")]
    flake8 = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select=MS", "noisy.py"],
        cwd=project, capture_output=True, text=True, timeout=120,
    )
    assert run.out == flake8.stdout


JOINED_NOQA_MODULE = '''\
import numpy as np
from mindspore import nn


class Joined(nn.Cell):
    def construct(self, x):
        a = np.sin(x) + len("""one
            two  # noqa: MS101
        """)
        b = np.cos(x) + \\
            1  # noqa: MS101
        c = np.tan(x) + len(f"""{x}
        """)  # noqa: MS101
        d = np.exp(x)
        e = np.log(x)  # noqa: E501
        return a + b + c + d + e
'''


@pytest.mark.parametrize("module", [JOINED_NOQA_MODULE, JOINED_NOQA_MODULE.replace("# noqa: MS101", "# no-qa")],
                         ids=["joined", "none-silenced"])
def test_noqa_over_lines_a_string_or_a_backslash_joins_as_flake8_reads_it(project, ms_lint, module):
    # A finding's line is read with the lines a string or a backslash joins it to (the tokenizer tells them); a
    # line joined to none is read alone.
    (project / "joined.py").write_text(module)
    run = ms_lint("check", "--isolated", "joined.py")
    flake8 = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select=MS", "joined.py"],
        cwd=project, capture_output=True, text=True, timeout=120,
    )
    assert run.out == flake8.stdout
    lines = [line for _, line, _, _ in run.findings()]
    assert lines == ([14, 15] if "# noqa: MS101" in module else [7, 10, 12, 14, 15])


def test_disable_noqa_reports_everything(project, ms_lint):
    (project / "noisy.py").write_text(NOQA_MODULE)
    run = ms_lint("check", "--isolated", "--disable-noqa", "noisy.py")
    assert [line for _, line, _, _ in run.findings()] == [7, 8, 9, 10, 11, 12]


def test_file_level_flake8_noqa_skips_the_file(project, ms_lint):
    model = project / "pkg" / "model.py"
    model.write_text("# flake8: noqa\n" + model.read_text())
    run = ms_lint("check", "--isolated")
    assert codes_of(run) == [("pkg/head.py", "MS101")]


# ----------------------------------------------------------------------------------------------------------- files


def test_flake8s_default_excludes_apply(project, ms_lint):
    for directory in (".tox", ".git", "__pycache__", "dist.egg"):
        (project / directory).mkdir()
        shutil.copy(project / "pkg" / "model.py", project / directory / "model.py")
    assert ms_lint("check", "--isolated").findings() == SAMPLE_FINDINGS


def test_exclude_and_extend_exclude(project, ms_lint):
    assert codes_of(ms_lint("check", "--isolated", "--extend-exclude", "pkg/head.py")) == [
        ("pkg/model.py", "MS201"), ("pkg/model.py", "MS101"), ("pkg/model.py", "MS102")]
    assert codes_of(ms_lint("check", "--isolated", "--exclude", "model.py")) == [("pkg/head.py", "MS101")]


def test_only_python_files_inside_directories_but_any_named_file(project, ms_lint):
    shutil.copy(project / "pkg" / "model.py", project / "pkg" / "model.txt")
    assert ms_lint("check", "--isolated").findings() == SAMPLE_FINDINGS
    assert {code for _, code in codes_of(ms_lint("check", "--isolated", "pkg/model.txt"))} == {
        "MS101", "MS102", "MS201"}


def test_paths_are_shown_as_given(project, ms_lint):
    run = ms_lint("check", "--isolated", str(project / "pkg" / "head.py"), "pkg/model.py")
    paths = [line.split(":")[0] for line in run.out.splitlines()]
    assert paths == [str(project / "pkg" / "head.py")] + ["pkg/model.py"] * 3


# ------------------------------------------------------------------------------------------------------------ jobs


@pytest.fixture
def many_files(project) -> Path:
    for number in range(12):
        target = project / "pkg" / f"copy_{number:02d}.py"
        shutil.copy(project / "pkg" / ("model.py" if number % 2 else "head.py"), target)
    return project


def test_jobs_2_gives_the_same_report_as_jobs_1(many_files, ms_lint):
    serial = ms_lint("check", "--isolated", "--jobs", "1")
    parallel = ms_lint("check", "--isolated", "--jobs", "2")
    assert serial.status == parallel.status == 1
    assert len(serial.out.splitlines()) == 4 + 6 * 1 + 6 * 3
    assert parallel.out == serial.out
    assert ms_lint("check", "--isolated", "--jobs", "auto").out == serial.out


def test_pool_size(monkeypatch):
    monkeypatch.delenv("PRE_COMMIT", raising=False)
    assert pool_size(None, 1) == 1
    assert pool_size(None, AUTO_PARALLEL_MIN_FILES - 1) == 1
    assert pool_size(None, AUTO_PARALLEL_MIN_FILES) >= 1
    assert pool_size(2, 1) == 1
    assert pool_size(2, 3) == 2
    assert pool_size(8, 3) == 3
    monkeypatch.setenv("PRE_COMMIT", "1")
    assert pool_size(None, 10 * AUTO_PARALLEL_MIN_FILES) == 1
    assert pool_size(2, 10 * AUTO_PARALLEL_MIN_FILES) == 2


# ------------------------------------------------------------------------------------------------- standard input


def test_standard_input_with_a_display_name(project):
    source = (project / "pkg" / "head.py").read_bytes()
    on_file = run_process("check", "--isolated", "pkg/head.py", cwd=project)
    on_stdin = run_process("check", "--isolated", "--stdin-display-name", "pkg/head.py", "-", cwd=project,
                           stdin=source)
    assert on_stdin.status == on_file.status == 1
    assert on_stdin.out == on_file.out
    assert on_stdin.findings() == [("pkg/head.py", 8, 16, "MS101")]


def test_standard_input_display_name_drives_per_file_ignores(project):
    source = (project / "pkg" / "model.py").read_bytes()
    run = run_process("check", "--isolated", "--per-file-ignores", "pkg/model.py:MS1",
                      "--stdin-display-name", "pkg/model.py", "-", cwd=project, stdin=source)
    assert run.findings() == [("pkg/model.py", 8, 9, "MS201")]


# ------------------------------------------------------------------------------------------------- other formats


def test_json_format(project, ms_lint):
    run = ms_lint("check", "--isolated", "--format", "json")
    assert run.status == 1
    document = json.loads(run.out)
    assert document["tool"] == "ms-lint"
    assert document["files_checked"] == 5
    assert document["errors"] == []
    found = [(f["path"].removeprefix("./"), f["line"], f["column"], f["code"]) for f in document["findings"]]
    assert found == SAMPLE_FINDINGS
    first = document["findings"][0]
    assert first["name"] == "host-library-call"
    assert first["scope"] == "Head"
    assert first["level"] == "error"
    assert "numpy.sin()" in first["message"]
    assert first["data"]["callee"] == "numpy.sin"
    assert all(finding["data"] for finding in document["findings"]), "every finding carries its message's facts"


def test_json_format_without_findings(project, ms_lint):
    run = ms_lint("check", "--isolated", "--format", "json", "pkg/clean.py")
    assert run.status == 0
    assert json.loads(run.out)["findings"] == []


def test_github_format(project, ms_lint):
    run = ms_lint("check", "--isolated", "--format", "github")
    assert run.status == 1
    lines = run.out.splitlines()
    assert len(lines) == len(SAMPLE_FINDINGS)
    pattern = re.compile(r"^::error file=(?P<file>[^,]+),line=(\d+),col=(\d+),title=(MS\d{3})::(.+)$")
    parsed = []
    for line in lines:
        match = pattern.match(line)
        assert match, line
        parsed.append((match["file"], int(match[2]), int(match[3]), match[4]))
    assert parsed == SAMPLE_FINDINGS


def test_github_format_escapes_workflow_command_characters():
    assert escape_data("50% of a\r\nb") == "50%25 of a%0D%0Ab"
    assert escape_property("dir,a:b/c%.py") == "dir%2Ca%3Ab/c%25.py"
    assert escape_data("a:b,c") == "a:b,c"


def test_github_format_escapes_paths(project, ms_lint):
    odd = project / "odd,name:x.py"
    shutil.copy(project / "pkg" / "model.py", odd)
    run = ms_lint("check", "--isolated", "--format", "github", str(odd.name))
    assert run.out.splitlines()[0].startswith("::error file=odd%2Cname%3Ax.py,line=8,col=9,title=MS201::")


def test_a_file_that_does_not_parse_is_reported_as_flake8_does(tmp_path):
    (tmp_path / "broken.py").write_text("import mindspore\n\n\ndef f(:\n    pass\n")
    (tmp_path / "python2.py").write_text('print "no mindspore here"\n')
    run = run_process("check", "--isolated", "--select=MS101", ".", cwd=tmp_path)
    assert run.status == 1
    assert sorted(run.out.splitlines()) == [
        "./broken.py:4:7: E999 SyntaxError: invalid syntax",
        "./python2.py:1:1: E999 SyntaxError: Missing parentheses in call to 'print'. Did you mean print(...)?",
    ]
