"""A Cell whose block needs MS205's fix to be built, taking an optional input: its guarded line is compiled only
when the input is passed."""
from mindspore import nn

from vcells.blocks import PaddedBlock


class OptionalInput(nn.Cell):
    def __init__(self):
        super().__init__()
        self.block = PaddedBlock(4)

    def construct(self, input_ids=None):
        y = input_ids
        if input_ids is not None:
            y = input_ids * 2
        return y
