"""MS119: a Cell method compiled in graph mode whose first parameter is not named ``self``."""
from __future__ import annotations

import ast
from typing import Iterator

from ms_lint.findings import Finding
from ms_lint.edits import Edit, FixContext
from ms_lint.model import ModuleFacts
from ms_lint.model.syntax import is_classmethod, is_static
from ms_lint.rules.base import Rule


class InstanceParameterNotSelf(Rule):
    code = "MS119"
    name = "instance-parameter-not-self"
    summary = "a Cell's `construct` (or a method graph code calls) whose first parameter is not named `self`"
    fix_summary = "name the first parameter `self` (`def construct(self, x)`, not `def construct(ctx, x)`)"
    what = """
        Reports `construct`, `bprop` and the other methods of a Cell that graph code calls when their first
        parameter is named anything but `self`: `def construct(ctx, x, k)` in a Cell ported from a PyTorch
        `autograd.Function` (`forward(ctx, ...)`), `def scale(this, x)`. Static and class methods are left alone.
    """
    why = """
        MindSpore's graph parser recognizes the instance by the name `self` only: any other name is counted as one
        more argument, and the call fails to compile (TypeError: "The parameters number of the function is 3, but
        the number of provided arguments is 2", pointing at the `def` line), for the Cell compiled on its own and
        as a sub-cell alike; a `bprop(ctx, x, out, dout)` fails when the gradient is taken ("the number of parameters
        of bprop is 4"). Measured on 2.10 CPU, the same under STRICT and LAX; PyNative runs it as Python does.
    """
    example = """
        class RoundSTE(nn.Cell):
            def construct(ctx, x):
                return ops.round(x)
    """
    use_instead = """
        class RoundSTE(nn.Cell):
            def construct(self, x):
                return ops.round(x)
    """
    autofix = """
        Renames the parameter to `self` and every use of it in the method's body (nested functions and lambdas that
        do not rebind it included); not applied when the method already uses the name `self` for something else.
    """

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        for function in module.graph_functions:
            first = _misnamed_instance(function)
            if first is not None:
                error = ("The number of parameter of this primal function is ..., but the number of parameters of "
                         "bprop is ..." if function.node.name == "bprop" else
                         "The parameters number of the function is ..., but the number of provided arguments is ...")
                yield self.finding(
                    module, function.node,
                    f"the first parameter of {function.label} is `{first.arg}`, not `self`: MindSpore's graph parser "
                    f"recognizes the instance by the name `self` only and counts `{first.arg}` as one more argument "
                    f"(TypeError: \"{error}\") under STRICT and LAX; PyNative runs it. Name it `self`",
                    data={"parameter": first.arg, "function": function.label},
                )

    def fix(self, context: FixContext, finding: Finding) -> list[Edit]:
        function = next((f for f in context.module.graph_functions if f.node is finding.node), None)
        first = _misnamed_instance(function) if function is not None else None
        if first is None:
            return []
        node = function.node
        uses = [n for n in ast.walk(node) if isinstance(n, ast.Name) and n.id == first.arg]
        if any(isinstance(n, ast.Name) and n.id == "self" for n in ast.walk(node)) \
                or any(a.arg in (first.arg, "self") for inner in ast.walk(node) if inner is not node
                       and isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                       for a in (*inner.args.posonlyargs, *inner.args.args, *inner.args.kwonlyargs)):
            return []  # ``self`` is taken, or an inner function rebinds the name: renaming could change meaning
        start = context.offset(first.lineno, first.col_offset)
        edits = [Edit(start, start + len(first.arg), "self")]
        edits += [context.replace(use, "self") for use in uses]
        return edits


def _misnamed_instance(function) -> ast.arg | None:
    """The first parameter of a Cell's graph-code method when it is not named ``self``."""
    owner = function.owner
    node = function.node
    if owner is None or not owner.is_cell or node not in owner.node.body:
        return None
    if is_static(node) or is_classmethod(node):
        return None
    positional = [*node.args.posonlyargs, *node.args.args]
    if not positional or positional[0].arg == "self":
        return None
    return positional[0]
