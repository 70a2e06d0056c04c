"""MS301: a network converted with ``to_float``/``auto_mixed_precision`` then given an amp level again."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.model import CallSite, ModuleFacts
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.rules.base import Rule

_CONVERTERS = ("auto_mixed_precision", "custom_mixed_precision")
# Where each amp-applying API takes its level: (keyword, position of the positional argument).
_AMP_LEVEL_ARGUMENT = {
    "Model": ("amp_level", None),
    "build_train_network": ("level", 3),
    "auto_mixed_precision": ("amp_level", 1),
}


@dataclass(frozen=True, kw_only=True)
class ConvertedTwice(FindingData):
    """A network converted to mixed precision, then given an amp level: the network's name, the line that
    converted it, the amp level, the call given it."""

    network: str
    converted_on_line: int
    amp_level: str
    callee: str = fact(subject=True)

    def message(self) -> str:
        return (f"{self.network} was already converted to mixed precision (line {self.converted_on_line}) and is "
                f"given amp level {self.amp_level!r} here: MindSpore silently re-casts it, turning layers kept in "
                'float32 to float16; pass amp_level="O0" for a converted network, or drop the manual conversion')


class ToFloatWithAmpLevel(Rule):
    code = "MS301"
    name = "to-float-with-amp-level"
    summary = "a network converted by `to_float`/`auto_mixed_precision` given an amp level other than O0"
    fix_summary = "choose one: keep `to_float` and pass `amp_level=\"O0\"`, or drop `to_float`"
    what = """
        Reports the call that applies an amp level (`Model(..., amp_level=...)`, `amp.build_train_network(...,
        level=...)`, `amp.auto_mixed_precision(net, ...)`) other than `"O0"` to a network that was already converted
        in the same module, by `to_float(...)` on itself or any of its sub-cells (also inside its class) or by
        `amp.auto_mixed_precision`/`amp.custom_mixed_precision`. Wrapping the network in other Cells
        (`nn.WithLossCell(net, loss)`) does not hide the conversion, nor does converting it in a factory function
        of the module (`net = build_network()` where `build_network` calls `to_float` or `auto_mixed_precision` and
        returns the network). Reported only where a conversion keeps some layers in float32 (`to_float(float32)` on
        the network or a sub-cell, `auto_mixed_precision`, `custom_mixed_precision`): a network put wholly in
        float16 by `net.to_float(float16)` has nothing the level could turn, so it is not reported.
    """
    why = """
        MindSpore raises nothing and prints nothing: the amp level re-casts the network, so a layer the author kept
        in float32 with `cell.to_float(mindspore.float32)` silently runs in float16. MindSpore's documentation says
        a network already converted must be given `amp_level="O0"`.
    """
    example = """
        net = Net()
        net.head.to_float(mindspore.float32)
        model = Model(net, loss_fn, optimizer, amp_level="O2")
    """
    use_instead = """
        net = Net()
        net.to_float(mindspore.float16)
        net.head.to_float(mindspore.float32)
        model = Model(net, loss_fn, optimizer, amp_level="O0")
    """

    records = (ConvertedTwice,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        converted = _converted_networks(module)
        if not converted:
            return
        for site in module.calls:
            name = api.last_name(site.qualname or "")
            if name not in _AMP_LEVEL_ARGUMENT or not api.is_mindspore(site.qualname):
                continue
            level = _amp_level(site.node, *_AMP_LEVEL_ARGUMENT[name])
            if level is None or level == "O0":
                continue
            network = _network_argument(site.node)
            if isinstance(network, ast.Name) and (id(site.function), network.id) in converted:
                origin, keeping = converted[(id(site.function), network.id)]
                if origin is site.node or not any(call is not site.node for call in keeping):
                    continue  # all in float16 already (`net.to_float(float16)` alone): nothing for the level to turn
                yield self.report(module, site.node, ConvertedTwice(
                    network=network.id, converted_on_line=origin.lineno, amp_level=level, callee=site.qualname),
                    scope="")


# The call that first converted a network, and the conversions that keep some of its layers in float32.
Conversion = tuple[ast.Call, tuple[ast.Call, ...]]


def _converted_networks(module: ModuleFacts) -> dict[tuple[int, str], Conversion]:
    """(enclosing function id, variable name) -> (the call that first converted it, the conversions that keep
    layers in float32), for every converted network. What keeps float32: `to_float(float32)` on the network or a
    sub-cell (in the function or in the network's class), `auto_mixed_precision`/`custom_mixed_precision` (their
    levels and lists keep some layers in float32). `net.to_float(float16)` alone keeps none."""
    converting_classes: dict[str, tuple[ast.Call, ...]] = {}
    converted: dict[tuple[int, str], Conversion] = {}

    def note(key: tuple[int, str], call: ast.Call, keeps: bool) -> None:
        first, keeping = converted.get(key, (call, ()))
        converted[key] = (first, keeping + ((call,) if keeps else ()))

    for site in module.calls_written("to_float", *_CONVERTERS):
        func = site.node.func
        if isinstance(func, ast.Attribute) and func.attr == "to_float":
            root = _root_name(func.value)
            if root is None:
                continue
            root = _iterated_network(site.function or module.tree, root) or root
            keeps = _to_float32(module, site.node)
            if site.owner is not None and site.function is not None and root == _self_of(site.function):
                converting_classes[site.owner.name] = converting_classes.get(site.owner.name, ()) + (
                    (site.node,) if keeps else ())
            else:
                note((id(site.function), root), site.node, keeps)
        elif api.is_mindspore_name(site.qualname, *_CONVERTERS) and site.node.args:
            network = site.node.args[0]
            if isinstance(network, ast.Name):
                note((id(site.function), network.id), site.node, True)
    if not converted and not converting_classes:
        return converted
    # Instances of converting classes, Cells built around converted networks, and what a factory function of this
    # module returns after converting it (`net = build_network()`), are converted too.
    for _ in range(3):
        factories = _factories(module, converted)
        for site in module.calls:
            assigned = _assigned_name(module, site)
            if assigned is None:
                continue
            key = (id(site.function), assigned)
            if key in converted:
                continue
            if isinstance(site.node.func, ast.Name) and site.node.func.id in factories:
                converted[key] = factories[site.node.func.id]
                continue
            built = module.class_of_constructor(site.node)
            if built and built[1] is not None and built[1].name in converting_classes:
                converted[key] = (site.node, converting_classes[built[1].name])
                continue
            for argument in site.node.args:
                if isinstance(argument, ast.Name) and (id(site.function), argument.id) in converted and (
                        module.builds_cell(site.node) or api.is_mindspore_name(site.qualname, *_CONVERTERS)):
                    converted[key] = converted[(id(site.function), argument.id)]
                    break
    return converted


def _factories(module: ModuleFacts, converted: dict[tuple[int, str], Conversion]) -> dict[str, Conversion]:
    """Module functions that return a converted network: name -> its conversion (see ``_converted_networks``)."""
    found: dict[str, Conversion] = {}
    for name, function in module.functions.items():
        for node in module.index.body_nodes_of(function, (ast.Return,)):
            value = node.value
            if isinstance(value, ast.Name) and (id(function), value.id) in converted:
                found[name] = converted[(id(function), value.id)]
            elif isinstance(value, ast.Call) and api.is_mindspore_name(module.qualname(value.func), *_CONVERTERS):
                found[name] = (value, (value,))
    return found


def _iterated_network(scope: ast.AST, name: str) -> str | None:
    """The network whose cells a loop of ``scope`` (a function, or the module) binds ``name`` to (``for _, cell in
    net.cells_and_names():`` -> ``net``), else None."""
    for node in ast.walk(scope):
        if isinstance(node, ast.For) and any(isinstance(target, ast.Name) and target.id == name
                                             for target in ast.walk(node.target)):
            network = _root_name(node.iter)
            if network is not None and network != name:
                return network
    return None


def _to_float32(module: ModuleFacts, call: ast.Call) -> bool:
    """Whether a ``to_float(...)`` call keeps its cell in float32 (``mindspore.float32``, ``mstype.float32``)."""
    dtype = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "dst_type"), None)
    return dtype is not None and (module.qualname(dtype) or "").rsplit(".", 1)[-1] == "float32"


def _assigned_name(module: ModuleFacts, site: CallSite) -> str | None:
    parent = module.assignment_of(site.node)
    if parent is not None and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
        return parent.targets[0].id
    return None


def _root_name(expr: ast.AST) -> str | None:
    while isinstance(expr, (ast.Attribute, ast.Subscript)):
        expr = expr.value
    if isinstance(expr, ast.Call):
        return _root_name(expr.func) if isinstance(expr.func, ast.Attribute) else None
    return expr.id if isinstance(expr, ast.Name) else None


def _self_of(function) -> str | None:
    positional = function.args.posonlyargs + function.args.args
    return positional[0].arg if positional else None


def _network_argument(call: ast.Call) -> ast.AST | None:
    for keyword in call.keywords:
        if keyword.arg == "network":
            return keyword.value
    return call.args[0] if call.args else None


def _amp_level(call: ast.Call, keyword_name: str, position: int | None) -> str | None:
    value = None
    for keyword in call.keywords:
        if keyword.arg == keyword_name:
            value = keyword.value
    if value is None and position is not None and len(call.args) > position:
        value = call.args[position]
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return value.value
    return None
