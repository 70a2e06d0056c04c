"""MS609: a ported layer left at a default MindSpore sets otherwise than PyTorch (off by default)."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint import pytorch_mapping as mapping
from ms_lint.edits import Edit, FixContext
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.model import ModuleFacts
from ms_lint.rules.base import Rule
from ms_lint.rules.ms606_layer_positional_argument import shifted_positional


@dataclass(frozen=True, kw_only=True)
class DefaultsLeft(FindingData):
    """A layer ported from PyTorch left at defaults MindSpore sets otherwise: the layer, and for each parameter
    left in order, MindSpore's name and default, PyTorch's name and default, the MindSpore parameter PyTorch's None
    stands for ("" where none), what the difference does, and the value giving PyTorch's behaviour; what in the
    code reads as PyTorch's, the mapping page and the version of the tables read."""

    name: str = fact(subject=True)
    parameters: list[str]
    pytorch_parameters: list[str]
    defaults: list[str]
    pytorch_defaults: list[str]
    pytorch_default_of: list[str]
    consequences: list[str]
    equivalents: list[str]
    evidence: str
    page: str = fact(for_users=True)
    version: str = fact(for_users=True)

    def message(self) -> str:
        left = "; and ".join(
            f"{parameter} at MindSpore's default {default}, where PyTorch's {pytorch} defaults to "
            f"{pytorch_default}{f' (its {of})' if of else ''}: it {consequence}"
            for parameter, default, pytorch, pytorch_default, of, consequence in zip(
                self.parameters, self.defaults, self.pytorch_parameters, self.pytorch_defaults,
                self.pytorch_default_of, self.consequences))
        advice = ", ".join(f"{parameter}={equivalent}"
                           for parameter, equivalent in zip(self.parameters, self.equivalents))
        return (f"nn.{api.last_name(self.name)}() leaves {left}; the code reads as a port from PyTorch "
                f"({self.evidence}): pass {advice} for PyTorch's behaviour")


class PytorchDefaultDiffers(Rule):
    code = "MS609"
    name = "pytorch-default-differs"
    summary = ("a layer ported from PyTorch left at a default MindSpore sets otherwise "
               "(`nn.LayerNorm` epsilon 1e-07, `nn.GELU` approximate, `nn.MaxPool2d` stride 1); off by default")
    fix_summary = "pass PyTorch's value (`epsilon=1e-05`, `approximate=False`, `stride=kernel_size`)"
    enabled_by_default = False
    level = "warning"
    what = """
        Reports a call of a `mindspore.nn` API that leaves a parameter at its default where MindSpore's default
        differs from PyTorch's in a way that changes training, for every such difference of ms-lint's table
        generated from MindSpore's API mapping documentation that ms-lint measured: the epsilon of `nn.LayerNorm`
        (1e-07, PyTorch's 1e-05) and of `nn.AdamWeightDecay` (1e-06, PyTorch's AdamW 1e-08) and its weight decay
        (0.0, AdamW's 0.01), `nn.GELU`'s tanh approximation, `nn.LeakyReLU`'s slope (0.2, PyTorch's 0.01), the
        pools' stride (1, PyTorch's the kernel size), `nn.InstanceNorm*d`'s affine parameters, `nn.SmoothL1Loss`'s
        reduction ("none", PyTorch's "mean"). Native MindSpore code relies on these defaults on purpose, so a call
        is reported only where the code reads as a port: the call itself, or another call of a mapped API in the
        same class (the same function outside classes), passes a keyword in PyTorch's spelling that the target
        MindSpore does not take (`bias=`, `eps=`, `negative_slope=`), names PyTorch's default for a parameter
        whose default differs (`affine=False` on an instance norm), or passes a positional argument or a momentum
        the way PyTorch reads it (MS606, MS608). The convolutions' bias and padding defaults differ too, and are
        not reported: a port drops PyTorch's `bias=False` and `padding=k // 2` for MindSpore's defaults, so no
        call tells which PyTorch call it came from. In an application that never trains (no entry point that runs
        the module trains, as MS608 says), the differences that act only in training are not reported: the
        instance norms' affine parameters (never learnt, they stay one and zero) and the optimizer's settings; an
        epsilon, an activation, a slope, a stride or a reduction changes inference too and is. Off by default:
        enable it with `--extend-select MS609` when porting.
    """
    why = """
        The layer builds and trains, with another computation than PyTorch's (measured 2.10 and 2.7.1, CPU):
        `nn.LayerNorm((4,))` normalises `[1, 1.001, 0.999, 1]` to +-1.29 where `epsilon=1e-05` gives +-0.31,
        `nn.MaxPool2d(2)` turns 8x8 into 7x7 where PyTorch gives 4x4, `nn.GELU()` differs from the exact GELU by
        up to 4e-4, `nn.LeakyReLU()` gives -0.2 for -1 where PyTorch gives -0.01, `nn.InstanceNorm2d(4)` trains
        `gamma` and `beta`, `nn.SmoothL1Loss()` returns a (2, 3) tensor where PyTorch returns the mean,
        `nn.AdamWeightDecay` leaves a weight with no gradient unchanged where AdamW decays it.
    """
    example = """
        class Block(nn.Cell):
            def __init__(self, dim):
                super().__init__()
                self.proj = nn.Dense(dim, dim, has_bias=False)
                self.norm = nn.LayerNorm((dim,))
                self.act = nn.GELU()
                self.drop = nn.Dropout(0.1)
    """
    use_instead = """
        class Block(nn.Cell):
            def __init__(self, dim):
                super().__init__()
                self.proj = nn.Dense(dim, dim, has_bias=False)
                self.norm = nn.LayerNorm((dim,), epsilon=1e-05)
                self.act = nn.GELU(approximate=False)
                self.drop = nn.Dropout(p=0.1)
    """
    autofix = """
        Adds PyTorch's value by MindSpore's keyword at the end of the call: `epsilon=1e-05`, `approximate=False`,
        `stride=<the kernel size passed>`, `alpha=0.01`; only where the target MindSpore takes those keywords.
    """

    records = (DefaultsLeft,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        version = module.target.version
        sites = [site for site in module.calls_to(*mapping.class_names("default"))
                 if not module.in_dead_branch(site.node, site.function)]
        if not sites:
            return
        evidence = _port_evidence(module, version)
        for site in sites:
            if api.keywords_not_taken(site.qualname, site.node, version):
                continue  # building it raises first (MS604); the call still counts as a port's for the others
            differences = [difference for difference in mapping.differences(site.qualname, "default", version)
                           if not _passed(site.node, site.qualname, difference)
                           and _differs(site.node, site.qualname, difference)
                           and not (difference.only_in_training and not module.application_trains())]
            if not differences:
                continue
            why = _call_evidence(site.node, site.qualname, version) or evidence.get(_unit(site))
            if why is None:
                continue
            equivalents = [(difference, _equivalent_text(site.node, site.qualname, difference))
                           for difference in differences]
            yield self.report(module, site.node, DefaultsLeft(
                name=site.qualname, parameters=[difference.mindspore for difference, _ in equivalents],
                pytorch_parameters=[difference.pytorch for difference, _ in equivalents],
                defaults=[difference.mindspore_default for difference, _ in equivalents],
                pytorch_defaults=[difference.pytorch_default for difference, _ in equivalents],
                pytorch_default_of=[_pytorch_default_of(difference) for difference, _ in equivalents],
                consequences=[difference.consequence for difference, _ in equivalents],
                equivalents=[equivalent for _, equivalent in equivalents],
                evidence=why, page=equivalents[0][0].page, version=api.mindspore_version(version)))

    def fix(self, context: FixContext, finding: Finding) -> list[Edit]:
        call = finding.node
        if not isinstance(call, ast.Call):
            return []
        accepted = api.cell_keywords(context.module.qualname(call.func), context.module.target.version)
        left = self.data_of(finding)
        if left is None:
            return []
        pairs = list(zip(left.parameters, left.equivalents))
        if accepted is not None and any(parameter not in accepted for parameter, _ in pairs):
            return []
        text = ", ".join(f"{parameter}={equivalent}" for parameter, equivalent in pairs)
        if not call.args and not call.keywords:
            closing = context.end_of(call) - 1
            return [Edit(closing, closing, text)]
        last = max([*call.args, *call.keywords], key=lambda node: (node.end_lineno, node.end_col_offset))
        return [context.insert_after(last, f", {text}")]


def _differs(call: ast.Call, qualname: str, difference: mapping.Difference) -> bool:
    """Whether PyTorch's value differs from MindSpore's default for this call: not where PyTorch's equivalent is
    MindSpore's default (``nn.AvgPool2d(1)``: stride 1 either way)."""
    equivalent = _equivalent_text(call, qualname, difference)
    return equivalent is not None and not _same_literal(_parsed(equivalent), difference.mindspore_default)


def _parsed(text: str) -> ast.expr:
    try:
        return ast.parse(text, mode="eval").body
    except SyntaxError:
        return ast.Constant(value=None)


def _passed(call: ast.Call, qualname: str, difference: mapping.Difference) -> bool:
    """Whether the call sets the parameter: by MindSpore's keyword, by PyTorch's where MindSpore has no parameter of
    that name (``eps=`` on a LayerNorm, which MS604 reports), at PyTorch's position where MS606 reports it, at
    MindSpore's position, or with ``**kwargs``."""
    pytorch, mindspore, _ = mapping.positional_orders(qualname)
    given = {keyword.arg for keyword in call.keywords}
    if None in given or difference.mindspore in given:
        return True
    shifted = shifted_positional(call, qualname) if difference.pytorch in pytorch[:len(call.args)] else None
    if shifted is not None and shifted.pytorch == difference.pytorch:
        return True  # given at PyTorch's place, which MindSpore reads as another parameter: MS606's
    if difference.pytorch in given and difference.pytorch not in mindspore:
        return True
    if any(isinstance(argument, ast.Starred) for argument in call.args):
        return True
    return difference.mindspore in mindspore and mindspore.index(difference.mindspore) < len(call.args)


def _equivalent_text(call: ast.Call, qualname: str, difference: mapping.Difference) -> str | None:
    """PyTorch's value as MindSpore's argument: the measured equivalent, which may name another parameter the call
    passes (``kernel_size``), else PyTorch's default."""
    equivalent = difference.equivalent or difference.pytorch_default
    _, mindspore, _ = mapping.positional_orders(qualname)
    if equivalent in mindspore:
        for keyword in call.keywords:
            if keyword.arg == equivalent:
                return ast.unparse(keyword.value)
        index = mindspore.index(equivalent)
        return ast.unparse(call.args[index]) if index < len(call.args) else None
    return equivalent


def _pytorch_default_of(difference: mapping.Difference) -> str:
    """The MindSpore parameter PyTorch's default stands for where MindSpore's equivalent names another parameter
    (a None meaning "the kernel size"); "" otherwise."""
    _, mindspore, _ = mapping.positional_orders(difference.api)
    return difference.equivalent if difference.equivalent in mindspore else ""


def _call_evidence(call: ast.Call, qualname: str | None, version: str) -> str | None:
    """What in one call of a mapped API reads as PyTorch's: a keyword in PyTorch's spelling that MindSpore's API
    spells otherwise, PyTorch's default named for a parameter whose default differs, a positional argument where
    PyTorch reads it (MS606), a momentum in PyTorch's sense (MS608)."""
    pytorch, mindspore, _ = mapping.positional_orders(qualname)
    if not pytorch and not mindspore:
        return None
    accepted = api.cell_keywords(qualname, version)
    if accepted is None:
        accepted = mindspore
    layer = f"nn.{api.last_name(qualname)}" if qualname else "the call"
    for keyword in call.keywords:
        if keyword.arg in pytorch and keyword.arg not in accepted:
            return f"{layer}(..., {keyword.arg}=) is PyTorch's spelling"
    for difference in mapping.differences(qualname, "default", version):
        if difference.pytorch != difference.mindspore:
            continue  # PyTorch's default of another parameter: the value means nothing here
        for keyword in call.keywords:
            if keyword.arg == difference.pytorch and _same_literal(keyword.value, difference.pytorch_default):
                return f"{layer}(..., {keyword.arg}={ast.unparse(keyword.value)}) names PyTorch's default"
    if shifted_positional(call, qualname, version) is not None:
        return f"{layer}() gets a positional argument where PyTorch reads it"
    for difference in mapping.differences(qualname, "meaning", version):
        for keyword in call.keywords:
            if keyword.arg == difference.mindspore and isinstance(keyword.value, ast.Constant) and isinstance(
                    keyword.value.value, (int, float)) and 0 < keyword.value.value < 0.5:
                return f"{layer}({keyword.arg}={keyword.value.value!r}) is PyTorch's {keyword.arg}"
    return None


def _same_literal(value: ast.expr, text: str) -> bool:
    try:
        return ast.literal_eval(value) == ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False


def _unit(site) -> object:
    """What a call belongs to for the evidence of a port: its class, else its function, else the module."""
    if site.owner is not None:
        return site.owner.key
    return id(site.function) if site.function is not None else None


def _port_evidence(module: ModuleFacts, version: str) -> dict[object, str]:
    """The classes and functions of the module (``_unit``) some call of which, to any API of the table, reads as a
    port, with what does (on which line)."""
    found: dict[object, str] = {}
    for site in module.calls_to(*_mapped_names()):
        key = _unit(site)
        if key in found:
            continue
        why = _call_evidence(site.node, site.qualname, version)
        if why is not None:
            found[key] = f"line {site.node.lineno}: {why}"
    return found


@lru_cache(maxsize=1)
def _mapped_names() -> tuple[str, ...]:
    return tuple(sorted({api.last_name(name) for name in mapping.entries() if name.startswith("mindspore.nn.")}))
