"""MS201: Cells kept in a plain Python list, tuple or dict on a Cell."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from ms_lint.model import ModuleFacts
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.edits import Edit, FixContext
from ms_lint.rules.containers import wrap_container
from ms_lint.rules.base import Rule


@dataclass(frozen=True, kw_only=True)
class CellsInPlainContainer(FindingData):
    """Cells put in a plain list or dict a Cell holds, reported once where the first goes in: the container as
    written (``self.blocks``), the attribute the finding's line puts them in, ``dict`` or ``list``, the Cell, the
    lines that fill it (the finding's first)."""

    container: str
    attribute: str | None = fact(subject=True)
    kind: str
    cell: str
    lines: list[int]

    def message(self) -> str:
        others = self.lines[1:]
        also = f" (also filled on line{'s' if len(others) > 1 else ''} {', '.join(map(str, others))})" if (
            others) else ""
        fix = "nn.CellDict" if self.kind == "dict" else "nn.CellList (or nn.SequentialCell)"
        return (f"Cells in a plain Python {self.kind} ({self.container}){also} on {self.cell} are not registered: "
                "their parameters are never trained or saved, and duplicate parameter names fail the compile; use "
                f"{fix}")


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
        `self.layers.append(nn.Dense(2, 2))` into a plain list. A container is reported once, at the first statement
        that puts a Cell in it; the message names the other statements that fill it. Not reported: a container
        later handed to `nn.CellList`/`nn.SequentialCell`/`nn.CellDict` (or any Cell constructor; also as
        `list(layers)`, `layers[:n]` or `OrderedDict(layers)`) or to the constructor of the Cell container the class
        derives from (`super().__init__(*layers)` in an `nn.SequentialCell` subclass), whose Cells are registered
        one by one with `setattr(self, ...)`/`insert_child_to_cell`, or whose Cells are all known to hold no
        parameter (`nn.ReLU()`, `nn.Dropout(p=0.1)`, an empty `nn.SequentialCell()`). A Cell container built from a
        list the method fills with parameterised Cells (`nn.SequentialCell(blocks)` after `blocks.append(Block())`)
        holds parameters, and a plain list of them is reported.
    """
    why = """
        MindSpore registers a sub-cell only when it is assigned to an attribute directly or through a Cell
        container. Cells in a plain container are invisible: their parameters are missing from
        `trainable_params()` and checkpoints and are never trained, in every mode (PyNative included). When two
        listed Cells have a parameter of the same name, the graph compile fails with RuntimeError "its name
        'weight' already exists" (reported at the use in `construct`). A list of parameter-free Cells (ReLU) loses
        nothing and compiles (measured 2.10 CPU), so it is not reported.
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

    records = (CellsInPlainContainer,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        for container in module.plain_containers():
            init = container.owner.methods.get("__init__")
            sites = [statement for statement, kind in container.element_sites
                     if kind == "cell" and not module.in_dead_branch(statement, init)]
            if not sites:
                continue
            # One container, one root cause: reported once, where its first Cell goes in; the message names the
            # other statements that fill it (both branches of an `if`, a loop and a later `append`).
            first, others = sites[0], sorted({site.lineno for site in sites[1:]} - {sites[0].lineno})
            yield self.report(module, first, CellsInPlainContainer(
                container=container.target, attribute=container.site_attribute(first),
                kind="dict" if container.is_dict else "list", cell=container.owner.name,
                lines=[first.lineno, *others]), scope=container.owner.name)
