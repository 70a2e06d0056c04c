"""A library whose modules check their missing dependencies at import (a version compared with a release, an
``is_..._available()`` check from the missing package, a class built on an abstract base and a missing class): the
stand-ins answer as an installed release would, the module imports, and its Cells are compiled; a Cell whose
construction makes such a check stays undecided."""
from __future__ import annotations

import pytest

from ms_lint.validate import standins
from ms_lint.validate.verdicts import CONFIRMED, CONFIRMED_BY_PROBE, INCONCLUSIVE

from .conftest import needs_mindspore, package_verdicts, write_files

CHECKED = '''
import abc

import numpy as np
from mindspore import Tensor, nn

import ms_lint_absent_hub
from ms_lint_absent_hub.utils import is_ms_lint_absent_kit_available

# A mapping registered only from a release on, as a transformers port does with ``transformers.__version__``.
if tuple(int(part) for part in ms_lint_absent_hub.__version__.split(".")[:2]) >= (4, 51):
    MAPPING = {"new": 1}

if is_ms_lint_absent_kit_available():
    import ms_lint_absent_kit

IMAGE = ms_lint_absent_kit.Image  # used unguarded: the project takes the package for granted


class _Compat(abc.ABC):
    pass


class Pipeline(_Compat, ms_lint_absent_hub.PushToHubMixin):
    pass


Pipeline.push_to_hub = Pipeline.push_to_hub  # read on the class at the module's top


class Net(nn.Cell):
    def construct(self, x):
        return Tensor(np.sin(x))


logger = ms_lint_absent_hub.utils.logging.get_logger(__name__)


class Logged(nn.Cell):
    def __init__(self):
        super().__init__()
        logger.warning_once("built")  # the missing package's logger: nothing built or compiled depends on it

    def construct(self, x):
        return Tensor(np.sin(x))


class Versioned(nn.Cell):
    def __init__(self):
        super().__init__()
        self.new = ms_lint_absent_hub.__version__ >= "4"

    def construct(self, x):
        return Tensor(np.sin(x))
'''


@pytest.mark.mindspore
@needs_mindspore
def test_a_module_checking_its_missing_dependencies_imports_and_its_cell_is_decided(checked_verdicts):
    net = checked_verdicts["Net"]
    assert net.verdict == CONFIRMED, (net.message, net.notes)
    assert ("imported with a stand-in for the missing package(s) ms_lint_absent_hub, ms_lint_absent_kit "
            "(a placeholder: nothing of theirs ran)") in net.notes, net.notes
    answered = next(note for note in net.notes if note.startswith("the stand-ins answered"))
    assert f"ms_lint_absent_hub.__version__ as '{standins.STAND_IN_VERSION}'" in answered
    assert "ms_lint_absent_hub.utils.is_ms_lint_absent_kit_available() as True" in answered


@pytest.mark.mindspore
@needs_mindspore
def test_a_cell_that_logs_through_a_missing_package_s_logger_is_decided(checked_verdicts):
    logged = checked_verdicts["Logged"]
    assert logged.verdict == CONFIRMED, (logged.message, logged.notes)


@pytest.mark.mindspore
@needs_mindspore
def test_a_cell_whose_construction_reads_a_stand_in_s_version_stays_undecided(checked_verdicts):
    versioned = checked_verdicts["Versioned"]
    assert versioned.verdict == INCONCLUSIVE, versioned.message
    assert "ms_lint_absent_hub.__version__" in versioned.message, versioned.message


def test_a_stand_in_module_gives_a_version_and_answers_availability_checks():
    finder = standins.install(["ms_lint_absent_versioned"])
    try:
        import ms_lint_absent_versioned
        from ms_lint_absent_versioned.utils import is_torch_available

        assert ms_lint_absent_versioned.__version__ == standins.STAND_IN_VERSION
        assert is_torch_available() is True
        # A call with arguments, or of another name, is a stand-in as before.
        assert isinstance(ms_lint_absent_versioned.utils.is_torch_available(">=", "2.0"), standins.StandIn)
        assert isinstance(ms_lint_absent_versioned.utils.check_available(), standins.StandIn)
        assert standins.answers() == [
            f"ms_lint_absent_versioned.__version__ as '{standins.STAND_IN_VERSION}'",
            "ms_lint_absent_versioned.utils.is_torch_available() as True"]
    finally:
        standins.uninstall(finder)
    assert standins.answers() == []


def test_a_class_on_an_abstract_base_and_a_stand_in_reads_missing_class_attributes_as_stand_ins():
    import abc

    stand_in = standins.StandIn("missing.Mixin")

    class Compat(abc.ABC):
        @abc.abstractmethod
        def predict(self):
            ...

    class Pipeline(Compat, stand_in):
        pass

    assert isinstance(Pipeline.push_to_hub, standins.StandIn)
    with pytest.raises(TypeError):
        Pipeline()  # still abstract: the abstract base keeps its checks

    class Plain(stand_in):
        pass

    assert isinstance(Plain.push_to_hub, standins.StandIn)


SIZES = '''
import numpy as np
from mindspore import Tensor, nn


class Projector(nn.Cell):
    def __init__(self, hidden_size, cross_attention_dim=None, scale=1.0):
        super().__init__()
        self.scale = scale
        self.to_k = nn.CellList([nn.Dense(cross_attention_dim, hidden_size, has_bias=False) for _ in range(2)])

    def construct(self, x):
        return Tensor(np.sin(self.to_k[0](x).asnumpy()))


class Downsample(nn.Cell):
    def __init__(self, channels=None, out_channels=None):
        super().__init__()
        out_channels = out_channels if out_channels else channels
        self.conv = nn.Conv2d(channels, out_channels, 3)

    def construct(self, x):
        return Tensor(np.sin(self.conv(x).asnumpy()))


class Unnamed(nn.Cell):
    def __init__(self, thing=None):
        super().__init__()
        self.dense = nn.Dense(thing, 4)

    def construct(self, x):
        return Tensor(np.sin(self.dense(x).asnumpy()))
'''


@pytest.mark.mindspore
@needs_mindspore
@pytest.mark.parametrize("scope, built", [
    ("Projector", "Projector(hidden_size=32), arguments guessed from their names, with cross_attention_dim=32 "
                  "guessed from the names (left None, the constructor used them as sizes)"),
    ("Downsample", "Downsample() (no arguments), with channels=32, out_channels=32 guessed from the names (left "
                   "None, the constructor used them as sizes)")])
def test_an_optional_size_left_none_is_guessed_and_the_cell_compiled(checked_verdicts, scope, built):
    verdict = checked_verdicts[scope]
    assert verdict.built == built, (verdict.built, verdict.message)
    # The compile stopped at the line (numpy on a tensor in the graph), but with sizes the project never gave.
    assert verdict.verdict == CONFIRMED_BY_PROBE, verdict.message
    assert verdict.message.startswith("AttributeError: In JIT strict mode, cannot get attributes asnumpy"), \
        verdict.message
    assert any(note.startswith("confirmed by probe, not confirmed: the Cell was built with ")
               and "guessed (left None by default, used as sizes)" in note for note in verdict.notes), verdict.notes


@pytest.mark.mindspore
@needs_mindspore
def test_an_optional_size_left_none_whose_name_tells_nothing_stays_undecided(checked_verdicts):
    verdict = checked_verdicts["Unnamed"]
    assert verdict.verdict == INCONCLUSIVE, verdict.message
    assert "'NoneType'" in verdict.message, verdict.message


def test_a_job_starts_with_the_stand_ins_earlier_jobs_of_its_project_needed(tmp_path):
    from types import SimpleNamespace

    from ms_lint.validate.importing import _install_known_stand_ins

    (tmp_path / "ms_lint_own_package").mkdir()
    worker = SimpleNamespace(stand_ins=None)
    job = {"import_root": str(tmp_path), "known_stand_ins": ["ms_lint_absent_known", "numpy", "ms_lint_own_package"]}
    try:
        _install_known_stand_ins(worker, job)
        # An installed package and one of the project's own are never stood in for, whatever the hint says.
        assert worker.stand_ins.missing == ["ms_lint_absent_known"]
        _install_known_stand_ins(worker, job)
        assert worker.stand_ins.missing == ["ms_lint_absent_known"]
        # Only an import that asks for it makes it a stand-in the job's module was imported with (its verdict
        # names it): a module of the project that does not import it was not.
        assert worker.stand_ins.used() == []
        __import__("ms_lint_absent_known.sub")
        assert worker.stand_ins.used() == ["ms_lint_absent_known"]
    finally:
        standins.uninstall(worker.stand_ins)
    nothing = SimpleNamespace(stand_ins=None)
    _install_known_stand_ins(nothing, {"import_root": str(tmp_path)})
    assert nothing.stand_ins is None


@pytest.fixture(scope="module")
def checked_verdicts(tmp_path_factory, worker_pool):
    files = {"checked/__init__.py": "", "checked/models.py": CHECKED, "checked/layers.py": SIZES}
    root = write_files(tmp_path_factory.mktemp("checked"), files)
    return package_verdicts(root / "checked", worker_pool)
