"""MS603: PyTorch's ``Tensor.expand(sizes)`` in graph code."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.edits import Edit, FixContext
from ms_lint.model import TENSOR, ModuleFacts
from ms_lint.rules.base import Rule

# The releases whose graph mode was measured refusing sizes that are not one Tensor (tests/test_ground_truth.py,
# under each of them by nox): the same error on every one.
_MEASURED = ("2.7.0", "2.10.0")


@dataclass(frozen=True, kw_only=True)
class ExpandInGraph(FindingData):
    """PyTorch's ``t.expand(*sizes)`` in graph code: the target's devices, those the claim was measured on, the
    versions judged, the sizes as written (``*shape`` for an unpacked one), the graph function."""

    devices: list[str]
    measured_on: list[str] = fact(for_users=True)
    versions: list[str]
    sizes: list[str]
    function: str

    def message(self) -> str:
        where = ("" if "cpu" in self.devices else
                 " on CPU (measured there only; MindSpore documents expand(*size) as broadcast_to for every device)")
        sizes = ", ".join(self.sizes)
        separate = not (len(self.sizes) == 1 and not self.sizes[0].startswith("*"))
        shape = f"({sizes})" if separate else sizes
        refused = _refuse_separate_sizes(tuple(self.versions)) if separate else ()
        pynative = (f"PyNative refuses separate sizes too in MindSpore {', '.join(refused)}, whose Tensor.expand "
                    "takes one" if refused else "PyNative runs it")
        return (f".expand({sizes}) in graph code ({self.function}) fails to compile in graph mode{where} at every "
                f"syntax level ({_named_versions(tuple(self.versions))} takes only a Tensor of sizes there: "
                f"RuntimeError for a shape, TypeError for separate sizes; {pynative}); use .broadcast_to({shape}), "
                "where -1 keeps a dimension")


class TensorExpand(Rule):
    code = "MS603"
    compiled_only = True
    name = "tensor-expand"
    summary = "PyTorch's `t.expand(sizes)` in graph code, which MindSpore compiles only with a Tensor of sizes"
    fix_summary = "broadcast with `t.broadcast_to(shape)` (or `ops.broadcast_to`); `-1` keeps a dimension"
    what = """
        Reports `t.expand(...)` on a tensor value in graph code when the sizes are given as a tuple, a list or
        separate integers (`t.expand((b, 1, -1))`, `t.expand(b, -1, -1)`, `t.expand(*shape)`). A sub-cell's output
        is a tensor value, whatever the sub-cell is given, and so is what tensor methods make of it
        (`self.emb(x).unsqueeze(1).expand(-1, n, -1)`, `query().unsqueeze(1)` over a CellList of learned
        queries). A Tensor of sizes (`t.expand(ms.Tensor([2, 3]))`) compiles and is not reported, nor is
        `expand_as`.
    """
    why = """
        In PyNative, `Tensor.expand` takes PyTorch's sizes and broadcasts (separate sizes only from 2.7.1: 2.7.0's
        `expand(size)` takes one, and refuses more with TypeError in PyNative too). In graph mode MindSpore 2.7.0
        to 2.10.0 compile it only with a Tensor of sizes (measured on CPU, STRICT and LAX alike): sizes as a tuple
        or list fail with RuntimeError "The method 'GetShapeVector()' doesn't implement", separate integers with
        TypeError "The parameters number of the function is 2". The message names the target's version (each
        version a requirement allows). `broadcast_to` takes the same shape, `-1` keeping a dimension as
        `expand` does, and compiles at every level. The failure is measured on CPU; MindSpore's documentation
        (https://www.mindspore.cn/docs/en/r2.7.1/api_python/mindspore/Tensor/mindspore.Tensor.expand.html) describes
        `expand(*size)` as `broadcast_to` and names no device, so for a target without CPU (`--ms-device=ascend` or
        `gpu`) the message says the failure was measured on CPU only.
    """
    example = """
        class Embeddings(nn.Cell):
            def __init__(self, dim):
                super().__init__()
                self.class_token = Parameter(ops.zeros((1, 1, dim)))

            def construct(self, patches):
                tokens = self.class_token.expand((patches.shape[0], 1, -1))
                return ops.cat([tokens, patches], axis=1)
    """
    use_instead = """
        class Embeddings(nn.Cell):
            def __init__(self, dim):
                super().__init__()
                self.class_token = Parameter(ops.zeros((1, 1, dim)))

            def construct(self, patches):
                tokens = self.class_token.broadcast_to((patches.shape[0], 1, -1))
                return ops.cat([tokens, patches], axis=1)
    """
    autofix = """
        Renames the method to `broadcast_to`; separate sizes become one tuple (`t.expand(b, -1)` ->
        `t.broadcast_to((b, -1))`).
    """

    records = (ExpandInGraph,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        if not module.graph_functions:
            return
        target = module.target
        for function in module.graph_functions:
            for node in function.nodes_of(ast.Call):
                if reported_expand(module, function, node):
                    yield self.report(module, node, ExpandInGraph(
                        devices=list(target.devices), measured_on=["cpu"], versions=list(target.judged_versions),
                        sizes=[ast.unparse(argument) for argument in node.args], function=function.label))

    def fix(self, context: FixContext, finding: Finding) -> list[Edit]:
        call = finding.node
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "expand"
                and call.args and not call.keywords):
            return []
        renamed = context.rename_attribute(call.func, "broadcast_to")
        if len(call.args) == 1 and not isinstance(call.args[0], ast.Starred):
            return [renamed]
        start, end = context.start_of(call.args[0]), context.end_of(call.args[-1])
        sizes = context.source[start:end]
        return [renamed, Edit(start, end, f"({sizes},)" if len(call.args) == 1 else f"({sizes})")]


def reported_expand(module: ModuleFacts, function, call: ast.Call) -> bool:
    """Whether MS603 reports ``call`` in ``function``: ``t.expand(...)`` on a tensor in graph code, with sizes that
    are not one Tensor."""
    func = call.func
    return (isinstance(func, ast.Attribute) and func.attr == "expand" and module.is_graph_code(function.node)
            and _sizes_not_a_tensor(call, function) and function.kind(func.value) == TENSOR)


def _named_versions(versions: tuple[str, ...]) -> str:
    """``MindSpore 2.10.0``, ``MindSpore 2.7.1 to 2.10.0``; a version outside the measured ones says so."""
    named = f"MindSpore {versions[0]}" + (f" to {versions[-1]}" if len(versions) > 1 else "") if versions[0] \
        else f"MindSpore {api.tables_version()}"
    outside = [version for version in versions if version and not
               api._release(_MEASURED[0]) <= api._release(version) <= api._release(_MEASURED[-1])]
    return named + (f" (measured {_MEASURED[0]} to {_MEASURED[-1]})" if outside else "")


def _refuse_separate_sizes(versions: tuple[str, ...]) -> tuple[str, ...]:
    """The versions whose ``Tensor.expand`` takes one size argument (2.7.0's ``expand(size)``)."""
    return tuple(dict.fromkeys(
        table for table in (api.tables_version(version) for version in versions)
        if (forms := api.signatures(f"{api.TENSOR}.expand", table)) is not None
        and all(form.most_positional == 1 for form in forms)))


def _sizes_not_a_tensor(call: ast.Call, function) -> bool:
    """Whether the sizes are given in a form graph mode rejects: anything but one Tensor."""
    arguments = list(call.args) + [keyword.value for keyword in call.keywords]
    if not arguments:
        return False
    if len(arguments) == 1 and not isinstance(arguments[0], ast.Starred):
        only = arguments[0]
        if isinstance(only, (ast.Tuple, ast.List)):
            return True
        # A tensor of sizes compiles; a shape or a name bound to one is what PyTorch code passes.
        return function.kind(only) != TENSOR and _looks_like_sizes(only)
    return True


def _looks_like_sizes(expr: ast.AST) -> bool:
    """A shape read from a tensor (``x.shape``, ``x.shape[:2]``, ``x.size()``) or a name holding sizes: not a
    tensor, nor anything else ``expand`` could mean."""
    if isinstance(expr, ast.Subscript):
        expr = expr.value
    if isinstance(expr, ast.Attribute) and expr.attr == "shape":
        return True
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "size":
        return True
    return isinstance(expr, ast.Constant) and type(expr.value) is int
