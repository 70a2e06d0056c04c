"""Methods reached through a sub-cell, a class or ``type(...)`` are compiled as graph code: checked with the real
MindSpore compile (CPU, STRICT and LAX; measured alike on 2.10.0 and 2.7.1). A static method's body is checked like
any helper (MS101 under STRICT); a Cell's classmethod fails however it is reached (MS109, both levels)."""
from __future__ import annotations

import textwrap

import pytest

from ms_lint.engine import check_source
from ms_lint.settings import Settings
from tests.mindspore_compile import compile_cases

pytestmark = pytest.mark.mindspore

HEADER = """
import numpy as np
import mindspore as ms
from mindspore import nn, ops


class Block(nn.Cell):
    @classmethod
    def make_mask(cls, x):
        return x * 2

    @staticmethod
    def shift(x):
        return x + 1

    @staticmethod
    def soft(x):
        return np.exp(x)

    def construct(self, x):
        return x
"""

_HOLDS_BLOCK = """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.block = Block()
    def construct(self, x):
        return {call}
"""

# (id, call in construct, code reported under STRICT, STRICT outcome, code reported under LAX, LAX outcome)
CASES = [
    ("classmethod-through-a-sub-cell", "self.block.make_mask(x)", "MS109", "fail", "MS109", "fail"),
    ("classmethod-through-type", "type(self.block).make_mask(x)", "MS109", "fail", "MS109", "fail"),
    ("classmethod-through-the-class", "Block.make_mask(x)", "MS109", "fail", "MS109", "fail"),
    ("staticmethod-through-a-sub-cell", "self.block.shift(x)", None, "ok", None, "ok"),
    ("staticmethod-through-type", "type(self.block).shift(x)", None, "ok", None, "ok"),
    ("staticmethod-through-the-class", "Block.shift(x)", None, "ok", None, "ok"),
    ("numpy-in-a-staticmethod-through-a-sub-cell", "self.block.soft(x)", "MS101", "fail", None, "ok"),
    ("numpy-in-a-staticmethod-through-type", "type(self.block).soft(x)", "MS101", "fail", None, "ok"),
    ("numpy-in-a-staticmethod-through-the-class", "Block.soft(x)", "MS101", "fail", None, "ok"),
]


def _source(call: str) -> str:
    return HEADER + textwrap.dedent(_HOLDS_BLOCK).format(call=call)


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    cases = []
    for case in CASES:
        cases += [(_source(case[1]), "STRICT", [[2, 3]]), (_source(case[1]), "LAX", [[2, 3]])]
    results = compile_cases(cases, tmp_path_factory.mktemp("ground_truth_reach"))
    return {case[0]: (results[2 * i], results[2 * i + 1]) for i, case in enumerate(CASES)}


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_methods_reached_through_sub_cells_and_classes(case, outcomes):
    name, call, strict_code, strict_outcome, lax_code, lax_outcome = case
    strict, lax = outcomes[name]
    assert ("ok" if strict.ok else "fail") == strict_outcome, strict.message[:500]
    assert ("ok" if lax.ok else "fail") == lax_outcome, lax.message[:500]
    source = _source(call)
    assert {f.code for f in check_source(source, "case.py", Settings(syntax_level="strict"))} == (
        {strict_code} if strict_code else set())
    assert {f.code for f in check_source(source, "case.py", Settings(syntax_level="lax"))} == (
        {lax_code} if lax_code else set())
