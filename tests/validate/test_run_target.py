"""What ``ms-lint validate`` compiles for: ``ms-lint check``'s target (each project's syntax level, the device its
code names when this machine has it, else CPU, saying so), unless ``--syntax-level``/``--device`` name one; and
which units reach a finding outside any (``roots.roots_reaching``)."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from ms_lint.cli import main
from ms_lint.settings import Settings
from ms_lint.validate.roots import roots_reaching, unit_kind
from ms_lint.validate.run_target import resolve_run_target
from ms_lint.validate.runner import lint_options_for

from .conftest import PROJECTS, needs_mindspore


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


NET = """\
    import numpy as np
    from mindspore import nn


    class Net(nn.Cell):
        def construct(self, x):
            return np.sin(x)
"""


def test_each_project_s_inferred_level_unless_an_option_names_one(tmp_path):
    lax = write(tmp_path / "lax" / "pyproject.toml", "")
    lax = write(tmp_path / "lax" / "net.py", NET)
    write(tmp_path / "strict" / "pyproject.toml", "")
    strict = write(tmp_path / "strict" / "net.py", NET)
    write(tmp_path / "strict" / "train.py",
          "import mindspore as ms\nms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)\n")
    inferred = resolve_run_target(None, None, lint_options_for(None, cwd=str(tmp_path)), [str(lax), str(strict)])
    assert (inferred.level_for(str(lax)), inferred.level_for(str(strict))) == ("lax", "strict")
    assert [line.split(" · ")[-1] for line in inferred.lines([str(lax), str(strict)])] == [
        f"LAX (MindSpore's default): {tmp_path / 'lax'}", f"STRICT (train.py:2): {tmp_path / 'strict'}"]
    chosen = resolve_run_target(None, "lax", lint_options_for("lax", cwd=str(tmp_path)), [str(lax), str(strict)])
    assert chosen.level_for(str(strict)) == "lax"
    assert chosen.lines([str(strict)])[0].endswith(" · LAX (--syntax-level)")
    assert len(chosen.groups([str(lax), str(strict)])) == 1  # one target, shared by both projects


def test_a_project_naming_no_device_is_compiled_on_cpu(tmp_path):
    net = write(tmp_path / "net.py", NET)
    run = resolve_run_target(None, None, lint_options_for(None, cwd=str(tmp_path)), [str(net)])
    assert (run.device, run.device_note) == ("CPU", "")
    assert run.lines([str(net)])[0].split(" · ")[1] == "CPU (any device: CPU here)"
    given = resolve_run_target("GPU", None, None, [str(net)])
    assert (given.device, given.device_origin) == ("GPU", "--device")


@needs_mindspore
def test_a_device_this_machine_lacks_falls_back_to_cpu_and_says_so(tmp_path):
    from ms_lint.validate.run_target import supported_devices
    from ms_lint.validate.runner import mindspore_version

    if "Ascend" in supported_devices(mindspore_version() or ""):
        pytest.skip("this machine can use Ascend")
    write(tmp_path / "pyproject.toml", "")
    net = write(tmp_path / "net.py", NET)
    write(tmp_path / "train.py", 'import mindspore as ms\nms.set_device("Ascend")\n')
    run = resolve_run_target(None, None, lint_options_for(None, cwd=str(tmp_path)), [str(net)],
                             mindspore_version() or "")
    assert run.device == "CPU"
    assert run.device_note.startswith("the project names Ascend (train.py:2), which this MindSpore cannot use here: "
                                      "compiling on CPU")
    assert run.lines([str(net)])[0].split(" · ")[1] == "CPU (Ascend named at train.py:2 is not available here)"


@pytest.mark.mindspore
@needs_mindspore
def test_the_command_compiles_at_the_inferred_target_and_names_it(tmp_path, capsys, monkeypatch):
    from ms_lint.validate.run_target import supported_devices
    from ms_lint.validate.runner import mindspore_version

    if "Ascend" in supported_devices(mindspore_version() or ""):
        pytest.skip("this machine can use Ascend")
    write(tmp_path / "pyproject.toml", "")
    write(tmp_path / "train.py", 'import mindspore as ms\nms.set_device("Ascend")\nms.set_context(mode=0)\n')
    write(tmp_path / "pool.py", """\
        from mindspore import nn, ops


        class Pooler(nn.Cell):
            def construct(self, x):
                y = ops.avg_pool1d(x, kernel_size=64, stride=64)
                try:
                    y = y * 2
                except ValueError:
                    pass
                return y
    """)
    monkeypatch.chdir(tmp_path)
    status = main(["validate", ".", "--format", "json", "--jobs", "1", "--no-cache"])
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    assert status == 1, captured.err
    assert document["syntax_level"] == "lax" and document["device"] == "CPU"
    assert document["targets"][0]["syntax_level"] == "lax"
    assert document["targets"][0]["origins"]["device"] == "Ascend named at train.py:2 is not available here"
    assert "target: MindSpore " in captured.err and " · CPU (Ascend named at train.py:2 is not available here) · " \
        "graph (train.py:3) · LAX (MindSpore's default)" in captured.err
    assert "target: the project names Ascend (train.py:2), which this MindSpore cannot use here" in captured.err
    by_code = {item["code"]: item for item in document["findings"]}
    # MS702's stride range holds on Ascend: its verdict on CPU says so; MS109's does not depend on the device.
    assert by_code["MS109"]["verdict"] == "confirmed"
    assert not any(note.startswith("the project names Ascend") for note in by_code["MS109"]["notes"])
    assert any(note.startswith("the project names Ascend") for note in by_code["MS702"]["notes"])
    # An option names the level: the findings and the compile are STRICT's.
    status = main(["validate", ".", "--format", "json", "--jobs", "1", "--syntax-level", "strict"])
    captured = capsys.readouterr()
    assert json.loads(captured.out)["syntax_level"] == "strict"
    assert " · STRICT (--syntax-level)" in captured.err


def test_roots_reaching_a_helper_two_cells_call_names_both():
    path = str(PROJECTS / "own" / "ownpkg" / "gates.py")
    reach = roots_reaching(path, 7, Settings(syntax_level="strict"))
    assert reach.function == "activation"
    assert sorted(unit.scope for unit in reach.roots) == ["Gate", "Mask"]
    assert {unit.how for unit in reach.roots} == {"Gate.construct -> activation", "Mask.construct -> activation"}
    assert unit_kind(path, "activation") == "function" and unit_kind(path, "Gate") == "cell"


def test_roots_reaching_a_jit_class_method_names_the_cells_of_other_modules_that_call_it():
    from ms_lint.validate.roots import PackageFiles

    path = str(PROJECTS / "own" / "ownpkg" / "irreps.py")
    package = PackageFiles()
    reach = roots_reaching(path, 14, Settings(syntax_level="strict"), package=package)
    # the model's answer (compiled_by): Mixer's construct, in mixer.py, calls scale()
    assert reach.function == "Irrep.scale" and reach.candidates == []
    assert [(Path(unit.path).name, unit.scope, unit.how) for unit in reach.roots] == [
        ("mixer.py", "Mixer", "Mixer.construct (mixer.py) -> Irrep.scale")]
    assert unit_kind(path, "Irrep") == "jit_class"
    size = roots_reaching(path, 25, Settings(syntax_level="strict"), package=package)
    assert (size.function, [unit.scope for unit in size.roots]) == ("Basis.size", ["Sizer"])
    # tabulate() only host code calls; Sizer names Basis, so it is the one candidate left to compile
    tabulate = roots_reaching(path, 28, Settings(syntax_level="strict"), package=package)
    assert (tabulate.function, tabulate.roots) == ("Basis.tabulate", [])
    assert [(Path(unit.path).name, unit.scope) for unit in tabulate.candidates] == [("mixer.py", "Sizer")]
    orphan = roots_reaching(path, 36, Settings(syntax_level="strict"), package=package)
    assert (orphan.function, orphan.roots, orphan.candidates) == ("Orphan.values", [], [])
