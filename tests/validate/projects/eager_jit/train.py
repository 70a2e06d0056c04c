"""Trains in PyNative; one function is compiled by @jit, a Cell runs eagerly."""
import mindspore as ms
from mindspore import Tensor, jit, nn

ms.set_context(mode=ms.PYNATIVE_MODE, jit_syntax_level=ms.STRICT)


@jit(fullgraph=True)
def scaled(x):
    return x.asnumpy() * 2


class Doubled(nn.Cell):
    def construct(self, x):
        return Tensor(x.asnumpy() * 2.0, ms.float32)


def main():
    return Doubled(), scaled


if __name__ == "__main__":
    main()
