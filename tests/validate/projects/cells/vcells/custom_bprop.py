"""Cells with a custom bprop, which construct never calls: MindSpore compiles it where the gradient is taken."""
from mindspore import nn, ops


class FloorSTE(nn.Cell):
    """Ported from an autograd.Function: backward's ctx kept as bprop's instance (MS119)."""

    def construct(self, x):
        return ops.floor(x)

    def bprop(ctx, x, out, grad_output):
        return (grad_output,)


class HostGradient(nn.Cell):
    def construct(self, x):
        return ops.round(x)

    def bprop(self, x, out, grad_output):
        return (grad_output.asnumpy(),)


class RoundSTE(nn.Cell):
    """ctx in both: construct's error is construct's finding; bprop's needs the gradient, with construct fixed."""

    def construct(ctx, x):
        return ops.round(x)

    def bprop(ctx, x, out, grad_output):
        return (grad_output,)



class ShiftedSTE(nn.Cell):
    """bprop misses construct's inputs besides naming its instance ctx: the error at its def line is that one."""

    def construct(self, x, scale, shift):
        return ops.floor(x * scale + shift)

    def bprop(ctx, x, out, grad_output):
        return (grad_output,)
