"""A layer built with PyTorch's positional arguments in a host method that neither building the Cell nor construct
runs: building and compiling the Cell cannot show it."""
from mindspore import nn


class Deployable(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 3)

    def construct(self, x):
        return self.conv(x)

    def switch_to_deploy(self):
        self.fused = nn.Conv2d(4, 4, 3, 1, 1)
