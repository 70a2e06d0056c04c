"""Token statistics kept in a @jit_class that the classifier holds; host code fills and summarises them."""
import mindspore as ms
import numpy as np
from mindspore import nn


@ms.jit_class
class TokenStats:
    def __init__(self, counts):
        self.total = float(sum(counts))

    def normalizer(self):
        return self.total

    def histogram(self, x):
        # numpy on tensor data, but only host code calls this method: no graph compiles the line
        return np.histogram(x, bins=8)


class TokenScaler(nn.Cell):
    """Divides by the number of tokens seen; its graph calls normalizer(), never histogram()."""

    def __init__(self):
        super().__init__()
        self.stats = TokenStats([3, 1, 2])

    def construct(self, x):
        return x / self.stats.normalizer()
