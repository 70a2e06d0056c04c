"""How `ms-lint validate` builds the Cells it cannot build with no arguments.

Each function returns (cell, inputs). Placeholder inputs (no data) are enough to compile; the randomness
probe runs the Cell, so its example gives real tensors.
"""
import mindspore as ms
import numpy as np

import ms_lint


@ms_lint.example("demo.augment:EmbeddingNoise")
def embedding_noise():
    from demo.augment import EmbeddingNoise

    cell = EmbeddingNoise(dim=16)
    x = ms.Tensor(np.ones((2, 16), np.float32))
    return cell, (x,)
