import mindspore as ms
import ms_lint


@ms_lint.example("pkg.model:Detector")
def detector_example():
    import numpy as np

    from pkg.model import Detector

    return Detector(), (ms.Tensor(np.ones((2, 3), np.float32)),)
