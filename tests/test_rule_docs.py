"""Each rule's documentation is complete, and its examples are true: the rule reports its ``example`` and not
its ``use_instead``."""
from __future__ import annotations

import ast
import re
import textwrap

import pytest

from ms_lint.engine import check_file, check_source
from ms_lint.rules import ALL_RULES
from ms_lint.settings import Settings

# The documentation examples leave out the imports every MindSpore module has.
PRELUDE = """\
import os
import random
import threading
import numpy as np
import mindspore
import mindspore as ms
from mindspore import Model, Parameter, ParameterTuple, Tensor, nn, ops
from mindspore.communication import init
"""

DOCUMENTED = [rule for rule in ALL_RULES if rule.code != "MS900"]


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.code)
def test_every_rule_is_documented(rule):
    # documentation() writes the headings itself; what can be missing is what goes under them.
    assert re.fullmatch(r"MS\d{3}", rule.code)
    for attribute in ("summary", "fix_summary", "what", "why"):
        assert getattr(rule, attribute).strip(), f"{rule.code}.{attribute} is empty"
    assert "\n" not in rule.summary
    if rule.code != "MS900":
        ast.parse(textwrap.dedent(rule.example))
        ast.parse(textwrap.dedent(rule.use_instead))


# An example that spans modules heads each with its file name (``# model.py``); it is checked as those files.
_MODULE_HEADING = re.compile(r"^# (\w+)\.py$", re.MULTILINE)


def _codes(text: str, code: str, directory) -> set[str]:
    settings = Settings(syntax_level="strict")
    text = textwrap.dedent(text)
    parts = _MODULE_HEADING.split(text)
    if len(parts) == 1:
        source = PRELUDE + text
        ast.parse(source)
        return {f.code for f in check_source(source, "example.py", settings, [code])}
    directory.mkdir()
    files = []
    for name, body in zip(parts[1::2], parts[2::2]):
        path = directory / f"{name}.py"
        path.write_text(PRELUDE + body)
        ast.parse(path.read_text())
        files.append(str(path))
    return {f.code for path in files for f in check_file(path, settings, [code])}


@pytest.mark.parametrize("rule", DOCUMENTED, ids=lambda r: r.code)
def test_example_is_reported_and_fix_is_not(rule, tmp_path):
    assert rule.code in _codes(rule.example, rule.code, tmp_path / "example")
    assert rule.code not in _codes(rule.use_instead, rule.code, tmp_path / "use_instead")


def test_codes_are_unique_and_sorted():
    codes = [rule.code for rule in ALL_RULES]
    assert codes == sorted(set(codes))
