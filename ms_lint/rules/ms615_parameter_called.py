"""MS615: a Parameter called as a function (``cell.weight(HeUniform(), shape)``, a PyTorch initialisation habit)."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.model import ModuleFacts
from ms_lint.model.classes import ClassInfo
from ms_lint.model.syntax import first_argument, self_attribute
from ms_lint.rules.base import Rule


# Attributes a MindSpore base class holds as a Parameter or as a Cell, by what it was given: ``nn.Optimizer`` keeps
# a fixed learning rate as a Parameter, a schedule or a list of rates as a Cell (``ExponentialDecayLR``,
# ``_IteratorLearningRate``; measured 2.10 and 2.7.1), which ``self.learning_rate(self.global_step)`` calls.
_PARAMETER_OR_CELL = frozenset({"learning_rate"})


@dataclass(frozen=True, kw_only=True)
class ParameterCalled(FindingData):
    """A call of a Parameter: the Parameter as written, the class that holds it (a MindSpore layer's qualified name,
    or the Cell of the project whose attribute it is), the arguments as written."""

    parameter: str = fact(subject=True)
    holder: str
    arguments: list[str]
    in_graph: bool

    def message(self) -> str:
        holder = self.holder.replace("mindspore.", "", 1)
        given = ", ".join(self.arguments)
        if len(self.arguments) >= 2:
            instead = (f"{self.parameter}.set_data(initializer({self.arguments[0]}, {self.parameter}.shape, "
                       f"{self.parameter}.dtype))")
        else:
            instead = f"{self.parameter}.set_data(...) to give it a value, or read {self.parameter} itself"
        error = ("the graph code fails to compile, ValueError \"The object is not callable\"" if self.in_graph else
                 "TypeError \"'Parameter' object is not callable\" when the line runs")
        return (f"{self.parameter}({given}) calls {self.parameter}, a Parameter of {holder}, as a function: a "
                f"Parameter is not callable ({error}; measured 2.10 and 2.7.1); use {instead}")


class ParameterCalledAsFunction(Rule):
    code = "MS615"
    name = "parameter-called"
    summary = "a Parameter called as a function (`cell.weight(HeUniform(), cell.weight.shape)`)"
    fix_summary = "re-initialise it with `p.set_data(initializer(init, p.shape, p.dtype))`"
    what = """
        Reports a call of an attribute that holds a Parameter, in any code: an attribute a MindSpore layer creates
        as a Parameter (`weight` and `bias` of `nn.Dense`/`nn.Conv2d`, `gamma`/`beta` of a norm layer,
        `embedding_table`, ...) on a layer the code says it holds (`self.fc = nn.Dense(...)`, or an
        `if isinstance(cell, nn.Dense):` branch of a weight-initialising function in a module that builds such a
        layer and derives no class of its own from it), or a Parameter a Cell of the
        project creates itself (`self.scale = Parameter(...)`, then `self.scale(x)`). An optimizer's
        `learning_rate`, a Parameter for a fixed rate but the schedule Cell for a dynamic one, is not reported. The
        usual source is PyTorch's
        initialisation code ported line by line (`module.weight(HeUniform(), shape)` for
        `nn.init.kaiming_uniform_(module.weight)`).
    """
    why = """
        A Parameter is a tensor, not a function: calling one raises TypeError ("'Parameter' object is not
        callable") when the line runs, while the network is built for an initialising function; in graph code the
        compile fails at both syntax levels ("The object is not callable", a ValueError; measured 2.10 and 2.7.1
        CPU). MindSpore re-initialises a Parameter with `set_data` and an
        `initializer`.
    """
    example = """
        from mindspore import nn
        from mindspore.common.initializer import HeUniform


        def init_weights(cell):
            if isinstance(cell, nn.Dense):
                cell.weight(HeUniform(), cell.weight.shape)


        net = nn.SequentialCell([nn.Dense(4, 4), nn.ReLU()])
        net.apply(init_weights)
    """
    use_instead = """
        from mindspore import nn
        from mindspore.common.initializer import HeUniform, initializer


        def init_weights(cell):
            if isinstance(cell, nn.Dense):
                cell.weight.set_data(initializer(HeUniform(), cell.weight.shape, cell.weight.dtype))


        net = nn.SequentialCell([nn.Dense(4, 4), nn.ReLU()])
        net.apply(init_weights)
    """

    records = (ParameterCalled,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        version = module.target.version
        for function, owner in module.function_nodes():
            nodes = [node for node in module.index.own_code(function) if isinstance(node, ast.Call)
                     and isinstance(node.func, ast.Attribute)]
            if not nodes:
                continue
            receiver = first_argument(function) if owner is not None else None
            in_graph = module.is_graph_code(function)
            for node in nodes:
                func = node.func
                if func.attr in _PARAMETER_OR_CELL:
                    continue
                holder = None
                if owner is not None and self_attribute(func, receiver) is not None:
                    holder = _own_parameter(owner, func.attr)
                if holder is None:
                    layer = module.layer_read(func, function, owner)
                    if layer is not None and func.attr in api.base_parameter_attributes(layer, version):
                        holder = layer
                if holder is not None:
                    yield self.report(module, node, ParameterCalled(
                        parameter=ast.unparse(func), holder=holder,
                        arguments=[ast.unparse(argument) for argument in node.args], in_graph=in_graph))


def _own_parameter(owner: ClassInfo, attribute: str) -> str | None:
    """The Cell's name when ``self.<attribute>`` is a Parameter it creates (and no method of that name exists)."""
    if not owner.is_cell or owner.find_method(attribute) is not None:
        return None
    if not owner.has_attribute("parameter_attributes", attribute):
        return None
    if any(owner.has_attribute(kind, attribute) for kind in ("cell_attributes", "object_attributes")):
        return None
    return owner.name
