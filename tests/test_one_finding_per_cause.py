"""One root cause, one finding: where two rules (or one rule twice) would report the same call or statement, the
code that owns the cause reports it once and its message names the other aspect."""
from __future__ import annotations

import textwrap

import pytest

from ms_lint.engine import check_source
from ms_lint.fixes import fix_source
from ms_lint.rules import RULES_BY_CODE
from ms_lint.settings import Settings

LAYERS = """
from mindspore import nn, ops


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layer = {call}

    def construct(self, x):
        return self.layer(x)
"""


def findings(source: str, level: str = "strict", device: str = "any"):
    return check_source(textwrap.dedent(source), "case.py", Settings.from_values(None, level, device=device),
                        RULES_BY_CODE)


@pytest.mark.parametrize("call, owner, named", [
    # (A keyword the layer does not take raises first, TypeError, and its MS604 names the shifted padding or the
    # missing pad_mode that would raise next: tests/fixtures/rules/MS604.py, lines 16 and 17, and its snapshot.)
    # two keywords the layer does not take: one call, one finding naming both
    ("nn.Conv2d(3, 8, 3, bias=False, groups=1)", "MS604", "bias= is has_bias=, groups= is group="),
    # MS205 and MS606 read different positions: a call has one of them
    ("nn.Conv2d(3, 8, 3, 1, 1, padding=1)", "MS606", "fifth positional argument"),
    ("nn.Conv2d(3, 8, 3, 1, \"same\", 1)", "MS205", "pad_mode='same'"),
])
def test_a_layer_call_gets_one_finding(call, owner, named):
    found = [f for f in findings(LAYERS.format(call=call)) if f.code in ("MS205", "MS604", "MS606")]
    assert [f.code for f in found] == [owner], [f.message for f in found]
    assert named in found[0].message


def test_fixing_the_owned_call_fixes_the_other_aspect_too():
    source = LAYERS.format(call="nn.Conv2d(3, 8, 3, 1, 1, bias=False)")
    fixed = fix_source(source, "case.py", Settings.from_values(None, "strict", device="any")).fixed
    assert 'nn.Conv2d(3, 8, 3, 1, pad_mode="pad", padding=1, has_bias=False)' in fixed
    assert not [f for f in findings(fixed) if f.code in ("MS205", "MS604", "MS606")]


@pytest.mark.parametrize("statement", [
    "y[inside] = x[inside]",  # the values read through the same mask
    "y[inside] = ops.ones(y[inside].shape, x.dtype) * 7",  # the mask read only sizes the values
    "y[inside], z[inside] = self.split(x[inside])",  # two targets of one statement
])
def test_a_boolean_mask_assignment_gets_one_finding(statement):
    source = f"""
        from mindspore import nn, ops


        class Net(nn.Cell):
            def construct(self, x, y, z):
                inside = x > 0
                {statement}
                return y + z

            def split(self, x):
                return x, x
    """
    found = [f for f in findings(source, device="ascend") if f.code == "MS110"]
    assert len(found) == 1, [f.message for f in found]
    assert found[0].data["operation"] == "boolean-mask assignment"


def test_reads_through_another_mask_stay_reported():
    source = """
        from mindspore import nn


        class Net(nn.Cell):
            def construct(self, x, y):
                inside = x > 0
                y[inside] = x[x > 1]
                return y
    """
    found = [f for f in findings(source, device="ascend") if f.code == "MS110"]
    assert [f.data["operation"] for f in found] == ["boolean-mask assignment", "boolean-mask indexing"]


def test_a_list_filled_on_both_branches_gets_one_finding():
    source = """
        from mindspore import nn


        class Net(nn.Cell):
            def __init__(self, deep):
                super().__init__()
                self.layers = []
                if deep:
                    self.layers.append(nn.Dense(3, 3))
                else:
                    self.layers.append(nn.Dense(3, 4))

            def construct(self, x):
                for layer in self.layers:
                    x = layer(x)
                return x
    """
    found = [f for f in findings(source) if f.code == "MS201"]
    assert len(found) == 1, [f.message for f in found]
    assert "also filled on line 12" in found[0].message
