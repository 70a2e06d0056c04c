"""A helper that construct and the constructor both call, using a PyTorch-only tensor method (measured on 2.10:
`Parameter.detach_` does not exist, AttributeError when the constructor runs it)."""
import numpy as np
from mindspore import Parameter, Tensor, nn


class Positions(nn.Cell):
    def __init__(self):
        super().__init__()
        self.weights = Parameter(Tensor(np.ones((4, 8), np.float32)))
        self.refresh()

    def refresh(self):
        self.weights.detach_()

    def construct(self, x):
        self.refresh()
        return x + self.weights


class Other(nn.Cell):
    def __init__(self):
        super().__init__()
        self.table = Tensor(np.ones(3, np.float32))
        self.table.requires_grad_(False).missing_method()

    def construct(self, x):
        return x + self.table
