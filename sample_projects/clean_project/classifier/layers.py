"""Building blocks shared by the models."""
import mindspore
from mindspore import Parameter, Tensor, nn, ops


class ConvBlock(nn.Cell):
    """Conv -> BatchNorm -> ReLU, with PyTorch-style explicit padding."""

    def __init__(self, in_channels, out_channels, kernel_size=3):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=kernel_size // 2, pad_mode="pad")
        self.norm = nn.BatchNorm2d(out_channels)
        self.act = nn.ReLU()

    def construct(self, x):
        return self.act(self.norm(self.conv(x)))


class LayerScale(nn.Cell):
    """Per-channel learnable scales kept in a ParameterTuple."""

    def __init__(self, channels, depth=2):
        super().__init__()
        self.scales = mindspore.ParameterTuple(
            [Parameter(Tensor(ops.ones((channels, 1, 1))), name=f"scale{i}") for i in range(depth)]
        )
        self.steps = Parameter(Tensor(0, mindspore.int32), name="steps", requires_grad=False)

    def construct(self, x):
        for scale in self.scales:
            x = x * scale
        ops.assign_add(self.steps, Tensor(1, mindspore.int32))
        return x
