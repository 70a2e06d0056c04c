"""A compile that stops at a line with a finding whose rule has a fix keeping the line numbers (MS601's
swapaxes): the worker compiles again with the fix applied to the module's source in memory, and the findings
further on are decided from that compile."""
from __future__ import annotations

import pytest

from ms_lint.validate.verdicts import CONFIRMED, INCONCLUSIVE

from .conftest import finding_at, needs_mindspore, verdicts_by_scope

pytestmark = [pytest.mark.mindspore, needs_mindspore]


@pytest.fixture(scope="module")
def fixable(projects):
    return projects / "cells" / "vcells" / "fixable.py"


@pytest.fixture(scope="module")
def verdicts(fixable, worker_pool):
    findings = [
        finding_at(fixable, "transpose(1, 2)", "MS601", "Heads"),
        finding_at(fixable, "np.sin(", "MS101", "Heads"),
        finding_at(fixable, "transpose(1, 2)", "MS601", "Twice", occurrence=2),
        finding_at(fixable, "transpose(0, 1)", "MS601", "Twice"),
        finding_at(fixable, "np.cos(", "MS101", "Twice"),
        finding_at(fixable, ".asnumpy()", "MS102", "Unfixable"),
        finding_at(fixable, "np.tan(", "MS101", "Unfixable"),
        finding_at(fixable, "transpose(1, 2)", "MS601", "FixedThenStopped", occurrence=3),
        finding_at(fixable, ".asnumpy()", "MS102", "FixedThenStopped", occurrence=2),
        finding_at(fixable, "np.exp(", "MS101", "FixedThenStopped"),
        finding_at(fixable, "x + shift", "MS116", "BoundOnOneBranch"),
        finding_at(fixable, "np.sin(x)", "MS101", "BoundOnOneBranch", occurrence=2),
        finding_at(fixable, "np.tanh(", "MS101", "CallsShiftedInside"),
        finding_at(fixable, "low = low * 2", "MS116", "TwoAfterLoop"),
        finding_at(fixable, "high = high * 3", "MS116", "TwoAfterLoop"),
        finding_at(fixable, "Scores(value=x * 2)", "MS103", "OutputThenSize"),
        finding_at(fixable, "scores.value.sum(0).size(0)", "MS602", "OutputThenSize"),
    ]
    return verdicts_by_scope(findings, worker_pool, with_line=True)


def _one(verdicts, scope, code, nth=0):
    return sorted((key, verdict) for key, verdict in verdicts.items() if key[:2] == (scope, code))[nth][1]


def test_the_finding_that_stopped_the_compile_stays_confirmed(verdicts):
    transpose = _one(verdicts, "Heads", "MS601")
    assert transpose.verdict == CONFIRMED
    assert "after applying" not in transpose.message
    assert "the number of axes must be equal" in transpose.message


def test_a_finding_behind_a_fixable_one_is_decided_after_the_fix(verdicts):
    numpy_call = _one(verdicts, "Heads", "MS101")
    line = _one(verdicts, "Heads", "MS601").finding.line
    assert numpy_call.verdict == CONFIRMED, numpy_call.message
    assert numpy_call.message.startswith(f"decided after applying the fix for MS601 at line {line}: ValueError")
    assert numpy_call.compiler_location.endswith(f":{numpy_call.finding.line}")


def test_fixes_are_applied_one_line_after_another(verdicts):
    first, second = _one(verdicts, "Twice", "MS601"), _one(verdicts, "Twice", "MS601", 1)
    cosine = _one(verdicts, "Twice", "MS101")
    assert first.verdict == CONFIRMED and "after applying" not in first.message
    assert second.verdict == CONFIRMED
    assert second.message.startswith(f"decided after applying the fix for MS601 at line {first.finding.line}:")
    assert cosine.verdict == CONFIRMED
    assert cosine.message.startswith(f"decided after applying the fixes for MS601 at lines {first.finding.line}, "
                                     f"{second.finding.line}:")


def test_an_earlier_finding_without_a_fix_still_stops_the_compile(verdicts):
    tangent = _one(verdicts, "Unfixable", "MS101")
    assert _one(verdicts, "Unfixable", "MS102").verdict == CONFIRMED
    assert tangent.verdict == INCONCLUSIVE
    assert "after applying" not in tangent.message


def test_a_finding_still_undecided_after_a_fix_names_what_stops_the_fixed_compile(verdicts):
    transpose, copy = _one(verdicts, "FixedThenStopped", "MS601"), _one(verdicts, "FixedThenStopped", "MS102")
    host_call = _one(verdicts, "FixedThenStopped", "MS101")
    assert copy.verdict == CONFIRMED, copy.message
    assert copy.message.startswith(f"decided after applying the fix for MS601 at line {transpose.finding.line}:")
    assert host_call.verdict == INCONCLUSIVE
    assert host_call.message.startswith(
        f"after applying the fix for MS601 at line {transpose.finding.line}: compilation stopped earlier, at line "
        f"{copy.finding.line} (MS102)"), host_call.message


def test_a_name_bound_on_one_branch_is_bound_before_the_if_on_the_line_above(verdicts):
    unbound, host_call = _one(verdicts, "BoundOnOneBranch", "MS116"), _one(verdicts, "BoundOnOneBranch", "MS101")
    assert unbound.verdict == CONFIRMED and "not defined in false branch" in unbound.message, unbound.message
    assert host_call.verdict == CONFIRMED, host_call.message
    assert host_call.message.startswith(f"decided after applying the fix for MS116 at line {unbound.finding.line}:")


def test_a_name_unbound_in_a_sub_cell_is_fixed_where_the_finding_on_that_name_is(verdicts, fixable):
    host_call = _one(verdicts, "CallsShiftedInside", "MS101")
    read = next(number for number, text in enumerate(fixable.read_text().splitlines(), start=1)
                if "x + offset" in text)
    assert host_call.verdict == CONFIRMED, host_call.message
    assert host_call.message.startswith(f"decided after applying the fix for MS116 at line {read}:")


def test_the_file_on_disk_is_left_as_it_was(fixable):
    assert fixable.read_text().count(".transpose(1, 2)") == 3
    assert ".swapaxes" not in fixable.read_text()


def test_a_fix_within_a_call_written_over_several_lines_is_applied():
    from ms_lint.validate.fixing import fix_at_line

    source = ("from mindspore import nn\n\n\nclass Net(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
              "        self.proj = nn.Conv1d(\n            8, 8, 3,\n            groups=2)\n"
              "        self.norm = nn.LayerNorm((8,), eps=1e-6)\n")
    fixed, codes = fix_at_line(source, "net.py", 7, "strict")
    assert codes == ["MS604"]
    assert fixed.splitlines()[8] == "            group=2)"
    assert fixed.splitlines()[9] == "        self.norm = nn.LayerNorm((8,), eps=1e-6)"  # another statement: left
    assert len(fixed.splitlines()) == len(source.splitlines())


def test_a_fix_is_applied_only_when_it_changes_that_line_alone():
    from ms_lint.validate.fixing import fix_at_line

    source = ("from mindspore import nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x):\n"
              "        y = x.transpose(1, 2)\n        return y.transpose(0, 2)\n")
    fixed, codes = fix_at_line(source, "net.py", 6, "strict")
    assert codes == ["MS601"]
    assert fixed.splitlines()[5] == "        y = x.swapaxes(1, 2)"
    assert fixed.splitlines()[6] == "        return y.transpose(0, 2)"
    assert fix_at_line(source, "net.py", 5, "strict") is None


def test_a_fix_that_adds_an_import_is_not_applied():
    from ms_lint.validate.fixing import fix_at_line
    from ms_lint.fixes import fix_source
    from ms_lint.settings import Settings

    source = ("from mindspore import nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x):\n"
              "        return x.detach() * 2\n")
    # ms-lint check --fix rewrites it, with an import that moves every line below it ...
    assert fix_source(source, "net.py", Settings(syntax_level="strict")).fixed.count("\n") == source.count("\n") + 1
    # ... so the validator, which needs the line numbers unchanged, leaves it.
    assert fix_at_line(source, "net.py", 6, "strict") is None


def test_a_line_a_fix_inserts_takes_the_blank_line_or_follows_the_statement_above():
    from ms_lint.validate.fixing import fix_at_line

    source = ("from mindspore import nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x, y=None):\n"
              "        z = x  # kept\n        if y is not None:\n            a = y\n\n        for i in range(2):\n"
              "            b = x\n        # unrolled\n        for j in range(2):\n            c = x\n"
              "        return a + b + c\n")
    fixed, codes = fix_at_line(source, "net.py", 15, "strict")
    assert codes == ["MS116"]
    lines = fixed.splitlines()
    assert len(lines) == len(source.splitlines())
    assert lines[5] == "        z = x; a = None  # kept"
    assert lines[8] == "        b = None"
    assert lines[11] == "        c = None  # unrolled"
    unchanged = [number for number in range(len(lines)) if number not in (5, 8, 11)]
    assert [lines[n] for n in unchanged] == [source.splitlines()[n] for n in unchanged]


def test_a_line_a_fix_inserts_below_a_block_header_is_not_applied():
    from ms_lint.validate.fixing import fix_at_line

    source = ("from mindspore import nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x, y=None):\n"
              "        if y is not None:\n            a = y\n        return a\n")
    # ``a = None`` belongs above the ``if``, right under the ``def`` line: no line there can take it.
    assert fix_at_line(source, "net.py", 8, "strict") is None


def test_extra_compiles_stop_before_the_job_s_time_limit():
    from ms_lint.validate.jobs import JobState

    state = JobState({"timeout": 10})
    assert state.time_left_for(7)
    assert not state.time_left_for(9)  # past 80% of the timeout: the job keeps the answer it has
    assert JobState({}).time_left_for(1e9)


@pytest.mark.mindspore
@needs_mindspore
def test_an_error_naming_one_unbound_name_is_not_another_s(verdicts, fixable):
    low, high = _one(verdicts, "TwoAfterLoop", "MS116"), _one(verdicts, "TwoAfterLoop", "MS116", 1)
    assert low.verdict == CONFIRMED and "'low'" in low.message, low.message
    # The first compile names `low` only, its location the whole of construct: `high` is decided once `low` is fixed.
    assert high.verdict == CONFIRMED, high.message
    assert high.message.startswith(f"decided after applying the fix for MS116 at line {low.finding.line}: "), \
        high.message
    assert "'high'" in high.message


@pytest.mark.mindspore
@needs_mindspore
def test_past_a_line_that_fails_under_strict_only_the_compile_goes_on_under_lax(verdicts):
    output, size = _one(verdicts, "OutputThenSize", "MS103"), _one(verdicts, "OutputThenSize", "MS602")
    assert output.verdict == CONFIRMED and "inputs should be constant" in output.message, output.message
    assert size.verdict == CONFIRMED, size.message
    assert size.message.startswith(f"decided under LAX past line {output.finding.line} (MS103, which fails under "
                                   f"STRICT only): ValueError: The object is not callable"), size.message
