"""Blocks whose construction raises (MS205: padding without pad_mode="pad"), used by the Cells of
``vcells.stacked``: building those raises here, in another module than theirs."""
from mindspore import nn, ops

PADDING = 1


class PaddedBlock(nn.Cell):
    def __init__(self, channels=4):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)

    def construct(self, x):
        return ops.relu(self.conv(x))


class HiddenPadding(nn.Cell):
    def __init__(self, channels=4):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=PADDING)

    def construct(self, x):
        return self.conv(x)


class SplitCall(nn.Cell):
    def __init__(self, channels=4):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3,
                              padding=1)

    def construct(self, x):
        return self.conv(x)
