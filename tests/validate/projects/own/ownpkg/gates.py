"""A helper that two Cells call."""
import numpy as np
from mindspore import nn


def activation(x):
    return np.tanh(x)


class Gate(nn.Cell):
    def construct(self, x):
        return activation(x) + 1


class Mask(nn.Cell):
    def construct(self, x):
        return activation(x) * x
