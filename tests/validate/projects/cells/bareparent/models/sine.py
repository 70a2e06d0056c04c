import numpy as np
from mindspore import Tensor, nn

from bareparent.models.scale import SCALE


class Sine(nn.Cell):
    def construct(self, x):
        return Tensor(np.sin(x)) * SCALE
