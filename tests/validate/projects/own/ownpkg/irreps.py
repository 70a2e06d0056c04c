"""@jit_class helpers built by host code: the graph code of the Cells that hold them calls some of their methods."""
import mindspore as ms
import numpy as np


@ms.jit_class
class Irrep:
    """Reached: Mixer's construct calls scale()."""

    def __init__(self, degree):
        self.degree = degree

    def scale(self, x):
        return x * np.cos(x)


@ms.jit_class
class Basis:
    """Sizer's construct calls size(), never tabulate(), which host code uses."""

    def __init__(self, count):
        self.count = count

    def size(self):
        return self.count * 2

    def tabulate(self, x):
        return np.sin(x)


@ms.jit_class
class Orphan:
    """No Cell or jit function of the project uses it."""

    def values(self, x):
        return np.exp(x)
