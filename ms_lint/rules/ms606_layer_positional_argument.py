"""MS606: a positional argument PyTorch's API reads as one parameter and MindSpore's as another."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Callable, Iterator

from ms_lint import mindspore_api as api
from ms_lint import pytorch_mapping as mapping
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.edits import Edit, FixContext
from ms_lint.model import ModuleFacts
from ms_lint.rules.base import Rule


@dataclass(frozen=True, kw_only=True)
class ShiftedPositional(FindingData):
    """A layer given, by position, a value PyTorch's parameter at that place takes and MindSpore's does not: the
    layer, its module, the place, MindSpore's parameter there and PyTorch's, the effect (``silent``: the layer
    runs with the value taken another way; then ``silent`` too), the mapping page, the version of the tables read
    and the target's version; the value as written, what MindSpore does with it, the rate a complement keeps
    (``1 - x``), and MindSpore's keyword for each positional argument from that place on, with its value as
    written (None when one has none)."""

    name: str = fact(subject=True)
    module: str = fact(for_users=True)
    index: int
    parameter: str
    pytorch_parameter: str
    effect: str = fact(for_users=True)
    page: str = fact(for_users=True)
    silent: bool | None = fact(optional=True)
    version: str = fact(for_users=True)
    target_version: str = fact(for_users=True)
    value: str
    consequence: str
    kept: float | None = fact(optional=True)
    keywords: list[list[str]] | None
    # a rate read as its complement whose value is not written there: 0, PyTorch's "no dropout", is refused
    zero_refused: bool | None = fact(optional=True)

    def message(self) -> str:
        return (_description(self.name, self.value, self.index, self.pytorch_parameter, self.parameter,
                             self.consequence, self.kept, bool(self.zero_refused))
                + "; pass " + _advice(self.pytorch_parameter, self.keywords))


class LayerPositionalArgument(Rule):
    code = "MS606"
    name = "layer-positional-argument"
    summary = ("a positional argument MindSpore's layer reads as another parameter than PyTorch's "
               "(`nn.Dropout(0.2)` is keep_prob; `nn.Conv2d(c, c, 3, 1, 1)`: padding vs pad_mode)")
    fix_summary = "pass it by MindSpore's keyword (`p=0.2`; `padding=1`, with `pad_mode=\"pad\"`; `has_bias=False`)"
    what = """
        Reports a call of a `mindspore.nn` layer, loss or optimizer whose positional argument lands, in
        MindSpore, in another parameter than the one PyTorch's API has at that place, for every API of ms-lint's
        table generated from MindSpore's own API mapping documentation whose difference ms-lint measured:
        `nn.Dropout(0.2)` (MindSpore's first parameter is `keep_prob`), `nn.Conv2d(c_in, c_out, 3, 1, 1)` and the
        other convolutions and pools (the fifth, or third, is `pad_mode`), `nn.Dense(i, o, False)` (the third is
        `weight_init`), `nn.LayerNorm(shape, 1e-6)` (`begin_norm_axis`), `nn.Embedding(v, d, pad_id)`
        (`use_one_hot`), `nn.BCEWithLogitsLoss(weight)` (`reduction`), `nn.Adam(params, lr, (0.9, 0.999))`
        (`beta1`), `nn.Adagrad(params, lr)` (`accum`), `nn.TripletMarginLoss(margin)` (`p`). A value reads as
        PyTorch's when it is a literal of the type PyTorch's parameter takes and not MindSpore's (a string for
        `pad_mode` is not reported), a dropout rate under one half, or a name that says what PyTorch's parameter
        holds (`config.hidden_dropout_prob`, `padding`, `use_bias`) and not what MindSpore's does (`keep_prob`),
        unless the function binds the name, by assignment or as its parameter's default, only to values MindSpore
        reads its own way (`dropout_rate=1.0`, a keep rate; a default of one half drops half either way; a
        default of 0.0 is PyTorch's "no dropout", which MindSpore refuses as a keep rate, so it stays reported).
        A call that also passes a keyword the layer does not take is MS604's, which names the positional
        argument too.
    """
    why = """
        MindSpore takes the value as its own parameter (measured 2.10 and 2.7.1, CPU): some constructors refuse it
        (`nn.Conv2d(3, 8, 3, 1, 1)` TypeError "the type of 'pad_mode' should be 'str'", `nn.MaxPool2d(3, 2, 1)`,
        `nn.Embedding(10, 4, 0)`, `nn.Adam(params, 1e-3, (0.9, 0.999))`), some build and fail at the first call
        (`nn.LayerNorm((4,), 1e-6)`, `nn.BCEWithLogitsLoss(weight)`: TypeError), and some run and compute
        something else: `nn.Dropout(0.2)` drops 80% of the activations, `nn.Dense(3, 4, False)` starts its weight
        at zero and keeps its bias, `nn.Adagrad(params, 0.01)` trains at learning rate 0.001.
    """
    example = """
        class Head(nn.Cell):
            def __init__(self):
                super().__init__()
                self.drop = nn.Dropout(0.1)
                self.proj = nn.Dense(16, 4, False)
    """
    use_instead = """
        class Head(nn.Cell):
            def __init__(self):
                super().__init__()
                self.drop = nn.Dropout(p=0.1)
                self.proj = nn.Dense(16, 4, has_bias=False)
    """
    autofix = """
        Passes the arguments from that place on by MindSpore's keywords: `nn.Dropout(0.2)` -> `nn.Dropout(p=0.2)`,
        `nn.Conv2d(c, c, 3, 1, 1)` -> `nn.Conv2d(c, c, 3, 1, pad_mode="pad", padding=1)`, `nn.Dense(i, o, False)` ->
        `nn.Dense(i, o, has_bias=False)`; only when MindSpore has a keyword for each of them and no keyword repeats
        one.
    """

    records = (ShiftedPositional,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        version = module.target.version
        for site, shifted in _shifted_calls(module, version):
            keywords = _keywords_from(site.node, shifted, version)
            kept = _kept(site.node, shifted)
            yield self.report(module, site.node, ShiftedPositional(
                name=site.qualname, module=site.qualname.rpartition(".")[0], index=shifted.index,
                parameter=shifted.mindspore, pytorch_parameter=shifted.pytorch, effect=shifted.effect,
                page=shifted.page, silent=True if shifted.effect == "silent" else None,
                version=api.mindspore_version(version), target_version=version,
                value=ast.unparse(site.node.args[shifted.index]), consequence=shifted.consequence,
                kept=kept, zero_refused=True if _zero_refused(shifted, kept) else None,
                keywords=None if keywords is None else [[keyword, ast.unparse(argument)]
                                                        for keyword, argument in keywords]))

    def fix(self, context: FixContext, finding: Finding) -> list[Edit]:
        call = finding.node
        if not isinstance(call, ast.Call):
            return []
        version = context.module.target.version
        shifted = shifted_positional(call, context.module.qualname(call.func), version)
        keywords = _keywords_from(call, shifted, version) if shifted is not None else None
        edits = []
        prefix = ""
        for keyword, argument in keywords or ():
            if keyword == "pad_mode":
                prefix = 'pad_mode="pad", '
                continue
            edits.append(context.replace(argument, f"{prefix}{keyword}={context.text(argument)}"))
            prefix = ""
        return edits


def _shifted_calls(module: ModuleFacts, version: str) -> Iterator[tuple[object, mapping.Difference]]:
    for site in module.calls_to(*mapping.class_names("position")):
        if module.in_dead_branch(site.node, site.function):
            continue
        shifted = shifted_positional(site.node, site.qualname, version, _literals_bound(module, site.function))
        if shifted is None or api.keywords_not_taken(site.qualname, site.node, version):
            continue  # MS604 reports a call with a keyword the layer does not take, and names this too
        yield site, shifted


def shifted_positional(call: ast.Call, qualname: str | None, version: str = "",
                       literals: Callable[[str], list] | None = None) -> mapping.Difference | None:
    """The measured difference of the first positional argument of a call of a MindSpore API that reads as
    PyTorch's parameter where MindSpore ``version``'s API has another (the value is ``call.args[found.index]``).
    ``literals``: the literal values the function around the call binds to a name, where known."""
    for difference in mapping.differences(qualname, "position", version):
        index = difference.index
        if len(call.args) <= index or any(isinstance(argument, ast.Starred) for argument in call.args[:index + 1]):
            continue
        if reads_as_pytorch(call.args[index], difference, literals):
            return difference
    return None


def reads_as_pytorch(value: ast.expr, difference: mapping.Difference,
                     literals: Callable[[str], list] | None = None) -> bool:
    """Whether ``value``, passed where PyTorch has ``difference.pytorch`` and MindSpore ``difference.mindspore``,
    holds what PyTorch's parameter holds: a literal of PyTorch's kind, or a name that says so, unless the function
    binds that name only to literals none of which reads as PyTorch's (``dropout_ratio = 1.0``: a keep rate)."""
    if isinstance(value, ast.Name) and literals is not None:
        bound = literals(value.id)
        if bound and not any(_literal_reads_as_pytorch(literal, difference) or _no_rate(literal, difference)
                             for literal in bound):
            return False
    constant = _literal(value)
    if constant is not _NOT_LITERAL:
        return _literal_reads_as_pytorch(constant, difference)
    text = _name_text(value)
    if not text:
        return False
    return any(hint in text for hint in difference.hints) and not any(
        hint in text for hint in (*difference.not_hints, difference.mindspore.lower()))


def _literal_reads_as_pytorch(constant, difference: mapping.Difference) -> bool:
    if constant is None:
        return False
    if difference.equivalent == "1 - x":  # a rate read as its complement: only a rate under one half is plain
        return isinstance(constant, (int, float)) and not isinstance(constant, bool) and 0 < constant < 0.5
    torch_type, ms_type = difference.pytorch_value_type(), difference.mindspore_value_type()
    kind = _family(type(constant))
    return (torch_type is None or kind == _family(torch_type)) and (ms_type is None or kind != _family(ms_type))


def _no_rate(constant, difference: mapping.Difference) -> bool:
    """Whether a value a name is bound to is a rate of zero where MindSpore reads the complement: PyTorch's "drop
    nothing" (``drop_rate=0.0``), which MindSpore refuses as a keep rate (ValueError), so not MindSpore's reading."""
    return difference.equivalent == "1 - x" and constant == 0 and not isinstance(constant, bool)


def _literals_bound(module: ModuleFacts, function) -> Callable[[str], list]:
    """The literal values the assignments of ``function`` (the module's top level when None) bind to a name, and
    the literal default of the function's parameter of that name (``dropout_rate=1.0``: a keep rate)."""
    def literals(name: str) -> list:
        found = [value for value in map(_literal, _parameter_defaults(function).get(name, ()))
                 if value is not _NOT_LITERAL]
        for node in module.index.subtree_nodes_of(function if function is not None else module.tree, (ast.Assign,)):
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
                value = _literal(node.value)
                if value is not _NOT_LITERAL:
                    found.append(value)
        return found
    return literals


def _parameter_defaults(function) -> dict[str, list[ast.expr]]:
    """The default of each parameter of ``function`` that has one (nothing for module-level code)."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return {}
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    found = {argument.arg: [default] for argument, default in
             zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults)}
    found.update({argument.arg: [default] for argument, default in zip(arguments.kwonlyargs, arguments.kw_defaults)
                  if default is not None})
    return found


_NOT_LITERAL = object()


def _literal(value: ast.expr):
    try:
        return ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _NOT_LITERAL


def _family(kind: type) -> str:
    if kind in (tuple, list):
        return "sequence"
    return kind.__name__


def _name_text(value: ast.expr) -> str:
    """The lowercased dotted name a value is read from (``config.hidden_dropout_prob``, ``self.pad[0]``)."""
    while isinstance(value, ast.Subscript):
        value = value.value
    parts = []
    while isinstance(value, ast.Attribute):
        parts.append(value.attr)
        value = value.value
    if isinstance(value, ast.Name):
        parts.append(value.id)
    elif parts:
        return ""
    return ".".join(reversed(parts)).lower()


def shifted_description(call: ast.Call, qualname: str, difference: mapping.Difference) -> str:
    kept = _kept(call, difference)
    return _description(qualname, ast.unparse(call.args[difference.index]), difference.index, difference.pytorch,
                        difference.mindspore, difference.consequence, kept, _zero_refused(difference, kept))


def _zero_refused(difference: mapping.Difference, kept: float | None) -> bool:
    """Whether to say that a rate of 0 is refused: a rate read as its complement whose value is not written at the
    call (a literal says what it keeps instead)."""
    return difference.equivalent == "1 - x" and kept is None


def _kept(call: ast.Call, difference: mapping.Difference) -> float | None:
    """The rate a value read as its complement (``1 - x``) keeps, where it is a number literal; None otherwise."""
    constant = _literal(call.args[difference.index])
    return constant if difference.equivalent == "1 - x" and isinstance(constant, (int, float)) else None


def _description(qualname: str, value: str, index: int, pytorch: str, mindspore: str, consequence: str,
                 kept: float | None, zero_refused: bool = False) -> str:
    layer = f"nn.{api.last_name(qualname)}"
    text = (f"{layer}() gets {value} as its {_ordinal(index)} positional argument, PyTorch's {pytorch}; MindSpore's "
            f"{layer} takes {mindspore} there and {consequence}")
    if kept is not None:
        text += f" (keeps {kept:.0%}, drops {1 - kept:.0%})"
    if zero_refused:
        text += ", and refuses a rate of 0 (PyTorch's \"no dropout\") when the layer is built (ValueError)"
    return text


def shifted_advice(call: ast.Call, shifted: mapping.Difference, version: str = "") -> str:
    keywords = _keywords_from(call, shifted, version)
    return _advice(shifted.pytorch, None if keywords is None else [[keyword, ast.unparse(argument)]
                                                                   for keyword, argument in keywords])


def _advice(pytorch: str, keywords: list[list[str]] | None) -> str:
    """How to pass the values: by MindSpore's keywords (each with its value as written), or as the parameter
    ``pytorch`` asks where no keyword form is known."""
    if keywords is None:
        if pytorch == "betas":
            return "beta1= and beta2= by keyword"
        if pytorch == "margin":
            return "the margin when calling the loss, where MindSpore takes it"
        return f"{pytorch} by MindSpore's keyword"
    text = ", ".join(f"{keyword}={argument}" for keyword, argument in keywords if keyword != "pad_mode")
    return f"{text} by keyword" + (' (with pad_mode="pad")' if any(k == "pad_mode" for k, _ in keywords) else "")


def _keywords_from(call: ast.Call, shifted: mapping.Difference, version: str) -> list[tuple[str, ast.expr]] | None:
    """MindSpore's keyword for each positional argument from the difference's place on (``pad_mode`` before
    ``padding`` where PyTorch's padding moves to MindSpore's, standing for ``pad_mode="pad"``), or None when one
    has none in ``version`` or a keyword of the call already names it."""
    pytorch, mindspore, names = mapping.positional_orders(shifted.api)
    accepted = api.cell_keywords(shifted.api, version)
    if accepted is None:
        accepted = mindspore
    given = {keyword.arg for keyword in call.keywords}
    keywords: list[tuple[str, ast.expr]] = []
    for index in range(shifted.index, len(call.args)):
        if index >= len(pytorch) or isinstance(call.args[index], ast.Starred):
            return None
        keyword = names.get(pytorch[index], pytorch[index])
        if index == shifted.index and shifted.mindspore_for_pytorch:
            keyword = shifted.mindspore_for_pytorch
        if keyword not in accepted or keyword in given:
            return None
        if keyword == "padding" and shifted.mindspore == "pad_mode":
            if "pad_mode" in given:
                return None
            keywords.append(("pad_mode", call.args[index]))
        keywords.append((keyword, call.args[index]))
    return keywords


def _ordinal(index: int) -> str:
    return ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")[index]
