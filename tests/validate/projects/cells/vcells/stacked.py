"""Cells whose construction raises at an MS205 line, of ``vcells.blocks`` or their own, with a numpy call
(MS101) in construct: the validator builds them again with the padding fixed in memory to decide it."""
import numpy as np
from mindspore import Tensor, nn

from vcells.blocks import HiddenPadding, PaddedBlock, SplitCall
from vcells.wrapped import Wrapped


class Stack(nn.Cell):
    def __init__(self):
        super().__init__()
        self.block = PaddedBlock(4)

    def construct(self, x):
        y = self.block(x)
        return Tensor(np.sin(y))


class Indirect(nn.Cell):
    def __init__(self):
        super().__init__()
        self.block = Wrapped(4)

    def construct(self, x):
        y = self.block(x)
        return Tensor(np.cos(y))


class Local(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 3, padding=1)

    def construct(self, x):
        y = self.conv(x).transpose(1, 2)
        return Tensor(np.tan(y))


class Hidden(nn.Cell):
    def __init__(self):
        super().__init__()
        self.block = HiddenPadding(4)

    def construct(self, x):
        return Tensor(np.exp(self.block(x)))


class Split(nn.Cell):
    def __init__(self):
        super().__init__()
        self.block = SplitCall(4)

    def construct(self, x):
        return Tensor(np.log(self.block(x)))
