from mindspore import nn


class Detector(nn.Cell):
    def __init__(self):
        super().__init__()
        self.head = nn.Dense(3, 2)

    def construct(self, x):
        return {"logits": self.head(x), "features": x}
