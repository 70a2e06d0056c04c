"""The PyTorch reference: a small convolutional classifier head on 120-channel feature maps."""
import torch
from torch import nn


class ConvHead(nn.Module):
    def __init__(self, num_classes: int = 10):
        super().__init__()
        self.conv1 = nn.Conv2d(120, 240, 4)
        self.bn1 = nn.BatchNorm2d(240)
        self.relu = nn.ReLU()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(240, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.relu(self.bn1(self.conv1(x)))
        x = torch.flatten(self.pool(x), 1)
        return self.fc(x)
