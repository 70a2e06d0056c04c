"""A module between ``vcells.blocks`` and the Cell that uses it."""
from mindspore import nn

from vcells.blocks import PaddedBlock


class Wrapped(nn.Cell):
    def __init__(self, channels=4):
        super().__init__()
        self.inner = PaddedBlock(channels)

    def construct(self, x):
        return self.inner(x) * 2
