"""Which arguments are tensor data beyond doubt, for rules whose message would be wrong on a tuple of ints.

The model marks a function's parameters as tensors when callers pass tensors or when the function is compiled
with tensor inputs; a ``construct`` parameter may still hold a tuple of ints (``output_size``). Rules that report
builtins applied to values (``max(a, b)``, ``"{}".format(v)``) ask for evidence instead: the value is computed in
this function by a tensor method (``x.sum()``, ``mask.astype(...)``) or a MindSpore operator; in a condition, also
a parameter the function uses as a tensor (``FunctionKinds.used_as_tensor``), a parameter of a ``construct`` that a
parent Cell's graph code passes such evident tensor data (``self.block(ops.relu(x))``, ``self.wrap(y, x.sum())``),
and an element of either.
"""
from __future__ import annotations

import ast

from ms_lint import mindspore_api as api
from ms_lint.model import TENSOR, GraphFunction
from ms_lint.model.ranks import values_passed
from ms_lint.model.syntax import on_other_branches


def evidently_tensor(function: GraphFunction, expr: ast.AST, _depth: int = 0, in_condition: bool = False) -> bool:
    """``in_condition``: ``expr`` is tested by a condition, where any tensor data counts: an element of evident
    tensor data (``t[0]``; a value given to ``max()`` would be a whole row) and a parameter the function uses as a
    tensor (``ops.relu(t)``, ``t.sum()``)."""
    if _depth > 4 or function.kind(expr) != TENSOR:
        return False
    if isinstance(expr, ast.Call):
        func = expr.func
        if isinstance(func, ast.Attribute) and function.kind(func.value) == TENSOR:
            return True  # a tensor method: t.sum(), t.abs(), t.astype(...)
        qualname = function.module.qualname(func)
        return bool(qualname) and api.is_mindspore(qualname) and api.last_name(qualname)[:1].islower()
    if isinstance(expr, ast.BinOp):
        return (evidently_tensor(function, expr.left, _depth + 1, in_condition)
                or evidently_tensor(function, expr.right, _depth + 1, in_condition))
    if isinstance(expr, ast.UnaryOp):
        return evidently_tensor(function, expr.operand, _depth + 1, in_condition)
    if isinstance(expr, (ast.Tuple, ast.List)):
        return any(evidently_tensor(function, e, _depth + 1, in_condition) for e in expr.elts)
    if in_condition and isinstance(expr, ast.Subscript):  # an element or a slice of tensor data: t[0], x[:, 1]
        return evidently_tensor(function, expr.value, _depth + 1, in_condition)
    if in_condition and isinstance(expr, ast.Name) and function.used_as_tensor(expr.id):
        return True  # a parameter the function uses as a tensor (``ops.relu(t)``, ``t.sum()``)
    if in_condition and isinstance(expr, ast.Name) and _passed_tensor(function, expr, _depth):
        return True  # a parameter a parent Cell passes evident tensor data
    if isinstance(expr, ast.Name):
        return any(
            evidently_tensor(function, node.value, _depth + 1, in_condition) for node in function.nodes_of(ast.Assign)
            if any(isinstance(t, ast.Name) and t.id == expr.id for t in node.targets)
            and not on_other_branches(function.nodes_of(ast.If), node.lineno, expr.lineno))
    return False


def _passed_tensor(function: GraphFunction, name: ast.Name, depth: int) -> bool:
    """Whether ``name`` is a parameter of a Cell's ``construct``, not bound again in it, that the graph code of a
    parent Cell of the module passes evident tensor data (``self.wrap(y, x.sum())``)."""
    node = function.node
    if node.name != "construct" or function.owner is None or name.id == function.self_name or any(
            isinstance(target, ast.Name) and target.id == name.id and isinstance(target.ctx, ast.Store)
            for target in function.nodes_of(ast.Name)):
        return False
    module = function.module
    for _caller, _method, passed in values_passed(module, node, function.owner, name.id):
        caller = module.graph_function_at(passed)
        if caller is not None and caller is not function and evidently_tensor(caller, passed, depth + 1, True):
            return True
    return False
