import numpy as np
from mindspore import Tensor, nn

print("x" * (3 << 19))


class Net(nn.Cell):
    def construct(self, x):
        return Tensor(np.sin(x))
