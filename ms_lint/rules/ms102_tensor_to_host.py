"""MS102: ``Tensor.asnumpy()``/``.tolist()``/``.numpy()`` on tensor data in graph code."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from ms_lint.model import ModuleFacts
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.rules.base import Rule


@dataclass(frozen=True, kw_only=True)
class HostConversion(FindingData):
    """A tensor converted to a host value in graph code: the conversion method, the graph function."""

    template = (".{method}() on a tensor in graph code ({function}) fails to compile under STRICT (AttributeError); "
                "keep the computation on tensors with mindspore.ops (.item() and float() are supported)")
    method: str = fact(subject=True)
    function: str


class TensorToHost(Rule):
    code = "MS102"
    compiled_only = True
    name = "tensor-to-host"
    summary = "`Tensor.asnumpy()`, `.tolist()` or `.numpy()` in graph code"
    fix_summary = "stay on tensors with `mindspore.ops`; `.item()` and `float(t)` are supported"
    what = """
        Reports `asnumpy()`, `tolist()` and `numpy()` called on tensor data in graph code. `x.item()` and
        `float(x.sum())` are supported by the compiler and not reported.
    """
    why = """
        A graph has no host copy of its tensors. Under STRICT the compile fails (AttributeError: the method is not
        supported in graph mode); under LAX the call runs in the Python interpreter, which breaks MindIR export and
        takes the data off the device on every step. With `--ms-syntax-level=lax` it is not reported.
        In PyNative mode the same conversion cuts the gradient (see MS112).
    """
    example = """
        class Net(nn.Cell):
            def construct(self, x):
                scale = x.max().asnumpy()
                return x / scale
    """
    use_instead = """
        class Net(nn.Cell):
            def construct(self, x):
                scale = x.max()
                return x / scale
    """

    records = (HostConversion,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        for function in module.graph_functions:
            if not function.strict:
                continue
            for node in function.host_conversions():
                yield self.report(module, node, HostConversion(method=node.func.attr, function=function.label))
