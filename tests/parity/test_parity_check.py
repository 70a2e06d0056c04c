"""Parity checks on real MindSpore and PyTorch models (tiny, run in this process)."""
import numpy as np
import pytest

from ms_lint.parity import check_parity

pytestmark = [pytest.mark.mindspore, pytest.mark.torch]


def _rng_input(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def test_migration_guide_conv_default_pad_mode_is_found_with_its_hint(frameworks):
    from mindspore import nn
    import torch

    report = check_parity(nn.Conv2d(120, 240, 4), torch.nn.Conv2d(120, 240, 4), _rng_input(2, 120, 12, 12))

    assert not report.passed
    assert report.outputs[0].ms_shape == (2, 240, 12, 12)
    assert report.outputs[0].torch_shape == (2, 240, 9, 9)
    divergence = report.divergence
    assert divergence.where == "layer"
    assert (divergence.ms.type_name, divergence.torch.type_name) == ("Conv2d", "Conv2d")
    assert divergence.ms.output_shapes == [(2, 240, 12, 12)]
    assert divergence.torch.output_shapes == [(2, 240, 9, 9)]
    assert any("pads 'same' (its default pad_mode)" in hint and "pad_mode='valid'" in hint
               for hint in divergence.hints)
    # MindSpore's Conv2d also defaults to has_bias=False: PyTorch's bias cannot be transferred, and says why.
    [problem] = report.weights.problems
    assert (problem.kind, problem.torch_key) == ("unmapped_torch", "bias")
    assert "has_bias=True" in problem.hint
    text = report.render_text()
    assert "(2, 240, 12, 12) (MindSpore) vs (2, 240, 9, 9) (PyTorch)" in text
    assert "FAIL" in text


@pytest.mark.parametrize("padding", [{"pad_mode": "valid"}, {"pad_mode": "pad", "padding": 0}])
def test_migration_guide_conv_with_explicit_padding_matches(frameworks, padding):
    from mindspore import nn
    import torch

    report = check_parity(nn.Conv2d(120, 240, 4, has_bias=True, **padding), torch.nn.Conv2d(120, 240, 4),
                          _rng_input(2, 120, 12, 12))

    assert report.passed, report.render_text()
    assert report.weights.complete
    assert report.outputs[0].max_abs < 1e-5
    assert report.divergence is None
    assert not report.notes


def test_batchnorm_and_dense_network_maps_every_tensor_and_matches_in_eval_mode(frameworks):
    cell = frameworks.MsConvBnDense()
    module = frameworks.randomize_running_stats(frameworks.TorchConvBnDense())

    report = check_parity(cell, module, _rng_input(4, 3, 6, 6))

    assert report.passed, report.render_text()
    assert report.weights.problems == []
    mapped = {t.ms_name: (t.torch_key, t.how) for t in report.weights.transferred}
    assert mapped["bn.moving_mean"] == ("bn.running_mean", "rename")
    assert mapped["bn.moving_variance"] == ("bn.running_var", "rename")
    assert mapped["bn.gamma"] == ("bn.weight", "rename")
    assert mapped["head.1.beta"] == ("head.1.bias", "rename")
    assert mapped["head.2.weight"] == ("head.2.weight", "name")
    assert len(mapped) == len([k for k in module.state_dict() if not k.endswith("num_batches_tracked")])
    assert report.aligned_layers == report.layer_counts[0] == report.layer_counts[1] == 6


def test_embedding_and_layernorm_renames(frameworks):
    ids = np.random.default_rng(0).integers(0, 20, size=(2, 5)).astype(np.int32)

    report = check_parity(frameworks.MsTextEncoder(), frameworks.TorchTextEncoder(), ids)

    assert report.passed, report.render_text()
    mapped = {t.ms_name: t.torch_key for t in report.weights.transferred}
    assert mapped["embed.embedding_table"] == "embed.weight"
    assert mapped["norm.gamma"] == "norm.weight"
    assert mapped["norm.beta"] == "norm.bias"


def test_a_different_activation_in_the_middle_is_the_first_diverging_layer(frameworks):
    from mindspore import nn

    report = check_parity(frameworks.MsMlp(activation=nn.Tanh()), frameworks.TorchMlp(), _rng_input(3, 6))

    assert not report.passed
    divergence = report.divergence
    assert divergence.where == "layer"
    assert (divergence.ms.path, divergence.torch.path) == ("act", "act")
    assert (divergence.ms.type_name, divergence.torch.type_name) == ("Tanh", "ReLU")
    assert all(diff.ok for diff in divergence.input_diffs)
    assert any("different layer types" in hint for hint in divergence.hints)
    assert "first diverging layer: act (MindSpore) <-> act (PyTorch)" in report.render_text()


def test_faithful_port_of_the_same_network_matches(frameworks):
    report = check_parity(frameworks.MsMlp(), frameworks.TorchMlp(), _rng_input(3, 6))
    assert report.passed, report.render_text()


def test_a_functional_difference_between_layers_is_located_between_them(frameworks):
    report = check_parity(frameworks.MsMlpFunctionalSlip(), frameworks.TorchMlp(), _rng_input(3, 6))

    divergence = report.divergence
    assert divergence.where == "between"
    assert divergence.previous_ms.path == "fc2"
    assert divergence.ms.path == "fc3"
    assert "between fc2 and fc3" in report.render_text()


def test_code_after_the_last_layer_is_located_after_it(frameworks):
    report = check_parity(frameworks.MsMlpScaledOutput(), frameworks.TorchMlp(), _rng_input(3, 6))

    assert report.divergence.where == "after"
    assert report.divergence.ms.path == "fc3"


def test_layers_on_one_side_only_are_skipped_by_the_alignment(frameworks):
    from mindspore import ops

    faithful = check_parity(frameworks.MsFunctionalActivations(), frameworks.TorchReluModules(), _rng_input(3, 6))
    assert faithful.passed, faithful.render_text()
    assert faithful.layer_counts == (3, 5) and faithful.aligned_layers == 3

    wrong = check_parity(frameworks.MsFunctionalActivations(ops.tanh), frameworks.TorchReluModules(),
                         _rng_input(3, 6))
    divergence = wrong.divergence
    assert divergence.where == "between"
    assert (divergence.previous_ms.path, divergence.ms.path) == ("fc1", "fc2")
    assert [ref.path for ref in divergence.unaligned_torch] == ["act1"]
    assert any("PyTorch runs act1 (ReLU) here" in hint for hint in divergence.hints)


def test_weights_with_other_names_are_paired_by_order_and_shape(frameworks):
    report = check_parity(frameworks.MsRenamed(), frameworks.TorchMlp(), _rng_input(3, 6))

    assert report.passed, report.render_text()
    mapped = {t.ms_name: (t.torch_key, t.how) for t in report.weights.transferred}
    assert mapped == {
        "dense_in.weight": ("fc1.weight", "order"), "dense_in.bias": ("fc1.bias", "order"),
        "dense_mid.weight": ("fc2.weight", "order"), "dense_mid.bias": ("fc2.bias", "order"),
        "dense_out.weight": ("fc3.weight", "order"), "dense_out.bias": ("fc3.bias", "order"),
    }


def test_user_map_overrides_and_leaves_out(frameworks):
    # Deliberately crossed: the map wins over the names, so the outputs must differ.
    weight_map = {"fc2.bias": None, "fc1.weight": "fc1.weight"}
    report = check_parity(frameworks.MsMlp(), frameworks.TorchMlp(), _rng_input(3, 6), weight_map=weight_map)

    how = {t.ms_name: t.how for t in report.weights.transferred}
    assert how["fc1.weight"] == "map"
    kinds = {(p.kind, p.ms_name or p.torch_key) for p in report.weights.problems}
    assert kinds == {("skipped_by_map", "fc2.bias"), ("unmapped_torch", "fc2.bias")}
    assert not report.passed
    assert report.divergence.ms.path == "fc2"
    assert any("not transferred" in hint and "fc2.bias" in hint for hint in report.divergence.hints)


def test_shape_mismatched_weights_are_listed_not_skipped(frameworks):
    from mindspore import nn
    import torch

    report = check_parity(nn.Dense(4, 3), torch.nn.Linear(4, 5), _rng_input(2, 4))

    problems = {(p.kind, p.ms_name, p.torch_key) for p in report.weights.problems}
    assert ("shape_mismatch", "weight", "weight") in problems
    assert ("shape_mismatch", "bias", "bias") in problems
    assert "shape mismatch: MindSpore weight (3, 4) vs PyTorch weight (5, 4)" in report.render_text()
    assert not report.passed


def test_mindspore_failure_downstream_is_reported_and_traced_to_the_conv(frameworks):
    report = check_parity(frameworks.MsConvIntoDense(), frameworks.TorchConvIntoDense(), _rng_input(1, 3, 6, 6))

    assert not report.passed
    [failure] = report.failures
    assert failure.framework == "MindSpore"
    assert failure.layer.path == "fc"
    assert report.divergence.ms.path == "conv1"
    assert any("pad" in hint for hint in report.divergence.hints)


def test_settings_copied_from_pytorch_are_flagged(frameworks):
    report = check_parity(frameworks.MsCopiedSettings(), frameworks.TorchCopiedSettings(), _rng_input(3, 4))

    notes = {note.ms_path: note for note in report.notes}
    assert "momentum=1 - PyTorch" not in notes["bn"].message
    assert "pass momentum=0.9" in notes["bn"].message and notes["bn"].affects == "training"
    assert "approximate=False" in notes["gelu"].message and notes["gelu"].affects == "outputs"
    assert "keep_prob" in notes["drop"].message
    # The tanh-approximated GELU is the first layer whose outputs differ.
    assert report.divergence.ms.path == "gelu"


def test_train_mode_uses_batch_statistics_on_both_sides(frameworks):
    cell = frameworks.MsConvBnDense()
    module = frameworks.randomize_running_stats(frameworks.TorchConvBnDense())

    report = check_parity(cell, module, _rng_input(4, 3, 6, 6), train=True)

    assert report.mode == "train"
    assert report.passed, report.render_text()
    assert not report.warnings
    assert cell.training and module.training


def test_train_mode_warns_that_dropout_is_random(frameworks):
    report = check_parity(frameworks.MsCopiedSettings(), frameworks.TorchCopiedSettings(), _rng_input(3, 4),
                          train=True)
    assert any("Dropout draws different random masks" in warning for warning in report.warnings)


def test_json_report_round_trips(frameworks):
    import json

    report = check_parity(frameworks.MsMlp(), frameworks.TorchMlp(), _rng_input(3, 6))
    data = json.loads(report.to_json())
    assert data["status"] == "match" and data["passed"] is True
    assert data["outputs"][0]["ms_shape"] == [3, 3]
    assert len(data["weights"]["transferred"]) == 6


def test_fixture_returns_the_report_on_a_match(frameworks, ms_parity):
    report = ms_parity(frameworks.MsMlp(), frameworks.TorchMlp(), _rng_input(3, 6), atol=1e-5, rtol=1e-4)
    assert report.passed


def test_fixture_fails_the_test_with_the_report(frameworks, ms_parity):
    from mindspore import nn

    with pytest.raises(pytest.fail.Exception) as failure:
        ms_parity(frameworks.MsMlp(activation=nn.Tanh()), frameworks.TorchMlp(), _rng_input(3, 6))
    assert "first diverging layer: act (MindSpore) <-> act (PyTorch)" in str(failure.value)


def test_fixture_reports_unusable_inputs_in_one_line(frameworks, ms_parity):
    with pytest.raises(pytest.fail.Exception) as failure:
        ms_parity(frameworks.MsMlp(), frameworks.TorchMlp(), object())
    assert str(failure.value).startswith("ms_parity: inputs: cannot use a object")
