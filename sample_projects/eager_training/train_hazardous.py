"""Trains a small regressor in PyNative mode and logs the loss and the first layer's gradient norm.

Two eager-mode hazards hide here (see train_fixed.py):
- RobustScale builds its output from ``x.asnumpy()``: no gradient flows back through it, so ``embed`` never
  learns (its gradient norm prints as 0);
- the loop calls ``loss_net`` for logging and then differentiates it on the same batch without ``set_grad()``:
  every step runs the forward twice.

Run: python train_hazardous.py
"""
import mindspore as ms
import numpy as np
from mindspore import Tensor, nn, ops

ms.set_context(mode=ms.PYNATIVE_MODE)
ms.set_seed(7)


class RobustScale(nn.Cell):
    """Divides each feature by its 95th-percentile magnitude over the batch (a NumPy preprocessing step, moved
    into the model)."""

    def construct(self, x):
        values = x.asnumpy()
        scale = np.percentile(np.abs(values), 95, axis=0) + 1e-6
        return Tensor(values / scale, ms.float32)


class Regressor(nn.Cell):
    def __init__(self, features=8, hidden=16):
        super().__init__()
        self.embed = nn.Dense(features, hidden)
        self.scale = RobustScale()
        self.head = nn.SequentialCell(nn.ReLU(), nn.Dense(hidden, 1))

    def construct(self, x):
        return self.head(self.scale(self.embed(x)))


def make_data(samples=256, features=8):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(samples, features)).astype(np.float32)
    w = rng.normal(size=(features, 1)).astype(np.float32)
    y = x @ w + 0.1 * rng.normal(size=(samples, 1))
    return x, y.astype(np.float32)


def train(epochs=3, batch=32):
    features, targets = make_data()
    net = Regressor()
    loss_net = nn.WithLossCell(net, nn.MSELoss())
    optimizer = nn.Adam(net.trainable_params(), learning_rate=1e-2)
    grad_fn = ms.value_and_grad(loss_net, None, optimizer.parameters)
    for epoch in range(epochs):
        for start in range(0, len(features), batch):
            x = Tensor(features[start:start + batch])
            y = Tensor(targets[start:start + batch])
            before = loss_net(x, y)
            loss, grads = grad_fn(x, y)
            optimizer(grads)
        print(f"epoch {epoch}: loss before the step {float(before.asnumpy()):.4f}, "
              f"embed.weight gradient norm {float(ops.norm(grads[0]).asnumpy()):.6f}")


if __name__ == "__main__":
    train()
