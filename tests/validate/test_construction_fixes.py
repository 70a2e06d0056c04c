"""Building a Cell raises at a line with a finding whose fix changes only its statement (MS205: padding without
pad_mode="pad"), usually in another module than the Cell's: the worker builds and compiles again with the fix
applied to that module's source in memory, so the Cell's own findings are decided."""
from __future__ import annotations

import pytest

from ms_lint.validate.verdicts import CONFIRMED, INCONCLUSIVE

from .conftest import finding_at, needs_mindspore, verdicts_by_scope

pytestmark = [pytest.mark.mindspore, needs_mindspore]


@pytest.fixture(scope="module")
def files(projects):
    package = projects / "cells" / "vcells"
    return {name: package / f"{name}.py" for name in ("blocks", "wrapped", "stacked")}


@pytest.fixture(scope="module")
def sources(files):
    return {name: path.read_text() for name, path in files.items()}


@pytest.fixture(scope="module")
def verdicts(files, sources, worker_pool):
    blocks, stacked = files["blocks"], files["stacked"]
    findings = [
        finding_at(blocks, "padding=1)", "MS205", "PaddedBlock"),
        # a padding read from a module constant: a real hazard ms-lint does not read (it takes literals)
        finding_at(blocks, "padding=PADDING", "MS205", "HiddenPadding", reported=False),
        finding_at(blocks, "nn.Conv2d(channels, channels, 3,", "MS205", "SplitCall", occurrence=3),
        finding_at(stacked, "np.sin(", "MS101", "Stack"),
        finding_at(stacked, "np.cos(", "MS101", "Indirect"),
        finding_at(stacked, "padding=1", "MS205", "Local"),
        finding_at(stacked, "transpose(1, 2)", "MS601", "Local"),
        finding_at(stacked, "np.tan(", "MS101", "Local"),
        finding_at(stacked, "np.exp(", "MS101", "Hidden"),
        finding_at(stacked, "np.log(", "MS101", "Split"),
    ]
    return verdicts_by_scope(findings, worker_pool)


def _line(path, text: str) -> int:
    return next(number for number, line in enumerate(path.read_text().splitlines(), start=1) if text in line)


def test_the_finding_that_made_the_build_raise_stays_confirmed(verdicts):
    padding = verdicts[("PaddedBlock", "MS205")]
    assert padding.verdict == CONFIRMED, padding.message
    assert "after applying" not in padding.message
    assert "pad_mode" in padding.message


def test_a_finding_of_a_cell_built_from_another_module_is_decided_after_the_fix(verdicts, files):
    numpy_call = verdicts[("Stack", "MS101")]
    line = _line(files["blocks"], "padding=1)")
    assert numpy_call.verdict == CONFIRMED, numpy_call.message
    assert numpy_call.message.startswith("decided after applying the fix for MS205 at ")
    assert f"blocks.py:{line}: " in numpy_call.message
    assert numpy_call.compiler_location.endswith(f"stacked.py:{numpy_call.finding.line}")


def test_a_module_between_the_fixed_one_and_the_cell_s_is_executed_again(verdicts, files):
    numpy_call = verdicts[("Indirect", "MS101")]
    assert numpy_call.verdict == CONFIRMED, numpy_call.message
    assert f"blocks.py:{_line(files['blocks'], 'padding=1)')}: " in numpy_call.message


def test_a_fix_in_the_cell_s_own_module_combines_with_the_compile_fixes(verdicts):
    padding, transpose = verdicts[("Local", "MS205")], verdicts[("Local", "MS601")]
    tangent = verdicts[("Local", "MS101")]
    assert padding.verdict == CONFIRMED and "after applying" not in padding.message
    assert transpose.verdict == CONFIRMED, transpose.message
    assert transpose.message.startswith(f"decided after applying the fix for MS205 at line {padding.finding.line}:")
    assert tangent.verdict == CONFIRMED, tangent.message
    assert tangent.message.startswith(f"decided after applying the fixes for MS205/MS601 at lines "
                                      f"{padding.finding.line}, {transpose.finding.line}:")


def test_a_construction_error_at_a_finding_without_a_fix_still_comes_first(verdicts, files):
    exponent = verdicts[("Hidden", "MS101")]
    assert exponent.verdict == INCONCLUSIVE
    assert exponent.message.startswith("fix MS205 at ")
    assert f"blocks.py:{_line(files['blocks'], 'padding=PADDING')} first" in exponent.message


def test_a_fix_within_the_call_s_statement_is_applied_on_another_line_of_it(verdicts):
    # The call starts on the line the constructor raises at; pad_mode="pad" goes on its next line.
    logarithm = verdicts[("Split", "MS101")]
    assert logarithm.verdict == CONFIRMED, logarithm.message
    assert logarithm.message.startswith(
        "decided after applying the fix for MS205 at "), logarithm.message
    assert f"blocks.py:{verdicts[('SplitCall', 'MS205')].finding.line}: " in logarithm.message


def test_the_files_on_disk_are_left_as_they_were(verdicts, files, sources):
    for name, path in files.items():
        assert path.read_text() == sources[name]
    assert ', pad_mode="pad")' not in sources["blocks"] + sources["stacked"]


def test_fixed_copies_bind_each_other_and_sys_modules_is_restored(tmp_path, monkeypatch):
    import linecache
    import sys

    from ms_lint.validate import fixing

    package = tmp_path / "fixpkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "low.py").write_text("VALUE = 1\n")
    (package / "middle.py").write_text("from fixpkg.low import VALUE\n\n\ndef value():\n    return VALUE\n")
    (package / "top.py").write_text("from fixpkg.middle import value\n\n\ndef twice():\n    return 2 * value()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import fixpkg.top

    try:
        before = {name: sys.modules[name] for name in ("fixpkg.low", "fixpkg.middle", "fixpkg.top")}
        low_file = sys.modules["fixpkg.low"].__file__
        with fixing.fixed_modules({"fixpkg.low": "VALUE = 5\n"}, fixpkg.top, str(tmp_path)) as copy:
            assert copy.twice() == 10  # the module between them was executed again, bound to the fixed copy
            assert linecache.getline(low_file, 1) == "VALUE = 5\n"
        assert fixpkg.top.twice() == 2
        assert {name: sys.modules[name] for name in before} == before
        assert linecache.getline(low_file, 1) == "VALUE = 1\n"
        assert (package / "low.py").read_text() == "VALUE = 1\n"
    finally:
        for name in [name for name in sys.modules if name.split(".")[0] == "fixpkg"]:
            del sys.modules[name]


def test_a_package_that_imports_the_cells_module_is_not_run_again(tmp_path, monkeypatch):
    # As in a transformers-style package: pkg/__init__.py imports every model, and a model's helper module imports
    # the package. A fix in the Cell's own module re-runs that module alone (running the package again would run
    # every model again), and a fix in the helper re-runs the helper before the Cell's module.
    import importlib
    import sys

    from ms_lint.validate import fixing

    package = tmp_path / "fixpkg"
    package.mkdir()
    (package / "__init__.py").write_text("from fixpkg.model import Net\n")
    (package / "helpers.py").write_text("import fixpkg\n\n\ndef scale():\n    return 2\n")
    (package / "model.py").write_text("from fixpkg.helpers import scale\n\n\nclass Net:\n    factor = scale()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        model = importlib.import_module("fixpkg.model")
        loaded = fixing._project_modules(str(tmp_path), "fixpkg.model")
        assert set(loaded) == {"fixpkg", "fixpkg.helpers", "fixpkg.model"}
        assert fixing._between(loaded, {"fixpkg.model"}, "fixpkg.model") == ["fixpkg.model"]
        order = fixing._between(loaded, {"fixpkg.helpers"}, "fixpkg.model")
        assert order[-1] == "fixpkg.model" and order.index("fixpkg.helpers") < order.index("fixpkg.model")
        assert model.Net.factor == 2
    finally:
        for name in [name for name in sys.modules if name == "fixpkg" or name.startswith("fixpkg.")]:
            del sys.modules[name]


@pytest.fixture(scope="module")
def registered_verdicts(projects, worker_pool):
    registered = projects / "cells" / "vcells" / "registered.py"
    findings = [
        finding_at(registered, "padding=1)", "MS205", "RegisteredBlock"),
        finding_at(registered, "np.sin(", "MS101", "Registered"),
        # made up, to have the Cell built and compiled: the line holds no hazard
        finding_at(registered.with_name("optional_input.py"), "y = input_ids * 2", "MS101", "OptionalInput",
                   reported=False),
    ]
    return verdicts_by_scope(findings, worker_pool)


def test_a_module_that_cannot_run_twice_decides_nothing_after_the_fix(registered_verdicts):
    # Running the fixed copy registers RegisteredBlock again and raises: that error says nothing of the Cell.
    numpy_call = registered_verdicts[("Registered", "MS101")]
    assert numpy_call.verdict == INCONCLUSIVE
    assert "already registered" not in numpy_call.message
    assert any("running the fixed modules raised ValueError" in note for note in numpy_call.notes)


def test_the_lines_a_fixed_compile_reaches_are_read_with_the_inputs_it_passes(registered_verdicts):
    # The compile passes input_ids: the line under `if input_ids is not None` is in the graph, not "not reached".
    guarded = registered_verdicts[("OptionalInput", "MS101")]
    assert guarded.message.startswith("decided after applying the fix for MS205 at "), guarded.message
    assert "not reached" not in guarded.verdict


def test_a_module_first_imported_with_the_fixed_copies_is_forgotten_after(tmp_path, monkeypatch):
    import importlib
    import sys

    from ms_lint.validate import fixing

    package = tmp_path / "lazypkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "base.py").write_text("VALUE = 'original'\n")
    (package / "model.py").write_text("from lazypkg.base import VALUE\n\n\ndef late():\n"
                                      "    import lazypkg.late\n    return lazypkg.late.SEEN\n")
    (package / "late.py").write_text("from lazypkg.base import VALUE as SEEN\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        model = importlib.import_module("lazypkg.model")
        importlib.import_module("lazypkg.base")
        with fixing.fixed_modules({"lazypkg.base": "VALUE = 'fixed'\n"}, model, str(tmp_path)) as copy:
            assert copy.late() == "fixed"
        assert "lazypkg.late" not in sys.modules
        assert sys.modules["lazypkg.base"].VALUE == "original"
    finally:
        for name in [name for name in sys.modules if name == "lazypkg" or name.startswith("lazypkg.")]:
            del sys.modules[name]
