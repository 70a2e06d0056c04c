import mindspore as ms
import ms_lint


@ms_lint.example("nets:SwapNet")
def swap_net_example():
    from nets import SwapNet

    return SwapNet(), (ms.Tensor(shape=[2, 3, 4], dtype=ms.float32),)
