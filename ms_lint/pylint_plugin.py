"""The pylint plugin: ``pylint --load-plugins=ms_lint.pylint_plugin``.

One checker, ``ms-lint``, with one pylint message per rule of the registry. A message's symbol is the rule's name
(``host-library-call``), its text starts with the rule's code (``MS101 ...``), and its id is derived from the code:
a letter for the rule's level (``E`` error, ``W`` warning, ``C`` note) followed by ``9`` and the code's three digits
(``MS101`` -> ``E9101``, ``MS501`` -> ``W9501``, ``MS900`` -> ``E9900``). pylint wants the two digits after the
letter to be one checker's id; the messages are marked ``shared`` (pylint's way for ids that span checker ids) so
that one checker holds them all. Rules that are off by default are off in pylint too until enabled.

The checker reads the file's bytes from the module pylint built and runs what ``ms-lint check`` runs on them
(``lint_source`` of ``ms_lint.lint``, with every rule selected: pylint's own enable/disable and
``# pylint: disable=`` comments decide what is shown), so ``# noqa`` and ``# flake8: noqa`` count as they do for
``ms-lint check``. Whatever fails inside the checker is reported as MS900, never raised into pylint.

Nothing heavy is imported at load: the rule registry only (for the message table); the analysis on the first file.
MindSpore is never imported.
"""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from pylint.checkers import BaseRawFileChecker

from ms_lint.rules import ALL_RULES

if TYPE_CHECKING:
    from astroid import nodes
    from pylint.lint import PyLinter

    from ms_lint.config import LintOptions
    from ms_lint.findings import Finding

CHECKER_NAME = "ms-lint"
_LEVEL_LETTERS = {"error": "E", "warning": "W", "note": "C"}
# pylint's exit status for a usage error (an option value it cannot use).
USAGE_ERROR = 32


def msgid_for(rule) -> str:
    """The pylint message id of ``rule``: ``MS101`` (an error) -> ``E9101``, ``MS501`` (a warning) -> ``W9501``."""
    return f"{_LEVEL_LETTERS.get(getattr(rule, 'level', 'error'), 'E')}9{rule.code[2:]}"


def _message_table() -> dict:
    messages = {}
    for rule in ALL_RULES:
        options = {"shared": True}
        if not rule.enabled_by_default:
            options["default_enabled"] = False
        description = (f"{rule.summary}. Fix: {rule.fix_summary}. ({rule.code}; `ms-lint rules {rule.code}` "
                       f"shows the rule's documentation.)")
        messages[msgid_for(rule)] = ("%s", rule.name, description, options)
    return messages


_HELP_NOT_SET = "Not set: ms-lint's default, as for `ms-lint check`."


class MsLintChecker(BaseRawFileChecker):
    """MindSpore graph-mode hazards: the rules of ``ms-lint check``, as pylint messages."""

    name = CHECKER_NAME
    msgs = _message_table()
    options = (
        ("ms-mode", {
            "default": "", "type": "string", "metavar": "<graph or pynative>",
            "help": "How Cells run where a module does not call set_context(mode=...): graph (GRAPH_MODE) or "
                    "pynative (only @jit code is compiled). " + _HELP_NOT_SET,
        }),
        ("ms-syntax-level", {
            "default": "", "type": "string", "metavar": "<strict or lax>",
            "help": "MindSpore jit_syntax_level to check against: strict (what compiles also exports MindIR) or "
                    "lax (report only what fails or misbehaves under LAX too). " + _HELP_NOT_SET,
        }),
        ("per-path-ms-mode", {
            "default": "", "type": "string", "metavar": "<pattern:mode,...>",
            "help": "PATTERN:MODE pairs (comma or newline separated): files matching a pattern run their Cells in "
                    "that mode (pkg/eager/*:pynative) unless they call set_context themselves; patterns with a / "
                    "are relative to the current directory.",
        }),
        ("ms-device", {
            "default": "", "type": "string", "metavar": "<ascend, gpu, cpu or any>",
            "help": "The device the code runs on (ascend, gpu, cpu, or any). " + _HELP_NOT_SET,
        }),
        ("ms-version", {
            "default": "", "type": "string", "metavar": "<version>",
            "help": "The MindSpore version the code runs with, such as 2.7.1. " + _HELP_NOT_SET,
        }),
        ("ms-tensor-methods", {
            "default": (), "type": "csv", "metavar": "<method names>",
            "help": "Methods the project adds to MindSpore's Tensor at run time (a compatibility layer's detach, "
                    "backward): MS602 takes them as existing.",
        }),
        ("ms-check-unrun", {
            "default": False, "type": "yn", "metavar": "<y or n>",
            "help": "Report code the application never runs too (a class or function no code that runs names, a "
                    "module no entry point imports); by default its findings are left out.",
        }),
        ("ms-each-line", {
            "default": False, "type": "yn", "metavar": "<y or n>",
            "help": "Report every line of a cause; by default the same misuse in one function, or one constant "
                    "several calls read, is reported once, at its first line, naming the others.",
        }),
    )

    def __init__(self, linter: PyLinter) -> None:
        super().__init__(linter)
        self._lint_options: LintOptions | None = None

    def open(self) -> None:
        """Read the options once per run; a value ms-lint cannot use stops pylint as a usage error."""
        from ms_lint.config import LintOptions
        from ms_lint.rules import RULES_BY_CODE
        from ms_lint.settings import Settings, SettingsError

        config = self.linter.config
        try:
            settings = Settings.from_values(
                config.ms_mode or "", config.ms_syntax_level or "", config.per_path_ms_mode or "",
                device=config.ms_device or "", version=config.ms_version or "",
                tensor_methods=list(config.ms_tensor_methods or ()), check_unrun=bool(config.ms_check_unrun),
                each_line=bool(config.ms_each_line),
            )
        except SettingsError as exc:
            print(f"pylint: error: {exc}", file=sys.stderr)
            sys.exit(USAGE_ERROR)
        # Every rule is selected for ms-lint's own filter: pylint's enable/disable decides what is shown.
        self._lint_options = LintOptions(select=sorted(RULES_BY_CODE), ignore=[], settings=settings)

    def process_module(self, node: nodes.Module) -> None:
        from ms_lint.engine import internal_error

        path = node.file or node.name
        try:
            self._check_module(node, path)
        except Exception as exc:  # noqa: BLE001 -- a checker exception must never abort the user's pylint run
            self._report(internal_error(path, exc))

    def _check_module(self, node: nodes.Module, path: str) -> None:
        from ms_lint.lint import lint_source
        from ms_lint.engine import INTERNAL_ERROR, internal_error
        from ms_lint.model.source import decode_source, source_lines

        if self._lint_options is None:
            self.open()
        data = node.file_bytes
        if data is None:
            with node.stream() as stream:
                data = stream.read()
        if isinstance(data, str):
            data = data.encode("utf-8")
        try:
            source = decode_source(data, strict=True)
        except (UnicodeDecodeError, LookupError) as exc:
            # pylint decoded the file to build the module, so this is ms-lint's own failure to read it.
            self._report(internal_error(path, exc))
            return
        lines = None
        for reported in lint_source(source, path, self._lint_options):
            finding, region = reported.finding, reported.region
            if not finding.code.startswith("MS"):  # E999: pylint parsed a text that Python's parser refused
                self._report(_could_not_check(path, finding.line, finding.message))
                continue
            end = None
            if region is not None and finding.code != INTERNAL_ERROR:
                if lines is None:
                    lines = source_lines(source)  # the lines the region was measured on, as lint_source splits them
                text = lines[region.end_line - 1]
                end = (region.end_line, len(text[:region.end_column - 1].encode("utf-8", errors="surrogatepass")))
            self._report(finding, end)

    def _report(self, finding: Finding, end: tuple[int, int] | None = None) -> None:
        from ms_lint.rules import RULES_BY_CODE

        rule = RULES_BY_CODE.get(finding.code)
        if rule is None:  # not a code of the registry: nothing pylint could show it as
            return
        self.add_message(
            msgid_for(rule), line=finding.line, col_offset=finding.col, args=(finding.text,),
            end_lineno=end[0] if end else None, end_col_offset=end[1] if end else None,
        )


def _could_not_check(path: str, line: int, message: str) -> Finding:
    """MS900 on ``line`` for an E999 finding's ``message`` (``"IndentationError: unexpected indent"``)."""
    import builtins
    from dataclasses import replace

    from ms_lint.engine import internal_error

    name, _, reason = message.partition(": ")
    kind = getattr(builtins, name, None)
    if not (isinstance(kind, type) and issubclass(kind, Exception)):
        kind, reason = SyntaxError, message
    return replace(internal_error(path, kind(reason)), line=line)


def register(linter: PyLinter) -> None:
    """pylint's entry point for ``--load-plugins=ms_lint.pylint_plugin``."""
    linter.register_checker(MsLintChecker(linter))
