"""The segmenter's Cells, each built by the experiments that need it (``EXPERIMENTS``, by name)."""

EXPERIMENTS = ("heads.ClassifierHead", "heads.MaskHead", "heads.PromptHead", "heads.RunningLossHead",
               "heads.UpsampledScoreHead",
               "layers.Attention", "layers.PortedBlock", "layers.RoundSTE", "layers.ScaleBank",
               "layers.TorchStyleHead", "model.EmaHead", "patches.PatchEmbedding")
