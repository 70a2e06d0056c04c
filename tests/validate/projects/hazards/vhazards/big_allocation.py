from mindspore import nn

TABLE = b"x" * (6 << 30)


class Net(nn.Cell):
    def construct(self, x):
        return x
