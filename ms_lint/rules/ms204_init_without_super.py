"""MS204: a Cell's ``__init__`` that never initialises ``nn.Cell``."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.model import ClassInfo, FunctionNode, ModuleFacts
from ms_lint.model.syntax import first_argument, self_attribute
from ms_lint.findings import Finding, FindingData
from ms_lint.rules.base import Rule


@dataclass(frozen=True, kw_only=True)
class NoSuperInit(FindingData):
    """A Cell whose ``__init__`` never initialises its base: the Cell."""

    template = ("{cell}.__init__ never calls super().__init__(): the Cell is not initialised, so setting a "
                "sub-cell or Parameter raises AttributeError, and otherwise its first call fails in every mode; "
                "call super().__init__() first")
    cell: str


class InitWithoutSuper(Rule):
    code = "MS204"
    name = "init-without-super"
    summary = "a Cell subclass `__init__` that never calls `super().__init__()`"
    fix_summary = "call `super().__init__()` first in `__init__`"
    what = """
        Reports the `def __init__` line of a Cell subclass whose `__init__` never calls the base initialiser:
        `super().__init__(...)`, `super(Cls, self).__init__(...)`, or `Base.__init__(self, ...)` with a Cell base
        (or a base ms-lint cannot resolve). A call made in a method that `__init__` calls (`self._build()`) counts.
        `Mixin.__init__(self)` for a base that is not a Cell does not initialise the Cell and does not count.
    """
    why = """
        `nn.Cell.__init__` creates the bookkeeping every Cell needs (sub-cell and parameter tables, flags). Without
        it, in every mode: assigning a sub-cell fails at once (AttributeError `_auto_prefix`), assigning a
        Parameter fails ("please call Cell.__init__() firstly"), and a Cell that only stores plain values builds
        but fails at its first call ("does not inherit attribute from 'cell'. Please use 'super().__init__()'").
    """
    example = """
        class Scale(nn.Cell):
            def __init__(self, factor):
                self.factor = factor

            def construct(self, x):
                return x * self.factor
    """
    use_instead = """
        class Scale(nn.Cell):
            def __init__(self, factor):
                super().__init__()
                self.factor = factor

            def construct(self, x):
                return x * self.factor
    """

    records = (NoSuperInit,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        for info in module.classes.values():
            init = info.methods.get("__init__")
            if not info.is_cell or init is None or not first_argument(init):
                continue
            if _initialises_base(module, info, init, set()) or _only_raises(init):
                continue
            yield self.report(module, init, NoSuperInit(cell=info.name), scope=info.name)


def _only_raises(method: FunctionNode) -> bool:
    """An ``__init__`` that only raises (``raise NotImplementedError``) never builds an instance to break."""
    body = [statement for statement in method.body
            if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant))]
    return len(body) == 1 and isinstance(body[0], ast.Raise)


def _initialises_base(module: ModuleFacts, info: ClassInfo, method: FunctionNode, seen: set[str]) -> bool:
    """``method`` (or a method of the class it calls on ``self``) calls the base class initialiser."""
    seen.add(method.name)
    self_name = first_argument(method)
    for node in module.index.subtree_nodes_of(method, (ast.Call,)):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        func = node.func
        if func.attr == "__init__":
            receiver = func.value
            if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name) and receiver.func.id == "super":
                return True
            if node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == self_name and (
                    _may_be_cell_class(module, receiver)):
                return True
        elif self_name and self_attribute(func, self_name) is not None and func.attr not in seen:
            found = info.find_method(func.attr)
            if found is not None and _initialises_base(module, found[0], found[1], seen):
                return True
    return False


def _may_be_cell_class(module: ModuleFacts, expr: ast.AST) -> bool:
    """``expr`` names a Cell class, or a class ms-lint cannot see (given the benefit of the doubt)."""
    qualname = module.qualname(expr)
    if qualname is None:
        return True
    if api.is_mindspore(qualname):
        return api.is_mindspore_cell_class(qualname)
    if qualname.startswith("builtins."):
        return False
    if qualname.startswith(module.local_prefix):
        local = module.classes.get(qualname[len(module.local_prefix):])
        return local is None or local.is_cell
    built = module.class_of_constructor(ast.Call(func=expr, args=[], keywords=[]))
    return built is None or built[1] is None or built[1].is_cell
