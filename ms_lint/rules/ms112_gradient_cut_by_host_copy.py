"""MS112: a PyNative Cell's output built from a host copy of a tensor (``asnumpy()``): its gradient is zero."""
from __future__ import annotations

import ast
import re
from typing import Iterator

from ms_lint.model import ModuleFacts
from ms_lint.findings import Finding
from ms_lint.rules.base import Rule


class GradientCutByHostCopy(Rule):
    code = "MS112"
    name = "gradient-cut-by-host-copy"
    summary = "a PyNative Cell's output is built from `asnumpy()`, `.numpy()` or `.tolist()` of a tensor"
    fix_summary = "compute it with `mindspore.ops` on tensors, or define `bprop` on the Cell"
    what = """
        In PyNative (eager) code, reports `x.asnumpy()`, `x.numpy()` and `x.tolist()` on tensor data in a Cell's
        `construct`, or in a method or function it calls, when the value the Cell returns is built from that host
        copy (`Tensor(x.asnumpy() * 2)`, `x / x.max().asnumpy()`), and the Cell has no `bprop` method of its own or
        inherited (from this module or another module of the project). Not reported: host reads whose value does
        not reach the output (logging, `print(float(x.mean().asnumpy()))`, a condition such as
        `if x.asnumpy().any():`, an index or count such as `int(n.asnumpy())` or `np.argsort(...)`), and host copies
        of tensors named as integer data (`input_ids.tolist()`, `attention_mask[i].asnumpy()`), which have no
        gradient to cut. A module is
        PyNative when it calls `set_context(mode=PYNATIVE_MODE)` or `--ms-mode=pynative` is given; in graph code
        the conversion is MS102's, and is not reported twice.
    """
    why = """
        PyNative builds gradients from the tensor operators it records while `construct` runs. A host copy has no
        history: whatever is computed from it and turned back into a tensor (`Tensor(array)`) is a constant to
        the gradient, the equivalent of PyTorch's `detach()` (MindSpore's migration guide). Measured on MindSpore
        2.10: `mindspore.grad(net)(x)` through such a path is exactly zero, for the inputs and the weights, with
        no error and no warning, so the layers before it silently stop learning. A `bprop(self, *inputs, out,
        dout)` method on the Cell tells MindSpore the gradient to use instead (measured: nonzero). In graph mode
        the same call fails to compile under STRICT instead (MS102).
    """
    example = """
        import mindspore as ms
        from mindspore import Tensor, nn

        ms.set_context(mode=ms.PYNATIVE_MODE)


        class Scale(nn.Cell):
            def construct(self, x):
                peak = x.abs().max().asnumpy()
                return Tensor(x.asnumpy() / peak)
    """
    use_instead = """
        import mindspore as ms
        from mindspore import Tensor, nn

        ms.set_context(mode=ms.PYNATIVE_MODE)


        class Scale(nn.Cell):
            def construct(self, x):
                return x / x.abs().max()


        class HostScale(nn.Cell):  # when the host computation is needed, say what its gradient is
            def construct(self, x):
                return Tensor(x.asnumpy() * 2)

            def bprop(self, x, out, dout):
                return (dout * 2,)
    """

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        for function in module.eager_functions():
            cells = [info for info in function.output_of if not module.inherits_method(info, "bprop")]
            if not cells:
                continue
            for node in function.host_conversions():
                if not function.reaches_return(node) or holds_integers(node.func.value):
                    continue
                names = " and ".join(info.name for info in cells)
                where = "" if function.node.name == "construct" else f" (in {function.label})"
                yield self.finding(
                    module, node,
                    f".{node.func.attr}() copies a tensor to the host and the output of {names} is built from "
                    f"it{where}: PyNative gradients through host data are zero (like .detach()); compute it with "
                    f"mindspore.ops, or define {cells[0].name}.bprop",
                )


# Names that hold token ids, indices, masks, counts: integer tensors, which have no gradient to cut.
_INTEGER_NAMES = re.compile(r"(^|_)(ids?|index|indices|idx|mask|masks|positions?|lengths?|lens?|labels?|counts?)$")


def holds_integers(expr: ast.AST) -> bool:
    """``input_ids``, ``attention_mask[i]``, ``position_ids.flatten()``: a tensor named as integer data."""
    while isinstance(expr, (ast.Subscript, ast.Call, ast.Attribute)):
        if isinstance(expr, ast.Call):
            expr = expr.func
        if isinstance(expr, ast.Attribute) and not isinstance(expr.value, ast.Name):
            expr = expr.value
        elif isinstance(expr, ast.Attribute):
            return bool(_INTEGER_NAMES.search(expr.attr)) or bool(_INTEGER_NAMES.search(expr.value.id))
        elif isinstance(expr, ast.Subscript):
            expr = expr.value
    return isinstance(expr, ast.Name) and bool(_INTEGER_NAMES.search(expr.id))
