"""``self.training`` in an application that never turns it on: ``Cell.__init__`` leaves it False and only
``set_train()`` (``Model.train`` calls it) or a write turns it on, and the graph parser folds ``if self.training:``
as the constant it holds, so the training branch of a Cell an evaluation-only application runs is never compiled nor
run (measured on 2.10.0 and 2.7.1: ``test_training_is_off_until_set_train_and_graph_mode_folds_it``). The model
folds ``self.training`` to False where ``ModuleFacts.training_stays_off``; elsewhere (an application that trains or
calls ``set_train()``, a library's module, a source without a file) it stays unknown."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ms_lint.engine import check_file, check_source
from ms_lint.settings import Settings
from ms_lint.target import _SETS_TRAINING, forget_projects
from tests.test_training_applications import fresh_projects  # noqa: F401 -- every project read afresh

MODEL = textwrap.dedent("""\
    import mindspore as ms
    from mindspore import nn, ops


    class Head(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(3, 3)

        def construct(self, x):
            if self.training:
                x = x.view(x.size(0), -1)
            return self.dense(x)
""")
SIZE_LINE = 12  # ``x.size(0)``: MS602 (a property in MindSpore)

EVAL = """\
    import mindspore as ms
    from model import Head

    if __name__ == "__main__":
        ms.set_context(mode=ms.GRAPH_MODE)
        net = Head()
        ms.load_param_into_net(net, ms.load_checkpoint("head.ckpt"))
        {switch}
        print(net(ms.ops.ones((2, 3), ms.float32)))
"""
TRAIN = """\
    import mindspore as ms
    from mindspore import nn
    from model import Head

    if __name__ == "__main__":
        net = Head()
        model = ms.Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.01, 0.9))
        model.train(1, dataset)
"""


def application(root: Path, **files: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "requirements.txt").write_text("mindspore\n")
    (root / "model.py").write_text(MODEL)
    for name, text in files.items():
        (root / name).write_text(textwrap.dedent(text))
    return root / "model.py"


def found(path: Path) -> list[tuple[str, int]]:
    return sorted((f.code, f.line) for f in check_file(str(path), Settings.from_values(), ["MS602"]))


@pytest.mark.parametrize("switch", ["pass", "net.set_train(False)", "net.set_train(mode=False)",
                                    "net.training = False"])
def test_an_application_that_never_turns_training_on_never_runs_the_training_branch(tmp_path, switch):
    assert found(application(tmp_path / "app", **{"eval.py": EVAL.format(switch=switch)})) == []


@pytest.mark.parametrize("switch", ["net.set_train()", "net.set_train(True)", "net.set_train(args.train)",
                                    "net.training = True"])
def test_turning_training_on_anywhere_keeps_the_branch(tmp_path, switch):
    assert found(application(tmp_path / "app", **{"eval.py": EVAL.format(switch=switch)})) == [("MS602", SIZE_LINE)]


def test_an_application_that_trains_keeps_the_branch(tmp_path):
    files = {"eval.py": EVAL.format(switch="pass"), "train.py": TRAIN}
    assert found(application(tmp_path / "app", **files)) == [("MS602", SIZE_LINE)]


def test_a_cell_that_writes_its_own_training_flag_keeps_the_branch(tmp_path):
    model = application(tmp_path / "app", **{"eval.py": EVAL.format(switch="pass")})
    model.write_text(MODEL.replace("self.dense = nn.Dense(3, 3)",
                                   "self.dense = nn.Dense(3, 3)\n        self.training = True"))
    assert found(model) == [("MS602", SIZE_LINE + 1)]


def test_a_library_module_and_a_source_without_a_file_keep_the_branch(tmp_path):
    root = tmp_path / "lib"
    (root / "lib").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "lib"\nversion = "0.1.0"\n')
    (root / "lib" / "__init__.py").write_text("")
    (root / "lib" / "model.py").write_text(MODEL)
    assert found(root / "lib" / "model.py") == [("MS602", SIZE_LINE)]
    assert [(f.code, f.line) for f in check_source(MODEL, "<stdin>", Settings.from_values(), ["MS602"])] == [
        ("MS602", SIZE_LINE)]


@pytest.mark.parametrize("text, turns_on", [
    ("net.set_train()", True), ("net.set_train(True)", True), ("net.set_train(flag)", True),
    ("net.training = flag", True), ("net.set_train(False)", False), ("net.set_train( mode=False )", False),
    ("net.training = False", False), ("if net.training == 1:", False), ("print(net.training)", False)])
def test_what_turns_training_on(text, turns_on):
    assert (_SETS_TRAINING.search(text) is not None) is turns_on


_PROBE = r'''
import json, numpy as np, mindspore as ms
from mindspore import nn

class Net(nn.Cell):
    def construct(self, x):
        if self.training:
            return x.size(0)  # Tensor.size is a property: calling it fails
        return x * 2

x = ms.Tensor(np.ones((2, 3), np.float32))
found = {}
for mode in ("GRAPH_MODE", "PYNATIVE_MODE"):
    for level in ("STRICT", "LAX"):
        ms.set_context(mode=getattr(ms, mode), jit_syntax_level=getattr(ms, level))
        for switch in ("none", "off", "on"):
            net = Net()
            if switch != "none":
                net.set_train(switch == "on")
            try:
                net(x)
                outcome = "ok"
            except Exception as exc:
                outcome = type(exc).__name__
            found[f"{mode} {level} {switch}"] = [net.training, outcome]
print("@@" + json.dumps(found))
'''


@pytest.mark.mindspore
def test_training_is_off_until_set_train_and_graph_mode_folds_it(tmp_path):
    probe = tmp_path / "probe.py"  # (the graph parser reads the Cell's source from its file)
    probe.write_text(_PROBE)
    run = subprocess.run([sys.executable, str(probe)], capture_output=True, text=True, timeout=600)
    found = json.loads(run.stdout.split("@@")[-1])
    for mode, failure in (("GRAPH_MODE", "ValueError"), ("PYNATIVE_MODE", "TypeError")):
        for level in ("STRICT", "LAX"):
            assert found[f"{mode} {level} none"] == [False, "ok"]  # the branch is neither compiled nor run
            assert found[f"{mode} {level} off"] == [False, "ok"]
            assert found[f"{mode} {level} on"] == [True, failure]


def test_the_result_cache_checks_a_module_again_once_the_application_turns_training_on(tmp_path):
    from ms_lint.config import LintOptions

    model = application(tmp_path / "app", **{"eval.py": EVAL.format(switch="pass")})
    options = LintOptions()
    before = options.fingerprint_for(str(model))
    assert ";training=False;" in before
    forget_projects()
    (tmp_path / "app" / "tools.py").write_text("def prepare(net):\n    return net.set_train()\n")
    assert ";training=True;" in options.fingerprint_for(str(model))


# A head only the training branch calls: its construct never runs where training stays off.
AUXILIARY = textwrap.dedent("""\
    from mindspore import nn, ops


    class Auxiliary(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(3, 3)

        def construct(self, x):
            y = ops.ones((2, 3)) + x
            return self.dense(y.view(y.size(0), -1))


    class Head(nn.Cell):
        def __init__(self, auxiliary=True):
            super().__init__()
            self.dense = nn.Dense(3, 3)
            if auxiliary:
                self.auxiliary = Auxiliary()

        def construct(self, x):
            if self.training:
                return self.dense(x), self.auxiliary(x)
            return self.dense(x)
""")
AUXILIARY_SIZE_LINE = 11


def with_auxiliary(root: Path, text: str = AUXILIARY, **files: str) -> Path:
    model = application(root, **{"eval.py": EVAL.format(switch="pass"), **files})
    model.write_text(text)
    return model


def test_a_sub_cell_only_the_training_branch_calls_never_runs(tmp_path):
    assert found(with_auxiliary(tmp_path / "app")) == []


@pytest.mark.parametrize("change", [
    {"eval.py": EVAL.format(switch="net.set_train()")},  # training turned on
    {"probe.py": "from model import Auxiliary\n"},  # another file names the sub-cell
    {"model.py": AUXILIARY.replace("return self.dense(x)\n", "return self.dense(self.auxiliary(x))\n")},
    {"model.py": AUXILIARY + "\n\nclass Wider(Auxiliary):\n    pass\n"},  # a class derives from it
])
def test_a_sub_cell_that_may_run_keeps_its_findings(tmp_path, change):
    model = with_auxiliary(tmp_path / "app", change.pop("model.py", AUXILIARY), **change)
    assert found(model) == [("MS602", AUXILIARY_SIZE_LINE)]
