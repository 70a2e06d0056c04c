"""``@ms_lint.example``: registering examples, checking what they return, and the example text ms-lint suggests."""
from __future__ import annotations

import ast

import pytest

import ms_lint
from ms_lint import examples


@pytest.fixture(autouse=True)
def empty_registry():
    saved = examples.registered()
    examples.clear()
    yield
    examples.clear()
    for target, function in saved.items():
        examples.register(target)(function)


def test_the_decorator_registers_the_function_and_returns_it_unchanged():
    def build():
        return object, ()

    assert ms_lint.example("pkg.models:Decoder")(build) is build
    assert examples.lookup("pkg.models:Decoder") is build
    assert examples.registered() == {"pkg.models:Decoder": build}


@pytest.mark.parametrize("target", ["Decoder", "pkg.models.Decoder", "pkg.models:", ":Decoder", "pkg models:X", 3])
def test_a_malformed_target_is_refused_with_the_expected_form(target):
    with pytest.raises(examples.ExampleError, match="package.module:ClassName"):
        ms_lint.example(target)


def test_nested_class_targets_are_accepted():
    ms_lint.example("pkg.models:Outer.Inner")(lambda: (object, ()))
    assert "pkg.models:Outer.Inner" in examples.registered()


@pytest.mark.parametrize(
    "returned, inputs",
    [((len, (1, 2)), (1, 2)), ((len, [1, 2]), (1, 2)), ((len, 5), (5,)), ((len, None), ())],
)
def test_example_results_are_normalised_to_a_callable_and_an_input_tuple(returned, inputs):
    obj, normalized = examples.normalize_example_result("pkg:Cell", returned)
    assert obj is len and normalized == inputs


@pytest.mark.parametrize("returned", [len, (len,), (len, (), ()), (42, ())])
def test_an_example_returning_something_else_is_explained(returned):
    with pytest.raises(examples.ExampleError, match="pkg:Cell"):
        examples.normalize_example_result("pkg:Cell", returned)


def test_the_suggested_example_is_valid_python_naming_the_arguments_to_fill_in():
    text = examples.suggest_example("pkg.models:Decoder", ["vocab_size", "dim"], ["x", "mask"])
    ast.parse(text)
    assert '@ms_lint.example("pkg.models:Decoder")' in text
    assert "from pkg.models import Decoder" in text
    assert "cell = Decoder(vocab_size=..., dim=...)" in text
    assert "x = ms.Tensor(shape=[-2], dtype=ms.float32)" in text
    assert "return cell, (x, mask,)" in text


def test_a_probe_that_runs_the_cell_gets_concrete_inputs_in_the_suggestion():
    text = examples.suggest_example("pkg.noise:Noise", [], ["x"], concrete_inputs=True)
    ast.parse(text)
    assert "x = ms.ops.ones(" in text
    assert "cell = Noise()" in text


def test_a_jit_function_is_returned_as_itself():
    text = examples.suggest_example("pkg.steps:train_step", [], ["x"], is_cell=False)
    ast.parse(text)
    assert "cell = train_step\n" in text
    assert "def train_step_example():" in text
