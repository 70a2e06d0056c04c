"""A PyTorch tensor method in an error path under a shape check that ms-lint cannot evaluate: whether MindSpore
compiles the line is shown by compiling it with the line marked."""
from mindspore import nn


class ShapeChecked(nn.Cell):
    def __init__(self, features=8):
        super().__init__()
        self.dense = nn.Dense(features, features)

    def construct(self, x):
        y = self.dense(x)
        if y.shape != x.shape:
            raise ValueError(f"the output has the wrong size {y.size()}")
        return y
