"""MS614: a PyTorch layer attribute read on a MindSpore layer that lacks it (``self.fc.in_features`` on a Dense)."""
from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterator

from ms_lint.edits import Edit, FixContext
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.model import ModuleFacts
from ms_lint.model.classes import ClassInfo
from ms_lint.model.syntax import first_argument, self_attribute
from ms_lint.rules.base import Rule
from ms_lint.settings import parse_version

_TABLE = Path(__file__).resolve().parent.parent / "data" / "layer_attributes.json"


@dataclass(frozen=True, kw_only=True)
class LayerAttributeMissing(FindingData):
    """A PyTorch attribute read on a MindSpore layer that has none of that name: the read, the layer, the PyTorch
    layer whose attribute it is, the MindSpore name for it where the API mapping gives one, the version measured."""

    read: str = fact(subject=True)
    attribute: str = fact(subject=True)
    layer: str
    pytorch: str
    instead: str | None = fact(optional=True)
    version: str = fact(for_users=True)

    def message(self) -> str:
        short = self.layer.rpartition(".")[2]
        ending = (f"; MindSpore's name for it is `{self.instead}`" if self.instead else
                  "; MindSpore's layer keeps no attribute of that name (keep the value in an attribute of your own)")
        return (f"`{self.read}` reads `{self.attribute}`, an attribute of PyTorch's `{self.pytorch}`, on a "
                f"MindSpore `{short}`, which has none: reading it raises AttributeError (\"The '{short}' object has "
                f"no attribute '{self.attribute}'\" while the model is built, and at compile in graph code; measured "
                f"on MindSpore {self.version}){ending}")


class PytorchLayerAttribute(Rule):
    code = "MS614"
    name = "pytorch-layer-attribute"
    summary = "a PyTorch layer attribute read on a MindSpore layer that lacks it (`self.fc.in_features` on `nn.Dense`)"
    fix_summary = "read MindSpore's name for it (`self.fc.in_channels`), or keep the value in an attribute of your own"
    records = (LayerAttributeMissing,)
    what = """
        Reports `self.<layer>.<name>` in any method of a class (host code and graph code) where every assignment of
        `self.<layer>` in the class and its bases builds the same MindSpore layer (`nn.Dense(...)`, `nn.Conv2d(...)`,
        `nn.BatchNorm2d(...)`), `m.<name>` inside `if isinstance(m, nn.Dense):` (where the module builds an `nn.Dense`
        and no class of it derives from `nn.Dense`), and `m.<layer>.<name>` inside `if isinstance(m, Block):` where
        `Block` builds `self.<layer>` so (a weight-initialising function), when `<name>` is an attribute PyTorch's
        counterpart of that layer has (from the PyTorch API mapping) that the MindSpore layer does not: `in_features`
        and `out_features` on `nn.Dense`, `groups` and `padding_mode` on `nn.Conv2d`, `weight`, `bias`, `running_mean`
        and `running_var` on `nn.BatchNorm2d`, `eps` on `nn.LayerNorm`. Which attributes each layer lacks is measured,
        not read from documents: both layers are built and read attribute by attribute (`python -m
        ms_lint.tools.layer_attributes`, stored per MindSpore release). A read guarded by `hasattr(<the object>,
        "<name>")` in the same function, layers built from the project's own subclasses, and a private method nothing in
        the module calls (whose bases are all the module's or MindSpore's) are left alone.
    """
    why = """
        Code ported from PyTorch reads layer attributes PyTorch sets (`nn.Linear(...).in_features`) to size the next
        layer or to initialise weights. MindSpore's layers name their configuration after their own parameters
        (`in_channels`, `group`, `pad_mode`) and their parameters after their own names (`gamma`, `beta`,
        `moving_mean`), so the read raises AttributeError: measured on MindSpore 2.10.0 and 2.7.1 (CPU),
        `nn.Dense(4, 4).in_features` raises AttributeError "The 'Dense' object has no attribute 'in_features'" where
        `__init__` reads it, and compiling a `construct` that reads `self.fc.out_features` raises AttributeError
        ("... object has no attribute out_features") at STRICT and LAX.
    """
    example = """
        class Head(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(16, 8)
                self.out = nn.Dense(self.fc.out_features, 2)
    """
    use_instead = """
        class Head(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(16, 8)
                self.out = nn.Dense(self.fc.out_channels, 2)
    """
    autofix = "Renames the read to MindSpore's name where the API mapping gives one (`in_features` -> `in_channels`)."

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        table = _table()
        if not table:
            return
        version = module.target.version
        layers: dict[tuple[str, str], str | None] = {}  # (class key, attribute) -> the layer it holds

        def held(info: ClassInfo, attribute: str) -> str | None:
            key = (info.key, attribute)
            if key not in layers:
                layers[key] = _one_layer(module, info, attribute)
            return layers[key]

        referenced = None
        built: list[set[str]] = []  # the layers the module builds (``_layers_built``), once it is asked
        for function, owner in module.function_nodes():
            if owner is not None and function.name.startswith("_") and not function.name.startswith("__"):
                if referenced is None:
                    referenced = {node.attr if node.__class__ is ast.Attribute else node.id
                                  for node in module.index.nodes if node.__class__ in (ast.Attribute, ast.Name)}
                if function.name not in referenced and _bases_known(module, owner):
                    continue  # a private method nothing calls, overriding no method of a base outside MindSpore
            nodes = list(module.index.own_code(function))
            receiver = first_argument(function) if owner is not None else None
            narrowed = _narrowed(module, nodes, built)
            guarded = _hasattr_guards(nodes)
            for node in nodes:
                if not isinstance(node, ast.Attribute) or not isinstance(node.ctx, ast.Load):
                    continue
                layer = _layer_read(node, receiver, owner, narrowed, held)
                if layer is None or (ast.unparse(node.value), node.attr) in guarded:
                    continue
                found = _missing(table, layer, version)
                if found is None or node.attr not in found[1]:
                    continue
                yield self.report(module, node, LayerAttributeMissing(
                    read=ast.unparse(node), attribute=node.attr, layer=layer,
                    pytorch=table[layer]["pytorch"].rpartition(".")[2], instead=found[1][node.attr],
                    version=found[0]))

    def fix(self, context: FixContext, finding: Finding) -> list[Edit]:
        node = finding.node
        data = self.data_of(finding)
        if not isinstance(node, ast.Attribute) or not isinstance(data, LayerAttributeMissing) or not data.instead:
            return []
        return [context.rename_attribute(node, data.instead)]


@lru_cache(maxsize=1)
def _table() -> dict:
    try:
        return json.loads(_TABLE.read_text()).get("layers", {})
    except (OSError, ValueError):
        return {}


def _missing(table: dict, layer: str, version: str) -> tuple[str, dict[str, str | None]] | None:
    """(the release measured, {attribute: MindSpore's name or None}) for ``layer`` at the release nearest
    ``version``: its own, else the nearest newer measured one, else the newest."""
    row = table.get(layer)
    if not row or not row.get("missing"):
        return None
    measured = sorted(row["missing"], key=parse_version)
    wanted = parse_version(version) if version else ()
    chosen = next((name for name in measured if wanted and parse_version(name) >= wanted), measured[-1])
    return chosen, row["missing"][chosen]


def _one_layer(module: ModuleFacts, info: ClassInfo, attribute: str) -> str | None:
    """The MindSpore layer every assignment of ``self.<attribute>`` in ``info`` and its bases builds; None when
    another value, or nothing this module can read, is assigned."""
    built = set()
    for owner in info.lineage():
        for _method, value in owner.attribute_writes.get(attribute, ()):
            if not isinstance(value, ast.Call):
                return None
            built.add(module.qualname(value.func))
    if len(built) != 1:
        return None
    qualname = built.pop()
    return qualname if qualname and qualname.startswith("mindspore.nn.") else None


def _layer_read(node: ast.Attribute, receiver: str | None, owner: ClassInfo | None, narrowed, held) -> str | None:
    """The MindSpore layer ``node`` reads an attribute of: ``self.fc.<name>`` where every assignment of ``self.fc``
    builds it, ``m.<name>`` inside ``if isinstance(m, nn.Dense):``, ``m.proj.<name>`` inside ``if isinstance(m,
    Block):`` where ``Block`` builds ``self.proj`` so; None otherwise."""
    value = node.value
    if receiver is not None and owner is not None:
        holder = self_attribute(value, receiver)
        if holder is not None:
            return held(owner, holder)
    if isinstance(value, ast.Name):
        kind = _narrowed_at(narrowed, value.id, node)
        return kind if isinstance(kind, str) else None
    if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name):
        kind = _narrowed_at(narrowed, value.value.id, node)
        return held(kind, value.attr) if isinstance(kind, ClassInfo) else None
    return None


def _narrowed(module: ModuleFacts, nodes, built: list[set[str]]) -> list[tuple[str, object, int, int]]:
    """(name, what ``isinstance`` narrows it to, first and last line of the body) for each ``if isinstance(name,
    C):`` of a function, where ``C`` is one class of this module or one MindSpore layer the module builds (a
    weight-initialising function's branch for a layer the model never holds does not run). ``built``: empty, or
    holding ``_layers_built(module)``, found once per module for all its functions."""
    found = []
    for node in nodes:
        if not isinstance(node, ast.If) or not node.body:
            continue
        test = node.test
        if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
                and len(test.args) == 2 and isinstance(test.args[0], ast.Name)):
            continue
        qualname = module.qualname(test.args[1])
        if not built:
            built.append(_layers_built(module))
        kind = module.local_class(qualname) or (qualname if qualname and qualname.startswith("mindspore.nn.")
                                                and qualname in built[0] and not _subclassed(module, qualname)
                                                else None)
        if kind is not None:
            found.append((test.args[0].id, kind, node.body[0].lineno, node.body[-1].end_lineno or node.lineno))
    return found


def _bases_known(module: ModuleFacts, owner: ClassInfo) -> bool:
    """Whether every class ``owner`` derives from is of this module or MindSpore's (so that no base outside them
    calls one of its methods by name: ``PreTrainedModel`` calling a subclass's ``_init_weights``)."""
    for info in owner.lineage():
        for base in info.node.bases:
            qualname = module.qualname(base)
            if module.local_class(qualname) is None and not (qualname or "").startswith("mindspore."):
                return False
    return True


def _layers_built(module: ModuleFacts) -> set[str]:
    """The qualified names of the MindSpore layers the module calls (builds) anywhere."""
    index = module.index
    calls = (map(index.nodes.__getitem__, index.positions_of(ast.Call)) if not index.outline
             else (node for node in ast.walk(module.tree) if isinstance(node, ast.Call)))
    return {qualname for node in calls
            for qualname in (module.qualname(node.func),) if qualname and qualname.startswith("mindspore.nn.")}


def _subclassed(module: ModuleFacts, qualname: str) -> bool:
    """Whether a class of this module derives from the MindSpore layer ``qualname`` (its instances pass the
    ``isinstance`` test and may set PyTorch's attributes themselves)."""
    return any(qualname in (module.qualname(base) for base in info.node.bases) for info in module.classes.values())


def _narrowed_at(narrowed, name: str, node: ast.AST):
    """What the innermost ``isinstance`` test holding ``node`` narrows ``name`` to, or None."""
    holding = [(start, kind) for bound, kind, start, end in narrowed if bound == name and start <= node.lineno <= end]
    return max(holding, key=lambda pair: pair[0])[1] if holding else None


def _hasattr_guards(nodes) -> set[tuple[str, str]]:
    """(object as written, name) pairs a function asks ``hasattr(obj, "<name>")`` or ``getattr(obj, ...)`` of."""
    found = set()
    for node in nodes:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("hasattr", "getattr") \
                and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) \
                and isinstance(node.args[1].value, str):
            found.add((ast.unparse(node.args[0]), node.args[1].value))
    return found
