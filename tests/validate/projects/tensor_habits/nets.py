import logging

from mindspore import nn

logger = logging.getLogger(__name__)

SHIFT = 1.0


class MaxNet(nn.Cell):
    def construct(self, x):
        return x / max(x.sum(), 1e-6)


class FormatNet(nn.Cell):
    def construct(self, x):
        logger.debug("mean %s", x.mean())
        return x


class SwapNet(nn.Cell):
    def construct(self, x):
        return x.transpose(1, 2)


class DetachNet(nn.Cell):
    def construct(self, x):
        return x.detach() * 2


class DictNet(nn.Cell):
    def construct(self, x):
        return {"logits": x}


class ScaledNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scale = 1.0

    def set_scale(self, value):
        self.scale = value

    def construct(self, x):
        return x * self.scale


class ShiftNet(nn.Cell):
    def construct(self, x):
        return x + SHIFT


def schedule(value):
    global SHIFT
    SHIFT = value


def predict(x):
    net = DictNet()
    return net(x)["logits"]


def train(batches):
    net = ScaledNet()
    for step, batch in enumerate(batches):
        net.scale = 1.0 / (step + 1)
        net(batch)
    for step, batch in enumerate(batches):
        net.set_scale(step)
        net(batch)
