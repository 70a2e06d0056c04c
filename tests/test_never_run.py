"""What an application never runs (``ms_lint.target.never_run``, asked by the model's graph code): a Cell class no
file of the application names but where it is defined, and every Cell of a module no file of the application
names, are no roots of graph code there, so no rule reports their code; a library's Cells all are."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from ms_lint.config import LintOptions
from ms_lint.engine import check_file
from ms_lint.settings import Settings
from ms_lint.target import application_of, forget_projects, never_run, never_run_key

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
    {"eval.py": TRAIN.replace("import Net", "import Net, Decoder")},
    {"src/decode.py": "from model import Decoder\n"},
    {"config/decoder.yaml": "decoder:\n  type: Decoder\n"},
    {"run.sh": "python -c 'from model import Decoder'\n"},
    {"extra.py": "from model import *\n\nclass Greedy(Decoder):\n    pass\n"},
])
def test_a_cell_class_named_anywhere_in_the_application_is_graph_code(tmp_path, naming):
    model = application(tmp_path / "app", **{"train.py": TRAIN}, **naming)
    assert never_run(str(model), ["Net", "Decoder"]) == frozenset()
    assert lines(model) == [NET_LINE, DECODER_LINE]


def test_two_definitions_of_a_name_do_not_name_each_other(tmp_path):
    copy = MODEL.replace("Net", "Other")
    model = application(tmp_path / "app", **{"train.py": TRAIN + "from model_copy import Other\n",
                                             "model_copy.py": copy})
    assert never_run(str(tmp_path / "app" / "model_copy.py"), ["Other", "Decoder"]) == {"Decoder"}
    assert lines(model) == [NET_LINE]


def test_a_module_no_file_of_the_application_names_yet_is_checked_whole(tmp_path):
    root = tmp_path / "app"
    application(root, **{"train.py": TRAIN, "unused.py": MODEL.replace("Decoder", "Net2")})
    assert never_run(str(root / "unused.py"), ["Net", "Net2"]) == frozenset()
    assert lines(root / "unused.py") == [NET_LINE, DECODER_LINE]
    forget_projects()
    (root / "eval.py").write_text(TRAIN.replace("from model import Net", "from unused import Net"))
    assert never_run(str(root / "unused.py"), ["Net", "Net2"]) == {"Net2"}
    assert lines(root / "unused.py") == [NET_LINE]


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
    (tmp_path / "app" / "eval.py").write_text(TRAIN.replace("import Net", "import Net, Port"))
    assert [f.code for f in check_file(str(model), Settings(), ["MS203"])] == ["MS203"]


@pytest.mark.parametrize("naming, used", [
    ("import importlib\nimportlib.import_module('src.unused')\n", True),
    ("from src import unused\n", True),
    ("import src.unused as u\n", True),
    ("print(open('src/unused.py').read())\n", True),
    ("unused = 3\nprint(unused)\n", False),  # a variable named like the module does not import it
])
def test_what_names_a_module(tmp_path, naming, used):
    root = tmp_path / "app"
    application(root, **{"train.py": TRAIN + naming, "src/unused.py": MODEL.replace("Decoder", "Net2")})
    assert never_run(str(root / "src" / "unused.py"), ["Net", "Net2"]) == ({"Net2"} if used else frozenset())
