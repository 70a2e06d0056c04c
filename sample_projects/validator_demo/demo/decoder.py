"""A decoder that needs its sizes to be built."""
import math

from mindspore import nn


class Decoder(nn.Cell):
    def __init__(self, vocab_size, dim):
        super().__init__()
        self.embed = nn.Dense(dim, dim)
        self.out = nn.Dense(dim, vocab_size)

    def construct(self, x):
        h = self.embed(x)
        scale = math.sqrt(h.shape[-1])  # a shape is a constant at compile time: fine in graph code
        return self.out(h * scale) / math.exp(h.mean())
