"""A host copy of tensor data in an error path under a shape check that ms-lint cannot evaluate: whether MindSpore
compiles the line is shown by compiling it with the line marked."""
from mindspore import nn


class ShapeChecked(nn.Cell):
    def __init__(self, features=8):
        super().__init__()
        self.dense = nn.Dense(features, features)

    def construct(self, x):
        y = self.dense(x)
        if y.shape != x.shape:
            raise ValueError(f"the output has the wrong size {y.asnumpy().shape}")
        return y


class SwappedThenChecked(nn.Cell):
    def construct(self, x):
        x = x.view(2, 4, 8)
        y = x.transpose(-1, -2)
        if y.shape != (2, 8, 4):
            raise ValueError(f"the swap has the wrong size {y.asnumpy().shape}")
        return y
