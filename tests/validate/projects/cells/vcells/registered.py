"""A Cell whose block needs MS205's fix to be built, registered in a registry: its module cannot run twice."""
import numpy as np
from mindspore import Tensor, nn, ops

from vcells.registry import register


@register
class RegisteredBlock(nn.Cell):
    def __init__(self, channels=4):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)

    def construct(self, x):
        return ops.relu(self.conv(x))


class Registered(nn.Cell):
    def __init__(self):
        super().__init__()
        self.block = RegisteredBlock(4)

    def construct(self, x):
        return Tensor(np.sin(self.block(x)))

