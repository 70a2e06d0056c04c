"""Verdicts from the compiles the worker ran again: with the lines that stopped the first compile fixed
(``fixes``), with a line a constant condition left out switched on (``retries``), and builds with the argument that
runs a construction line (``build_retries``)."""
from __future__ import annotations

from dataclasses import replace

from ms_lint.findings import Finding
from ms_lint.validate.expectations import (
    expectation_for,
)
from ms_lint.validate.locations import same_file
from ms_lint.validate.reach import reads_instance
from ms_lint.validate.verdicts.base import (
    CONFIRMED,
    DECIDED,
    INCONCLUSIVE,
    NOT_REACHED,
    NOT_REPRODUCED,
    Verdict,
    said,
)


def after_fixes(context, finding: Finding, verdict: Verdict) -> Verdict:
    """An undecided finding behind a compile that stopped earlier: decided by the first compile with the
    earlier lines fixed (``fixes`` of the outcome) that decides it, never by one that fixed its own line."""
    if verdict.verdict != INCONCLUSIVE or (context.error or {}).get("stage") not in ("compile", "construction"):
        return verdict
    for attempt in context.outcome.fixes or []:
        fixed = attempt.get("fixed") or []
        if any(_changed_by(entry, finding, context.job.path) for entry in fixed):
            continue
        # After building failed, the retries started from that build: they say what the fixed one left out.
        construction = (context.error or {}).get("stage") == "construction"
        retries = (context.outcome.retries or []) if construction else []
        outcome = replace(context.outcome, status="ok" if attempt.get("compiled") else "error",
                          error=attempt.get("error"), compiled=attempt.get("compiled"),
                          compile_log=attempt.get("compile_log") or [],
                          reach=attempt.get("reach") or context.outcome.reach or {}, retries=retries,
                          fixes=[], markers=attempt.get("markers") or {})
        level = "lax" if any(entry.get("lax") for entry in fixed) else context.level
        decided = context.with_outcome(outcome, level).verdict_for(finding)
        if level != context.level and decided.verdict == NOT_REPRODUCED:
            # LAX interprets what it cannot compile (an object built past the STRICT error, and all it flows
            # into) and raises only when it runs: a clean compile under LAX is no evidence.
            continue
        if decided.verdict not in DECIDED:
            if decided.verdict == NOT_REACHED and any(note.startswith(_BY_DEFAULT) for note in verdict.notes):
                continue  # a retry compiled the line: what stopped it says more than the default's conditions
            if _got_past_construction(attempt) or (attempt.get("error") or {}).get("stage") == "construction":
                # What stops it now is no longer the first error: the last build or compile with fixes says what.
                decided.message = f"{_fixes_text(fixed, context.job.path)}: {decided.message}"
                verdict = decided
            continue
        if not decided.message.startswith("with "):  # a retry's verdict names the fixes it was built with
            decided.message = f"decided {_fixes_text(fixed, context.job.path)}: {decided.message}"
        return decided
    return verdict


def not_built(context, finding: Finding) -> Verdict:
    """A layer built with wrong arguments whose line the instance's building never ran (a loop over an empty
    default, a branch not taken): decided by a build with the argument that runs it, else not reached."""
    who = "the example" if context.outcome.instance == "example" else f"{context.job.qualname}()"
    message = f"not run: building the instance ({who}) did not run line {finding.line}"
    expectation = expectation_for(finding.code)
    for retry in context.outcome.build_retries or []:
        if finding.line not in (retry.get("ran") or []):
            continue
        error = retry.get("error") or {}
        first = said(error)[0]
        if error.get("line") == finding.line and expectation.error_matches(error.get("type") or "",
                                                                           error.get("message") or ""):
            return context.make(finding, CONFIRMED, f"with {retry['description']}: building raised at this line: "
                                f"{first}", compiler_message=first)
        if error.get("line") != finding.line:
            return context.make(finding, NOT_REPRODUCED,
                                f"with {retry['description']}: building ran line {finding.line} without error"
                                + (f" (it raised later: {first})" if error else ""))
        verdict = context.make(finding, INCONCLUSIVE, f"with {retry['description']}: building raised at this "
                               f"line, not as the rule says: {first}")
        verdict.notes.append(message)
        return verdict
    tried = [retry["description"] for retry in context.outcome.build_retries or []
             if finding.line in (retry.get("lines") or ())]
    if tried:
        message += f"; nor did building it with {', '.join(tried)}"
    if context.outcome.instance == "guessed arguments":
        # Arguments guessed from their names are not the project's: what it passes may run the line.
        message = message.replace(f"({who})", f"as {context.outcome.built}", 1)
        return context.make(finding, INCONCLUSIVE, f"{message}: the project's own arguments may run it")
    return context.make(finding, NOT_REACHED, message)


def not_reached(context, finding: Finding, reach: dict) -> Verdict:
    """The line was not compiled: decide it from the first retry that compiled it, else say what kept it
    out."""
    condition = reach.get("condition") or "a condition"
    value = reach.get("value")
    why = condition if value is None else f"`{condition}` was {value} when the graph was built"
    if value is not None and "wanted" in reach:
        why += f" (the line needs it {'true' if reach['wanted'] else 'false'})"
    tried = []
    for retry in context.outcome.retries or []:
        retry_reach = (retry.get("reach") or {}).get(str(finding.line))
        tried.append(f"{retry.get('description') or retry.get('name')}{_kept_out_by(retry_reach, condition)}")
        if retry.get("error", {}).get("stage") != "construction" and (
                retry_reach is None or retry_reach.get("reached") is False):
            continue
        outcome = replace(context.outcome, status="ok" if retry.get("compiled") else "error",
                          error=retry.get("error"), compiled=retry.get("compiled"),
                          compile_log=retry.get("compile_log") or [], reach=retry.get("reach") or {}, retries=[],
                          fixes=retry.get("fixes") or [])
        switched_on = context.with_outcome(outcome, context.level)
        verdict = after_fixes(switched_on, finding, switched_on.verdict_for(finding))
        verdict.message = f"with {retry.get('description')}: {verdict.message}"
        verdict.notes.append(f"{_BY_DEFAULT}: {why}")
        return verdict
    message = f"not compiled: {why}"
    if tried:
        message += f"; still not compiled with {', '.join(tried)}"
    elif reads_instance(condition, "training", context.job.instances):
        message += " (register an example that calls set_train(True) to compile it)"
    elif reads_instance(condition, "", context.job.instances):
        message += " (register an example that sets it to compile the line)"
    elif reach.get("value") is not None:
        message += " (an argument left at its default: register an example that passes it)"
    return context.make(finding, NOT_REACHED, message)


def _kept_out_by(reach: dict | None, condition: str) -> str:
    """`` (`self.x_min.min() > -1.1e-05` was True)``: the other condition that kept the line out of a retry's graph
    (a buffer's value, a flag the retry does not switch); empty when it is the default's or none is known."""
    if not reach or reach.get("reached") is not False or reach.get("value") is None \
            or reach.get("condition") in (None, condition):
        return ""
    return f" (`{reach['condition']}` was {reach['value']})"


def _got_past_construction(attempt: dict) -> bool:
    """Whether a compile with fixes applied built the instance (it compiled, or failed compiling)."""
    return bool(attempt.get("compiled")) or (attempt.get("error") or {}).get("stage") == "compile"


_BY_DEFAULT = "not compiled by default"


def _changed_by(entry: dict, finding: Finding, own_path: str) -> bool:
    """Whether a compile with ``entry`` applied says nothing of ``finding``: the fix was for the finding itself, or
    the finding's line was left out, or lies in code only the left-out statement called."""
    if not same_file(entry.get("path") or own_path, finding.path):
        return False
    if entry.get("stood_in"):
        return entry["line"] == finding.line  # the line now calls another function
    if entry.get("lax"):
        # Compiled under LAX from then on: it shows only what fails under LAX too.
        return entry["line"] == finding.line or not expectation_for(finding.code).expected_to_fail("lax")
    if not entry.get("left_out"):
        return entry["line"] == finding.line and entry["code"] == finding.code
    return any(start <= finding.line <= end for start, end in entry.get("skipped") or [(entry["line"],) * 2])


def _fixes_text(fixed: list[dict], own_path: str) -> str:
    """``after applying the fix for MS601 at line 459``, ``after applying the fixes for MS601 at lines 459, 470``;
    a fix in another module than the unit's is placed by file: ``the fix for MS205 at segmenter/layers.py:18``; a
    statement left out (``fixing.leave_out``): ``with line 741 left out (MS109, which has no automatic fix)``; a
    missing name stood in for (``fixing.stand_in``): ``with a function returning its first argument in place of
    ...``."""
    applied = [entry for entry in fixed if not (entry.get("left_out") or entry.get("stood_in") or entry.get("lax"))]
    left_out = ", ".join(_left_out_text(entry) for entry in fixed if entry.get("left_out"))
    stood_in = [entry for entry in fixed if entry.get("stood_in")]
    text = f"after applying {_applied_fixes_text(applied, own_path)}" if applied else ""
    if stood_in:
        text += (", " if text else "") + _stood_in_text(stood_in)
    if left_out:
        text += (", " if text else "") + f"with {left_out}"
    for entry in fixed:
        if entry.get("lax"):
            text += (", " if text else "") + (f"under LAX past line {entry['line']} ({entry['code']}, which fails "
                                              f"under STRICT only)")
    return text


def _stood_in_text(entries: list[dict]) -> str:
    """``with a function returning its first argument in place of the name MindSpore lacks at line 404 (MS607)``;
    ``with a Cell returning its first input ...`` where the missing name was built with no positional argument."""
    from ms_lint.validate.project import display_path

    places = ", ".join(dict.fromkeys(f"{display_path(entry['path'])}:{entry['line']}" if entry.get("path")
                                     else f"line {entry['line']}" for entry in entries))
    kinds = " and ".join(dict.fromkeys(entry["stood_in"] if isinstance(entry["stood_in"], str)
                                       else "a function returning its first argument" for entry in entries))
    return f"with {kinds} in place of the name MindSpore lacks at {places} (MS607)"


def _left_out_text(entry: dict) -> str:
    from ms_lint.validate.project import display_path

    place = f"{display_path(entry['path'])}:{entry['line']}" if entry.get("path") else f"line {entry['line']}"
    why = f"{entry['code']}, which has no automatic fix" if entry.get("code") else "no finding there"
    return f"{place} left out ({why})"


def _applied_fixes_text(fixed: list[dict], own_path: str) -> str:
    from ms_lint.validate.project import display_path

    codes = "/".join(dict.fromkeys(entry["code"] for entry in fixed))
    if any(entry.get("path") for entry in fixed):
        places = ", ".join(dict.fromkeys(f"{display_path(entry.get('path') or own_path)}:{entry['line']}"
                                         for entry in fixed))
        return f"the fix{'es' if len(fixed) > 1 else ''} for {codes} at {places}"
    lines = ", ".join(str(line) for line in dict.fromkeys(entry["line"] for entry in fixed))
    if len(fixed) == 1:
        return f"the fix for {codes} at line {lines}"
    return f"the fixes for {codes} at line{'s' if ',' in lines else ''} {lines}"
