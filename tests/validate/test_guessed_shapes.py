"""Input shapes guessed without an example: through an activation to the layer after it, and a fixed rank for
an input of any rank when the compile fails for want of it."""
from __future__ import annotations

from dataclasses import replace
from importlib.metadata import version

import pytest

from ms_lint import mindspore_api as api
from ms_lint.validate.verdicts import CONFIRMED, CONFIRMED_BY_PROBE, NOT_REPRODUCED

from .conftest import finding_at, needs_mindspore, verdicts_by_scope

pytestmark = [pytest.mark.mindspore, needs_mindspore]


@pytest.fixture(scope="module")
def verdicts(projects, worker_pool):
    shapes = projects / "cells" / "vcells" / "shapes.py"
    findings = [
        finding_at(shapes, "np.sin(shift)", "MS101", "Modulated"),
        finding_at(shapes, "np.sin(y)", "MS101", "Flattened"),
        finding_at(shapes, "x.transpose(1, 2) * 2", "MS601", "Swapped"),
        finding_at(shapes, "tokens.transpose(1, 2) * 2", "MS601", "Pooled"),
        finding_at(shapes, "q.transpose(-1, -2)", "MS601", "Heads"),
        finding_at(shapes, "np.sin(merged)", "MS101", "Repeated"),
    ]
    return verdicts_by_scope(findings, worker_pool)


def test_an_input_given_to_a_layer_through_an_activation_takes_the_layer_s_shape(verdicts):
    modulated = verdicts["Modulated", "MS101"]
    assert modulated.verdict == CONFIRMED, modulated.message
    assert modulated.inputs == ["emb: [2, 8], as its first layer is Dense(8, ...)"]


def test_an_input_of_any_rank_gets_rank_3_when_the_compile_needs_its_rank(verdicts):
    flattened = verdicts["Flattened", "MS101"]
    assert flattened.verdict == CONFIRMED, flattened.message
    assert flattened.inputs == [
        "x: float32 of rank 3, any size (of any rank, the compile failed with dynamic rank)"]


def test_an_input_of_any_rank_gets_a_rank_when_code_without_a_finding_unpacks_more_sizes_than_the_compile_gave(
        verdicts):
    repeated = verdicts["Repeated", "MS101"]
    assert repeated.verdict == CONFIRMED, repeated.message
    assert repeated.inputs == [
        "x: float32 of rank 3, any size (of any rank, the compile failed with dynamic rank)"]


@pytest.mark.parametrize("scope, inputs", [
    # the fixed rank reaches the hazard the input of any rank hid
    ("Swapped", "x: float32 of rank 3, any size (of any rank, the compile failed with dynamic rank)"),
    # a rank the code shows is wrong (four sizes unpacked from a rank-3 shape) gives way to the next
    ("Pooled", "x: float32 of rank 4, any size (of any rank, the compile failed with dynamic rank)"),
    # an input for a Dense layer becomes a sequence where the code needs more axes
    ("Heads", "queries: [2, 64, 8], a sequence for its first layer Dense(8, ...) (rank 2 failed where the code "
              "needs more axes)"),
], ids=["fixed-rank", "wrong-rank-gives-way", "dense-input-as-sequence"])
def test_the_shape_given_reaches_the_transpose_hazard(verdicts, scope, inputs):
    transpose = verdicts[scope, "MS601"]
    assert transpose.verdict == CONFIRMED, transpose.message
    assert "the number of axes must be equal" in transpose.message
    assert transpose.inputs == [inputs]


def test_a_missing_tensor_method_raising_at_its_line_while_building_confirms_it(projects, worker_pool):
    eager = projects / "cells" / "vcells" / "eager.py"
    detach = finding_at(eager, "detach_()", "MS602", "Positions")
    findings = [replace(detach, message=".detach_() is a PyTorch tensor method that MindSpore's Tensor does not have"),
                # made up where the Tensor has requires_grad_ (2.7.1 and later), a finding on 2.7.0
                replace(finding_at(eager, "requires_grad_(False)", "MS602", "Other",
                                   reported="requires_grad_" not in api.tensor_methods(version("mindspore"))),
                        message=".requires_grad_() is a PyTorch tensor method that MindSpore's Tensor does not have",
                        data=dict(detach.data, name="requires_grad_", property=False))]
    verdicts = verdicts_by_scope(findings, worker_pool)
    detach, other = verdicts["Positions", "MS602"], verdicts["Other", "MS602"]
    assert detach.verdict == CONFIRMED, detach.message
    assert detach.message == ("AttributeError: 'Parameter' object has no attribute 'detach_' (raised at this line "
                              "while building the instance)")
    if "requires_grad_" not in api.tensor_methods(version("mindspore")):  # 2.7.0 (its generated tables)
        # The Tensor has no requires_grad_: the line raises for the finding's own reason.
        assert other.verdict == CONFIRMED, other.message
        assert other.message == ("AttributeError: 'Tensor' object has no attribute 'requires_grad_' (raised at this "
                                 "line while building the instance)")
        return
    # Raised at the finding's line, but naming an attribute the finding is not about: that decides nothing, and the
    # method called on a real Tensor runs (this finding was made up: MindSpore's Tensor has requires_grad_).
    assert other.verdict == NOT_REPRODUCED, other.message
    assert other.message.startswith("Tensor([1.0, 2.0]).requires_grad_() runs on the installed MindSpore; the line "
                                    "itself was not decided: Other() (no arguments) raised AttributeError: "
                                    "'NoneType' object has no attribute 'missing_method'"), other.message


def test_the_other_required_arguments_of_a_config_driven_cell_are_guessed():
    import types

    from ms_lint.validate.building import config_recipes

    class TinyConfig:
        def __init__(self):
            self.hidden_size = 64

    class Attention:
        def __init__(self, config, layer_idx):
            self.config, self.layer_idx = config, layer_idx

    Attention.__init__.__annotations__["config"] = TinyConfig
    recipe = config_recipes(Attention, types.ModuleType("models"), ["config", "layer_idx"])[0]
    assert recipe.description == "TinyConfig() with its defaults, shrunk (hidden_size=32), layer_idx=0"
    assert recipe.kwargs["layer_idx"] == 0
    assert recipe.guessed == {"layer_idx": 0}


def test_a_hazard_shown_in_a_cell_built_from_guessed_arguments_is_confirmed_by_probe_only(projects, worker_pool):
    shapes = projects / "cells" / "vcells" / "shapes.py"
    found = [finding_at(shapes, "return z.size(0)", "MS602", "Channels"),
             finding_at(shapes, "nn.Conv2d(channels, channels, 3, padding=1)", "MS205", "PaddedChannels")]
    verdicts = verdicts_by_scope(found, worker_pool)
    # On the compile, and on the build itself: the line raised in a Cell built with a value of ms-lint's.
    for verdict, error in ((verdicts[("Channels", "MS602")], "ValueError"),
                           (verdicts[("PaddedChannels", "MS205")], "ValueError")):
        assert verdict.verdict == CONFIRMED_BY_PROBE, verdict.message
        assert verdict.message.startswith(error), verdict.message
        assert any(note.startswith("confirmed by probe, not confirmed: the Cell was built with channels=32 guessed "
                                   "from the names") for note in verdict.notes), verdict.notes
