"""Input shapes guessed without an example: through an activation to the layer after it, and a fixed rank for
an input of any rank when the compile fails for want of it."""
from __future__ import annotations

import pytest

from ms_lint.validate.runner import ValidateOptions, validate_findings
from ms_lint.validate.verdicts import CONFIRMED

from .conftest import finding_at, needs_mindspore

pytestmark = [pytest.mark.mindspore, needs_mindspore]


@pytest.fixture(scope="module")
def verdicts(projects, worker_pool):
    shapes = projects / "cells" / "vcells" / "shapes.py"
    findings = [
        finding_at(shapes, "np.sin(shift)", "MS101", "Modulated"),
        finding_at(shapes, "np.sin(y)", "MS101", "Flattened"),
        finding_at(shapes, "x.transpose(1, 2) * 2", "MS601", "Swapped"),
    ]
    report = validate_findings(findings, ValidateOptions(use_cache=False), pool=worker_pool)
    return {(verdict.finding.scope, verdict.finding.code): verdict for verdict in report.verdicts}


def test_an_input_given_to_a_layer_through_an_activation_takes_the_layer_s_shape(verdicts):
    modulated = verdicts["Modulated", "MS101"]
    assert modulated.verdict == CONFIRMED, modulated.message
    assert modulated.inputs == ["emb: [2, 8], as its first layer is Dense(8, ...)"]


def test_an_input_of_any_rank_gets_rank_3_when_the_compile_needs_its_rank(verdicts):
    flattened = verdicts["Flattened", "MS101"]
    assert flattened.verdict == CONFIRMED, flattened.message
    assert flattened.inputs == [
        "x: float32 of rank 3, any size (of any rank, the compile failed with dynamic rank)"]


def test_the_fixed_rank_reaches_the_hazard_the_any_rank_input_hid(verdicts):
    transpose = verdicts["Swapped", "MS601"]
    assert transpose.verdict == CONFIRMED, transpose.message
    assert "the number of axes must be equal" in transpose.message
    assert transpose.inputs == [
        "x: float32 of rank 3, any size (of any rank, the compile failed with dynamic rank)"]
