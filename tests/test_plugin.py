"""The flake8 plugin, through real flake8 runs: registration, options, noqa and off-by-default rules."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SOURCE = textwrap.dedent("""\
    import numpy as np
    from mindspore import nn


    class Net(nn.Cell):
        def construct(self, x):
            a = np.sin(x)
            b = x.asnumpy()  # noqa: MS102
            c = x[x > 0]
            return a + b + c
""")


def flake8(*arguments: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "flake8", "--isolated", *arguments], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "model.py").write_text(SOURCE)
    return tmp_path


def test_plugin_is_registered_and_reports_ms_codes(project):
    result = flake8("--ms-syntax-level=strict", "model.py", cwd=project)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "model.py:7:13: MS101 numpy.sin() on tensor data in graph code (Net.construct) fails to compile under STRICT "
        '(ValueError "inputs should be constant"); LAX runs it in the Python interpreter and gives a numpy array, not '
        "a Tensor (measured: a tensor operand of `+` refuses it with TypeError, ops.relu returns a wrong value); use "
        "mindspore.ops.sin",
    ]


def test_syntax_level_option_changes_what_is_reported(project):
    result = flake8("--ms-syntax-level=lax", "model.py", cwd=project)
    assert result.returncode == 0, result.stdout


def test_off_by_default_rules_are_in_flake8s_default_ignore_list(project):
    # Off in a plain run; on where a selection names them or a prefix of them, as `--select=W` turns on W503.
    assert "MS110" not in flake8("--ms-syntax-level=strict", "model.py", cwd=project).stdout
    assert "MS110" not in flake8("--extend-select=MS101", "model.py", cwd=project).stdout
    for arguments in (["--select=MS"], ["--select=E,F,W,MS"], ["--select=MS1"], ["--ignore=E501"]):
        assert "MS110" in flake8(*arguments, "model.py", cwd=project).stdout, arguments


def test_off_by_default_rule_runs_when_selected(project):
    result = flake8("--select=MS", "--ms-syntax-level=strict", "--extend-select=MS110", "model.py", cwd=project)
    assert [line.split()[1] for line in result.stdout.splitlines()] == ["MS101", "MS110"]


def test_pynative_mode_option(project):
    result = flake8("--select=MS", "--ms-mode=pynative", "model.py", cwd=project)
    # Eager Cells: numpy and asnumpy run, but the host copy cuts the gradient of the output built from it.
    assert [line.split()[1] for line in result.stdout.splitlines()] == ["MS112"]


def test_config_file_options(project):
    # the project selects STRICT in its own code: MS101 is reported until the configuration says lax
    (project / "train.py").write_text(
        "import mindspore as ms\nms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)\n")
    (project / "setup.cfg").write_text("[flake8]\nextend-ignore = E501\n")
    result = subprocess.run([sys.executable, "-m", "flake8", "model.py"], cwd=project, capture_output=True,
                            text=True, timeout=120)
    assert [line.split()[1] for line in result.stdout.splitlines()] == ["MS101"], result.stdout + result.stderr
    (project / "setup.cfg").write_text("[flake8]\nextend-ignore = E501\nms-syntax-level = lax\nms-device = cpu\n")
    result = subprocess.run([sys.executable, "-m", "flake8", "model.py"], cwd=project, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


def test_unknown_option_value_is_one_clear_error(project):
    result = flake8("--select=MS", "--ms-syntax-level=loose", "model.py", cwd=project)
    assert result.returncode != 0
    assert "ms-syntax-level must be one of strict, lax, not 'loose'" in result.stderr
    assert "Traceback" not in result.stderr
    for option, message in (("--ms-device=npu", "ms-device must be one of ascend, gpu, cpu, any, not 'npu'"),
                            ("--ms-version=latest", "ms-version must be a MindSpore version such as 2.7.1")):
        result = flake8("--select=MS", option, "model.py", cwd=project)
        assert result.returncode != 0 and message in result.stderr, result.stderr
        assert "Traceback" not in result.stderr


TRANSPOSE = textwrap.dedent("""\
    import mindspore as ms
    from mindspore import nn, ops


    class Attention(nn.Cell):
        def construct(self, q, k):
            return ops.matmul(q, k.transpose(-2, -1))
""")


def test_device_is_inferred_from_the_project_and_the_option_overrides_it(tmp_path):
    (tmp_path / "model.py").write_text(TRANSPOSE)
    (tmp_path / "train.py").write_text('import mindspore as ms\nms.set_device("Ascend")\nms.set_context(mode=0)\n')
    assert flake8("--select=MS", "model.py", cwd=tmp_path).stdout == ""
    shown = flake8("--select=MS", "--ms-device=cpu", "model.py", cwd=tmp_path).stdout
    assert [line.split()[1] for line in shown.splitlines()] == ["MS601"] and "on CPU:" in shown
    (tmp_path / "train.py").write_text('import mindspore as ms\nms.set_device("CPU")\nms.set_context(mode=0)\n')
    assert [line.split()[1] for line in flake8("--select=MS", "model.py", cwd=tmp_path).stdout.splitlines()] == [
        "MS601"]
    assert flake8("--select=MS", "--ms-device=ascend", "model.py", cwd=tmp_path).stdout == ""


def test_plugin_turns_unusable_input_into_a_finding_instead_of_raising():
    import ast

    from ms_lint.plugin import MsLintChecker

    results = list(MsLintChecker(ast.parse("x = 1\n"), "model.py", None).run())
    assert [(line, message.split()[0]) for line, _, message, _ in results] == [(1, "MS900")]


def test_per_path_mode_from_the_command_line_and_the_config_file(project):
    eager = project / "eager"
    eager.mkdir()
    (eager / "model.py").write_text(SOURCE)
    result = flake8("--select=MS", "--ms-syntax-level=strict", "--per-path-ms-mode=eager/*:pynative", "model.py",
                    "eager/model.py", cwd=project)
    codes = {(line.split(":")[0], line.split()[1]) for line in result.stdout.splitlines()}
    assert ("eager/model.py", "MS112") in codes and ("eager/model.py", "MS101") not in codes
    assert ("model.py", "MS101") in codes and ("model.py", "MS112") not in codes
    (project / "setup.cfg").write_text("[flake8]\nselect = MS\nper-path-ms-mode =\n    eager/*: pynative\n")
    result = subprocess.run([sys.executable, "-m", "flake8", "eager/model.py"], cwd=project, capture_output=True,
                            text=True, timeout=120)
    assert [line.split()[1] for line in result.stdout.splitlines()] == ["MS112"]


def test_per_path_mode_with_an_unknown_mode_is_one_clear_error(project):
    result = flake8("--select=MS", "--per-path-ms-mode=eager/*:eagerly", "model.py", cwd=project)
    assert result.returncode != 0
    assert "per-path-ms-mode: the mode for" in result.stderr and "'eagerly'" in result.stderr
    assert "Traceback" not in result.stderr


PARTIAL_READ_AFTER_IF = textwrap.dedent("""\
        import mindspore.nn as nn


        class Net(nn.Cell):
            def construct(self, x, flag):
                if flag:
                    y = x + 1
                z = x * 2
                w = z + 1
                return y + w
""")


def test_standard_input_ended_by_lone_carriage_returns_keeps_python_s_line_numbers(tmp_path):
    source = PARTIAL_READ_AFTER_IF.replace("\n", "\r")
    result = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select=MS", "--stdin-display-name=model.py", "-"],
        input=source.encode(), cwd=tmp_path, capture_output=True, timeout=120)
    assert result.stderr == b""
    assert [line.split(" ")[:2] for line in result.stdout.decode().splitlines()] == [["model.py:10:16:", "MS116"]]


def test_lines_split_only_at_newlines_are_not_taken_for_python_s_lines():
    # a host handing over untranslated text split at "\n": the lone "\r" inside its one line ends lines for Python
    import ast
    import io

    from ms_lint.plugin import MsLintChecker

    source = PARTIAL_READ_AFTER_IF.replace("\n", "\r")
    lines = list(io.StringIO(source))
    assert len(lines) == 1
    results = list(MsLintChecker(ast.parse(source), "model.py", lines).run())
    assert [(line, message.split()[0]) for line, _, message, _ in results] == [(10, "MS116")]
