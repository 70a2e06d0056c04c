"""The model's answers to the questions every rule asks: names, classes, constants, graph code."""
from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from ms_lint.model import ModuleFacts
from ms_lint.model.values import UNKNOWN, constant_value
from ms_lint.settings import Settings


def facts(source: str, settings: Settings = Settings(syntax_level="strict")) -> ModuleFacts:
    source = textwrap.dedent(source)
    return ModuleFacts(ast.parse(source), "case.py", settings, source)


def names_in(module: ModuleFacts, name: str) -> list[ast.Name]:
    return [n for n in ast.walk(module.tree) if isinstance(n, ast.Name) and n.id == name]


def test_a_name_resolves_to_the_binding_in_force_where_it_is_used():
    module = facts("""
        import numpy as np

        def uses_module_numpy(x):
            return np.sin(x)

        def has_own_np(x):
            import math as np
            return np.sin(x)

        def parameter_np(np):
            return np.sin(1)
    """)
    module_level, own_import, parameter = [n for n in names_in(module, "np") if isinstance(n.ctx, ast.Load)]
    assert module.qualname(ast.Attribute(value=module_level, attr="sin")) == "numpy.sin"
    assert module.qualname(ast.Attribute(value=own_import, attr="sin")) == "math.sin"
    assert module.qualname(parameter) is None


def test_the_value_a_name_holds_is_the_binding_in_force_where_it_is_used():
    """One answer to "which binding reaches this use": the value a name holds is the scopes' binding, so a module-level
    name rebound later holds its last value inside a function, and a local rebinding after the use does not count."""
    module = facts("""
        import mindspore.nn as nn
        X = nn.Dense(2, 2)
        X = nn.ReLU()
        Y: nn.Cell = nn.Dense(3, 3)

        def f():
            return X, Y

        def g():
            net = nn.Dense(4, 4)
            out = net
            net = nn.ReLU()
            return out
    """)
    f, g = [n for n in ast.walk(module.tree) if isinstance(n, ast.FunctionDef)]
    x_use, y_use = [n for n in ast.walk(f) if isinstance(n, ast.Name) and n.id in ("X", "Y")]
    assert ast.unparse(module.value_bound_to(x_use, f, None)) == "nn.ReLU()"
    assert ast.unparse(module.value_bound_to(y_use, f, None)) == "nn.Dense(3, 3)"
    net_use = next(n for n in ast.walk(g) if isinstance(n, ast.Name) and n.id == "net" and isinstance(n.ctx, ast.Load))
    assert ast.unparse(module.value_bound_to(net_use, g, None)) == "nn.Dense(4, 4)"
    binding = module.scopes.binding(x_use)
    assert module.value_bound_to(x_use, f, None) is binding.value


def test_class_bodies_are_not_visible_to_their_methods():
    module = facts("""
        import numpy as np

        class Holder:
            np = None

            def method(self, x):
                return np.sin(x)
    """)
    (use,) = [n for n in names_in(module, "np") if isinstance(n.ctx, ast.Load)]
    assert module.qualname(use) == "numpy"


def test_a_class_named_like_its_base_derives_from_the_earlier_binding():
    # A deprecation shim: the base is the imported class; the class statement binds the name only once it has run.
    module = facts("""
        from mindspore.nn import Cell as Output

        class Output(Output):
            Base = Output

            def forward(self, x, kind=Output):
                return Output
    """)
    info = module.classes["Output"]
    assert info.is_cell and info.local_bases == []
    (definition,) = [n for n in ast.walk(module.tree) if isinstance(n, ast.ClassDef)]
    assert module.qualname(definition.bases[0]) == "mindspore.nn.Cell"
    # the class body and a default run with the class statement; a method's body runs once the class is bound
    in_body, in_default, in_method = [n for n in names_in(module, "Output") if n is not definition.bases[0]]
    assert module.qualname(in_body) == module.qualname(in_default) == "mindspore.nn.Cell"
    assert module.qualname(in_method) == "case.Output"


def test_global_declaration_sends_a_name_to_the_module():
    module = facts("""
        import numpy as np

        def f():
            global np
            np = 3
            return np
    """)
    use = [n for n in names_in(module, "np") if isinstance(n.ctx, ast.Load)][-1]
    assert module.scopes.binding(use).scope is module.scopes.module


def test_each_class_gets_a_key_of_its_own():
    module = facts("""
        import mindspore.nn as nn

        def test_a():
            class Net(nn.Cell):
                pass

        def test_b():
            class Net:
                pass

        class Shim(nn.Cell):
            pass

        class Shim(nn.Cell):
            pass
    """)
    assert set(module.classes) == {"test_a.<locals>.Net", "test_b.<locals>.Net", "Shim@12", "Shim"}
    assert module.classes["test_a.<locals>.Net"].is_cell
    assert not module.classes["test_b.<locals>.Net"].is_cell
    assert module.classes["Shim"].node.lineno == 15  # the definition in force once the module has run


def test_placeholder_for_a_failed_import_does_not_hide_the_import():
    module = facts("""
        try:
            import mindspore.nn as nn
        except ImportError:
            nn = None

        class Net(nn.Cell):
            pass
    """)
    assert module.classes["Net"].is_cell


def test_constant_folding():
    lookup = {"flag": False, "mode": "ms"}.get

    def fold(expression: str):
        return constant_value(ast.parse(expression, mode="eval").body,
                              lambda node: lookup(getattr(node, "id", ""), UNKNOWN))

    assert fold("not flag") is True
    assert fold("flag and unknown") is False
    assert fold("unknown and flag") is False  # one false operand decides the branch
    assert fold("unknown or not flag") is True
    assert fold("unknown and not flag") is UNKNOWN
    assert fold("mode == 'np'") is False
    assert fold("mode in ('ms', 'np')") is True
    assert fold("mode is None") is False
    assert fold("unknown") is UNKNOWN
    assert fold("-1 < 0 < 2") is True


def test_dead_branches_are_not_graph_code():
    module = facts("""
        import mindspore.nn as nn
        import numpy as np

        def helper(x, output_type="np"):
            if output_type == "np":
                return np.sin(x)
            return x

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.debug = False

            def construct(self, x, return_dict=False):
                if self.debug:
                    print(x)
                if not return_dict:
                    return (helper(x, output_type="ms"),)
                return x
    """)
    construct, helper = module.graph_functions
    assert construct.parameter_values["return_dict"] == frozenset({("bool", False)})
    assert helper.parameter_values["output_type"] == frozenset({("str", "ms")})
    assert not [n for n in helper.nodes_of(ast.Call) if isinstance(n.func, ast.Attribute) and n.func.attr == "sin"]
    assert not [n for n in construct.nodes_of(ast.Call) if getattr(n.func, "id", "") == "print"]
    (last_return,) = [n for n in ast.walk(construct.node)
                      if isinstance(n, ast.Return) and isinstance(n.value, ast.Name)]
    assert construct.is_dead(last_return)


def test_mint_layers_are_cells_with_their_parameters():
    module = facts("""
        import mindspore as ms
        from mindspore import mint

        class Head(ms.nn.Cell):
            def construct(self, x):
                return mint.nn.Linear(4, 4)(x) + mint.nn.ReLU()(x)
    """)
    linear, relu = [site.node for site in module.calls if site.qualname and site.qualname.startswith("mindspore.mint")]
    assert module.builds_cell(linear) and module.owns_parameters(linear) is True
    assert module.builds_cell(relu) and module.owns_parameters(relu) is False


def test_custom_operators_are_no_user_types():
    module = facts("""
        from mindspore.ops import PrimitiveWithInfer
        from mindspore.ops.primitive import Primitive

        class AllGather(PrimitiveWithInfer):
            pass

        class Local(AllGather):
            pass

        class Plain:
            pass
    """)
    assert module.user_class_name(module.local_prefix + "AllGather") is None
    assert module.user_class_name(module.local_prefix + "Local") is None
    assert module.user_class_name(module.local_prefix + "Plain") == "Plain"


@pytest.mark.mindspore
@pytest.mark.parametrize("package", ["nn/layer", "mint/nn"])
def test_mindspores_own_layers_give_no_graph_code_finding(package):
    import mindspore

    from ms_lint.engine import check_file
    from ms_lint.rules import RULES_BY_CODE

    root = Path(mindspore.__file__).parent / package
    files = sorted(root.rglob("*.py"))
    assert len(files) > 5
    graph_codes = {code for code in RULES_BY_CODE if code.startswith("MS1") and code not in ("MS112", "MS113")}
    found = [f for path in files for f in check_file(str(path), Settings(syntax_level="strict"), graph_codes)]
    assert found == []


def test_parameters_annotated_as_python_values_are_no_tensors():
    module = facts("""
        from typing import List, Literal, Optional, Sequence, Tuple, Union
        import mindspore as ms
        from mindspore import nn

        class Net(nn.Cell):
            def construct(self, x: ms.Tensor, dim: int, scale: float, flag: bool, name: str,
                          sizes: tuple[int, ...], shape: Tuple[int, int], ids: list[int], more: List[int],
                          maybe: Optional[int], seq: Sequence[int], either: Union[int, str], text: "Optional[str]",
                          union: int | None, mode: Literal["np", "ms"], mask: Optional[ms.Tensor], plain,
                          *sizes_rest: int, **options: str):
                return x
    """)
    (construct,) = module.graph_functions
    tensors = {name for name, kind in construct.parameter_kinds.items() if kind == "tensor"}
    assert tensors == {"x", "mask", "plain"}


def test_the_model_imports_no_rule_and_no_front_end():
    import subprocess
    import sys

    source = "import mindspore.nn as nn\\nclass N(nn.Cell):\\n    pass\\n"
    code = ("import sys, ast, ms_lint.model as m; from ms_lint.settings import Settings; "
            f"m.ModuleFacts(ast.parse('{source}'), 'a.py', Settings(syntax_level='strict')); "
            "print(sorted(n for n in sys.modules if n.startswith('ms_lint.')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "ms_lint.model.module" in loaded
    for layer_above in ("ms_lint.rules", "ms_lint.engine", "ms_lint.fixes", "ms_lint.commands", "ms_lint.plugin"):
        assert f"'{layer_above}" not in loaded


@pytest.mark.parametrize("fixture", ["user_objects.py", "constant_branches.py", "scopes_same_class_name.py",
                                     "../MS205.py", "../MS203.py"])
def test_the_checked_tree_is_freed_without_the_garbage_collector(fixture):
    import gc
    import weakref

    from ms_lint.engine import check_tree

    source = (Path(__file__).parent / "fixtures" / "rules" / "model" / fixture).read_text()
    gc.collect()
    gc.disable()
    try:
        tree = ast.parse(source)
        alive = weakref.ref(tree)
        assert check_tree(tree, source, fixture, Settings(syntax_level="strict"))
        del tree
        assert alive() is None, "a reference cycle keeps the tree until a full collection"
    finally:
        gc.enable()


def _project(tmp_path: Path, base_source: str) -> tuple[Path, Path]:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    base = package / "base.py"
    base.write_text(base_source)
    user = package / "user.py"
    user.write_text("import mindspore\nfrom pkg.base import Base\n\n\nclass Net(Base):\n"
                    "    def construct(self, x):\n        return x.asnumpy()\n")
    return base, user


def _check(path: Path, source: str | None = None) -> list[str]:
    from ms_lint.engine import check_tree

    source = path.read_text() if source is None else source
    return [finding.code
            for finding in check_tree(ast.parse(source), source, str(path), Settings(syntax_level="strict"))]


def test_a_file_checked_earlier_in_the_run_answers_for_its_classes_without_being_read_again(tmp_path, monkeypatch):
    import ms_lint.model.project as project

    base, user = _project(tmp_path, "import mindspore.nn as nn\n\n\nclass Base(nn.Cell):\n    pass\n")
    reads = []
    read_module = project.INDEX._read_module
    monkeypatch.setattr(project.INDEX, "_read_module",
                        lambda *args, **kw: reads.append(args[0]) or read_module(*args, **kw))
    _check(base)
    assert _check(user) == ["MS102"]  # Net is a Cell: its Cell base was known from the check of base.py
    assert reads == []


def test_a_file_with_crlf_line_ends_keeps_its_answer(tmp_path, monkeypatch):
    import ms_lint.model.project as project

    # flake8 hands the plugin the file's lines with their newlines translated
    base, user = _project(tmp_path, "")
    base.write_bytes(b"import mindspore.nn as nn\r\n\r\n\r\nclass Base(nn.Cell):\r\n    pass\r\n")
    reads = []
    read_module = project.INDEX._read_module
    monkeypatch.setattr(project.INDEX, "_read_module",
                        lambda *args, **kw: reads.append(args[0]) or read_module(*args, **kw))
    _check(base, base.read_bytes().decode().replace("\r\n", "\n"))
    assert _check(user) == ["MS102"]
    assert reads == []


def _recording_reads(monkeypatch) -> list[tuple[str, bool]]:
    """The other modules the project index reads from here on: (file, outline only)."""
    import ms_lint.model.project as project

    reads = []
    read_module = project.INDEX._read_module

    def recording_read(path, settings, outline):
        reads.append((path, outline))
        return read_module(path, settings, outline)

    monkeypatch.setattr(project.INDEX, "_read_module", recording_read)
    return reads


def test_a_kept_answer_from_text_that_is_not_the_files_is_not_used(tmp_path, monkeypatch):
    # The file on disk defines a Cell; the text checked (an editor's unsaved buffer) does not.
    base, user = _project(tmp_path, "import mindspore.nn as nn\n\n\nclass Base(nn.Cell):\n    pass\n")
    reads = _recording_reads(monkeypatch)
    _check(base, "import mindspore\n\n\nclass Base:\n    pass\n")
    assert _check(user) == ["MS102"]  # read from the file: Base is a Cell
    assert reads == [(str(base), True)]


@pytest.mark.parametrize("source, checked", [
    ("import mindspore\n", True),
    ("try: import mindspore as ms\nexcept ImportError: ms = None\n", True),
    ("import os, \\\n    mindspore\n", True),
    ("from \\\n    mindspore import nn\n", True),
    ('URL = "https://download.mindspore.cn/toolkits/resnet50.ckpt"\n', False),
    ("# Adapted to run on mindspore.\nfrom .mindspore_utils import pad\n", False),
    ("class Net(Base):\n    def construct(self, x):\n        return x\n", True),
    ("class Net(Base):\n    def bprop(self, x, out, dout):\n        return (dout,)\n", True),
    ('"""Blocks the constructor builds, to reconstruct the input."""\n', False),
    ("@torch.jit.script\ndef f(x):\n    return x\n", False),
    ("def construct_backend_options(name):\n    return name\n", False),
    ("self._construct(x)\nconstruct", True),
    ("self._construct(x)\n_bprop = bprops", False),
])
def test_a_file_is_checked_only_when_an_import_spells_mindspore_or_it_defines_graph_code(source, checked):
    from ms_lint.model.source import may_hold_hazards

    assert may_hold_hazards(source) is checked


def test_a_module_of_a_package_named_mindspore_is_checked_for_what_its_relative_imports_reach(tmp_path):
    # Inside MindSpore's own package a relative import reaches MindSpore without spelling it.
    models = tmp_path / "mindspore" / "models"
    models.mkdir(parents=True)
    (tmp_path / "mindspore" / "__init__.py").write_text("")
    (models / "__init__.py").write_text("")
    head = models / "head.py"
    head.write_text("# A head for mindspore models.\nfrom ..nn import Dense\n\nlayer = Dense(2, 2, bias=False)\n")
    assert _check(head) == ["MS604"]
    from ms_lint.model.source import may_hold_hazards

    assert not may_hold_hazards(head.read_text(), "project/models/head.py")


def test_a_file_that_never_names_mindspore_is_checked_for_the_construct_of_the_project_s_cell(tmp_path):
    base, user = _project(tmp_path, "import mindspore.nn as nn\n\n\nclass Base(nn.Cell):\n    pass\n")
    user.write_text(user.read_text().replace("import mindspore\n", ""))
    assert _check(user) == ["MS102"]


def test_what_the_files_left_unchecked_hold_gives_no_finding_when_checked(tmp_path, monkeypatch):
    import ms_lint.engine as engine

    # A jit taken from a module of the project is not MindSpore's jit for any check, and the host code of a file
    # that never spells mindspore calls nothing of MindSpore: checked anyway, such a file gives nothing.
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "compat.py").write_text("from mindspore import jit, nn\nfrom mindspore.nn import Dense\n")
    user = package / "user.py"
    user.write_text("import numpy as np\nfrom pkg.compat import Dense, jit, nn\n\n\n@jit\ndef total(x):\n"
                    "    return np.sum(x.asnumpy())\n\n\nlayer = Dense(2, 2, bias=False)\nnet = nn.Dense(2, 2, 1)\n")
    # Nor does a file that spells mindspore only where no import does: in a checkpoint's URL, in a comment.
    spelled = package / "spelled.py"
    spelled.write_text('# Runs on mindspore.\nURL = "https://download.mindspore.cn/net.ckpt"\n' + user.read_text())
    assert not engine.may_hold_hazards(user.read_text(), str(user))
    assert not engine.may_hold_hazards(spelled.read_text(), str(spelled))
    monkeypatch.setattr(engine, "may_hold_hazards", lambda source, path="": True)
    assert _check(user) == []
    assert _check(spelled) == []


def test_another_modules_outline_leaves_function_bodies_out():
    tree = ast.parse(textwrap.dedent("""
        import mindspore.nn as nn

        def build():
            import numpy as np
            return np.zeros(3)

        class Net(nn.Cell):
            def construct(self, x):
                return x
    """))
    outline = ModuleFacts(tree, "case.py", Settings(syntax_level="strict"), graph_code=False, outline=True)
    full = ModuleFacts(tree, "case.py", Settings(syntax_level="strict"), graph_code=False)
    assert outline.classes["Net"].is_cell and set(outline.classes["Net"].methods) == {"construct"}
    assert outline.names == full.names == {"nn": "mindspore.nn"}
    assert not any(isinstance(node, ast.Return) for node in outline.index.nodes)
    assert any(isinstance(node, ast.Return) for node in full.index.nodes)


@pytest.mark.parametrize("fixture", ["user_objects.py", "constant_branches.py", "scopes_same_class_name.py"])
def test_an_analysis_leaves_nothing_for_the_garbage_collector(fixture):
    # In a long flake8 run every full collection rescans what the host holds: an analysis frees what it builds
    # by reference counting (the facts untie their own cycles in release()).
    import gc

    from ms_lint.engine import check_tree

    source = (Path(__file__).parent / "fixtures" / "rules" / "model" / fixture).read_text()
    source += "\n\nclass Shim(nn.Cell):\n    pass\n\n\nclass Shim(Shim):\n    pass\n"
    # the caches of other modules' summaries filled
    check_tree(ast.parse(source), source, fixture, Settings(syntax_level="strict"))
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        assert check_tree(ast.parse(source), source, fixture, Settings(syntax_level="strict"))
        assert gc.collect() == 0
    finally:
        if was_enabled:
            gc.enable()


DEFERRED_SCOPES = """
    import numpy as np
    import mindspore.nn as nn

    def outer(x):
        alias = nn
        def inner(y):
            return alias.Dense(y)
        import math as np
        for i, (a, b) in enumerate(x):
            total = a + b
        with open(x) as handle:
            handle.read()
        return np.sin(x), inner(x), total

    def other(x):
        return np.sin(x), nn.ReLU()

    def declares():
        global CONFIG
        CONFIG = 1

    def make():
        class Net(nn.Cell):
            def construct(self, x):
                return np.sin(x)
        return Net()

    CONFIG = None
"""


def _answers(module: ModuleFacts, order) -> dict:
    loads = [n for n in ast.walk(module.tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    answers = {}
    for position in order(range(len(loads))):
        name = loads[position]
        binding = module.scopes.binding(name)
        answers[position] = (module.qualname(name), binding and (binding.kind, binding.position, binding.scope.path))
    return answers


def test_a_functions_scope_made_on_first_use_answers_as_if_made_at_once():
    # A function's scope is made when a position inside it is first asked about: the answers do not depend on
    # which function is asked first.
    in_order = _answers(facts(DEFERRED_SCOPES), list)
    assert in_order == _answers(facts(DEFERRED_SCOPES), lambda positions: list(reversed(positions)))
    module = facts(DEFERRED_SCOPES)
    calls = {ast.unparse(site.node): site.qualname for site in module.calls}
    assert calls["alias.Dense(y)"] == "mindspore.nn.Dense"
    assert calls["inner(x)"] == "case.outer.<locals>.inner"
    assert calls["nn.ReLU()"] == "mindspore.nn.ReLU"
    assert [site.qualname for site in module.calls if ast.unparse(site.node) == "np.sin(x)"] == [
        "math.sin", "numpy.sin", "numpy.sin"]
    assert "CONFIG" in module.scopes.declared_global
    assert "make.<locals>.Net" in module.classes  # a function holding a class has its scope made at once


def test_a_name_in_a_function_asked_after_another_function_was_looked_into():
    module = facts(DEFERRED_SCOPES)
    other_np = [n for n in names_in(module, "np") if isinstance(n.ctx, ast.Load)][2]
    assert module.scopes.binding(other_np).scope is module.scopes.module  # `other` looked into first
    total = [n for n in names_in(module, "total") if isinstance(n.ctx, ast.Load)][0]
    binding = module.scopes.binding(total)
    assert binding.kind == "assignment" and binding.scope.path == "outer.<locals>."
    handle = [n for n in names_in(module, "handle") if isinstance(n.ctx, ast.Load)][0]
    assert module.scopes.binding(handle).scope is binding.scope


def test_a_least_rank_comes_from_an_assignment_that_reaches_the_use():
    module = facts("""
        from mindspore import nn, mint

        class Attention(nn.Cell):
            def heads(self, x):
                return x.view(2, 3, 4, 5).permute(0, 2, 1, 3)

            def construct(self, x, past=None):
                k = x
                if past is not None:
                    k = mint.cat([past, self.heads(x)], dim=2)
                m = x.reshape(3, 4)
                s = x.reshape(3, 4, 5)
                s = x.sum()
                return k, m, s, x[:, :, 0], x[:, :, :1]
    """)
    construct = next(f for f in module.graph_functions if f.node.name == "construct")
    returned = next(n for n in construct.nodes_of(ast.Return)).value.elts
    k, m, s, indexed, sliced = (construct.least_rank(e) for e in returned)
    assert k.at_least == 4 and ast.unparse(k.shaped_by) == "x.view(2, 3, 4, 5).permute(0, 2, 1, 3)"
    assert m.at_least == 2
    assert s is None  # the rank-3 value never reaches the use: the sum replaced it on every path
    assert indexed is None and sliced.at_least == 3


def test_a_least_rank_crosses_the_module_s_cells_through_sub_cells_and_the_arguments_parents_pass():
    module = facts("""
        import mindspore.numpy as mnp
        from mindspore import nn

        class Encoder(nn.Cell):
            def __init__(self):
                super().__init__()
                self.dense = nn.Dense(4, 8)
                self.flatten = nn.Flatten()

            def construct(self, feat):
                return self.dense(mnp.transpose(feat, axes=(0, 2, 1)))

        class Decoder(nn.Cell):
            def construct(self, pcm, cfeat, other=None):
                return cfeat, pcm, other

            def helper(self, cfeat):
                return cfeat

        class Ping(nn.Cell):
            def __init__(self):
                super().__init__()
                self.pong = Pong()

            def construct(self, x):
                return self.pong(x)

        class Pong(nn.Cell):
            def __init__(self):
                super().__init__()
                self.ping = Ping()

            def construct(self, x):
                return self.ping(x)

        class Model(nn.Cell):
            def __init__(self):
                super().__init__()
                self.encoder = Encoder()
                self.decoder = Decoder()
                self.flatten = nn.Flatten()

            def construct(self, pcm, feat):
                self.decoder.helper(self.encoder(feat))
                return self.decoder(pcm, self.encoder(feat), other=self.flatten(feat.view(2, 3, 4)))
    """)
    functions = {(f.owner.name if f.owner else "", f.node.name): f for f in module.graph_functions}
    decoder = functions[("Decoder", "construct")]
    cfeat, pcm, other = decoder.nodes_of(ast.Return)[0].value.elts
    rank = decoder.least_rank(cfeat)
    assert rank.at_least == 3 and ast.unparse(rank.shaped_by) == "mnp.transpose(feat, axes=(0, 2, 1))"
    assert decoder.least_rank(pcm) is None  # the parent's own argument: nothing shapes it
    assert decoder.least_rank(other) is None  # nn.Flatten is not a layer known to keep its input's rank
    helper = functions[("Decoder", "helper")]
    assert helper.least_rank(helper.nodes_of(ast.Return)[0].value) is None  # only construct is called as a Cell
    ping = functions[("Ping", "construct")]
    assert ping.least_rank(ping.nodes_of(ast.Return)[0].value) is None  # a cycle of Cells ends


CALLS_UNDER_OTHER_NAMES = """
    import mindspore as ms
    from mindspore import context
    from mindspore import set_context as configure
    from mindspore.nn import Momentum as Optimizer

    setup = context.set_context


    class Net(ms.nn.Cell):
        pass


    class Net(ms.nn.Cell):  # redefined: the first is keyed Net@<line>
        pass


    def main(params):
        ms.set_context(mode=0)
        configure(mode=0)
        setup(mode=1)

        def local():
            from mindspore import set_context as inner
            inner(mode=0)

        set_context = print
        set_context("not MindSpore's")
        first, second = Net(), Net()
        return Optimizer(params, 0.1, 0.9)
"""


def test_calls_to_finds_a_callee_under_any_name_the_module_binds_it_to():
    module = facts(CALLS_UNDER_OTHER_NAMES)
    assert [ast.unparse(site.node.func) for site in module.calls_to("set_context")] == [
        "ms.set_context", "configure", "setup", "inner"]
    assert [ast.unparse(site.node.func) for site in module.calls_to("print", mindspore_only=False)] == [
        "set_context"]
    assert [ast.unparse(site.node.func) for site in module.training_calls()] == ["Optimizer"]
    assert {"configure", "setup", "inner", "set_context", "Optimizer"} <= module.scopes.renamed_names()
    assert "Net" in module.scopes.renamed_names()  # one of its classes is keyed Net@<line>
    assert "ms" in module.scopes.renamed_names()  # ``import mindspore as ms``: ms(...) would call mindspore
    assert "context" not in module.scopes.renamed_names()  # from mindspore import context


def test_the_calls_to_local_classes_hold_every_call_that_builds_one():
    module = facts(CALLS_UNDER_OTHER_NAMES)
    built = [module.class_of_constructor(site.node) for site in module.calls_to_local_classes()]
    assert [qualname for qualname, _, _ in built] == ["case.Net", "case.Net"]
    module = facts("""
        import mindspore.nn as nn

        class Block(nn.Cell):
            pass

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.block = Block()
    """)
    assert [ast.unparse(site.node) for site in module.calls_to_local_classes()] == ["Block()"]
    assert "Block" not in module.scopes.renamed_names()  # a class defined once is called by its own name


def test_call_sites_are_made_when_asked_and_all_are_there_in_source_order():
    module = facts(CALLS_UNDER_OTHER_NAMES)
    candidates = module.calls_written("configure")  # with the calls through every other renamed name
    configured = [site for site in candidates if ast.unparse(site.node) == "configure(mode=0)"]
    assert len(configured) == 1 and configured[0].function.name == "main" and configured[0].owner is None
    assert [site.node.lineno for site in candidates] == sorted(site.node.lineno for site in candidates)
    every = module.calls
    listed = [site for site in every if site.node is configured[0].node]
    assert len(listed) == 1 and listed[0] is configured[0]  # the site made first is the one listed
    assert [site.node.lineno for site in every] == sorted(site.node.lineno for site in every)
    assert len(every) == sum(isinstance(node, ast.Call) for node in ast.walk(module.tree))
    assert [ast.unparse(site.node.func) for site in module.calls_with_keywords()] == [
        "ms.set_context", "configure", "setup", "inner"]


def test_each_call_site_knows_the_function_and_class_around_it():
    module = facts("""
        import mindspore.nn as nn

        top = make()

        class Net(base(nn.Cell)):
            size = width()

            @decorate(1)
            def method(self, k=default()):
                def inner():
                    return leaf()
                return after()

            class Head(nn.Cell):
                kind = head_kind()

        def builder():
            class Local(local_base()):
                value = local_value()
            return finished()

        tail = last()
    """)
    around = {ast.unparse(site.node.func): (site.function.name if site.function else None,
                                            site.owner.name if site.owner else None) for site in module.calls}
    assert around == {
        "make": (None, None), "base": (None, None), "width": (None, "Net"),
        # a method's decorators and defaults are filed with the method, as the module's pass files them
        "decorate": ("method", "Net"), "default": ("method", "Net"),
        "leaf": ("inner", "Net"), "after": ("method", "Net"), "head_kind": (None, "Head"),
        "local_base": ("builder", None), "local_value": (None, "Local"), "finished": ("builder", None),
        "last": (None, None)}


MUTUALLY_RECURSIVE_HELPERS = """
    import numpy as np
    import mindspore.nn as nn

    class Net(nn.Cell):
        def a(self, t):
            y = self.b(t)
            return y.shape[0]

        def b(self, t):
            return self.a(t)

        def construct(self, x):
            first = self.a(x)
            second = self.b(x)
            return np.sum(second) + x
"""


@pytest.mark.parametrize("order", ["a first", "b first"])
def test_what_a_helper_returns_does_not_depend_on_which_helper_was_asked_first(order):
    # b returns what a returns, a shape entry: a constant. Looked up from a, b meets a again and is cut short;
    # that answer serves a's look-up only, not a later question about b.
    source = MUTUALLY_RECURSIVE_HELPERS
    if order == "b first":
        source = source.replace("first = self.a(x)\n            second = self.b(x)",
                                "second = self.b(x)\n            first = self.a(x)")
    module = facts(source)
    construct = next(f for f in module.graph_functions if f.node.name == "construct")
    second = next(n for n in ast.walk(construct.node) if isinstance(n, ast.Name) and n.id == "second"
                  and isinstance(n.ctx, ast.Load))
    assert construct.kind(second) is None


def test_a_helper_graph_code_reaches_keeps_its_own_kinds_not_those_a_cut_short_look_gave_it():
    # Asked what b returns, the model looks into b, then into a, which calls b again: the recursion guard answers
    # "tensor" for that inner call. That look at a is shaped by the guard; a read as graph code is not: b returns a
    # shape entry, so y is a constant there.
    module = facts("""
        import mindspore.nn as nn

        class Net(nn.Cell):
            def a(self, t):
                y = self.b(t)
                return y

            def b(self, t):
                u = self.a(t)
                return t.shape[0]

            def construct(self, x):
                s = self.b(x)
                return x
    """)
    a = next(f for f in module.graph_functions if f.node.name == "a")
    y = next(n for n in ast.walk(a.node) if isinstance(n, ast.Name) and n.id == "y" and isinstance(n.ctx, ast.Load))
    assert a.kind(y) is None


def test_a_helper_without_dead_branches_is_read_once_for_what_it_returns_and_as_graph_code():
    module = facts("""
        import numpy as np
        import mindspore.nn as nn
        from mindspore import ops

        class Net(nn.Cell):
            def scale(self, t, size):
                h = ops.relu(t)
                return h * size

            def gate(self, t, mode):
                if mode == "np":
                    k = np.ones(3)
                return t

            def construct(self, x):
                y = self.scale(x, 2)
                z = self.gate(y, "ms")
                return z
    """)
    by_name = {f.node.name: f for f in module.graph_functions}
    read_once = {key[0] for key in module._environments}
    assert id(by_name["scale"].node) in read_once
    assert by_name["scale"].env["h"] == "tensor"
    # Graph code compiles gate without its "np" branch, which the look at what it returns kept: not reused.
    assert id(by_name["gate"].node) in read_once
    assert "k" not in by_name["gate"].env


def test_a_module_imports_a_host_library_wherever_it_imports_one():
    assert not facts("""
        import mindspore.nn as nn
        from . import numpy
        from .math import helpers
    """).imports_a_host_library()
    assert facts("import numpy.random as npr").imports_a_host_library()
    assert facts("from scipy import special").imports_a_host_library()
    inside_a_function = facts("""
        import mindspore.nn as nn

        def helper(x):
            import torch
            return torch.tensor(x)
    """)
    assert inside_a_function.imports_a_host_library()


NESTED_SUB_CELLS = {
    "Encoder": """
        class Encoder(nn.Cell):
            def construct(self, x, return_dict=True):
                if not return_dict:
                    return x
                return self.wrap(x)

            def wrap(self, x):
                return x * 2
    """,
    "Model": """
        class Model(nn.Cell):
            def __init__(self):
                super().__init__()
                self.encoder = Encoder()

            def construct(self, x, return_dict=False):
                return self.encoder(x, return_dict=return_dict)
    """,
    "Head": """
        class Head(nn.Cell):
            def __init__(self):
                super().__init__()
                self.model = Model()

            def construct(self, x, return_dict=DEFAULT):
                return self.model(x, return_dict=return_dict)
    """,
}


@pytest.mark.parametrize("order", ["Encoder Model Head", "Head Model Encoder", "Model Encoder Head",
                                   "Head Encoder Model"])
@pytest.mark.parametrize("default, compiled", [("False", False), ("True", True)])
def test_a_sub_cell_takes_the_values_its_callers_finally_pass(order, default, compiled):
    # Encoder and Model are used only as sub-cells: each gets its callers' values once they are known, not the
    # unknown ones of a first look, in whatever order the module defines the three.
    source = "import mindspore.nn as nn\n" + "".join(textwrap.dedent(NESTED_SUB_CELLS[name]) for name in order.split())
    module = facts(source.replace("DEFAULT", default))
    encoder = next(f for f in module.graph_functions if f.label == "Encoder.construct")
    assert encoder.parameter_values["return_dict"] == frozenset({("bool", default == "True")})
    assert module.is_graph_code(module.classes["Encoder"].methods["wrap"]) is compiled


SUB_CELL_REACHED_THROUGH_A_HELPER = """
    import mindspore.nn as nn


    def ping(x, n):
        return pong(x, n - 1)


    def pong(x, n):
        return ping(x, n)


    class Block(nn.Cell):
        def construct(self, x, flag=True):
            if flag:
                return ping(x, 3)
            return x


    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.block = Block()

        def construct(self, x):
            return self.run(x, FLAG)

        def run(self, x, flag):
            return self.block(x, flag)
"""


@pytest.mark.parametrize("flag, compiled", [("False", False), ("True", True)])
def test_a_call_in_a_branch_dropped_once_the_callers_values_are_known_compiles_nothing(flag, compiled):
    # Block's construct is looked at before Net.run passes it ``flag``: that first look, with ``flag`` unknown,
    # reaches ping and pong. Once Block gets False, its branch is dropped, and with it what the first look passed:
    # ping and pong, which keep each other called, are no graph code.
    module = facts(SUB_CELL_REACHED_THROUGH_A_HELPER.replace("FLAG", flag))
    block = next(f for f in module.graph_functions if f.label == "Block.construct")
    assert block.parameter_values["flag"] == frozenset({("bool", flag == "True")})
    assert module.is_graph_code(module.functions["ping"]) is compiled
    assert module.is_graph_code(module.functions["pong"]) is compiled
    assert {f.label for f in module.graph_functions} == {
        "Block.construct", "Net.construct", "Net.run", *(("ping", "pong") if compiled else ())}


@pytest.mark.parametrize("flag", ["False", "True"])
def test_what_graph_code_is_does_not_depend_on_the_order_functions_are_looked_at(monkeypatch, flag):
    from ms_lint.model.graph import GraphCode

    def graph_code(pop_last: bool):
        if pop_last:  # the queue read from its end: callees before their callers, sub-cells before their parents
            original = GraphCode._follow_calls

            def follow_last_first(self, queue):
                queue.reverse()
                return original(self, _LastFirst(queue))

            monkeypatch.setattr(GraphCode, "_follow_calls", follow_last_first)
        module = facts(SUB_CELL_REACHED_THROUGH_A_HELPER.replace("FLAG", flag))
        monkeypatch.undo()
        return {f.label: (f.parameter_values, f.strict, f.reason) for f in module.graph_functions}

    assert graph_code(pop_last=True) == graph_code(pop_last=False)


class _LastFirst(list):
    """A work queue handed out from its end."""

    def pop(self, index=-1):
        return super().pop()


def test_a_relative_import_inside_a_package_named_like_a_host_library_imports_it(tmp_path):
    package = tmp_path / "torch"
    package.mkdir()
    (package / "__init__.py").write_text("")
    module_file = package / "layers.py"
    source = "from .functional import tanh\n"
    module_file.write_text(source)
    assert ModuleFacts(ast.parse(source), str(module_file), Settings(syntax_level="strict"),
                       source).imports_a_host_library()


@pytest.mark.parametrize("instance", ["self", "this"])
def test_a_cell_keeps_its_plain_containers_on_the_instance_whatever_its_methods_call_it(instance):
    module = facts(f"""
        import mindspore.nn as nn


        class Net(nn.Cell):
            def __init__({instance}):
                super().__init__()
                {instance}.layers = [nn.Dense(2, 2), nn.Dense(2, 2)]

            def construct({instance}, x):
                for layer in {instance}.layers:
                    x = layer(x)
                return x
    """)
    [layers] = module.plain_containers()
    assert layers.target == f"{instance}.layers" and layers.stored_on_self
    # the attribute the validator's parameter probe reports the element site under
    assert [(site.lineno, layers.site_attribute(site)) for site, _ in layers.element_sites] == [(8, "layers")]


def test_a_parameter_made_by_a_project_registry_is_a_parameter_of_the_cell(tmp_path):
    """``self.lr = registry.register(...)``, where another module binds ``registry = Registry()`` and ``register``
    returns the ``Parameter`` it builds: writing ``self.lr`` in construct is supported, so MS108 is silent there;
    an attribute a helper fills with a plain Tensor is still reported."""
    from ms_lint.engine import check_file

    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "registry.py").write_text(textwrap.dedent("""\
        import mindspore as ms
        from mindspore import Parameter, Tensor


        class Registry:
            def register(self, name, value):
                if isinstance(value, Tensor):
                    param = Parameter(value, name=name, requires_grad=False)
                else:
                    param = Parameter(Tensor(value, ms.float32), name=name, requires_grad=False)
                return param

            def plain(self, value):
                return Tensor(value, ms.float32)


        registry = Registry()
    """))
    (package / "model.py").write_text(textwrap.dedent("""\
        import mindspore as ms
        from mindspore import Tensor, nn

        from pkg.registry import registry


        class Step(nn.Cell):
            def __init__(self):
                super().__init__()
                self.lr = registry.register("lr", Tensor(0.1, ms.float32))
                self.state = registry.plain(0.0)

            def construct(self, x, lr):
                self.lr = lr
                self.state = x.sum()
                return x * self.lr
    """))
    findings = check_file(str(package / "model.py"), Settings(syntax_level="strict"), ["MS108"])
    assert [(f.line, f.data["attribute"]) for f in findings] == [(15, "state")]


def test_a_registry_whose_class_another_module_defines_makes_parameters_too(tmp_path):
    """``registry = Registry()`` with ``Registry`` imported from a third module, its ``register`` inherited from a
    base: the method is found through the class's bases, as every question about a class's methods is answered."""
    from ms_lint.engine import check_file

    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "base.py").write_text(textwrap.dedent("""\
        from mindspore import Parameter


        class Base:
            def register(self, value):
                return Parameter(value, requires_grad=False)
    """))
    (package / "reg.py").write_text("from pkg.base import Base\n\n\nclass Registry(Base):\n    pass\n")
    (package / "holder.py").write_text("from pkg.reg import Registry\n\nregistry = Registry()\n")
    (package / "model.py").write_text(textwrap.dedent("""\
        import mindspore as ms
        from mindspore import Tensor, nn

        from pkg.holder import registry


        class Step(nn.Cell):
            def __init__(self):
                super().__init__()
                self.lr = registry.register(Tensor(0.1, ms.float32))

            def construct(self, x, lr):
                self.lr = lr
                return x * self.lr
    """))
    assert check_file(str(package / "model.py"), Settings(syntax_level="strict"), ["MS108"]) == []


def test_attributes_built_from_each_other_fold_once_each():
    """A chain of constant attributes, each read twice by the next, folds (its dead branch is not reported) without
    asking the same attribute again and again."""
    from ms_lint.engine import check_source

    chain = "\n".join(f"        self.a{i} = self.a{i - 1} == self.a{i - 1}" for i in range(1, 25))
    source = textwrap.dedent("""\
        import numpy as np
        from mindspore import nn


        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.a0 = True
        CHAIN
            def construct(self, x):
                if self.a24:
                    return x
                return np.sin(x)
    """).replace("CHAIN", chain)
    assert [f.code for f in check_source(source, "net.py", Settings(syntax_level="strict"))] == []


def test_the_names_an_instance_has_are_what_its_lineage_sets_and_binds_or_unknown():
    module = facts("""
        import mindspore as ms
        from mindspore import nn

        class Base(nn.Cell):
            scale = 2.0

            def __init__(self):
                super().__init__()
                self.fc1 = nn.Dense(2, 2)
                self.a, self.b = 1, 2
                self.register_buffer("running", ms.Tensor(0.0))

            @property
            def width(self):
                return 2

        class Net(Base):
            def build(self):
                self.count += 1

        class Dynamic(nn.Cell):
            def __init__(self, names):
                super().__init__()
                for name in names:
                    setattr(self, name, 1)

        class Answering(nn.Cell):
            def __getattr__(self, name):
                return 1

        class Layer(nn.Dense):
            pass

        class Computed(nn.Cell):
            def __init__(self, name):
                super().__init__()
                self.register_buffer(name, ms.Tensor(0.0))
    """)
    names = module.instance_names(module.classes["Net"])
    assert {"fc1", "a", "b", "running", "width", "scale", "count", "build", "__init__"} <= names
    assert {"training", "phase", "cls_name"} <= names  # nn.Cell's own
    assert "FC1" not in names
    for unknown in ("Dynamic", "Answering", "Layer", "Computed"):
        assert module.instance_names(module.classes[unknown]) is None, unknown


def test_the_names_a_project_base_sets_are_read_once_for_the_whole_run(tmp_path, monkeypatch):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "base.py").write_text("import mindspore.nn as nn\n\n\nclass Base(nn.Cell):\n"
                                     "    def __init__(self):\n        super().__init__()\n"
                                     "        self.fc1 = nn.Dense(2, 2)\n")
    users = []
    for number in range(2):
        user = package / f"user{number}.py"
        user.write_text("import mindspore\nfrom pkg.base import Base\n\n\nclass Net(Base):\n"
                        "    def construct(self, x):\n        return self.FC1(self.fc1(x))\n")
        users.append(user)
    reads = _recording_reads(monkeypatch)
    assert [_check(user) for user in users] == [["MS123"], ["MS123"]]
    assert [path for path, outline in reads if not outline] == [str(package / "base.py")]


@pytest.mark.parametrize("source, instance, expected", [
    ("this.weight", "this", "weight"),
    ("self.layers[0]", "self", None),  # a subscript of the attribute, not the attribute
    ("self.block.weight", "self", None),  # an attribute of an attribute
    ("other.weight", "self", None),
    ("self.weight", None, None),  # a static method or a function: no instance
    ("self", "self", None),
    ("self.weight()", "self", None),  # the call, not its callee
])
def test_self_attribute_answers_whether_an_expression_is_an_attribute_of_the_instance(source, instance, expected):
    from ms_lint.model.syntax import is_attribute_of, self_attribute

    expr = ast.parse(source, mode="eval").body
    assert self_attribute(expr, instance) == expected
    if source == "self.layers[0]":
        assert is_attribute_of(expr, "self")  # the chain is rooted at the instance
