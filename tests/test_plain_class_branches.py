"""A plain class's method branch that no instance takes (``ms_lint.model.graph.ModuleFacts.never_runs``): the
constant every place that builds the class passes ``__init__`` (``F1(num_labels)`` with the default
``mode="Binary"``) folds ``self.mode`` in its other methods, a method of a constant string folds as Python computes
it (``self.mode.lower() == "binary"``), and the branch it rules out never runs; unknown where a site passes another
mode, where code outside the class may set the attribute, or where the class is a Cell's graph code."""
from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

import ms_lint.target as target_module
from ms_lint.engine import check_file
from ms_lint.model.values import UNKNOWN, string_method_value
from ms_lint.rules import RULES_BY_CODE
from ms_lint.settings import Settings
from ms_lint.target import forget_projects

METRIC = textwrap.dedent("""\
    import mindspore as ms
    import numpy as np


    class F1():
        def __init__(self, num_labels=2, mode="Binary"):
            self.num_labels = num_labels
            self.mode = mode
            if self.mode.lower() not in ("binary", "multilabel"):
                raise ValueError("mode")

        def update(self, labels):
            if self.mode.lower() == "binary":
                return np.sum(labels)
            return np.zeros((len(labels), self.num_labels), dtype=np.int)
""")
MULTILABEL_LINE = 15
RUN = ("import mindspore as ms\nfrom metric import F1\n\n\n"
       "def main(n):\n    callback = F1(n)\n    return callback.update([1, 0])\n\n\nmain(3)\n")


@pytest.fixture(autouse=True)
def numpy_1_26(monkeypatch):
    """numpy 1.26.4, which has no ``np.int``, whatever numpy is installed."""
    monkeypatch.setattr(target_module, "installed_numpy", lambda: "")
    forget_projects()
    yield
    forget_projects()


def reported(tmp_path: Path, run: str = RUN, metric: str = METRIC, settings: Settings | None = None,
             **files: str) -> list[int]:
    root = tmp_path / "app"
    root.mkdir(parents=True, exist_ok=True)
    (root / "requirements.txt").write_text("numpy==1.26.4\nmindspore==2.10.0\n")
    (root / "metric.py").write_text(metric)
    (root / "run.py").write_text(run)
    for name, text in files.items():
        (root / name).write_text(text)
    findings = check_file(str(root / "metric.py"), settings or Settings(version="2.10.0"), RULES_BY_CODE)
    return [f.line for f in findings if f.code == "MS613"]


def test_a_branch_no_instance_takes_never_runs(tmp_path):
    assert reported(tmp_path) == []
    forget_projects()
    assert reported(tmp_path / "unrun", settings=Settings(version="2.10.0", check_unrun=True)) == [MULTILABEL_LINE]


def test_a_site_passing_another_mode_keeps_the_branch(tmp_path):
    run = RUN.replace("F1(n)", "F1(n)\n    other = F1(n, mode='MultiLabel')")
    assert reported(tmp_path, run) == [MULTILABEL_LINE]


def test_a_mode_not_known_keeps_the_branch(tmp_path):
    assert reported(tmp_path, RUN.replace("F1(n)", "F1(n, mode=n)")) == [MULTILABEL_LINE]


@pytest.mark.parametrize("write", [
    "callback.mode = 'MultiLabel'",
    "setattr(callback, 'mode', 'MultiLabel')",
    "setattr(callback, n, 'MultiLabel')",
    "callback.__dict__['mode'] = 'MultiLabel'",
    "vars(callback).update(mode='MultiLabel')",
])
def test_an_attribute_code_outside_the_class_may_set_keeps_the_branch(tmp_path, write):
    assert reported(tmp_path, RUN.replace("    return callback.", f"    {write}\n    return callback.")) == [
        MULTILABEL_LINE]


CONFIG = textwrap.dedent("""\
    class Config:
        def __init__(self, cfg_dict):
            for k, v in cfg_dict.items():
                setattr(self, k, v)
""")


def test_a_configuration_class_setting_its_own_attributes_drops_the_branch(tmp_path):
    """``setattr(self, k, v)`` in another class's method writes that class's instances only, never an ``F1``."""
    assert reported(tmp_path, **{"config.py": CONFIG}) == []


def test_another_class_writing_its_own_attribute_of_that_name_drops_the_branch(tmp_path):
    """``self.mode = "train"`` in a dataset's method sets the dataset's ``mode``, not an ``F1``'s."""
    dataset = "class Dataset:\n    def __init__(self):\n        self.mode = 'train'\n\n    def eval(self):\n" \
              "        self.mode = 'eval'\n"
    assert reported(tmp_path, **{"dataset.py": dataset}) == []


@pytest.mark.parametrize("other", [
    "import metric\n\n\ndef build(name):\n    return metric.__dict__[name]\n",
    "def names(obj):\n    return sorted(vars(obj)['x'])\n",
    "class Config:\n    def __init__(self, cfg):\n        self.__dict__.update(cfg)\n",
    "class Config:\n    def __init__(self, cfg):\n        for k, v in cfg.items():\n"
    "            self.__dict__[k] = v\n",
])
def test_a_namespace_read_or_another_class_s_own_namespace_drops_the_branch(tmp_path, other):
    """Reading a ``__dict__`` writes nothing; writing another class's own ``self.__dict__`` writes no ``F1``."""
    assert reported(tmp_path, **{"other.py": other}) == []


def test_a_namespace_written_elsewhere_keeps_the_branch(tmp_path):
    other = "def load(args, cfg):\n    args.__dict__.update(cfg)\n"
    run = RUN + "import other\nother.load(main(2), {})\n"  # (a module the application runs)
    assert reported(tmp_path, run, **{"other.py": other}) == [MULTILABEL_LINE]


def test_a_base_class_writing_the_attribute_keeps_the_branch(tmp_path):
    metric = METRIC.replace("class F1():", "class Switch:\n    def multilabel(self):\n"
                            "        self.mode = 'MultiLabel'\n\n\nclass F1(Switch):")
    assert reported(tmp_path, metric=metric) == [MULTILABEL_LINE + 5]


@pytest.mark.parametrize("metric, config", [
    (METRIC.replace("class F1():", "from config import Config\n\n\nclass F1(Config):"), CONFIG),
    (METRIC.replace("class F1():", "class Config:\n    def load(self, k, v):\n        setattr(self, k, v)\n\n\n"
                    "class F1(Config):"), ""),
    (METRIC, CONFIG.replace("setattr(self, k, v)", "setattr(other, k, v)").replace(
        "cfg_dict):", "cfg_dict, other):")),
    (METRIC.replace("def update(self, labels):", "def load(self, k, v):\n        setattr(self, k, v)\n\n"
                    "    def update(self, labels):"), ""),
])
def test_a_computed_setattr_that_may_write_the_instance_keeps_the_branch(tmp_path, metric, config):
    """A base class's (here or imported), another object's, or the class's own ``setattr`` may set ``mode``."""
    line = MULTILABEL_LINE + metric.count("\n", 0, metric.index("def update")) - METRIC.count(
        "\n", 0, METRIC.index("def update"))
    assert reported(tmp_path, metric=metric, **({"config.py": config} if config else {})) == [line]


def test_a_write_in_another_file_keeps_the_branch(tmp_path):
    other = "def switch(metric):\n    metric.mode = 'MultiLabel'\n"
    assert reported(tmp_path, **{"other.py": other}) == [MULTILABEL_LINE]


def test_a_method_written_attribute_keeps_the_branch(tmp_path):
    metric = METRIC + "\n    def multilabel(self):\n        self.mode = 'MultiLabel'\n"
    assert reported(tmp_path, metric=metric) == [MULTILABEL_LINE]


def test_a_cell_s_graph_code_folds_no_string_method(tmp_path):
    """In a Cell's ``construct`` MindSpore's parser folds the branch, not Python: ``.lower()`` is not read there."""
    cell = METRIC.replace("import numpy as np\n", "import numpy as np\nimport mindspore.nn as nn\n").replace(
        "class F1():", "class F1(nn.Cell):").replace("self.num_labels = num_labels",
                                                     "super().__init__()\n        self.num_labels = num_labels")
    kinds_line = MULTILABEL_LINE + 2
    assert kinds_line in reported(tmp_path, metric=cell.replace("def update(self, labels)",
                                                                "def construct(self, labels)"))


@pytest.mark.parametrize("text, expected", [
    ('"Binary".lower()', "binary"),
    ('"a_b".startswith(("a", "c"))', True),
    ('" x ".strip()', "x"),
    ('"Binary".lower(1)', UNKNOWN),
    ('"Binary".split()', UNKNOWN),
    ('x.lower()', UNKNOWN),
    ('"a".startswith(x)', UNKNOWN),
    ('"a".startswith(*x)', UNKNOWN),
])
def test_string_methods_fold_as_python_computes_them(text, expected):
    call = ast.parse(text, mode="eval").body
    assert string_method_value(call, lambda expr: ast.literal_eval(expr) if not isinstance(
        expr, (ast.Name, ast.Starred)) else UNKNOWN) == expected


def test_a_cell_s_other_methods_are_not_folded_by_its_attributes(tmp_path):
    """A Cell's attribute that its parent sets from outside (``decoder.head = ...``) is no constant there."""
    metric = METRIC.replace("import numpy as np\n", "import numpy as np\nimport mindspore.nn as nn\n").replace(
        "class F1():", "class F1(nn.Cell):").replace("self.num_labels = num_labels",
                                                     "super().__init__()\n        self.num_labels = num_labels")
    run = RUN.replace("    return callback.", "    callback.mode = 'MultiLabel'\n    return callback.")
    assert reported(tmp_path, run, metric.replace('self.mode.lower() == "binary"', 'self.mode == "Binary"')) == [
        MULTILABEL_LINE + 2]
