"""Which mode a module's Cells run in, inferred from its application's entry points (``ms_lint.target.mode_of``),
and what that changes in the findings: an application that never selects a mode runs its Cells in PyNative (MindSpore's
default, pinned in tests/test_ground_truth_modes.py), one entry point selecting GRAPH_MODE compiles what it runs, a
library is checked as its users would compile it, and ``--ms-mode`` overrides."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from ms_lint.engine import check_file, check_source
from ms_lint.settings import Settings
from ms_lint.target import LIBRARY, SILENCED_BY, forget_projects, target_from_settings

# A Cell whose construct holds a statement graph mode refuses, and a @jit function holding the same.
MODEL = textwrap.dedent("""\
    import mindspore as ms
    from mindspore import nn


    class Net(nn.Cell):
        def construct(self, x):
            try:
                y = x * 2
            except ValueError:
                y = x
            return y


    @ms.jit
    def step(x):
        try:
            y = x * 2
        except ValueError:
            y = x
        return y


    STEPS = {"train": step}  # the training loop finds its step here
""")
CELL_LINE, JIT_LINE = 7, 16

GRAPH = "ms.set_context(mode=ms.GRAPH_MODE)\n"
PYNATIVE = "ms.set_context(mode=ms.PYNATIVE_MODE)\n"


@pytest.fixture(autouse=True)
def fresh_projects():
    forget_projects()
    yield
    forget_projects()


def project(root: Path, **files: str) -> Path:
    """A project (``pyproject.toml``) with ``model.py`` and the given files (``name`` -> text; ``/`` in a name makes
    folders); returns the model's path."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text('[project]\nname = "app"\nversion = "0.1.0"\n')
    (root / "model.py").write_text(MODEL)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root / "model.py"


def script(*lines: str) -> str:
    return "import mindspore as ms\nfrom model import Net\n\n" + "".join(lines) + "net = Net()\nprint(net)\n"


def lines(path: Path, **settings: str) -> list[int]:
    return [f.line for f in check_file(str(path), Settings.from_values(**settings), ["MS109"])]


def mode(path: Path, **settings: str) -> tuple[str, str]:
    target = target_from_settings(Settings.from_values(**settings), str(path))
    return target.mode, target.origin("mode")


def test_an_application_that_never_selects_a_mode_compiles_only_its_jit_code(tmp_path):
    model = project(tmp_path / "app", **{"train.py": script()})
    assert mode(model) == ("pynative", "MindSpore's default: train.py selects no mode")
    silenced = []
    found = check_source(MODEL, str(model), Settings(), ["MS109"], silenced=silenced)
    assert [f.line for f in found] == [JIT_LINE]
    assert [(f.line, f.data[SILENCED_BY]) for f in silenced] == [(CELL_LINE, "ms-mode=graph")]
    assert found[0].data["compiled_by"] == ["step"]
    assert lines(model, mode="graph") == [CELL_LINE, JIT_LINE]  # --ms-mode overrides


def test_check_says_how_many_findings_hold_only_in_graph_mode(tmp_path, monkeypatch, capsys):
    from ms_lint.cli import main

    project(tmp_path / "app", **{"train.py": script()})
    monkeypatch.chdir(tmp_path / "app")
    assert main(["check", "--isolated", "--no-cache", "--select=MS109", "model.py"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert "target: 1 finding(s) hold only if this application runs in GRAPH_MODE; --ms-mode=graph shows them" in err
    assert any("· pynative (MindSpore's default: train.py selects no mode) ·" in line for line in err)
    assert main(["check", "--isolated", "--no-cache", "--select=MS109", "--ms-mode=graph", "model.py"]) == 1
    assert "GRAPH_MODE" not in capsys.readouterr().err


@pytest.mark.parametrize("selects, expected", [
    (GRAPH, ("graph", "train.py:4")),
    ("ms.set_context(mode=0, device_target='CPU')\n", ("graph", "train.py:4")),
    ("ms.context.set_context(mode=ms.context.GRAPH_MODE)\n", ("graph", "train.py:4")),
    ("ms.set_context(mode=ms.GRAPH_MODE if True else ms.PYNATIVE_MODE)\n", ("graph", "train.py:4")),
    (PYNATIVE, ("pynative", "train.py:4")),
    ("ms.set_context(mode=1)\n", ("pynative", "train.py:4")),
    ("# ms.set_context(mode=ms.GRAPH_MODE)\n", ("pynative", "MindSpore's default: train.py selects no mode")),
    ("op.set_context(mode=0)\n", ("pynative", "MindSpore's default: train.py selects no mode")),
])
def test_the_entry_point_selects_the_mode(tmp_path, selects, expected):
    model = project(tmp_path / "app", **{"train.py": script(selects)})
    assert mode(model) == expected
    assert lines(model) == ([CELL_LINE, JIT_LINE] if expected[0] == "graph" else [JIT_LINE])


@pytest.mark.parametrize("train, infer, compiled_by", [
    (GRAPH, PYNATIVE, "train.py"),
    (PYNATIVE, GRAPH, "infer.py"),
    ("", GRAPH, "infer.py"),
])
def test_one_entry_point_in_graph_mode_compiles_what_it_runs_and_the_finding_names_it(
        tmp_path, train, infer, compiled_by):
    model = project(tmp_path / "app", **{"train.py": script(train), "infer.py": script(infer)})
    target = target_from_settings(Settings(), str(model))
    assert target.mode == "graph"
    assert target.origin("compiled_by") == compiled_by
    found = check_file(str(model), Settings(), ["MS109"])
    assert [f.line for f in found] == [CELL_LINE, JIT_LINE]
    cell = found[0]
    assert cell.message.endswith(f"(compiled by {compiled_by})")
    assert cell.data["entry_points"] == [compiled_by]
    assert "compiled by" not in found[1].message  # the @jit function is compiled by any entry point


def test_a_module_only_a_pynative_entry_point_runs_runs_in_pynative(tmp_path):
    root = tmp_path / "app"
    project(root, **{"train.py": script(GRAPH), "eval.py": script().replace("from model", "from other"),
                     "other.py": MODEL})
    assert mode(root / "other.py") == ("pynative", "MindSpore's default: eval.py selects no mode")
    assert lines(root / "other.py") == [JIT_LINE]
    assert mode(root / "model.py") == ("graph", "train.py:4")


def test_the_files_of_one_folder_share_its_parts_of_the_target_and_keep_their_own_modes(tmp_path):
    root = tmp_path / "app"
    project(root, **{"train.py": script(GRAPH), "eval.py": script().replace("from model", "from other"),
                     "other.py": MODEL})
    settings, read_from = Settings.from_values(device="cpu"), {"ms-device": "setup.cfg [flake8]"}
    other = target_from_settings(settings, str(root / "other.py"), read_from)
    model = target_from_settings(settings, str(root / "model.py"), read_from)
    assert (other.mode, other.origin("mode"), model.mode, model.origin("mode")) == (
        "pynative", "MindSpore's default: eval.py selects no mode", "graph", "train.py:4")
    assert other.origin("device") == model.origin("device") == "config: setup.cfg [flake8]"
    assert target_from_settings(settings, str(root / "model.py")).origin("device") == "option"  # the command line
    named = target_from_settings(Settings.from_values(mode="graph"), str(root / "other.py"),
                                 {"ms-mode": "setup.cfg [flake8]"})
    assert (named.mode, named.origin("mode"), named.origin("device")) == ("graph", "config: setup.cfg [flake8]",
                                                                          "default")


def test_a_module_no_entry_point_reaches_takes_the_applications_mode(tmp_path):
    root = tmp_path / "app"
    project(root, **{"train.py": "import mindspore as ms\n" + GRAPH, "unused.py": MODEL})
    assert mode(root / "unused.py") == ("graph", "train.py:2")
    forget_projects()
    (root / "train.py").write_text("import mindspore as ms\nprint(ms.__version__)\n")
    assert mode(root / "unused.py") == ("pynative", "MindSpore's default: train.py selects no mode")


@pytest.mark.parametrize("config, expected", [
    ("mode: 0\n", "graph"),
    ("device_target: CPU\nmode: 1\n", "pynative"),
    ("context_mode: GRAPH\n", "graph"),
])
def test_a_configuration_file_read_by_the_context_builder_selects_the_mode(tmp_path, config, expected):
    name = config.split(":")[-2].split()[-1]
    model = project(tmp_path / "app", **{
        "train.py": script("from src.env import init_env\ninit_env(load('config/default.yaml'))\n"),
        "src/__init__.py": "",
        "src/env.py": f"import mindspore as ms\n\n\ndef init_env(cfg):\n    ms.set_context(mode=cfg.{name})\n",
        "config/default.yaml": config,
    })
    found = mode(model)
    assert found[0] == expected
    assert found[1] == "train.py, through src/env.py:5"


@pytest.mark.parametrize("default, expected", [("0", "graph"), ("1", "pynative"), ('"GRAPH"', "graph")])
def test_an_argparse_default_reaching_set_context_selects_the_mode(tmp_path, default, expected):
    model = project(tmp_path / "app", **{"train.py": script(
        "import argparse\nparser = argparse.ArgumentParser()\n",
        f"parser.add_argument('--ms_mode', type=int, default={default}, help='0 graph, 1 pynative')\n",
        "args = parser.parse_args()\nms.set_context(mode=args.ms_mode)\n")})
    assert mode(model) == (expected, "train.py:8")


def test_an_environment_default_selects_the_mode(tmp_path):
    model = project(tmp_path / "app", **{"train.py": script(
        "import os\nms.set_context(mode=int(os.getenv('MS_MODE', '0')))\n")})
    assert mode(model) == ("graph", "train.py:5")


def test_a_library_keeps_its_cells_in_graph_mode(tmp_path, monkeypatch, capsys):
    from ms_lint.cli import main

    root = tmp_path / "lib"
    package = root / "pkg"
    package.mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "pkg"\nversion = "0.1.0"\n')
    (package / "__init__.py").write_text("")
    (package / "model.py").write_text(MODEL)
    # a module's trial run selects PyNative for itself, not for the modules it imports
    (package / "check.py").write_text("import mindspore as ms\nfrom pkg.model import Net\n\n"
                                      "if __name__ == '__main__':\n    " + PYNATIVE)
    assert mode(package / "model.py") == ("graph", "a library, checked as its users would compile it")
    assert lines(package / "model.py") == [CELL_LINE, JIT_LINE]
    monkeypatch.chdir(root)
    main(["check", "--isolated", "--no-cache", "--select=MS109", "pkg/model.py"])
    assert "· graph (a library, checked as its users would compile it) ·" in capsys.readouterr().err


def test_the_options_and_the_modules_own_selection_decide_first(tmp_path):
    model = project(tmp_path / "app", **{"train.py": script(GRAPH)})
    assert mode(model, mode="pynative") == ("pynative", "option")
    assert lines(model, mode="pynative") == [JIT_LINE]
    assert mode(model, per_path_modes=f"{model}: pynative") == ("pynative", "--per-path-ms-mode")
    own = MODEL.replace("from mindspore import nn\n", "from mindspore import nn\n\nms.set_context(mode=1)\n")
    (tmp_path / "app" / "model.py").write_text(own)
    silenced = []
    assert [f.line for f in check_source(own, str(model), Settings(), ["MS109"], silenced=silenced)] == [
        JIT_LINE + 2]
    assert silenced == []  # the module says PyNative itself: nothing to show with another setting


def test_the_mode_in_the_json_report(tmp_path, monkeypatch, capsys):
    from ms_lint.cli import main

    project(tmp_path / "app", **{"train.py": script(), "infer.py": script(GRAPH)})
    monkeypatch.chdir(tmp_path / "app")
    main(["check", "--isolated", "--no-cache", "--format=json", "--select=MS109", "model.py"])
    document = json.loads(capsys.readouterr().out)
    assert [finding["data"]["compiled_by"] for finding in document["findings"]] == [["Net.construct"], ["step"]]
    assert document["target"]["mode"] == "graph"
    assert document["target"]["origins"]["compiled_by"] == "infer.py"


def test_a_repository_of_three_applications_gives_each_its_own_mode(tmp_path, monkeypatch, capsys):
    from ms_lint.cli import main

    root = tmp_path / "apps"
    (root / ".git").mkdir(parents=True)
    for name, train in (("graph_app", GRAPH), ("pynative_app", PYNATIVE), ("default_app", "")):
        (root / name).mkdir()
        (root / name / "model.py").write_text(MODEL)
        (root / name / "train.py").write_text(script(train))
    assert mode(root / "graph_app" / "model.py") == ("graph", "train.py:4")
    assert mode(root / "pynative_app" / "model.py") == ("pynative", "train.py:4")
    assert mode(root / "default_app" / "model.py") == ("pynative", "MindSpore's default: train.py selects no mode")
    assert lines(root / "graph_app" / "model.py") == [CELL_LINE, JIT_LINE]
    assert lines(root / "pynative_app" / "model.py") == lines(root / "default_app" / "model.py") == [JIT_LINE]
    monkeypatch.chdir(root)
    main(["check", "--isolated", "--no-cache", "--format=json", "--select=MS109", "."])
    document = json.loads(capsys.readouterr().out)
    by_file = {}
    for finding in document["findings"]:
        by_file.setdefault(finding["path"].replace("\\", "/").split("/")[-2], []).append(
            (finding["line"], finding["target"]["mode"]))
    assert by_file == {"graph_app": [(CELL_LINE, "graph"), (JIT_LINE, "graph")],
                       "default_app": [(JIT_LINE, "pynative")], "pynative_app": [(JIT_LINE, "pynative")]}
    # the two PyNative applications share one target (grouped, as the target lines are)
    assert sorted(target["mode"] for target in document["targets"]) == ["graph", "pynative"]


def zoo_application(root: Path, name: str, package: bool, entry: str, text: str) -> Path:
    """An application of a model zoo (``root/.git``): ``name/src/model.py`` run by ``name/<entry>``; with
    ``package``, the application's folder and the zoo's folders above it hold ``__init__.py``."""
    folder = root / "research" / name
    (root / ".git").mkdir(parents=True, exist_ok=True)
    (folder / "src").mkdir(parents=True)
    (folder / "src" / "model.py").write_text(MODEL)
    (folder / "src" / "__init__.py").write_text("")
    if package:
        (root / "research" / "__init__.py").write_text("")
        (folder / "__init__.py").write_text("")
    (folder / entry).write_text(text.replace("from model import", "from src.model import"))
    return folder / "src" / "model.py"


@pytest.mark.parametrize("selects, expected", [(GRAPH, "graph"), (PYNATIVE, "pynative")])
def test_an_application_folder_that_is_a_package_keeps_its_entry_scripts(tmp_path, selects, expected):
    model = zoo_application(tmp_path, "app", True, "train.py", script(selects))
    assert mode(model) == (expected, "train.py:4")
    assert lines(model) == ([CELL_LINE, JIT_LINE] if expected == "graph" else [JIT_LINE])


def test_a_module_of_a_library_package_is_not_run_by_a_trial_run_in_the_package(tmp_path):
    root = tmp_path / "lib"
    (root / "pkg" / "tools").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "pkg"\nversion = "0.1.0"\n')
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "model.py").write_text(MODEL)
    (root / "pkg" / "tools" / "demo.py").write_text(script(PYNATIVE).replace("from model", "from pkg.model")
                                                    + "\nif __name__ == '__main__':\n    print(net)\n")
    assert mode(root / "pkg" / "model.py") == ("graph", LIBRARY)


@pytest.mark.parametrize("run", ["main()\n", "args = parser.parse_args()\n"])
def test_a_script_named_otherwise_runs_by_its_top_level_code(tmp_path, run):
    text = ("import argparse\nimport mindspore as ms\nfrom src.model import Net\nparser = argparse.ArgumentParser()\n"
            "\n\ndef main():\n    ms.set_context(mode=ms.PYNATIVE_MODE)\n    print(Net())\n\n\n" + run)
    root = tmp_path / "zoo"
    model = zoo_application(root, "attack", True, "coco_attack.py", text)
    (root / "research" / "attack" / "__init__.py").unlink()  # a folder of scripts beside the model's package
    assert mode(model) == ("pynative", "coco_attack.py:8")
    # a module that configures itself at its top level runs nothing
    (root / "research" / "attack" / "coco_attack.py").write_text(
        "import logging\nimport mindspore as ms\nfrom src.model import Net\nlogger = logging.getLogger()\n"
        "logging.basicConfig()\n")
    forget_projects()
    assert mode(model) == ("graph", LIBRARY)


def test_a_module_an_application_builds_by_name_takes_the_mode_of_its_entry_points(tmp_path):
    # ``ldm/modules/model.py`` (``modules`` a package, ``ldm`` not) that ``txt2img.py`` builds from a class name in
    # its configuration file, never importing it: the application's module, in the application's mode
    root = tmp_path / "zoo"
    (root / ".git").mkdir(parents=True)
    app = root / "research" / "txt2img"
    (app / "ldm" / "modules").mkdir(parents=True)
    (app / "ldm" / "modules" / "__init__.py").write_text("")
    (app / "ldm" / "modules" / "model.py").write_text(MODEL)
    (app / "configs").mkdir()
    (app / "configs" / "model.yaml").write_text("target: ldm.modules.model.Net\n")
    (app / "txt2img.py").write_text("import importlib\nimport mindspore as ms\n\n\nif __name__ == '__main__':\n"
                                    "    ms.set_context(mode=ms.GRAPH_MODE)\n"
                                    "    net = importlib.import_module('ldm.modules.model').Net()\n")
    assert mode(app / "ldm" / "modules" / "model.py") == ("graph", "txt2img.py:6")
    forget_projects()
    (app / "txt2img.py").write_text((app / "txt2img.py").read_text().replace("GRAPH_MODE", "PYNATIVE_MODE"))
    assert mode(app / "ldm" / "modules" / "model.py") == ("pynative", "txt2img.py:6")


def test_the_configuration_files_naming_a_model_select_its_mode(tmp_path):
    # one context builder reads the mode from the configuration file the run is given; the model's own files
    # (its folder of configurations, or its name as a value) select PyNative for one model and GRAPH for another
    root = tmp_path / "editing"
    project(root, **{
        "train.py": "import sys\nimport mindspore as ms\nfrom src.env import init_env\nfrom src import eager_net, "
                    "graph_net\n\n\nif __name__ == '__main__':\n    init_env(sys.argv[1])\n"
                    "    print(eager_net.Net(), graph_net.Net())\n",
        "src/__init__.py": "",
        "src/env.py": "import mindspore as ms\n\n\ndef init_env(cfg):\n    context_mode = ms.GRAPH_MODE if "
                      "cfg.mode == 'graph_mode' else ms.PYNATIVE_MODE\n    ms.set_context(mode=context_mode)\n",
        "src/eager_net.py": MODEL,
        "src/graph_net.py": MODEL,
        "configs/eager_net/train.yaml": 'system:\n  context_mode: "pynative_mode"\n',
        "configs/other/train.yaml": 'model:\n  name: "graph_net"\nsystem:\n  context_mode: "graph_mode"\n',
    })
    assert mode(root / "src" / "eager_net.py") == ("pynative", "train.py, through configs/eager_net/train.yaml:2")
    assert lines(root / "src" / "eager_net.py") == [JIT_LINE]
    assert mode(root / "src" / "graph_net.py") == ("graph", "train.py, through src/env.py:6")
    assert lines(root / "src" / "graph_net.py") == [CELL_LINE, JIT_LINE]


def test_an_entry_script_that_uses_mindspore_through_its_modules_selects_the_mode(tmp_path):
    model = zoo_application(tmp_path, "pinns", False, "train.py",
                            "from src.run import run\n\nif __name__ == '__main__':\n    run()\n")
    (model.parent / "run.py").write_text("import mindspore as ms\nfrom src.model import Net\n\n\ndef run():\n"
                                         "    ms.set_context(mode=ms.PYNATIVE_MODE)\n    return Net()\n")
    assert mode(model) == ("pynative", "train.py, through src/run.py:6")


@pytest.mark.parametrize("command", ["python ../src/extract.py --data x", "python3 -u ${BASE_PATH}/src/extract.py",
                                     "nohup python extract.py > log 2>&1 &"])
def test_a_python_file_a_shell_script_of_the_application_runs_is_an_entry_point(tmp_path, command):
    text = ("import mindspore as ms\nfrom src.model import Net\n\nif __name__ == '__main__':\n"
            "    ms.set_context(mode=ms.PYNATIVE_MODE)\n    print(Net())\n")
    model = zoo_application(tmp_path, "delf", True, "train.py", "import mindspore as ms\nprint(ms.__version__)\n")
    (model.parent / "extract.py").write_text(text)  # in the package src/: a module's trial run unless a script runs it
    assert mode(model) == ("pynative", "MindSpore's default: train.py selects no mode")
    (model.parent.parent / "scripts").mkdir()
    (model.parent.parent / "scripts" / "run_extract.sh").write_text(f"#!/bin/bash\nBASE_PATH=..\n{command}\n")
    forget_projects()
    assert mode(model) == ("pynative", "src/extract.py:5")


def test_the_scripts_in_an_application_s_scripts_folder_are_its_entry_points(tmp_path):
    model = zoo_application(tmp_path, "seg", False, "requirements.txt", "mindspore\n")
    (model.parent.parent / "scripts").mkdir()
    (model.parent.parent / "scripts" / "run_infer.py").write_text(
        "import sys\nimport mindspore as ms\nsys.path.insert(0, '..')\nfrom src.model import Net\n\n"
        "if __name__ == '__main__':\n    ms.set_context(mode=ms.PYNATIVE_MODE)\n    print(Net())\n")
    assert mode(model) == ("pynative", "scripts/run_infer.py:7")


def test_a_long_lived_process_reads_the_scripts_and_their_imports_again_after_forget_projects(tmp_path):
    # what each script is, where its modules are imported from and what it imports are read once per process
    library = "import mindspore as ms\nfrom model import Net\n\n\ndef main():\n    print(Net())\n"
    model = project(tmp_path / "app", **{"train.py": library, "setup_mode.py": "import mindspore as ms\n" + GRAPH})
    assert mode(model) == ("graph", LIBRARY)
    (tmp_path / "app" / "train.py").write_text("import setup_mode\n" + library + 'if __name__ == "__main__":\n'
                                               "    main()\n")
    assert mode(model) == ("graph", LIBRARY)  # the target is made once per process
    forget_projects()
    assert mode(model) == ("graph", "train.py, through setup_mode.py:2")
    (tmp_path / "app" / "train.py").write_text(library + 'if __name__ == "__main__":\n    main()\n')
    forget_projects()
    assert mode(model) == ("pynative", "MindSpore's default: train.py selects no mode")
