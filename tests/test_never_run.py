"""What an application never runs (``ms_lint.target.never_run``, asked by the model's graph code and, for every
finding, by the engine): a class or function no code its entry points reach names, one no file of the application
names but where it is defined, and all of a module only modules that never run import, so no rule reports their
code; where the text cannot say what runs, what any file names runs; a library's modules run whole."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ms_lint.config import LintOptions
from ms_lint.engine import check_file
from ms_lint.settings import Settings
from ms_lint.target import application_of, forget_projects, module_never_runs, never_run, never_run_key, sites_key

MODEL = textwrap.dedent("""\
    from mindspore import nn


    class Net(nn.Cell):
        def construct(self, x):
            try:
                y = x * 2
            except ValueError:
                y = x
            return y


    class Decoder(nn.Cell):
        def __init__(self):
            super(Decoder, self).__init__()

        def construct(self, x):
            try:
                y = x * 2
            except ValueError:
                y = x
            return y
""")
NET_LINE, DECODER_LINE = 6, 18
TRAIN = "import mindspore as ms\nfrom model import Net\n\nms.set_context(mode=ms.GRAPH_MODE)\nnet = Net()\n"


@pytest.fixture(autouse=True)
def fresh_projects():
    forget_projects()
    yield
    forget_projects()


def application(root: Path, **files: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "model.py").write_text(MODEL)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "model.py"


def lines(path: Path) -> list[int]:
    return [f.line for f in check_file(str(path), Settings(), ["MS109"])]


def test_a_cell_class_the_application_never_names_is_no_graph_code(tmp_path):
    model = application(tmp_path / "app", **{"train.py": TRAIN})
    assert never_run(str(model), ["Net", "Decoder"]) == {"Decoder"}
    assert lines(model) == [NET_LINE]


@pytest.mark.parametrize("naming", [
    {"eval.py": TRAIN.replace("import Net", "import Net, Decoder") + "decoder = Decoder()\n"},
    {"train.py": TRAIN + "import src.decode\n", "src/decode.py": "from model import Decoder\nDECODER = Decoder\n"},
    {"config/decoder.yaml": "decoder:\n  type: Decoder\n"},
    {"run.sh": "python -c 'from model import Decoder'\n"},
    {"train.py": TRAIN + "from extra import Greedy\nGreedy()\n",
     "extra.py": "from model import *\n\nclass Greedy(Decoder):\n    pass\n"},
])
def test_a_cell_class_code_the_application_runs_names_is_graph_code(tmp_path, naming):
    model = application(tmp_path / "app", **{"train.py": TRAIN, **naming})
    assert never_run(str(model), ["Net", "Decoder"]) == frozenset()
    assert lines(model) == [NET_LINE, DECODER_LINE]


def test_two_definitions_of_a_name_do_not_name_each_other(tmp_path):
    copy = MODEL.replace("Net", "Other")
    model = application(tmp_path / "app", **{"train.py": TRAIN + "from model_copy import Other\nOther()\n",
                                             "model_copy.py": copy})
    assert never_run(str(tmp_path / "app" / "model_copy.py"), ["Other", "Decoder"]) == {"Decoder"}
    assert lines(model) == [NET_LINE]


def test_a_module_nothing_can_import_never_runs(tmp_path):
    root = tmp_path / "app"
    setting_up = "import sys\nsys.path.append('..')\n"  # (a module's setting up: no script's run)
    application(root, **{"train.py": TRAIN, "src/unused.py": setting_up + MODEL.replace("Decoder", "Net2"),
                         "draft.py": MODEL.replace("Decoder", "Net2")})
    unused = root / "src" / "unused.py"
    assert module_never_runs(str(unused))
    assert never_run(str(unused), ["Net", "Net2"]) == {"Net", "Net2"}
    assert lines(unused) == []
    assert lines(root / "model.py") == [NET_LINE]
    # a module beside the entry scripts may be run by its path, or be about to be imported: it is checked
    assert not module_never_runs(str(root / "draft.py"))
    unused.write_text(MODEL.replace("Decoder", "Net2"))
    forget_projects()
    (root / "eval.py").write_text(TRAIN.replace("from model import Net", "from src.unused import Net"))
    assert never_run(str(unused), ["Net", "Net2"]) == {"Net2"}
    assert lines(unused) == [NET_LINE]


@pytest.mark.parametrize("name, more", [
    ("tests/test_model.py", ""), ("tests/conftest.py", ""), ("conftest.py", ""), ("setup.py", ""),
    ("mindspore_hub_conf.py", ""),  # found by MindSpore Hub
    ("tools/convert.py", "\nconvert_weights('a.pth')\n"),  # a script its users run by its path
    ("tools/frames.py", "\nargs = get_args()\nfor video in args.videos:\n    print(video)\n"),
])
def test_a_test_a_script_or_a_file_a_tool_finds_by_its_name_may_run(tmp_path, name, more):
    root = tmp_path / "app"
    application(root, **{"train.py": TRAIN, name: MODEL.replace("Decoder", "Net2") + more})
    assert not module_never_runs(str(root / name))


def test_an_entry_script_runs_the_cells_it_builds(tmp_path):
    root = tmp_path / "app"
    script = "import mindspore as ms\n" + MODEL + "\n\nif __name__ == '__main__':\n    {}\n"
    application(root, **{"train.py": TRAIN, "infer.py": script.format("print(Decoder())")})
    assert never_run(str(root / "infer.py"), ["Net", "Decoder"]) == frozenset()
    forget_projects()
    (root / "infer.py").write_text(script.format("print('nothing built')"))
    assert never_run(str(root / "infer.py"), ["Net", "Decoder"]) == {"Decoder"}


def test_a_library_runs_all_its_cells(tmp_path):
    model = application(tmp_path / "lib" / "pkg", **{"__init__.py": ""})
    (tmp_path / "lib" / "pyproject.toml").write_text('[project]\nname = "pkg"\nversion = "0.1.0"\n')
    assert never_run(str(model), ["Net", "Decoder"]) == frozenset()
    assert lines(model) == [NET_LINE, DECODER_LINE]


def test_bad_input_runs_everything(tmp_path):
    assert never_run("", ["Net"]) == frozenset()
    assert never_run(str(tmp_path / "missing.py"), ["Net"]) == frozenset()
    assert never_run_key(str(tmp_path / "missing.py")) == ""


def test_the_result_cache_checks_a_module_again_once_the_application_names_its_class(tmp_path):
    model = application(tmp_path / "app", **{"train.py": TRAIN})
    options = LintOptions()
    before = options.fingerprint_for(str(model))
    assert before.endswith("never_run=Decoder")
    forget_projects()
    (tmp_path / "app" / "eval.py").write_text(TRAIN.replace("import Net", "import Net, Decoder"))
    assert options.fingerprint_for(str(model)) != before


def test_scripts_inside_a_librarys_package_do_not_make_it_an_application(tmp_path):
    root = tmp_path / "lib"
    (root / "pkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "pkg"\nversion = "0.1.0"\n')
    (root / "pkg" / "__init__.py").write_text("")
    model = application(root / "pkg" / "tool", **{"main.py": TRAIN + "\nif __name__ == '__main__':\n    Net()\n"})
    assert application_of(str(model), str(root))[0] == str(root / "pkg" / "tool")  # scripts of their own
    assert never_run(str(model), ["Net", "Decoder"]) == frozenset()
    assert lines(model) == [NET_LINE, DECODER_LINE]


def test_a_cell_the_application_never_names_is_never_called(tmp_path):
    forward = "\n\nclass Port(nn.Cell):\n    def forward(self, x):\n        return x\n"
    model = application(tmp_path / "app", **{"train.py": TRAIN})
    model.write_text(MODEL + forward)
    assert [f.code for f in check_file(str(model), Settings(), ["MS203"])] == []
    forget_projects()
    (tmp_path / "app" / "eval.py").write_text(TRAIN.replace("import Net", "import Net, Port") + "Port()\n")
    assert [f.code for f in check_file(str(model), Settings(), ["MS203"])] == ["MS203"]


@pytest.mark.parametrize("naming, unrun", [
    ("import importlib\nimportlib.import_module('src.unused')\n", {"Net2"}),
    ("from src import unused\n", {"Net2"}),
    ("import src.unused as u\n", {"Net2"}),
    ("print(open('src/unused.py').read())\n", {"Net2"}),
    ("unused = 3\nprint(unused)\n", set()),  # a variable named like the module does not import it: checked whole
    ("net = nets[0].unused\n", {"Net2"}),  # an attribute
    ("print(open('2unused.py').read())\n", {"Net2"}),  # a file name after a digit
    ("print(open('xunused.py').read())\n", {"Net", "Net2"}),  # the end of another word names no module: none can
    ("path = 'src/' + 'unused'\n", set()),  # no dotted path, no file name, but a string that may be joined to one
    ("name = f'{args.kind}used'\n", set()),  # a name composed at run time may be the module's
    ("import pkgutil\nMODULES = list(pkgutil.iter_modules(['src']))\n", set()),  # modules found by listing
    ("import os, importlib\nfor f in os.listdir('src'):\n    importlib.import_module('src.' + f[:-3])\n", set()),
])
def test_what_names_a_module(tmp_path, naming, unrun):
    root = tmp_path / "app"
    application(root, **{"train.py": TRAIN + naming, "src/unused.py": MODEL.replace("Decoder", "Net2")})
    assert never_run(str(root / "src" / "unused.py"), ["Net", "Net2"]) == unrun


_SHADOWED = ("import mindspore as ms\nfrom src.model import ERFNet\n\nmodel = ERFNet()\n"
             "if model is None:\n    raise RuntimeError('no model file!')\n{}\n"
             "if __name__ == '__main__':\n    ms.run()\n")


@pytest.mark.parametrize("more, runs", [
    ("", False),  # a variable, a message and another package's module named like it import nothing
    ("net = model.net\n", False),  # an attribute of a variable of that name
    ("import os\nos.system('python model.py')\n", True),  # a command that runs it
    ("import subprocess\nsubprocess.run('python -m model --x 1', shell=True)\n", True),
    ("import importlib\nimportlib.import_module('model')\n", True),
    ("NAME = 'model'\n", True),  # a string that may be its name
    ("import model\n", True),
])
def test_a_word_names_a_module_only_where_it_may_find_it(tmp_path, more, runs):
    root = tmp_path / "app"
    application(root, **{"train.py": _SHADOWED.format(more), "src/__init__.py": "",
                         "src/model.py": "class ERFNet:\n    pass\n"})
    assert module_never_runs(str(root / "model.py")) is not runs
    assert not module_never_runs(str(root / "src" / "model.py"))


# ------------------------------------------------------------------ what the application's entry points reach

NETS = textwrap.dedent("""\
    from mindspore import nn


    def deconv3x3(cin, cout):
        return nn.Conv2d(cin, cout, 3, padding=1)


    class ResNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3, padding=1)


    class ResNetLocate(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3, padding=1)


    def resnet50():
        return ResNet()


    def resnet101():
        return ResNetLocate()


    if __name__ == "__main__":
        print(resnet101(), deconv3x3(3, 8))
""")
DECONV_LINE, RESNET_LINE, LOCATE_LINE = 5, 11, 17
ENTRY = "import mindspore as ms\nfrom src.nets import resnet50, resnet101\n\nnet = {}()\nprint(net)\n"


def app(root: Path, **files: str) -> Path:
    """An application at ``root``: ``src/nets.py`` (``NETS``) and ``files``; the path of ``src/nets.py``."""
    for name, text in {"src/__init__.py": "", "src/nets.py": NETS, **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "src" / "nets.py"


def padding_lines(path: Path) -> list[int]:
    return [f.line for f in check_file(str(path), Settings(), ["MS205"])]


def test_a_class_only_a_factory_the_application_never_calls_builds_never_runs(tmp_path):
    nets = app(tmp_path / "app", **{"train.py": ENTRY.format("resnet50")})
    assert never_run(str(nets), ["ResNet", "ResNetLocate", "resnet50", "resnet101", "deconv3x3"]) == {
        "ResNetLocate", "resnet101", "deconv3x3"}  # imported, and named in the module's own trial run, not called
    assert padding_lines(nets) == [RESNET_LINE]


def test_a_class_a_factory_the_entry_point_calls_builds_runs(tmp_path):
    nets = app(tmp_path / "app", **{"train.py": ENTRY.format("resnet101")})
    assert never_run(str(nets), ["ResNet", "ResNetLocate", "resnet101"]) == {"ResNet"}
    assert padding_lines(nets) == [LOCATE_LINE]


def test_what_a_called_function_names_runs(tmp_path):
    text = ENTRY.format("resnet50") + "\n\ndef main():\n    return resnet101()\n\n\nif __name__ == '__main__':\n" \
                                      "    main()\n"
    nets = app(tmp_path / "app", **{"train.py": text})
    assert never_run(str(nets), ["ResNetLocate", "resnet101", "deconv3x3"]) == {"deconv3x3"}
    assert padding_lines(nets) == [RESNET_LINE, LOCATE_LINE]


def test_a_name_imported_under_another_runs_where_that_one_is_called(tmp_path):
    entry = "import mindspore\nfrom src.nets import resnet101 as build\n\nprint(build())\n"
    nets = app(tmp_path / "app", **{"train.py": entry})
    assert never_run(str(nets), ["ResNetLocate", "resnet101"]) == frozenset()


def test_a_class_only_classes_the_application_never_builds_name_never_runs(tmp_path):
    layers = textwrap.dedent("""\
        from mindspore import nn


        class Linear(nn.Cell):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(3, 8, 3, padding=1)


        class FFTBlock(nn.Cell):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(3, 8, 3, pad_mode="pad", padding=1)


        class PostNet(nn.Cell):
            def __init__(self):
                super().__init__()
                self.linear = Linear()
    """)
    nets = app(tmp_path / "app", **{"src/layers.py": layers,
                                    "train.py": "import mindspore\nfrom src.layers import FFTBlock\n\nFFTBlock()\n"})
    assert never_run(str(nets.parent / "layers.py"), ["Linear", "FFTBlock", "PostNet"]) == {"Linear", "PostNet"}
    assert padding_lines(nets.parent / "layers.py") == []
    forget_projects()
    (tmp_path / "app" / "eval.py").write_text("import mindspore\nfrom src.layers import PostNet\n\nPostNet()\n")
    assert never_run(str(nets.parent / "layers.py"), ["Linear", "FFTBlock", "PostNet"]) == frozenset()
    assert padding_lines(nets.parent / "layers.py") == [7]


def test_a_module_only_a_module_the_application_never_runs_imports_never_runs(tmp_path):
    root = tmp_path / "app"
    nets = app(root, **{"train.py": "import mindspore\nfrom src.other import Other\n\nprint(Other())\n",
                        "src/other.py": "class Other:\n    pass\n",
                        "src/algorithms.py": "from src.nets import resnet101\n\nNET = resnet101()\n"})
    assert module_never_runs(str(nets))
    assert never_run(str(nets), ["ResNet", "resnet101"]) == {"ResNet", "resnet101"}
    assert padding_lines(nets) == []
    forget_projects()
    (root / "train.py").write_text("import mindspore\nfrom src.algorithms import NET\n\nprint(NET)\n")  # now imported
    assert not module_never_runs(str(nets))
    assert never_run(str(nets), ["ResNetLocate", "resnet101", "ResNet"]) == {"ResNet"}
    assert padding_lines(nets) == [LOCATE_LINE]


@pytest.mark.parametrize("config", [
    {"configs/net.yaml": "model: src.nets.resnet101\n"},
    {"scripts/run.sh": "python -c 'from src import nets; nets.resnet101()'\n"},
])
def test_a_module_a_configuration_or_shell_script_names_runs_what_they_name(tmp_path, config):
    nets = app(tmp_path / "app", **{"train.py": "import mindspore\nprint(mindspore)\n", **config})
    assert not module_never_runs(str(nets))
    assert never_run(str(nets), ["ResNet", "ResNetLocate", "resnet101"]) == {"ResNet"}


@pytest.mark.parametrize("decorator, registers", [
    ("@clip_grad.register('Number', 'Tensor')", True),
    ("@MODELS.register_module(\n    name='deconv')", True),
    ("@ms.jit", False),
    ("@constexpr\n# cached", False),
])
def test_a_registering_decorator_runs_what_it_decorates(tmp_path, decorator, registers):
    text = NETS.replace("def deconv3x3", f"{decorator}\ndef deconv3x3")
    nets = app(tmp_path / "app", **{"train.py": ENTRY.format("resnet50"), "src/nets.py": text})
    assert never_run(str(nets), ["deconv3x3", "resnet101"]) == (
        {"resnet101"} if registers else {"resnet101", "deconv3x3"})


@pytest.mark.parametrize("lookup", [
    "net = globals()[args.net]()",
    "net = getattr(nets, args.net)()",
    "import importlib\nnet = importlib.import_module(f'src.{args.net}')",
    "net = eval(args.net + '()')",
    "import sys\nsys.path.append('..')\nfrom nets import resnet50",
])
def test_names_looked_up_as_the_text_cannot_follow_leave_what_any_file_names_run(tmp_path, lookup):
    entry = f"import mindspore\nfrom src import nets\nfrom src.nets import *\nargs = parse()\n{lookup}\nprint(net)\n"
    nets = app(tmp_path / "app", **{"train.py": entry})
    assert never_run(str(nets), ["ResNetLocate", "resnet101", "deconv3x3"]) == frozenset()  # each named in a file
    assert never_run(str(nets), ["Unnamed"]) == {"Unnamed"}


@pytest.mark.parametrize("lookup", [
    "import importlib\nnet = importlib.import_module('src.nets').resnet50()",  # a literal module name
    "net = getattr(args, 'net')",  # a literal attribute
    "model.eval()\nnets.resnet50()",  # a method named eval
])
def test_lookups_the_text_can_follow_leave_reachability_on(tmp_path, lookup):
    entry = f"import mindspore\nfrom src import nets\nargs = parse()\nmodel = nets.resnet50()\n{lookup}\nprint(model)\n"
    nets = app(tmp_path / "app", **{"train.py": entry})
    assert never_run(str(nets), ["ResNetLocate", "resnet101", "ResNet"]) == {"ResNetLocate", "resnet101"}


def test_a_librarys_module_runs_whole(tmp_path):
    root = tmp_path / "lib"
    nets = app(root / "pkg", **{"__init__.py": "", "train.py": ENTRY.format("resnet50")})
    (root / "pyproject.toml").write_text('[project]\nname = "pkg"\nversion = "0.1.0"\n')
    (root / "pkg" / "src" / "__init__.py").write_text("")
    assert never_run(str(nets), ["ResNetLocate", "resnet101"]) == frozenset()
    assert not module_never_runs(str(nets))


def test_the_result_cache_checks_a_module_again_once_code_that_runs_calls_a_factory(tmp_path):
    root = tmp_path / "app"
    nets = app(root, **{"train.py": ENTRY.format("resnet50")})
    before = never_run_key(str(nets))
    assert before == "ResNetLocate,deconv3x3,resnet101"
    forget_projects()
    (root / "train.py").write_text(ENTRY.format("resnet101"))
    assert never_run_key(str(nets)) == "ResNet,deconv3x3,resnet50"
    forget_projects()
    (root / "train.py").write_text("import mindspore\nprint(mindspore)\n")
    (root / "src" / "algorithms.py").write_text("from src.nets import resnet50\n")  # imported by no entry
    assert never_run_key(str(nets)) == "*"


def test_the_command_line_reports_only_what_the_application_runs(tmp_path):
    root = tmp_path / "app"
    app(root, **{"train.py": ENTRY.format("resnet50"),
                 "src/unused.py": "from src.nets import deconv3x3\n\nLAYER = deconv3x3(3, 8)\n",
                 "src/tools.py": "import src.unused\n"})
    (root / "src" / "unused.py").write_text(
        "from mindspore import nn\n\nLAYER = nn.Conv2d(3, 8, 3, padding=1)\nprint(nn.Conv2d(3, 8, 3, padding=1))\n")
    completed = subprocess.run([sys.executable, "-m", "ms_lint", "check", "--isolated", "--no-cache", "--select",
                                "MS205", "app"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=120)
    found = [line.split(" ")[0] for line in completed.stdout.decode().splitlines()]
    assert [line.rsplit(":", 2)[0] for line in found] == [f"app/src/nets.py:{RESNET_LINE}"]
    err = completed.stderr.decode()
    # the findings in code the application never runs are counted, with the setting that shows them
    counted = [line for line in err.splitlines() if "never runs" in line]
    assert counted and counted[0].startswith("target: ") and "--ms-check-unrun shows them" in counted[0], err
    shown = subprocess.run([sys.executable, "-m", "ms_lint", "check", "--isolated", "--no-cache", "--select",
                            "MS205", "--ms-check-unrun", "app"], cwd=tmp_path, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=120)
    every = {line.split(" ")[0].rsplit(":", 2)[0] for line in shown.stdout.decode().splitlines()}
    assert f"app/src/nets.py:{RESNET_LINE}" in every and any(place.startswith("app/src/unused.py:") for place in every)
    assert len(every) > len(found) and "never runs" not in shown.stderr.decode()


def test_the_configuration_and_the_plugins_take_the_setting(tmp_path):
    """``ms-check-unrun`` in a configuration file and flake8's and pylint's options all reach the settings."""
    from ms_lint.config import resolve_options
    from ms_lint.pylint_plugin import MsLintChecker
    from ms_lint.settings import Settings

    (tmp_path / "setup.cfg").write_text("[flake8]\nms-check-unrun = true\n")
    assert resolve_options(cwd=str(tmp_path)).settings.check_unrun is True
    assert resolve_options(cwd=str(tmp_path), isolated=True).settings.check_unrun is False
    assert Settings.from_values(check_unrun="yes").check_unrun and not Settings.from_values().check_unrun
    assert "ms-check-unrun" in dict(MsLintChecker.options)
    root = tmp_path / "app"
    app(root, **{"train.py": ENTRY.format("resnet50")})
    flake8 = [sys.executable, "-m", "flake8", "--isolated", "--select", "MS205", "app"]
    plain = subprocess.run(flake8, cwd=tmp_path, stdout=subprocess.PIPE, timeout=120).stdout.decode()
    every = subprocess.run([*flake8, "--ms-check-unrun"], cwd=tmp_path, stdout=subprocess.PIPE,
                           timeout=120).stdout.decode()
    assert len(every.splitlines()) > len(plain.splitlines()) >= 1, (plain, every)


# An entry point that runs ``notes.py``, and one that also looks names up as the text cannot follow (``eval``): what
# any file names runs.
_RUNS_NOTES = TRAIN + "import notes\nnotes.helper()\n"
_LOOKING_UP = _RUNS_NOTES + "extra = eval('Net')\n"


@pytest.mark.parametrize("entry", [_RUNS_NOTES, _LOOKING_UP], ids=["reached", "named"])
@pytest.mark.parametrize("words", [
    '"""Decoder blocks.\n\n>>> Decoder()\n"""\ndef helper():\n    pass\n',  # a module docstring's example
    "# a Decoder would go here\ndef helper():\n    pass\n",
    'def helper():\n    """Builds no Decoder."""\n    return 1\n',
    "class Other:\n    '''Like Decoder,\n    Decoder() builds one.'''\n\n\ndef helper():\n    # Decoder()\n"
    "    return Other()\n",
])
def test_words_in_comments_and_docstrings_name_no_class(tmp_path, entry, words):
    """An application builds a class where its code names it, not where its documentation does (a library's
    documentation shows its users building it: a library's modules run whole)."""
    model = application(tmp_path / "app", **{"train.py": entry, "notes.py": words + "import model\n"})
    assert never_run(str(model), ["Net", "Decoder"]) == {"Decoder"}
    assert lines(model) == [NET_LINE]


@pytest.mark.parametrize("words", [
    'decoder = model.Decoder  # """\n',
    'TEMPLATE = (\n    """Decoder"""\n)\n',
    'NAME = """Decoder"""\n',
    "x = 1  # Decoder\n",
])
def test_code_beside_comments_and_strings_that_are_values_still_name_a_class(tmp_path, words):
    model = application(tmp_path / "app", **{"train.py": _LOOKING_UP,
                                             "notes.py": "import model\n" + words + "def helper():\n    pass\n"})
    assert never_run(str(model), ["Net", "Decoder"]) == frozenset()
    assert lines(model) == [NET_LINE, DECODER_LINE]


# A Cell whose method only a conversion function calls; ``{uses}`` adds what else the module writes.
_DEPLOYABLE = textwrap.dedent("""\
    from mindspore import nn


    class Block(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 3, 3)

        def switch_to_deploy(self):
            for para in self.get_parameters():
                para.detach_()

        def construct(self, x):
            {construct}
            return self.conv(x)


    def convert(model):
        for module in model.cells():
            if hasattr(module, 'switch_to_deploy'):
                module.switch_to_deploy()
        return model
""")
_DETACH_LINE = 11
_BUILDS_BLOCK = TRAIN.replace("from model import Net", "from model import Net, Block") + "block = Block()\n"


def _deploy_lines(tmp_path, construct="pass", **files) -> list[int]:
    root = tmp_path / "app"
    application(root, **{"train.py": _BUILDS_BLOCK, **files})
    (root / "model.py").write_text(_DEPLOYABLE.format(construct=construct))
    return [f.line for f in check_file(str(root / "model.py"), Settings(), ["MS602"])]


def test_a_method_only_code_that_never_runs_calls_never_runs(tmp_path):
    assert _deploy_lines(tmp_path) == []
    forget_projects()
    tools = "def deploy(block):\n    block.switch_to_deploy()\n"  # a helper no code that runs calls
    assert _deploy_lines(tmp_path / "helper", **{"train.py": _BUILDS_BLOCK + "import tools\n", "tools.py": tools}) == []
    forget_projects()
    assert _deploy_lines(tmp_path, "pass  # no switch_to_deploy() here") == []  # a comment calls nothing


@pytest.mark.parametrize("construct, files", [
    ("self.switch_to_deploy()", {}),  # also called from construct
    ("pass", {"train.py": _BUILDS_BLOCK.replace("Block\n", "Block, convert\n") + "convert(block)\n"}),
    ("pass", {"export.py": "from model import Block\nBlock().switch_to_deploy()\n"}),  # another file calls it
    # a module the entry runs calls it
    ("pass", {"train.py": _BUILDS_BLOCK + "import tools\ntools.deploy(block)\n",
              "tools.py": "def deploy(block):\n    block.switch_to_deploy()\n"}),
    ("pass", {"deploy.yaml": "hooks: [switch_to_deploy]\n"}),  # a configuration names it
    ("name = 'switch_to_deploy'", {}),  # a string that graph code keeps
])
def test_a_method_code_that_runs_may_call_runs(tmp_path, construct, files):
    assert _deploy_lines(tmp_path, construct, **files) == [_DETACH_LINE]


def test_a_method_a_library_base_may_call_runs(tmp_path):
    root = tmp_path / "app"
    application(root, **{"train.py": _BUILDS_BLOCK})
    (root / "model.py").write_text(_DEPLOYABLE.format(construct="pass").replace(
        "from mindspore import nn\n", "from mindspore import nn\nfrom other_library import Deployable\n").replace(
        "class Block(nn.Cell)", "class Block(Deployable, nn.Cell)"))
    assert [f.line for f in check_file(str(root / "model.py"), Settings(), ["MS602"])] == [_DETACH_LINE + 1]
    assert never_run(str(root / "model.py"), ["convert"]) == {"convert"}


# A Cell with a weight initialiser that reads PyTorch's BatchNorm2d attributes; ``{calls}`` is its ``__init__``'s
# last line, ``{more}`` what else the module defines.
_INITIALISED = textwrap.dedent("""\
    from mindspore import nn


    class Base(nn.Cell):
        def __init__(self):
            super().__init__()
            {base_calls}


    class VGG(Base):
        def __init__(self):
            super().__init__()
            self.bn = nn.BatchNorm2d(4)
            {calls}

        def _initialize_weights(self):
            for m in self.cells():
                if isinstance(m, nn.BatchNorm2d):
                    m.weight.set_data(m.weight)

        def construct(self, x):
            return self.bn(x)
    {more}
""")
_WEIGHT_LINE = 19
# Another Cell with an initialiser of the same name, which its own ``__init__`` calls.
_OWN_INITIALISER = textwrap.dedent("""\
    from mindspore import nn


    class Upscale(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 3, 3)
            self._initialize_weights()

        def _initialize_weights(self):
            pass

        def construct(self, x):
            return self.conv(x)
""")
_OVERRIDE = """

class Small(VGG):
    def __init__(self):
        super().__init__()
        self._initialize_weights()

    def _initialize_weights(self):
        {body}
"""


_SUBCLASS_CALLING = ("from model import VGG\n\n\nclass Small(VGG):\n    def __init__(self):\n"
                     "        super().__init__()\n        self._initialize_weights()\n")


def _initialised_lines(tmp_path, calls="pass", base_calls="pass", more="", **files) -> list[int]:
    root = tmp_path / "app"
    built = "Small" if more else "VGG"  # (the entry builds the subclass the module adds)
    train = TRAIN.replace("from model import Net", f"from model import Net, {built}") + f"model = {built}()\n"
    application(root, **{"train.py": train + "import upscale\nup = upscale.Upscale()\n",
                         "upscale.py": _OWN_INITIALISER, **files})
    (root / "model.py").write_text(_INITIALISED.format(calls=calls, base_calls=base_calls, more=more))
    return [f.line for f in check_file(str(root / "model.py"), Settings(), ["MS614"])]


@pytest.mark.parametrize("more", [
    "",  # only another module's class calls its own method of that name
    _OVERRIDE.format(body="pass"),  # a subclass calls its own override
])
def test_a_method_only_other_classes_own_methods_share_the_name_of_never_runs(tmp_path, more):
    assert _initialised_lines(tmp_path, more=more) == []


@pytest.mark.parametrize("calls, base_calls, more, files", [
    ("self._initialize_weights()", "pass", "", {}),  # its class calls it
    ("pass", "self._initialize_weights()", "", {}),  # a base calls it by name: the call reaches the override
    ("pass", "pass", _OVERRIDE.format(body="super()._initialize_weights()"), {}),  # an override calls it
    # another module's subclass that does not define it calls it
    ("pass", "pass", "", {"small.py": _SUBCLASS_CALLING, "train.py": TRAIN + "import small\nsmall.Small()\n"}),
])
def test_a_method_its_own_class_or_a_subclass_calls_runs(tmp_path, calls, base_calls, more, files):
    assert _initialised_lines(tmp_path, calls, base_calls, more, **files) == [_WEIGHT_LINE]


# A registry of layer builders chosen by name, the names a genotype lists; ``{chosen}`` is the genotype a run uses.
_OPERATIONS = textwrap.dedent("""\
    from mindspore import nn

    OPS = {
        'conv_3x3': lambda c: nn.Conv2d(c, c, 3),
        'conv_7x1_1x7': lambda c: nn.Conv2d(c, c, (1, 7), pad_mode="pad", padding=(0, 3)),
    }
""")
_GENOTYPES = textwrap.dedent("""\
    from collections import namedtuple

    Genotype = namedtuple('Genotype', 'normal')
    SMALL = Genotype(normal=[('conv_3x3', 0), ('conv_3x3', 1)])
    LARGE = Genotype(normal=[('conv_3x3', 0), ('conv_7x1_1x7', 1)])
""")
_SEARCHED = textwrap.dedent("""\
    import mindspore as ms
    from mindspore import nn
    from operations import OPS
    import genotypes


    class Net(nn.Cell):
        def __init__(self, genotype):
            super().__init__()
            self.ops = nn.CellList([OPS[name](3) for name, _ in genotype.normal])

        def construct(self, x):
            return x


    ms.set_context(mode=ms.GRAPH_MODE)
    net = Net({chosen})
""")
_PADDING_LINE = 5


def _registry_lines(tmp_path, chosen="genotypes.SMALL", **files) -> list[int]:
    root = tmp_path / "app"
    root.mkdir(parents=True)
    for name, text in {"operations.py": _OPERATIONS, "genotypes.py": _GENOTYPES,
                       "train.py": _SEARCHED.format(chosen=chosen), **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return [f.line for f in check_file(str(root / "operations.py"), Settings(), ["MS205"])]


def test_a_registry_entry_no_run_chooses_never_runs(tmp_path):
    assert _registry_lines(tmp_path) == []
    forget_projects()
    assert _registry_lines(tmp_path / "literal", "genotypes.Genotype(normal=[('conv_3x3', 0)])") == []


@pytest.mark.parametrize("chosen, files", [
    ("genotypes.LARGE", {}),  # the genotype that names it runs
    ("genotypes.Genotype(normal=[('conv_7x1_1x7', 0)])", {}),
    ("genotypes.Genotype(normal=[(f'conv_{k}x1_1x{k}', 0) for k in (7,)])", {}),  # a key composed at run time
    ("genotypes.Genotype(normal=[(key, 0) for key in OPS])", {}),  # the registry's keys themselves
    # a call given the key
    ("genotypes.SMALL", {"more.py": "import genotypes\nEXTRA = genotypes.make([('conv_7x1_1x7', 0)])\n",
                         "run.sh": "python -c 'import more'\n"}),
    ("getattr(genotypes, 'SMALL')", {}),  # a lookup the text does not follow
    ("genotypes.SMALL", {"run.sh": "python train.py --op conv_7x1_1x7\n"}),  # the command line may choose it
    ("genotypes.SMALL", {"configs/large.yaml": "normal: [conv_3x3, conv_7x1_1x7]\n"}),  # so may a configuration
    ("genotypes.SMALL", {"search.py": "from operations import OPS\nBUILDERS = OPS\n"}),  # passed on
])
def test_a_registry_entry_a_run_may_choose_runs(tmp_path, chosen, files):
    assert _registry_lines(tmp_path, chosen, **files) == [_PADDING_LINE]


def test_the_result_cache_checks_a_module_again_once_another_file_calls_its_method_or_chooses_its_key(tmp_path):
    assert _deploy_lines(tmp_path) == []
    model = str(tmp_path / "app" / "model.py")
    before = sites_key(model)
    forget_projects()
    (tmp_path / "app" / "export.py").write_text("from model import Block\nBlock().switch_to_deploy()\n")
    assert sites_key(model) != before
    assert _registry_lines(tmp_path / "registry") == []
    operations = str(tmp_path / "registry" / "app" / "operations.py")
    before = sites_key(operations)
    forget_projects()
    (tmp_path / "registry" / "app" / "more.py").write_text("CHOSEN = 'conv_7x1_1x7'\n")
    assert sites_key(operations) != before


def test_a_method_a_mindspore_base_other_than_cell_may_call_runs(tmp_path):
    root = tmp_path / "app"
    application(root, **{"train.py": _BUILDS_BLOCK})
    (root / "model.py").write_text(_DEPLOYABLE.format(construct="pass").replace(
        "class Block(nn.Cell)", "class Block(nn.Optimizer)"))
    assert [f.line for f in check_file(str(root / "model.py"), Settings(), ["MS602"])] == [_DETACH_LINE]


# ------------------------------------------------------- a method only a branch the configuration rules out calls

_MIXUP = textwrap.dedent("""\
    import mindspore
    import numpy as np


    class Mixup:
        def __init__(self, mode="batch"):
            self.mode = mode

        def _params_per_elem(self, size):
            return np.ones(size, dtype=np.bool)

        def _mix_elem(self, x):
            return self._params_per_elem(len(x))

        def __call__(self, x):
            if self.mode == "elem":
                return self._mix_elem(x)
            return x
""")
_ELEM_LINE = 10
_ARGS = textwrap.dedent("""\
    import argparse
    import yaml

    args = None


    def get_config():
        global args
        parser = argparse.ArgumentParser()
        parser.add_argument("--config", required=True)
        args = parser.parse_args()
        with open(args.config) as f:
            args.__dict__.update(yaml.safe_load(f))
        return args
""")
_MIXUP_TRAIN = ("import mindspore as ms\nfrom src.args import get_config\nfrom src.mixup import Mixup\n\n"
                "if __name__ == '__main__':\n    args = get_config()\n    mix = Mixup(mode=args.mixup_mode)\n"
                "    print(mix(ms.Tensor([1.0])))\n")


@pytest.mark.parametrize("configs, args, runs", [
    ({"configs/a.yaml": "mixup_mode: batch\n", "configs/b.yaml": "mixup_mode: batch\n"}, _ARGS, False),
    ({"configs/a.yaml": "mixup_mode: batch\n", "configs/b.yaml": "mixup_mode: elem\n"}, _ARGS, True),  # one differs
    # a namespace that may be any object's: the attributes it writes are not known
    ({"configs/a.yaml": "mixup_mode: batch\n"}, _ARGS.replace("def get_config():", "def get_config(args=None):")
     .replace("    global args\n", ""), True),
    ({"configs/a.yaml": "mixup_mode: batch\n"}, _ARGS.replace("args = None", "args = object()"), True),
])
def test_a_method_only_a_branch_every_configuration_rules_out_calls_never_runs(tmp_path, configs, args, runs):
    root = tmp_path / "app"
    for name, text in {"train.py": _MIXUP_TRAIN, "src/__init__.py": "", "src/args.py": args,
                       "src/mixup.py": _MIXUP, **configs}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    assert [f.line for f in check_file(str(root / "src" / "mixup.py"), Settings(), ["MS613"])] == (
        [_ELEM_LINE] if runs else [])
