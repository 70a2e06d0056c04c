"""What one job gives: the typed outcome the worker fills in stage by stage and the verdicts read.

The outcome crosses the process boundary as JSON (the worker's answer to the pool, the cache's entries): only there
is it a dict, through ``to_dict`` and ``from_dict``; a field left at None is not written. Its parts that are lists
of attempts (``fixes``, ``retries``, ``build_retries``) and the probes' results stay plain JSON data.
"""
from __future__ import annotations

import traceback
from dataclasses import dataclass, field, fields
from typing import Any

from ms_lint.validate.locations import message_line

MESSAGE_LIMIT = 16_000


@dataclass
class Outcome:
    """One job's result. ``status``: ``ok``, ``error``, ``exit`` (the code called sys.exit), ``needs_example``,
    ``not_found``, ``not_compilable``, or, set by the pool, ``timeout``, ``crashed``, ``out_of_memory``."""

    target: str | None = None
    stage: str | None = None  # the stage the job was in when it ended (or failed)
    status: str | None = None
    notes: list[str] = field(default_factory=list)
    message: str | None = None  # why nothing could be compiled (not_found, not_compilable)
    needs: str | None = None  # what an example must provide (needs_example)
    error: dict | None = None  # {"stage", "type", "first_line", "message", "traceback"}
    exit_code: Any = None
    # importing
    parents_error: dict | None = None  # a parent package's __init__ that raised, imported without it
    stand_ins: list[str] | None = None  # the missing packages the module was imported with stand-ins for
    stand_in_uses: list[str] | None = None  # the names of those building and compiling the Cell used
    # each error importing the module raised that a stand-in answered: {"path", "line", "type", "first_line",
    # "message", "stand_in"}; where it raised is where a module-level line failed
    import_failures: list[dict] | None = None
    import_lines: list[int] | None = None  # a module's own job: the finding lines its import ran
    examples_file: str | None = None
    # building the instance and its inputs
    kind: str | None = None  # "cell" or "jit function"
    signature: dict | None = None  # {"init": [...], "call": [...]}
    effective_level: str | None = None  # the level a @jit function compiles at
    instance: str | None = None  # "example", "default", or how it was built
    built: str | None = None  # the constructor call, in words
    guessed_sizes: list[str] | None = None  # optional arguments left None that building gave guessed sizes
    guessed_arguments: list[str] | None = None  # required arguments (or config fields) guessed from their names
    tried: list[str] | None = None  # the ways of building it that raised
    built_lines: list[int] | None = None  # the construction finding lines building ran
    build_retries: list[dict] | None = None  # builds with the argument that runs skipped construction lines
    host_operators: list[str] | None = None  # operators computed on the host while building it
    inputs: list[str] | None = None
    inputs_how: list[str] | None = None
    concrete_inputs: bool | None = None
    left_at_none: list[str] | None = None  # construct arguments the compile left at their default None
    reach: dict | None = None  # finding line -> whether the constant conditions over it held
    # compiling
    compiled: bool | None = None
    ran: bool | None = None  # called eagerly in PyNative without error (a unit judged in PyNative, not compiled)
    compile_seconds: float | None = None
    compile_log: list[str] | None = None  # the locations the compile printed
    markers: dict | None = None  # finding line -> whether a marked compile kept it in the graph
    # "path:line" of a finding outside the unit -> whether the unit's graph compiles it (``mark_reached_lines``)
    reached: dict | None = None
    # fix-and-retry
    retries: list[dict] | None = None
    fixes: list[dict] | None = None
    # probes: their results by name (parameters, randomness, output, state, built_alone, api, tensor_methods, host)
    probes: dict | None = None
    # the job as a process: its output, limits and time
    output: dict | None = None
    output_limit_bytes: int | None = None
    memory_limit_mb: int | None = None
    forks: int | None = None
    seconds: float | None = None
    # set by the pool when the worker did not answer
    timeout: float | None = None
    exit: str | None = None
    returncode: int | None = None
    rss_mb: int | None = None
    worker_pid: int | None = None
    # set by the cache: the missing module whose absence the stored outcome depends on
    requires_missing: str | None = None

    def probe_results(self) -> dict:
        """The probes' results, created empty on first use."""
        if self.probes is None:
            self.probes = {}
        return self.probes

    def update(self, values: dict) -> None:
        """Set the fields ``values`` names (as ``dict.update`` does for an attempt's record)."""
        for name, value in values.items():
            setattr(self, name, value)

    def to_dict(self) -> dict:
        return {item.name: getattr(self, item.name) for item in fields(self) if getattr(self, item.name) is not None}

    @classmethod
    def from_dict(cls, data: dict) -> "Outcome":
        """The outcome a dict describes; keys it does not know (an entry of another version) are left out."""
        known = {item.name for item in fields(cls)}
        return cls(**{name: value for name, value in data.items() if name in known})


def record_exception(record, exc: BaseException, stage: str) -> None:
    """Write ``exc``, raised while ``stage`` ran, into ``record``: the outcome, or an attempt's dict."""
    values: dict = {"status": "exit" if isinstance(exc, SystemExit) else "error"}
    if isinstance(exc, SystemExit):
        values["exit_code"] = exc.code if isinstance(exc.code, (int, type(None))) else str(exc.code)
    values["error"] = {
        "stage": stage,
        "type": type(exc).__name__,
        "first_line": first_line(exc),
        "message": exception_message(exc)[:MESSAGE_LIMIT],
        "traceback": user_traceback(exc),
    }
    record.update(values)


def exception_message(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # noqa: BLE001 -- a broken __str__ in user code
        return repr(exc)


def first_line(exc: BaseException) -> str:
    text = message_line(exception_message(exc))
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def user_traceback(exc: BaseException, limit: int = 12) -> list[list]:
    """The frames of the traceback outside MindSpore and ms-lint: where user code raised."""
    frames = []
    for frame in traceback.extract_tb(exc.__traceback__):
        file = frame.filename.replace("\\", "/")
        if "/mindspore/" in file or "/ms_lint/" in file or file.startswith("<frozen"):
            continue
        frames.append([frame.filename, frame.lineno, frame.name])
    return frames[-limit:]
