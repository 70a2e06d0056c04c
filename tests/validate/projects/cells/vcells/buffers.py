import numpy as np
import mindspore as ms
from mindspore import Parameter, Tensor, mint, nn


class FlagBuffer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.use_host = Tensor(False)
        self.scale = Tensor(0.5, ms.float32)
        self.register_buffer("x_min", mint.zeros(1) - 1e-5)

    def construct(self, x):
        if self.use_host:
            x = Tensor(np.cos(x))
        if self.scale > 0:
            x = Tensor(np.sin(x))
        if self.x_min.min() < -1.1e-5:
            x = Tensor(np.tan(x))
        return x


class GateParameter(nn.Cell):
    def __init__(self):
        super().__init__()
        self.gate = Parameter(Tensor(0.0, ms.float32), name="gate")

    def construct(self, x):
        if self.gate > 0:
            x = Tensor(np.exp(x))
        return x


class TrainedBuffer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.register_buffer("x_min", mint.zeros(1) - 1e-5)

    def construct(self, x):
        if self.training:
            if self.x_min.min() > -1.1e-5:
                x = x + 1
            else:
                x = Tensor(np.log(x))
        return x
