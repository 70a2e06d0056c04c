"""Statements with no automatic fix that stop the compile before other hazards: a `with` block on a plain context
manager (MS109), a helper's check on tensor values, a discarded call. The validator compiles again with such a
statement left out to reach the hazards after it."""
import mindspore as ms
import numpy as np
from mindspore import Tensor, nn


class NoGradBlock(nn.Cell):
    def construct(self, x):
        with ms._no_grad():
            y = x * 2
        return Tensor(np.sin(y))


class CheckedArgument(nn.Cell):
    def construct(self, x):
        self.report(x, 0 in x)
        return Tensor(np.cos(x))

    def report(self, x, has_zero):
        return np.mean(x) if has_zero else x


class KeptValue(nn.Cell):
    def construct(self, x):
        y = self.lookup(x, 0 in x)
        return Tensor(np.tan(y))

    def lookup(self, x, has_zero):
        return x


class SwitchedBlock(nn.Cell):
    def __init__(self, quantize=False):
        super().__init__()
        self.quantize = quantize

    def construct(self, x):
        if self.quantize:
            with ms._no_grad():
                x = x * 2
            return Tensor(np.exp(x))
        return x


class MaskedScores(nn.Cell):
    def construct(self, scores, mask=None):
        penalty = (1.0 - mask) * -10000.0
        return Tensor(np.log(scores + penalty))


class TrainOnlyNoise(nn.Cell):
    def construct(self, x, mask=None):
        x = x.reshape(2, 4, 8).transpose(1, 2)
        if self.training:
            noise = np.random.rand()
            return x * (1.0 - mask) + noise
        return x


class SavedForBackward(nn.Cell):
    """An attribute kept for a backward pass that graph code never reads (MS108 under STRICT)."""

    def construct(self, x):
        self.saved = x
        return Tensor(np.sinh(x))

    def bprop(self, x, out, grad_output):
        return (grad_output * self.saved,)


class CachedValue(nn.Cell):
    """The same write, read back: leaving it out would only move the error."""

    def construct(self, x):
        self.cached = x
        return self.cached + Tensor(np.cosh(x))
