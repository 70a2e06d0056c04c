"""The constants every place an application builds one of its Cells passes to ``__init__``
(``ms_lint.model.construction``, asked through ``ClassInfo.constructor_constants``): the branches they decide are
never run, in ``construct`` (graph code: no rule reports them) and in ``__init__`` (MS201, MS205, MS606, MS608,
MS609 leave them out). A site that passes another value, a value not known, ``**kwargs``, or that names the class
in a way not read makes the parameter unknown; so does a library's class and a class no site builds."""
from __future__ import annotations

import ast
import io
import keyword
import textwrap
import tokenize
import unicodedata
from collections import Counter
from pathlib import Path

import pytest

from ms_lint.engine import check_file
from ms_lint.model.construction import OneOf, _FileIndex, constructor_constants
from ms_lint.settings import Settings
from ms_lint.target import forget_projects, sites_key

MODEL = textwrap.dedent("""\
    from mindspore import nn


    class Net(nn.Cell):
        \"\"\"A Net with an optional norm layer.\"\"\"

        def __init__(self, channels, batch_norm=False, mode="fc"):
            super(Net, self).__init__()
            self.batch_norm = batch_norm
            self.mode = mode
            self.dense = nn.Dense(channels, channels)
            if batch_norm:
                self.norm = nn.BatchNorm1d(channels, momentum=0.1)
            if not mode == "fc":
                self.layers = [nn.Dense(channels, channels)]

        def construct(self, x):
            if self.batch_norm:
                try:
                    x = self.norm(x)
                except ValueError:
                    pass
            if self.mode == "conv":
                try:
                    x = x * 2
                except ValueError:
                    pass
            return self.dense(x)
""")
NORM_LINE, LAYERS_LINE, TRY_NORM_LINE, TRY_MODE_LINE = 13, 15, 19, 24
TRAIN = "import mindspore as ms\nfrom model import Net\n\nms.set_context(mode=ms.GRAPH_MODE)\n"
CODES = ["MS109", "MS201", "MS608"]
# The application trains (MS608's momentum matters only where it does).
FIT = ("\n\ndef fit(network, dataset):\n"
       "    optimizer = ms.nn.Momentum(network.trainable_params(), 0.1, 0.9)\n"
       "    ms.train.Model(network, ms.nn.MSELoss(), optimizer).train(1, dataset)\n")


@pytest.fixture(autouse=True)
def fresh_projects():
    forget_projects()
    yield
    forget_projects()


def application(root: Path, builds: str, **files: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "model.py").write_text(MODEL)
    (root / "train.py").write_text(TRAIN + builds + FIT)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "model.py"


def constants(model: Path, several: bool = False) -> dict[str, object]:
    """The one constant of each parameter that has one; ``several``: the values of each that has several."""
    tree = ast.parse(model.read_text())
    init = next(node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and node.name == "__init__")
    return {name: {choice for _, choice in value} if several else value
            for name, value in constructor_constants(str(model), "Net", init).items()
            if name != "channels" and isinstance(value, OneOf) is several}  # (the size: below)


def found(model: Path) -> list[tuple[int, str]]:
    return sorted((f.line, f.code) for f in check_file(str(model), Settings(each_line=True), CODES))


ALL = [(NORM_LINE, "MS608"), (LAYERS_LINE, "MS201"), (TRY_NORM_LINE, "MS109"), (TRY_MODE_LINE, "MS109")]


@pytest.mark.parametrize("builds", [
    "net = Net(3)\n",  # the defaults
    "net = Net(3, batch_norm=False)\nhead = Net(4, mode='fc')\n",  # keywords, equal to the defaults
    "net = Net(3, False, 'fc')\n",  # positional
    "import model\nnet = model.Net(3, batch_norm=False)\n",  # through the module
])
def test_branches_no_construction_runs_are_left_out(tmp_path, builds):
    model = application(tmp_path / "app", builds)
    assert constants(model) == {"batch_norm": False, "mode": "fc"}
    assert found(model) == []


def test_a_site_passing_true_keeps_its_branch(tmp_path):
    model = application(tmp_path / "app", "net = Net(3)\nbig = Net(3, batch_norm=True)\n")
    assert constants(model) == {"mode": "fc"}
    assert constants(model, several=True) == {"batch_norm": {False, True}}
    assert found(model) == [(NORM_LINE, "MS608"), (TRY_NORM_LINE, "MS109")]


def test_every_site_passing_the_other_value_drops_the_default_branch_only(tmp_path):
    model = application(tmp_path / "app", "net = Net(3, True, mode='conv')\n")
    assert constants(model) == {"batch_norm": True, "mode": "conv"}
    assert found(model) == ALL


# Factories beside the entry: ``resnet18`` builds the Net with its norm, ``resnet50`` without.
FACTORIES = ("from model import Net\n\n\ndef resnet18():\n    return Net(3, batch_norm=True)\n\n\n"
             "def resnet50():\n    return Net(3)\n")


@pytest.mark.parametrize("called, constant", [("resnet50", {"batch_norm": False, "mode": "fc"}),
                                              ("resnet18", {"batch_norm": True, "mode": "fc"})])
def test_a_site_in_a_factory_the_application_never_calls_builds_nothing(tmp_path, called, constant):
    """``resnet18()`` passes ``batch_norm=True``, but only ``resnet50()`` runs: the norm branch never does; where
    the entry point calls ``resnet18`` instead, only that site counts (and the result cache checks the module
    again when the entry point changes)."""
    model = application(tmp_path / "app", f"from zoo import {called}\nnet = {called}()\n", **{"zoo.py": FACTORIES})
    assert constants(model) == constant
    other = "resnet18" if called == "resnet50" else "resnet50"
    key = sites_key(str(model))
    (tmp_path / "app" / "train.py").write_text(TRAIN + f"from zoo import {other}\nnet = {other}()\n" + FIT)
    forget_projects()
    assert sites_key(str(model)) != key


@pytest.mark.parametrize("builds", [
    "import sys\nnet = Net(3, batch_norm=sys.argv[1] == 'bn', mode=sys.argv[2])\n",  # a variable
    "net = Net(3)\nother = Net(3, batch_norm=1, mode='conv')\n",  # two sites, different values (1 is not False)
    "options = {'batch_norm': False}\nnet = Net(3, **options)\n",  # **kwargs
    "args = (3, False, 'fc')\nnet = Net(*args)\n",  # *args
    "import functools\nmake = functools.partial(Net, 3)\nnet = make()\n",  # the class passed as a value
    "from model import Net as Network\nnets = [Network]\nnet = nets[0](3)\n",  # built under another name, as a value
    "net = getattr(__import__('model'), 'Net')(3)\n",  # named in a string
])
def test_a_parameter_a_site_leaves_unknown_keeps_its_branches(tmp_path, builds):
    model = application(tmp_path / "app", builds)
    assert constants(model) == {} or "batch_norm" not in constants(model)
    assert found(model) == ALL


@pytest.mark.parametrize("files", [
    {"config/net.yaml": "model:\n  type: Net\n  batch_norm: true\n"},  # a configuration names it
    {"wide.py": "from model import Net\n\n\nclass Wide(Net):\n    pass\n"},  # a subclass builds it through super
])
def test_a_class_named_where_sites_are_not_read_is_unknown(tmp_path, files):
    model = application(tmp_path / "app", "net = Net(3)\n", **files)
    assert constants(model) == {}
    assert found(model) == ALL


def test_a_class_no_site_builds_is_unknown(tmp_path):
    model = application(tmp_path / "app", "net = None\n", **{"eval.py": "from model import Net\n"})
    assert constants(model) == {}


def test_a_library_s_class_is_unknown(tmp_path):
    root = tmp_path / "lib"
    package = root / "netlib"
    package.mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'netlib'\nversion = '1'\n")
    (package / "__init__.py").write_text("")
    (package / "model.py").write_text(MODEL)
    (package / "zoo.py").write_text("from netlib.model import Net\n\n\ndef make():\n    return Net(3)\n")
    model = package / "model.py"
    assert constants(model) == {}
    assert found(model) == ALL


def test_a_parameter_init_binds_again_is_unknown(tmp_path):
    model = application(tmp_path / "app", "net = Net(3)\n")
    model.write_text(MODEL.replace("self.batch_norm = batch_norm", "batch_norm = batch_norm or channels > 8\n"
                                   "        self.batch_norm = batch_norm"))
    assert found(model) == [(NORM_LINE + 1, "MS608"), (TRY_NORM_LINE + 1, "MS109")]


def test_a_string_that_only_mentions_the_class_is_no_site(tmp_path):
    model = application(tmp_path / "app", "net = Net(3)\nassert net, 'Net is built with defaults'\n")
    assert constants(model) == {"batch_norm": False, "mode": "fc"}
    assert found(model) == []


@pytest.mark.parametrize("names", ["registry = {'type': 'Net'}\n", "path = 'model.Net'\n", "code = 'Net(3, True)'\n",
                                   "print(f'{Net(3, True)}')\n"])  # (an f-string is read as a string)
def test_a_string_that_may_name_the_class_to_code_is_unknown(tmp_path, names):
    model = application(tmp_path / "app", "net = Net(3)\n" + names)
    assert constants(model) == {}
    assert found(model) == ALL


HELPERS = textwrap.dedent("""\
    from mindspore import nn


    def _bn(channel, res_base=False):
        if res_base:
            return nn.BatchNorm2d(channel, momentum=0.1)
        return nn.BatchNorm2d(channel, momentum=0.9)


    class Block(nn.Cell):
        def __init__(self, channel):
            super().__init__()
            self.bn = _bn(channel)

        def construct(self, x):
            return self.bn(x)


    class ResNet(nn.Cell):
        def __init__(self, channel, res_base=False):
            super().__init__()
            self.res_base = res_base
            self.bn = _bn(channel, self.res_base)
            self.block = Block(channel)

        def construct(self, x):
            return self.block(self.bn(x))
""")


@pytest.mark.parametrize("builds, lines", [
    ("net = ResNet(3)\n", []),
    ("net = ResNet(3, res_base=False)\n", []),
    ("net = ResNet(3, res_base=True)\n", [6]),  # a site that sets it
    ("net = ResNet(3)\nfrom model import _bn\nnorm = _bn(3, True)\n", [6]),  # the helper called elsewhere
])
def test_a_helper_every_caller_passes_a_switch_to_drops_its_branch(tmp_path, builds, lines):
    assert lines_found(tmp_path, HELPERS, "ResNet", builds, "MS608") == lines


def lines_found(tmp_path, model: str, imported: str, builds: str, code: str) -> list[int]:
    """The lines of ``model.py`` where ``code`` is found, in an application whose ``train.py`` imports ``imported``
    from it and runs ``builds``."""
    root = tmp_path / "app"
    root.mkdir()
    (root / "model.py").write_text(model)
    (root / "train.py").write_text(TRAIN.replace("import Net", f"import {imported}") + builds + FIT)
    return [f.line for f in check_file(str(root / "model.py"), Settings(each_line=True), [code])]


def test_a_result_cache_checks_the_module_again_when_a_site_changes(tmp_path):
    model = application(tmp_path / "app", "net = Net(3)\n")
    before = sites_key(str(model))
    assert sites_key(str(model)) == before
    (tmp_path / "app" / "train.py").write_text(TRAIN + "net = Net(3, batch_norm=True)\n")
    forget_projects()
    assert sites_key(str(model)) != before


NUMBERS = textwrap.dedent("""\
    from mindspore import nn


    class Attention(nn.Cell):
        def __init__(self, dim, attn_drop=0., proj_drop=0., stride=1):
            super().__init__()
            self.proj = nn.Dense(dim, dim)
            if attn_drop > 0.:
                self.attn_drop = nn.Dropout(attn_drop)
            if proj_drop:
                self.proj_drop = nn.Dropout(proj_drop)
            if stride != 1:
                self.down = nn.Dropout(attn_drop)

        def construct(self, x):
            return self.proj(x)


    class Block(nn.Cell):
        def __init__(self, dim, drop=0., attn_drop=0.):
            super().__init__()
            self.attn = Attention(dim, attn_drop=attn_drop, proj_drop=drop)

        def construct(self, x):
            return self.attn(x)


    class Backbone(nn.Cell):
        def __init__(self, dim=8, drop_rate=0., attn_drop_rate=0.):
            super().__init__()
            self.blocks = nn.CellList([Block(dim, drop=drop_rate, attn_drop=attn_drop_rate) for _ in range(2)])

        def construct(self, x):
            for block in self.blocks:
                x = block(x)
            return x
""")
ATTN_LINE, PROJ_LINE, STRIDE_LINE = 9, 11, 13
ATTENTION = NUMBERS[:NUMBERS.index("class Block")]
VARIANT = textwrap.dedent("""\


    class Variant(Backbone):
        def __init__(self, **kwargs):
            super(Variant, self).__init__(dim=16, drop_rate=0.0, attn_drop_rate=0.)
""")
FACTORY = "\n\ndef factory(drop=0.):\n    return Backbone(dim=32, drop_rate=drop)\n"


def numbers_found(tmp_path, builds: str, model: str = NUMBERS, imported: str = "Attention") -> list[int]:
    return lines_found(tmp_path, model, imported, builds, "MS606")


@pytest.mark.parametrize("builds, lines", [
    ("net = Attention(8)\n", []),  # the defaults: 0., 0., 1
    ("net = Attention(8, 0., 0, 1)\nother = Attention(4, attn_drop=0.)\n", []),
    ("net = Attention(8, attn_drop=0.1)\n", [ATTN_LINE]),  # `0.1 > 0.`
    ("net = Attention(8, proj_drop=0.1)\n", [PROJ_LINE]),  # truthy
    ("net = Attention(8, stride=2)\n", [STRIDE_LINE]),  # `2 != 1`
    ("net = Attention(8)\nother = Attention(8, attn_drop=0.2)\n", [ATTN_LINE]),  # two sites, two values
    ("import sys\nnet = Attention(8, proj_drop=float(sys.argv[1]))\n", [PROJ_LINE]),  # not known
    ("net = Attention(8, attn_drop=-0.5)\n", []),  # `-0.5 > 0.` is false
])
def test_numbers_every_site_passes_decide_their_branches(tmp_path, builds, lines):
    assert numbers_found(tmp_path, builds, ATTENTION) == lines


@pytest.mark.parametrize("test, dead", [
    ("rate > 0.", True), ("rate >= 0.5", True), ("rate < 0.", True), ("rate <= 0.", False), ("rate == 0", False),
    ("rate != 0.", True), ("not rate", False), ("rate", True), ("0. < rate < 1.", True),
])
def test_each_comparison_of_a_number_folds(tmp_path, test, dead):
    model = ATTENTION.replace("if attn_drop > 0.:", f"if {test.replace('rate', 'attn_drop')}:")
    # every site passes 0.: the branch runs where the test holds for 0.
    assert numbers_found(tmp_path, "net = Attention(8, attn_drop=0.)\n", model) == ([] if dead else [ATTN_LINE])


@pytest.mark.parametrize("builds, lines", [
    ("net = Backbone()\n", []),  # the defaults reach Attention through Block
    ("net = Backbone(drop_rate=0.1)\n", [PROJ_LINE]),  # the outer site's value reaches the inner Cell
    ("net = Backbone(attn_drop_rate=0.1)\n", [ATTN_LINE]),
    ("import sys\nnet = Backbone(drop_rate=float(sys.argv[1]))\n", [PROJ_LINE]),
])
def test_a_constant_passed_down_a_chain_of_constructors_is_followed(tmp_path, builds, lines):
    assert numbers_found(tmp_path, builds, imported="Backbone") == lines


@pytest.mark.parametrize("variant, builds, lines", [
    (VARIANT, "net = Variant()\n", []),  # the subclass passes constants to its base
    (FACTORY, "net = factory()\n", []),  # a factory of the module, called with its default
    (FACTORY, "net = factory(0.1)\n", [PROJ_LINE]),  # a factory called with another value
    (VARIANT + FACTORY, "net = Variant()\nhead = factory(0.)\n", []),
    (VARIANT.replace("attn_drop_rate=0.)", "attn_drop_rate=0.3)"), "net = Variant()\n", [ATTN_LINE]),
    (VARIANT.replace("dim=16, drop_rate=0.0, attn_drop_rate=0.", "**kwargs"), "net = Variant(drop_rate=0.1)\n",
     [ATTN_LINE, PROJ_LINE]),  # **kwargs that a site fills: the base's parameters are not known
    (VARIANT.replace("dim=16, drop_rate=0.0, attn_drop_rate=0.", "**kwargs"), "net = Variant()\n",
     []),  # **kwargs no site fills: the base's defaults
    ("\n\nclass Variant(Backbone):\n    pass\n", "net = Variant(drop_rate=0.)\n",
     [ATTN_LINE, PROJ_LINE]),  # the subclass keeps the base's __init__: its sites are not followed
    ("\n\nclass Variant(nn.Cell, Backbone):\n    def __init__(self):\n        super().__init__()\n",
     "net = Variant()\n", [ATTN_LINE, PROJ_LINE]),  # another base comes first
])
def test_a_subclass_or_a_factory_builds_its_base(tmp_path, variant, builds, lines):
    assert numbers_found(tmp_path, builds, NUMBERS + variant,
                         imported=", ".join(name for name in ("Variant", "factory") if name in builds)) == lines


STRIDED = textwrap.dedent("""\
    from mindspore import nn


    class Down(nn.Cell):
        def __init__(self, channels, stride=1):
            super().__init__()
            self.stride = stride
            self.pool = nn.MaxPool2d(2, 2)

        def construct(self, x):
            if self.stride != 1:
                try:
                    x = self.pool(x)
                except ValueError:
                    pass
            return x
""")


@pytest.mark.parametrize("builds, lines", [
    ("net = Down(3)\nother = Down(4, stride=1)\n", []),  # `self.stride != 1` folds to False in construct
    ("net = Down(3)\nother = Down(4, 2)\n", [12]),
])
def test_a_number_every_site_passes_folds_in_construct(tmp_path, builds, lines):
    assert lines_found(tmp_path, STRIDED, "Down", builds, "MS109") == lines


def test_a_run_parses_each_file_of_the_application_once(tmp_path, monkeypatch):
    # The check of model.py reads train.py's text for the places that build Net; the tree it parses for that is
    # the one the question whether the script trains and train.py's own check use, and model.py's own tree serves
    # its question about itself.
    import ms_lint
    from ms_lint.config import resolve_options
    from ms_lint.lint import check_files

    model = application(tmp_path / "app", "net = Net(3)\nbig = Net(3, batch_norm=True)\n")
    parsed: list[str] = []
    real = ast.parse

    def parse(source, filename="<unknown>", *args, **kwargs):
        if not str(filename).startswith(str(Path(ms_lint.__file__).parent)):  # not ms-lint's own sources
            parsed.append(Path(str(filename)).name)
        return real(source, filename, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", parse)
    monkeypatch.chdir(tmp_path / "app")
    outcome = check_files(["model.py", "train.py"], resolve_options(isolated=True))
    assert not outcome.errors
    assert sorted(parsed) == ["model.py", "train.py"]
    # the same findings as a check of model.py alone: the branches of batch_norm kept, those of mode left out
    reported = sorted((item.finding.line, item.finding.code) for item in outcome.reported
                      if item.finding.path.endswith("model.py") and item.finding.code in CODES)
    assert reported == found(model) == [(NORM_LINE, "MS608"), (TRY_NORM_LINE, "MS109")]


def test_a_tree_read_from_a_file_s_text_serves_its_check_only_for_that_text(tmp_path):
    from ms_lint.model import project

    model = application(tmp_path / "app", "net = Net(3)\n")
    train = tmp_path / "app" / "train.py"
    assert constants(model) == {"batch_norm": False, "mode": "fc"}
    kept = project.tree_of(str(train), train.read_text())
    assert project.kept_tree(str(train), train.read_text() + "\n", Settings()) is None
    assert project.tree_of(str(train), train.read_text()) is not kept  # handed over once, then parsed anew
    assert project.kept_tree(str(train), train.read_text(), Settings()) is not None


@pytest.mark.parametrize("source", [
    "import a.Net.b as Net\nfrom .Net import Net as Other, rest\nfrom . import *\n",
    "def f(Net, /, *Net2, key=Net, **Net3):\n    global Net4\n    return lambda Net: Net(key=Net)\n",
    "x = f'{Net(3)!r:>{Net}}' + Net.Net + f'{f\"{Net}\"}'\n",  # f-strings, nested too
    "try:\n    pass\nexcept Net as Net:\n    pass\n",
    "match match:\n    case Net(a, Net=[Net, *rest]) | {'k': _, **Net}:\n        pass\n    case _:\n        pass\n",
    "class Net:\n    'Net builds Net.'\n    match = 1\n    type = 2\n    _ = 3\n# Net in a comment\n",
    "\uff2e\uff45\uff54 = 1\nprint(Net, r\u00e9seau)\n",  # ``Net`` in fullwidth letters: the tree holds "Net"
])
def test_a_file_s_names_are_those_the_tokenizer_reads(source):
    """How often a file writes a name (a site must account for each) is read from its tree, as the tokenizer
    would count it: keywords of some statements only, f-strings and names in other letters included."""
    names = _FileIndex(ast.parse(source), source).names
    tokens = Counter(token.string for token in tokenize.generate_tokens(io.StringIO(source).readline)
                     if token.type == tokenize.NAME)
    asked = {*tokens, "Net", "Other", "rest", "match", "case", "_", "type", "absent"}
    for name in asked - set(keyword.kwlist):
        if unicodedata.normalize("NFKC", name) == name:  # (the names of a tree)
            assert names.get(name) == tokens.get(name, 0), name
