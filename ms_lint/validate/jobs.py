"""The job loop: one job through the worker's stages, each a module of its own.

``import`` and ``examples`` and ``resolve`` (``importing``): the unit's module imported, its example loaded, its
target looked up; ``instance`` (``instances``): the Cell built and its inputs made; ``compile`` (``compiling``);
``probe`` (``probes``); ``retry`` and ``fix`` (``retrying``): compiles with the lines a constant condition left out
switched on, and past lines with line-keeping fixes. Each stage module imports only the stages before it; this loop
runs them in order and hands a stage the later one it needs (``instances`` gets ``retrying``'s fix for a build that
raised). Each stage reads and writes the job's ``JobState`` and its typed ``Outcome``. The job runs in a scratch
directory of its own with fds 1 and 2 sent to a file of bounded size; whatever it leaves behind (child processes,
changed environment, a half-imported package) is undone after it.
"""
from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
import time
from functools import partial

from ms_lint.validate import compiling, importing, instances, probes, retrying
from ms_lint.validate.outcome import Outcome, record_exception

OUTPUT_HEAD = 2_000
NOISY_OUTPUT = 1 << 20  # output above this is worth a note in the verdict
STAGES = ("import", "examples", "resolve", "instance", "compile", "probe", "retry", "fix")


class JobState:
    """What the stages of one job hand each other (the module, the target, the instance, its inputs), beside the
    outcome they record."""

    def __init__(self, job: dict):
        self.job = job
        self.stop = False
        self.module = None
        self.example = None
        self.target = None
        self.obj = None
        self.inputs: tuple = ()
        self.eager = None
        self.arguments: tuple | None = None  # (args, kwargs) of the constructor, when ms-lint built the instance
        self.failed_recipe = None  # the way of building it whose error is the job's, when every way raised
        self.lax = False  # compiling under LAX past a line that fails under STRICT only (``retrying.fix_and_rebuild``)
        self.extra_arguments: dict = {}  # passed to construct by name besides the inputs, in a retry
        # inputs made [2, features] for a Linear: the [2, length, features] placeholder to try (``building``)
        self.sequence_inputs: dict[int, tuple] = {}
        self.call_parameters: list[str] = []
        self.started = time.monotonic()
        self.building = self.started  # when building the instance began
        self.host_kernels: set[str] = set()  # operators without a device kernel that building the Cell needed
        self.host_used: set[str] = set()  # those a host fallback computed

    def time_left_for(self, seconds: float) -> bool:
        """Whether a step expected to take ``seconds`` ends within 80% of the job's timeout: extra compiles must
        not turn a job that has its answer into a timeout."""
        timeout = self.job.get("timeout")
        if not timeout:
            return True
        return time.monotonic() - self.started + seconds <= 0.8 * float(timeout)


def _child_processes(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (Linux /proc; elsewhere none are tracked)."""
    children = set()
    try:
        entries = os.listdir("/proc")
    except OSError:
        return children
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 1 and fields[1].isdigit() and int(fields[1]) == pid:
            children.add(int(entry))
    return children


def _end_processes(pids: set[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    for pid in pids:
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
        except OSError:
            pass


def _restore_streams() -> None:
    for name in ("stdout", "stderr"):
        original = getattr(sys, f"__{name}__")
        if getattr(sys, name) is not original and original is not None:
            setattr(sys, name, original)


class OutputCapture:
    """Sends fds 1 and 2 (Python's prints and MindSpore's C++ logs alike) to a file for one job."""

    def __init__(self, path: str):
        flush_streams()
        self.path = path
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o600)
        self.saved = (os.dup(1), os.dup(2))
        os.dup2(self.fd, 1)
        os.dup2(self.fd, 2)
        self.restored = False

    def size(self) -> int:
        flush_streams()
        try:
            return os.fstat(self.fd).st_size
        except OSError:
            return 0

    def read_from(self, offset: int, limit: int = 1 << 20) -> str:
        flush_streams()
        try:
            with open(self.path, "rb") as handle:
                handle.seek(offset)
                return handle.read(limit).decode("utf-8", errors="replace")
        except OSError:
            return ""

    def restore(self) -> None:
        if self.restored:
            return
        flush_streams()
        os.dup2(self.saved[0], 1)
        os.dup2(self.saved[1], 2)
        for fd in (*self.saved, self.fd):
            os.close(fd)
        self.restored = True

    def summary(self, limit: int) -> dict:
        try:
            size = os.path.getsize(self.path)
            with open(self.path, "rb") as handle:
                head = handle.read(OUTPUT_HEAD).decode("utf-8", errors="replace")
        except OSError:
            size, head = 0, ""
        return {"bytes": size, "head": head, "limit_reached": size >= limit}


def flush_streams() -> None:
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass


# The stages a job runs, in order (``compile`` records its error and lets the probes run: see ``compiling``).
_STAGE_FUNCTIONS = {
    "import": importing.stage_import,
    "examples": importing.stage_examples,
    "resolve": importing.stage_resolve,
    "instance": partial(instances.stage_instance, fix_construction=retrying.past_construction_error),
    "probe": probes.stage_probe,
    "retry": retrying.stage_retry,
    "fix": retrying.stage_fix,
}


def _record_stand_in_uses(outcome: Outcome) -> None:
    """The names of the missing packages' stand-ins that building, compiling and probing the unit used."""
    if not outcome.stand_ins:
        return
    from ms_lint.validate import standins

    used = standins.uses()
    if not used and standins.names_a_stand_in((outcome.error or {}).get("message") or ""):
        used = [f"a name of {', '.join(outcome.stand_ins)} (the compiler's error names it)"]
    outcome.stand_in_uses = used or None


def run_job(worker, job: dict) -> Outcome:
    """Run ``job`` (a planning request) in ``worker``; never raises for anything the job's code does."""
    started = time.monotonic()
    worker.forks = 0
    children_before = _child_processes(worker.pid)
    worker.apply_limits(job.get("memory_limit_mb"), job.get("output_limit_bytes"))
    outcome = Outcome(target=job["target"], stage="start", status="ok", notes=[],
                      memory_limit_mb=job.get("memory_limit_mb", worker.memory_limit_mb))
    scratch = tempfile.mkdtemp(prefix="job-", dir=worker.scratch_root)
    previous_cwd = os.getcwd()
    capture = OutputCapture(os.path.join(scratch, "output.txt"))
    worker.capture = capture
    try:
        os.chdir(scratch)
        state = JobState(job)
        if job.get("api_names"):
            # Whatever the build and compile reach: a name the installed MindSpore lacks is missing everywhere.
            outcome.probe_results()["api"] = {name: probes._has_name(name) for name in job["api_names"]}
        if job.get("keyword_calls"):
            # The callee's own signature: a keyword it does not take raises wherever the call runs.
            outcome.probe_results()["keywords"] = {name: probes.rejected_keywords(name, keywords)
                                                   for name, keywords in job["keyword_calls"]}
        if job.get("required_calls"):
            # A parameter the callee requires and the call leaves out raises wherever the call runs.
            outcome.probe_results()["required"] = {name: probes.required_parameters(name, parameters)
                                                   for name, parameters in job["required_calls"]}
        if job.get("forward_counts"):
            # Of a Cell of ms-lint's own, whatever the unit holding the finding is: a property of this MindSpore.
            outcome.probe_results()["forwards"] = [probes._run_probe(probes.forward_count_probe, pattern["transform"],
                                                                     pattern["set_grad"])
                                                   for pattern in job["forward_counts"]]
        if job.get("tensor_methods"):
            outcome.probe_results()["tensor_methods"] = {
                name: probes._call_on_tensors(name) for name in job["tensor_methods"]}
        for stage in STAGES:
            if state.stop:
                break
            outcome.stage = stage
            worker.send({"event": "stage", "stage": stage, "scratch": scratch})
            if stage == "compile":
                compiling.compile_and_record(worker, state, outcome, capture)
            else:
                _STAGE_FUNCTIONS[stage](worker, state, outcome)
            if stage == "import":
                # Independent of building and compiling the unit, which may fail or run out of time.
                probes.build_types_alone(worker, state, outcome)
    except BaseException as exc:  # noqa: BLE001 -- SystemExit, KeyboardInterrupt and friends included
        if os.getpid() != worker.pid:
            os._exit(0)
        record_exception(outcome, exc, outcome.stage)
    finally:
        if os.getpid() != worker.pid:
            os._exit(0)
        _record_stand_in_uses(outcome)
        capture.restore()
        _restore_streams()
        try:
            os.chdir(previous_cwd)
        except OSError:
            os.chdir(worker.scratch_root)
        importing.restore_process_state(worker)
    outcome.output = capture.summary(worker.output_limit)
    outcome.output_limit_bytes = worker.output_limit
    if outcome.output["limit_reached"]:
        outcome.notes.append(
            f"printed more than the {worker.output_limit / (1 << 20):g} MB output limit; writes past it failed"
        )
    elif outcome.output["bytes"] >= NOISY_OUTPUT:
        outcome.notes.append(f"printed {outcome.output['bytes'] / (1 << 20):.1f} MB of output")
    if worker.forks:
        outcome.forks = worker.forks
        outcome.notes.append(f"forked {worker.forks} process(es)")
    leftover = _child_processes(worker.pid) - children_before
    if leftover:
        _end_processes(leftover)
        outcome.notes.append(f"left {len(leftover)} child process(es) behind; ms-lint ended them")
    outcome.seconds = round(time.monotonic() - started, 3)
    shutil.rmtree(scratch, ignore_errors=True)
    return outcome
