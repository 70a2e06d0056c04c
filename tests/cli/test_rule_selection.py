"""One selection, four front ends: the same configuration of select, extend-select, ignore and extend-ignore gives
the same MS findings in flake8 (the plugin), ``ms-lint check`` and ``pytest --ms-lint``, which read one ``[flake8]``
section, and in pylint (the plugin), given the pylintrc the README's Configuration section pairs with it.

The semantics are flake8's own: codes are prefixes, the longest match wins, ``select``/``ignore`` replace the
defaults, the ``extend-`` forms add to them, and the rules that are off by default (MS110, MS131, MS402, MS701)
sit in flake8's default ignore list, so a selection that names them or a prefix of them (``MS``, ``MS1``) turns them
on, as ``--select=W`` turns on flake8's W503; so does an ``ignore`` that replaces the default list. In pylint they
are messages disabled by default: enabling one, or the ``ms-lint`` checker, turns them on.
"""
from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from flake8.main.application import Application
from pylint.lint import Run
from pylint.reporters import CollectingReporter

from ms_lint.rules import ALL_RULES, RULES_BY_CODE

from .test_pytest_lint import _plugin_args

pytest_plugins = ["pytester"]

# MS101 (on by default) at line 8, MS110 (off) at line 9, MS402 (off) at line 14; the script compiles its Cell in
# GRAPH_MODE.
TRAINING_SCRIPT = textwrap.dedent("""\
    import numpy as np
    import mindspore.nn as nn
    from mindspore import GRAPH_MODE, Model, set_context


    class Net(nn.Cell):
        def construct(self, x):
            y = np.maximum(x, 0)
            return x[x > 0] + y


    def main():
        net = Net()
        model = Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.01, 0.9))
        model.train(1, None)


    if __name__ == "__main__":
        set_context(mode=GRAPH_MODE)
        main()
""")
FINDINGS = {"MS101": 8, "MS110": 9, "MS402": 14}


def _symbols(prefix: str) -> str:
    """pylint has no prefixes: a prefix is every rule whose code starts with it, each named by its symbol."""
    return ",".join(rule.name for rule in ALL_RULES if rule.code.startswith(prefix))


# (the [flake8] section's selection, the [MESSAGES CONTROL] section of the pylintrc that means the same, codes)
CASES = [
    ("", "", {"MS101"}),
    ("select = MS", "disable = all\nenable = ms-lint", {"MS101", "MS110", "MS402"}),
    ("select = MS1", f"disable = all\nenable = {_symbols('MS1')}", {"MS101", "MS110"}),
    ("extend-select = MS110", "enable = dynamic-shape", {"MS101", "MS110"}),
    ("extend-select = MS4", f"enable = {_symbols('MS4')}", {"MS101", "MS402"}),
    ("select = MS\nextend-ignore = MS402", "enable = ms-lint\ndisable = training-without-seed", {"MS101", "MS110"}),
    ("extend-ignore = MS101", "disable = host-library-call", set()),
    ("ignore = MS101", "enable = ms-lint\ndisable = host-library-call", {"MS110", "MS402"}),
    ("select = MS1\nignore = MS11", f"disable = all\nenable = {_symbols('MS10')},{_symbols('MS12')},"
     f"{_symbols('MS13')}", {"MS101"}),
]
_FINDING = re.compile(r"^(?:\./)?train\.py:(\d+):\d+: (MS\d{3}) ", re.MULTILINE)


@pytest.fixture
def project(pytester, monkeypatch):
    from ms_lint.plugin import MsLintChecker

    # flake8 runs in this process and sets the plugin's options on its class: they are put back afterwards.
    monkeypatch.setattr(MsLintChecker, "codes", MsLintChecker.codes)
    monkeypatch.setattr(MsLintChecker, "settings", MsLintChecker.settings)
    pytester.path.joinpath("train.py").write_text(TRAINING_SCRIPT)
    return pytester


def found(text: str) -> set[str]:
    findings = {(int(line), code) for line, code in _FINDING.findall(text)}
    assert all(FINDINGS[code] == line for line, code in findings), findings
    return {code for _, code in findings}


def flake8(capsys) -> set[str]:
    capsys.readouterr()
    application = Application()
    application.run(["train.py"])  # reads setup.cfg, as flake8 does
    return found(capsys.readouterr().out)


def ms_lint_check(capsys) -> set[str]:
    from ms_lint.cli import main

    capsys.readouterr()
    main(["check", "--no-cache", "train.py"])
    return found(capsys.readouterr().out)


def pytest_ms_lint(pytester) -> set[str]:
    result = pytester.runpytest(*_plugin_args(), "-p", "no:cacheprovider", "--ms-lint")  # train.py is no test module
    return found(result.stdout.str())


def pylint(path) -> set[str]:
    reporter = CollectingReporter()
    Run([f"--rcfile={path / 'pylintrc'}", "--persistent=n", "--score=n", str(path / "train.py")], reporter=reporter,
        exit=False)
    assert all(message.msg.split()[0] == "MS" + message.msg_id[2:] for message in reporter.messages
               if message.msg.startswith("MS"))
    return found("".join(f"train.py:{m.line}:{m.column}: {m.msg}\n" for m in reporter.messages))


@pytest.mark.parametrize("flake8_selection, pylint_selection, codes", CASES,
                         ids=[" ".join(case[0].split()) or "defaults" for case in CASES])
def test_one_configuration_selects_the_same_rules_in_every_front_end(project, capsys, flake8_selection,
                                                                     pylint_selection, codes):
    (project.path / "setup.cfg").write_text(f"[flake8]\nms-syntax-level = strict\n{flake8_selection}\n")
    (project.path / "pylintrc").write_text(
        f"[MAIN]\nload-plugins = ms_lint.pylint_plugin\n\n[MESSAGES CONTROL]\n{pylint_selection}\n\n"
        "[ms-lint]\nms-syntax-level = strict\n")
    assert {"flake8": flake8(capsys), "ms-lint check": ms_lint_check(capsys), "pytest --ms-lint":
            pytest_ms_lint(project), "pylint": pylint(project.path)} == dict.fromkeys(
        ("flake8", "ms-lint check", "pytest --ms-lint", "pylint"), codes)


def test_the_cases_use_every_selection_key_on_rules_on_and_off_by_default():
    # the script's findings are of one rule on and two off by default
    assert [RULES_BY_CODE[code].enabled_by_default for code in sorted(FINDINGS)] == [True, False, False]
    keys = {line.split("=")[0].strip() for flake8_selection, _, _ in CASES for line in flake8_selection.splitlines()}
    assert keys == {"select", "extend-select", "ignore", "extend-ignore"}


def test_the_readme_names_the_rules_off_by_default_where_it_explains_selecting():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = " ".join(readme[readme.index("### Selecting rules"):].split("\n## ", 1)[0].split())
    named = re.search(r"the rules off by default \(([^)]*)\)", section).group(1)
    assert named.replace(" ", "").split(",") == [rule.code for rule in ALL_RULES if not rule.enabled_by_default]
