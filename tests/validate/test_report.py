"""The text and JSON reports, the exit status by --fail-on, and the progress bar (no MindSpore)."""
from __future__ import annotations

import io
import json

import pytest

from ms_lint.findings import Finding
from ms_lint.validate.report import ProgressBar, exit_status, render_json, render_text
from ms_lint.validate.runner import Report, UnitResult, ValidateOptions
from ms_lint.validate.verdicts import (
    CONFIRMED,
    CONFIRMED_BY_PROBE,
    INCONCLUSIVE,
    NOT_APPLICABLE,
    NOT_CHECKED,
    NOT_REACHED,
    NOT_REPRODUCED,
    Verdict,
)


def verdict(line, code, kind, message="m", **extra):
    finding = Finding("/p/pkg/net.py", line, 4, code, "finding", "Net")
    return Verdict(finding, kind, message, "CPU", "strict", "pkg.net:Net", **extra)


def report(*verdicts, interrupted=False, not_checked=()):
    units = [UnitResult("pkg.net:Net", "/p/pkg/net.py", "error", 0.2, False, False, ["Tensor(shape=[-2])"]),
             UnitResult("pkg.net:Head", "/p/pkg/net.py", "ok", None, True, True)]
    return Report(ValidateOptions(), list(verdicts), units, "2.10.0", 3, 1.25, interrupted, list(not_checked))


def test_one_line_per_finding_then_a_summary_table():
    text = render_text(report(
        verdict(10, "MS101", CONFIRMED, "ValueError: should be constant", compiler_message="ValueError: x",
                compiler_location="/p/pkg/net.py:10"),
        verdict(12, "MS201", CONFIRMED_BY_PROBE, "misses 4 parameter(s)", notes=["printed 3.0 MB of output"]),
        verdict(20, "MS102", NOT_REPRODUCED, "compiles under STRICT on CPU"),
        verdict(30, "MS101", INCONCLUSIVE, "Net() needs dim", example="import ms_lint\n"),
        verdict(40, "MS301", NOT_APPLICABLE, "module-level finding"),
    ))
    lines = text.splitlines()
    assert lines[0] == "/p/pkg/net.py:10: MS101 confirmed (CPU, strict): ValueError: should be constant"
    assert lines[1] == ("/p/pkg/net.py:12: MS201 confirmed by probe (CPU, strict): misses 4 parameter(s) "
                        "(note: printed 3.0 MB of output)")
    assert "    add this example to" in text and "        import ms_lint" in text
    assert "MindSpore 2.10.0 on CPU, STRICT: 5 finding(s) in 3 file(s), 2 unit(s) (1 run, 1 from cache)" in text
    table = lines[lines.index(next(line for line in lines if line.startswith("code "))):]
    assert table[0].split() == ["code", "confirmed", "by", "probe", "not", "reproduced", "inconclusive", "not",
                                "applicable"]
    assert table[1].split() == ["MS101", "1", "0", "0", "1", "0"]
    assert table[-1].split() == ["total", "1", "1", "1", "1", "1"]


def test_the_compiler_location_is_shown_when_it_is_not_the_finding_line():
    text = render_text(report(verdict(12, "MS201", CONFIRMED, "RuntimeError: already exists",
                                      compiler_location="/p/pkg/net.py:14")))
    assert "[compiler points at /p/pkg/net.py:14]" in text


def test_an_interrupted_report_lists_what_was_not_checked():
    text = render_text(report(verdict(10, "MS101", CONFIRMED), verdict(30, "MS101", NOT_CHECKED),
                              interrupted=True, not_checked=["pkg.net:Slow"]))
    assert "interrupted: 1 unit(s) not checked: pkg.net:Slow" in text
    assert "not checked" in text.splitlines()[-4]


def test_an_empty_run_says_there_was_nothing_to_validate():
    assert "nothing to validate" in render_text(report())


def test_the_json_report_carries_every_verdict_and_the_summary():
    document = json.loads(render_json(report(
        verdict(10, "MS101", CONFIRMED, "ValueError: x", compiler_message="ValueError: x"),
        verdict(30, "MS101", INCONCLUSIVE, "needs dim", example="code"),
    )))
    assert document["device"] == "CPU" and document["syntax_level"] == "strict"
    assert document["mindspore"] == "2.10.0"
    assert document["summary"][CONFIRMED] == 1 and document["summary"][INCONCLUSIVE] == 1
    first = document["findings"][0]
    assert (first["path"], first["line"], first["code"], first["verdict"]) == ("/p/pkg/net.py", 10, "MS101",
                                                                               CONFIRMED)
    assert first["compiler_message"] == "ValueError: x"
    assert document["findings"][1]["example"] == "code"
    assert document["units"][1]["cached"] is True


@pytest.mark.parametrize("kinds, fail_on, status", [
    ([CONFIRMED], "confirmed", 1),
    ([CONFIRMED_BY_PROBE], "confirmed", 1),
    ([INCONCLUSIVE, NOT_REPRODUCED], "confirmed", 0),
    ([INCONCLUSIVE], "any", 1),
    ([NOT_APPLICABLE], "any", 1),
    ([NOT_REPRODUCED], "any", 0),
    ([CONFIRMED], "never", 0),
    ([], "any", 0),
])
def test_exit_status_by_fail_on(kinds, fail_on, status):
    assert exit_status(report(*(verdict(i, "MS101", kind) for i, kind in enumerate(kinds))), fail_on) == status


def test_an_interrupted_run_exits_130():
    assert exit_status(report(verdict(1, "MS101", CONFIRMED), interrupted=True), "never") == 130


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def test_the_progress_bar_draws_only_on_a_terminal_and_for_more_than_a_few_jobs():
    terminal = FakeTerminal()
    bar = ProgressBar(stream=terminal)
    bar(1, 3, "pkg:A")
    assert terminal.getvalue() == ""
    bar(2, 8, "pkg:B")
    assert "[######..................] 2/8 compiled" in terminal.getvalue()
    bar.finish()
    assert terminal.getvalue().endswith("\r")
    pipe = io.StringIO()
    ProgressBar(stream=pipe)(2, 8, "pkg:B")
    assert pipe.getvalue() == ""


def test_examples_print_their_shared_imports_once():
    example = "import mindspore as ms\nimport ms_lint\n\n\n@ms_lint.example(\"pkg.net:{}\")\ndef f():\n    pass\n"
    first = verdict(10, "MS101", INCONCLUSIVE, "Net() needs dim", example=example.format("Net"))
    second = verdict(20, "MS101", INCONCLUSIVE, "Head() needs dim", example=example.format("Head"))
    second.target = "pkg.net:Head"
    text = render_text(report(first, second))
    assert text.count("import ms_lint") == 1 and text.count("import mindspore as ms") == 1
    assert '@ms_lint.example("pkg.net:Head")' in text
    # The examples file does not exist yet: the hint says it is a new file.
    assert "ms_lint_examples.py (a new file):" in text


def test_a_run_with_most_findings_undecided_says_so_last_and_offers_the_gate():
    from ms_lint.validate.verdicts import NOT_REACHED

    mostly_open = report(verdict(10, "MS101", INCONCLUSIVE), verdict(11, "MS101", NOT_REACHED),
                         verdict(12, "MS101", NOT_REPRODUCED), verdict(13, "MS301", NOT_APPLICABLE))
    last = render_text(mostly_open).rstrip("\n").splitlines()[-1]
    assert last.startswith("most findings are undecided (2 of 3)") and "--fail-on undecided" in last
    assert exit_status(mostly_open, "confirmed") == 0
    assert exit_status(mostly_open, "undecided") == 1
    decided = report(verdict(10, "MS101", CONFIRMED), verdict(12, "MS101", NOT_REPRODUCED))
    assert "undecided" not in render_text(decided)
    assert exit_status(report(verdict(12, "MS101", NOT_REPRODUCED)), "undecided") == 0


def test_sarif_carries_every_verdict_for_code_scanning(tmp_path):
    from ms_lint.validate.report import render_sarif

    document = json.loads(render_sarif(report(
        verdict(10, "MS101", CONFIRMED, "ValueError: should be constant", built="Net() (no arguments)"),
        verdict(11, "MS201", CONFIRMED_BY_PROBE, "misses 4 parameter(s)"),
        verdict(12, "MS101", NOT_REPRODUCED, "compiles"),
        verdict(13, "MS101", NOT_REACHED, "not compiled: `self.training` was False"),
        verdict(14, "MS101", INCONCLUSIVE, "Net() needs dim"),
        verdict(15, "MS301", NOT_APPLICABLE, "module-level finding"),
        verdict(16, "MS101", NOT_CHECKED, "interrupted"),
    ), cwd=str(tmp_path)))
    assert document["version"] == "2.1.0"
    results = document["runs"][0]["results"]
    # Confirmed: error; undecided: warning; cleared, not reached or nothing to run: note.
    assert [result["level"] for result in results] == ["error", "error", "note", "note", "warning", "note",
                                                       "warning"]
    assert [result["properties"]["verdict"] for result in results] == [
        CONFIRMED, CONFIRMED_BY_PROBE, NOT_REPRODUCED, NOT_REACHED, INCONCLUSIVE, NOT_APPLICABLE, NOT_CHECKED]
    assert results[0]["properties"]["built"] == "Net() (no arguments)"
    assert "[ms-lint validate: confirmed: ValueError: should be constant]" in results[0]["message"]["text"]


@pytest.mark.parametrize("message, expected", [
    ("\n----------------------------------------------------\n- Framework Unexpected Exception Raised:\n"
     "----------------------------------------------------\nThis exception is caused by framework's unexpected "
     "error.\n\n----\n- C++ Call Stack: (For framework developers)\n----\nfoo.cc:10 Run",
     "This exception is caused by framework's unexpected error."),
    ("For 'MatMulExt' op, shape1[-1] must be equal to shape2[-2]\n\n-----\n- C++ Call Stack: (For framework "
     "developers)\n-----\nmatmul_ext.cc:43 CheckMatMulShapes", "For 'MatMulExt' op, shape1[-1] must be equal to "
     "shape2[-2]"),
    ("-----\n- C++ Call Stack: (For framework developers)\n-----\nmatmul.cc:1 X", ""),
    ("", ""),
])
def test_the_error_line_is_the_message_never_a_divider(message, expected):
    from ms_lint.validate.locations import message_line

    assert message_line(message) == expected


def test_progress_shows_from_the_start_of_a_run(tmp_path, monkeypatch):
    from ms_lint.validate import runner

    class Recorder:
        def __init__(self):
            self.phases = []

        def phase(self, text):
            self.phases.append(text)

        def __call__(self, done, total, target):
            pass

    module = tmp_path / "clean.py"
    module.write_text("def f():\n    return 1\n")
    progress = Recorder()
    runner.validate_paths([str(module)], ValidateOptions(use_cache=False), progress=progress)
    assert progress.phases[:2] == ["running the static checks", "planning 0 finding(s)"]
    assert progress.phases[-1] == "0 unit(s) from the cache, 0 to compile"
    # On a terminal the phase is drawn even for runs too small for the bar; elsewhere nothing is written.
    terminal = FakeTerminal()
    ProgressBar(stream=terminal).phase("planning 3 finding(s)")
    assert "planning 3 finding(s), 0 s" in terminal.getvalue()
    quiet = io.StringIO()
    ProgressBar(stream=quiet).phase("planning")
    assert quiet.getvalue() == ""
