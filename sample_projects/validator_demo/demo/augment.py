"""Training-time noise, drawn with numpy inside the network."""
import numpy as np
from mindspore import nn


class EmbeddingNoise(nn.Cell):
    """Adds Gaussian noise to embeddings during training."""

    def __init__(self, dim, scale=0.1):
        super().__init__()
        self.dim = dim
        self.scale = scale

    def construct(self, x):
        noise = np.random.normal(0.0, self.scale)
        return x + noise
