"""MS120: a ``logging``/logger call in graph code: it runs once, while the graph compiles."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.model import TENSOR, GraphFunction, ModuleFacts
from ms_lint.model.syntax import under
from ms_lint.model.values import UNKNOWN
from ms_lint.rules.base import Rule
from ms_lint.rules.ms115_tensor_formatting_in_graph import _LOGGING_METHODS
from ms_lint.rules.tensor_evidence import evidently_tensor

# Module-level loggers: ``logger = logging.getLogger(__name__)``, ``logger = logging.get_logger(__name__)``
# (the spelling of transformers-style utilities).
_LOGGER_FACTORIES = frozenset({"getLogger", "get_logger", "getChild"})
# Names that are loggers wherever they are imported from (``from mindformers.tools.logger import logger``).
_LOGGER_NAMES = frozenset({"logger", "_logger", "LOGGER"})
_CONVERSIONS = frozenset({"int", "float", "bool", "round"})
_TO_NUMBER = frozenset({"item", "tolist", "asnumpy", "numpy"})
# Predicates on a tensor that the compiler answers from its type (``ops.is_tensor(x)``, ``x.is_floating_point()``).
_CONSTANT_PREDICATES = frozenset({"is_tensor", "isconstant", "is_floating_point", "is_complex", "is_signed",
                                  "is_sequence_value_unknown", "is_sequence_shape_unknown", "is_contiguous"})


@dataclass(frozen=True, kw_only=True)
class LoggedAtCompile(FindingData):
    """A logging call in graph code, run once while MindSpore compiles: the call (``logger.info``), the syntax
    levels it holds at, the line of the ``if`` on tensor data it sits under (logged whatever the value), the graph
    function."""

    call: str
    levels: list[str] = fact(for_users=True)
    condition_line: int | None = fact(optional=True)
    function: str

    def message(self) -> str:
        when = (f"; under the `if` at line {self.condition_line}, whose condition is tensor data, it is logged at "
                "compile time whatever the value") if self.condition_line is not None else ""
        return (f"{self.call}(...) in graph code ({self.function}) runs once, while MindSpore compiles the graph, and "
                f"never on later calls (STRICT and LAX){when}; log from host code (the training loop, a callback)")


class LoggingInGraph(Rule):
    code = "MS120"
    compiled_only = True
    name = "logging-in-graph"
    summary = "a `logging`/logger call in graph code: it runs once, while the graph compiles, and never again"
    fix_summary = "log from host code (the training loop, a callback), not from `construct` or `@jit` code"
    level = "warning"
    what = """
        Reports, in graph code, calls of the `logging` module (`logging.info(...)`) and of loggers: a module-level
        name bound to `getLogger(...)`/`get_logger(...)`, or a name `logger` imported from another module of the
        project or a library (`logger.info`, `.debug`, `.warning`, `.error`, ...), when no argument is tensor data
        (an f-string holding a tensor counts as tensor data). Only calls that are meant to run on every call are
        reported: a call not under any `if`, and a call under an `if` on tensor data. A call under an `if` the
        compile settles (an argument left `None`, a flag, a shape, a Cell attribute) reports a decision made at
        compile time, once, and is left alone; so is a call in `__init__` or other host code, in a branch MindSpore
        drops, and in a `@jit_class` method that only host code calls. MindSpore's own `mindspore.log` is refused by
        the compiler outright: MS111 reports it.
    """
    why = """
        Graph code runs Python only while MindSpore compiles it. A logging call whose arguments are constants
        (a message, `x.shape`, `self.name`) is executed once, during the compile, and is not part of the graph:
        later calls log nothing, under STRICT and LAX alike (measured on MindSpore 2.10 CPU: three calls gave one
        record; PyNative gave three). Under an `if` on tensor data (`if loss > 100: logger.warning(...)`) the
        message is logged at compile time whatever the value turns out to be: the compiler walks both branches,
        so the warning appeared once for inputs that never met the condition. With tensor data among the arguments
        (`logger.info("%s", x.mean())`, `logger.info(f"loss {loss}")`) the call is another hazard: it fails to
        compile under STRICT (ValueError: the inputs should be constant; MS115) and LAX runs it in the interpreter
        on every call.
    """
    example = """
        import logging

        logger = logging.getLogger(__name__)

        class Net(nn.Cell):
            def construct(self, x):
                if x.abs().max() > 1e4:
                    logger.warning("activations overflow")
                return self.dense(x)
    """
    use_instead = """
        class Net(nn.Cell):
            def construct(self, x):
                return self.dense(x)

        # in the training loop (or a callback), outside graph code:
        out = net(x)
        if out.abs().max() > 1e4:
            logger.warning("activations overflow")
    """

    records = (LoggedAtCompile,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        loggers: set[str] | None = None
        for function in module.graph_functions:
            for node in function.nodes_of(ast.Call):
                func = node.func
                if func.__class__ is not ast.Attribute or func.attr not in _LOGGING_METHODS:
                    continue  # most calls
                if loggers is None:
                    loggers = module_loggers(module)
                call = _logging_call(module, function, func, loggers)
                if call is None or any(_holds_tensor(function, argument)
                                       for argument in (*node.args, *(k.value for k in node.keywords))):
                    continue  # tensor data: MS115's under STRICT; LAX runs it on every call
                conditions = [branch for branch in function.nodes_of(ast.If) if under(branch, node.lineno)]
                condition = max((branch for branch in conditions if runtime_condition(function, branch.test)),
                                key=lambda branch: branch.lineno, default=None)
                if conditions and condition is None or not conditions and _settled_at_every_call(
                        module, function, {id(f.node): f for f in module.graph_functions}):
                    continue  # a message about what the compile settles (an argument left None, a flag, a shape)
                yield self.report(module, node, LoggedAtCompile(
                    call=call, levels=["strict", "lax"], function=function.label,
                    condition_line=condition.lineno if condition is not None else None))


def _holds_tensor(function: GraphFunction, argument: ast.AST) -> bool:
    """Tensor data in a logging argument: an f-string's values included (``f"loss {loss}"``), and numbers taken
    from tensors (``int(shift)``, ``loss.item()``), which are not constants of the graph either."""
    if function.kind(argument) == TENSOR:
        return True
    if isinstance(argument, ast.JoinedStr):
        return any(isinstance(part, ast.FormattedValue) and _holds_tensor(function, part.value)
                   for part in argument.values)
    if isinstance(argument, ast.Call) and isinstance(argument.func, ast.Name) and argument.func.id in _CONVERSIONS:
        # ``int(self.shift)``: a number made from a value the compile does not know, most likely a tensor
        return any(_holds_tensor(function, value) or function.constant(value) is UNKNOWN and not _static(value)
                   for value in argument.args)
    if isinstance(argument, ast.Call) and isinstance(argument.func, ast.Attribute) and (
            argument.func.attr in _TO_NUMBER):
        return True  # ``loss.item()``
    if isinstance(argument, (ast.BinOp, ast.Tuple, ast.List)):
        parts = (argument.left, argument.right) if isinstance(argument, ast.BinOp) else argument.elts
        return any(_holds_tensor(function, part) for part in parts)
    return False


def _settled_at_every_call(module: ModuleFacts, function: GraphFunction, by_node: dict) -> bool:
    """Whether graph code calls ``function`` (a helper) only under conditions the compile settles: what it logs
    reports a compile-time decision, as under such a condition in the function itself."""
    if function.as_root is not None or not function.passed_by:
        return False
    for caller_id in function.passed_by:
        caller = by_node.get(caller_id)
        if caller is None:
            return False
        for call, target, _, _ in module.calls_from(caller):
            if target is not function.node:
                continue
            conditions = [branch.test for branch in caller.nodes_of(ast.If) if under(branch, call.lineno)]
            if not conditions or any(runtime_condition(caller, test) for test in conditions):
                return False
    return True


def module_loggers(module: ModuleFacts) -> set[str]:
    """Module-level names bound to a logger factory's result (``logging.getLogger(...)``, ``get_logger(...)``)."""
    found = set()
    for name, value in module.module_assignments.items():
        if isinstance(value, ast.Call):
            func = value.func
            attribute = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if attribute in _LOGGER_FACTORIES and module.qualname(func):
                found.add(name)
    return found


def _logging_call(module: ModuleFacts, function: GraphFunction, func: ast.Attribute, loggers: set[str]) -> str | None:
    """``logging.info``, ``logger.warning``, ... when ``func`` is a logging method of a logger or logging module."""
    receiver = func.value
    qualname = module.qualname(receiver)
    if qualname == "logging":
        return f"{qualname}.{func.attr}"
    if not isinstance(receiver, ast.Name) or receiver.id in function.env:
        return None  # a local name: not the module's logger
    if receiver.id in loggers and qualname == module.local_prefix + receiver.id:
        return f"{receiver.id}.{func.attr}"
    if qualname and not qualname.startswith(module.local_prefix) and api.last_name(qualname) in _LOGGER_NAMES:
        return f"{receiver.id}.{func.attr}"
    return None


def runtime_condition(function: GraphFunction, test: ast.AST) -> bool:
    """Whether ``test`` is a condition the compiler cannot evaluate: a comparison or truth test of tensor data the
    function computes (``x.sum() > 0``, ``(mask == 0).any()``). A comparison with ``is``/``in``, a shape, a dtype or
    a Cell attribute folds to a constant; a ``and``/``or`` counts only when every operand is such a test."""
    if isinstance(test, ast.BoolOp):
        return all(runtime_condition(function, value) for value in test.values)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return runtime_condition(function, test.operand)
    if isinstance(test, ast.Call) and _predicate_name(test.func) in _CONSTANT_PREDICATES:
        return False
    if isinstance(test, ast.Compare):
        if not all(isinstance(op, (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)) for op in test.ops):
            return False
        return any(evidently_tensor(function, operand, in_condition=True) for operand in (test.left, *test.comparators))
    return evidently_tensor(function, test, in_condition=True)


def _predicate_name(func: ast.AST) -> str:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _static(expr: ast.AST) -> bool:
    """A shape, a dimension or a length: known to the compile (``x.shape[0]``, ``len(x)``, ``x.ndim``)."""
    while isinstance(expr, ast.Subscript):
        expr = expr.value
    if isinstance(expr, ast.Attribute):
        return expr.attr in api.STATIC_TENSOR_ATTRIBUTES
    if isinstance(expr, ast.Call):
        func = expr.func
        return (isinstance(func, ast.Name) and func.id == "len") or (
            isinstance(func, ast.Attribute) and func.attr in api.STATIC_TENSOR_METHODS)
    return False
