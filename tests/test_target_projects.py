"""Which project a file belongs to (one target per application in a repository of many; a library and its
examples), and the target each finding carries in every report: JSON, SARIF, statistics, the closing line and the
lines naming the targets."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ms_lint.cli import main
from ms_lint.settings import Settings
from ms_lint.target import (forget_projects, inferred_version, installed_mindspore, project_root, shared_folders,
                            target_from_settings)

# Two-axis transpose: MS601 on CPU and GPU (and on "any device"), nothing on Ascend.
ATTENTION = textwrap.dedent("""\
    from mindspore import nn


    class Attention(nn.Cell):
        def construct(self, q):
            return q.transpose(2, 3)
""")

# A namedtuple built in graph code: MS103 under STRICT only.
OUTPUT = textwrap.dedent("""\
    from collections import namedtuple

    from mindspore import nn

    Output = namedtuple("Output", ["logits", "loss"])


    class Net(nn.Cell):
        def construct(self, x):
            return Output(x * 2, x.sum())
""")

TRAIN = ('import mindspore as ms\n\nif __name__ == "__main__":\n    ms.set_device("{device}")\n'
         '    ms.set_context(mode=ms.GRAPH_MODE)\n')


@pytest.fixture(autouse=True)
def fresh_projects():
    forget_projects()
    yield
    forget_projects()


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def root_of(path: Path) -> Path:
    return Path(project_root(str(path))[0])


# ------------------------------------------------------------------------------------------- which project


@pytest.fixture
def zoo(tmp_path) -> Path:
    """A model zoo: a repository (``.git``) of applications without any packaging file, each as the official
    models hold them."""
    root = tmp_path / "models"
    (root / ".git").mkdir(parents=True)
    write(root, {
        "README.md": "models\n",
        "official/cv/ResNet/train.py": TRAIN.format(device="Ascend"),
        "official/cv/ResNet/eval.py": "from src.resnet import ResNet\n\nif __name__ == '__main__':\n    ResNet()\n",
        "official/cv/ResNet/requirements.txt": "pyyaml\n",
        "official/cv/ResNet/config/resnet50.yaml": "device_target: Ascend\n",
        "official/cv/ResNet/scripts/run_train.sh": "python train.py\n",
        "official/cv/ResNet/src/__init__.py": "",
        "official/cv/ResNet/src/resnet.py": ATTENTION,
        "official/cv/ResNet/src/eval_utils.py": "def accuracy(a, b):\n    return (a == b).mean()\n",
        "official/cv/ResNet/src/model_utils/config.py": "import argparse\nargs = argparse.ArgumentParser()\n",
        "official/cv/ResNet/modelarts/train_start.py": "import sys\nsys.path.append('..')\nmain()\n",
        "official/cv/ResNet/infer/requirements.txt": "opencv-python\n",
        "official/cv/ResNet/infer/convert/convert.py": "x = 1\n",
        "official/cv/ResNet/infer/sdk/main.py": "if __name__ == '__main__':\n    pass\n",
        "official/cv/ResNet/golden_stick/ghost/train.py": TRAIN.format(device="GPU"),
        "official/cv/ResNet/golden_stick/ghost/src/ghost.py": ATTENTION,
        # an application folder that is a package too, and a folder of models that is no application
        "official/cv/VGG/__init__.py": "",
        "official/cv/VGG/main.py": "import argparse\nparser = argparse.ArgumentParser()\nargs = parser.parse_args()\n",
        "official/cv/VGG/vgg.py": ATTENTION,
        "official/cv/ShuffleNet/shufflenetv1/train.py": TRAIN.format(device="CPU"),
        "official/cv/ShuffleNet/shufflenetv2/eval.py": TRAIN.format(device="GPU"),
        "official/cv/ShuffleNet/shufflenetv2/src/net.py": ATTENTION,
        # a src/ with its own config folder and a script is still the application's
        "research/cv/convnext/train.py": TRAIN.format(device="Ascend"),
        "research/cv/convnext/src/configs/convnext.yaml": "lr: 0.1\n",
        "research/cv/convnext/src/export.py": "import argparse\nargs = argparse.ArgumentParser().parse_args()\n",
        "research/cv/convnext/src/util/eval_fid.py": "if __name__ == '__main__':\n    pass\n",
        "utils/hccl_tools.py": "x = 1\n",
        "tests/ut/main.py": "if __name__ == '__main__':\n    pass\n",
    })
    return root


def test_each_application_of_a_model_zoo_is_its_own_project(zoo):
    resnet = zoo / "official/cv/ResNet"
    for part in ("train.py", "src/resnet.py", "src/eval_utils.py", "src/model_utils/config.py",
                 "infer/convert/convert.py"):
        assert root_of(resnet / part) == resnet, part
    # folders inside it with entry scripts of their own: a ModelArts entry, an SDK's, a variant trained alone
    assert root_of(resnet / "modelarts/train_start.py") == resnet / "modelarts"
    assert root_of(resnet / "infer/sdk/main.py") == resnet / "infer/sdk"
    assert root_of(resnet / "golden_stick/ghost/src/ghost.py") == resnet / "golden_stick/ghost"
    assert root_of(zoo / "official/cv/VGG/vgg.py") == zoo / "official/cv/VGG"
    shufflenet = zoo / "official/cv/ShuffleNet"
    assert root_of(shufflenet / "shufflenetv2/src/net.py") == shufflenet / "shufflenetv2"
    convnext = zoo / "research/cv/convnext"
    for part in ("src/export.py", "src/util/eval_fid.py"):
        assert root_of(convnext / part) == convnext, part
    # what no application holds, and a test folder, are the repository's
    assert root_of(zoo / "utils/hccl_tools.py") == zoo
    assert root_of(zoo / "tests/ut/main.py") == zoo


def test_each_application_gets_its_own_target(zoo):
    def device(relative: str) -> tuple[str, str]:
        target = target_from_settings(Settings(), str(zoo / relative))
        return target.device, target.origin("device")

    assert device("official/cv/ResNet/src/resnet.py") == ("ascend", "train.py:4")
    assert device("official/cv/ResNet/golden_stick/ghost/src/ghost.py") == ("gpu", "train.py:4")
    assert device("official/cv/ShuffleNet/shufflenetv1/train.py") == ("cpu", "train.py:4")
    assert device("official/cv/VGG/vgg.py") == ("any", "default")
    # the application that holds another one does not read it
    ghost = zoo / "official/cv/ResNet/golden_stick/ghost"
    (ghost / "export.py").write_text('import mindspore as ms\nms.set_device("CPU")\n')
    forget_projects()
    assert device("official/cv/ResNet/src/resnet.py") == ("ascend", "train.py:4")


def test_a_module_named_like_an_entry_script_makes_no_application(tmp_path):
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    write(root, {"app/train_utils.py": "def step():\n    pass\n", "app/net.py": ATTENTION,
                 "app/eval_callback.py": "class Callback:\n    pass\n"})
    assert root_of(root / "app/net.py") == root
    (root / "app/train.py").write_text("from net import Attention\nAttention()\n")
    forget_projects()
    assert root_of(root / "app/net.py") == root / "app"


@pytest.fixture
def library(tmp_path) -> Path:
    """A library with ``setup.py`` at the top, its package, examples (a package too) and tests."""
    root = tmp_path / "armour"
    write(root, {
        "setup.py": "from setuptools import setup\nsetup(name='armour', install_requires=['mindspore==2.5.0'])\n",
        "requirements.txt": "mindspore==2.5.0\n",
        "armour/__init__.py": "",
        "armour/attacks/__init__.py": "",
        "armour/attacks/net.py": ATTENTION,
        # modules of the library named like entry scripts, and a config folder in it
        "armour/tools/__init__.py": "",
        "armour/tools/export.py": "if __name__ == '__main__':\n    pass\n",
        "armour/configs/default.yaml": "a: 1\n",
        "examples/__init__.py": "",
        "examples/common.py": "x = 1\n",
        "examples/speech/requirements.txt": "librosa\n",
        "examples/speech/attack.py": 'import mindspore as ms\nms.set_device("GPU")\n',
        "examples/speech/src/net.py": ATTENTION,
        "tests/st/main.py": "if __name__ == '__main__':\n    pass\n",
    })
    return root


def test_a_library_stays_one_project_and_an_example_is_an_application(library):
    for part in ("armour/attacks/net.py", "armour/tools/export.py", "examples/common.py", "tests/st/main.py",
                 "setup.py"):
        assert root_of(library / part) == library, part
    speech = library / "examples/speech"
    assert root_of(speech / "src/net.py") == speech
    assert target_from_settings(Settings(), str(speech / "src/net.py")).device == "gpu"
    # the example is not read for the library's device
    assert target_from_settings(Settings(), str(library / "armour/attacks/net.py")).device == "any"


def test_an_application_without_a_requirement_takes_its_repository_s(library, monkeypatch):
    monkeypatch.setattr("ms_lint.target.installed_mindspore", lambda: "")
    speech = library / "examples/speech"
    project_root(str(speech / "attack.py"))
    assert inferred_version(str(speech)) == ("2.5.0", "../../setup.py: mindspore==2.5.0")
    (speech / "requirements.txt").write_text("mindspore==2.7.1\n")
    forget_projects()
    project_root(str(speech / "attack.py"))
    assert inferred_version(str(speech)) == ("2.7.1", "requirements.txt: mindspore==2.7.1")


def test_a_hidden_directory_is_not_crossed(tmp_path):
    outer = tmp_path / "tool"
    write(outer, {"pyproject.toml": "[project]\nname = 'tool'\n", ".corpus/repo/pkg/net.py": ATTENTION,
                  ".corpus/repo/app/train.py": TRAIN.format(device="CPU"), ".corpus/repo/app/net.py": ATTENTION})
    assert project_root(str(outer / ".corpus/repo/pkg/net.py")) == (str(outer / ".corpus/repo/pkg"),) * 2 + (False,)
    assert root_of(outer / ".corpus/repo/app/net.py") == outer / ".corpus/repo/app"


def test_scripts_left_in_the_temporary_folder_make_no_application_of_what_lies_below(tmp_path, monkeypatch):
    """The temporary folder is scratch space: a ``train.py`` another program left there does not gather every
    project below into one application, nor lend it a device or entry points."""
    scratch = tmp_path / "scratch"
    write(scratch, {"train.py": TRAIN.format(device="GPU"), "config/run.yaml": "mode: 0\n",
                    "job/net.py": ATTENTION})
    assert root_of(scratch / "job/net.py") == scratch
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setattr("tempfile.tempdir", None)
    shared_folders.cache_clear()
    forget_projects()
    try:
        assert project_root(str(scratch / "job/net.py")) == (str(scratch / "job"),) * 2 + (False,)
        assert target_from_settings(Settings(), str(scratch / "job/net.py")).device == "any"
    finally:
        shared_folders.cache_clear()


# ----------------------------------------------------------------------------------------------- the reports


@pytest.fixture
def three(tmp_path, monkeypatch) -> Path:
    """A repository of three applications with three targets: Ascend (LAX), CPU (LAX), any device at STRICT."""
    root = tmp_path / "apps"
    (root / ".git").mkdir(parents=True)
    write(root, {
        "ascend_app/train.py": TRAIN.format(device="Ascend"),
        "ascend_app/net.py": ATTENTION + OUTPUT.replace("from mindspore import nn\n", ""),
        "cpu_app/train.py": TRAIN.format(device="CPU"),
        "cpu_app/net.py": ATTENTION + OUTPUT.replace("from mindspore import nn\n", ""),
        "strict_app/requirements.txt": "numpy\n",
        "strict_app/export.py": 'import mindspore as ms\nms.export(net, x, file_name="n", file_format="MINDIR")\n',
        "strict_app/net.py": ATTENTION + OUTPUT.replace("from mindspore import nn\n", ""),
    })
    monkeypatch.chdir(root)
    return root


def check(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["check", "--isolated", "--no-cache", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


VERSION = installed_mindspore()


def test_json_gives_each_finding_its_target_and_lists_the_targets(three, capsys):
    status, out, _ = check(capsys, "--format=json", "--statistics", ".")
    document = json.loads(out)
    assert status == 1 and "target" not in document  # three targets: no single one to name
    found = {(f["path"].removeprefix("./"), f["code"]): f["target"] for f in document["findings"]}
    assert found == {
        ("cpu_app/net.py", "MS601"): {"device": "cpu", "mindspore_version": VERSION, "mode": "graph",
                                      "syntax_level": "lax", "project": "cpu_app"},
        ("strict_app/net.py", "MS601"): {"device": "any", "mindspore_version": VERSION, "mode": "graph",
                                         "syntax_level": "strict", "project": "strict_app"},
        ("strict_app/net.py", "MS103"): {"device": "any", "mindspore_version": VERSION, "mode": "graph",
                                         "syntax_level": "strict", "project": "strict_app"},
    }
    targets = {(t["device"], t["syntax_level"]): t for t in document["targets"]}
    assert set(targets) == {("ascend", "lax"), ("cpu", "lax"), ("any", "strict")}
    assert [(p["path"], p["origins"]["device"]) for p in targets["ascend", "lax"]["projects"]] == [
        ("ascend_app", "train.py:4")]
    assert targets["any", "strict"]["origins"]["syntax_level"] == "export.py:2"
    assert {key: (t["findings"], t["statistics"]) for key, t in targets.items()} == {
        ("ascend", "lax"): (0, {}),
        ("cpu", "lax"): (1, {"MS601": {"count": 1, "name": "two-axis-transpose"}}),
        ("any", "strict"): (2, {"MS103": {"count": 1, "name": "user-type-in-graph"},
                                "MS601": {"count": 1, "name": "two-axis-transpose"}}),
    }
    assert document["statistics"]["MS601"]["count"] == 2


def test_one_target_keeps_the_top_level_target(three, capsys):
    _, out, _ = check(capsys, "--format=json", "--ms-device=cpu", "--ms-syntax-level=strict", ".")
    document = json.loads(out)
    assert document["target"] == {**{key: document["targets"][0][key] for key in
                                     ("device", "mindspore_version", "mode", "syntax_level")},
                                  "origins": {"mode": "per project", "syntax_level": "option", "device": "option",
                                              "version": "installed"}}
    assert [p["path"] for p in document["targets"][0]["projects"]] == ["ascend_app", "cpu_app", "strict_app"]
    assert document["targets"][0]["findings"] == len(document["findings"]) == 6


def test_sarif_gives_each_result_its_target_and_the_run_the_targets(three, capsys):
    _, out, err = check(capsys, "--format=sarif", "--statistics", ".")
    run = json.loads(out)["runs"][0]
    assert sorted((r["properties"]["target"]["project"], r["ruleId"]) for r in run["results"]) == [
        ("cpu_app", "MS601"), ("strict_app", "MS103"), ("strict_app", "MS601")]
    assert "target" not in run["properties"]
    assert sorted(t["device"] for t in run["properties"]["targets"]) == ["any", "ascend", "cpu"]
    # the statistics go to standard error, per target too
    assert "CPU · LAX (1 project):\n  1     MS601 two-axis-transpose\n" in err


def test_text_statistics_closing_line_and_target_lines_per_target(three, capsys):
    status, out, err = check(capsys, "--statistics", ".")
    assert status == 1
    assert [line.split(": ")[1].split(" ")[0] for line in out.splitlines()[:3]] == ["MS601", "MS601", "MS103"]
    assert out.splitlines()[3:] == [
        "1     MS103 user-type-in-graph",
        "2     MS601 two-axis-transpose",
        "CPU · LAX (1 project):",
        "  1     MS601 two-axis-transpose",
        "any device · STRICT (1 project):",
        "  1     MS103 user-type-in-graph",
        "  1     MS601 two-axis-transpose",
    ]
    assert err.splitlines() == [
        f"target: MindSpore {VERSION} (installed) · Ascend (train.py:4) · graph (train.py:5) · LAX (MindSpore's "
        "default): ascend_app",
        f"target: MindSpore {VERSION} (installed) · CPU (train.py:4) · graph (train.py:5) · LAX (MindSpore's default): "
        "cpu_app",
        f"target: MindSpore {VERSION} (installed) · any device (none named in the project) · graph (export.py:2 "
        "(exports MindIR)) · "
        "STRICT (export.py:2): strict_app",
        "target: 1 finding(s) hold only on another device; --ms-device=any shows them",
        "target: findings that hold under STRICT only are not reported; --ms-syntax-level=strict shows them",
        "Found 3 findings in 2 files (2 fixable with --fix): 1 at CPU · LAX (1 project), 2 at any device · STRICT "
        "(1 project).",
    ]


def test_projects_sharing_a_target_share_its_line(three, capsys):
    (three / "strict_app" / "export.py").write_text(
        'import mindspore as ms\nms.set_device("CPU")\nms.set_context(mode=ms.GRAPH_MODE)\n')
    forget_projects()
    _, _, err = check(capsys, ".")
    assert err.splitlines()[:2] == [
        f"target: MindSpore {VERSION} (installed) · CPU (per project) · graph (per project) · LAX (MindSpore's "
        "default): 2 projects (cpu_app, strict_app)",
        f"target: MindSpore {VERSION} (installed) · Ascend (train.py:4) · graph (train.py:5) · LAX (MindSpore's "
        "default): ascend_app",
    ]
    assert err.splitlines()[-1] == "Found 2 findings in 2 files (2 fixable with --fix): 2 at CPU (2 projects)."


def test_the_target_lines_come_after_the_findings_and_before_the_closing_line(three):
    completed = subprocess.run([sys.executable, "-m", "ms_lint", "check", "--isolated", "--no-cache", "cpu_app"],
                               cwd=three, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    lines = completed.stdout.decode().splitlines()
    assert [line.split(":")[0] for line in lines] == [
        "cpu_app/net.py", "target", "target", "Found 1 finding in 1 file (1 fixable with --fix)."]


# ------------------------------------------------------------------------------------ where a setting came from


@pytest.mark.parametrize("config, label", [
    ("setup.cfg", "setup.cfg [flake8]"),
    (".flake8", ".flake8 [flake8]"),
    ("pyproject.toml", "pyproject.toml [tool.ms-lint]"),
])
def test_a_setting_from_a_configuration_file_is_labelled_with_that_file(three, capsys, config, label):
    text = ('[tool.ms-lint]\nms-device = "gpu"\nms-syntax-level = "strict"\n' if config == "pyproject.toml"
            else "[flake8]\nms-device = gpu\nms-syntax-level = strict\n")
    (three / config).write_text(text)
    status = main(["check", "--no-cache", "--format=json", "."])
    captured = capsys.readouterr()
    assert status == 1
    target = json.loads(captured.out)["target"]
    assert (target["device"], target["origins"]["device"]) == ("gpu", f"config: {label}")
    assert target["origins"]["syntax_level"] == f"config: {label}"
    assert captured.err.splitlines() == [
        f"target: MindSpore {VERSION} (installed) · GPU (ms-device in {label}) · graph (per project) · STRICT "
        f"(ms-syntax-level in {label}): 3 projects (ascend_app, cpu_app, strict_app)",
    ]
    # the command line wins, and says so
    main(["check", "--no-cache", "--ms-device=ascend", "."])
    assert capsys.readouterr().err.startswith(
        f"target: MindSpore {VERSION} (installed) · Ascend (--ms-device) · graph (per project) · STRICT "
        f"(ms-syntax-level in {label}): ")


def test_the_validator_s_static_findings_carry_their_target(three):
    from ms_lint.config import resolve_options
    from ms_lint.findings import Finding
    from ms_lint.validate.runner import static_findings

    findings, _, problems = static_findings([str(three / "cpu_app")], resolve_options(isolated=True))
    assert problems == [] and [f.code for f in findings] == ["MS601"]
    assert findings[0].target == {"device": "cpu", "mindspore_version": VERSION, "mode": "graph",
                                  "syntax_level": "lax", "project": "cpu_app"}
    # as the validator stores it
    assert Finding(**findings[0].to_dict()).target == findings[0].target
