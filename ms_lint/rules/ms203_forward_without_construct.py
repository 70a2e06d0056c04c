"""MS203: a Cell that defines PyTorch's ``forward`` but no ``construct``."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.model import ClassInfo, ModuleFacts
from ms_lint.model.syntax import is_static
from ms_lint.findings import Finding, FindingData
from ms_lint.rules.base import Rule

_MAX_DEPTH = 16


def class_member(module: ModuleFacts, info: ClassInfo, name: str, _depth: int = 0) -> bool | None:
    """Whether the user's class ``info`` defines or inherits ``name`` on top of ``nn.Cell``: True, False, or None
    when a base is unknown (a third-party class, a name that does not resolve).

    Bases are followed in this module, in the project's other modules and in MindSpore: ``nn.Cell`` itself adds
    nothing (its ``__call__`` is the one every Cell has), every other ``mindspore.nn`` Cell brings ``construct``.
    """
    if _depth > _MAX_DEPTH:
        return None
    if name in info.methods or name in _class_body_names(info.node):
        return True
    unknown = False
    for base in info.node.bases:
        qualname = module.qualname(base)
        if qualname is None:
            unknown = True
            continue
        if qualname in ("builtins.object", "object"):
            continue
        if api.is_mindspore(qualname):
            if api.last_name(qualname) == "Cell":
                continue
            if api.is_mindspore_cell_class(qualname):
                if name == "construct":
                    return True
                continue
            unknown = True
            continue
        if qualname.startswith(module.local_prefix) and qualname[len(module.local_prefix):] in module.classes:
            found = class_member(module, module.classes[qualname[len(module.local_prefix):]], name, _depth + 1)
        else:
            found = _project_class_member(module, qualname, name, _depth)
        if found:
            return True
        unknown = unknown or found is None
    return None if unknown else False


def _project_class_member(module: ModuleFacts, qualname: str, name: str, depth: int) -> bool | None:
    if qualname.startswith("builtins.") or api.is_host_library(qualname):
        return None
    from ms_lint.model.project import project_class_facts

    found = project_class_facts(module.path, qualname, module.settings)
    if not found:
        return None
    other, class_name = found
    return class_member(other, other.classes[class_name], name, depth + 1)


def _class_body_names(node: ast.ClassDef) -> set[str]:
    """Names bound by plain statements of the class body (``construct = forward``)."""
    names = set()
    for statement in node.body:
        targets = statement.targets if isinstance(statement, ast.Assign) else (
            [statement.target] if isinstance(statement, ast.AnnAssign) and statement.value is not None else [])
        names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


@dataclass(frozen=True, kw_only=True)
class ForwardOnly(FindingData):
    """A Cell that defines ``forward`` and no ``construct``: the Cell."""

    template = ("{cell} defines forward but no construct: MindSpore only calls construct, so the first call fails "
                "in every mode (\"the method 'construct' is not defined\"); rename forward to construct")
    cell: str


class ForwardWithoutConstruct(Rule):
    code = "MS203"
    name = "forward-without-construct"
    summary = "a Cell subclass defines `forward` and no `construct`"
    fix_summary = "rename `forward` to `construct`"
    what = """
        Reports the `def forward` line of a Cell subclass that neither defines nor inherits `construct` (bases are
        followed in the module, across the project's modules and into MindSpore: subclassing `nn.Dense` brings
        its `construct`). Not reported: a class that also overrides `__call__`, a base class whose subclasses
        in the module define `construct` (an abstract base whose `forward` is a helper), and a static
        `forward(ctx, ...)` (a port of a PyTorch autograd Function, used through `.apply`, not called as a Cell),
        and a Cell its application never runs (no file of the application names it).
    """
    why = """
        MindSpore calls a Cell's `construct`, never `forward`. A Cell ported from PyTorch with only `forward` builds
        without complaint and fails at its first call, in every mode and at every syntax level:
        AttributeError "For 'Cell', the method 'construct' is not defined".
    """
    example = """
        class Head(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(16, 4)

            def forward(self, x):
                return self.fc(x)
    """
    use_instead = """
        class Head(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(16, 4)

            def construct(self, x):
                return self.fc(x)
    """

    records = (ForwardOnly,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        for info in module.classes.values():
            forward = info.methods.get("forward")
            if not info.is_cell or forward is None or is_static(forward):
                continue  # a static forward(ctx, ...) belongs to an autograd-Function port used through .apply
            if info.name in module.never_run:
                continue  # a Cell its application never builds is never called
            if class_member(module, info, "construct") is not False:
                continue
            if class_member(module, info, "__call__") is not False:
                continue
            if any(class_member(module, sub, "construct") for sub in _local_subclasses(module, info)):
                continue
            yield self.report(module, forward, ForwardOnly(cell=info.name), scope=info.name)


def _local_subclasses(module: ModuleFacts, info: ClassInfo) -> list[ClassInfo]:
    result, pending = [], [info]
    while pending:
        current = pending.pop()
        for other in module.classes.values():
            if current in other.local_bases and other not in result and other is not info:
                result.append(other)
                pending.append(other)
    return result
