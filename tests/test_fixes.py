"""Autofix, tested as before/after file pairs: the fixed file is exactly the expected one, still parses, and keeps
every finding the fix does not address."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from ms_lint.engine import check_source
from ms_lint.fixes import fix_source
from ms_lint.rules import RULES_BY_CODE
from ms_lint.settings import Settings

PAIRS = Path(__file__).parent / "fixtures" / "fixes"
BEFORE_FILES = sorted(PAIRS.glob("*_before.py"))


@pytest.mark.parametrize("before", BEFORE_FILES, ids=lambda p: p.stem.removesuffix("_before"))
def test_fix_gives_the_expected_file(before: Path):
    after = before.with_name(before.name.replace("_before", "_after"))
    result = fix_source(before.read_text(), str(before), Settings(syntax_level="strict"), RULES_BY_CODE)
    assert result.fixed == after.read_text()
    ast.parse(result.fixed)


@pytest.mark.parametrize("before", BEFORE_FILES, ids=lambda p: p.stem.removesuffix("_before"))
def test_unfixable_findings_remain_and_fixed_ones_are_gone(before: Path):
    settings = Settings(syntax_level="strict")
    original = check_source(before.read_text(), str(before), settings, RULES_BY_CODE)
    result = fix_source(before.read_text(), str(before), settings, RULES_BY_CODE)
    remaining = check_source(result.fixed, str(before), settings, RULES_BY_CODE)
    assert len(remaining) == len(original) - result.applied
    assert result.applied > 0
    assert {f.code for f in remaining} <= {f.code for f in original}


def test_fixing_is_idempotent():
    for before in BEFORE_FILES:
        once = fix_source(before.read_text(), str(before), Settings(syntax_level="strict"), RULES_BY_CODE).fixed
        assert fix_source(once, str(before), Settings(syntax_level="strict"), RULES_BY_CODE).fixed == once


def test_file_with_nothing_to_fix_is_unchanged():
    source = "from mindspore import nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x):\n        return x\n"
    result = fix_source(source, "clean.py", Settings(syntax_level="strict"))
    assert not result.changed and result.applied == 0 and result.diff() == ""
