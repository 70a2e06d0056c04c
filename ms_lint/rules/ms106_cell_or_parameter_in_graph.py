"""MS106: a weighted Cell, or a Parameter, created in graph code."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.model import ModuleFacts
from ms_lint.model.syntax import self_attribute
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.rules.base import Rule


@dataclass(frozen=True, kw_only=True)
class BuiltInGraph(FindingData):
    """A Parameter (``built``: ``parameter``) or a weighted Cell (``cell``) created in graph code: the callee, the
    graph function, and the attribute of the instance the Cell is assigned to (``self.bias``), when it is."""

    callee: str = fact(subject=True)
    built: str
    function: str
    stored_on: str | None = fact(optional=True)

    def message(self) -> str:
        name = api.last_name(self.callee)
        if self.built == "parameter":
            return (f"{name}(...) in graph code ({self.function}) fails to compile at every syntax level; create the "
                    "Parameter in __init__ and update it with ops.assign")
        if self.stored_on is not None:
            return (f"{name} created in graph code ({self.function}) and assigned to {self.stored_on}: assigning a "
                    "Cell to an attribute in graph code fails to compile at every syntax level (TypeError); create "
                    "it in __init__, or swap it from host code before the call")
        return (f"{name} created in graph code ({self.function}) is built once at compile time: its weights are "
                "frozen and never trained (all syntax levels); create it in __init__ and call it in construct")


class CellOrParameterInGraph(Rule):
    code = "MS106"
    compiled_only = True
    name = "cell-or-parameter-in-graph"
    summary = "a Cell with parameters, or a `Parameter`, created in graph code"
    fix_summary = "create it in `__init__` and call it in `construct`"
    replaces = ("MS111",)
    covers_nested = ("MS106", "MS111")
    what = """
        Reports a Cell that owns parameters (`nn.Dense(3, 4)(x)` in `construct`, or a Cell class of the project
        whose `__init__` creates parameters or weighted sub-cells) and `Parameter(...)`/`initializer(...)` created
        in graph code, and any Cell built in graph code and assigned to an attribute of the instance. Parameter-free
        Cells otherwise (activations, pooling, `nn.Softmax()`, losses without weights) are not reported: which
        `mindspore.nn` classes own parameters is read from MindSpore itself. Nor are normalisation layers whose
        parameters start at constants (`nn.LayerNorm`, `nn.GroupNorm` and `mint.nn.LayerNorm` with their default
        initialisers, `mint.nn.LayerNorm(..., elementwise_affine=False)`): built in `construct` they compute the
        plain normalisation, the same on every call in graph mode as in PyNative.
    """
    why = """
        A Cell built in `construct` is built once, while the graph compiles: its weights are frozen at their
        initial random values and never appear in `trainable_params()`, so the network trains without them
        (silently, at every syntax level). `Parameter(...)` and `initializer(...)` in graph code fail to compile at
        every level. A layer whose weights start at ones and zeros loses nothing by being frozen there: it is the
        functional normalisation (`ops.layer_norm` without affine), and PyNative, which builds a new one on every
        call, computes the same (measured 2.10 and 2.7.1 CPU, STRICT and LAX). A Cell built in graph code and
        assigned to an attribute of the instance (`self.bias = new_bias`, to swap a layer) does not compile at all:
        TypeError under STRICT ("the member attribute must be of the Parameter type") and under LAX ("Sub cell ...
        already exists in network") (measured 2.10 and 2.7.1 CPU); the message says so.
    """
    example = """
        class Head(nn.Cell):
            def construct(self, x):
                return nn.Dense(16, 4)(x)
    """
    use_instead = """
        class Head(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(16, 4)

            def construct(self, x):
                return self.fc(x)
    """

    records = (BuiltInGraph,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        for function in module.graph_functions:
            for node in function.nodes_of(ast.Call):
                qualname = module.qualname(node.func)
                if qualname is None:
                    continue  # most calls of graph code (``self.fc(x)``, tensor methods): no class named
                if module.builds_parameter(node) or api.is_mindspore_name(qualname, "initializer"):
                    yield self.report(module, node, BuiltInGraph(callee=qualname, built="parameter",
                                                                 function=function.label))
                elif module.builds_cell(node):
                    stored = _stored_on_instance(function, node)
                    if stored is not None:  # with or without parameters
                        yield self.report(module, node, BuiltInGraph(callee=qualname, built="cell",
                                                                     function=function.label, stored_on=stored))
                        continue
                    if not _owns_own_parameters(module, node, qualname):
                        continue
                    yield self.report(module, node, BuiltInGraph(callee=qualname, built="cell",
                                                                 function=function.label))


def _stored_on_instance(function, call: ast.Call) -> str | None:
    """``self.bias`` where graph code stores the Cell ``call`` builds on the instance: ``self.bias = Cell(...)``,
    or through a local name (``new = Cell(...)`` ... ``self.bias = new``); None when it does not."""
    instance = function.self_name
    if instance is None:
        return None
    names = set()
    assignments = function.nodes_of(ast.Assign)
    for assignment in assignments:
        if assignment.value is call:
            for target in assignment.targets:
                if isinstance(target, ast.Name):
                    names.add(target.id)
                elif _on_instance(target, instance):
                    return f"{instance}.{target.attr}"
    for assignment in assignments:
        if isinstance(assignment.value, ast.Name) and assignment.value.id in names:
            for target in assignment.targets:
                if _on_instance(target, instance):
                    return f"{instance}.{target.attr}"
    return None


def _on_instance(target: ast.AST, instance: str) -> bool:
    return self_attribute(target, instance) is not None


# Normalisation layers whose parameters start at constants: how many arguments may be given by position before the
# first initialiser, and the keywords of the initialisers with the literals that keep the start constant.
_CONSTANT_START = {
    ("nn", "LayerNorm"): (3, {"gamma_init": ("ones",), "beta_init": ("zeros",)}),
    ("nn", "GroupNorm"): (4, {"gamma_init": ("ones",), "beta_init": ("zeros",)}),
    ("mint.nn", "LayerNorm"): (5, {}),
}


def _owns_own_parameters(module: ModuleFacts, call: ast.Call, qualname: str | None) -> bool:
    # A container (SequentialCell([...])) owns only what it is given; the weighted Cells inside are reported.
    entry = api.nn_cell_entry(qualname)
    if entry is not None and entry.get("parameters") == "wrapped":
        return False
    if entry is not None and _starts_at_constants(call, qualname):
        return False
    return bool(module.owns_parameters(call))


def _starts_at_constants(call: ast.Call, qualname: str) -> bool:
    """A ``mindspore.nn``/``mint.nn`` normalisation layer built with every parameter at a constant start (ones and
    zeros): frozen there, it is the plain normalisation. An initialiser given as anything but those literals (a
    name, ``"normal"``) is not."""
    family = "mint.nn" if api.is_mint_nn_name(qualname) else "nn"
    known = _CONSTANT_START.get((family, api.last_name(qualname)))
    if known is None or any(isinstance(argument, ast.Starred) for argument in call.args) or any(
            keyword.arg is None for keyword in call.keywords):
        return False
    positional, keywords = known
    if len(call.args) > positional:
        return False  # an initialiser given by position
    for keyword in call.keywords:
        allowed = keywords.get(keyword.arg)
        if allowed is not None and not (isinstance(keyword.value, ast.Constant) and keyword.value.value in allowed):
            return False
    return True
