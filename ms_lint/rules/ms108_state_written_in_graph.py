"""MS108: attributes and globals written from graph code."""
from __future__ import annotations

import ast
from typing import Iterator

from ms_lint.model import TENSOR, GraphFunction, ModuleFacts
from ms_lint.findings import Finding
from ms_lint.rules.base import Rule


class StateWrittenInGraph(Rule):
    code = "MS108"
    name = "state-written-in-graph"
    summary = "a non-Parameter attribute of the Cell, or a `global`, written in graph code"
    fix_summary = "keep the state in a `Parameter` updated with `ops.assign`, or return it"
    what = """
        Reports `self.attr = ...` (and `self.attr += ...`) in graph code when `attr` is not a Parameter of the Cell,
        and assignments to names declared `global` in graph code. Writing a Parameter attribute is supported. Under
        `--ms-syntax-level=lax` only writes of tensor data are reported.
    """
    why = """
        The Cell's Python attributes are constants of the compiled graph (measured on MindSpore 2.10 CPU). Under
        STRICT, writing one fails (TypeError: "the member attribute must be of the Parameter type"; AttributeError:
        "object has no attribute" when nothing set the attribute before the graph was built). Under LAX a
        scalar attribute (`self.steps += 1`, `self.a = self.a + 1`) is updated correctly on every call, but an
        attribute given tensor data (`self.cache = x * 2`) keeps the first call's value: later calls silently see
        stale data, so with `--ms-syntax-level=lax` only tensor-valued writes are reported. A `global` written in
        graph code is updated once, at compile time, and the graph keeps the stale value, at every level.
    """
    example = """
        class Net(nn.Cell):
            def construct(self, x):
                self.last_input = x
                return x * 2
    """
    use_instead = """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.last_input = Parameter(ops.zeros((2, 3)), requires_grad=False)

            def construct(self, x):
                ops.assign(self.last_input, x)
                return x * 2
    """

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        for function in module.graph_functions:
            declared_global = {name for node in function.nodes_of(ast.Global) for name in node.names}
            for node in function.nodes_of(ast.Assign, ast.AugAssign, ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if target.__class__ is ast.Name and target.id not in declared_global:
                        continue  # a local name: most targets, and nothing to report
                    yield from self._written(module, function, node, target, declared_global)

    def _written(self, module: ModuleFacts, function: GraphFunction, statement: ast.AST, target: ast.AST,
                 declared_global: set[str]) -> Iterator[Finding]:
        if isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                yield from self._written(module, function, statement, element, declared_global)
            return
        if isinstance(target, ast.Name) and target.id in declared_global:
            yield self.finding(
                module, statement,
                f"global {target.id} written in graph code ({function.label}) is updated once, at compile time; the "
                "graph keeps the stale value (all syntax levels); keep it in a Parameter updated with ops.assign",
                data={"global": target.id, "function": function.label},
            )
        elif (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
              and target.value.id == function.self_name and function.owner is not None
              and function.owner.is_cell
              and not function.owner.has_attribute("parameter_attributes", target.attr)):
            value = getattr(statement, "value", None)
            tensor = function.kind(value) == TENSOR or (
                isinstance(statement, ast.AugAssign) and function.kind(target) == TENSOR)
            if tensor:
                consequence = "and under LAX later calls silently see the first call's value"
            elif function.strict:
                consequence = "LAX updates it on every call"
            else:
                return  # a scalar written under LAX: updated correctly
            yield self.finding(
                module, statement,
                f"self.{target.attr} written in graph code ({function.label}) is not a Parameter: fails to compile "
                f"under STRICT (TypeError; AttributeError if nothing set it before), {consequence}; keep it in a "
                "Parameter updated with ops.assign, or return it",
                data={"attribute": target.attr, "tensor": tensor, "function": function.label},
            )
