import time

from mindspore import nn

CHUNKS = []
for _ in range(40):
    CHUNKS.append(b"x" * (32 << 20))
    time.sleep(0.05)


class Net(nn.Cell):
    def construct(self, x):
        return x
