"""A decoder that needs its vocabulary (an object no name can guess) to be built."""
import math

from mindspore import nn


class Decoder(nn.Cell):
    def __init__(self, vocabulary, dim):
        super().__init__()
        self.embed = nn.Dense(dim, dim)
        self.out = nn.Dense(dim, len(vocabulary))

    def construct(self, x):
        h = self.embed(x)
        scale = math.sqrt(h.shape[-1])  # a shape is a constant at compile time: fine in graph code
        return self.out(h * scale) / math.exp(h.mean())
