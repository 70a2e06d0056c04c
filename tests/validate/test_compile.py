"""Real compiles with the real MindSpore on CPU: each kind of verdict, the probes, jit functions, the cache."""
from __future__ import annotations

import json

import pytest

from ms_lint.validate.runner import ValidateOptions, validate_findings
from ms_lint.validate.verdicts import (
    CONFIRMED,
    CONFIRMED_BY_PROBE,
    INCONCLUSIVE,
    NOT_REACHED,
    NOT_REPRODUCED,
)

from .conftest import finding_at, needs_mindspore, only

pytestmark = [pytest.mark.mindspore, needs_mindspore]


@pytest.fixture(scope="module")
def models(projects):
    return projects / "cells" / "vcells" / "models.py"


def validate(findings, worker_pool, **options):
    options.setdefault("use_cache", False)
    return validate_findings(findings, ValidateOptions(**options), pool=worker_pool)


def test_verdicts_of_a_mixed_module(models, worker_pool, tmp_path):
    findings = [
        finding_at(models, "np.sin(x)", "MS101", "HostSine"),
        # Made-up findings the validator is to refute: a constant, Cells without parameters, host code.
        finding_at(models, "np.sqrt(self.dim)", "MS101", "Projection", reported=False),
        finding_at(models, "np.exp(", "MS101", "Sized"),
        finding_at(models, "self.layers = [", "MS201", "TwoDense"),
        finding_at(models, "self.stages = [", "MS201", "DenseAndNorm"),
        finding_at(models, "self.acts = [", "MS201", "Activations", reported=False),
        finding_at(models, "np.random.rand()", "MS104", "Noise"),
        finding_at(models, "np.cos(x)", "MS101", "strict_step"),
        finding_at(models, "return ops.relu(x)", "MS101", "plain_function", reported=False),
    ]
    report = validate(findings, worker_pool, results_path=str(tmp_path / "run.jsonl"))
    by_scope = {verdict.finding.scope: verdict for verdict in report.verdicts}

    host = by_scope["HostSine"]
    assert host.verdict == CONFIRMED
    assert host.compiler_message.startswith("ValueError: ") and "should be constant" in host.compiler_message
    assert host.compiler_location == f"{models}:{host.finding.line}"

    # np.sqrt on a constant compiles: the static suspicion is not reproduced.
    projection = by_scope["Projection"]
    assert (projection.verdict, projection.message) == (
        NOT_REPRODUCED, f"compiles under STRICT on CPU with line {projection.finding.line} in the graph")

    sized = by_scope["Sized"]
    assert sized.verdict == INCONCLUSIVE
    assert sized.message == "Sized() needs spec: no example is registered for vcells.models:Sized"
    assert "cell = Sized(spec=...)" in sized.example and "return cell, (x, mask,)" in sized.example

    two_dense = by_scope["TwoDense"]
    assert two_dense.verdict == CONFIRMED and "already exists" in two_dense.message

    dense_and_norm = by_scope["DenseAndNorm"]
    assert dense_and_norm.verdict == CONFIRMED_BY_PROBE
    assert "misses 4 parameter(s) held in the plain list self.stages" in dense_and_norm.message
    assert "stages[0].weight" in dense_and_norm.message and "stages[1].gamma" in dense_and_norm.message

    activations = by_scope["Activations"]
    assert activations.verdict == NOT_REPRODUCED and "without parameters" in activations.message

    noise = by_scope["Noise"]
    assert noise.verdict == CONFIRMED_BY_PROBE
    assert "identical outputs in GRAPH_MODE and different ones in PyNative" in noise.message

    strict_step = by_scope["strict_step"]
    assert (strict_step.verdict, strict_step.level) == (CONFIRMED, "strict")

    # A plain function no Cell or jit function calls: nothing compiles it, and nothing is run for it.
    plain = by_scope["plain_function"]
    assert plain.verdict == NOT_REACHED
    assert plain.message.startswith("not reached: no graph code in the project calls plain_function")

    units = {unit.target: unit for unit in report.units}
    assert units["vcells.models:Projection"].inputs == ["Tensor(shape=[-1, 8], dtype=Float32)"]
    assert units["vcells.models:HostSine"].inputs == ["Tensor(shape=[-2], dtype=Float32)"]
    assert units["vcells.models:Noise"].instance == "example"

    records = [json.loads(line) for line in (tmp_path / "run.jsonl").read_text().splitlines()]
    assert records[0]["event"] == "start" and len(records[0]["units"]) == 8
    assert sum(record["event"] == "unit" for record in records) == 8
    assert records[-1] == {"event": "end", "interrupted": False, "not_checked": []}


def test_lax_compiles_what_only_strict_rejects(models, worker_pool):
    report = validate([finding_at(models, "np.sin(x)", "MS101", "HostSine")], worker_pool, syntax_level="lax")
    verdict = only(report.verdicts)
    assert (verdict.verdict, verdict.level) == (NOT_REPRODUCED, "lax")
    assert verdict.message.startswith("compiles under LAX on CPU")


def test_a_rerun_with_nothing_changed_comes_from_the_cache(projects, worker_pool):
    models = projects / "cells" / "vcells" / "models.py"
    findings = [finding_at(models, "np.sin(x)", "MS101", "HostSine"),
                finding_at(models, "self.stages = [", "MS201", "DenseAndNorm")]
    # A run that does not read the cache still refreshes it.
    first = validate(findings, worker_pool, use_cache=False)
    second = validate(findings, worker_pool, use_cache=True)
    assert [unit.cached for unit in first.units] == [False, False]
    assert [unit.cached for unit in second.units] == [True, True]
    assert [(v.verdict, v.message) for v in second.verdicts] == [(v.verdict, v.message) for v in first.verdicts]
    assert all(v.cached for v in second.verdicts)
    assert (projects / "cells" / ".ms_lint_cache" / ".gitignore").read_text().endswith("*\n")

    # A change in a project module that models.py imports is a change of the unit.
    helpers = projects / "cells" / "vcells" / "helpers.py"
    helpers.write_text(helpers.read_text() + "\n# changed\n")
    third = validate(findings, worker_pool, use_cache=True)
    assert [unit.cached for unit in third.units] == [False, False]


def test_an_examples_file_that_raises_is_reported(tmp_path, worker_pool, projects):
    examples = tmp_path / "broken_examples.py"
    examples.write_text("import ms_lint\nraise RuntimeError('no dataset here')\n")
    models = projects / "cells" / "vcells" / "models.py"
    report = validate([finding_at(models, "np.sin(x)", "MS101", "HostSine")], worker_pool,
                      examples=str(examples))
    verdict = only(report.verdicts)
    assert verdict.verdict == INCONCLUSIVE
    assert "the examples file" in verdict.message and "RuntimeError: no dataset here" in verdict.message


def test_a_cell_whose_base_lies_in_a_namespace_package_is_compiled(tmp_path, worker_pool):
    # PEP 420: models/ has no __init__.py; net.py imports models.base from the project's root, as Python does when
    # the program runs from there.
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'proj'\n")
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "base.py").write_text(
        "from mindspore import nn\n\n\nclass Base(nn.Cell):\n    def __init__(self):\n        super().__init__()\n")
    net = tmp_path / "models" / "net.py"
    net.write_text("import numpy as np\n\nfrom models.base import Base\n\n\nclass Net(Base):\n"
                   "    def construct(self, x):\n        return np.sin(x)\n")
    verdict = only(validate([finding_at(net, "np.sin(x)", "MS101", "Net")], worker_pool).verdicts)
    assert verdict.verdict == CONFIRMED, verdict.message
    assert "should be constant" in verdict.compiler_message
