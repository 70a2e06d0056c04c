"""``ms-tensor-methods``: methods a project's compatibility layer adds to Tensor at run time are not reported by
MS602, through every front end (flake8, ``ms-lint check`` and its configuration, pylint)."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from ms_lint.engine import check_file
from ms_lint.settings import Settings, SettingsError

MODEL = textwrap.dedent("""\
    from mindspore import nn


    class Router(nn.Cell):
        def construct(self, x):
            counts = (x > 0).sum(0)
            return x * counts.detach(), x.cpu()
""")


@pytest.fixture
def project(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "app"\nversion = "0.1.0"\n')
    (tmp_path / "model.py").write_text(MODEL)
    return tmp_path


def names(findings) -> list[str]:
    return [finding.data["name"] for finding in findings if finding.code == "MS602"]


def test_the_named_methods_are_taken_as_existing(project):
    path = str(project / "model.py")
    assert names(check_file(path, Settings(), ("MS602",))) == ["detach", "cpu"]
    assert names(check_file(path, Settings(tensor_methods=("detach",)), ("MS602",))) == ["cpu"]
    assert names(check_file(path, Settings.from_values(tensor_methods="detach, cpu"), ("MS602",))) == []


def test_names_are_parsed_once_each_and_checked():
    assert Settings.from_values(tensor_methods="detach,backward detach").tensor_methods == ("detach", "backward")
    assert Settings.from_values(tensor_methods=["detach", "cpu"]).tensor_methods == ("detach", "cpu")
    with pytest.raises(SettingsError, match="'x.detach' is not a method name"):
        Settings(tensor_methods=("x.detach",))


def test_ms_lint_check_option_and_configuration(project, monkeypatch, capsys):
    from ms_lint.cli import main

    monkeypatch.chdir(project)
    assert main(["check", "--select=MS602", "--ms-tensor-methods=detach", "model.py"]) == 1
    out = capsys.readouterr().out
    assert ".cpu()" in out and ".detach()" not in out
    with open(project / "pyproject.toml", "a") as config:
        config.write('[tool.ms-lint]\nselect = ["MS602"]\nms-tensor-methods = ["detach", "cpu"]\n')
    assert main(["check", "model.py"]) == 0
    capsys.readouterr()
    (project / "pyproject.toml").write_text('[tool.ms-lint]\nms-tensor-methods = ["x.cpu"]\n')
    assert main(["check", "model.py"]) == 2
    assert "ms-tensor-methods holds method names, not 'x.cpu'" in capsys.readouterr().err


def test_flake8_option(project):
    result = subprocess.run([sys.executable, "-m", "flake8", "--select=MS602", "--ms-tensor-methods=cpu",
                             "model.py"], cwd=project, capture_output=True, text=True, timeout=120)
    assert [line.split()[1] for line in result.stdout.splitlines()] == ["MS602"], result.stdout + result.stderr
    assert ".detach()" in result.stdout
    result = subprocess.run([sys.executable, "-m", "flake8", "--select=MS602", "--ms-tensor-methods=a-b",
                             "model.py"], cwd=project, capture_output=True, text=True, timeout=120)
    assert result.returncode != 0 and "'a-b' is not a method name" in result.stderr
    assert "Traceback" not in result.stderr


def test_pylint_option(project, tmp_path_factory):
    from pylint.lint import Run
    from pylint.reporters import CollectingReporter

    rcfile = tmp_path_factory.mktemp("pylintrc") / "pylintrc"
    rcfile.write_text("[MAIN]\n")

    def messages(*args: str) -> list[str]:
        reporter = CollectingReporter()
        Run([f"--rcfile={rcfile}", "--load-plugins=ms_lint.pylint_plugin", "--persistent=n", "--score=n",
             "--disable=all", "--enable=ms-lint", *args, str(project / "model.py")], reporter=reporter, exit=False)
        return [message.msg for message in reporter.messages]

    assert len(messages()) == 2
    assert [text for text in messages("--ms-tensor-methods=detach") if ".detach()" in text] == []
    assert len(messages("--ms-tensor-methods=detach,cpu")) == 0
