"""``pytest --ms-validate`` (one item per flagged Cell) and the ``ms_compile`` fixture, in inner pytest runs."""
from __future__ import annotations

import textwrap
from importlib.metadata import entry_points

import pytest

from .conftest import needs_mindspore

pytest_plugins = ["pytester"]
pytestmark = [pytest.mark.mindspore, needs_mindspore]

PLUGIN = "ms_lint.validate.pytest_plugin"

MODELS = """\
    import numpy as np
    from mindspore import Tensor, nn, ops


    class HostSine(nn.Cell):
        def construct(self, x):
            return Tensor(np.sin(x))


    class Sized(nn.Cell):
        def __init__(self, spec):
            super().__init__()
            self.dim = spec["dim"]

        def construct(self, x):
            return Tensor(np.exp(x))


    class WindowPool(nn.Cell):
        def construct(self, x):
            return ops.avg_pool1d(x.reshape(1, 1, -1), kernel_size=1, stride=64)
"""


def _plugin_args() -> list[str]:
    installed = any(ep.value == PLUGIN for ep in entry_points(group="pytest11"))
    return ["-p", "no:hypothesispytest", "-p", "no:cacheprovider"] + ([] if installed else ["-p", PLUGIN])


@pytest.fixture
def project(pytester):
    pytester.makefile(".toml", pyproject='[project]\nname = "inner"\nversion = "0"\n')
    package = pytester.mkpydir("inner")
    (package / "models.py").write_text(textwrap.dedent(MODELS))
    return pytester


def test_one_item_per_flagged_cell_failing_when_confirmed(project):
    result = project.runpytest(*_plugin_args(), "--ms-validate", "--ms-validate-jobs", "1", "-rs", "-v",
                               "--ms-validate-level", "strict")
    result.assert_outcomes(failed=1, skipped=1, passed=1)
    result.stdout.fnmatch_lines([
        "*inner/models.py::HostSine FAILED*",
        "*inner/models.py::Sized SKIPPED*",
        "*inner/models.py::WindowPool PASSED*",
    ])
    result.stdout.fnmatch_lines([
        "inner/models.py:7: MS101 confirmed (CPU, strict): ValueError: *should be constant*",
        "*MS101 inconclusive: Sized() needs spec: no example is registered for inner.models:Sized*",
    ])


def test_without_the_option_nothing_is_collected(project):
    result = project.runpytest(*_plugin_args())
    result.assert_outcomes()


COMPILE_TESTS = """\
    import mindspore as ms
    import numpy as np
    import pytest
    from mindspore import Tensor, nn


    class Doubler(nn.Cell):
        def construct(self, x):
            return x * 2


    class HostSine(nn.Cell):
        def construct(self, x):
            return Tensor(np.sin(x))


    def placeholder():
        return ms.Tensor(shape=[-2], dtype=ms.float32)


    def test_a_cell_that_compiles(ms_compile):
        assert ms_compile(Doubler(), placeholder()).ok


    def test_a_cell_that_does_not(ms_compile):
        ms_compile(HostSine(), placeholder())


    def test_the_outcome_without_failing(ms_compile):
        outcome = ms_compile.outcome(HostSine(), placeholder())
        assert not outcome.ok
        assert outcome.error_type == "ValueError" and "should be constant" in outcome.first_line
        assert outcome.locations[0][1:] == (14, 14)


    def test_lax_accepts_it(ms_compile):
        ms_compile(HostSine(), placeholder(), syntax_level="lax")


    def test_the_context_is_restored(ms_compile):
        ms.set_context(mode=ms.PYNATIVE_MODE)
        ms_compile(Doubler(), placeholder())
        assert ms.get_context("mode") == ms.PYNATIVE_MODE
"""


def test_the_ms_compile_fixture(pytester):
    pytester.makepyfile(test_cells=textwrap.dedent(COMPILE_TESTS))
    # MindSpore is imported by these tests: a separate process keeps it out of this one.
    result = pytester.runpytest_subprocess(*_plugin_args())
    result.assert_outcomes(passed=4, failed=1)
    result.stdout.fnmatch_lines([
        "*GraphCompileError: HostSine does not compile under STRICT on CPU: ValueError: *should be constant*"
        "(at */test_cells.py:14)",
    ])
