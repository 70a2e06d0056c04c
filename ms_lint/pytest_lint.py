"""``pytest --ms-lint``: one test item per Python file that fails with the file's MS findings.

Options come from the same places as for ``ms-lint check`` (``[tool.ms-lint]`` in ``pyproject.toml``, flake8's
configuration), searched from pytest's root directory. A file that passed is remembered in pytest's cache under
its content, the ms-lint installation and the options, and is skipped until one of them changes (as
pytest-flake8 does); ``--cache-clear`` checks everything again. Select only these items with ``-m ms_lint``.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

CACHE_KEY = "ms_lint/passed"
ITEM_NAME = "ms-lint"
MARKER = "ms_lint"
_STATE = pytest.StashKey["_LintSession"]()


def pytest_addoption(parser) -> None:
    group = parser.getgroup("ms-lint")
    group.addoption(
        "--ms-lint",
        action="store_true",
        dest="ms_lint",
        help="check every collected Python file for MindSpore graph-mode hazards (one test item per file)",
    )


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", f"{MARKER}: ms-lint's check of one Python file (added by --ms-lint)")
    if not config.getoption("ms_lint", default=False):
        return
    from ms_lint.config import ConfigError, resolve_options

    try:
        options = resolve_options(cwd=str(config.rootpath))
    except ConfigError as exc:
        raise pytest.UsageError(f"ms-lint: {exc}") from None
    config.stash[_STATE] = _LintSession(config, options)


def pytest_collect_file(file_path: Path, parent):
    state = parent.config.stash.get(_STATE, None)
    if state is None or file_path.suffix != ".py" or state.is_excluded(file_path):
        return None
    return MsLintFile.from_parent(parent, path=file_path)


def pytest_sessionfinish(session) -> None:
    state = session.config.stash.get(_STATE, None)
    if state is not None:
        state.save()


class _LintSession:
    """The resolved options and the cache of files that passed, for one pytest run."""

    def __init__(self, config, options):
        self.config = config
        self.options = options
        self.rootpath = Path(config.rootpath)
        cache = getattr(config, "cache", None)  # None under -p no:cacheprovider
        self.cache = cache
        stored = cache.get(CACHE_KEY, {}) if cache is not None else {}
        self.passed: dict[str, str] = stored if isinstance(stored, dict) else {}
        self.changed = False
        self._stamp: str | None = None

    def is_excluded(self, path: Path) -> bool:
        from flake8 import utils

        absolute = path.resolve()
        if not utils.fnmatch(absolute.name, self.options.filename):
            return True
        patterns = self.options.all_excludes
        for candidate in (absolute, *absolute.parents):
            if utils.matches_filename(str(candidate), patterns, "%(path)s", _quiet_logger()):
                return True
            if candidate == self.rootpath:
                break
        return False

    def key_for(self, path: Path, content: bytes) -> str:
        digest = hashlib.sha256()
        for part in (self.implementation_stamp(), self.options.fingerprint(), str(path)):
            digest.update(part.encode("utf-8", errors="surrogatepass"))
            digest.update(b"\0")
        digest.update(content)
        return digest.hexdigest()

    def implementation_stamp(self) -> str:
        """The installed ms-lint: its version and its files' sizes and times (an upgrade or edit invalidates)."""
        if self._stamp is None:
            import ms_lint

            package = Path(ms_lint.__file__).parent
            parts = [ms_lint.__version__]
            for file in sorted(package.rglob("*")):
                if file.suffix in {".py", ".json"} and file.is_file():
                    stat = file.stat()
                    parts.append(f"{file.relative_to(package)}:{stat.st_size}:{stat.st_mtime_ns}")
            self._stamp = hashlib.sha256("\n".join(parts).encode()).hexdigest()
        return self._stamp

    def previously_passed(self, path: Path, key: str) -> bool:
        return self.passed.get(str(path)) == key

    def record_pass(self, path: Path, key: str) -> None:
        self.passed[str(path)] = key
        self.changed = True

    def forget(self, path: Path) -> None:
        if self.passed.pop(str(path), None) is not None:
            self.changed = True

    def save(self) -> None:
        if self.cache is None or not self.changed:
            return
        kept = {path: key for path, key in self.passed.items() if os.path.exists(path)}
        self.cache.set(CACHE_KEY, kept)


def _quiet_logger():
    import logging

    return logging.getLogger("ms_lint.pytest_lint")


class MsLintFindings(Exception):
    """The file has findings; the report lists them."""

    def __init__(self, lines: list[str]):
        super().__init__("\n".join(lines))
        self.lines = lines


class MsLintFile(pytest.File):
    def collect(self):
        yield MsLintItem.from_parent(self, name=ITEM_NAME)


class MsLintItem(pytest.Item):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.add_marker(MARKER)
        state: _LintSession = self.config.stash[_STATE]
        path = Path(self.path).resolve()
        try:
            unchanged = state.previously_passed(path, state.key_for(path, path.read_bytes()))
        except OSError:
            unchanged = False
        if unchanged:
            # A skip mark (rather than pytest.skip() at run time) reports the file, not this module, as its place.
            self.add_marker(pytest.mark.skip(reason="unchanged since it passed ms-lint"))

    def runtest(self) -> None:
        from ms_lint.commands.check import lint_source
        from ms_lint.engine import read_source

        state: _LintSession = self.config.stash[_STATE]
        path = Path(self.path).resolve()
        try:
            content = path.read_bytes()
            source = read_source(str(path))
        except OSError as exc:
            raise MsLintFindings([f"{self._shown(path)}: cannot read it ({exc.strerror or exc})"]) from None
        key = state.key_for(path, content)
        reported = lint_source(source, str(path), state.options)
        if reported:
            state.forget(path)
            shown = self._shown(path)
            raise MsLintFindings([
                f"{shown}:{r.finding.line}:{r.column}: {r.finding.code} {r.finding.message}" for r in reported
            ])
        state.record_pass(path, key)

    def _shown(self, path: Path) -> str:
        try:
            return path.relative_to(Path(self.config.rootpath).resolve()).as_posix()
        except ValueError:
            return str(path)

    def repr_failure(self, excinfo, style=None):
        if excinfo.errisinstance(MsLintFindings):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return self.path, 0, f"{ITEM_NAME} {self._shown(Path(self.path).resolve())}"
