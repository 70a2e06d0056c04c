"""What the PyNative rules (MS112, MS113) claim, checked by running the real MindSpore in PYNATIVE_MODE on CPU.

Each case is a module that is both linted and run: a case the rule reports must really misbehave (a zero gradient,
a forward run twice), and its fixed twin must not. One subprocess runs all cases (importing MindSpore is slow).
"""
from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ms_lint.engine import check_source
from ms_lint.settings import Settings
from ms_lint.target import parse_version
from tests.mindspore_compile import compile_environment

SAMPLES = Path(__file__).resolve().parent.parent / "sample_projects" / "eager_training"

HEADER = """
import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor

ms.set_context(mode=ms.PYNATIVE_MODE)
ms.set_seed(0)
"""

# MS112 cases define ``Net``; the runner differentiates it with respect to its input and its weights.
# (id, code the case is reported with or None, source, whether every gradient is zero)
GRADIENT_CASES = [
    ("output-from-asnumpy", "MS112", """
        class Net(nn.Cell):
            def construct(self, x):
                return Tensor(x.asnumpy() * 2)
    """, True),
    ("output-from-tolist", "MS112", """
        class Net(nn.Cell):
            def construct(self, x):
                return Tensor(x.tolist()) * 3
    """, True),
    ("helper-returns-host-copy", "MS112", """
        def to_host(y):
            return y.asnumpy()

        class Net(nn.Cell):
            def construct(self, x):
                return Tensor(np.tanh(to_host(x)))
    """, True),
    ("weights-before-host-copy", "MS112", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.dense = nn.Dense(3, 2)

            def construct(self, x):
                hidden = self.dense(x)
                return Tensor(hidden.asnumpy()).sum()
    """, True),
    ("host-copy-with-bprop", None, """
        class Net(nn.Cell):
            def construct(self, x):
                return Tensor(x.asnumpy() * 2)

            def bprop(self, x, out, dout):
                return (dout * 2,)
    """, False),
    ("staying-on-tensors", None, """
        class Net(nn.Cell):
            def construct(self, x):
                return x * 2
    """, False),
    ("host-read-for-logging", None, """
        class Net(nn.Cell):
            def construct(self, x):
                print(float(x.mean().asnumpy()))
                return x * 2
    """, False),
]

_FORWARD_NET = """
FORWARDS = []

class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, 1)

    def construct(self, x):
        FORWARDS.append(1)  # a Python side effect: counts the forwards that really run
        return self.dense(x).sum()
"""


def _installed_mindspore() -> str:
    try:
        return importlib.metadata.version("mindspore")
    except importlib.metadata.PackageNotFoundError:
        return ""


# The cases are linted for the MindSpore that runs them.
INSTALLED = _installed_mindspore()
# Before 2.9, set_grad() saves the forward for grad and GradOperation but not for value_and_grad and vjp (measured
# on 2.7.0, 2.7.1, 2.7.2 and 2.8.0 CPU; 2.9.0 and 2.10.0 run it once).
RUNS_AGAIN_AFTER_SET_GRAD = bool(INSTALLED) and parse_version(INSTALLED) < (2, 9)

# MS113 cases define ``run(x, y)``; the runner counts how many times Net's forward ran.
# (id, code the case is reported with or None, source, forwards counted)
FORWARD_CASES = [
    ("call-then-grad", "MS113", """
        def run(x, y):
            net = Net()
            out = net(x)
            return ms.grad(net)(x)
    """, 2),
    ("call-then-value-and-grad", "MS113", """
        def run(x, y):
            net = Net()
            out = net(x)
            return ms.value_and_grad(net, None, net.trainable_params())(x)
    """, 2),
    ("call-then-grad-operation", "MS113", """
        def run(x, y):
            net = Net()
            out = net(x)
            return ops.GradOperation()(net)(x)
    """, 2),
    ("set-grad-before-call", None, """
        def run(x, y):
            net = Net()
            net.set_grad()
            out = net(x)
            return ms.grad(net)(x)
    """, 1),
    ("set-grad-on-creation", "MS113" if RUNS_AGAIN_AFTER_SET_GRAD else None, """
        def run(x, y):
            net = Net().set_grad()
            out = net(x)
            return ms.value_and_grad(net)(x)
    """, 2 if RUNS_AGAIN_AFTER_SET_GRAD else 1),
    ("set-grad-then-vjp", "MS113" if RUNS_AGAIN_AFTER_SET_GRAD else None, """
        def run(x, y):
            net = Net()
            net.set_grad()
            out = net(x)
            return ms.vjp(net, x)[0]
    """, 2 if RUNS_AGAIN_AFTER_SET_GRAD else 1),
    ("set-grad-on-creation-then-grad", None, """
        def run(x, y):
            net = Net().set_grad()
            out = net(x)
            return ms.grad(net)(x)
    """, 1),
    ("set-grad-after-call", "MS113", """
        def run(x, y):
            net = Net()
            out = net(x)
            net.set_grad()
            return ms.grad(net)(x)
    """, 2),
    ("grad-without-earlier-call", None, """
        def run(x, y):
            net = Net()
            return ms.value_and_grad(net)(x)
    """, 1),
    ("forward-fn-training-step", None, """
        def run(x, y):
            net = Net()
            def forward_fn(data):
                return net(data)
            grad_fn = ms.value_and_grad(forward_fn, None, net.trainable_params())
            return grad_fn(x)
    """, 1),
    # set_grad() reuses a forward only for the very same input tensors: on other inputs it saves nothing.
    ("other-inputs", None, """
        def run(x, y):
            net = Net()
            out = net(x)
            return ms.grad(net)(y)
    """, 2),
    ("other-inputs-with-set-grad", None, """
        def run(x, y):
            net = Net()
            net.set_grad()
            out = net(x)
            return ms.grad(net)(y)
    """, 2),
]

_RUNNER = r'''
import importlib.util, json, sys
import numpy as np
import mindspore as ms
ms.set_context(mode=ms.PYNATIVE_MODE)
results = []
for case in json.load(sys.stdin):
    try:
        spec = importlib.util.spec_from_file_location(case["module"], case["path"])
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        x = ms.Tensor(np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], np.float32))
        y = ms.Tensor(np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.5]], np.float32))
        if case["kind"] == "gradient":
            net = module.Net()
            gradients = [ms.grad(net)(x)]
            weights = net.trainable_params()
            if weights:
                gradients += list(ms.grad(net, grad_position=None, weights=weights)(x))
            largest = max(float(np.abs(g.asnumpy()).max()) for g in gradients)
            results.append({"ok": True, "largest_gradient": largest})
        else:
            module.FORWARDS.clear()
            returned = module.run(x, y)
            results.append({"ok": True, "forwards": len(module.FORWARDS),
                            "returned": returned if isinstance(returned, list) else None})
    except BaseException as exc:
        results.append({"ok": False, "error": f"{type(exc).__name__}: {str(exc)[:1500]}"})
print("@@RESULTS@@" + json.dumps(results))
'''


def _case_source(kind: str, source: str) -> str:
    return HEADER + (_FORWARD_NET if kind == "forward" else "") + textwrap.dedent(source)


def _run_cases(cases: list[tuple[str, str]], workdir: Path) -> list[dict]:
    """Run (kind, source) cases in one PyNative process: "gradient" cases report their largest gradient,
    "forward" cases how many forwards ran (and what ``run`` returned, when a list)."""
    payload = []
    for index, (kind, source) in enumerate(cases):
        path = workdir / f"eager_case_{index}.py"
        path.write_text(source)
        payload.append({"module": f"eager_case_{index}", "path": str(path), "kind": kind})
    completed = subprocess.run(
        [sys.executable, "-c", _RUNNER], input=json.dumps(payload), capture_output=True, text=True,
        cwd=workdir, timeout=600, env=compile_environment(),
    )
    marker = completed.stdout.rfind("@@RESULTS@@")
    assert marker >= 0, f"the MindSpore process failed:\n{completed.stderr[-3000:]}"
    return json.loads(completed.stdout[marker + len("@@RESULTS@@"):])


def _batchnorm_source(set_grad: bool) -> str:
    return HEADER + textwrap.dedent(f"""
        FORWARDS = []

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.bn = nn.BatchNorm1d(3)

            def construct(self, x):
                return self.bn(x).sum()

        def run(x, y):
            net = Net()
            net.set_train()
            {"net.set_grad()" if set_grad else ""}
            out = net(x)
            ms.grad(net)(x)
            return net.bn.moving_mean.asnumpy().tolist()
    """)


def _dropout_source(set_grad: bool) -> str:
    return HEADER + textwrap.dedent(f"""
        FORWARDS = []

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.drop = nn.Dropout(p=0.5)

            def construct(self, x):
                return self.drop(x)

        def run(x, y):
            net = Net()
            net.set_train()
            {"net.set_grad()" if set_grad else ""}
            ones = ops.ones((1, 64), ms.float32)
            out = net(ones)
            gradient = ms.grad(net)(ones)
            return [bool(((out != 0) == (gradient != 0)).all())]
    """)


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    cases = [("gradient", _case_source("gradient", c[2])) for c in GRADIENT_CASES]
    cases += [("forward", _case_source("forward", c[2])) for c in FORWARD_CASES]
    cases += [("forward", _batchnorm_source(False)), ("forward", _batchnorm_source(True))]
    cases += [("forward", _dropout_source(False)), ("forward", _dropout_source(True))]
    results = _run_cases(cases, tmp_path_factory.mktemp("eager_ground_truth"))
    names = [c[0] for c in GRADIENT_CASES] + [c[0] for c in FORWARD_CASES]
    names += ["batchnorm", "batchnorm-set-grad", "dropout", "dropout-set-grad"]
    return dict(zip(names, results))


def _codes(source: str) -> set[str]:
    return {f.code for f in check_source(source, "case.py", Settings(syntax_level="strict", version=INSTALLED))}


@pytest.mark.mindspore
@pytest.mark.parametrize("case", GRADIENT_CASES, ids=[c[0] for c in GRADIENT_CASES])
def test_host_copy_in_output_gives_zero_gradient(case, measured):
    name, code, source, all_zero = case
    result = measured[name]
    assert result["ok"], result.get("error")
    assert (result["largest_gradient"] == 0.0) is all_zero, result
    assert _codes(_case_source("gradient", source)) == ({code} if code else set())


@pytest.mark.mindspore
@pytest.mark.parametrize("case", FORWARD_CASES, ids=[c[0] for c in FORWARD_CASES])
def test_call_then_grad_runs_forward_twice(case, measured):
    name, code, source, forwards = case
    result = measured[name]
    assert result["ok"], result.get("error")
    assert result["forwards"] == forwards
    assert _codes(_case_source("forward", source)) == ({code} if code else set())


@pytest.mark.mindspore
def test_second_forward_updates_batchnorm_statistics_twice(measured):
    assert _codes(_batchnorm_source(set_grad=False)) == {"MS113"}
    assert _codes(_batchnorm_source(set_grad=True)) == set()
    hazardous, fixed = measured["batchnorm"], measured["batchnorm-set-grad"]
    assert hazardous["ok"] and fixed["ok"], (hazardous, fixed)
    batch_mean = [1.0, -0.375, 0.625]  # of the runner's x
    # momentum 0.9: one update moves the running mean (from 0) 10% of the way to the batch mean; two, 19%.
    assert fixed["returned"] == pytest.approx([0.1 * m for m in batch_mean], rel=1e-5)
    assert hazardous["returned"] == pytest.approx([0.19 * m for m in batch_mean], rel=1e-5)


@pytest.mark.mindspore
def test_second_forward_draws_a_new_dropout_mask(measured):
    assert _codes(_dropout_source(set_grad=False)) == {"MS113"}
    assert _codes(_dropout_source(set_grad=True)) == set()
    hazardous, fixed = measured["dropout"], measured["dropout-set-grad"]
    assert hazardous["ok"] and fixed["ok"], (hazardous, fixed)
    # The gradient belongs to the output just computed only when the forward is reused (64 draws at p=0.5).
    assert fixed["returned"] == [True]
    assert hazardous["returned"] == [False]


def test_eager_training_sample_has_both_hazards_and_its_fix_none():
    hazardous = SAMPLES / "train_hazardous.py"
    fixed = SAMPLES / "train_fixed.py"
    found = sorted(f.code for f in check_source(hazardous.read_text(), str(hazardous), Settings(syntax_level="strict")))
    assert found == ["MS112", "MS113"]
    assert check_source(fixed.read_text(), str(fixed), Settings(syntax_level="strict")) == []
