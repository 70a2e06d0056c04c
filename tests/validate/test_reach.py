"""Whether a finding's line is part of the compiled graph: conditions read from the source, evaluated against
the instance, the "not reached" verdict and the retries that switch a condition on (train mode, a flag)."""
from __future__ import annotations

import ast
import textwrap

import pytest

from ms_lint.validate.reach import (build_retries, condition_value, evaluate, guards_for, host_calls,
                                    instance_names, instance_parameters, not_run)
from ms_lint.validate.runner import ValidateOptions, validate_findings
from ms_lint.validate.verdicts import CONFIRMED, CONFIRMED_BY_PROBE, NOT_REACHED, NOT_REPRODUCED

from .conftest import finding_at, needs_mindspore

SOURCE = textwrap.dedent("""\
    class Net(nn.Cell):
        def __init__(self, quant_mode=False, size=3):
            super().__init__()
            self.quant_mode = quant_mode
            self.size = size

        def construct(self, x, mask=None):
            if self.training:
                x = a(x)
            else:
                x = b(x)
            if mask is None:
                return x
            x = c(x)
            return self.helper(x)

        def helper(self, x):
            if self.quant_mode and self.size > 2:
                x = d(x)
            return x

        def unused(self, x):
            return e(x)
""")


def lines_of(*texts):
    source = SOURCE.splitlines()
    return {next(i for i, line in enumerate(source, 1) if text in line) for text in texts}


def test_conditions_are_collected_per_line_with_the_branch_taken():
    tree = ast.parse(SOURCE)
    guards, retries = guards_for(tree, "Net", lines_of("a(x)", "b(x)", "c(x)", "d(x)", "e(x)"))
    by_call = {SOURCE.splitlines()[line - 1].strip()[:8]: guard for line, guard in guards.items()}
    assert by_call["x = a(x)"]["conditions"] == [["self.training", True, "construct"]]
    assert by_call["x = b(x)"]["conditions"] == [["self.training", False, "construct"]]
    # After "if mask is None: return x", the rest runs only when the condition is false.
    assert by_call["x = c(x)"]["conditions"] == [["mask is None", False, "construct"]]
    # A helper carries the conditions over its call in construct, then its own.
    assert by_call["x = d(x)"] == {"function": "helper", "called": True,
                                   "conditions": [["mask is None", False, "construct"],
                                                  ["self.quant_mode and self.size > 2", True, "helper"]]}
    assert by_call["return e"]["called"] is False
    assert {"name": "train"} in retries
    assert {"name": "flag", "parameter": "quant_mode", "value": True, "attribute": "quant_mode"} in retries
    # "size" is not a boolean argument: no retry for it.
    assert not any(retry.get("parameter") == "size" for retry in retries)


def test_a_class_without_its_own_construct_says_nothing_about_calls():
    tree = ast.parse("class Sub(Base):\n    def helper(self, x):\n        return f(x)\n")
    guards, retries = guards_for(tree, "Sub", {3})
    assert guards[3]["called"] is None and retries == []


class _Instance:
    training = False
    quant_mode = True
    size = 1
    weights = object()


@pytest.mark.parametrize("source, names, expected", [
    ("self.training", {}, False),
    ("not self.training", {}, True),
    ("self.quant_mode and self.size > 2", {}, False),
    ("self.quant_mode or x", {}, True),
    ("mask is None", {"mask": None}, True),
    ("mask is not None", {"mask": None}, False),
    ("self.weights is None", {}, False),  # an object that exists is not None, whatever it is
    ("x.shape[0] > 2", {}, "unknown"),  # a tensor's value: compiled on both sides
    ("self.missing", {}, "unknown"),
    ("f(self.size)", {}, "unknown"),
    ("self.size ==", {}, "unknown"),  # bad source never raises
    ("self.size > -2", {}, True),  # a negative constant
    ("-self.quant_mode", {}, "unknown"),  # no number
])
def test_conditions_are_evaluated_only_on_plain_values(source, names, expected):
    value = condition_value(source, {**instance_names({"construct": "self"}, "construct", _Instance()), **names})
    assert (value if isinstance(value, bool) else "unknown") == expected


def test_evaluate_names_the_condition_that_kept_a_line_out():
    guards = {
        10: {"function": "construct", "called": True, "conditions": [["self.training", True]]},
        11: {"function": "construct", "called": True, "conditions": [["self.training", False]]},
        12: {"function": "unused", "called": False, "conditions": []},
        13: {"function": "construct", "called": True, "conditions": [["x.sum() > 0", True]]},
        15: {"function": "construct", "called": True, "conditions": [["x.shape[0] > 2", True]]},
        16: {"function": "construct", "called": True, "conditions": [["use_cache", True]]},
    }
    guards[14] = {"function": "helper", "called": True,
                  "conditions": [["mask is None", False, "construct"], ["mask is None", False, "helper"]]}
    reach = evaluate(guards, _Instance(), {"mask": None}, tensors=frozenset({"x"}),
                     instances=instance_parameters(ast.parse(SOURCE), "Net"))
    assert reach["10"] == {"reached": False, "condition": "self.training", "value": "False", "wanted": True}
    assert reach["11"] == {"reached": True}
    assert reach["12"]["reached"] is False and "unused() is not called from construct" in reach["12"]["condition"]
    # A condition on a tensor input's values compiles both sides: the line is in the graph.
    assert reach["13"] == {"reached": True}
    # A shape is a constant when the graph is built, and a local is unknown: no evidence either way.
    assert reach["15"] == {"reached": None, "unknown": "x.shape[0] > 2"}
    assert reach["16"] == {"reached": None, "unknown": "use_cache"}
    # construct's argument left at its default decides the call site; the helper's own "mask" is unknown.
    assert reach["14"] == {"reached": False, "condition": "mask is None", "value": "True", "wanted": False}


@pytest.mark.mindspore
@needs_mindspore
def test_guarded_lines_are_retried_or_reported_not_reached(projects, worker_pool):
    guarded = projects / "cells" / "vcells" / "guarded.py"
    findings = [
        finding_at(guarded, "Tensor(np.sin(x))", "MS101", "TrainOnly"),
        finding_at(guarded, "x.asnumpy()", "MS102", "Quantized"),
        # in a branch MindSpore drops (ms-lint drops it too), and a constant: made up for the validator to refute
        finding_at(guarded, "Tensor(np.cos(x))", "MS101", "NeverOn", reported=False),
        finding_at(guarded, "Tensor(np.exp(x))", "MS101", "NeverOn"),
        finding_at(guarded, "float(np.sqrt(4.0))", "MS101", "Reached", reported=False),
        finding_at(guarded, "Tensor(np.arctan(x))", "MS101", "OptionalOutput"),
    ]
    report = validate_findings(findings, ValidateOptions(use_cache=False), pool=worker_pool)
    by_line = {verdict.finding.line: verdict for verdict in report.verdicts}

    train = by_line[findings[0].line]
    assert train.verdict == CONFIRMED and train.message.startswith("with set_train(True): ValueError")
    assert "`self.training` was False" in train.notes[-1]

    flag = by_line[findings[1].line]
    assert flag.verdict == CONFIRMED and flag.message.startswith("with quant_mode=True: AttributeError")

    # A plain attribute no constructor argument sets, and an argument left at its default: never compiled.
    host = by_line[findings[2].line]
    assert host.verdict == NOT_REACHED
    assert host.message.startswith("not compiled: `self.use_host` was False when the graph was built")
    mask = by_line[findings[3].line]
    assert mask.verdict == NOT_REACHED and "`mask is not None` was False" in mask.message

    # Under ``if not return_dict: return``, return_dict set from the instance's attribute: passed to construct.
    optional = by_line[findings[5].line]
    assert optional.verdict == CONFIRMED, optional.message
    assert optional.message.startswith("with return_dict=True passed to construct: ValueError"), optional.message
    assert "`not return_dict` was True when the graph was built" in optional.notes[-1]

    # The line is in the graph (its condition held): a clean compile is evidence.
    reached = by_line[findings[4].line]
    assert reached.verdict == NOT_REPRODUCED
    assert reached.message == f"compiles under STRICT on CPU with line {findings[4].line} in the graph"


def test_the_flag_retry_sets_the_argument_however_it_was_passed():
    from ms_lint.validate.instances import with_argument

    class Layer:
        def __init__(self, width, quant_mode=False, **options):
            pass

    assert with_argument(Layer, ((8, False), {}), "quant_mode", True) == ((8, True), {})
    assert with_argument(Layer, ((8,), {"bias": 1}), "quant_mode", True) == ((8, True), {"bias": 1})
    assert with_argument(Layer, ((), {"width": 8, "quant_mode": False}), "quant_mode", True) == ((8, True), {})


def test_a_custom_bprop_is_reached_only_by_the_gradient():
    tree = ast.parse(textwrap.dedent("""\
        class STE(nn.Cell):
            def construct(self, x):
                return x

            def bprop(ctx, x, out, dout):
                return (dout,)
    """))
    guards, retries = guards_for(tree, "STE", {5})
    assert guards[5]["called"] is False and retries == [{"name": "gradient"}]
    assert evaluate(guards, _Instance(), {})["5"]["reached"] is False
    assert evaluate(guards, _Instance(), {}, gradient=True)["5"] == {"reached": True}


@pytest.mark.mindspore
@needs_mindspore
def test_findings_in_a_custom_bprop_are_decided_by_compiling_the_gradient(projects, worker_pool):
    from ms_lint.engine import check_file
    from ms_lint.rules import RULES_BY_CODE
    from ms_lint.settings import Settings

    path = projects / "cells" / "vcells" / "custom_bprop.py"
    findings = check_file(str(path), Settings(syntax_level="strict"), RULES_BY_CODE)
    report = validate_findings(findings, ValidateOptions(use_cache=False), pool=worker_pool)
    by_place = {(verdict.finding.scope, verdict.finding.line): verdict for verdict in report.verdicts}
    assert len(by_place) == 5

    floor = by_place[("FloorSTE", finding_at(path, "def bprop(ctx", "MS119", "FloorSTE").line)]
    assert floor.verdict == CONFIRMED, floor.message
    assert floor.message.startswith("with the gradient taken (bprop compiled): TypeError"), floor.message
    assert "number of parameters of bprop is 2" in floor.message
    assert "bprop() is not called from construct" in floor.notes[-1]
    host = by_place[("HostGradient", finding_at(path, "grad_output.asnumpy()", "MS102", "HostGradient").line)]
    assert host.verdict == CONFIRMED and host.message.startswith("with the gradient taken"), host.message

    # construct's error is construct's finding; bprop's is decided with construct fixed, by its own error.
    construct_line = finding_at(path, "def construct(ctx", "MS119", "RoundSTE").line
    construct = by_place[("RoundSTE", construct_line)]
    assert construct.verdict == CONFIRMED and "number of provided arguments is 1" in construct.message
    bprop = by_place[("RoundSTE", construct_line + 3)]
    assert bprop.verdict == CONFIRMED, bprop.message
    assert bprop.message.startswith(f"with the gradient taken (bprop compiled): decided after applying the fix for "
                                    f"MS119 at line {construct_line}"), bprop.message
    assert "number of parameters of bprop" in bprop.message

    # A bprop that misses construct's other inputs: MS119 says so, and the error at its def line is that one.
    shifted = by_place[("ShiftedSTE", finding_at(path, "def bprop(ctx", "MS119", "ShiftedSTE", occurrence=3).line)]
    assert shifted.verdict == CONFIRMED, shifted.message
    assert "requires the forward inputs as well as the 'out' and 'dout'" in shifted.message


def test_a_line_after_an_if_whose_every_branch_returns_needs_its_condition_false():
    tree = ast.parse(textwrap.dedent("""\
        class Model(nn.Cell):
            def construct(self, x, return_dict=False):
                pooled = self.pool(x)
                if not return_dict:
                    if pooled is not None:
                        return (x, pooled)
                    else:
                        return (x,)
                return Output(x, pooled)
    """))
    guards, _ = guards_for(tree, "Model", {9})
    assert guards[9]["conditions"] == [["not return_dict", False, "construct"]]
    reach = evaluate(guards, _Instance(), {"return_dict": False})
    assert reach["9"] == {"reached": False, "condition": "not return_dict", "value": "True", "wanted": False}


def test_an_argument_construct_assigns_again_from_plain_values_is_evaluated():
    from ms_lint.validate.reach import rebound_values

    class Config:
        use_return_dict = True

    class Net:
        config = Config()

        def construct(self, x, return_dict=None, scale=None, mask=None):
            return_dict = return_dict if return_dict is not None else self.config.use_return_dict
            scale = scale or x.shape[0]
            if mask is None:
                return x
            mask = mask * 2
            return x

    names = {"return_dict": None, "scale": None, "mask": None}
    # scale's new value reads a tensor's shape; mask is assigned after a branch, which may read the default.
    assert rebound_values(Net.construct, names, instance=Net()) == {"return_dict": True}
    assert rebound_values(Net.construct, {**names, "return_dict": False}, instance=Net()) == {"return_dict": False}
    assert rebound_values(Net.construct, names) == {}  # without the instance, self.config is unknown

    class Other(Net):
        def construct(this, x, return_dict=None):
            return_dict = return_dict if return_dict is not None else this.config.use_return_dict
            return x

    # the instance is read by the name the method gives it
    assert rebound_values(Other.construct, {"return_dict": None}, instance=Other()) == {"return_dict": True}


def test_conditions_on_an_instance_parameter_not_named_self_are_evaluated():
    tree = ast.parse(textwrap.dedent("""\
        class Net(nn.Cell):
            def __init__(this, flag=False):
                super().__init__()
                this.flag = flag

            def construct(this, x):
                if this.flag:
                    x = a(x)
                return this.helper(x)

            def helper(me, x):
                if not me.flag:
                    x = b(x)
                return x
    """))
    guards, retries = guards_for(tree, "Net", {8, 13})
    instances = instance_parameters(tree, "Net")
    assert instances == {"__init__": "this", "construct": "this", "helper": "me"}
    assert {"name": "flag", "parameter": "flag", "value": True, "attribute": "flag"} in retries
    reach = evaluate(guards, _Flagged(), {}, instances=instances)
    assert reach["8"] == {"reached": False, "condition": "this.flag", "value": "False", "wanted": True}
    assert reach["13"] == {"reached": True}
    # without the instance parameters, nothing is known of this.flag
    assert evaluate(guards, _Flagged(), {})["8"] == {"reached": None, "unknown": "this.flag"}


class _Flagged:
    flag = False


def test_a_string_argument_kept_on_self_is_set_to_the_value_the_line_needs():
    source = textwrap.dedent("""\
        class Fused(nn.Cell):
            def __init__(self, fusion_type="add", pooling="avg"):
                super().__init__()
                assert fusion_type in ["add", "mul", "concat"]
                self.fusion_type = fusion_type
                self.pooling = pooling

            def construct(self, x):
                if self.fusion_type == "mul":
                    x = a(x)
                elif self.fusion_type == "add":
                    x = b(x)
                else:
                    x = c(x)
                if self.pooling != "max":
                    return x
                return d(x)
    """)
    lines = source.splitlines()
    line = {text: lines.index(f"            x = {text}(x)") + 1 for text in "abc"}
    line["d"] = lines.index("        return d(x)") + 1
    tree = ast.parse(source)
    for text, value in (("a", "mul"), ("c", "concat")):
        _, retries = guards_for(tree, "Fused", {line[text]})
        assert retries == [{"name": "flag", "parameter": "fusion_type", "value": value, "attribute": "fusion_type"}]
    # Compiled with the defaults already; and no value is guessed where the constructor names none.
    assert guards_for(tree, "Fused", {line["b"]})[1] == []
    assert guards_for(tree, "Fused", {line["d"]})[1] == [
        {"name": "flag", "parameter": "pooling", "value": "max", "attribute": "pooling"}]


def test_a_layer_built_in_a_host_method_is_not_run_when_the_cell_is_built():
    source = textwrap.dedent("""\
        class Block(nn.Cell):
            def __init__(self):
                super().__init__()
                self.setup()

            def setup(self):
                self.conv = nn.Conv2d(3, 3, 3, 1, 1)
                self.norm = Block.make_norm()

            @staticmethod
            def make_norm():
                return nn.BatchNorm2d(3, 1e-5, 0.1, True)

            def helper(self, x):
                return nn.Dense(3, 3, True)(x)

            def construct(self, x):
                return self.helper(x)

            def switch_to_deploy(self):
                self.fused = nn.Conv2d(3, 3, 3, 1, 1)


        class Derived(Block):
            def switch_to_deploy(self):
                self.fused = nn.Conv2d(3, 3, 3, 1, 1)
    """)
    lines = source.splitlines()
    built = {text: lines.index(text) + 1 for text in (
        "        self.conv = nn.Conv2d(3, 3, 3, 1, 1)", "        return nn.Dense(3, 3, True)(x)",
        "        self.fused = nn.Conv2d(3, 3, 3, 1, 1)", "        return nn.BatchNorm2d(3, 1e-5, 0.1, True)")}
    deploy = built["        self.fused = nn.Conv2d(3, 3, 3, 1, 1)"]
    tree = ast.parse(source)
    assert not_run(tree, "Block", set(built.values())) == {deploy: "switch_to_deploy"}
    # A base of the project's own may call any method while building: nothing is known.
    assert not_run(tree, "Derived", {len(lines)}) == {}


def test_host_calls_are_the_unreached_methods_callable_without_arguments():
    source = textwrap.dedent("""\
        from mindspore import nn

        class Block(Base):
            def __init__(self):
                super().__init__()
                self.prepare()

            def prepare(self):
                self.a = 1

            def construct(self, x):
                return x

            def switch_to_deploy(self, keep=True, *, fused=None):
                self.a = 2

            def fuse_with(self, other):
                self.a = 3

            @property
            def deployed(self):
                return self.a

            def __repr__(self):
                return "Block"
    """)
    lines = source.splitlines()
    at = {text.strip(): lines.index(text) + 1 for text in lines if text.strip().startswith(("self.a =", "return"))}
    tree = ast.parse(source)
    everywhere = set(at.values())
    # Whatever the bases (calling decides), a method building or construct runs is not one; one that needs an
    # argument, a property, a dunder are not called.
    assert host_calls(tree, "Block", everywhere) == {"switch_to_deploy": [at["self.a = 2"]]}
    assert host_calls(tree, "Block", {at["self.a = 1"]}) == {}
    assert host_calls(tree, "Missing", everywhere) == {}


def test_the_lines_only_users_call_are_those_of_methods_neither_building_nor_construct_runs():
    from ms_lint.validate.reach import called_by_users

    source = textwrap.dedent("""
        class Vocoder(PreTrainedModel):
            def __init__(self, config):
                super().__init__(config)
                self._initialize_weights()

            def construct(self, x):
                return x

            def _initialize_weights(self):
                self.a = 1

            def apply_weight_norm(self, name):
                self.a = 2
    """)
    lines = source.splitlines()
    at = {text.strip(): lines.index(text) + 1 for text in lines if text.strip().startswith("self.a =")}
    tree = ast.parse(source)
    # Whatever the bases: building runs _initialize_weights, only users call apply_weight_norm.
    assert called_by_users(tree, "Vocoder", set(at.values())) == {at["self.a = 2"]: "apply_weight_norm"}
    assert called_by_users(tree, "Missing", set(at.values())) == {}


@pytest.mark.mindspore
@needs_mindspore
def test_host_methods_are_called_on_a_built_instance_where_they_take_no_argument(projects, worker_pool):
    from ms_lint.engine import check_file
    from ms_lint.settings import Settings

    path = projects / "cells" / "vcells" / "host_methods.py"
    findings = [f for f in check_file(str(path), Settings(syntax_level="strict")) if f.code in ("MS602", "MS606")]
    lines = path.read_text().splitlines()
    assert [(f.line, f.code) for f in findings] == [
        (lines.index("        self.fused = nn.Conv2d(4, 4, 3, 1, 1)") + 1, "MS606"),
        (lines.index("            parameter.detach_()") + 1, "MS602"),
        (lines.index("        self.fused = nn.Conv2d(4, 4, 3, 1, 1)", 22) + 1, "MS606"),
        (lines.index("    def fuse_with(self, other):") + 2, "MS606"),
        (lines.index("                parameter.detach_()") + 1, "MS602"),
        (len(lines), "MS602")]
    report = validate_findings(findings, ValidateOptions(use_cache=False), pool=worker_pool)
    deploy, freeze, redeploy, fuse_with, freeze_except, out_channels = report.verdicts
    # The Cell builds and compiles: only calling the method shows the layer's error (and the missing method).
    assert deploy.verdict == CONFIRMED_BY_PROBE, deploy.message
    assert deploy.message.startswith("switch_to_deploy(), called in PyNative on a Deployable built for it, raised "
                                     "at this line: TypeError: For 'Conv2D', the type of 'pad_mode'")
    assert freeze.verdict == CONFIRMED_BY_PROBE, freeze.message
    assert "raised at this line: AttributeError" in freeze.message and "detach_" in freeze.message
    # A call that returns before the line, or a method that needs an argument, decides nothing.
    assert redeploy.verdict == NOT_REACHED, redeploy.message
    assert redeploy.message == ("not run: redeploy() is called neither while building Deployable nor from "
                                "construct")
    assert f"redeploy(), called in PyNative on a Deployable built for it, returned without running line " \
           f"{redeploy.finding.line}" in redeploy.notes
    assert fuse_with.verdict == NOT_REACHED, fuse_with.message
    assert not any("fuse_with()," in note for note in fuse_with.notes)
    # A PyTorch tensor method in a method that needs an argument: the method called on a real Tensor decides it.
    assert freeze_except.verdict == CONFIRMED_BY_PROBE, freeze_except.message
    assert freeze_except.message.startswith("Tensor([1.0, 2.0]).detach_() raises AttributeError: "), \
        freeze_except.message
    assert freeze_except.message.endswith("the line itself was not decided: not compiled: freeze_except() is not "
                                          "called from construct")
    assert out_channels.verdict == CONFIRMED_BY_PROBE, out_channels.message
    assert out_channels.message.startswith("Tensor([1.0, 2.0]).size() raises TypeError: 'int' object is not "
                                           "callable"), out_channels.message


def test_build_retries_switch_on_the_loops_and_flags_the_defaults_skip(projects):
    path = projects / "cells" / "vcells" / "skipped_layers.py"
    lines = path.read_text().splitlines()
    looped, flagged, sized = (index + 1 for index, text in enumerate(lines) if "nn.Conv2d(" in text)
    tree = ast.parse(path.read_text())
    assert build_retries(tree, "Head", {looped, flagged, sized}) == [
        {"parameter": "conv_dims", "value": [32], "lines": [looped]},
        {"parameter": "use_norm", "value": True, "lines": [flagged]},
        {"parameter": "in_channels", "value": 1025, "lines": [sized]}]
    # A line building runs anyway, or a class without __init__: nothing to switch on.
    assert build_retries(tree, "Head", {lines.index("        layers.append(nn.ReLU())") + 1}) == []
    assert build_retries(tree, "Missing", {looped}) == []


@pytest.mark.mindspore
@needs_mindspore
def test_a_construction_line_building_skips_is_built_with_the_argument_that_runs_it(projects, worker_pool):
    from ms_lint.engine import check_file
    from ms_lint.settings import Settings

    path = projects / "cells" / "vcells" / "skipped_layers.py"
    # each line of the cause: the validator builds each construction line on its own
    findings = [f for f in check_file(str(path), Settings(syntax_level="strict", each_line=True)) if f.code == "MS606"]
    report = validate_findings(findings, ValidateOptions(use_cache=False), pool=worker_pool)
    looped, flagged, sized = report.verdicts
    # Head() builds and compiles without running any of the three lines: that alone would prove nothing.
    assert looped.verdict == CONFIRMED, looped.message
    assert looped.message.startswith("with conv_dims=[32]: building raised at this line: TypeError")
    assert flagged.verdict == CONFIRMED, flagged.message
    assert flagged.message.startswith("with use_norm=True: building raised at this line: TypeError")
    assert sized.verdict == CONFIRMED, sized.message
    assert sized.message.startswith("with in_channels=1025: building raised at this line: TypeError")


@pytest.mark.mindspore
@needs_mindspore
def test_a_line_under_a_condition_ms_lint_cannot_evaluate_is_marked_and_compiled_again(projects, worker_pool):
    from ms_lint.engine import check_file
    from ms_lint.settings import Settings

    path = projects / "cells" / "vcells" / "shape_checks.py"
    findings = [f for f in check_file(str(path), Settings(syntax_level="strict")) if f.code in ("MS601", "MS102")]
    report = validate_findings(findings, ValidateOptions(use_cache=False), pool=worker_pool)
    verdict, swapped, after_fix = report.verdicts
    # Also in a compile that got past an earlier finding with its fix.
    assert swapped.verdict == CONFIRMED, swapped.message
    assert after_fix.verdict == NOT_REACHED, after_fix.message
    assert after_fix.message.startswith("after applying the fix for MS601 at line 21: not compiled: MindSpore left "
                                        "line 23 out of the graph (the compile passed with the line replaced")
    # MindSpore compares the static shapes while compiling and leaves the error path out: the marked line compiles.
    assert verdict.verdict == NOT_REACHED, verdict.message
    assert verdict.message == ("not compiled: MindSpore left line 14 out of the graph (the compile passed with the "
                               "line replaced by a call that raises when compiled; of the conditions over it, ms-lint "
                               "could not evaluate `y.shape != x.shape`)")


def test_a_method_is_called_from_construct_whatever_construct_names_its_instance():
    """Which methods construct reaches is read through construct's own first parameter, not a literal ``self``."""
    tree = ast.parse(textwrap.dedent("""
        class Net(nn.Cell):
            def helper(this, x):
                return x * 2

            def unused(this, x):
                return x

            def construct(net, x):
                return net.helper(x)
    """))
    guards, _ = guards_for(tree, "Net", {4, 7})
    assert guards[4]["called"] is True and guards[7]["called"] is False


@pytest.mark.mindspore
@needs_mindspore
def test_a_cell_whose_methods_call_their_instance_this_is_retried_and_probed_by_that_name(projects, worker_pool):
    path = projects / "cells" / "vcells" / "this_instance.py"
    findings = [
        finding_at(path, "x.asnumpy()", "MS102", "QuantizedThis"),
        finding_at(path, "Tensor(np.sin(x))", "MS101", "TrainOnlyThis"),
        finding_at(path, "Tensor(np.cos(x))", "MS101", "NeverOnThis", reported=False),  # a dropped branch
        finding_at(path, "this.stages = [", "MS201", "StagesThis"),
    ]
    assert findings[3].data["attribute"] == "stages"
    report = validate_findings(findings, ValidateOptions(use_cache=False), pool=worker_pool)
    quantized, train, host, stages = (next(v for v in report.verdicts if v.finding.line == f.line) for f in findings)
    assert quantized.verdict == CONFIRMED and quantized.message.startswith("with quant_mode=True: "), \
        quantized.message
    assert train.verdict == CONFIRMED and train.message.startswith("with set_train(True): "), train.message
    assert "`this.training` was False" in train.notes[-1]
    assert host.verdict == NOT_REACHED
    assert host.message.startswith("not compiled: `this.use_host` was False when the graph was built"), host.message
    assert "(register an example that sets it to compile the line)" in host.message
    assert stages.verdict == CONFIRMED_BY_PROBE, stages.message
    assert "held in the plain list this.stages: stages[0].weight" in stages.message, stages.message


@needs_mindspore
def test_an_input_passed_as_none_is_a_constant_its_conditions_fold_on():
    import mindspore
    from mindspore import nn

    from ms_lint.validate.instances import evaluate_reach
    from ms_lint.validate.jobs import JobState

    source = textwrap.dedent("""\
        class Attention(nn.Cell):
            def construct(self, x, cache=None, mask=None):
                if cache is not None:
                    x = cache.update(x)
                if mask is not None:
                    x = x + mask
                return x
    """)
    guards, _ = guards_for(ast.parse(source), "Attention", {4, 6})

    class Attention(nn.Cell):
        def construct(self, x, cache=None, mask=None):
            return x

    state = JobState({"guards": {str(line): guard for line, guard in guards.items()}, "qualname": "Attention"})
    tensor = mindspore.Tensor(shape=[-2], dtype=mindspore.float32)
    # Called as the Cell that builds it calls it: cache passed as None, mask as a tensor.
    state.inputs = (tensor, None, tensor)
    reach = evaluate_reach(None, state, Attention())
    assert reach["4"] == {"reached": False, "condition": "cache is not None", "value": "False", "wanted": True}
    assert reach["6"]["reached"] is True  # a condition on a tensor input: both sides are compiled
    # Left out, cache takes its default: the same.
    state.inputs = (tensor,)
    assert evaluate_reach(None, state, Attention())["4"]["reached"] is False


@pytest.mark.mindspore
@needs_mindspore
def test_conditions_on_buffers_fold_by_the_value_they_hold_when_built(projects, worker_pool):
    buffers = projects / "cells" / "vcells" / "buffers.py"
    findings = [
        finding_at(buffers, "Tensor(np.cos(x))", "MS101", "FlagBuffer"),
        finding_at(buffers, "Tensor(np.sin(x))", "MS101", "FlagBuffer"),
        finding_at(buffers, "Tensor(np.exp(x))", "MS101", "GateParameter"),
        finding_at(buffers, "Tensor(np.tan(x))", "MS101", "FlagBuffer"),
        finding_at(buffers, "Tensor(np.log(x))", "MS101", "TrainedBuffer"),
    ]
    report = validate_findings(findings, ValidateOptions(use_cache=False), pool=worker_pool)
    by_line = {verdict.finding.line: verdict for verdict in report.verdicts}
    # ``self.use_host = Tensor(False)``: a buffer is a constant of the graph, its branch folded away.
    host = by_line[findings[0].line]
    assert host.verdict == NOT_REACHED, host.message
    assert "`self.use_host` was False when the graph was built" in host.message
    # ``self.scale = Tensor(0.5)``: the condition holds, the line is compiled and fails.
    reached = by_line[findings[1].line]
    assert reached.verdict == CONFIRMED, reached.message
    # ``register_buffer("x_min", mint.zeros(1) - 1e-5)``, reduced: ``self.x_min.min() < -1.1e-5`` was False.
    registered = by_line[findings[3].line]
    assert registered.verdict == NOT_REACHED, registered.message
    assert "`self.x_min.min() < -1.1e-05` was False" in registered.message
    # Switched into train mode, the buffer still keeps the line out: the verdict says so.
    trained = by_line[findings[4].line]
    assert trained.verdict == NOT_REACHED, trained.message
    assert trained.message.startswith("not compiled: `self.training` was False"), trained.message
    assert "still not compiled with set_train(True) (`self.x_min.min() > -1.1e-05` was True)" in trained.message
    # A Parameter is read when the graph runs: both sides are compiled.
    gated = by_line[findings[2].line]
    assert gated.verdict == CONFIRMED, gated.message


@pytest.mark.parametrize("held, source, expected", [
    ("Tensor(False)", "self.flag", False),
    ("Tensor(True)", "not self.flag", False),
    ("Tensor(0.5, ms.float32)", "self.flag > 0", True),
    ("Tensor(3)", "self.flag == 3", True),
    ("Tensor([-1e-5], ms.float32)", "self.flag.min() > -1.1e-5 and self.flag.abs() < 1", True),
    ("Tensor([0.0], ms.float32)", "self.flag.any()", False),
    ("Tensor([1, 2])", "self.flag", "unknown"),  # more than one element: no truth value to fold
    ("Tensor([1, 2])", "self.flag.max() > 0", "unknown"),
    ("Parameter(Tensor(1.0, ms.float32), name='p')", "self.flag.min() > 0", "unknown"),
    ("2", "self.flag.max() > 0", "unknown"),  # a method of a plain value: not a buffer's
    ("Parameter(Tensor(1.0, ms.float32), name='p')", "self.flag > 0", "unknown"),  # read when the graph runs
    ("Tensor(shape=[-2], dtype=ms.float32)", "self.flag", "unknown"),  # no data
    ("np.array(1)", "self.flag", "unknown"),
])
@needs_mindspore
def test_a_buffer_is_read_as_the_value_it_holds(held, source, expected):
    import mindspore as ms  # noqa: F401 -- read by ``held``
    import numpy as np  # noqa: F401
    from mindspore import Parameter, Tensor  # noqa: F401

    instance = _Instance()
    instance.flag = eval(held)  # noqa: S307 -- the parametrized literals above
    value = condition_value(source, instance_names({"construct": "self"}, "construct", instance))
    assert (value if isinstance(value, bool) else "unknown") == expected


def test_a_finding_behind_a_short_circuit_of_its_own_line_is_under_that_operand():
    source = textwrap.dedent("""\
        class Net(nn.Cell):
            def construct(self, z, mask=None):
                if self.use_slicing and z.size(0) > 1:
                    z = z * 2
                y = z.size(0) if self.by_size else 3
                w = self.fixed or z.size(0)
                return self.use_slicing and z.size(0)
    """)
    tree = ast.parse(source)
    columns = {3: {32}, 5: {12}, 6: {27}, 7: {35, 15}}
    guards, _ = guards_for(tree, "Net", set(columns), columns=columns)
    assert guards[3]["conditions"] == [["self.use_slicing", True, "construct", True]]
    assert guards[5]["conditions"] == [["self.by_size", True, "construct", True]]
    assert guards[6]["conditions"] == [["self.fixed", False, "construct", True]]
    # Two findings on a line, one of them the first operand: only what both sit behind (nothing) counts.
    assert guards[7]["conditions"] == []

    class Off:
        use_slicing = False
        by_size = False
        fixed = True

    instances = instance_parameters(tree, "Net")
    states = evaluate(guards, Off(), {}, instances=instances)
    assert states["3"]["reached"] is False and states["3"]["condition"] == "self.use_slicing"
    assert states["5"]["reached"] is False and states["6"]["reached"] is False
    assert states["7"]["reached"] is True

    class On:
        use_slicing = True
        by_size = True
        fixed = False

    assert all(state["reached"] is True for state in evaluate(guards, On(), {}, instances=instances).values())
    # An operand ms-lint cannot read leaves the line as the statements over it say.
    assert evaluate(guards, object(), {}, instances=instances)["3"]["reached"] is True
    # Without the columns, nothing of the line's own expression counts.
    plain, _ = guards_for(tree, "Net", {3})
    assert plain[3]["conditions"] == []


@needs_mindspore
def test_short_circuits_the_instance_holds_decide_whether_the_line_is_compiled(projects, worker_pool):
    path = projects / "cells" / "vcells" / "short_circuit.py"
    findings = [
        finding_at(path, "z.size(0) > 1", "MS602", "Sliced"),
        finding_at(path, "z.size(0) > 1", "MS602", "SlicedAlways", occurrence=2),
        # ms-lint drops this one too (the flag is False in __init__): made up for the validator to refute
        finding_at(path, "z.size(0) if", "MS602", "Picked", reported=False),
        finding_at(path, "z.size(0) > 1", "MS602", "Either", occurrence=3),
    ]
    report = validate_findings(findings, ValidateOptions(use_cache=False), pool=worker_pool)
    by_scope = {verdict.finding.scope: verdict for verdict in report.verdicts}
    sliced = by_scope["Sliced"]
    assert sliced.verdict == NOT_REACHED, sliced.message
    assert "`self.use_slicing` was False" in sliced.message
    assert by_scope["SlicedAlways"].verdict == CONFIRMED, by_scope["SlicedAlways"].message
    assert by_scope["Picked"].verdict == NOT_REACHED and "`self.by_size` was False" in by_scope["Picked"].message
    assert by_scope["Either"].verdict == NOT_REACHED and "`self.fixed` was True" in by_scope["Either"].message


@needs_mindspore
@pytest.mark.parametrize("level", ["STRICT", "LAX"])
def test_mindspore_leaves_out_what_a_constant_short_circuit_skips(level):
    """What ``inline_conditions`` rests on, measured: a constant operand of ``and``/``or``/``if-else`` decides
    whether the other one is compiled (``z.size(0)`` fails to compile wherever it is)."""
    import mindspore as ms
    from mindspore import nn

    class Sliced(nn.Cell):
        def __init__(self, flag):
            super().__init__()
            self.flag = flag

        def construct(self, z):
            if self.flag and z.size(0) > 1:  # noqa: MS602 -- the hazard, measured
                return z * 2
            return z

    class Either(Sliced):
        def construct(self, z):
            if self.flag or z.size(0) > 1:  # noqa: MS602 -- the hazard, measured
                return z * 2
            return z

    class Picked(Sliced):
        def construct(self, z):
            return z * (z.size(0) if self.flag else 3)  # noqa: MS602 -- the hazard, measured

    ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=getattr(ms, level))
    x = ms.Tensor([[1.0, 2.0]])
    for cell, skipped in ((Sliced, False), (Either, True), (Picked, False)):
        cell(skipped)(x)  # compiles: the failing operand is left out
        with pytest.raises(ValueError, match="not callable"):
            cell(not skipped)(x)
