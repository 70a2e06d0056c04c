"""What the messages of MS101, MS108, MS110, MS116, MS119 and MS131 say MindSpore raises or computes, checked with the
real MindSpore on CPU at STRICT and LAX: each case runs (twice, or through ``mindspore.grad``) on given data, and the
message ms-lint gives for the same source names the exception and the outcome measured.

Runs on whichever MindSpore the interpreter has: CI runs it on 2.10 and on 2.7.1 (``nox -s ground-truth-2.7.1``).
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field

import pytest

from ms_lint.engine import check_source
from ms_lint.rules import RULES_BY_CODE
from ms_lint.settings import Settings
from tests.mindspore_compile import compile_environment

pytestmark = pytest.mark.mindspore

HEADER = """
import math
import numpy as np
import mindspore as ms
from mindspore import mint, nn, ops

N = 0
CACHE = None
"""

_RUNNER = r'''
import importlib.util, json, sys
import numpy as np
import mindspore as ms
results = []
for case in json.load(sys.stdin):
    ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=getattr(ms, case["level"]))
    result = {}
    try:
        spec = importlib.util.spec_from_file_location(case["module"], case["path"])
        module = importlib.util.module_from_spec(spec)
        sys.modules[case["module"]] = module
        spec.loader.exec_module(module)
        net = module.Net()
        inputs = [ms.Tensor(np.array(values, dtype)) for dtype, values in case["inputs"]]
        second = [ms.Tensor(np.array(values, dtype)) for dtype, values in case["second"] or case["inputs"]]
        outputs = [ms.grad(net)(*inputs)] if case["grad"] else [net(*inputs), net(*second)]
        result = {"ok": True, "tensor": all(isinstance(o, ms.Tensor) for o in outputs),
                  "outputs": [np.asarray(o.asnumpy() if isinstance(o, ms.Tensor) else o).tolist() for o in outputs],
                  "global_n": module.N}
    except BaseException as exc:
        result = {"ok": False, "error": type(exc).__name__, "message": str(exc)[:1500]}
    results.append(result)
print("@@RESULTS@@" + json.dumps(results))
'''


@dataclass
class Case:
    id: str
    source: str
    inputs: list  # (numpy dtype, values) per input
    strict: dict  # the outcome under STRICT: {"error": name, "message": fragment} or {"outputs": [...]}
    lax: dict  # the same under LAX
    code: str = ""  # the rule whose message is checked against the outcome
    says: dict = field(default_factory=dict)  # level -> fragments the rule's message holds there
    grad: bool = False
    findings: int = 1  # how many findings of ``code`` the source gets (one per name it reads)
    second: list | None = None  # the inputs of the second call, when not the first's


F32 = "float32"
ONES = [(F32, [1.0, 1.0, 1.0])]
BOTH = ("strict", "lax")
BROADCAST = {"error": "ValueError", "message": "For 'BroadcastTo'"}
NAME_ERROR = {"error": "NameError", "message": "is not defined, or not supported in graph mode"}
JOIN = {"error": "UnboundLocalError", "message": "is not defined in false branch, but defined in true branch"}
LOOP = {"error": "UnboundLocalError", "message": "defined in the 'for' loop body cannot be used outside of the loop"}
BPROP_COUNT = "The number of parameter of this primal function is 1, but the number of parameters of bprop is 2"
BPROP_ARITY = ("The params of function 'bprop' of Primitive or Cell requires the forward inputs as well as the 'out' "
               "and 'dout'")
CONSTRUCT_COUNT = {"error": "TypeError",
                   "message": "The parameters number of the function is 2, but the number of provided arguments is 1"}
CONSTANT = {"error": "ValueError", "message": "the inputs should be constant"}

MASK = """
    class Net(nn.Cell):
        def construct(self, x, y):
            m = x > 0
            y[m] = x[m]
            return y
"""
MASK_SAYS = {level: ["ValueError (BroadcastTo)", "one value, or one per element of the tensor", "at run time"]
             for level in BOTH}

CASES = [
    # MS110: x[mask] = values broadcasts the values to the tensor's shape, keeping them where the mask is set.
    Case("mask-values-one-per-selected-element", MASK, [(F32, [1, -1, 2, -2]), (F32, [0, 0, 0, 0])],
         BROADCAST, BROADCAST, "MS110", MASK_SAYS),
    Case("mask-values-every-element-selected", MASK, [(F32, [1, 3, 2, 5]), (F32, [0, 0, 0, 0])],
         {"outputs": [1, 3, 2, 5]}, {"outputs": [1, 3, 2, 5]}, "MS110", MASK_SAYS),
    Case("mask-values-one-element-selected", """
        class Net(nn.Cell):
            def construct(self, x, v):
                x[x > 0] = v
                return x
    """, [(F32, [1, -1, -2, -2]), (F32, [10])], {"outputs": [10, -1, -2, -2]}, {"outputs": [10, -1, -2, -2]},
         "MS110", MASK_SAYS),
    Case("mask-values-shaped-like-the-tensor-kept-by-position", """
        class Net(nn.Cell):
            def construct(self, x, v):
                x[x > 0] = v
                return x
    """, [(F32, [1, -1, 2, -2]), (F32, [10, 20, 30, 40])], {"outputs": [10, -1, 30, -2]},
         {"outputs": [10, -1, 30, -2]}, "MS110", MASK_SAYS),
    Case("mask-values-sized-by-the-same-mask", """
        class Net(nn.Cell):
            def construct(self, x):
                m = x > 0
                x[m] = ops.ones(x[m].shape, ms.float32) * 7
                return x
    """, [(F32, [1, -1, 2, -2])], BROADCAST, BROADCAST, "MS110", MASK_SAYS),
    # One number (a full reduction: a 0-d tensor, and arithmetic of such numbers) fills every selected element, as
    # PyNative does: not reported.
    Case("mask-values-one-number-from-a-reduction-primitive", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.sum = ops.ReduceSum(False)
                self.size = ops.Size()

            def construct(self, x):
                mask = ops.cast(x > 0, ms.float32)
                positive = self.sum(mask)
                negative = self.size(mask) - positive
                mask[mask != 0] = negative / (positive + negative)
                return mask
    """, [(F32, [1, -1, 2, -2])], {"outputs": [0.5, 0, 0.5, 0]}, {"outputs": [0.5, 0, 0.5, 0]}, "MS110", {}),
    Case("mask-values-one-number-from-a-reduction-method", """
        class Net(nn.Cell):
            def construct(self, x):
                x[x > 0] = x.sum() * 0.5
                return x
    """, [(F32, [1, -1, 3, -1])], {"outputs": [1, -1, 1, -1]}, {"outputs": [1, -1, 1, -1]}, "MS110", {}),
    # MS119: bprop's first parameter and its arity.
    Case("bprop-ctx-with-the-right-inputs", """
        class Net(nn.Cell):
            def construct(self, x):
                return x * 2

            def bprop(ctx, x, out, dout):
                return (dout * 3,)
    """, ONES, {"error": "TypeError", "message": BPROP_COUNT}, {"error": "TypeError", "message": BPROP_COUNT},
         "MS119", {level: [BPROP_COUNT, "Name it `self`"] for level in BOTH}, grad=True),
    Case("bprop-ctx-missing-an-input", """
        class Net(nn.Cell):
            def construct(self, x, y):
                return x * y

            def bprop(ctx, x, out, dout):
                return (dout * 3,)
    """, ONES * 2, {"error": "RuntimeError", "message": "The output size of the 'bprop' must match"},
         {"error": "RuntimeError", "message": "The output size of the 'bprop' must match"},
         "MS119", {level: [BPROP_ARITY, "alone does not fix it", "RuntimeError"] for level in BOTH}, grad=True),
    Case("bprop-ctx-missing-two-inputs", """
        class Net(nn.Cell):
            def construct(self, x, y, z):
                return x * y * z

            def bprop(ctx, x, out, dout):
                return (dout * 3,)
    """, ONES * 3, {"error": "TypeError", "message": BPROP_ARITY}, {"error": "TypeError", "message": BPROP_ARITY},
         "MS119", {level: [BPROP_ARITY, "named `ctx` or `self`"] for level in BOTH}, grad=True),
    Case("bprop-self-missing-an-input", """
        class Net(nn.Cell):
            def construct(self, x, y):
                return x * y

            def bprop(self, x, out, dout):
                return (dout * 3,)
    """, ONES * 2, {"error": "TypeError", "message": BPROP_ARITY}, {"error": "TypeError", "message": BPROP_ARITY},
         grad=True),
    Case("bprop-self-with-the-right-inputs", """
        class Net(nn.Cell):
            def construct(self, x):
                return x * 2

            def bprop(self, x, out, dout):
                return (dout * 3,)
    """, ONES, {"outputs": [3, 3, 3]}, {"outputs": [3, 3, 3]}, grad=True),
    Case("construct-ctx", """
        class Net(nn.Cell):
            def construct(ctx, x):
                return x * 2
    """, ONES, CONSTRUCT_COUNT, CONSTRUCT_COUNT, "MS119",
         {level: ["TypeError: \"The parameters number of the function is"] for level in BOTH}),
    # MS116: which exception the parser raises depends on where the name is read.
    Case("loop-read-in-the-body-before-its-binding", """
        class Net(nn.Cell):
            def construct(self, x):
                for i in range(3):
                    if i == 0:
                        z = x
                    else:
                        z = z + x
                return z
    """, ONES, NAME_ERROR, NAME_ERROR, "MS116", {level: ["NameError", "in the loop body"] for level in BOTH}),
    Case("loop-read-after-the-loop-only", """
        class Net(nn.Cell):
            def construct(self, x):
                for i in range(3):
                    z = x * i
                    x = z + 1
                return z
    """, ONES, LOOP, LOOP, "MS116", {level: ["UnboundLocalError", "cannot be used outside of the loop body"]
                                     for level in BOTH}),
    Case("if-read-after", """
        class Net(nn.Cell):
            def construct(self, x):
                if x.sum() > 0:
                    z = x
                return x + z
    """, ONES, JOIN, JOIN, "MS116", {level: ["UnboundLocalError", "NameError"] for level in BOTH}),
    Case("if-read-in-another-branch-after-a-dropped-binding", """
        class Net(nn.Cell):
            def construct(self, x, obj=None, kv=None, pos=None):
                is_cross = kv is not None
                if obj is not None:
                    h_orig = x
                    x = x + obj
                if pos is not None:
                    z = kv
                    kv = kv + pos
                if is_cross:
                    v = z
                else:
                    v = h_orig
                return v
    """, ONES, NAME_ERROR, NAME_ERROR, "MS116", {level: ["UnboundLocalError", "NameError"] for level in BOTH},
         findings=2),
    # MS131: slice assignment with tensor bounds.
    Case("slice-store-int32-bound", """
        class Net(nn.Cell):
            def construct(self, x, n):
                x[:n[0]] = 0
                return x
    """, [(F32, [1, 1, 1, 1]), ("int32", [2])], {"error": "TypeError", "message": "SliceToIndices"},
         {"error": "TypeError", "message": "SliceToIndices"}, "MS131",
         {level: ["int32 bound (TypeError: SliceToIndices takes int64)"] for level in BOTH}),
    Case("slice-store-int64-bound", """
        class Net(nn.Cell):
            def construct(self, x, n):
                x[:n[0]] = 0
                return x
    """, [(F32, [1, 1, 1, 1]), ("int64", [2])], {"outputs": [0, 0, 1, 1]}, {"outputs": [0, 0, 1, 1]}, "MS131",
         {level: ["with int64 bounds it works in some shapes"] for level in BOTH}),
    Case("slice-store-int64-bounds-on-a-filled-mask", """
        class Net(nn.Cell):
            def construct(self, x, cu):
                m = mint.full([1, 1, 4, 4], x.min().item(), dtype=x.dtype)
                for i in range(1, len(cu)):
                    m[..., cu[i - 1]:cu[i], cu[i - 1]:cu[i]] = 0
                return m + x
    """, [(F32, [1]), ("int64", [0, 2, 4])], {"error": "ValueError", "message": "TensorScatterUpdate"},
         {"error": "RuntimeError", "message": "The pointer[seq_abs] is null"}, "MS131",
         {"strict": ["ValueError from TensorScatterUpdate"], "lax": ["RuntimeError \"The pointer[seq_abs] is null\""]}),
    # MS101: what LAX does with numpy on tensor data.
    Case("numpy-ufunc-returned", """
        class Net(nn.Cell):
            def construct(self, x):
                return np.sin(x) * 2
    """, ONES, CONSTANT, {"outputs": [1.682942] * 3, "tensor": False}, "MS101",
         {"strict": ["numpy array, not a Tensor"]}),
    Case("numpy-ufunc-as-a-tensor-operand", """
        class Net(nn.Cell):
            def construct(self, x):
                return x + np.sin(x)
    """, ONES, CONSTANT, {"error": "TypeError", "message": "Failed calling Add"}, "MS101",
         {"strict": ["numpy array, not a Tensor", "TypeError"], "lax": ["numpy array, not a Tensor", "TypeError"]}),
    Case("numpy-reduction-on-a-tensor", """
        class Net(nn.Cell):
            def construct(self, x):
                return x / float(np.mean(x))
    """, ONES, CONSTANT, {"error": "TypeError", "message": "unexpected keyword argument 'out'"}, "MS101",
         {level: ["unexpected keyword argument 'out'"] for level in BOTH}),
    *[Case(f"numpy-{name}-on-a-tensor", f"""
        class Net(nn.Cell):
            def construct(self, x):
                return x / float(np.{name}(x))
    """, ONES, CONSTANT, {"error": "TypeError", "message": "out"}, "MS101",
           {level: ["TypeError", f"Tensor's own {name}() with out="] for level in BOTH})
      for name in ("sum", "max", "min", "prod", "std", "var")],
    Case("math-on-a-tensor-sum", """
        class Net(nn.Cell):
            def construct(self, x):
                return x * math.exp(x.sum())
    """, ONES, CONSTANT, {"outputs": [20.085537] * 3}, "MS101", {"strict": ["Python interpreter"]}),
    # MS108: a global written in graph code.
    Case("global-number-incremented", """
        class Net(nn.Cell):
            def construct(self, x):
                global N
                N += 1
                return x * N
    """, ONES, {"outputs": [0, 0, 0]}, {"outputs": [0, 0, 0]}, "MS108",
         {level: ["the value it had when the graph was compiled"] for level in BOTH}),
    Case("attribute-tensor-written-from-the-input", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.cache = ms.Tensor(np.zeros(3, np.float32))

            def construct(self, x):
                self.cache = x * 2
                return self.cache
    """, ONES, {"error": "TypeError", "message": "must be of the Parameter type"}, {"each": [[2] * 3, [2] * 3]},
         "MS108", {level: ["later calls silently see the first call's value"] for level in BOTH},
         second=[(F32, [3.0, 3.0, 3.0])]),
    Case("attribute-tensor-accumulated", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.total = ms.Tensor(np.zeros(3, np.float32))

            def construct(self, x):
                self.total = self.total + x
                return self.total
    """, ONES, {"error": "TypeError", "message": "must be of the Parameter type"}, {"each": [[1] * 3, [4] * 3]},
         "MS108", {"strict": ["TypeError", "LAX updates it on every call"]}, second=[(F32, [3.0, 3.0, 3.0])]),
    Case("global-tensor-written-then-read", """
        class Net(nn.Cell):
            def construct(self, x):
                global CACHE
                CACHE = x * 2
                return CACHE + 1
    """, ONES, {"error": "TypeError", "message": "'NoneType'"}, {"error": "TypeError", "message": "'NoneType'"},
         "MS108", {level: ["TypeError"] for level in BOTH}),
]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("messages")
    payload = []
    for case in CASES:
        path = workdir / f"case_{case.id.replace('-', '_')}.py"
        path.write_text(HEADER + textwrap.dedent(case.source))
        for level in ("STRICT", "LAX"):
            payload.append({"module": f"{path.stem}_{level}", "path": str(path), "level": level,
                            "inputs": case.inputs, "second": case.second, "grad": case.grad})
    completed = subprocess.run([sys.executable, "-c", _RUNNER], input=json.dumps(payload), capture_output=True,
                               text=True, cwd=workdir, timeout=900, env=compile_environment())
    marker = completed.stdout.rfind("@@RESULTS@@")
    assert marker >= 0, completed.stderr[-3000:]
    results = iter(json.loads(completed.stdout[marker + len("@@RESULTS@@"):]))
    return {(case.id, level): next(results) for case in CASES for level in BOTH}


def _matches(result: dict, expected: dict) -> bool:
    if "error" in expected:
        return not result["ok"] and result["error"] == expected["error"] and expected["message"] in result["message"]
    if not result["ok"]:
        return False
    if "tensor" in expected and result["tensor"] != expected["tensor"]:
        return False
    each = expected.get("each", [expected.get("outputs")] * len(result["outputs"]))
    return all(abs(a - b) < 1e-4 for output, wanted in zip(result["outputs"], each) for a, b in zip(output, wanted))


@pytest.mark.parametrize("level", ["strict", "lax"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_mindspore_behaves_as_measured(case, level, outcomes):
    result = outcomes[(case.id, level)]
    expected = case.strict if level == "strict" else case.lax
    assert _matches(result, expected), result


@pytest.mark.parametrize("level", ["strict", "lax"])
@pytest.mark.parametrize("case", [c for c in CASES if c.code], ids=lambda c: c.id)
def test_message_says_what_was_measured(case, level):
    fragments = case.says.get(level)
    findings = [f for f in check_source(HEADER + textwrap.dedent(case.source), "case.py",
                                        Settings.from_values(None, level, device="any"), RULES_BY_CODE)
                if f.code == case.code]
    if fragments is None:
        assert findings == [], [f.message for f in findings]  # not reported at this level
        return
    assert len(findings) == case.findings, [f.message for f in findings]
    for fragment in fragments:
        assert all(fragment in finding.message for finding in findings), findings[0].message


@pytest.mark.parametrize("name", ["masked_select", "nonzero", "unique", "unique_consecutive", "argwhere", "topk"])
def test_dynamic_shape_operations_are_documented_for_ascend(name):
    """MS110 says these run on Ascend (as dynamic shape), not that they fail there: their documentation, the
    installed MindSpore's docstrings, lists Ascend among the supported platforms."""
    script = (f"import re, mindspore.ops as ops; doc = ops.{name}.__doc__; "
              "print(re.search(r'Supported Platforms:\\s*(.*)', doc).group(1))")
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                               env=compile_environment())
    assert "``Ascend``" in completed.stdout, completed.stderr[-2000:]
