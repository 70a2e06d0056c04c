import numpy as np
from mindspore import Tensor, nn


class TrainOnly(nn.Cell):
    def construct(self, x):
        if self.training:
            x = Tensor(np.sin(x))
        return x


class Quantized(nn.Cell):
    def __init__(self, quant_mode=False):
        super().__init__()
        self.quant_mode = quant_mode

    def construct(self, x):
        if self.quant_mode:
            x = x.asnumpy()
        return x * 2


class NeverOn(nn.Cell):
    def __init__(self):
        super().__init__()
        self.use_host = False

    def construct(self, x, mask=None):
        if self.use_host:
            x = Tensor(np.cos(x))
        if mask is not None:
            x = Tensor(np.exp(x))
        return x


class Reached(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scale = 2

    def construct(self, x):
        if self.scale > 1:
            x = x * float(np.sqrt(4.0))
        return self.helper(x)

    def helper(self, x):
        return x + 1

    def unused(self, x):
        return Tensor(np.tan(x))
