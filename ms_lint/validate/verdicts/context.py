"""One unit's outcome read for each of its findings: the unit's own failure first (a timeout, a crash, an import
that raised), then the evidence of the build and compile (``compiles``), of the compiles with fixes and retries
(``retried``) and of the probes (``probed``)."""
from __future__ import annotations

from ms_lint.findings import Finding
from ms_lint.validate.expectations import (
    COMPILE,
    CONSTRUCTION,
    FORWARD_COUNT_PROBE,
    GRADIENT_PROBE,
    MODULE_LEVEL,
    RANDOMNESS_PROBE,
    built_at_its_line,
    expectation_for,
    judged_eagerly,
)
from ms_lint.validate.fallbacks import backend_kernel_failure
from ms_lint.validate.locations import Location, parse_locations, same_file
from ms_lint.validate.outcome import Outcome
from ms_lint.validate.verdicts.base import (
    INCONCLUSIVE,
    NOT_APPLICABLE,
    NOT_REACHED,
    NOT_REPRODUCED,
    Verdict,
    last_line,
    raise_site,
    module_level_verdict,
)
from ms_lint.validate.verdicts import compiles, probed, retried


class _Context:
    def __init__(self, job, outcome: Outcome, device: str, level: str, cached: bool):
        self.job = job
        self.outcome = outcome
        self.device = device
        self.level = level
        self.error = outcome.error or None
        self.status = outcome.status or "ok"
        text = ""
        if self.error:
            text = (self.error.get("message") or "") + "\n" + "\n".join(outcome.compile_log or [])
        self.locations = parse_locations(text)
        self.user_locations = [loc for loc in self.locations if same_file(loc.path, job.path)]

    def with_outcome(self, outcome: Outcome, level: str) -> "_Context":
        """The same unit read from another outcome (a compile with fixes, a retry), at ``level``."""
        return _Context(self.job, outcome, self.device, level, False)

    def make(self, finding: Finding, verdict: str, message: str, **extra) -> Verdict:
        return Verdict(finding, verdict, message, self.device, self.level, self.job.target,
                       mode="pynative" if judged_eagerly(finding) else "graph", **extra)

    def stage_phrase(self, stage: str | None) -> str:
        return _STAGE_PHRASES.get(stage or "", stage or "running the job")

    def example_text(self, concrete: bool = False) -> str:
        from ms_lint.examples import suggest_example

        signature = self.outcome.signature or {}
        return suggest_example(
            self.job.target,
            init_parameters=signature.get("init", []),
            call_parameters=signature.get("call", []),
            is_cell=(self.outcome.kind or "cell") == "cell",
            concrete_inputs=concrete,
        )

    def first_line(self) -> str:
        return (self.error or {}).get("first_line") or ""

    def location_text(self, location: Location | None) -> str | None:
        if location is None:
            return None
        return f"{location.path}:{location.start}"

    def verdict_for(self, finding: Finding) -> Verdict:
        expectation = expectation_for(finding.code)
        if expectation.check == MODULE_LEVEL:
            return module_level_verdict(finding, self.device, self.level)
        method = self.job.not_run.get(finding.line) if expectation.check == CONSTRUCTION else None
        if method is not None:
            return self.make(finding, NOT_REACHED, f"not run: {method}() is called neither while building "
                                                   f"{self.job.qualname} nor from construct")
        if expectation.check == FORWARD_COUNT_PROBE:
            counted = probed.forward_verdict(self, finding)
            if counted is not None:
                return counted
        failure = self.unit_failure(finding)
        if failure is not None:
            return failure
        error_stage = (self.error or {}).get("stage")
        built_lines = self.outcome.built_lines
        if built_at_its_line(finding.code) and built_lines is not None and finding.line not in built_lines \
                and error_stage not in ("construction", "example"):
            return retried.not_built(self, finding)
        if self.error and error_stage in ("construction", "example"):
            return compiles.construction_failed(self, finding, expectation, error_stage)
        if expectation.check == GRADIENT_PROBE:
            return probed.gradient_verdict(self, finding)
        if self.error and error_stage == "compile":
            kernel = backend_kernel_failure(self.error.get("message") or "")
            if kernel:
                return compiles.frontend_passed(self, finding, kernel)
            reach = (self.outcome.reach or {}).get(str(finding.line)) or {}
            located_here = any(loc.start == finding.line for loc in self.user_locations)
            if reach.get("reached") is False and expectation.check in (COMPILE, RANDOMNESS_PROBE) \
                    and not located_here:
                # The failure is elsewhere and the line was left out anyway: decided by a retry that has it.
                verdict = retried.not_reached(self, finding, reach)
                if verdict.verdict == NOT_REACHED:
                    verdict.notes.append(f"the compile failed elsewhere: {self.first_line()}")
                return verdict
            return compiles.compile_failed(self, finding, expectation)
        if expectation.check == CONSTRUCTION:
            who = "the example" if self.outcome.instance == "example" else f"{self.job.qualname}()"
            return self.make(finding, NOT_REPRODUCED, f"{who} built the instance and it compiled without error")
        reach = (self.outcome.reach or {}).get(str(finding.line))
        if reach is not None and expectation.check in (COMPILE, RANDOMNESS_PROBE):
            if reach.get("reached") is False:
                return retried.not_reached(self, finding, reach)
            marker = (self.outcome.markers or {}).get(str(finding.line)) or {}
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
        return compiles.compiled(self, finding, expectation)

    def decided(self, finding: Finding) -> Verdict:
        """The verdict of the unit's compile, then of each later piece of evidence that may decide what it left
        undecided: the compiles with fixes, a type built alone, a host method called, and last, what does not run
        the line itself, a name looked up or a method called on a bare tensor."""
        verdict = retried.after_fixes(self, finding, self.verdict_for(finding))
        verdict = probed.built_alone(self, finding, verdict)
        verdict = probed.host_called(self, finding, verdict)
        verdict = probed.looked_up(self, finding, verdict)
        expectation = expectation_for(finding.code)
        silent = expectation.silent_when is not None and expectation.silent_when(finding)
        if verdict.verdict == NOT_REPRODUCED and silent:
            return self.make(finding, NOT_APPLICABLE, f"{verdict.message}, as expected: {expectation.silent_note}")
        return verdict

    def unit_failure(self, finding: Finding) -> Verdict | None:
        """Verdicts for jobs that never got to a compile result: the same reason for every finding."""
        outcome = self.outcome
        status = self.status
        stage = outcome.stage
        output = outcome.output or {}
        flooded = output.get("limit_reached")
        if status == "timeout":
            message = f"did not finish within {(outcome.timeout or 0):g} s while {self.stage_phrase(stage)}"
            if stage == "import":
                message += " (does the module run work at import time? guard it with if __name__ == '__main__':)"
            elif stage == "compile":
                message += " (raise --timeout for large models)"
            return self.make(finding, INCONCLUSIVE, message)
        if status == "crashed":
            message = f"the worker process died ({outcome.exit}) while {self.stage_phrase(stage)}"
            if isinstance(outcome.returncode, int) and outcome.returncode >= 0:
                message += "; the code called os._exit() or the interpreter aborted"
            last = last_line(output.get("tail") or output.get("head") or "")
            if last:
                message += f"; last output: {last}"
            return self.make(finding, INCONCLUSIVE, message)
        if status == "out_of_memory":
            message = (
                f"used more than the {outcome.memory_limit_mb} MB memory limit while "
                f"{self.stage_phrase(stage)} ({outcome.rss_mb} MB resident); the worker was ended"
            )
            return self.make(finding, INCONCLUSIVE, message)
        error_stage = (self.error or {}).get("stage")
        if outcome.stand_in_uses and status in ("ok", "error", "exit"):
            shown = ", ".join(outcome.stand_in_uses[:3]) + (", ..." if len(outcome.stand_in_uses) > 3 else "")
            packages = ", ".join(outcome.stand_ins or [])
            return self.make(
                finding, INCONCLUSIVE,
                f"building or compiling {self.job.qualname} used the stand-in for the missing package(s) {packages} "
                f"({shown}): what it would do with the real package is unknown; install {packages} to validate it",
            )
        if status == "exit":
            code = outcome.exit_code
            return self.make(
                finding, INCONCLUSIVE,
                f"the code called sys.exit({'' if code is None else code!r}) while {self.stage_phrase(error_stage)}",
            )
        if status == "error" and (self.error or {}).get("type") == "MemoryError":
            limit = outcome.memory_limit_mb
            return self.make(
                finding, INCONCLUSIVE,
                f"ran out of memory while {self.stage_phrase(error_stage)}"
                + (f" (memory limit {limit} MB; raise it with --memory-limit)" if limit else ""),
            )
        if status == "error" and error_stage in ("import", "examples", "resolve", "instance", "probe", "start"):
            where = {
                "import": f"importing {self.job.location.module} raised",
                "examples": f"the examples file {outcome.examples_file or self.job.examples_file} raised",
            }.get(error_stage, f"{self.stage_phrase(error_stage)} raised")
            message = f"{where} {self.first_line()}"
            if flooded:
                limit = outcome.output_limit_bytes or 0
                message = (f"printed more than the {limit / (1 << 20):g} MB output limit while "
                           f"{self.stage_phrase(error_stage)}, so its writes failed: {self.first_line()}")
            where = raise_site(self.error)
            if where:
                message += f" (at {where})"
            return self.make(finding, INCONCLUSIVE, message, compiler_message=None)
        if status == "not_found" or status == "not_compilable":
            return self.make(finding, INCONCLUSIVE, outcome.message or "nothing to compile")
        if status == "needs_example":
            return self.make(
                finding, INCONCLUSIVE,
                f"{outcome.needs}: no example is registered for {self.job.target}",
                example=self.example_text(concrete=expectation_for(finding.code).check == RANDOMNESS_PROBE),
            )
        return None


_STAGE_PHRASES = {
    "start": "starting the job",
    "import": "importing the module",
    "examples": "loading the examples file",
    "resolve": "looking up the target",
    "instance": "building the instance",
    "example": "running the example",
    "construction": "building the instance",
    "compile": "compiling",
    "run": "running it in PyNative",
    "probe": "probing",
    "retry": "compiling again",
    "fix": "compiling with a fix applied",
}
