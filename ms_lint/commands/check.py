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
from ms_lint.settings import PINNED, SettingsError, is_version
from ms_lint.target import SILENCED_BY, TargetGroup, group_targets


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
                       help="report only these codes, replacing the default selection (e.g. MS1,MS201): the rules "
                       "off by default among them run too, as in flake8")
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
    model.add_argument("--ms-upgrade-from", metavar="VERSION", nargs="?", const=PINNED,
                       help="report only what breaks or changes meaning when the project moves from VERSION to the "
                       "target's (--ms-version): the findings of the target that VERSION does not have, and a "
                       "closing line counting them by kind (VERSION left out: the one the project's requirement "
                       "pins or starts from)")
    model.add_argument("--ms-tensor-methods", metavar="NAMES",
                       help="comma-separated methods the project adds to Tensor at run time (a compatibility "
                       "layer's detach, backward): MS602 takes them as existing")
    model.add_argument("--ms-check-unrun", action="store_true", default=None,
                       help="report code the application never runs too (a class or function no code that runs "
                       "names, a module no entry point imports); by default its findings are counted on standard "
                       "error, not shown")
    model.add_argument("--ms-each-line", action="store_true", default=None,
                       help="report every line of a cause: by default the same misuse in one function, or one "
                       "constant several calls read, is reported once, at its first line, naming the others")
    model.add_argument("--per-path-ms-mode", metavar="PATTERN:MODE",
                       help="comma-separated PATTERN:MODE pairs: files matching a pattern run their Cells in that "
                       "mode (pkg/eager/*:pynative) unless they call set_context themselves")
    fixing = parser.add_argument_group("fixing")
    fixing.add_argument("--fix", action=_FixAction)
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
        "ms-check-unrun": args.ms_check_unrun,
        "ms-each-line": args.ms_each_line,
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
    if args.ms_upgrade_from not in (None, PINNED) and not is_version(args.ms_upgrade_from) \
            and os.path.exists(args.ms_upgrade_from):
        # ``--ms-upgrade-from src/``: the option without its value, followed by a path
        args.paths = [args.ms_upgrade_from, *args.paths]
        args.ms_upgrade_from = PINNED
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
    stdin = None  # standard input's bytes once --fix has read them: the fixed code, checked for what is left
    if args.fix or args.diff:
        status, stdin = fix_files(files, options, args)
        if status is not None:
            return status
    cache_dir = None
    if options.cache:
        from ms_lint.result_cache import default_directory

        cache_dir = os.path.abspath(args.cache_dir) if args.cache_dir else default_directory()
    upgrade = None
    if args.ms_upgrade_from is not None:
        try:
            upgrade = UpgradeRun(options, args.ms_upgrade_from)
        except SettingsError as exc:
            return _error(str(exc))
        options = upgrade.to_options
        if stdin is None and STDIN in files:
            stdin = read_stdin_bytes()  # checked twice: once for each version
    groups = group_targets(targets_of(files, options, args.stdin_display_name))
    outcome = check_files(files, options, stdin_display_name=args.stdin_display_name, cache_dir=cache_dir,
                          stdin=stdin)
    if upgrade is not None:
        outcome = upgrade.new_findings(outcome, files, args.stdin_display_name, cache_dir, stdin)
    if args.verbose:
        print(f"ms-lint: {outcome.files_checked} file(s) checked, {outcome.from_cache} of them from the cache",
              file=sys.stderr)
    if args.add_noqa:
        outcome.reported = mark_files(outcome)
    report = render(outcome.reported, options.format, files_checked=outcome.files_checked, errors=outcome.errors,
                    targets=groups, statistics=options.statistics)
    try:
        if stdin is not None and args.fix:
            print(report, end="", file=sys.stderr)  # standard output holds the fixed code
        else:
            _write(report, args.output_file)
    except OSError as exc:
        return _error(f"{args.output_file}: cannot write the report ({exc.strerror or exc})")
    if options.statistics and options.format in ("sarif", "github"):
        from ms_lint.output import format_statistics

        print(format_statistics(outcome.reported, groups), end="", file=sys.stderr)
    for error in outcome.errors:
        print(f"{ERROR_PREFIX}{error}", file=sys.stderr)
    # What the run assumed comes after the findings, as the last thing before the closing line.
    for line in target_lines(groups, outcome.silenced, upgrade is not None):
        print(line, file=sys.stderr)
    if options.format == "text":
        print_closing_line(outcome, groups)
        if upgrade is not None:
            print(upgrade_line([group.target for group in groups], outcome.reported), file=sys.stderr)
    if outcome.errors:
        return 2
    return 1 if outcome.reported and not args.exit_zero else 0


class UpgradeRun:
    """``--ms-upgrade-from``: the files checked twice, against the version the project moves from and against the
    target's, and only what the target adds reported (a finding is the same when its code and position are)."""

    def __init__(self, options: LintOptions, upgrade_from: str):
        settings = options.settings
        self.to_options = replace(options, settings=replace(settings, upgrade_from=upgrade_from))
        from_settings = replace(settings, version="" if upgrade_from == PINNED else upgrade_from,
                                pinned=upgrade_from == PINNED, upgrade_from="")
        self.from_options = replace(options, settings=from_settings)

    def new_findings(self, outcome: Outcome, files: Sequence[str], stdin_display_name: str, cache_dir,
                     stdin: bytes | None = None) -> Outcome:
        """Of ``outcome``, what the version moved from does not report too. ``stdin``: standard input's bytes, where
        they were read already."""
        before = check_files(files, self.from_options, stdin_display_name=stdin_display_name, cache_dir=cache_dir,
                             stdin=stdin)
        # A version older than the oldest tables is checked against those: what they say of it is not known, so
        # their findings are not taken as the old version's.
        untabled = {path for path in files if self._untabled(path, stdin_display_name)}
        known = {_place(item) for item in (*before.reported, *before.silenced)
                 if not (item.finding.code in _TABLE_CODES and item.finding.path in untabled)}
        outcome.reported = [item for item in outcome.reported if _place(item) not in known]
        outcome.silenced = [item for item in outcome.silenced if _place(item) not in known]
        return outcome

    def _untabled(self, path: str, stdin_display_name: str) -> bool:
        from ms_lint.mindspore_api import older_than_tables

        return older_than_tables(self.from_options.target_for(stdin_display_name if path == STDIN else path).version)


# The rules that answer from the API tables of the version judged.
_TABLE_CODES = frozenset({"MS111", "MS602", "MS604", "MS606", "MS607", "MS610", "MS612"})


def _place(item) -> tuple:
    finding = item.finding
    return finding.path, finding.line, finding.col, finding.code


# What each kind of finding means for a project that moves to another MindSpore version.
_UPGRADE_KINDS = (("change meaning", ("MS611", "MS124")), ("deprecated", ("MS612",)))


def upgrade_line(targets: Sequence, reported: Sequence) -> str:
    """The closing line of ``--ms-upgrade-from``: ``moving from MindSpore 2.7.1 to 2.10.0: 9 calls break (MS610 7,
    MS607 2), 1 change meaning (MS611 1), 0 deprecated``."""
    counts: dict[str, int] = {}
    for item in reported:
        counts[item.finding.code] = counts.get(item.finding.code, 0) + 1
    moves = sorted({f"from MindSpore {target.upgrade_from or 'unknown'} to {target.describe_versions()}"
                    for target in targets})
    grouped = {name: {code: counts.pop(code) for code in codes if code in counts} for name, codes in _UPGRADE_KINDS}
    parts = [_counted(sum(counts.values()), "break", counts)]
    parts += [_counted(sum(found.values()), name, found) for name, found in grouped.items()]
    return f"ms-lint: moving {', '.join(moves) or 'to the target'}: {', '.join(parts)}"


def _counted(number: int, kind: str, by_code: dict[str, int]) -> str:
    ordered = sorted(by_code.items(), key=lambda pair: (-pair[1], pair[0]))
    codes = ", ".join(f"{code} {count}" for code, count in ordered)
    return f"{number:,} {kind}" + (f" ({codes})" if codes else "")


def targets_of(files: Sequence[str], options: LintOptions, stdin_display_name: str = "stdin") -> list:
    """The targets the files are checked against, one per project, in the order the files come; inferring them
    here, before any worker process starts, lets the workers inherit what was read."""
    targets = {}
    for path in files:
        target = options.target_for(stdin_display_name if path == STDIN else path)
        targets.setdefault(target.project, target)
    return list(targets.values())


def target_lines(groups: Sequence[TargetGroup], silenced: Sequence, upgrade: bool = False) -> list[str]:
    """What the run assumed, for standard error: one line per target (``target: MindSpore 2.7.1 (installed) ·
    Ascend (train.py:6) · graph · LAX (MindSpore's default)``; where the files belong to several projects, each line
    names the project, or how many share the target), and how many findings hold only on another target, with the
    setting that shows them."""
    from ms_lint.mindspore_api import documented_note, version_note

    several = len(groups) > 1 or any(len(group.projects) > 1 for group in groups)
    lines = [f"target: {group.describe(named=several)}" for group in groups]
    if upgrade:
        lines.extend(f"target: moving from MindSpore {group.target.upgrade_from} (--ms-upgrade-from): only what "
                     "breaks or changes meaning since then is reported" if group.target.upgrade_from else
                     "target: no requirement on MindSpore names the version the project moves from: give it with "
                     "--ms-upgrade-from VERSION" for group in groups)
    versions = {version for group in groups for version in (group.target.version, group.target.upgrade_from)}
    notes = {version_note(version) for version in versions} - {None}
    if upgrade:
        notes |= {documented_note(group.target.upgrade_from) for group in groups} - {None}
    lines.extend(f"target: {note}" for note in sorted(notes))
    settings: dict[str, int] = {}
    for item in silenced:
        setting = item.properties.get(SILENCED_BY, "")
        settings[setting] = settings.get(setting, 0) + 1
    for setting, count in sorted(settings.items()):
        if setting == "ms-check-unrun":
            lines.append(f"target: {count} finding(s) lie in code the application never runs; --{setting} shows "
                         "them")
        elif setting.startswith("ms-mode="):
            lines.append(f"target: {count} finding(s) hold only if this application runs in GRAPH_MODE; --{setting} "
                         f"shows them")
        else:
            lines.append(f"target: {count} finding(s) hold only on another device; --{setting} shows them")
    if any(target.syntax_level == "lax" and not target.set_by_user("syntax_level")
           for group in groups for target in group.projects):
        lines.append("target: findings that hold under STRICT only are not reported; --ms-syntax-level=strict "
                     "shows them")
    return lines


def print_closing_line(outcome: Outcome, groups: Sequence[TargetGroup] = ()) -> None:
    """The text report's last line, on standard error (stdout stays flake8's format for the tools that read it)."""
    from ms_lint.output import closing_line

    print(closing_line(outcome.reported, outcome.files_checked, groups), file=sys.stderr)


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


def fix_files(files: Sequence[str], options: LintOptions, args: argparse.Namespace) -> tuple[int | None, bytes | None]:
    """Apply (``--fix``) or show (``--diff``) the fixes: ``(an exit status when nothing more is to be done, the bytes
    of standard input for the check that follows: the fixed code with --fix)``. With --fix, standard input's fixed
    code goes to standard output (or ``--output-file``)."""
    from ms_lint.model.source import decode_source, source_encoding
    from ms_lint.fixes import fix_source, write_fixed

    diffs, fixed_findings, fixed_files, stdin = [], 0, 0, None
    for path in files:
        try:
            data = read_stdin_bytes() if path == STDIN else _read_bytes(path)
        except OSError:
            continue  # reported as unreadable by the check that follows
        if path == STDIN:
            stdin = data
        try:
            source = decode_source(data, strict=True)
        except (UnicodeDecodeError, LookupError):
            if path == STDIN and args.fix and not args.diff:
                _write_bytes(data, args.output_file)  # nothing fixed: the code as it came
            continue  # reported as E902 by the check that follows
        shown = args.stdin_display_name if path == STDIN else path
        result = fix_source(source, shown, options.settings, codes=None,
                            accept=lambda findings, shown=shown, source=source: fixable(findings, shown, source,
                                                                                        options))
        if path == STDIN and args.fix and not args.diff:
            _write(result.fixed, args.output_file)
            stdin = result.fixed.encode(source_encoding(data))
            continue
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
        return 1 if diffs and not args.exit_zero else 0, stdin
    if fixed_files:
        print(f"ms-lint: fixed {fixed_findings} finding(s) in {fixed_files} file(s)", file=sys.stderr)
    return None, stdin


class _FixAction(argparse.Action):
    """``--fix``, whose help names the fixable rules from the registry when help is shown (importing the rules to
    build every parser would slow each command down)."""

    def __init__(self, option_strings, dest, **kwargs):
        kwargs.pop("help", None)
        super().__init__(option_strings, dest, nargs=0, default=False, **kwargs)

    @property
    def help(self) -> str:
        from ms_lint.rules import ALL_RULES

        codes = ", ".join(rule.code for rule in ALL_RULES if rule.autofix)
        return (f"rewrite the mechanical cases in place ({codes}: `ms-lint rules CODE` says how), then report "
                "what is left; with - the fixed code goes to standard output and the report of what is left to "
                "standard error")

    @help.setter
    def help(self, value) -> None:
        pass  # made from the registry when shown

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        setattr(namespace, self.dest, True)


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


def _write_bytes(data: bytes, output_file: str | None) -> None:
    if output_file:
        with open(output_file, "wb") as handle:
            handle.write(data)
        return
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


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
