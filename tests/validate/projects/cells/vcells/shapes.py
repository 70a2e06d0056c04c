"""Inputs whose shape the validator has to guess: one given to a layer through an activation, and ones of any
rank that reach code needing their rank (measured on 2.10: with shape [-2] `x.view(*x.shape[:2], -1)` fails
with "Can not get size for dynamic length sequence", `x.transpose(1, 2)` with "output index [0] large than the
output size"; with rank 3 both get to the hazard), one that unpacks four sizes from its shape (rank 3 fails with
"TupleGetItem evaluator index should be in range[-3, 3), but got 3"; rank 4 gets to the hazard)."""
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
