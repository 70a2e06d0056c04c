"""A job's outcome + its findings -> one verdict per finding.

``confirmed``: the compile (or the construction) fails, and where the compiler points, or the kind of error,
matches the finding. ``confirmed by probe``: it compiles, and a probe shows the silent hazard. ``not
reproduced``: it compiles with the finding's line in the graph (or the probe finds nothing lost). ``not
reached``: it compiles, but a constant condition (``self.training``, a constructor flag, an argument left at its
default) kept the line out of the graph, even after the retries that switch it on. ``inconclusive``: the validator
could not decide (no instance or inputs, an unrelated error, a timeout, a crash), always with the reason and, where
it helps, the example to write. ``not applicable``: there is nothing the validator can run for this finding.

A compile that fails at kernel selection (the device has no kernel for an operator ``construct`` uses) has passed
the frontend, which raises every failure a compile check predicts first (measured on 2.10: a numpy call on a
tensor, or a two-axis transpose, after ``mint.linspace`` in ``construct`` fails with its own error, not the kernel
one): such findings are decided as if it compiled. A finding the first compile did not reach because it stopped at
another finding with a line-keeping fix is decided by the compiles the worker ran with those fixes applied.
"""
from __future__ import annotations

import os

from ms_lint.validate.expectations import (
    expectation_for,
)
from ms_lint.validate.fallbacks import backend_kernel_failure
from ms_lint.validate.locations import parse_locations, same_file
from ms_lint.validate.outcome import Outcome
from ms_lint.validate.verdicts.base import (
    CONFIRMED,
    CONFIRMED_BY_PROBE,
    CONFIRMED_KINDS,
    DECIDED,
    INCONCLUSIVE,
    NOT_APPLICABLE,
    NOT_CHECKED,
    NOT_REACHED,
    NOT_REPRODUCED,
    VERDICTS,
    Verdict,
    demote_guessed,
    module_level_verdict,
    not_checked_verdict,
)
from ms_lint.validate.verdicts.context import _Context
from ms_lint.validate.verdicts.imported import imported

__all__ = [
    "CONFIRMED",
    "CONFIRMED_BY_PROBE",
    "CONFIRMED_KINDS",
    "DECIDED",
    "INCONCLUSIVE",
    "NOT_APPLICABLE",
    "NOT_CHECKED",
    "NOT_REACHED",
    "NOT_REPRODUCED",
    "VERDICTS",
    "Verdict",
    "blame_other_findings",
    "confirm_across_units",
    "decide",
    "module_level_verdict",
    "not_checked_verdict",
]


def decide(job, outcome: Outcome, device: str, level: str, cached: bool = False) -> list[Verdict]:
    """One verdict per finding of ``job`` (a ``planning.Job``) from the worker's ``outcome``."""
    effective_level = outcome.effective_level or level
    if getattr(job, "module_only", False):
        verdicts = [imported(job, outcome, finding, device, level) for finding in job.findings]
    else:
        context = _Context(job, outcome, device, effective_level, cached)
        verdicts = [context.decided(finding) for finding in job.findings]
    notes = list(outcome.notes or [])
    if outcome.stand_ins:
        notes.append(f"imported with a stand-in for the missing package(s) {', '.join(outcome.stand_ins)} "
                     f"(a placeholder: nothing of theirs ran)")
    if effective_level != level:
        setting = "fullgraph=True" if effective_level == "strict" else "no fullgraph=True"
        notes.append(f"a @jit function with {setting} compiles under {effective_level.upper()} whatever the "
                     f"syntax level asked")
    instance = outcome.instance
    built = "the registered example" if instance == "example" else outcome.built
    if instance not in (None, "example", "default") and built and outcome.stage != "import":
        notes.append(f"built as {built}")
    for verdict in verdicts:
        through = getattr(job, "through", {}).get(verdict.finding.line)
        if through and verdict.finding.scope != job.qualname:
            verdict.notes.append(through)
        verdict.built = built
        verdict.inputs = list(outcome.inputs_how or [])
        demote_guessed(verdict, outcome)
        # A note the explanation already gives (the output limit) is not repeated.
        already_said = "output limit" in verdict.message
        verdict.notes.extend(note for note in notes if not (already_said and "output limit" in note))
        verdict.cached = cached
    return verdicts


def confirm_across_units(verdicts: list[Verdict], results: list) -> None:
    """Confirm, in place, findings another unit's failure points at.

    A Cell that needs arguments (so no instance of its own) is often built and compiled by a bigger Cell that
    has defaults: when that compile fails at the finding's line, or its construction raises there with the
    finding's kind of error, the finding is confirmed. ``results``: ``(job, outcome)`` for every unit.
    """
    evidence = []
    for job, outcome in results:
        error = outcome.error or {}
        stage = error.get("stage")
        if stage == "compile" and not backend_kernel_failure(error.get("message") or ""):
            text = (error.get("message") or "") + "\n" + "\n".join(outcome.compile_log or [])
            for location in parse_locations(text):
                evidence.append((location.path, location.start, error, job.target, "compiling", outcome))
        elif stage in ("construction", "example"):
            frames = error.get("traceback") or []
            if frames and isinstance(frames[-1], (list, tuple)):
                evidence.append((frames[-1][0], frames[-1][1], error, job.target, "building", outcome))
    if not evidence:
        return
    for verdict in verdicts:
        if verdict.verdict != INCONCLUSIVE:
            continue
        finding = verdict.finding
        expectation = expectation_for(finding.code)
        for path, line, error, target, doing, outcome in evidence:
            if target == verdict.target or line != finding.line or not same_file(path, finding.path):
                continue
            kind_matches = expectation.error_matches(error.get("type", ""), error.get("message", ""))
            if doing == "building" and not kind_matches:
                continue
            first = error.get("first_line") or ""
            verdict.verdict = CONFIRMED
            verdict.message = f"{first} (seen while {doing} {target})"
            verdict.compiler_message = first
            verdict.compiler_location = f"{path}:{line}"
            verdict.example = None
            demote_guessed(verdict, outcome, target)
            break


def blame_other_findings(verdicts: list[Verdict], results: list) -> None:
    """In place: a unit whose example or constructor raised at the line of another finding (MS205 raises at
    construction) is not waiting for an example: the other finding is to be fixed first."""
    from ms_lint.validate.project import display_path

    by_place = {}
    for verdict in verdicts:
        by_place.setdefault((os.path.realpath(verdict.finding.path), verdict.finding.line), verdict)
    outcomes = {job.target: outcome for job, outcome in results}
    for verdict in verdicts:
        if verdict.verdict != INCONCLUSIVE:
            continue
        outcome = outcomes.get(verdict.target) or Outcome()
        error = outcome.error or {}
        if error.get("stage") not in ("construction", "example") or outcome.fixes:
            continue  # with the other finding fixed, the verdict says what happened next
        for frame in reversed(error.get("traceback") or []):
            if not isinstance(frame, (list, tuple)) or len(frame) < 2:
                continue
            other = by_place.get((os.path.realpath(frame[0]), frame[1]))
            if other is None or other is verdict:
                continue
            where = f"{display_path(other.finding.path)}:{other.finding.line}"
            verdict.message = (f"fix {other.finding.code} at {where} first: building {verdict.target} raised "
                               f"{error.get('first_line') or error.get('type')} there")
            verdict.example = None
            break
