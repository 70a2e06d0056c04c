"""Findings on lines that importing their module runs (a module-level import, a decorator, a module-level call),
of hazards that raise wherever the line runs: decided by importing the module in the worker, with real imports of
the installed MindSpore and no examples file."""
from __future__ import annotations

import ast
import dataclasses
import textwrap

import pytest

from ms_lint.model.syntax import runs_at_import
from ms_lint.validate.planning import plan_jobs
from ms_lint.validate.runner import ValidateOptions, lint_options_for, static_findings, validate_paths
from ms_lint.validate.verdicts import CONFIRMED, INCONCLUSIVE

from .conftest import needs_mindspore, write_files

FILES = {
    "pyproject.toml": "[project]\nname = 'legacy'\nversion = '0'\n",
    "legacy/__init__.py": "",
    # Written for an older MindSpore: a private module and a decorator it had, at the module's top.
    "legacy/ops.py": """
        import mindspore
        from mindspore import nn
        from mindspore.ops._grad.grad_base import bprop_getters


        @mindspore.ms_function
        def first(x):
            return x


        @mindspore.ms_function
        def second(x):
            return x


        class Net(nn.Cell):
            def construct(self, x):
                return first(x)
        """,
    # The same private module, only where an environment variable nobody sets asks for it: importing skips it.
    "legacy/optional.py": """
        import os

        if os.environ.get("MS_LINT_TEST_NEVER_SET"):
            from mindspore.ops._grad.grad_base import bprop_getters
        """,
    # A keyword the installed ops.ones does not take, in a module-level call: importing raises there.
    "legacy/constants.py": """
        import mindspore
        from mindspore import ops

        ONES = ops.ones((2,), type=mindspore.float32)
        """,
    # A script outside any package: importing it would run it, so it gets no import of its own.
    "run.py": """
        from mindspore.ops._grad.grad_base import bprop_getters
        """,
    # Host code in a function: importing runs none of it, so it gets no import of its own.
    "legacy/host.py": """
        import mindspore


        def wrap(function):
            return mindspore.ms_function(function)
        """,
}


@pytest.fixture(scope="module")
def legacy(tmp_path_factory):
    return write_files(tmp_path_factory.mktemp("legacy"), FILES)


@pytest.fixture(scope="module")
def verdicts(legacy, worker_pool):
    report = validate_paths([str(legacy / "legacy")], ValidateOptions(use_cache=False, timeout=90),
                            pool=worker_pool, lint_options=each_line(lint_options_for("lax")))
    return {(verdict.finding.path.split("/")[-1], verdict.finding.line): verdict for verdict in report.verdicts}


def each_line(options):
    """``options`` reporting each line of a cause: these tests judge a module's import line by line."""
    return dataclasses.replace(options, settings=dataclasses.replace(options.settings, each_line=True))


def test_which_lines_importing_a_module_runs():
    tree = ast.parse(textwrap.dedent("""
        import a
        @dec(1)
        def f(x=g()):
            return 1
        class C:
            y = h()
            def m(self):
                pass
        z = lambda: q()
        if X:
            w = 2
        """))
    ran = {line for line in range(1, 14) if runs_at_import(tree, line)}
    # The decorator, the default, the class body and the branch run; function and lambda bodies do not.
    assert ran == {2, 3, 4, 6, 7, 8, 11, 12}


def test_only_lines_importing_runs_get_a_module_job(legacy):
    findings, _, _ = static_findings([str(legacy / "legacy"), str(legacy / "run.py")],
                                     each_line(lint_options_for("lax")))
    plan = plan_jobs(findings, syntax_level="lax")
    module_jobs = {job.path.split("/")[-1]: sorted(f.line for f in job.findings)
                   for job in plan.jobs if job.module_only}
    assert module_jobs == {"ops.py": [3, 6, 11], "optional.py": [4], "constants.py": [4]}
    assert [(f.path.split("/")[-1], f.line) for f in plan.module_level] == [("run.py", 1)]
    # A finding in a function body is judged through its function, as before.
    host = next(f for f in findings if f.path.endswith("host.py"))
    assert host.scope == "wrap" and host not in plan.module_level


@needs_mindspore
@pytest.mark.mindspore
def test_a_module_level_import_this_mindspore_lacks_is_confirmed_where_it_raised(verdicts):
    verdict = verdicts[("ops.py", 3)]
    assert verdict.verdict == CONFIRMED, verdict.message
    assert verdict.message.startswith("ModuleNotFoundError: No module named 'mindspore.ops._grad' (raised at this "
                                      "line while importing legacy.ops"), verdict.message


@needs_mindspore
@pytest.mark.mindspore
def test_a_decorator_after_the_first_that_failed_ran_against_the_stand_in(verdicts):
    first, second = verdicts[("ops.py", 6)], verdicts[("ops.py", 11)]
    assert first.verdict == CONFIRMED and "has no attribute 'ms_function'" in first.message, first.message
    # The first failure gave mindspore.ms_function a stand-in: the second line ran against it, reading a name
    # this MindSpore lacks, which is no reason to call it harmless.
    assert second.verdict == CONFIRMED, second.message
    assert "ran this line, which reads mindspore.ms_function" in second.message
    assert "ops.py:6" in second.message


@needs_mindspore
@pytest.mark.mindspore
def test_a_line_a_branch_skips_at_import_stays_undecided(verdicts):
    verdict = verdicts[("optional.py", 4)]
    assert verdict.verdict == INCONCLUSIVE, verdict.message
    assert "did not run this line" in verdict.message


@needs_mindspore
@pytest.mark.mindspore
def test_an_import_that_raises_at_the_line_confirms_it(verdicts):
    verdict = verdicts[("constants.py", 4)]
    assert verdict.verdict == CONFIRMED, verdict.message
    assert verdict.message.startswith("TypeError"), verdict.message


@needs_mindspore
@pytest.mark.mindspore
def test_host_code_importing_does_not_run_is_not_decided_by_the_import(verdicts):
    verdict = verdicts[("host.py", 5)]
    assert "importing legacy.host" not in verdict.message, verdict.message
