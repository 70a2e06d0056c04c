"""MS130: control flow on tensor conditions nested (or unrolled) past what MindSpore compiles quickly."""
from __future__ import annotations

import ast
from typing import Iterator

from ms_lint.findings import Finding
from ms_lint.model import TENSOR, GraphFunction, ModuleFacts
from ms_lint.model.values import UNKNOWN
from ms_lint.rules.base import Rule

# Measured with benchmarks/control_flow.py (MindSpore 2.10, CPU): see the rule's documentation for the table.
MAX_DEPTH = 4  # nested `if`/`while` on tensor conditions beyond this depth are reported
MAX_UNROLLED = 16  # iterations x tensor conditions of an unrolled `for ... in range(n)` beyond this are reported
_STATIC_TESTS = frozenset({"isinstance", "hasattr", "callable", "len", "issubclass"})


class NestedTensorControlFlow(Rule):
    code = "MS130"
    name = "nested-tensor-control-flow"
    summary = "`if`/`while` on tensor values nested deeper than 4, or unrolled by a `for ... in range(n)` loop"
    fix_summary = "flatten with `ops.select`/masks, hoist constant conditions, or split the graph at `jit` boundaries"
    level = "warning"
    what = """
        Reports, in graph code, an `if` or `while` whose condition is tensor data when it sits inside more than
        four others of its kind (depth 5 and deeper), and a `for ... in range(n)` loop with a constant `n` (the
        compiler unrolls it) holding `if`/`while` statements on tensor data when `n` times their number exceeds 16.
        Conditions the compiler folds do not count: constants, `self.training`, shapes (`x.shape[0] > 1`),
        `x is None`, `isinstance(...)`, and branches of a condition that folds are not compiled at all. Calls into
        helpers are not followed: a helper's own nesting counts in the helper.
    """
    why = """
        Each `if`/`while` on a tensor value becomes a switch between sub-graphs that the compiler must infer,
        specialise and join; nesting and unrolling multiply them. MindSpore's migration guide (r2.0.0-alpha):
        "Compilation in graph mode can be slow when multiple layers of conditional control statements are called"
        (Constructing MindSpore Network, "Considerations for MindSpore Network Authoring"). Measured with
        `benchmarks/control_flow.py` on MindSpore 2.10 (CPU), `net.compile(x)` in a fresh process per case, median
        of three:

        MEASURED_TABLE
    """
    example = """
        class Gate(nn.Cell):
            def construct(self, x):
                for i in range(32):
                    if x.sum() > i:
                        x = x + 1
                    else:
                        x = x - 1
                return x
    """
    use_instead = """
        class Gate(nn.Cell):
            def construct(self, x):
                for i in range(32):
                    x = ops.select(x.sum() > i, x + 1, x - 1)
                return x
    """

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        for function in module.graph_functions:
            if not function.nodes_of(ast.If, ast.While):
                continue
            yield from self._block(module, function, function.node.body, 0)

    def _block(self, module: ModuleFacts, function: GraphFunction, statements, depth: int) -> Iterator[Finding]:
        for statement in statements:
            if function.is_dead(statement):
                continue
            if isinstance(statement, (ast.If, ast.While)):
                inner = depth + 1 if _tensor_condition(function, statement.test) else depth
                if inner > MAX_DEPTH and inner > depth:
                    yield self._too_deep(module, function, statement, inner)
                    continue  # one finding per nest: the statement that goes past the limit
                yield from self._block(module, function, statement.body, inner)
                yield from self._block(module, function, statement.orelse, inner)
            elif isinstance(statement, (ast.For, ast.AsyncFor)):
                count = _unrolled_iterations(function, statement)
                conditions = _tensor_conditions_in(function, statement.body) if count else 0
                if count and conditions and count * conditions > MAX_UNROLLED:
                    yield self.finding(
                        module, statement,
                        f"for loop unrolled {count} times in graph code ({function.label}) around {conditions} "
                        f"if/while on tensor values: {count * conditions} branch points to compile (more than "
                        f"{MAX_UNROLLED}); compile time grows with each (measured, MindSpore 2.10 CPU); flatten with "
                        "ops.select or masks",
                        data={"function": function.label, "iterations": count, "conditions": conditions,
                              "limit": MAX_UNROLLED},
                    )
                    continue
                yield from self._block(module, function, statement.body, depth)
                yield from self._block(module, function, statement.orelse, depth)
            elif isinstance(statement, (ast.With, ast.AsyncWith)):
                yield from self._block(module, function, statement.body, depth)
            elif isinstance(statement, ast.Try):
                for block in (statement.body, *(h.body for h in statement.handlers), statement.orelse,
                              statement.finalbody):
                    yield from self._block(module, function, block, depth)

    def _too_deep(self, module: ModuleFacts, function: GraphFunction, statement: ast.AST, depth: int) -> Finding:
        keyword = "if" if isinstance(statement, ast.If) else "while"
        return self.finding(
            module, statement,
            f"{keyword} on a tensor value nested {depth} deep in graph code ({function.label}): past {MAX_DEPTH}, "
            "compile time grows with each level (measured, MindSpore 2.10 CPU); flatten with ops.select or masks, "
            "or move conditions the host knows out of the graph",
            data={"function": function.label, "depth": depth, "limit": MAX_DEPTH, "statement": keyword},
        )


def _tensor_condition(function: GraphFunction, test: ast.AST) -> bool:
    """Whether the condition is tensor data the compiler cannot fold (not ``x is None``, ``isinstance``, shapes)."""
    if function.constant(test) is not UNKNOWN:
        return False
    if isinstance(test, ast.BoolOp):
        return any(_tensor_condition(function, value) for value in test.values)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _tensor_condition(function, test.operand)
    if isinstance(test, ast.Compare) and all(isinstance(op, (ast.Is, ast.IsNot)) for op in test.ops):
        return False
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id in _STATIC_TESTS:
        return False
    return function.kind(test) == TENSOR


def _tensor_conditions_in(function: GraphFunction, statements) -> int:
    count = 0
    for statement in statements:
        for node in ast.walk(statement):
            if isinstance(node, (ast.If, ast.While)) and not function.is_dead(node) and _tensor_condition(
                    function, node.test):
                count += 1
    return count


def _unrolled_iterations(function: GraphFunction, loop: ast.For) -> int:
    """``n`` of ``for ... in range(n)`` (or ``range(a, b[, step])``) with constant bounds, else 0."""
    call = loop.iter
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "range"
            and not call.keywords and 1 <= len(call.args) <= 3):
        return 0
    values = [function.constant(argument) for argument in call.args]
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return 0
    try:
        return len(range(*values))
    except (ValueError, OverflowError):
        return 0
