"""Cells and inputs built without an example: a constructor call with constant arguments (a factory function),
a config class with its sizes shrunk, arguments guessed from their names; and a constructor that raises at
another finding's line."""
from __future__ import annotations

import ast
import json
from importlib import metadata

import pytest

from ms_lint import mindspore_api as api
from ms_lint.validate.runner import ValidateOptions, validate_findings
from ms_lint.validate.verdicts import CONFIRMED, CONFIRMED_BY_PROBE

from .conftest import finding_at, needs_mindspore

pytestmark = [pytest.mark.mindspore, needs_mindspore]


@pytest.fixture(scope="module")
def built(projects):
    return projects / "cells" / "vcells" / "built.py"


@pytest.fixture(scope="module")
def verdicts(built, worker_pool):
    findings = [
        finding_at(built, "np.sin(", "MS101", "Block"),
        finding_at(built, "hidden.asnumpy()", "MS102", "ConfigModel"),
        finding_at(built, "np.cos(", "MS101", "Guessed"),
        finding_at(built, "np.exp(", "MS101", "ScaledModel"),
        finding_at(built, "padding=1", "MS205", "Padded"),
        finding_at(built, "np.tan(", "MS101", "UsesPadded"),
    ]
    report = validate_findings(findings, ValidateOptions(use_cache=False), pool=worker_pool)
    return {verdict.finding.scope: verdict for verdict in report.verdicts}


def test_a_factory_function_with_constant_arguments_builds_the_cell(verdicts):
    block = verdicts["Block"]
    assert block.verdict == CONFIRMED
    # The factory's parameter stands for its default; **kwargs is left out.
    assert block.built == "Block([4, width], nn.ReLU, **kwargs) (line 16 in block())"
    assert "built as Block([4, width]" in block.notes[-1]
    assert block.inputs == ["x: [2, 4], as its first layer is Dense(4, ...)"]


def test_a_config_driven_model_is_built_from_its_config_class_shrunk(verdicts):
    model = verdicts["ConfigModel"]
    assert model.verdict == CONFIRMED
    assert model.built == ("TinyConfig() with its defaults, shrunk (num_hidden_layers=1, hidden_size=32, "
                           "num_attention_heads=4, vocab_size=99)")
    assert model.inputs == ["input_ids: ids, as its first layer is Embedding"]


def test_config_fields_the_defaults_leave_none_are_filled_in_as_the_constructor_reads_them(verdicts):
    model = verdicts["ScaledModel"]
    # num_experts is no value of the project's: the hazard showed in a model built with a guess.
    assert model.verdict == CONFIRMED_BY_PROBE, model.message
    assert any("built with config.num_experts=1 guessed from the names" in note for note in model.notes)
    assert model.built == ("ScaledConfig() with its defaults, shrunk (hidden_size=32), rope_scaling={} (None in the "
                           "defaults), num_experts=1 (None in the defaults)")
    assert model.inputs == ["x: [batch, length, hidden_size] from the config"]


def _raised(call, *args) -> Exception:
    try:
        call(*args)
    except Exception as exc:  # noqa: BLE001
        return exc
    raise AssertionError("it did not raise")


def test_only_a_none_config_field_read_on_the_raising_line_is_filled_in():
    from ms_lint.validate.building import Recipe, completed_config

    class WideConfig:
        def __init__(self):
            self.rope_scaling = None
            self.width = 8

    def build(config):
        return config.rope_scaling.get("factor") * config.width

    config = WideConfig()
    recipe = Recipe("config", "WideConfig() with its defaults", kwargs={"config": config}, config=config)
    error = _raised(build, config)
    completed = completed_config(recipe, error)
    assert completed.description == "WideConfig() with its defaults, rope_scaling={} (None in the defaults)"
    assert config.rope_scaling == {}
    # Not an error about a None field; not a config recipe; a field that is set: nothing to fill in.
    assert completed_config(recipe, _raised(lambda: 1 / 0)) is None
    assert completed_config(Recipe("defaults", "Net()"), error) is None
    assert completed_config(recipe, _raised(build, config)) is None  # rope_scaling is {} now: None * 8 fails


def test_a_key_the_constructor_reads_from_a_config_list_of_mappings_is_added_to_each():
    from ms_lint.validate.building import Recipe, completed_config

    class HeadsConfig:
        def __init__(self):
            self.bin_configurations = [{"n_bins": 64, "min_depth": 0.001}, {"n_bins": 32, "min_depth": 0.1}]

    def build(config):
        return {configuration["name"]: configuration["n_bins"] for configuration in config.bin_configurations}

    config = HeadsConfig()
    recipe = Recipe("config", "HeadsConfig() with its defaults", kwargs={"config": config}, config=config)
    completed = completed_config(recipe, _raised(build, config))
    assert completed.description == ("HeadsConfig() with its defaults, bin_configurations[...]['name'] added (not in "
                                     "the defaults)")
    assert build(config) == {"name0": 64, "name1": 32}
    # A key missing from a mapping the config does not hold: nothing to add.
    assert completed_config(recipe, _raised(lambda: {}["name"])) is None


class _PatchConfig:
    def __init__(self):
        self.patch_hidden_size = None
        self.patch_heads = None
        self.width = 8


def _attention(hidden_size, heads):
    return hidden_size % heads


def _encoder(config):
    hidden_size = config.patch_hidden_size
    heads = config.patch_heads  # read here, used below
    width = config.width
    return _attention(hidden_size, heads) + width


def test_none_config_fields_behind_the_locals_a_caller_passed_on_are_filled_in_at_once():
    from ms_lint.validate.building import Recipe, completed_config

    config = _PatchConfig()
    recipe = Recipe("config", "PatchConfig() with its defaults", kwargs={"config": config}, config=config)
    completed = completed_config(recipe, _raised(_encoder, config))
    assert completed.description == ("PatchConfig() with its defaults, patch_hidden_size=32, patch_heads=2 (None in "
                                     "the defaults)")
    assert _encoder(config) == 8


class _Block:
    def __init__(this, settings):  # no local named config: only this.config reaches it
        this.config = settings
        hidden_size = this.config.patch_hidden_size
        this.scale = this.config.rope_scaling.get("factor") if this.config.width else hidden_size % 2


def test_config_fields_read_through_an_instance_parameter_not_named_self_are_filled_in():
    from ms_lint.validate.building import Recipe, completed_config

    config = _PatchConfig()
    config.rope_scaling = None
    recipe = Recipe("config", "PatchConfig() with its defaults", kwargs={"config": config}, config=config)
    completed = completed_config(recipe, _raised(_Block, config))
    assert completed.description == "PatchConfig() with its defaults, rope_scaling={} (None in the defaults)"
    config.width = 0
    completed = completed_config(recipe, _raised(_Block, config))  # the local bound from this.config
    assert completed.description.endswith("patch_hidden_size=32 (None in the defaults)")
    assert _Block(config).scale == 0


def test_arguments_are_guessed_from_their_names_when_nothing_else_builds_it(verdicts):
    guessed = verdicts["Guessed"]
    # The hazard showed on the line, in a Cell built with values the project never gave it.
    assert guessed.verdict == CONFIRMED_BY_PROBE
    assert "confirmed by probe, not confirmed: the Cell was built with in_channels=32, num_heads=2, eps=1e-05 " \
           "guessed from the names (no example, default, docstring, test or config gives them)" in guessed.notes
    assert guessed.built == "Guessed(in_channels=32, num_heads=2, eps=1e-05), arguments guessed from their names"
    assert guessed.inputs == ["x: [2, 32, 16, 16], as its first layer is Conv2d(32, ...)"]


def test_a_constructor_raising_at_another_finding_with_a_fix_is_built_again_with_it_fixed(verdicts):
    # Without a fix that keeps the lines, the verdict says to fix that one first (test_construction_fixes).
    assert verdicts["Padded"].verdict == CONFIRMED
    user = verdicts["UsesPadded"]
    assert user.verdict == CONFIRMED, user.message
    line = verdicts["Padded"].finding.line
    assert user.message.startswith(f"decided after applying the fix for MS205 at line {line}: ")
    assert user.example is None


def test_the_json_report_says_how_each_cell_and_its_inputs_were_built(verdicts):
    data = verdicts["ConfigModel"].to_dict()
    assert data["built"].startswith("TinyConfig() with its defaults, shrunk")
    assert data["inputs"] == ["input_ids: ids, as its first layer is Embedding"]
    json.dumps(data)


def test_guesses_and_config_shrinking_without_mindspore_objects():
    from ms_lint.validate.building import guessed_arguments, shrink

    class Config:
        def __init__(self):
            self.num_hidden_layers = 12
            self.hidden_size = 768
            self.num_attention_heads = 12
            self.head_dim = 64
            self.layer_norm_eps = 1e-5
            self.vision_config = type("VisionConfig", (), {})()
            self.vision_config.depth = 27

    config = Config()
    changed = shrink(config)
    assert (config.num_hidden_layers, config.hidden_size, config.num_attention_heads, config.head_dim) == (1, 32, 4, 8)
    assert config.layer_norm_eps == 1e-5 and config.vision_config.depth == 1
    assert changed["vision_config.depth"] == 1

    class Net:
        def __init__(self, in_channels, activation_bit):
            pass

    recipe = guessed_arguments(Net, ["in_channels", "activation_bit"])
    assert recipe.kwargs == {"in_channels": 32, "activation_bit": 8}

    class Block:
        def __init__(self, inplanes, ratio, headers, h, w, dropout, drop_path_rate):
            pass

    recipe = guessed_arguments(Block, ["inplanes", "ratio", "headers", "h", "w", "dropout", "drop_path_rate"])
    assert recipe.kwargs == {"inplanes": 32, "ratio": 0.25, "headers": 2, "h": 8, "w": 8, "dropout": 0.0,
                             "drop_path_rate": 0.0}

    class Encoder:
        def __init__(self, num_filters, down_factor, upscale_factor):
            pass

    recipe = guessed_arguments(Encoder, ["num_filters", "down_factor", "upscale_factor"])
    assert recipe.kwargs == {"num_filters": 32, "down_factor": 2, "upscale_factor": 2}
    assert guessed_arguments(Encoder, ["refactor"]) is None
    # A parameter no name rule covers: no guess at all, rather than a wrong one.
    assert guessed_arguments(Net, ["in_channels", "tokenizer"]) is None


def test_the_constructor_s_asserts_on_its_arguments_give_their_values():
    from ms_lint.validate.building import guessed_arguments

    class Block:
        def __init__(self, in_channels, kernel_size, stride=1, padding=0, mode="a"):
            assert kernel_size == 3
            assert padding == 1
            assert stride > 0  # not a value: left to the name rules
            assert in_channels == mode  # not a constant: left to the name rules

    recipe = guessed_arguments(Block, ["in_channels", "kernel_size"])
    assert recipe.kwargs == {"in_channels": 32, "kernel_size": 3, "padding": 1}
    assert recipe.description == ("Block(in_channels=32, kernel_size=3, padding=1), arguments guessed from their names "
                                  "and the constructor's asserts")

    class Plain:
        def __init__(self, kernel_size):
            pass

    assert guessed_arguments(Plain, ["kernel_size"]).description.endswith("arguments guessed from their names")


def test_a_construction_error_confirms_only_the_finding_whose_line_raised_it(built, worker_pool):
    first = finding_at(built, "self.first = nn.Conv2d(3, 8, 3, padding=1)", "MS205", "TwoPadded")
    second = finding_at(built, "self.second = nn.Conv2d(8, 8, 5, padding=2)", "MS205", "TwoPadded")  # its own cause
    report = validate_findings([first, second], ValidateOptions(use_cache=False), pool=worker_pool)
    by_line = {verdict.finding.line: verdict for verdict in report.verdicts}
    assert by_line[first.line].verdict == CONFIRMED and "after applying" not in by_line[first.line].message
    # The first conv raised: the second was never built by that attempt; the build with the first fixed decides it.
    assert by_line[second.line].verdict == CONFIRMED, by_line[second.line].message
    assert by_line[second.line].message.startswith(f"decided after applying the fix for MS205 at line {first.line}: ")


def test_a_module_is_imported_without_the_parent_package_init_that_fails(projects, worker_pool):
    package = projects / "cells" / "bareparent" / "models"
    sine = finding_at(package / "sine.py", "np.sin(", "MS101", "Sine")
    cosine = finding_at(package / "missing.py", "np.cos(", "MS101", "Cosine")
    report = validate_findings([sine, cosine], ValidateOptions(use_cache=False), pool=worker_pool)
    by_scope = {verdict.finding.scope: verdict for verdict in report.verdicts}
    assert by_scope["Sine"].verdict == CONFIRMED, by_scope["Sine"].message
    parent_fails = "_transformer" not in api.module_names("mindspore.parallel", metadata.version("mindspore"))
    # MindSpore 2.7.0 still has mindspore.parallel._transformer (its generated tables): there the parents import;
    # on later versions the private submodule the installed MindSpore lacks gets a stand-in, and the parents import.
    assert parent_fails == any(
        note.startswith("imported with a stand-in for the missing package(s) mindspore.parallel._transformer")
        for note in by_scope["Sine"].notes), by_scope["Sine"].notes
    # The module's own import of a package installed nowhere gets a stand-in for it, which the Cell never uses.
    assert by_scope["Cosine"].verdict == CONFIRMED, by_scope["Cosine"].message
    assert any(note.startswith("imported with a stand-in for the missing package(s) ")
               and "a_module_nobody_installed" in note and note.endswith("(a placeholder: nothing of theirs ran)")
               for note in by_scope["Cosine"].notes), by_scope["Cosine"].notes


def test_a_module_is_imported_with_the_parent_package_init_run_but_for_the_statement_that_fails(
        projects, worker_pool):
    package = projects / "cells" / "partialparent"
    sine = finding_at(package / "models" / "sine.py", "np.sin(", "MS101", "Sine")
    verdict = validate_findings([sine], ValidateOptions(use_cache=False), pool=worker_pool).verdicts[0]
    # register (before the failing import) and SCALE (after it) are there: the module imports, the Cell compiles.
    assert verdict.verdict == CONFIRMED, verdict.message
    init = str(package / "__init__.py")
    said = (f"imported with its parent packages' __init__ (partialparent) run except the statements that raised: "
            f"{init}:14 (ImportError: cannot import name 'mesh_exporter'")
    assert any(note.startswith(said) for note in verdict.notes), verdict.notes


def test_a_sub_cell_is_built_as_its_owner_builds_it_from_the_config(built, worker_pool):
    # Guessed from its names, padding_idx would stay None and the compile stop at `ids + None`; the owner builds it
    # with config.pad_token_id: the owner is built and called, and the sub-cell's construction captured there.
    cosine = finding_at(built, "np.cos(self.table(", "MS101", "Positions")
    report = validate_findings([cosine], ValidateOptions(use_cache=False), pool=worker_pool)
    verdict = report.verdicts[0]
    assert verdict.verdict == CONFIRMED, verdict.message
    assert verdict.built.startswith("PositionsModel, which builds it at vcells/built.py:"), verdict.built
    assert verdict.built.endswith(": Positions(66, 32, 1)"), verdict.built  # 64 positions + pad_token_id 1 + 1


def test_constructor_arguments_read_from_a_config_and_combined_arithmetically():
    from ms_lint.validate.building import _NotConstant, _constant

    class SmallConfig:
        hidden_size = 32
        pad_token_id = 1

    config = SmallConfig()
    names = {"config": config}
    assert _constant(ast.parse("config.hidden_size * 2 + config.pad_token_id", mode="eval").body, names, {}) == 65
    assert _constant(ast.parse("config.hidden_size // 4", mode="eval").body, names, {}) == 8
    for text in ("config.hidden_size / 0", "config.missing", "other.hidden_size", "config.hidden_size + 'a'"):
        with pytest.raises(_NotConstant):
            _constant(ast.parse(text, mode="eval").body, names, {})


class _AttentionConfig:
    """As transformers' PretrainedConfig: the implementation is a property, None until a model picks one."""

    def __init__(self, nested=None):
        self._attn_implementation_internal = None
        self.vision_config = nested

    @property
    def _attn_implementation(self):
        return self._attn_implementation_internal

    @_attn_implementation.setter
    def _attn_implementation(self, value):
        self._attn_implementation_internal = value


def test_a_config_that_names_no_attention_implementation_gets_the_one_the_model_picks():
    from ms_lint.validate.building import _pick_attention

    nested = _AttentionConfig()
    config = _AttentionConfig(nested)
    assert _pick_attention(config)
    assert config._attn_implementation == nested._attn_implementation == "eager"
    assert not _pick_attention(config)  # named now: left as it is
    assert not _pick_attention(_PatchConfig())  # not a transformers-style config


def test_a_cell_taking_cells_in_a_list_is_built_with_one_element_of_the_class_it_names(projects, worker_pool):
    path = projects / "cells" / "vcells" / "element_lists.py"
    findings = [finding_at(path, "np.sin(x)", "MS101", "MultiBlock"),
                finding_at(path, "np.cos(x)", "MS101", "MultiWide"), finding_at(path, "np.tan(x)", "MS101", "Unnamed")]
    by_scope = {verdict.finding.scope: verdict
                for verdict in validate_findings(findings, ValidateOptions(use_cache=False), pool=worker_pool).verdicts}
    # The annotation names Block, which builds from its defaults: the project's own values.
    block = by_scope["MultiBlock"]
    assert block.verdict == CONFIRMED, block.message
    assert block.built == "MultiBlock(blocks=[Block()]), a list of one element of the class its annotation or " \
                          "docstring names"
    # The docstring names Wide, whose width is guessed from its name: evidence by probe only.
    wide = by_scope["MultiWide"]
    assert wide.verdict == CONFIRMED_BY_PROBE, wide.message
    assert wide.built.startswith("MultiWide(layers=[Wide(channels=32)])"), wide.built
    assert any("Wide.channels=32 guessed from the names" in note for note in wide.notes), wide.notes
    # Nothing names the class of the elements: nothing to build it with.
    assert by_scope["Unnamed"].verdict not in (CONFIRMED, CONFIRMED_BY_PROBE)
