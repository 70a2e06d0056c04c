"""The lint library: the checks run over files as ``ms-lint check`` runs them, for every front end that reports
findings of files (the CLI, the pytest plugins, the validator).

File discovery, selection, per-file ignores and ``# noqa`` from the options; a file's bytes decoded as Python
does (E902 when it cannot be); results kept in and read from the result cache; a process pool for many files.
"""
from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Sequence

from ms_lint.config import LintOptions
from ms_lint.target import SILENCED_BY

# Below this many files a process pool costs more than it saves, unless --jobs asks for one.
AUTO_PARALLEL_MIN_FILES = 24
STDIN = "-"


# --------------------------------------------------------------------------------------------------------- files


def discover_files(paths: Sequence[str], options: LintOptions, stdin_display_name: str = "stdin") -> list[str]:
    """The files to check (``-`` stays ``-``), each once, in order: see ``ms_lint.discovery``."""
    from ms_lint.discovery import discover_files as discover

    return discover(paths, filename_patterns=options.filename, exclude=options.all_excludes,
                    stdin_display_name=stdin_display_name, respect_gitignore=options.respect_gitignore,
                    force_exclude=options.force_exclude)


# ------------------------------------------------------------------------------------------------------ checking


@dataclass
class Outcome:
    """What a run found: the reported findings, the files that could not be read, how many files were checked."""

    reported: list = field(default_factory=list)
    # findings that hold only on another target (their properties name the setting that would show them)
    silenced: list = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    files_checked: int = 0
    from_cache: int = 0


def lint_source(source: str, path: str, options: LintOptions) -> list:
    """The reported findings for ``source`` shown as ``path``: selection, per-file ignores and ``# noqa`` applied."""
    return shown(_lint_source(source, path, options))


def shown(items: list) -> list:
    """The findings to report: without those that hold only on another target."""
    return [item for item in items if SILENCED_BY not in item.properties]


def _lint_source(source: str, path: str, options: LintOptions) -> list:
    """``lint_source``'s findings, each saying whether ``--fix`` fixes it, followed by those that hold only on another
    target (``SILENCED_BY`` in their properties), selected and ``# noqa``-filtered alike."""
    from ms_lint.engine import SYNTAX_ERROR
    from ms_lint.model.source import source_lines
    from ms_lint.noqa import file_is_skipped, lines_of, mentions_noqa, ranges_of_their_own, without_noqa
    from ms_lint.output import Reported, region_of

    lines = source_lines(source)
    if not options.disable_noqa and file_is_skipped(lines, source):
        return []
    selected = options.selected_codes(path)
    if not selected:
        return []
    # The selected rules run, and every rule that replaces or covers their findings (selected or not), so that it
    # does so here too; the selection filters afterwards.
    # A file that does not parse is reported as flake8 reports it (E999), whatever the selection.
    silenced: list = []
    with _analysed(source, path, options, silenced, lines, selected) as (findings, fixable, nodes):
        findings = [f for f in findings if f.code in selected or f.code == SYNTAX_ERROR]
        silenced = [f for f in silenced if f.code in selected]
        if (findings or silenced) and not options.disable_noqa and mentions_noqa(source):
            # a line no string or backslash joins to another is read alone for # noqa: no need to tokenize
            mapping = {} if nodes is not None and ranges_of_their_own(
                [line for finding in (*findings, *silenced) for line in lines_of(finding)], lines, nodes) else None
            findings = without_noqa(findings, lines, mapping)
            silenced = without_noqa(silenced, lines, mapping)
        target = options.target_for(path).summary()
        return [*(Reported(replace(finding, node=None, target=target), region_of(finding, lines),
                           fixable=fixable(finding))
                  for finding in findings),
                *(Reported(replace(finding, node=None, target=target),
                           properties={SILENCED_BY: finding.data[SILENCED_BY]})
                  for finding in silenced)]


def rules_to_run(selected: frozenset[str]) -> frozenset[str]:
    """The rules a check of ``selected`` runs: those, and every rule that may drop a finding of one of them (its
    ``replaces`` or ``covers_nested`` names it), and so on: a rule that is not selected (one off by default, an
    ignored one) changes what is reported only so, and otherwise costs its analysis for nothing."""
    found = _rules_to_run.get(selected)
    if found is None:
        from ms_lint.rules import ALL_RULES

        found = set(selected)
        grown = True
        while grown:
            grown = False
            for rule in ALL_RULES:
                if rule.code not in found and found.intersection((*rule.replaces, *rule.covers_nested)):
                    found.add(rule.code)
                    grown = True
        found = _rules_to_run[selected] = frozenset(found)
    return found


_rules_to_run: dict[frozenset[str], frozenset[str]] = {}


def _never(finding) -> bool:
    return False


@contextmanager
def _analysed(source: str, path: str, options: LintOptions, silenced: list, lines: list[str] | None = None,
              selected: frozenset[str] | None = None):
    """``(every rule's findings, whether --fix fixes a finding, every node of the module's tree or None)`` while the
    module's facts are at hand; the findings that hold only on another target go to ``silenced``. ``lines``: the
    source's lines, where the caller has them; ``selected``: the codes reported (default: every rule runs)."""
    from ms_lint.engine import analyse, check_source, parsed
    from ms_lint.rules import RULES_BY_CODE

    try:
        tree = parsed(source, path, options.settings)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        # check_source reports it (E999, or MS900 for code nested too deeply)
        yield check_source(source, path, options.settings, RULES_BY_CODE, report_syntax_errors=True,
                           silenced=silenced), _never, None
        return
    codes = RULES_BY_CODE if selected is None else rules_to_run(selected)
    module, findings = analyse(tree, source, path, options.settings, codes, lines, silenced)
    if module is None:
        yield findings, _never, None
        return
    from ms_lint.edits import FixContext

    context = FixContext(module, source)

    def fixable(finding) -> bool:
        rule = RULES_BY_CODE.get(finding.code)
        if rule is None or not rule.autofix:
            return False
        try:
            return bool(rule().fix(context, finding))
        except Exception:  # noqa: BLE001 -- a fix that fails is a fix --fix does not make
            return False

    try:
        yield findings, fixable, module.index.nodes
    finally:
        module.release()


def lint_bytes(data: bytes, path: str, options: LintOptions) -> list:
    """``lint_source`` for a file's bytes; a file Python cannot decode is reported as flake8's E902."""
    return shown(_lint_bytes(data, path, options))


def _lint_bytes(data: bytes, path: str, options: LintOptions) -> list:
    from ms_lint.engine import decode_error
    from ms_lint.model.source import decode_source
    from ms_lint.output import Reported

    try:
        source = decode_source(data, strict=True)
    except (UnicodeDecodeError, LookupError) as exc:
        if not options.selected_codes(path):
            return []
        return [Reported(replace(decode_error(path, data, exc), target=options.target_for(path).summary()))]
    return _lint_source(source, path, options)


def _read_bytes(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def lint_path(path: str, options: LintOptions, cache=None) -> tuple[list, str | None]:
    """``(reported findings, None)``, or ``([], why)`` when the file cannot be read."""
    reported, error, _ = _lint_path(path, options, cache)
    return shown(reported), error


def _lint_path(path: str, options: LintOptions, cache) -> tuple[list, str | None, bool]:
    """``lint_path``, through ``cache`` (a ``ResultCache`` or None), with the findings that hold only on another
    target; the last item: whether the cache answered."""
    try:
        data = _read_bytes(path)
    except OSError as exc:
        return [], f"{path}: cannot read it ({exc.strerror or exc})", False
    if cache is None:
        return _lint_bytes(data, path, options), None, False
    reported, hit = _cached_lint(data, path, options, cache)
    return reported, None, hit


def cached_lint(data: bytes, path: str, options: LintOptions, cache) -> tuple[list, bool]:
    """``(lint_bytes(...), whether it came from cache)``; a new result is stored in ``cache``."""
    reported, hit = _cached_lint(data, path, options, cache)
    return shown(reported), hit


def _cached_lint(data: bytes, path: str, options: LintOptions, cache) -> tuple[list, bool]:
    from ms_lint.model.project import recording_lookups
    from ms_lint.result_cache import entry_key

    key = entry_key(path, data, options.fingerprint_for(path))
    stored = cache.get(key)
    if stored is not None:
        try:
            reported = [_reported_from(item) for item in stored]
        except (TypeError, ValueError, KeyError):
            pass  # an entry of another shape: check the file
        else:
            # the target is the key's, but for the project's root, which is not part of it
            target = options.target_for(path).summary()
            return [replace(item, finding=replace(item.finding, target=target)) for item in reported], True
    with recording_lookups() as lookups:
        reported = _lint_bytes(data, path, options)
    cache.put(key, lookups, [_reported_to(item) for item in reported])
    return reported, False


def _reported_to(item) -> list:
    finding, region = item.finding, item.region
    return [finding.path, finding.line, finding.col, finding.code, finding.message, finding.scope,
            None if region is None else [region.start_line, region.start_column, region.end_line, region.end_column],
            dict(item.properties), dict(finding.data), item.fixable]


def stored_findings_shown(stored: list) -> int:
    """How many of a cache entry's findings are reported (not held only on another target); -1 for an entry of
    another shape."""
    try:
        return len(shown([_reported_from(item) for item in stored]))
    except (TypeError, ValueError, KeyError):
        return -1


def _reported_from(stored: list):
    from ms_lint.findings import Finding
    from ms_lint.output import Region, Reported

    path, line, col, code, message, scope, region, properties, data, fixable = stored
    finding = Finding(str(path), int(line), int(col), str(code), str(message), str(scope), data=dict(data))
    return Reported(finding, None if region is None else Region(*(int(value) for value in region)), dict(properties),
                    fixable=bool(fixable))


def read_stdin_bytes() -> bytes:
    return sys.stdin.buffer.read()


_worker_options: LintOptions | None = None
_worker_cache = None


def _start_worker(options: LintOptions, cache_dir: str | None, summaries: str | None = None,
                  files: Sequence[str] = ()) -> None:
    global _worker_options, _worker_cache
    _worker_options = options
    _worker_cache = _open_cache(cache_dir)
    _checking_a_project(summaries, files).__enter__()  # for the worker's life


# How much source the facts a run keeps may hold (about 1.5 KB of memory a line): the modules many files ask about
# (base classes, their packages) are asked again and again and stay.
KEPT_LINES = 150_000


@contextmanager
def _checking_a_project(summaries: str | None = None, files: Sequence[str] = ()):
    """A run over many files in this process (``files``: those it checks): the facts of modules read or checked
    are kept for the files checked later (``project.ProjectIndex.keep_modules``), the summaries and answers about
    modules go to and come from the store in the directory ``summaries`` (``result_cache.SummaryStore``), and the
    garbage collector does not run. The analysis makes no reference cycle with the trees and facts it builds, and
    frees them by their reference counts as soon as they go (``tests/test_project_cache.py``); the collections
    that their millions of objects trigger would walk the kept facts over and over to find next to nothing (a few
    thousand objects in a run over 900 files, against three seconds of collections in fifteen)."""
    import gc

    from ms_lint.model.project import keep_modules, use_store

    collecting = gc.isenabled()
    gc.disable()
    keep_modules(KEPT_LINES, files)
    if summaries is not None:
        from ms_lint.result_cache import SummaryStore

        use_store(SummaryStore(summaries))
    try:
        yield
    finally:
        use_store(None)
        keep_modules(0)
        if collecting:
            gc.enable()


def _open_cache(cache_dir: str | None):
    if cache_dir is None:
        return None
    from ms_lint.result_cache import ResultCache

    return ResultCache(cache_dir)


def _lint_in_worker(path: str) -> tuple[list, str | None, bool]:
    try:
        return _lint_path(path, _worker_options, _worker_cache)
    except Exception as exc:  # noqa: BLE001 -- one file's failure must not lose the others' results
        return [], f"{path}: {type(exc).__name__}: {exc}", False


def available_cpus() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def pool_size(requested: int | None, file_count: int) -> int:
    """How many processes to use: one for few files unless asked, never more than files."""
    if file_count < 2:
        return 1
    if requested is None:
        if os.environ.get("PRE_COMMIT") == "1":
            return 1  # pre-commit already runs one ms-lint per CPU on its share of the files
        return 1 if file_count < AUTO_PARALLEL_MIN_FILES else min(available_cpus(), file_count)
    return max(1, min(requested, file_count))


def check_files(files: Sequence[str], options: LintOptions, *, stdin_display_name: str = "stdin",
                cache_dir: str | None = None, stdin: bytes | None = None) -> Outcome:
    """Check ``files``; with ``cache_dir``, reuse the results kept there and keep the new ones. ``stdin``: what to
    check for ``-`` when standard input was read already (by ``--fix``)."""
    outcome = Outcome()
    paths = [path for path in files if path != STDIN]
    if len(paths) != len(files):
        outcome.reported.extend(_lint_bytes(read_stdin_bytes() if stdin is None else stdin, stdin_display_name,
                                            options))
        outcome.files_checked += 1
    for reported, error, cached in _lint_paths(paths, options, cache_dir):
        outcome.reported.extend(reported)
        if error is None:
            outcome.files_checked += 1
            outcome.from_cache += cached
        else:
            outcome.errors.append(error)
    outcome.silenced = [item for item in outcome.reported if SILENCED_BY in item.properties]
    outcome.reported = shown(outcome.reported)
    outcome.reported.sort(key=lambda r: (r.finding.path, r.finding.line, r.finding.col, r.finding.code))
    return outcome


def _lint_paths(paths: Sequence[str], options: LintOptions, cache_dir: str | None = None):
    jobs = pool_size(options.jobs, len(paths))
    if jobs > 1:
        try:
            return _lint_in_pool(paths, options, jobs, cache_dir)
        except (OSError, ImportError):
            pass  # no process pool on this system (no semaphores, no fork): check in this process
    cache = _open_cache(cache_dir)
    with _checking_a_project(cache_dir, paths):
        return [_lint_path(path, options, cache) for path in paths]


def _lint_in_pool(paths: Sequence[str], options: LintOptions, jobs: int, cache_dir: str | None):
    """The files checked by ``jobs`` worker processes, each keeping the facts of the modules it reads; they share
    what they learn of the project's modules through one summary store (the cache's, or one for this run only
    without a cache), so that a module one worker summarised is not read again by the others."""
    import multiprocessing
    import tempfile

    chunksize = max(1, len(paths) // (jobs * 4))
    with tempfile.TemporaryDirectory(prefix="ms-lint-summaries-") if cache_dir is None else _no_folder() as scratch:
        summaries = cache_dir if cache_dir is not None else scratch
        with multiprocessing.get_context().Pool(jobs, initializer=_start_worker,
                                                initargs=(options, cache_dir, summaries, paths)) as pool:
            return pool.map(_lint_in_worker, paths, chunksize=chunksize)


@contextmanager
def _no_folder():
    yield None
