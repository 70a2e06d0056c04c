"""A small text classifier, written the way PyTorch users often first write MindSpore."""
