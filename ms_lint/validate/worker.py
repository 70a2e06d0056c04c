"""The worker process: imports MindSpore once, then runs jobs sent by the pool, one at a time.

Started by ``ms_lint.validate.pool`` as ``python -m ms_lint.validate.worker REQUEST_FD RESPONSE_FD CONFIG_JSON``.
Requests and answers are JSON lines on two dedicated pipes, never on stdin/stdout: user code can print, read
stdin (it is /dev/null) or write to fd 1 without disturbing the protocol. Each job runs in its own scratch
directory (a failed compile writes ``rank_0/`` into the cwd) with fds 1 and 2 sent to a file of bounded size.

Messages to the pool: ``{"event": "ready", ...}`` once, ``{"event": "fatal", ...}`` if MindSpore or the device
cannot be used, then per job ``{"event": "stage", "stage": ...}`` before each step (so a hang or crash can be
placed) and ``{"event": "result", "outcome": {...}}`` (``Outcome.to_dict``).

This module is the process and its protocol; a job runs through the stages of ``jobs``.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import tempfile

from ms_lint.validate import jobs
from ms_lint.validate.outcome import first_line


class Worker:
    def __init__(self, request_fd: int, response_fd: int, config: dict):
        self.requests = os.fdopen(request_fd, "rb")
        self.responses = os.fdopen(response_fd, "wb", buffering=0)
        self.device = config["device"]
        self.memory_limit_mb = config.get("memory_limit_mb") or 0
        self.output_limit = config.get("output_limit_bytes") or (64 << 20)
        self.scratch_root = config["scratch_root"]
        self.pid = os.getpid()
        self.forks = 0
        self.mindspore = None
        self.baseline_modules: set[str] = set()
        self.baseline_path: list[str] = []
        self.baseline_environ: dict[str, str] = {}
        self.user_roots: list[str] = []
        self.current_root: str | None = None
        self.examples_cache: dict[tuple, dict] = {}
        self.capture: "jobs.OutputCapture | None" = None
        # (top package, the modules imported before) when this job imported a package without running its __init__
        self.bare_imports: tuple[str, set[str]] | None = None
        # the import hook giving this job's missing packages their stand-ins (``standins``), while it runs
        self.stand_ins = None

    def start(self) -> bool:
        self._isolate()
        try:
            import mindspore
        except BaseException as exc:  # noqa: BLE001 -- any failure here is reported, never raised
            self.send({"event": "fatal", "kind": "import", "message": first_line(exc)})
            return False
        self.mindspore = mindspore
        supported = _supported_devices()
        if self.device not in supported:
            self.send({
                "event": "fatal", "kind": "device", "message": f"device {self.device} is not available",
                "supported": supported, "mindspore": mindspore.__version__,
            })
            return False
        try:
            mindspore.set_device(self.device)
            mindspore.set_context(mode=mindspore.GRAPH_MODE)
            self._warm_up()
        except BaseException as exc:  # noqa: BLE001
            self.send({
                "event": "fatal", "kind": "device", "message": first_line(exc),
                "supported": supported, "mindspore": mindspore.__version__,
            })
            return False
        self.baseline_modules = {name.split(".")[0] for name in sys.modules}
        self.baseline_path = [entry for entry in sys.path if entry not in ("", os.getcwd())]
        self.baseline_environ = dict(os.environ)
        self.send({
            "event": "ready", "pid": self.pid, "mindspore": mindspore.__version__, "device": self.device,
            "supported": supported,
        })
        return True

    def _isolate(self) -> None:
        import resource

        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        try:
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        except (ValueError, OSError):
            pass
        # A user print loop must not fill the disk: writes past the limit fail with EFBIG instead.
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        _set_soft_limit(resource.RLIMIT_FSIZE, self.output_limit)
        _die_with_parent()
        os.register_at_fork(after_in_parent=self._count_fork)

    def _count_fork(self) -> None:
        self.forks += 1

    def _warm_up(self) -> None:
        """Compile one tiny Cell so that the first real job does not pay for MindSpore's lazy start-up."""
        import mindspore
        from mindspore import nn, ops

        class _WarmUp(nn.Cell):
            def construct(self, x):
                return ops.relu(x) + 1

        scratch = tempfile.mkdtemp(prefix="warm-up-", dir=self.scratch_root)
        previous = os.getcwd()
        try:
            os.chdir(scratch)
            _WarmUp().compile(mindspore.Tensor(shape=[-2], dtype=mindspore.float32))
        finally:
            os.chdir(previous)
            shutil.rmtree(scratch, ignore_errors=True)

    def apply_limits(self, memory_limit_mb: int | None, output_limit: int | None) -> None:
        """Per job: cap the address space at what the worker already maps plus the memory limit (a job that
        allocates beyond it gets MemoryError instead of taking the machine down), and the size of any file
        written (the job's output) at the output limit."""
        import resource

        memory_limit_mb = self.memory_limit_mb if memory_limit_mb is None else memory_limit_mb
        self.output_limit = output_limit or self.output_limit
        _set_soft_limit(resource.RLIMIT_FSIZE, self.output_limit)
        size = _vm_size_bytes()
        if not memory_limit_mb or size is None:
            _set_soft_limit(resource.RLIMIT_AS, resource.RLIM_INFINITY)
            return
        # Thread stacks and allocator arenas reserve address space they never touch; leave room for them.
        _set_soft_limit(resource.RLIMIT_AS, size + memory_limit_mb * (1 << 20) + (1 << 30))

    def send(self, message: dict) -> None:
        if os.getpid() != self.pid:
            return
        data = memoryview((json.dumps(message, default=str) + "\n").encode())
        while data:
            written = self.responses.write(data)
            data = data[written or 0:]

    def serve(self) -> None:
        while True:
            line = self.requests.readline()
            if not line:
                return
            try:
                request = json.loads(line)
            except ValueError:
                continue
            if request.get("op") == "exit":
                return
            if request.get("op") == "run":
                outcome = jobs.run_job(self, request["job"])
                if os.getpid() != self.pid:
                    # A process forked by user code came back up to here: it must not answer or go on.
                    os._exit(0)
                self.send({"event": "result", "outcome": outcome.to_dict()})


def _supported_devices() -> list[str]:
    try:
        from mindspore._c_expression import MSContext

        context = MSContext.get_instance()
        return [device for device in ("CPU", "GPU", "Ascend") if context.is_pkg_support_device(device)]
    except Exception:  # noqa: BLE001 -- an older MindSpore without this query: let set_device decide
        return ["CPU", "GPU", "Ascend"]


def _set_soft_limit(which: int, value: int) -> None:
    import resource

    try:
        _, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY and (value == resource.RLIM_INFINITY or value > hard):
            value = hard
        resource.setrlimit(which, (value, hard))
    except (ValueError, OSError):
        pass


def _vm_size_bytes() -> int | None:
    try:
        with open("/proc/self/status") as handle:
            for line in handle:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def _die_with_parent() -> None:
    """Linux: end this worker when the process that started it dies (an interrupted run leaves nothing)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def main(argv: list[str]) -> int:
    request_fd, response_fd, config_text = int(argv[0]), int(argv[1]), argv[2]
    if sys.path and sys.path[0] in ("", os.getcwd()):
        del sys.path[0]
    worker = Worker(request_fd, response_fd, json.loads(config_text))
    status = 0 if worker.start() else 3
    if status == 0:
        worker.serve()
    jobs.flush_streams()
    # Nothing is left to save: skip MindSpore's interpreter shutdown, which takes seconds.
    os._exit(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
