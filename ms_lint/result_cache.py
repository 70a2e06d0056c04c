"""The results of ``ms-lint check`` per file, kept under ``.ms_lint_cache/check/`` so that an unchanged file is not
checked again (``pytest --ms-lint`` uses the same keys).

A result is stored under a key made of the file's content and path, the ms-lint installation (its version and its
files' sizes and times) and the options that change findings. The analysis of a file may also read other modules of
the project (a Cell base class, a helper function); the entry lists every such lookup (module name, source roots,
the file found and a digest of its content) and is used only while each lookup still finds the same file with the
same content, so editing a base class re-checks exactly the files that read it.

Nothing here is fatal: an unreadable, corrupt or foreign entry is a miss, and a cache that cannot be written is
left alone. Entries are written to a temporary file and renamed, so parallel runs never see half an entry.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Mapping

from ms_lint.validate.project import CACHE_DIR_NAME

_FORMAT = 1


@lru_cache(maxsize=1)
def implementation_stamp() -> str:
    """The installed ms-lint: its version and its files' sizes and times (an upgrade or an edit invalidates)."""
    import ms_lint

    package = Path(ms_lint.__file__).parent
    parts = [ms_lint.__version__]
    for file in sorted(package.rglob("*")):
        if file.suffix in {".py", ".json"} and file.is_file():
            stat = file.stat()
            parts.append(f"{file.relative_to(package)}:{stat.st_size}:{stat.st_mtime_ns}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def default_directory(cwd: str | None = None) -> str:
    """``.ms_lint_cache/check`` at the project root of ``cwd`` (as the validator's cache)."""
    from ms_lint.validate.project import find_project_root

    return os.path.join(find_project_root(os.path.abspath(cwd or os.getcwd())), CACHE_DIR_NAME, "check")


_digests: dict[tuple[str, int, int], str] = {}


def file_digest(path: str) -> str | None:
    """The SHA-256 of the file's content (memoised by size and modification time), None when it cannot be read."""
    try:
        stat = os.stat(path)
        version = (path, stat.st_size, stat.st_mtime_ns)
        known = _digests.get(version)
        if known is None:
            with open(path, "rb") as handle:
                known = _digests[version] = hashlib.sha256(handle.read()).hexdigest()
        return known
    except OSError:
        return None


def entry_key(path: str, content: bytes, fingerprint: str) -> str:
    """The key of one file's result: its content, its path as shown and as found, ms-lint, the options."""
    digest = hashlib.sha256()
    for part in (str(_FORMAT), implementation_stamp(), fingerprint, path, os.path.abspath(path)):
        digest.update(part.encode("utf-8", errors="surrogatepass"))
        digest.update(b"\0")
    digest.update(content)
    return digest.hexdigest()


def lookups_record(lookups: Mapping[tuple[str, tuple[str, ...]], str | None]) -> list:
    """What an entry stores of the project-module lookups an analysis made (see ``project.recording_lookups``)."""
    return sorted([module, list(roots), found, file_digest(found) if found else None]
                  for (module, roots), found in lookups.items())


def lookups_unchanged(record: Iterable) -> bool:
    """Whether every lookup still finds the same file with the same content (or still finds none)."""
    from ms_lint.model.project import find_module_file

    try:
        for module, roots, found, digest in record:
            now = find_module_file(module, list(roots))
            if now != found or (found is not None and file_digest(found) != digest):
                return False
    except (TypeError, ValueError):
        return False  # an entry of another shape
    return True


class ResultCache:
    """Entries of one cache directory: ``get`` a stored value that is still valid, ``put`` a new one."""

    def __init__(self, directory: str):
        self.directory = directory
        self.unwritable = False

    def _path(self, key: str) -> str:
        return os.path.join(self.directory, key[:2], key + ".json")

    def get(self, key: str):
        """The value stored under ``key`` if its project-module lookups are unchanged, else None."""
        try:
            with open(self._path(key), encoding="utf-8") as handle:
                entry = json.load(handle)
            if entry.get("format") != _FORMAT or not lookups_unchanged(entry["lookups"]):
                return None
            return entry["value"]
        except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
            return None

    def put(self, key: str, lookups: Mapping, value) -> None:
        if self.unwritable:
            return
        text = json.dumps({"format": _FORMAT, "lookups": lookups_record(lookups), "value": value})
        path = self._path(key)
        try:
            _make_cache_root(self.directory)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            write_atomically(path, text)
        except OSError:
            self.unwritable = True  # a read-only checkout: check without a cache


class SummaryStore:
    """What the project index learns of each module (its summary, the answers to the questions about it: see
    ``ms_lint.model.project.ProjectIndex.answer``), under ``summaries/`` of a cache directory, by the module's
    content, ms-lint and the settings: a later run takes them from here for every module it does not check itself
    (an edit re-reads the edited file and the files checked again, not the modules they ask about). Each summary
    and answer keeps the lookups it was made with and is used only while they are unchanged, as a result is."""

    def __init__(self, directory: str):
        self.directory = os.path.join(directory, "summaries")
        self.unwritable = False

    def _path(self, module_file: str, values: tuple) -> str | None:
        digest = file_digest(module_file)
        if digest is None:
            return None
        parts = (str(_FORMAT), implementation_stamp(), repr(values), module_file, digest)
        key = hashlib.sha256("\0".join(parts).encode("utf-8", errors="surrogatepass")).hexdigest()
        return os.path.join(self.directory, key[:2], key + ".json")

    def read(self, module_file: str, values: tuple) -> dict:
        """The entry of the module's current content (empty when there is none, or it cannot be read)."""
        path = self._path(module_file, values)
        try:
            with open(path, encoding="utf-8") as handle:  # type: ignore[arg-type]
                entry = json.load(handle)
            if isinstance(entry, dict) and entry.pop("format", None) == _FORMAT and isinstance(
                    entry.get("answers", {}), dict):
                return entry
        except (OSError, TypeError, ValueError, RecursionError):
            pass
        return {}

    def write(self, module_file: str, values: tuple, entry: dict) -> None:
        path = self._path(module_file, values)
        if path is None or self.unwritable:
            return
        try:
            text = json.dumps({"format": _FORMAT, **entry})
            _make_cache_root(os.path.dirname(self.directory))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            write_atomically(path, text)
        except (OSError, TypeError, ValueError):
            self.unwritable = True  # a read-only checkout, or an answer JSON cannot hold: the run goes on without

    @staticmethod
    def record(lookups: Mapping) -> list:
        return lookups_record(lookups)

    @staticmethod
    def unchanged(record) -> bool:
        return record is not None and lookups_unchanged(record)


def _make_cache_root(directory: str) -> None:
    os.makedirs(directory, exist_ok=True)
    root = os.path.dirname(os.path.abspath(directory))
    if os.path.basename(root) == CACHE_DIR_NAME:
        ensure_cache_root(root)


def ensure_cache_root(root: str) -> None:
    """Create ``root`` (a ``.ms_lint_cache`` folder), which, like pytest's cache, ignores itself in git."""
    os.makedirs(root, exist_ok=True)
    ignore = os.path.join(root, ".gitignore")
    if not os.path.exists(ignore):
        write_atomically(ignore, "# created by ms-lint\n*\n")


def write_atomically(path: str, text: str) -> None:
    handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path) or ".", prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
