from mindspore import nn


class Sliced(nn.Cell):
    def __init__(self):
        super().__init__()
        self.use_slicing = False

    def construct(self, z):
        if self.use_slicing and z.size(0) > 1:
            return z * 2
        return z


class SlicedAlways(nn.Cell):
    def __init__(self):
        super().__init__()
        self.use_slicing = True

    def construct(self, z):
        if self.use_slicing and z.size(0) > 1:
            return z * 2
        return z


class Picked(nn.Cell):
    def __init__(self):
        super().__init__()
        self.by_size = False

    def construct(self, z):
        scale = z.size(0) if self.by_size else 3
        return z * scale


class Either(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fixed = True

    def construct(self, z):
        if self.fixed or z.size(0) > 1:
            return z * 2
        return z

