"""Data-parallel training of the classifier, reproducible on every card."""
import mindspore
from mindspore import Model, nn
from mindspore.communication import init

from classifier.data import create_dataset
from classifier.model import Classifier


def main():
    mindspore.set_context(mode=mindspore.GRAPH_MODE)
    mindspore.set_seed(1)
    init()
    mindspore.set_auto_parallel_context(parallel_mode=mindspore.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    net = Classifier()
    net.to_float(mindspore.float16)
    net.heads.to_float(mindspore.float32)
    loss = nn.CrossEntropyLoss()
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    model = Model(net, loss, optimizer, amp_level="O0")
    model.train(2, create_dataset())


if __name__ == "__main__":
    main()
