import ctypes

from mindspore import nn

ctypes.string_at(0)


class Net(nn.Cell):
    def construct(self, x):
        return x
