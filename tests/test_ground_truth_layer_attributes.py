"""Ground truth for MS614: the measured table of PyTorch layer attributes MindSpore's layers lack, checked against
the installed MindSpore layer by layer, and a read of one compiled at STRICT and LAX."""
from __future__ import annotations

import json
import textwrap

import pytest

from ms_lint.engine import check_file
from ms_lint.settings import Settings
from ms_lint.tools import layer_attributes
from tests.mindspore_compile import compile_at_both_levels, names_the_exception

pytestmark = pytest.mark.mindspore

ms = pytest.importorskip("mindspore")
TABLE = json.loads(layer_attributes.TABLE.read_text())["layers"]


def _column(row: dict) -> dict | None:
    return row["missing"].get(ms.__version__)


@pytest.mark.parametrize("layer", sorted(TABLE))
def test_the_table_holds_for_the_installed_mindspore(layer):
    row = TABLE[layer]
    column = _column(row)
    if column is None:
        pytest.skip(f"no column measured for MindSpore {ms.__version__}")
    instance = layer_attributes._build(layer_attributes._import(layer))
    assert instance is not None
    for name in row["pytorch_attributes"]:
        assert layer_attributes._lacks(instance, name) is (name in column), name
    for name, instead in column.items():
        with pytest.raises(AttributeError):
            getattr(instance, name)
        if instead:
            getattr(instance, instead)  # the name suggested instead is there


def test_the_table_names_what_pytorch_has():
    torch = pytest.importorskip("torch")
    assert torch.nn.Linear(4, 4).in_features == 4
    assert "in_features" in TABLE["mindspore.nn.Dense"]["pytorch_attributes"]
    dense = {"in_features": "in_channels", "out_features": "out_channels"}
    assert TABLE["mindspore.nn.Dense"]["missing"]["2.10.0"] == dense
    for layer in ("mindspore.nn.BatchNorm2d", "mindspore.nn.GroupNorm"):
        assert {"weight", "bias"} <= set(TABLE[layer]["missing"]["2.10.0"])
    assert "bias" not in TABLE["mindspore.nn.Dense"]["missing"]["2.10.0"]  # Dense keeps a bias Parameter


HEADER = """
import mindspore as ms
from mindspore import nn, ops
"""

# (id, source defining Net, whether building or compiling it fails with AttributeError and MS614 reports it)
CASES = [
    ("out-features-read-in-construct", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(3, 3)

            def construct(self, x):
                return self.fc(x) * self.fc.out_features
    """, True),
    ("running-mean-read-in-init", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.bn = nn.BatchNorm1d(3)
                self.start = self.bn.running_mean

            def construct(self, x):
                return x
    """, True),
    ("mindspore-names-instead", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(3, 3)
                self.bn = nn.BatchNorm1d(3)
                self.start = self.bn.moving_mean

            def construct(self, x):
                return self.fc(x) * self.fc.out_channels
    """, False),
]


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("layer_attributes")
    return compile_at_both_levels(CASES, HEADER, workdir, [[2, 3]]), workdir


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_ms614_agrees_with_the_compiler(case, compiled):
    outcomes, workdir = compiled
    name, source, fails = case
    path = workdir / f"lint_{name}.py"
    path.write_text(HEADER + textwrap.dedent(source))
    findings = [f for f in check_file(str(path), Settings(syntax_level="strict")) if f.code == "MS614"]
    assert bool(findings) is fails, [f.message for f in findings]
    for level, result in zip(("strict", "lax"), outcomes[name]):
        assert result.ok is not fails, (level, result.message[:500])
        if fails:
            assert result.error == "AttributeError", (level, result.error, result.message[:500])
            for finding in findings:
                assert names_the_exception(finding.message, result.error), finding.message
