"""An output type built from tensors (MS103) behind another finding's stop: the worker builds that type from a
tensor in a Cell of its own, under STRICT. A failure of MS103's kind shows the pattern fails; it decides the finding
"confirmed by probe" only where the unit was built and its graph reaches the line, saying that the compile stopped
before it; elsewhere it is a note. Real compiles."""
from __future__ import annotations

import pytest

from ms_lint.engine import check_file
from ms_lint.settings import Settings
from ms_lint.validate.runner import ValidateOptions, validate_findings
from ms_lint.validate.verdicts import CONFIRMED, CONFIRMED_BY_PROBE, INCONCLUSIVE

from .conftest import needs_mindspore


@pytest.fixture(scope="module")
def verdicts(projects, worker_pool):
    path = projects / "cells" / "vcells" / "outputs.py"
    findings = [f for f in check_file(str(path), Settings(syntax_level="strict")) if f.code == "MS103"]
    report = validate_findings(findings, ValidateOptions(use_cache=False), pool=worker_pool)
    return {v.finding.scope: v for v in report.verdicts}


@pytest.mark.mindspore
@needs_mindspore
def test_the_type_built_alone_decides_an_output_the_compile_never_reached(verdicts):
    inner, outer = verdicts["Encoder"], verdicts["Model"]
    assert inner.verdict == CONFIRMED, inner.message
    assert outer.verdict == CONFIRMED_BY_PROBE, outer.message
    assert outer.message.startswith(f"line {outer.finding.line} is in the graph of Model.construct built as "
                                    f"Model() (no arguments)"), outer.message
    assert ("EncoderOutput(last_hidden_state=x, hidden_states=x) in a Cell that does nothing else fails to compile "
            "under STRICT (ValueError: ") in outer.message
    assert f"at line {inner.finding.line}" in outer.message


@pytest.mark.mindspore
@needs_mindspore
def test_the_type_built_alone_does_not_decide_an_output_of_a_cell_that_cannot_be_built(verdicts):
    unbuilt = verdicts["NeedsCheckpoint"]
    assert unbuilt.verdict == INCONCLUSIVE, unbuilt.message
    assert "a checkpoint is required" in unbuilt.message
    assert any(note.startswith("the pattern fails in isolation: EncoderOutput(last_hidden_state=x) in a Cell that "
                               "does nothing else fails to compile under STRICT") for note in unbuilt.notes)
