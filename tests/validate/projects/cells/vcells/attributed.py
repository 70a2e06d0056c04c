"""A state write in construct (MS108) before a user-type output (MS103): both rules' errors speak of member
attributes, and the compile stops at the write."""
from mindspore import nn


class Output:
    def __init__(self, hidden, deltas):
        self.hidden = hidden
        self.deltas = deltas


class Cached(nn.Cell):
    def __init__(self):
        super().__init__()
        self.deltas = None

    def construct(self, x):
        self.deltas = x * 2
        return Output(hidden=x, deltas=self.deltas)
