"""``ms-lint validate`` settles MS124 by calling the Cell twice on the same input in GRAPH_MODE, then in PyNative: a
tensor written in place makes the graph's calls differ where PyNative's agree (or the graph's first call differ
from PyNative's, or raise where the result cannot be written)."""
from __future__ import annotations

import json

import pytest

from ms_lint import mindspore_api as api
from ms_lint.cli import main
from ms_lint.findings import Finding
from ms_lint.rules.ms124_augmented_assignment_writes_in_place import IN_PLACE_FROM
from ms_lint.target import installed_mindspore
from ms_lint.validate import verdicts
from ms_lint.validate.outcome import Outcome
from ms_lint.validate.planning import plan_jobs
from ms_lint.validate.verdicts import CONFIRMED_BY_PROBE, INCONCLUSIVE, NOT_REPRODUCED

from .conftest import needs_mindspore, reported_data


@pytest.mark.mindspore
@needs_mindspore
def test_the_installed_mindspore_decides_what_two_calls_show(projects, capsys, monkeypatch):
    monkeypatch.chdir(projects / "in_place")
    capsys.readouterr()
    main(["validate", ".", "--format", "json", "--no-cache"])
    findings = json.loads(capsys.readouterr().out)["findings"]
    # the project pins 2.10.0 for the static check: what the installed MindSpore does settles each finding
    assert [(finding["code"], finding["line"]) for finding in findings] == [("MS124", 12), ("MS124", 18)]
    if api.at_least(installed_mindspore(), IN_PLACE_FROM):
        assert [finding["verdict"] for finding in findings] == ["confirmed by probe"] * 2, findings
        assert "different outputs in GRAPH_MODE and the same in PyNative" in findings[0]["explanation"]
    else:
        assert [finding["verdict"] for finding in findings] == ["not reproduced"] * 2, findings
        assert "return the same output, PyNative's" in findings[0]["explanation"]


@pytest.mark.parametrize("probe, verdict", [
    ({"graph_repeats": False, "pynative_repeats": True, "first_calls_agree": True}, CONFIRMED_BY_PROBE),
    ({"graph_repeats": True, "pynative_repeats": True, "first_calls_agree": False}, CONFIRMED_BY_PROBE),
    ({"graph_repeats": True, "pynative_repeats": True, "first_calls_agree": True}, NOT_REPRODUCED),
    ({"graph_repeats": True, "pynative_repeats": True}, NOT_REPRODUCED),  # a worker without the third key
    ({"graph_repeats": False, "pynative_repeats": False, "first_calls_agree": False}, INCONCLUSIVE),
    ({"error": "RuntimeError: For 'Assign', the 'x' and 'y' must have the same shape, but got ..."},
     CONFIRMED_BY_PROBE),
    ({"error": "ValueError: boom"}, INCONCLUSIVE),
    ({"skipped": "it needs an example with concrete inputs"}, INCONCLUSIVE),
])
def test_the_two_calls_decide_the_finding(projects, probe, verdict):
    model = projects / "in_place" / "pkg" / "model.py"
    data = reported_data(model, "MS124", 12) or {"holds": "attribute"}
    job = plan_jobs([Finding(str(model), 12, 8, "MS124", "m", "Accumulator", data=data)]).jobs[0]
    assert job.probes == ["randomness"]
    outcome = {"status": "ok", "compiled": True, "kind": "cell", "probes": {"randomness": probe},
               "signature": {"init": [], "call": ["x"]}}
    result, = verdicts.decide(job, Outcome.from_dict(outcome), "CPU", "strict")
    assert result.verdict == verdict, result.message
