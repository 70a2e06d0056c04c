import numpy as np
from mindspore import Tensor, nn


class Accumulator(nn.Cell):
    def __init__(self):
        super().__init__()
        self.zero = Tensor(np.zeros((2,), np.float32))

    def construct(self, x):
        total = self.zero
        total += x
        return total


class Shift(nn.Cell):
    def construct(self, x):
        x += 1
        return x


class Residual(nn.Cell):
    def __init__(self):
        super().__init__()
        self.shift = Shift()

    def construct(self, x):
        y = x * 1
        z = self.shift(y)
        return y + z
