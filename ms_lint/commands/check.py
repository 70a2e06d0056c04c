"""``ms-lint check PATH...``: the MS checks alone, without flake8's style checks, for CI and pre-commit.

It finds files as flake8 does (its exclude defaults and patterns) and, as ruff does, leaves out what git ignores,
virtual environments and build output; it decides what to report with flake8's own
select/ignore logic and ``# noqa`` handling, and reads the same options as the flake8 plugin, so a file gets the
same MS findings from both. Exit status: 0 clean (or ``--exit-zero``), 1 findings, 2 usage, configuration or
read errors.
"""
from __future__ import annotations

import argparse
import ast
import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Sequence

from ms_lint.commands import ERROR_PREFIX
from ms_lint.config import OUTPUT_FORMATS, ConfigError, LintOptions, resolve_options

# Below this many files a process pool costs more than it saves, unless --jobs asks for one.
AUTO_PARALLEL_MIN_FILES = 24
STDIN = "-"


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "check",
        help="report MindSpore graph-mode hazards (the MS rules only, without flake8's style checks)",
        description="Report MindSpore graph-mode hazards in Python files. Reads options from [tool.ms-lint] in "
        "pyproject.toml and from flake8's configuration ([flake8] in setup.cfg, tox.ini or .flake8); options "
        "given here take precedence. Exit status: 0 no findings, 1 findings, 2 usage or configuration error or a "
        "file that could not be read.",
    )
    parser.add_argument(
        "paths", nargs="*", metavar="PATH",
        help="files and directories to check (default: the current directory); - reads standard input",
    )
    parser.add_argument("--format", help=f"output format: {', '.join(OUTPUT_FORMATS)} (default: text, flake8's)")
    parser.add_argument("--output-file", metavar="FILE", help="write the report to FILE instead of standard output")
    codes = parser.add_argument_group("selecting rules (flake8's semantics: codes and prefixes, longest wins)")
    codes.add_argument("--select", action="append", metavar="CODES",
                       help="report only these codes, replacing the default selection (e.g. MS1,MS201)")
    codes.add_argument("--ignore", action="append", metavar="CODES",
                       help="ignore these codes, replacing the default ignore list; prefer --extend-ignore, "
                       "which keeps the rules that are off by default off")
    codes.add_argument("--extend-select", action="append", metavar="CODES",
                       help="add codes to the selection (turns on rules that are off by default)")
    codes.add_argument("--extend-ignore", action="append", metavar="CODES", help="add codes to the ignore list")
    codes.add_argument("--per-file-ignores", metavar="MAPPING",
                       help="codes to ignore in some files, e.g. 'tests/*:MS101 scripts/*.py:MS1,MS2'")
    codes.add_argument("--disable-noqa", action="store_true", default=None,
                       help="report findings on lines marked # noqa too")
    files = parser.add_argument_group("finding files")
    files.add_argument("--exclude", action="append", metavar="PATTERNS",
                       help="comma-separated files or directories to skip, replacing flake8's default list "
                       "(.svn,CVS,.bzr,.hg,.git,__pycache__,.tox,.nox,.eggs,*.egg)")
    files.add_argument("--extend-exclude", action="append", metavar="PATTERNS",
                       help="comma-separated files or directories to skip as well")
    files.add_argument("--filename", action="append", metavar="PATTERNS",
                       help="file name patterns checked inside directories (default: *.py)")
    files.add_argument("--no-respect-gitignore", dest="respect_gitignore", action="store_false", default=None,
                       help="check files that git ignores and those in virtual environments (.venv, venv, any "
                       "directory holding pyvenv.cfg, site-packages) and build output (build, dist) too; by default "
                       "a directory walk skips them")
    files.add_argument("--force-exclude", action="store_true", default=None,
                       help="skip what git ignores, virtual environments and build output in paths named on the "
                       "command line too (for pre-commit, which names every file)")
    files.add_argument("--stdin-display-name", default="stdin", metavar="NAME",
                       help="the path of the code read from standard input: used in the report, for "
                       "per-file-ignores and to find the modules it imports (default: stdin)")
    model = parser.add_argument_group("how MindSpore runs the code (same options as the flake8 plugin)")
    model.add_argument("--ms-mode", metavar="MODE",
                       help="graph (default): Cells run in GRAPH_MODE unless a module says otherwise; "
                       "pynative: only @jit code is compiled")
    model.add_argument("--ms-syntax-level", metavar="LEVEL",
                       help="strict (default): report what fails under STRICT; lax: only what fails or "
                       "misbehaves under LAX too")
    model.add_argument("--per-path-ms-mode", metavar="PATTERN:MODE",
                       help="comma-separated PATTERN:MODE pairs: files matching a pattern run their Cells in that "
                       "mode (pkg/eager/*:pynative) unless they call set_context themselves")
    fixing = parser.add_argument_group("fixing")
    fixing.add_argument("--fix", action="store_true",
                        help="rewrite the mechanical cases in place (MS201, MS202, MS107, MS205: see `ms-lint rules`), "
                        "then report what is left; with - the fixed code goes to standard output")
    fixing.add_argument("--diff", action="store_true", help="print the fixes as a unified diff; change no file")
    fixing.add_argument("--add-noqa", action="store_true",
                        help="append # noqa: CODE to every line with findings (merging with a # noqa: CODES "
                        "already there), so that only new findings are reported from now on; with --fix, fixes "
                        "first and marks what is left")
    run = parser.add_argument_group("running")
    run.add_argument("--exit-zero", action="store_true", help="exit with status 0 even when there are findings")
    run.add_argument("--statistics", action="store_true", default=None,
                     help="after the findings, count them per code (with json, a \"statistics\" object; with "
                     "sarif and github, on standard error)")
    run.add_argument("-j", "--jobs", metavar="N",
                     help="processes to check files with: a number, or auto (default: one per CPU when there "
                     "are many files, else in this process)")
    run.add_argument("--no-cache", dest="cache", action="store_false", default=None,
                     help="check every file again instead of reusing the results kept in .ms_lint_cache/check "
                     "(which this run does not update)")
    run.add_argument("--cache-dir", metavar="DIR",
                     help="where results are kept (default: .ms_lint_cache/check at the project root)")
    run.add_argument("-v", "--verbose", action="store_true",
                     help="say on standard error how many files were checked and how many came from the cache")
    run.add_argument("--config", metavar="FILE",
                     help="read options from FILE only (pyproject.toml, setup.cfg, tox.ini or .flake8)")
    run.add_argument("--isolated", action="store_true", help="read no configuration file")
    parser.set_defaults(handler=run_check)


def _joined(values: Sequence[str] | None) -> str | None:
    return None if values is None else ",".join(values)


def command_line_options(args: argparse.Namespace) -> dict:
    return {
        "select": _joined(args.select),
        "ignore": _joined(args.ignore),
        "extend-select": _joined(args.extend_select),
        "extend-ignore": _joined(args.extend_ignore),
        "per-file-ignores": args.per_file_ignores,
        "exclude": _joined(args.exclude),
        "extend-exclude": _joined(args.extend_exclude),
        "filename": _joined(args.filename),
        "ms-mode": args.ms_mode,
        "ms-syntax-level": args.ms_syntax_level,
        "per-path-ms-mode": args.per_path_ms_mode,
        "disable-noqa": args.disable_noqa,
        "jobs": args.jobs,
        "format": args.format,
        "respect-gitignore": args.respect_gitignore,
        "force-exclude": args.force_exclude,
        "cache": args.cache,
        "statistics": args.statistics,
    }


def run_check(args: argparse.Namespace) -> int:
    from ms_lint.output import render

    try:
        options = resolve_options(command_line_options(args), config_file=args.config, isolated=args.isolated)
    except ConfigError as exc:
        return _error(str(exc))
    paths = list(args.paths) or ["."]
    missing = [path for path in paths if path != STDIN and not os.path.exists(path)]
    if missing:
        return _error("; ".join(f"{path}: no such file or directory" for path in missing))
    if not options.selected_codes():
        where = f" ({', '.join(str(source) for source in options.sources)})" if options.sources else ""
        print(f"ms-lint: warning: the selection{where} enables no MS rule; nothing is reported", file=sys.stderr)

    if args.add_noqa:
        refusal = _add_noqa_refusal(args, paths)
        if refusal:
            return _error(refusal)
        # What to mark: every finding no # noqa silences yet, whatever --disable-noqa says.
        options = replace(options, disable_noqa=False)

    files = discover_files(paths, options, args.stdin_display_name)
    if args.fix or args.diff:
        status = fix_files(files, options, args)
        if status is not None:
            return status
    cache_dir = None
    if options.cache:
        from ms_lint.result_cache import default_directory

        cache_dir = os.path.abspath(args.cache_dir) if args.cache_dir else default_directory()
    outcome = check_files(files, options, stdin_display_name=args.stdin_display_name, cache_dir=cache_dir)
    if args.verbose:
        print(f"ms-lint: {outcome.files_checked} file(s) checked, {outcome.from_cache} of them from the cache",
              file=sys.stderr)
    if args.add_noqa:
        outcome.reported = mark_files(outcome)
    report = render(outcome.reported, options.format, files_checked=outcome.files_checked, errors=outcome.errors,
                    statistics=options.statistics)
    try:
        _write(report, args.output_file)
    except OSError as exc:
        return _error(f"{args.output_file}: cannot write the report ({exc.strerror or exc})")
    if options.statistics and options.format in ("sarif", "github"):
        from ms_lint.output import format_statistics

        print(format_statistics(outcome.reported), end="", file=sys.stderr)
    for error in outcome.errors:
        print(f"{ERROR_PREFIX}{error}", file=sys.stderr)
    if options.format == "text":
        print_closing_line(outcome)
    if outcome.errors:
        return 2
    return 1 if outcome.reported and not args.exit_zero else 0


def print_closing_line(outcome: "Outcome") -> None:
    """The text report's last line, on standard error (stdout stays flake8's format for the tools that read it)."""
    from ms_lint.output import closing_line

    print(closing_line(outcome.reported, outcome.files_checked), file=sys.stderr)


def _add_noqa_refusal(args: argparse.Namespace, paths: Sequence[str]) -> str | None:
    if STDIN in paths:
        return "--add-noqa marks files in place and cannot mark standard input (-)"
    if args.diff:
        return "--add-noqa changes files and --diff changes none: use one of them"
    return None


def mark_files(outcome: "Outcome") -> list:
    """Add ``# noqa`` comments for ``outcome``'s findings; the findings left unmarked (a file that does not
    tokenize or decode, a ``# noqa: CODES`` inside a string). Says how many lines were marked."""
    from ms_lint.add_noqa import add_noqa_to_file
    from ms_lint.engine import DECODE_ERROR, SYNTAX_ERROR

    by_path: dict[str, list] = {}
    left, marked, not_marked = [], 0, 0
    for item in outcome.reported:
        if item.finding.code in (SYNTAX_ERROR, DECODE_ERROR):
            left.append(item)  # a file that cannot be read is to be repaired, not silenced
        else:
            by_path.setdefault(item.finding.path, []).append(item)
    for path, items in by_path.items():
        try:
            result = add_noqa_to_file(path, [item.finding for item in items])
        except (UnicodeError, LookupError):
            left.extend(items)  # reported as E902 already
            continue
        except OSError as exc:
            outcome.errors.append(f"{path}: cannot add # noqa comments ({exc.strerror or exc})")
            left.extend(items)
            continue
        marked += result.lines_marked
        unmarked = {id(finding) for finding in result.unmarked}
        left.extend(item for item in items if id(item.finding) in unmarked)
        not_marked += len(unmarked)
    left.sort(key=lambda r: (r.finding.path, r.finding.line, r.finding.col, r.finding.code))
    print(f"Added {marked:,} noqa directive{'' if marked == 1 else 's'}.", file=sys.stderr)
    if not_marked:
        print(f"ms-lint: {not_marked:,} finding{' could' if not_marked == 1 else 's could'} not be marked: flake8 "
              "reads the first '# noqa' of the line, here one inside a string, or the file does not tokenize",
              file=sys.stderr)
    return left


def fix_files(files: Sequence[str], options: LintOptions, args: argparse.Namespace) -> int | None:
    """Apply (``--fix``) or show (``--diff``) the fixes; an exit status when nothing more is to be done."""
    from ms_lint.model.source import decode_source
    from ms_lint.fixes import fix_source, write_fixed

    diffs, fixed_findings, fixed_files = [], 0, 0
    for path in files:
        try:
            source = decode_source(read_stdin_bytes() if path == STDIN else _read_bytes(path), strict=True)
        except (OSError, UnicodeDecodeError, LookupError):
            continue  # reported as unreadable (or E902) by the check that follows
        shown = args.stdin_display_name if path == STDIN else path
        result = fix_source(source, shown, options.settings, codes=None,
                            accept=lambda findings, shown=shown, source=source: fixable(findings, shown, source,
                                                                                        options))
        if path == STDIN and args.fix and not args.diff:
            _write(result.fixed, args.output_file)
            return 0
        if not result.changed:
            continue
        if args.diff:
            diffs.append(result.diff())
        else:
            write_fixed(path, result.fixed)
        fixed_findings += result.applied
        fixed_files += 1
    if args.diff:
        _write("".join(diffs), args.output_file)
        return 1 if diffs and not args.exit_zero else 0
    if fixed_files:
        print(f"ms-lint: fixed {fixed_findings} finding(s) in {fixed_files} file(s)", file=sys.stderr)
    return None


def fixable(findings: list, path: str, source: str, options: LintOptions) -> list:
    """The findings the user asked for: selected for ``path`` and not silenced by ``# noqa``."""
    from ms_lint.model.source import source_lines
    from ms_lint.noqa import without_noqa

    selected = options.selected_codes(path)
    findings = [f for f in findings if f.code in selected]
    if findings and not options.disable_noqa:
        findings = without_noqa(findings, source_lines(source))
    return findings


def _error(message: str) -> int:
    print(f"{ERROR_PREFIX}{message}", file=sys.stderr)
    return 2


def _write(report: str, output_file: str | None) -> None:
    if output_file:
        with open(output_file, "w", encoding="utf-8") as handle:
            handle.write(report)
        return
    stream = sys.stdout
    try:
        try:
            stream.write(report)
            stream.flush()
        except UnicodeEncodeError:
            stream.buffer.write(report.encode(stream.encoding or "utf-8", errors="replace"))
            stream.flush()
    except BrokenPipeError:
        # The reader left (`ms-lint check | head`): nothing more to say, and no traceback at exit either.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())


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
    errors: list[str] = field(default_factory=list)
    files_checked: int = 0
    from_cache: int = 0


def lint_source(source: str, path: str, options: LintOptions) -> list:
    """The reported findings for ``source`` shown as ``path``: selection, per-file ignores and ``# noqa`` applied;
    each says whether ``--fix`` fixes it."""
    from ms_lint.engine import SYNTAX_ERROR
    from ms_lint.model.source import source_lines
    from ms_lint.noqa import file_is_skipped, without_noqa
    from ms_lint.output import Reported, region_of

    lines = source_lines(source)
    if not options.disable_noqa and file_is_skipped(lines):
        return []
    selected = options.selected_codes(path)
    if not selected:
        return []
    # Every rule runs, as in the flake8 plugin, so that a rule that replaces another's finding on the same node
    # does so here too; the selection filters afterwards.
    # A file that does not parse is reported as flake8 reports it (E999), whatever the selection.
    with _analysed(source, path, options) as (findings, fixable):
        findings = [f for f in findings if f.code in selected or f.code == SYNTAX_ERROR]
        if findings and not options.disable_noqa:
            findings = without_noqa(findings, lines)
        return [Reported(replace(finding, node=None), region_of(finding, lines), fixable=fixable(finding))
                for finding in findings]


def _never(finding) -> bool:
    return False


@contextmanager
def _analysed(source: str, path: str, options: LintOptions):
    """``(every rule's findings, whether --fix fixes a finding)`` while the module's facts are at hand."""
    from ms_lint.engine import analyse, check_source
    from ms_lint.rules import RULES_BY_CODE

    try:
        tree = ast.parse(source, filename=path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        # check_source reports it (E999, or MS900 for code nested too deeply)
        yield check_source(source, path, options.settings, RULES_BY_CODE, report_syntax_errors=True), _never
        return
    module, findings = analyse(tree, source, path, options.settings, RULES_BY_CODE)
    if module is None:
        yield findings, _never
        return
    from ms_lint.fixes import FixContext

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
        yield findings, fixable
    finally:
        module.release()


def lint_bytes(data: bytes, path: str, options: LintOptions) -> list:
    """``lint_source`` for a file's bytes; a file Python cannot decode is reported as flake8's E902."""
    from ms_lint.engine import decode_error
    from ms_lint.model.source import decode_source
    from ms_lint.output import Reported

    try:
        source = decode_source(data, strict=True)
    except (UnicodeDecodeError, LookupError) as exc:
        return [Reported(decode_error(path, data, exc))] if options.selected_codes(path) else []
    return lint_source(source, path, options)


def _read_bytes(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def lint_path(path: str, options: LintOptions, cache=None) -> tuple[list, str | None]:
    """``(reported findings, None)``, or ``([], why)`` when the file cannot be read."""
    reported, error, _ = _lint_path(path, options, cache)
    return reported, error


def _lint_path(path: str, options: LintOptions, cache) -> tuple[list, str | None, bool]:
    """``lint_path``, through ``cache`` (a ``ResultCache`` or None); the last item: whether the cache answered."""
    try:
        data = _read_bytes(path)
    except OSError as exc:
        return [], f"{path}: cannot read it ({exc.strerror or exc})", False
    if cache is None:
        return lint_bytes(data, path, options), None, False
    reported, hit = cached_lint(data, path, options, cache)
    return reported, None, hit


def cached_lint(data: bytes, path: str, options: LintOptions, cache) -> tuple[list, bool]:
    """``(lint_bytes(...), whether it came from cache)``; a new result is stored in ``cache``."""
    from ms_lint.model.project import recording_lookups
    from ms_lint.result_cache import entry_key

    key = entry_key(path, data, options.fingerprint())
    stored = cache.get(key)
    if stored is not None:
        try:
            return [_reported_from(item) for item in stored], True
        except (TypeError, ValueError, KeyError):
            pass  # an entry of another shape: check the file
    with recording_lookups() as lookups:
        reported = lint_bytes(data, path, options)
    cache.put(key, lookups, [_reported_to(item) for item in reported])
    return reported, False


def _reported_to(item) -> list:
    finding, region = item.finding, item.region
    return [finding.path, finding.line, finding.col, finding.code, finding.message, finding.scope,
            None if region is None else [region.start_line, region.start_column, region.end_line, region.end_column],
            dict(item.properties), dict(finding.data), item.fixable]


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


def _start_worker(options: LintOptions, cache_dir: str | None) -> None:
    global _worker_options, _worker_cache
    _worker_options = options
    _worker_cache = _open_cache(cache_dir)


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
                cache_dir: str | None = None) -> Outcome:
    """Check ``files``; with ``cache_dir``, reuse the results kept there and keep the new ones."""
    outcome = Outcome()
    paths = [path for path in files if path != STDIN]
    if len(paths) != len(files):
        outcome.reported.extend(lint_bytes(read_stdin_bytes(), stdin_display_name, options))
        outcome.files_checked += 1
    for reported, error, cached in _lint_paths(paths, options, cache_dir):
        outcome.reported.extend(reported)
        if error is None:
            outcome.files_checked += 1
            outcome.from_cache += cached
        else:
            outcome.errors.append(error)
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
    return [_lint_path(path, options, cache) for path in paths]


def _lint_in_pool(paths: Sequence[str], options: LintOptions, jobs: int, cache_dir: str | None):
    import multiprocessing

    chunksize = max(1, len(paths) // (jobs * 4))
    with multiprocessing.get_context().Pool(jobs, initializer=_start_worker, initargs=(options, cache_dir)) as pool:
        return pool.map(_lint_in_worker, paths, chunksize=chunksize)
