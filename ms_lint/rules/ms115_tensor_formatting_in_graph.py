"""MS115: ``str.format``, ``%``-formatting and ``logging`` calls with tensor arguments in graph code."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint.model import GraphFunction, ModuleFacts
from ms_lint.findings import Finding, FindingData
from ms_lint.rules.base import Rule
from ms_lint.rules.tensor_evidence import evidently_tensor

_LOGGING_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "critical", "exception", "log", "fatal"})


@dataclass(frozen=True, kw_only=True)
class TensorFormatted(FindingData):
    """A tensor value formatted in graph code: what formats it (``%-formatting``, ``str.format``, a logging
    method), the graph function."""

    template = ("{formatting} with a tensor value in graph code ({function}) fails to compile under STRICT (graph "
                "code formats only constants); use print(...) or an f-string, or log outside the Cell")
    formatting: str
    function: str


class TensorFormattingInGraph(Rule):
    code = "MS115"
    compiled_only = True
    name = "tensor-formatting-in-graph"
    summary = "`str.format`, `%`-formatting or a `logging` call with a tensor argument in graph code"
    fix_summary = "use `print(...)` or an f-string (both compile), or log outside the Cell"
    what = """
        Reports, in graph code, `"...".format(...)` and `"..." % ...` with tensor data among the formatted
        values, and calls of the `logging` module or of a module-level logger (`logger = logging.getLogger(...)`;
        `logger.info`, `.debug`, `.warning`, ...) given tensor data. A value counts when it is computed in the
        function by a tensor method or a MindSpore operator (`x.mean()`, `y = ops.relu(x)`); a bare input of the
        function is not enough (it may be an int). Formatting compile-time constants
        (`x.shape`, `self.name`), `print(t)` and f-strings with tensors compile and are not reported.
    """
    why = """
        Graph code formats strings only from constants. Under STRICT the compile fails: `%` and logging calls raise
        ValueError ("the inputs should be constant, but found variable"), `str.format` fails kernel selection
        (RuntimeError, unsupported op `Format` on CPU); under LAX the call falls back to the Python interpreter.
        `print(t)` and `f"{t}"` are supported by the compiler (measured 2.10 CPU). With `--ms-syntax-level=lax` it
        is not reported.
    """
    example = """
        import logging

        logger = logging.getLogger(__name__)

        class Net(nn.Cell):
            def construct(self, x):
                logger.debug("activation mean %s", x.mean())
                return x
    """
    use_instead = """
        class Net(nn.Cell):
            def construct(self, x):
                print("activation mean", x.mean())
                return x
    """

    records = (TensorFormatted,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        loggers = _module_loggers(module)
        for function in module.graph_functions:
            if not function.strict:
                continue
            for node in function.nodes_of(ast.Call, ast.BinOp):
                if node.__class__ is ast.Call:
                    func = node.func
                    if func.__class__ is not ast.Attribute or (
                            func.attr != "format" and func.attr not in _LOGGING_METHODS):
                        continue  # most calls: no formatting method
                elif node.op.__class__ is not ast.Mod:
                    continue
                what = _formatting(module, function, node, loggers)
                if what is None:
                    continue
                yield self.report(module, node, TensorFormatted(formatting=what, function=function.label))


def _formatting(module: ModuleFacts, function: GraphFunction, node: ast.AST, loggers: set[str]) -> str | None:
    """What formats a tensor value at ``node``: a ``%`` operation, or a call of a ``format`` or logging method
    (the only nodes ``check`` asks about)."""
    if isinstance(node, ast.BinOp):
        if isinstance(node.left, ast.Constant) and isinstance(node.left.value, str) and evidently_tensor(
                function, node.right):
            return "%-formatting"
        return None
    func = node.func
    what = None
    if func.attr == "format" and isinstance(func.value, ast.Constant) and isinstance(func.value.value, str):
        what = "str.format"
    elif func.attr in _LOGGING_METHODS:
        qualname = module.qualname(func) or ""
        if qualname.startswith("logging."):
            what = qualname
        elif isinstance(func.value, ast.Name) and func.value.id in loggers and func.value.id not in function.env:
            what = f"{func.value.id}.{func.attr}"
    arguments = [*node.args, *(k.value for k in node.keywords)]
    if what is None or not any(evidently_tensor(function, argument) for argument in arguments):
        return None
    return what


def _module_loggers(module: ModuleFacts) -> set[str]:
    """Module-level names bound to ``logging.getLogger(...)``."""
    return {
        name for name, value in module.module_assignments.items()
        if isinstance(value, ast.Call) and module.qualname(value.func) == "logging.getLogger"
    }
