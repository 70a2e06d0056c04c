"""MS130: control flow on tensor conditions nested (or unrolled) past what MindSpore compiles quickly."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint.findings import Finding, FindingData
from ms_lint.model import TENSOR, GraphFunction, ModuleFacts
from ms_lint.model.values import UNKNOWN
from ms_lint.rules.base import Rule

# Measured with benchmarks/control_flow.py (MindSpore 2.10, CPU): see the rule's documentation for the table.
# Reported from these on: where compiling took twice to three times as long as the smallest case.
DEPTH_LIMIT = 8  # `if`/`while` on tensor conditions nested this deep
UNROLL_LIMIT = 16  # iterations x tensor conditions of an unrolled `for ... in range(n)`
_STATIC_TESTS = frozenset({"isinstance", "hasattr", "callable", "len", "issubclass"})


@dataclass(frozen=True, kw_only=True)
class UnrolledBranches(FindingData):
    """A ``for`` loop graph mode unrolls around ``if``/``while`` statements on tensor values: the graph function,
    the iterations, the conditions in its body, the number of branch points from which it is reported."""

    function: str
    iterations: int
    conditions: int
    limit: int

    def message(self) -> str:
        return (f"for loop unrolled {self.iterations} times in graph code ({self.function}) around {self.conditions} "
                f"if/while on tensor values: {self.iterations * self.conditions} branch points to compile "
                f"({self.limit} took three times as long as one, measured on MindSpore 2.10 CPU, and each adds more); "
                "flatten with ops.select or masks")


@dataclass(frozen=True, kw_only=True)
class NestedTooDeep(FindingData):
    """An ``if`` or ``while`` on a tensor value nested past the depth from which compiling slows: the graph
    function, the depth, that limit, the statement (``if``, ``while``)."""

    template = ("{statement} on a tensor value nested {depth} deep in graph code ({function}): from {limit} levels "
                "on, compiling takes about twice as long as one level (measured, MindSpore 2.10 CPU) and each level "
                "adds more; flatten with ops.select or masks, or move conditions the host knows out of the graph")
    function: str
    depth: int
    limit: int
    statement: str


class NestedTensorControlFlow(Rule):
    code = "MS130"
    compiled_only = True
    name = "nested-tensor-control-flow"
    summary = ("`if`/`while` on tensor values nested 8 deep, or unrolled 16 times or more by a `for ... in range(n)` "
               "loop, in graph code")
    fix_summary = "flatten with `ops.select`/masks, hoist constant conditions, or split the graph at `jit` boundaries"
    level = "warning"
    what = """
        Reports, in graph code, an `if` or `while` whose condition is tensor data when it sits inside seven others of
        its kind (depth 8; one finding per nest), and a `for ... in range(n)` loop with a constant `n` (the compiler
        unrolls it) holding `if`/`while` statements on tensor data when `n` times their number is 16 or more.
        Conditions the compiler folds do not count: constants, `self.training`, shapes (`x.shape[0] > 1`),
        `x is None`, `isinstance(...)`, and branches of a condition that folds are not compiled at all. Calls into
        helpers are not followed: a helper's own nesting counts in the helper.
    """
    why = """
        Each `if`/`while` on a tensor value becomes a switch between sub-graphs that the compiler must infer,
        specialise and join; nesting and unrolling multiply them. MindSpore's migration guide (r2.0.0-alpha):
        "Compilation in graph mode can be slow when multiple layers of conditional control statements are called"
        (Constructing MindSpore Network, "Considerations for MindSpore Network Authoring",
        https://www.mindspore.cn/docs/en/r2.0.0-alpha/migration_guide/model_development/model_development.html; the
        item is gone from later versions of the page). Measured with
        `benchmarks/control_flow.py` on MindSpore 2.10 (CPU, Python 3.11): `net.compile(x)` in a fresh process per
        case, CPU seconds of that process (median of two; the wall time was 5 to 15 times longer on the shared
        2-CPU machine), and the ratio to the smallest case of the family:

        | depth | nested `if`, STRICT | nested `if`, LAX | nested `while`, STRICT | nested `while`, LAX |
        | --- | --- | --- | --- | --- |
        | 1 | 0.19 s | 0.20 s | 0.23 s | 0.21 s |
        | 2 | 0.22 s (1.1x) | 0.24 s (1.2x) | 0.24 s (1.0x) | 0.25 s (1.2x) |
        | 4 | 0.26 s (1.4x) | 0.25 s (1.3x) | 0.30 s (1.3x) | 0.30 s (1.4x) |
        | 6 | 0.32 s (1.7x) | 0.36 s (1.8x) | 0.37 s (1.6x) | 0.32 s (1.5x) |
        | 8 | 0.42 s (2.2x) | 0.32 s (1.6x) | 0.42 s (1.8x) | 0.44 s (2.0x) |
        | 12 | 0.52 s (2.7x) | 0.39 s (1.9x) | 0.51 s (2.2x) | 0.64 s (3.0x) |

        | `for i in range(n)` around one `if` on a tensor | STRICT | LAX |
        | --- | --- | --- |
        | n = 1 | 0.22 s | 0.24 s |
        | n = 4 | 0.31 s (1.4x) | 0.33 s (1.4x) |
        | n = 8 | 0.37 s (1.7x) | 0.44 s (1.8x) |
        | n = 16 | 0.67 s (3.0x) | 0.61 s (2.5x) |
        | n = 32 | 1.34 s (6.0x) | 0.98 s (4.1x) |
        | n = 64 | 2.68 s (12.0x) | 2.34 s (9.7x) |

        Nesting grows compile time slowly and linearly (about 0.03 s a level): twice the single level from depth 8.
        Unrolling grows it by about 0.04 s per branch point: three times from 16 on, twelve times at 64, and a
        network's unrolled layers multiply it again. None of this fails: the cost is the compile time of every run.
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

    records = (UnrolledBranches, NestedTooDeep)

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
                if inner >= DEPTH_LIMIT and inner > depth:
                    yield self._too_deep(module, function, statement, inner)
                    continue  # one finding per nest: the statement that goes past the limit
                yield from self._block(module, function, statement.body, inner)
                yield from self._block(module, function, statement.orelse, inner)
            elif isinstance(statement, (ast.For, ast.AsyncFor)):
                count = _unrolled_iterations(function, statement)
                conditions = _tensor_conditions_in(function, statement.body) if count else 0
                if count and conditions and count * conditions >= UNROLL_LIMIT:
                    yield self.report(module, statement, UnrolledBranches(
                        function=function.label, iterations=count, conditions=conditions, limit=UNROLL_LIMIT))
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
        return self.report(module, statement, NestedTooDeep(
            function=function.label, depth=depth, limit=DEPTH_LIMIT,
            statement="if" if isinstance(statement, ast.If) else "while"))


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
