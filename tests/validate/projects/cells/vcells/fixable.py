"""A two-axis transpose (MS601, which fails to compile on a rank-3 tensor) before other hazards: the validator
compiles again with the transpose fixed to reach them."""
from dataclasses import dataclass

import numpy as np
from mindspore import Tensor, nn


class Heads(nn.Cell):
    def construct(self, x):
        x = x.reshape(2, 4, 8).transpose(1, 2)
        return Tensor(np.sin(x))


class Twice(nn.Cell):
    def construct(self, x):
        x = x.reshape(2, 4, 8).transpose(1, 2)
        x = x.transpose(0, 1)
        y = x.sum() * np.sqrt(4.0)
        return Tensor(np.cos(x)) + y


class Unfixable(nn.Cell):
    def construct(self, x):
        x = x.reshape(2, 4, 8).asnumpy()
        return Tensor(np.tan(x))


class FixedThenStopped(nn.Cell):
    def construct(self, x):
        x = x.reshape(2, 4, 8).transpose(1, 2)
        y = x.asnumpy()
        return Tensor(np.exp(y))


class BoundOnOneBranch(nn.Cell):
    def construct(self, x, labels=None):
        x = x * 2
        if labels is not None:
            shift = labels * 2
        if labels is not None:
            x = x + shift
        return Tensor(np.sin(x))


class ShiftedInside(nn.Cell):
    def construct(self, x, labels=None):
        x = x * 2
        # the error names the binding, or the call into this Cell, not the read: the fix is found by the name
        if labels is not None:
            offset = labels * 2
        if labels is not None:
            x = x + offset
        return x


class CallsShiftedInside(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = ShiftedInside()

    def construct(self, x):
        y = self.inner(x)
        return Tensor(np.tanh(y))


class TwoAfterLoop(nn.Cell):
    """Two names first bound in a loop and read after it: MindSpore names one at a time."""

    def construct(self, x):
        # the bounds, widened step by step
        for step in range(2):
            low = x - step
            high = x + step
        low = low * 2
        high = high * 3
        return low + high


@dataclass
class Scores:
    value: Tensor = None


class OutputThenSize(nn.Cell):
    """An output type built from tensors (fails under STRICT only), then a call that fails at every level."""

    def construct(self, x):
        scores = Scores(value=x * 2)
        return scores.value.sum(0).size(0) + x.sum(0).size(0)
