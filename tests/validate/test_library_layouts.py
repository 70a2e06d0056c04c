"""Libraries laid out as published model zoos are, validated with real compiles and no examples file: modules in
folders without ``__init__.py`` inside a package, code written for an older MindSpore (a private submodule and
names this one lacks), and Cells whose constructor needs arguments that only the project's other Cells pass."""
from __future__ import annotations

import ast
import sys
import textwrap

import pytest

from ms_lint.validate import standins
from ms_lint.validate.project import locate_module
from ms_lint.validate.verdicts import CONFIRMED, CONFIRMED_BY_PROBE, INCONCLUSIVE, NOT_REACHED

from .conftest import needs_mindspore, package_verdicts, write_files

FILES = {
    "pyproject.toml": "[project]\nname = 'zoo'\nversion = '0'\n",
    # The package imports every model, and a progress-bar package this machine lacks.
    "zoo/__init__.py": "import ms_lint_absent_progress\nfrom zoo.models import *\n",
    "zoo/models/__init__.py": """
        from zoo.models.common.blocks import Block, Gated
        from zoo.models.common.legacy import Legacy
        from zoo.models.nets import Net
        """,
    # models/common has no __init__.py: Python imports it as a namespace folder of zoo.models.
    "zoo/models/common/blocks.py": """
        import numpy as np
        from mindspore import nn


        class Block(nn.Cell):
            def __init__(self, width, scale):
                super().__init__()
                self.dense = nn.Dense(width, width)
                self.scale = scale

            def construct(self, x):
                return np.sin(self.dense(x)) * self.scale


        class Gated(nn.Cell):
            def __init__(self, width, get_feat=False):
                super().__init__()
                self.dense = nn.Dense(width, width)
                self.get_feat = get_feat

            def construct(self, x):
                x = self.dense(x)
                if self.get_feat:
                    return x
                return np.cos(x)


        class Unbuilt(nn.Cell):
            def __init__(self, lookup):
                super().__init__()
                self.size = len(lookup)

            def construct(self, x):
                return np.tan(x)
        """,
    "zoo/models/common/legacy.py": """
        import numpy as np
        import mindspore
        from mindspore import nn
        from mindspore.common.api import ms_lint_absent_function
        from mindspore.ops._ms_lint_absent_grad.grad_base import bprop_getters


        class Custom:
            def __init__(self):
                pass


        @bprop_getters.register(Custom)
        def get_bprop_custom(self):
            return None


        @mindspore.ms_lint_absent_jit
        def helper(x):
            return x


        class Legacy(nn.Cell):
            def construct(self, x):
                return np.exp(x)
        """,
    "zoo/models/common/metrics.py": """
        import mindspore
        import numpy as np
        from mindspore import Tensor, ops


        class Meter:
            def count(self, values):
                return Tensor(np.asarray(values, dtype=np.int))


        class Filler:
            def ones(self):
                return ops.ones((2,), type=mindspore.float32)


        class Picker:
            def pick(self, mask):
                return ops.where(mask)


        class Normalizer:
            def make(self):
                return ops.L2Normalize(axis=1, eps=1e-12)
        """,
    # The keyword the callee lacks sits in a branch the default scale leaves out of the graph.
    "zoo/models/common/scaling.py": """
        from mindspore import nn, ops


        class Upscaler(nn.Cell):
            def __init__(self, scale=2):
                super().__init__()
                self.scale = scale

            def construct(self, x):
                if self.scale == 8:
                    x = ops.interpolate(x, scales=(1.0, 1.0, 2.0, 2.0), mode="bilinear")
                return x * 2
        """,
    # PyTorch's bias= passed to each projection: MS604 reports the first, its fix renames the keyword in all.
    "zoo/models/common/heads.py": """
        import numpy as np
        from mindspore import nn


        class Heads(nn.Cell):
            def __init__(self, width=4):
                super().__init__()
                self.k_proj = nn.Dense(width, width, bias=False)
                self.v_proj = nn.Dense(width, width, bias=False)

            def construct(self, x):
                return self.k_proj(x) + self.v_proj(x)


        class Attention(nn.Cell):
            def __init__(self, width=4):
                super().__init__()
                self.heads = Heads(width)

            def construct(self, x):
                return np.sin(self.heads(x))
        """,
    # The argument is assigned again only in the branch its default skips: it holds None at the test.
    "zoo/models/common/speakers.py": """
        import numpy as np
        from mindspore import nn


        class Speaker(nn.Cell):
            def __init__(self, width=4):
                super().__init__()
                self.dense = nn.Dense(width, width)

            def construct(self, x, speaker=None):
                x = self.dense(x)
                if speaker is not None:
                    speaker = speaker * 2
                    x = np.sin(x + speaker)
                return x
        """,
    # A method building runs, whose loop meets no layer the branch holding the missing name wants.
    "zoo/models/common/initialized.py": """
        from mindspore import nn


        class Initialized(nn.Cell):
            def __init__(self, width=4):
                super().__init__()
                self.body = nn.SequentialCell(nn.Dense(width, width))
                self._initialize_weights()

            def construct(self, x):
                return self.body(x)

            def _initialize_weights(self):
                for cell in self.cells():
                    if isinstance(cell, nn.Dense):
                        nn.init.normal_(cell.weight, 0, 0.01)
        """,
    # A layer built only for a factor the name's guess (2) does not pass; the assert says which factors exist.
    "zoo/models/common/encoders.py": """
        from mindspore import nn


        class Encoder(nn.Cell):
            def __init__(self, in_channels, down_factor):
                super().__init__()
                assert down_factor in [2, 4, 8, 16]
                layers = [nn.Dense(in_channels, in_channels)]
                if down_factor > 8:
                    layers.append(nn.Dense(in_channels, in_channels, bias=False))
                self.layers = nn.SequentialCell(layers)

            def construct(self, x):
                return self.layers(x)
        """,
    "zoo/models/nets.py": """
        from mindspore import nn

        from zoo.models.common.blocks import Block, Gated


        class Net(nn.Cell):
            def __init__(self, width=4):
                super().__init__()
                self.block = Block(width, scale=width / 2)
                self.gated = Gated(width, get_feat=True)

            def construct(self, x):
                return self.gated(self.block(x))
        """,
}


@pytest.fixture(scope="module")
def zoo(tmp_path_factory):
    return write_files(tmp_path_factory.mktemp("zoo"), FILES)


@pytest.fixture(scope="module")
def verdicts(zoo, worker_pool):
    return package_verdicts(zoo / "zoo", worker_pool)


def test_a_module_in_a_folder_without_init_is_named_by_its_package(zoo):
    location = locate_module(str(zoo / "zoo/models/common/blocks.py"))
    assert location.module == "zoo.models.common.blocks"
    assert location.import_root == str(zoo)
    # As when run as a script, it finds its neighbours by their own names too.
    assert location.namespace_roots[-1] == str(zoo / "zoo/models/common")
    # A module in a package finds no folder of its own that way; a script outside any package is still its own.
    assert locate_module(str(zoo / "zoo/models/nets.py")).namespace_roots == ()
    (zoo / "tools").mkdir(exist_ok=True)
    (zoo / "tools/run.py").write_text("")
    script = locate_module(str(zoo / "tools/run.py"))
    assert (script.module, script.import_root) == ("run", str(zoo / "tools"))


@needs_mindspore
@pytest.mark.mindspore
def test_code_for_an_older_mindspore_imports_with_stand_ins_for_what_this_one_lacks(verdicts):
    verdict = verdicts["Legacy"]
    assert verdict.verdict == CONFIRMED, (verdict.message, verdict.notes)
    stood_in = next(note for note in verdict.notes if note.startswith("imported with a stand-in"))
    for name in ("mindspore.ops._ms_lint_absent_grad", "mindspore.common.api.ms_lint_absent_function",
                 "mindspore.ms_lint_absent_jit", "ms_lint_absent_progress"):
        assert name in stood_in, stood_in


@needs_mindspore
@pytest.mark.mindspore
def test_a_cell_another_module_builds_is_built_with_the_arguments_it_passes(verdicts):
    # Its constructor needs arguments no default or name gives; Net, in another module, passes them. Each job
    # after the first in the same worker imports the namespace folder again: it must still import.
    verdict = verdicts["Block"]
    assert verdict.verdict == CONFIRMED, (verdict.message, verdict.notes)
    assert verdict.built.startswith("Net, which builds it at zoo/models/nets.py:9: Block(4, scale=2.0)"), \
        verdict.built


@needs_mindspore
@pytest.mark.mindspore
def test_a_flag_the_building_cell_sets_is_switched_the_other_way_to_reach_the_line(verdicts):
    # Net builds Gated(width, get_feat=True), which returns before the hazard: compiled again with
    # get_feat=False, the line is reached and the hazard shows.
    verdict = verdicts["Gated"]
    assert verdict.verdict == CONFIRMED, (verdict.message, verdict.notes)
    assert "get_feat=True" in verdict.built
    assert verdict.message.startswith("with get_feat=False: "), verdict.message


@needs_mindspore
@pytest.mark.mindspore
def test_a_cell_nothing_builds_still_asks_for_an_example(verdicts):
    verdict = verdicts["Unbuilt"]
    assert verdict.verdict == INCONCLUSIVE
    assert "Unbuilt() needs lookup: no example is registered" in verdict.message


@needs_mindspore
@pytest.mark.mindspore
def test_a_numpy_name_removed_in_host_code_is_looked_up_in_the_worker(verdicts):
    # Host code no Cell compiles: the name the line reads is looked up on the installed numpy.
    verdict = verdicts["Meter"]
    assert verdict.finding.code == "MS613"
    assert verdict.verdict == CONFIRMED_BY_PROBE, (verdict.message, verdict.notes)
    assert verdict.message.startswith("the installed numpy has no numpy.int: looked up in the worker, the line "
                                      "raises AttributeError"), verdict.message


@needs_mindspore
@pytest.mark.mindspore
@pytest.mark.parametrize("scope, said", [
    # a keyword the function does not take
    ("Filler", "mindspore.ops.ones's signature on the installed MindSpore takes no keyword type=: read in the "
               "worker, the call raises TypeError"),
    # arguments the call leaves out, which the function requires
    ("Picker", "mindspore.ops.where's signature on the installed MindSpore requires input, other, which the call "
               "leaves out: read in the worker, the call raises TypeError wherever it runs"),
    # a keyword a Primitive class's Python __init__ does not take
    ("Normalizer", "mindspore.ops.L2Normalize's signature on the installed MindSpore takes no keyword eps=: read "
                   "in the worker"),
])
def test_a_call_the_callee_rejects_in_host_code_is_read_from_its_signature(verdicts, scope, said):
    verdict = verdicts[scope]
    assert verdict.finding.code == "MS610"
    assert verdict.verdict == CONFIRMED_BY_PROBE, (verdict.message, verdict.notes)
    assert verdict.message.startswith(said), verdict.message


@needs_mindspore
@pytest.mark.mindspore
def test_a_branch_comparing_an_argument_with_a_number_is_built_again_with_one_that_passes(verdicts):
    verdict = verdicts["Encoder"]
    assert verdict.finding.code == "MS604"
    # in_channels is guessed from its name: the line raised in a build the project never makes that way.
    assert verdict.verdict == CONFIRMED_BY_PROBE, (verdict.message, verdict.notes)
    assert verdict.message.startswith("with down_factor=16: building raised at this line: TypeError"), \
        verdict.message
    assert any(note.startswith("confirmed by probe, not confirmed: the Cell was built with in_channels=32")
               for note in verdict.notes), verdict.notes


def test_the_number_a_comparison_needs_is_one_the_constructor_allows():
    from ms_lint.validate.reach import build_retries

    tree = ast.parse(textwrap.dedent("""
        class Block:
            def __init__(self, width, down_factor, scale=2, depth=1):
                assert down_factor in [2, 4, 8, 16]
                if down_factor > 8:
                    self.a = 1
                if down_factor > 16:
                    self.b = 2
                if scale == 4:
                    self.c = 3
                if depth >= 3:
                    self.d = 4
                if width > 8192:
                    self.e = 5
        """))
    # No value the assert allows passes `down_factor > 16`: line 8 gets no retry; nor does a width too large to
    # build layers of here.
    assert build_retries(tree, "Block", {6, 8, 10, 12, 14}) == [
        {"parameter": "down_factor", "value": 16, "lines": [6]},
        {"parameter": "scale", "value": 4, "lines": [10]},
        {"parameter": "depth", "value": 3, "lines": [12]}]


@needs_mindspore
@pytest.mark.mindspore
def test_a_fix_that_renames_the_keyword_on_its_repeats_too_gets_past_the_build(verdicts, zoo):
    # Building raises at the first bias=, then at the second (one cause, reported once): the fix of each line renames
    # it there, each line keeping its number.
    lines = (zoo / "zoo/models/common/heads.py").read_text().splitlines()
    first = lines.index("        self.k_proj = nn.Dense(width, width, bias=False)") + 1
    keyword, sine = verdicts["Heads"], verdicts["Attention"]
    assert keyword.finding.code == "MS604" and keyword.finding.line == first
    assert keyword.verdict == CONFIRMED, (keyword.message, keyword.notes)
    assert sine.finding.code == "MS101"
    assert sine.verdict == CONFIRMED, (sine.message, sine.notes)
    assert sine.message.startswith(f"decided after applying the fixes for MS604 at lines {first}, {first + 1}: "), \
        sine.message


@needs_mindspore
@pytest.mark.mindspore
def test_an_argument_assigned_again_only_in_the_branch_its_default_skips_keeps_its_default(verdicts):
    verdict = verdicts["Speaker"]
    assert verdict.finding.code == "MS101"
    assert verdict.verdict == NOT_REACHED, (verdict.message, verdict.notes)
    assert verdict.message.startswith("not compiled: `speaker is not None` was False when the graph was built"), \
        verdict.message


def test_an_argument_keeps_its_value_where_every_assignment_sits_in_a_branch_it_skips(tmp_path, monkeypatch):
    from ms_lint.validate.reach import kept_defaults

    (tmp_path / "kept_module.py").write_text(textwrap.dedent("""
        def construct(self, x, emb=None, mask=None, looped=None, mixed=None, nested=None):
            if emb is not None:
                emb = emb * 2
            if mask is None:
                mask = 1
            for _ in range(2):
                if looped is not None:
                    looped = 3
            if mixed is not None:
                pass
            elif mixed is None and x:
                mixed = 2
            if nested is not None:
                nested = 1
            else:
                if nested is None:
                    pass
                else:
                    nested = 3
            return x
        """))
    monkeypatch.syspath_prepend(str(tmp_path))
    from kept_module import construct

    arguments = {"emb": None, "mask": None, "looped": None, "mixed": None, "nested": None}
    assert kept_defaults(construct, arguments) == {"emb": None, "nested": None}
    # A value the branch takes: the assignment runs.
    assert kept_defaults(construct, {"emb": 5, "mask": 3}) == {"mask": 3}


@needs_mindspore
@pytest.mark.mindspore
@pytest.mark.parametrize("scope, code, isolated", [
    # The graph built with the default scale leaves the call out.
    ("Upscaler", "MS610", "mindspore.ops.interpolate's signature on the installed MindSpore takes no keyword "
                          "scales="),
    # Building ran _initialize_weights without error: its only child is a SequentialCell, the branch never ran.
    ("Initialized", "MS607", "the installed MindSpore has no mindspore.nn.init"),
])
def test_a_lookup_does_not_confirm_a_line_the_built_cell_leaves_out(verdicts, scope, code, isolated):
    # The lookup says the line raises wherever it runs, not that it runs: the line stays not reached.
    verdict = verdicts[scope]
    assert verdict.finding.code == code
    assert verdict.verdict == NOT_REACHED, (verdict.message, verdict.notes)
    assert verdict.message.startswith("not compiled: "), verdict.message
    assert any(note.startswith(f"the pattern fails in isolation: {isolated}") for note in verdict.notes), \
        verdict.notes


@needs_mindspore
def test_a_signature_that_takes_any_keyword_or_is_not_a_function_says_nothing():
    from ms_lint.validate.probes import rejected_keywords

    assert rejected_keywords("mindspore.ops.ones", ["type", "dtype"]) == ["type"]
    assert rejected_keywords("mindspore.ops.ones", ["dtype"]) == []
    assert rejected_keywords("mindspore.ops.ms_lint_absent", ["type"]) is None
    assert rejected_keywords("builtins.print", ["type"]) is None  # not a Python function: its signature may lie
    assert rejected_keywords("mindspore.Tensor", ["type"]) is None  # its __init__ is not read
    assert rejected_keywords("mindspore.nn.Cell", ["type"]) is None  # it takes **kwargs


@needs_mindspore
def test_a_class_s_signature_is_read_from_its_python_init_and_agrees_with_a_real_call():
    import mindspore
    from mindspore import nn, ops

    from ms_lint.validate.probes import rejected_keywords, required_parameters

    # A Primitive and a Cell pass the call's keywords to their Python __init__: what it lacks raises TypeError.
    assert rejected_keywords("mindspore.ops.L2Normalize", ["axis", "eps"]) == ["eps"]
    with pytest.raises(TypeError, match="eps"):
        ops.L2Normalize(axis=1, eps=1e-12)  # noqa: MS610
    assert rejected_keywords("mindspore.nn.Dense", ["in_channels", "bias"]) == ["bias"]
    with pytest.raises(TypeError, match="bias"):
        nn.Dense(2, 2, bias=False)  # noqa: MS604
    # A parameter without a default raises when left out; one with a default, or none of that name, does not say.
    required = required_parameters("mindspore.ops.where", ["input", "other"])
    assert required == {"input": "required", "other": "required"}
    with pytest.raises(TypeError, match="input"):
        ops.where(mindspore.Tensor([True, False]))  # noqa: MS610
    assert required_parameters("mindspore.ops.interpolate", ["size", "sizes"]) == {"size": "optional",
                                                                                   "sizes": "absent"}
    assert required_parameters("mindspore.ops.ms_lint_absent", ["input"]) is None


@needs_mindspore
def test_stand_ins_for_an_installed_package_s_submodule_and_names_are_taken_back():
    import mindspore

    finder = standins.install([])
    try:
        with pytest.raises(ImportError) as raised:
            from mindspore.ops._ms_lint_absent_grad import getters  # noqa: F401,MS607
        assert standins.missing_package(raised.value, []) == "mindspore.ops._ms_lint_absent_grad"
        finder.add("mindspore.ops._ms_lint_absent_grad")
        with pytest.raises(ImportError) as raised:
            from mindspore.common.api import ms_lint_absent_function  # noqa: F401
        assert standins.missing_package(raised.value, []) == "mindspore.common.api.ms_lint_absent_function"
        finder.add("mindspore.common.api.ms_lint_absent_function")
        from mindspore.common.api import ms_lint_absent_function  # noqa: F401,F811
        from mindspore.ops._ms_lint_absent_grad import getters  # noqa: F401,F811
        assert repr(getters).startswith(f"<{standins.MARK}")
    finally:
        standins.uninstall(finder)
    assert not hasattr(mindspore.common.api, "ms_lint_absent_function")
    assert not hasattr(mindspore.ops, "_ms_lint_absent_grad")
    assert "mindspore.ops._ms_lint_absent_grad" not in sys.modules
    # A public submodule an installed package lacks, or a name of the user's own module, gets none.
    with pytest.raises(ImportError) as raised:
        import mindspore.nn.ms_lint_absent_public  # noqa: F401,MS607
    assert standins.missing_package(raised.value, []) is None
    assert standins.missing_name(AttributeError("module 'zoo' has no attribute 'Block'")) is None


def test_a_decorator_line_with_arguments_passes_the_function_to_what_the_stand_in_returns():
    stand_in = standins.StandIn("missing.register")

    class Op:
        def __init__(self):
            pass

    @stand_in(Op)
    def bprop():
        return 1

    @stand_in
    def kept():
        return 2

    assert bprop() == 1 and kept() == 2
    assert stand_in(Op) is Op  # called outside a decorator line: a wrapper giving back what it wraps


def test_a_method_stored_in_an_attribute_and_called_through_it_is_called_from_construct():
    import ast

    from ms_lint.validate.reach import guards_for

    source = textwrap.dedent("""
        class Attention(nn.Cell):
            def __init__(self, via_grid_sample=True):
                super().__init__()
                if via_grid_sample:
                    self.get_columns = self.columns_for_grid_sample
                else:
                    self.get_columns = self.columns_for_offsets

            def construct(self, x):
                return self.get_columns(x)

            def columns_for_grid_sample(self, x):
                return self.convert(x)

            def columns_for_offsets(self, x):
                return x

            @staticmethod
            def convert(offset):
                return ops.split(offset, axis=2, output_num=2)

            def unused(self, x):
                return ops.split(x, axis=2, output_num=2)
        """)
    lines = [number for number, line in enumerate(source.splitlines(), 1) if "output_num" in line]
    guards, _ = guards_for(ast.parse(source), "Attention", set(lines))
    assert guards[lines[0]]["called"] is True, guards
    assert guards[lines[1]]["called"] is False, guards
