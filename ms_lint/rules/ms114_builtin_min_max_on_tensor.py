"""MS114: the builtins ``max``/``min`` on tensor values in graph code."""
from __future__ import annotations

import ast
from typing import Iterator

from ms_lint.model import ModuleFacts
from ms_lint.findings import Finding
from ms_lint.rules.base import Rule
from ms_lint.rules.tensor_evidence import evidently_tensor

_REPLACEMENTS = {"max": "mindspore.ops.maximum", "min": "mindspore.ops.minimum"}


class BuiltinMinMaxOnTensor(Rule):
    code = "MS114"
    name = "builtin-min-max-on-tensor"
    summary = "the builtin `max(...)`/`min(...)` on tensor values in graph code"
    fix_summary = "use `ops.maximum(a, b)`/`ops.minimum(a, b)` for two values, `t.max()`/`t.min()` for a reduction"
    what = """
        Reports Python's `max(...)` and `min(...)` called in graph code with an argument that is evidently tensor
        data: computed in the function by a tensor method or a MindSpore operator (`max(x.sum(), 1e-6)`,
        `min(mask.astype(ms.int32).sum(), k)`, `max((loss, floor))`, or a name bound to such a value). A bare input
        of the function is not enough (it may be a tuple of ints), and compile-time constants (`max(self.k, 1)`,
        `max(x.shape)`) are folded by the compiler and not reported.
    """
    why = """
        Graph code runs Python builtins only on constants. Under STRICT the compile fails (ValueError: "the inputs
        should be constant, but found variable"); under LAX the call falls back to the Python interpreter (slow,
        not exportable). With two multi-element tensors (`max(x, y)`) the comparison has no truth value and the
        compile fails at every level (measured 2.10 CPU). With `--ms-syntax-level=lax` it is not reported.
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

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        for function in module.graph_functions:
            if not function.strict:
                continue
            for node in function.nodes_of(ast.Call):
                name = _builtin_min_max(module, node)
                if name is None:
                    continue
                arguments = [*node.args, *(k.value for k in node.keywords if k.arg != "key")]
                if not any(evidently_tensor(function, argument) for argument in arguments):
                    continue
                yield self.finding(
                    module, node,
                    f"builtin {name}() on a tensor value in graph code ({function.label}) fails to compile under "
                    f"STRICT (ValueError: the inputs should be constant); use ops.{_REPLACEMENTS[name][14:]}(a, b) "
                    f"or the tensor's own .{name}()",
                )

    def fix(self, context, finding: Finding) -> list:
        call = finding.node
        name = _builtin_min_max(context.module, call) if isinstance(call, ast.Call) else None
        if name is None or len(call.args) != 2 or call.keywords or any(
                isinstance(a, ast.Starred) for a in call.args):
            return []
        return [context.replace(call.func, context.reference(_REPLACEMENTS[name]))]


def _builtin_min_max(module: ModuleFacts, call: ast.Call) -> str | None:
    qualname = module.qualname(call.func)
    if qualname in ("builtins.max", "builtins.min"):
        return qualname[len("builtins."):]
    return None
