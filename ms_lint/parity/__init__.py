"""Check a migrated MindSpore Cell against its PyTorch reference, layer by layer.

``ms-lint parity MS_TARGET TORCH_TARGET`` and the ``ms_parity`` pytest fixture both end here: the PyTorch
weights are copied into the Cell (by name, MindSpore's renames, then order and shape), both models run on the
same seeded input, and when the outputs differ the first diverging layer is named with a likely cause.

Importing this package is cheap: MindSpore and PyTorch are imported only when a check runs.
"""
from __future__ import annotations

from ms_lint.parity.report import ParityReport, ParityUsageError

__all__ = ["ParityReport", "ParityUsageError", "check_parity"]


def check_parity(cell, module, inputs, *, atol: float | None = None, rtol: float | None = None,
                 weight_map: dict | None = None, transfer_weights: bool = True, train: bool = False,
                 seed: int = 0) -> ParityReport:
    """Compare ``cell`` (a ``mindspore.nn.Cell``) with ``module`` (a ``torch.nn.Module``, the reference).

    ``inputs``: one tensor or array, or a list/tuple of them (MindSpore, PyTorch or numpy), given to both.
    ``weight_map``: ``{"ms_param_name": "torch_key"}`` pairs that override the automatic mapping (``None`` as a
    value leaves that parameter out). ``atol``/``rtol`` default by the reference output's dtype
    (float32: 1e-5 / 1e-4). Both models run in eval mode unless ``train`` is true.
    """
    from ms_lint.parity.runner import as_arrays, compare_models

    return compare_models(cell, module, as_arrays(inputs, "inputs"), atol=atol, rtol=rtol, weight_map=weight_map,
                          transfer_weights=transfer_weights, train=train, seed=seed)
