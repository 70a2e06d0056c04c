"""MS205: ``nn.Conv*`` given a non-zero ``padding`` without ``pad_mode="pad"``."""
from __future__ import annotations

import ast
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.model import ModuleFacts
from ms_lint.findings import Finding
from ms_lint.edits import Edit, FixContext
from ms_lint.rules.base import Rule

# The convolution Cells of ``mindspore.nn`` whose ``pad_mode`` defaults to "same" and accepts ``padding`` only with
# "pad". All share the leading signature (in_channels, out_channels, kernel_size, stride, pad_mode, padding, ...).
CONVOLUTIONS = frozenset({
    "Conv1d", "Conv2d", "Conv3d", "Conv1dTranspose", "Conv2dTranspose", "Conv3dTranspose", "Conv2dBnAct",
})
PAD_MODE_POSITION = 4
PADDING_POSITION = 5
_UNKNOWN = object()


def argument(call: ast.Call, name: str, position: int) -> ast.AST | None:
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    positional = [a for a in call.args if not isinstance(a, ast.Starred)]
    if len(positional) == len(call.args) and position < len(positional):
        return positional[position]
    return None


def constant_value(expr: ast.AST | None):
    """The value of a literal int/str/tuple expression (``1``, ``3 // 2``, ``(1, 1, 0, 0)``), else ``_UNKNOWN``."""
    if isinstance(expr, ast.Constant):
        return expr.value  # the common case, without literal_eval's helpers (a reference cycle per call)
    try:
        return ast.literal_eval(expr)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        pass
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.FloorDiv, ast.Add, ast.Sub, ast.Mult)):
        left, right = constant_value(expr.left), constant_value(expr.right)
        if isinstance(left, int) and isinstance(right, int):
            if isinstance(expr.op, ast.FloorDiv):
                return left // right if right else _UNKNOWN
            if isinstance(expr.op, ast.Add):
                return left + right
            if isinstance(expr.op, ast.Sub):
                return left - right
            return left * right
    return _UNKNOWN


def is_nonzero_padding(value) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return value != 0
    if isinstance(value, (tuple, list)):
        return any(is_nonzero_padding(item) for item in value)
    return False


class ConvPaddingWithoutPadMode(Rule):
    code = "MS205"
    name = "conv-padding-without-pad-mode"
    summary = "`nn.Conv1d/2d/3d` (or a Transpose variant) given a non-zero `padding` without `pad_mode=\"pad\"`"
    fix_summary = "add `pad_mode=\"pad\"`"
    autofix = """
        `ms-lint check --fix` adds `pad_mode="pad"` to the call (or turns an explicit `"same"`/`"valid"` into
        `"pad"`). Safe: it builds the layer PyTorch's way, which is what the `padding` argument asked for.
    """
    what = """
        Reports a call of `mindspore.nn.Conv1d`, `Conv2d`, `Conv3d`, their `Transpose` variants or `Conv2dBnAct`
        (any import spelling) that passes a `padding` known to be non-zero (`padding=1`, `padding=3 // 2`,
        `padding=(1, 1, 1, 1)`, or positionally) while `pad_mode` is left at its default `"same"` or set to
        `"same"`/`"valid"`. Not reported: `padding=0`, no `padding` at all, a `pad_mode` or `padding` computed at
        run time, a call with `**kwargs`, `mindspore.mint.nn` convolutions (PyTorch semantics), and a call that
        also passes a keyword the layer does not take (MS604 reports that call and names the padding too).
    """
    why = """
        MindSpore's convolutions default to `pad_mode="same"` (PyTorch's pad explicitly) and accept a `padding`
        only with `pad_mode="pad"`: any other combination raises ValueError when the layer is built ("the 'pad'
        must be zero when 'pad_mode' is not 'pad'"), in every mode. The opposite port is silent: dropping the
        `padding` keeps "same", so a 4x4 kernel on a 12x12 input gives 12x12 where PyTorch gives 9x9.
    """
    example = """
        self.conv = nn.Conv2d(3, 16, 3, padding=1)
    """
    use_instead = """
        self.conv = nn.Conv2d(3, 16, 3, pad_mode="pad", padding=1)
    """

    def fix(self, context: FixContext, finding: Finding) -> list[Edit]:
        call = finding.node
        if not isinstance(call, ast.Call):
            return []
        for keyword in call.keywords:
            if keyword.arg == "pad_mode":
                return [context.replace(keyword.value, '"pad"')]
        positional = [a for a in call.args if not isinstance(a, ast.Starred)]
        if len(positional) > PAD_MODE_POSITION:
            return [context.replace(positional[PAD_MODE_POSITION], '"pad"')]
        last = max([*call.args, *call.keywords], key=lambda n: (n.end_lineno, n.end_col_offset))
        return [context.insert_after(last, ', pad_mode="pad"')]

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        for site in module.calls_to(*CONVOLUTIONS):
            found = padding_without_pad_mode(site.node, site.qualname)
            if found is None or api.keywords_not_taken(site.qualname, site.node, module.target.version):
                continue  # MS604 reports a call with a keyword the layer does not take, and names this too
            padding, pad_mode, given = found
            # Keep the Call as the finding's node: the fix inserts pad_mode="pad" into it.
            yield self.finding(
                module, site.node,
                f"nn.{api.last_name(site.qualname)} with padding={padding!r} and pad_mode={pad_mode!r}"
                f"{'' if given else ' (the default)'} raises ValueError when built, in every mode: "
                "MindSpore applies padding only with pad_mode=\"pad\"; add pad_mode=\"pad\"",
                data={"layer": site.qualname, "padding": padding, "pad_mode": pad_mode, "pad_mode_given": given},
            )


def padding_without_pad_mode(call: ast.Call, qualname: str | None):
    """(padding, pad_mode, whether pad_mode is given) for a call of a ``mindspore.nn`` convolution given a non-zero
    padding with a pad_mode other than "pad"; None otherwise."""
    if not api.is_nn_name(qualname) or any(k.arg is None for k in call.keywords):
        return None
    padding = constant_value(argument(call, "padding", PADDING_POSITION))
    if not is_nonzero_padding(padding):
        return None
    pad_mode_expr = argument(call, "pad_mode", PAD_MODE_POSITION)
    pad_mode = "same" if pad_mode_expr is None else constant_value(pad_mode_expr)
    if not isinstance(pad_mode, str) or pad_mode == "pad":
        return None
    return padding, pad_mode, pad_mode_expr is not None
