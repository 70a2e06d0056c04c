"""What MS132 claims about sizes computed with true division, checked with the real MindSpore on CPU.

Each case defines ``Net`` (its ``construct`` takes one (3, 4) float tensor); the runner calls it in GRAPH_MODE at
STRICT and LAX and in PyNative and records what each raised. Every case is also linted: MS132 must report exactly
the cases whose size is a float from true division.
"""
from __future__ import annotations

import textwrap

import pytest

from ms_lint.engine import check_source
from ms_lint.settings import Settings
from tests.mindspore_compile import EACH_MODE, LOAD_CASE, run_cases

pytestmark = pytest.mark.mindspore

HEADER = """
import math
import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor
"""

_RUNNER = LOAD_CASE + r'''
def run(module):
    try:
        out = module.Net()(ms.Tensor(np.ones((3, 4), np.float32)))
        return {"ok": True, "shape": list(out.shape)}
    except BaseException as exc:
        return {"ok": False, "error": type(exc).__name__, "message": " ".join(str(exc).split())[:600]}
''' + EACH_MODE

_FLOAT_SHAPE = "TypeError"  # every failing case raises it, in graph mode and PyNative

# (id, MS132 reports it, source, fails (TypeError in all three) or the shape it returns in all three)
CASES = [
    ("method_reshape", True, """
        class Net(nn.Cell):
            def construct(self, x):
                b, c = x.shape
                return x.reshape(b, c / 2, 2)
    """, None),
    ("view_through_name", True, """
        class Net(nn.Cell):
            def construct(self, x):
                half = x.shape[1] / 2
                return x.view(x.shape[0], half, 2)
    """, None),
    ("ops_reshape", True, """
        class Net(nn.Cell):
            def construct(self, x):
                b, c = x.shape
                return ops.reshape(x, (b, c / 2, -1))
    """, None),
    ("held_operators", True, """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.shape = ops.Shape()
                self.reshape = ops.Reshape()
            def construct(self, x):
                num = self.shape(x)[1] / 2
                return self.reshape(x, (3, num, 2))
    """, None),
    ("zeros", True, """
        class Net(nn.Cell):
            def construct(self, x):
                return ops.zeros((x.shape[1] / 2,), ms.float32)
    """, None),
    ("ones_len", True, """
        class Net(nn.Cell):
            def construct(self, x):
                return ops.ones((len(x) / 3, 2))
    """, None),
    ("tile", True, """
        class Net(nn.Cell):
            def construct(self, x):
                return ops.tile(x, (1, x.shape[1] / 2))
    """, None),
    ("range", True, """
        class Net(nn.Cell):
            def construct(self, x):
                out = x[:, 0]
                for i in range(x.shape[1] / 2):
                    out = out + x[:, i]
                return out
    """, None),
    ("constant_attribute", True, """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.channels = 4
            def construct(self, x):
                return x.reshape(-1, self.channels / 2)
    """, None),
    ("floor_division", False, """
        class Net(nn.Cell):
            def construct(self, x):
                b, c = x.shape
                return x.reshape(b, c // 2, 2)
    """, [3, 2, 2]),
    ("int_of_division", False, """
        class Net(nn.Cell):
            def construct(self, x):
                b, c = x.shape
                return x.reshape(b, int(c / 2), 2)
    """, [3, 2, 2]),
    ("floor_of_division", False, """
        class Net(nn.Cell):
            def construct(self, x):
                return x.reshape(x.shape[0], math.floor(x.shape[1] / 2), -1)
    """, [3, 2, 2]),
    ("tensor_division", False, """
        class Net(nn.Cell):
            def construct(self, x):
                return ops.zeros((3, 4), ms.float32) + x.sum() / 2
    """, [3, 4]),
]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    sources = [case[2] for case in CASES]
    results = run_cases(tmp_path_factory.mktemp("float_sizes"), "float_size_case", HEADER, sources, _RUNNER)
    return dict(zip((case[0] for case in CASES), results))


@pytest.mark.parametrize("case", CASES, ids=[case[0] for case in CASES])
def test_outcome_in_graph_mode_at_both_levels_and_in_pynative(case, outcomes):
    name, _, _, shape = case
    for where, outcome in outcomes[name].items():
        if shape is None:
            assert not outcome["ok"] and outcome["error"] == _FLOAT_SHAPE, (where, outcome)
            assert "float" in outcome["message"].lower(), (where, outcome)
        else:
            assert outcome == {"ok": True, "shape": shape}, (where, outcome)


@pytest.mark.parametrize("case", CASES, ids=[case[0] for case in CASES])
def test_ms132_reports_exactly_the_float_sizes(case):
    name, reported, source, _ = case
    findings = check_source(textwrap.dedent(HEADER) + textwrap.dedent(source), f"{name}.py", Settings(), ["MS132"])
    assert bool(findings) == reported, [f.message for f in findings]
    if reported:
        assert findings[0].data["division"].count("/") == 1 and findings[0].data["fix"].count("//") == 1
