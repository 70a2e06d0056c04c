"""MS110: operations whose output shape depends on the data, in graph code (off by default)."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.model import TENSOR, GraphFunction, ModuleFacts
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.rules.base import Rule
from ms_lint.target import device_claim

_DYNAMIC_OPERATIONS = frozenset({
    "masked_select", "nonzero", "unique", "unique_consecutive", "unique_with_pad", "argwhere", "MaskedSelect",
    "NonZero", "Unique", "UniqueConsecutive",
})
_BOOLEAN_OPERATIONS = frozenset({
    "logical_and", "logical_or", "logical_not", "logical_xor", "isnan", "isinf", "isfinite", "gt", "ge", "lt",
    "le", "eq", "ne", "equal", "not_equal", "greater", "greater_equal", "less", "less_equal", "bool",
})


_MASK_ASSIGNMENT = "boolean-mask assignment"


@dataclass(frozen=True, kw_only=True)
class DataDependentShape(FindingData):
    """An operation whose output shape depends on the data, in graph code: the devices the claim concerns, the
    setting that would show it where the target's devices are not among them (``silenced_by``), the operation
    (``boolean-mask assignment``, ``nonzero()``, ``topk() with a tensor k``), the graph function."""

    devices: list[str] = fact(for_users=True)
    silenced_by: str | None = fact(optional=True, for_users=True)
    operation: str
    function: str

    def message(self) -> str:
        if self.operation == _MASK_ASSIGNMENT:
            return (f"boolean-mask assignment of tensor values in graph code ({self.function}): graph mode "
                    "broadcasts the values to the whole tensor and keeps them where the mask is set, instead "
                    "of filling the selected elements in order; unless the values broadcast to the tensor's "
                    "shape (one value, or one per element of the tensor) it raises ValueError (BroadcastTo), "
                    "at compile time or, when the mask decides how many values there are, at run time, at "
                    "every syntax level; use ops.select or ops.masked_fill with values shaped like the tensor")
        return (f"{self.operation} in graph code ({self.function}) gives a data-dependent shape: it compiles on "
                "CPU/GPU and runs on Ascend as dynamic shape, which is slower there and keeps the graph from "
                "sinking; use the mask-multiply pattern (x * mask, ops.select) or a fixed-size operation")


class DynamicShape(Rule):
    code = "MS110"
    compiled_only = True
    name = "dynamic-shape"
    summary = ("data-dependent output shape in graph code: boolean masks, `masked_select`, `nonzero`, `unique`, "
               "`topk(k=tensor)`")
    fix_summary = "the mask-multiply pattern (`x * mask`, `ops.select`) or fixed-size operations"
    enabled_by_default = False
    what = """
        Reports, in graph code, boolean-mask indexing (`x[x > 0]`, `x[mask]`, and `x[mask] = values` with tensor
        values; not `x[mask] = 0.0` with a scalar, nor with one number computed in graph code: a full reduction
        such as `x.sum()` or `ops.ReduceSum()(x)`, a 0-d tensor, and arithmetic of such numbers, which fills every
        selected element as PyNative does (measured on 2.10 and 2.7.1)), `masked_select`, `nonzero`,
        `unique`, `argwhere`, and `topk` with a tensor `k`. Off by default: enable it when the code must run on
        Ascend. The data-dependent shapes are reported where the target may run on Ascend (`--ms-device`: `ascend`
        or `any`); boolean-mask assignment of tensor values on every device.
    """
    why = """
        These operations produce a tensor whose shape depends on the data. They compile on CPU and GPU as dynamic
        shape; on Ascend dynamic shape is slower and it prevents graph sinking. MindSpore's API documentation lists
        Ascend among the supported platforms of each operation reported (`masked_select`, `nonzero`, `unique`,
        `unique_consecutive`, `argwhere`, `topk`), so the message does not say they fail there.
        Boolean-mask assignment of tensor values is worse (measured on MindSpore 2.10 and 2.7.1 CPU, STRICT and LAX):
        graph mode broadcasts the values to the whole tensor and keeps them where the mask is set, instead of filling
        the selected elements in order. Values with one entry per selected element (PyTorch's meaning, as in
        `y[m] = x[m]`) raise ValueError (BroadcastTo) unless the mask selects one element or all of them: at compile
        time when their shape is static, at run time when the mask decides it, so the outcome depends on the data.
        Values shaped like `x` run, but fill the selected elements from the same positions of the values. A statement
        is reported once: reads through the same mask inside its values (`y[m] = x[m]`,
        `size=x[m].shape`) only size them.
    """
    example = """
        class Net(nn.Cell):
            def construct(self, x):
                return x[x > 0].sum()
    """
    use_instead = """
        class Net(nn.Cell):
            def construct(self, x):
                return (x * (x > 0)).sum()
    """

    records = (DataDependentShape,)

    @classmethod
    def cause_facts(cls, module: ModuleFacts, finding: Finding):
        """The selection a finding makes: the mask of ``x[mask]``, the arguments of a call but the tensor it reads
        (``x.masked_select(mask)``, ``ops.masked_select(x, mask)``): one mask in one function is one cause."""
        node = finding.node
        if isinstance(node, ast.Subscript):
            return ast.dump(node.slice)
        if isinstance(node, ast.Call):
            method = isinstance(node.func, ast.Attribute) and module.qualname(node.func) is None
            arguments = node.args if method else node.args[1:]
            return tuple(ast.dump(part) for part in (*arguments, *node.keywords))
        return None

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        if not module.graph_functions:
            return
        _, on_ascend = device_claim(module.target, ("ascend",))
        everywhere = {"devices": list(module.target.devices)}
        for function in module.graph_functions:
            masks = _boolean_names(module, function)
            # `x[mask] = 0.0` selects with a static shape; `x[mask] = values` needs as many values as the mask
            # holds, a data-dependent count, and stays reported, once per statement: a read through the same mask
            # in the values (`x[m] = y[m]`, `size=x[m].shape`) only sizes them.
            stores = {}
            for assign in function.nodes_of(ast.Assign, ast.AugAssign):
                scalar = _scalar_value(module, function, assign.value) or function.zero_dimensional(assign.value)
                for target in (assign.targets if isinstance(assign, ast.Assign) else [assign.target]):
                    for element in (target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]):
                        if isinstance(element, ast.Subscript):
                            stores[id(element)] = (assign, scalar)
            reported: dict[int, tuple[ast.AST, set[str]]] = {}  # a reported assignment's value, and its masks
            for node in function.nodes_of(ast.Subscript, ast.Call):
                description = None
                if isinstance(node, ast.Subscript) and not stores.get(id(node), (None, False))[1] and function.kind(
                        node.value) == TENSOR and _is_boolean_mask(
                        module, function, node.slice, masks):
                    if id(node) in stores:  # x[mask] = values
                        assign = stores[id(node)][0]
                        if id(assign.value) in reported:
                            reported[id(assign.value)][1].add(ast.dump(node.slice))
                            continue  # `a[m], b[m] = f(...)`: one statement, one finding
                        reported[id(assign.value)] = (assign.value, {ast.dump(node.slice)})
                        yield self.report(module, node, DataDependentShape(
                            **everywhere, operation=_MASK_ASSIGNMENT, function=function.label))
                        continue
                    if _sizes_reported_store(node, reported.values()):
                        continue
                    description = "boolean-mask indexing"
                elif isinstance(node, ast.Call):
                    description = _dynamic_call(module, function, node)
                if description:
                    yield self.report(module, node, DataDependentShape(
                        **on_ascend, operation=description, function=function.label))


def _sizes_reported_store(node: ast.Subscript, reported) -> bool:
    """Whether ``node`` reads through the mask of a reported ``x[mask] = values`` inside those values."""
    mask = ast.dump(node.slice)
    return any(mask in masks and any(inner is node for inner in ast.walk(value)) for value, masks in reported)


def _scalar_value(module: ModuleFacts, function: GraphFunction, value: ast.AST) -> bool:
    """Not tensor data: a constant, a host number, or a builtin's result (a call of anything else, such as a
    sub-cell held in a loop variable, may return a tensor the model cannot see)."""
    if function.kind(value) == TENSOR:
        return False
    if isinstance(value, ast.Call):
        return (module.qualname(value.func) or "").startswith("builtins.")
    return True


def _operation_name(module: ModuleFacts, function: GraphFunction, call: ast.Call) -> str | None:
    qualname = module.qualname(call.func)
    if api.is_mindspore(qualname):
        return api.last_name(qualname)
    if isinstance(call.func, ast.Attribute) and function.kind(call.func.value) == TENSOR:
        return call.func.attr
    if isinstance(call.func, ast.Call) and api.is_mindspore(module.qualname(call.func.func)):
        return api.last_name(module.qualname(call.func.func))  # ops.Unique()(x)
    return None


# the names _operation_name may give that _dynamic_call reports
_DYNAMIC_NAMES = _DYNAMIC_OPERATIONS | {"topk"}


def _dynamic_call(module: ModuleFacts, function: GraphFunction, call: ast.Call) -> str | None:
    func = call.func
    if func.__class__ is ast.Attribute and func.attr not in _DYNAMIC_NAMES:
        return None  # ``x.f(...)`` and ``ops.f(...)`` are operation ``f`` (the commonest calls: asked first)
    name = _operation_name(module, function, call)
    if name in _DYNAMIC_OPERATIONS:
        return f"{name}()"
    if name == "topk":
        receiver_is_tensor = isinstance(call.func, ast.Attribute) and function.kind(call.func.value) == TENSOR
        k = call.args[0 if receiver_is_tensor else 1] if len(call.args) > (0 if receiver_is_tensor else 1) else None
        k = next((kw.value for kw in call.keywords if kw.arg == "k"), k)
        if k is not None and function.kind(k) == TENSOR:
            return "topk() with a tensor k"
    return None


def _boolean_names(module: ModuleFacts, function: GraphFunction) -> set[str]:
    names = set()
    for node in function.nodes_of(ast.Assign):
        if _is_boolean_expression(module, function, node.value, names):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def _is_boolean_expression(module, function, expr, names) -> bool:
    if isinstance(expr, ast.Compare):
        return function.kind(expr) == TENSOR
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.Invert, ast.Not)):
        return _is_boolean_expression(module, function, expr.operand, names)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
        return _is_boolean_mask(module, function, expr.left, names) or _is_boolean_mask(
            module, function, expr.right, names)
    if isinstance(expr, ast.Call):
        if expr.func.__class__ is ast.Attribute and expr.func.attr not in _BOOLEAN_OPERATIONS:
            return False  # ``x.f(...)`` and ``ops.f(...)`` are operation ``f``
        return _operation_name(module, function, expr) in _BOOLEAN_OPERATIONS
    return False


def _is_boolean_mask(module, function, expr, names) -> bool:
    if isinstance(expr, ast.Name):
        return expr.id in names
    return _is_boolean_expression(module, function, expr, names)
