"""The input pipeline: numpy in the worker processes, MindSpore only in the graph."""
import numpy as np
import mindspore.dataset as ds


class RandomImages:
    def __init__(self, size=64, seed=0):
        rng = np.random.default_rng(seed)
        self.images = rng.random((size, 3, 32, 32), dtype=np.float32)
        self.labels = rng.integers(0, 10, size=size).astype(np.int32)

    def __getitem__(self, index):
        image = np.flip(self.images[index], axis=2).copy()
        return image, self.labels[index]

    def __len__(self):
        return len(self.labels)


def normalize(image):
    return (image - 0.5) / 0.25


def create_dataset(batch_size=8):
    dataset = ds.GeneratorDataset(RandomImages(), ["image", "label"], shuffle=True, python_multiprocessing=True,
                                  num_parallel_workers=2)
    dataset = dataset.map(operations=normalize, input_columns="image")
    return dataset.batch(batch_size)
