"""Cells whose graph-mode ``construct`` returns a ``dict``, and host code that reads such a Cell's output by key
(MS117 reports the read, MS122 the ``return``)."""
from __future__ import annotations

import ast
from typing import Callable, Iterator

from ms_lint.model import ClassInfo, FunctionNode, ModuleFacts
from ms_lint.model.project import defined_as

# The dict methods a tuple lacks: reading the output through one raises AttributeError.
DICT_METHODS = frozenset({"get", "keys", "items", "values"})


def dict_returns(module: ModuleFacts, info: ClassInfo) -> list[ast.Return]:
    """The ``return`` statements of the Cell's own graph-code ``construct`` when each returns a dict (a literal,
    a comprehension, ``dict(...)``, or a name bound to one in construct); empty otherwise."""
    if not info.is_cell or "construct" not in info.methods:
        return []
    construct = info.methods["construct"]
    if not module.is_graph_code(construct):
        return []
    nodes = module.index.body_nodes_of(construct, (ast.Assign, ast.Return))
    returns = [node for node in nodes if node.__class__ is ast.Return and node.value is not None]
    # the returned values first: most return a tensor or a tuple, and the assignments need not be read
    if not returns or not all(isinstance(node.value, ast.Name) or is_dict(module, node.value) for node in returns):
        return []
    dict_names = {target.id for node in nodes if node.__class__ is ast.Assign and is_dict(module, node.value)
                  for target in node.targets if isinstance(target, ast.Name)}
    if all(is_dict(module, node.value) or node.value.id in dict_names for node in returns):
        return returns
    return []


def is_dict(module: ModuleFacts, expr: ast.AST) -> bool:
    return isinstance(expr, (ast.Dict, ast.DictComp)) or (
        isinstance(expr, ast.Call) and module.qualname(expr.func) == "builtins.dict")


def own_host_code(module: ModuleFacts) -> Callable[[FunctionNode | None, ClassInfo | None], bool]:
    """``key_reads``'s ``host`` for the module being checked: module-level code and the functions that are not
    graph code."""
    return lambda function, _: function is None or not module.is_graph_code(function)


# A read of a Cell's output by key: (the node, the Cell's name, the read as written, the function it is in).
KeyRead = tuple[ast.AST, str, str, "FunctionNode | None"]


def key_reads(module: ModuleFacts, cells: dict[str, str],
              host: Callable[[FunctionNode | None, ClassInfo | None], bool]) -> Iterator[KeyRead]:
    """In ``module``, host code that reads by key what an instance of one of ``cells`` (qualified name -> Cell
    name) returns: ``net(x)["k"]``, ``out = net(x); out["k"]``, ``out.get("k")``, ``out.keys()``, ... where
    ``net = Cell(...)`` is bound in the same function or at module level, or ``Cell(...)(x)["k"]``. The read as
    written is ``["k"]`` or ``.get()``. ``host(function, owner)`` says whether a function is host code."""
    # (function, name) -> Cell for ``net = Cell(...)``; id(the constructor call) -> Cell for ``Cell(...)(x)``
    instances: dict[tuple[int, str] | int, str] = {}
    functions: dict[int, FunctionNode | None] = {}
    for site in module.calls:
        built = module.class_of_constructor(site.node)
        cell = _cell_built(module, built, cells) if built is not None else None
        if cell is None:
            continue
        instances[id(site.node)] = cell
        assignment = module.assignment_of(site.node)
        if assignment is not None and len(assignment.targets) == 1 and isinstance(assignment.targets[0], ast.Name):
            instances[(id(site.function), assignment.targets[0].id)] = cell
        elif host(site.function, site.owner):
            functions.setdefault(id(site.function), site.function)  # perhaps called at once
    for site in module.calls:
        if isinstance(site.node.func, ast.Name) and (
                (id(site.function), site.node.func.id) in instances or (id(None), site.node.func.id) in instances):
            if host(site.function, site.owner):
                functions.setdefault(id(site.function), site.function)
    for function in functions.values():
        yield from _reads_in(module, function, instances)


def _cell_built(module: ModuleFacts, built: tuple, cells: dict[str, str]) -> str | None:
    """The Cell of ``cells`` a constructor call builds: by its qualified name, or the name a package re-exports it
    as."""
    qualname, info, _ = built
    if qualname in cells:
        return cells[qualname]
    if info is None or not info.is_cell or qualname.rsplit(".", 1)[-1] not in cells.values():
        return None
    return cells.get(defined_as(module.path, qualname, module.settings) or "")


def _reads_in(module: ModuleFacts, function: FunctionNode | None,
              instances: dict[tuple[int, str] | int, str]) -> Iterator[KeyRead]:
    nodes = list(module.index.own_code(function if function is not None else module.tree))

    def called_cell(expr: ast.AST) -> str | None:
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name):
            return instances.get((id(function), expr.func.id)) or instances.get((id(None), expr.func.id))
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Call):
            return instances.get(id(expr.func))
        return None

    results: dict[str, str] = {}
    for node in nodes:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            cell = called_cell(node.value)
            if cell is not None:
                results[node.targets[0].id] = cell
    for node in nodes:
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and isinstance(
                node.slice, ast.Constant) and isinstance(node.slice.value, str):
            read = f"[{node.slice.value!r}]"
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in DICT_METHODS):
            read = f".{node.func.attr}()"
            node = node.func
        else:
            continue
        value = node.value
        cell = called_cell(value) or (results.get(value.id) if isinstance(value, ast.Name) else None)
        if cell is not None:
            yield node, cell, read, function
