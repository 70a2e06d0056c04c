"""A Cell no code of its application builds (``GraphCode.built_only_in_dead_code`` with no site at all): every word
naming it is read and none builds it, as where the one module that builds an ``Attention`` defines its own, so no
rule reports its code. Kept where something may still build it: a site, a name looked up as the text cannot follow
(``getattr(models, name)``, ``vars(models)[name]``), a decorator that may register it, a library. ``vars(args)``
of parsed options reads no module's namespace."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from ms_lint.engine import check_file
from ms_lint.settings import Settings
from ms_lint.target import forget_projects, lookups_followed

ATTENTION = textwrap.dedent("""\
    import mindspore.nn as nn


    class Attention(nn.Cell):
        def __init__(self, dim):
            super(Attention, self).__init__()
            self.proj = nn.Dense(dim, dim, bias=True)

        def construct(self, x):
            return self.proj(x)


    class Deform(nn.Cell):
        def __init__(self, dim):
            super(Deform, self).__init__()
            self.proj = nn.Dense(dim, dim)

        def construct(self, x):
            return self.proj(x)
""")
DENSE_LINE = 7
BACKBONE = textwrap.dedent("""\
    import mindspore.nn as nn

    from attn import Deform


    class Attention(nn.Cell):
        def __init__(self, dim):
            super(Attention, self).__init__()
            self.deform = Deform(dim)

        def construct(self, x):
            return self.deform(x)


    def build(dim):
        return Attention(dim)
""")
EVAL = ("import argparse\nimport mindspore as ms\nfrom backbone import build\n\n"
        "ms.set_context(mode=ms.GRAPH_MODE)\nparser = argparse.ArgumentParser()\nargs = parser.parse_args()\n"
        "options = vars(args)\nnet = build(8)\n")


@pytest.fixture(autouse=True)
def fresh_projects():
    forget_projects()
    yield
    forget_projects()


def found(root: Path, entry: str = EVAL, **files: str) -> list[tuple[int, str]]:
    root.mkdir(parents=True, exist_ok=True)
    (root / "attn.py").write_text(ATTENTION)
    (root / "backbone.py").write_text(BACKBONE)
    (root / "eval.py").write_text(entry)
    for name, text in files.items():
        (root / name).write_text(text)
    return sorted((f.line, f.code) for f in check_file(str(root / "attn.py"), Settings(), ["MS604"]))


def test_a_cell_no_code_builds_is_never_run(tmp_path):
    """``backbone.py`` builds its own ``Attention``; ``attn.Attention`` is named only where it is defined."""
    assert found(tmp_path / "app") == []
    assert lookups_followed(str(tmp_path / "app" / "attn.py"))


@pytest.mark.parametrize("entry, files", [
    (EVAL + "import attn\nother = attn.Attention(8)\n", {}),  # a site builds it
    (EVAL + "import attn\nother = getattr(attn, args.name)(8)\n", {}),  # looked up by a name
    (EVAL + "import attn\nother = vars(attn)[args.name](8)\n", {}),  # looked up in the module's namespace
    (EVAL, {"tool.py": "from attn import Attention\n\nTOOLS = [Attention]\n"}),  # passed as a value
])
def test_a_cell_something_may_build_keeps_its_findings(tmp_path, entry, files):
    assert found(tmp_path / "app", entry, **files) == [(DENSE_LINE, "MS604")]


REGISTERED = textwrap.dedent("""\
    import mindspore.nn as nn
    from mindspore import ops

    clip_grad = ops.MultitypeFuncGraph("clip_grad")


    @clip_grad.register("Tensor")
    def _clip_grad(grad):
        return nn.Dense(3, 3, bias=True)(grad)


    class Step(nn.Cell):
        def __init__(self):
            super(Step, self).__init__()
            self.hyper_map = ops.HyperMap()

        def construct(self, grads):
            return self.hyper_map(clip_grad, grads)
""")


def test_a_function_a_decorator_registers_keeps_its_findings(tmp_path):
    """``_clip_grad`` is called by no name: ``hyper_map`` calls what ``clip_grad.register`` holds."""
    root = tmp_path / "app"
    root.mkdir()
    (root / "step.py").write_text(REGISTERED)
    (root / "train.py").write_text(
        "import mindspore as ms\nfrom step import Step\n\nms.set_context(mode=ms.GRAPH_MODE)\nstep = Step()\n")
    assert lookups_followed(str(root / "step.py"))
    assert sorted((f.line, f.code) for f in check_file(str(root / "step.py"), Settings(), ["MS604"])) == [
        (9, "MS604")]


def test_vars_of_a_module_the_file_imports_is_a_lookup_and_of_options_is_none(tmp_path):
    found(tmp_path / "app")
    assert lookups_followed(str(tmp_path / "app" / "attn.py"))
    forget_projects()
    found(tmp_path / "other", EVAL.replace("options = vars(args)", "import attn\noptions = vars(attn)"))
    assert not lookups_followed(str(tmp_path / "other" / "attn.py"))


def test_a_library_keeps_its_cells(tmp_path):
    root = tmp_path / "lib"
    (root / "pkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "pkg"\nversion = "0.1.0"\n')
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "attn.py").write_text(ATTENTION)
    (root / "pkg" / "backbone.py").write_text(BACKBONE.replace("from attn", "from pkg.attn"))
    assert sorted((f.line, f.code) for f in check_file(str(root / "pkg" / "attn.py"), Settings(), ["MS604"])) == [
        (DENSE_LINE, "MS604")]
