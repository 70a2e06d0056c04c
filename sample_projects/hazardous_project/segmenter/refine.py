"""A mask-refinement stage ported from PyTorch, trained on its own: the migration guide's checklist items."""
from mindspore import nn, ops
from mindspore.train import Model


class Refiner(nn.Cell):
    def __init__(self, channels=8):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3)

    def construct(self, x, masks):
        # the number of confident masks is data: the slice has a dynamic shape (slow or unsupported on Ascend)
        confident = (masks.max(axis=1) > 0.5).sum()
        masks = masks[:confident]
        # 32 unrolled iterations, each with a branch on a tensor: compile time grows with every one
        for step in range(32):
            if masks.mean() > step / 32:
                masks = masks * 0.5
        # a stride of 64 is outside the range Ascend's average pooling documents ([1, 63])
        context = ops.avg_pool2d(self.conv(x), kernel_size=2, stride=64)
        return masks, context


def train_refiner(dataset, loss_fn):
    net = Refiner()
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    # Conv runs in float16 on Ascend: without a loss-scale manager small gradients vanish
    model = Model(net, loss_fn, optimizer)
    model.train(1, dataset)
