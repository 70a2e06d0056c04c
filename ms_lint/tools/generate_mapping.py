"""Regenerate ms-lint's table of PyTorch arguments MindSpore reads differently, from MindSpore's own documentation.

MindSpore's documentation publishes "PyTorch and MindSpore API Mapping Table"
(``docs/mindspore/source_en/note/api_mapping/pytorch_api_mapping.md`` in the ``mindspore-ai/docs`` repository) and,
for each API whose mapping is not one to one, a page ``pytorch_diff/NAME.md`` ("Differences with torch.X") with both
signatures and a table of parameters (PyTorch's name, MindSpore's, and what differs). This reads them and writes
``ms_lint/data/pytorch_mapping.json``: for each mapped MindSpore API, the page it came from, both positional
orders, and the parameters whose position, name, default or meaning differs.

Which documentation: each release branch of the docs repository documents the MindSpore of that release. Since
2.5 the mapping table maps PyTorch to ``mindspore.mint`` (PyTorch's own signatures) and the difference pages for
``mindspore.nn`` layers, losses, optimizers and ``mindspore.ops`` functions are gone; those APIs live on unchanged
in the releases ms-lint supports, so their pages are read from the last release that has them (``r2.4.10``), and
the newest documentation (``master``) gives the ``mint`` mapping and the data pipeline's pages. Where two sources
document one API, the newer wins. Every MindSpore parameter named is checked against ms-lint's generated keyword
tables (``mindspore_api.cell_keywords``) of every MindSpore version they cover: a parameter a version lacks is
recorded in ``absent``.

What MindSpore does with such an argument is measured, never taken from a page alone: ``MEASURED`` below holds
ms-lint's own note of what each entry the rules report does when PyTorch's argument reaches MindSpore (raises,
or what it computes instead), and ``tests/test_ground_truth_mapping.py`` runs each of them on the installed
MindSpore. An entry without a measured note stays in the table and is not reported.

Usage::

    python -m ms_lint.tools.generate_mapping --docs PATH     # PATH: a git clone of mindspore-ai/docs
    python -m ms_lint.tools.generate_mapping --docs PATH --check
    python -m ms_lint.tools.generate_mapping --pages DIR --output t.json   # a directory of pages (tests)
"""
from __future__ import annotations

import argparse
import ast
import json
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

DATA = Path(__file__).resolve().parent.parent / "data"
DEFAULT_OUTPUT = DATA / "pytorch_mapping.json"
MAPPING_DIR = "docs/mindspore/source_en/note/api_mapping"
MAPPING_PAGE = "pytorch_api_mapping.md"
# The documentation read, oldest first: a newer source's entry for an API replaces an older one's.
SOURCES = ("r2.4.10", "master")


class MappingError(Exception):
    """The documentation cannot be read or does not look like what this reads."""


# --------------------------------------------------------------------------------------------------------------
# Measured notes: what MindSpore does with PyTorch's argument (tests/test_ground_truth_mapping.py runs each)
# --------------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Measured:
    """ms-lint's measured note on one difference of one API.

    ``kind`` is the difference (``position``, ``meaning``, ``default``) and ``parameter`` PyTorch's parameter;
    ``effect`` what happens when PyTorch's argument reaches MindSpore: ``raises`` (building the layer, or its first
    call, raises ``error``) or ``silent`` (it runs and does ``consequence`` instead); ``equivalent`` the
    expression of the value MindSpore needs for PyTorch's meaning, in ``x`` (the value PyTorch's code passes) or
    MindSpore's other parameters (``kernel_size``); ``hints`` the words a name passed there carries when it holds
    PyTorch's meaning (``drop`` for ``p``), ``not_hints`` those that say it holds MindSpore's (``keep``);
    ``device`` the device a difference shows on where the CPU cannot build the API (kept, not measured here);
    ``needs`` a keyword of MindSpore's that must be given True for the parameter to be read at all (``has_bn``: a
    composite layer builds its BatchNorm only then)."""

    kind: str
    parameter: str
    effect: str
    consequence: str
    error: str = ""
    equivalent: str = ""
    hints: tuple[str, ...] = ()
    not_hints: tuple[str, ...] = ()
    device: str = ""
    needs: str = ""


def _refused(parameter: str, error: str, hints: tuple[str, ...] = (), not_hints: tuple[str, ...] = (),
             when: str = "when the layer is built") -> Measured:
    return Measured("position", parameter, "raises", f"refuses it {when}", error=error, hints=hints,
                    not_hints=not_hints)


def _padding(error: str) -> Measured:
    return _refused("padding", error, hints=("pad",), not_hints=("mode",))


def _default(parameter: str, consequence: str, equivalent: str = "") -> Measured:
    return Measured("default", parameter, "silent", consequence, equivalent=equivalent)


_BETAS = _refused("betas", "TypeError", hints=("betas",))
_MOMENTUM = Measured("meaning", "momentum", "silent", "weights the running statistic by it, where PyTorch weights "
                     "the new batch", equivalent="1 - x")
# MindSpore's composite layers hand ``momentum`` to the BatchNorm they build (with ``has_bn=True``), which reads it
# MindSpore's way: PyTorch's 0.1 there is the same slip as on the BatchNorm itself.
_COMPOSITE_MOMENTUM = {
    f"mindspore.nn.{name}": (Measured("meaning", "momentum", "silent", f"is passed to its {norm}, which "
                                      f"{_MOMENTUM.consequence}", equivalent="1 - x", needs="has_bn"),)
    for name, norm in (("Conv2dBnAct", "BatchNorm2d"), ("DenseBnAct", "BatchNorm1d"))}
_STRIDE = _default("stride", "strides by 1 where PyTorch strides by the kernel size", equivalent="kernel_size")
# The convolutions' bias (none by default, PyTorch's one) and padding ("same" by default, PyTorch's none) are
# documented and not reported: a port drops PyTorch's ``bias=False`` and ``padding=k // 2`` for MindSpore's defaults,
# and writes ``padding=0`` because "same" requires it, so no call tells which PyTorch call it came from.

MEASURED: dict[str, tuple[Measured, ...]] = {
    "mindspore.nn.Dropout": (
        Measured("position", "p", "silent", "keeps that fraction of the activations and drops the rest",
                 equivalent="1 - x", hints=("drop",), not_hints=("keep",)),
    ),
    "mindspore.nn.Conv1d": (_padding("ValueError"),),
    "mindspore.nn.Conv2d": (_padding("TypeError"),),
    "mindspore.nn.Conv3d": (_padding("TypeError"),),
    "mindspore.nn.Conv1dTranspose": (_padding("ValueError"),),
    "mindspore.nn.Conv2dTranspose": (_padding("ValueError"),),
    "mindspore.nn.Conv3dTranspose": (_padding("TypeError"),),
    "mindspore.nn.MaxPool1d": (_padding("TypeError"), _STRIDE),
    "mindspore.nn.MaxPool2d": (_padding("TypeError"), _STRIDE),
    "mindspore.nn.MaxPool3d": (_padding("TypeError"), _STRIDE),
    "mindspore.nn.AvgPool1d": (_padding("TypeError"), _STRIDE),
    "mindspore.nn.AvgPool2d": (_padding("TypeError"), _STRIDE),
    "mindspore.nn.AvgPool3d": (_padding("TypeError"), _STRIDE),
    "mindspore.nn.Embedding": (_refused("padding_idx", "TypeError", hints=("pad",)),),
    "mindspore.nn.Dense": (
        Measured("position", "bias", "silent", "initialises the weight with it (all zeros for False, all ones "
                 "for True) and keeps the bias", hints=("bias",), not_hints=("init",)),
    ),
    "mindspore.nn.BiDense": (
        Measured("position", "bias", "silent", "initialises the weight with it (all zeros for False, all ones "
                 "for True) and keeps the bias", hints=("bias",), not_hints=("init",)),
    ),
    "mindspore.nn.LayerNorm": (
        _refused("eps", "TypeError", hints=("eps",), when="when the layer is first called"),
        _default("eps", "adds 1e-07 to the variance where PyTorch adds 1e-05"),
    ),
    "mindspore.nn.BCEWithLogitsLoss": (
        _refused("weight", "TypeError", hints=("weight",), when="when the loss is first called"),
    ),
    "mindspore.nn.Adam": (_BETAS,),
    "mindspore.nn.AdamWeightDecay": (
        _BETAS,
        _default("eps", "adds 1e-06 to the denominator where PyTorch adds 1e-08"),
        _default("weight_decay", "decays no weight where PyTorch's AdamW decays by 0.01"),
    ),
    "mindspore.nn.AdaMax": (_BETAS,),
    "mindspore.nn.LazyAdam": (_BETAS,),
    "mindspore.nn.Adagrad": (
        Measured("position", "lr", "silent", "takes it as the accumulators' initial value and trains at "
                 "learning_rate=0.001", hints=("lr", "learning_rate"), not_hints=("accum",)),
    ),
    "mindspore.nn.TripletMarginLoss": (
        Measured("position", "margin", "silent", "takes it as the norm degree p (the margin is an input of the "
                 "loss's call)", hints=("margin",), not_hints=("norm",)),
    ),
    **_COMPOSITE_MOMENTUM,
    "mindspore.nn.BatchNorm1d": (_MOMENTUM,),
    "mindspore.nn.BatchNorm2d": (_MOMENTUM,),
    "mindspore.nn.BatchNorm3d": (_MOMENTUM,),
    "mindspore.nn.SyncBatchNorm": (
        Measured("meaning", "momentum", "silent", _MOMENTUM.consequence, equivalent="1 - x",
                 device="Ascend or GPU, in a distributed job"),
    ),
    "mindspore.nn.GELU": (
        _default("approximate", "computes the tanh approximation where PyTorch computes the exact GELU",
                 equivalent="False"),
    ),
    "mindspore.nn.LeakyReLU": (_default("negative_slope", "slopes negative inputs by 0.2 where PyTorch slopes "
                                        "them by 0.01"),),
    "mindspore.nn.InstanceNorm1d": (_default("affine", "learns a scale and a shift where PyTorch learns none"),),
    "mindspore.nn.InstanceNorm2d": (_default("affine", "learns a scale and a shift where PyTorch learns none"),),
    "mindspore.nn.InstanceNorm3d": (_default("affine", "learns a scale and a shift where PyTorch learns none"),),
    "mindspore.nn.SmoothL1Loss": (_default("reduction", "returns the loss of each element where PyTorch returns "
                                           "their mean"),),
}

# Differences a page states in its prose rather than its parameter table: (the APIs, the sentence the page must
# still hold, the difference).
PROSE: tuple[tuple[tuple[str, ...], str, dict[str, str]], ...] = (
    (("mindspore.nn.Conv1d", "mindspore.nn.Conv2d", "mindspore.nn.Conv3d"),
     "MindSpore fills the input by default, while PyTorch does not fill by default",
     {"kind": "default", "pytorch": "padding", "mindspore": "pad_mode", "pytorch_default": "0",
      "mindspore_default": "'same'"}),
    (("mindspore.nn.Conv1dTranspose", "mindspore.nn.Conv2dTranspose", "mindspore.nn.Conv3dTranspose"),
     'When "pad_mode" = "pad", it is the same as the PyTorch default',
     {"kind": "default", "pytorch": "padding", "mindspore": "pad_mode", "pytorch_default": "0",
      "mindspore_default": "'same'"}),
    (("mindspore.nn.GELU",),
     "the output is more similar to Pytorch when approximate is False",
     {"kind": "default", "pytorch": "approximate", "mindspore": "approximate", "pytorch_default": "'none'",
      "mindspore_default": "True"}),
)

# PyTorch's "general difference parameters": the mapping's own table of what MindSpore leaves out by design
# (``size_average`` and ``reduce`` deprecated in PyTorch).
_GENERAL = frozenset({
    "size_average", "reduce", "out", "layout", "device", "requires_grad", "pin_memory", "memory_format", "stable",
    "sparse_grad",
})
# PyTorch parameters no port passes by position.
_NOT_POSITIONAL = _GENERAL | {"inplace"}

# Entries ms-lint adds where the mapping documentation is silent (it lists no page for torch.nn.Embedding), each
# measured like the rest; the page is ms-lint's own ground truth test.
SUPPLEMENTS: dict[str, dict[str, Any]] = {
    # MindSpore's layers of a convolution or dense layer, a BatchNorm and an activation: PyTorch has no one layer of
    # them, and a port writes the BatchNorm's PyTorch arguments into them (its momentum, read MindSpore's way)
    **{f"mindspore.nn.{name}": {
        "pytorch": f"torch.nn.{norm}",
        "page": "tests/test_ground_truth_mapping.py",
        "pytorch_positional": [],
        "mindspore_positional": positional,
        "meaning": ["momentum"],
        "names": {},
        "pytorch_defaults": {"momentum": "0.1"},
        "mindspore_defaults": {"momentum": default, "has_bn": "False"},
    } for name, norm, default, positional in (
        ("Conv2dBnAct", "BatchNorm2d", "0.997",
         ["in_channels", "out_channels", "kernel_size", "stride", "pad_mode", "padding", "dilation", "group",
          "has_bias", "weight_init", "bias_init", "has_bn", "momentum", "eps", "activation", "alpha", "after_fake"]),
        ("DenseBnAct", "BatchNorm1d", "0.9",
         ["in_channels", "out_channels", "weight_init", "bias_init", "has_bias", "has_bn", "momentum", "eps",
          "activation", "alpha", "after_fake"]))},
    "mindspore.nn.Embedding": {
        "pytorch": "torch.nn.Embedding",
        "page": "tests/test_ground_truth_mapping.py",
        "pytorch_positional": ["num_embeddings", "embedding_dim", "padding_idx", "max_norm", "norm_type",
                               "scale_grad_by_freq", "sparse", "_weight"],
        "mindspore_positional": ["vocab_size", "embedding_size", "use_one_hot", "embedding_table", "dtype",
                                 "padding_idx"],
        "names": {"num_embeddings": "vocab_size", "embedding_dim": "embedding_size", "padding_idx": "padding_idx"},
        "pytorch_defaults": {"padding_idx": "None", "max_norm": "None", "norm_type": "2.0",
                             "scale_grad_by_freq": "False", "sparse": "False", "_weight": "None"},
        "mindspore_defaults": {"use_one_hot": "False", "embedding_table": "'normal'", "dtype": "mstype.float32",
                               "padding_idx": "None"},
    },
}


# --------------------------------------------------------------------------------------------------------------
# Reading the documentation
# --------------------------------------------------------------------------------------------------------------

class Source:
    """One version of the documentation: a git ref of a clone, or a plain directory of pages."""

    def __init__(self, name: str, root: Path, ref: str | None = None):
        self.name = name
        self.root = root
        self.ref = ref

    def read(self, relative: str) -> str | None:
        if self.ref is None:
            path = self.root / relative
            return path.read_text(encoding="utf-8") if path.is_file() else None
        result = subprocess.run(["git", "-C", str(self.root), "show", f"{self.ref}:{MAPPING_DIR}/{relative}"],
                                capture_output=True, text=True, encoding="utf-8", check=False)
        return result.stdout if result.returncode == 0 else None

    def commit(self) -> str:
        if self.ref is None:
            return ""
        result = subprocess.run(["git", "-C", str(self.root), "rev-parse", self.ref], capture_output=True,
                                text=True, check=False)
        if result.returncode != 0:
            raise MappingError(f"{self.root}: no ref {self.ref}")
        return result.stdout.strip()


_LINK = re.compile(r"\[([^\]]*)\]\(([^)]*)\)")
_NAME = re.compile(r"^[A-Za-z_][\w.]*$")


@dataclass
class MappingRow:
    section: str
    pytorch: str
    mindspore: str
    description: str
    page: str | None  # the pytorch_diff page's stem


def mapping_rows(text: str) -> list[MappingRow]:
    """The rows of the mapping table: PyTorch's API, MindSpore's, and the description or the difference page."""
    rows: list[MappingRow] = []
    section = ""
    for line in text.splitlines():
        if line.startswith("## "):
            section = line[3:].strip()
            continue
        if not line.startswith("|"):
            continue
        cells = _cells(line)
        if len(cells) < 3:
            continue
        pytorch, mindspore = _link_text(cells[0]), _link_text(cells[1])
        if not _NAME.match(pytorch) or not _NAME.match(mindspore) or not mindspore.startswith("mindspore."):
            continue
        page = None
        for _, target in _LINK.findall(cells[2]):
            found = re.search(r"pytorch_diff/([\w.]+?)\.html", target)
            if found:
                page = found.group(1)
        description = _LINK.sub(lambda match: match.group(1), cells[2]).strip()
        rows.append(MappingRow(section, pytorch, mindspore, description, page))
    return rows


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _link_text(cell: str) -> str:
    found = _LINK.search(cell)
    return (found.group(1) if found else cell).strip().strip("`").strip()


@dataclass
class Signature:
    positional: list[str]  # in order, up to a bare ``*`` or ``*args``
    defaults: dict[str, str]  # parameter -> its default, as written
    keyword_only: list[str] = field(default_factory=list)


def signatures(text: str, api: str) -> list[Signature]:
    """The signatures a page shows for ``api`` (``torch.nn.Dropout``), from the code block under its heading (or
    any code block that calls it), one per overload."""
    found: list[Signature] = []
    short = api.rpartition(".")[2]
    for block in re.findall(r"```[a-z]*\n(.*?)```", text, flags=re.S):
        for start in re.finditer(rf"(?:^|[\s.]){re.escape(short)}\(", block):
            head = block[:start.end() - 1].rsplit("\n", 1)[-1].strip()
            qualified = head.removeprefix("class ").strip()
            if not (qualified == api or qualified.endswith("." + short) and _same_api(qualified, api)):
                continue
            arguments = _balanced(block, start.end() - 1)
            if arguments is None:
                continue
            signature = _parse_arguments(arguments)
            if signature is not None:
                found.append(signature)
        if found:
            return found
    return found


def _same_api(written: str, api: str) -> bool:
    """``mindspore.nn.Dropout`` written for ``mindspore.nn.Dropout``; ``torch.Tensor.max`` for ``torch.Tensor.max``;
    a page may abbreviate the module (``nn.Dropout``)."""
    return api.endswith(written) or written.endswith(api)


def _balanced(text: str, opening: int) -> str | None:
    depth = 0
    for index in range(opening, len(text)):
        if text[index] in "([{":
            depth += 1
        elif text[index] in ")]}":
            depth -= 1
            if depth == 0:
                return text[opening + 1:index]
    return None


def _parse_arguments(arguments: str) -> Signature | None:
    text = " ".join(line.split("#", 1)[0] for line in arguments.splitlines()).strip().rstrip(",")
    text = re.sub(r"<[^<>]*>", "...", text)  # ``<built-in method hann_window ...>``
    try:
        tree = ast.parse(f"def f({text}): pass")
    except SyntaxError:
        return _split_arguments(text)
    args = tree.body[0].args  # type: ignore[attr-defined]
    positional = [arg.arg for arg in [*args.posonlyargs, *args.args]]
    defaults = {arg.arg: ast.unparse(value) for arg, value in zip(
        [*args.posonlyargs, *args.args][len(args.posonlyargs) + len(args.args) - len(args.defaults):], args.defaults)}
    defaults.update({arg.arg: ast.unparse(value) for arg, value in zip(args.kwonlyargs, args.kw_defaults)
                     if value is not None})
    return Signature(positional, defaults, [arg.arg for arg in args.kwonlyargs])


def _split_arguments(text: str) -> Signature | None:
    """A signature Python does not parse (``dtype=mstype.float32`` is fine; ``input (Tensor)`` is not): split at the
    top-level commas and keep the names, and stop at anything else."""
    positional: list[str] = []
    defaults: dict[str, str] = {}
    keyword_only: list[str] = []
    depth, start, parts = 0, 0, []
    for index, char in enumerate(text):
        depth += char in "([{"
        depth -= char in ")]}"
        if char == "," and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    star = False
    for part in parts:
        name, _, default = (piece.strip() for piece in part.partition("="))
        if name in ("*", "*args") or name.startswith("*"):
            star = True
            continue
        if not re.match(r"^[A-Za-z_]\w*$", name):
            return None
        (keyword_only if star else positional).append(name)
        if default:
            defaults[name] = default
    return Signature(positional, defaults, keyword_only)


@dataclass
class ParameterRow:
    pytorch: str | None
    mindspore: str | None
    text: str
    category: str


def parameter_rows(text: str) -> list[ParameterRow]:
    """The rows of a page's difference table (``| Parameters | Parameter 1 | p | keep_prob | ... |``)."""
    rows: list[ParameterRow] = []
    category = ""
    for line in text.splitlines():
        if not line.startswith("|"):
            category = "" if not line.strip() else category
            continue
        cells = _cells(line)
        if len(cells) < 5:
            continue
        if cells[0]:
            category = cells[0].lower()
        if not category.startswith(("param", "input")) or set(cells[2] + cells[3]) <= set("-: "):
            continue
        pytorch, mindspore = _parameter_name(cells[2]), _parameter_name(cells[3])
        if pytorch is None and mindspore is None:
            continue
        rows.append(ParameterRow(pytorch, mindspore, " ".join(cells[4:]).strip(),
                                 "input" if category.startswith("input") else "parameter"))
    return rows


def _parameter_name(cell: str) -> str | None:
    name = cell.strip().strip("`").strip()
    return name if re.match(r"^[A-Za-z_]\w*$", name) else None


# --------------------------------------------------------------------------------------------------------------
# Differences
# --------------------------------------------------------------------------------------------------------------

_POSITION_WORDS = re.compile(r"\bposition\b|\border\b|\bsequence\b", re.I)
_DISCARDED_WORDS = re.compile(r"discard|deprecated", re.I)
_MEANING_WORDS = re.compile(r"\bopposite\b|\b1 ?- ?[a-z_]+\b|conversion relationship|different meaning", re.I)


def entry_for(row: MappingRow, page_text: str, page: str) -> dict[str, Any]:
    """The table's entry for one mapped API whose difference page is ``page_text``."""
    pytorch = signatures(page_text, row.pytorch)
    mindspore = signatures(page_text, row.mindspore)
    rows = parameter_rows(page_text)
    entry: dict[str, Any] = {"pytorch": row.pytorch, "page": page}
    names: dict[str, str] = {}
    is_class = row.mindspore.rpartition(".")[2][:1].isupper()
    for item in rows:
        if item.category == "input" and is_class:
            continue  # what the layer is called with, not what builds it
        if item.pytorch and item.mindspore and not _POSITION_WORDS.search(item.text):
            names[item.pytorch] = item.mindspore
    if pytorch:
        entry["pytorch_positional"] = pytorch[0].positional
        entry["pytorch_defaults"] = pytorch[0].defaults
        if len(pytorch) > 1:
            entry["overloaded"] = True
        for name in pytorch[0].positional + pytorch[0].keyword_only:
            if mindspore and name in _all_names(mindspore[0]):
                names.setdefault(name, name)
    if mindspore:
        entry["mindspore_positional"] = mindspore[0].positional
        entry["mindspore_defaults"] = mindspore[0].defaults
    entry["names"] = names
    parameters = [item for item in rows if item.category == "parameter" or not is_class]
    entry["missing"] = sorted({item.pytorch for item in parameters if item.pytorch and not item.mindspore})
    entry["discarded"] = sorted({item.mindspore for item in parameters
                                 if item.mindspore and _DISCARDED_WORDS.search(item.text)})
    entry["documented_defaults"] = sorted({item.pytorch for item in parameters
                                           if item.pytorch and re.search(r"default", item.text, re.I)})
    meanings = sorted({item.pytorch for item in rows
                       if item.pytorch and item.mindspore and _MEANING_WORDS.search(item.text)})
    if meanings:
        entry["meaning"] = meanings
    return entry


def _same(row: ParameterRow) -> bool:
    return row.pytorch == row.mindspore and (not row.text or row.text.strip("-. ").lower() in (
        "consistent", "same", "no difference", "the same", "consistent function", "same function"))


def _all_names(signature: Signature) -> list[str]:
    return signature.positional + signature.keyword_only


def differences(entry: dict[str, Any]) -> list[dict[str, Any]]:
    """What differs, parameter by parameter: a PyTorch positional argument MindSpore reads as another parameter
    (``position``), a default that differs (``default``), a keyword accepted with another meaning (``meaning``); and
    what the page's table says besides: a parameter spelt otherwise (``name``), one MindSpore lacks (``missing``,
    PyTorch's deprecated and general ones left out), one MindSpore deprecates (``discarded``)."""
    found: list[dict[str, Any]] = []
    names = entry.get("names", {})
    meanings = set(entry.get("meaning", ()))
    torch_positional = entry.get("pytorch_positional", [])
    ms_positional = entry.get("mindspore_positional")
    if ms_positional is not None and not entry.get("overloaded"):
        for index, name in enumerate(torch_positional):
            if index >= len(ms_positional) or name in _NOT_POSITIONAL:
                break  # a port passes nothing by position from here on
            mapped = names.get(name, name if name in ms_positional else "")
            if mapped != ms_positional[index] and name not in ("input", "x"):
                found.append({"kind": "position", "index": index, "pytorch": name, "mindspore": ms_positional[index],
                              "mindspore_for_pytorch": mapped})
    torch_defaults = entry.get("pytorch_defaults", {})
    ms_defaults = entry.get("mindspore_defaults", {})
    for name in sorted(set(torch_defaults) - meanings):
        mapped = names.get(name, name)
        if mapped in ms_defaults and not _equal_literals(torch_defaults[name], ms_defaults[mapped]):
            found.append({"kind": "default", "pytorch": name, "mindspore": mapped,
                          "pytorch_default": torch_defaults[name], "mindspore_default": ms_defaults[mapped]})
    for name in sorted(meanings):
        found.append({"kind": "meaning", "pytorch": name, "mindspore": names.get(name, name)})
    # what MS604 and the page's table say besides: a parameter spelt otherwise, one MindSpore lacks, one it
    # deprecates
    for name, mapped in sorted(names.items()):
        if name != mapped and name not in ("input", "x"):
            found.append({"kind": "name", "pytorch": name, "mindspore": mapped})
    for name in entry.get("missing", ()):
        if name not in _GENERAL:
            found.append({"kind": "missing", "pytorch": name, "mindspore": ""})
    for name in entry.get("discarded", ()):
        found.append({"kind": "discarded", "pytorch": "", "mindspore": name})
    return found


def _equal_literals(left: str, right: str) -> bool:
    try:
        return ast.literal_eval(left) == ast.literal_eval(right)
    except (ValueError, SyntaxError):
        return left.replace(" ", "") == right.replace(" ", "")


def domain(mindspore: str, pytorch: str) -> str:
    """The domain of a mapped API: ``layers``, ``losses``, ``optimizers``, ``functional``, ``data``, ``other``."""
    last = mindspore.rpartition(".")[2]
    if mindspore.startswith("mindspore.dataset.") or pytorch.startswith(("torch.utils.data", "torchvision.",
                                                                         "torchaudio.", "torchtext.")):
        return "data" if not pytorch.startswith("torchvision.ops") else "functional"
    if pytorch.startswith("torch.optim") or mindspore.startswith(("mindspore.experimental.optim",
                                                                  "mindspore.mint.optim")):
        return "optimizers"
    if last.endswith("Loss") or last.endswith("_loss"):
        return "losses"
    if re.match(r"mindspore\.(mint\.)?nn\.[A-Z]", mindspore) and pytorch.startswith("torch.nn."):
        return "layers"
    if mindspore.startswith(("mindspore.ops.", "mindspore.mint.", "mindspore.Tensor.", "mindspore.numpy.")):
        return "functional"
    return "other"


# --------------------------------------------------------------------------------------------------------------
# The table
# --------------------------------------------------------------------------------------------------------------

def build(sources: Iterable[Source]) -> dict[str, Any]:
    apis: dict[str, dict[str, Any]] = {}
    read: dict[str, str] = {}
    for source in sources:
        mapping = source.read(MAPPING_PAGE)
        if mapping is None:
            raise MappingError(f"{source.name}: no {MAPPING_DIR}/{MAPPING_PAGE}")
        read[source.name] = source.commit()
        for row in mapping_rows(mapping):
            if row.page is None:
                continue
            relative = f"pytorch_diff/{row.page}.md"
            text = source.read(relative)
            if text is None:
                continue
            entry = entry_for(row, text, f"{source.name}:{relative}")
            entry["_text"] = text
            entry["domain"] = domain(row.mindspore, row.pytorch)
            entry["differences"] = differences(entry)
            if row.mindspore in apis and apis[row.mindspore]["pytorch"] != row.pytorch \
                    and apis[row.mindspore]["page"].startswith(source.name + ":"):
                continue  # the first PyTorch API a source maps to it (piecewise_constant_lr: two schedulers)
            apis[row.mindspore] = entry
    for name, supplement in SUPPLEMENTS.items():
        entry = {**supplement, "domain": domain(name, supplement["pytorch"])}
        entry["differences"] = differences(entry)
        apis.setdefault(name, entry)
    for names, sentence, difference in PROSE:
        for name in names:
            if name in apis:
                if sentence not in " ".join(apis[name].pop("_text", "").split()):
                    raise MappingError(f"{apis[name]['page']} no longer says: {sentence}")
                apis[name]["differences"].append(dict(difference))
    for name, entry in apis.items():
        entry.pop("_text", None)
        _apply_measured(name, entry)
        _mark_absent(name, entry)
    return {"sources": read, "apis": dict(sorted(apis.items()))}


def _apply_measured(name: str, entry: dict[str, Any]) -> None:
    """Each difference ms-lint measured gets its note; a default the documentation gives as None on one side
    (computed from other arguments) is kept only where measured."""
    for measured in MEASURED.get(name, ()):
        matching = [item for item in entry["differences"]
                    if item["kind"] == measured.kind and item["pytorch"] == measured.parameter]
        if not matching:
            raise MappingError(f"{name}: the documentation no longer shows a {measured.kind} difference of "
                               f"{measured.parameter}, which ms-lint measured")
        for item in matching:
            item["effect"] = measured.effect
            item["consequence"] = measured.consequence
            for key in ("error", "equivalent", "device", "hints", "not_hints", "needs"):
                if getattr(measured, key):
                    item[key] = list(value) if isinstance(value := getattr(measured, key), tuple) else value
    documented = set(entry.get("documented_defaults", ()))
    entry["differences"] = [item for item in entry["differences"] if "effect" in item or item["kind"] != "default"
                            or "None" not in (item["pytorch_default"], item["mindspore_default"])
                            or item["pytorch"] in documented]


def _mark_absent(name: str, entry: dict[str, Any]) -> None:
    """The shipped MindSpore versions whose ``name`` lacks a MindSpore parameter a difference names."""
    from ms_lint import mindspore_api as api

    for item in entry["differences"]:
        if not item["mindspore"]:
            continue
        absent = [version for version in api.shipped_versions()
                  if (keywords := api.cell_keywords(name, version)) is not None and item["mindspore"] not in keywords]
        if absent:
            item["absent"] = absent


def compact(table: dict[str, Any]) -> dict[str, Any]:
    """The table as shipped: per API only what the rules and the report read (both positional orders; the names
    and defaults of the parameters that differ)."""
    apis = {}
    for name, entry in table["apis"].items():
        differing = {item["pytorch"] for item in entry["differences"]} | {
            item["mindspore"] for item in entry["differences"]}
        out = {key: entry[key] for key in ("pytorch", "page", "domain", "differences") if key in entry}
        for key in ("pytorch_positional", "mindspore_positional"):
            if key in entry:
                out[key] = entry[key]
        if any(item["kind"] in ("position", "default", "meaning") for item in entry["differences"]):
            out["names"] = {torch: ms for torch, ms in entry.get("names", {}).items() if torch != ms}
            for key in ("pytorch_defaults", "mindspore_defaults"):
                out[key] = {parameter: value for parameter, value in entry.get(key, {}).items()
                            if parameter in differing}
        apis[name] = out
    return {"sources": table["sources"], "apis": apis}


def render(table: dict[str, Any]) -> str:
    """One API per line, sorted: a regenerated table's difference reads API by API."""
    lines = [f" {json.dumps(name)}: {json.dumps(entry, sort_keys=True, ensure_ascii=False)}"
             for name, entry in sorted(table["apis"].items())]
    return ("{\n \"apis\": {\n" + ",\n".join(" " + line for line in lines) + "\n },\n \"sources\": "
            + json.dumps(table["sources"], sort_keys=True) + "\n}\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ms_lint.tools.generate_mapping",
        description="Regenerate ms-lint's table of PyTorch arguments MindSpore reads differently from MindSpore's "
                    "API mapping documentation.")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--docs", type=Path, help="a git clone of the mindspore-ai/docs repository")
    where.add_argument("--pages", type=Path, help=f"a directory holding {MAPPING_PAGE} and pytorch_diff/")
    parser.add_argument("--refs", nargs="+", default=list(SOURCES),
                        help=f"the docs branches to read, oldest first (default: {' '.join(SOURCES)})")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help=f"default: {DEFAULT_OUTPUT}")
    parser.add_argument("--check", action="store_true", help="do not write; exit 1 when the output is stale")
    args = parser.parse_args(argv)
    sources = [Source("pages", args.pages)] if args.pages else [Source(ref, args.docs, ref) for ref in args.refs]
    try:
        generated = render(compact(build(sources)))
    except MappingError as exc:
        print(f"generate_mapping: error: {exc}", file=sys.stderr)
        return 2
    if args.check:
        shipped = args.output.read_text(encoding="utf-8") if args.output.is_file() else None
        if shipped == generated:
            print(f"{args.output}: up to date")
            return 0
        print(f"{args.output}: stale; regenerate with python -m ms_lint.tools.generate_mapping")
        return 1
    args.output.write_text(generated, encoding="utf-8")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
