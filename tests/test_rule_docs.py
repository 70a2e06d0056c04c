"""Each rule's documentation is complete, and its examples are true: the rule reports its ``example`` and not
its ``use_instead``."""
from __future__ import annotations

import ast
import textwrap

import pytest

from ms_lint.engine import check_source
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
def test_documentation_has_every_heading(rule):
    text = rule.documentation()
    for heading in ("## What it does", "## Why is this bad?", "## Example", "## Use instead", "## Autofix"):
        assert heading in text
    assert rule.code.startswith("MS") and len(rule.code) == 5
    assert rule.summary and rule.fix_summary and "\n" not in rule.summary


@pytest.mark.parametrize("rule", DOCUMENTED, ids=lambda r: r.code)
def test_example_is_reported_and_fix_is_not(rule):
    example = PRELUDE + textwrap.dedent(rule.example)
    fixed = PRELUDE + textwrap.dedent(rule.use_instead)
    ast.parse(example)
    ast.parse(fixed)
    settings = Settings(syntax_level="strict")
    assert rule.code in {f.code for f in check_source(example, "example.py", settings, [rule.code])}
    assert rule.code not in {f.code for f in check_source(fixed, "example.py", settings, [rule.code])}


def test_codes_are_unique_and_sorted():
    codes = [rule.code for rule in ALL_RULES]
    assert codes == sorted(set(codes))
