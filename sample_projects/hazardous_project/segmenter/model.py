"""The segmentation network."""
import random
import threading
from collections import namedtuple

import numpy as np
from mindspore import Tensor, context, nn, ops

from .layers import Backbone, ConvBlock

Output = namedtuple("Output", ["mask", "score"])


class StepCounter:
    def __init__(self):
        self.steps = 0

    def tick(self):
        self.steps += 1


def log_progress():
    print("step done")


def soft_threshold(values):
    # a helper called from construct is graph code too: numpy on tensors fails under STRICT
    return np.maximum(values, 0.0)


class Encoder(Backbone):
    def __init__(self, channels=8, depth=2):
        super().__init__(channels)
        # plain list of Cells: never trained, and the duplicate names break the compile
        self.blocks = [ConvBlock(channels, channels) for _ in range(depth)]
        self.counter = StepCounter()

    def construct(self, x):
        for block in self.blocks:
            x = block(x)
        self.counter.tick()  # mutating a user object in graph code
        return x


class Segmenter(nn.Cell):
    def __init__(self, channels=8, classes=3):
        super().__init__()
        self.channels = channels
        self.stem = nn.Conv2d(3, channels, 3, pad_mode="same")
        self.encoder = Encoder(channels)
        self.classifier = nn.Conv2d(channels, classes, 1)
        self.mean = Tensor(np.zeros((1, 3, 1, 1), np.float32))

    def construct(self, x):
        x = self.stem(x - self.mean)
        x = self.encoder(x)
        logits = self.classifier(x)
        scale = logits.max().asnumpy()  # host copy in graph code
        probs = soft_threshold(logits) / scale
        jitter = random.uniform(0.9, 1.1)  # drawn once, at compile time
        threading.Thread(target=log_progress).start()  # runs once, during the compile
        refine = nn.Dense(self.channels, self.channels)  # weights frozen at compile time
        self.last_logits = logits  # attribute write
        params = self.trainable_params()  # refused by MindSpore in graph code
        if context.get_context("mode") == context.GRAPH_MODE:
            probs = probs * jitter
        try:
            mask = probs > 0.5
        except ValueError:
            mask = probs
        return Output(logits, x.mean()), mask  # user type built from tensors


class EmaHead(nn.Cell):
    def __init__(self, classes=3):
        super().__init__()
        self.average = nn.Dense(classes, classes).weight

    def construct(self, x):
        self.average.set_data(self.average * 0.9)
        return x[x > 0]  # dynamic shape: fine on CPU, slow on Ascend (MS110, off by default)
