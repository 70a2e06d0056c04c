"""Autofix: rules turn findings into source edits; this module applies them safely.

A fix edits only the hazard's own text (and adds an import it needs, with the module's existing alias), so
formatting and comments elsewhere stay as they are. Fixes are applied in passes until nothing fixable remains;
a result that does not parse is never returned.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterable

from ms_lint.model.source import source_lines
from ms_lint.settings import Settings

if TYPE_CHECKING:
    from ms_lint.model import ModuleFacts
    from ms_lint.findings import Finding

_MAX_PASSES = 5


@dataclass(frozen=True)
class Edit:
    """Replace the text between two character offsets of the source."""

    start: int
    end: int
    text: str


class FixContext:
    """What a rule's ``fix`` needs: the source text, node positions, and names to refer to MindSpore objects."""

    def __init__(self, module: "ModuleFacts", source: str):
        self.module = module
        self.source = source
        self._line_starts = [0]
        for line in source_lines(source):
            self._line_starts.append(self._line_starts[-1] + len(line))
        self.new_imports: dict[str, str] = {}  # import line -> the name it binds

    def offset(self, line: int, column: int) -> int:
        """Character offset of an AST position (``column`` counts UTF-8 bytes, as the ast module does)."""
        start = self._line_starts[line - 1]
        text = self.source[start:self._line_starts[line] if line < len(self._line_starts) else len(self.source)]
        return start + len(text.encode("utf-8")[:column].decode("utf-8", errors="ignore"))

    def start_of(self, node: ast.AST) -> int:
        return self.offset(node.lineno, node.col_offset)

    def end_of(self, node: ast.AST) -> int:
        return self.offset(node.end_lineno, node.end_col_offset)

    def text(self, node: ast.AST) -> str:
        return self.source[self.start_of(node):self.end_of(node)]

    def replace(self, node: ast.AST, text: str) -> Edit:
        return Edit(self.start_of(node), self.end_of(node), text)

    def wrap(self, node: ast.AST, callee: str) -> Edit:
        return self.replace(node, f"{callee}({self.text(node)})")

    def insert_after(self, node: ast.AST, text: str) -> Edit:
        end = self.end_of(node)
        return Edit(end, end, text)

    def reference(self, qualname: str) -> str:
        """An expression for the MindSpore object ``qualname`` in this module, adding an import when none fits."""
        bound = self.module.local_name_for(qualname)
        if bound:
            return bound
        parent, attribute = qualname.rsplit(".", 1)
        parent_name = self.module.local_name_for(parent)
        if parent_name:
            return f"{parent_name}.{attribute}"
        taken = set(self.module.names) | set(self.module.classes) | set(self.module.functions) | set(
            self.module.module_assignments)
        name = attribute if attribute not in taken else f"ms_{attribute}"
        line = f"from {parent} import {attribute}" + ("" if name == attribute else f" as {name}")
        self.new_imports[line] = name
        return name

    def import_edit(self) -> Edit | None:
        if not self.new_imports:
            return None
        body = self.module.tree.body
        anchor = None
        for index, statement in enumerate(body):
            is_docstring = index == 0 and isinstance(statement, ast.Expr) and isinstance(
                statement.value, ast.Constant) and isinstance(statement.value.value, str)
            if isinstance(statement, (ast.Import, ast.ImportFrom)) or is_docstring:
                anchor = statement
            else:
                break
        newline = "\r\n" if "\r\n" in self.source else "\n"
        lines = "".join(f"{line}{newline}" for line in sorted(self.new_imports))
        if anchor is None:
            return Edit(0, 0, lines)
        position = self._line_starts[anchor.end_lineno] if anchor.end_lineno < len(self._line_starts) else len(
            self.source)
        prefix = "" if self.source[:position].endswith("\n") else newline
        return Edit(position, position, prefix + lines)


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


def apply_edits(source: str, edits: Iterable[Edit]) -> tuple[str, int]:
    """Apply non-overlapping edits (an edit overlapping an earlier one waits for the next pass)."""
    chosen: list[Edit] = []
    for edit in sorted(set(edits), key=lambda e: (e.start, e.end)):
        if chosen and edit.start < chosen[-1].end and not (edit.start == edit.end == chosen[-1].start):
            continue
        chosen.append(edit)
    for edit in sorted(chosen, key=lambda e: (e.start, e.end), reverse=True):
        source = source[:edit.start] + edit.text + source[edit.end:]
    return source, len(chosen)


def fix_source(source: str, path: str, settings: Settings, codes: Iterable[str] | None = None,
               accept: Callable[[list], list] | None = None) -> FixResult:
    """Fix what can be fixed mechanically; ``remaining`` holds the findings left afterwards.

    ``accept`` narrows the findings to fix (the command's selection and ``# noqa``); by default all of them.
    """
    from ms_lint.engine import analyse
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
        for finding in (accept(findings) if accept else findings):
            rule = RULES_BY_CODE.get(finding.code)
            rule_edits = rule().fix(context, finding) if rule is not None and rule.autofix else []
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


def wrap_container(context: FixContext, finding: "Finding", registering_qualname: str,
                   appendable: bool = True) -> list[Edit]:
    """Edits that hand the plain container holding ``finding``'s element to ``registering_qualname``
    (``nn.CellList``, ``nn.CellDict``, ``ParameterTuple``): where it is built on ``self``, or where a local
    container is stored on ``self``."""
    container = next((c for c in context.module.plain_containers()
                      if any(site is finding.node for site, _ in c.element_sites)), None)
    if container is None:
        return []
    grows = [site for site, _ in container.element_sites if site is not container.created_by]
    if grows and (not appendable or any(isinstance(site, ast.AugAssign) for site in grows)):
        return []  # an immutable container, or `+=`, which the registering container does not support
    callee = context.reference(registering_qualname)
    if container.target.startswith("self.") and container.created_by is not None:
        value = container.created_by.value
    elif container.stored_by is not None and isinstance(container.stored_by.value, ast.Name):
        value = container.stored_by.value
    else:
        return []
    built = container.created_by.value if container.created_by is not None else value
    if registering_qualname.endswith("CellList") and isinstance(built, (ast.Tuple, ast.GeneratorExp)):
        # CellList takes only a list.
        return [context.replace(value, f"{callee}(list({context.text(value)}))")]
    return [context.wrap(value, callee)]


def write_fixed(path: str, fixed: str) -> None:
    """Write ``fixed`` back in the file's own encoding (coding cookie, BOM) and newline style."""
    from ms_lint.model.source import source_encoding

    with open(path, "rb") as handle:
        encoding = source_encoding(handle.read())
    with open(path, "w", encoding=encoding, newline="") as handle:
        handle.write(fixed)
