"""MS606: a positional argument PyTorch's layer reads as one thing and MindSpore's as another."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.findings import Finding
from ms_lint.edits import Edit, FixContext
from ms_lint.model import ModuleFacts
from ms_lint.rules.base import Rule


@dataclass(frozen=True)
class Shifted:
    """The positional argument at ``index``: PyTorch's ``pytorch`` where MindSpore's layer takes ``mindspore``, which
    must be a ``python_type`` literal."""

    index: int
    pytorch: str
    mindspore: str
    python_type: type
    keyword: str  # MindSpore's keyword for what PyTorch meant


SHIFTED_POSITIONALS: dict[str, Shifted] = {
    "Embedding": Shifted(2, "padding_idx", "use_one_hot", bool, "padding_idx"),
    "Conv1d": Shifted(4, "padding", "pad_mode", str, "padding"),
    "Conv2d": Shifted(4, "padding", "pad_mode", str, "padding"),
    "Conv3d": Shifted(4, "padding", "pad_mode", str, "padding"),
}


class LayerPositionalArgument(Rule):
    code = "MS606"
    name = "layer-positional-argument"
    summary = ("a positional argument PyTorch's layer reads differently "
               "(`nn.Conv2d(c, c, 3, 1, 1)`: padding vs pad_mode)")
    fix_summary = "pass it by keyword (`padding=1`, with `pad_mode=\"pad\"`; `padding_idx=0`)"
    what = """
        Reports `mindspore.nn` layers called with PyTorch's positional arguments where MindSpore's constructor has
        another parameter at that place: `nn.Embedding(vocab, dim, pad_id)` (MindSpore's third parameter is
        `use_one_hot`), `nn.Conv2d(c_in, c_out, 3, 1, 1)` and Conv1d/Conv3d (the fifth is `pad_mode`). A value of
        the type MindSpore's parameter takes there (a bool for `use_one_hot`, a string for `pad_mode`) is not
        reported, nor a call that also passes a keyword the layer does not take: MS604 reports that call and names
        the positional argument too.
    """
    why = """
        The constructor checks the value it gets and refuses it when the layer is built (measured 2.10 CPU):
        `nn.Embedding(10, 4, 0)` raises TypeError ("the type of 'use_one_hot' should be 'bool'"),
        `nn.Conv2d(3, 8, 3, 1, 1)` TypeError ("the type of 'pad_mode' should be 'str'"), `nn.Conv1d(3, 8, 3, 1, 1)`
        ValueError ("'pad_mode' must be str and must be in ['valid', 'same', 'pad']").
    """
    example = """
        class Stem(nn.Cell):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(3, 16, 3, 1, 1)
    """
    use_instead = """
        class Stem(nn.Cell):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(3, 16, 3, 1, pad_mode="pad", padding=1)
    """
    autofix = """
        Passes the value by MindSpore's keyword: `nn.Embedding(v, d, 0)` -> `nn.Embedding(v, d, padding_idx=0)`,
        `nn.Conv2d(c, c, 3, 1, 1)` -> `nn.Conv2d(c, c, 3, 1, pad_mode="pad", padding=1)`; only when it is the
        last positional argument and no keyword repeats it.
    """

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        version = module.target.version
        for site in module.calls_to(*SHIFTED_POSITIONALS):
            shifted = _shifted(site.node, site.qualname)
            if shifted is None or not _takes(site.qualname, shifted, version) \
                    or api.keywords_not_taken(site.qualname, site.node, version):
                continue  # MS604 reports a call with a keyword the layer does not take, and names this too
            yield self.finding(
                module, site.node, shifted_description(site.node, site.qualname, shifted) + "; pass "
                + shifted_advice(site.node, shifted),
                data={"name": site.qualname, "module": site.qualname.rpartition(".")[0], "index": shifted.index,
                      "parameter": shifted.mindspore, "version": api.mindspore_version(version),
                      "target_version": version},
            )

    def fix(self, context: FixContext, finding: Finding) -> list[Edit]:
        call = finding.node
        if not isinstance(call, ast.Call):
            return []
        shifted = _shifted(call, context.module.qualname(call.func))
        if shifted is None or len(call.args) != shifted.index + 1 \
                or any(keyword.arg in (shifted.keyword, shifted.mindspore) for keyword in call.keywords):
            return []
        argument = call.args[shifted.index]
        extra = 'pad_mode="pad", ' if shifted.mindspore == "pad_mode" else ""
        return [context.replace(argument, f"{extra}{shifted.keyword}={context.text(argument)}")]


def _shifted(call: ast.Call, qualname: str | None) -> Shifted | None:
    """The shifted positional argument of a call of a MindSpore ``nn`` layer, when the value there is not of the
    type MindSpore's parameter takes."""
    if not api.is_nn_name(qualname):
        return None
    shifted = SHIFTED_POSITIONALS.get(api.last_name(qualname))
    if shifted is None or len(call.args) <= shifted.index \
            or any(isinstance(argument, ast.Starred) for argument in call.args[:shifted.index + 1]):
        return None
    value = call.args[shifted.index]
    if isinstance(value, ast.Constant):
        return None if type(value.value) is shifted.python_type else shifted
    # A name or attribute: only when it names what PyTorch passes there (``pad_token_id``, ``padding``).
    name = value.id if isinstance(value, ast.Name) else value.attr if isinstance(value, ast.Attribute) else ""
    return shifted if "pad" in name.lower() and "mode" not in name.lower() else None


def shifted_positional(call: ast.Call, qualname: str | None, version: str) -> Shifted | None:
    """The positional argument of a layer call that PyTorch reads as another parameter, where MindSpore ``version``'s
    layer refuses it."""
    shifted = _shifted(call, qualname)
    return shifted if shifted is not None and _takes(qualname, shifted, version) else None


def shifted_description(call: ast.Call, qualname: str, shifted: Shifted) -> str:
    layer = f"nn.{api.last_name(qualname)}"
    return (f"{layer}() gets {ast.unparse(call.args[shifted.index])} as its {_ordinal(shifted.index)} positional "
            f"argument, PyTorch's {shifted.pytorch}; MindSpore's {layer} takes {shifted.mindspore} there and refuses "
            "it when the layer is built")


def shifted_advice(call: ast.Call, shifted: Shifted) -> str:
    return (f"{shifted.keyword}={ast.unparse(call.args[shifted.index])} by keyword"
            + (' (with pad_mode="pad")' if shifted.mindspore == "pad_mode" else ""))


def _takes(qualname: str, shifted: Shifted, version: str) -> bool:
    """Whether MindSpore ``version``'s layer still has the parameter the value lands in (its keyword tables)."""
    keywords = api.cell_keywords(qualname, version)
    return keywords is None or shifted.mindspore in keywords


def _ordinal(index: int) -> str:
    return ("first", "second", "third", "fourth", "fifth", "sixth")[index]
