"""``ms-lint validate`` gives the graph-code rules for tensor habits a compile verdict, and the host-side rules
(a dict output indexed by key, state written after the first call) a probe verdict on the Cell they concern."""
from __future__ import annotations

import json
from collections import defaultdict

import pytest

from ms_lint.cli import main

from .conftest import needs_mindspore


def _validate(project, capsys, monkeypatch, *extra: str) -> dict:
    monkeypatch.chdir(project)
    capsys.readouterr()
    status = main(["validate", ".", "--format", "json", "--no-cache", *extra])
    assert status == 1
    document = json.loads(capsys.readouterr().out)
    verdicts = defaultdict(list)
    for item in document["findings"]:
        verdicts[item["code"]].append((item["verdict"], item["explanation"]))
    return verdicts


@pytest.mark.mindspore
@needs_mindspore
def test_each_new_code_gets_its_verdict(projects, capsys, monkeypatch):
    verdicts = _validate(projects / "tensor_habits", capsys, monkeypatch, "--syntax-level", "strict")
    # MS117 owns the key read of the dict output in the Cell's own module: no MS122 on its return
    assert sorted(verdicts) == ["MS114", "MS115", "MS117", "MS118", "MS601", "MS602"]
    for code in ("MS114", "MS115", "MS601", "MS602"):
        assert [verdict for verdict, _ in verdicts[code]] == ["confirmed"], (code, verdicts[code])
    assert "should be constant" in verdicts["MS114"][0][1]
    assert "number of axes" in verdicts["MS601"][0][1]
    assert "detach" in verdicts["MS602"][0][1]
    ((verdict, explanation),) = verdicts["MS117"]
    assert verdict == "confirmed by probe"
    assert "returns a dict ('logits') in PyNative and a tuple in GRAPH_MODE" in explanation
    # A global (SHIFT), an attribute written in a loop, and a setter called in a loop.
    assert [verdict for verdict, _ in verdicts["MS118"]] == ["confirmed by probe"] * 3
    changed = [explanation.split(" between")[0] for _, explanation in verdicts["MS118"]]
    assert changed == ["changing SHIFT", "changing scale", "changing scale"]


@pytest.mark.mindspore
@needs_mindspore
def test_probes_need_an_example_with_concrete_inputs(projects, capsys, monkeypatch, tmp_path):
    project = tmp_path / "no_examples"
    project.mkdir()
    (project / "nets.py").write_text((projects / "tensor_habits" / "nets.py").read_text())
    verdicts = _validate(project, capsys, monkeypatch, "--syntax-level", "strict")
    assert verdicts["MS117"] and verdicts["MS118"]
    for code in ("MS117", "MS118"):
        for verdict, explanation in verdicts[code]:
            assert verdict == "inconclusive"
            assert "needs an example with concrete inputs" in explanation


@pytest.mark.mindspore
@needs_mindspore
def test_a_missing_mindspore_name_and_a_misnamed_instance_are_confirmed(projects, worker_pool):
    from ms_lint.engine import check_file
    from ms_lint.rules import RULES_BY_CODE
    from ms_lint.settings import Settings

    from .conftest import verdicts_by_scope

    path = projects / "cells" / "vcells" / "missing_api.py"
    # each line of a cause (one missing name in several Cells is one cause for the report): judged line by line
    findings = check_file(str(path), Settings(syntax_level="strict", each_line=True), RULES_BY_CODE)
    assert sorted((f.scope, f.code) for f in findings) == [
        ("FloorSTE", "MS119"), ("NormedThenHost", "MS102"), ("NormedThenHost", "MS607"),
        ("NormedTrainingHost", "MS102"), ("NormedTrainingHost", "MS607"), ("ResizedThenHost", "MS102"),
        ("ResizedThenHost", "MS607"), ("ScaledSTE", "MS119"),
        ("ScaledThenHost", "MS102"), ("ScaledThenHost", "MS119"), ("Softmaxed", "MS607"),
        ("SoftmaxedThenHost", "MS102"), ("SoftmaxedThenHost", "MS607"), ("WeightNormed", "MS607"),
        ("WeightNormed", "MS607")]
    by_line = verdicts_by_scope(findings, worker_pool, with_line=True)
    verdicts = {key[:2]: verdict for key, verdict in by_line.items()}
    lines = path.read_text().splitlines()
    host = by_line[("WeightNormed", "MS607", lines.index("        nn.utils.weight_norm(self.proj)") + 1)]
    called = by_line[("WeightNormed", "MS607", lines.index("        nn.utils.spectral_norm(self.proj, name)") + 1)]
    graph = verdicts[("Softmaxed", "MS607")]
    assert graph.verdict == "confirmed" and "functional" in graph.message, graph.message
    # Calling the host method runs the line, which tells more than looking the name up.
    assert host.verdict == "confirmed by probe", host.message
    assert host.message.startswith("apply_weight_norm(), called in PyNative on a WeightNormed built for it, raised "
                                   "at this line: AttributeError: module 'mindspore.nn.utils' has no attribute "
                                   "'weight_norm'"), host.message
    # A method that needs an argument is not called: the name is looked up.
    assert called.verdict == "confirmed by probe", called.message
    assert called.message.startswith("the installed MindSpore has no mindspore.nn.utils.spectral_norm: looked up")
    assert "apply_spectral_norm() is not called from construct" in called.message
    # The instance is not an input, whatever its name: compiled with one input, as it is called, it fails.
    floor = verdicts[("FloorSTE", "MS119")]
    assert floor.verdict == "confirmed" and "parameters number of the function is 2" in floor.message, floor.message
    scaled = verdicts[("ScaledSTE", "MS119")]
    assert scaled.verdict == "confirmed" and "Miss argument input for parameter" in scaled.message, scaled.message
    # Behind it, once the instance is named self in memory, the compile reaches the host copy.
    host_copy = verdicts[("ScaledThenHost", "MS102")]
    assert host_copy.verdict == "confirmed", host_copy.message
    assert host_copy.message.startswith("decided after applying the fix for MS119 at line"), host_copy.message
    # Behind a missing name, in the constructor or in construct: a function returning its first argument stands in.
    for owner in ("NormedThenHost", "SoftmaxedThenHost"):
        missing, behind = verdicts[(owner, "MS607")], verdicts[(owner, "MS102")]
        assert missing.verdict == "confirmed" and "no attribute" in missing.message, missing.message
        assert behind.verdict == "confirmed", behind.message
        assert behind.message.startswith(f"decided with a function returning its first argument in place of the name "
                                         f"MindSpore lacks at line {missing.finding.line} (MS607): "), behind.message
    # Behind a missing layer built with no argument: a Cell returning its first input stands in, called from
    # construct with the layer's arguments.
    missing, behind = verdicts[("ResizedThenHost", "MS607")], verdicts[("ResizedThenHost", "MS102")]
    assert missing.verdict == "confirmed" and "ResizeBilinear" in missing.message, missing.message
    assert behind.verdict == "confirmed", behind.message
    assert behind.message.startswith(f"decided with a Cell returning its first input in place of the name MindSpore "
                                     f"lacks at line {missing.finding.line} (MS607): "), behind.message
    # Behind it and under ``if self.training:``: the train-mode retry starts from the same failing build.
    missing, behind = verdicts[("NormedTrainingHost", "MS607")], verdicts[("NormedTrainingHost", "MS102")]
    assert behind.verdict == "confirmed", behind.message
    assert behind.message.startswith(f"with set_train(True): decided with a function returning its first argument in "
                                     f"place of the name MindSpore lacks at line {missing.finding.line} (MS607): "
                                     f"AttributeError"), behind.message


def test_an_error_naming_the_graph_of_the_method_a_def_line_finding_sits_on_is_that_finding_s(tmp_path):
    from ms_lint.findings import Finding
    from ms_lint.validate.verdicts.compiles import _graph_of_definition

    path = tmp_path / "ste.py"
    path.write_text("class FloorSTE:\n    def construct(ctx, x):\n        return x\n")
    finding = Finding(str(path), 2, 4, "MS119", "m", "FloorSTE")
    # MindSpore 2.10 may print an earlier compile's traceback with it: the graph's name is what tells.
    message = "The parameters number of the function is 2, ...\nFunctionGraph : pkg_ste_FloorSTE_construct_20\n"
    assert _graph_of_definition(finding, message) == "the graph of FloorSTE.construct"
    assert _graph_of_definition(finding, message.replace("FloorSTE_construct", "Other_construct")) is None
    assert _graph_of_definition(Finding(str(path), 3, 8, "MS119", "m", "FloorSTE"), message) is None  # not a def
    # Without a location or a graph: the input it misses is construct's, not that of a method beside it.
    missing = "Miss argument input for parameter:x"
    assert _graph_of_definition(finding, missing) == "`x`, an input of FloorSTE.construct"
    assert _graph_of_definition(finding, missing.replace(":x", ":scale")) is None
    backward = tmp_path / "backward.py"
    backward.write_text("class FloorSTE:\n    def bprop(ctx, x, out, dout):\n        return dout\n")
    assert _graph_of_definition(Finding(str(backward), 2, 4, "MS119", "m", "FloorSTE"), missing) is None


@pytest.mark.mindspore
@needs_mindspore
def test_an_error_at_another_finding_s_line_of_its_kind_is_that_finding_s(projects, worker_pool):
    from ms_lint.engine import check_file
    from ms_lint.rules import RULES_BY_CODE
    from ms_lint.settings import Settings

    from .conftest import verdicts_by_scope

    path = projects / "cells" / "vcells" / "attributed.py"
    findings = check_file(str(path), Settings(syntax_level="strict"), RULES_BY_CODE)
    assert sorted(f.code for f in findings) == ["MS103", "MS108"]
    verdicts = verdicts_by_scope(findings, worker_pool)
    write, output = verdicts[("Cached", "MS108")], verdicts[("Cached", "MS103")]
    assert write.verdict == "confirmed", write.message
    # The write's error does not confirm the output type; building the type alone does, since the Cell's graph
    # reaches the line, and says the compile stopped before it.
    assert output.verdict == "confirmed by probe", output.message
    assert output.message.startswith(f"line {output.finding.line} is in the graph of Cached.construct built as "
                                     f"Cached() (no arguments)"), output.message
    assert output.message.endswith(f"the compile of Cached stopped before the line: compilation stopped earlier, at "
                                   f"line {write.finding.line} (MS108), before reaching this line")
