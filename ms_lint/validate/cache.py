"""Outcomes of past jobs under ``.ms_lint_cache/validate/`` at the project root, and the incremental run log.

An outcome is stored under its job's cache key (module and project-import sources, examples file, target,
MindSpore version, device, syntax level, ms-lint version), so a re-run with nothing changed compiles nothing.
Timeouts, crashes and out-of-memory ends are not stored: they may depend on the machine's load; nor is an outcome
whose error comes from the environment (a missing module or file, the device, the network): fixing those changes
no project file, so the key would not see the fix.
"""
from __future__ import annotations

import json
import os
import threading
import time

from ms_lint.result_cache import ensure_cache_root as _ensure_cache_root
from ms_lint.result_cache import write_atomically
from ms_lint.validate.project import CACHE_DIR_NAME
from ms_lint.validate.outcome import Outcome

STORED_STATUSES = {"ok", "error", "exit", "needs_example", "not_found", "not_compilable"}


class OutcomeCache:
    """``read``: whether stored outcomes are used; new outcomes are always stored (a run that ignored the cache
    refreshes it)."""

    def __init__(self, read: bool = True):
        self.read = read
        self.problems: list[str] = []
        self._unwritable: set[str] = set()

    @staticmethod
    def directory(project_root: str) -> str:
        return os.path.join(project_root, CACHE_DIR_NAME, "validate")

    def _path(self, project_root: str, key: str) -> str:
        return os.path.join(self.directory(project_root), key[:2], f"{key}.json")

    def get(self, project_root: str, key: str, import_root: str | None = None) -> Outcome | None:
        if not self.read or not key:
            return None
        try:
            with open(self._path(project_root, key), encoding="utf-8") as handle:
                entry = json.load(handle)
        except (OSError, ValueError):
            return None
        outcome = entry.get("outcome") if isinstance(entry, dict) else None
        if not isinstance(outcome, dict):
            return None
        missing = outcome.get("requires_missing")
        if missing and _module_exists(missing, import_root):
            return None  # installed since: run again
        if any(_module_exists(name, import_root) for name in outcome.get("stand_ins") or ()):
            return None  # imported with a stand-in for a package installed since: run again
        return Outcome.from_dict(outcome)

    def put(self, project_root: str, key: str, outcome: Outcome, import_root: str | None = None) -> None:
        if not key or outcome.status not in STORED_STATUSES:
            return
        stored = outcome.to_dict()
        if caused_by_environment(outcome):
            # One environment failure is checked cheaply before reuse: a module that is not installed. Its
            # outcome is kept with the module's name and reused only while the module is still missing.
            missing = _missing_module(outcome)
            if missing is None or _module_exists(missing, import_root):
                return
            stored["requires_missing"] = missing
        if project_root in self._unwritable:
            return
        path = self._path(project_root, key)
        try:
            _ensure_cache_root(os.path.join(project_root, CACHE_DIR_NAME))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            write_atomically(path, json.dumps({"stored": time.time(), "outcome": stored}, default=str))
        except OSError as exc:
            self._unwritable.add(project_root)
            self.problems.append(f"cannot write the cache under {project_root} ({exc.strerror or exc})")


# Errors that say something about the machine, not the project's code: a missing module (install it and the
# result changes while no project file does), a missing file or device, the network, memory, a timeout.
_ENVIRONMENT_ERRORS = {"ImportError", "ModuleNotFoundError", "OSError", "FileNotFoundError", "PermissionError",
                       "ConnectionError", "TimeoutError", "MemoryError", "EnvironmentError", "URLError",
                       "HTTPError", "ConnectTimeout", "ReadTimeout"}
_ENVIRONMENT_PATTERNS = ("No module named", "not installed", "Unsupported device", "is not available",
                         "out of memory", "Connection", "No such file")


def caused_by_environment(outcome: Outcome) -> bool:
    """Whether the outcome's error may go away without a change to the project (so it must not be cached)."""
    for error in _errors(outcome):
        if error.get("type") in _ENVIRONMENT_ERRORS:
            return True
        text = f"{error.get('first_line') or ''}\n{error.get('message') or ''}"[:4000]
        if any(pattern in text for pattern in _ENVIRONMENT_PATTERNS):
            return True
    return False


def _errors(outcome: Outcome) -> list[dict]:
    """The outcome's errors: its own, its retries', and that of a parent package whose __init__ it did without."""
    errors = [outcome.error, outcome.parents_error]
    errors.extend(retry.get("error") for retry in outcome.retries or [])
    return [error for error in errors if error]


def _missing_module(outcome: Outcome) -> str | None:
    """The module a ModuleNotFoundError names, when that is the outcome's only environment failure."""
    import re

    names = set()
    for error in _errors(outcome):
        if error.get("type") != "ModuleNotFoundError":
            if caused_by_environment(Outcome(error=error)):
                return None
            continue
        match = re.search(r"No module named '([\w.]+)'", error.get("message") or error.get("first_line") or "")
        if match is None:
            return None
        names.add(match.group(1))
    return names.pop() if len(names) == 1 else None


def _module_exists(name: str, import_root: str | None) -> bool:
    """Whether ``import name`` would find something now (looked up level by level, without importing)."""
    import sys
    from importlib.machinery import PathFinder

    parts = name.split(".")
    if parts[0] in sys.builtin_module_names:
        return True
    path = ([import_root] if import_root else []) + [entry for entry in sys.path if entry]
    # Each level is looked up in the locations of the package above it, without importing any of them.
    for part in parts:
        try:
            spec = PathFinder.find_spec(part, path)
        except (ImportError, ValueError):
            return False
        if spec is None:
            return False
        path = list(spec.submodule_search_locations or [])
        if not path and part != parts[-1]:
            return True  # a plain module with attributes looked up as submodules: cannot tell, so run again
    return True


class RunLog:
    """A JSON-lines record of the run, written as results arrive: an interrupted or killed run leaves behind
    what it had checked (``unit`` lines) and what it had planned (the ``start`` line)."""

    def __init__(self, path: str | None):
        self.path = path
        self.problem: str | None = None
        self._lock = threading.Lock()
        self._stream = None
        if path:
            try:
                os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
                if os.path.basename(os.path.dirname(os.path.abspath(path))) == CACHE_DIR_NAME:
                    _ensure_cache_root(os.path.dirname(os.path.abspath(path)))
                self._stream = open(path, "w", encoding="utf-8")
            except OSError as exc:
                self.problem = f"cannot write the run log {path} ({exc.strerror or exc})"

    def write(self, record: dict) -> None:
        if self._stream is None:
            return
        with self._lock:
            try:
                self._stream.write(json.dumps(record, default=str) + "\n")
                self._stream.flush()
            except (OSError, ValueError):
                pass

    def close(self) -> None:
        if self._stream is not None:
            with self._lock:
                try:
                    self._stream.close()
                except OSError:
                    pass
                self._stream = None
