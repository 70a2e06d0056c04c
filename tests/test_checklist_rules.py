"""The migration-guide checklist rules against the target: MS701 and MS702 speak only of Ascend, MS130 and MS131
of every device; every finding carries the facts of its message as data."""
from __future__ import annotations

import textwrap

import pytest

from ms_lint.engine import check_source
from ms_lint.settings import Settings

TRAINING = """
import mindspore as ms
from mindspore import nn
from mindspore.train import Model


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)

    def construct(self, x):
        return self.conv(x)


def train(loss_fn):
    net = Net()
    optimizer = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    return Model(net, loss_fn, optimizer)
"""

POOLING = """
from mindspore import nn, ops


class Net(nn.Cell):
    def construct(self, x):
        return ops.avg_pool2d(x, kernel_size=2, stride=64)
"""


def findings(source: str, code: str, device: str):
    return check_source(textwrap.dedent(source), "example.py", Settings(device=device), [code])


@pytest.mark.parametrize("code, source", [("MS701", TRAINING), ("MS702", POOLING)])
@pytest.mark.parametrize("device", ["ascend", "any"])
def test_ascend_rules_report_for_ascend_and_any_and_name_ascend(code, source, device):
    found = findings(source, code, device)
    assert len(found) == 1
    assert "on Ascend" in found[0].message
    assert found[0].data["devices"] == ["ascend"]


@pytest.mark.parametrize("code, source", [("MS701", TRAINING), ("MS702", POOLING)])
@pytest.mark.parametrize("device", ["cpu", "gpu"])
def test_ascend_rules_are_silent_for_other_devices(code, source, device):
    assert findings(source, code, device) == []


def test_ms701_data_names_operator_dtype_and_network():
    (finding,) = findings(TRAINING, "MS701", "ascend")
    assert dict(finding.data) == {"operator": "Conv2d", "family": "Conv", "dtype": "float16", "devices": ["ascend"],
                                  "setup": "Model", "network": "Net"}


@pytest.mark.parametrize("scaling", [
    "Model(net, loss_fn, optimizer, loss_scale_manager=ms.amp.FixedLossScaleManager(1024.0))",
    "Model(net, loss_fn, optimizer, amp_level='O2')",
    "nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net, loss_fn), optimizer, scale_sense=ms.Tensor(1024.0))",
])
def test_ms701_loss_scaling_in_the_module_silences_it(scaling):
    assert findings(TRAINING.replace("Model(net, loss_fn, optimizer)", scaling), "MS701", "ascend") == []


def test_ms701_network_from_another_module_is_not_followed():
    source = TRAINING.replace("    net = Net()\n", "    from models import create_model\n    net = create_model()\n")
    assert findings(source, "MS701", "ascend") == []


def test_ms701_topk_is_not_reported():
    source = TRAINING.replace("nn.Conv2d(3, 8, 3)", "nn.Dense(3, 8)").replace(
        "return self.conv(x)", "return ms.ops.topk(self.conv(x), 2)[0]")
    assert findings(source, "MS701", "ascend") == []


def test_ms702_data_gives_values_and_source():
    (finding,) = findings(POOLING, "MS702", "ascend")
    assert finding.data["api"] == "ops.avg_pool2d"
    assert finding.data["values"] == {"stride": [64]}
    assert "[1, 63]" in finding.message and "API page" in finding.message


@pytest.mark.parametrize("path, reported", [
    ("test_loss.py", False), ("tests/ut/loss_test.py", False), ("conftest.py", False),
    ("tests/train.py", True), ("train_test_split.py", True), ("testing.py", True),
])
def test_ms701_is_silent_in_a_test_module(path, reported):
    found = check_source(textwrap.dedent(TRAINING), path, Settings(device="ascend"), ["MS701"])
    assert len(found) == int(reported)
