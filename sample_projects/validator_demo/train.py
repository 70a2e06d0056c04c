"""Train the classifier with mixed precision."""
import mindspore as ms
from mindspore import nn
from mindspore.train import Model

from demo.blocks import FeedForward


def main():
    net = FeedForward().to_float(ms.float16)
    net.down.to_float(ms.float32)  # the output projection kept in float32
    loss = nn.MSELoss()
    optimizer = nn.Adam(net.trainable_params())
    model = Model(net, loss, optimizer, amp_level="O2")
    return model


if __name__ == "__main__":
    ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)  # STRICT: what a MindIR export needs
    main()
