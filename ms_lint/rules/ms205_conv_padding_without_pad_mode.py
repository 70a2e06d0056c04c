"""MS205: ``nn.Conv*`` given a non-zero ``padding`` without ``pad_mode="pad"``."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.model import ModuleFacts
from ms_lint.findings import Finding, FindingData
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


# How many numbers each convolution's ``padding`` tuple takes (two per spatial dimension), and PyTorch's one per
# dimension; ``Conv1d`` takes an int only. Measured on 2.10 and 2.7.1 (tests/test_ground_truth_values.py).
_DIMENSIONS = {"Conv1d": 1, "Conv1dTranspose": 1, "Conv2d": 2, "Conv2dTranspose": 2, "Conv2dBnAct": 2,
               "Conv3d": 3, "Conv3dTranspose": 3}


def per_dimension_padding(call: ast.Call, qualname: str | None):
    """(padding, MindSpore's padding for it) for a ``mindspore.nn`` convolution given PyTorch's padding tuple, one
    number per spatial dimension (``nn.Conv2d(..., padding=(1, 2))``), which MindSpore refuses whatever the
    ``pad_mode``: ``(1, 1, 2, 2)`` (top, bottom, left, right) for a 2-D one, ``(d, d, h, h, w, w)`` for a 3-D one, the
    int for a 1-D one; None otherwise."""
    if not api.is_nn_name(qualname) or any(k.arg is None for k in call.keywords):
        return None
    dimensions = _DIMENSIONS.get(api.last_name(qualname))
    expr = argument(call, "padding", PADDING_POSITION)
    padding = constant_value(expr) if isinstance(expr, ast.Tuple) else _UNKNOWN
    if dimensions is None or not isinstance(padding, tuple) or len(padding) != dimensions or not all(
            isinstance(item, int) and not isinstance(item, bool) for item in padding):
        return None
    if dimensions == 1:
        return padding, padding[0]
    return padding, tuple(item for item in padding for _ in range(2))


def is_nonzero_padding(value) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return value != 0
    if isinstance(value, (tuple, list)):
        return any(is_nonzero_padding(item) for item in value)
    return False


def _as_written(value):
    """A padding as Python writes it: the data's lists as the tuples they were."""
    return tuple(_as_written(element) for element in value) if isinstance(value, (list, tuple)) else value


@dataclass(frozen=True, kw_only=True)
class PaddingIgnored(FindingData):
    """A convolution given a non-zero padding with a pad_mode other than "pad": the layer, the padding, the pad
    mode and whether it is given (else the default)."""

    layer: str
    padding: int | list
    pad_mode: str | None
    pad_mode_given: bool

    def message(self) -> str:
        return (f"nn.{api.last_name(self.layer)} with padding={_as_written(self.padding)!r} and "
                f"pad_mode={self.pad_mode!r}{'' if self.pad_mode_given else ' (the default)'} raises ValueError when "
                "built, in every mode: MindSpore applies padding only with pad_mode=\"pad\"; add pad_mode=\"pad\"")


@dataclass(frozen=True, kw_only=True)
class PaddingPerDimension(PaddingIgnored):
    """A convolution given PyTorch's one padding per dimension, which MindSpore's layer does not take: besides,
    the padding MindSpore's layer takes for it (an int, or a tuple of both sides per dimension)."""

    fixed_padding: int | list

    def message(self) -> str:
        layer, fixed = api.last_name(self.layer), _as_written(self.fixed_padding)
        if isinstance(fixed, int):
            takes, error = "an int", "TypeError"
        else:
            sides = "(top, bottom, left, right)" if len(fixed) == 4 else "(head, tail, top, bottom, left, right)"
            takes, error = f"an int or a {len(fixed)}-tuple {sides}", "ValueError"
        given = self.pad_mode_given and self.pad_mode == "pad"
        use = f"padding={fixed!r}" if given else f"pad_mode=\"pad\", padding={fixed!r}"
        return (f"nn.{layer} with padding={_as_written(self.padding)!r} (PyTorch's one number per dimension) raises "
                f"{error} when built, in every mode and with any pad_mode: MindSpore's {layer} takes {takes}; use "
                f"{use}")


class ConvPaddingWithoutPadMode(Rule):
    code = "MS205"
    name = "conv-padding-without-pad-mode"
    summary = "`nn.Conv1d/2d/3d` (or a Transpose variant) given a non-zero `padding` without `pad_mode=\"pad\"`"
    fix_summary = "add `pad_mode=\"pad\"`"
    autofix = """
        `ms-lint check --fix` adds `pad_mode="pad"` to the call (or turns an explicit `"same"`/`"valid"` into
        `"pad"`), and writes a per-dimension padding tuple in MindSpore's form (`(1, 2)` -> `(1, 1, 2, 2)`). Safe: it
        builds the layer PyTorch's way, which is what the `padding` argument asked for.
    """
    what = """
        Reports a call of `mindspore.nn.Conv1d`, `Conv2d`, `Conv3d`, their `Transpose` variants or `Conv2dBnAct`
        (any import spelling) that passes a `padding` known to be non-zero (`padding=1`, `padding=3 // 2`,
        `padding=(1, 1, 1, 1)`, or positionally) while `pad_mode` is left at its default `"same"` or set to
        `"same"`/`"valid"`. Not reported: `padding=0`, no `padding` at all, a `pad_mode` or `padding` computed at
        run time, a call with `**kwargs`, `mindspore.mint.nn` convolutions (PyTorch semantics), and a call that
        also passes a keyword the layer does not take (MS604 reports that call and names the padding too).
        Also reports PyTorch's padding tuple of one number per spatial dimension (`nn.Conv2d(..., padding=(1, 2))`,
        a 3-tuple on `Conv3d`, a 1-tuple on `Conv1d`), with or without `pad_mode="pad"`: the message gives
        MindSpore's form.
    """
    why = """
        MindSpore's convolutions default to `pad_mode="same"` (PyTorch's pad explicitly) and accept a `padding`
        only with `pad_mode="pad"`: any other combination raises ValueError when the layer is built ("the 'pad'
        must be zero when 'pad_mode' is not 'pad'"), in every mode. The opposite port is silent: dropping the
        `padding` keeps "same", so a 4x4 kernel on a 12x12 input gives 12x12 where PyTorch gives 9x9.
        A padding tuple takes two numbers per spatial dimension (`Conv2d`: top, bottom, left, right; `Conv3d`: six)
        and `Conv1d` an int: PyTorch's `padding=(1, 2)` on `Conv2d` raises ValueError ("the 'pad size' must be int
        and must = 4"), with `pad_mode="pad"` too; `Conv1d(..., padding=(1,))` raises TypeError (measured 2.10 and
        2.7.1 CPU, tests/test_ground_truth_values.py). `(1, 2)` is `(1, 1, 2, 2)` in MindSpore's form.
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
        edits = []
        found = per_dimension_padding(call, context.module.qualname(call.func))
        if found is not None:
            edits.append(context.replace(argument(call, "padding", PADDING_POSITION), repr(found[1])))
            pad_mode = argument(call, "pad_mode", PAD_MODE_POSITION)
            if pad_mode is not None and constant_value(pad_mode) == "pad":
                return edits
        for keyword in call.keywords:
            if keyword.arg == "pad_mode":
                return [*edits, context.replace(keyword.value, '"pad"')]
        positional = [a for a in call.args if not isinstance(a, ast.Starred)]
        if len(positional) > PAD_MODE_POSITION:
            return [*edits, context.replace(positional[PAD_MODE_POSITION], '"pad"')]
        last = max([*call.args, *call.keywords], key=lambda n: (n.end_lineno, n.end_col_offset))
        return [*edits, context.insert_after(last, ', pad_mode="pad"')]

    records = (PaddingIgnored, PaddingPerDimension)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        for site in module.calls_to(*CONVOLUTIONS):
            if module.in_dead_branch(site.node, site.function):
                continue
            per_dimension = per_dimension_padding(site.node, site.qualname)
            if per_dimension is not None:
                yield self._per_dimension(module, site, *per_dimension)
                continue
            found = padding_without_pad_mode(site.node, site.qualname)
            if found is None or api.keywords_not_taken(site.qualname, site.node, module.target.version):
                continue  # MS604 reports a call with a keyword the layer does not take, and names this too
            padding, pad_mode, given = found
            # Keep the Call as the finding's node: the fix inserts pad_mode="pad" into it.
            yield self.report(module, site.node, PaddingIgnored(
                layer=site.qualname, padding=padding, pad_mode=pad_mode, pad_mode_given=given))

    def _per_dimension(self, module: ModuleFacts, site, padding: tuple, fixed) -> Finding:
        pad_mode = argument(site.node, "pad_mode", PAD_MODE_POSITION)
        return self.report(module, site.node, PaddingPerDimension(
            layer=site.qualname, padding=padding,
            pad_mode=constant_value(pad_mode) if pad_mode is not None else "same",
            pad_mode_given=pad_mode is not None, fixed_padding=fixed))


def padding_without_pad_mode(call: ast.Call, qualname: str | None):
    """(padding, pad_mode, whether pad_mode is given) for a call of a ``mindspore.nn`` convolution given a non-zero
    padding with a pad_mode other than "pad"; None otherwise, and for PyTorch's per-dimension tuple, which
    ``pad_mode="pad"`` does not mend (``per_dimension_padding``)."""
    if not api.is_nn_name(qualname) or any(k.arg is None for k in call.keywords) or per_dimension_padding(
            call, qualname) is not None:
        return None
    padding = constant_value(argument(call, "padding", PADDING_POSITION))
    if not is_nonzero_padding(padding):
        return None
    pad_mode_expr = argument(call, "pad_mode", PAD_MODE_POSITION)
    pad_mode = "same" if pad_mode_expr is None else constant_value(pad_mode_expr)
    if not isinstance(pad_mode, str) or pad_mode == "pad":
        return None
    return padding, pad_mode, pad_mode_expr is not None
