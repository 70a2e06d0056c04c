"""Cells whose constructors call operators MindSpore 2.10 has no CPU kernel for (measured: mint.arange raises
"The kernel Arange unregistered", Tensor.uniform_ "Create kernelmod for op InplaceUniform failed", mint.randperm
"The kernel RandpermExt unregistered"); mint.linspace in construct fails at kernel selection, after the frontend."""
import numpy as np
from mindspore import Parameter, Tensor, mint, nn
from mindspore.mint import zeros_like


class Positions(nn.Cell):
    def __init__(self):
        super().__init__()
        self.position_ids = mint.arange(16).reshape(1, -1)
        self.scale = Parameter(Tensor(np.ones(4, np.float32)))
        self.scale.uniform_(-0.1, 0.1)
        self.offset = Parameter(zeros_like(self.scale))

    def construct(self, x):
        return Tensor(np.sin(x)) + self.scale + self.offset


class Shuffled(nn.Cell):
    def __init__(self):
        super().__init__()
        self.order = mint.randperm(8)

    def construct(self, x):
        return Tensor(np.cos(x[self.order]))


class Ramp(nn.Cell):
    def construct(self, x):
        return x * np.sqrt(4.0) + mint.linspace(0, 1, 4)
