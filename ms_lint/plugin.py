"""The flake8 plugin: flake8 hands over its tree and lines; findings go back as ``MSxxx message``."""
from __future__ import annotations

import ast
from typing import Iterator

from ms_lint import __version__
from ms_lint.settings import Settings, SettingsError


class MsLintChecker:
    name = "ms-lint"
    version = __version__

    settings = Settings()
    codes: frozenset[str] | None = None  # None: the rules on by default

    def __init__(self, tree: ast.Module, filename: str, lines: list[str]):
        self.tree = tree
        self.filename = filename
        self.lines = lines

    @classmethod
    def add_options(cls, option_manager) -> None:
        from ms_lint.rules import ALL_RULES

        option_manager.add_option(
            "--ms-mode",
            default="",
            parse_from_config=True,
            help="How Cells run where a module does not call set_context(mode=...): graph (GRAPH_MODE) or "
            "pynative (only @jit code is compiled). Default: the mode the application's entry points select, else "
            "PyNative, MindSpore's default; GRAPH_MODE for a library.",
        )
        option_manager.add_option(
            "--ms-syntax-level",
            default="",
            parse_from_config=True,
            help="MindSpore jit_syntax_level to check against: strict (what compiles also exports MindIR) or lax "
            "(report only what fails or misbehaves under LAX too). Default: STRICT where the project selects it "
            "(set_context(jit_syntax_level=ms.STRICT), or it exports MindIR), else LAX, MindSpore's default.",
        )
        option_manager.add_option(
            "--ms-device",
            default="",
            parse_from_config=True,
            help="The device the code runs on: ascend, gpu, cpu or any. Default: the one the project's code names "
            "(set_device(...), device_target=...), else any.",
        )
        option_manager.add_option(
            "--ms-version",
            default="",
            parse_from_config=True,
            help="The MindSpore version the code runs with (2.7.1). Default: the installed MindSpore, else the "
            "project's requirement, else the newest version ms-lint knows.",
        )
        option_manager.add_option(
            "--ms-tensor-methods",
            default="",
            parse_from_config=True,
            help="Methods the project adds to MindSpore's Tensor at run time (comma separated: a compatibility "
            "layer's detach, backward): MS602 takes them as existing.",
        )
        option_manager.add_option(
            "--ms-check-unrun",
            action="store_true",
            parse_from_config=True,
            help="Report code the application never runs too (a class or function no code that runs names, a "
            "module no entry point imports); by default its findings are left out.",
        )
        option_manager.add_option(
            "--ms-each-line",
            action="store_true",
            parse_from_config=True,
            help="Report every line of a cause; by default the same misuse in one function, or one constant several "
            "calls read, is reported once, at its first line, naming the others.",
        )
        option_manager.add_option(
            "--per-path-ms-mode",
            default="",
            parse_from_config=True,
            help="PATTERN:MODE pairs (comma or newline separated): files matching a pattern run their Cells in "
            "that mode (pkg/eager/*:pynative) unless they call set_context themselves; patterns with a / are "
            "relative to the current directory.",
        )
        off_by_default = [rule.code for rule in ALL_RULES if not rule.enabled_by_default]
        if off_by_default:
            option_manager.extend_default_ignore(off_by_default)

    @classmethod
    def parse_options(cls, options) -> None:
        cls.codes = codes_to_run(options)
        try:
            cls.settings = Settings.from_values(
                getattr(options, "ms_mode", None), getattr(options, "ms_syntax_level", None),
                getattr(options, "per_path_ms_mode", None), device=getattr(options, "ms_device", None),
                version=getattr(options, "ms_version", None),
                tensor_methods=getattr(options, "ms_tensor_methods", None),
                check_unrun=getattr(options, "ms_check_unrun", None),
                each_line=getattr(options, "ms_each_line", None),
            )
        except SettingsError as exc:
            # flake8 turns a SystemExit message into one error line, which is what an unknown value deserves.
            raise SystemExit(f"flake8: error: {exc}") from None

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        from ms_lint.engine import check_tree, internal_error

        try:
            source = "".join(self.lines)
        except TypeError as exc:  # never raise into flake8, whatever it hands over
            finding = internal_error(self.filename, exc)
            yield finding.line, finding.col, finding.text, type(self)
            return
        # flake8 filters by --select/--ignore/noqa itself; the plugin runs only the rules flake8 would report.
        # flake8 translates every line end to "\n" before it splits the text. Lines split at "\n" from text that
        # still holds a lone "\r" (which ends a line for Python too) would not be Python's: those are not used.
        lines = self.lines if "\r" not in source else None
        findings = check_tree(self.tree, source, self.filename, self.settings, self.codes, lines)
        if lines is not None and findings:
            from ms_lint.noqa import related_without_noqa

            findings = related_without_noqa(findings, lines)  # flake8 reads the comment on the reported line only
        for finding in findings:
            yield finding.line, finding.col, finding.text, type(self)


def codes_to_run(options) -> frozenset[str]:
    """The rules flake8 reports with ``options``, decided by flake8's own decision engine as for any code: the rules
    off by default are in its default ignore list (``add_options``), so they run when a selection names them or a
    prefix of them (``--select=MS``, ``--extend-select=MS110``), or when ``--ignore`` replaces that list, exactly as
    ``ms-lint check`` decides (``LintOptions.is_selected``)."""
    from flake8.style_guide import Decision, DecisionEngine

    from ms_lint.rules import ALL_RULES

    engine = DecisionEngine(options)
    return frozenset(rule.code for rule in ALL_RULES if engine.decision_for(rule.code) is Decision.Selected)
