from pkg.model import Detector


def train_step(images):
    net = Detector()
    out = net(images)
    return out["logits"].sum()
