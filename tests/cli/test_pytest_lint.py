"""``pytest --ms-lint``: one item per Python file, failing with the findings, cached by content between runs."""
from __future__ import annotations

import textwrap
from importlib.metadata import entry_points

import pytest

from .support import SAMPLE_PROJECT

pytest_plugins = ["pytester"]

PLUGIN = "ms_lint.pytest_lint"


def _plugin_args() -> list[str]:
    """Load the plugin explicitly unless the installed package already registers it under ``pytest11``.

    Hypothesis's plugin is left out of the inner runs: it imports all of hypothesis again in each one (seconds).
    """
    installed = any(ep.value == PLUGIN for ep in entry_points(group="pytest11"))
    return ["-p", "no:hypothesispytest"] + ([] if installed else ["-p", PLUGIN])


@pytest.fixture
def lint_project(pytester):
    for path in SAMPLE_PROJECT.rglob("*.py"):
        relative = path.relative_to(SAMPLE_PROJECT)
        target = pytester.path / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(path.read_text())
    return pytester


def run(pytester, *args: str):
    return pytester.runpytest(*_plugin_args(), "--ms-lint", *args)


def test_one_item_per_file_failing_with_the_findings(lint_project):
    result = run(lint_project, "-v")
    result.assert_outcomes(passed=3, failed=2)
    result.stdout.fnmatch_lines([
        "pkg/__init__.py::ms-lint PASSED*",
        "pkg/blocks.py::ms-lint PASSED*",
        "pkg/clean.py::ms-lint PASSED*",
        "pkg/head.py::ms-lint FAILED*",
        "pkg/model.py::ms-lint FAILED*",
    ])
    result.stdout.fnmatch_lines([
        "*_ ms-lint pkg/model.py _*",
        "pkg/model.py:8:9: MS201 Cells in a plain Python list*",
        "pkg/model.py:11:13: MS101 numpy.sin()*",
        "pkg/model.py:12:20: MS102 .asnumpy()*",
    ])
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_files_that_passed_are_skipped_until_they_change(lint_project):
    run(lint_project).assert_outcomes(passed=3, failed=2)
    second = run(lint_project, "-rs")
    second.assert_outcomes(skipped=3, failed=2)
    second.stdout.fnmatch_lines(["*unchanged since it passed ms-lint*"])

    clean = lint_project.path / "pkg" / "clean.py"
    clean.write_text(clean.read_text() + "\n\nVALUE = 1\n")
    run(lint_project).assert_outcomes(passed=1, skipped=2, failed=2)

    model = lint_project.path / "pkg" / "model.py"
    model.write_text((lint_project.path / "pkg" / "clean.py").read_text())
    run(lint_project).assert_outcomes(passed=1, skipped=3, failed=1)
    run(lint_project).assert_outcomes(skipped=4, failed=1)


def test_cache_clear_and_changed_options_check_again(lint_project):
    run(lint_project).assert_outcomes(passed=3, failed=2)
    run(lint_project, "--cache-clear").assert_outcomes(passed=3, failed=2)
    (lint_project.path / "pyproject.toml").write_text('[tool.ms-lint]\nms-mode = "pynative"\n')
    run(lint_project).assert_outcomes(passed=4, failed=1)


def test_configuration_is_read_from_the_root(lint_project):
    (lint_project.path / "setup.cfg").write_text(textwrap.dedent("""
        [flake8]
        per-file-ignores = pkg/model.py:MS1,MS2
        extend-exclude = head.py
    """))
    result = run(lint_project, "-v")
    result.assert_outcomes(passed=4)
    assert "head.py" not in result.stdout.str()


def test_lint_items_can_be_selected_by_marker(lint_project):
    (lint_project.path / "test_something.py").write_text("def test_ok():\n    assert True\n")
    result = run(lint_project, "-m", "ms_lint")
    result.assert_outcomes(passed=4, failed=2, deselected=1)


def test_configuration_error_is_a_usage_error(lint_project):
    (lint_project.path / "pyproject.toml").write_text('[tool.ms-lint]\nms-mode = "eager"\n')
    result = run(lint_project)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "ms-lint: pyproject.toml [tool.ms-lint]: ms-mode must be one of graph, pynative, not 'eager'" in (
        result.stderr.str())


def test_without_the_option_nothing_is_linted(lint_project):
    result = lint_project.runpytest(*_plugin_args())
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_an_edited_base_class_in_another_module_is_seen_without_cache_clear(lint_project):
    pkg = lint_project.path / "pkg"
    (pkg / "base.py").write_text("class Base:\n    pass\n")
    (pkg / "net.py").write_text(textwrap.dedent("""\
        import mindspore
        from pkg.base import Base


        class Net(Base):
            def construct(self, x):
                return x.asnumpy()
        """))
    run(lint_project).assert_outcomes(passed=5, failed=2)  # Base is no Cell: nothing in Net is graph code
    run(lint_project).assert_outcomes(skipped=5, failed=2)
    (pkg / "base.py").write_text("from mindspore import nn\n\n\nclass Base(nn.Cell):\n    pass\n")
    result = run(lint_project, "-v")
    # base.py and net.py are checked again (net.py now fails); the others are still skipped.
    result.assert_outcomes(passed=1, skipped=3, failed=3)
    result.stdout.fnmatch_lines(["pkg/net.py::ms-lint FAILED*", "pkg/net.py:7:16: MS102 .asnumpy()*"])


def test_a_file_python_cannot_decode_fails_with_e902(lint_project):
    (lint_project.path / "pkg" / "latin.py").write_bytes(b"import mindspore\nNAME = 'caf\xe9'\n")
    result = run(lint_project)
    result.assert_outcomes(passed=3, failed=3)
    result.stdout.fnmatch_lines(["pkg/latin.py:2:1: E902 UnicodeDecodeError: 'utf-8' codec can't decode byte 0xe9*"])
