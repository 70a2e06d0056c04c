import sys

from mindspore import nn

sys.exit(3)


class Net(nn.Cell):
    def construct(self, x):
        return x
