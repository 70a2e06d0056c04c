"""A patch embedding ported from a PyTorch ViT, with PyTorch's argument habits that MindSpore's layers read
otherwise."""
from mindspore import Parameter, nn, ops


class PatchEmbedding(nn.Cell):
    def __init__(self, channels=3, dim=32, patch=4):
        super().__init__()
        # PyTorch's positional padding: MindSpore's Conv2d takes pad_mode fifth (pass pad_mode="pad", padding=0)
        self.proj = nn.Conv2d(channels, dim, patch, patch, 0)
        # PyTorch's eps=: MindSpore's LayerNorm calls it epsilon=
        self.norm = nn.LayerNorm((dim,), eps=1e-6)
        # PyTorch's separate sizes: MindSpore's ops.zeros takes one shape and reads the second as the dtype
        self.class_token = Parameter(ops.zeros(1, 1, dim))

    def construct(self, images):
        patches = self.proj(images)
        patches = patches.reshape(patches.shape[0], patches.shape[1], -1).swapaxes(1, 2)
        # Python 2's division: `/` of two ints is a float, and a shape needs ints (use //)
        halves = patches.reshape(patches.shape[0], patches.shape[1] / 2, 2, -1)
        # PyTorch's expand with sizes: graph mode takes only a Tensor of sizes (use broadcast_to)
        tokens = self.class_token.expand((patches.shape[0], 1, -1))
        # PyTorch's size(0): MindSpore's Tensor.size is the number of elements (use shape[0])
        count = patches.size(1) + 1
        return self.norm(ops.cat([tokens, patches], axis=1)) / count + halves.sum()
