"""The shipped MindSpore API tables: their shape, known facts, and that they match the installed MindSpore."""
from __future__ import annotations

import gc
import importlib.metadata
import importlib.util
import json
import subprocess
import sys
from importlib import resources

import pytest

from ms_lint import mindspore_api as api
from ms_lint.tools import generate_tables

SHIPPED_TEXT = resources.files("ms_lint").joinpath("data/mindspore_api.json").read_text(encoding="utf-8")
SHIPPED = json.loads(SHIPPED_TEXT)


def test_top_level_keys():
    assert set(SHIPPED) == {
        "mindspore_version", "nn_cells", "mint_nn_cells", "jit_forbidden", "ops_functions", "ops_primitives",
        "dataset_transforms", "tensor_methods", "tensor_properties", "module_names", "signatures", "deprecations",
    }
    assert SHIPPED["mindspore_version"].startswith("2.10.")


def test_file_is_in_canonical_form():
    # Regenerating must give byte-identical output, so the shipped file is exactly the canonical rendering.
    assert generate_tables.render(SHIPPED) == SHIPPED_TEXT


def test_every_list_is_sorted_and_unique():
    lists = [SHIPPED["ops_functions"], SHIPPED["ops_primitives"], SHIPPED["dataset_transforms"],
             SHIPPED["tensor_methods"], SHIPPED["tensor_properties"], SHIPPED["jit_forbidden"]["functions"],
             SHIPPED["jit_forbidden"]["modules"],
             *SHIPPED["jit_forbidden"]["methods"].values()]
    for names in lists:
        assert names == sorted(set(names))


def test_the_loaded_tables_are_the_shipped_ones_and_the_garbage_collector_leaves_them_alone():
    # Loaded once and held for the whole run: tuples and dicts of strings leave the collector's lists, so the full
    # collections of a long flake8 run do not walk them (a list never leaves them).
    loaded = api.tables()
    assert json.loads(json.dumps(loaded)) == SHIPPED
    assert api.signatures("mindspore.nn.Dense")[0].text == SHIPPED["signatures"]["mindspore.nn"]["Dense"][0]
    for _ in range(3):  # a collection lets go of a tuple once the tuples inside it are let go: one level at a time
        gc.collect()
    assert not any(gc.is_tracked(loaded[name]) for name in (
        "ops_functions", "ops_primitives", "tensor_methods", "module_names"))
    # (the signatures' one dict of namespaces stays, the thousands of entries under it leave)
    assert not any(gc.is_tracked(entries) for entries in loaded["signatures"].values())
    assert not any(gc.is_tracked(entry) for entry in loaded["nn_cells"].values())  # (a dict of dicts stays)
    # The name tables asked ``name in table`` (thousands of names) are dicts of strings, which the collector never
    # tracks, where frozensets would be walked by every full collection.
    forbidden = api.jit_forbidden()
    name_tables = [*(api.module_names(module) for module in SHIPPED["module_names"]), api.tensor_methods(),
                   api.tensor_properties(), forbidden.functions, *forbidden.methods.values()]
    assert sum(len(table) for table in name_tables) > 5000
    assert not any(gc.is_tracked(table) for table in name_tables)


def test_mint_layers_are_classified_like_nn_layers():
    cells = SHIPPED["mint_nn_cells"]
    assert cells["Linear"]["parameters"] is True
    assert cells["Conv2d"]["parameters"] is True
    assert cells["ReLU"]["parameters"] is False
    assert cells["Dropout"]["parameters"] is False
    assert all(not entry["optimizer"] for entry in cells.values())


def test_nn_cell_entries_have_the_documented_shape():
    cells = SHIPPED["nn_cells"]
    assert len(cells) > 150
    for name, entry in cells.items():
        assert set(entry) == {"parameters", "optimizer"}, name
        assert entry["parameters"] in (True, False, "wrapped"), name
        assert isinstance(entry["optimizer"], bool), name
        if entry["optimizer"]:
            # Every optimizer owns at least its global step and learning rate.
            assert entry["parameters"] is True, name


@pytest.mark.parametrize("name", ["Dense", "Conv2d", "BatchNorm2d", "LayerNorm", "Embedding", "LSTM", "GRU",
                                  "RNN", "PReLU", "MultiheadAttention", "TransformerEncoderLayer"])
def test_weighted_layers_own_parameters(name):
    assert SHIPPED["nn_cells"][name]["parameters"] is True


@pytest.mark.parametrize("name", ["ReLU", "Softmax", "Flatten", "Dropout", "MaxPool2d", "AvgPool2d", "MSELoss",
                                  "CrossEntropyLoss", "SoftmaxCrossEntropyWithLogits", "Identity", "Cell"])
def test_weightless_cells_own_none(name):
    assert SHIPPED["nn_cells"][name]["parameters"] is False


@pytest.mark.parametrize("name", ["SequentialCell", "CellList", "CellDict", "WithLossCell", "TrainOneStepCell",
                                  "WithEvalCell"])
def test_containers_and_wrappers_are_wrapped(name):
    assert SHIPPED["nn_cells"][name]["parameters"] == "wrapped"


def test_optimizers_are_marked():
    cells = SHIPPED["nn_cells"]
    for name in ("Momentum", "Adam", "SGD", "Optimizer"):
        assert cells[name]["optimizer"] is True
    for name in ("Dense", "TrainOneStepCell", "CosineDecayLR"):
        assert cells[name]["optimizer"] is False


def test_jit_forbidden_methods():
    methods = SHIPPED["jit_forbidden"]["methods"]
    assert {"trainable_params", "untrainable_params", "get_parameters", "register_forward_hook"} <= set(
        methods["Cell"])
    assert "set_data" in methods["Parameter"]
    assert "assign_value" in methods["Tensor"]
    # Construction is not refused by the compiler, so registered constructors are left out.
    assert not any(name.startswith("__") for names in methods.values() for name in names)


def test_jit_forbidden_functions_and_modules():
    forbidden = SHIPPED["jit_forbidden"]
    assert {"mindspore.context", "mindspore.common.initializer", "mindspore.log"} <= set(forbidden["modules"])
    functions = set(forbidden["functions"])
    # Both the defining name and the public re-export are listed.
    assert {"mindspore.context.set_context", "mindspore.set_context", "mindspore.get_context",
            "mindspore.common.initializer.initializer", "mindspore.common.initializer.Normal",
            "mindspore.log.info"} <= functions


def test_operator_tables():
    assert {"add", "matmul", "reshape", "flip", "div"} <= set(SHIPPED["ops_functions"])
    assert {"Add", "ReduceSum", "MatMul"} <= set(SHIPPED["ops_primitives"])
    assert all(name[0].isupper() for name in SHIPPED["ops_primitives"])
    assert all(not name[0].isupper() for name in SHIPPED["ops_functions"])
    assert "mindspore.dataset.vision.Resize" in SHIPPED["dataset_transforms"]


def test_difference_summary_names_the_changed_facts():
    tampered = json.loads(SHIPPED_TEXT)
    tampered["nn_cells"]["Dense"]["parameters"] = False
    tampered["ops_primitives"].remove("Add")
    lines = generate_tables.difference_summary(generate_tables.render(tampered), SHIPPED_TEXT)
    assert '- nn_cells.Dense.parameters = false' in lines
    assert '+ nn_cells.Dense.parameters = true' in lines
    assert '+ ops_primitives[] "Add"' in lines


def test_difference_summary_reports_invalid_json():
    lines = generate_tables.difference_summary("{not json", SHIPPED_TEXT)
    assert len(lines) == 1 and "not valid JSON" in lines[0]


def test_without_mindspore_the_generator_fails_in_one_line(tmp_path):
    output = tmp_path / "tables.json"
    script = (
        "import sys; sys.modules['mindspore'] = None\n"
        "from ms_lint.tools.generate_tables import main\n"
        f"sys.exit(main(['--output', {str(output)!r}]))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "cannot import MindSpore" in result.stderr
    assert "Traceback" not in result.stderr
    assert not output.exists()


def _require_shipped_mindspore() -> str:
    """The installed MindSpore's version, when ms-lint ships its tables. (2.7.1.post1 is answered by 2.7.1's, from
    which its own differ only by the private ``mindspore.mint.distributed._utils``.)"""
    if importlib.util.find_spec("mindspore") is None:
        pytest.skip("MindSpore is not installed")
    installed = importlib.metadata.version("mindspore")
    if installed not in api.shipped_versions():
        pytest.skip(f"ms-lint ships no tables of the installed MindSpore {installed}'s own")
    return installed


def _run_generator(*args: str, cwd) -> subprocess.CompletedProcess:
    # A separate process: the generator builds every nn Cell, which must not touch this process's MindSpore state.
    return subprocess.run([sys.executable, "-m", "ms_lint.tools.generate_tables", *args],
                          capture_output=True, text=True, timeout=600, cwd=cwd)


@pytest.mark.mindspore
def test_shipped_tables_match_the_installed_mindspore(tmp_path):
    _require_shipped_mindspore()
    result = _run_generator("--check", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "up to date" in result.stdout


@pytest.mark.mindspore
def test_check_reports_a_stale_file(tmp_path):
    version = _require_shipped_mindspore()
    tampered = json.loads(generate_tables.render(generate_tables.shipped_tables()[version]))
    tampered["jit_forbidden"]["methods"]["Cell"].remove("trainable_params")
    stale = tmp_path / "stale.json"
    stale.write_text(generate_tables.render(tampered), encoding="utf-8")
    result = _run_generator("--check", "--output", str(stale), cwd=tmp_path)
    assert result.returncode == 1
    assert '+ jit_forbidden.methods.Cell[] "trainable_params"' in result.stdout
    # --check never writes.
    assert stale.read_text(encoding="utf-8") == generate_tables.render(tampered)


def test_tensor_methods_hold_mindspore_tensor_api_and_not_pytorch_only_methods():
    methods = set(SHIPPED["tensor_methods"])
    assert {"asnumpy", "swapaxes", "transpose", "set_data", "requires_grad", "clamp", "view"} <= methods
    assert not {"detach", "cuda", "cpu", "backward"} & methods


def test_cell_keywords_are_the_constructor_s_names_and_leave_out_classes_taking_any():
    def keywords(name):
        return api.cell_keywords(name)

    assert {"in_channels", "out_channels", "has_bias", "weight_init"} <= set(keywords("mindspore.nn.Dense"))
    assert "bias" not in keywords("mindspore.nn.Dense") and "bias" in keywords("mindspore.mint.nn.Linear")
    assert "group" in keywords("mindspore.nn.Conv1d") and "groups" not in keywords("mindspore.nn.Conv1d")
    assert keywords("mindspore.nn.ReLU") == ()
    # An optimizer's constructor is wrapped in decorators taking (*args, **kwargs) that call the real one: the
    # keywords are the real one's (nn.SGD(params, lr=0.1) raises TypeError).
    assert "learning_rate" in keywords("mindspore.nn.SGD") and "lr" not in keywords("mindspore.nn.SGD")
    assert keywords("mindspore.ops.Add") is None
    assert all(names == tuple(sorted(set(names))) for names in api._cell_keywords(api.tables_version()).values())


def test_tensor_properties_are_the_attributes_read_as_values():
    properties = set(SHIPPED["tensor_properties"])
    # size is one: PyTorch's x.size(0) calls it (MS602); the methods are not.
    assert {"size", "shape", "dtype", "ndim"} <= properties <= set(SHIPPED["tensor_methods"])
    assert not {"view", "reshape", "numel", "dim"} & properties


def test_module_names_hold_each_module_s_attributes_and_submodules_and_not_pytorch_s():
    names = {module: set(text.split()) for module, text in SHIPPED["module_names"].items()}
    assert {"Dense", "Cell", "CellList", "utils", "probability"} <= names["mindspore.nn"]  # probability: not imported
    assert not {"functional", "ParameterDict"} & names["mindspore.nn"]
    assert "softmax" in names["mindspore.mint.nn.functional"] and "functional" in names["mindspore.mint.nn"]
    assert "weight_norm" not in names["mindspore.nn.utils"]
    assert all(text.split() == sorted(set(text.split())) for text in SHIPPED["module_names"].values())


def test_signatures_hold_each_callable_s_parameters_as_python_or_mindspore_s_parser_says():
    signatures = SHIPPED["signatures"]
    assert signatures["mindspore.ops"]["softmax"] == ["input, axis=-1, *, dtype=None"]
    assert signatures["mindspore.nn"]["Dense"][0].startswith("in_channels, out_channels, weight_init=None")
    # A Tensor method implemented in C++: the forms MindSpore's argument parser lists, defaults not said.
    assert signatures["mindspore.Tensor"]["sum"] == ["axis=?, dtype=?, keepdims=?, initial=?",
                                                     "dim=?, keepdim=?, *, dtype=?"]
    # A generated functional taking (*args, **kwargs): its forms from the parser too.
    assert "input=?, dim=?, keepdim=?" in signatures["mindspore.mint"]["max"]
    # What neither can read says so: a Primitive instance's __call__, a C++ method whose parser names no forms.
    assert signatures["mindspore.Tensor"]["repeat"] == ["?"]
    # ops.functional keeps only where it differs from ops.
    assert "softmax" not in signatures["mindspore.ops.functional"]
    shared = api.signatures("mindspore.ops.functional.softmax")
    assert [form.text for form in shared] == ["input, axis=-1, *, dtype=None"]
    every = [form for entries in signatures.values() for forms in entries.values() for form in forms]
    assert len(every) > 2500 and all(forms == sorted(forms) for entries in signatures.values()
                                     for forms in entries.values())


def test_deprecations_are_what_mindspore_s_decorator_was_given():
    deprecations = SHIPPED["deprecations"]
    assert deprecations["mindspore.ops.padding"] == {"since": "2.8.0", "use": "ops.pad"}
    unique_with_pad = {"since": "2.4.0", "use": "ops.unique combined with ops.pad"}
    assert deprecations["mindspore.ops.unique_with_pad"] == unique_with_pad
    assert deprecations["mindspore.nn.MatMul"]["use"] == "ops.matmul"
    assert "mindspore.ops.softmax" not in deprecations and "mindspore.ops.functional.padding" not in deprecations
    assert api.deprecation("mindspore.ops.functional.padding") == ("2.8.0", "ops.pad")
