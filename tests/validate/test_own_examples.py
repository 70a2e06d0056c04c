"""The project's own examples of a Cell, found by reading (no MindSpore): docstring ``>>>`` blocks, the tests that
build it (directly or through a fixture), its scripts and ``__main__`` blocks; and what planning asks of them."""
from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from ms_lint.validate.own_examples import ProjectFiles, docstring_examples, doctest_code, scan_root
from ms_lint.validate.planning import plan_jobs

from .conftest import PROJECTS


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def test_a_single_line_example_is_one_statement():
    code, first = doctest_code("Scales.\n\n    >>> Scaler(2.0)(ops.ones((2, 3)))\n")
    assert (code, first) == ("Scaler(2.0)(ops.ones((2, 3)))\n", 2)


def test_continuation_lines_imports_and_outputs():
    docstring = textwrap.dedent("""\
        Layers.

        Examples:
            >>> import mindspore as ms
            >>> fc = FullyConnectedNet([4, 10, 6],
            ...                        ops.tanh)
            >>> for size in (1, 2):
            ...     out = fc(ms.ops.ones((size, 4)))
            >>> print(out.shape)
            (2, 6)
            >>> fc.skip_me()  # doctest: +SKIP
    """)
    code, first = doctest_code(docstring)
    assert first == 3
    assert code == ("import mindspore as ms\nfc = FullyConnectedNet([4, 10, 6],\n                       ops.tanh)\n"
                    "for size in (1, 2):\n    out = fc(ms.ops.ones((size, 4)))\nprint(out.shape)\n")
    ast.parse(code)


def test_prose_that_does_not_parse_ends_the_code():
    code, _ = doctest_code(">>> x = 1\n>>> prose: that does not parse\n>>> y = 2\n")
    assert code == "x = 1\n"


def test_the_class_and_construct_docstrings_are_read_and_downloads_are_left_out_with_the_reason(tmp_path):
    path = write(tmp_path / "layers.py", '''\
        class Net:
            """Net.

            >>> net = Net(3)
            """

            def construct(self, x):
                """
                >>> Net(4)(x)
                """


        class Hub:
            """>>> net = Hub.from_pretrained("org/name")"""
    ''')
    tree = ast.parse(path.read_text())
    found, skipped = docstring_examples(tree, str(path), "Net")
    assert [(example.line, example.code) for example in found] == [(4, "net = Net(3)\n"), (9, "Net(4)(x)\n")]
    assert skipped == []
    found, skipped = docstring_examples(tree, str(path), "Hub")
    assert found == []
    assert skipped == [f"the docstring example at {path}:14 downloads (from_pretrained(...)): it cannot run offline"]


def test_tests_building_the_cell_directly_or_through_a_fixture_and_scripts_are_found():
    root = PROJECTS / "own"
    files = ProjectFiles()
    windowed = files.examples(str(root), "Windowed", str(root / "ownpkg" / "layers.py"))
    assert [(example.kind, Path(example.path).name, example.function) for example in windowed] == [
        ("test", "layers_check.py", "test_windowed_keeps_the_shape")]
    pretrained = files.examples(str(root), "Pretrained", str(root / "ownpkg" / "layers.py"))
    assert [(example.kind, Path(example.path).name, example.main) for example in pretrained] == [
        ("script", "layers.py", True)]
    assert files.examples(str(root), "Unbuilt", str(root / "ownpkg" / "layers.py")) == []


def test_a_fixture_in_a_conftest_reaches_the_tests_below_it(tmp_path):
    write(tmp_path / "pyproject.toml", "")
    write(tmp_path / "pkg" / "__init__.py", "")
    write(tmp_path / "pkg" / "nets.py", "class Net:\n    pass\n")
    write(tmp_path / "tests" / "conftest.py", """\
        import pytest
        from pkg.nets import Net

        @pytest.fixture(name="model")
        def make_model():
            return Net()
    """)
    write(tmp_path / "tests" / "unit" / "test_model.py", """\
        def test_runs(model):
            model(1)

        def test_other():
            pass
    """)
    found = ProjectFiles().examples(str(tmp_path), "Net", str(tmp_path / "pkg" / "nets.py"))
    assert [(example.kind, example.function, example.line) for example in found] == [("test", "test_runs", 1)]


def test_an_installed_package_is_searched_in_its_own_folder(tmp_path):
    site = tmp_path / "lib" / "site-packages"
    assert scan_root(str(tmp_path), str(site), "pkg.models.net") == str(site / "pkg")
    assert scan_root(str(tmp_path), str(tmp_path / "src"), "pkg.models.net") == str(tmp_path)


def test_planning_lists_each_unit_s_examples_in_order_and_keys_the_cache_on_them(tmp_path):
    import shutil

    from ms_lint.engine import check_file
    from ms_lint.settings import Settings

    root = tmp_path / "own"
    shutil.copytree(PROJECTS / "own", root)
    findings = check_file(str(root / "ownpkg" / "layers.py"), Settings(syntax_level="strict"))
    jobs = {job.qualname: job for job in plan_jobs(findings).jobs}
    kinds = {name: [example["kind"] for example in job.own_examples] for name, job in jobs.items()}
    assert kinds == {"FullyConnectedNet": ["docstring"], "Scaler": ["docstring"], "Windowed": ["docstring", "test"],
                     "Pretrained": ["skipped", "script"], "Unbuilt": []}
    assert "fc = FullyConnectedNet([4, 10, 6],\n                       ops.tanh)\n" in \
        jobs["FullyConnectedNet"].own_examples[0]["code"]
    # The example's source is part of the unit's key: editing the test re-runs the unit.
    before = jobs["Windowed"].cache_key
    test = root / "tests" / "layers_check.py"
    test.write_text(test.read_text() + "\n# edited\n")
    assert {job.qualname: job for job in plan_jobs(findings).jobs}["Windowed"].cache_key != before
    docstring = root / "ownpkg" / "layers.py"
    assert plan_jobs(findings).jobs[0].cache_key == jobs["FullyConnectedNet"].cache_key
    docstring.write_text(docstring.read_text().replace("[4, 10, 6]", "[4, 12, 6]"))
    changed = check_file(str(docstring), Settings(syntax_level="strict"))
    assert plan_jobs(changed).jobs[0].cache_key != jobs["FullyConnectedNet"].cache_key


def test_a_test_that_builds_the_cell_through_a_class_of_its_module_counts_after_the_direct_ones(tmp_path):
    write(tmp_path / "pyproject.toml", "")
    write(tmp_path / "pkg" / "__init__.py", "")
    nets = write(tmp_path / "pkg" / "nets.py", """\
        class _TrainStep:
            pass

        class Trainer:
            def build(self):
                return _TrainStep()
    """)
    write(tmp_path / "tests" / "test_training.py", """\
        from pkg.nets import Trainer

        def test_trains():
            Trainer().build()
    """)
    found = ProjectFiles().examples(str(tmp_path), "_TrainStep", str(nets))
    assert [(example.kind, example.function) for example in found] == [("test", "test_trains")]
