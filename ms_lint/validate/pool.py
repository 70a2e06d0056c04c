"""A pool of worker processes that import MindSpore once and run many jobs.

Why subprocesses speaking JSON lines (and not ``multiprocessing``): a job may hang, segfault, call ``os._exit``,
fork, exhaust memory or print without end. Each worker is a plain ``python -m ms_lint.validate.worker`` in its
own session (so a Ctrl-C on the terminal reaches only ms-lint, which then ends the whole worker group), with
stdin on /dev/null, its output in a log file and the protocol on two dedicated pipes. The pool watches every
job with a deadline and the worker's memory; a job that times out or kills its worker gets its own outcome,
the worker is replaced, and the other jobs go on. ``multiprocessing`` pools cannot time out one task, treat a
dead worker as a broken pool, and re-import the parent's ``__main__`` in spawned children.
"""
from __future__ import annotations

import json
import os
import queue
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass

from ms_lint.validate.outcome import Outcome

# Environment variables that would override what the validator asks MindSpore for.
_OVERRIDING_VARIABLES = ("MS_DEV_JIT_SYNTAX_LEVEL", "MS_JIT", "MS_DEV_PRECOMPILE_ONLY")
_TICK = 0.2
_TAIL = 2_000


class WorkerStartError(RuntimeError):
    """No worker could start (MindSpore missing or broken, device unavailable). ``str()`` is one line."""

    def __init__(self, message: str, kind: str = "start"):
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class PoolConfig:
    device: str = "CPU"
    size: int = 1
    timeout: float = 120.0
    memory_limit_mb: int = 4096
    output_limit_bytes: int = 64 << 20
    start_timeout: float = 300.0
    python: str = sys.executable


class _Died(Exception):
    pass


class _TimedOut(Exception):
    pass


class _OutOfMemory(Exception):
    def __init__(self, rss_mb: float):
        super().__init__(rss_mb)
        self.rss_mb = rss_mb


class WorkerProcess:
    """One worker: start, wait until ready, run jobs, end."""

    def __init__(self, config: PoolConfig, scratch_root: str, name: str):
        self.config = config
        self.directory = tempfile.mkdtemp(prefix=f"{name}-", dir=scratch_root)
        self.log_path = os.path.join(self.directory, "worker.log")
        request_read, request_write = os.pipe()
        response_read, response_write = os.pipe()
        settings = {
            "device": config.device,
            "memory_limit_mb": config.memory_limit_mb,
            "output_limit_bytes": config.output_limit_bytes,
            "scratch_root": self.directory,
        }
        with open(self.log_path, "wb") as log:
            try:
                self.process = subprocess.Popen(
                    [config.python, "-m", "ms_lint.validate.worker", str(request_read), str(response_write),
                     json.dumps(settings)],
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    pass_fds=(request_read, response_write),
                    cwd=self.directory,
                    env=worker_environment(),
                    start_new_session=True,
                )
            except OSError as exc:
                for fd in (request_read, request_write, response_read, response_write):
                    os.close(fd)
                raise WorkerStartError(f"cannot start a worker with {config.python}: {exc}") from None
        os.close(request_read)
        os.close(response_write)
        self.requests = os.fdopen(request_write, "wb", buffering=0)
        self.response_fd = response_read
        self.buffer = b""
        self.info: dict = {}
        self.baseline_rss = 0
        self.stage = "start"
        self.job_scratch: str | None = None
        self.jobs_run = 0
        self.ended = False
        self.end_lock = threading.Lock()

    # -- start-up ------------------------------------------------------------------------------------------------

    def wait_ready(self, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        try:
            while True:
                message = self._next_message(deadline, memory_limit=None)
                event = message.get("event")
                if event == "ready":
                    self.info = message
                    self.baseline_rss = _rss_bytes(self.process.pid) or 0
                    return message
                if event == "fatal":
                    self.end()
                    raise WorkerStartError(_fatal_text(message, self.config.device), message.get("kind", "start"))
        except _TimedOut:
            self.end()
            raise WorkerStartError(
                f"the worker did not import MindSpore within {timeout:g} s; see {self.log_path}"
            ) from None
        except _Died:
            code = self.process.wait()
            raise WorkerStartError(
                f"the worker exited while importing MindSpore ({_describe_exit(code)}): {self._log_tail(300)}"
            ) from None

    # -- jobs ------------------------------------------------------------------------------------------------------

    def run(self, request: dict, timeout: float) -> Outcome:
        """The outcome of one job; never raises for anything the job does."""
        self.stage = "start"
        self.job_scratch = None
        self.jobs_run += 1
        started = time.monotonic()
        try:
            self.requests.write((json.dumps({"op": "run", "job": request}) + "\n").encode())
        except OSError:
            return self._died_outcome(request, started)
        deadline = started + timeout
        limit_mb = request.get("memory_limit_mb", self.config.memory_limit_mb)
        memory_limit = self.baseline_rss + limit_mb * (1 << 20) if limit_mb else None
        try:
            while True:
                message = self._next_message(deadline, memory_limit)
                event = message.get("event")
                if event == "stage":
                    self.stage = message.get("stage", self.stage)
                    self.job_scratch = message.get("scratch", self.job_scratch)
                elif event == "result":
                    return Outcome.from_dict(message["outcome"])
        except _TimedOut:
            output = self._job_output()
            self.end()
            return Outcome(target=request["target"], status="timeout", stage=self.stage, timeout=timeout,
                           output=output, notes=[])
        except _OutOfMemory as exc:
            output = self._job_output()
            self.end()
            return Outcome(target=request["target"], status="out_of_memory", stage=self.stage,
                           rss_mb=round(exc.rss_mb), memory_limit_mb=limit_mb, output=output, notes=[])
        except _Died:
            return self._died_outcome(request, started)

    def _died_outcome(self, request: dict, started: float) -> Outcome:
        output = self._job_output()
        self.end()
        code = self.process.returncode
        return Outcome(target=request["target"], status="crashed", stage=self.stage, returncode=code,
                       exit=_describe_exit(code), output=output, seconds=round(time.monotonic() - started, 3),
                       notes=[])

    def _next_message(self, deadline: float, memory_limit: int | None) -> dict:
        while True:
            newline = self.buffer.find(b"\n")
            if newline >= 0:
                line, self.buffer = self.buffer[:newline], self.buffer[newline + 1:]
                try:
                    return json.loads(line)
                except ValueError:
                    continue
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _TimedOut()
            readable, _, _ = select.select([self.response_fd], [], [], min(_TICK, remaining))
            if readable:
                chunk = os.read(self.response_fd, 1 << 16)
                if not chunk:
                    raise _Died()
                self.buffer += chunk
                continue
            # Forked children of user code may hold the pipe open: a dead worker is seen by its status too.
            if self.process.poll() is not None:
                raise _Died()
            if memory_limit is not None:
                rss = _rss_bytes(self.process.pid)
                if rss is not None and rss > memory_limit:
                    raise _OutOfMemory(rss / (1 << 20))

    def _job_output(self) -> dict:
        """What the job printed, read by the pool when the worker could not report it."""
        directory = self.job_scratch or _newest_job_directory(self.directory)
        path = os.path.join(directory, "output.txt") if directory else None
        if not path or not os.path.isfile(path):
            return {"bytes": 0, "head": "", "tail": ""}
        size = os.path.getsize(path)
        with open(path, "rb") as handle:
            head = handle.read(_TAIL).decode("utf-8", errors="replace")
            handle.seek(max(0, size - _TAIL))
            tail = handle.read().decode("utf-8", errors="replace")
        return {"bytes": size, "head": head, "tail": tail}

    def _log_tail(self, limit: int) -> str:
        try:
            with open(self.log_path, "rb") as handle:
                text = handle.read().decode("utf-8", errors="replace")
        except OSError:
            return ""
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        tail = " | ".join(lines[-3:])
        return tail[-limit:] if tail else "no output"

    # -- ending --------------------------------------------------------------------------------------------------

    def alive(self) -> bool:
        return not self.ended and self.process.poll() is None

    def close(self, grace: float = 2.0) -> None:
        """Ask the worker to exit, then end its process group."""
        if self.alive():
            try:
                self.requests.write(b'{"op": "exit"}\n')
            except OSError:
                pass
            try:
                self.process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                pass
        self.end()

    def end(self) -> None:
        """End the worker and anything it started (its whole session), and free its files."""
        with self.end_lock:
            if self.ended:
                return
            self.ended = True
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        for stream in (self.requests,):
            try:
                stream.close()
            except OSError:
                pass
        try:
            os.close(self.response_fd)
        except OSError:
            pass
        shutil.rmtree(self.directory, ignore_errors=True)


class WorkerPool:
    """``size`` workers serving a queue of jobs; ``submit`` returns a Future of the job's ``Outcome``."""

    def __init__(self, config: PoolConfig):
        if os.name != "posix":
            raise WorkerStartError("ms-lint validate runs its workers on Linux and macOS only (it needs POSIX "
                                   "process groups and resource limits)")
        self.config = config
        self.scratch_root = tempfile.mkdtemp(prefix="ms-lint-validate-")
        self.jobs: "queue.Queue" = queue.Queue()
        self.fatal: WorkerStartError | None = None
        self.info: dict = {}
        self.workers: dict[int, WorkerProcess] = {}
        self.started_workers = 0
        self.lock = threading.Lock()
        self.ready = threading.Event()
        self.ready_count = 0
        self.closing = False
        # The missing packages earlier jobs of each project needed stand-ins for: given to the next job of the
        # project, so that a fresh worker imports a library's module once, not once per missing package.
        self.stand_ins: dict[str, list[str]] = {}
        self.threads = [
            threading.Thread(target=self._serve, args=(slot,), name=f"ms-lint-worker-{slot}", daemon=True)
            for slot in range(max(1, config.size))
        ]
        for thread in self.threads:
            thread.start()

    def __enter__(self) -> "WorkerPool":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close(kill=exc_info[0] is not None)

    def submit(self, request: dict, timeout: float | None = None, memory_limit_mb: int | None = None,
               output_limit_bytes: int | None = None) -> Future:
        """Queue a job; the limits default to the pool's configuration."""
        future: Future = Future()
        request = dict(request)
        request["timeout"] = timeout or self.config.timeout
        request["memory_limit_mb"] = self.config.memory_limit_mb if memory_limit_mb is None else memory_limit_mb
        request["output_limit_bytes"] = output_limit_bytes or self.config.output_limit_bytes
        if self.fatal is not None:
            future.set_exception(self.fatal)
        elif self.closing:
            future.set_exception(RuntimeError("the worker pool is closed"))
        else:
            self.jobs.put((request, future))
        return future

    def wait_ready(self, timeout: float | None = None) -> dict:
        """Wait until one worker is ready (raises WorkerStartError when none can start)."""
        if not self.ready.wait(timeout):
            raise WorkerStartError("no worker became ready in time")
        if self.fatal is not None:
            raise self.fatal
        return self.info

    def wait_all_ready(self, timeout: float | None = None) -> None:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            with self.lock:
                if self.fatal is not None:
                    raise self.fatal
                if self.ready_count >= len(self.threads):
                    return
            if deadline is not None and time.monotonic() > deadline:
                raise WorkerStartError("the workers did not become ready in time")
            time.sleep(0.05)

    def _serve(self, slot: int) -> None:
        worker: WorkerProcess | None = None
        start_error: WorkerStartError | None = None
        try:
            while True:
                if worker is None or not worker.alive():
                    # Start (or replace) the worker before the next job arrives: it is warm when it does.
                    worker, start_error = self._start_worker(slot)
                    if worker is None and self.fatal is not None:
                        return
                item = self.jobs.get()
                if item is None or self.closing:
                    if item is not None:
                        item[1].cancel()
                    return
                request, future = item
                if not future.set_running_or_notify_cancel():
                    continue
                if self.fatal is not None:
                    future.set_exception(self.fatal)
                    continue
                if worker is None:
                    worker, start_error = self._start_worker(slot)
                    if worker is None:
                        future.set_result(Outcome(
                            target=request.get("target"), status="crashed", stage="start",
                            exit=f"no fresh worker could start ({start_error})", notes=[],
                        ))
                        continue
                project = request.get("project_root") or request.get("import_root")
                with self.lock:
                    known = list(self.stand_ins.get(project, ()))
                if known:
                    request = {**request, "known_stand_ins": known}
                try:
                    outcome = worker.run(request, request["timeout"])
                except Exception as exc:  # noqa: BLE001 -- a pool bug must not hang the run
                    worker.end()
                    outcome = Outcome(target=request.get("target"), status="crashed", stage=worker.stage,
                                      exit=f"ms-lint could not talk to the worker ({exc})", notes=[])
                if outcome.worker_pid is None:
                    outcome.worker_pid = worker.process.pid
                with self.lock:
                    known = self.stand_ins.setdefault(project, [])
                    known.extend(name for name in outcome.stand_ins or () if "." not in name and name not in known)
                future.set_result(outcome)
        finally:
            with self.lock:
                self.workers.pop(slot, None)
            if worker is not None:
                worker.close()

    def _start_worker(self, slot: int) -> tuple[WorkerProcess | None, WorkerStartError | None]:
        """A ready worker, or the reason there is none. MindSpore missing or the device unusable, or no worker
        ever starting, ends the whole pool; a replacement that fails to start fails only the jobs it was for."""
        with self.lock:
            if self.closing or self.fatal is not None:
                return None, self.fatal
            self.started_workers += 1
        try:
            worker = WorkerProcess(self.config, self.scratch_root, f"worker-{slot}")
            with self.lock:
                self.workers[slot] = worker
            info = worker.wait_ready(self.config.start_timeout)
        except WorkerStartError as exc:
            if exc.kind in ("device", "import") or not self.ready.is_set():
                self._fail_everything(exc)
            return None, exc
        with self.lock:
            if not self.info:
                self.info = info
            self.ready_count += 1
        self.ready.set()
        return worker, None

    def _fail_everything(self, error: WorkerStartError) -> None:
        with self.lock:
            if self.fatal is None:
                self.fatal = error
        self.ready.set()
        while True:
            try:
                item = self.jobs.get_nowait()
            except queue.Empty:
                break
            if item is not None and item[1].set_running_or_notify_cancel():
                item[1].set_exception(error)

    def close(self, kill: bool = False) -> None:
        """Stop the workers. ``kill``: end them now (an interrupted run), dropping queued jobs."""
        with self.lock:
            self.closing = True
            workers = list(self.workers.values())
        while True:
            try:
                item = self.jobs.get_nowait()
            except queue.Empty:
                break
            if item is not None:
                item[1].cancel()
        if kill:
            for worker in workers:
                worker.end()
        for _ in self.threads:
            self.jobs.put(None)
        for thread in self.threads:
            thread.join(timeout=15)
        shutil.rmtree(self.scratch_root, ignore_errors=True)


def worker_environment() -> dict:
    """The parent's environment, minus what would override the requested level, with ms-lint importable."""
    environment = {key: value for key, value in os.environ.items() if key not in _OVERRIDING_VARIABLES}
    package_parent = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    existing = environment.get("PYTHONPATH")
    environment["PYTHONPATH"] = package_parent + (os.pathsep + existing if existing else "")
    # Importing user modules must not write __pycache__ into the user's tree.
    environment["PYTHONDONTWRITEBYTECODE"] = "1"
    return environment


def _fatal_text(message: dict, device: str) -> str:
    if message.get("kind") == "device":
        supported = ", ".join(message.get("supported") or []) or "none"
        version = message.get("mindspore", "?")
        return (
            f"device {device} is not available: this MindSpore ({version}) supports {supported} here"
            + (f" ({message.get('message')})" if "not available" not in message.get("message", "") else "")
        )
    if message.get("kind") == "import":
        return (f"MindSpore cannot be imported: {message.get('message')}; "
                f"install it with pip install 'ms-lint[validate]'")
    return str(message.get("message", "the worker failed to start"))


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "still running"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"killed by {name}"
    return f"exit status {code}"


def _rss_bytes(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/statm") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def _newest_job_directory(directory: str) -> str | None:
    try:
        candidates = [os.path.join(directory, name) for name in os.listdir(directory) if name.startswith("job-")]
    except OSError:
        return None
    return max(candidates, key=os.path.getmtime) if candidates else None
