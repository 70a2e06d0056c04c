"""MS601: PyTorch's two-axis ``Tensor.transpose(d0, d1)`` in graph code."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint.model import TENSOR, ModuleFacts
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.rules.base import Rule
from ms_lint.target import ALL_DEVICES, device_claim, device_names

# MindSpore documents `Tensor.transpose(dim0, dim1)` for Ascend only, from 2.5 on
# (https://www.mindspore.cn/docs/zh-CN/r2.5.0/api_python/mindspore/Tensor/mindspore.Tensor.transpose.html);
# graph mode on CPU and GPU takes the permutation form.
_TWO_AXIS_FORM_ON_ASCEND_SINCE = (2, 5)


@dataclass(frozen=True, kw_only=True)
class TwoAxisTransposed(FindingData):
    """PyTorch's two-axis ``t.transpose(d0, d1)`` in graph code: the devices where graph mode takes a full
    permutation (the target's, or where the target has none, all of them and the setting that would show it), the
    two axes as written, the graph function, the MindSpore version, and whether MindSpore documents the two-axis
    form for Ascend in it."""

    devices: list[str]
    silenced_by: str | None = fact(optional=True, for_users=True)
    axes: list[str]
    function: str
    version: str
    two_axes_on_ascend: bool

    @property
    def ascend(self) -> str:
        return ("MindSpore documents the two-axis form for Ascend only" if self.two_axes_on_ascend
                else f"MindSpore {self.version} has no two-axis form")

    def message(self) -> str:
        axes = ", ".join(self.axes)
        return (f".transpose({axes}) in graph code ({self.function}) takes a full permutation on "
                f"{device_names(self.devices)}: with two axes it fails to compile on a tensor of rank 3 or more and "
                f"silently returns a 2-D tensor unchanged (PyNative swaps the axes; {self.ascend}); use "
                f".swapaxes({axes}), which means the same on every device")


@dataclass(frozen=True, kw_only=True)
class TwoAxisTransposedOfRank(TwoAxisTransposed):
    """Besides, the least rank the tensor evidently has (3 or more), and what fixed it: the expression (cut at 60
    characters) and its line."""

    rank: int
    shaped_by: str
    shaped_line: int

    def message(self) -> str:
        axes = ", ".join(self.axes)
        return (f".transpose({axes}) in graph code ({self.function}) on a tensor of rank {self.rank} or more "
                f"(`{self.shaped_by}`, line {self.shaped_line}) fails to compile on {device_names(self.devices)}: "
                "graph mode takes a full permutation there, and two axes fit only a 2-D tensor (ValueError; "
                f"PyNative swaps the axes, and {self.ascend}); use .swapaxes({axes}), which means the same on every "
                "device")


class TwoAxisTranspose(Rule):
    code = "MS601"
    compiled_only = True
    name = "two-axis-transpose"
    summary = "PyTorch's two-axis `t.transpose(d0, d1)` in graph code, where `transpose` takes a full permutation"
    fix_summary = "swap two axes with `t.swapaxes(d0, d1)` (or `ops.swapaxes`); `transpose` wants every axis"
    what = """
        Reports `t.transpose(d0, d1)` with exactly two axis arguments on a tensor value in graph code. The
        2-D permutation `t.transpose(1, 0)` (also `(-1, -2)`, `(-1, 0)`, `(1, -2)`) means the same in both APIs on
        a 2-D tensor, so it is reported only where the tensor evidently has rank 3 or more: an assignment that
        reaches it was shaped by a call that fixes its rank (`k.view(b, s, h, d)`, `k.permute(0, 2, 1, 3)`,
        `k[:, :, :n, :]`, a method of the class returning such a value, and what keeps or raises that rank:
        `contiguous`, elementwise arithmetic, `mint.cat`, `unsqueeze`), so whenever that path is compiled the call
        fails, whatever other paths give. Calls with a full permutation (`t.transpose(0, 2, 1)`,
        `t.transpose((1, 0))`) are not reported. A function that transposes the same two axes again is reported
        once, at the first call, with the lines of the others (a compile stops at the first); the fix renames
        them all.
    """
    why = """
        In PyNative, `Tensor.transpose` accepts PyTorch's form and swaps two axes; in graph mode it takes a full
        permutation (measured 2.10 CPU, STRICT and LAX alike). On a tensor of rank 3 or more the compile fails
        (ValueError: "the number of axes must be equal to the dimension of Tensor"); on a 2-D tensor
        `t.transpose(0, 1)` is read as the identity permutation: graph mode silently returns the tensor unchanged
        where PyNative returns its transpose. MindSpore 2.10's own documentation lists `transpose(dim0, dim1)` as
        supported on Ascend only (the full-permutation form is to be removed after 2.9); code that must run on
        CPU or GPU, or on every device, should use `swapaxes`, which means the same everywhere. Reported where the
        target may run on CPU or GPU (`--ms-device`: `cpu`, `gpu` or `any`); silent for an Ascend-only target on
        MindSpore 2.5 or later.
    """
    example = """
        class Attention(nn.Cell):
            def construct(self, q, k):
                return ops.matmul(q, k.transpose(-2, -1))
    """
    use_instead = """
        class Attention(nn.Cell):
            def construct(self, q, k):
                return ops.matmul(q, k.swapaxes(-2, -1))
    """
    autofix = """
        Renames the method to `swapaxes`, which swaps the same two axes in every mode.
    """

    records = (TwoAxisTransposed, TwoAxisTransposedOfRank)
    # one cause: the same two axes in one graph function, which a compile stops at first, whatever each tensor's rank
    place_facts = frozenset({"rank", "shaped_by", "shaped_line"})

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        if not module.graph_functions:
            return
        target = module.target
        holds_on = ("cpu", "gpu") if target.version_tuple[:2] >= _TWO_AXIS_FORM_ON_ASCEND_SINCE else ALL_DEVICES[::-1]
        _, data = device_claim(target, holds_on)
        for node, found in _calls(module, data, holds_on):
            yield self.report(module, node, found)

    def fix(self, context, finding: Finding) -> list:
        call = finding.node
        if not (isinstance(call, ast.Call) and _two_axis_transpose(call)):
            return []
        return [context.rename_attribute(call.func, "swapaxes")]


def _calls(module: ModuleFacts, data: dict, holds_on) -> Iterator[tuple[ast.Call, TwoAxisTransposed]]:
    target = module.target
    for function in module.graph_functions:
        for node in function.nodes_of(ast.Call):
            if not _two_axis_transpose(node) or function.kind(node.func.value) != TENSOR:
                continue
            found = TwoAxisTransposed(**data, axes=[ast.unparse(a) for a in node.args], function=function.label,
                                      version=target.version, two_axes_on_ascend="ascend" not in holds_on)
            if _swaps_a_matrix(node):
                rank = function.least_rank(node.func.value)
                if rank is None or rank.at_least < 3:
                    continue
                shaped = ast.unparse(rank.shaped_by)
                shaped = shaped if len(shaped) <= 60 else shaped[:57] + "..."
                found = TwoAxisTransposedOfRank(**vars(found), rank=rank.at_least, shaped_by=shaped,
                                                shaped_line=rank.shaped_by.lineno)
            yield node, found


def _two_axis_transpose(call: ast.Call) -> bool:
    func = call.func
    return (isinstance(func, ast.Attribute) and func.attr == "transpose" and len(call.args) == 2
            and not call.keywords and not any(isinstance(a, ast.Starred) for a in call.args))


def _swaps_a_matrix(call: ast.Call) -> bool:
    """``(1, 0)`` or ``(-1, -2)``: a full 2-D permutation, the same swap in both APIs on a 2-D tensor."""
    axes = [_int_constant(a) for a in call.args]
    return None not in axes and -2 <= min(axes) and max(axes) <= 1 and (axes[0] % 2, axes[1] % 2) == (1, 0)


def _int_constant(expr: ast.AST) -> int | None:
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        value = _int_constant(expr.operand)
        return None if value is None else -value
    if isinstance(expr, ast.Constant) and type(expr.value) is int:
        return expr.value
    return None
