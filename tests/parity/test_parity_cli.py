"""``ms-lint parity`` end to end: the sample pair, report formats, exit statuses and bad targets."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ms_lint.cli import main

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_projects" / "parity_conv"
PORT = "sample_projects/parity_conv/ported_mindspore.py"
REFERENCE = "sample_projects/parity_conv/reference_torch.py"


@pytest.fixture
def isolated_path(monkeypatch):
    """Targets put their directories on sys.path; keep that from leaking into other tests."""
    monkeypatch.setattr(sys, "path", list(sys.path))


@pytest.mark.slow
@pytest.mark.mindspore
@pytest.mark.torch
def test_sample_pair_via_subprocess_names_conv1_with_the_pad_mode_hint(frameworks):
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    result = subprocess.run(
        [sys.executable, "-m", "ms_lint.cli", "parity", f"{PORT}:ConvHead", f"{REFERENCE}:ConvHead",
         "--input-shape", "2,120,12,12"],
        cwd=REPO, capture_output=True, text=True, env=env, timeout=300,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "first diverging layer: conv1 (MindSpore) <-> conv1 (PyTorch)" in result.stdout
    assert "output: shape differs: (2, 240, 12, 12) (MindSpore) vs (2, 240, 9, 9) (PyTorch)" in result.stdout
    assert "pad_mode='valid'" in result.stdout
    assert "every tensor mapped" in result.stdout
    assert "Traceback" not in result.stderr


@pytest.mark.mindspore
@pytest.mark.torch
def test_fixed_sample_passes_with_exit_status_0(frameworks, capsys, monkeypatch, isolated_path):
    monkeypatch.chdir(REPO)
    status = main(["parity", f"{PORT}:ConvHeadFixed", f"{REFERENCE}:ConvHead", "--input-shape", "2,120,12,12"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "PASS: outputs match" in out


@pytest.mark.mindspore
@pytest.mark.torch
def test_json_format_and_dotted_targets_from_the_project_root(frameworks, capsys, monkeypatch, isolated_path):
    monkeypatch.chdir(REPO)
    status = main(["parity", "sample_projects.parity_conv.ported_mindspore:ConvHead",
                   "sample_projects.parity_conv.reference_torch:ConvHead", "--input-shape", "2,120,12,12",
                   "--format", "json", "--seed", "3"])
    data = json.loads(capsys.readouterr().out)
    assert status == 1
    assert data["status"] == "mismatch" and data["seed"] == 3
    assert data["divergence"]["ms"]["path"] == "conv1"
    assert data["divergence"]["torch"]["output_shapes"] == [[2, 240, 9, 9]]
    assert any("pad_mode" in hint for hint in data["divergence"]["hints"])


def _write(directory: Path, name: str, source: str) -> Path:
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source))
    return path


MODELS = """
    import numpy as np
    import torch
    from mindspore import nn


    class MsNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(4, 2)

        def construct(self, x):
            return self.fc(x)


    class TorchNet(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 2)

        def forward(self, x):
            return self.fc(x)


    class NeedsArgs(torch.nn.Module):
        def __init__(self, width):
            super().__init__()


    class MsTokens(nn.Cell):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(7, 3)

        def construct(self, ids):
            return self.embed(ids)


    class TorchTokens(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = torch.nn.Embedding(7, 3)

        def forward(self, ids):
            return self.embed(ids)


    def torch_with_inputs():
        return TorchNet(), torch.ones(3, 4)


    def not_a_model():
        return 42


    def raises():
        raise ValueError("weights file missing\\nsecond line")
"""


@pytest.fixture
def project(tmp_path, monkeypatch, isolated_path):
    _write(tmp_path, "models.py", MODELS)
    _write(tmp_path, "broken.py", "import os\nraise RuntimeError('cannot reach the data server')\n")
    _write(tmp_path, "bad_syntax.py", "def f(:\n    pass\n")
    _write(tmp_path, "parity_pkg_a1/__init__.py", "")
    _write(tmp_path, "parity_pkg_a1/nets.py", MODELS)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.mindspore
@pytest.mark.torch
def test_factory_inputs_are_used_when_no_shape_is_given(frameworks, project, capsys):
    status = main(["parity", "models.py:MsNet", "models.py:torch_with_inputs"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "inputs: (3, 4) float32" in out


@pytest.mark.mindspore
@pytest.mark.torch
def test_integer_inputs_are_valid_embedding_indices(frameworks, project, capsys):
    status = main(["parity", "models.py:MsTokens", "models.py:TorchTokens", "--input-shape", "4,50",
                   "--dtype", "int64", "--seed", "7"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "inputs: (4, 50) int64; seed 7" in out
    assert "embed.embedding_table <- embed.weight" not in out  # a rename, shown in the count only
    assert "1 tensor transferred (1 by rename)" in out


@pytest.mark.mindspore
@pytest.mark.torch
def test_dotted_module_from_the_current_directory(frameworks, project, capsys):
    status = main(["parity", "parity_pkg_a1.nets:MsNet", "parity_pkg_a1.nets:TorchNet", "--input-shape", "3,4"])
    assert status == 0, capsys.readouterr().out


SHAPE = ["--input-shape", "3,4"]
BAD_TARGETS = [
    ("models.py:MsNet", "missing.py:TorchNet", [], "file not found: missing.py"),
    ("no_such_pkg.mod:MsNet", "models.py:TorchNet", [], "no module named 'no_such_pkg'"),
    ("models.py:MsNet", "models.py:Missing", [], "has no attribute 'Missing' (classes defined there: MsNet, MsTokens,"),
    ("models.py:MsNet", "broken.py:Net", [],
     "error while importing broken.py: RuntimeError: cannot reach the data server (broken.py:2)"),
    ("bad_syntax.py:Net", "models.py:TorchNet", [], "SyntaxError: invalid syntax (bad_syntax.py:1)"),
    ("models.py:MsNet", "models.py:NeedsArgs", [], "needs arguments (width)"),
    ("models.py:MsNet", "models.py:raises", [], "the factory raised ValueError: weights file missing (models.py:"),
    ("models.py:MsNet", "models.py:not_a_model", [], "gives a builtins.int, expected a torch.nn.Module"),
    ("models.py:TorchNet", "models.py:MsNet", [], "the MindSpore target comes first"),
    ("models.py", "models.py:TorchNet", [], "must look like module:Class"),
    ("models.py:MsNet", "models.py:TorchNet", [], "no inputs: give --input-shape"),
    ("models.py:MsNet", "models.py:torch_with_inputs", ["--dtype", "float16"], "give --input-shape with it"),
    ("models.py:MsNet", "models.py:TorchNet", [*SHAPE, "--map", "nope.json"], "--map: cannot read nope.json"),
    ("models.py:MsNet", "models.py:TorchNet", [*SHAPE, "--dtype", "complex64"], "--dtype 'complex64'"),
    ("models.py:MsNet", "models.py:TorchNet", ["--input-shape", "3,5"],
     "both models failed on the inputs (3, 5) float32"),
]


@pytest.mark.mindspore
@pytest.mark.torch
@pytest.mark.parametrize("ms_target, torch_target, extra, expected", BAD_TARGETS)
def test_bad_targets_exit_2_with_one_line(frameworks, project, capsys, ms_target, torch_target, extra, expected):
    status = main(["parity", ms_target, torch_target, *extra])
    captured = capsys.readouterr()
    assert status == 2
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("ms-lint: error: ")
    assert expected in lines[0]


@pytest.mark.mindspore
@pytest.mark.torch
def test_map_file_in_both_formats(frameworks, project, capsys):
    _write(project, "map.json", '{"fc.weight": "fc.weight", "fc.bias": null}')
    _write(project, "map.txt", "# MindSpore = PyTorch\nfc.weight = fc.weight\nfc.bias = fc.bias\n")
    assert main(["parity", "models.py:MsNet", "models.py:TorchNet", "--input-shape", "3,4", "--map", "map.json"]) == 1
    assert "fc.bias (2,) left out by the map file" in capsys.readouterr().out
    assert main(["parity", "models.py:MsNet", "models.py:TorchNet", "--input-shape", "3,4", "--map", "map.txt"]) == 0
    assert "2 tensors transferred (2 by map)" in capsys.readouterr().out
    _write(project, "bad_map.json", '{"fc.wieght": "fc.weight"}')
    assert main(["parity", "models.py:MsNet", "models.py:TorchNet", "--input-shape", "3,4",
                 "--map", "bad_map.json", "--format", "json"]) == 2
    captured = capsys.readouterr()
    assert "did you mean 'fc.weight'?" in captured.err
    assert json.loads(captured.out)["status"] == "error"


def test_usage_errors_from_the_argument_parser_exit_2(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["parity", "a:B", "c:D", "--input-shape", "2,x"])
    assert exit_info.value.code == 2
    assert "invalid shape '2,x'" in capsys.readouterr().err


def test_without_torch_says_how_to_install_it(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "torch", None)  # what an environment without torch looks like to import
    status = main(["parity", "a:B", "c:D", "--input-shape", "1"])
    err = capsys.readouterr().err.strip()
    assert status == 2
    assert err == 'ms-lint: error: PyTorch is not installed; install it with: pip install "ms-lint[parity]"'


def test_plugin_and_command_modules_import_nothing_heavy():
    code = ("import sys, ms_lint.parity.pytest_plugin, ms_lint.parity, ms_lint.commands.parity; "
            "heavy = [m for m in ('torch', 'mindspore') if m in sys.modules]; print(heavy); sys.exit(bool(heavy))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
@pytest.mark.mindspore
@pytest.mark.torch
def test_fixture_as_a_pytest_plugin_in_a_users_test_suite(frameworks, tmp_path):
    _write(tmp_path, "test_port.py", """
        import numpy as np
        import torch
        from mindspore import nn


        def test_port_matches(ms_parity):
            report = ms_parity(nn.Dense(4, 2), torch.nn.Linear(4, 2), np.ones((3, 4), np.float32))
            assert report.passed


        def test_port_with_the_default_conv_padding(ms_parity):
            ms_parity(nn.Conv2d(3, 4, 4, has_bias=True), torch.nn.Conv2d(3, 4, 4), np.ones((1, 3, 6, 6), np.float32))
    """)
    env = dict(os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    result = subprocess.run([sys.executable, "-m", "pytest", "-p", "ms_lint.parity.pytest_plugin", "-q",
                             "-p", "no:cacheprovider", "test_port.py"],
                            cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)
    assert "1 failed, 1 passed" in result.stdout, result.stdout + result.stderr
    assert "first diverging layer: <model> (MindSpore) <-> <model> (PyTorch)" in result.stdout
    assert "pad_mode='valid'" in result.stdout
