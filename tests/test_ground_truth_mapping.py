"""What MindSpore does with PyTorch's arguments, for every difference of the PyTorch mapping table the rules report
(MS606, MS608, MS609), and with an attribute nothing sets (MS123): each case builds or runs the MindSpore API the
way PyTorch's code calls it and the way that gives PyTorch's meaning, on the installed MindSpore (CPU).

Every measured difference of ``ms_lint/data/pytorch_mapping.json`` needs its case here: the table says what the
rules claim (``effect``, ``error``), and these runs are the evidence. Runs on whichever MindSpore the interpreter has:
CI runs it on 2.10 and on 2.7.1 (``nox -s ground-truth-2.7.1``).
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from ms_lint import mindspore_api as api
from ms_lint import pytorch_mapping as mapping
from ms_lint.engine import check_source
from ms_lint.rules import RULES_BY_CODE
from ms_lint.settings import Settings
from tests.mindspore_compile import compile_environment

pytestmark = pytest.mark.mindspore

# Each case is the code of a module that has ``nn``, ``ms``, ``np``, ``ops``, ``ones(shape)`` and ``params()`` (the
# trainable parameters of a small Dense) and runs in PyNative unless it sets another mode; it raises, or binds
# ``result`` to what it measured.
_RUNNER = r'''
import importlib.util, json, os, sys, tempfile, warnings
warnings.filterwarnings("ignore")
import mindspore as ms
ms.set_context(mode=ms.PYNATIVE_MODE)

HEADER = """
import numpy as np
import mindspore as ms
from mindspore import nn, ops

def ones(shape):
    return ms.Tensor(np.ones(shape, np.float32))

def params():
    return nn.Dense(3, 4).trainable_params()

"""
results = {}
folder = tempfile.mkdtemp()
for number, (name, code) in enumerate(json.load(sys.stdin).items()):
    path = os.path.join(folder, f"mapping_case_{number}.py")
    with open(path, "w") as handle:
        handle.write(HEADER + code)
    try:
        spec = importlib.util.spec_from_file_location(f"mapping_case_{number}", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        results[name] = {"ok": True, "result": getattr(module, "result", None)}
    except BaseException as exc:
        results[name] = {"ok": False, "error": type(exc).__name__, "message": str(exc)[:300]}
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
print("@@RESULTS@@" + json.dumps(results))
'''


def _zeros_dropped(call: str) -> str:
    return (f"drop = {call}\ndrop.set_train()\n"
            "result = float((drop(ones((1000, 100))).asnumpy() == 0).mean())")


_BN_STEP = """
bn = nn.BatchNorm2d(1, {arguments})
bn.set_train()
bn(ms.Tensor(np.full((2, 1, 2, 2), 10.0, np.float32)))
statistic = [parameter for parameter in bn.get_parameters() if parameter.name.endswith("mean")][0]
result = float(statistic.asnumpy()[0])
"""

# (API, kind, PyTorch's parameter) -> (the call as PyTorch's code writes it, the call with PyTorch's meaning).
CASES: dict[tuple[str, str, str], tuple[str, str]] = {
    ("mindspore.nn.Dropout", "position", "p"): (_zeros_dropped("nn.Dropout(0.2)"), _zeros_dropped("nn.Dropout(p=0.2)")),
    **{(f"mindspore.nn.{name}", "position", "padding"): (
        f"nn.{name}(4, 8, 3, 1, 1)", f"nn.{name}(4, 8, 3, 1, pad_mode='pad', padding=1)")
       for name in ("Conv1d", "Conv2d", "Conv3d", "Conv1dTranspose", "Conv2dTranspose", "Conv3dTranspose")},
    **{(f"mindspore.nn.{name}", "position", "padding"): (
        f"nn.{name}(3, 2, 1)", f"nn.{name}(3, 2, pad_mode='pad', padding=1)")
       for name in ("MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d")},
    ("mindspore.nn.Embedding", "position", "padding_idx"): ("nn.Embedding(10, 4, 0)",
                                                            "nn.Embedding(10, 4, padding_idx=0)"),
    **{(f"mindspore.nn.{name}", "position", "bias"): (
        f"layer = nn.{name}({sizes}, False)\n"
        "result = [float(np.abs(layer.weight.asnumpy()).max()), getattr(layer, 'bias', None) is not None]",
        f"layer = nn.{name}({sizes}, has_bias=False)\n"
        "result = [float(np.abs(layer.weight.asnumpy()).max()), getattr(layer, 'bias', None) is not None]")
       for name, sizes in (("Dense", "3, 4"), ("BiDense", "3, 3, 4"))},
    ("mindspore.nn.LayerNorm", "position", "eps"): ("nn.LayerNorm((4,), 1e-6)(ones((2, 4)))",
                                                    "nn.LayerNorm((4,), epsilon=1e-6)(ones((2, 4)))"),
    ("mindspore.nn.BCEWithLogitsLoss", "position", "weight"): (
        "nn.BCEWithLogitsLoss(ones((3,)))(ones((2, 3)), ones((2, 3)))",
        "nn.BCEWithLogitsLoss(weight=ones((3,)))(ones((2, 3)), ones((2, 3)))"),
    **{(f"mindspore.nn.{name}", "position", "betas"): (
        f"nn.{name}(params(), 1e-3, (0.9, 0.999))", f"nn.{name}(params(), 1e-3, beta1=0.9, beta2=0.999)")
       for name in ("Adam", "AdamWeightDecay", "AdaMax", "LazyAdam")},
    ("mindspore.nn.Adagrad", "position", "lr"): (
        "result = float(nn.Adagrad(params(), 0.01).learning_rate.asnumpy())",
        "result = float(nn.Adagrad(params(), learning_rate=0.01).learning_rate.asnumpy())"),
    # the loss has no CPU kernel: what is measured here is where the margin lands
    ("mindspore.nn.TripletMarginLoss", "position", "margin"): (
        "result = nn.TripletMarginLoss(0.5).p", "result = nn.TripletMarginLoss().p"),
    **{(f"mindspore.nn.BatchNorm{rank}d", "meaning", "momentum"): (
        _BN_STEP.replace("BatchNorm2d", f"BatchNorm{rank}d").replace(
            "(2, 1, 2, 2)", {1: "(2, 1)", 2: "(2, 1, 2, 2)", 3: "(2, 1, 2, 2, 2)"}[rank]).format(
            arguments="momentum=0.1"),
        _BN_STEP.replace("BatchNorm2d", f"BatchNorm{rank}d").replace(
            "(2, 1, 2, 2)", {1: "(2, 1)", 2: "(2, 1, 2, 2)", 3: "(2, 1, 2, 2, 2)"}[rank]).format(
            arguments="momentum=0.9"))
       for rank in (1, 2, 3)},
    # the composite layers hand momentum to their BatchNorm (a 1x1 convolution / dense layer of weight one passes
    # the batch of tens through)
    **{(f"mindspore.nn.{layer}", "meaning", "momentum"): (
        _BN_STEP.replace("nn.BatchNorm2d(1, ", layer_call).replace("(2, 1, 2, 2)", shape).format(
            arguments="momentum=0.1"),
        _BN_STEP.replace("nn.BatchNorm2d(1, ", layer_call).replace("(2, 1, 2, 2)", shape).format(
            arguments="momentum=0.9"))
       for layer, layer_call, shape in (
           ("Conv2dBnAct", "nn.Conv2dBnAct(1, 1, 1, weight_init='ones', has_bn=True, ", "(2, 1, 2, 2)"),
           ("DenseBnAct", "nn.DenseBnAct(1, 1, weight_init='ones', has_bn=True, ", "(2, 1)"))},
    ("mindspore.nn.LayerNorm", "default", "eps"): (
        "result = nn.LayerNorm((4,))(ms.Tensor(np.array([[1.0, 1.001, 0.999, 1.0]], np.float32))).asnumpy()"
        ".round(3).tolist()",
        "result = nn.LayerNorm((4,), epsilon=1e-5)(ms.Tensor(np.array([[1.0, 1.001, 0.999, 1.0]], np.float32)))"
        ".asnumpy().round(3).tolist()"),
    ("mindspore.nn.GELU", "default", "approximate"): (
        "result = nn.GELU()(ms.Tensor(np.array([-3.0, -1.0], np.float32))).asnumpy().tolist()",
        "result = nn.GELU(approximate=False)(ms.Tensor(np.array([-3.0, -1.0], np.float32))).asnumpy().tolist()"),
    ("mindspore.nn.LeakyReLU", "default", "negative_slope"): (
        "result = nn.LeakyReLU()(ms.Tensor(np.array([-1.0], np.float32))).asnumpy().tolist()",
        "result = nn.LeakyReLU(alpha=0.01)(ms.Tensor(np.array([-1.0], np.float32))).asnumpy().tolist()"),
    **{(f"mindspore.nn.{name}", "default", "stride"): (
        f"result = list(nn.{name}(2)(ones({shape})).shape)",
        f"result = list(nn.{name}(2, stride=2)(ones({shape})).shape)")
       for name, shape in (("MaxPool1d", (1, 2, 8)), ("MaxPool2d", (1, 2, 8, 8)), ("MaxPool3d", (1, 2, 8, 8, 8)),
                           ("AvgPool1d", (1, 2, 8)), ("AvgPool2d", (1, 2, 8, 8)), ("AvgPool3d", (1, 2, 8, 8, 8)))},
    **{(f"mindspore.nn.InstanceNorm{rank}d", "default", "affine"): (
        f"result = len(nn.InstanceNorm{rank}d(2).trainable_params())",
        f"result = len(nn.InstanceNorm{rank}d(2, affine=False).trainable_params())")
       for rank in (1, 2, 3)},
    ("mindspore.nn.SmoothL1Loss", "default", "reduction"): (
        "result = list(nn.SmoothL1Loss()(ones((2, 3)), ones((2, 3)) * 2).shape)",
        "result = list(nn.SmoothL1Loss(reduction='mean')(ones((2, 3)), ones((2, 3)) * 2).shape)"),
    ("mindspore.nn.AdamWeightDecay", "default", "eps"): (
        "result = float(nn.AdamWeightDecay(params()).eps.asnumpy()[0])",
        "result = float(nn.AdamWeightDecay(params(), eps=1e-8).eps.asnumpy()[0])"),
    ("mindspore.nn.AdamWeightDecay", "default", "weight_decay"): (
        "weight = ms.Parameter(ones((2,)), name='w')\n"
        "optimizer = nn.AdamWeightDecay([weight], learning_rate=0.1)\n"
        "optimizer((ops.zeros((2,), ms.float32),))\n"
        "result = float(weight.asnumpy()[0])",
        "weight = ms.Parameter(ones((2,)), name='w')\n"
        "optimizer = nn.AdamWeightDecay([weight], learning_rate=0.1, weight_decay=0.01)\n"
        "optimizer((ops.zeros((2,), ms.float32),))\n"
        "result = float(weight.asnumpy()[0])"),
}

# What PyTorch's spelling does, beside what the table says (its effect and error): the silent ones' values.
SILENT_RESULTS = {
    ("mindspore.nn.Dropout", "position", "p"): lambda ported, meant: 0.75 < ported < 0.85 and 0.15 < meant < 0.25,
    ("mindspore.nn.Dense", "position", "bias"): lambda ported, meant: ported == [0.0, True] and meant[1] is False,
    ("mindspore.nn.BiDense", "position", "bias"): lambda ported, meant: ported == [0.0, True] and meant[1] is False,
    ("mindspore.nn.Adagrad", "position", "lr"): lambda ported, meant: abs(ported - 0.001) < 1e-9
    and abs(meant - 0.01) < 1e-9,
    # the margin 0.5 becomes the norm degree p (PyTorch's default p is 2)
    ("mindspore.nn.TripletMarginLoss", "position", "margin"): lambda ported, meant: ported == 0.5 and meant == 2,
    # one step on a batch of mean 10 from a running mean of 0: MindSpore's 0.1 moves it to 9, its 0.9 (PyTorch's 0.1)
    # to 1
    **{(f"mindspore.nn.{layer}", "meaning", "momentum"):
       lambda ported, meant: abs(ported - 9.0) < 1e-4 and abs(meant - 1.0) < 1e-4
       for layer in ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "Conv2dBnAct", "DenseBnAct")},
    ("mindspore.nn.LayerNorm", "default", "eps"): lambda ported, meant: abs(ported[0][1]) > 1.2
    and abs(meant[0][1]) < 0.4,
    ("mindspore.nn.GELU", "default", "approximate"): lambda ported, meant: abs(ported[0] - meant[0]) > 1e-4,
    ("mindspore.nn.LeakyReLU", "default", "negative_slope"): lambda ported, meant: abs(ported[0] + 0.2) < 1e-6
    and abs(meant[0] + 0.01) < 1e-6,
    **{(f"mindspore.nn.{name}", "default", "stride"): lambda ported, meant: ported[-1] == 7 and meant[-1] == 4
       for name in ("MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d")},
    **{(f"mindspore.nn.InstanceNorm{rank}d", "default", "affine"): lambda ported, meant: ported == 2 and meant == 0
       for rank in (1, 2, 3)},
    ("mindspore.nn.SmoothL1Loss", "default", "reduction"): lambda ported, meant: ported == [2, 3] and meant == [],
    ("mindspore.nn.AdamWeightDecay", "default", "eps"): lambda ported, meant: abs(ported - 1e-6) < 1e-9
    and abs(meant - 1e-8) < 1e-11,
    ("mindspore.nn.AdamWeightDecay", "default", "weight_decay"): lambda ported, meant: ported == 1.0 and meant < 1.0,
}


def _run(cases: dict[str, str]) -> dict[str, dict]:
    completed = subprocess.run([sys.executable, "-c", _RUNNER], input=json.dumps(cases), capture_output=True,
                               text=True, timeout=900, env=compile_environment(), check=False)
    marker = completed.stdout.rfind("@@RESULTS@@")
    assert marker >= 0, completed.stderr[-3000:]
    return json.loads(completed.stdout[marker + len("@@RESULTS@@"):])


def _measured() -> list[mapping.Difference]:
    return [difference for name in mapping.entries()
            for kind in ("position", "meaning", "default")
            for difference in mapping.differences(name, kind)]


@pytest.fixture(scope="module")
def runs() -> dict[str, dict]:
    cases = {}
    for (name, kind, parameter), (ported, meant) in CASES.items():
        cases[f"{name}|{kind}|{parameter}|ported"] = ported
        cases[f"{name}|{kind}|{parameter}|meant"] = meant
    return _run(cases)


def test_every_difference_the_rules_report_has_its_measurement():
    reported = {(difference.api, difference.kind, difference.pytorch) for difference in _measured()}
    assert reported == set(CASES)
    silent = {(d.api, d.kind, d.pytorch) for d in _measured() if d.effect == "silent"}
    assert silent == set(SILENT_RESULTS)


@pytest.mark.parametrize("difference", _measured(), ids=lambda d: f"{d.api}-{d.kind}-{d.pytorch}")
def test_mindspore_does_what_the_table_says(difference, runs):
    key = f"{difference.api}|{difference.kind}|{difference.pytorch}"
    ported, meant = runs[f"{key}|ported"], runs[f"{key}|meant"]
    assert meant["ok"], meant  # PyTorch's meaning, spelt MindSpore's way, runs
    if difference.effect == "raises":
        assert not ported["ok"] and ported["error"] == difference.error, ported
    else:
        assert ported["ok"], ported
        check = SILENT_RESULTS[(difference.api, difference.kind, difference.pytorch)]
        assert check(ported["result"], meant["result"]), (ported["result"], meant["result"])


def test_the_momentum_difference_holds_in_graph_mode():
    """MS608's example, trained one step in a GRAPH_MODE compile: MindSpore's momentum=0.1 moves the running mean
    of a BatchNorm from 0 to 9.0 on a batch of mean 10, where PyTorch's momentum=0.1 (MindSpore's 0.9) gives 1.0."""
    code = textwrap.dedent("""
        ms.set_context(mode=ms.GRAPH_MODE)
        class Net(nn.Cell):
            def __init__(self, momentum):
                super().__init__()
                self.bn = nn.BatchNorm2d(1, momentum=momentum)
            def construct(self, x):
                return self.bn(x)
        result = []
        for momentum in (0.1, 0.9):
            net = Net(momentum)
            net.set_train()
            net(ms.Tensor(np.full((2, 1, 2, 2), 10.0, np.float32)))
            result.append(float(net.bn.moving_mean.asnumpy()[0]))
    """)
    result = _run({"graph": code})["graph"]
    assert result["ok"], result
    assert result["result"] == pytest.approx([9.0, 1.0], abs=1e-4)
    torch = pytest.importorskip("torch")
    batch_norm = torch.nn.BatchNorm2d(1, momentum=0.1)
    batch_norm(torch.full((2, 1, 2, 2), 10.0))
    assert float(batch_norm.running_mean[0]) == pytest.approx(result["result"][1])


def test_the_composite_layers_read_momentum_only_with_their_batchnorm():
    """Why MS608 reports a ``Conv2dBnAct``'s or ``DenseBnAct``'s momentum only with ``has_bn=True``: without it the
    layer builds no BatchNorm, holds no running statistic, and its output does not depend on the momentum."""
    code = textwrap.dedent("""
        result = {}
        for layer, shape, sizes in (("Conv2dBnAct", (2, 1, 2, 2), (1, 1, 1)), ("DenseBnAct", (2, 1), (1, 1))):
            built = {momentum: getattr(nn, layer)(*sizes, weight_init="ones", momentum=momentum)
                     for momentum in (0.1, 0.9)}
            outputs = []
            for net in built.values():
                net.set_train()
                outputs.append(net(ms.Tensor(np.full(shape, 10.0, np.float32))).asnumpy())
            result[layer] = [sorted(p.name for p in built[0.1].get_parameters() if "mean" in p.name),
                             bool(np.array_equal(*outputs))]
    """)
    result = _run({"no_bn": code})["no_bn"]
    assert result["ok"], result
    assert result["result"] == {"Conv2dBnAct": [[], True], "DenseBnAct": [[], True]}


def test_the_training_only_differences_change_nothing_in_inference():
    """Why MS608 and MS609 leave an application that never trains (``Difference.only_in_training``): in evaluation
    (``set_train(False)``, GRAPH_MODE) a BatchNorm's running mean stays 0 after a batch of mean 10 and its output is
    the same for momentum=0.1 and 0.9; an untrained InstanceNorm2d's scale and shift are one and zero, the output of
    ``affine=False`` (it has no CPU kernel to run). A LayerNorm's epsilon, which MS609 keeps, changes the output of
    inference."""
    code = textwrap.dedent("""
        ms.set_context(mode=ms.GRAPH_MODE)
        class Net(nn.Cell):
            def __init__(self, layer):
                super().__init__()
                self.layer = layer
            def construct(self, x):
                return self.layer(x)
        x = ms.Tensor(np.arange(32, dtype=np.float32).reshape(2, 1, 4, 4) + 10.0)
        def evaluated(layer):
            net = Net(layer)
            net.set_train(False)
            return net(x).asnumpy(), net
        result = {}
        outputs = []
        for momentum in (0.1, 0.9):
            output, net = evaluated(nn.BatchNorm2d(1, momentum=momentum))
            outputs.append(output)
            result[f"moving_mean_{momentum}"] = float(net.layer.moving_mean.asnumpy()[0])
        result["batchnorm_same"] = bool(np.array_equal(outputs[0], outputs[1]))
        instance = nn.InstanceNorm2d(2)  # no CPU kernel: its scale and shift as built, before any training
        gamma, beta = instance.gamma.asnumpy(), instance.beta.asnumpy()
        result["instance_norm_same"] = bool((gamma == 1).all() and (beta == 0).all())
        y = ms.Tensor(np.array([[1.0, 1.001, 0.999, 1.0]], np.float32))
        norms = [Net(nn.LayerNorm((4,), **given))(y).asnumpy() for given in ({}, {"epsilon": 1e-05})]
        result["layer_norm_difference"] = float(np.abs(norms[0] - norms[1]).max())
    """)
    result = _run({"eval": code})["eval"]
    assert result["ok"], result
    measured = result["result"]
    assert measured["moving_mean_0.1"] == 0.0 and measured["moving_mean_0.9"] == 0.0
    assert measured["batchnorm_same"] and measured["instance_norm_same"]
    assert measured["layer_norm_difference"] > 0.5
    only_in_training = {(difference.api, difference.mindspore) for name in mapping.entries()
                        for kind in ("meaning", "default") for difference in mapping.differences(name, kind)
                        if difference.only_in_training}
    assert ("mindspore.nn.BatchNorm2d", "momentum") in only_in_training
    assert ("mindspore.nn.Conv2dBnAct", "momentum") in only_in_training
    assert ("mindspore.nn.InstanceNorm2d", "affine") in only_in_training
    assert ("mindspore.nn.LayerNorm", "epsilon") not in only_in_training


# MS123's own example: construct reads self.FC1 where __init__ set self.fc1
_ATTRIBUTE = textwrap.dedent(RULES_BY_CODE["MS123"].example)


def test_an_attribute_nothing_sets_raises_at_both_levels_and_in_pynative():
    runs = _run({
        level: f"ms.set_context(mode=ms.{mode}{', jit_syntax_level=ms.' + level if level != 'pynative' else ''})\n"
        + _ATTRIBUTE + "\nNet()(ones((1, 4)))\n"
        for level, mode in (("STRICT", "GRAPH_MODE"), ("LAX", "GRAPH_MODE"), ("pynative", "PYNATIVE_MODE"))})
    for level, result in runs.items():
        assert not result["ok"] and result["error"] == "AttributeError" and "FC1" in result["message"], (level, result)
    findings = check_source("from mindspore import nn\n" + _ATTRIBUTE, "net.py", Settings(), ["MS123"])
    assert [f.data["suggestion"] for f in findings] == ["fc1"]
    assert "AttributeError" in RULES_BY_CODE["MS123"].why


def test_a_cell_has_no_name_ms123_does_not_know():
    result = _run({"names": "result = sorted(name for name in dir(nn.Cell()) if not name.startswith('__'))"})["names"]
    assert result["ok"], result
    assert set(result["result"]) <= api.CELL_INSTANCE_NAMES
    assert {"training", "phase", "cls_name"} <= set(result["result"])


_DEFAULTS = textwrap.dedent("""
    class Block(nn.Cell):
        def __init__(self, drop=0.1, no_drop=0.0, drop_half=0.5, dropout_ratio=1.0):
            super().__init__()
            self.rate = nn.Dropout(drop)
            self.no_rate = nn.Dropout(no_drop) if no_drop > 0.0 else None
            self.half = nn.Dropout(drop_half)
            self.kept = nn.Dropout(dropout_ratio)
""")


def test_a_dropout_rate_read_through_its_parameter_default():
    """MS606 reads a name passed as nn.Dropout's first argument by the default of the function's parameter of that
    name: 1.0 is a keep rate (MindSpore drops nothing, PyTorch's p=1.0 would drop all), one half drops half either
    way, and 0.0 is PyTorch's "no dropout", which MindSpore refuses as a keep rate (ValueError)."""
    runs = _run({f"{argument}": _zeros_dropped(f"nn.Dropout({argument})")
                 for argument in ("1.0", "0.5", "p=0.5", "0.0")})
    assert runs["1.0"]["ok"] and runs["1.0"]["result"] == 0.0, runs["1.0"]
    assert runs["0.5"]["ok"] and runs["p=0.5"]["ok"], runs
    assert 0.45 < runs["0.5"]["result"] < 0.55 and 0.45 < runs["p=0.5"]["result"] < 0.55, runs
    assert not runs["0.0"]["ok"] and runs["0.0"]["error"] == "ValueError", runs["0.0"]
    findings = check_source("from mindspore import nn\n" + _DEFAULTS, "block.py", Settings(), ["MS606"])
    assert sorted(f.data["value"] for f in findings) == ["drop", "no_drop"]


def test_the_norms_running_statistics_default_does_what_pytorchs_does():
    """Left out of the reports (README, "Porting from PyTorch"): MindSpore's default use_batch_statistics=None
    normalises by the batch in training and by the running statistics in evaluation, as PyTorch's default
    track_running_stats=True does; PyTorch's fifth positional argument lands in gamma_init, where False starts gamma
    at zero (not reported yet: a port passes track_running_stats by keyword)."""
    code = textwrap.dedent("""
        bn = nn.BatchNorm2d(1)
        x = ms.Tensor(np.full((2, 1, 2, 2), 10.0, np.float32))
        bn.set_train(True)
        trained = float(bn(x).asnumpy().mean())
        bn.set_train(False)
        evaluated = float(bn(x).asnumpy().mean())
        result = [trained, evaluated, [float(v) for v in nn.BatchNorm2d(2, 1e-5, 0.1, True, False).gamma.asnumpy()]]
    """)
    result = _run({"bn": code})["bn"]
    assert result["ok"], result
    trained, evaluated, gamma = result["result"]
    assert trained == pytest.approx(0.0, abs=1e-4)
    assert evaluated == pytest.approx((10.0 - 1.0) / (0.9 + 1e-5) ** 0.5, rel=1e-3)  # running mean 1.0, var 0.9
    assert gamma == [0.0, 0.0]
    torch = pytest.importorskip("torch")
    batch_norm = torch.nn.BatchNorm2d(1)
    batch_norm(torch.full((2, 1, 2, 2), 10.0))
    batch_norm.eval()
    assert float(batch_norm(torch.full((2, 1, 2, 2), 10.0)).mean()) == pytest.approx(evaluated, rel=1e-3)
