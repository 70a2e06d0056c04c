"""A model file that imports, at its top, packages this machine does not have (a downloader, a tokenizer)."""
import ms_lint_absent_downloader
import numpy as np
from mindspore import nn
from ms_lint_absent_tokenizer import Tokenizer


class Plain(nn.Cell):
    """Uses neither: built and compiled with stand-ins for both."""

    def construct(self, x):
        return np.sin(x)


class Downloading(nn.Cell):
    """Its graph code calls the downloader: what it does with the real package is unknown."""

    def construct(self, x):
        return ms_lint_absent_downloader.fetch(x) + np.cos(x)


class Tokenized(nn.Cell):
    """Its constructor builds a tokenizer of the missing package."""

    def __init__(self):
        super().__init__()
        self.vocabulary = len(Tokenizer())

    def construct(self, x):
        return np.exp(x) * self.vocabulary


def load_data():
    return ms_lint_absent_downloader.dataset("points")
