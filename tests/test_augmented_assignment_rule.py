"""MS124 beyond its fixtures: a requirement's range judged version by version, ``--ms-upgrade-from``, and the text
``--fix`` writes. What MindSpore does is pinned in tests/test_ground_truth_in_place.py."""
from __future__ import annotations

import json
import textwrap

import pytest

from ms_lint.engine import check_file, check_source
from ms_lint.fixes import fix_source
from ms_lint.rules import RULES_BY_CODE
from ms_lint.settings import Settings
from tests.test_upgrade import _check, project, without_mindspore  # noqa: F401 -- the fixture, used by name

MODEL = textwrap.dedent("""
    from mindspore import Tensor, nn


    class Trainer(nn.Cell):
        def __init__(self, net):
            super().__init__()
            self.net = net
            self.zero = Tensor(0.0)

        def construct(self, x):
            total = self.zero
            total += self.net(x)
            return total
""")


def _ms124(source: str, version: str) -> list:
    return [f for f in check_source(textwrap.dedent(source), "case.py", Settings(version=version))
            if f.code == "MS124"]


@pytest.mark.usefixtures("without_mindspore")
def test_under_a_range_the_versions_from_2_8_are_named(tmp_path):
    model = project(tmp_path / "app", "mindspore>=2.7.1", MODEL)
    findings = [f for f in check_file(str(model), Settings(), RULES_BY_CODE) if f.code == "MS124"]
    assert [f.line for f in findings] == [13]
    assert findings[0].data["versions"] == ["2.8.0", "2.9.0", "2.10.0"]
    assert findings[0].data["older_versions"] == ["2.7.1", "2.7.2"]
    assert "in MindSpore 2.8.0 to 2.10.0 graph code" in findings[0].message
    assert "(MindSpore 2.7.1 to 2.7.2 and PyNative compute a new tensor)" in findings[0].message
    below = project(tmp_path / "below", "mindspore>=2.7.1,<2.8", MODEL)
    assert not [f for f in check_file(str(below), Settings(), RULES_BY_CODE) if f.code == "MS124"]


def test_upgrading_from_2_7_counts_it_among_the_changed_meanings(tmp_path, monkeypatch, capsys):
    project(tmp_path / "app", None, MODEL)
    monkeypatch.chdir(tmp_path / "app")
    status, out, err = _check(["--ms-version", "2.10.0", "--ms-upgrade-from", "2.7.1", "--select", "MS124",
                               "--format", "json", "."], capsys)
    document = json.loads(out)
    assert status == 1 and [f["code"] for f in document["findings"]] == ["MS124"]
    assert document["findings"][0]["data"]["older_versions"] == ["2.7.1"]
    status, out, err = _check(["--ms-version", "2.10.0", "--ms-upgrade-from", "2.8.0", "--select", "MS124", "."],
                              capsys)
    assert status == 0 and out == ""  # it wrote in place on 2.8.0 already: nothing the move changes


@pytest.mark.parametrize("written, rewritten", [
    ("total += r", "total = total + r"),
    ("total -= a - b", "total = total - (a - b)"),
    ("total *= a + b", "total = total * (a + b)"),
    ("total /= -r", "total = total / -r"),
    ("total @= self.w", "total = total @ self.w"),
    ("total += (a\n                  + b)", "total = total + (a\n                  + b)"),
    ("total += r  # the step's loss", "total = total + r  # the step's loss"),
])
def test_the_fix_writes_the_assignment_out(written, rewritten):
    source = textwrap.dedent(f"""
        from mindspore import Tensor, nn
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.zero = Tensor(0.0)
                self.w = Tensor([[1.0]])
            def construct(self, r, a, b):
                total = self.zero
                {written}
                return total
    """)
    assert len(_ms124(source, "2.10.0")) == 1
    fixed = fix_source(source, "case.py", Settings(version="2.10.0"), codes={"MS124"}).fixed
    assert fixed == source.replace(written.split("\n")[0], rewritten.split("\n")[0])
    assert not _ms124(fixed, "2.10.0")


def test_a_plain_mode_module_and_host_code_are_not_graph_code():
    source = """
        import mindspore as ms
        from mindspore import Tensor, nn
        ms.set_context(mode=ms.PYNATIVE_MODE)
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.zero = Tensor(0.0)
            def construct(self, r):
                total = self.zero
                total += r
                return total
    """
    assert not _ms124(source, "2.10.0")
    assert not _ms124("""
        from mindspore import Tensor
        def host(r):
            total = Tensor(0.0)
            total += r
            return total
    """, "2.10.0")


@pytest.mark.parametrize("source", [
    "class Net:\n    def construct(self):\n        x += 1\n",  # unbound, not a Cell
    "from mindspore import nn\nclass Net(nn.Cell):\n    def construct(self, *args):\n        args += (1,)\n"
    "        return args\n",
    "from mindspore import nn\nclass Net(nn.Cell):\n    def construct(self, x):\n        global y\n        y += x\n"
    "        return y\n",
    "from mindspore import nn, Tensor\nclass Net(nn.Cell):\n    def construct(self, x):\n        a = b = Tensor(0)\n"
    "        a += x\n        b, c = x, x\n        b += 1\n        return a, b\n",
    "from mindspore import nn\nclass Net(nn.Cell):\n    def construct(self, x):\n        t = x\n        for t in x:\n"
    "            t += 1\n        x.y += 1\n        x[0] += 1\n        return t\n",
])
def test_odd_code_is_no_trouble(source):
    findings = check_source(source, "case.py", Settings(version="2.10.0"))
    assert not [f for f in findings if f.code == "MS900"]


def test_an_application_that_selects_no_mode_writes_in_place_only_under_jit(tmp_path):
    # PyNative (MindSpore's default) computes a new tensor: the Cell's finding holds only in GRAPH_MODE
    from ms_lint.target import SILENCED_BY, forget_projects

    source = MODEL + textwrap.dedent("""

        @ms.jit
        def accumulate(r):
            total = Tensor(0.0)
            total += r
            return total
    """)
    source = "import mindspore as ms\n" + source
    model = project(tmp_path / "app", None, source)
    (tmp_path / "app" / "train.py").write_text(
        "import mindspore as ms\nfrom model import Trainer, accumulate\n\nTrainer(None)\naccumulate(1.0)\n")
    forget_projects()
    silenced = []
    found = check_source(source, str(model), Settings(version="2.10.0"), ["MS124"], silenced=silenced)
    assert [f.line for f in found] == [source.splitlines().index("    total += r") + 1]
    assert [(f.line, f.data[SILENCED_BY]) for f in silenced] == [
        (source.splitlines().index("        total += self.net(x)") + 1, "ms-mode=graph")]
    shown = check_file(str(model), Settings(version="2.10.0", mode="graph"), ["MS124"])
    assert len(shown) == 2
    forget_projects()
