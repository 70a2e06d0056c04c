"""Tiny MindSpore/PyTorch model pairs for the parity tests (imported only after both frameworks are available)."""
import numpy as np
import torch
from mindspore import nn, ops
from torch import nn as tnn
from torch.nn import functional as F


class MsConvBnDense(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, pad_mode="pad", padding=1, has_bias=True)
        self.bn = nn.BatchNorm2d(8)
        self.relu = nn.ReLU()
        self.head = nn.SequentialCell(nn.Dense(8 * 6 * 6, 16), nn.BatchNorm1d(16), nn.Dense(16, 5))

    def construct(self, x):
        x = self.relu(self.bn(self.conv(x)))
        return self.head(x.reshape(x.shape[0], -1))


class TorchConvBnDense(tnn.Module):
    def __init__(self):
        super().__init__()
        self.conv = tnn.Conv2d(3, 8, 3, padding=1)
        self.bn = tnn.BatchNorm2d(8)
        self.relu = tnn.ReLU(inplace=True)
        self.head = tnn.Sequential(tnn.Linear(8 * 6 * 6, 16), tnn.BatchNorm1d(16), tnn.Linear(16, 5))

    def forward(self, x):
        x = self.relu(self.bn(self.conv(x)))
        return self.head(torch.flatten(x, 1))


def randomize_running_stats(module: tnn.Module, seed: int = 1) -> tnn.Module:
    """Non-trivial moving statistics, so that a missed BatchNorm transfer shows in eval mode."""
    rng = np.random.default_rng(seed)
    for layer in module.modules():
        if isinstance(layer, tnn.modules.batchnorm._BatchNorm):
            layer.running_mean.copy_(torch.from_numpy(rng.normal(0, 0.5, layer.num_features).astype(np.float32)))
            layer.running_var.copy_(torch.from_numpy(rng.uniform(0.5, 2.0, layer.num_features).astype(np.float32)))
            layer.weight.data.copy_(torch.from_numpy(rng.uniform(0.5, 1.5, layer.num_features).astype(np.float32)))
            layer.bias.data.copy_(torch.from_numpy(rng.normal(0, 0.1, layer.num_features).astype(np.float32)))
    return module


class MsTextEncoder(nn.Cell):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(20, 8)
        self.norm = nn.LayerNorm((8,), epsilon=1e-5)
        self.proj = nn.Dense(8, 4)

    def construct(self, ids):
        return self.proj(self.norm(self.embed(ids)))


class TorchTextEncoder(tnn.Module):
    def __init__(self):
        super().__init__()
        self.embed = tnn.Embedding(20, 8)
        self.norm = tnn.LayerNorm(8)
        self.proj = tnn.Linear(8, 4)

    def forward(self, ids):
        return self.proj(self.norm(self.embed(ids)))


class MsMlp(nn.Cell):
    """``activation`` picks the middle layer, so one class gives the faithful port and the wrong one."""

    def __init__(self, activation=None):
        super().__init__()
        self.fc1 = nn.Dense(6, 8)
        self.act = activation if activation is not None else nn.ReLU()
        self.fc2 = nn.Dense(8, 8)
        self.fc3 = nn.Dense(8, 3)

    def construct(self, x):
        return self.fc3(ops.relu(self.fc2(self.act(self.fc1(x)))))


class TorchMlp(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = tnn.Linear(6, 8)
        self.act = tnn.ReLU()
        self.fc2 = tnn.Linear(8, 8)
        self.fc3 = tnn.Linear(8, 3)

    def forward(self, x):
        return self.fc3(F.relu(self.fc2(self.act(self.fc1(x)))))


class MsMlpFunctionalSlip(MsMlp):
    """fc2's activation is applied functionally, and wrongly: no layer differs, the code between them does."""

    def construct(self, x):
        return self.fc3(ops.sigmoid(self.fc2(self.act(self.fc1(x)))))


class MsRenamed(nn.Cell):
    """The same network as TorchMlp under other attribute names: weights can only be paired by order."""

    def __init__(self):
        super().__init__()
        self.dense_in = nn.Dense(6, 8)
        self.act = nn.ReLU()
        self.dense_mid = nn.Dense(8, 8)
        self.dense_out = nn.Dense(8, 3)

    def construct(self, x):
        return self.dense_out(ops.relu(self.dense_mid(self.act(self.dense_in(x)))))


class MsConvIntoDense(nn.Cell):
    """Sized for PyTorch's 3x3 conv output; MindSpore's default 'same' padding keeps 6x6 and the Dense fails."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 4, 4, has_bias=True)
        self.fc = nn.Dense(4 * 3 * 3, 2)

    def construct(self, x):
        return self.fc(ops.flatten(self.conv1(x), start_dim=1))


class TorchConvIntoDense(tnn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = tnn.Conv2d(3, 4, 4)
        self.fc = tnn.Linear(4 * 3 * 3, 2)

    def forward(self, x):
        return self.fc(torch.flatten(self.conv1(x), 1))


class MsCopiedSettings(nn.Cell):
    """Constructor arguments copied verbatim from PyTorch code, where they mean something else in MindSpore."""

    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm1d(4, momentum=0.1)  # noqa: MS608 (copied from PyTorch on purpose)
        self.gelu = nn.GELU()
        self.drop = nn.Dropout(0.1)  # noqa: MS606 (copied from PyTorch on purpose)
        self.fc = nn.Dense(4, 4)

    def construct(self, x):
        return self.fc(self.drop(self.gelu(self.bn(x))))


class TorchCopiedSettings(tnn.Module):
    def __init__(self):
        super().__init__()
        self.bn = tnn.BatchNorm1d(4, momentum=0.1)
        self.gelu = tnn.GELU()
        self.drop = tnn.Dropout(0.1)
        self.fc = tnn.Linear(4, 4)

    def forward(self, x):
        return self.fc(self.drop(self.gelu(self.bn(x))))


class MsMlpScaledOutput(MsMlp):
    """Every layer agrees; the code after the last one does not."""

    def construct(self, x):
        return super().construct(x) * 2


class TorchReluModules(tnn.Module):
    """TorchMlp with both activations as modules, where the ports apply them as functions."""

    def __init__(self):
        super().__init__()
        self.fc1 = tnn.Linear(6, 8)
        self.act1 = tnn.ReLU()
        self.fc2 = tnn.Linear(8, 8)
        self.act2 = tnn.ReLU()
        self.fc3 = tnn.Linear(8, 3)

    def forward(self, x):
        return self.fc3(self.act2(self.fc2(self.act1(self.fc1(x)))))


class MsFunctionalActivations(nn.Cell):
    def __init__(self, first_activation=ops.relu):
        super().__init__()
        self.first_activation = first_activation
        self.fc1 = nn.Dense(6, 8)
        self.fc2 = nn.Dense(8, 8)
        self.fc3 = nn.Dense(8, 3)

    def construct(self, x):
        return self.fc3(ops.relu(self.fc2(self.first_activation(self.fc1(x)))))
