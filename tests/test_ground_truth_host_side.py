"""What MindSpore does with values that cross between host code and graph code, measured with the real MindSpore:
a dict returned from ``construct`` (MS117), globals and plain attributes written by host code after the first call
(MS118), and PyTorch tensor habits in PyNative as well as graph mode (MS601, MS602). Each fact is checked at
STRICT and LAX, and each measured source is linted: the rule reports exactly the hazards."""
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

DICT_OUTPUT = """
import numpy as np
from mindspore import Tensor, nn


class Net(nn.Cell):
    def construct(self, x):
        return {"logits": x * 2, "features": x}


def run():
    net = Net()
    out = net(Tensor(np.ones((2, 3), np.float32)))
    logits = out["logits"]
    return list(logits.shape)
"""

TENSOR_HABITS = """
import numpy as np
from mindspore import Tensor, nn


class Swap(nn.Cell):
    def construct(self, x):
        return x.transpose(0, 1)


class Detach(nn.Cell):
    def construct(self, x):
        return x.detach()


def run():
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    outputs = [list(Swap()(x).shape)]
    try:
        Detach()(x)
        outputs.append("ok")
    except AttributeError:
        outputs.append("AttributeError")
    return outputs
"""

AMP_FACTORY = """
import mindspore as ms
from mindspore import Model, nn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.body = nn.Dense(4, 4)
        self.head = nn.Dense(4, 2)

    def construct(self, x):
        return self.head(self.body(x))


def build_network():
    net = Net()
    net.to_float(ms.float16)
    net.head.to_float(ms.float32)
    return net


def run():
    net = build_network()
    before = net.head.get_flags().get("fp32")
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    model = Model(net, nn.MSELoss(), opt, amp_level="O2", loss_scale_manager=None)
    return [before, net.head.get_flags().get("fp32"), net.head.get_flags().get("fp16")]
"""

AMP_WHOLE_FLOAT16 = """
import mindspore as ms
from mindspore import Model, nn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.body = nn.Dense(4, 4)
        self.head = nn.Dense(4, 2)

    def construct(self, x):
        return self.head(self.body(x))


def flags(net):
    return [sorted(k for k, v in cell.get_flags().items() if k in ("fp16", "fp32", "bf16") and v)
            for _, cell in sorted(net.cells_and_names())]


def run():
    net = Net()
    net.to_float(ms.float16)
    before = flags(net)
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    model = Model(net, nn.MSELoss(), opt, amp_level="O3", loss_scale_manager=None)
    return [before == flags(net), any("fp32" in cell for cell in flags(net))]
"""

GRADIENT_THROUGH_HELPER = """
import mindspore as ms
import numpy as np
from mindspore import Tensor, nn, ops

ms.set_context(mode=ms.PYNATIVE_MODE)
ms.set_seed(1)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, 3)

    def features(self, x):
        return Tensor(self.dense(x).asnumpy() * 2)

    def construct(self, x):
        return self.dense(x)


net = Net()


def forward_fn(x):
    return net.features(x).sum()


def forward_fixed(x):
    return (net(x) * 2).sum()


def run():
    x = Tensor(np.ones((2, 3), np.float32))
    _, cut = ms.value_and_grad(forward_fn, None, net.trainable_params())(x)
    _, fixed = ms.value_and_grad(forward_fixed, None, net.trainable_params())(x)
    return [[float(ops.abs(g).sum()) for g in grads] for grads in (cut, fixed)]
"""

HOST_WRITTEN_STATE = """
import numpy as np
from mindspore import Tensor, nn

SMOOTHING = 0.1


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.temperature = 1.0

    def set_temperature(self, value):
        self.temperature = value

    def construct(self, x):
        return x / self.temperature * (1 - SMOOTHING)


def update_smoothing(value):
    global SMOOTHING
    SMOOTHING = value


def run():
    net = Net()
    x = Tensor(np.ones((2,), np.float32))
    outputs = [float(net(x)[0])]
    update_smoothing(0.5)
    outputs.append(float(net(x)[0]))
    net.set_temperature(4.0)
    outputs.append(float(net(x)[0]))
    for scale in (8.0,):
        net.temperature = scale
        outputs.append(float(net(x)[0]))
    for scale in (16.0,):
        net.set_temperature(scale)
        outputs.append(float(net(x)[0]))
    return outputs
"""

_RUNNER = r'''
import importlib.util, json, sys
import numpy as np
import mindspore as ms
mode, level, path, what = sys.argv[1:5]
if mode == "graph":
    ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=getattr(ms, level))
else:
    ms.set_context(mode=ms.PYNATIVE_MODE)
result = {}
try:
    spec = importlib.util.spec_from_file_location("case", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if what == "run":
        result["outputs"] = module.run()
    result["ok"] = True
except BaseException as exc:
    result = {"ok": False, "error": type(exc).__name__, "message": str(exc)[:500]}
print("@@RESULT@@" + json.dumps(result))
'''


def _run(tmp_path, source: str, mode: str, level: str, what: str) -> dict:
    path = tmp_path / "case.py"
    path.write_text(textwrap.dedent(source))
    completed = subprocess.run([sys.executable, "-c", _RUNNER, mode, level, str(path), what], capture_output=True,
                               text=True, cwd=tmp_path, timeout=300, env=compile_environment())
    marker = completed.stdout.rfind("@@RESULT@@")
    assert marker >= 0, completed.stderr[-3000:]
    return json.loads(completed.stdout[marker + len("@@RESULT@@"):])


def _codes(source: str, level: str = "strict") -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in check_source(source, "case.py", Settings(syntax_level=level))]


def test_dict_output_is_a_tuple_under_strict_only(tmp_path):
    strict = _run(tmp_path, DICT_OUTPUT, "graph", "STRICT", "run")
    assert not strict["ok"] and strict["error"] == "TypeError", strict
    assert "tuple indices" in strict["message"]
    assert _run(tmp_path, DICT_OUTPUT, "graph", "LAX", "run")["outputs"] == [2, 3]
    assert _run(tmp_path, DICT_OUTPUT, "pynative", "", "run")["outputs"] == [2, 3]
    lines = DICT_OUTPUT.splitlines()
    line = lines.index('    logits = out["logits"]') + 1
    assert _codes(DICT_OUTPUT) == [(line, "MS117")]  # the read in the Cell's own module: MS117's, not MS122's
    assert _codes(DICT_OUTPUT, "lax") == []


@pytest.mark.parametrize("level", ["STRICT", "LAX"])
def test_host_written_state_keeps_its_first_value(tmp_path, level):
    graph = _run(tmp_path, HOST_WRITTEN_STATE, "graph", level, "run")
    assert graph["ok"], graph
    assert graph["outputs"] == pytest.approx([0.9] * 5)  # every write after the first call is ignored
    eager = _run(tmp_path, HOST_WRITTEN_STATE, "pynative", "", "run")
    assert eager["outputs"] == pytest.approx([0.9, 0.5, 0.125, 0.0625, 0.03125])
    lines = HOST_WRITTEN_STATE.splitlines()
    expected = [(lines.index(text) + 1, "MS118") for text in (
        "    SMOOTHING = value", "        net.temperature = scale", "        net.set_temperature(scale)")]
    assert sorted(_codes(HOST_WRITTEN_STATE, level.lower())) == sorted(expected)


UNTYPED_SETTER = """
import numpy as np
import mindspore as ms
from mindspore import Tensor, nn


class Net(nn.Cell):
    def __init__(self, scale=1.0):
        super().__init__()
        self.scale = scale

    def set_scale(self, value):
        self.scale = value

    def construct(self, x):
        return x * self.scale


class Trainer:
    def __init__(self, network):
        self.network = network

    def fit(self, x, epochs):
        outputs = []
        for epoch in range(epochs):
            self.network.set_scale(0.5 ** epoch)
            outputs.append(float(self.network(x)[0]))
        return outputs


def train(model, x, epochs):
    outputs = []
    for epoch in range(epochs):
        model.set_scale(2.0 ** epoch)
        outputs.append(float(model(x)[0]))
    return outputs


def run():
    x = Tensor(np.ones((2,), np.float32))
    return Trainer(Net()).fit(x, 3) + train(Net(), x, 3)
"""


@pytest.mark.parametrize("level", ["STRICT", "LAX"])
def test_a_setter_called_on_an_untyped_model_in_a_loop_keeps_the_first_value(tmp_path, level):
    """The setter reached through a trainer's ``self.network`` and through a function's parameter: graph mode keeps
    the value of the first call, PyNative follows every write."""
    graph = _run(tmp_path, UNTYPED_SETTER, "graph", level, "run")
    assert graph["ok"], graph
    assert graph["outputs"] == pytest.approx([1.0] * 6)
    eager = _run(tmp_path, UNTYPED_SETTER, "pynative", "", "run")
    assert eager["outputs"] == pytest.approx([1.0, 0.5, 0.25, 1.0, 2.0, 4.0])
    source = "import mindspore as ms\nms.set_context(mode=ms.GRAPH_MODE)\n" + UNTYPED_SETTER
    lines = source.splitlines()
    expected = [(lines.index(text) + 1, "MS118") for text in (
        "            self.network.set_scale(0.5 ** epoch)", "        model.set_scale(2.0 ** epoch)")]
    assert sorted(c for c in _codes(source, level.lower()) if c[1] == "MS118") == expected


PARAMETER_CALLED = """
import numpy as np
import mindspore as ms
from mindspore import Parameter, Tensor, nn
from mindspore.common.initializer import HeUniform, initializer


class Scaled(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scale = Parameter(Tensor(np.ones(3, np.float32)))

    def construct(self, x):
        return x * self.scale(x)


def init_weights(cell):
    if isinstance(cell, nn.Dense):
        cell.weight(HeUniform(), cell.weight.shape)


def init_weights_mindspore(cell):
    if isinstance(cell, nn.Dense):
        cell.weight.set_data(initializer(HeUniform(), cell.weight.shape, cell.weight.dtype))


def run():
    outcomes = []
    for step in (lambda: nn.Dense(3, 3).apply(init_weights), lambda: nn.Dense(3, 3).apply(init_weights_mindspore),
                 lambda: Scaled()(Tensor(np.ones((2, 3), np.float32)))):
        try:
            step()
            outcomes.append("ok")
        except (TypeError, ValueError) as exc:
            outcomes.append(f"{type(exc).__name__}: {str(exc).splitlines()[0]}")
    return outcomes
"""


@pytest.mark.parametrize("level", ["STRICT", "LAX"])
def test_a_parameter_called_as_a_function_fails(tmp_path, level):
    """PyTorch's initialisation ported as a call of the Parameter: TypeError on the host; in graph code the compile
    fails; ``set_data(initializer(...))`` runs."""
    graph = _run(tmp_path, PARAMETER_CALLED, "graph", level, "run")
    assert graph["ok"], graph
    assert graph["outputs"] == ["TypeError: 'Parameter' object is not callable", "ok",
                                "ValueError: The object is not callable. Please check code."]
    eager = _run(tmp_path, PARAMETER_CALLED, "pynative", "", "run")
    assert eager["outputs"][:2] == ["TypeError: 'Parameter' object is not callable", "ok"]
    assert eager["outputs"][2].startswith("TypeError")
    lines = PARAMETER_CALLED.splitlines()
    expected = [(lines.index(text) + 1, "MS615") for text in (
        "        return x * self.scale(x)", "        cell.weight(HeUniform(), cell.weight.shape)")]
    assert sorted(c for c in _codes(PARAMETER_CALLED, level.lower()) if c[1] == "MS615") == expected


def test_pytorch_tensor_habits_in_pynative_and_graph(tmp_path):
    # PyNative swaps the two axes, like PyTorch; .detach() does not exist there either.
    assert _run(tmp_path, TENSOR_HABITS, "pynative", "", "run")["outputs"] == [[3, 2], "AttributeError"]
    for level in ("STRICT", "LAX"):
        # Graph mode reads (0, 1) as the identity permutation.
        assert _run(tmp_path, TENSOR_HABITS, "graph", level, "run")["outputs"] == [[2, 3], "AttributeError"]
    lines = TENSOR_HABITS.splitlines()
    expected = [(lines.index("        return x.transpose(0, 1)") + 1, "MS601"),
                (lines.index("        return x.detach()") + 1, "MS602")]
    assert sorted(_codes(TENSOR_HABITS)) == expected
    assert sorted(_codes(TENSOR_HABITS, "lax")) == expected


@pytest.mark.parametrize("level", ["STRICT", "LAX"])
def test_amp_level_recasts_a_network_converted_in_a_factory(tmp_path, level):
    # The head kept in float32 by the factory is float16 after Model(..., amp_level="O2"); nothing is raised.
    assert _run(tmp_path, AMP_FACTORY, "graph", level, "run")["outputs"] == [True, False, True]
    line = AMP_FACTORY.splitlines().index(
        '    model = Model(net, nn.MSELoss(), opt, amp_level="O2", loss_scale_manager=None)') + 1
    assert _codes(AMP_FACTORY, level.lower()) == [(line, "MS301")]


def test_an_amp_level_on_a_network_wholly_in_float16_turns_no_layer(tmp_path):
    # net.to_float(float16) keeps nothing in float32: O3 changes no cell's flags, and MS301 says nothing.
    assert _run(tmp_path, AMP_WHOLE_FLOAT16, "graph", "LAX", "run")["outputs"] == [True, False]
    assert _codes(AMP_WHOLE_FLOAT16, "lax") == []


def test_host_copy_in_a_helper_of_a_differentiated_function_zeroes_the_gradient(tmp_path):
    # PyNative only: the runner's mode argument sets nothing, the source sets PYNATIVE_MODE itself.
    cut, fixed = _run(tmp_path, GRADIENT_THROUGH_HELPER, "pynative", "", "run")["outputs"]
    assert cut == [0.0, 0.0]
    assert all(value > 0 for value in fixed)
    line = GRADIENT_THROUGH_HELPER.splitlines().index("        return Tensor(self.dense(x).asnumpy() * 2)") + 1
    assert _codes(GRADIENT_THROUGH_HELPER) == [(line, "MS112")]
