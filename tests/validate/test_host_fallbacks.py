"""Building a Cell whose constructor needs an operator the device has no kernel for: the functions that dispatch
to it are computed on the host while the Cell is built, in the worker only; a compile that then fails at kernel
selection has passed the frontend."""
from __future__ import annotations

import pytest

from ms_lint.validate.verdicts import CONFIRMED, INCONCLUSIVE, NOT_REPRODUCED

from .conftest import finding_at, needs_mindspore, verdicts_by_scope

pytestmark = [pytest.mark.mindspore, needs_mindspore]


@pytest.fixture(scope="module")
def host(projects):
    return projects / "cells" / "vcells" / "host.py"


@pytest.fixture(scope="module")
def verdicts(host, worker_pool):
    findings = [
        finding_at(host, "np.sin(", "MS101", "Positions"),
        finding_at(host, "np.cos(", "MS101", "Shuffled"),
        finding_at(host, "np.sqrt(4.0)", "MS101", "Ramp", reported=False),  # made up: a constant compiles
    ]
    return {scope: verdict for (scope, _), verdict in verdicts_by_scope(findings, worker_pool).items()}


def test_operators_without_a_cpu_kernel_are_computed_on_the_host_while_building(verdicts):
    positions = verdicts["Positions"]
    assert positions.verdict == CONFIRMED, positions.message
    assert positions.built == ("Positions() (no arguments); computed on the host while building it (no CPU "
                               "kernel): Arange, InplaceUniform, ZerosLikeExt")


def test_an_operator_without_a_host_fallback_leaves_the_finding_inconclusive(verdicts):
    shuffled = verdicts["Shuffled"]
    assert shuffled.verdict == INCONCLUSIVE
    assert "no CPU kernel for RandpermExt" in shuffled.message
    assert "computed on the host" not in (shuffled.built or "")


def test_a_compile_failing_at_kernel_selection_has_passed_the_frontend(verdicts):
    ramp = verdicts["Ramp"]
    assert ramp.verdict == NOT_REPRODUCED, ramp.message
    assert ramp.message.startswith("the frontend compiled the graph, then the CPU backend has no kernel for "
                                   "LinSpaceExt")
    assert "Unsupported op [LinSpaceExt]" in ramp.compiler_message


def test_host_fallbacks_return_the_same_tensors_and_are_undone():
    import numpy as np

    import mindspore
    from mindspore import Tensor, mint

    from ms_lint.validate.fallbacks import FALLBACKS, host_fallbacks

    kernels = {kernel for _, _, operators, _ in FALLBACKS for kernel in operators}
    originals = {(owner, name): getattr(eval(owner, {"mindspore": mindspore}), name)  # noqa: S307
                 for owner, name, _, _ in FALLBACKS}
    used: set[str] = set()
    namespace = {"arange": mint.arange}
    with host_fallbacks(kernels, lambda: [namespace], used):
        ints = mint.arange(5)
        floats = namespace["arange"](0, 2, 0.5)
        assert ints.dtype == mindspore.int64 and ints.asnumpy().tolist() == [0, 1, 2, 3, 4]
        assert floats.dtype == mindspore.float32 and floats.asnumpy().tolist() == [0.0, 0.5, 1.0, 1.5]
        assert mint.linspace(0, 1, 3).asnumpy().tolist() == [0.0, 0.5, 1.0]
        assert mint.zeros_like(Tensor(np.ones((2, 3), np.int32))).dtype == mindspore.int32
        assert mint.full((2,), True).dtype == mindspore.bool_
        assert mint.nn.functional.pad(Tensor(np.ones((2, 3), np.float32)), (1, 2)).shape == (2, 6)
        weight = mindspore.Parameter(Tensor(np.zeros((3, 2), np.float32)))
        weight.normal_(0.0, 1.0)
        assert weight.asnumpy().std() > 0
        weight.data[1].zero_()  # a view: left alone, no failure
    assert used >= {"Arange", "LinSpaceExt", "ZerosLikeExt", "FillScalar", "ConstantPadND", "InplaceNormal",
                    "InplaceZero"}
    for (owner, name), original in originals.items():
        assert getattr(eval(owner, {"mindspore": mindspore}), name) is original  # noqa: S307
    assert namespace["arange"] is mint.arange


def test_a_config_far_too_large_is_not_built_unshrunk():
    import types

    from ms_lint.validate.building import config_recipes, estimated_parameters

    class HugeConfig:
        def __init__(self):
            self.hidden_size = 4096
            self.num_hidden_layers = 36
            self.vocab_size = 151936

    class SmallConfig(HugeConfig):
        def __init__(self):
            super().__init__()
            self.hidden_size, self.num_hidden_layers, self.vocab_size = 256, 4, 1000

    def model(config_class):
        class Model:
            def __init__(self, config):
                self.config = config

        Model.__init__.__annotations__["config"] = config_class
        return Model

    module = types.ModuleType("models")
    assert estimated_parameters(HugeConfig()) > 7_000_000_000
    huge = config_recipes(model(HugeConfig), module, ["config"])
    assert [recipe.description.split(" (")[0] for recipe in huge] == ["HugeConfig() with its defaults, shrunk"]
    small = config_recipes(model(SmallConfig), module, ["config"])
    assert len(small) == 2 and small[1].description == "SmallConfig() with its defaults"


@pytest.fixture(scope="module")
def switched_verdicts(projects, worker_pool):
    switched = projects / "cells" / "vcells" / "switched.py"
    findings = [
        finding_at(switched, "np.sin(", "MS101", "Switched"),
        finding_at(switched, "x.asnumpy()", "MS102", "Switched"),
        finding_at(switched, "np.cos(", "MS101", "KernelSwitched"),
    ]
    return verdicts_by_scope(findings, worker_pool)


def test_a_line_switched_off_is_compiled_by_the_retry_even_when_the_default_compile_failed(switched_verdicts):
    assert switched_verdicts["Switched", "MS102"].verdict == CONFIRMED
    sine = switched_verdicts["Switched", "MS101"]
    assert sine.verdict == CONFIRMED, sine.message
    assert sine.message.startswith("with quant_mode=True: ValueError")


def test_a_retry_runs_after_a_compile_that_failed_at_kernel_selection(switched_verdicts):
    cosine = switched_verdicts["KernelSwitched", "MS101"]
    assert cosine.verdict == CONFIRMED, cosine.message
    assert cosine.message.startswith("with quant_mode=True: ValueError")
    assert any(note.startswith("the default compile: the frontend compiled the graph, then the CPU backend has no "
                               "kernel for LinSpaceExt") for note in cosine.notes)


def test_an_argument_assigned_again_in_construct_is_not_read_as_its_default(projects, worker_pool):
    switched = projects / "cells" / "vcells" / "switched.py"
    # made up: np.sqrt of a constant compiles, which the validator is to find on the line it reaches
    verdicts = verdicts_by_scope([finding_at(switched, "np.sqrt(4.0)", "MS101", "Rebound", reported=False)],
                                 worker_pool)
    rebound = verdicts["Rebound", "MS101"]
    # use_scale=None would keep the line out; construct replaces it with self.use_scale (True) first, which the
    # validator evaluates as construct does: the line is in the graph, and np.sqrt of a constant compiles.
    assert rebound.verdict == NOT_REPRODUCED, rebound.message
    assert rebound.message == f"compiles under STRICT on CPU with line {rebound.finding.line} in the graph"


def test_a_line_under_a_flag_and_train_mode_is_compiled_with_both(projects, worker_pool):
    switched = projects / "cells" / "vcells" / "switched.py"
    verdicts = verdicts_by_scope([finding_at(switched, "np.tan(", "MS101", "Calibrated")], worker_pool)
    tangent = verdicts["Calibrated", "MS101"]
    assert tangent.verdict == CONFIRMED, tangent.message
    assert tangent.message.startswith("with quant_mode=True and set_train(True): ValueError")


def test_a_helper_function_called_under_a_flag_is_compiled_only_with_the_flag(projects, worker_pool):
    switched = projects / "cells" / "vcells" / "switched.py"
    helper_line = finding_at(switched, "x * np.sqrt(4.0)", "MS101", "scaled", occurrence=2, reported=False)
    verdicts = verdicts_by_scope([helper_line], worker_pool)
    helper = verdicts["scaled", "MS101"]
    # construct returns before the call unless quant_mode: the default compile does not have the line.
    assert helper.verdict == NOT_REPRODUCED, helper.message
    assert helper.message.startswith("with quant_mode=True: compiles under STRICT on CPU with line")
    assert any("`not self.quant_mode` was True" in note for note in helper.notes)


def test_a_line_under_a_string_flag_is_compiled_with_a_value_the_constructor_allows(projects, worker_pool):
    switched = projects / "cells" / "vcells" / "switched.py"
    verdicts = verdicts_by_scope([finding_at(switched, "np.tanh(", "MS101", "Fused")], worker_pool)
    fused = verdicts["Fused", "MS101"]
    assert fused.verdict == CONFIRMED, fused.message
    assert fused.message.startswith("with fusion_type='mul': ValueError"), fused.message
