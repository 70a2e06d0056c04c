"""MS122 across a project: the callers it finds in other modules, what its findings carry, and what a check of a
module reads of the others (nothing when no construct returns a dict)."""
from __future__ import annotations

from pathlib import Path

from ms_lint.engine import check_file, check_source
from ms_lint.model.project import recording_lookups
from ms_lint.rules import RULES_BY_CODE
from ms_lint.settings import Settings

PACKAGE = Path(__file__).parent / "fixtures" / "rules" / "MS122_cross_module" / "pkg"
ONLY = {"MS122": RULES_BY_CODE["MS122"]}


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_the_finding_carries_the_cell_its_keys_its_callers_and_the_level():
    findings = check_file(str(PACKAGE / "model.py"), Settings(syntax_level="strict"), ONLY)
    by_cell = {}
    for finding in findings:
        by_cell.setdefault(finding.data["cell"], []).append(finding)
    assert sorted(by_cell) == ["Classifier", "Detector"]  # not Backbone, Scorer, Unread, Pair
    detector = by_cell["Detector"][0]
    assert detector.scope == "Detector"
    assert detector.data["keys"] == ["logits", "features"]
    assert detector.data["consumers"] == ["pkg/train.py:11", "pkg/train.py:12"]
    assert (detector.data["consumer"], detector.data["read"], detector.data["level"]) == (
        "pkg/train.py:11", "['logits']", "strict")
    assert "pkg/train.py:11 reads it by key with ['logits'] (and 1 more)" in detector.message
    assert by_cell["Classifier"][0].data["consumers"] == ["pkg/evaluate.py:6"]  # imported from the package
    assert check_file(str(PACKAGE / "model.py"), Settings(syntax_level="lax"), ONLY) == []


def test_a_caller_s_edits_decide_and_the_check_records_it(tmp_path):
    model = "from mindspore import nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x):\n        return {'y': x}\n"
    _write(tmp_path, {"app/__init__.py": "", "app/model.py": model,
                      "app/run.py": "from app.model import Net\n\nnet = Net()\nout = net(1)\nprint(out.keys())\n"})
    with recording_lookups() as lookups:
        (finding,) = check_file(str(tmp_path / "app" / "model.py"), Settings(syntax_level="strict"), ONLY)
    assert finding.data["consumers"] == ["app/run.py:5"] and finding.data["read"] == ".keys()"
    # The result cache checks model.py again when run.py changes.
    assert any(module == "app.run" and found == str(tmp_path / "app" / "run.py")
               for (module, _), found in lookups.items())
    (tmp_path / "app" / "run.py").write_text("from app.model import Net\n\nnet = Net()\nout = net(1)\nprint(out[0])\n")
    assert check_file(str(tmp_path / "app" / "model.py"), Settings(syntax_level="strict"), ONLY) == []


def test_no_other_module_is_read_when_no_construct_returns_a_dict(tmp_path):
    model = "from mindspore import nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x):\n        return x, x\n"
    _write(tmp_path, {"app/__init__.py": "", "app/model.py": model,
                      "app/run.py": "from app.model import Net\n\nout = Net()(1)\nprint(out['y'])\n"})
    with recording_lookups() as lookups:
        assert check_file(str(tmp_path / "app" / "model.py"), Settings(syntax_level="strict"), ONLY) == []
    assert lookups == {}


def test_a_host_method_or_a_cell_of_another_module_is_told_apart(tmp_path):
    model = "from mindspore import nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x):\n        return {'y': x}\n"
    caller = (
        "import mindspore as ms\nfrom mindspore import nn\nfrom app.model import Net\n\n\n"
        "class Loss(nn.Cell):\n    def construct(self, x):\n        net = Net()\n        return net(x)['y']\n\n\n"
        "class Runner:\n    def run(self, x):\n        net = Net()\n        return net(x)['y']\n"
    )
    _write(tmp_path, {"app/__init__.py": "", "app/model.py": model, "app/run.py": caller})
    (finding,) = check_file(str(tmp_path / "app" / "model.py"), Settings(syntax_level="strict"), ONLY)
    assert finding.data["consumers"] == ["app/run.py:15"]  # Runner.run, not Loss.construct


def test_a_source_read_alone_finds_the_caller_in_its_own_text():
    source = ("from mindspore import nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x):\n"
              "        return dict(y=x)\n\n\nnet = Net()\nvalue = net(1).get('y')\n")
    (finding,) = check_source(source, "case.py", Settings(syntax_level="strict"), ONLY)
    assert (finding.line, finding.data["consumers"], finding.data["keys"]) == (6, ["case.py:10"], [])


def test_a_caller_importing_relatively_is_found(tmp_path):
    model = "from mindspore import nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x):\n        return {'y': x}\n"
    _write(tmp_path, {"app/__init__.py": "", "app/model.py": model,
                      "app/run.py": "from .model import Net\n\n\ndef main(x):\n    return Net()(x)['y']\n"})
    (finding,) = check_file(str(tmp_path / "app" / "model.py"), Settings(syntax_level="strict"), ONLY)
    assert finding.data["consumers"] == ["app/run.py:5"]


def test_a_function_a_table_hands_out_is_not_taken_for_host_code(tmp_path):
    model = "from mindspore import nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x):\n        return {'y': x}\n"
    loss = "from app.model import Net\n\n\ndef loss(x):\n    net = Net()\n    return net(x)['y']\n"
    _write(tmp_path, {"app/__init__.py": "", "app/model.py": model, "app/loss.py": loss})
    (finding,) = check_file(str(tmp_path / "app" / "model.py"), Settings(syntax_level="strict"), ONLY)
    assert finding.data["consumers"] == ["app/loss.py:6"]
    # Handed out by a table in another module: a construct may call it, where the dict stays in the graph.
    (tmp_path / "app" / "table.py").write_text("from app.loss import loss\n\nLOSSES = {'y': loss}\n")
    assert check_file(str(tmp_path / "app" / "model.py"), Settings(syntax_level="strict"), ONLY) == []


def test_a_source_without_a_file_searches_no_project(tmp_path, monkeypatch):
    """An editor's buffer or standard input has no project around it: no directory is searched for callers, and
    the read in its own text is MS117's."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "caller.py").write_text("from buffer import Net\nNet()(1)['a']\n")
    source = "from mindspore import nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x):\n        return {'a': x}\n"
    assert check_source(source, "buffer.py", Settings(syntax_level="strict")) == []
