"""MS107: ``Parameter.set_data``/``init_data`` in graph code."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint.model import TENSOR, GraphFunction, ModuleFacts
from ms_lint.model.syntax import self_attribute
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.edits import Edit, FixContext
from ms_lint.rules.base import Rule

_METHODS = ("set_data", "init_data")


@dataclass(frozen=True, kw_only=True)
class SetData(FindingData):
    """``Parameter.set_data``/``init_data`` called in graph code: the method, the graph function."""

    template = ("Parameter.{method}() in graph code ({function}) fails to compile at every syntax level; use "
                "ops.assign(param, value)")
    method: str = fact(subject=True)
    function: str


def _may_be_parameter(function: GraphFunction, receiver: ast.AST) -> bool:
    """Tensor data, or an attribute of the Cell (Parameters are often inherited or set up by a base class)."""
    if function.kind(receiver) == TENSOR:
        return True
    return self_attribute(receiver, function.self_name) is not None


class SetDataInGraph(Rule):
    code = "MS107"
    compiled_only = True
    name = "set-data-in-graph"
    summary = "`Parameter.set_data(...)`/`init_data()` in graph code"
    fix_summary = "`ops.assign(param, value)`"
    replaces = ("MS111",)
    autofix = """
        `ms-lint check --fix` rewrites `param.set_data(value)` to `ops.assign(param, value)` and imports `ops` with
        the module's existing alias. Safe: `ops.assign` is the graph-mode form of the same update.
    """
    what = """
        Reports `set_data(...)` and `init_data()` called on a Parameter (or any tensor attribute of the Cell) in
        graph code.
    """
    why = """
        Replacing a Parameter's data is a host-side operation: in graph code it fails at every syntax level
        (STRICT: AttributeError "the 'Parameter' object's method 'set_data' is not supported"; LAX: RuntimeError).
        `ops.assign` updates the Parameter inside the graph.
    """
    example = """
        class Ema(nn.Cell):
            def __init__(self):
                super().__init__()
                self.average = Parameter(Tensor(0.0), requires_grad=False)

            def construct(self, x):
                self.average.set_data(self.average * 0.9 + x * 0.1)
                return x
    """
    use_instead = """
        class Ema(nn.Cell):
            def __init__(self):
                super().__init__()
                self.average = Parameter(Tensor(0.0), requires_grad=False)

            def construct(self, x):
                ops.assign(self.average, self.average * 0.9 + x * 0.1)
                return x
    """

    @classmethod
    def cause_facts(cls, module: ModuleFacts, finding: Finding):
        """Whether the call has the form ``ops.assign`` replaces (``p.set_data(v)``) or not (``p.set_data(v,
        slice_shape=True)``, left to the author): two misuses, each edited its own way."""
        return _assignable(finding.node)

    def fix(self, context: FixContext, finding: Finding) -> list[Edit]:
        call = finding.node
        if not _assignable(call):
            return []  # init_data() and set_data(..., slice_shape=...) have no ops.assign form
        assign = context.reference("mindspore.ops") + ".assign"
        return [context.replace(call, f"{assign}({context.text(call.func.value)}, {context.text(call.args[0])})")]

    records = (SetData,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        for function in module.graph_functions:
            for node in function.nodes_of(ast.Call):
                if (isinstance(node.func, ast.Attribute)
                        and node.func.attr in _METHODS and _may_be_parameter(function, node.func.value)):
                    yield self.report(module, node, SetData(method=node.func.attr, function=function.label))


def _assignable(call) -> bool:
    """``p.set_data(v)``: the form ``ops.assign(p, v)`` replaces."""
    return (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "set_data"
            and len(call.args) == 1 and not call.keywords)
