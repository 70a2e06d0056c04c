"""The value of a branch condition a compile would fold: what ``source`` evaluates to when it reads only plain Python
values (constants, ``self.<attr>`` chains of the built instance, arguments left at their defaults, buffers), and
whether a condition reads tensor data (then it is compiled on both sides).

A buffer, a tensor of one element held by the instance that is no Parameter (``self.flag = Tensor(False)``,
``self.scale = Tensor(0.5)`` in ``__init__``), is a constant of the graph: MindSpore folds a condition on it by the
value it holds when the graph is built (measured on 2.10 and 2.7.1, CPU, STRICT: ``if self.flag:`` and
``if self.scale > 0:`` over a line that fails to compile compile when the buffer makes them false; so do
``self.x_min.min() > -1.1e-5`` and a buffer ``register_buffer`` keeps). A Parameter's value is compiled on both
sides."""
from __future__ import annotations

import ast
import re

UNKNOWN = object()  # a value the condition reads that is no plain Python value
PLAIN = (bool, int, float, str, bytes, type(None), tuple, frozenset)


class Instance:
    """The compiled instance, as the names a condition is evaluated with hold it: read through, never plain."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


_CONSTANT_READS = re.compile(r"\.(shape|ndim|dtype)\b|\b(len|isinstance|hasattr|getattr|type)\(")
_OPERATOR_MODULES = {"ops", "mint", "mindspore", "ms", "F", "P", "nn", "np"}


def is_tensor_condition(source: str, tensors: frozenset) -> bool:
    """A condition on the tensor inputs' values (``x.sum() > 0``): MindSpore compiles both of its sides. One that
    reads a shape, a dtype or a length is a constant when the graph is built, so it is not one."""
    if not tensors or _CONSTANT_READS.search(source):
        return False
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError:
        return False
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    return bool(names & tensors) and names <= (tensors | _OPERATOR_MODULES)


def condition_value(source: str, names: dict):
    """The value of ``source`` when it only reads plain Python values; ``UNKNOWN`` otherwise."""
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError:
        return UNKNOWN
    try:
        return value_of(tree.body, names)
    except Exception:  # noqa: BLE001 -- user objects can raise anything from a property
        return UNKNOWN


def value_of(node, names):
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in names:
            value = names[node.id]
            if value.__class__ is Instance:
                return value.value
            return value if isinstance(value, PLAIN) else UNKNOWN
        return {"True": True, "False": False, "None": None}.get(node.id, UNKNOWN)
    if isinstance(node, ast.Attribute):
        base = value_of(node.value, names)
        if base is UNKNOWN:
            return UNKNOWN
        value = getattr(base, node.attr, UNKNOWN)
        if value is UNKNOWN:
            return UNKNOWN
        if isinstance(value, PLAIN) or _is_object(value):
            return value
        return buffer_value(value)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args \
            and not node.keywords and node.func.attr in _ONE_ELEMENT_READS:
        # ``self.x_min.min()``: a reduction of a buffer of one element is the value it holds
        held = _buffer_read(node.func.value, names)
        return UNKNOWN if held is UNKNOWN else _ONE_ELEMENT_READS[node.func.attr](held)
    if isinstance(node, ast.IfExp):
        test = _plain(value_of(node.test, names))
        return UNKNOWN if test is UNKNOWN else value_of(node.body if test else node.orelse, names)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        value = _plain(value_of(node.operand, names))
        return UNKNOWN if value is UNKNOWN else not value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = value_of(node.operand, names)  # ``-1.1e-5``
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            return UNKNOWN
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BoolOp):
        values = [_plain(value_of(item, names)) for item in node.values]
        if isinstance(node.op, ast.And):
            if any(value is not UNKNOWN and not value for value in values):
                return False
            return UNKNOWN if any(value is UNKNOWN for value in values) else True
        if any(value is not UNKNOWN and value for value in values):
            return True
        return UNKNOWN if any(value is UNKNOWN for value in values) else False
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        left = value_of(node.left, names)
        right = value_of(node.comparators[0], names)
        op = node.ops[0]
        if isinstance(op, (ast.Is, ast.IsNot)):
            # "x is None" is decided for any object x we could read, tensors included.
            if left is UNKNOWN or right is UNKNOWN:
                if (left is None or right is None) and _known_object(node, names):
                    other = right if left is None else left
                    return (other is None) == isinstance(op, ast.Is)
                return UNKNOWN
            return (left is right) == isinstance(op, ast.Is)
        left, right = _plain(left), _plain(right)
        if left is UNKNOWN or right is UNKNOWN:
            return UNKNOWN
        operations = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b, ast.Lt: lambda a, b: a < b,
                      ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b,
                      ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}
        operation = operations.get(type(op))
        return UNKNOWN if operation is None else operation(left, right)
    return UNKNOWN


def _known_object(node: ast.Compare, names: dict) -> bool:
    """For ``x is None``: whether the side that is not None names a readable object (an attribute that exists)."""
    for side in (node.left, node.comparators[0]):
        if isinstance(side, ast.Constant):
            continue
        if isinstance(side, ast.Name):
            return side.id in names
        if isinstance(side, ast.Attribute):
            base = value_of(side.value, names)
            return base is not UNKNOWN and hasattr(base, side.attr)
    return False


def _is_object(value) -> bool:
    """A plain user object or a Cell, whose attributes may be read further; never a tensor."""
    module = type(value).__module__ or ""
    if "Tensor" in type(value).__name__ or "Parameter" in type(value).__name__:
        return False
    return not module.startswith("numpy")


# What a method without arguments gives for a tensor of one element holding ``value``.
_ONE_ELEMENT_READS = {"min": lambda value: value, "max": lambda value: value, "amin": lambda value: value,
                      "amax": lambda value: value, "item": lambda value: value, "sum": lambda value: value,
                      "mean": lambda value: value, "abs": abs, "all": bool, "any": bool}


def _buffer_read(node, names):
    """The value the buffer ``node`` (an attribute chain: ``self.x_min``) holds; UNKNOWN for anything else."""
    if not isinstance(node, ast.Attribute):
        return UNKNOWN
    base = value_of(node.value, names)
    return UNKNOWN if base is UNKNOWN else buffer_value(getattr(base, node.attr, UNKNOWN))


def buffer_value(value):
    """The Python value a buffer holds (a MindSpore tensor of one element that is no Parameter: a constant the graph
    folds); UNKNOWN for any other value, a tensor without data or a Parameter."""
    kind = type(value)
    if kind.__name__ != "Tensor" or not (kind.__module__ or "").startswith("mindspore"):
        return UNKNOWN  # a Parameter (a subclass of Tensor) is read at run time; numpy arrays are no buffers
    try:
        if value.size != 1:
            return UNKNOWN
        held = value.asnumpy().reshape(-1)[0].item()
    except Exception:  # noqa: BLE001 -- a placeholder tensor without data, or a MindSpore refusing to read it
        return UNKNOWN
    return held if isinstance(held, (bool, int, float)) else UNKNOWN


def _plain(value):
    return value if value is UNKNOWN or isinstance(value, PLAIN) else UNKNOWN


def show(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
