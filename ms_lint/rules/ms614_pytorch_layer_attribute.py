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
        named = _attributes_named()
        for function, owner in module.function_nodes():
            nodes = list(module.index.own_code(function))
            guarded = None
            for node in nodes:
                if not isinstance(node, ast.Attribute) or node.attr not in named or not isinstance(node.ctx, ast.Load):
                    continue
                layer = module.layer_read(node, function, owner)
                if layer is None:
                    continue
                if guarded is None:
                    guarded = _hasattr_guards(nodes)
                if (ast.unparse(node.value), node.attr) in guarded:
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


@lru_cache(maxsize=1)
def _attributes_named() -> frozenset[str]:
    """Every attribute the table says some layer lacks at some release."""
    return frozenset(attribute for row in _table().values() for missing in (row.get("missing") or {}).values()
                     for attribute in missing)


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


def _hasattr_guards(nodes) -> set[tuple[str, str]]:
    """(object as written, name) pairs a function asks ``hasattr(obj, "<name>")`` or ``getattr(obj, ...)`` of."""
    found = set()
    for node in nodes:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("hasattr", "getattr") \
                and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) \
                and isinstance(node.args[1].value, str):
            found.add((ast.unparse(node.args[0]), node.args[1].value))
    return found
