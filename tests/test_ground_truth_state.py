"""State written from graph code, and APIs refused there, as MindSpore runs them at STRICT and LAX (CPU).

Each case is compiled and run at both levels; ``state(net)``, run after the two calls every case gets, makes more
calls and reads the Cell's attributes. A level's outcome is "fail" (a call raises), "ok" (``state`` gives what
PyNative gives, written beside the case) or "silent" (it runs and gives something else). MS108 and MS111 must report
a case at a level exactly when it fails or is silent there. Measured alike on MindSpore 2.10.0 and 2.7.1.
"""
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
from mindspore import nn, ops, Tensor, Parameter

FIVES = Tensor(np.full((2, 3), 5.0, np.float32))


class Box:
    def __init__(self):
        self.n = 0
"""

# (id, code, source, STRICT outcome, LAX outcome, what PyNative's state(net) gives); the runner's two calls pass ones.
CASES = [
    ("tensor-write-from-its-own-value", "MS108", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.acc = Tensor(np.zeros((2, 3), np.float32))
            def construct(self, x):
                self.acc = self.acc + x
                return self.acc
        def state(net):
            return float(net(FIVES).sum()), float(net.acc.sum())
    """, "fail", "ok", [42.0, 42.0]),
    ("tensor-augmented-write", "MS108", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.acc = Tensor(np.zeros((2, 3), np.float32))
            def construct(self, x):
                self.acc += x
                return self.acc
        def state(net):
            return float(net(FIVES).sum())
    """, "fail", "ok", 42.0),
    ("tensor-write-from-a-local-bound-to-it", "MS108", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.acc = Tensor(np.zeros((2, 3), np.float32))
            def construct(self, x):
                old = self.acc
                self.acc = 0.5 * old + x
                return self.acc
        def state(net):
            return float(net.acc.sum())
    """, "fail", "ok", 9.0),
    ("tensor-write-unpacked-from-a-method-given-it", "MS108", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.state = Tensor(np.zeros((2, 3), np.float32))
            def scan(self, x, state):
                return x + state, state * 0.5 + x
            def construct(self, x):
                out, state = self.scan(x, self.state)
                self.state = state
                return out
        def state(net):
            return float(net(FIVES).sum()), float(net.state.sum())
    """, "fail", "ok", [39.0, 34.5]),
    ("tensor-write-under-a-tensor-condition", "MS108", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.acc = Tensor(np.zeros((2, 3), np.float32))
            def construct(self, x):
                if x.sum() > 3:
                    self.acc = self.acc + x
                return self.acc
        def state(net):
            return float(net(FIVES).sum())
    """, "fail", "ok", 42.0),
    ("tensor-write-from-a-counter-the-graph-writes", "MS108", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.w = Tensor(np.zeros((2, 3), np.float32))
                self.step = 0
            def construct(self, x):
                self.step = self.step + 1
                self.w = x * self.step
                return x
        def state(net):
            net(FIVES)
            return float(net.w.sum())
    """, "fail", "ok", 90.0),
    ("tensor-write-of-new-data", "MS108", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.acc = Tensor(np.zeros((2, 3), np.float32))
            def construct(self, x):
                self.acc = x * 2
                return x
        def state(net):
            net(FIVES)
            return float(net.acc.sum())
    """, "fail", "silent", 60.0),
    ("list-display-of-tensors", "MS108", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.hist = []
            def construct(self, x):
                self.hist = [x * 2]
                return x
        def state(net):
            net(FIVES)
            return float(net.hist[0].sum())
    """, "fail", "ok", 60.0),
    ("dict-display", "MS108", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.d = {"k": 0}
            def construct(self, x):
                self.d = {"k": self.d["k"] + 1}
                return x * self.d["k"]
        def state(net):
            return net.d["k"]
    """, "fail", "ok", 2),
    ("int-counter", "MS108", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.count = 0
            def construct(self, x):
                self.count += 1
                return x * self.count
        def state(net):
            return net.count
    """, "fail", "ok", 2),
    ("setattr-constant", "MS108", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.flag = False
            def construct(self, x):
                setattr(self, "flag", True)
                return x
        def state(net):
            return net.flag
    """, "fail", "ok", True),
    ("setattr-counter", "MS108", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.n = 0
            def construct(self, x):
                setattr(self, "n", self.n + 1)
                return x * self.n
        def state(net):
            return float(net(FIVES).sum()), net.n
    """, "fail", "silent", [90.0, 3]),
    ("setattr-by-a-name-variable", "MS108", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.acc = Tensor(np.zeros((2, 3), np.float32))
            def construct(self, x):
                name = "acc"
                setattr(self, name, self.acc + x)
                return self.acc
        def state(net):
            return float(net(FIVES).sum())
    """, "fail", "silent", 42.0),
    ("plain-object-attribute", "MS108", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.box = Box()
            def construct(self, x):
                self.box.n = self.box.n + 1
                return x * self.box.n
        def state(net):
            return net.box.n
    """, "fail", "silent", 2),
    ("untrainable-params", "MS111", """
        class Net(nn.Cell):
            def construct(self, x):
                return x * len(self.untrainable_params())
    """, "fail", "fail", None),
    ("trainable-params", "MS111", """
        class Net(nn.Cell):
            def construct(self, x):
                return x * len(self.trainable_params())
    """, "fail", "fail", None),
    ("get-parameters", "MS111", """
        class Net(nn.Cell):
            def construct(self, x):
                n = 0
                for _ in self.get_parameters():
                    n += 1
                return x * n
    """, "fail", "fail", None),
    ("multitype-func-graph-created", "MS111", """
        class Net(nn.Cell):
            def construct(self, x):
                add = ops.MultitypeFuncGraph("add")
                return x
    """, "fail", "fail", None),
    ("dtype-to-nptype-of-a-tensors-dtype", "MS111", """
        class Net(nn.Cell):
            def construct(self, x):
                kind = ms.dtype_to_nptype(x.dtype)
                return x
    """, "fail", "fail", None),
    ("hyper-map-created-is-fine", None, """
        class Net(nn.Cell):
            def construct(self, x):
                return ops.HyperMap()(ops.abs, (x,))[0]
    """, "ok", "ok", None),
    ("asnumpy-in-a-user-class-method", "MS102", """
        class Helper:
            def run(self, t):
                return Tensor(t.asnumpy() * 2)
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.helper = Helper()
            def construct(self, x):
                return self.helper.run(x)
    """, "fail", "ok", None),
]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("ground_truth_state")
    cases = []
    for _, _, source, _, _, _ in CASES:
        full = HEADER + textwrap.dedent(source)
        cases += [(full, "STRICT", [[2, 3]]), (full, "LAX", [[2, 3]])]
    results = compile_cases(cases, workdir)
    return {case[0]: (results[2 * i], results[2 * i + 1]) for i, case in enumerate(CASES)}


def _outcome(result, expected_state) -> str:
    if not result.ok:
        return "fail"
    state = list(result.state) if isinstance(result.state, (list, tuple)) else result.state
    return "ok" if state == expected_state else "silent"


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_state_rules_agree_with_the_compiler(case, outcomes):
    name, code, source, strict_outcome, lax_outcome, pynative_state = case
    strict, lax = outcomes[name]
    assert _outcome(strict, pynative_state) == strict_outcome, (strict.message[:500], strict.state)
    assert _outcome(lax, pynative_state) == lax_outcome, (lax.message[:500], lax.state)
    full = HEADER + textwrap.dedent(source)
    strict_codes = {f.code for f in check_source(full, "case.py", Settings(syntax_level="strict"))}
    lax_codes = {f.code for f in check_source(full, "case.py", Settings(syntax_level="lax"))}
    assert strict_codes == ({code} if code and strict_outcome != "ok" else set())
    assert lax_codes == ({code} if code and lax_outcome != "ok" else set())
