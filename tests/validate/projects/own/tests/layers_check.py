# Named so that the suite of ms-lint itself does not collect it: for the validator, it is this project's test.
import mindspore as ms
import numpy as np
import pytest

from ownpkg.layers import Windowed


@pytest.fixture
def windowed(window):
    return Windowed(window=window)


def test_windowed_keeps_the_shape(windowed):
    x = ms.Tensor(np.ones((2, 8), np.float32))
    assert windowed(x).shape == (2, 8)
