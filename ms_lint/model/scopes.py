"""Names: what each name of a module is bound to, by Python's scoping rules."""
from __future__ import annotations

import ast
import os


class NameResolution:
    """(mixin)"""

    # -- names -------------------------------------------------------------------------------------------

    def qualname(self, expr: ast.AST | None) -> str | None:
        """The qualified name ``expr`` (a Name or dotted Attribute) is bound to, or None."""
        parts = []
        while isinstance(expr, ast.Attribute):
            parts.append(expr.attr)
            expr = expr.value
        if not isinstance(expr, ast.Name):
            return None
        head = self._resolve_name(expr.id)
        if head is None:
            return None
        return ".".join([head, *reversed(parts)])

    def _resolve_name(self, name: str, _depth: int = 0) -> str | None:
        if name in self.names:
            return self.names[name]
        if name in self.classes or name in self.functions:
            return self.local_prefix + name
        alias = self.module_assignments.get(name)
        if alias is not None and _depth < 8 and isinstance(alias, (ast.Name, ast.Attribute)):
            parts = []
            while isinstance(alias, ast.Attribute):
                parts.append(alias.attr)
                alias = alias.value
            head = self._resolve_name(alias.id, _depth + 1) if isinstance(alias, ast.Name) else None
            return ".".join([head, *reversed(parts)]) if head else None
        if name in self.module_assignments:
            return self.local_prefix + name
        if name in BUILTIN_NAMES:
            return "builtins." + name
        return None

    def _bind_import(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    self.names[alias.asname] = alias.name
                else:
                    top = alias.name.split(".", 1)[0]
                    self.names[top] = top
            return
        base = absolute_module(node.module, node.level, self.package)
        for alias in node.names:
            if alias.name == "*":
                continue
            self.names[alias.asname or alias.name] = f"{base}.{alias.name}" if base else alias.name

    def local_name_for(self, qualname: str) -> str | None:
        """A name this module already binds to ``qualname`` (``nn`` for ``mindspore.nn``), if any."""
        for name, bound in self.names.items():
            if bound == qualname:
                return name
        return None


def absolute_module(module: str | None, level: int, package: str | None) -> str | None:
    if level == 0:
        return module
    if package is None:
        # A relative import outside a known package: keep it recognisable but unresolvable.
        return "." * level + (module or "")
    parts = package.split(".")
    if level - 1 > len(parts):
        return None
    base = parts[: len(parts) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def module_name_of(path: str) -> tuple[str | None, str | None]:
    """(module name, package name) of the file at ``path``, by walking up the ``__init__.py`` chain."""
    if not path or path in ("-", "stdin", "<stdin>"):
        return None, None
    absolute = os.path.abspath(path)
    directory, filename = os.path.split(absolute)
    stem = os.path.splitext(filename)[0]
    parts = [] if stem == "__init__" else [stem]
    package_parts = []
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        package_parts.insert(0, os.path.basename(directory))
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    package = ".".join(package_parts) or None
    module = ".".join(package_parts + parts) or None
    if stem == "__init__":
        return module, package
    return module, package


BUILTIN_NAMES = frozenset(dir(__import__("builtins")))
