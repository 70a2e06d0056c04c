"""MS133: ``^`` of two Python bools in graph code (``(a is None) ^ (b is not None)``), which MindSpore rejects."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint.edits import Edit, FixContext
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.model import GraphFunction, ModuleFacts
from ms_lint.rules.base import Rule

# Builtins whose result is a Python bool whatever they are given.
_BOOL_BUILTINS = frozenset({"builtins.isinstance", "builtins.issubclass", "builtins.hasattr", "builtins.callable"})
_DEPTH = 4


@dataclass(frozen=True, kw_only=True)
class XorOfBools(FindingData):
    """``^`` of two Python bools in graph code: the expression, the graph function, the equivalent comparison."""

    expression: str = fact(subject=True)
    function: str = fact(for_users=True)
    instead: str

    def message(self) -> str:
        return (f"`{self.expression}` applies `^` to two Python bools in graph code ({self.function}): MindSpore's "
                "BitXor takes integers only, so the compile fails at STRICT and LAX with TypeError \"For BitXor, "
                f"only integer types are supported\" (measured on 2.7.1 and 2.10.0); write `{self.instead}`")


class XorOfPythonBools(Rule):
    code = "MS133"
    compiled_only = True
    name = "xor-of-python-bools"
    summary = "`^` of two Python bools in graph code (`(a is None) ^ (b is not None)`)"
    fix_summary = "compare the two bools with `!=`: `(a is None) != (b is not None)`"
    records = (XorOfBools,)
    what = """
        Reports `left ^ right` (and `flag ^= ...`) in graph code (a Cell's `construct`, a `@jit` function and what
        they call) where both sides are evidently Python bools: an `is`/`is not` comparison (`a is None`),
        `isinstance(...)`, `issubclass(...)`, `hasattr(...)`, `callable(...)`, `True`/`False`, `not` of one of
        these, or a local name every assignment of which gives one. A `^` of tensors (`(x > 0) ^ (x < 2)`) or of
        ints (`a ^ 1`) compiles and is not reported; neither is `&` or `|` of two bools, which compile.
    """
    why = """
        Python computes `True ^ False` as a bool; MindSpore's graph compiler maps `^` to its BitXor operation, which
        accepts integer types only. Measured on CPU with MindSpore 2.10.0 and 2.7.1, at STRICT and at LAX:
        `if (a is None) ^ (b is not None):` in `construct` raises TypeError "Unsupported input type. For BitXor,
        only integer types are supported, but got type of x:BoolImm" at the first call, and so do
        `isinstance(a, int) ^ (a is None)` and `(not (a is None)) ^ True`; `(a is None) != (b is not None)`, `&`
        and `|` of the same bools, `^` of two ints and `^` of two bool tensors compile. PyNative runs the Python
        operator and works, so the code passes its eager tests.
    """
    example = """
        class Net(nn.Cell):
            def construct(self, x, a=None, b=None):
                if (a is None) ^ (b is None):
                    raise ValueError("give both or neither")
                return x
    """
    use_instead = """
        class Net(nn.Cell):
            def construct(self, x, a=None, b=None):
                if (a is None) != (b is None):
                    raise ValueError("give both or neither")
                return x
    """
    autofix = """
        Writes `left != right` for `left ^ right` where the expression is a whole condition, assigned value,
        returned value or argument (where `!=`'s lower precedence cannot change what it is compared with).
    """

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        for function in module.graph_functions:
            for node in function.nodes_of(ast.BinOp, ast.AugAssign):
                if not isinstance(node.op, ast.BitXor):
                    continue
                left = node.left if isinstance(node, ast.BinOp) else node.target
                right = node.right if isinstance(node, ast.BinOp) else node.value
                if _python_bool(function, left, 0) and _python_bool(function, right, 0):
                    instead = (f"{_operand(ast.unparse(left), left)} != {_operand(ast.unparse(right), right)}"
                               if isinstance(node, ast.BinOp) else
                               f"{ast.unparse(left)} = {ast.unparse(left)} != ({ast.unparse(right)})")
                    yield self.report(module, node, XorOfBools(
                        expression=_short(ast.unparse(node)), function=function.label, instead=_short(instead, 80)))

    def fix(self, context: FixContext, finding: Finding) -> list[Edit]:
        node = finding.node
        if not isinstance(node, ast.BinOp) or not isinstance(node.op, ast.BitXor):
            return []
        function = context.module.graph_function_at(node)
        if function is None or not _whole(function, node):
            return []
        return [context.replace(node, f"{_operand(context.text(node.left), node.left)} != "
                                      f"{_operand(context.text(node.right), node.right)}")]


def _python_bool(function: GraphFunction, expr: ast.AST, depth: int) -> bool:
    """Whether ``expr`` is evidently a Python bool in graph code."""
    if depth > _DEPTH:
        return False
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, bool)
    if isinstance(expr, ast.Compare):
        return all(isinstance(op, (ast.Is, ast.IsNot)) for op in expr.ops)
    if isinstance(expr, ast.Call):
        return function.module.qualname(expr.func) in _BOOL_BUILTINS
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        return _python_bool(function, expr.operand, depth + 1)
    if isinstance(expr, ast.Name):
        arguments = function.node.args
        if expr.id in {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}:
            return False
        xored = {id(node.target) for node in function.nodes_of(ast.AugAssign) if isinstance(node.op, ast.BitXor)}
        values = []
        for node in function.nodes_of(ast.Name):
            if node.id == expr.id and not isinstance(node.ctx, ast.Load) and id(node) not in xored:
                values.append(_assigned(function, node))
        return bool(values) and all(value is not None and _python_bool(function, value, depth + 1)
                                    for value in values)
    return False


def _assigned(function: GraphFunction, target: ast.Name) -> ast.AST | None:
    """The value ``target`` is bound to by a plain one-target assignment; None for any other binding."""
    for node in function.nodes_of(ast.Assign):
        if len(node.targets) == 1 and node.targets[0] is target:
            return node.value
    return None


def _whole(function: GraphFunction, node: ast.BinOp) -> bool:
    """Whether ``node`` is a whole condition, assigned or returned value, or call argument."""
    for parent in function.nodes_of(ast.If, ast.While, ast.IfExp, ast.Assign, ast.Return, ast.Call, ast.Assert):
        if isinstance(parent, (ast.If, ast.While, ast.IfExp, ast.Assert)) and parent.test is node:
            return True
        if isinstance(parent, (ast.Assign, ast.Return)) and parent.value is node:
            return True
        if isinstance(parent, ast.Call) and (any(a is node for a in parent.args)
                                             or any(k.value is node for k in parent.keywords)):
            return True
    return False


def _operand(text: str, node: ast.AST) -> str:
    """``text`` of an operand of ``!=``, in parentheses unless it is a name, a call or a constant (a comparison would
    chain, and ``not`` binds less tightly than ``!=``)."""
    if isinstance(node, (ast.Name, ast.Call, ast.Constant)) or (text.startswith("(") and text.endswith(")")):
        return text
    return f"({text})"


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."
