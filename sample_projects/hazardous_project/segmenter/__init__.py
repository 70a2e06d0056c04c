"""The segmenter's Cells, each built by the experiments that need it: the heads (``heads.ClassifierHead``,
``MaskHead``, ``RunningLossHead``, ``UpsampledScoreHead``), the layers (``layers.Attention``, ``PortedBlock``,
``RoundSTE``, ``ScaleBank``, ``TorchStyleHead``), ``model.EmaHead`` and ``patches.PatchEmbedding``."""
