"""Cells ported from PyTorch that read names MindSpore's modules do not have (MS607): two in host methods the
graph never calls (one taking an argument), one in construct; and one whose construct names its instance ctx (MS119)."""
from mindspore import nn, ops


class WeightNormed(nn.Cell):
    def __init__(self):
        super().__init__()
        self.proj = nn.Dense(4, 4)

    def construct(self, x):
        return ops.relu(self.proj(x))

    def apply_weight_norm(self):
        nn.utils.weight_norm(self.proj)

    def apply_spectral_norm(self, name):
        nn.utils.spectral_norm(self.proj, name)


class Softmaxed(nn.Cell):
    def construct(self, x):
        return nn.functional.softmax(x, axis=-1)


class FloorSTE(nn.Cell):
    """Ported from an autograd.Function: the instance is named ctx (MS119)."""

    def construct(ctx, x):
        return ops.floor(x)


class ScaledSTE(nn.Cell):
    """The same with a default after the inputs: MindSpore then says an argument is missing, with no location."""

    def construct(ctx, x, scale, shift=None):
        return ops.floor(x * scale)


class ScaledThenHost(ScaledSTE):
    def __init__(self):
        super().__init__()
        self.factor = 2.0

    def construct(ctx, x, scale, shift=None):
        y = ops.floor(x * scale) * ctx.factor
        return y.asnumpy()


class NormedThenHost(nn.Cell):
    """weight_norm stops building it; the host copy in construct lies behind."""

    def __init__(self):
        super().__init__()
        self.proj = nn.utils.weight_norm(nn.Dense(4, 4))

    def construct(self, x):
        return self.proj(x).asnumpy()


class SoftmaxedThenHost(nn.Cell):
    def construct(self, x):
        y = nn.functional.softmax(x, axis=-1)
        return y.asnumpy()


class NormedTrainingHost(nn.Cell):
    """The same, with the host copy compiled in train mode only."""

    def __init__(self):
        super().__init__()
        self.proj = nn.utils.weight_norm(nn.Dense(4, 4))

    def construct(self, x):
        if self.training:
            return self.proj(x).asnumpy()
        return self.proj(x)


class ResizedThenHost(nn.Cell):
    """A missing layer built with no argument stops building it; the host copy in construct lies behind."""

    def __init__(self):
        super().__init__()
        self.resize = nn.ResizeBilinear()

    def construct(self, x):
        y = self.resize(x, scale_factor=0.5)
        return y.asnumpy()
