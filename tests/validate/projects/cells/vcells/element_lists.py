from typing import List, Tuple, Union

import numpy as np
from mindspore import Tensor, nn


class Block(nn.Cell):
    def __init__(self, width=4):
        super().__init__()
        self.dense = nn.Dense(width, width)

    def construct(self, x):
        return self.dense(x)


class Wide(nn.Cell):
    def __init__(self, channels):
        super().__init__()
        self.dense = nn.Dense(channels, channels)

    def construct(self, x):
        return self.dense(x)


class MultiBlock(nn.Cell):
    def __init__(self, blocks: Union[List[Block], Tuple[Block]]):
        super().__init__()
        self.nets = nn.CellList(blocks)

    def construct(self, x):
        for net in self.nets:
            x = net(x)
        return Tensor(np.sin(x))


class MultiWide(nn.Cell):
    """Several Wide layers in turn.

    Args:
        layers (`List[Wide]`):
            The layers, applied in order.
    """

    def __init__(self, layers):
        super().__init__()
        self.nets = nn.CellList(layers)

    def construct(self, x):
        for net in self.nets:
            x = net(x)
        return Tensor(np.cos(x))


class Unnamed(nn.Cell):
    def __init__(self, layers):
        super().__init__()
        self.nets = nn.CellList(layers)

    def construct(self, x):
        return Tensor(np.tan(x))
