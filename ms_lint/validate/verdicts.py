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

import ast
import linecache
import os
import re
from dataclasses import dataclass, field

from ms_lint.findings import Finding
from ms_lint.validate.expectations import (
    COMPILE,
    CONSTRUCTION,
    MODULE_LEVEL,
    OUTPUT_PROBE,
    PARAMETER_PROBE,
    RANDOMNESS_PROBE,
    SILENT,
    STATE_PROBE,
    Expectation,
    built_at_its_line,
    expectation_for,
    missing_name,
    names_attribute,
    tensor_method,
    unbound_name,
)
from ms_lint.validate.fallbacks import backend_kernel_failure, missing_kernel
from ms_lint.validate.locations import Location, message_line, parse_locations, same_file

CONFIRMED = "confirmed"
CONFIRMED_BY_PROBE = "confirmed by probe"
NOT_REPRODUCED = "not reproduced"
NOT_REACHED = "not reached"  # it compiled, but the finding's line was not part of the graph
INCONCLUSIVE = "inconclusive"
NOT_APPLICABLE = "not applicable"
NOT_CHECKED = "not checked"  # an interrupted run never got to it

VERDICTS = (CONFIRMED, CONFIRMED_BY_PROBE, NOT_REPRODUCED, NOT_REACHED, INCONCLUSIVE, NOT_APPLICABLE)
DECIDED = (CONFIRMED, CONFIRMED_BY_PROBE, NOT_REPRODUCED)
CONFIRMED_KINDS = (CONFIRMED, CONFIRMED_BY_PROBE)

_STAGE_PHRASES = {
    "start": "starting the job",
    "import": "importing the module",
    "examples": "loading the examples file",
    "resolve": "looking up the target",
    "instance": "building the instance",
    "example": "running the example",
    "construction": "building the instance",
    "compile": "compiling",
    "probe": "probing",
    "retry": "compiling again",
    "fix": "compiling with a fix applied",
}


@dataclass
class Verdict:
    finding: Finding
    verdict: str
    message: str
    device: str
    level: str
    target: str = ""
    compiler_message: str | None = None  # the first line of the compiler's (or constructor's) error
    compiler_location: str | None = None  # "path:line" the compiler pointed at
    example: str | None = None  # the example to add to the examples file
    notes: list[str] = field(default_factory=list)
    cached: bool = False
    built: str | None = None  # how the instance was built (an example, a constructor call, a config, ...)
    inputs: list[str] = field(default_factory=list)  # how each input was made

    @property
    def confirmed(self) -> bool:
        return self.verdict in CONFIRMED_KINDS

    def to_dict(self) -> dict:
        data = self.finding.to_dict()
        data.update({
            "verdict": self.verdict,
            "explanation": self.message,
            "device": self.device,
            "syntax_level": self.level,
            "target": self.target,
            "compiler_message": self.compiler_message,
            "compiler_location": self.compiler_location,
            "example": self.example,
            "notes": list(self.notes),
            "cached": self.cached,
            "built": self.built,
            "inputs": list(self.inputs),
        })
        return data


def module_level_verdict(finding: Finding, device: str, level: str) -> Verdict:
    if finding.code == "MS900":
        message = "the static check itself failed on this file; nothing to compile"
    elif finding.code in ("E999", "E902"):
        message = "the file does not parse: nothing in it can be compiled"
    elif expectation_for(finding.code).nothing_to_compile:
        message = expectation_for(finding.code).nothing_to_compile
    elif not finding.scope and expectation_for(finding.code).check != MODULE_LEVEL:
        message = "not inside a Cell or a @jit function: there is nothing to compile"
    else:
        message = "module-level finding: there is no Cell to compile, so no compile probe"
    return Verdict(finding, NOT_APPLICABLE, message, device, level)


def not_checked_verdict(finding: Finding, device: str, level: str, target: str) -> Verdict:
    return Verdict(finding, NOT_CHECKED, "the run was interrupted before this was checked", device, level, target)


def decide(job, outcome: dict, device: str, level: str, cached: bool = False) -> list[Verdict]:
    """One verdict per finding of ``job`` (a ``planning.Job``) from the worker's ``outcome``."""
    effective_level = outcome.get("effective_level") or level
    context = _Context(job, outcome, device, effective_level, cached)
    verdicts = [context.decided(finding) for finding in job.findings]
    notes = list(outcome.get("notes") or [])
    if effective_level != level:
        setting = "fullgraph=True" if effective_level == "strict" else "no fullgraph=True"
        notes.append(f"a @jit function with {setting} compiles under {effective_level.upper()} whatever the "
                     f"syntax level asked")
    instance = outcome.get("instance")
    built = "the registered example" if instance == "example" else outcome.get("built")
    if instance not in (None, "example", "default") and built and outcome.get("stage") != "import":
        notes.append(f"built as {built}")
    for verdict in verdicts:
        verdict.built = built
        verdict.inputs = list(outcome.get("inputs_how") or [])
        # A note the explanation already gives (the output limit) is not repeated.
        already_said = "output limit" in verdict.message
        verdict.notes.extend(note for note in notes if not (already_said and "output limit" in note))
        verdict.cached = cached
    return verdicts


def _said(error: dict) -> tuple[str, str]:
    """``(Type: the message's line, the same cut to 160 characters)`` of an error a probe or a build recorded
    (``{"type", "message"}``); empty strings for none."""
    if not error:
        return "", ""
    first = f"{error.get('type')}: {message_line(error.get('message') or '')}"
    return first, first if len(first) <= 160 else first[:157] + "..."


class _Context:
    def __init__(self, job, outcome: dict, device: str, level: str, cached: bool):
        self.job = job
        self.outcome = outcome
        self.device = device
        self.level = level
        self.error = outcome.get("error") or None
        self.status = outcome.get("status", "ok")
        text = ""
        if self.error:
            text = (self.error.get("message") or "") + "\n" + "\n".join(outcome.get("compile_log") or [])
        self.locations = parse_locations(text)
        self.user_locations = [loc for loc in self.locations if same_file(loc.path, job.path)]

    # -- helpers -------------------------------------------------------------------------------------------------

    def make(self, finding: Finding, verdict: str, message: str, **extra) -> Verdict:
        return Verdict(finding, verdict, message, self.device, self.level, self.job.target, **extra)

    def stage_phrase(self, stage: str | None) -> str:
        return _STAGE_PHRASES.get(stage or "", stage or "running the job")

    def example_text(self, concrete: bool = False) -> str:
        from ms_lint.examples import suggest_example

        signature = self.outcome.get("signature") or {}
        return suggest_example(
            self.job.target,
            init_parameters=signature.get("init", []),
            call_parameters=signature.get("call", []),
            is_cell=self.outcome.get("kind", "cell") == "cell",
            concrete_inputs=concrete,
        )

    def first_line(self) -> str:
        return (self.error or {}).get("first_line") or ""

    def location_text(self, location: Location | None) -> str | None:
        if location is None:
            return None
        return f"{location.path}:{location.start}"

    # -- the decision --------------------------------------------------------------------------------------------

    def verdict_for(self, finding: Finding) -> Verdict:
        expectation = expectation_for(finding.code)
        if expectation.check == MODULE_LEVEL:
            return module_level_verdict(finding, self.device, self.level)
        method = self.job.not_run.get(finding.line) if expectation.check == CONSTRUCTION else None
        if method is not None:
            return self.make(finding, NOT_REACHED, f"not run: {method}() is called neither while building "
                                                   f"{self.job.qualname} nor from construct")
        failure = self.unit_failure(finding)
        if failure is not None:
            return failure
        error_stage = (self.error or {}).get("stage")
        built_lines = self.outcome.get("built_lines")
        if built_at_its_line(finding.code) and built_lines is not None and finding.line not in built_lines \
                and error_stage not in ("construction", "example"):
            return self.not_built(finding)
        if self.error and error_stage in ("construction", "example"):
            return self.construction_failed(finding, expectation, error_stage)
        if self.error and error_stage == "compile":
            kernel = backend_kernel_failure(self.error.get("message") or "")
            if kernel:
                return self.frontend_passed(finding, kernel)
            reach = (self.outcome.get("reach") or {}).get(str(finding.line)) or {}
            located_here = any(loc.start == finding.line for loc in self.user_locations)
            if reach.get("reached") is False and expectation.check in (COMPILE, RANDOMNESS_PROBE) \
                    and not located_here:
                # The failure is elsewhere and the line was left out anyway: decided by a retry that has it.
                verdict = self.not_reached(finding, reach)
                if verdict.verdict == NOT_REACHED:
                    verdict.notes.append(f"the compile failed elsewhere: {self.first_line()}")
                return verdict
            return self.compile_failed(finding, expectation)
        if expectation.check == CONSTRUCTION:
            who = "the example" if self.outcome.get("instance") == "example" else f"{self.job.qualname}()"
            return self.make(finding, NOT_REPRODUCED, f"{who} built the instance and it compiled without error")
        reach = (self.outcome.get("reach") or {}).get(str(finding.line))
        if reach is not None and expectation.check in (COMPILE, RANDOMNESS_PROBE):
            if reach.get("reached") is False:
                return self.not_reached(finding, reach)
            marker = (self.outcome.get("markers") or {}).get(str(finding.line)) or {}
            if reach.get("reached") is None and expectation.check == COMPILE and marker.get("in_graph") is False:
                return self.make(finding, NOT_REACHED,
                                 f"not compiled: MindSpore left line {finding.line} out of the graph (the compile "
                                 f"passed with the line replaced by a call that raises when compiled; of the "
                                 f"conditions over it, ms-lint could not evaluate `{reach.get('unknown')}`)")
            if reach.get("reached") is None and expectation.check == COMPILE and not marker.get("in_graph"):
                if reach.get("unknown"):
                    why = (f"it sits under `{reach['unknown']}`, which ms-lint could not evaluate (MindSpore keeps "
                           f"one side of a constant condition only)")
                else:
                    why = f"{self.job.qualname} has no construct of its own"
                if marker.get("skipped"):
                    why += f"; the compile with the line marked was skipped: {marker['skipped']}"
                return self.make(
                    finding, INCONCLUSIVE,
                    f"compiles, but nothing shows that line {finding.line} was part of the graph: {why}",
                )
        return self.compiled(finding, expectation)

    def decided(self, finding: Finding) -> Verdict:
        """The verdict of the unit's compile, then of each later piece of evidence that may decide what it left
        undecided: the compiles with fixes, a type built alone, a host method called, and last, what does not run
        the line itself, a name looked up or a method called on a bare tensor."""
        verdict = self.after_fixes(finding, self.verdict_for(finding))
        verdict = self.built_alone(finding, verdict)
        verdict = self.host_called(finding, verdict)
        return self.looked_up(finding, verdict)

    def after_fixes(self, finding: Finding, verdict: Verdict) -> Verdict:
        """An undecided finding behind a compile that stopped earlier: decided by the first compile with the
        earlier lines fixed (``fixes`` of the outcome) that decides it, never by one that fixed its own line."""
        if verdict.verdict != INCONCLUSIVE or (self.error or {}).get("stage") not in ("compile", "construction"):
            return verdict
        for attempt in self.outcome.get("fixes") or []:
            fixed = attempt.get("fixed") or []
            if any(_changed_by(entry, finding, self.job.path) for entry in fixed):
                continue
            outcome = dict(self.outcome)
            # After building failed, the retries started from that build: they say what the fixed one left out.
            construction = (self.error or {}).get("stage") == "construction"
            retries = (self.outcome.get("retries") or []) if construction else []
            outcome.update(status="ok" if attempt.get("compiled") else "error", error=attempt.get("error"),
                           compiled=attempt.get("compiled"), compile_log=attempt.get("compile_log") or [],
                           reach=attempt.get("reach") or self.outcome.get("reach") or {}, retries=retries,
                           fixes=[], markers=attempt.get("markers") or {})
            level = "lax" if any(entry.get("lax") for entry in fixed) else self.level
            decided = _Context(self.job, outcome, self.device, level, False).verdict_for(finding)
            if level != self.level and decided.verdict == NOT_REPRODUCED:
                # LAX interprets what it cannot compile (an object built past the STRICT error, and all it flows
                # into) and raises only when it runs: a clean compile under LAX is no evidence.
                continue
            if decided.verdict not in DECIDED:
                if decided.verdict == NOT_REACHED and any(note.startswith(_BY_DEFAULT) for note in verdict.notes):
                    continue  # a retry compiled the line: what stopped it says more than the default's conditions
                if _got_past_construction(attempt) or (attempt.get("error") or {}).get("stage") == "construction":
                    # What stops it now is no longer the first error: the last build or compile with fixes says what.
                    decided.message = f"{_fixes_text(fixed, self.job.path)}: {decided.message}"
                    verdict = decided
                continue
            if not decided.message.startswith("with "):  # a retry's verdict names the fixes it was built with
                decided.message = f"decided {_fixes_text(fixed, self.job.path)}: {decided.message}"
            return decided
        return verdict

    def looked_up(self, finding: Finding, verdict: Verdict) -> Verdict:
        """An MS607 or MS602 finding no build or compile decided (a host method the graph never calls, a line behind
        another stop): decided by what the worker found on the installed MindSpore, the name looked up (MS607) or
        the method called on a Tensor and a Parameter (MS602)."""
        if verdict.verdict in DECIDED:
            return verdict
        why = f"; the line itself was not decided: {verdict.message}" if verdict.message else ""
        if finding.code == "MS602":
            return self._called_on_tensors(finding, verdict, why)
        if finding.code != "MS607":
            return verdict
        name = missing_name(finding)
        found = ((self.outcome.get("probes") or {}).get("api") or {}).get(name) if name else None
        if found is None:
            return verdict
        if found:
            return self.make(finding, NOT_REPRODUCED, f"the installed MindSpore has {name}{why}")
        return self.make(finding, CONFIRMED_BY_PROBE,
                         f"the installed MindSpore has no {name}: looked up in the worker, the line raises "
                         f"AttributeError (ImportError in an import) wherever it runs{why}")

    def _called_on_tensors(self, finding: Finding, verdict: Verdict, why: str) -> Verdict:
        method = tensor_method(finding)
        calls = ((self.outcome.get("probes") or {}).get("tensor_methods") or {}).get(method) if method else None
        if not calls:
            return verdict
        ran = [result["call"] for result in calls.values() if result.get("ran")]
        if ran:
            return self.make(finding, NOT_REPRODUCED, f"{ran[0]} runs on the installed MindSpore{why}")
        expectation = expectation_for(finding.code)
        if not all(expectation.error_matches(result.get("type") or "", result.get("message") or "")
                   for result in calls.values()):
            return verdict
        tensor = calls.get("Tensor") or next(iter(calls.values()))
        first = _said(tensor)[0]
        return self.make(finding, CONFIRMED_BY_PROBE,
                         f"{tensor['call']} raises {first} on the installed MindSpore, and so does the call on a "
                         f"Parameter: the line raises wherever it runs on a tensor{why}", compiler_message=first)

    def built_alone(self, finding: Finding, verdict: Verdict) -> Verdict:
        """An MS103 finding of a user type built from tensor data that no compile of the unit decided (the compile
        stopped before its line): decided by the worker's build of that type from a tensor in a Cell of its own,
        under STRICT. A type MindSpore cannot build there fails wherever a graph builds it; one it can build
        decides nothing (what the line passes may differ). A line shown to be left out of the graph (``not
        reached``) stays so: this configuration never builds the type."""
        if finding.code != "MS103" or verdict.verdict != INCONCLUSIVE or self.level != "strict":
            return verdict
        result = ((self.outcome.get("probes") or {}).get("built_alone") or {}).get(str(finding.line))
        if not result or result.get("compiled") is not False:
            return verdict
        expectation = expectation_for(finding.code)
        if not expectation.error_matches(result.get("type", ""), result.get("message", "")):
            return verdict
        first, shown = _said(result)
        return self.make(
            finding, CONFIRMED_BY_PROBE,
            f"{result.get('built')} in a Cell that does nothing else fails to compile under STRICT ({shown}): "
            f"MindSpore cannot build this type from tensor data in a graph; line {finding.line} itself was not "
            f"decided: {verdict.message}",
            compiler_message=first)

    def not_built(self, finding: Finding) -> Verdict:
        """A layer built with wrong arguments whose line the instance's building never ran (a loop over an empty
        default, a branch not taken): decided by a build with the argument that runs it, else not reached."""
        who = "the example" if self.outcome.get("instance") == "example" else f"{self.job.qualname}()"
        message = f"not run: building the instance ({who}) did not run line {finding.line}"
        expectation = expectation_for(finding.code)
        for retry in self.outcome.get("build_retries") or []:
            if finding.line not in (retry.get("ran") or []):
                continue
            error = retry.get("error") or {}
            first = _said(error)[0]
            if error.get("line") == finding.line and expectation.error_matches(error.get("type") or "",
                                                                               error.get("message") or ""):
                return self.make(finding, CONFIRMED, f"with {retry['description']}: building raised at this line: "
                                                     f"{first}", compiler_message=first)
            if error.get("line") != finding.line:
                return self.make(finding, NOT_REPRODUCED,
                                 f"with {retry['description']}: building ran line {finding.line} without error"
                                 + (f" (it raised later: {first})" if error else ""))
            verdict = self.make(finding, INCONCLUSIVE, f"with {retry['description']}: building raised at this "
                                                       f"line, not as the rule says: {first}")
            verdict.notes.append(message)
            return verdict
        tried = [retry["description"] for retry in self.outcome.get("build_retries") or []
                 if finding.line in (retry.get("lines") or ())]
        if tried:
            message += f"; nor did building it with {', '.join(tried)}"
        return self.make(finding, NOT_REACHED, message)

    def host_called(self, finding: Finding, verdict: Verdict) -> Verdict:
        """A finding that raises eagerly too, in a host method the graph never holds (``switch_to_deploy``):
        decided by the worker's call of that method on a built instance, which either raised at the line as the
        rule says, or ran the line without error. A call that never got to the line decides nothing."""
        if verdict.verdict in CONFIRMED_KINDS:
            return verdict
        method = next((name for name, lines in (getattr(self.job, "host_calls", None) or {}).items()
                       if finding.line in lines), None)
        result = ((self.outcome.get("probes") or {}).get("host") or {}).get(method or "")
        if result and "skipped" in result:
            verdict.notes.append(f"{method}() was not called on a {self.job.qualname}: {result['skipped']}")
            return verdict
        if not result or "ran" not in result:
            return verdict
        who = f"{method}(), called in PyNative on a {self.job.qualname} built for it,"
        error = result.get("error") or {}
        first, shown = _said(error)
        if error.get("line") == finding.line:
            if expectation_for(finding.code).error_matches(error.get("type") or "", error.get("message") or ""):
                return self.make(finding, CONFIRMED_BY_PROBE, f"{who} raised at this line: {shown}",
                                 compiler_message=first)
            verdict.notes.append(f"{who} raised at this line, not as the rule says: {shown}")
            return verdict
        if finding.line in result["ran"]:
            return self.make(finding, NOT_REPRODUCED, f"{who} ran line {finding.line} without error"
                             + (f" (it raised later: {shown})" if error else ""))
        if error:
            where = f"at line {error['line']}" if error.get("line") else "outside this file"
            verdict.notes.append(f"{who} raised {where} before reaching line {finding.line}: {shown}")
        else:
            verdict.notes.append(f"{who} returned without running line {finding.line}")
        return verdict

    def left_at_none(self, first: str, location) -> str:
        """`` (`to_mask` was left at its default None: ...)`` when a None in the error comes from a ``construct``
        argument the compile did not pass, named on the failing line."""
        if "NoneType" not in first or self.outcome.get("instance") == "example":
            return ""
        names = self.outcome.get("left_at_none") or []
        text = linecache.getline(location.path, location.start)
        named = [name for name in names if re.search(rf"\b{re.escape(name)}\b", text)]
        if not named:
            return ""
        return (f" (`{named[0]}` was left at its default None: register an example that passes "
                f"{'it' if len(named) == 1 else 'them'})")

    def frontend_passed(self, finding: Finding, kernel: str) -> Verdict:
        """The compile failed at kernel selection, in the backend: the frontend had parsed and type-inferred the
        whole graph, so a finding whose failure the frontend raises (every compile check) is decided as if it
        compiled; what needs the graph to run (the probes) stays undecided."""
        outcome = dict(self.outcome)
        outcome.update(status="ok", error=None, compiled=True, compile_log=[])
        verdict = _Context(self.job, outcome, self.device, self.level, False).verdict_for(finding)
        backend = (f"the frontend compiled the graph, then the {self.device} backend has no kernel for {kernel} "
                   f"(the code targets another device)")
        if verdict.message.startswith("with "):
            # Decided by a retry that switched the line on: the default compile only left it out.
            verdict.notes.append(f"the default compile: {backend}")
            return verdict
        if verdict.verdict == INCONCLUSIVE:
            verdict.message = f"{verdict.message} ({backend})"
        else:
            verdict.message = f"{backend}; {verdict.message}"
        verdict.compiler_message = self.first_line()
        return verdict

    def not_reached(self, finding: Finding, reach: dict) -> Verdict:
        """The line was not compiled: decide it from the first retry that compiled it, else say what kept it
        out."""
        condition = reach.get("condition") or "a condition"
        value = reach.get("value")
        why = condition if value is None else f"`{condition}` was {value} when the graph was built"
        if value is not None and "wanted" in reach:
            why += f" (the line needs it {'true' if reach['wanted'] else 'false'})"
        tried = []
        for retry in self.outcome.get("retries") or []:
            tried.append(retry.get("description") or retry.get("name"))
            retry_reach = (retry.get("reach") or {}).get(str(finding.line))
            if retry.get("error", {}).get("stage") != "construction" and (
                    retry_reach is None or retry_reach.get("reached") is False):
                continue
            outcome = dict(self.outcome)
            outcome.update(status="ok" if retry.get("compiled") else "error", error=retry.get("error"),
                           compiled=retry.get("compiled"), compile_log=retry.get("compile_log") or [],
                           reach=retry.get("reach") or {}, retries=[], fixes=retry.get("fixes") or [])
            context = _Context(self.job, outcome, self.device, self.level, False)
            verdict = context.after_fixes(finding, context.verdict_for(finding))
            verdict.message = f"with {retry.get('description')}: {verdict.message}"
            verdict.notes.append(f"{_BY_DEFAULT}: {why}")
            return verdict
        message = f"not compiled: {why}"
        if tried:
            message += f"; still not compiled with {', '.join(tried)}"
        elif "self.training" in condition:
            message += " (register an example that calls set_train(True) to compile it)"
        elif "self." in condition:
            message += " (register an example that sets it to compile the line)"
        elif reach.get("value") is not None:
            message += " (an argument left at its default: register an example that passes it)"
        return self.make(finding, NOT_REACHED, message)

    def unit_failure(self, finding: Finding) -> Verdict | None:
        """Verdicts for jobs that never got to a compile result: the same reason for every finding."""
        outcome = self.outcome
        status = self.status
        stage = outcome.get("stage")
        output = outcome.get("output") or {}
        flooded = output.get("limit_reached")
        if status == "timeout":
            message = f"did not finish within {outcome.get('timeout', 0):g} s while {self.stage_phrase(stage)}"
            if stage == "import":
                message += " (does the module run work at import time? guard it with if __name__ == '__main__':)"
            elif stage == "compile":
                message += " (raise --timeout for large models)"
            return self.make(finding, INCONCLUSIVE, message)
        if status == "crashed":
            message = f"the worker process died ({outcome.get('exit')}) while {self.stage_phrase(stage)}"
            if isinstance(outcome.get("returncode"), int) and outcome["returncode"] >= 0:
                message += "; the code called os._exit() or the interpreter aborted"
            last = _last_line(output.get("tail") or output.get("head") or "")
            if last:
                message += f"; last output: {last}"
            return self.make(finding, INCONCLUSIVE, message)
        if status == "out_of_memory":
            message = (
                f"used more than the {outcome.get('memory_limit_mb')} MB memory limit while "
                f"{self.stage_phrase(stage)} ({outcome.get('rss_mb')} MB resident); the worker was ended"
            )
            return self.make(finding, INCONCLUSIVE, message)
        error_stage = (self.error or {}).get("stage")
        if status == "exit":
            code = outcome.get("exit_code")
            return self.make(
                finding, INCONCLUSIVE,
                f"the code called sys.exit({'' if code is None else code!r}) while {self.stage_phrase(error_stage)}",
            )
        if status == "error" and (self.error or {}).get("type") == "MemoryError":
            limit = outcome.get("memory_limit_mb")
            return self.make(
                finding, INCONCLUSIVE,
                f"ran out of memory while {self.stage_phrase(error_stage)}"
                + (f" (memory limit {limit} MB; raise it with --memory-limit)" if limit else ""),
            )
        if status == "error" and error_stage in ("import", "examples", "resolve", "instance", "probe", "start"):
            where = {
                "import": f"importing {self.job.location.module} raised",
                "examples": f"the examples file {outcome.get('examples_file') or self.job.examples_file} raised",
            }.get(error_stage, f"{self.stage_phrase(error_stage)} raised")
            message = f"{where} {self.first_line()}"
            if flooded:
                limit = outcome.get("output_limit_bytes") or 0
                message = (f"printed more than the {limit / (1 << 20):g} MB output limit while "
                           f"{self.stage_phrase(error_stage)}, so its writes failed: {self.first_line()}")
            where = _raised_at(self.error)
            if where:
                message += f" (at {where})"
            return self.make(finding, INCONCLUSIVE, message, compiler_message=None)
        if status == "not_found" or status == "not_compilable":
            return self.make(finding, INCONCLUSIVE, outcome.get("message", "nothing to compile"))
        if status == "needs_example":
            return self.make(
                finding, INCONCLUSIVE,
                f"{outcome.get('needs')}: no example is registered for {self.job.target}",
                example=self.example_text(concrete=expectation_for(finding.code).check == RANDOMNESS_PROBE),
            )
        return None

    def construction_failed(self, finding: Finding, expectation: Expectation, stage: str) -> Verdict:
        error = self.error or {}
        first = self.first_line()
        kind_matches = expectation.error_matches(error.get("type", ""), error.get("message", ""))
        if expectation.check == CONSTRUCTION and kind_matches and _raised_through_line(error, finding):
            return self.make(finding, CONFIRMED, first, compiler_message=first)
        named = _named_attribute(error.get("message", "") or first)
        # A finding without data (a rule that does not give it yet) is taken to be about what its line names.
        names_this_finding = not named or (_line_mentions(finding, named)
                                           and (not finding.data or names_attribute(finding, named)))
        if kind_matches and _raised_at_line(error, finding) and names_this_finding:
            # The finding's own error, raised at its line by code the constructor runs (a method MindSpore's tensors
            # lack, PyTorch's sizes to ops.zeros): it fails there first.
            return self.make(finding, CONFIRMED, f"{first} (raised at this line while building the instance)",
                             compiler_message=first, compiler_location=_raised_at(error) or None)
        kernel = missing_kernel(error.get("message") or first)
        if kernel and not (expectation.check == CONSTRUCTION and kind_matches):
            raised_at = _raised_at(error)
            return self.make(
                finding, INCONCLUSIVE,
                f"this MindSpore has no {self.device} kernel for {kernel}, which building the Cell runs"
                + (f" (at {raised_at})" if raised_at else "")
                + ": the code targets another device; validate there with --device Ascend or GPU",
                compiler_message=first,
            )
        who = "the example" if stage == "example" else (
            self.outcome.get("built") or f"{self.job.qualname}() (no arguments)")
        if stage != "example" and self.outcome.get("tried") and len(self.outcome["tried"]) > 1:
            who += f" (and {len(self.outcome['tried']) - 1} other way(s) of building it)"
        raised_at = _raised_at(error)
        where = f" at {raised_at}" if raised_at else ""
        return self.make(
            finding, INCONCLUSIVE, f"{who} raised {first}{where}, so nothing could be compiled",
            compiler_message=first,
            example=self.example_text() if stage == "construction" else None,
        )

    def compile_failed(self, finding: Finding, expectation: Expectation) -> Verdict:
        error = self.error or {}
        first = self.first_line()
        kind_matches = expectation.error_matches(error.get("type", ""), error.get("message", ""))
        unbound = unbound_name(error.get("message", "")) if finding.code == "MS116" else None
        if unbound is not None and finding.data.get("name") != unbound:
            kind_matches = False  # the name MindSpore found unbound is another finding's
        at_line = [loc for loc in self.user_locations if loc.start == finding.line]
        around = [loc for loc in self.user_locations if loc.contains(finding.line)]
        if at_line and _on_definition(finding) and not kind_matches:
            at_line = []  # a ``def`` line is where any error of the function's signature points, not only the rule's
        if at_line:
            return self.make(finding, CONFIRMED, first, compiler_message=first,
                             compiler_location=self.location_text(at_line[0]))
        graph = _graph_of_definition(finding, error.get("message", ""))
        if graph and kind_matches:
            # A finding on a ``def`` line (MS119) whose function's graph the error names: MindSpore 2.10 may print
            # the traceback of an earlier failed compile of the same process next to it, so lines do not tell.
            return self.make(finding, CONFIRMED, f"{first} (the error names {graph})",
                             compiler_message=first)
        named = _named_attribute(error.get("message", "") or first)
        if named and kind_matches and _line_mentions(finding, named):
            return self.make(finding, CONFIRMED, f"{first} (the error names .{named}, which this line uses)",
                             compiler_message=first)
        # An error naming an attribute that another finding's line uses is that finding's, not this one's; so is an
        # error located at the line of another finding whose kind of error it is (an MS108 write at its own line does
        # not confirm an MS103 further down because both rules' messages speak of member attributes; one output type
        # built from tensors is not another) -- but for a finding on a ``def`` line of the same rule, since
        # MindSpore 2.10 may print an earlier compile's traceback with the error;
        # so is an error naming the graph of the method another finding's ``def`` line starts (construct's MS119 is
        # not the MS119 of the bprop beside it).
        elsewhere = named and any(other is not finding and _line_mentions(other, named) for other in self.job.findings)
        elsewhere = elsewhere or any(other is not finding and _graph_of_definition(other, error.get("message", ""))
                                     for other in self.job.findings)
        elsewhere = elsewhere or any(
            (other.code != finding.code or not _on_definition(finding)) and other.line != finding.line
            and any(location.start == other.line for location in self.user_locations)
            and expectation_for(other.code).error_matches(error.get("type", ""), error.get("message", ""))
            for other in self.job.findings)
        if kind_matches and not elsewhere and (around or expectation.located_anywhere(finding)
                                               or not self.user_locations):
            location = (around or self.user_locations or [None])[0]
            return self.make(finding, CONFIRMED, first, compiler_message=first,
                             compiler_location=self.location_text(location))
        if expectation.check == PARAMETER_PROBE:
            probed = self.parameter_verdict(finding, compiled=False)
            if probed.verdict == CONFIRMED_BY_PROBE:
                probed.compiler_message = first
                return probed
        if self.user_locations:
            # The locations run from construct inwards: the innermost one at another finding, else the innermost.
            owned = [(location, f) for location in reversed(self.user_locations) for f in self.job.findings
                     if f is not finding and location.start == f.line]
            location, owner = owned[0] if owned else (self.user_locations[-1], None)
            if owner is not None:
                message = (f"compilation stopped earlier, at line {location.start} ({owner.code}), before "
                           f"reaching this line")
            else:
                message = f"the compile failed at line {location.start}, not at this finding: {first}"
                message += self.left_at_none(first, location)
            return self.make(finding, INCONCLUSIVE, message, compiler_message=first,
                             compiler_location=self.location_text(location))
        message = f"the compile failed with an error unrelated to this finding: {first}"
        built_by_us = self.outcome.get("instance") not in (None, "example")
        if built_by_us:
            message += " (placeholder inputs may not fit this Cell: register an example with real shapes)"
        return self.make(finding, INCONCLUSIVE, message, compiler_message=first,
                         example=self.example_text() if built_by_us else None)

    def compiled(self, finding: Finding, expectation: Expectation) -> Verdict:
        where = f"compiles under {self.level.upper()} on {self.device}"
        reach = (self.outcome.get("reach") or {}).get(str(finding.line)) or {}
        if reach.get("reached") is True:
            # The evidence: every constant condition over the line held on the compiled instance.
            where += f" with line {finding.line} in the graph"
        elif ((self.outcome.get("markers") or {}).get(str(finding.line)) or {}).get("in_graph"):
            where += (f" with line {finding.line} in the graph (the compile stopped there with the line replaced by a "
                      f"call that raises when compiled)")
        if expectation.check == PARAMETER_PROBE:
            return self.parameter_verdict(finding, compiled=True)
        if expectation.check == RANDOMNESS_PROBE:
            return self.randomness_verdict(finding)
        if expectation.check == OUTPUT_PROBE:
            return self.output_verdict(finding)
        if expectation.check == STATE_PROBE:
            return self.state_verdict(finding)
        if expectation.check == SILENT:
            return self.make(finding, NOT_APPLICABLE, f"{where}, as expected: {expectation.silent_note}")
        if expectation.check == COMPILE and not expectation.expected_to_fail(self.level):
            if expectation.silent:
                return self.make(finding, NOT_APPLICABLE, f"{where}, as expected: {expectation.silent_note}")
            note = f" ({expectation.silent_note})" if expectation.silent_note else ""
            return self.make(finding, NOT_REPRODUCED, f"{where}{note}")
        return self.make(finding, NOT_REPRODUCED, where)

    def parameter_verdict(self, finding: Finding, compiled: bool) -> Verdict:
        probe = (self.outcome.get("probes") or {}).get("parameters")
        if not probe:
            return self.make(finding, INCONCLUSIVE, "the parameter probe did not run (no instance was built)")
        if "error" in probe:
            return self.make(finding, INCONCLUSIVE, f"the parameter probe failed: {probe['error']}")
        attribute = self.job.container_attributes.get(finding.line)
        containers = probe.get("containers") or []
        candidates = [c for c in containers if c["attribute"] == attribute] if attribute else containers
        lost = [c for c in candidates if c.get("missing_count")]
        holder = _holders(lost or candidates) or (f"self.{attribute}" if attribute else "plain containers")
        if lost:
            count = sum(c["missing_count"] for c in lost)
            names = [name for c in lost for name in c["missing"]]
            shown = ", ".join(names[:6]) + (", ..." if count > 6 else "")
            kinds = "/".join(sorted({c["kind"] for c in lost}))
            message = (f"trainable_params() misses {count} parameter(s) held in the plain {kinds} {holder}: "
                       f"{shown}; they are never trained or saved")
            duplicates = probe.get("duplicate_names") or []
            if duplicates:
                message += f"; parameter names used twice: {', '.join(duplicates[:6])}"
            return self.make(finding, CONFIRMED_BY_PROBE, message)
        if candidates:
            cells = sum(c["cells"] for c in candidates)
            parameters = sum(c["parameters"] for c in candidates)
            held = sum(c.get("held_parameters", 0) for c in candidates)
            prefix = "compiles; " if compiled else ""
            if held == 0:
                return self.make(
                    finding, NOT_REPRODUCED,
                    f"{prefix}{holder} holds {cells} Cell(s) without parameters, so trainable_params() misses "
                    f"nothing",
                )
            what = ", ".join(part for part in (f"{cells} Cell(s)" if cells else "",
                                               f"{parameters} Parameter(s)" if parameters else "") if part)
            return self.make(
                finding, NOT_REPRODUCED,
                f"{prefix}{holder} holds {what} whose {held} parameter(s) are all registered through other "
                f"attributes, so trainable_params() misses none",
            )
        return self.make(
            finding, INCONCLUSIVE,
            f"{holder} held no Cells or Parameters once the instance was built, so the probe saw nothing "
            f"(is it filled later? register an example that builds it fully)",
            example=self.example_text(),
        )

    def randomness_verdict(self, finding: Finding) -> Verdict:
        probe = (self.outcome.get("probes") or {}).get("randomness") or {}
        if "skipped" in probe:
            return self.make(finding, INCONCLUSIVE, f"the randomness probe was skipped: {probe['skipped']}",
                             example=self.example_text(concrete=True))
        if "error" in probe:
            return self.make(finding, INCONCLUSIVE, f"the randomness probe failed: {probe['error']}")
        if not probe:
            return self.make(finding, INCONCLUSIVE, "the randomness probe did not run",
                             example=self.example_text(concrete=True))
        if probe.get("graph_repeats") and not probe.get("pynative_repeats"):
            return self.make(
                finding, CONFIRMED_BY_PROBE,
                "two calls on the same input return identical outputs in GRAPH_MODE and different ones in "
                "PyNative: the random value is drawn once at compile time",
            )
        if not probe.get("graph_repeats"):
            return self.make(finding, NOT_REPRODUCED, "two GRAPH_MODE calls on the same input return different "
                             "outputs: the random value is not frozen")
        return self.make(finding, INCONCLUSIVE, "outputs repeat in PyNative too: for this example the random "
                         "value does not reach the output")

    def _probe_result(self, finding: Finding, name: str) -> tuple[dict, Verdict | None]:
        """The probe's result, or the inconclusive verdict when it did not give one."""
        probe = (self.outcome.get("probes") or {}).get(name) or {}
        if "skipped" in probe:
            return probe, self.make(finding, INCONCLUSIVE, f"the {name} probe was skipped: {probe['skipped']}",
                                    example=self.example_text(concrete=True))
        if "error" in probe:
            return probe, self.make(finding, INCONCLUSIVE, f"the {name} probe failed: {probe['error']}")
        if not probe:
            return probe, self.make(finding, INCONCLUSIVE, f"the {name} probe did not run",
                                    example=self.example_text(concrete=True))
        return probe, None

    def output_verdict(self, finding: Finding) -> Verdict:
        probe, inconclusive = self._probe_result(finding, "output")
        if inconclusive is not None:
            return inconclusive
        graph, pynative = probe.get("graph_type"), probe.get("pynative_type")
        if pynative == "dict" and graph != "dict":
            keys = ", ".join(repr(key) for key in probe.get("keys") or [])
            return self.make(
                finding, CONFIRMED_BY_PROBE,
                f"the Cell returns a dict ({keys}) in PyNative and a {graph} in GRAPH_MODE under "
                f"{self.level.upper()}: indexing its result by key fails in the caller",
            )
        if graph == "dict":
            return self.make(finding, NOT_REPRODUCED, f"GRAPH_MODE under {self.level.upper()} returns the dict")
        return self.make(finding, INCONCLUSIVE, f"for this example the Cell returns a {pynative} in PyNative, "
                         "not a dict")

    def state_verdict(self, finding: Finding) -> Verdict:
        probe, inconclusive = self._probe_result(finding, "state")
        if inconclusive is not None:
            return inconclusive
        changed = ", ".join(probe.get("changed") or [])
        if probe.get("graph_unchanged") and not probe.get("pynative_unchanged"):
            return self.make(
                finding, CONFIRMED_BY_PROBE,
                f"changing {changed} between two calls changes the output in PyNative and not in GRAPH_MODE: "
                "the graph keeps the value of its first call",
            )
        if not probe.get("graph_unchanged"):
            return self.make(finding, NOT_REPRODUCED, f"changing {changed} between two calls changes the "
                             "GRAPH_MODE output too")
        return self.make(finding, INCONCLUSIVE, f"changing {changed} does not change the output in PyNative "
                         "either: for this example the value does not reach the output")


def confirm_across_units(verdicts: list[Verdict], results: list) -> None:
    """Confirm, in place, findings another unit's failure points at.

    A Cell that needs arguments (so no instance of its own) is often built and compiled by a bigger Cell that
    has defaults: when that compile fails at the finding's line, or its construction raises there with the
    finding's kind of error, the finding is confirmed. ``results``: ``(job, outcome)`` for every unit.
    """
    evidence = []
    for job, outcome in results:
        error = outcome.get("error") or {}
        stage = error.get("stage")
        if stage == "compile" and not backend_kernel_failure(error.get("message") or ""):
            text = (error.get("message") or "") + "\n" + "\n".join(outcome.get("compile_log") or [])
            for location in parse_locations(text):
                evidence.append((location.path, location.start, error, job.target, "compiling"))
        elif stage in ("construction", "example"):
            frames = error.get("traceback") or []
            if frames and isinstance(frames[-1], (list, tuple)):
                evidence.append((frames[-1][0], frames[-1][1], error, job.target, "building"))
    if not evidence:
        return
    for verdict in verdicts:
        if verdict.verdict != INCONCLUSIVE:
            continue
        finding = verdict.finding
        expectation = expectation_for(finding.code)
        for path, line, error, target, doing in evidence:
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
        outcome = outcomes.get(verdict.target) or {}
        error = outcome.get("error") or {}
        if error.get("stage") not in ("construction", "example") or outcome.get("fixes"):
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
    """``with a function returning its first argument in place of the name MindSpore lacks at line 404 (MS607)``."""
    from ms_lint.validate.project import display_path

    places = ", ".join(dict.fromkeys(f"{display_path(entry['path'])}:{entry['line']}" if entry.get("path")
                                     else f"line {entry['line']}" for entry in entries))
    return f"with a function returning its first argument in place of the name MindSpore lacks at {places} (MS607)"


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


def _graph_of_definition(finding: Finding, message: str) -> str | None:
    """What of the method whose ``def`` line ``finding`` sits on the error message names: ``the graph of
    Class.method`` (``FunctionGraph : pkg_module_Class_method_20``), or one of its inputs when the method is
    ``construct`` (``Miss argument input for parameter:scale``: only the graph a compile starts from takes
    inputs); None when it names neither."""
    method = _defined_at(finding)
    if method is None or not finding.scope:
        return None
    owner = finding.scope.split(".")[-1]
    graph = re.search(r"FunctionGraph(?: ID)? : (\S+)", message)
    if graph is not None and f"_{owner}_{method}_" in graph.group(1) + "_":
        return f"the graph of {owner}.{method}"
    missing = re.search(r"Miss argument input for parameter:\s*(\w+)", message)
    if missing is not None and method == "construct" \
            and missing.group(1) in _parameters_of_definition(finding.path, finding.line):
        return f"`{missing.group(1)}`, an input of {owner}.{method}"
    return None


def _defined_at(finding: Finding) -> str | None:
    """The name of the function whose ``def`` line ``finding`` sits on; None when it sits on another line."""
    method = re.match(r"\s*(?:async\s+)?def (\w+)", linecache.getline(finding.path, finding.line))
    return method.group(1) if method else None


def _on_definition(finding: Finding) -> bool:
    return _defined_at(finding) is not None


def _parameters_of_definition(path: str, line: int) -> frozenset[str]:
    """The parameter names of the function defined at ``line`` of ``path``, its header read up to the colon."""
    header = []
    for number in range(line, line + 40):
        text = linecache.getline(path, number)
        if not text:
            break
        header.append(text.strip())
        try:
            definition = ast.parse(" ".join(header).removeprefix("async ") + " pass").body[0]
        except SyntaxError:
            continue
        arguments = definition.args
        return frozenset(argument.arg for argument in (*arguments.posonlyargs, *arguments.args,
                                                       *arguments.kwonlyargs, arguments.vararg, arguments.kwarg)
                         if argument is not None)
    return frozenset()


def _named_attribute(message: str) -> str | None:
    """The attribute an AttributeError-like compile error names (``has no attribute '_idx'``)."""
    match = re.search(r"attribute[s]?(?: named)?:? ['\"](\w+)['\"]", message or "")
    return match.group(1) if match else None


def _line_mentions(finding: Finding, attribute: str) -> bool:
    text = linecache.getline(finding.path, finding.line)
    return bool(re.search(rf"\.{re.escape(attribute)}\b", text))


def _raised_at_line(error: dict, finding: Finding) -> bool:
    frames = (error or {}).get("traceback") or []
    if not frames or not isinstance(frames[-1], (list, tuple)):
        return False
    return frames[-1][1] == finding.line and same_file(frames[-1][0], finding.path)


def _raised_through_line(error: dict, finding: Finding) -> bool:
    """Whether building raised in a call made at the finding's line, or at no line of its file that the traceback
    shows (an example's error: it names no line); an error raised at another line of the file is that line's."""
    frames = [frame for frame in (error or {}).get("traceback") or []
              if isinstance(frame, (list, tuple)) and len(frame) >= 2 and same_file(frame[0], finding.path)]
    return not frames or any(frame[1] == finding.line for frame in frames)


def _raised_at(error: dict | None) -> str:
    """Where user code raised: the last traceback frame outside MindSpore, as ``path:line``."""
    from ms_lint.validate.project import display_path

    frames = (error or {}).get("traceback") or []
    if not frames or not isinstance(frames[-1], (list, tuple)):
        return ""
    path, line = frames[-1][0], frames[-1][1]
    return f"{display_path(path)}:{line}"


def _holders(containers: list[dict]) -> str:
    names = []
    for container in containers:
        owner = f"{container['owner']}." if container.get("owner") else ""
        name = f"self.{owner}{container['attribute']}"
        if name not in names:
            names.append(name)
    return ", ".join(names)


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return ""
    line = lines[-1]
    return line if len(line) <= 200 else line[:197] + "..."
