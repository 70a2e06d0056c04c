"""MS123: graph code reads ``self.<name>`` that no method of the Cell or of its bases sets (a misspelt attribute)."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.edits import Edit, FixContext
from ms_lint.model import ModuleFacts
from ms_lint.model.classes import ClassInfo
from ms_lint.model.syntax import instance_parameter, self_attribute
from ms_lint.rules.base import Rule


@dataclass(frozen=True, kw_only=True)
class NeverSet(FindingData):
    """An attribute graph code reads that nothing sets: the method reading it, the attribute, the Cell, the
    attribute of the Cell the name most likely means (what the fix writes)."""

    template = ("{method} reads self.{attribute}, which no method of {cell} or of its bases sets: compiling it raises "
                "AttributeError ('{cell}' object has no attribute '{attribute}')")
    method: str = fact(subject=True)
    attribute: str = fact(subject=True)
    cell: str
    suggestion: str | None = fact(optional=True)  # None where the set name near it is another word (``reshape``)

    def message(self) -> str:
        ending = f"; did you mean self.{self.suggestion}?" if self.suggestion else ""
        return super().message() + ending


class AttributeNeverSet(Rule):
    code = "MS123"
    name = "attribute-never-set"
    summary = "graph code reads `self.<name>` that nothing sets, next to one that is (`self.FC1` beside `self.fc1`)"
    fix_summary = "read the attribute that is set (`self.fc1`)"
    records = (NeverSet,)
    what = """
        Reports `self.<name>` read in graph code (`construct` and what it calls) of a Cell whose methods, class
        bodies and bases never set `<name>`, when a name that is set is close to it (`self.FC1` where `__init__`
        set `self.fc1`, `self.conv_1` beside `self.conv1`, `self.porj` beside `self.proj`: the same but for case
        and underscores, or at most two letters apart): a misspelt attribute. What counts as set: every
        `self.<name> = ...` (and `self.a, self.b = ...`, `self.x += ...`) in any method of the class or its bases,
        in this module or in the project's others, the names their class bodies bind (methods, properties, class
        attributes), `register_buffer("name", ...)` and `insert_child_to_cell("name", ...)`, what a subclass of
        this module sets, and what `nn.Cell` itself has (`self.training`, `self.phase`). The rule stays silent for
        a Cell with a base it cannot read (another MindSpore layer, a third-party class), one that sets attributes
        under computed names (`setattr(self, name, ...)`, `self.__dict__`), one with a `__getattr__`, a read
        guarded by `hasattr(self, "<name>")`, a name with no close neighbour (a base class that leaves the
        attribute to its subclasses), and one whose only close neighbour is the method reading it (`forward` calling
        `self._forward`: a hook the subclasses define). Where the close name holds the read whole with letters
        added (`self.shape` beside `self.reshape`), it is another word: the finding says the read is never set and
        suggests nothing, and there is no fix.
    """
    why = """
        The graph compiler resolves every `self.<name>` while it compiles: a name the instance does not have
        raises AttributeError ("'Net' object has no attribute 'FC1'") at the first call, at STRICT and LAX alike,
        and the same call in PyNative raises the same error (measured 2.10 and 2.7.1, CPU). Python finds the typo
        only when the line runs; a branch that runs late in training (an evaluation path, a rare flag) carries it
        until then.
    """
    example = """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc1 = nn.Dense(4, 2)

            def construct(self, x):
                return self.FC1(x)
    """
    use_instead = """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc1 = nn.Dense(4, 2)

            def construct(self, x):
                return self.fc1(x)
    """
    autofix = "Renames the read to the attribute that is set (`self.FC1` -> `self.fc1`)."

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        known: dict[tuple[str, bool], tuple[frozenset[str], frozenset[str]] | None] = {}

        def names_of(owner: ClassInfo, through_project: bool):
            key = (owner.key, through_project)
            if key not in known:
                known[key] = _names_of(module, owner, through_project)
            return known[key]

        for function in module.graph_functions:
            owner = function.owner
            self_name = instance_parameter(function.node)
            if owner is None or not owner.is_cell or self_name is None:
                continue
            guarded = _hasattr_guards(function.nodes_of(ast.Call), self_name)
            reads = [node for node in function.nodes_of(ast.Attribute)
                     if isinstance(node.ctx, ast.Load) and self_attribute(node, self_name) is not None
                     and not (node.attr.startswith("__") and node.attr.endswith("__")) and node.attr not in guarded]
            # what the class and its bases of this module set answers most reads; the bases in the project's other
            # modules are asked only for a name still unknown
            local = names_of(owner, False) if reads else None
            if local is None or all(node.attr in local[0] for node in reads):
                continue
            names = names_of(owner, True)
            if names is None:
                continue
            every, suggested = names
            reported: set[str] = set()
            for node in reads:
                attribute = node.attr
                if attribute in every or attribute in reported:
                    continue
                neighbour = _closest(attribute, suggested)
                # ``forward`` calling ``self._forward``: the hook a subclass defines, not a misspelt ``self.forward``
                if neighbour is None or neighbour == function.node.name:
                    continue
                reported.add(attribute)
                suggestion = None if _holds(neighbour, attribute) else neighbour
                yield self.report(module, node, NeverSet(method=f"{owner.name}.{function.node.name}",
                                                         attribute=attribute, cell=owner.name, suggestion=suggestion))

    def fix(self, context: FixContext, finding: Finding) -> list[Edit]:
        node = finding.node
        if not isinstance(node, ast.Attribute):
            return []
        data = self.data_of(finding)
        return [context.rename_attribute(node, data.suggestion)] if isinstance(data, NeverSet) and data.suggestion \
            else []


def _names_of(module: ModuleFacts, owner: ClassInfo,
              through_project: bool) -> tuple[frozenset[str], frozenset[str]] | None:
    """Every name an instance of ``owner`` (or of a subclass of this module) can be asked for, and those of them the
    user's own classes bind (the candidates to suggest); None when that cannot be known."""
    every = module.instance_names(owner, through_project)
    if every is None:
        return None
    for other in module.classes.values():
        if other is not owner and owner in other.lineage()[1:]:
            below = module.instance_names(other, through_project)
            if below is None:
                return None
            every = every | below
    return every, frozenset(name for name in every if name not in api.CELL_INSTANCE_NAMES)


def _hasattr_guards(calls, self_name: str) -> set[str]:
    """The names a function asks ``hasattr(self, "<name>")`` or ``getattr(self, "<name>", ...)`` of."""
    names = set()
    for call in calls:
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in ("hasattr", "getattr") \
                and len(call.args) >= 2 and isinstance(call.args[0], ast.Name) and call.args[0].id == self_name \
                and isinstance(call.args[1], ast.Constant) and isinstance(call.args[1].value, str):
            names.add(call.args[1].value)
    return names


def _closest(attribute: str, names: frozenset[str]) -> str | None:
    """The set name that reads as ``attribute`` misspelt: the same but for case or underscores, else one at most
    two letters away (not a different number: ``conv3`` is not ``conv2``). A read that adds a word to a set name
    (``_gradient_checkpointing_func`` beside ``gradient_checkpointing``) names another attribute, often one code
    outside the class sets, and is left alone."""
    folded = _fold(attribute)
    same = sorted(name for name in names if _fold(name) == folded)
    if same:
        return same[0]
    close = sorted((_distance(attribute, name), name) for name in names
                   if abs(len(name) - len(attribute)) <= 2 and _digits(name) == _digits(attribute))
    return close[0][1] if close and close[0][0] <= 2 else None


def _holds(name: str, attribute: str) -> bool:
    """Whether the set ``name`` is ``attribute`` with letters added around it (``reshape`` beside ``shape``): another
    word, not a misspelling, so nothing is suggested (the read is still never set)."""
    folded, read = _fold(name), _fold(attribute)
    return len(folded) > len(read) and read in folded


def _distance(left: str, right: str) -> int:
    """The Levenshtein distance of two names."""
    previous = list(range(len(right) + 1))
    for i, a in enumerate(left, start=1):
        current = [i]
        for j, b in enumerate(right, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a != b)))
        previous = current
    return previous[-1]


def _fold(name: str) -> str:
    return name.replace("_", "").lower()


def _digits(name: str) -> str:
    return "".join(char for char in name if char.isdigit())
