"""Single-card fine-tuning without a seed: not reproducible (MS402, off by default); PyTorch's zero_grad (MS616)."""
import mindspore
from mindspore import nn

from segmenter.heads import MaskScoreHead, init_heads, set_smoothing, train_head
from segmenter.model import Segmenter


def finetune(dataset):
    net = Segmenter()
    loss_fn = nn.CrossEntropyLoss()
    optimizer = nn.SGD(net.trainable_params(), learning_rate=0.01)

    def forward(image, label):
        return loss_fn(net(image), label)

    grad_fn = mindspore.value_and_grad(forward, None, optimizer.parameters)
    for image, label in dataset:
        optimizer.zero_grad()  # a PyTorch habit: MindSpore optimizers have no zero_grad (MS616)
        loss, grads = grad_fn(image, label)
        optimizer(grads)


def mask_coverage(features):
    head = MaskScoreHead()
    head.apply(init_heads)
    return head(features)["mask"].mean()


if __name__ == "__main__":
    from segmenter.data import create_dataset

    mindspore.set_context(mode=mindspore.GRAPH_MODE)
    finetune(create_dataset())
    train_head(image for image, _ in create_dataset())
    set_smoothing(0.2)
    print(mask_coverage(next(iter(create_dataset()))[0]))
