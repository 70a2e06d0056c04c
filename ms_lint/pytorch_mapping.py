"""PyTorch arguments MindSpore reads differently: the table ``data/pytorch_mapping.json``, written by
``python -m ms_lint.tools.generate_mapping`` from MindSpore's own "PyTorch and MindSpore API Mapping Table" and its
"Differences with torch.X" pages.

Each mapped MindSpore API has the page it came from and its differences from PyTorch's, parameter by parameter:
``position`` (PyTorch's positional argument lands in another MindSpore parameter), ``meaning`` (a keyword both
take, read another way), ``default`` (a default that differs). A difference the rules report carries ms-lint's
measured note (``effect``, ``consequence``, ...); one without it, or one that shows only on a device, is kept in
the table and not reported.
"""
from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from ms_lint import mindspore_api as api

MAPPING_FILE = "data/pytorch_mapping.json"


@dataclass(frozen=True)
class Difference:
    """One parameter of one API that MindSpore reads differently from PyTorch (see ``generate_mapping``)."""

    api: str  # MindSpore's API, ``mindspore.nn.Dropout``
    pytorch_api: str
    page: str  # the documentation page it came from
    kind: str  # position, meaning, default
    pytorch: str  # PyTorch's parameter
    mindspore: str  # MindSpore's parameter that receives the value (position) or that differs (meaning, default)
    index: int = -1  # position: the place of the positional argument
    mindspore_for_pytorch: str = ""  # position: MindSpore's keyword for what PyTorch meant ("" when none)
    effect: str = ""  # raises, silent; "" when ms-lint has not measured it
    consequence: str = ""
    error: str = ""
    equivalent: str = ""
    hints: tuple[str, ...] = ()
    not_hints: tuple[str, ...] = ()
    device: str = ""
    pytorch_default: str = ""
    mindspore_default: str = ""
    absent: tuple[str, ...] = ()  # shipped MindSpore versions without the MindSpore parameter
    needs: str = ""  # MindSpore's keyword that must be True for the parameter to be read (``has_bn``)

    @property
    def measured(self) -> bool:
        return bool(self.effect) and not self.device

    @property
    def only_in_training(self) -> bool:
        """Whether the difference changes only what training does, so that an application that never trains
        computes the same either way: how a norm layer's running statistics move (evaluation reads them and never
        updates them), whether an instance norm learns a scale and a shift (never learnt, they stay one and zero),
        an optimizer's settings (measured 2.10 and 2.7.1 for the layers: ``test_ground_truth_mapping``); the
        momentum a ``Conv2dBnAct`` or ``DenseBnAct`` hands its BatchNorm. An
        epsilon, an activation's shape or a stride changes inference too."""
        layer = api.last_name(self.api)
        return (self.kind == "meaning" and self.mindspore == "momentum" and (
            "BatchNorm" in layer or layer.endswith("BnAct"))) or (
            layer.startswith("InstanceNorm") and self.mindspore == "affine") or layer in api.optimizer_names()

    def takes(self, version: str) -> bool:
        """Whether MindSpore ``version`` (its shipped tables) still has the parameter this difference is about."""
        return api.tables_version(version) not in self.absent

    def pytorch_value_type(self) -> type | None:
        """The Python type of PyTorch's default for the parameter (None: no default, or not a literal)."""
        return _literal_type(self.pytorch_default or _entry_defaults(self.api)[0].get(self.pytorch, ""))

    def mindspore_value_type(self) -> type | None:
        return _literal_type(self.mindspore_default or _entry_defaults(self.api)[1].get(self.mindspore, ""))


def _literal_type(text: str) -> type | None:
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None
    return None if value is None else type(value)


@lru_cache(maxsize=1)
def _table() -> dict:
    with resources.files("ms_lint").joinpath(MAPPING_FILE).open("r", encoding="utf-8") as handle:
        return json.load(handle)


def _canonical(qualname: str | None) -> str | None:
    """``mindspore.nn.layer.basic.Dropout`` -> ``mindspore.nn.Dropout``: the table's name for a MindSpore ``nn``
    class or function reached through any of its public or private paths."""
    if api.is_nn_name(qualname) and not api.is_mint_nn_name(qualname):
        return f"mindspore.nn.{api.last_name(qualname)}"
    return None


@lru_cache(maxsize=None)
def _entry_defaults(name: str) -> tuple[dict[str, str], dict[str, str]]:
    entry = _table()["apis"].get(name, {})
    return entry.get("pytorch_defaults", {}), entry.get("mindspore_defaults", {})


@lru_cache(maxsize=None)
def _differences(name: str) -> tuple[Difference, ...]:
    entry = _table()["apis"].get(name)
    if entry is None:
        return ()
    found = []
    for item in entry.get("differences", ()):
        fields = {key: (tuple(value) if isinstance(value, list) else value) for key, value in item.items()
                  if key in Difference.__dataclass_fields__}
        found.append(Difference(api=name, pytorch_api=entry["pytorch"], page=entry["page"], **fields))
    return tuple(found)


def differences(qualname: str | None, kind: str, version: str = "") -> tuple[Difference, ...]:
    """The measured differences of ``kind`` of the MindSpore API ``qualname`` that MindSpore ``version`` still has:
    those the rules report."""
    name = _canonical(qualname)
    if name is None:
        return ()
    return tuple(item for item in _differences(name)
                 if item.kind == kind and item.measured and item.takes(version))


def positional_orders(qualname: str | None) -> tuple[tuple[str, ...], tuple[str, ...], dict[str, str]]:
    """PyTorch's and MindSpore's positional parameters of the API, and MindSpore's name for each PyTorch parameter
    that MindSpore spells otherwise."""
    entry = _table()["apis"].get(_canonical(qualname) or "", {})
    return (tuple(entry.get("pytorch_positional", ())), tuple(entry.get("mindspore_positional", ())),
            entry.get("names", {}))


@lru_cache(maxsize=None)
def class_names(kind: str) -> tuple[str, ...]:
    """The last names of the ``mindspore.nn`` APIs with a measured difference of ``kind`` (for ``calls_to``)."""
    return tuple(sorted({api.last_name(name) for name in _table()["apis"]
                         if name.startswith("mindspore.nn.")
                         and any(item.kind == kind and item.measured for item in _differences(name))}))


def entries() -> dict[str, dict]:
    """The whole table, by MindSpore API (for the report of what it covers)."""
    return _table()["apis"]
