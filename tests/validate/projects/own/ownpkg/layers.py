"""Cells whose constructors need arguments no name tells: their docstrings, tests and scripts build them."""
import numpy as np
from mindspore import nn, ops


class FullyConnectedNet(nn.Cell):
    """Layers of the sizes given, each followed by the activation.

    Examples:
        >>> import mindspore as ms
        >>> from mindspore import ops
        >>> from ownpkg.layers import FullyConnectedNet
        >>> fc = FullyConnectedNet([4, 10, 6],
        ...                        ops.tanh)
        >>> v = ms.Tensor([[.1, .2, .3, .4]], ms.float32)
        >>> out = fc(v)
        >>> print(out.shape)
        (1, 6)
    """

    def __init__(self, h_list, act):
        super().__init__()
        self.layers = nn.CellList([nn.Dense(a, b) for a, b in zip(h_list[:-1], h_list[1:])])
        self.act = act

    def construct(self, x):
        for layer in self.layers:
            x = self.act(layer(x))
        return x / np.sqrt(x.shape[-1]) + np.tanh(x)


class Scaler(nn.Cell):
    """Multiplies by a factor.

    >>> Scaler(np.array([2.0], np.float32))(ops.ones((2, 3)))
    """

    def __init__(self, factor):
        super().__init__()
        self.factor = factor

    def construct(self, x):
        return x * np.exp(x)


class Windowed(nn.Cell):
    """Its docstring example needs a package this machine does not have; a test builds it.

    >>> import ms_lint_absent_plotting
    >>> net = Windowed(window=3)
    """

    def __init__(self, window):
        super().__init__()
        self.window = window

    def construct(self, x):
        return np.log(x) * self.window


class Pretrained(nn.Cell):
    """Its docstring example downloads; its module's __main__ block builds it.

    >>> net = Pretrained.from_pretrained("org/pretrained-net")
    """

    def __init__(self, width):
        super().__init__()
        self.proj = nn.Dense(width, width)

    def construct(self, x):
        return np.abs(self.proj(x))


class Unbuilt(nn.Cell):
    """No example builds it: its constructor needs an object no name tells."""

    def __init__(self, vocabulary):
        super().__init__()
        self.out = nn.Dense(4, len(vocabulary))

    def construct(self, x):
        return np.floor(self.out(x))


if __name__ == "__main__":
    import mindspore as ms

    net = Pretrained(width=5)
    print(net(ms.Tensor(np.ones((2, 5), np.float32))))
