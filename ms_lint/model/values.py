"""Values: what kind of data an expression holds in graph code.

TENSOR is data known only when the graph runs; HOST is a host array (numpy and friends); None is a compile-time
constant or an unknown value. The tables say which builtins and library functions pass a kind through, and which
give a count, an index or a flag instead of data. Nothing here knows about classes or graph code.
"""
from __future__ import annotations

import ast
from typing import Iterator

TENSOR = "tensor"  # data known only when the graph runs
HOST = "host"  # a host array (numpy and friends), not a tensor

BUILTIN_STATIC_CALLS = frozenset({
    "len", "isinstance", "issubclass", "type", "range", "str", "repr", "hasattr", "getattr", "callable", "id",
    "print", "format", "enumerate", "zip", "tuple", "list", "dict", "min", "max", "abs", "sum", "any", "all",
    "sorted", "reversed", "round", "divmod", "pow", "int", "float", "bool", "super",
})
KIND_PASSING_BUILTINS = frozenset({
    "tuple", "list", "min", "max", "abs", "sum", "sorted", "reversed", "round", "pow", "int", "float", "bool",
    "divmod", "zip", "enumerate", "iter", "next", "dict",
})
# Results that are counts, indices, flags or shapes: host data reaching a result only through them carries no
# value into it (an index selects data, it is not differentiated).
INDEX_BUILTINS = frozenset({"len", "int", "bool", "range", "isinstance", "type", "str", "repr", "hash", "id",
                            "callable", "hasattr"})
INDEX_FUNCTIONS = frozenset({
    "argmax", "argmin", "argsort", "nonzero", "flatnonzero", "argwhere", "searchsorted", "digitize", "count_nonzero",
    "isnan", "isinf", "isfinite", "any", "all", "logical_and", "logical_or", "logical_not", "equal", "not_equal",
    "greater", "greater_equal", "less", "less_equal",
})
# Methods that change a container in place: their arguments become part of it.
MUTATING_METHODS = frozenset({"append", "extend", "insert", "update", "add", "setdefault", "appendleft",
                              "extendleft"})


def join(*kinds: str | None) -> str | None:
    """The kind of a value built from values of ``kinds``: tensor data wins over host data over constants."""
    if TENSOR in kinds:
        return TENSOR
    if HOST in kinds:
        return HOST
    return None


def value_flows(node: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    """(name, expression) for each value that ``node`` puts into a local name: assignments, loop targets,
    ``with ... as``, and in-place container updates (``out.append(v)``, ``out[i] = v``)."""
    if isinstance(node, ast.Assign):
        for target in node.targets:
            yield from _target_flows(target, node.value)
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
        yield from _target_flows(node.target, node.value)
    elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
        yield from _target_flows(node.target, node.iter)
    elif isinstance(node, ast.withitem) and node.optional_vars is not None:
        yield from _target_flows(node.optional_vars, node.context_expr)
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
            node.func.attr in MUTATING_METHODS):
        root = _subscript_root(node.func.value)
        if root is not None:
            for argument in [*node.args, *(k.value for k in node.keywords)]:
                yield root, argument


def _target_flows(target: ast.AST, value: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    if isinstance(target, ast.Name):
        yield target.id, value
    elif isinstance(target, (ast.Tuple, ast.List)):
        paired = isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts) and not any(
            isinstance(e, ast.Starred) for e in (*value.elts, *target.elts))
        for index, element in enumerate(target.elts):
            yield from _target_flows(element, value.elts[index] if paired else value)
    elif isinstance(target, ast.Starred):
        yield from _target_flows(target.value, value)
    elif isinstance(target, ast.Subscript):
        root = _subscript_root(target)
        if root is not None:
            yield root, value


def _subscript_root(expr: ast.AST) -> str | None:
    """``out`` for ``out``, ``out[i]`` and ``out[i][j]``; None for anything else (``self.cache[i]``)."""
    while isinstance(expr, ast.Subscript):
        expr = expr.value
    return expr.id if isinstance(expr, ast.Name) else None


def flatten(structure) -> list:
    if isinstance(structure, list):
        return [kind for element in structure for kind in flatten(element)]
    return [structure]


def join_structures(structures: list):
    if not structures:
        return None
    if all(isinstance(s, list) and len(s) == len(structures[0]) for s in structures):
        return [join_structures([s[i] for s in structures]) for i in range(len(structures[0]))]
    return join(*(kind for s in structures for kind in flatten(s)))
