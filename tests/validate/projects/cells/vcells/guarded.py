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


class OptionalOutput(nn.Cell):
    """The line after ``if not return_dict: return`` compiles only when the call asks for it."""

    def __init__(self):
        super().__init__()
        self.use_return_dict = False

    def construct(self, x, return_dict=None):
        return_dict = return_dict if return_dict is not None else self.use_return_dict
        if not return_dict:
            return (x,)
        return Tensor(np.arctan(x))
