"""A whole validation run: static checks -> jobs -> cache or workers -> verdicts -> report.

Results are recorded as they arrive (cache entries and the run log); an interrupted run (Ctrl-C, SIGTERM from
a CI timeout) stops the workers and still reports what it checked and what it did not.
"""
from __future__ import annotations

import os
import time
from concurrent.futures import FIRST_COMPLETED, wait
from dataclasses import dataclass, field
from typing import Callable

from ms_lint.findings import Finding
from ms_lint.validate.cache import OutcomeCache, RunLog
from ms_lint.validate.dependencies import DependencyIndex
from ms_lint.validate.outcome import Outcome
from ms_lint.validate.planning import Job, plan_jobs
from ms_lint.validate.project import CACHE_DIR_NAME, EXAMPLES_FILE_NAME, ProjectError, locate_module
from ms_lint.validate.verdicts.reached import combine as combine_reached
from ms_lint.validate.verdicts.reached import unreached as unreached_verdict
from ms_lint.validate.verdicts import (
    Verdict,
    blame_other_findings,
    confirm_across_units,
    decide,
    module_level_verdict,
    not_checked_verdict,
)

DEVICES = {"cpu": "CPU", "gpu": "GPU", "ascend": "Ascend"}
SYNTAX_LEVELS = ("strict", "lax")
RUN_LOG_NAME = "last-validate-run.jsonl"
# Bumped when what a stored finding holds changes (its ``data``, which planning reads; its ``target``), so old entries
# are not reused.
FINDINGS_FORMAT = 3


class ValidateError(Exception):
    """Something that stops the whole run; ``str()`` is one line for the user."""


@dataclass
class ValidateOptions:
    """``device`` and ``syntax_level``: None (or empty) for what ``ms-lint check`` infers (``RunTarget``)."""

    device: str | None = "CPU"
    syntax_level: str | None = "strict"
    jobs: int | None = None
    timeout: float = 120.0
    memory_limit_mb: int = 4096
    output_limit_mb: float = 64
    examples: str | None = None
    use_cache: bool = True
    results_path: str | None = None  # the run log; default: .ms_lint_cache/last-validate-run.jsonl
    # where the device and the syntax level came from, when set (``--device``, ``[tool.ms-lint.validate]``)
    origins: dict = field(default_factory=dict)

    def normalized(self) -> "ValidateOptions":
        device = DEVICES.get(str(self.device).strip().lower()) if self.device else None
        if self.device and device is None:
            raise ValidateError(f"unknown device {self.device!r}: use one of CPU, GPU, Ascend")
        level = str(self.syntax_level).strip().lower() if self.syntax_level else None
        if level is not None and level not in SYNTAX_LEVELS:
            raise ValidateError(f"unknown syntax level {self.syntax_level!r}: use strict or lax")
        if self.timeout is None or self.timeout <= 0:
            raise ValidateError(f"--timeout must be a positive number of seconds, not {self.timeout!r}")
        if self.jobs is not None and self.jobs < 1:
            raise ValidateError(f"--jobs must be at least 1, not {self.jobs!r}")
        if self.examples and not os.path.isfile(self.examples):
            raise ValidateError(f"examples file {self.examples} does not exist")
        return ValidateOptions(
            device=device, syntax_level=level, jobs=self.jobs, timeout=float(self.timeout),
            memory_limit_mb=int(self.memory_limit_mb), output_limit_mb=self.output_limit_mb,
            examples=self.examples, use_cache=self.use_cache, results_path=self.results_path,
            origins=dict(self.origins),
        )


@dataclass
class UnitResult:
    target: str
    path: str
    status: str
    seconds: float | None
    cached: bool
    compiled: bool | None
    inputs: list[str] = field(default_factory=list)
    instance: str | None = None

    def to_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class Report:
    options: ValidateOptions
    verdicts: list[Verdict]
    units: list[UnitResult]
    mindspore_version: str
    files: int
    seconds: float
    interrupted: bool = False
    not_checked: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    run_log: str | None = None
    # What the run compiled for: the device, and the targets of the files as ``ms-lint check`` names them
    # (``TargetGroup``s: the projects sharing each).
    device: str = ""
    targets: list = field(default_factory=list)
    target_lines: list[str] = field(default_factory=list)

    @property
    def levels(self) -> list[str]:
        """The syntax levels the findings were compiled at, STRICT first."""
        found = {verdict.level for verdict in self.verdicts} or (
            {self.options.syntax_level} if self.options.syntax_level else set())
        return sorted(found, key=lambda level: SYNTAX_LEVELS.index(level) if level in SYNTAX_LEVELS else 9)

    @property
    def confirmed(self) -> list[Verdict]:
        return [verdict for verdict in self.verdicts if verdict.confirmed]


ProgressCallback = Callable[[int, int, str], None]


def static_findings(paths: list[str], lint_options, index: DependencyIndex | None = None,
                    use_cache: bool = True) -> tuple[list[Finding], list[str], list[str]]:
    """``(findings, files, problems)``: the static checks as ``ms-lint check`` runs them (file discovery,
    selection, per-file ignores and ``# noqa`` from the same configuration).

    A file's findings are stored under ``.ms_lint_cache/validate/findings/`` keyed by the ms-lint version, the
    options and the digest of the file and the project modules it imports (what the checks read), so a re-run
    with nothing changed checks nothing again."""
    import hashlib
    import json

    from ms_lint import __version__
    from ms_lint.lint import discover_files, lint_path

    for path in paths:
        if not os.path.exists(path):
            raise ValidateError(f"no such file or directory: {path}")
    files = [
        os.path.abspath(path) for path in discover_files(paths, lint_options)
        if os.path.basename(path) != EXAMPLES_FILE_NAME
    ]
    findings: list[Finding] = []
    problems: list[str] = []
    options_text = f"{__version__}\0{FINDINGS_FORMAT}\0{lint_options!r}"
    for path in files:
        stored = None
        if index is not None:
            location = locate_module(path)
            digest = index.closure_digest(path, location.import_root, location.project_root)
            key = hashlib.sha256(f"{options_text}\0{path}\0{digest}".encode()).hexdigest()
            stored = os.path.join(location.project_root, CACHE_DIR_NAME, "validate", "findings", f"{key}.json")
            if use_cache:
                try:
                    with open(stored, encoding="utf-8") as handle:
                        findings.extend(Finding(**item) for item in json.load(handle))
                    continue
                except (OSError, ValueError, TypeError):
                    pass
        reported, error = lint_path(path, lint_options)
        if error:
            problems.append(error)
            continue
        findings.extend(item.finding for item in reported)
        if stored is not None and index is not None:
            index.pending_findings.append((stored, json.dumps([item.finding.to_dict() for item in reported])))
    return findings, files, problems


def _save_answers() -> None:
    """What the model said of the files (which units reach what) and the devices this machine has, stored for the
    next run where the project's cache exists now."""
    from ms_lint.validate.roots import save_records
    from ms_lint.validate.run_target import save_devices

    save_records()
    save_devices()


def _save_findings(index: DependencyIndex) -> None:
    """Store the static findings of this run, in projects whose cache the run created or found."""
    from ms_lint.validate.cache import write_atomically

    for stored, text in index.pending_findings:
        cache_root = os.path.dirname(os.path.dirname(os.path.dirname(stored)))
        if not os.path.isdir(cache_root):
            continue  # a run with nothing to compile leaves the project alone
        try:
            os.makedirs(os.path.dirname(stored), exist_ok=True)
            write_atomically(stored, text)
        except OSError:
            pass  # the outcome cache reports an unwritable cache directory
    index.pending_findings.clear()


def lint_options_for(syntax_level: str | None = None, cwd: str | None = None):
    """``ms-lint check``'s options from the configuration files, at the validator's syntax level (none: each
    file's project's, as ``check`` infers it)."""
    from ms_lint.config import ConfigError, resolve_options

    try:
        return resolve_options({"ms-syntax-level": syntax_level or None}, cwd=cwd)
    except ConfigError as exc:
        raise ValidateError(str(exc)) from None


def validate_paths(paths: list[str], options: ValidateOptions, pool=None,
                   progress: ProgressCallback | None = None, lint_options=None) -> Report:
    """Run the static checks over ``paths`` and validate their findings."""
    options = options.normalized()
    lint_options = lint_options or lint_options_for(options.syntax_level)
    _phase(progress, "running the static checks")
    index = DependencyIndex()
    findings, files, problems = static_findings(paths, lint_options, index, use_cache=options.use_cache)
    default_log = None
    if files:
        default_log = os.path.join(locate_module(files[0]).project_root, CACHE_DIR_NAME, RUN_LOG_NAME)
    report = validate_findings(findings, options, pool=pool, progress=progress, files=len(files),
                               default_log=default_log, index=index, lint_options=lint_options, paths=files)
    report.problems[:0] = problems
    return report


def mindspore_version() -> str | None:
    from importlib import metadata

    for name in ("mindspore", "mindspore-gpu", "mindspore-ascend"):
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return None


def validate_findings(findings: list[Finding], options: ValidateOptions, pool=None,
                      progress: ProgressCallback | None = None, files: int | None = None,
                      default_log: str | None = None, index: DependencyIndex | None = None,
                      lint_options=None, paths: list[str] | None = None) -> Report:
    """Verdicts for ``findings``. ``pool``: a started ``WorkerPool`` to use (and leave open); by default the
    run starts its own, sized to the work, and closes it. ``lint_options``: the static checks' options, whose
    target gives each file's syntax level and the device where ``options`` names none; ``paths``: the files
    checked, whose targets the report names."""
    from ms_lint import __version__
    from ms_lint.validate.run_target import resolve_run_target

    options = options.normalized()
    started = time.monotonic()
    version = mindspore_version() or ""
    paths = list(paths) if paths is not None else sorted({os.path.abspath(f.path) for f in findings})
    cache_root = os.path.join(locate_module(paths[0]).project_root, CACHE_DIR_NAME, "validate") if paths else None
    run_target = resolve_run_target(options.device, options.syntax_level, lint_options, paths, version, cache_root,
                                    origins=options.origins)
    _phase(progress, f"planning {len(findings)} finding(s)")
    index = index or DependencyIndex()
    try:
        plan = plan_jobs(findings, options.examples, run_target.device, run_target.level_for, version, __version__,
                         index=index, settings=run_target.lint_options.settings if run_target.lint_options else None)
    except ProjectError as exc:
        raise ValidateError(str(exc)) from None
    device = run_target.device
    verdicts = [module_level_verdict(finding, device, run_target.level_for(finding.path))
                for finding in plan.module_level]
    verdicts += [unreached_verdict(finding, reach, device, run_target.level_for(finding.path))
                 for finding, reach in plan.unreached]
    through: dict[int, tuple] = {}  # id(finding outside any unit) -> (finding, reach, its verdicts per unit)
    units: list[UnitResult] = []
    results: list[tuple[Job, Outcome]] = []
    cache = OutcomeCache(options.use_cache)
    # The default run log lives in the project's cache; a run with nothing to compile leaves it alone.
    log = RunLog(options.results_path or (default_log if plan.jobs else None))
    problems = [log.problem] if log.problem else []
    log.write({
        "event": "start", "device": device, "syntax_level": sorted({job.level for job in plan.jobs}),
        "mindspore": version, "units": [job.target for job in plan.jobs], "findings": len(findings),
    })
    for verdict in verdicts:
        log.write({"event": "finding", "verdict": verdict.to_dict()})

    pending: list[Job] = []
    for job in plan.jobs:
        outcome = cache.get(job.location.project_root, job.cache_key, job.location.import_root)
        if outcome is None:
            pending.append(job)
            continue
        _record(job, outcome, True, device, verdicts, units, log, through)
        results.append((job, outcome))

    _phase(progress, f"{len(plan.jobs) - len(pending)} unit(s) from the cache, {len(pending)} to compile")
    interrupted = False
    not_checked: list[Job] = []
    if pending:
        if not version:
            raise ValidateError("MindSpore is not installed: pip install 'ms-lint[validate]' (or mindspore>=2.10)")
        from ms_lint.validate.pool import WorkerStartError

        own_pool = pool is None
        if own_pool:
            try:
                pool = _start_pool(options, device, len(pending))
            except WorkerStartError as exc:
                raise ValidateError(str(exc)) from None
        futures = {}
        try:
            for job in pending:
                request = job.request(job.level)
                futures[pool.submit(request, timeout=options.timeout, memory_limit_mb=options.memory_limit_mb,
                                    output_limit_bytes=int(options.output_limit_mb * (1 << 20)))] = job
            done_count = 0
            remaining = set(futures)
            if progress:
                progress(0, len(pending), "")
            while remaining:
                finished, remaining = wait(remaining, return_when=FIRST_COMPLETED)
                for future in finished:
                    job = futures[future]
                    error = future.exception()
                    if error is not None:
                        if isinstance(error, WorkerStartError):
                            raise ValidateError(str(error)) from None
                        raise error
                    outcome = future.result()
                    cache.put(job.location.project_root, job.cache_key, outcome, job.location.import_root)
                    _record(job, outcome, False, device, verdicts, units, log, through)
                    results.append((job, outcome))
                    done_count += 1
                    if progress:
                        progress(done_count, len(pending), job.target)
        except KeyboardInterrupt:
            interrupted = True
            for future, job in futures.items():
                if not future.done() or future.cancelled():
                    future.cancel()
                    not_checked.append(job)
            if own_pool:
                pool.close(kill=True)
                own_pool = False
        finally:
            if own_pool:
                pool.close()
    for job in not_checked:
        verdicts.extend(not_checked_verdict(finding, device, job.level, job.target) for finding in job.findings)
        for finding, reach, _ in job.reached:
            through.setdefault(id(finding), (finding, reach, []))[2].append(
                not_checked_verdict(finding, device, job.level, job.target))
    verdicts.extend(combine_reached(finding, reach, found) for finding, reach, found in through.values())
    log.write({"event": "end", "interrupted": interrupted, "not_checked": [job.target for job in not_checked]})
    log.close()
    index.save()
    if plan.examples is not None:
        plan.examples.save()
    _save_answers()
    _save_findings(index)
    problems.extend(cache.problems)
    confirm_across_units(verdicts, results)
    blame_other_findings(verdicts, results)
    if run_target.device_note:
        for verdict in verdicts:
            if verdict.finding.data.get("devices"):
                verdict.notes.append(run_target.device_note)
    verdicts.sort(key=lambda v: (v.finding.path, v.finding.line, v.finding.col, v.finding.code))
    return Report(
        options=options,
        verdicts=verdicts,
        units=units,
        mindspore_version=version,
        files=files if files is not None else len({f.path for f in findings}),
        seconds=time.monotonic() - started,
        interrupted=interrupted,
        not_checked=[job.target for job in not_checked],
        problems=problems,
        run_log=log.path if plan.jobs or options.results_path else None,
        device=device,
        targets=run_target.groups(paths),
        target_lines=run_target.lines(paths),
    )


def _phase(progress, text: str) -> None:
    phase = getattr(progress, "phase", None)
    if phase is not None:
        phase(text)


def _start_pool(options: ValidateOptions, device: str, pending: int):
    from ms_lint.validate.pool import PoolConfig, WorkerPool

    size = options.jobs or min(os.cpu_count() or 1, 4)
    config = PoolConfig(
        device=device,
        size=max(1, min(size, pending)),
        timeout=options.timeout,
        memory_limit_mb=options.memory_limit_mb,
        output_limit_bytes=int(options.output_limit_mb * (1 << 20)),
    )
    return WorkerPool(config)


def _record(job: Job, outcome: Outcome, cached: bool, device: str, verdicts: list, units: list,
            log: RunLog, through: dict) -> None:
    from ms_lint.validate.verdicts.reached import reached_verdicts

    unit_verdicts = decide(job, outcome, device, job.level, cached=cached)
    verdicts.extend(unit_verdicts)
    for (finding, reach, _), verdict in zip(job.reached, reached_verdicts(job, outcome, device, job.level, cached)):
        through.setdefault(id(finding), (finding, reach, []))[2].append(verdict)
        unit_verdicts = [*unit_verdicts, verdict]
    units.append(UnitResult(
        target=job.target,
        path=job.path,
        status=outcome.status or "?",
        seconds=outcome.seconds,
        cached=cached,
        compiled=outcome.compiled,
        inputs=list(outcome.inputs or []),
        instance=outcome.instance,
    ))
    log.write({"event": "unit", "target": job.target, "cached": cached,
               "verdicts": [verdict.to_dict() for verdict in unit_verdicts]})
