"""The pylint plugin (``ms_lint.pylint_plugin``) with the real pylint, in this process: same findings as
``ms-lint check``, pylint's own enable/disable, ``# noqa``, options, and files it cannot check."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from pylint.lint import Run
from pylint.reporters import CollectingReporter

from ms_lint.lint import check_files, discover_files
from ms_lint.config import resolve_options
from ms_lint.pylint_plugin import CHECKER_NAME, msgid_for
from ms_lint.rules import ALL_RULES, RULES_BY_CODE

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "sample_projects"
CORPUS = REPO / "benchmarks" / ".corpus" / "src"  # the wheels benchmarks/corpus.py downloads and unpacks
OFF_BY_DEFAULT = sorted(rule.code for rule in ALL_RULES if not rule.enabled_by_default)

HAZARD = '''\
import numpy as np
import mindspore.nn as nn


class Net(nn.Cell):
    def construct(self, x):
        return np.maximum(x, 0)
'''
HAZARD_LINE = 7

MASKED = '''\
import mindspore.nn as nn


class Net(nn.Cell):
    def construct(self, x):
        return x[x > 0]
'''
MASKED_LINE = 6


@pytest.fixture(scope="module")
def rcfile(tmp_path_factory) -> str:
    """An empty configuration, so that no pylintrc around the tests changes what pylint runs."""
    path = tmp_path_factory.mktemp("pylintrc") / "pylintrc"
    path.write_text("[MAIN]\n")
    return str(path)


def pylint(rcfile: str, *args: str) -> list:
    """pylint's messages for ``args`` (options and files), with the plugin loaded, checking at STRICT (the level at
    which every rule reports; ``args`` may name another) as ``check`` does."""
    reporter = CollectingReporter()
    Run([f"--rcfile={rcfile}", "--load-plugins=ms_lint.pylint_plugin", "--persistent=n", "--score=n",
         "--ms-syntax-level=strict", *args], reporter=reporter, exit=False)
    return reporter.messages


def ms_messages(messages: list) -> list:
    return [m for m in messages if m.msg.startswith("MS")]


def as_triples(messages: list) -> set[tuple[str, int, str]]:
    """(absolute path, line, MS code) of each message."""
    return {(os.path.abspath(m.abspath), m.line, m.msg.split()[0]) for m in messages}


def check(paths: list[str], **command_line) -> set[tuple[str, int, str]]:
    """``ms-lint check``'s (absolute path, line, code) for ``paths``, reading no configuration file, at STRICT."""
    options = resolve_options({"cache": False, "ms-syntax-level": "strict", **command_line}, isolated=True)
    outcome = check_files(discover_files(paths, options), options)
    assert not outcome.errors
    return {(os.path.abspath(r.finding.path), r.finding.line, r.finding.code) for r in outcome.reported}


def sample_files() -> list[str]:
    options = resolve_options({}, isolated=True)
    return discover_files([str(SAMPLES)], options)


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


# ------------------------------------------------------------------------------------------------ message table


def test_one_message_per_rule_named_by_the_rule_with_an_id_from_its_code():
    from pylint.lint import PyLinter

    linter = PyLinter()
    linter.load_default_plugins()
    linter.load_plugin_modules(["ms_lint.pylint_plugin"])
    checkers = [c for c in linter.get_checkers() if c.name == CHECKER_NAME]
    assert len(checkers) == 1
    definitions = {d.symbol: d for d in checkers[0].messages}
    assert set(definitions) == {rule.name for rule in ALL_RULES}
    for rule in ALL_RULES:
        definition = definitions[rule.name]
        letter = {"error": "E", "warning": "W", "note": "C"}[rule.level]
        assert definition.msgid == msgid_for(rule) == letter + "9" + rule.code[2:]
        assert linter.is_message_enabled(definition.msgid) is rule.enabled_by_default
    assert msgid_for(RULES_BY_CODE["MS101"]) == "E9101"
    assert msgid_for(RULES_BY_CODE["MS501"]) == "W9501"
    assert msgid_for(RULES_BY_CODE["MS900"]) == "E9900"


# ------------------------------------------------------------------------------- same findings as ms-lint check


def test_every_sample_project_gives_what_ms_lint_check_gives(rcfile):
    files = sample_files()
    assert len(files) > 20
    every_rule = ",".join(OFF_BY_DEFAULT)
    expected = check([str(SAMPLES)], **{"extend-select": every_rule})
    assert {code for _, _, code in expected} == set(RULES_BY_CODE) - {"MS900"}  # every rule takes part
    messages = pylint(rcfile, "--disable=all", f"--enable={CHECKER_NAME}", *files)
    assert as_triples(messages) == expected
    assert all(m.symbol in {rule.name for rule in ALL_RULES} for m in messages)


def test_pylint_default_checks_and_the_plugin_give_ms_lint_checks_default_findings(rcfile):
    files = [str(path) for path in sorted((SAMPLES / "hazardous_project").rglob("*.py"))]
    messages = pylint(rcfile, *files)
    assert any(not m.msg.startswith("MS") for m in messages)  # pylint's own checks ran too
    assert as_triples(ms_messages(messages)) == check([str(SAMPLES / "hazardous_project")])
    assert not {code for _, _, code in as_triples(ms_messages(messages))} & set(OFF_BY_DEFAULT)


@pytest.mark.slow
def test_mindocr_wheel_gives_what_ms_lint_check_gives(rcfile):
    roots = sorted(CORPUS.glob("mindocr-0.5.0*/mindocr")) if CORPUS.is_dir() else []
    if not roots:
        pytest.skip(f"the mindocr 0.5.0 wheel is not unpacked under {CORPUS} (python benchmarks/corpus.py "
                    "--packages mindocr==0.5.0 fetches it)")
    expected = check([str(roots[0])])
    assert len(expected) > 10
    files = discover_files([str(roots[0])], resolve_options({}, isolated=True))
    messages = pylint(rcfile, "--disable=all", f"--enable={CHECKER_NAME}", *[f"--disable={c}" for c in
                      (RULES_BY_CODE[code].name for code in OFF_BY_DEFAULT)], *files)
    assert as_triples(messages) == expected


# ------------------------------------------------------------------------------------------ enabling, disabling


def test_disable_all_enable_ms_lint_reports_only_ms_lint_messages(rcfile, tmp_path):
    path = write(tmp_path, "only_ms.py", HAZARD + "unused = undefined_name\n")
    everything = pylint(rcfile, path)
    assert {m.symbol for m in everything} >= {"host-library-call", "undefined-variable"}
    only_ms = pylint(rcfile, "--disable=all", f"--enable={CHECKER_NAME}", path)
    assert [(m.line, m.symbol, m.msg_id) for m in only_ms] == [(HAZARD_LINE, "host-library-call", "E9101")]
    assert only_ms[0].msg.startswith("MS101 numpy.maximum() on tensor data in graph code (Net.construct)")
    assert only_ms[0].column == HAZARD.splitlines()[HAZARD_LINE - 1].index("np.maximum")


def test_disable_by_symbol_or_id_on_the_command_line(rcfile, tmp_path):
    path = write(tmp_path, "disabled.py", HAZARD)
    assert [m.symbol for m in pylint(rcfile, "--disable=all", "--enable=host-library-call", path)] == [
        "host-library-call"]
    assert pylint(rcfile, "--disable=all", f"--enable={CHECKER_NAME}", "--disable=host-library-call", path) == []
    assert pylint(rcfile, "--disable=all", f"--enable={CHECKER_NAME}", "--disable=E9101", path) == []


def test_pylint_disable_comment_on_the_line(rcfile, tmp_path):
    source = HAZARD.replace("np.maximum(x, 0)", "np.maximum(x, 0)  # pylint: disable=host-library-call")
    path = write(tmp_path, "pragma.py", source + "\n\nclass Other(nn.Cell):\n    def construct(self, x):\n"
                 "        return np.minimum(x, 0)\n")
    messages = pylint(rcfile, "--disable=all", f"--enable={CHECKER_NAME}", path)
    assert [(m.line, m.symbol) for m in messages] == [(HAZARD_LINE + 5, "host-library-call")]


@pytest.mark.parametrize("comment", ["# noqa: MS101", "# noqa:MS1", "# noqa", "# NOQA: E501,MS101"])
def test_noqa_comment_silences_as_in_ms_lint_check(rcfile, tmp_path, comment):
    source = HAZARD.replace("np.maximum(x, 0)", f"np.maximum(x, 0)  {comment}")
    path = write(tmp_path, "noqa_comment.py", source)
    assert check([path]) == set()
    assert pylint(rcfile, "--disable=all", f"--enable={CHECKER_NAME}", path) == []


def test_noqa_for_another_code_does_not_silence(rcfile, tmp_path):
    path = write(tmp_path, "noqa_other.py", HAZARD.replace("np.maximum(x, 0)", "np.maximum(x, 0)  # noqa: MS102"))
    assert as_triples(pylint(rcfile, "--disable=all", f"--enable={CHECKER_NAME}", path)) == check([path]) == {
        (path, HAZARD_LINE, "MS101")}


def test_flake8_noqa_line_skips_the_file(rcfile, tmp_path):
    path = write(tmp_path, "skipped.py", "# flake8: noqa\n" + HAZARD)
    assert pylint(rcfile, "--disable=all", f"--enable={CHECKER_NAME}", path) == []


def test_rules_off_by_default_are_off_until_enabled(rcfile, tmp_path):
    path = write(tmp_path, "masked.py", MASKED)
    assert check([path]) == set()
    assert check([path], **{"extend-select": "MS110"}) == {(path, MASKED_LINE, "MS110")}
    assert ms_messages(pylint(rcfile, path)) == []
    enabled = pylint(rcfile, "--disable=all", "--enable=dynamic-shape", path)
    assert [(m.line, m.symbol, m.msg.split()[0]) for m in enabled] == [(MASKED_LINE, "dynamic-shape", "MS110")]
    pragma = write(tmp_path, "masked_pragma.py", "# pylint: enable=dynamic-shape\n" + MASKED)
    assert [(m.line, m.symbol) for m in ms_messages(pylint(rcfile, pragma))] == [(MASKED_LINE + 1, "dynamic-shape")]


# ------------------------------------------------------------------------------------------------------ options


def test_ms_mode_option_changes_the_findings(rcfile, tmp_path):
    path = write(tmp_path, "mode.py", HAZARD)
    assert [m.symbol for m in pylint(rcfile, "--disable=all", f"--enable={CHECKER_NAME}", path)] == [
        "host-library-call"]
    assert check([path], **{"ms-mode": "pynative"}) == set()
    assert pylint(rcfile, "--disable=all", f"--enable={CHECKER_NAME}", "--ms-mode=pynative", path) == []


def test_options_from_an_ms_lint_section_of_the_pylintrc(tmp_path):
    path = write(tmp_path, "configured.py", HAZARD)
    configured = tmp_path / "pylintrc"
    configured.write_text("[MAIN]\nload-plugins=ms_lint.pylint_plugin\n\n[MESSAGES CONTROL]\ndisable=all\n"
                          "enable=ms-lint\n\n[ms-lint]\nms-mode=pynative\n")
    assert pylint(str(configured), path) == []
    configured.write_text(configured.read_text().replace("pynative", "graph"))
    assert [m.symbol for m in pylint(str(configured), path)] == ["host-library-call"]


def test_options_from_pyproject_toml(tmp_path):
    path = write(tmp_path, "configured_toml.py", HAZARD)
    configured = tmp_path / "pyproject.toml"
    configured.write_text('[tool.pylint.main]\nload-plugins = ["ms_lint.pylint_plugin"]\n\n'
                          '[tool.pylint."messages control"]\ndisable = ["all"]\nenable = ["ms-lint"]\n\n'
                          '[tool.pylint.ms-lint]\nper-path-ms-mode = "configured_toml.py:pynative"\n')
    assert pylint(str(configured), path) == []


def test_unusable_option_value_is_a_usage_error(rcfile, tmp_path, capsys):
    path = write(tmp_path, "bad_option.py", HAZARD)
    with pytest.raises(SystemExit) as stopped:
        pylint(rcfile, "--ms-syntax-level=loose", path)
    assert stopped.value.code == 32
    assert "ms-syntax-level must be one of strict, lax, not 'loose'" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------ files it cannot check


def test_syntax_error_is_pylints_own_message_and_nothing_crashes(rcfile, tmp_path):
    path = write(tmp_path, "broken.py", "import mindspore\ndef construct(self:\n")
    messages = pylint(rcfile, path)
    assert [m.symbol for m in messages] == ["syntax-error"]


def test_undecodable_file_does_not_crash(rcfile, tmp_path):
    path = tmp_path / "latin.py"
    path.write_bytes(b"import mindspore\nname = '\xe9t\xe9'\n")
    messages = pylint(rcfile, str(path))
    assert messages and all(not m.msg.startswith("MS") or m.symbol == "internal-error" for m in messages)
    assert check([str(path)]) == {(str(path), 2, "E902")}


def test_file_too_deep_to_analyse_is_one_internal_error_message(rcfile, tmp_path):
    # An attribute chain astroid builds at Python's default recursion limit, and ms-lint's analysis does not.
    source = ("import mindspore.nn as nn\n\nclass Net(nn.Cell):\n    def construct(self, x):\n"
              "        y = x" + ".a" * 400 + "\n        return y\n")
    path = write(tmp_path, "deep.py", source)
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        messages = pylint(rcfile, "--disable=all", f"--enable={CHECKER_NAME}", path)
    finally:
        sys.setrecursionlimit(previous)
    assert [(m.line, m.symbol, m.msg_id) for m in messages] == [(1, "internal-error", "E9900")]
    assert messages[0].msg.startswith("MS900 ms-lint could not check this file (RecursionError")


def test_plugin_does_not_import_mindspore(tmp_path):
    import subprocess

    path = write(tmp_path, "no_import.py", HAZARD)
    code = ("import sys\nfrom pylint.lint import Run\nRun(['--load-plugins=ms_lint.pylint_plugin', '--disable=all',"
            f" '--enable=ms-lint', '--ms-syntax-level=strict', {path!r}], exit=False)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('mindspore', 'torch')))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                            cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert "MS101" in result.stdout, result.stdout + result.stderr
    assert result.stdout.rstrip().endswith("[]"), result.stdout


def _pylint_process(*args: str, cwd: Path, stdin: str | None = None):
    import subprocess

    return subprocess.run([sys.executable, "-m", "pylint", "--load-plugins=ms_lint.pylint_plugin", "--persistent=n",
                           "--score=n", "--ms-syntax-level=strict", "--msg-template={abspath}:{line}: {msg}", *args],
                          input=stdin,
                          capture_output=True, text=True, timeout=600, cwd=cwd,
                          env={**os.environ, "PYTHONPATH": str(REPO)})


def _triples(report: str) -> set[tuple[str, int, str]]:
    found = set()
    for line in report.splitlines():
        path, _, rest = line.partition(":")
        number, _, message = rest.partition(": ")
        if message.startswith("MS"):
            found.add((path, int(number), message.split()[0]))
    return found


def test_editor_buffer_on_standard_input_is_checked_not_the_saved_file(tmp_path, rcfile):
    path = write(tmp_path, "buffer.py", "x = 1\n")  # the saved file holds no hazard; the unsaved buffer does
    result = _pylint_process(f"--rcfile={rcfile}", "--disable=all", "--enable=ms-lint", "--from-stdin", path,
                             cwd=tmp_path, stdin=HAZARD)
    assert _triples(result.stdout) == {(path, HAZARD_LINE, "MS101")}, result.stdout + result.stderr


def test_parallel_pylint_gives_the_same_findings(tmp_path, rcfile):
    project = SAMPLES / "hazardous_project"
    result = _pylint_process(f"--rcfile={rcfile}", "--jobs=2", str(project), cwd=tmp_path)
    assert "Traceback" not in result.stderr, result.stderr
    assert _triples(result.stdout) == check([str(project)])
