"""Which places build an application's Cell (``ms_lint.model.construction``): a name read from another package's
module (``nn.Cell``) is no site of the application's own class of that name; a site in a branch no caller runs
builds nothing, and a Cell whose every site is such is never built (no finding in it); a factory that forwards
``**kwargs`` no caller fills passes nothing by them; a string only compared or offered as a command line's choice
names the class to nothing where the application looks no name up."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from ms_lint.engine import check_file
from ms_lint.settings import Settings
from ms_lint.target import forget_projects

MODEL = textwrap.dedent("""\
    import mindspore.nn as nn


    class Squeeze(nn.Cell):
        def __init__(self, channels):
            super(Squeeze, self).__init__()
            self.fc = nn.Dense(channels, channels, bias=True)

        def construct(self, x):
            return self.fc(x)


    class Cell(nn.Cell):
        def __init__(self, channels, se_layer=False, mode="fc"):
            super(Cell, self).__init__()
            self.se_flag = se_layer
            self.dense = nn.Dense(channels, channels)
            if se_layer:
                self.se = Squeeze(channels)
            if mode != "fc":
                self.conv = nn.Conv2d(channels, channels, 3, bias=False)

        def construct(self, x):
            x = self.dense(x)
            if self.se_flag:
                x = self.se(x)
            return x


    class Net(nn.Cell):
        def __init__(self, channels, mode="fc"):
            super(Net, self).__init__()
            self.cell = Cell(channels, mode=mode)

        def construct(self, x):
            return self.cell(x)
""")
SQUEEZE_LINE, CONV_LINE = 7, 21
EVAL = "import argparse\nimport mindspore as ms\nfrom model import Net\n\nms.set_context(mode=ms.GRAPH_MODE)\n"


@pytest.fixture(autouse=True)
def fresh_projects():
    forget_projects()
    yield
    forget_projects()


def found(tmp_path: Path, builds: str, model: str = MODEL, **files: str) -> list[tuple[int, str]]:
    root = tmp_path / "app"
    root.mkdir(parents=True, exist_ok=True)
    (root / "model.py").write_text(model)
    (root / "eval.py").write_text(EVAL + builds)
    for name, text in files.items():
        (root / name).write_text(text)
    return sorted((f.line, f.code) for f in check_file(str(root / "model.py"), Settings(), ["MS604"]))


def test_a_cell_built_only_in_a_branch_no_caller_runs_is_never_built(tmp_path):
    """``Cell`` shares its name with MindSpore's ``nn.Cell`` (every base names it): those are no sites; its one
    site leaves ``se_layer=False``, so ``Squeeze`` is never built and ``mode`` is ``"fc"`` everywhere."""
    assert found(tmp_path, "net = Net(3)\n") == []


def test_a_site_passing_the_switch_builds_the_cell(tmp_path):
    assert found(tmp_path, "net = Net(3)\n", model=MODEL + "\n\nWIDE = Cell(3, se_layer=True)\n") == [
        (SQUEEZE_LINE, "MS604")]


def test_a_site_passing_another_mode_keeps_the_branch(tmp_path):
    assert found(tmp_path, "net = Net(3, mode='conv')\n") == [(CONV_LINE, "MS604")]


def test_the_package_s_own_class_of_that_name_is_a_site(tmp_path):
    """``from mindspore.nn import Cell`` in a file makes its ``Cell`` MindSpore's: what that file does with it is
    not read, and nothing is known."""
    other = ("from mindspore.nn import Cell\n\n\nclass Head(Cell):\n"
             "    def __init__(self):\n        super().__init__()\n")
    assert found(tmp_path, "net = Net(3)\n", **{"head.py": other}) == [(SQUEEZE_LINE, "MS604"), (CONV_LINE, "MS604")]


def test_a_module_of_the_application_named_like_the_package_is_its_own(tmp_path):
    """``nn.Cell`` where the application has a module ``nn`` of its own may be its class: nothing is known."""
    own = "from model import Cell\n"
    assert found(tmp_path, "net = Net(3)\nimport nn\nwide = nn.Cell(3, se_layer=True, mode='x')\n",
                 **{"nn.py": own}) == [(SQUEEZE_LINE, "MS604"), (CONV_LINE, "MS604")]


FACTORY = textwrap.dedent("""\


    def net_s(pretrained=False, **kwargs):
        return Net(3, **kwargs)
""")


def test_a_factory_forwarding_keywords_no_call_passes(tmp_path):
    assert found(tmp_path, "from model import net_s\nnet = net_s()\n", model=MODEL + FACTORY) == []


@pytest.mark.parametrize("call, factory", [
    ("net_s(mode='conv')", FACTORY),  # a call passes the keyword on
    ("net_s()", FACTORY.replace("return Net", "kwargs['mode'] = 'conv'\n    return Net")),  # filled in the body
    ("net_s(**{'mode': 'conv'})", FACTORY),  # keywords not read
])
def test_keywords_a_call_or_the_factory_fills_are_unknown(tmp_path, call, factory):
    assert found(tmp_path, f"from model import net_s\nnet = {call}\n", model=MODEL + factory) == [(CONV_LINE, "MS604")]


CHOOSE = ("parser = argparse.ArgumentParser()\nparser.add_argument('--net', choices=['Net', 'Other'])\n"
          "args = parser.parse_args()\n")


def test_a_string_only_compared_or_offered_builds_nothing(tmp_path):
    assert found(tmp_path, CHOOSE + "if args.net == 'Net':\n    net = Net(3)\n") == []


@pytest.mark.parametrize("looks_up", [
    "net = getattr(model, args.net)(3, mode='conv')\nimport model\n",  # a lookup by the string's value
    "net = eval(args.net + '(3)')\n",  # code the text cannot follow
    "import model\nnet = model.__dict__[args.net](3, mode='conv')\n",  # the module's namespace read
    "import model\nnet = vars(model)[args.net](3, mode='conv')\n",
])
def test_a_string_where_the_application_looks_names_up_is_unknown(tmp_path, looks_up):
    assert found(tmp_path, CHOOSE + "if args.net == 'Net':\n    net = Net(3)\n" + looks_up) == [
        (CONV_LINE, "MS604")]


def test_a_string_naming_a_registered_class_is_unknown(tmp_path):
    registered = MODEL.replace("class Net(nn.Cell):", "@register\nclass Net(nn.Cell):").replace(
        "import mindspore.nn as nn\n", "import mindspore.nn as nn\n\n\ndef register(cls):\n    return cls\n")
    assert found(tmp_path, CHOOSE + "if args.net == 'Net':\n    net = Net(3)\n", model=registered) == [
        (CONV_LINE + 4, "MS604")]


OTHER_NET = "import mindspore.nn as nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x):\n        return x\n"
FACTORY = textwrap.dedent("""\
    from model import Net as NetA
    from other import Net as NetB


    def get(kind):
        if kind == "a":
            return NetA(3, mode="conv")
        return NetB(3)
""")


@pytest.mark.parametrize("builds, lines", [
    ("from factory import get\nnet = get('b')\n", []),
    ("from factory import get\nnet = get('a')\n", [(CONV_LINE, "MS604")]),
    ("from factory import get\nkind = 'b'\nnet = get(kind)\n", []),
    ("from factory import get\nkind = 'b'\nif input():\n    kind = 'a'\nnet = get(kind)\n", [(CONV_LINE, "MS604")]),
    ("from factory import get\n\n\ndef run(kind='b'):\n    return get(kind)\n\n\nrun()\n", [(CONV_LINE, "MS604")]),
])
def test_a_class_imported_under_another_name_is_built_by_that_name(tmp_path, builds, lines):
    """``from model import Net as NetA``: ``NetA(...)`` builds ``model.Net``, and ``other.py``'s own ``Net`` is
    another class; the one site lies in a branch ``get("b")`` never takes (a name bound once to ``"b"`` passes
    ``"b"``; bound twice, or a parameter, passes what is not known)."""
    assert found(tmp_path, builds, **{"other.py": OTHER_NET, "factory.py": FACTORY}) == lines


@pytest.mark.parametrize("factory", [
    FACTORY + "\n\nREGISTRY = [NetA]\n",
    FACTORY.replace("from other import Net as NetB", "from other import Net as NetB\nfrom model import Net as NetA"),
    FACTORY.replace("from model import Net as NetA", "from missing import Net as NetA"),
])
def test_a_renamed_class_used_otherwise_is_not_read(tmp_path, factory):
    assert found(tmp_path, "from factory import get\nnet = get('b')\n",
                 **{"other.py": OTHER_NET, "factory.py": factory}) == [(CONV_LINE, "MS604")]


def test_a_module_defining_its_own_class_that_imports_the_name_too_is_not_read(tmp_path):
    other = OTHER_NET.replace("import mindspore.nn as nn\n", "import mindspore.nn as nn\nfrom model import *\n")
    assert found(tmp_path, "from factory import get\nnet = get('b')\n",
                 **{"other.py": other, "factory.py": FACTORY}) == [(CONV_LINE, "MS604")]
