"""Output heads: several ways of holding sub-Cells."""
from mindspore import nn, ops


class MultiTaskHead(nn.Cell):
    """One Dense per task, kept in a Python list."""

    def __init__(self, dim=16, tasks=3):
        super().__init__()
        self.heads = [nn.Dense(dim, 2) for _ in range(tasks)]

    def construct(self, x):
        outputs = ()
        for head in self.heads:
            outputs += (head(x),)
        return outputs


class NormalizedHead(nn.Cell):
    """A projection and a normalisation, kept in a Python list."""

    def __init__(self, dim=16):
        super().__init__()
        self.stages = [nn.Dense(dim, dim), nn.LayerNorm((dim,))]

    def construct(self, x):
        for stage in self.stages:
            x = stage(x)
        return x


class GatedActivation(nn.Cell):
    """Two activations without parameters, kept in a Python list: nothing to lose, so nothing is reported."""

    def __init__(self):
        super().__init__()
        self.activations = [nn.ReLU(), nn.Tanh()]

    def construct(self, x):
        return self.activations[0](x) * self.activations[1](x)


class WindowPooler(nn.Cell):
    """Averages the sequence in windows of 64 steps: a stride past what Ascend's pooling kernels take."""

    def construct(self, x):
        return ops.avg_pool1d(x, kernel_size=64, stride=64)


class Pooler(nn.Cell):
    def construct(self, x):
        return ops.mean(x, 1)
