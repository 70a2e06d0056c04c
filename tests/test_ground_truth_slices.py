"""What MS131 claims about slices bounded by tensor data, checked with the real MindSpore on CPU (a bound of
``range()`` is an int: MindSpore refuses a tensor there).

Each case defines ``Net`` and ``inputs(first)``; the runner calls the Cell twice in GRAPH_MODE (STRICT and LAX), with
inputs whose bounds differ, and compares both outputs with PyNative's. Every case is also linted: MS131 must report
exactly the cases whose slice bound is tensor data.
"""
from __future__ import annotations

import textwrap

import pytest

from ms_lint.engine import check_source
from ms_lint.settings import Settings
from tests.mindspore_compile import LOAD_CASE, run_cases

pytestmark = pytest.mark.mindspore

HEADER = """
import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor
"""

_RUNNER = LOAD_CASE + r'''
def run(module):
    net = module.Net()
    return [net(*module.inputs(first)).asnumpy().tolist() for first in (True, False)]

results = []
for case in json.load(sys.stdin):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    expected = run(load(case, "_pynative"))
    outcome = {}
    for level in ("STRICT", "LAX"):
        ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=getattr(ms, level))
        try:
            outcome[level] = {"ok": True, "same": run(load(case, "_" + level)) == expected}
        except BaseException as exc:
            outcome[level] = {"ok": False, "error": type(exc).__name__, "message": " ".join(str(exc).split())[:600]}
    results.append(outcome)
print("@@RESULTS@@" + json.dumps(results))
'''

# (id, MS131 reports it, source, expected outcome at both levels: "same" (runs, PyNative's result for both bounds)
# or (error type, text in the message))
CASES = [
    ("stop-computed-from-data", True, """
        class Net(nn.Cell):
            def construct(self, x):
                n = (x > 0).sum()
                return x[:n]
        def inputs(first):
            return [Tensor(np.array([1., -1., 2., 3.] if first else [1., 2., -3., -4.], np.float32))]
    """, "same"),
    ("start-and-stop-arguments", True, """
        class Net(nn.Cell):
            def construct(self, x, start, end):
                return x[start:end]
        def inputs(first):
            return [Tensor(np.arange(8, dtype=np.float32)), Tensor(1 if first else 2, ms.int64),
                    Tensor(5 if first else 4, ms.int64)]
    """, "same"),
    ("second-axis-int32-stop", True, """
        class Net(nn.Cell):
            def construct(self, x, n):
                return x[:, :n] * 2
        def inputs(first):
            return [Tensor(np.ones((2, 6), np.float32)), Tensor(3 if first else 5, ms.int32)]
    """, "same"),
    ("step-argument", True, """
        class Net(nn.Cell):
            def construct(self, x, s):
                return x[::s]
        def inputs(first):
            return [Tensor(np.arange(6, dtype=np.float32)), Tensor(2 if first else 3, ms.int32)]
    """, "same"),
    ("assignment-int64-stop", True, """
        class Net(nn.Cell):
            def construct(self, x, n):
                x[:n] = 0
                return x
        def inputs(first):
            return [Tensor(np.arange(6, dtype=np.float32)), Tensor(2 if first else 4, ms.int64)]
    """, "same"),
    ("assignment-int32-stop", True, """
        class Net(nn.Cell):
            def construct(self, x, n):
                x[:n] = 0
                return x
        def inputs(first):
            return [Tensor(np.arange(6, dtype=np.float32)), Tensor(2 if first else 4, ms.int32)]
    """, ("TypeError", "SliceToIndices")),
    ("assignment-int32-start", True, """
        class Net(nn.Cell):
            def construct(self, x, n):
                x[n:] = 1
                return x
        def inputs(first):
            return [Tensor(np.arange(6, dtype=np.float32)), Tensor(2 if first else 4, ms.int32)]
    """, ("TypeError", "SliceToIndices")),
    ("stop-from-shape", False, """
        class Net(nn.Cell):
            def construct(self, x):
                return x[:x.shape[0] // 2]
        def inputs(first):
            return [Tensor(np.arange(6 if first else 8, dtype=np.float32))]
    """, "same"),
    ("stop-python-default", False, """
        class Net(nn.Cell):
            def construct(self, x, n=3):
                return x[:n]
        def inputs(first):
            return [Tensor(np.arange(6, dtype=np.float32))]
    """, "same"),
    # A bound of range() is an int scalar: MindSpore's range refuses a tensor, so the caller passes an int, which
    # the graph holds as a constant (a new int compiles again), and a slice it bounds has a static shape.
    ("stop-bounding-a-range-passed-an-int", False, """
        class Net(nn.Cell):
            def construct(self, x, n):
                out = x[:n]
                for i in range(n - 1):
                    out = out + x[:, :(n - i)].sum()
                return out
        def inputs(first):
            return [Tensor(np.ones((4, 4), np.float32)), 3 if first else 2]
    """, "same"),
    ("range-bounded-by-a-tensor", False, """
        class Net(nn.Cell):
            def construct(self, x, n):
                out = x
                for i in range(n):
                    out = out + x[:, :(n - i)].sum()
                return out
        def inputs(first):
            return [Tensor(np.ones((4, 4), np.float32)), Tensor(3 if first else 2, ms.int32)]
    """, ("TypeError", "make_range")),
    ("tensor-index", False, """
        class Net(nn.Cell):
            def construct(self, x, i):
                return x[i]
        def inputs(first):
            return [Tensor(np.arange(6, dtype=np.float32)), Tensor(2 if first else 4, ms.int32)]
    """, "same"),
]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    sources = [case[2] for case in CASES]
    results = run_cases(tmp_path_factory.mktemp("slices"), "slice_case", HEADER, sources, _RUNNER)
    return dict(zip((case[0] for case in CASES), results))


@pytest.mark.parametrize("case", CASES, ids=[case[0] for case in CASES])
def test_outcome_at_both_levels(case, outcomes):
    name, _, _, expected = case
    for level, outcome in outcomes[name].items():
        if expected == "same":
            assert outcome == {"ok": True, "same": True}, (level, outcome)
        else:
            error, text = expected
            assert not outcome["ok"] and outcome["error"] == error and text in outcome["message"], (level, outcome)


@pytest.mark.parametrize("case", CASES, ids=[case[0] for case in CASES])
def test_ms131_reports_exactly_the_tensor_bounded_slices(case):
    name, reported, source, _ = case
    findings = check_source(textwrap.dedent(HEADER) + textwrap.dedent(source), f"{name}.py", Settings(), ["MS131"])
    assert bool(findings) == reported, [f.message for f in findings]
    if reported:
        assert findings[0].data["bounds"] and isinstance(findings[0].data["assignment"], bool)
