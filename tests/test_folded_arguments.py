"""A branch on a parameter every caller leaves at its default: the parameter's constant reaches a test the
function reassigns the parameter only after (``if mask is not None: mask = reshape(mask)``), and a call of a
function of the module that returns one expression of its parameters folds (``exists(mask)``); a reassignment
before the test, or in a loop around it, and a helper of more than one statement keep the branch."""
from __future__ import annotations

import pytest

from ms_lint.engine import check_source
from ms_lint.settings import Settings

SOURCE = """
from mindspore import nn, ops


def exists(val):
    return val is not None


def weighs(val, scale=1):
    scale = scale * 2
    return val is not None


class Attention(nn.Cell):
    def __init__(self):
        super().__init__()
        self.heads = 2

    def construct(self, x, mask=None):
{before}        if {test}:
            mask = ops.reshape(mask, (-1,))
            mask = mask.repeat(self.heads, axis=0)
            x = x + mask.sum()
        return x


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.attn = Attention()

    def construct(self, x):
        return {call}
"""


def codes(test: str, before: str = "") -> set[str]:
    source = SOURCE.format(test=test, before=before, call="self.attn(x)")
    return {f.code for f in check_source(source, "case.py", Settings(version="2.10.0", mode="graph"))}


@pytest.mark.parametrize("test", ["mask is not None", "exists(mask)", "exists(val=mask)", "not exists(mask) is False"])
def test_a_branch_no_caller_takes_is_dropped(test):
    assert codes(test) == set()


@pytest.mark.parametrize("test, before", [
    ("exists(mask)", "        if x.shape[0] > 1:\n            mask = x\n"),  # bound on some path before the test
    ("weighs(mask)", ""),  # the helper does more than return
    ("exists(x)", ""),  # an argument not known
    ("ops.isfinite(mask)", ""),  # not a function of the module
])
def test_a_branch_a_path_may_take_is_kept(test, before):
    assert codes(test, before) == {"MS611"}


def test_a_binding_later_in_a_loop_around_the_test_keeps_the_branch():
    """The second pass of the loop reads the mask the first bound after the test."""
    source = SOURCE.format(test="exists(mask)", before="", call="self.attn(x)").replace(
        "        if exists(mask):", "        for _ in range(2):\n          if exists(mask):").replace(
        "            x = x + mask.sum()\n", "            x = x + mask.sum()\n          mask = x\n")
    assert {f.code for f in check_source(source, "case.py", Settings(version="2.10.0", mode="graph"))} == {"MS611"}


def passed_codes(test: str, call: str) -> set[str]:
    source = SOURCE.format(test=test, before="", call=call)
    return {f.code for f in check_source(source, "case.py", Settings(version="2.10.0", mode="graph"))}


@pytest.mark.parametrize("test, call", [
    ("mask is None", "self.attn(x, x * 2)"),  # arithmetic gives a tensor, never None
    ("mask is None", "self.attn(x, mask=-x)"),
    ("mask is None", "self.attn(x, Tensor([1.0, 2.0]))"),
    ("mask is None", "self.attn(x, mindspore.Tensor(counts))"),
    ("not mask is not None", "self.attn(x, x * 2)"),
    ("mask is None and x.shape[0] > 4", "self.attn(x, x * 2) + self.attn(x, x + 1)"),
])
def test_a_branch_for_none_is_dropped_where_every_caller_passes_a_tensor(test, call):
    assert passed_codes(test, call) == set()


@pytest.mark.parametrize("test, call", [
    ("mask is not None", "self.attn(x, x * 2)"),  # the tensor branch is the one compiled
    ("mask is None", "self.attn(x) + self.attn(x, x * 2)"),  # one caller passes nothing: None
    ("mask is None", "self.attn(x, x)"),  # a name: the text does not say it is no None
    ("mask is None", "self.attn(x, make(x))"),  # a call that may return None
    ("mask is None", "self.attn(x, not x)"),
    ("mask == 0", "self.attn(x, x * 2)"),  # a tensor's value is not known
    ("mask", "self.attn(x, x * 2)"),
    ("not mask", "self.attn(x, x * 2)"),
    ("mask is None or x.shape[0] > 4", "self.attn(x, x * 2)"),
])
def test_a_branch_a_tensor_may_take_is_kept(test, call):
    assert passed_codes(test, call) == {"MS611"}


def pynative_codes(source: str) -> set[str]:
    return {f.code for f in check_source(source, "case.py", Settings(version="2.10.0", mode="pynative"))}


def test_a_pynative_sub_cell_takes_no_branch_for_none_where_every_caller_passes_a_tensor():
    """Python runs ``construct`` with what each call passes: a tensor is never None."""
    assert pynative_codes(SOURCE.format(test="mask is None", before="", call="self.attn(x, x * 2)")) == set()


@pytest.mark.parametrize("test, call, after", [
    ("mask is not None", "self.attn(x, x * 2)", ""),
    ("mask is None", "self.attn(x) + self.attn(x, x * 2)", ""),  # one call passes nothing: None
    ("mask is None", "self.attn(x, x)", ""),
    # a call of the attribute that code outside the Cells makes: what it passes is not read
    ("mask is None", "self.attn(x, x * 2)", "\n\ndef host(net, x):\n    return net.attn(x, None)\n"),
])
def test_a_pynative_sub_cell_branch_a_call_may_take_is_kept(test, call, after):
    assert pynative_codes(SOURCE.format(test=test, before="", call=call) + after) == {"MS611"}
