"""Layers ported from the PyTorch reference."""
import numpy as np
from mindspore import Parameter, Tensor, nn, ops


class Backbone(nn.Cell):
    """Base class of the encoders; the Cell subclass is resolved across modules."""

    def __init__(self, channels=8):
        super().__init__()
        self.channels = channels


class ConvBlock(nn.Cell):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        # PyTorch habit: padding=1 without pad_mode="pad" raises ValueError at construction
        self.conv = nn.Conv2d(in_channels, out_channels, 3, padding=1)
        self.norm = nn.BatchNorm2d(out_channels)

    def construct(self, x):
        return ops.relu(self.norm(self.conv(x)))


class Attention(nn.Cell):
    def __init__(self, dim=8, heads=2):
        # forgot super().__init__(): the first attribute assignment raises AttributeError
        self.dim = dim
        self.heads = heads

    def construct(self, x):
        return x


class TorchStyleHead(nn.Cell):
    def __init__(self, channels=8, classes=3):
        super().__init__()
        self.proj = nn.Dense(channels, classes)

    # PyTorch habit: forward is never called by MindSpore
    def forward(self, x):
        return self.proj(x)


class ScaleBank(nn.Cell):
    def __init__(self, depth=3):
        super().__init__()
        # plain list: these Parameters are invisible to the optimizer
        self.scales = [Parameter(Tensor(np.ones(1, np.float32)), name=f"scale{i}") for i in range(depth)]

    def construct(self, x):
        for scale in self.scales:
            x = x * scale
        return x


class RoundSTE(nn.Cell):
    """A straight-through rounding ported from a PyTorch autograd.Function."""

    # PyTorch habit: forward(ctx, x) renamed construct(ctx, x); graph mode knows the instance only as `self`
    def construct(ctx, x):
        return ops.round(x)

    def bprop(ctx, x, out, dout):
        return (dout,)


class PortedBlock(nn.Cell):
    """Constructor arguments copied from the PyTorch reference, which MindSpore reads otherwise."""

    def __init__(self, channels=8):
        super().__init__()
        # PyTorch's momentum=0.1 is MindSpore's momentum=0.9: the running statistics follow the last batch
        self.norm = nn.BatchNorm2d(channels, momentum=0.1)
        # MindSpore's LayerNorm adds 1e-07 to the variance where PyTorch's adds 1e-05 (reported when enabled)
        self.layer_norm = nn.LayerNorm((channels,))
        self.fc1 = nn.Dense(channels, channels)

    def construct(self, x):
        # misspelt: __init__ set self.fc1, so compiling raises AttributeError
        return self.layer_norm(self.FC1(self.norm(x)))
