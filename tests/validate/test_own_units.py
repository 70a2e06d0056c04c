"""A library no ``ms_lint_examples.py`` was written for (``projects/own``), validated with real compiles: its Cells
built by its own docstring examples, tests and ``__main__`` block; a module importing packages this machine lacks,
built with stand-ins; and the findings outside any Cell (``@jit_class`` methods, a helper) settled through the
Cells that reach them."""
from __future__ import annotations

import pytest

from ms_lint.validate.runner import ValidateOptions, lint_options_for, validate_paths
from ms_lint.validate.verdicts import CONFIRMED, INCONCLUSIVE, NOT_REACHED

from .conftest import finding_at, needs_mindspore

pytestmark = [pytest.mark.mindspore, needs_mindspore]


@pytest.fixture(scope="module")
def verdicts(projects, worker_pool):
    report = validate_paths([str(projects / "own")], ValidateOptions(use_cache=False, timeout=90),
                            pool=worker_pool, lint_options=lint_options_for("strict"))
    return {(verdict.finding.path.rsplit("/", 1)[-1], verdict.finding.scope): verdict for verdict in report.verdicts}


def test_a_multi_line_docstring_example_with_imports_builds_and_calls_the_cell(verdicts):
    verdict = verdicts[("layers.py", "FullyConnectedNet")]
    assert verdict.verdict == CONFIRMED, verdict.message
    assert verdict.built.startswith("the docstring example at ") and ":10: FullyConnectedNet([4, 10, 6], " in \
        verdict.built, verdict.built
    assert verdict.inputs == [f"x: Tensor(shape=[1, 4], dtype=Float32), from {verdict.built.split(': ')[0]}"]
    assert any(note.startswith("built as the docstring example at ") for note in verdict.notes), verdict.notes


def test_a_single_line_docstring_example_uses_its_module_s_names(verdicts):
    verdict = verdicts[("layers.py", "Scaler")]
    assert verdict.verdict == CONFIRMED, verdict.message
    assert ":35: Scaler(" in verdict.built


def test_a_failing_docstring_example_gives_way_to_a_test_through_its_fixtures(verdicts):
    verdict = verdicts[("layers.py", "Windowed")]
    assert verdict.verdict == CONFIRMED, verdict.message
    assert "the test test_windowed_keeps_the_shape at " in verdict.built and "Windowed(window=4)" in verdict.built
    assert any(":49 could not be used: it needs a package that is not installed (ModuleNotFoundError: No module "
               "named 'ms_lint_absent_plotting')" in note for note in verdict.notes), verdict.notes


def test_a_downloading_docstring_is_left_out_and_the_main_block_builds_the_cell(verdicts):
    verdict = verdicts[("layers.py", "Pretrained")]
    assert verdict.verdict == CONFIRMED, verdict.message
    assert "the __main__ block at " in verdict.built and "Pretrained(width=5)" in verdict.built
    assert any("downloads (from_pretrained(...)): it cannot run offline" in note for note in verdict.notes)


def test_a_cell_no_example_builds_still_asks_for_one(verdicts):
    verdict = verdicts[("layers.py", "Unbuilt")]
    assert verdict.verdict == INCONCLUSIVE
    assert "no example is registered" in verdict.message


def test_missing_packages_get_stand_ins_and_a_cell_that_does_not_use_them_is_decided(verdicts):
    verdict = verdicts[("plotting.py", "Plain")]
    assert verdict.verdict == CONFIRMED, verdict.message
    assert ("imported with a stand-in for the missing package(s) ms_lint_absent_downloader, "
            "ms_lint_absent_tokenizer (a placeholder: nothing of theirs ran)") in verdict.notes


@pytest.mark.parametrize("scope, used", [("Downloading", "ms_lint_absent_downloader.fetch"),
                                         ("Tokenized", "ms_lint_absent_tokenizer.Tokenizer()")])
def test_a_cell_whose_graph_code_or_construction_touches_a_stand_in_stays_undecided(verdicts, scope, used):
    verdict = verdicts[("plotting.py", scope)]
    assert verdict.verdict == INCONCLUSIVE, verdict.message
    assert verdict.message.startswith(f"building or compiling {scope} used the stand-in for the missing package(s) "
                                      f"ms_lint_absent_downloader, ms_lint_absent_tokenizer ("), verdict.message
    assert used in verdict.message


def test_a_jit_class_method_a_cell_of_another_module_reaches_is_confirmed_through_it(verdicts):
    verdict = verdicts[("irreps.py", "Irrep")]
    assert verdict.verdict == CONFIRMED, verdict.message
    assert verdict.target == "ownpkg.mixer:Mixer"
    assert "(compiling Mixer (Mixer.construct (mixer.py) -> Irrep.scale))" in verdict.message


def test_jit_class_methods_no_root_reaches_are_not_reported_so_not_compiled(verdicts):
    # Basis.tabulate only host code calls (Sizer's construct calls size()); no graph code uses Orphan at all
    assert ("irreps.py", "Basis") not in verdicts and ("irreps.py", "Orphan") not in verdicts


def test_made_up_findings_in_jit_class_methods_no_root_reaches_are_not_reached(projects, worker_pool):
    from ms_lint.validate.runner import validate_findings

    irreps = projects / "own" / "ownpkg" / "irreps.py"
    findings = [finding_at(irreps, "np.sin(x)", "MS101", "Basis", reported=False),
                finding_at(irreps, "np.exp(x)", "MS101", "Orphan", reported=False)]
    report = validate_findings(findings, ValidateOptions(use_cache=False, timeout=90, syntax_level="strict"),
                               pool=worker_pool, lint_options=lint_options_for("strict"))
    by_scope = {verdict.finding.scope: verdict for verdict in report.verdicts}
    # Sizer names Basis, so it is compiled with markers: its graph leaves the line out
    assert by_scope["Basis"].verdict == NOT_REACHED, by_scope["Basis"].message
    assert by_scope["Basis"].target == "ownpkg.mixer:Sizer"
    assert by_scope["Basis"].message.startswith("not compiled by Sizer (Sizer names Basis"), by_scope["Basis"].message
    assert "its graph leaves line 28 out" in by_scope["Basis"].message
    assert by_scope["Orphan"].verdict == NOT_REACHED
    assert by_scope["Orphan"].message.startswith("not reached: no graph code in the project calls Orphan.values")


def test_a_helper_two_cells_reach_is_confirmed_through_one_of_them(verdicts):
    verdict = verdicts[("gates.py", "activation")]
    assert verdict.verdict == CONFIRMED, verdict.message
    assert verdict.target in ("ownpkg.gates:Gate", "ownpkg.gates:Mask")


def test_a_base_cell_s_method_only_a_subclass_calls_is_confirmed_through_the_subclass(verdicts):
    verdict = verdicts[("bases.py", "Base")]
    assert verdict.verdict == CONFIRMED, verdict.message
    assert verdict.target == "ownpkg.bases:Smoothed"
    assert "(compiling Smoothed (Smoothed.construct -> Base.smooth))" in verdict.message


def test_a_stand_in_read_as_a_path_at_import_leaves_only_the_cells_that_use_the_path_undecided(tmp_path,
                                                                                               worker_pool):
    # A library that loads its compiled kernels from the path of a package installed nowhere: the stand-in gives
    # a path of its own, so the module imports; a Cell that never reads it is decided, one whose construction
    # loads from it is not.
    package = tmp_path / "kernels"
    package.mkdir()
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'kernels'\n")
    (package / "__init__.py").write_text("")
    (package / "layer.py").write_text(
        "import os\n"
        "import ms_lint_absent_kernel_loader\n"
        "from mindspore import nn\n\n"
        "LIBRARY = os.path.join(ms_lint_absent_kernel_loader.location, 'kernels.so')\n\n\n"
        "class Layer(nn.Cell):\n"
        "    def construct(self, x):\n"
        "        return x.asnumpy()\n\n\n"
        "class Loaded(nn.Cell):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        with open(LIBRARY, 'rb') as handle:\n"
        "            self.kernels = handle.read()\n\n"
        "    def construct(self, x):\n"
        "        return x.asnumpy()\n")
    report = validate_paths([str(package)], ValidateOptions(use_cache=False, timeout=90), pool=worker_pool,
                            lint_options=lint_options_for("strict"))
    verdicts = {verdict.finding.scope: verdict for verdict in report.verdicts}
    assert verdicts["Layer"].verdict == CONFIRMED, verdicts["Layer"].message
    assert ("imported with a stand-in for the missing package(s) ms_lint_absent_kernel_loader (a placeholder: "
            "nothing of theirs ran)") in verdicts["Layer"].notes, verdicts["Layer"].notes
    loaded = verdicts["Loaded"]
    assert loaded.verdict == INCONCLUSIVE, loaded.message
    assert "FileNotFoundError" in loaded.message and "ms_lint_absent_kernel_loader.location" in loaded.message
