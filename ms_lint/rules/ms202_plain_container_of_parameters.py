"""MS202: Parameters kept in a plain Python list or tuple on a Cell."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from ms_lint.model import ModuleFacts
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.edits import Edit, FixContext
from ms_lint.rules.containers import wrap_container
from ms_lint.rules.base import Rule


@dataclass(frozen=True, kw_only=True)
class ParametersInPlainContainer(FindingData):
    """Parameters put in a plain list, tuple or dict a Cell holds: the container as written (``self.scales``),
    the attribute the finding's line puts them in, the Cell."""

    template = ("Parameters in a plain Python container ({container}) on {cell} are not registered: invisible to "
                "trainable_params(), never trained or saved; use ParameterTuple")
    container: str
    attribute: str | None = fact(subject=True)
    cell: str


class PlainContainerOfParameters(Rule):
    code = "MS202"
    name = "plain-container-of-parameters"
    summary = "Parameters stored on a Cell in a plain list or tuple"
    fix_summary = "`ParameterTuple`"
    autofix = """
        `ms-lint check --fix` wraps the list or tuple in `ParameterTuple(...)` and adds the import. Safe: the
        Parameters become visible to `trainable_params()`, optimizers and checkpoints.
    """
    what = """
        Reports the statement that puts a `Parameter` into a Python list, tuple or dict that a Cell keeps as an
        attribute (`self.scales = [Parameter(...), Parameter(...)]`). Not reported when the container is wrapped
        in `ParameterTuple` or its Parameters are registered one by one.
    """
    why = """
        Only Parameters assigned to an attribute directly, or held in a `ParameterTuple`, are registered. Parameters
        in a plain list are invisible to `trainable_params()`: the optimizer never updates them and checkpoints do
        not save them, in every mode.
    """
    example = """
        class Scale(nn.Cell):
            def __init__(self):
                super().__init__()
                self.scales = [Parameter(Tensor(1.0), name=f"s{i}") for i in range(3)]
    """
    use_instead = """
        class Scale(nn.Cell):
            def __init__(self):
                super().__init__()
                self.scales = ParameterTuple([Parameter(Tensor(1.0), name=f"s{i}") for i in range(3)])
    """

    def fix(self, context: FixContext, finding: Finding) -> list[Edit]:
        return wrap_container(context, finding, "mindspore.ParameterTuple", appendable=False)

    records = (ParametersInPlainContainer,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        for container in module.plain_containers():
            for statement, kind in container.element_sites:
                if kind != "parameter":
                    continue
                yield self.report(module, statement, ParametersInPlainContainer(
                    container=container.target, attribute=container.site_attribute(statement),
                    cell=container.owner.name), scope=container.owner.name)
