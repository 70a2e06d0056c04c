"""Inputs whose shape the validator has to guess: one given to a layer through an activation, and ones of any
rank that reach code needing their rank (measured on 2.10: with shape [-2] `x.view(*x.shape[:2], -1)` fails
with "Can not get size for dynamic length sequence", `x.transpose(1, 2)` with "output index [0] large than the
output size"; with rank 3 both get to the hazard), one that unpacks four sizes from its shape (rank 3 fails with
"TupleGetItem evaluator index should be in range[-3, 3), but got 3"; rank 4 gets to the hazard), an attention
block whose Dense input, [2, 8], has too few axes for its heads (a sequence, [2, 64, 8], gets to the hazard), and
one whose input of any rank becomes rank 3 in the compile where a helper unpacks four sizes from it (the same
error at the helper's line, with no finding there; an input of rank 3 gets to the hazard; measured on 2.10 and
2.7.1)."""
import numpy as np
from mindspore import Tensor, nn, ops


class Modulated(nn.Cell):
    def __init__(self):
        super().__init__()
        self.act = nn.SiLU()
        self.proj = nn.Dense(8, 32)

    def construct(self, emb):
        shift, scale = self.proj(self.act(emb)).chunk(2, axis=1)
        return Tensor(np.sin(shift)) * scale


class Flattened(nn.Cell):
    def construct(self, x):
        y = x.view(*x.shape[:2], -1)
        return Tensor(np.sin(y))


class Swapped(nn.Cell):
    def construct(self, x):
        return x.transpose(1, 2) * 2


class Pooled(nn.Cell):
    def __init__(self):
        super().__init__()
        self.shape = ops.Shape()

    def construct(self, x):
        flat = x.view(*x.shape[:2], -1)
        b, c, h, w = self.shape(x)
        tokens = flat.reshape(b, c, h * w)
        return tokens.transpose(1, 2) * 2


class Heads(nn.Cell):
    def __init__(self):
        super().__init__()
        self.query = nn.Dense(8, 8)

    def split(self, x):
        return x.view(*x.shape[:-1], 2, 4).transpose(0, 2, 1, 3)

    def construct(self, queries):
        q = self.split(self.query(queries))
        return ops.matmul(q, q.transpose(-1, -2))


def repeat_heads(states):
    batch, heads, length, size = states.shape
    return states.reshape(batch * heads, length, size)


class Repeated(nn.Cell):
    def construct(self, x):
        states = x.view((*x.shape[:-1], -1, 4)).swapaxes(1, 2)
        merged = repeat_heads(states)
        return Tensor(np.sin(merged))


class Channels(nn.Cell):
    def __init__(self, channels):
        super().__init__()
        self.dense = nn.Dense(channels, channels)

    def construct(self, z):
        return z.size(0)


class PaddedChannels(nn.Cell):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)

    def construct(self, x):
        return self.conv(x)
