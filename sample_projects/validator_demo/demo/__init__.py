"""A small text classifier, written the way PyTorch users often first write MindSpore. Its Cells are each built by
the experiments that need it (``EXPERIMENTS``, by name)."""

EXPERIMENTS = ("augment.EmbeddingNoise", "decoder.Decoder", "heads.GatedActivation", "heads.MultiTaskHead",
               "heads.NormalizedHead", "heads.Pooler", "blocks.ScoreLogger", "tokens.TokenScaler", "tokens.TokenStats")
