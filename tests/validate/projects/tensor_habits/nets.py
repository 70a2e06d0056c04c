import logging

from mindspore import nn

logger = logging.getLogger(__name__)


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

    def construct(self, x):
        return x * self.scale


def predict(x):
    net = DictNet()
    return net(x)["logits"]


def train(batches):
    net = ScaledNet()
    for step, batch in enumerate(batches):
        net.scale = 1.0 / (step + 1)
        net(batch)
