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


PORTED_BLOCKS = """
from mindspore import nn

BN_MOMENTUM = 0.1


class Stem(nn.Cell):
    def __init__(self, drop=0.1):
        super().__init__()
        self.bn = nn.BatchNorm2d(8, momentum=0.1)
        self.drop1 = nn.Dropout(0.25)
        self.drop2 = nn.Dropout(0.25)
        self.rate = nn.Dropout(drop)


class Head(nn.Cell):
    def __init__(self, drop=0.1):
        super().__init__()
        self.bn = nn.BatchNorm1d(8, momentum=BN_MOMENTUM)
        self.slow = nn.BatchNorm1d(8, momentum=0.01)
        self.drop = nn.Dropout(0.25)
        self.rate = nn.Dropout(drop)
"""


def test_a_keyword_a_layer_does_not_take_repeated_in_a_module_is_one_finding_and_one_fix():
    layers = ("self.a = nn.Dense(4, 4, bias=True)\n        self.b = nn.Dense(4, 8, bias=False)\n"
              "        self.c = nn.Conv2d(4, 4, 3, bias=False)")
    source = LAYERS.replace("self.layer = {call}", layers)
    found = [(f.line, f.message) for f in findings(source) if f.code == "MS604"]
    assert [line for line, _ in found] == [8, 10] and found[0][1].endswith("(also at line 9)"), found
    fixed = fix_source(source, "case.py", Settings.from_values(None, "strict", device="any")).fixed
    assert "bias=" not in fixed.replace("has_bias=", ""), fixed
    assert not [f for f in findings(fixed) if f.code == "MS604"]


def test_a_port_habit_repeated_in_a_module_is_reported_once_with_its_other_lines():
    """The same layer with the same value (a literal, or a name bound to it) is one cause however often a function
    repeats it: reported at its first call, naming the others; another function is another finding (the validator
    judges each where it runs)."""
    found = [(f.line, f.code, f.message) for f in findings(PORTED_BLOCKS) if f.code in ("MS606", "MS608")]
    assert [(line, code) for line, code, _ in found] == [
        (10, "MS608"), (11, "MS606"), (13, "MS606"), (19, "MS608"), (20, "MS608"), (21, "MS606"), (22, "MS606")]
    assert found[1][2].endswith("(also at line 12)")
    assert not [message for index, (_, _, message) in enumerate(found) if "(also at" in message and index != 1]


def test_fixing_the_first_of_a_repeated_cause_fixes_every_repeat():
    settings = Settings.from_values(None, "strict", device="any")
    fixed = fix_source(textwrap.dedent(PORTED_BLOCKS), "case.py", settings).fixed
    assert fixed.count("nn.Dropout(p=0.25)") == 3 and "nn.Dropout(0.25)" not in fixed
    assert "nn.BatchNorm2d(8, momentum=0.9)" in fixed and "nn.BatchNorm1d(8, momentum=0.99)" in fixed
    assert fixed.count("nn.Dropout(p=drop)") == 2
    # a value read from a name is left to the author: the name may serve elsewhere
    assert "momentum=BN_MOMENTUM" in fixed
    assert [f.code for f in findings(fixed) if f.code in ("MS606", "MS608")] == ["MS608"]


TENSOR_HABITS = """
from mindspore import nn


class Block(nn.Cell):
    def construct(self, x):
        b, c = x.size(0), x.size(1)
        y = x.view(b, c, -1, 2).transpose(1, 2)
        z = y.transpose(1, 2) * y.transpose(2, 3)
        return z.view(b, c, -1).size(-1)


class Other(nn.Cell):
    def construct(self, x):
        return x.size(0)
"""


def test_a_tensor_habit_repeated_in_a_function_is_reported_once_with_its_other_lines():
    """A compile stops at the first: the same PyTorch method (MS602), or the same two axes (MS601), again in one
    function is one finding naming the other lines; another function, or other axes, is another."""
    found = [(f.line, f.code, f.message) for f in findings(TENSOR_HABITS) if f.code in ("MS601", "MS602")]
    assert [(line, code) for line, code, _ in found] == [
        (7, "MS602"), (8, "MS601"), (9, "MS601"), (15, "MS602")], found
    assert found[0][2].endswith("use .shape[0] (also at lines 7, 10)")
    assert found[1][2].endswith("(also at line 9)")
    assert "(also at" not in found[2][2] and "(also at" not in found[3][2]


def test_fixing_the_first_of_a_repeated_tensor_habit_fixes_every_repeat():
    settings = Settings.from_values(None, "strict", device="any")
    fixed = fix_source(textwrap.dedent(TENSOR_HABITS), "case.py", settings).fixed
    assert "x.shape[0], x.shape[1]" in fixed and ".size(" not in fixed, fixed
    assert "transpose" not in fixed and fixed.count(".swapaxes(") == 3, fixed
    assert not [f for f in findings(fixed) if f.code in ("MS601", "MS602")]
