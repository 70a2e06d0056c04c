"""From a job's outcome to verdicts, on outcomes shaped as the worker reports them (no MindSpore)."""
from __future__ import annotations

import os
import textwrap

import pytest

from ms_lint.findings import Finding
from ms_lint.validate.locations import parse_locations
from ms_lint.validate.planning import plan_jobs
from ms_lint.validate import verdicts
from ms_lint.validate.outcome import Outcome
from ms_lint.validate.verdicts import (
    CONFIRMED,
    CONFIRMED_BY_PROBE,
    INCONCLUSIVE,
    NOT_APPLICABLE,
    NOT_REACHED,
    NOT_REPRODUCED,
    module_level_verdict,
)

from .conftest import built_finding


def decide(job, outcome: dict, device: str, level: str, **options):
    """``verdicts.decide`` on an outcome as the worker sends it (a dict, read as the pool reads it)."""
    return verdicts.decide(job, Outcome.from_dict(outcome), device, level, **options)


def confirm_across_units(found, results):
    verdicts.confirm_across_units(found, [(job, Outcome.from_dict(outcome)) for job, outcome in results])


@pytest.fixture
def module(tmp_path):
    path = tmp_path / "net.py"
    path.write_text(textwrap.dedent("""\
        import numpy as np
        from mindspore import nn

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.layers = [nn.Dense(2, 2), nn.Dense(2, 2)]

            def construct(self, x):
                y = np.sin(x)
                z = x.asnumpy()
                return y + z
    """))
    return path


def job_for(path, *findings):
    """The job of ``findings``, each ``(line, code)`` where ms-lint reports it, or ``(line, code, False)`` for one
    made up to give ``decide`` a finding of that code (``built_finding`` checks which)."""
    return plan_jobs([built_finding(path, line, 0, code, "Net", "m", reported=reported)
                      for line, code, reported in ((*finding, True)[:3] for finding in findings)]).jobs[0]


def compile_error(path, line, kind="ValueError", text="the inputs should be constant", stage="compile"):
    return {
        "status": "error", "stage": "probe", "instance": "default", "kind": "cell",
        "signature": {"init": [], "call": ["x"]},
        "error": {"stage": stage, "type": kind, "first_line": f"{kind}: {text}",
                  "message": f"{text}\n\n# 0 In file {path}:{line}, 8~20\n    code\n", "traceback": []},
    }


def test_a_compile_error_at_the_finding_line_confirms_it(module):
    job = job_for(module, (10, "MS101"))
    verdict, = decide(job, compile_error(module, 10), "CPU", "strict")
    assert verdict.verdict == CONFIRMED
    assert verdict.message == "ValueError: the inputs should be constant"
    assert verdict.compiler_location == f"{module}:10"


def test_an_error_elsewhere_in_the_file_leaves_it_inconclusive_naming_the_line(module):
    job = job_for(module, (11, "MS102"))
    verdict, = decide(job, compile_error(module, 10), "CPU", "strict")
    assert verdict.verdict == INCONCLUSIVE
    assert "line 10" in verdict.message and "the inputs should be constant" in verdict.message


def test_when_the_compile_stops_at_one_finding_the_next_ones_say_so(module):
    job = job_for(module, (10, "MS101"), (11, "MS102"))
    first, second = decide(job, compile_error(module, 10), "CPU", "strict")
    assert first.verdict == CONFIRMED
    assert second.verdict == INCONCLUSIVE
    assert "stopped earlier, at line 10 (MS101)" in second.message


def test_the_error_kind_confirms_when_the_compiler_names_no_location(module):
    job = job_for(module, (11, "MS102"))
    outcome = compile_error(module, 11, "AttributeError", "cannot get attributes asnumpy")
    outcome["error"]["message"] = "cannot get attributes asnumpy"
    assert decide(job, outcome, "CPU", "strict")[0].verdict == CONFIRMED


def test_locations_in_the_compile_log_count_too(module):
    job = job_for(module, (11, "MS108", False))
    outcome = compile_error(module, 0, "AttributeError", "The 'Net' object has no attribute 'cache'.")
    outcome["error"]["message"] = "The 'Net' object has no attribute 'cache'."
    outcome["compile_log"] = [f"# In file {module}:11, 8~18"]
    assert decide(job, outcome, "CPU", "strict")[0].verdict == CONFIRMED


def test_an_unrelated_error_without_location_is_inconclusive_and_suggests_an_example(module):
    job = job_for(module, (10, "MS101"))
    outcome = compile_error(module, 0, "RuntimeError", "output index [0] large than the output size")
    outcome["error"]["message"] = "output index [0] large than the output size"
    verdict, = decide(job, outcome, "CPU", "strict")
    assert verdict.verdict == INCONCLUSIVE
    assert "placeholder inputs" in verdict.message
    assert verdict.compiler_message == "RuntimeError: output index [0] large than the output size"
    assert '@ms_lint.example("net:Net")' in verdict.example


def test_a_list_of_cells_is_confirmed_by_the_name_clash_wherever_the_compiler_points(module):
    job = job_for(module, (7, "MS201"))
    outcome = compile_error(module, 12, "RuntimeError", "its name 'weight' already exists")
    assert decide(job, outcome, "CPU", "strict")[0].verdict == CONFIRMED


def probe_outcome(containers, duplicates=()):
    return {"status": "ok", "stage": "probe", "compiled": True, "kind": "cell",
            "probes": {"parameters": {"trainable": 0, "containers": containers,
                                      "duplicate_names": list(duplicates)}}}


def container(attribute, cells=2, parameters=0, held=4, missing=None):
    missing = missing if missing is not None else [f"{attribute}[0].weight", f"{attribute}[0].bias"]
    return {"attribute": attribute, "owner": "", "kind": "list", "cells": cells, "parameters": parameters,
            "held_parameters": held, "missing": missing, "missing_count": len(missing)}


def test_the_parameter_probe_confirms_a_list_that_hides_parameters(module):
    job = job_for(module, (7, "MS201"))
    verdict, = decide(job, probe_outcome([container("layers")], ["weight"]), "CPU", "strict")
    assert verdict.verdict == CONFIRMED_BY_PROBE
    assert "misses 2 parameter(s) held in the plain list self.layers: layers[0].weight" in verdict.message
    assert "used twice: weight" in verdict.message


def test_the_parameter_probe_clears_a_list_of_parameter_free_cells(module):
    job = job_for(module, (7, "MS201"))
    verdict, = decide(job, probe_outcome([container("layers", held=0, missing=[])]), "CPU", "strict")
    assert verdict.verdict == NOT_REPRODUCED
    assert "without parameters" in verdict.message


def test_the_parameter_probe_reports_only_the_finding_s_attribute(module):
    job = job_for(module, (7, "MS201"))
    outcome = probe_outcome([container("other"), container("layers", held=0, missing=[])])
    assert decide(job, outcome, "CPU", "strict")[0].verdict == NOT_REPRODUCED


def test_an_empty_container_at_construction_leaves_the_probe_inconclusive(module):
    job = job_for(module, (7, "MS201"))
    assert decide(job, probe_outcome([]), "CPU", "strict")[0].verdict == INCONCLUSIVE


@pytest.mark.parametrize("probe, verdict", [
    ({"graph_repeats": True, "pynative_repeats": False}, CONFIRMED_BY_PROBE),
    ({"graph_repeats": False, "pynative_repeats": False}, NOT_REPRODUCED),
    ({"graph_repeats": True, "pynative_repeats": True}, INCONCLUSIVE),
    ({"skipped": "it needs an example with concrete inputs"}, INCONCLUSIVE),
    ({"error": "ValueError: boom"}, INCONCLUSIVE),
])
def test_the_randomness_probe(module, probe, verdict):
    job = job_for(module, (10, "MS104", False))
    outcome = {"status": "ok", "compiled": True, "kind": "cell", "probes": {"randomness": probe},
               "signature": {"init": [], "call": ["x"]}}
    result, = decide(job, outcome, "CPU", "strict")
    assert result.verdict == verdict
    if "skipped" in probe:
        assert "ms.ops.ones(" in result.example


def test_a_clean_compile_is_not_reproduced_or_says_the_hazard_is_silent(module):
    job = job_for(module, (10, "MS101"), (11, "MS106", False), (11, "MS105", False))
    outcome = {"status": "ok", "compiled": True, "kind": "cell"}
    host, created, thread = decide(job, outcome, "CPU", "strict")
    assert (host.verdict, host.message) == (NOT_REPRODUCED, "compiles under STRICT on CPU")
    assert created.verdict == NOT_APPLICABLE and "no probe" in created.message
    assert thread.verdict == NOT_APPLICABLE
    lax, = decide(job_for(module, (10, "MS101")), outcome, "CPU", "lax")
    assert lax.verdict == NOT_REPRODUCED and "LAX" in lax.message
    silent, = decide(job_for(module, (11, "MS108", False)), outcome, "CPU", "lax")
    assert silent.verdict == NOT_APPLICABLE


def test_a_jit_function_reports_the_level_it_compiles_at(module):
    outcome = {"status": "ok", "compiled": True, "kind": "jit function", "effective_level": "lax"}
    verdict, = decide(job_for(module, (10, "MS101")), outcome, "CPU", "strict")
    assert verdict.level == "lax" and "LAX" in verdict.message


@pytest.mark.parametrize("outcome, expected", [
    ({"status": "timeout", "stage": "import", "timeout": 5}, "did not finish within 5 s while importing"),
    ({"status": "timeout", "stage": "compile", "timeout": 5}, "raise --timeout"),
    ({"status": "crashed", "stage": "import", "returncode": -11, "exit": "killed by SIGSEGV",
      "output": {"tail": "Segmentation fault\n"}}, "died (killed by SIGSEGV) while importing"),
    ({"status": "crashed", "stage": "import", "returncode": 7, "exit": "exit status 7"}, "os._exit()"),
    ({"status": "out_of_memory", "stage": "compile", "rss_mb": 900, "memory_limit_mb": 512},
     "more than the 512 MB memory limit while compiling"),
    ({"status": "exit", "exit_code": 3, "error": {"stage": "import", "type": "SystemExit", "first_line": "3"}},
     "called sys.exit(3) while importing"),
    ({"status": "error", "error": {"stage": "import", "type": "KeyError", "first_line": "KeyError: 'depth'",
                                   "traceback": [["/p/net.py", 4, "<module>"]]}},
     "importing net raised KeyError: 'depth' (at /p/net.py:4)"),
    ({"status": "error", "memory_limit_mb": 256,
      "error": {"stage": "import", "type": "MemoryError", "first_line": "MemoryError"}}, "memory limit 256 MB"),
    ({"status": "error", "output": {"limit_reached": True}, "output_limit_bytes": 2 << 20,
      "error": {"stage": "import", "type": "OSError", "first_line": "OSError: [Errno 27] File too large"}},
     "printed more than the 2 MB output limit"),
    ({"status": "not_found", "message": "Net is not defined in net at import"}, "not defined"),
])
def test_jobs_that_never_compiled_are_inconclusive_with_the_reason(module, outcome, expected):
    verdict, = decide(job_for(module, (10, "MS101")), outcome, "CPU", "strict")
    assert verdict.verdict == INCONCLUSIVE
    assert expected in verdict.message


def test_a_cell_that_needs_arguments_gets_the_example_to_write(module):
    outcome = {"status": "needs_example", "kind": "cell", "needs": "Net() needs dim",
               "signature": {"init": ["dim"], "call": ["x"]}}
    verdict, = decide(job_for(module, (10, "MS101")), outcome, "CPU", "strict")
    assert verdict.verdict == INCONCLUSIVE
    assert verdict.message == "Net() needs dim: no example is registered for net:Net"
    assert "cell = Net(dim=...)" in verdict.example


def test_construction_errors_confirm_construction_hazards_only(module):
    outcome = {"status": "error", "instance": "default", "kind": "cell", "signature": {"init": [], "call": ["x"]},
               "error": {"stage": "construction", "type": "ValueError",
                         "first_line": "ValueError: the 'pad' must be zero when 'pad_mode' is not 'pad'",
                         "message": "the 'pad' must be zero when 'pad_mode' is not 'pad'",
                         "traceback": [["/p/net.py", 6, "__init__"]]}}
    conv, host = decide(job_for(module, (6, "MS205", False), (10, "MS101")), outcome, "CPU", "strict")
    assert conv.verdict == CONFIRMED
    assert host.verdict == INCONCLUSIVE
    assert "Net() (no arguments) raised ValueError" in host.message and "/p/net.py:6" in host.message


def test_a_failure_in_another_unit_at_the_finding_line_confirms_it(module, tmp_path):
    needs_arguments = job_for(module, (6, "MS205", False))
    outcome = {"status": "needs_example", "kind": "cell", "needs": "Net() needs dim",
               "signature": {"init": ["dim"], "call": ["x"]}}
    verdicts = decide(needs_arguments, outcome, "CPU", "strict")
    other = tmp_path / "model.py"
    other.write_text("class Model: pass\n")
    builder = plan_jobs([Finding(str(other), 1, 0, "MS101", "m", "Model")]).jobs[0]
    failure = {"status": "error", "error": {
        "stage": "construction", "type": "ValueError", "first_line": "ValueError: pad must be zero",
        "message": "pad must be zero", "traceback": [[str(module), 6, "__init__"]]}}
    confirm_across_units(verdicts, [(needs_arguments, outcome), (builder, failure)])
    assert verdicts[0].verdict == CONFIRMED
    assert verdicts[0].message == "ValueError: pad must be zero (seen while building model:Model)"
    assert verdicts[0].example is None


def test_module_level_findings_are_not_applicable():
    finding = Finding("train.py", 3, 0, "MS301", "m", "")
    verdict = module_level_verdict(finding, "CPU", "strict")
    assert verdict.verdict == NOT_APPLICABLE and "no compile probe" in verdict.message


def test_an_eager_hazard_in_module_level_code_is_not_applicable_and_says_why():
    finding = Finding("train.py", 59, 0, "MS113", "m", "")
    verdict = module_level_verdict(finding, "CPU", "strict")
    assert verdict.verdict == NOT_APPLICABLE and "eager-mode (PyNative) hazard in module-level code" in verdict.message


def test_compiler_locations_in_every_format():
    text = textwrap.dedent("""\
        # 0 In file /abs/net.py:10, 12~21
        In file /abs/net.py:9~13, 4~16
        # In file /abs/other dir/model.py:78~83, 4~16
        # 1 In file /abs/net.py:10, 12~21
    """)
    assert [(loc.path, loc.start, loc.end) for loc in parse_locations(text)] == [
        ("/abs/net.py", 10, 10), ("/abs/net.py", 9, 13), ("/abs/other dir/model.py", 78, 83)]


def test_lines_printed_between_frames_of_mindspores_own_functions_are_not_locations():
    # As MindSpore 2.10 printed an index out of range at line 660 of a model whose first `[:, :n]` is at line 2027.
    from importlib.util import find_spec

    package = list(find_spec("mindspore").submodule_search_locations)[0]
    utils = os.path.join(package, "ops", "composite", "multitype_ops", "_compile_utils.py")
    text = textwrap.dedent(f"""\
        # 40 In file /abs/model.py:660, 53~82
        # 41 In file {utils}:1080~1081, 4~19
        # 42 In file {utils}:1083~1084, 4~48
        # 43 In file /abs/model.py:2027, 42~88
        # 44 In file {utils}:1086~1089, 4~17
        # 45 In file /abs/model.py:2027, 42~88
        # 46 In file {utils}:1091, 11~51
    """)
    assert [(loc.path, loc.start) for loc in parse_locations(text) if loc.path == "/abs/model.py"] == [
        ("/abs/model.py", 660)]


def test_a_compile_error_naming_an_attribute_confirms_the_finding_that_uses_it(tmp_path):
    path = tmp_path / "net.py"
    path.write_text(textwrap.dedent("""\
        from mindspore import nn

        class Net(nn.Cell):
            def clear(self):
                self._enc_idx = [0]

            def construct(self, x):
                self.clear()
                return x + self._enc_idx[0]
    """))
    job = job_for(path, (5, "MS108"))
    outcome = compile_error(path, 9, kind="AttributeError",
                            text="The 'Net' object has no attribute '_enc_idx'.")
    verdict, = decide(job, outcome, "CPU", "strict")
    assert verdict.verdict == CONFIRMED
    assert "the error names ._enc_idx, which this line uses" in verdict.message
    # Another attribute: the error elsewhere leaves the finding open.
    other = compile_error(path, 9, kind="AttributeError", text="The 'Net' object has no attribute 'other'.")
    verdict, = decide(job, other, "CPU", "strict")
    assert verdict.verdict == INCONCLUSIVE


def test_a_device_without_the_kernel_a_constructor_runs_says_so(module):
    outcome = {"status": "error", "stage": "construction", "instance": "config", "built": "NetConfig() with its "
               "defaults", "kind": "cell", "signature": {"init": ["config"], "call": ["x"]},
               "error": {"stage": "construction", "type": "RuntimeError",
                         "first_line": "RuntimeError: The kernel Arange unregistered.",
                         "message": "The kernel Arange unregistered.", "traceback": [["/p/net.py", 7, "__init__"]]}}
    verdict, = decide(job_for(module, (10, "MS101")), outcome, "CPU", "strict")
    assert verdict.verdict == INCONCLUSIVE
    assert verdict.message.startswith("this MindSpore has no CPU kernel for Arange, which building the Cell runs")
    assert "--device Ascend" in verdict.message and verdict.example is None


def test_not_reproduced_needs_the_line_in_the_graph(module):
    job = job_for(module, (10, "MS101"))
    compiled = {"status": "ok", "stage": "probe", "instance": "default", "kind": "cell", "compiled": True}
    cases = {
        "in": ({"reached": True}, NOT_REPRODUCED, "compiles under LAX on CPU with line 10 in the graph"),
        "unknown": ({"reached": None, "unknown": "use_cache"}, INCONCLUSIVE,
                    "compiles, but nothing shows that line 10 was part of the graph: it sits under `use_cache`"),
        "out": ({"reached": False, "condition": "self.training", "value": "False", "wanted": True}, NOT_REACHED,
                "not compiled: `self.training` was False when the graph was built (the line needs it true)"),
    }
    for reach, expected, text in cases.values():
        verdict, = decide(job, dict(compiled, reach={"10": reach}), "CPU", "lax")
        assert verdict.verdict == expected and verdict.message.startswith(text), verdict.message


def test_an_output_type_built_from_tensors_is_confirmed_only_where_it_is_built(tmp_path):
    path = tmp_path / "net.py"
    path.write_text(textwrap.dedent("""\
        from mindspore import nn

        class Net(nn.Cell):
            def construct(self, x):
                hidden = self.encoder(x)
                return Output(value=hidden)
    """))
    built = Finding(str(path), 6, 15, "MS103", "user type Output built from tensor data in graph code (Net.construct) "
                    "fails to compile under STRICT (ValueError); return a tuple or dict", "Net",
                    data={"built_type": "Output", "kind": "user type", "function": "Net.construct", "callee": "Output",
                          "positional": 0, "keywords": ["value"], "starred": False})
    job = plan_jobs([built]).jobs[0]
    # Another type built from tensors, in the encoder, stops the compile first: its error is not this finding's.
    elsewhere = compile_error(path, 5, text=("When handling script '__call_func_str__(last_hidden_state=...)' in "
                                             "graph mode, the inputs should be constant"))
    verdict, = decide(job, elsewhere, "CPU", "strict")
    assert verdict.verdict == INCONCLUSIVE, verdict.message
    assert job.built_types == {"6": {"callee": "Output", "positional": 0, "keywords": ["value"]}}
    as_jit_class = Finding(str(path), 6, 15, "MS103", "@jit_class Output built from tensor data in graph code "
                           "(Net.construct) fails to compile at every syntax level (TypeError)", "Net",
                           data=dict(built.data, kind="jit_class"))
    assert plan_jobs([as_jit_class]).jobs[0].built_types == job.built_types
    # The type built alone by the worker fails with MS103's kind of error: the pattern fails in isolation, which
    # decides nothing about the line unless the unit's graph is shown to reach it...
    failed = {"compiled": False, "type": "ValueError", "built": "Output(value=x)",
              "message": "When handling script '__call_func_str__(value=__input__value_0__,)' in graph mode, the "
                         "inputs should be constant"}
    verdict, = decide(job, dict(elsewhere, probes={"built_alone": {"6": failed}}), "CPU", "strict")
    assert verdict.verdict == INCONCLUSIVE, verdict.message
    assert any(note.startswith("the pattern fails in isolation: Output(value=x) in a Cell that does nothing else "
                               "fails to compile under STRICT") for note in verdict.notes), verdict.notes
    # ... as it is when every condition over the line held on the built instance, on a path from construct.
    reached = dict(elsewhere, reach={"6": {"reached": True}}, probes={"built_alone": {"6": failed}})
    verdict, = decide(job, reached, "CPU", "strict")
    assert verdict.verdict == CONFIRMED_BY_PROBE, verdict.message
    assert verdict.message.startswith("line 6 is in the graph of Net.construct built as Net() (every condition")
    assert "stopped before the line: the compile failed at line 5" in verdict.message
    # ... but not for a line shown to be left out of the graph ...
    left_out = dict(elsewhere, reach={"6": {"reached": False, "condition": "return_dict", "value": "False",
                                            "wanted": True}}, probes={"built_alone": {"6": failed}})
    left_out["error"] = dict(elsewhere["error"], message=elsewhere["error"]["message"].replace(":5,", ":4,"))
    verdict, = decide(job, left_out, "CPU", "strict")
    assert verdict.verdict == NOT_REACHED, verdict.message
    # ... and not when it builds it, fails otherwise, or under LAX (which builds such types by interpreting them).
    for result, level in (({"compiled": True, "built": "Output(value=x)"}, "strict"),
                          (dict(failed, type="RuntimeError", message="out of memory"), "strict"),
                          (failed, "lax")):
        verdict, = decide(job, dict(elsewhere, reach={"6": {"reached": True}},
                                    probes={"built_alone": {"6": result}}), "CPU", level)
        assert verdict.verdict != CONFIRMED_BY_PROBE, (result, level)
    verdict, = decide(job, compile_error(path, 6, text="the inputs should be constant"), "CPU", "strict")
    assert verdict.verdict == CONFIRMED, verdict.message
    # A cache's change is still confirmed where MindSpore points, in the cache's own method.
    changed = Finding(str(path), 6, 15, "MS103", "Cache.update() changes a list, dict or object held by a user object",
                      "Net", data={"type": "Cache", "method": "update", "change": "container"})
    verdict, = decide(plan_jobs([changed]).jobs[0], compile_error(path, 5, kind="TypeError",
                                                                  text="modify a member attribute"), "CPU", "strict")
    assert verdict.verdict == CONFIRMED, verdict.message


def test_a_host_method_call_decides_only_a_line_it_ran(tmp_path):
    path = tmp_path / "net.py"
    path.write_text(textwrap.dedent("""\
        from mindspore import nn

        class Net(nn.Cell):
            def construct(self, x):
                return x

            def switch_to_deploy(self):
                self.fused = nn.Conv2d(4, 4, 3, 1, 1)
                self.other = nn.Conv2d(4, 4, 3, 1, 1)
    """))
    job = plan_jobs([Finding(str(path), line, 0, "MS606", "m", "Net") for line in (8, 9)]).jobs[0]
    assert job.host_calls == {"switch_to_deploy": [8, 9]}

    def outcome(ran, error=None):
        return {"status": "ok", "stage": "fix", "instance": "default", "kind": "cell", "compiled": True,
                "probes": {"host": {"switch_to_deploy": {"ran": ran, "error": error}}}}

    error = {"type": "TypeError", "message": "For 'Conv2D', the type of 'pad_mode' should be 'str'", "line": 9}
    first, second = decide(job, outcome([8, 9], error), "CPU", "strict")
    assert first.verdict == NOT_REPRODUCED, first.message
    assert first.message == ("switch_to_deploy(), called in PyNative on a Net built for it, ran line 8 without "
                             "error (it raised later: TypeError: For 'Conv2D', the type of 'pad_mode' should be "
                             "'str')")
    assert second.verdict == CONFIRMED_BY_PROBE, second.message
    # An error of another kind at the line, or one before it, decides nothing.
    other = {"type": "RuntimeError", "message": "out of memory", "line": 8}
    first, second = decide(job, outcome([8], other), "CPU", "strict")
    assert first.verdict == second.verdict == NOT_REACHED
    assert any("raised at this line, not as the rule says: RuntimeError: out of memory" in n for n in first.notes)
    assert any("raised at line 8 before reaching line 9" in note for note in second.notes)
    # Without the probe's result (a job planned before, a worker that could not build the instance): as before.
    verdict = decide(job, {"status": "ok", "stage": "fix", "instance": "default", "kind": "cell",
                           "compiled": True}, "CPU", "strict")[0]
    assert verdict.verdict == NOT_REACHED


def test_a_construction_finding_is_decided_only_by_a_build_that_ran_its_line(tmp_path):
    path = tmp_path / "net.py"
    path.write_text(textwrap.dedent("""\
        from mindspore import nn

        class Net(nn.Cell):
            def __init__(self, dims=()):
                super().__init__()
                for dim in dims:
                    self.conv = nn.Conv2d(4, dim, 3, 1, 1)

            def construct(self, x):
                return x
    """))
    job = plan_jobs([Finding(str(path), 7, 0, "MS606", "m", "Net")]).jobs[0]
    assert job.build_retries == [{"parameter": "dims", "value": [32], "lines": [7]}]
    built = {"status": "ok", "stage": "fix", "instance": "default", "kind": "cell", "compiled": True,
             "built_lines": []}
    # The instance built and compiled, but line 7 never ran: no evidence either way.
    verdict, = decide(job, built, "CPU", "strict")
    assert verdict.verdict == NOT_REACHED
    assert verdict.message == "not run: building the instance (Net()) did not run line 7"
    ran = dict(built, build_retries=[{"description": "dims=[32]", "lines": [7], "ran": [7], "error": None}])
    verdict, = decide(job, ran, "CPU", "strict")
    assert verdict.verdict == NOT_REPRODUCED
    assert verdict.message == "with dims=[32]: building ran line 7 without error"
    skipped = dict(built, build_retries=[{"description": "dims=[32]", "lines": [7], "ran": [], "error": None}])
    verdict, = decide(job, skipped, "CPU", "strict")
    assert verdict.message == ("not run: building the instance (Net()) did not run line 7; nor did building it "
                               "with dims=[32]")
    # Outcomes from before building was traced: as before.
    verdict, = decide(job, {k: v for k, v in built.items() if k != "built_lines"}, "CPU", "strict")
    assert verdict.verdict == NOT_REPRODUCED
    # Arguments guessed from their names are not the project's: a line they leave unrun stays undecided.
    guessed = dict(skipped, instance="guessed arguments", built="Net(dims=()), arguments guessed from their names")
    verdict, = decide(job, guessed, "CPU", "strict")
    assert verdict.verdict == INCONCLUSIVE
    assert verdict.message == ("not run: building the instance as Net(dims=()), arguments guessed from their names "
                               "did not run line 7; nor did building it with dims=[32]: the project's own arguments "
                               "may run it"), verdict.message


def test_a_marked_line_decides_a_line_under_a_condition_ms_lint_cannot_evaluate(tmp_path):
    path = tmp_path / "net.py"
    path.write_text(textwrap.dedent("""\
        from mindspore import nn

        class Net(nn.Cell):
            def construct(self, x):
                if x.shape != (2, 3):
                    raise ValueError(x.size())
                return x
    """))
    job = plan_jobs([Finding(str(path), 6, 0, "MS602", "m", "Net")]).jobs[0]
    compiled = {"status": "ok", "stage": "fix", "instance": "default", "kind": "cell", "compiled": True,
                "reach": {"6": {"reached": None, "unknown": "x.shape != (2, 3)"}}}
    verdict, = decide(job, compiled, "CPU", "strict")
    assert verdict.verdict == INCONCLUSIVE
    verdict, = decide(job, dict(compiled, markers={"6": {"in_graph": True}}), "CPU", "strict")
    assert verdict.verdict == NOT_REPRODUCED
    assert verdict.message == ("compiles under STRICT on CPU with line 6 in the graph (the compile stopped there with "
                               "the line replaced by a call that raises when compiled)")
    verdict, = decide(job, dict(compiled, markers={"6": {"in_graph": False}}), "CPU", "strict")
    assert verdict.verdict == NOT_REACHED
    # A marked compile that failed otherwise shows nothing.
    verdict, = decide(job, dict(compiled, markers={"6": {"error": "RuntimeError: out of memory"}}), "CPU", "strict")
    assert verdict.verdict == INCONCLUSIVE


def test_a_finding_whose_line_building_never_runs_is_not_judged_by_the_trace(tmp_path):
    path = tmp_path / "net.py"
    path.write_text(textwrap.dedent("""\
        from mindspore import nn

        class Net(nn.Cell):
            def __init__(self):
                self.dense = nn.Dense(2, 2)

            def construct(self, x):
                return x
    """))
    # MS204's line is the ``def``: building never runs it as a line, and the error it causes is raised elsewhere.
    job = plan_jobs([Finding(str(path), 4, 0, "MS204", "m", "Net")]).jobs[0]
    assert job.request("strict")["construction_lines"] == []
    # Built without error (the trace saw no line), it fails when compiled.
    error = {"stage": "compile", "type": "AttributeError",
             "first_line": "AttributeError: The 'Net' object has no attribute '_dynamic_shape_inputs'.",
             "message": "The 'Net' object has no attribute '_dynamic_shape_inputs'.", "traceback": []}
    verdict, = decide(job, {"status": "error", "stage": "probe", "instance": "default", "kind": "cell",
                            "built_lines": [], "error": error}, "CPU", "strict")
    assert verdict.verdict == CONFIRMED, verdict.message


def test_a_pytorch_tensor_method_is_decided_by_calling_it_on_a_tensor_when_nothing_else_did(module):
    from ms_lint.rules.ms602_tensor_method_missing import PytorchTensorMethod

    method = PytorchTensorMethod(name="detach_", module="mindspore.Tensor", version="2.10.0", target_version="2.10.0",
                                 property=False, function="Net.freeze", graph=False)
    detach = Finding(str(module), 11, 0, "MS602", method.message(), "Net", data=method.as_data())
    job = plan_jobs([detach]).jobs[0]
    assert job.tensor_methods == ["detach_"]
    assert job.request("strict")["tensor_methods"] == ["detach_"]
    stopped = compile_error(module, 10)

    def called(tensor, parameter):
        return {**stopped, "probes": {"tensor_methods": {"detach_": {
            "Tensor": {"call": "Tensor([1.0, 2.0]).detach_()", **tensor},
            "Parameter": {"call": "Parameter([1.0, 2.0]).detach_()", **parameter}}}}}

    missing = {"type": "AttributeError", "message": "'Tensor' object has no attribute 'detach_'"}
    verdict, = decide(job, called(missing, missing), "CPU", "strict")
    assert verdict.verdict == CONFIRMED_BY_PROBE, verdict.message
    assert verdict.message.startswith("Tensor([1.0, 2.0]).detach_() raises AttributeError: 'Tensor' object has no "
                                      "attribute 'detach_' on the installed MindSpore")
    assert "the line itself was not decided: the compile failed at line 10" in verdict.message
    # A release whose Tensor has the method: the call runs, and the rule's premise does not hold.
    verdict, = decide(job, called({"ran": True}, missing), "CPU", "strict")
    assert verdict.verdict == NOT_REPRODUCED
    assert verdict.message.startswith("Tensor([1.0, 2.0]).detach_() runs on the installed MindSpore")
    # An error other than the rule's (the method exists but wants arguments) decides nothing; nor does no probe.
    wrong = {"type": "TypeError", "message": "detach_() missing 1 required positional argument: 'x'"}
    for outcome in (called(wrong, wrong), stopped):
        verdict, = decide(job, outcome, "CPU", "strict")
        assert verdict.verdict == INCONCLUSIVE, verdict.message


def test_evidence_skipped_for_lack_of_time_is_said(module):
    compiled = {"status": "ok", "stage": "probe", "instance": "default", "kind": "cell", "compiled": True,
                "signature": {"init": [], "call": ["x"]}}
    job = job_for(module, (10, "MS101"))
    outcome = {**compiled, "reach": {"10": {"reached": None, "unknown": "x.shape != y.shape"}},
               "markers": {"10": {"skipped": "the job had no time left"}}}
    verdict, = decide(job, outcome, "CPU", "strict")
    assert verdict.verdict == INCONCLUSIVE
    assert verdict.message.endswith("which ms-lint could not evaluate (MindSpore keeps one side of a constant "
                                    "condition only); the compile with the line marked was skipped: the job had no "
                                    "time left"), verdict.message
    host = job_for(module, (11, "MS602", False))
    host.host_calls = {"switch_to_deploy": [11]}
    outcome = {**compiled, "probes": {"host": {"switch_to_deploy": {"skipped": "the job had no time left"}}}}
    verdict, = decide(host, outcome, "CPU", "strict")
    assert "switch_to_deploy() was not called on a Net: the job had no time left" in verdict.notes, verdict.notes


def test_a_silent_positional_argument_is_not_applicable_where_a_refused_one_is_not_reproduced(tmp_path):
    """MS606 reports layers that refuse PyTorch's positional argument and layers that take it as another parameter
    (nn.Dropout(0.2) keeps 20%): a build that ran the line without error says nothing against the second kind."""
    path = tmp_path / "net.py"
    path.write_text(textwrap.dedent("""\
        from mindspore import nn

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.drop = nn.Dropout(0.2)
                self.conv = nn.Conv2d(4, 4, 3, 1, 1)

            def construct(self, x):
                return x
    """))
    findings = [built_finding(path, 6, 0, "MS606", "Net"), built_finding(path, 7, 0, "MS606", "Net")]
    assert findings[0].data["silent"] and "silent" not in findings[1].data
    job = plan_jobs(findings).jobs[0]
    built = {"status": "ok", "stage": "fix", "instance": "default", "kind": "cell", "compiled": True,
             "built_lines": [6, 7]}
    silent, refused = decide(job, built, "CPU", "strict")
    assert silent.verdict == NOT_APPLICABLE, silent.message
    assert "as expected: the layer takes the value as another parameter" in silent.message
    assert refused.verdict == NOT_REPRODUCED, refused.message
