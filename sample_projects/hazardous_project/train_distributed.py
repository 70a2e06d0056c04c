"""Data-parallel training: no seed, and a manual float32 head silently re-cast by the amp level."""
import mindspore
from mindspore import Model, nn
from mindspore.communication import init

from segmenter.data import create_dataset
from segmenter.model import Segmenter


def main():
    mindspore.set_context(mode=mindspore.GRAPH_MODE, jit_syntax_level=mindspore.STRICT)  # ready for MindIR export
    init()  # every card initialises different weights: no mindspore.set_seed
    mindspore.set_auto_parallel_context(parallel_mode=mindspore.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    net = Segmenter()
    net.classifier.to_float(mindspore.float32)
    loss = nn.CrossEntropyLoss()
    optimizer = nn.Adam(net.trainable_params(), learning_rate=1e-3)
    model = Model(net, loss, optimizer, amp_level="O2")  # O2 silently casts the float32 classifier to float16
    model.train(2, create_dataset())


if __name__ == "__main__":
    main()
