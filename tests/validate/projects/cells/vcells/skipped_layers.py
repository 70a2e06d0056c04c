"""Layers built with PyTorch's positional arguments on lines that building with the defaults skips: a loop over an
argument that defaults to no sizes, a branch on a flag that defaults to False, a branch no argument switches on."""
from mindspore import nn


class Head(nn.Cell):
    def __init__(self, in_channels=4, conv_dims=(), use_norm=False):
        super().__init__()
        layers = []
        for dim in conv_dims:
            layers.append(nn.Conv2d(in_channels, dim, 3, 1, 1))
            in_channels = dim
        if use_norm:
            layers.append(nn.Conv2d(in_channels, in_channels, 1, 1, 0))
        if in_channels > 1024:
            layers.append(nn.Conv2d(in_channels, 1024, 1, 1, 0))
        layers.append(nn.ReLU())
        self.body = nn.SequentialCell(layers)

    def construct(self, x):
        return self.body(x)
