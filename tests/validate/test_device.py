"""The device the validator compiles for: selected as MindSpore selects it; GPU tests skip without a GPU."""
from __future__ import annotations

import subprocess
import sys

import pytest

from ms_lint.validate.runner import ValidateError, ValidateOptions, validate_findings
from ms_lint.validate.verdicts import CONFIRMED

from .conftest import HAS_MINDSPORE, finding_at


@pytest.mark.parametrize("given, expected", [("cpu", "CPU"), ("GPU", "GPU"), (" ascend ", "Ascend")])
def test_device_names_are_normalised_as_mindspore_spells_them(given, expected):
    assert ValidateOptions(device=given).normalized().device == expected


def test_an_unknown_device_is_refused():
    with pytest.raises(ValidateError, match="unknown device 'TPU'"):
        ValidateOptions(device="TPU").normalized()


def _gpu_available() -> bool:
    if not HAS_MINDSPORE:
        return False
    code = ("from mindspore._c_expression import MSContext; import sys; "
            "sys.exit(0 if MSContext.get_instance().is_pkg_support_device('GPU') else 1)")
    try:
        return subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@pytest.fixture(scope="module")
def gpu():
    if not _gpu_available():
        pytest.skip("no GPU, or this MindSpore is not built for one")


@pytest.mark.gpu
@pytest.mark.mindspore
def test_a_compile_on_the_gpu_confirms_like_on_the_cpu(gpu, projects):
    models = projects / "cells" / "vcells" / "models.py"
    finding = finding_at(models, "np.sin(x)", "MS101", "HostSine")
    report = validate_findings([finding], ValidateOptions(device="GPU", use_cache=False, jobs=1))
    verdict, = report.verdicts
    assert (verdict.verdict, verdict.device) == (CONFIRMED, "GPU")
