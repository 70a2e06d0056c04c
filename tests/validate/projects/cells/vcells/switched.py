"""Hazards only a constructor flag puts in the graph, behind a default compile that fails elsewhere: at another
finding, or at kernel selection (mint.linspace has no CPU kernel on MindSpore 2.10)."""
import numpy as np
from mindspore import Tensor, mint, nn


class Switched(nn.Cell):
    def __init__(self, quant_mode=False):
        super().__init__()
        self.quant_mode = quant_mode

    def construct(self, x):
        if self.quant_mode:
            y = Tensor(np.sin(x))
        else:
            y = x.asnumpy()
        return y


class KernelSwitched(nn.Cell):
    def __init__(self, quant_mode=False):
        super().__init__()
        self.quant_mode = quant_mode

    def construct(self, x):
        if self.quant_mode:
            y = Tensor(np.cos(x))
        else:
            y = x + mint.linspace(0, 1, 4)
        return y


class Rebound(nn.Cell):
    def __init__(self):
        super().__init__()
        self.use_scale = True

    def construct(self, x, use_scale=None):
        use_scale = use_scale if use_scale is not None else self.use_scale
        if use_scale:
            return x * np.sqrt(4.0)
        return x


class Calibrated(nn.Cell):
    def __init__(self, quant_mode=False):
        super().__init__()
        self.quant_mode = quant_mode

    def construct(self, x):
        if self.quant_mode:
            if self.training:
                return Tensor(np.tan(x))
        return x


def scaled(x):
    return x * np.sqrt(4.0)


class Gated(nn.Cell):
    def __init__(self, quant_mode=False):
        super().__init__()
        self.quant_mode = quant_mode

    def construct(self, x):
        if not self.quant_mode:
            return x
        return scaled(x)


class Fused(nn.Cell):
    def __init__(self, fusion_type="add"):
        super().__init__()
        assert fusion_type in ["add", "mul", "concat"]
        self.fusion_type = fusion_type

    def construct(self, x):
        if self.fusion_type == "add":
            y = x + 1
        else:
            y = Tensor(np.tanh(x))
        return y
