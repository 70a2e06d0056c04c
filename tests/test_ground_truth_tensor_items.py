"""What MS108 claims about items written into a Cell's tensor attributes in graph code, checked with the real
MindSpore on CPU.

Each case defines ``Net`` with an attribute ``buf``; the runner calls it three times with the same input in
GRAPH_MODE at STRICT and LAX and in PyNative, and records the outputs and ``buf`` afterwards (or what was raised).
Every case is also linted at both levels: MS108 must report exactly the cases where graph code fails or differs
from PyNative.
"""
from __future__ import annotations

import textwrap

import pytest

from ms_lint.engine import check_source
from ms_lint.settings import Settings
from tests.mindspore_compile import EACH_MODE, LOAD_CASE, run_cases

pytestmark = pytest.mark.mindspore

HEADER = """
import numpy as np
import mindspore as ms
from mindspore import nn, Tensor, Parameter
"""

_RUNNER = LOAD_CASE + r'''
def run(module):
    net = module.Net()
    try:
        outputs = [float(net(ms.Tensor(np.float32(2.0))).asnumpy()) for _ in range(3)]
        return {"ok": True, "outputs": outputs, "buf": float(net.buf.asnumpy().sum())}
    except BaseException as exc:
        return {"ok": False, "error": type(exc).__name__, "message": " ".join(str(exc).split())[:600]}
''' + EACH_MODE

_SUBSCRIPT = ("TypeError", "to perform assign subscript")
_KEPT = {"ok": True, "outputs": [4.0, 4.0, 4.0], "buf": 0.0}  # the write went into a copy
_UPDATED = {"ok": True, "outputs": [4.0, 8.0, 12.0], "buf": 12.0}  # PyNative's, and a Parameter's in graph code

# (id, levels MS108 reports it at, source, outcome at STRICT, at LAX, in PyNative)
CASES = [
    ("augmented_item_of_tensor", {"strict", "lax"}, """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.buf = Tensor(np.zeros((2, 3), np.float32))
            def construct(self, x):
                self.buf[:, 1] += x
                return self.buf.sum()
    """, _SUBSCRIPT, _KEPT, _UPDATED),
    ("item_of_tensor", {"strict"}, """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.buf = Tensor(np.zeros((2, 3), np.float32))
            def construct(self, x):
                self.buf[0, 0] = x
                return self.buf.sum() * 2
    """, _SUBSCRIPT, {"ok": True, "outputs": [4.0, 4.0, 4.0], "buf": 0.0},
        {"ok": True, "outputs": [4.0, 4.0, 4.0], "buf": 2.0}),
    ("augmented_item_through_a_name", {"strict", "lax"}, """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.buf = Tensor(np.zeros((2, 3), np.float32))
            def construct(self, x):
                held = self.buf
                held[:, 1] += x
                return held.sum()
    """, _KEPT, _KEPT, _UPDATED),
    ("augmented_item_of_parameter", set(), """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.buf = Parameter(Tensor(np.zeros((2, 3), np.float32)), name="buf")
            def construct(self, x):
                self.buf[:, 1] += x
                return self.buf.sum()
    """, _UPDATED, _UPDATED, _UPDATED),
    ("augmented_item_of_parameter_through_a_name", set(), """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.buf = Parameter(Tensor(np.zeros((2, 3), np.float32)), name="buf")
            def construct(self, x):
                held = self.buf
                held[:, 1] += x
                return held.sum()
    """, _UPDATED, _UPDATED, _UPDATED),
    ("augmented_item_of_a_new_tensor", set(), """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.buf = Tensor(np.zeros((2, 3), np.float32))
            def construct(self, x):
                out = self.buf * 1
                out[:, 1] += x
                return out.sum()
    """, _KEPT, _KEPT, _KEPT),
]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    sources = [case[2] for case in CASES]
    results = run_cases(tmp_path_factory.mktemp("tensor_items"), "tensor_item_case", HEADER, sources, _RUNNER)
    return dict(zip((case[0] for case in CASES), results))


@pytest.mark.parametrize("case", CASES, ids=[case[0] for case in CASES])
def test_outcome_in_graph_mode_at_both_levels_and_in_pynative(case, outcomes):
    name, _, _, *expected = case
    for where, wanted in zip(("STRICT", "LAX", "PYNATIVE"), expected):
        outcome = outcomes[name][where]
        if isinstance(wanted, tuple):
            error, text = wanted
            assert not outcome["ok"] and outcome["error"] == error and text in outcome["message"], (where, outcome)
        else:
            assert outcome == wanted, (where, outcome)


@pytest.mark.parametrize("case", CASES, ids=[case[0] for case in CASES])
@pytest.mark.parametrize("level", ["strict", "lax"])
def test_ms108_reports_exactly_the_items_graph_code_gets_wrong(case, level):
    name, levels, source, *_ = case
    findings = check_source(textwrap.dedent(HEADER) + textwrap.dedent(source), f"{name}.py",
                            Settings(syntax_level=level, mode="graph"), ["MS108"])
    assert bool(findings) == (level in levels), [f.message for f in findings]
    if findings:
        assert findings[0].data["attribute"] == "buf" and findings[0].data["item"] is True
