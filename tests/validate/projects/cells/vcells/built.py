import numpy as np
from mindspore import Tensor, nn


class Block(nn.Cell):
    def __init__(self, widths, act):
        super().__init__()
        self.dense = nn.Dense(widths[0], widths[1])
        self.act = act()

    def construct(self, x):
        return Tensor(np.sin(self.act(self.dense(x))))


def block(width=8, **kwargs):
    return Block([4, width], nn.ReLU, **kwargs)


class TinyConfig:
    def __init__(self, hidden_size=1024, num_hidden_layers=24, num_attention_heads=16, vocab_size=30000):
        self.hidden_size = hidden_size
        self.num_hidden_layers = num_hidden_layers
        self.num_attention_heads = num_attention_heads
        self.vocab_size = vocab_size


class ConfigModel(nn.Cell):
    def __init__(self, config: TinyConfig):
        super().__init__()
        self.embed = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.CellList([nn.Dense(config.hidden_size, config.hidden_size)
                                   for _ in range(config.num_hidden_layers)])

    def construct(self, input_ids):
        hidden = self.embed(input_ids)
        return hidden.asnumpy()


class ScaledConfig:
    def __init__(self, hidden_size=1024, rope_scaling=None, num_experts=None):
        self.hidden_size = hidden_size
        self.rope_scaling = rope_scaling
        self.num_experts = num_experts


class ScaledModel(nn.Cell):
    def __init__(self, config: ScaledConfig):
        super().__init__()
        import copy

        config = copy.deepcopy(config)  # the raising frame holds a copy, not the config it was given
        self.factor = config.rope_scaling.get("factor", 1.0)
        self.experts = nn.CellList([nn.Dense(config.hidden_size, config.hidden_size)
                                    for _ in range(config.num_experts)])

    def construct(self, x):
        return Tensor(np.exp(self.experts[0](x) * self.factor))


class Guessed(nn.Cell):
    def __init__(self, in_channels, num_heads, eps):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, in_channels * num_heads, 3)
        self.eps = eps

    def construct(self, x):
        return Tensor(np.cos(self.conv(x)))


class Padded(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)

    def construct(self, x):
        return self.conv(x)


class UsesPadded(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = Padded()

    def construct(self, x):
        return Tensor(np.tan(self.inner(x)))


class TwoPadded(nn.Cell):
    def __init__(self):
        super().__init__()
        self.first = nn.Conv2d(3, 8, 3, padding=1)
        self.second = nn.Conv2d(8, 8, 5, padding=2)

    def construct(self, x):
        return self.second(self.first(x))


class Positions(nn.Cell):
    def __init__(self, num_positions, dim, padding_idx=None):
        super().__init__()
        self.table = nn.Embedding(num_positions, dim)
        self.padding_idx = padding_idx

    def construct(self, ids):
        return Tensor(np.cos(self.table(ids + self.padding_idx + 1)))


class PositionsConfig:
    def __init__(self, max_positions=64, hidden_size=1024, pad_token_id=1):
        self.max_positions = max_positions
        self.hidden_size = hidden_size
        self.pad_token_id = pad_token_id


class PositionsModel(nn.Cell):
    def __init__(self, config: PositionsConfig):
        super().__init__()
        self.positions = Positions(config.max_positions + config.pad_token_id + 1, config.hidden_size,
                                   config.pad_token_id)

    def construct(self, ids):
        return self.positions(ids)
