import numpy as np
from mindspore import Tensor, nn

import partialparent


@partialparent.register("sine")
class Sine(nn.Cell):
    def construct(self, x):
        return Tensor(np.sin(x)) * partialparent.SCALE
