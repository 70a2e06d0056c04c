"""MS114: the builtins ``max``/``min`` on tensor values in graph code."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint.model import ModuleFacts
from ms_lint.findings import Finding, FindingData
from ms_lint.rules.base import Rule
from ms_lint.rules.tensor_evidence import evidently_tensor

_REPLACEMENTS = {"max": "mindspore.ops.maximum", "min": "mindspore.ops.minimum"}


@dataclass(frozen=True, kw_only=True)
class BuiltinOnTensor(FindingData):
    """Builtin ``min``/``max`` of a tensor value and a Python number in graph code: the builtin, its MindSpore
    replacement (``mindspore.ops.minimum``), the graph function."""

    builtin: str
    replacement: str
    function: str

    def message(self) -> str:
        return (f"builtin {self.builtin}() of a tensor value and a Python number in graph code ({self.function}) "
                "fails to compile under STRICT (ValueError: the inputs should be constant); use "
                f"ops.{self.replacement.rpartition('.')[2]}(a, b) or the tensor's own .{self.builtin}()")


class BuiltinMinMaxOnTensor(Rule):
    code = "MS114"
    compiled_only = True
    name = "builtin-min-max-on-tensor"
    summary = "the builtin `max(...)`/`min(...)` mixing a tensor value with a Python number in graph code"
    fix_summary = "use `ops.maximum(a, b)`/`ops.minimum(a, b)` for two values, `t.max()`/`t.min()` for a reduction"
    what = """
        Reports Python's `max(...)` and `min(...)` called in graph code with an argument that is evidently tensor
        data (computed in the function by a tensor method or a MindSpore operator, or a name bound to such a value)
        next to one that is not evidently tensor data (a number, a constant, an `int` argument): `max(x.sum(),
        1e-6)`, `min(mask.astype(ms.int32).sum(), k)`, `max((loss, 1.0))`. A bare input of the function is not
        enough (it may be a tuple of ints); compile-time constants alone (`max(self.k, 1)`, `max(x.shape)`) are
        folded by the compiler, and values that are all evidently tensors (`max(a.abs(), b.abs())`) compile: neither
        is reported.
    """
    why = """
        Graph code runs the builtin on tensors only when every value it compares is one. Mixed with a Python
        number, under STRICT the compile fails (ValueError: "the inputs should be constant, but found variable");
        under LAX the call falls back to the Python interpreter (slow, not exportable). Measured on 2.10 CPU:
        `max(x.sum(), 1e-6)`, `min(x.sum(), 3)`, `max(x.sum(), self.eps)` fail under STRICT; `max(x.sum(),
        y.sum())` and `max(x.sum(), ms.Tensor(1e-6))` compile and run. With `--ms-syntax-level=lax` it is not
        reported.
    """
    example = """
        class Net(nn.Cell):
            def construct(self, x):
                return x / max(x.sum(), 1e-6)
    """
    use_instead = """
        class Net(nn.Cell):
            def construct(self, x):
                return x / ops.maximum(x.sum(), 1e-6)
    """
    autofix = """
        A call with exactly two positional arguments becomes `ops.maximum(a, b)`/`ops.minimum(a, b)` (importing
        `ops` when needed); other forms are left for the author.
    """

    records = (BuiltinOnTensor,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        for function in module.graph_functions:
            if not function.strict:
                continue
            for node in function.nodes_of(ast.Call):
                name = _builtin_min_max(module, node)
                if name is None:
                    continue
                arguments = [*node.args, *(k.value for k in node.keywords if k.arg != "key")]
                if len(arguments) == 1 and isinstance(arguments[0], (ast.Tuple, ast.List)):
                    arguments = arguments[0].elts  # max((loss, floor)) compares the elements
                tensors = [argument for argument in arguments if evidently_tensor(function, argument)]
                if not tensors or len(tensors) == len(arguments):
                    continue  # tensors alone compile: only a Python number next to a tensor stops it
                yield self.report(module, node, BuiltinOnTensor(builtin=name, replacement=_REPLACEMENTS[name],
                                                                function=function.label))

    @classmethod
    def cause_facts(cls, module: ModuleFacts, finding: Finding):
        """Whether the call compares two values (``max(x.sum(), 1e-6)``: ``ops.maximum`` replaces it) or another
        form (``max((x.sum(), 1.0))``, left to the author): two misuses, each edited its own way."""
        return isinstance(finding.node, ast.Call) and _two_values(finding.node)

    def fix(self, context, finding: Finding) -> list:
        call = finding.node
        name = _builtin_min_max(context.module, call) if isinstance(call, ast.Call) else None
        if name is None or not _two_values(call):
            return []
        return [context.replace(call.func, context.reference(_REPLACEMENTS[name]))]


def _two_values(call: ast.Call) -> bool:
    """``max(a, b)``: two positional values, no keyword, nothing unpacked."""
    return len(call.args) == 2 and not call.keywords and not any(isinstance(a, ast.Starred) for a in call.args)


def _builtin_min_max(module: ModuleFacts, call: ast.Call) -> str | None:
    qualname = module.qualname(call.func)
    if qualname in ("builtins.max", "builtins.min"):
        return qualname[len("builtins."):]
    return None
