from mindspore import nn

while True:
    pass


class Net(nn.Cell):
    def construct(self, x):
        return x
