"""The input pipeline."""
import numpy as np
import mindspore.dataset as ds
from mindspore import ops


class TileSource:
    def __init__(self, size=16):
        self.images = np.random.rand(size, 3, 32, 32).astype(np.float32)
        # np.bool left numpy in 1.24; MindSpore runs with 1.25 or later: AttributeError before training starts
        self.valid = np.ones(size, dtype=np.bool)

    def __getitem__(self, index):
        # MindSpore operators inside a worker process: one kernel launch per sample
        return ops.flip(self.images[index], dims=(2,)), np.int32(index % 3)

    def __len__(self):
        return len(self.images)


def scale(image):
    return ops.div(image, 255.0)


def create_dataset():
    dataset = ds.GeneratorDataset(TileSource(), ["image", "label"], python_multiprocessing=True,
                                  num_parallel_workers=2)
    return dataset.map(operations=[scale], input_columns="image").batch(4)
