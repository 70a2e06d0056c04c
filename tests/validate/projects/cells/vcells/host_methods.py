"""Hazards that raise eagerly too, in host methods that neither building the Cell nor construct runs: building and
compiling the Cell cannot show them; calling the method can, where it takes no argument and gets to the line."""
from mindspore import nn


class Deployable(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 3)
        self.deployed = False

    def construct(self, x):
        return self.conv(x)

    def switch_to_deploy(self):
        self.fused = nn.Conv2d(4, 4, 3, 1, 1)

    def freeze(self):
        for parameter in self.get_parameters():
            parameter.detach_()

    def redeploy(self):
        if not self.deployed:
            return
        self.fused = nn.Conv2d(4, 4, 3, 1, 1)

    def fuse_with(self, other):
        self.fused = nn.Conv2d(4, 4, 3, 1, 1)

    def freeze_except(self, kept):
        for parameter in self.get_parameters():
            if parameter.name not in kept:
                parameter.detach_()

    def out_channels(self, scale):
        return self.conv.weight.size(0) * scale
