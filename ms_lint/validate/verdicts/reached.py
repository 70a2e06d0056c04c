"""Verdicts of the findings outside any unit (a ``@jit_class`` method, a helper, a mixin's or a base class's method),
settled through the units that reach them (``roots.roots_reaching``): a unit's compile failing at the line with the
rule's kind of error confirms it; a compile that keeps the line in the graph (``outcome.reached``: a marker there
raised) and passes clears it; one that leaves it out says that unit does not reach it. ``combine`` then gives one
verdict per finding from the units compiled for it, and ``unreached`` the verdict of one that no unit reaches."""
from __future__ import annotations

from ms_lint.findings import Finding
from ms_lint.validate.expectations import COMPILE, SILENT, expectation_for
from ms_lint.validate.fallbacks import backend_kernel_failure
from ms_lint.validate.locations import same_file
from ms_lint.validate.verdicts.base import (
    CONFIRMED,
    CONFIRMED_KINDS,
    INCONCLUSIVE,
    NOT_APPLICABLE,
    NOT_REACHED,
    NOT_REPRODUCED,
    Verdict,
    demote_guessed,
)
from ms_lint.validate.verdicts.context import _Context


def reached_verdicts(job, outcome, device: str, level: str, cached: bool = False) -> list[Verdict]:
    """One verdict per finding the unit ``job`` may reach (``job.reached``), from the unit's ``outcome``."""
    effective = outcome.effective_level or level
    context = _Context(job, outcome, device, effective, cached)
    verdicts = []
    for finding, reach, unit in job.reached:
        verdict = _verdict(context, finding, reach, unit)
        verdict.cached = cached
        built = "the registered example" if outcome.instance == "example" else outcome.built
        if built:
            verdict.built = built
            verdict.notes.append(f"{job.qualname} built as {built}")
        verdict.inputs = list(outcome.inputs_how or [])
        demote_guessed(verdict, outcome, job.qualname)
        verdicts.append(verdict)
    return verdicts


def _verdict(context: _Context, finding: Finding, reach, unit) -> Verdict:
    job, outcome = context.job, context.outcome
    through = f"{job.qualname} ({unit.how})"
    failure = context.unit_failure(finding)
    if failure is not None:
        failure.message = f"through {through}: {failure.message}"
        return failure
    error = context.error or {}
    stage = error.get("stage")
    if error and stage in ("construction", "example"):
        return context.make(finding, INCONCLUSIVE, f"through {through}: building it raised "
                            f"{context.first_line()}, so nothing was compiled")
    expectation = expectation_for(finding.code)
    if error and stage == "compile" and not backend_kernel_failure(error.get("message") or ""):
        here = [location for location in context.locations if location.start == finding.line
                and same_file(location.path, finding.path)]
        if here:
            if expectation.error_matches(error.get("type", ""), error.get("message", "")):
                return context.make(finding, CONFIRMED, f"{context.first_line()} (compiling {through})",
                                    compiler_message=context.first_line(),
                                    compiler_location=f"{here[0].path}:{here[0].start}")
            return context.make(finding, INCONCLUSIVE, f"compiling {through} failed at this line, not as the rule "
                                f"says: {context.first_line()}", compiler_message=context.first_line())
    marker = (outcome.reached or {}).get(f"{finding.path}:{finding.line}") or {}
    if marker.get("in_graph") is False:
        return context.make(finding, NOT_REACHED, f"not compiled by {through}: its graph leaves line "
                            f"{finding.line} out (the compile passed with a call that raises when compiled put before "
                            f"the line)")
    if marker.get("in_graph") is True:
        if not outcome.compiled:
            return context.make(finding, INCONCLUSIVE, f"line {finding.line} is in the graph of {through}, whose "
                                f"compile stopped elsewhere first: {context.first_line()}",
                                compiler_message=context.first_line() or None)
        where = (f"compiles {through} under {context.level.upper()} on {context.device} with line {finding.line} in "
                 f"the graph")
        if expectation.check == SILENT or (expectation.check == COMPILE and expectation.silent
                                           and not expectation.expected_to_fail(context.level)):
            return context.make(finding, NOT_APPLICABLE, f"{where}, as expected: {expectation.silent_note}")
        if expectation.check != COMPILE:
            return context.make(finding, INCONCLUSIVE, f"line {finding.line} is in the graph of {through}; its "
                                f"{expectation.check} runs on a unit's own lines only")
        note = f" ({expectation.silent_note})" if expectation.silent_note and not expectation.expected_to_fail(
            context.level) else ""
        return context.make(finding, NOT_REPRODUCED, f"{where}{note}")
    if marker.get("error"):
        return context.make(finding, INCONCLUSIVE, f"compiling {through} stopped before showing whether its graph "
                            f"holds line {finding.line}: {marker['error']}")
    if marker.get("skipped"):
        return context.make(finding, INCONCLUSIVE, f"whether {through} compiles line {finding.line} was not "
                            f"checked: {marker['skipped']}")
    if error:
        return context.make(finding, INCONCLUSIVE, f"compiling {through} failed elsewhere: {context.first_line()}",
                            compiler_message=context.first_line() or None)
    return context.make(finding, INCONCLUSIVE, f"nothing showed whether {through} compiles line {finding.line}")


_ORDER = {CONFIRMED: 0, NOT_REPRODUCED: 1, NOT_APPLICABLE: 2}


def combine(finding: Finding, reach, verdicts: list[Verdict]) -> Verdict:
    """One verdict for ``finding`` from those of the units compiled for it: a confirmation or a compile with the
    line in the graph decides it; it is not reached only when every unit compiled leaves it out (and the note says
    which units were not tried); otherwise it stays inconclusive, each unit's reason in the notes."""
    settled = (*CONFIRMED_KINDS, NOT_REPRODUCED, NOT_APPLICABLE)
    deciding = sorted((verdict for verdict in verdicts if verdict.verdict in settled),
                      key=lambda verdict: _ORDER.get(verdict.verdict, 0))
    if deciding:
        chosen = deciding[0]
        others = [verdict for verdict in verdicts if verdict is not chosen]
        chosen.notes.extend(f"also through {verdict.target}: {verdict.verdict}: {verdict.message}"
                            for verdict in others[:2])
        return chosen
    if verdicts and all(verdict.verdict == NOT_REACHED for verdict in verdicts):
        chosen = verdicts[0]
        if len(verdicts) > 1:
            chosen.message = (f"not compiled by any of the units that may reach {reach.function} "
                              f"({', '.join(verdict.target for verdict in verdicts)}): each leaves line "
                              f"{finding.line} out of its graph")
        untried = len(reach.roots) + len(reach.candidates) - len(verdicts)
        if untried > 0:
            chosen.notes.append(f"{untried} other unit(s) naming {reach.function.split('.')[0]} were not compiled")
        return chosen
    chosen = next((verdict for verdict in verdicts if verdict.verdict == INCONCLUSIVE), verdicts[0])
    chosen.notes.extend(f"through {verdict.target}: {verdict.verdict}: {verdict.message}"
                        for verdict in verdicts if verdict is not chosen)
    return chosen


def unreached(finding: Finding, reach, device: str, level: str) -> Verdict:
    """A finding outside any unit that no unit of the project reaches."""
    function = reach.function or finding.scope
    return Verdict(finding, NOT_REACHED, f"not reached: no graph code in the project calls {function} (no Cell or "
                   f"jit function of its module reaches it, and none of its package names it)", device, level)
