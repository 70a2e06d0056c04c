import os

from mindspore import nn

os._exit(7)


class Net(nn.Cell):
    def construct(self, x):
        return x
