import mindspore as ms
import numpy as np

import ms_lint


@ms_lint.example("vcells.models:Noise")
def noise():
    from vcells.models import Noise

    return Noise(), ms.Tensor(np.ones((2, 3), np.float32))
