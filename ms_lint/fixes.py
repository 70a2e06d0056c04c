"""Autofix: rules turn findings into source edits; this module applies them safely.

A fix edits only the hazard's own text (and adds an import it needs, with the module's existing alias), so
formatting and comments elsewhere stay as they are. Fixes are applied in passes until nothing fixable remains;
a result that does not parse is never returned.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Callable, Iterable

from ms_lint.edits import Edit, FixContext, apply_edits
from ms_lint.model.source import source_lines
from ms_lint.settings import Settings

_MAX_PASSES = 5


@dataclass
class FixResult:
    path: str
    original: str
    fixed: str
    applied: int = 0
    remaining: list = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.fixed != self.original

    def diff(self) -> str:
        import difflib  # only ``--diff`` shows one: a flake8 run does not keep the module

        return "".join(difflib.unified_diff(
            source_lines(self.original), source_lines(self.fixed),
            fromfile=f"a/{self.path}", tofile=f"b/{self.path}",
        ))


def fix_source(source: str, path: str, settings: Settings, codes: Iterable[str] | None = None,
               accept: Callable[[list], list] | None = None) -> FixResult:
    """Fix what can be fixed mechanically; ``remaining`` holds the findings left afterwards.

    ``accept`` narrows the findings to fix (the command's selection and ``# noqa``); by default all of them.
    """
    from ms_lint.engine import analyse  # the engine and the rules sit below: imported where fixing starts
    from ms_lint.rules import RULES_BY_CODE

    codes = None if codes is None else frozenset(codes)
    result = FixResult(path, source, source)
    current = source
    for _ in range(_MAX_PASSES):
        try:
            tree = ast.parse(current, filename=path)
        except (SyntaxError, ValueError):
            break
        module, findings = analyse(tree, current, path, settings, codes)
        result.remaining = findings
        if module is None:
            break
        context = FixContext(module, current)
        edits: list[Edit] = []
        fixed_findings = 0
        for reported in (accept(findings) if accept else findings):
            rule = RULES_BY_CODE.get(reported.code)
            rule_edits = [edit for finding in (reported, *reported.absorbed)  # every place of its cause
                          for edit in (rule().fix(context, finding) if rule is not None and rule.autofix else [])]
            if rule_edits:
                edits.extend(rule_edits)
                fixed_findings += 1
        if not edits:
            break
        import_edit = context.import_edit()
        candidate, _ = apply_edits(current, edits + ([import_edit] if import_edit else []))
        try:
            ast.parse(candidate, filename=path)
        except (SyntaxError, ValueError):
            break  # never hand back code that does not parse
        if candidate == current:
            break
        current = candidate
        result.applied += fixed_findings
    result.fixed = current
    return result


def write_fixed(path: str, fixed: str) -> None:
    """Write ``fixed`` back in the file's own encoding (coding cookie, BOM) and newline style."""
    from ms_lint.model.source import source_encoding

    with open(path, "rb") as handle:
        encoding = source_encoding(handle.read())
    with open(path, "w", encoding=encoding, newline="") as handle:
        handle.write(fixed)
