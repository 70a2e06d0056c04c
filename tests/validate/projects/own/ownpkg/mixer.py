"""Cells that hold the @jit_class objects of irreps.py."""
from mindspore import nn

from ownpkg.irreps import Basis, Irrep


class Mixer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.irrep = Irrep(2)

    def construct(self, x):
        return self.irrep.scale(x) + 1


class Sizer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.basis = Basis(3)

    def construct(self, x):
        return x * self.basis.size()
