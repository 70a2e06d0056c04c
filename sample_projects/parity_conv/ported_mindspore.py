"""The MindSpore port of reference_torch.ConvHead.

``ConvHead`` is a line-by-line translation that runs, has the same output shape, and computes something else:
``nn.Conv2d`` pads 'same' by default in MindSpore, so conv1 sees a 12x12 map padded to stay 12x12 where PyTorch
produces 9x9. ``ConvHeadFixed`` passes pad_mode="valid", as the PyTorch layer uses padding=0.
"""
import mindspore
from mindspore import nn, ops


class ConvHead(nn.Cell):
    def __init__(self, num_classes: int = 10):
        super().__init__()
        self.conv1 = nn.Conv2d(120, 240, 4, has_bias=True)
        self.bn1 = nn.BatchNorm2d(240)
        self.relu = nn.ReLU()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Dense(240, num_classes)

    def construct(self, x: mindspore.Tensor) -> mindspore.Tensor:
        x = self.relu(self.bn1(self.conv1(x)))
        x = ops.flatten(self.pool(x), start_dim=1)
        return self.fc(x)


class ConvHeadFixed(ConvHead):
    def __init__(self, num_classes: int = 10):
        super().__init__(num_classes)
        self.conv1 = nn.Conv2d(120, 240, 4, pad_mode="valid", has_bias=True)
