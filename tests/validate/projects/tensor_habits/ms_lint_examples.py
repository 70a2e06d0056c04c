import mindspore as ms
import ms_lint


@ms_lint.example("nets:SwapNet")
def swap_net_example():
    from nets import SwapNet

    return SwapNet(), (ms.Tensor(shape=[2, 3, 4], dtype=ms.float32),)


@ms_lint.example("nets:DictNet")
def dict_net_example():
    import numpy as np

    from nets import DictNet

    return DictNet(), (ms.Tensor(np.ones((2, 3), np.float32)),)


@ms_lint.example("nets:ScaledNet")
def scaled_net_example():
    import numpy as np

    from nets import ScaledNet

    return ScaledNet(), (ms.Tensor(np.ones((2, 3), np.float32)),)


@ms_lint.example("nets:ShiftNet")
def shift_net_example():
    import numpy as np

    from nets import ShiftNet

    return ShiftNet(), (ms.Tensor(np.ones((2, 3), np.float32)),)
