import sys

import numpy as np
from mindspore import Tensor, nn

ANSWER = sys.stdin.read()


class Net(nn.Cell):
    def construct(self, x):
        return Tensor(np.sin(x))
