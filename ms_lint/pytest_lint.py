"""``pytest --ms-lint``: one test item per Python file that fails with the file's MS findings.

Options come from the same places as for ``ms-lint check`` (``[tool.ms-lint]`` in ``pyproject.toml``, flake8's
configuration), searched from pytest's root directory. Results are kept in pytest's cache under the keys of
``ms-lint check``'s cache (the file's content, the ms-lint installation, the options, and the project modules its
check read, such as the module of a Cell base class); a file that passed is skipped until one of them changes (as
pytest-flake8 does), and ``--cache-clear`` checks everything again. Select only these items with ``-m ms_lint``.
"""
from __future__ import annotations

from pathlib import Path

import pytest

CACHE_DIRECTORY = "ms_lint"
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


class _LintSession:
    """The resolved options and the results kept from earlier runs, for one pytest run."""

    def __init__(self, config, options):
        from ms_lint.result_cache import ResultCache

        self.config = config
        self.options = options
        self.rootpath = Path(config.rootpath)
        cache = getattr(config, "cache", None)  # None under -p no:cacheprovider
        # The results of `ms-lint check`, under the same keys, kept in pytest's cache (which --cache-clear empties).
        self.results = ResultCache(str(cache.mkdir(CACHE_DIRECTORY))) if cache is not None else None

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

    def previously_passed(self, path: Path, content: bytes) -> bool:
        """Whether the file, with everything its check read from the project, is unchanged since it passed."""
        from ms_lint.result_cache import entry_key

        if self.results is None:
            return False
        from ms_lint.lint import stored_findings_shown

        stored = self.results.get(entry_key(str(path), content, self.options.fingerprint_for(str(path))))
        return isinstance(stored, list) and stored_findings_shown(stored) == 0

    def lint(self, path: Path, content: bytes) -> list:
        from ms_lint.lint import cached_lint, lint_bytes

        if self.results is None:
            return lint_bytes(content, str(path), self.options)
        return cached_lint(content, str(path), self.options, self.results)[0]


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
            unchanged = state.previously_passed(path, path.read_bytes())
        except OSError:
            unchanged = False
        if unchanged:
            # A skip mark (rather than pytest.skip() at run time) reports the file, not this module, as its place.
            self.add_marker(pytest.mark.skip(reason="unchanged since it passed ms-lint"))

    def runtest(self) -> None:
        state: _LintSession = self.config.stash[_STATE]
        path = Path(self.path).resolve()
        try:
            content = path.read_bytes()
        except OSError as exc:
            raise MsLintFindings([f"{self._shown(path)}: cannot read it ({exc.strerror or exc})"]) from None
        reported = state.lint(path, content)
        if reported:
            shown = self._shown(path)
            raise MsLintFindings([
                f"{shown}:{r.finding.line}:{r.column}: {r.finding.code} {r.finding.message}" for r in reported
            ])

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
