"""MS131: a slice whose bound is a tensor value, in graph code (off by default)."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.model import TENSOR, GraphFunction, ModuleFacts
from ms_lint.rules.base import Rule

_BOUNDS = ("lower", "upper", "step")
_BOUND_NAMES = {"lower": "start", "upper": "stop", "step": "step"}


@dataclass(frozen=True, kw_only=True)
class TensorBoundedSlice(FindingData):
    """A slice bounded by tensor data in graph code: its bounds by kind (``start``, ``stop``, ``step``; the last
    of a kind where the index holds several slices), whether it is assigned to, the graph function, the lines of
    other slices by the same data; each bound in order (kind, text; once each), and whether the function is
    judged at STRICT."""

    bounds: dict[str, str] = fact(for_users=True)
    assignment: bool
    function: str
    also_at: list[int]
    each_bound: list[list[str]]
    strict: bool

    def message(self) -> str:
        names = ", ".join(f"{kind} `{text}`" for kind, text in self.each_bound)
        more = (f" (and the same data at line{'s' if len(self.also_at) > 1 else ''} "
                f"{', '.join(map(str, self.also_at))})") if self.also_at else ""
        int64_failure = ("ValueError from TensorScatterUpdate" if self.strict else
                         "RuntimeError \"The pointer[seq_abs] is null\"")
        effect = (
            "on CPU (MindSpore 2.10 and 2.7.1) slice assignment with tensor bounds fails with an int32 bound "
            "(TypeError: SliceToIndices takes int64), and with int64 bounds it works in some shapes "
            f"(`x[:n] = 0`) and fails in others ({int64_failure} for `m[..., a:b, a:b] = 0` on a tensor "
            "built by mint.full from an .item() value)" if self.assignment else
            "it compiles on CPU (MindSpore 2.10) but is slow or unsupported on Ascend")
        return (f"slice bounded by tensor data in graph code ({self.function}), {names}{more}: the result's shape "
                f"depends on the data (dynamic shape); {effect}; use a fixed-size slice and a mask, or bounds known "
                "at compile time")


class VariableSliceBound(Rule):
    code = "MS131"
    compiled_only = True
    name = "variable-slice-bound"
    summary = "a slice bounded by a tensor value in graph code (`x[:n]` with `n` computed from data): dynamic shape"
    fix_summary = "a fixed-size slice with a mask (`x * (ops.arange(len) < n)`), or bounds known at compile time"
    enabled_by_default = False
    level = "warning"
    what = """
        Reports, in graph code, a subscript holding a slice whose start, stop or step is tensor data: `x[:n]` where
        `n = (x > 0).sum()`, `x[start:end]` with tensor arguments, `x[:, :n]`, and slice assignment `x[:n] = 0`.
        Bounds the compiler folds are not reported: literals, `x.shape[0] // 2`, `len(...)`, Python numbers passed
        by the caller, parameters annotated `int` (or `Optional[int]`), `self.<constant attribute>`, and values
        evidently of the host (a string-keyed lookup such as `cache["slen"]`, `entry.get("index")`, a method tensors
        do not have such as `cache.get_seq_length()`, and names bound to them). A plain tensor
        index (`x[i]`, one element) keeps the shape and is not reported. Off by default, like MS110: enable it when
        the code must run on Ascend or be exported.
    """
    why = """
        The result's length is known only at run time: a dynamic shape. MindSpore's migration guide warns about
        it ("When it comes to slicing a Tensor, note that whether subscript of the slice is a variable. When it is a
        variable, there will be restrictions", Constructing MindSpore Network, "Considerations for MindSpore
        Network Authoring",
        https://www.mindspore.cn/docs/en/master/migration_guide/model_development/model_development.html), and
        dynamic shape is slow or unsupported for many operators on Ascend and prevents
        graph sinking. Measured on MindSpore 2.10 CPU (tests/test_ground_truth_slices.py), STRICT and LAX alike:
        reading `x[:n]`, `x[start:end]`, `x[:, :n]` and `x[::s]` with tensor bounds compiles and gives PyNative's
        result, and later calls with other bounds reuse the graph; slice assignment with an int32 tensor bound
        (`x[:n] = 0`, `x[n:] = 1`) fails to compile at both levels (TypeError: the CPU kernel `SliceToIndices`
        takes int64 bounds only). An int64 bound works in `x[:n] = 0`, but not in every shape: `m[..., a:b, a:b] = 0`
        on a tensor `mint.full` built from an `.item()` value fails with int64 bounds too (STRICT: ValueError from
        TensorScatterUpdate; LAX: RuntimeError "The pointer[seq_abs] is null"; 2.10 and 2.7.1,
        tests/test_ground_truth_messages.py).
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

    records = (TensorBoundedSlice,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        for function in module.graph_functions:
            stores = {id(target) for assign in function.nodes_of(ast.Assign, ast.AugAssign)
                      for target in (assign.targets if isinstance(assign, ast.Assign) else [assign.target])
                      if isinstance(target, ast.Subscript)}
            # One finding per data a function slices by (``padding`` on both branches of an ``if``, the same
            # ``a + 1 : b + 1`` on two lines): the first slice's, naming the lines of the others.
            first_of: dict[tuple, list] = {}
            for node in function.nodes_of(ast.Subscript):
                bounds = _tensor_bounds(function, node.slice)
                if not bounds or function.kind(node.value) != TENSOR:
                    continue
                store = id(node) in stores
                cause = (store, _data_read(function, bounds))
                if cause in first_of:
                    if node.lineno not in first_of[cause][1]:
                        first_of[cause][1].append(node.lineno)
                    continue
                first_of[cause] = [node, [], bounds, store]
            for node, also, bounds, store in first_of.values():
                each = dict.fromkeys((_BOUND_NAMES[kind], ast.unparse(expr)) for kind, expr in bounds)
                yield self.report(module, node, TensorBoundedSlice(
                    bounds={_BOUND_NAMES[kind]: ast.unparse(expr) for kind, expr in bounds}, assignment=store,
                    function=function.label, also_at=also, each_bound=[list(pair) for pair in each],
                    strict=function.strict))


def _data_read(function: GraphFunction, bounds: list[tuple[str, ast.AST]]) -> frozenset[str]:
    """The names of tensor data the bounds read (``padding`` in ``padding : h - padding``), or, when they read none
    by name, the bounds as written."""
    names = frozenset(node.id for _, expr in bounds for node in ast.walk(expr)
                      if isinstance(node, ast.Name) and function.kind(node) == TENSOR)
    return names or frozenset(ast.unparse(expr) for _, expr in bounds)


def _tensor_bounds(function: GraphFunction, index: ast.AST) -> list[tuple[str, ast.AST]]:
    """The (kind, expression) of each slice bound of ``index`` that is tensor data; ``x[a:b, :n]`` holds two
    slices."""
    slices = index.elts if isinstance(index, ast.Tuple) else [index]
    found = []
    for part in slices:
        if isinstance(part, ast.Slice):
            for kind in _BOUNDS:
                expr = getattr(part, kind)
                if expr is not None and function.kind(expr) == TENSOR and not _declared_int(function, expr) and (
                        not _host_value(function, expr, 0)):
                    found.append((kind, expr))
    return found


def _host_value(function: GraphFunction, expr: ast.AST, depth: int) -> bool:
    """The bound evidently holds a host value the model took for data: a string-keyed lookup (``cache["slen"]``,
    ``entry.get("index")``) or the result of a method tensors do not have (``past_key_values.get_seq_length()``),
    directly or through the local names it is built from; an ``a if c else b`` is host when both sides are."""
    if depth > 3:
        return False
    if isinstance(expr, ast.Subscript):
        return isinstance(expr.slice, ast.Constant) and isinstance(expr.slice.value, str)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute):
        return not api.is_mindspore(function.module.qualname(expr.func)) and expr.func.attr not in (
            api.tensor_methods())
    if isinstance(expr, ast.UnaryOp):
        return _host_value(function, expr.operand, depth + 1)
    if isinstance(expr, ast.IfExp):
        return all(isinstance(side, ast.Constant) or _host_value(function, side, depth + 1)
                   for side in (expr.body, expr.orelse))
    if isinstance(expr, ast.BinOp):
        return any(_host_value(function, side, depth + 1) for side in (expr.left, expr.right)) and all(
            function.kind(side) != TENSOR or _host_value(function, side, depth + 1)
            for side in (expr.left, expr.right))
    if isinstance(expr, ast.Name):
        value = function.module.value_bound_to(expr, function.node, function.owner)
        return value is not None and _host_value(function, value, depth + 1)
    return False


def _declared_int(function: GraphFunction, expr: ast.AST) -> bool:
    """``expr`` is built only from constants and parameters annotated ``int`` (``target_length: int``,
    ``Optional[int]``, ``int | None``): callers pass Python numbers, which the compiler folds."""
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, int)
    if isinstance(expr, ast.BinOp):
        return _declared_int(function, expr.left) and _declared_int(function, expr.right)
    if not isinstance(expr, ast.Name):
        return False
    arguments = function.node.args
    annotation = next((a.annotation for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)
                       if a.arg == expr.id), None)
    return annotation is not None and _is_int_annotation(annotation)


def _is_int_annotation(annotation: ast.AST) -> bool:
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return annotation.value.replace(" ", "") in ("int", "Optional[int]", "int|None", "None|int")
    if isinstance(annotation, ast.Name):
        return annotation.id == "int"
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        parts = (annotation.left, annotation.right)
        return any(_is_int_annotation(p) for p in parts) and all(
            _is_int_annotation(p) or (isinstance(p, ast.Constant) and p.value is None) for p in parts)
    if isinstance(annotation, ast.Subscript) and isinstance(annotation.value, (ast.Name, ast.Attribute)):
        name = annotation.value.id if isinstance(annotation.value, ast.Name) else annotation.value.attr
        return name == "Optional" and _is_int_annotation(annotation.slice)
    return False
