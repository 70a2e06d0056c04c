"""Prediction heads ported from PyTorch, with the habits that break in MindSpore."""
import logging

from mindspore import Tensor, nn, ops
from mindspore.common import dtype as mstype

logger = logging.getLogger(__name__)

LABEL_SMOOTHING = 0.1


class AttentionHead(nn.Cell):
    def __init__(self, channels=8):
        super().__init__()
        self.query = nn.Dense(channels, channels)
        self.temperature = 1.0

    def construct(self, x):
        q = self.query(x)
        # PyTorch's two-axis transpose: graph mode wants a full permutation (use swapaxes)
        scores = ops.matmul(q, q.transpose(-2, -1)) / self.temperature
        # the builtin max on a tensor fails to compile under STRICT (use ops.maximum)
        scale = max(scores.sum(), 1e-6)
        # %-formatting a tensor for the log fails to compile under STRICT (print it instead)
        logger.debug("attention mass %s", scores.sum())
        # .detach() does not exist on MindSpore tensors (ops.stop_gradient)
        target = scores.detach()
        # a dict that train_head reads by key (MS117): Python gets a tuple of its values under STRICT
        return {"scores": scores / scale, "target": target * (1 - LABEL_SMOOTHING)}


class MaskScoreHead(nn.Cell):
    def __init__(self, channels=8):
        super().__init__()
        self.proj = nn.Dense(channels, 1)

    def construct(self, x):
        # a dict that finetune.py reads by key: Python gets a tuple of its values under STRICT (return a tuple)
        return {"mask": ops.sigmoid(self.proj(x))}


class ClassifierHead(nn.Cell):
    def __init__(self, channels=8, classes=4):
        super().__init__()
        self.proj = nn.Dense(channels, classes)
        self.loss_fn = nn.CrossEntropyLoss()

    def construct(self, x, labels=None):
        # PyTorch's torch.nn.functional: MindSpore's nn has no `functional` (mint.nn.functional or ops)
        logits = nn.functional.relu(self.proj(x))
        if labels is not None:
            loss = self.loss_fn(logits, labels)
        # graph mode joins both branches of the `if` above before it folds the condition: `loss` is unbound on one
        return (loss, logits) if labels is not None else logits


class MaskHead(nn.Cell):
    def __init__(self, channels=8):
        super().__init__()
        self.proj = nn.Dense(channels, channels)

    def construct(self, x):
        logits = self.proj(x)
        if logits.abs().max() > 1e4:
            # logged once, while the graph compiles, whatever the logits turn out to be (log from the training loop)
            logger.warning("mask logits overflow")
            # cast on one path only: the two paths of a condition on tensor data must give one dtype
            logits = logits.astype(mstype.float16)
        return logits


def set_smoothing(value):
    # graph code folded the first value in: this write never reaches the compiled head
    global LABEL_SMOOTHING
    LABEL_SMOOTHING = value


def train_head(batches):
    head = AttentionHead()
    for step, batch in enumerate(batches):
        # a plain attribute read by construct: the graph keeps the first temperature
        head.temperature = 1.0 + step
        # construct returns a dict: graph mode under STRICT gives back a tuple
        loss = head(batch)["scores"].sum()
        print(loss)


class UpsampledScoreHead(nn.Cell):
    """Written for MindSpore 2.5 and PyTorch habits: calls that newer versions refuse or read otherwise."""

    def __init__(self, channels=8):
        super().__init__()
        self.proj = nn.Dense(channels, channels)
        # deprecated since MindSpore 1.2 (ops.matmul): still runs, with a warning (MS612, off by default)
        self.matmul = nn.MatMul()

    def construct(self, x):
        scores = self.matmul(self.proj(x), x.swapaxes(-2, -1))
        # numpy's repeat: MindSpore 2.7 and later tile instead and refuse axis= (use repeat_interleave)
        scores = scores.repeat(2, axis=0)
        # PyTorch's keyword: ops.softmax takes axis (TypeError when it runs)
        return ops.softmax(scores, dim=-1)


class RunningLossHead(nn.Cell):
    """Sums its losses from a zero it keeps."""

    def __init__(self, channels=8):
        super().__init__()
        self.proj = nn.Dense(channels, 1)
        self.zero = Tensor(0.0, mstype.float32)

    def construct(self, x):
        total = self.zero
        # from MindSpore 2.8 graph code writes `+=` into self.zero: the sum carries over to the next call
        total += self.proj(x).mean()
        return total


class PromptHead(nn.Cell):
    def __init__(self, channels=8, classes=4):
        super().__init__()
        self.embed = nn.Dense(channels, channels)
        # PyTorch's nn.Linear keeps `out_features`; MindSpore's nn.Dense calls it `out_channels`: AttributeError
        self.proj = nn.Dense(self.embed.out_features, classes)

    def construct(self, x=None, embeddings=None):
        # `^` of two Python bools: graph mode's BitXor takes integers only (TypeError); write `!=`
        if (x is None) ^ (embeddings is not None):
            raise ValueError("give exactly one of x and embeddings")
        if embeddings is None:
            embeddings = self.embed(x)
        return self.proj(embeddings)


def init_heads(cell):
    """Applied to a head with `head.apply(init_heads)`."""
    if isinstance(cell, nn.Dense):
        # PyTorch's `nn.init` ported as a call of the Parameter: TypeError ('Parameter' object is not callable);
        # write cell.weight.set_data(initializer(HeUniform(), cell.weight.shape, cell.weight.dtype))
        cell.weight("he_uniform", cell.weight.shape)
