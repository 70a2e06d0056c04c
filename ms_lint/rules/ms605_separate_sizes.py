"""MS605: PyTorch's separate sizes to ``zeros``/``ones`` (``ops.zeros(batch, dim)``)."""
from __future__ import annotations

import ast
import re
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.findings import Finding
from ms_lint.edits import Edit, FixContext
from ms_lint.model import ModuleFacts
from ms_lint.rules.base import Rule

_DTYPE_NAME = re.compile(r"^(b?float|u?int|complex|bool|qint|quint)\d*_?$|^(half|double|single|tensor_type|number)$")

# The factories whose first parameter is the whole shape: what follows it is the dtype (ops) or nothing (mint).
SHAPE_FIRST_FACTORIES = frozenset({"mindspore.ops.zeros", "mindspore.ops.ones", "mindspore.mint.zeros",
                                   "mindspore.mint.ones"})


# mint's zeros/ones given a second positional argument (measured 2.10 and 2.7.1 CPU)


def _error(name: str, given: int, in_graph: bool) -> str:
    """What the call raises: ops' factories a TypeError; mint's a TypeError on the host and in PyNative, a
    RuntimeError in graph code naming how many arguments it was given (measured 2.10 and 2.7.1)."""
    if name.startswith("ops.") or not in_graph:
        return "TypeError"
    return f"TypeError on the host and in PyNative, RuntimeError in graph mode (\"takes 1 positional arguments, " \
           f"but {given} were given\")"


class SeparateSizes(Rule):
    code = "MS605"
    name = "separate-sizes"
    summary = "PyTorch's separate sizes to `ops.zeros`/`ops.ones`/`mint.zeros`/`mint.ones`, which take one shape"
    fix_summary = "pass the shape as one tuple: `ops.zeros((batch, dim))`"
    what = """
        Reports `ops.zeros(a, b, ...)`, `ops.ones(...)`, `mint.zeros(...)` and `mint.ones(...)` called with the
        sizes as separate positional arguments, as PyTorch's `torch.zeros(a, b)` takes them, in any code. A second
        argument that reads as a dtype (`ops.zeros(shape, ms.float32)`, `ops.zeros(shape, x.dtype)`, a name with
        `type` in it, a dtype's own name such as `float32` imported from `mindspore`, or a name bound to a dtype) is
        the dtype MindSpore expects there and is not reported.
    """
    why = """
        MindSpore's `ops.zeros(size, dtype=None)` takes the whole shape first and reads the second argument as the
        dtype: `ops.zeros(2, 3)` raises TypeError ("For 'Zeros', the input 'dtype' should be mindspore dtype, but
        got 3"); `mint.zeros(size, *, dtype=None)` takes one positional argument (TypeError: "takes 1 positional
        argument but 2 were given" in PyNative; compiled in graph mode, RuntimeError: "takes 1 positional arguments,
        but 2 were given"). Measured on 2.10 and 2.7.1 CPU (tests/test_ground_truth.py). `ops.rand`/`ops.randn` and
        `mint.empty` take separate sizes and are not reported.
    """
    example = """
        class Padding(nn.Cell):
            def construct(self, x):
                return ops.cat([x, ops.zeros(x.shape[0], 4)], axis=1)
    """
    use_instead = """
        class Padding(nn.Cell):
            def construct(self, x):
                return ops.cat([x, ops.zeros((x.shape[0], 4))], axis=1)
    """
    autofix = """
        Wraps the separate sizes in one tuple (`ops.zeros(a, b)` -> `ops.zeros((a, b))`); keyword arguments stay.
    """

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        for site in module.calls_to("zeros", "ones"):
            if separate_sizes(site.node, site.qualname, module) and not module.in_dead_branch(site.node,
                                                                                              site.function):
                sizes = ", ".join(ast.unparse(argument) for argument in site.node.args)
                name = site.qualname.replace("mindspore.", "", 1)
                in_graph = site.function is not None and module.is_graph_code(site.function)
                yield self.finding(
                    module, site.node,
                    f"{name}({sizes}) passes PyTorch's separate sizes; MindSpore's {name} takes the whole shape "
                    f"first ({'the next argument is the dtype' if name.startswith('ops.') else 'and nothing after it'}"
                    f"): {_error(name, len(site.node.args), in_graph)} when it runs; "
                    f"use {name}(({sizes}))",
                    data={"callee": site.qualname, "sizes": [ast.unparse(argument) for argument in site.node.args]},
                )

    def fix(self, context: FixContext, finding: Finding) -> list[Edit]:
        call = finding.node
        module = context.module
        if not (isinstance(call, ast.Call) and separate_sizes(call, module.qualname(call.func), module)):
            return []
        start, end = context.start_of(call.args[0]), context.end_of(call.args[-1])
        return [Edit(start, end, f"({context.source[start:end]})")]


def separate_sizes(call: ast.Call, qualname: str | None, module: ModuleFacts) -> bool:
    """Whether ``call`` of ``ops``/``mint`` ``zeros``/``ones`` passes PyTorch's separate sizes; ``module``, where it
    is made, says what its names hold (``float32`` imported from ``mindspore`` is a dtype)."""
    if qualname not in SHAPE_FIRST_FACTORIES or len(call.args) < 2:
        return False
    if any(isinstance(argument, ast.Starred) for argument in call.args):
        return False
    return all(_reads_as_size(module, argument) for argument in call.args)


def _reads_as_size(module: ModuleFacts, expr: ast.AST) -> bool:
    """An int literal, arithmetic, ``len(...)``, an element of a shape, or a name or attribute that does not name a
    type: what a size is written as, and what a dtype is not. A name bound to a dtype (``float32`` imported from
    ``mindspore``, ``dt = ms.float16``) names one, whatever it is called."""
    if isinstance(expr, ast.Constant):
        return type(expr.value) is int
    if isinstance(expr, ast.BinOp):
        return _reads_as_size(module, expr.left) or _reads_as_size(module, expr.right)
    if isinstance(expr, ast.Call):
        return isinstance(expr.func, ast.Name) and expr.func.id == "len"
    if isinstance(expr, ast.Subscript):
        value = expr.value
        return isinstance(value, ast.Attribute) and value.attr == "shape"
    if isinstance(expr, ast.Name):
        if "type" in expr.id.lower() or _DTYPE_NAME.match(expr.id) or _names_a_dtype(module, expr):
            return False
        bound = module.value_bound_to(expr, None, None)
        return not (isinstance(bound, (ast.Attribute, ast.Name)) and (
            _DTYPE_NAME.match(bound.attr if isinstance(bound, ast.Attribute) else bound.id)
            or _names_a_dtype(module, bound)))
    if isinstance(expr, ast.Attribute):
        return "type" not in expr.attr.lower() and not _DTYPE_NAME.match(expr.attr)
    return False


def _names_a_dtype(module: ModuleFacts, expr: ast.AST) -> bool:
    """``expr`` names one of MindSpore's dtypes (``float32`` imported from ``mindspore``, ``mstype.int32``)."""
    qualname = module.qualname(expr)
    return api.is_mindspore(qualname) and bool(_DTYPE_NAME.match(api.last_name(qualname)))
