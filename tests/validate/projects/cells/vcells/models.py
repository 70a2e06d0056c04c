import numpy as np
import mindspore as ms
from mindspore import Tensor, nn, ops

from vcells.helpers import gelu


class HostSine(nn.Cell):
    def construct(self, x):
        return Tensor(np.sin(x))


class Projection(nn.Cell):
    def __init__(self, dim=8):
        super().__init__()
        self.dense = nn.Dense(dim, dim)
        self.dim = dim

    def construct(self, x):
        return self.dense(x) / np.sqrt(self.dim)


class Sized(nn.Cell):
    def __init__(self, spec):
        super().__init__()
        self.dense = nn.Dense(spec["dim"], spec["dim"])

    def construct(self, x, mask):
        return Tensor(np.exp(self.dense(x))) * mask


class TwoDense(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layers = [nn.Dense(4, 4), nn.Dense(4, 4)]

    def construct(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class DenseAndNorm(nn.Cell):
    def __init__(self):
        super().__init__()
        self.stages = [nn.Dense(4, 4), nn.LayerNorm((4,))]

    def construct(self, x):
        for stage in self.stages:
            x = stage(x)
        return x


class Activations(nn.Cell):
    def __init__(self):
        super().__init__()
        self.acts = [nn.ReLU(), nn.Tanh()]

    def construct(self, x):
        return self.acts[0](x) + self.acts[1](x)


class Noise(nn.Cell):
    def construct(self, x):
        return x + np.random.rand()


class Helper(nn.Cell):
    def construct(self, x):
        return gelu(x)


@ms.jit(fullgraph=True)
def strict_step(x):
    return Tensor(np.cos(x))


def plain_function(x):
    return ops.relu(x)
