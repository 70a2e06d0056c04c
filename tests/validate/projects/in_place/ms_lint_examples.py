import numpy as np
import mindspore as ms
import ms_lint


def _threes():
    return (ms.Tensor(np.full((2,), 3.0, np.float32)),)


@ms_lint.example("pkg.model:Accumulator")
def accumulator_example():
    from pkg.model import Accumulator

    return Accumulator(), _threes()


@ms_lint.example("pkg.model:Residual")
def residual_example():
    from pkg.model import Residual

    return Residual(), _threes()


@ms_lint.example("pkg.model:Shift")
def shift_example():
    from pkg.model import Shift

    return Shift(), _threes()
