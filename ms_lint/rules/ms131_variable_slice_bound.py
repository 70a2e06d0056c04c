"""MS131: a slice whose bound is a tensor value, in graph code (off by default)."""
from __future__ import annotations

import ast
from typing import Iterator

from ms_lint.findings import Finding
from ms_lint.model import TENSOR, GraphFunction, ModuleFacts
from ms_lint.rules.base import Rule

_BOUNDS = ("lower", "upper", "step")
_BOUND_NAMES = {"lower": "start", "upper": "stop", "step": "step"}


class VariableSliceBound(Rule):
    code = "MS131"
    name = "variable-slice-bound"
    summary = "a slice bounded by a tensor value in graph code (`x[:n]` with `n` computed from data): dynamic shape"
    fix_summary = "a fixed-size slice with a mask (`x * (ops.arange(len) < n)`), or bounds known at compile time"
    enabled_by_default = False
    level = "warning"
    what = """
        Reports, in graph code, a subscript holding a slice whose start, stop or step is tensor data: `x[:n]` where
        `n = (x > 0).sum()`, `x[start:end]` with tensor arguments, `x[:, :n]`, and slice assignment `x[:n] = 0`.
        Bounds the compiler folds are not reported: literals, `x.shape[0] // 2`, `len(...)`, Python numbers passed
        by the caller, `self.<constant attribute>`. A plain tensor index (`x[i]`, one element) keeps the shape and is
        not reported. Off by default, like MS110: enable it when the code must run on Ascend or be exported.
    """
    why = """
        The result's length is known only at run time: a dynamic shape. MindSpore's migration guide warns about
        it ("When it comes to slicing a Tensor, note that whether subscript of the slice is a variable. When it is a
        variable, there will be restrictions", Constructing MindSpore Network, "Considerations for MindSpore
        Network Authoring"), and dynamic shape is slow or unsupported for many operators on Ascend and prevents
        graph sinking. Measured on MindSpore 2.10 CPU (tests/test_ground_truth_slices.py), STRICT and LAX alike:
        reading `x[:n]`, `x[start:end]`, `x[:, :n]` and `x[::s]` with tensor bounds compiles and gives PyNative's
        result, and later calls with other bounds reuse the graph; slice assignment with an int32 tensor bound
        (`x[:n] = 0`, `x[n:] = 1`) fails to compile at both levels (TypeError: the CPU kernel `SliceToIndices`
        takes int64 bounds only), while an int64 bound works.
    """
    example = """
        class Head(nn.Cell):
            def construct(self, x):
                n = (x > 0).sum()
                return x[:n].sum()
    """
    use_instead = """
        class Head(nn.Cell):
            def construct(self, x):
                n = (x > 0).sum()
                keep = ops.arange(x.shape[0]) < n
                return (x * keep).sum()
    """

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        for function in module.graph_functions:
            stores = {id(target) for assign in function.nodes_of(ast.Assign, ast.AugAssign)
                      for target in (assign.targets if isinstance(assign, ast.Assign) else [assign.target])
                      if isinstance(target, ast.Subscript)}
            for node in function.nodes_of(ast.Subscript):
                bounds = _tensor_bounds(function, node.slice)
                if not bounds or function.kind(node.value) != TENSOR:
                    continue
                store = id(node) in stores
                names = ", ".join(f"{_BOUND_NAMES[kind]} `{ast.unparse(expr)}`" for kind, expr in bounds)
                effect = (
                    "slice assignment with an int32 tensor bound fails to compile on CPU (MindSpore 2.10, STRICT "
                    "and LAX: SliceToIndices takes int64)" if store else
                    "it compiles on CPU (MindSpore 2.10) but is slow or unsupported on Ascend")
                yield self.finding(
                    module, node,
                    f"slice bounded by tensor data in graph code ({function.label}), {names}: the result's shape "
                    f"depends on the data (dynamic shape); {effect}; use a fixed-size slice and a mask, or bounds "
                    "known at compile time",
                    data={"bounds": {_BOUND_NAMES[kind]: ast.unparse(expr) for kind, expr in bounds},
                          "assignment": store, "function": function.label},
                )


def _tensor_bounds(function: GraphFunction, index: ast.AST) -> list[tuple[str, ast.AST]]:
    """The (kind, expression) of each slice bound of ``index`` that is tensor data; ``x[a:b, :n]`` holds two
    slices."""
    slices = index.elts if isinstance(index, ast.Tuple) else [index]
    found = []
    for part in slices:
        if isinstance(part, ast.Slice):
            for kind in _BOUNDS:
                expr = getattr(part, kind)
                if expr is not None and function.kind(expr) == TENSOR:
                    found.append((kind, expr))
    return found
