"""MS604: a keyword a MindSpore layer's constructor does not take (PyTorch's ``bias=``, ``groups=``)."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.edits import Edit, FixContext
from ms_lint.model import ModuleFacts
from ms_lint.rules.base import Rule
from ms_lint.rules.ms205_conv_padding_without_pad_mode import padding_without_pad_mode
from ms_lint.rules.ms606_layer_positional_argument import shifted_advice, shifted_description, shifted_positional

# PyTorch's keyword for what MindSpore's layers call otherwise; suggested (and fixed) only where the layer takes
# the MindSpore name.
MINDSPORE_KEYWORD_FOR: dict[str, str] = {
    "bias": "has_bias",
    "groups": "group",
    "eps": "epsilon",
    "dim": "axis",
    "num_embeddings": "vocab_size",
    "embedding_dim": "embedding_size",
}


@dataclass(frozen=True, kw_only=True)
class KeywordNotTaken(FindingData):
    """A MindSpore layer built with keywords it does not take: the layer, its module, the keywords, the version of
    the tables read and the target's version; when the call would still fail once they are fixed, the code that
    would report it (``MS606``, ``MS205``) and why (``besides``)."""

    name: str = fact(subject=True)
    module: str = fact(for_users=True)
    keywords: list[str]
    version: str
    target_version: str
    also: str | None = fact(optional=True, for_users=True)
    besides: str | None = fact(optional=True)

    def message(self) -> str:
        accepted = api.cell_keywords(self.name, self.target_version)
        layer = f"{'mint.' if api.is_mint_nn_name(self.name) else ''}nn.{api.last_name(self.name)}"
        renamed = [name for name in self.keywords if MINDSPORE_KEYWORD_FOR.get(name) in accepted]
        parts = [f"MindSpore's {', '.join(f'{name}= is {MINDSPORE_KEYWORD_FOR[name]}=' for name in renamed)}"] \
            if renamed else []
        if len(renamed) < len(self.keywords):
            parts.append(f"it takes {', '.join(sorted(accepted))}" if accepted else "it takes no arguments")
        given = ", ".join(f"{name}=" for name in self.keywords)
        return (f"{layer}() takes no keyword {given} in MindSpore {self.version}: building it raises TypeError "
                f"(unexpected keyword argument); {'; '.join(parts)}"
                + (f"; once that is fixed the call still fails: {self.besides}" if self.besides is not None else ""))


class LayerKeywordNotAccepted(Rule):
    code = "MS604"
    name = "layer-keyword-not-accepted"
    summary = "a keyword argument the MindSpore layer's constructor does not take (`nn.Dense(..., bias=False)`)"
    fix_summary = "use MindSpore's keyword where it has one (`bias` -> `has_bias`, `groups` -> `group`)"
    what = """
        Reports a call of a `mindspore.nn` or `mindspore.mint.nn` Cell class with a keyword argument its
        constructor does not take, in any code: `nn.Dense(4, 8, bias=False)`, `nn.Conv1d(..., groups=4)`,
        `nn.LayerNorm((8,), eps=1e-6)`, `nn.ReLU(inplace=True)`. The keywords each class takes are generated from
        each MindSpore release ms-lint ships tables for, and the target's version decides; a class whose
        constructor takes `**kwargs` is never reported, nor one imported from a module the target's version does
        not have (`from mindspore.nn.transformer import TransformerEncoder`: MS607 reports the import; the class
        is not the target's `nn.TransformerEncoder`). The message names
        MindSpore's keyword for PyTorch's where the class has it. A call MS604 reports is its alone: what else it
        passes PyTorch's way (the fifth positional argument MS606 reports, the padding without `pad_mode` MS205
        reports) is named in the same message, since building the layer raises the keyword's TypeError first.
        A function that builds the same class with the same keywords again is reported once, at the first call,
        with the lines of the others; the fix renames them in every one.
    """
    why = """
        Python refuses the call: building the layer raises TypeError ("got an unexpected keyword argument"), in
        PyNative and graph mode alike, the moment the model is constructed (measured 2.10 CPU). Code ported from
        PyTorch keeps PyTorch's keywords (`bias`, `groups`, `eps`) where MindSpore's `nn` layers spell them
        `has_bias`, `group`, `epsilon`; `mindspore.mint.nn` follows PyTorch's names.
    """
    example = """
        class Head(nn.Cell):
            def __init__(self):
                super().__init__()
                self.proj = nn.Dense(16, 4, bias=False)
    """
    use_instead = """
        class Head(nn.Cell):
            def __init__(self):
                super().__init__()
                self.proj = nn.Dense(16, 4, has_bias=False)
    """
    autofix = """
        Renames the keywords to MindSpore's where the class takes them (`bias=` -> `has_bias=`, `groups=` ->
        `group=`, `eps=` -> `epsilon=`); a call with a keyword that has no MindSpore counterpart is left to you.
    """

    records = (KeywordNotTaken,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        version = module.target.version
        for site, unknown, besides in _calls_not_taken(module, version):
            yield self.report(module, site.node, KeywordNotTaken(
                name=site.qualname, module=site.qualname.rpartition(".")[0], keywords=unknown,
                version=api.mindspore_version(version), target_version=version,
                also=besides[1] if besides else None, besides=besides[0] if besides else None))

    def fix(self, context: FixContext, finding: Finding) -> list[Edit]:
        call = finding.node
        if not isinstance(call, ast.Call):
            return []
        return _renamed(context, call)


def _renamed(context: FixContext, call: ast.Call) -> list[Edit]:
    accepted = api.cell_keywords(context.module.qualname(call.func), context.module.target.version) or ()
    unknown = [keyword for keyword in call.keywords if keyword.arg is not None and keyword.arg not in accepted]
    if not unknown or any(MINDSPORE_KEYWORD_FOR.get(keyword.arg) not in accepted for keyword in unknown):
        return []  # all or nothing: a half-fixed call still raises
    return [context.replace(keyword, f"{MINDSPORE_KEYWORD_FOR[keyword.arg]}={context.text(keyword.value)}")
            for keyword in unknown]


def _calls_not_taken(module: ModuleFacts, version: str) -> Iterator[tuple]:
    """The calls the rule reports, each as (call site, keywords not taken, what else it passes PyTorch's way)."""
    for site in module.calls_to(*api.cell_class_names(version)):
        unknown = api.keywords_not_taken(site.qualname, site.node, version)
        if not unknown:
            continue
        besides = _besides(site.node, site.qualname, version)
        yield site, unknown, besides


def _besides(call: ast.Call, qualname: str, version: str) -> tuple[str, str] | None:
    """What else the call passes PyTorch's way, which MS606 or MS205 would report once the keywords are fixed: the
    text for the message and the code that owns it (reported here once, not twice)."""
    shifted = shifted_positional(call, qualname, version)
    if shifted is not None:
        return f"{shifted_description(call, qualname, shifted)}: pass {shifted_advice(call, shifted)}", "MS606"
    found = padding_without_pad_mode(call, qualname)
    if found is not None:
        padding, pad_mode, _ = found
        return (f"padding={padding!r} with pad_mode={pad_mode!r} raises ValueError: add pad_mode=\"pad\"", "MS205")
    return None
