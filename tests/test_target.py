"""The target a project is checked against: each part set by an option or inferred from the project, and the
findings that depend on it (MS601's device, the STRICT-only findings' level)."""
from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest

from ms_lint.engine import check_file
from ms_lint.rules import RULES_BY_CODE
from ms_lint.settings import Settings, SettingsError
from ms_lint.target import (SILENCED_BY, forget_projects, installed_mindspore, project_root, required_version,
                            requirement_version, target_from_settings)

ATTENTION = textwrap.dedent("""\
    from mindspore import nn, ops


    class Attention(nn.Cell):
        def heads(self, x):
            return x.view(2, 3, 4, 5)

        def construct(self, q):
            k = self.heads(q)
            return ops.matmul(k, k.transpose(2, 3))
""")

OUTPUT = textwrap.dedent("""\
    from collections import namedtuple

    from mindspore import nn

    Output = namedtuple("Output", ["logits", "loss"])


    class Net(nn.Cell):
        def construct(self, x):
            return Output(x * 2, x.sum())
""")


@pytest.fixture(autouse=True)
def fresh_projects():
    forget_projects()
    yield
    forget_projects()


GRAPH_EXPORT = "import mindspore as ms\n\nms.set_context(mode=ms.GRAPH_MODE)\n"


def app(root: Path, model: str, graph: bool = True, **files: str) -> Path:
    """A small application: ``pyproject.toml``, ``model.py`` and the given scripts, each importing the model's
    classes where it does not name the model; returns the model's path. With
    ``graph``, an ``export.py`` selects GRAPH_MODE, as an application whose Cells are compiled does."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text('[project]\nname = "app"\nversion = "0.1.0"\n')
    if graph:
        files.setdefault("export", GRAPH_EXPORT)
    # each script imports and uses the model's classes and functions where it does not name the model: a module
    # nothing imports, a class no code that runs names, never runs
    classes = ", ".join(re.findall(r"^(?:class|def) (\w+)", model, re.MULTILINE))
    imports = f"from model import {classes}\n\nCELLS = ({classes},)\n"
    for name, text in files.items():
        text = textwrap.dedent(text)
        (root / f"{name}.py").write_text(text if "model" in text else text + imports)
    (root / "model.py").write_text(model)
    return root / "model.py"


def codes(path: Path, **settings: str) -> list[str]:
    return [f.code for f in check_file(str(path), Settings.from_values(**settings), RULES_BY_CODE)]


# ------------------------------------------------------------------------------------------------------- device


def test_a_project_on_ascend_gets_no_two_axis_transpose_finding(tmp_path):
    model = app(tmp_path / "app", ATTENTION, train='import mindspore as ms\nms.set_device("Ascend")\n')
    assert codes(model) == []
    target = target_from_settings(Settings(), str(model))
    assert (target.device, target.origin("device")) == ("ascend", "train.py:2")


def test_the_same_project_on_cpu_gets_it(tmp_path):
    model = app(tmp_path / "app", ATTENTION, train='import mindspore as ms\nms.set_device("CPU")\n')
    findings = check_file(str(model), Settings(), RULES_BY_CODE)
    assert [f.code for f in findings] == ["MS601"]
    assert "takes a full permutation on CPU:" in findings[0].message
    assert findings[0].data["devices"] == ["cpu"]


def test_the_device_option_overrides_the_project_either_way(tmp_path):
    ascend = app(tmp_path / "ascend", ATTENTION, train='import mindspore as ms\nms.set_device("Ascend")\n')
    cpu = app(tmp_path / "cpu", ATTENTION, train='import mindspore as ms\nms.set_device("CPU")\n')
    assert codes(ascend, device="cpu") == ["MS601"]
    assert codes(cpu, device="ascend") == []
    findings = check_file(str(ascend), Settings.from_values(device="any"), RULES_BY_CODE)
    assert "on CPU and GPU" in findings[0].message and findings[0].data["devices"] == ["cpu", "gpu"]


def test_a_silenced_finding_names_the_setting_that_shows_it(tmp_path):
    model = app(tmp_path / "app", ATTENTION, train='import mindspore as ms\nms.set_device("Ascend")\n')
    silenced = []
    from ms_lint.engine import check_source

    assert check_source(model.read_text(), str(model), Settings(), RULES_BY_CODE, silenced=silenced) == []
    assert [(f.code, f.data[SILENCED_BY]) for f in silenced] == [("MS601", "ms-device=any")]


def test_device_inference_reads_arguments_and_fields_and_ignores_tests_comments_and_operators(tmp_path):
    root = tmp_path / "app"
    model = app(root, ATTENTION, train="""\
        import argparse
        parser = argparse.ArgumentParser()
        parser.add_argument("--device_target", type=str, default="Ascend", help="Ascend, GPU or CPU (default)")
        # ms.set_device("CPU") when debugging
        """, optim="""\
        from mindspore import ops
        adam = ops.Adam()
        adam.set_device("CPU")
        """)
    (root / "tests").mkdir()
    (root / "tests" / "test_model.py").write_text('import mindspore as ms\nms.set_device("CPU")\n')
    target = target_from_settings(Settings(), str(model))
    assert (target.device, target.origin("device")) == ("ascend", "train.py:3")


def test_places_that_disagree_leave_the_device_open(tmp_path):
    model = app(tmp_path / "app", ATTENTION, train='import mindspore as ms\nms.set_device("Ascend")\n',
                infer='import mindspore as ms\nms.set_context(device_target="GPU")\n')
    target = target_from_settings(Settings(), str(model))
    assert target.device == "any"
    assert "Ascend at train.py:2" in target.origin("device") and "GPU at infer.py:2" in target.origin("device")
    assert codes(model) == ["MS601"]


MASKED = textwrap.dedent("""\
    from mindspore import nn, ops


    class Picker(nn.Cell):
        def construct(self, x):
            return ops.masked_select(x, x > 0)
""")


def test_a_project_naming_gpu_and_cpu_is_not_judged_for_ascend(tmp_path):
    model = app(tmp_path / "app", MASKED, train='import mindspore as ms\nms.set_context(device_target="GPU")\n',
                infer='import mindspore as ms\nms.set_context(device_target="CPU")\n')
    target = target_from_settings(Settings(), str(model))
    assert (target.device, target.devices, target.device_label) == ("any", ("gpu", "cpu"), "GPU or CPU")
    assert target.summary()["devices"] == ["gpu", "cpu"]
    # masked_select's claim (dynamic shape) concerns Ascend only: left out, with the setting that shows it
    from ms_lint.engine import check_source

    silenced = []
    assert check_source(model.read_text(), str(model), Settings(), RULES_BY_CODE, silenced=silenced) == []
    assert [(f.code, f.data[SILENCED_BY]) for f in silenced] == [("MS110", "ms-device=ascend")]
    assert codes(model, device="any") == ["MS110"]
    # a project naming Ascend among others is judged for it
    ascend = app(tmp_path / "other", MASKED, train='import mindspore as ms\nms.set_context(device_target="Ascend")\n',
                 infer='import mindspore as ms\nms.set_context(device_target="CPU")\n')
    assert codes(ascend) == ["MS110"]


def test_nothing_named_is_any_device(tmp_path):
    model = app(tmp_path / "app", ATTENTION)
    target = target_from_settings(Settings(), str(model))
    assert (target.device, target.origin("device")) == ("any", "default")


# -------------------------------------------------------------------------------------------------------- level


def test_at_mindspore_s_default_level_a_strict_only_finding_is_not_reported(tmp_path):
    model = app(tmp_path / "app", OUTPUT)
    assert codes(model) == []
    target = target_from_settings(Settings(), str(model))
    assert (target.syntax_level, target.origin("syntax_level")) == ("lax", "default")


@pytest.mark.parametrize("selects", [
    "import mindspore as ms\nms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)\n",
    "import mindspore\nmindspore.set_context(jit_syntax_level=mindspore.COMPATIBLE)\n",
    'import mindspore as ms\nconfig = ms.JitConfig(jit_syntax_level="STRICT")\n',
    'import os\nos.environ["MS_DEV_JIT_SYNTAX_LEVEL"] = "0"\n',
    'import mindspore as ms\nms.export(net, x, file_name="net", file_format="MINDIR")\n',
])
def test_a_project_that_selects_strict_gets_it(tmp_path, selects):
    model = app(tmp_path / "app", OUTPUT, train=selects)
    assert codes(model) == ["MS103"]
    target = target_from_settings(Settings(), str(model))
    assert (target.syntax_level, target.origin("syntax_level")) == ("strict", "train.py:2")


@pytest.mark.parametrize("says", [
    "import mindspore as ms\n# ms.set_context(jit_syntax_level=ms.STRICT)\n",
    'import mindspore as ms\nms.export(net, x, file_name="net", file_format="ONNX")\n',
    "import mindspore as ms\nms.set_context(jit_syntax_level=ms.LAX)\n",
])
def test_comments_other_exports_and_lax_leave_the_default(tmp_path, says):
    model = app(tmp_path / "app", OUTPUT, train=says)
    assert codes(model) == []


def test_the_strict_option_asks_for_strict_everywhere(tmp_path):
    model = app(tmp_path / "app", OUTPUT, train="import mindspore as ms\nms.set_context(jit_syntax_level=ms.LAX)\n")
    assert codes(model, syntax_level="strict") == ["MS103"]
    selects = app(tmp_path / "strict", OUTPUT,
                  train="import mindspore as ms\nms.set_context(jit_syntax_level=ms.STRICT)\n")
    assert codes(selects, syntax_level="lax") == []


def test_fullgraph_jit_is_strict_for_its_own_function_only(tmp_path):
    model = app(tmp_path / "app", textwrap.dedent("""\
        from collections import namedtuple

        import mindspore as ms

        Output = namedtuple("Output", ["a", "b"])


        @ms.jit(fullgraph=True)
        def strict_step(x):
            return Output(x, x * 2)


        @ms.jit
        def lax_step(x):
            return Output(x, x * 2)
    """))
    assert [(f.line, f.code) for f in check_file(str(model), Settings(), RULES_BY_CODE)] == [(10, "MS103")]


# ------------------------------------------------------------------------------------------------------ version


def test_the_installed_mindspore_comes_first(tmp_path):
    from importlib.metadata import version

    installed = version("mindspore")
    assert installed_mindspore() == installed
    # A project whose requirement allows the installed version: the installed one answers, and says so.
    (tmp_path / "requirements.txt").write_text(f"mindspore>=2.5.0,<={installed}\n")
    model = tmp_path / "net.py"
    model.write_text(ATTENTION)
    target = target_from_settings(Settings(), str(model))
    assert (target.version, target.origin("version"), target.versions) == (installed, "installed", ())
    assert (target_from_settings(Settings(version="2.7.1"), str(model)).version) == "2.7.1"  # the option wins


def test_a_requirement_that_excludes_the_installed_mindspore_speaks_for_the_project(tmp_path):
    # ms-lint runs beside another MindSpore than the one the project installs: the project's requirement answers.
    installed = installed_mindspore()
    (tmp_path / "requirements.txt").write_text("mindspore==2.5.0\n")
    model = tmp_path / "net.py"
    model.write_text(ATTENTION)
    assert installed != "2.5.0" and required_version(str(tmp_path))[0] == "2.5.0"
    target = target_from_settings(Settings(), str(model))
    assert (target.version, target.origin("version")) == (
        "2.5.0", f"requirements.txt: mindspore==2.5.0; not the installed {installed}")
    forget_projects()
    (tmp_path / "requirements.txt").write_text("mindspore>=2.5.0\n")  # a range that allows it: the installed one
    assert target_from_settings(Settings(), str(model)).origin("version") == "installed"
    forget_projects()


def test_the_version_option_wins():
    target = target_from_settings(Settings(version="2.7.1"), "")
    assert (target.version, target.version_tuple, target.origin("version")) == ("2.7.1", (2, 7, 1), "option")
    with pytest.raises(SettingsError, match="ms-version must be a MindSpore version"):
        Settings(version="latest")


@pytest.mark.parametrize("specification, version", [
    ("==2.5.0", "2.5.0"), (">=2.7.1", "2.7.1"), ("<=2.7.0,>=2.5.0", "2.5.0"), ("~=2.11.0", "2.11.0"),
    ("==2.6.*", "2.6"), ("<=2.3.0", "2.3.0"), ("<2.8", ""), ("", ""),
])
def test_a_requirement_names_the_version_it_pins_or_starts_from(specification, version):
    assert requirement_version(specification) == version


def test_the_project_s_requirement_names_the_version(tmp_path):
    (tmp_path / "requirements.txt").write_text("numpy<2\nmindspore-lite==2.4.0\nmindspore==2.5.0  # Ascend\n")
    assert required_version(str(tmp_path)) == ("2.5.0", "requirements.txt: mindspore==2.5.0")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "a"\ndependencies = ["mindspore>=2.7.1,<2.8"]\n')
    assert required_version(str(tmp_path)) == ("2.7.1", "pyproject.toml: mindspore>=2.7.1,<2.8")


def test_an_unpacked_wheel_is_a_project_and_its_metadata_names_the_version(tmp_path):
    wheel = tmp_path / "pkg-1.0-py3-none-any"
    (wheel / "pkg" / "models").mkdir(parents=True)
    (wheel / "pkg-1.0.dist-info").mkdir()
    (wheel / "pkg-1.0.dist-info" / "METADATA").write_text("Name: pkg\nRequires-Dist: mindspore<=2.7.0,>=2.5.0\n")
    model = wheel / "pkg" / "models" / "net.py"
    model.write_text(ATTENTION)
    assert project_root(str(model)) == (str(wheel), str(wheel / "pkg"), True)
    assert required_version(str(wheel)) == ("2.5.0", "pkg-1.0.dist-info/METADATA: mindspore<=2.7.0,>=2.5.0")


def test_before_2_5_mindspore_has_no_two_axis_form_on_ascend_either(tmp_path):
    model = app(tmp_path / "app", ATTENTION)
    findings = check_file(str(model), Settings.from_values(device="ascend", version="2.4.1"), RULES_BY_CODE)
    assert [f.code for f in findings] == ["MS601"] and "MindSpore 2.4.1 has no two-axis form" in findings[0].message


# ------------------------------------------------------------------------------------------------ ms-lint check


def test_check_names_the_target_and_what_it_left_out(tmp_path, monkeypatch, capsys):
    from ms_lint.cli import main

    app(tmp_path / "app", ATTENTION, graph=False,
        train='import mindspore as ms\nms.set_device("Ascend")\nms.set_context(mode=ms.GRAPH_MODE)\n')
    monkeypatch.chdir(tmp_path / "app")
    assert main(["check", "--isolated", "--no-cache", "--format=json", "."]) == 0
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    assert document["findings"] == []
    assert document["target"]["device"] == "ascend"
    assert document["target"]["origins"]["device"] == "train.py:2"
    assert document["target"]["syntax_level"] == "lax"
    assert captured.err.splitlines() == [
        f"target: MindSpore {installed_mindspore()} (installed) · Ascend (train.py:2) · graph (train.py:3) · LAX "
        "(MindSpore's default)",
        "target: 1 finding(s) hold only on another device; --ms-device=any shows them",
        "target: findings that hold under STRICT only are not reported; --ms-syntax-level=strict shows them",
    ]
    assert main(["check", "--isolated", "--no-cache", "--format=sarif", "--ms-device=cpu", "."]) == 1
    run = json.loads(capsys.readouterr().out)["runs"][0]
    assert run["properties"]["target"]["device"] == "cpu"
    assert [result["ruleId"] for result in run["results"]] == ["MS601"]


def test_a_version_without_tables_of_its_own_is_named_with_the_tables_used(tmp_path, monkeypatch, capsys):
    from ms_lint.cli import main

    app(tmp_path / "app", ATTENTION)
    monkeypatch.chdir(tmp_path / "app")
    main(["check", "--isolated", "--no-cache", "--ms-version=2.6.0", "."])
    assert ("target: MindSpore 2.6.0 is older than the oldest ms-lint knows (2.7.0): the names, signatures and "
            "deprecations it has are unknown, so MS607, MS610 and MS612 make no claim about it; other names are "
            "checked against MindSpore 2.7.0's API tables") in capsys.readouterr().err.splitlines()
    main(["check", "--isolated", "--no-cache", "--ms-version=2.7.1", "."])
    assert "API tables" not in capsys.readouterr().err


def test_a_changed_target_checks_the_file_again(tmp_path, monkeypatch, capsys):
    from ms_lint.cli import main

    root = tmp_path / "app"
    app(root, ATTENTION, train='import mindspore as ms\nms.set_device("Ascend")\n')
    monkeypatch.chdir(root)
    assert main(["check", "--isolated", "."]) == 0
    (root / "train.py").write_text('import mindspore as ms\nms.set_device("CPU")\n')
    forget_projects()  # a new run reads the project again
    assert main(["check", "--isolated", "."]) == 1
    assert "MS601" in capsys.readouterr().out


def test_invalid_device_and_version_stop_with_one_line(tmp_path, monkeypatch, capsys):
    from ms_lint.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["check", "--ms-device=npu", "."]) == 2
    assert capsys.readouterr().err == "ms-lint: error: --ms-device: ms-device must be one of ascend, gpu, cpu, any, " \
                                      "not 'npu'\n"
    (tmp_path / "pyproject.toml").write_text('[tool.ms-lint]\nms-version = "latest"\n')
    assert main(["check", "."]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ms-version must be a MindSpore version such as 2.7.1, not 'latest'" in err
