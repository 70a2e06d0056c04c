"""A base Cell whose helper method only its subclass's construct calls."""
import numpy as np
from mindspore import nn


class Base(nn.Cell):
    def construct(self, x):
        return x + 1

    def smooth(self, x):
        return np.tanh(x)


class Smoothed(Base):
    def construct(self, x):
        return self.smooth(x) * 2
