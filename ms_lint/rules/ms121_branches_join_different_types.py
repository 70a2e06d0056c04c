"""MS121: a value whose dtype or type differs between the two paths of a condition on tensor data."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.model import GraphFunction, ModuleFacts
from ms_lint.model.syntax import self_attribute
from ms_lint.rules.base import Rule
from ms_lint.rules.ms120_logging_in_graph import runtime_condition
from ms_lint.rules.tensor_evidence import evidently_tensor

_DTYPES = frozenset({
    "float16", "float32", "float64", "bfloat16", "half", "single", "double", "int8", "int16", "int32", "int64",
    "uint8", "uint16", "uint32", "uint64", "bool_", "complex64", "complex128",
})
_CAST_METHODS = frozenset({"astype", "to"})
_EXITS = (ast.Return, ast.Raise, ast.Continue, ast.Break)
_PRIOR = object()  # the value a name held before the ``if``, left unchanged by one path


@dataclass(frozen=True)
class _Type:
    """What the model decides of a value: ``kind`` is "dtype" (an explicit cast to ``dtype`` of ``source``),
    "int", "float", "None" or "tensor" (tensor data of unknown dtype)."""

    kind: str
    dtype: str = ""
    source: ast.AST | None = None

    @property
    def text(self) -> str:
        return self.dtype if self.kind == "dtype" else "Tensor" if self.kind == "tensor" else self.kind


@dataclass(frozen=True, kw_only=True)
class DifferentTypesJoined(FindingData):
    """Two paths of a condition on tensor data giving a value two types or dtypes: the name bound (for a name),
    the two types (``float16``, ``Tensor``, ``int``, ``None``, ``uncast``), the syntax levels the join fails at,
    the line of the ``if`` or conditional expression, what is joined (``name``, ``return``: the returned value,
    ``expression``: a conditional expression), the graph function, whether it is judged at STRICT."""

    name: str | None = fact(optional=True, subject=True)
    types: list[str]
    levels: list[str]
    condition_line: int
    joined: str
    function: str
    strict: bool

    def message(self) -> str:
        what = {"name": f"`{self.name}`", "return": "the returned value"}.get(self.joined, "the expression")
        kind = "a conditional expression" if self.joined == "expression" else "an `if`"
        level_text = "under STRICT and LAX" if "lax" in self.levels else "under STRICT (LAX runs it)"
        first, second = self.types
        return (f"{what} is {_describe(first)} on one path of {kind} at line {self.condition_line} and "
                f"{_describe(second)} on the other ({self.function}); its condition is tensor data, which the "
                f"compiler cannot fold, so it joins both paths and fails {level_text}: TypeError \"Cannot join the "
                f"return values of different branches\"{_STRICT_FIRST if self.strict else ''}; give it one dtype and "
                "type on every path (cast on both, or after the `if`)")


class BranchesJoinDifferentTypes(Rule):
    code = "MS121"
    compiled_only = True
    name = "branches-join-different-types"
    summary = "a value cast, or given a Python number or `None`, on one path of an `if` on tensor data only"
    fix_summary = "give the value one dtype and type on every path: cast it on both, or after the `if`"
    what = """
        Reports, in graph code, an `if` (or `a if cond else b`) whose condition is tensor data the function computes
        (`x.sum() > 0`, `(mask == 0).any()`) or an input it uses as a tensor (`t[0] > 0` where the function calls
        `ops.relu(t)` or `t.sum()`), when a name read after it, or the values returned on its two paths,
        evidently differ in type: an explicit cast to a dtype constant (`x.astype(ms.float16)`, `ops.cast(x,
        ms.int32)`, `x.to(ms.float16)`, a `Cast` primitive: `self.cast(x, mstype.float16)` with
        `self.cast = P.Cast()`) on one path and the uncast value or a cast to another dtype on the other;
        a Python `int` or `float` on one path and tensor data on the other; `None` on one path and tensor data on the
        other (under STRICT only). It does not decide dtypes it cannot see: two different tensors, values from
        sub-cells or helpers, `float()`/`half()` conversions, or tuples (tuples of different lengths join: measured).
        A condition the compiler folds to a constant (`if self.training:`, `if mask is None:`, `if x.dtype ==
        ms.float32:`, a shape, a literal flag) keeps one path and is not reported.
    """
    why = """
        The compiler cannot evaluate a condition on tensor data, so it compiles both paths and joins what each
        gives; values of different dtypes or types do not join. Measured on MindSpore 2.10 CPU: a cast on one path
        only fails under STRICT and LAX with TypeError "Cannot join the return values of different branches,
        perhaps you need to make them equal. Type Join Failed: dtype1 = Float16, dtype2 = Float32" (under STRICT
        a value joined and then used in an operation may fail earlier, with ValueError "the inputs should be
        constant"); an `int` or `float` on one path and a tensor on the other fails the same way; `None` against
        a tensor fails under STRICT and runs under LAX. Under LAX a joined value that never reaches the output
        compiles, so with `--ms-syntax-level=lax` only values that reach what the function returns are reported.
        PyNative runs only the path taken.
    """
    example = """
        class Net(nn.Cell):
            def construct(self, x):
                if x.abs().max() > 100:
                    y = x.astype(ms.float16)
                else:
                    y = x
                return y
    """
    use_instead = """
        class Net(nn.Cell):
            def construct(self, x):
                if x.abs().max() > 100:
                    y = x.astype(ms.float16)
                else:
                    y = x.astype(ms.float16)
                return y
    """

    records = (DifferentTypesJoined,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        for function in module.graph_functions:
            branches = function.nodes_of(ast.If)
            expressions = function.nodes_of(ast.IfExp)
            if not branches and not expressions:
                continue
            blocks = None
            for branch in branches:
                if not runtime_condition(function, branch.test):
                    continue
                if blocks is None:
                    blocks = _blocks(function.node)
                if id(branch) not in blocks:
                    continue  # inside a nested function, or a statement not walked (``match``)
                block, position = blocks[id(branch)]
                yield from self._names(module, function, branch, block, position)
                yield from self._returns(module, function, branch, block, position)
            for expression in expressions:
                if not runtime_condition(function, expression.test):
                    continue
                if not function.strict and not function.reaches_return(expression):
                    continue
                conflict = _conflict(function, expression.body, expression.orelse)
                if conflict is not None:
                    yield self._report(module, function, expression, "expression", conflict, expression.lineno)

    def _names(self, module: ModuleFacts, function: GraphFunction, branch: ast.If, block: list, position: int):
        names = {target.id for statement in (*branch.body, *branch.orelse) if isinstance(statement, ast.Assign)
                 for target in statement.targets if isinstance(target, ast.Name)}
        for name in sorted(names):
            read = _read_after(block, position, name)
            if read is None or (not function.strict and not function.reaches_return(read)):
                continue
            values = [_path_value(function, branch.body, name), _path_value(function, branch.orelse, name)]
            if any(value is None for value in values):
                continue  # a path that leaves, or binds the name in a way not followed here
            values = [_Prior(_prior_value(function, block, position, name)) if value is _PRIOR else value
                      for value in values]
            conflict = _conflict(function, *values)
            if conflict is not None:
                # at the path that gives the cast, the number or None (MindSpore's error shows both paths)
                paths = [block for block, value in zip((branch.body, branch.orelse), values)
                         if not isinstance(value, _Prior)]
                odd = [block for block, text in zip((branch.body, branch.orelse), conflict[:2])
                       if block in paths and text not in ("uncast", "Tensor")]
                statement = next(s for s in (odd or paths)[0] if _binds(s, name))
                yield self._report(module, function, statement, "name", conflict, branch.lineno, name=name)

    def _returns(self, module: ModuleFacts, function: GraphFunction, branch: ast.If, block: list, position: int):
        if not branch.body or not isinstance(branch.body[-1], ast.Return) or branch.body[-1].value is None:
            return
        returned = branch.body[-1]
        if branch.orelse:
            if not isinstance(branch.orelse[-1], ast.Return):
                return
            other = branch.orelse[-1]
            between = branch.orelse[:-1]
        else:
            later = [i for i in range(position + 1, len(block)) if isinstance(block[i], ast.Return)]
            if not later:
                return
            other = block[later[0]]
            between = block[position + 1:later[0]]
        if other.value is None or any(isinstance(node, _EXITS) for s in between for node in ast.walk(s)):
            return
        first, second = returned.value, other.value
        if _rebinds(between, second) or _rebinds(branch.body[:-1], first):
            return  # a path's value reads names that path binds again: not what the other path reads
        pairs = list(zip(first.elts, second.elts)) if (
            isinstance(first, ast.Tuple) and isinstance(second, ast.Tuple)
            and len(first.elts) == len(second.elts)) else [(first, second)]
        for mine, theirs in pairs:
            conflict = _conflict(function, mine, theirs)
            if conflict is not None:
                yield self._report(module, function, returned, "return", conflict, branch.lineno)
                return

    def _report(self, module, function, node, joined, conflict, line, name=None):
        first, second, strict_only = conflict
        return self.report(module, node, DifferentTypesJoined(
            name=name, types=[first, second], levels=["strict"] if strict_only else ["strict", "lax"],
            condition_line=line, joined=joined, function=function.label, strict=function.strict))


# Measured (tests/test_ground_truth_joins_and_logging.py): under STRICT an operation on the joined value may fail
# before the join does.
_STRICT_FIRST = (" (under STRICT, ValueError \"the inputs should be constant\" instead where an operation uses the "
                 "joined value first)")


class _Prior:
    """What a name held before the ``if``, on the path that leaves it unchanged: the value of its last plain
    assignment before the ``if``, or None when that is not known (a parameter, ``y = self.norm(y)``)."""

    def __init__(self, value: ast.AST | None):
        self.value = value


class _OwnCast:
    """``y = y.astype(D)`` on one path: a cast of the value the name held before the ``if``."""

    def __init__(self, value: ast.AST):
        self.value = value


def _describe(type_text: str) -> str:
    if type_text == "uncast":
        return "the uncast value"
    if type_text in ("int", "float"):
        return f"a Python {type_text}"
    if type_text == "None":
        return "None"
    if type_text == "Tensor":
        return "tensor data"
    return type_text


def _blocks(function: ast.AST) -> dict[int, tuple[list, int]]:
    """For each statement of ``function`` (nested functions left out): its block and its place in it."""
    found: dict[int, tuple[list, int]] = {}
    stack = [function.body]
    while stack:
        block = stack.pop()
        for position, statement in enumerate(block):
            found[id(statement)] = (block, position)
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(statement, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    stack.append(inner)
            for handler in getattr(statement, "handlers", ()):
                stack.append(handler.body)
    return found


def _binds(statement: ast.stmt, name: str) -> bool:
    """Whether ``statement`` (anywhere inside it) binds ``name``."""
    for node in ast.walk(statement):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return True
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any(
                (alias.asname or alias.name.split(".")[0]) == name for alias in node.names):
            return True
    return False


def _simple_assignment(statement: ast.stmt, name: str) -> ast.AST | None:
    """The value of ``name = value`` (one target, a plain name), or None."""
    if (isinstance(statement, ast.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name) and statement.targets[0].id == name):
        return statement.value
    return None


def _path_value(function: GraphFunction, block: list, name: str):
    """What ``name`` holds at the end of ``block``: the value of its one binding there (a plain assignment at the
    block's own level), ``_PRIOR`` when the block does not bind it, None when the block leaves (``return``,
    ``raise``, ``break``, ``continue``) or binds it in another way or more than once."""
    if block and isinstance(block[-1], _EXITS):
        return None
    binding = [statement for statement in block if _binds(statement, name)]
    if not binding:
        return _PRIOR
    if len(binding) != 1:
        return None
    value = _simple_assignment(binding[0], name)
    if value is not None and _rebinds(block[:block.index(binding[0])], value):
        return None  # ``x = f(x); y = x``: what the value reads is not what it read before the ``if``
    if value is None or not _uses_name(value, name):
        return value
    cast = _cast(function, value)
    return _OwnCast(value) if cast is not None and isinstance(cast[1], ast.Name) and cast[1].id == name else None


def _uses_name(expr: ast.AST, name: str) -> bool:
    return any(isinstance(node, ast.Name) and node.id == name for node in ast.walk(expr))


def _prior_value(function: GraphFunction, block: list, position: int, name: str) -> ast.AST | None:
    """What ``name`` holds before the ``if`` at ``block[position]``: the value of the last statement of the block
    before it that binds it, when that is a plain assignment not reading the name; None otherwise."""
    for index in range(position - 1, -1, -1):
        if _binds(block[index], name):
            value = _simple_assignment(block[index], name)
            if value is None or _uses_name(value, name) or _rebinds(block[index + 1:position], value):
                return None
            return value
    return None


def _rebinds(statements: list, expr: ast.AST) -> bool:
    """Whether any of ``statements`` binds a name ``expr`` reads."""
    names = {node.id for node in ast.walk(expr) if isinstance(node, ast.Name)}
    return any(_binds(statement, name) for statement in statements for name in names)


def _read_after(block: list, position: int, name: str) -> ast.Name | None:
    """The first read of ``name`` in the statements of ``block`` after ``position``, before any of them binds it
    again; None when none reads it."""
    for statement in block[position + 1:]:
        reads = [node for node in ast.walk(statement) if isinstance(node, ast.Name) and node.id == name
                 and isinstance(node.ctx, ast.Load)]
        if reads:
            return min(reads, key=lambda node: (node.lineno, node.col_offset))
        if _binds(statement, name):
            return None
    return None


def _cast(function: GraphFunction, expr: ast.AST) -> tuple[str, ast.AST] | None:
    """(dtype name, what is cast) for ``e.astype(D)``, ``e.to(D)``, ``ops.cast(e, D)`` (any spelling of MindSpore's
    ``cast``), and a ``Cast`` primitive called with ``D`` (``self.cast(e, D)`` with ``self.cast = P.Cast()``,
    ``P.Cast()(e, D)``), with a MindSpore dtype constant ``D``; None otherwise."""
    if not isinstance(expr, ast.Call):
        return None
    func = expr.func
    if isinstance(func, ast.Attribute) and func.attr in _CAST_METHODS and len(expr.args) == 1 and not expr.keywords:
        dtype = _dtype(function, expr.args[0])
        return (dtype, func.value) if dtype else None
    if len(expr.args) != 2:
        return None
    if isinstance(func, ast.Attribute) and func.attr == "cast" and isinstance(func.value, ast.Name) and (
            func.value.id in ("ops", "P", "F")):
        called = "mindspore.ops.cast"  # the usual spellings, whatever the module imports them as
    elif isinstance(func, ast.Call):
        called = function.module.qualname(func.func)  # P.Cast()(e, D)
    elif self_attribute(func, function.self_name) is not None and function.owner is not None:
        called = function.owner.attribute_constructor(func.attr)  # self.cast(e, D)
    else:
        called = function.module.qualname(func)
    if not api.is_mindspore_name(called, "cast", "Cast"):
        return None
    dtype = _dtype(function, expr.args[1])
    return (dtype, expr.args[0]) if dtype else None


def _dtype(function: GraphFunction, expr: ast.AST) -> str:
    """The dtype a MindSpore dtype constant names (``ms.float16``, ``mstype.float32``, ``mindspore.int32``, a name
    imported from ``mindspore``), or ""."""
    if not isinstance(expr, (ast.Attribute, ast.Name)):
        return ""
    name = expr.attr if isinstance(expr, ast.Attribute) else expr.id
    if name not in _DTYPES:
        return ""
    qualname = function.module.qualname(expr)
    spelled = ast.unparse(expr.value) if isinstance(expr, ast.Attribute) else ""
    if api.is_mindspore(qualname) or spelled in (
            "ms", "mindspore", "mstype", "mindspore.common.dtype", "dtype", "mindspore.dtype"):
        return {"half": "float16", "single": "float32", "double": "float64"}.get(name, name)
    return ""


def _type_of(function: GraphFunction, expr) -> _Type | None:
    if isinstance(expr, (_Prior, _OwnCast)):
        expr = expr.value
        if expr is None:
            return None
    if isinstance(expr, ast.Constant):
        if expr.value is None:
            return _Type("None")
        if isinstance(expr.value, bool):
            return None
        if isinstance(expr.value, int):
            return _Type("int")
        if isinstance(expr.value, float):
            return _Type("float")
        return None
    cast = _cast(function, expr)
    if cast is not None:
        return _Type("dtype", cast[0], cast[1])
    # any tensor data joins as a tensor: an element of it, a parameter the function uses as one or a parent Cell
    # passes one (``x * 2`` where the condition is ``x[0] > 0`` and the parent passes ``ops.relu(h)``)
    if evidently_tensor(function, expr, in_condition=True):
        return _Type("tensor")
    return None


def _conflict(function: GraphFunction, first, second) -> tuple[str, str, bool] | None:
    """(type of the first, type of the second, whether only STRICT fails) when the two values evidently do not
    join at the function's syntax level; None when they join or the model cannot tell."""
    found = _types_that_do_not_join(function, first, second)
    return None if found is None or (found[2] and not function.strict) else found


def _types_that_do_not_join(function: GraphFunction, first, second) -> tuple[str, str, bool] | None:
    one, other = _type_of(function, first), _type_of(function, second)
    for cast, value, other_type, flip in ((one, first, other, False), (other, second, one, True)):
        if cast is None or cast.kind != "dtype" or (other_type is not None and other_type.kind == "dtype"):
            continue
        if _casts_the_other(cast, value, second if value is first else first):
            return ("uncast", cast.dtype, False) if flip else (cast.dtype, "uncast", False)
    if one is None or other is None:
        return None
    if one.kind == other.kind == "dtype":
        return (one.dtype, other.dtype, False) if one.dtype != other.dtype else None
    kinds = {one.kind, other.kind}
    if kinds & {"dtype", "tensor"} and kinds & {"int", "float"}:
        return one.text, other.text, False
    if kinds & {"dtype", "tensor"} and "None" in kinds:
        return one.text, other.text, True
    return None


def _casts_the_other(cast: _Type, value, other) -> bool:
    """Whether the other path's value is the very value ``cast`` converts: ``y = x.astype(D)`` against ``y = x``
    (or ``y = x`` before the ``if``), or ``x = x.astype(D)`` against the ``x`` held before the ``if``."""
    if isinstance(value, _OwnCast):
        return isinstance(other, _Prior)
    if isinstance(other, _Prior):
        other = other.value
    source = cast.source
    return (isinstance(other, (ast.Name, ast.Attribute)) and isinstance(source, (ast.Name, ast.Attribute))
            and ast.dump(other) == ast.dump(source))
