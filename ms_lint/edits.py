"""Source edits: what a rule's ``fix`` returns (plain data, below the rules), and how edits are applied.

``ms_lint.fixes`` runs the rules' fixes over a file, in passes, beside the engine.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

from ms_lint.model.source import source_lines

if TYPE_CHECKING:
    from ms_lint.model import ModuleFacts


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
        self._starts: list[int] | None = None  # where each line starts: found when a fix is first asked for
        self.new_imports: dict[str, str] = {}  # import line -> the name it binds

    @property
    def _line_starts(self) -> list[int]:
        starts = self._starts
        if starts is None:
            lines = self.module.lines if self.module.source == self.source else None
            starts = self._starts = [0]
            for line in lines if lines is not None else source_lines(self.source):
                starts.append(starts[-1] + len(line))
        return starts

    def offset(self, line: int, column: int) -> int:
        """Character offset of an AST position (``column`` counts UTF-8 bytes, as the ast module does)."""
        line_starts = self._line_starts
        start = line_starts[line - 1]
        text = self.source[start:line_starts[line] if line < len(line_starts) else len(self.source)]
        return start + len(text.encode("utf-8")[:column].decode("utf-8", errors="ignore"))

    def start_of(self, node: ast.AST) -> int:
        return self.offset(node.lineno, node.col_offset)

    def end_of(self, node: ast.AST) -> int:
        return self.offset(node.end_lineno, node.end_col_offset)

    def text(self, node: ast.AST) -> str:
        return self.source[self.start_of(node):self.end_of(node)]

    def replace(self, node: ast.AST, text: str) -> Edit:
        return Edit(self.start_of(node), self.end_of(node), text)

    def receiver(self, attribute: ast.Attribute) -> str:
        """What ``attribute`` is read from, as written, parentheses included: ``(1 - m) * k`` has no parentheses of its
        own in the tree, but ``((1 - m) * k).t`` needs them to stay one operand."""
        end = self.end_of(attribute) - len(attribute.attr)
        return self.source[self.start_of(attribute):end].rstrip().removesuffix(".").rstrip()

    def rename_attribute(self, attribute: ast.Attribute, name: str) -> Edit:
        """Replace the attribute's own name (``t.transpose`` -> ``t.swapaxes``), leaving what it is read from as is."""
        end = self.end_of(attribute)
        return Edit(end - len(attribute.attr), end, name)

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
