from mindspore import nn

while True:
    print("step " * 200)


class Net(nn.Cell):
    def construct(self, x):
        return x
