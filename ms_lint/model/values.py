"""Values: what kind of data an expression holds in graph code.

TENSOR is data known only when the graph runs; HOST is a host value that holds no tensor data: an array of a host
library (numpy and friends) or another library's object (a sympy number, what ``json.load`` read); None is a
compile-time constant or an unknown value. Only what can hold tensor data is TENSOR: a Python container of host
values is a host value, in graph code too (where it is a constant). The tables say which builtins and library
functions pass a kind through, and which give a count, an index or a flag instead of data. Nothing here knows about
classes or graph code.
"""
from __future__ import annotations

import ast
from typing import Iterator

TENSOR = "tensor"  # data known only when the graph runs
HOST = "host"  # a host value (a numpy array, a sympy number, what a file held), not a tensor

BUILTIN_STATIC_CALLS = frozenset({
    "len", "isinstance", "issubclass", "type", "range", "str", "repr", "hasattr", "getattr", "callable", "id",
    "print", "format", "enumerate", "zip", "tuple", "list", "dict", "min", "max", "abs", "sum", "any", "all",
    "sorted", "reversed", "round", "divmod", "pow", "int", "float", "bool", "super",
})
KIND_PASSING_BUILTINS = frozenset({
    "tuple", "list", "min", "max", "abs", "sum", "sorted", "reversed", "round", "pow", "int", "float", "bool",
    "divmod", "zip", "enumerate", "iter", "next", "dict",
})
# Results that are counts, indices, flags or shapes: host data reaching a result only through them carries no
# value into it (an index selects data, it is not differentiated).
INDEX_BUILTINS = frozenset({"len", "int", "bool", "range", "isinstance", "type", "str", "repr", "hash", "id",
                            "callable", "hasattr"})
INDEX_FUNCTIONS = frozenset({
    "argmax", "argmin", "argsort", "nonzero", "flatnonzero", "argwhere", "searchsorted", "digitize", "count_nonzero",
    "isnan", "isinf", "isfinite", "any", "all", "logical_and", "logical_or", "logical_not", "equal", "not_equal",
    "greater", "greater_equal", "less", "less_equal",
})
# Methods that change a container in place: their arguments become part of it.
MUTATING_METHODS = frozenset({"append", "extend", "insert", "update", "add", "setdefault", "appendleft",
                              "extendleft"})


def join(*kinds: str | None) -> str | None:
    """The kind of a value built from values of ``kinds``: tensor data wins over host data over constants."""
    if TENSOR in kinds:
        return TENSOR
    if HOST in kinds:
        return HOST
    return None


def value_flows(node: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    """(name, expression) for each value that ``node`` puts into a local name: assignments, loop targets,
    ``with ... as``, and in-place container updates (``out.append(v)``, ``out[i] = v``)."""
    if isinstance(node, ast.Assign):
        for target in node.targets:
            yield from _target_flows(target, node.value)
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
        yield from _target_flows(node.target, node.value)
    elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
        yield from _target_flows(node.target, node.iter)
    elif isinstance(node, ast.withitem) and node.optional_vars is not None:
        yield from _target_flows(node.optional_vars, node.context_expr)
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
            node.func.attr in MUTATING_METHODS):
        root = _subscript_root(node.func.value)
        if root is not None:
            for argument in [*node.args, *(k.value for k in node.keywords)]:
                yield root, argument


def _target_flows(target: ast.AST, value: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    if isinstance(target, ast.Name):
        yield target.id, value
    elif isinstance(target, (ast.Tuple, ast.List)):
        paired = isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts) and not any(
            isinstance(e, ast.Starred) for e in (*value.elts, *target.elts))
        for index, element in enumerate(target.elts):
            yield from _target_flows(element, value.elts[index] if paired else value)
    elif isinstance(target, ast.Starred):
        yield from _target_flows(target.value, value)
    elif isinstance(target, ast.Subscript):
        root = _subscript_root(target)
        if root is not None:
            yield root, value


def _subscript_root(expr: ast.AST) -> str | None:
    """``out`` for ``out``, ``out[i]`` and ``out[i][j]``; None for anything else (``self.cache[i]``)."""
    while isinstance(expr, ast.Subscript):
        expr = expr.value
    return expr.id if isinstance(expr, ast.Name) else None


def flatten(structure) -> list:
    if isinstance(structure, list):
        return [kind for element in structure for kind in flatten(element)]
    return [structure]


def join_structures(structures: list):
    if not structures:
        return None
    if all(isinstance(s, list) and len(s) == len(structures[0]) for s in structures):
        return [join_structures([s[i] for s in structures]) for i in range(len(structures[0]))]
    return join(*(kind for s in structures for kind in flatten(s)))


# -- constant conditions ----------------------------------------------------------------------------------------

UNKNOWN = object()  # a value that is not a compile-time constant, or not known to be one
_CONSTANT_TYPES = (bool, int, float, str, type(None))
_COMPARISONS = {
    ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b, ast.Is: lambda a, b: a is b,
    ast.IsNot: lambda a, b: a is not b, ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b, ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}


# The methods of ``str`` that return a value of the string alone, without side effects (``mode.lower()``).
_STRING_METHODS = frozenset({
    "lower", "upper", "casefold", "strip", "lstrip", "rstrip", "title", "capitalize", "startswith", "endswith",
    "isdigit", "isalpha", "isalnum", "islower", "isupper",
})


def string_method_value(call: ast.Call, fold):
    """What a method of a constant string returns as plain Python computes it (``mode.lower()`` with ``mode``
    holding ``"Binary"``: ``"binary"``; ``name.startswith(("a", "b"))``), ``fold(expr)`` giving the constant the
    string and each argument hold; else UNKNOWN. For code Python runs: MindSpore's graph parser is not asked."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr not in _STRING_METHODS or call.keywords:
        return UNKNOWN
    receiver = fold(func.value)
    if not isinstance(receiver, str) or any(isinstance(argument, ast.Starred) for argument in call.args):
        return UNKNOWN
    arguments = [fold(argument) for argument in call.args]
    if any(not (isinstance(argument, str) or isinstance(argument, tuple) and all(
            isinstance(element, str) for element in argument)) for argument in arguments):
        return UNKNOWN
    try:
        return getattr(receiver, func.attr)(*arguments)
    except (TypeError, ValueError):
        return UNKNOWN


def literal(expr: ast.AST | None):
    """The value of a literal (``True``, ``"np"``, ``3``, ``None``, ``-1``, a tuple of them), else UNKNOWN."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, _CONSTANT_TYPES):
        return expr.value
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub) and isinstance(expr.operand, ast.Constant):
        value = expr.operand.value
        return -value if isinstance(value, (int, float)) and not isinstance(value, bool) else UNKNOWN
    if isinstance(expr, ast.Tuple):
        values = tuple(literal(e) for e in expr.elts)
        return UNKNOWN if any(v is UNKNOWN for v in values) else values
    return UNKNOWN


class _TensorData:
    def __repr__(self) -> str:
        return "TENSOR_DATA"


# What a parameter holds where every caller passes a tensor (``Tensor(counts)``, ``x * 2``): no constant, but never
# None, so that ``x is None`` folds (to False) as MindSpore folds it for a tensor input; nothing else about it does.
TENSOR_DATA = _TensorData()


def constant_value(expr: ast.AST, lookup) -> object:
    """The value of ``expr`` when MindSpore's parser can fold it to a constant, else UNKNOWN. ``lookup(node)`` gives
    the constant a Name, ``self.<attribute>`` or a call holds (or UNKNOWN; or TENSOR_DATA, which only ``is None`` and
    ``is not None`` fold); the rest is folded as Python would: ``not``, ``and``/``or``, comparisons and ``is None``
    on constants."""
    value = _folded(expr, lookup)
    return UNKNOWN if value is TENSOR_DATA else value


def _folded(expr: ast.AST, lookup) -> object:
    """``constant_value``, where a tensor a parameter is passed stays TENSOR_DATA (for a comparison with None)."""
    value = literal(expr)
    if value is not UNKNOWN:
        return value
    if isinstance(expr, (ast.Name, ast.Attribute, ast.Call)):
        return lookup(expr)  # (a call: UNKNOWN but where ``lookup`` folds it)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        operand = constant_value(expr.operand, lookup)
        return UNKNOWN if operand is UNKNOWN else not operand
    if isinstance(expr, ast.BoolOp):
        # One deciding operand decides the truth of the whole (``unknown and False`` is false), whatever the others
        # are: that is all a branch asks. Otherwise every operand must be known.
        deciding = isinstance(expr.op, ast.Or)
        values = [constant_value(operand, lookup) for operand in expr.values]
        for value in values:
            if value is not UNKNOWN and bool(value) == deciding:
                return value
        return UNKNOWN if UNKNOWN in values else values[-1]
    if isinstance(expr, ast.IfExp):
        test = constant_value(expr.test, lookup)
        return UNKNOWN if test is UNKNOWN else _folded(expr.body if test else expr.orelse, lookup)
    if isinstance(expr, ast.Compare):
        left = _folded(expr.left, lookup)
        for operator, comparator in zip(expr.ops, expr.comparators):
            right = _folded(comparator, lookup)
            compare = _COMPARISONS.get(type(operator))
            if left is UNKNOWN or right is UNKNOWN or compare is None:
                return UNKNOWN
            if TENSOR_DATA in (left, right) and not (
                    isinstance(operator, (ast.Is, ast.IsNot)) and None in (left, right)):
                return UNKNOWN  # (a tensor's value is not known: only whether it is None is)
            try:
                if not compare(left, right):
                    return False
            except TypeError:
                return UNKNOWN
            left = right
        return True
    return UNKNOWN


# -- annotations ------------------------------------------------------------------------------------------------

_PYTHON_VALUE_TYPES = frozenset({"int", "float", "bool", "str", "bytes", "complex", "None", "NoneType", "Ellipsis"})
# Generic types that hold only what their arguments say: ``tuple[int, ...]``, ``Optional[int]``, ``Sequence[int]``.
_CONTAINER_TYPES = frozenset({
    "tuple", "Tuple", "list", "List", "Sequence", "MutableSequence", "Iterable", "Optional", "Union", "Final",
    "dict", "Dict", "Mapping", "set", "Set", "frozenset", "FrozenSet", "Type", "type",
})


def annotates_python_value(annotation: ast.AST | None) -> bool:
    """Whether ``annotation`` names only Python values (numbers, strings, flags, and containers or unions of them),
    so the parameter holds no tensor: ``int``, ``tuple[int, ...]``, ``Optional[str]``, ``"List[int]"``, ``int | None``,
    ``Literal["np", "ms"]``. An unknown or tensor annotation is not one."""
    if annotation is None:
        return False
    if isinstance(annotation, ast.Constant):
        if annotation.value is None or annotation.value is Ellipsis:
            return True
        if isinstance(annotation.value, str):
            try:
                return annotates_python_value(ast.parse(annotation.value, mode="eval").body)
            except SyntaxError:
                return False
        return False
    if isinstance(annotation, (ast.Name, ast.Attribute)):
        return (annotation.id if isinstance(annotation, ast.Name) else annotation.attr) in _PYTHON_VALUE_TYPES
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return annotates_python_value(annotation.left) and annotates_python_value(annotation.right)
    if isinstance(annotation, ast.Subscript):
        generic = annotation.value
        name = generic.id if isinstance(generic, ast.Name) else generic.attr if isinstance(
            generic, ast.Attribute) else None
        if name == "Literal":
            return True
        if name not in _CONTAINER_TYPES:
            return False
        arguments = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
        return all(annotates_python_value(argument) for argument in arguments)
    return False


def annotated_class(annotation: ast.AST | None, qualname) -> str | None:
    """The qualified name of the one class an annotation names, looking through ``Optional[...]``, ``X | None`` and
    quotes: ``Optional[Cache]`` -> the qualified name of ``Cache``. ``qualname`` resolves a name."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return None
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        sides = [side for side in (annotation.left, annotation.right)
                 if not (isinstance(side, ast.Constant) and side.value is None)]
        return annotated_class(sides[0], qualname) if len(sides) == 1 else None
    if isinstance(annotation, ast.Subscript):
        generic = annotation.value
        if (generic.id if isinstance(generic, ast.Name) else getattr(generic, "attr", None)) == "Optional":
            return annotated_class(annotation.slice, qualname)
        return None
    if isinstance(annotation, (ast.Name, ast.Attribute)):
        return qualname(annotation)
    return None


def join_parameters(kinds: dict[str, str | None], values: dict[str, object], passed_kinds: dict[str, str | None],
                    passed_values: dict[str, object]) -> None:
    """Join into ``kinds`` and ``values`` what one more call passes (its kinds, and its constants or UNKNOWN)."""
    for name, kind in passed_kinds.items():
        kinds[name] = join(kinds.get(name), kind)
    for name, passed in passed_values.items():
        known = values.get(name)
        values[name] = passed if known is None else UNKNOWN if UNKNOWN in (known, passed) else known | passed
