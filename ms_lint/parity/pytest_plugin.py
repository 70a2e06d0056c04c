"""pytest plugin: the ``ms_parity`` fixture, for checking a port inside a project's own tests.

    def test_port_matches_reference(ms_parity):
        report = ms_parity(MyCell(), MyTorchModule(), np.ones((2, 3, 8, 8), np.float32), atol=1e-5, rtol=1e-4)

The fixture copies the PyTorch weights into the Cell, runs both in eval mode and fails the test with the same
report as ``ms-lint parity`` when the outputs differ. It returns the report when they match. Loading the plugin
imports neither MindSpore nor PyTorch.
"""
from __future__ import annotations

import pytest


@pytest.fixture
def ms_parity():
    """Return ``check(cell, module, inputs, atol=None, rtol=None, **options) -> ParityReport``.

    ``options``: ``weight_map`` ({"ms_param_name": "torch_key"}), ``transfer_weights`` (default True),
    ``train`` (default False), ``seed``. The test fails with the parity report on a mismatch.
    """

    def check(cell, module, inputs, atol: float | None = None, rtol: float | None = None, **options):
        from ms_lint.parity import ParityUsageError, check_parity

        try:
            report = check_parity(cell, module, inputs, atol=atol, rtol=rtol, **options)
        except ParityUsageError as exc:
            pytest.fail(f"ms_parity: {exc}", pytrace=False)
        if not report.passed:
            pytest.fail(report.render_text(), pytrace=False)
        return report

    return check
