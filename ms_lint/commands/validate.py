"""``ms-lint validate``: compile the Cells and jit functions that carry findings with the installed MindSpore
and give every finding a verdict (confirmed, not reproduced, inconclusive, not applicable)."""
from __future__ import annotations

import argparse
import os
import signal
import sys

from ms_lint.commands import ERROR_PREFIX


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "validate",
        help="compile flagged Cells with MindSpore and give every finding a verdict",
        description=(
            "Run the static checks, then compile each Cell class or jit function that carries findings with "
            "the installed MindSpore (GRAPH_MODE, on the chosen device and syntax level) in isolated worker "
            "processes, and say for every finding whether the hazard is real there. Defaults can be set in "
            "[tool.ms-lint.validate] of the project's pyproject.toml."
        ),
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or directories to validate")
    parser.add_argument("--device", help="CPU, GPU or Ascend: the device to compile for (default: the device the "
                        "project's code names, as `ms-lint check` infers it, when this machine has it; else CPU)")
    parser.add_argument("--syntax-level", choices=("strict", "lax"), type=str.lower,
                        help="jit_syntax_level to compile with (default: each project's, as `ms-lint check` infers "
                        "it: STRICT where the project selects it or exports MindIR, else LAX)")
    parser.add_argument("--jobs", "-j", type=int, help="worker processes (default: CPU count, at most 4)")
    parser.add_argument("--timeout", type=float, help="seconds one job may take (default: 120)")
    parser.add_argument("--memory-limit", type=int, metavar="MB",
                        help="memory one job may add to a worker, in MB (default: 4096)")
    parser.add_argument("--examples", metavar="FILE",
                        help="the examples file (default: ms_lint_examples.py at the project root)")
    parser.add_argument("--format", choices=("text", "json", "sarif"), default="text",
                        help="output format (sarif: for code scanning, as `ms-lint check --format sarif`)")
    parser.add_argument("--fail-on", choices=("confirmed", "undecided", "any", "never"), default="confirmed",
                        help="exit 1 when a finding is confirmed (default); when one is confirmed or could not be "
                        "decided (undecided); when any finding is not cleared (any verdict but 'not "
                        "reproduced'); or never")
    parser.add_argument("--no-cache", action="store_true",
                        help="compile everything again instead of reusing .ms_lint_cache (which the new results "
                        "refresh)")
    parser.add_argument("--results", metavar="FILE",
                        help="write results as they arrive to this JSON-lines file (default: "
                        ".ms_lint_cache/last-validate-run.jsonl at the project root)")
    parser.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE instead of stdout")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ms_lint.validate.project import ProjectError, load_config, locate_module
    from ms_lint.validate.report import ProgressBar, exit_status, render_json, render_sarif, render_text
    from ms_lint.validate.runner import ValidateError, ValidateOptions, lint_options_for, validate_paths

    try:
        config = _project_config(args.paths, load_config, locate_module)
        # The static checks read [tool.ms-lint] and flake8's files as `ms-lint check` does; their syntax
        # level is the default of the compile's.
        lint_options = lint_options_for(args.syntax_level or config.syntax_level)
        options = ValidateOptions(
            device=args.device or config.device or None,  # none: inferred, as `ms-lint check` does
            syntax_level=lint_options.settings.syntax_level or None,
            jobs=args.jobs or config.jobs,
            timeout=args.timeout or config.timeout or 120.0,
            memory_limit_mb=args.memory_limit or config.memory_limit or 4096,
            examples=args.examples,
            use_cache=not args.no_cache,
            results_path=args.results,
            origins={"device": "--device" if args.device else "[tool.ms-lint.validate] device",
                     "syntax_level": "--syntax-level" if args.syntax_level else "[tool.ms-lint.validate] syntax-level"
                     if config.syntax_level else "ms-syntax-level in the configuration"},
        ).normalized()
    except (ProjectError, ValidateError) as exc:
        return _fail(str(exc))
    progress = ProgressBar() if args.format == "text" and not args.output else ProgressBar(stream=_NoTerminal())
    previous_handler = _interrupt_on_sigterm()
    try:
        report = validate_paths(args.paths, options, progress=progress, lint_options=lint_options)
    except (ValidateError, ProjectError) as exc:
        return _fail(str(exc))
    finally:
        progress.finish()
        _restore_sigterm(previous_handler)
    renderers = {"json": render_json, "sarif": render_sarif, "text": render_text}
    text = renderers[args.format](report)
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as handle:
                handle.write(text)
        except OSError as exc:
            return _fail(f"cannot write {args.output}: {exc.strerror or exc}")
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
    # What the findings were validated against, after the report, as `ms-lint check` says what it assumed.
    for line in report.target_lines if report.verdicts else ():
        print(line, file=sys.stderr)
    status = exit_status(report, args.fail_on)
    unparsable = _unparsable(report)
    for finding in unparsable:
        print(f"{ERROR_PREFIX}{finding.path}:{finding.line}: the file does not parse ({finding.code} "
              f"{finding.message}); nothing in it was validated", file=sys.stderr)
    return 2 if unparsable and status != 130 else status


def _unparsable(report) -> list:
    """The findings that say a file could not be parsed (E999) or decoded (E902)."""
    from ms_lint.engine import DECODE_ERROR, SYNTAX_ERROR

    return [verdict.finding for verdict in report.verdicts if verdict.finding.code in (SYNTAX_ERROR, DECODE_ERROR)]


def _project_config(paths, load_config, locate_module):
    """The configuration of the project the first path belongs to (command-line options win)."""
    for path in paths:
        if os.path.isfile(path):
            return load_config(locate_module(path).project_root)
        if os.path.isdir(path):
            from ms_lint.validate.project import find_project_root

            return load_config(find_project_root(os.path.abspath(path)))
    from ms_lint.validate.project import ValidateConfig

    return ValidateConfig(project_root=os.getcwd())


def _fail(message: str) -> int:
    print(f"{ERROR_PREFIX}{message}", file=sys.stderr)
    return 2


class _NoTerminal:
    def isatty(self) -> bool:
        return False


def _interrupt_on_sigterm():
    """A CI job that times out sends SIGTERM: stop like Ctrl-C, so results so far are reported."""
    def interrupt(signum, frame):
        raise KeyboardInterrupt

    try:
        return signal.signal(signal.SIGTERM, interrupt)
    except ValueError:  # not the main thread
        return None


def _restore_sigterm(previous) -> None:
    if previous is not None:
        try:
            signal.signal(signal.SIGTERM, previous)
        except ValueError:
            pass
