"""``ms-lint check PATH...``: the MS checks alone, without flake8's style checks, for CI and pre-commit.

It finds files as flake8 does (its exclude defaults and patterns) and, as ruff does, leaves out what git ignores,
virtual environments and build output; it decides what to report with flake8's own
select/ignore logic and ``# noqa`` handling, and reads the same options as the flake8 plugin, so a file gets the
same MS findings from both. Exit status: 0 clean (or ``--exit-zero``), 1 findings, 2 usage, configuration or
read errors.
"""
from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from typing import Sequence

from ms_lint.commands import ERROR_PREFIX
from ms_lint.config import OUTPUT_FORMATS, ConfigError, LintOptions, resolve_options
from ms_lint.lint import STDIN, Outcome, _read_bytes, check_files, discover_files, read_stdin_bytes
from ms_lint.target import SILENCED_BY


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
                       help="graph: Cells run in GRAPH_MODE unless a module says otherwise; pynative: only @jit code "
                       "is compiled (default: the mode the application's entry points select, else PyNative, "
                       "MindSpore's default; GRAPH_MODE for a library)")
    model.add_argument("--ms-syntax-level", metavar="LEVEL",
                       help="strict: report what fails under STRICT; lax: only what fails or misbehaves under LAX "
                       "too (default: strict where the project selects STRICT or exports MindIR, else lax)")
    model.add_argument("--ms-device", metavar="DEVICE",
                       help="ascend, gpu, cpu or any: the device the code runs on (default: the one the project's "
                       "code names, else any)")
    model.add_argument("--ms-version", metavar="VERSION",
                       help="the MindSpore version the code runs with, such as 2.7.1 (default: the installed one, "
                       "else the project's requirement, else the newest ms-lint knows)")
    model.add_argument("--ms-tensor-methods", metavar="NAMES",
                       help="comma-separated methods the project adds to Tensor at run time (a compatibility "
                       "layer's detach, backward): MS602 takes them as existing")
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
        "ms-device": args.ms_device,
        "ms-version": args.ms_version,
        "ms-tensor-methods": args.ms_tensor_methods,
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
    targets = targets_of(files, options, args.stdin_display_name)
    outcome = check_files(files, options, stdin_display_name=args.stdin_display_name, cache_dir=cache_dir)
    for line in target_lines(targets, outcome.silenced):
        print(line, file=sys.stderr)
    if args.verbose:
        print(f"ms-lint: {outcome.files_checked} file(s) checked, {outcome.from_cache} of them from the cache",
              file=sys.stderr)
    if args.add_noqa:
        outcome.reported = mark_files(outcome)
    report = render(outcome.reported, options.format, files_checked=outcome.files_checked, errors=outcome.errors,
                    targets=[target.to_dict() for target in targets], statistics=options.statistics)
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


def targets_of(files: Sequence[str], options: LintOptions, stdin_display_name: str = "stdin") -> list:
    """The targets the files are checked against, one per project, in the order the files come; inferring them
    here, before any worker process starts, lets the workers inherit what was read."""
    targets = []
    for path in files:
        target = options.target_for(stdin_display_name if path == STDIN else path)
        if target not in targets:
            targets.append(target)
    return targets


def target_lines(targets: Sequence, silenced: Sequence) -> list[str]:
    """What the run assumed, for standard error: ``target: MindSpore 2.7.1 (installed) · Ascend (train.py:6) ·
    graph · LAX (MindSpore's default)``, and how many findings hold only on another target, with the setting that
    shows them."""
    from ms_lint.mindspore_api import version_note

    lines = [f"target: {target.describe()}" for target in targets]
    notes = {version_note(target.version) for target in targets} - {None}
    lines.extend(f"target: {note}" for note in sorted(notes))
    settings: dict[str, int] = {}
    for item in silenced:
        setting = item.properties.get(SILENCED_BY, "")
        settings[setting] = settings.get(setting, 0) + 1
    for setting, count in sorted(settings.items()):
        if setting.startswith("ms-mode="):
            lines.append(f"target: {count} finding(s) hold only if this application runs in GRAPH_MODE; --{setting} "
                         f"shows them")
        else:
            lines.append(f"target: {count} finding(s) hold only on another device; --{setting} shows them")
    if any(target.syntax_level == "lax" and target.origin("syntax_level") != "option" for target in targets):
        lines.append("target: findings that hold under STRICT only are not reported; --ms-syntax-level=strict "
                     "shows them")
    return lines


def print_closing_line(outcome: Outcome) -> None:
    """The text report's last line, on standard error (stdout stays flake8's format for the tools that read it)."""
    from ms_lint.output import closing_line

    print(closing_line(outcome.reported, outcome.files_checked), file=sys.stderr)


def _add_noqa_refusal(args: argparse.Namespace, paths: Sequence[str]) -> str | None:
    if STDIN in paths:
        return "--add-noqa marks files in place and cannot mark standard input (-)"
    if args.diff:
        return "--add-noqa changes files and --diff changes none: use one of them"
    return None


def mark_files(outcome: Outcome) -> list:
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
