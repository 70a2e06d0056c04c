"""User code runs in worker processes: whatever a module does at import or compile time (hang, exit, crash,
fork, flood the output, eat memory, read stdin) is reported for that unit, and the other units go on.

All the hazards run together in one validation (as they would in a real project), so that the workers they
end are replaced in parallel; each test then checks one unit's verdict.
"""
from __future__ import annotations

import pytest

from ms_lint.validate.runner import ValidateOptions, validate_findings
from ms_lint.validate.verdicts import CONFIRMED, INCONCLUSIVE

from .conftest import finding_at, needs_mindspore

pytestmark = [pytest.mark.mindspore, needs_mindspore]

TIMEOUT = 4
OUTPUT_LIMIT_MB = 2
MEMORY_LIMIT_MB = 256

# module -> the text on the line the finding sits on
UNITS = {
    "hang_import": "return x",
    "hang_compile": "return x + slow_constant()",
    "osexit_import": "return x",
    "segfault_import": "return x",
    "sysexit_import": "return x",
    "raise_import": "return x",
    "flood_import": "return x",
    "noisy_import": "np.sin(x)",
    "fork_import": "np.sin(x)",
    "stdin_import": "np.sin(x)",
    "big_allocation": "return x",
    "slow_allocation": "return x",
}


@pytest.fixture(scope="module")
def verdicts(projects, worker_pool):
    hazards = projects / "hazards" / "vhazards"
    # A unit runs for a finding: on `return x` it is made up (no hazard there), only to run the module's Cell.
    findings = [finding_at(hazards / f"{module}.py", text, "MS101", "Net", reported=text.startswith("np."))
                for module, text in UNITS.items()]
    findings.append(finding_at(projects / "cells" / "vcells" / "models.py", "np.sin(x)", "MS101", "HostSine"))
    options = ValidateOptions(use_cache=False, timeout=TIMEOUT, output_limit_mb=OUTPUT_LIMIT_MB,
                              memory_limit_mb=MEMORY_LIMIT_MB)
    report = validate_findings(findings, options, pool=worker_pool)
    assert len(report.verdicts) == len(findings)
    return {verdict.target.split(":")[0].split(".")[-1]: verdict for verdict in report.verdicts}


def test_a_module_that_never_finishes_importing_hits_the_timeout(verdicts):
    verdict = verdicts["hang_import"]
    assert verdict.verdict == INCONCLUSIVE
    assert verdict.message.startswith(f"did not finish within {TIMEOUT} s while importing the module")
    assert "if __name__ == '__main__':" in verdict.message


def test_a_hanging_compile_hits_the_timeout(verdicts):
    verdict = verdicts["hang_compile"]
    assert verdict.verdict == INCONCLUSIVE
    assert verdict.message.startswith(f"did not finish within {TIMEOUT} s while compiling")


def test_os_exit_ends_only_its_own_job(verdicts):
    verdict = verdicts["osexit_import"]
    assert verdict.verdict == INCONCLUSIVE
    assert "the worker process died (exit status 7) while importing the module" in verdict.message
    assert "os._exit()" in verdict.message


def test_a_segfault_ends_only_its_own_job(verdicts):
    verdict = verdicts["segfault_import"]
    assert verdict.verdict == INCONCLUSIVE
    assert "the worker process died (killed by SIGSEGV) while importing the module" in verdict.message


def test_the_other_units_go_on_after_crashes_and_timeouts(verdicts):
    assert verdicts["models"].verdict == CONFIRMED


def test_sys_exit_at_import_is_reported(verdicts):
    verdict = verdicts["sysexit_import"]
    assert verdict.verdict == INCONCLUSIVE
    assert verdict.message == "the code called sys.exit(3) while importing the module"


def test_an_exception_at_import_is_reported_with_its_line(verdicts):
    verdict = verdicts["raise_import"]
    assert verdict.verdict == INCONCLUSIVE
    assert verdict.message.startswith("importing vhazards.raise_import raised KeyError: 'depth' (at ")
    assert verdict.message.endswith("raise_import.py:4)")


def test_output_without_end_is_stopped_at_the_limit(verdicts):
    verdict = verdicts["flood_import"]
    assert verdict.verdict == INCONCLUSIVE
    assert verdict.message.startswith(
        f"printed more than the {OUTPUT_LIMIT_MB} MB output limit while importing the module, so its writes failed"
    )


def test_megabytes_of_output_are_noted_and_the_compile_still_decides(verdicts):
    verdict = verdicts["noisy_import"]
    assert verdict.verdict == CONFIRMED
    assert verdict.notes == ["printed 1.5 MB of output"]


def test_a_fork_at_import_is_reported_and_the_child_ended(verdicts):
    verdict = verdicts["fork_import"]
    assert verdict.verdict == CONFIRMED
    assert verdict.notes == ["forked 1 process(es)", "left 1 child process(es) behind; ms-lint ended them"]


def test_stdin_reads_as_empty(verdicts):
    assert verdicts["stdin_import"].verdict == CONFIRMED


def test_an_allocation_past_the_memory_limit_fails_in_the_job(verdicts):
    verdict = verdicts["big_allocation"]
    assert verdict.verdict == INCONCLUSIVE
    assert verdict.message == (f"ran out of memory while importing the module (memory limit {MEMORY_LIMIT_MB} MB; "
                               "raise it with --memory-limit)")


def test_memory_growing_past_the_limit_ends_the_worker(verdicts):
    verdict = verdicts["slow_allocation"]
    assert verdict.verdict == INCONCLUSIVE
    assert verdict.message.startswith(
        f"used more than the {MEMORY_LIMIT_MB} MB memory limit while importing the module"
    )
