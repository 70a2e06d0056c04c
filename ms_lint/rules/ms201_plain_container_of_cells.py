"""MS201: Cells kept in a plain Python list, tuple or dict on a Cell."""
from __future__ import annotations

from typing import Iterator

from ms_lint.model import ModuleFacts
from ms_lint.findings import Finding
from ms_lint.fixes import Edit, FixContext, wrap_container
from ms_lint.rules.base import Rule


class PlainContainerOfCells(Rule):
    code = "MS201"
    name = "plain-container-of-cells"
    summary = "Cells stored on a Cell in a plain list, tuple or dict"
    fix_summary = "`nn.CellList`, `nn.SequentialCell` or `nn.CellDict`"
    autofix = """
        `ms-lint check --fix` wraps a list or comprehension in `nn.CellList(...)` and a dict in `nn.CellDict(...)`,
        importing `nn` with the module's existing alias. Safe: registering the Cells changes nothing but the fact
        that their parameters are now trained and saved.
    """
    what = """
        Reports the statement that puts a Cell into a Python list, tuple or dict that a Cell keeps as an attribute:
        `self.blocks = [Block() for _ in range(n)]`, `self.heads = {"a": nn.Dense(2, 2)}`,
        `self.layers.append(nn.Dense(2, 2))` into a plain list. Not reported: a container later handed to
        `nn.CellList`/`nn.SequentialCell`/`nn.CellDict` (or any Cell constructor), or whose Cells are registered one
        by one with `setattr(self, ...)`/`insert_child_to_cell`.
    """
    why = """
        MindSpore registers a sub-cell only when it is assigned to an attribute directly or through a Cell
        container. Cells in a plain container are invisible: their parameters are missing from
        `trainable_params()` and checkpoints and are never trained, in every mode (PyNative included). When two
        listed Cells have a parameter of the same name, the graph compile fails with RuntimeError "its name
        'weight' already exists" (reported at the use in `construct`). A list of parameter-free Cells (ReLU) works
        today but silently breaks once a weighted layer joins it, so it is reported too.
    """
    example = """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.blocks = [nn.Dense(16, 16) for _ in range(4)]

            def construct(self, x):
                for block in self.blocks:
                    x = block(x)
                return x
    """
    use_instead = """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.blocks = nn.CellList([nn.Dense(16, 16) for _ in range(4)])

            def construct(self, x):
                for block in self.blocks:
                    x = block(x)
                return x
    """

    def fix(self, context: FixContext, finding: Finding) -> list[Edit]:
        container = next((c for c in context.module.plain_containers()
                          if any(site is finding.node for site, _ in c.element_sites)), None)
        if container is None:
            return []
        registering = "mindspore.nn.CellDict" if container.is_dict else "mindspore.nn.CellList"
        return wrap_container(context, finding, registering)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        for container in module.plain_containers():
            sites = [statement for statement, kind in container.element_sites if kind == "cell"]
            fix = "nn.CellDict" if container.is_dict else "nn.CellList (or nn.SequentialCell)"
            for statement in sites:
                yield self.finding(
                    module, statement,
                    f"Cells in a plain Python {'dict' if container.is_dict else 'list'} ({container.target}) on "
                    f"{container.owner.name} are not registered: their parameters are never trained or saved, "
                    f"and duplicate parameter names fail the compile; use {fix}",
                    scope=container.owner.name,
                    data={"container": container.target, "attribute": container.site_attribute(statement),
                          "kind": "dict" if container.is_dict else "list", "cell": container.owner.name},
                )
