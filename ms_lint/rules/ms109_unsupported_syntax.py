"""MS109: Python syntax the graph compiler rejects at every level."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint.model import GraphFunction, ModuleFacts
from ms_lint.model.syntax import is_classmethod
from ms_lint.findings import Finding, FindingData
from ms_lint.rules.base import Rule

_STATEMENTS = {
    ast.Try: "try statement",
    ast.Delete: "del statement",
    ast.Import: "import statement",
    ast.ImportFrom: "import statement",
    ast.Match: "match statement",
    ast.Nonlocal: "nonlocal statement",
    ast.AsyncWith: "async with statement",
    ast.AsyncFor: "async for statement",
    ast.Yield: "yield",
    ast.YieldFrom: "yield from",
    ast.Await: "await",
    ast.Set: "set literal",
    ast.SetComp: "set comprehension",
    ast.NamedExpr: "walrus operator (:=)",
}
if hasattr(ast, "TryStar"):
    _STATEMENTS[ast.TryStar] = "try statement"


@dataclass(frozen=True, kw_only=True)
class Unsupported(FindingData):
    """Syntax the graph compiler refuses: what it is (``try statement``), the graph function."""

    template = ("{syntax} in graph code ({function}) fails to compile at every syntax level; move it out of graph "
                "code or rewrite it with supported syntax")
    syntax: str
    function: str


class UnsupportedSyntax(Rule):
    code = "MS109"
    compiled_only = True
    name = "unsupported-syntax"
    summary = "syntax graph code cannot compile: try, del, yield, import, match, nonlocal, with, sets, :=, async"
    fix_summary = "move it out of graph code, or rewrite with supported syntax (tuples, if/else, @jit_class)"
    what = """
        Reports in graph code: `try`, `del`, `yield`/`yield from` (also in a helper called from graph code),
        `import`, `match`, `nonlocal`, `with` on an object that is not a `@jit_class` instance, set literals and
        set comprehensions, the walrus operator, `async`/`await`, and calling a `@classmethod` of a Cell (through
        `self`, the class, a sub-cell or `type(self.block)`).
    """
    why = """
        The graph compiler has no translation for these; the compile fails at every syntax level, e.g.
        "Unsupported statement 'Try'" or "Unsupported expression 'Set'". A Cell's classmethod called from
        `construct`, however it is reached, fails with TypeError ("The parameters number of the function is 2, but
        the number of provided arguments is 1"; measured 2.10.0 and 2.7.1 CPU).
    """
    example = """
        class Net(nn.Cell):
            def construct(self, x):
                try:
                    return x / x.sum()
                except ZeroDivisionError:
                    return x
    """
    use_instead = """
        class Net(nn.Cell):
            def construct(self, x):
                total = x.sum()
                if total == 0:
                    return x
                return x / total
    """

    records = (Unsupported,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        # Only a method of this module's classes is followed (``find_method``): a call is of a classmethod only if
        # one of them declares a classmethod of that name.
        classmethods = {name for info in module.classes.values() for name, method in info.methods.items()
                        if is_classmethod(method)}
        for function in module.graph_functions:
            if isinstance(function.node, ast.AsyncFunctionDef):
                yield self._finding(module, function, function.node, "async function")
            for node in function.nodes_of(*_STATEMENTS, ast.With, ast.Call):
                description = _STATEMENTS.get(type(node))
                if description is None and isinstance(node, ast.With) and not all(
                        function.holds_jit_class_instance(item.context_expr) for item in node.items):
                    description = "with statement"
                if description is None and isinstance(node, ast.Call) and classmethods and _calls_cell_classmethod(
                        module, function, node, classmethods):
                    description = f"call of the classmethod {node.func.attr}() of a Cell"
                if description is not None:
                    yield self._finding(module, function, node, description)

    def _finding(self, module, function: GraphFunction, node: ast.AST, description: str) -> Finding:
        return self.report(module, node, Unsupported(syntax=description, function=function.label))


def _calls_cell_classmethod(module: ModuleFacts, function: GraphFunction, call: ast.Call,
                            classmethods: set[str]) -> bool:
    """``self.f()``, ``Block.f()``, ``self.block.f()`` or ``type(self.block).f()`` with ``f`` a classmethod of a
    Cell of this module (each fails at both levels: measured 2.10.0 and 2.7.1 CPU)."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr not in classmethods:
        return False
    owner = module.class_called(function, func.value)
    if owner is None or not owner.is_cell:
        return False
    found = owner.find_method(func.attr)
    return found is not None and is_classmethod(found[1])
