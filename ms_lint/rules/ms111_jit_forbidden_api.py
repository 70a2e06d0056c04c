"""MS111: APIs that MindSpore itself refuses in graph code, as listed by the installed MindSpore."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.model import TENSOR, GraphFunction, ModuleFacts
from ms_lint.model.syntax import self_attribute
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.rules.base import Rule

# Classes whose instances graph code may not create; not in the jit-forbidden registry, refused by the compiler
# itself (measured 2.10.0 and 2.7.1 CPU, STRICT and LAX: ValueError "creating class
# 'mindspore.ops.composite.base.MultitypeFuncGraph' instances is not supported").
_NOT_CREATED_IN_GRAPH = ("MultitypeFuncGraph",)

# Deprecated from 2.7: their deprecation warning goes through mindspore.log, which the registry refuses, so a call
# in graph code fails at every syntax level with "the method or function 'mindspore.log.warning' is not supported"
# (read in the sources of 2.7.0, 2.7.1 and 2.10.0; compiled on 2.7.1 and 2.10.0 CPU, constant dtype or not).
_WARNS_THROUGH_LOG = {"dtype_to_nptype": (2, 7)}

_ALTERNATIVES = {
    "set_data": "use ops.assign(param, value)",
    "assign_value": "use ops.assign(param, value)",
}


@dataclass(frozen=True, kw_only=True)
class RefusedInGraph(FindingData):
    """An API MindSpore refuses in graph code: its name and module (``Cell``, ``Tensor`` for a method), the
    version of the tables read and the target's version, the graph function. A class graph code may not create
    (``MultitypeFuncGraph``) and a call that warns through ``mindspore.log`` are told apart by their names."""

    name: str = fact(subject=True)
    module: str
    version: str = fact(for_users=True)
    target_version: str
    function: str

    def message(self) -> str:
        if self.module == "mindspore.ops" and self.name in _NOT_CREATED_IN_GRAPH:
            return (f"{self.name}(...) creates an instance in graph code ({self.function}), which MindSpore refuses "
                    "at every syntax level (ValueError: \"creating class ... instances is not supported\"); create "
                    "it once at module level")
        if self.module == "mindspore" and self.name in _WARNS_THROUGH_LOG and api.at_least(
                self.target_version, _WARNS_THROUGH_LOG[self.name]):
            return (f"{self.name}() in graph code ({self.function}) logs a deprecation warning through mindspore.log, "
                    "which MindSpore refuses in graph code: fails to compile at every syntax level (\"'mindspore.log."
                    "warning' is not supported\"); call it in __init__ or outside the Cell and keep the result")
        fix = _ALTERNATIVES.get(self.name, "call it in __init__ or outside the Cell and keep the result")
        return (f"{self.module}.{self.name}() is refused by MindSpore in graph code ({self.function}): fails to "
                f"compile at every syntax level; {fix}")


class JitForbiddenApi(Rule):
    code = "MS111"
    compiled_only = True
    name = "jit-forbidden-api"
    summary = "an API MindSpore refuses in graph code (`trainable_params`, `register_forward_hook`, `get_context`, ...)"
    fix_summary = "call it in `__init__` or outside the Cell; in graph code use the graph-mode alternative"
    what = """
        Reports calls in graph code to the APIs MindSpore's own jit-forbidden registry refuses: Cell methods such as
        `trainable_params()`, `get_parameters()`, `state_dict()`, `to()`, `register_forward_hook()` (on `self` or a
        sub-cell), `Tensor.assign_value()`, and functions of `mindspore.context`, `mindspore.log` and
        `mindspore.common.initializer` (in any spelling, e.g. `ms.get_context`), the creation of a
        `MultitypeFuncGraph` (which the compiler refuses outside the registry), and, from 2.7, `dtype_to_nptype()`
        (deprecated: its warning goes through `mindspore.log`). The list is MindSpore's own, read
        from each release by `python -m ms_lint.tools.generate_tables`; the target's version decides (2.10 lists
        `Cell.to()` and `Cell.to_empty()`, methods 2.7.1's Cell does not have).
        Calls MS106 or MS107 already report are not reported again.
    """
    why = """
        MindSpore checks every call in graph code against this registry and stops the compile at every syntax level:
        "Failed to compile in GRAPH_MODE because the method or function '...' is not supported in 'construct' or
        function with @jit decorator".
    """
    example = """
        class Net(nn.Cell):
            def construct(self, x):
                count = len(self.trainable_params())
                return x * count
    """
    use_instead = """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.count = len(self.trainable_params())

            def construct(self, x):
                return x * self.count
    """

    records = (RefusedInGraph,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        functions, modules, methods = api.jit_forbidden(module.target.version)
        for function in module.graph_functions:
            for node in function.nodes_of(ast.Call):
                qualname = module.qualname(node.func)
                if qualname and api.is_mindspore_name(qualname, *_NOT_CREATED_IN_GRAPH):
                    yield self.report(module, node, RefusedInGraph(
                        name=api.last_name(qualname), module="mindspore.ops",
                        version=api.mindspore_version(module.target.version),
                        target_version=module.target.version, function=function.label))
                    continue
                deprecated = api.last_name(qualname) if qualname else None
                if (deprecated in _WARNS_THROUGH_LOG and api.is_mindspore_name(qualname, deprecated)
                        and api.at_least(module.target.version, _WARNS_THROUGH_LOG[deprecated])):
                    yield self.report(module, node, RefusedInGraph(
                        name=deprecated, module="mindspore", version=api.mindspore_version(module.target.version),
                        target_version=module.target.version, function=function.label))
                    continue
                if qualname and (qualname in functions or qualname.startswith(modules)):
                    yield self._refused(module, function, node, qualname)
                    continue
                method = _forbidden_method(function, node, methods)
                if method:
                    yield self._refused(module, function, node, method)

    def _refused(self, module, function: GraphFunction, node: ast.Call, api_name: str) -> Finding:
        owner, _, name = api_name.rpartition(".")
        return self.report(module, node, RefusedInGraph(
            name=name, module=owner, version=api.mindspore_version(module.target.version),
            target_version=module.target.version, function=function.label))


def _forbidden_method(function: GraphFunction, call: ast.Call, methods: dict[str, api.NameSet]) -> str | None:
    func = call.func
    if not isinstance(func, ast.Attribute):
        return None
    receiver = func.value
    owner = function.owner
    if func.attr in methods.get("Cell", ()) and owner is not None and owner.is_cell:
        if isinstance(receiver, ast.Name) and receiver.id == function.self_name:
            return f"Cell.{func.attr}"
        attribute = self_attribute(receiver, function.self_name)
        if attribute is not None and owner.has_attribute("cell_attributes", attribute):
            return f"Cell.{func.attr}"
    # The method's name first: what the receiver holds takes a look into the function's data.
    tensor_class = next((name for name in ("Parameter", "Tensor") if func.attr in methods.get(name, ())), None)
    if tensor_class is not None and function.kind(receiver) == TENSOR:
        return f"{tensor_class}.{func.attr}"
    return None
