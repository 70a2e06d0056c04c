"""What MindSpore does with PyTorch's device moves and optimizer calls (MS616), measured with the real MindSpore:
``Tensor.to`` with a device MindSpore does not name (PyNative, and graph code at STRICT and LAX), ``Cell.to``,
``Cell.cuda``/``cpu``, an optimizer's ``zero_grad`` and ``mindspore.tensor.from_numpy``. Each measured source is
linted: the rule reports exactly the calls that fail."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from ms_lint.engine import check_source
from ms_lint.settings import Settings
from tests.mindspore_compile import compile_environment

pytestmark = pytest.mark.mindspore

_RUNNER = r'''
import importlib.util, json, sys
import mindspore as ms
mode, level, path = sys.argv[1:4]
if mode == "graph":
    ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=getattr(ms, level))
spec = importlib.util.spec_from_file_location("case", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
outcomes = {}
for name, step in module.STEPS.items():
    try:
        step()
        outcomes[name] = "ok"
    except BaseException as exc:
        outcomes[name] = type(exc).__name__ + ": " + str(exc).splitlines()[0][:200]
print("@@RESULT@@" + json.dumps({"version": ms.__version__, "outcomes": outcomes}))
'''

HABITS = """
import numpy as np
import mindspore as ms
from mindspore import Tensor, mint, nn


class Moved(nn.Cell):
    def construct(self, x):
        return x.to("cuda") * 2


def tensor_to_cuda():
    return Tensor(np.ones((2, 3), np.float32)).to("cuda")


def tensor_to_cuda_0():
    return Tensor(np.ones((2, 3), np.float32)).to("cuda:0")


def tensor_to_gpu():
    return Tensor(np.ones((2, 3), np.float32)).to("GPU")


def tensor_to_cpu():
    return Tensor(np.ones((2, 3), np.float32)).to("CPU")


def tensor_to_dtype():
    return Tensor(np.ones((2, 3), np.float32)).to(ms.float16)


def cell_to_cuda():
    net = nn.Dense(3, 2)
    net.to("cuda")


def cell_cuda():
    net = nn.Dense(3, 2)
    net.cuda()


def cell_cpu():
    net = nn.Dense(3, 2)
    net.cpu()


def adam_zero_grad():
    net = nn.Dense(3, 2)
    optimizer = nn.Adam(net.trainable_params(), 1e-3)
    optimizer.zero_grad()


def mint_zero_grad():
    net = nn.Dense(3, 2)
    optimizer = mint.optim.AdamW(net.trainable_params(), lr=1e-3)
    optimizer.zero_grad()


def tensor_function_from_numpy():
    return ms.tensor.from_numpy(np.ones(2, np.float32))


def tensor_class_from_numpy():
    return Tensor.from_numpy(np.ones(2, np.float32))


def mindspore_from_numpy():
    return ms.from_numpy(np.ones(2, np.float32))


def graph_to_cuda():
    return Moved()(Tensor(np.ones((2, 3), np.float32)))


STEPS = {name: value for name, value in dict(globals()).items() if callable(value) and name.islower()
         and name not in ("np", "ms", "nn", "mint") and not name.startswith("_")}
"""

FAILING = ("tensor_to_cuda", "tensor_to_cuda_0", "tensor_to_gpu", "cell_to_cuda", "cell_cuda", "cell_cpu",
           "adam_zero_grad", "mint_zero_grad", "tensor_function_from_numpy", "graph_to_cuda")
# the lines MS616 reports: each failing call but the Cell's, which the graph step reaches
REPORTED_LINES = ('        return x.to("cuda") * 2',
                  '    return Tensor(np.ones((2, 3), np.float32)).to("cuda")',
                  '    return Tensor(np.ones((2, 3), np.float32)).to("cuda:0")',
                  '    return Tensor(np.ones((2, 3), np.float32)).to("GPU")', '    net.to("cuda")', "    net.cuda()",
                  "    net.cpu()", "    optimizer.zero_grad()",
                  "    return ms.tensor.from_numpy(np.ones(2, np.float32))")


def _run(tmp_path, mode: str, level: str) -> dict:
    path = tmp_path / "case.py"
    path.write_text(textwrap.dedent(HABITS))
    completed = subprocess.run([sys.executable, "-c", _RUNNER, mode, level, str(path)], capture_output=True,
                               text=True, cwd=tmp_path, timeout=300, env=compile_environment())
    marker = completed.stdout.rfind("@@RESULT@@")
    assert marker >= 0, completed.stderr[-3000:]
    return json.loads(completed.stdout[marker + len("@@RESULT@@"):])


@pytest.mark.parametrize("mode, level", [("pynative", ""), ("graph", "STRICT"), ("graph", "LAX")])
def test_pytorch_device_moves_and_optimizer_calls_fail(tmp_path, mode, level):
    result = _run(tmp_path, mode, level)
    outcomes, version = result["outcomes"], result["version"]
    assert {name for name, outcome in outcomes.items() if outcome != "ok"} == set(FAILING), outcomes
    for name in ("tensor_to_cuda", "tensor_to_cuda_0", "tensor_to_gpu", "graph_to_cuda"):
        assert outcomes[name].startswith("ValueError: Failed to convert the value"), outcomes[name]
    for name in ("cell_cuda", "cell_cpu", "adam_zero_grad", "mint_zero_grad", "tensor_function_from_numpy"):
        assert outcomes[name].startswith("AttributeError"), outcomes[name]
    # a Cell has ``to`` from 2.8 on (it rejects the device); 2.7.1's has none
    expected = "AttributeError" if version.startswith("2.7.") else "ValueError"
    if version.startswith(("2.7.", "2.10.")):
        assert outcomes["cell_to_cuda"].startswith(expected), outcomes["cell_to_cuda"]


@pytest.mark.parametrize("level", ["strict", "lax"])
def test_the_rule_reports_each_failing_call(level):
    lines = HABITS.splitlines()
    expected = sorted({(lines.index(text) + 1, "MS616") for text in REPORTED_LINES}
                      | {(len(lines) - lines[::-1].index(text), "MS616") for text in ("    optimizer.zero_grad()",)})
    found = sorted((f.line, f.code) for f in check_source(HABITS, "case.py", Settings(syntax_level=level))
                   if f.code == "MS616")
    assert found == expected
