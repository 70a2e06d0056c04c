"""A small text classifier, written the way PyTorch users often first write MindSpore.

Its Cells, each built by the experiments that need it: ``decoder.Decoder``, ``heads.GatedActivation``,
``MultiTaskHead``, ``NormalizedHead``, ``Pooler``, ``blocks.ScoreLogger``, ``tokens.TokenScaler`` and ``TokenStats``."""
