import os
import time

import numpy as np
from mindspore import Tensor, nn

if os.fork() == 0:
    time.sleep(30)


class Net(nn.Cell):
    def construct(self, x):
        return Tensor(np.sin(x))
