"""A small CNN classifier."""
import math

import numpy as np
from mindspore import Tensor, nn, ops

from .layers import ConvBlock, LayerScale


class Classifier(nn.Cell):
    def __init__(self, num_classes=10, width=16, depth=3):
        super().__init__()
        self.width = width
        self.stem = ConvBlock(3, width)
        self.blocks = nn.CellList([ConvBlock(width, width) for _ in range(depth)])
        self.heads = nn.CellDict({"logits": nn.Dense(width, num_classes), "embedding": nn.Dense(width, 8)})
        self.scale = LayerScale(width)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.offset = Tensor(np.zeros((1, num_classes), np.float32))

    def construct(self, x):
        x = self.stem(x)
        for block in self.blocks:
            x = block(x) + x
        x = self.scale(x)
        features = self.pool(x).reshape(x.shape[0], -1)
        # numpy on compile-time constants is fine in graph code
        features = features / math.sqrt(self.width) * np.sqrt(2.0)
        logits = self.heads["logits"](features) + self.offset
        noise = ops.standard_normal(logits.shape) * 0.01
        return ops.softmax(logits + noise, axis=-1)
