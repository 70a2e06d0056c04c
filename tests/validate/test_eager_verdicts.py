"""``ms-lint validate`` checks a finding in the mode it was judged in: a PyNative hazard of a PyNative Cell (MS112) by
running the Cell eagerly and taking the gradient of its output, a forward run again (MS113) by counting the forwards
of a Cell of ms-lint's own differentiated the same way, a graph-code finding of @jit code under a PyNative target by
compiling it, as jit does in either mode."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ms_lint.cli import main
from ms_lint.findings import Finding
from ms_lint.validate.expectations import judged_eagerly
from ms_lint.validate.planning import plan_jobs

from .conftest import REPOSITORY, finding_at, needs_mindspore

EAGER_TRAINING = REPOSITORY / "sample_projects" / "eager_training"


@pytest.fixture
def eager_training(tmp_path) -> Path:
    copy = tmp_path / "eager_training"
    shutil.copytree(EAGER_TRAINING, copy, ignore=shutil.ignore_patterns("__pycache__", ".ms_lint_cache"))
    return copy


def _validate(project, capsys, monkeypatch, *extra: str) -> str:
    monkeypatch.chdir(project)
    capsys.readouterr()
    main(["validate", ".", "--no-cache", *extra])
    return capsys.readouterr().out


def _json(project, capsys, monkeypatch, *extra: str) -> dict:
    return {(finding["code"], finding["line"]): finding for finding in json.loads(
        _validate(project, capsys, monkeypatch, "--format", "json", *extra))["findings"]}


def test_a_pynative_hazard_is_planned_to_run_eagerly_and_graph_code_of_jit_to_compile(projects):
    train = projects / "eager_jit" / "train.py"
    eager = finding_at(train, "x.asnumpy() * 2.0", "MS112", "Doubled")
    graph = finding_at(train, "return x.asnumpy() * 2", "MS102", "scaled")
    assert judged_eagerly(eager) and not judged_eagerly(graph)
    jobs = {job.qualname: job for job in plan_jobs([eager, graph]).jobs}
    assert (jobs["Doubled"].mode, jobs["scaled"].mode) == ("pynative", "graph")
    assert jobs["Doubled"].probes == ["gradient"] and jobs["Doubled"].request("lax")["mode"] == "pynative"


def test_a_differentiated_function_of_a_script_is_not_applicable(tmp_path):
    from ms_lint.engine import check_source
    from ms_lint.settings import Settings
    from ms_lint.validate.verdicts import module_level_verdict

    train = tmp_path / "train.py"
    train.write_text(
        "import mindspore as ms\n"
        "from mindspore import Tensor, nn\n\n"
        "ms.set_context(mode=ms.PYNATIVE_MODE)\n"
        "net = nn.Dense(3, 1)\n\n\n"
        "def forward_fn(x):\n"
        "    return Tensor(net(x).asnumpy() * 2).sum()\n\n\n"
        "grad_fn = ms.value_and_grad(forward_fn, None, net.trainable_params())\n"
    )
    (finding,) = check_source(train.read_text(), str(train), Settings())
    assert finding.code == "MS112"
    plan = plan_jobs([finding])
    assert (plan.jobs, plan.module_level) == ([], [finding])
    verdict = module_level_verdict(finding, "CPU", "lax")
    assert verdict.verdict == "not applicable"
    assert verdict.message.startswith("an eager-mode (PyNative) hazard of a function the script differentiates")


@pytest.mark.mindspore
@needs_mindspore
def test_the_hazardous_sample_is_confirmed_by_the_gradient_run_in_pynative(eager_training, capsys, monkeypatch):
    (eager_training / "train_fixed.py").unlink()
    found = _json(eager_training, capsys, monkeypatch)
    cut = found[("MS112", 24)]
    assert cut["verdict"] == "confirmed by probe", cut
    assert cut["mode"] == "pynative"
    assert cut["explanation"].startswith("run in PyNative, the gradient of its output's sum is zero with respect to x")
    assert cut["inputs"] == ["x: Tensor(shape=[4, 4], dtype=Float32), given data to run eagerly"]
    again = found[("MS113", 59)]
    assert (again["verdict"], again["mode"]) == ("confirmed by probe", "pynative"), again
    assert again["explanation"].endswith("a Cell of ms-lint's own called and then differentiated on the same input "
                                         "by value_and_grad without set_grad() ran its forward 1 more time(s) after "
                                         "the call")
    text = _validate(eager_training, capsys, monkeypatch)
    assert "train_hazardous.py:24: MS112 confirmed by probe (CPU, pynative): run in PyNative" in text
    assert "train_hazardous.py:59: MS113 confirmed by probe (CPU, pynative): on MindSpore " in text


@pytest.mark.mindspore
@needs_mindspore
def test_the_fixed_sample_lets_the_gradient_through(eager_training, worker_pool):
    from ms_lint.validate.runner import ValidateOptions, validate_findings

    fixed = eager_training / "train_fixed.py"
    finding = finding_at(fixed, "magnitudes, _ = ops.sort", "MS112", "RobustScale", reported=False)
    (verdict,) = validate_findings([finding], ValidateOptions(use_cache=False), pool=worker_pool).verdicts
    assert verdict.verdict == "not reproduced", verdict
    assert verdict.mode == "pynative"
    assert verdict.message.startswith("run in PyNative, a gradient of its output's sum flows back to x (")


@pytest.mark.mindspore
@needs_mindspore
def test_set_grad_saves_the_forward_for_value_and_grad_from_2_9_on(eager_training, worker_pool):
    """Measured: with set_grad(), value_and_grad runs the forward again on 2.7.1 (and 2.8), not on 2.9 and 2.10."""
    import mindspore

    from ms_lint.validate.runner import ValidateOptions, validate_findings

    train = eager_training / "train_hazardous.py"
    line = next(number for number, text in enumerate(train.read_text().splitlines(), start=1)
                if "grad_fn(x, y)" in text)
    finding = Finding(str(train), line, 12, "MS113", "m", "train", data={
        "name": "loss_net", "line": line - 1, "transform": "value_and_grad", "version": "2.8.0", "set_grad": True})
    (verdict,) = validate_findings([finding], ValidateOptions(use_cache=False), pool=worker_pool).verdicts
    saves = tuple(int(part) for part in mindspore.__version__.split(".")[:2]) >= (2, 9)
    assert verdict.verdict == ("not reproduced" if saves else "confirmed by probe"), verdict
    assert f"on MindSpore {mindspore.__version__} (installed)" in verdict.message
    assert "by value_and_grad after set_grad()" in verdict.message


@pytest.mark.mindspore
@needs_mindspore
def test_graph_code_of_jit_under_a_pynative_target_is_still_compiled(projects, capsys, monkeypatch):
    report = json.loads(_validate(projects / "eager_jit", capsys, monkeypatch, "--format", "json"))
    assert [target["mode"] for target in report["targets"]] == ["pynative"]
    found = {(finding["code"], finding["line"]): finding for finding in report["findings"]}
    compiled = found[("MS102", 10)]
    assert (compiled["verdict"], compiled["mode"], compiled["syntax_level"]) == ("confirmed", "graph", "strict")
    assert "cannot get attributes asnumpy" in compiled["explanation"]
    assert found[("MS112", 15)]["verdict"] == "confirmed by probe"


@pytest.mark.mindspore
@needs_mindspore
def test_a_cell_that_raises_when_run_eagerly_is_inconclusive(tmp_path, capsys, monkeypatch):
    (tmp_path / "train.py").write_text(
        "import mindspore as ms\n"
        "from mindspore import Tensor, nn\n\n"
        "ms.set_context(mode=ms.PYNATIVE_MODE)\n\n\n"
        "class Broken(nn.Cell):\n"
        "    def construct(self, x):\n"
        "        values = x.asnumpy()\n"
        "        return Tensor(values / undefined_scale)\n\n\n"
        "def main():\n"
        "    return Broken()\n\n\n"
        "if __name__ == \"__main__\":\n"
        "    main()\n"
    )
    (verdict,) = _json(tmp_path, capsys, monkeypatch).values()
    assert (verdict["code"], verdict["verdict"], verdict["mode"]) == ("MS112", "inconclusive", "pynative")
    assert verdict["explanation"].startswith("calling it in PyNative raised: NameError")
