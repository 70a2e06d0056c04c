"""Output types built from tensors: the inner Cell's compile fails at its own line, the outer one's first there; a Cell
that cannot be built without a checkpoint."""
from dataclasses import dataclass
from typing import Optional

import mindspore as ms
from mindspore import nn


@dataclass
class EncoderOutput:
    last_hidden_state: Optional[ms.Tensor] = None
    hidden_states: Optional[tuple] = None


class Encoder(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4, 4)

    def construct(self, x):
        return EncoderOutput(last_hidden_state=self.dense(x))


class Model(nn.Cell):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()

    def construct(self, x):
        hidden = self.encoder(x).last_hidden_state
        return EncoderOutput(last_hidden_state=hidden * 2, hidden_states=(hidden,))


class NeedsCheckpoint(nn.Cell):
    def __init__(self, checkpoint=None):
        super().__init__()
        if checkpoint is None:
            raise ValueError("a checkpoint is required")
        self.dense = nn.Dense(4, 4)

    def construct(self, x):
        return EncoderOutput(last_hidden_state=self.dense(x))
