"""Cells whose methods call their instance ``this``: the validator reads it by that name."""
import numpy as np
from mindspore import Tensor, nn


class QuantizedThis(nn.Cell):
    def __init__(this, quant_mode=False):
        super().__init__()
        this.quant_mode = quant_mode

    def construct(this, x):
        if this.quant_mode:
            x = x.asnumpy()
        return x * 2


class TrainOnlyThis(nn.Cell):
    def construct(this, x):
        if this.training:
            x = Tensor(np.sin(x))
        return x


class NeverOnThis(nn.Cell):
    def __init__(this):
        super().__init__()
        this.use_host = False

    def construct(this, x):
        if this.use_host:
            x = Tensor(np.cos(x))
        return x


class StagesThis(nn.Cell):
    def __init__(this):
        super().__init__()
        this.stages = [nn.Dense(4, 4), nn.LayerNorm((4,))]

    def construct(this, x):
        for stage in this.stages:
            x = stage(x)
        return x
