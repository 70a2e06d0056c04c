"""MS613: the numpy the code runs with (installed, the project's requirement, MindSpore's own) and the names it lacks;
what the rule claims about the installed numpy, measured on it."""
from __future__ import annotations

import textwrap

import numpy
import pytest

from ms_lint import target as target_module
from ms_lint.engine import check_file
from ms_lint.rules import RULES_BY_CODE
from ms_lint.rules.ms613_removed_numpy_name import REMOVED, _gone
from ms_lint.settings import Settings
from ms_lint.target import forget_projects, installed_mindspore, numpy_version

MODEL = textwrap.dedent("""
    import numpy as np
    from mindspore import Tensor, nn


    class Sampler(nn.Cell):
        def __init__(self, num):
            super().__init__()
            self.keep = Tensor(np.ones(num, dtype=np.bool))
            self.first = np.asscalar(np.arange(num)[:1])
            self.index = Tensor(np.arange(num).astype(np.int))

        def construct(self, x):
            return x
""")


@pytest.fixture
def without_numpy(monkeypatch):
    """As where numpy is not installed (a pre-commit environment): the requirements decide."""
    monkeypatch.setattr(target_module, "installed_numpy", lambda: "")
    forget_projects()
    yield
    forget_projects()


def reported(tmp_path, requirements: str | None, version: str = "2.10.0") -> list[tuple[int, str]]:
    (tmp_path / "setup.py").write_text("from setuptools import setup\nsetup(name='app')\n")
    if requirements is not None:
        (tmp_path / "requirements.txt").write_text(requirements)
    (tmp_path / "model.py").write_text(MODEL)
    findings = check_file(str(tmp_path / "model.py"), Settings(version=version), RULES_BY_CODE)
    return [(f.line, f.message.split(":")[0]) for f in findings if f.code == "MS613"]


@pytest.mark.parametrize("requirements, mindspore, expected", [
    ("numpy==1.21.5\nmindspore\n", "2.7.1", ("1.21.5", "the newest numpy==1.21.5 allows (requirements.txt)")),
    ("numpy<1.24\n", "2.7.1", ("1.23.5", "the newest numpy<1.24 allows (requirements.txt)")),
    ("numpy>=1.17\n", "2.7.1", ("1.26.4", "the newest numpy>=1.17 allows (requirements.txt)")),
    ("numpy\nmindspore==2.7.1\n", "2.7.1", ("1.26.4", "the newest MindSpore 2.7.1 allows")),
    (None, "2.10.0", ("1.26.4", "the newest MindSpore 2.10.0 allows")),
])
def test_the_numpy_is_the_newest_the_requirement_allows(tmp_path, without_numpy, requirements, mindspore, expected):
    if requirements is not None:
        (tmp_path / "requirements.txt").write_text(requirements)
    assert numpy_version(str(tmp_path), mindspore) == expected


def test_the_installed_numpy_comes_first_where_the_project_allows_it(tmp_path):
    (tmp_path / "requirements.txt").write_text("numpy>=1.20\n")
    assert numpy_version(str(tmp_path), "2.7.1") == (numpy.__version__, "installed")


def test_a_numpy_requirement_that_excludes_the_installed_numpy_speaks_for_the_project(tmp_path):
    forget_projects()
    (tmp_path / "requirements.txt").write_text("numpy==1.21.5\n")
    assert numpy.__version__ != "1.21.5"
    assert numpy_version(str(tmp_path), "2.7.1") == ("1.21.5", "the newest numpy==1.21.5 allows (requirements.txt)")
    forget_projects()


def test_beside_another_mindspore_than_the_project_s_the_installed_numpy_does_not_answer(tmp_path):
    # a project pinning MindSpore 2.5.0 runs in another environment than ms-lint's (MindSpore 2.10.0): the numpy
    # MindSpore 2.5.0 itself allows answers, not the installed one
    forget_projects()
    (tmp_path / "requirements.txt").write_text("mindspore==2.5.0\n")
    assert installed_mindspore() not in ("", "2.5.0")
    assert numpy_version(str(tmp_path), "2.5.0") == ("1.26.4", "the newest MindSpore 2.5.0 allows")
    (tmp_path / "requirements.txt").write_text("mindspore==2.5.0\nnumpy<1.24\n")
    forget_projects()
    assert numpy_version(str(tmp_path), "2.5.0") == ("1.23.5", "the newest numpy<1.24 allows (requirements.txt)")
    forget_projects()


def test_without_an_installed_mindspore_the_installed_numpy_is_not_the_project_s(tmp_path, monkeypatch):
    # numpy 2 beside no MindSpore: not the environment MindSpore code runs in; MindSpore's own requirement answers
    monkeypatch.setattr(target_module, "installed_mindspore", lambda: "")
    monkeypatch.setattr(target_module, "installed_numpy", lambda: "2.0.0")
    forget_projects()
    try:
        assert numpy_version(str(tmp_path), "2.7.1") == ("1.26.4", "the newest MindSpore 2.7.1 allows")
    finally:
        forget_projects()


def test_a_numpy_pinned_before_the_removals_has_every_name(tmp_path, without_numpy):
    assert reported(tmp_path, "numpy==1.21.5\n", "2.7.1") == []


def test_a_numpy_below_1_24_lacks_asscalar_alone(tmp_path, without_numpy):
    assert reported(tmp_path, "numpy<1.24\n", "2.7.1") == [(10, "np.asscalar")]


def test_with_no_requirement_mindspore_s_numpy_lacks_them_all(tmp_path, without_numpy):
    assert reported(tmp_path, None) == [(9, "np.bool"), (10, "np.asscalar"), (11, "np.int")]


def test_numpy_2_defines_bool_again(tmp_path, monkeypatch):
    monkeypatch.setattr(target_module, "installed_numpy", lambda: "2.0.0")
    forget_projects()
    try:
        assert reported(tmp_path, None) == [(10, "np.asscalar"), (11, "np.int")]
    finally:
        forget_projects()


def test_the_message_names_the_numpy_and_the_replacement(tmp_path, without_numpy):
    (tmp_path / "model.py").write_text(MODEL)
    findings = [f for f in check_file(str(tmp_path / "model.py"), Settings(version="2.10.0"), RULES_BY_CODE)
                if f.code == "MS613"]
    assert findings[0].message == (
        "np.bool: numpy has no `bool` since 1.24 (the code runs with numpy 1.26.4, the newest MindSpore 2.10.0 "
        "allows): AttributeError when the line runs; use `bool`, which it was an alias of")
    assert (findings[0].line, findings[0].col) == (9, 46)
    assert findings[1].message.endswith("AttributeError when the line runs; use `a.item()`")


def test_names_read_elsewhere_or_guarded_are_not_reported(tmp_path):
    source = textwrap.dedent("""
        import numpy as np


        class Flags:
            bool = "flag"
            int = np.int32


        def cast(config, array):
            kind = config.bool or Flags.int
            if hasattr(np, "asscalar"):
                return np.asscalar(array)
            try:
                return np.float(array)
            except AttributeError:
                return np.float64(array).astype(np.bool_)
    """)
    (tmp_path / "host.py").write_text(source)
    findings = check_file(str(tmp_path / "host.py"), Settings(), RULES_BY_CODE)
    assert [f for f in findings if f.code == "MS613"] == []


def test_what_the_rule_says_the_installed_numpy_lacks_it_lacks():
    gone = _gone(numpy.__version__)
    for name in REMOVED:
        assert hasattr(numpy, name) is (name not in gone), name


def test_a_cell_built_with_a_removed_alias_fails_to_construct():
    import mindspore

    source = textwrap.dedent("""
        import numpy as np
        from mindspore import Tensor, nn


        class Sampler(nn.Cell):
            def __init__(self):
                super().__init__()
                self.keep = Tensor(np.ones(3, dtype=np.bool))
    """)
    namespace = {}
    exec(compile(source, "sampler.py", "exec"), namespace)
    assert mindspore.__version__
    with pytest.raises(AttributeError, match="has no attribute 'bool'"):
        namespace["Sampler"]()
