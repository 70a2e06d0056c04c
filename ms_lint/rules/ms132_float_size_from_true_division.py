"""MS132: a size computed with true division (``c / 2``, a Python float) given where MindSpore needs an int: a
shape of ``reshape``/``view``/``zeros``/``ones``/``tile``, or ``range``'s bounds, in graph code."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.edits import Edit, FixContext
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.model import HOST, TENSOR, GraphFunction, ModuleFacts
from ms_lint.model.syntax import self_attribute
from ms_lint.rules.base import Rule

# Tensor methods whose arguments are sizes (one shape tuple, or the sizes one by one).
_SIZE_METHODS = frozenset({"reshape", "view", "tile"})
# MindSpore functions (``ops``, ``mint``, ``Tensor``'s functional forms) and where their shape is: the position and
# the keyword names (a shape tuple, or one number).
_SIZE_FUNCTIONS = {"reshape": (1, ("shape", "input_shape")), "tile": (1, ("multiples", "dims")),
                   "zeros": (0, ("size", "shape")), "ones": (0, ("size", "shape"))}
# MindSpore operators built once (``self.reshape = ops.Reshape()``) and called on data: where their shape is.
_SIZE_OPERATORS = {"Reshape": 1, "Tile": 1, "Zeros": 0, "Ones": 0}


@dataclass(frozen=True, kw_only=True)
class FloatSize(FindingData):
    """A size that true division makes a Python float, given where an int is needed: the division, the first call
    that takes it as a size, the line of the division when a name carries it, the other sizes it makes (one finding
    per division), the floor-division fix, the graph function."""

    division: str = fact(subject=True)
    call: str = fact(subject=True)
    carried_by: str
    also: str
    fix: str
    function: str = fact(for_users=True)

    def message(self) -> str:
        return (f"`{self.division}` is a Python float (true division){self.carried_by}, given as a size to "
                f"{self.call}{self.also} in graph code ({self.function}), which needs ints: the call fails in "
                "GRAPH_MODE and PyNative alike (TypeError; measured on MindSpore 2.7.1 and 2.10.0); write "
                f"`{self.fix}`")


class FloatSizeFromTrueDivision(Rule):
    code = "MS132"
    name = "float-size-from-true-division"
    summary = ("a size computed with true division (`c / 2`: a Python float) given to `reshape`, `view`, `tile`, "
               "`zeros`, `ones` or `range` in graph code")
    fix_summary = "divide with `//`: `x.reshape(b, c // 2, 2)`"
    records = (FloatSize,)
    what = """
        Reports a size given to a call that needs ints in graph code (a Cell's `construct`, a `@jit` function, and
        what they call), where the size is a Python float because of a true division of two Python numbers: the
        shape of `x.reshape(...)`, `x.view(...)`, `x.tile(...)`, `ops.reshape(x, shape)`, `ops.tile(x, multiples)`,
        `ops.zeros(shape)`/`ops.ones(shape)` (and `mint`'s), the operators `ops.Reshape()`, `ops.Tile()`,
        `ops.Zeros()`, `ops.Ones()` held by the Cell, and the bounds of `range(...)`. The numbers are those evidently
        Python numbers in graph code: literals and constants, a tensor's shape entries (`x.shape[1]`, `b, c =
        x.shape`, `ops.shape(x)[0]`), `len(...)`, `int(...)`, and arithmetic of them; the division is followed
        through a local name every assignment of which gives such a float (`half = c / 2`). One division is reported
        once, at its first use as a size, with the lines of the others.

        Not reported: `c // 2`, `int(c / 2)`, a float asked for (`x.shape[1] * 0.5` is not a true division), and a
        division of tensor data (`x.sum() / 2` is a tensor, another matter).
    """
    why = """
        `/` of two ints is a float in Python, and MindSpore's graph compiler keeps Python's meaning: `c / 2` with
        `c = 4` is `2.0`. Shapes, tile multiples and `range` bounds must be ints. Measured on CPU with 2.10.0 and
        2.7.1, in GRAPH_MODE at STRICT and LAX and in PyNative (`tests/test_ground_truth_float_sizes.py`):
        `x.reshape(b, c / 2, 2)` and `x.view(...)` raise TypeError ("argument 'shape' ... must be tuple of int, not
        float"), `ops.reshape`, `ops.Reshape()`, `ops.tile`, `ops.zeros` and `ops.ones` raise TypeError ("Failed
        calling Reshape with ... float"), and `range(n / 2)` raises TypeError ("the 0th input should be a int scalar"
        in graph mode; "'float' object cannot be interpreted as an integer" in PyNative). Code ported from Python 2,
        or written as the paper's formula, meets it at the first call.
    """
    example = """
        class Split(nn.Cell):
            def construct(self, x):
                b, c = x.shape
                return x.reshape(b, c / 2, 2)
    """
    use_instead = """
        class Split(nn.Cell):
            def construct(self, x):
                b, c = x.shape
                return x.reshape(b, c // 2, 2)
    """
    autofix = """
        Where the division is written in the size itself, `/` becomes `//` (`c / 2` -> `c // 2`), which gives the
        same value wherever the float would have been whole, as an int. A division bound to a name elsewhere is left
        for the author.
    """

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        for function in module.graph_functions:
            uses: dict[int, list[tuple[ast.Call, ast.AST, ast.BinOp]]] = {}  # one finding per division
            for call in function.nodes_of(ast.Call):
                for size in _sizes(module, function, call):
                    division = function.float_division(size)
                    if division is not None:
                        uses.setdefault(id(division), []).append((call, size, division))
            for found in uses.values():
                found.sort(key=lambda use: (use[1].lineno, use[1].col_offset))
                yield self._finding(module, function, found)

    def _finding(self, module: ModuleFacts, function: GraphFunction,
                 found: list[tuple[ast.Call, ast.AST, ast.BinOp]]) -> Finding:
        call, size, division = found[0]
        inside = _holds(size, division)
        lines = sorted({use[1].lineno for use in found[1:]})
        also = (f", and as {len(found) - 1} more size{_plural(found[1:])} (line{_plural(lines)} "
                f"{', '.join(map(str, lines))})" if len(found) > 1 else "")
        return self.report(module, size, FloatSize(
            division=ast.unparse(division), call=f"`{_short(ast.unparse(call.func))}(...)`",
            carried_by="" if inside else f" (line {division.lineno}, through `{_short(ast.unparse(size))}`)",
            also=also, fix=_floor_text(division), function=function.label))

    def fix(self, context: FixContext, finding: Finding) -> list[Edit]:
        size = finding.node
        function = context.module.graph_function_at(size) if size is not None else None
        division = function.float_division(size) if function is not None else None
        if division is None or not _holds(size, division):
            return []
        return [context.replace(division, f"{context.text(division.left)} // {context.text(division.right)}")]


def _sizes(module: ModuleFacts, function: GraphFunction, call: ast.Call) -> list[ast.AST]:
    """The arguments of ``call`` that must be ints: each size of a shape, each bound of ``range``."""
    func = call.func
    if module.qualname(func) == "builtins.range":
        return list(call.args)
    if isinstance(func, ast.Attribute) and func.attr in _SIZE_METHODS and not module.qualname(func) \
            and function.kind(func.value) in (TENSOR, HOST):
        return _elements(call.args)
    qualname = module.qualname(func)
    if api.is_mindspore(qualname) and api.last_name(qualname) in _SIZE_FUNCTIONS:
        position, keywords = _SIZE_FUNCTIONS[api.last_name(qualname)]
        shape = _argument(call, position, keywords)
        if shape is None:
            return []
        return _elements([shape])
    operator = _operator(module, function, func)
    if operator in _SIZE_OPERATORS:
        shape = _argument(call, _SIZE_OPERATORS[operator], ())
        return _elements([shape]) if shape is not None else []
    return []


def _operator(module: ModuleFacts, function: GraphFunction, func: ast.AST) -> str | None:
    """The name of the MindSpore operator class ``func`` calls an instance of: ``ops.Reshape()(x, s)``,
    ``self.reshape(x, s)`` with ``self.reshape = ops.Reshape()``."""
    if isinstance(func, ast.Call):
        qualname = module.qualname(func.func)
    elif self_attribute(func, function.self_name) is not None and function.owner is not None \
            and function.owner.find_method(func.attr) is None:
        qualname = function.owner.attribute_constructor(func.attr)
    else:
        return None
    return api.last_name(qualname) if api.is_mindspore(qualname) else None


def _argument(call: ast.Call, position: int, keywords: tuple[str, ...]) -> ast.AST | None:
    for keyword in call.keywords:
        if keyword.arg in keywords:
            return keyword.value
    if any(isinstance(argument, ast.Starred) for argument in call.args[:position + 1]):
        return None
    return call.args[position] if position < len(call.args) else None


def _elements(arguments: list[ast.AST]) -> list[ast.AST]:
    """The sizes ``arguments`` give: the elements of one literal tuple or list, or the arguments one by one."""
    if len(arguments) == 1 and isinstance(arguments[0], (ast.Tuple, ast.List)):
        arguments = arguments[0].elts
    return [argument for argument in arguments if not isinstance(argument, ast.Starred)]


def _holds(outer: ast.AST, inner: ast.AST) -> bool:
    return any(node is inner for node in ast.walk(outer))


def _floor_text(division: ast.BinOp) -> str:
    return f"{_short(ast.unparse(division.left))} // {_short(ast.unparse(division.right))}"


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _plural(items: list) -> str:
    return "s" if len(items) > 1 else ""
