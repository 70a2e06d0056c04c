"""MS610: a call the target MindSpore version rejects (a keyword it does not take, too many arguments, one left out)."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterator, NamedTuple

from ms_lint import mindspore_api as api
from ms_lint.edits import Edit, FixContext
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.model import TENSOR, ModuleFacts
from ms_lint.rules.base import Rule
from ms_lint.rules.ms603_tensor_expand import reported_expand
from ms_lint.rules.ms605_separate_sizes import separate_sizes
from ms_lint.rules.ms607_missing_mindspore_api import guarded

# Handlers that make a refused call part of the code's plan: ``try: ops.sum(x, dim=1) except TypeError: ...``.
_CAUGHT = frozenset({"TypeError", "Exception", "BaseException"})
# PyTorch's and MindSpore's names for the same parameter (``dim``/``axis``, ``keepdim``/``keep_dims``): a keyword
# the version does not take is renamed to the one of these it takes, where that makes the call bind.
SYNONYMS: tuple[frozenset[str], ...] = (
    frozenset({"dim", "axis"}),
    frozenset({"keepdim", "keep_dims", "keepdims"}),
    frozenset({"input", "x"}),
)


@dataclass(frozen=True, kw_only=True)
class CallRejected(FindingData):
    """A call the target's versions reject: the callee, the kind of mismatch (``keyword``, ``twice``,
    ``together``, ``arity``, ``missing``: ``api.Mismatch``), the keywords it concerns or the parameters left out,
    for ``arity`` the positional arguments given and the most taken; the versions that reject it, the target's
    versions, the forms the first of them takes, the shipped versions that take it, and the keyword renames that
    make it bind (where there are)."""

    name: str = fact(subject=True)
    kind: str
    keywords: list[str]
    missing: list[str]
    given: int | None = fact(optional=True)
    most: int | None = fact(optional=True)
    versions: list[str]
    target_versions: list[str] = fact(for_users=True)
    signature: list[str]
    taken_in: list[str]
    renames: dict[str, str] | None = fact(optional=True)

    def message(self) -> str:
        message = (f"{display_name(self.name)}() {self._problem()} in MindSpore {_versions_text(self.versions)}: "
                   "the call raises TypeError in PyNative and fails to compile in graph mode; it takes "
                   f"{api.describe_forms(self.signature)}; {self._history()}")
        if self.renames:
            message += "; " + ", ".join(f"use {new}= for {old}=" for old, new in self.renames.items())
        return message

    def _problem(self) -> str:
        names = ", ".join(f"{name}=" for name in self.keywords)
        if self.kind == "keyword":
            return f"takes no keyword {names}"
        if self.kind == "twice":
            return f"gets {names} both by position and by keyword"
        if self.kind == "together":
            return f"has no form that takes {names} together"
        if self.kind == "arity":
            return f"takes at most {self.most} positional argument{'' if self.most == 1 else 's'}, not {self.given}"
        return f"requires {', '.join(self.missing)}, which the call leaves out"

    def _history(self) -> str:
        """Where the call worked: ``it last worked in MindSpore 2.7.0``, ``MindSpore 2.8.0 and later take it``."""
        shipped = api.shipped_versions()
        if not self.taken_in:
            return f"no MindSpore version ms-lint has tables for ({shipped[0]} to {shipped[-1]}) takes it"
        first_rejected = api._release(self.versions[0])
        older = [version for version in self.taken_in if api._release(version) < first_rejected]
        if older:
            return f"it last worked in MindSpore {older[-1]}"
        return f"MindSpore {self.taken_in[0]} and later take it"


class Rejection(NamedTuple):
    """What MS610 finds for one call: the versions that reject it, why, and the renames that make it bind."""

    qualname: str
    mismatch: api.Mismatch
    rejected_in: tuple[str, ...]  # the judged versions whose tables reject it (the tables' versions)
    forms: tuple[api.Overload, ...]  # what the first of them takes
    taken_in: tuple[str, ...]  # the shipped versions whose tables take it
    renames: dict[str, str]  # keyword -> the one every judged version takes instead


class CallRejectedByVersion(Rule):
    code = "MS610"
    cause_in_file = ("name", "kind", "keywords", "missing")
    name = "call-rejected-by-version"
    summary = ("a call of a MindSpore function, class or Tensor method that the target version rejects: a keyword "
               "it does not take, too many positional arguments, a required one left out")
    fix_summary = "use the keyword the version takes (`ops.transpose(x, input_perm=p)` -> `dims=p`)"
    what = """
        Reports a call of a public MindSpore callable (`mindspore`, `mindspore.ops`, `mindspore.nn`,
        `mindspore.mint` and its `nn`/`nn.functional`), in any code, or of a `Tensor` method on a tensor value in
        the code a Cell runs (graph code, and `construct` and its helpers under PyNative, where the values' kinds
        are known), that no form of its signature in the target's MindSpore version takes: a keyword it does not take
        (PyTorch's `dim=` where the function takes `axis=`, a keyword renamed between versions), more positional
        arguments than it takes, or a required argument left out. The signatures come from each MindSpore release
        ms-lint ships tables for; a callable whose signature cannot be read there (a Primitive's `__call__`, a C++
        Tensor method whose parser names no forms) is not checked, nor are positional counts of the forms
        MindSpore's own argument parser lists (it packs separate integers into a sequence). Under a requirement
        that allows several versions (`mindspore>=2.7.1`) a call is reported where any of them rejects it, naming
        those versions; a version older than every shipped table is not judged (its signatures are unknown). The
        message gives the accepted signature and the version where the call last worked. A
        call guarded for the difference (inside `try` with an `except TypeError`, under a test of the version) is
        not reported; nor is what another rule reports for the same call: a layer constructor's keywords (MS604),
        PyTorch's separate sizes to `zeros`/`ones` (MS605), `Tensor.expand` in graph code (MS603), `Tensor.repeat`
        (MS611).
    """
    why = """
        The call is refused before MindSpore computes anything. In PyNative Python or MindSpore's argument parser
        raises TypeError ("got an unexpected keyword argument", "takes 3 positional arguments but 4 were given",
        "missing 2 required positional arguments", "got multiple values for argument", "Failed calling sum with ...
        The valid calling should be: ..."); in graph mode the compile fails at the line, STRICT and LAX alike
        (RuntimeError "Got an unexpected keyword argument 'dim'", "takes 3 positional arguments, but 4 were given";
        TypeError from the parser's forms). Measured 2.7.1 and 2.10.0 CPU, and the renamed keyword on 2.7.0 too:
        `ops.transpose(x, input_perm=(1, 0))` runs on 2.7.0 and fails from 2.7.1, where the parameter is `dims`;
        `ops.softmax(x, dim=-1)` fails on every version, where `ops.softmax` takes `axis`. Code written for another
        MindSpore version, or ported from PyTorch, fails at the first call that reaches it.
    """
    example = """
        def scores(q, k):
            return ops.softmax(ops.matmul(q, k.swapaxes(-2, -1)), dim=-1)
    """
    use_instead = """
        def scores(q, k):
            return ops.softmax(ops.matmul(q, k.swapaxes(-2, -1)), axis=-1)
    """
    autofix = """
        Renames a keyword to the one every version checked takes at its place: a rename between versions
        (`input_perm=` -> `dims=` for `ops.transpose` since 2.7.1), or PyTorch's name to MindSpore's (`dim=` ->
        `axis=`, `keepdim=` -> `keep_dims=`) where the callable takes that one; only when the renamed call binds
        in every version checked.
    """

    records = (CallRejected,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        target = module.target
        versions = api.answering_tables(target.judged_versions)
        if not versions:
            return
        names = _callable_names(versions)
        for site in module.calls_written(*names):
            qualname = site.qualname
            if not qualname or not api.is_mindspore(qualname):
                continue
            shape = api.CallShape.of(site.node)
            rejection = rejected(qualname, shape, versions)
            shapes = (shape,)
            if rejection is not None and qualname.startswith(api.TENSOR + ".") and shape.positional:
                # Tensor.method(tensor, ...), unless a static method (Tensor.from_numpy(array)): either must fail
                shapes = (shape, shape._replace(positional=shape.positional - 1))
                rejection = rejection if rejected(qualname, shapes[1], versions) else None
            if rejection is None or _reported_elsewhere(module, qualname, site.node, versions) \
                    or module.in_dead_branch(site.node, site.function) \
                    or _planned_for(module, site.node, api.last_name(qualname), rejection):
                continue
            if not rejected_before(qualname, shapes, target.upgrade_from):
                yield self._finding(module, site.node, rejection, target)
        yield from self._tensor_methods(module, versions, target)

    def _tensor_methods(self, module: ModuleFacts, versions: tuple[str, ...], target) -> Iterator[Finding]:
        methods = _tensor_method_names(versions) - _OWNED_METHODS
        if methods.isdisjoint(module.written_call_names()) or module.uses_torch():
            return
        reported: set[int] = set()
        for function in module.cell_functions():
            for node in function.nodes_of(ast.Call):
                func = node.func
                if not isinstance(func, ast.Attribute) or func.attr not in methods or id(node) in reported:
                    continue
                rejection = rejected(f"{api.TENSOR}.{func.attr}", api.CallShape.of(node), versions)
                if rejection is None or function.kind(func.value) != TENSOR \
                        or _planned_for(module, node, func.attr, rejection):
                    continue
                if func.attr == "expand" and reported_expand(module, function, node):
                    continue  # MS603's: graph mode refuses those sizes whatever the version
                if rejected_before(f"{api.TENSOR}.{func.attr}", (api.CallShape.of(node),), target.upgrade_from):
                    continue
                reported.add(id(node))
                yield self._finding(module, node, rejection, target)

    def _finding(self, module: ModuleFacts, node: ast.Call, rejection: Rejection, target) -> Finding:
        found = rejection.mismatch
        arity = found.kind == "arity"
        return self.report(module, node, CallRejected(
            name=rejection.qualname, kind=found.kind, keywords=list(found.names) if found.kind != "missing" else [],
            missing=list(found.names) if found.kind == "missing" else [], given=found.given if arity else None,
            most=found.most if arity else None, versions=list(rejection.rejected_in),
            target_versions=list(target.judged_versions), signature=[form.text for form in rejection.forms],
            taken_in=list(rejection.taken_in), renames=dict(rejection.renames) or None))

    def fix(self, context: FixContext, finding: Finding) -> list[Edit]:
        call = finding.node
        rejected = self.data_of(finding)
        renames = (rejected.renames if rejected is not None else None) or {}
        if not isinstance(call, ast.Call) or not renames:
            return []
        edits = []
        for keyword in call.keywords:
            new = renames.get(keyword.arg or "")
            if new is not None:
                edits.append(context.replace(keyword, f"{new}={context.text(keyword.value)}"))
        return edits


# Tensor methods another rule owns whatever their arguments: MS611 reports ``repeat`` (its meaning changed).
_OWNED_METHODS = frozenset(change.method for change in api.SEMANTIC_CHANGES)


@lru_cache(maxsize=4096)  # the same callee with the same arguments' shape, over and over
def rejected(qualname: str, shape: api.CallShape, versions: tuple[str, ...]) -> Rejection | None:
    """How ``versions`` (tables' versions) reject a call of ``qualname`` with ``shape``; None when each takes it or
    cannot say."""
    rejected_in, first = [], None
    for version in versions:
        forms = api.signatures(qualname, version)
        if forms is None:
            continue
        found = api.mismatch(forms, shape)
        if found is not None:
            rejected_in.append(version)
            if first is None:
                first = (found, forms)
    if first is None:
        return None
    taken_in = tuple(version for version in api.shipped_versions()
                     if (forms := api.signatures(qualname, version)) is not None and api.mismatch(forms, shape) is None)
    renames = _renames(qualname, shape, versions, first[0]) if first[0].kind in ("keyword", "together") else {}
    return Rejection(qualname, first[0], tuple(rejected_in), first[1], taken_in, renames)


def _renames(qualname: str, shape: api.CallShape, versions: tuple[str, ...], found: api.Mismatch) -> dict[str, str]:
    """``{keyword: its replacement}`` that makes the call bind in every one of ``versions``: each keyword no form
    takes becomes its rename between versions or its synonym, when exactly one choice works."""
    unknown = [name for name in found.names if all(
        (forms := api.signatures(qualname, version)) is None or not any(name in form.keywords for form in forms)
        for version in versions)] if found.kind == "keyword" else list(found.names)
    if not unknown or len(unknown) > 3:
        return {}
    choices = [[None, *_candidates(qualname, name, versions)] for name in unknown]
    working = []
    for picked in _product(choices):
        renames = {old: new for old, new in zip(unknown, picked) if new is not None}
        if not renames or len(set(renames.values()) | (set(shape.keywords) - set(renames))) < len(shape.keywords):
            continue
        renamed = shape.renamed(renames)
        if all((forms := api.signatures(qualname, version)) is None or api.mismatch(forms, renamed) is None
               for version in versions):
            working.append(renames)
    if not working:
        return {}
    fewest = min(len(renames) for renames in working)
    best = [renames for renames in working if len(renames) == fewest]
    return best[0] if len(best) == 1 else {}


def _product(choices: list[list]) -> Iterator[tuple]:
    if not choices:
        yield ()
        return
    for first in choices[0]:
        for rest in _product(choices[1:]):
            yield (first, *rest)


def _candidates(qualname: str, keyword: str, versions: tuple[str, ...]) -> list[str]:
    """What ``keyword`` may be called instead: its synonyms, and the name its position has in another version."""
    found = [name for group in SYNONYMS if keyword in group for name in sorted(group - {keyword})]
    for name in _version_renames(qualname).get(keyword, ()):
        if name not in found:
            found.append(name)
    return found


@lru_cache(maxsize=256)
def _version_renames(qualname: str) -> dict[str, tuple[str, ...]]:
    """``{old name: new names}`` where a parameter keeps its position and changes its name between two shipped
    versions of a callable with one form (``ops.transpose``'s ``input_perm`` became ``dims`` in 2.7.1)."""
    renames: dict[str, list[str]] = {}
    known = [forms[0] for version in api.shipped_versions()
             if (forms := api.signatures(qualname, version)) is not None and len(forms) == 1 and forms[0].stated]
    for old in known:
        for new in known:
            for index, (before, after) in enumerate(zip(old.positional, new.positional)):
                if before != after and before not in new.keywords and after not in old.keywords:
                    renames.setdefault(before, [])
                    if after not in renames[before]:
                        renames[before].append(after)
    return {name: tuple(news) for name, news in renames.items()}


def _planned_for(module: ModuleFacts, call: ast.Call, name: str, rejection: Rejection) -> bool:
    """Whether the code plans for the difference: the call inside ``try`` with an ``except TypeError``, in an
    ``except`` (another version's fallback), under a test of the version, of ``hasattr(.., "name")`` or of the
    keyword's name (``if self.size_name == "sizes":``, after reading the signature), or in a function chosen so."""
    return guarded(module.tree, call, (name, *rejection.mismatch.names), _CAUGHT, module.index.subtree)


def _reported_elsewhere(module: ModuleFacts, qualname: str, call: ast.Call, versions: tuple[str, ...]) -> bool:
    """What another rule reports as the cause: MS604 a layer's keywords (a call of a Cell of ``mindspore.nn``/
    ``mint.nn`` with one it does not take, whatever else the call passes), MS605 PyTorch's separate sizes to
    ``zeros``/``ones``."""
    if separate_sizes(call, qualname, module):
        return True
    return any(api.keywords_not_taken(qualname, call, version) for version in versions)


@lru_cache(maxsize=16)
def _callable_names(versions: tuple[str, ...]) -> frozenset[str]:
    """The names of the public callables the signature tables know in ``versions`` (Tensor methods aside)."""
    return frozenset(name for version in versions
                     for namespace, entries in api.tables(version).get("signatures", {}).items()
                     if namespace != api.TENSOR for name in entries)


@lru_cache(maxsize=16)
def _tensor_method_names(versions: tuple[str, ...]) -> frozenset[str]:
    return frozenset(name for version in versions
                     for name in api.tables(version).get("signatures", {}).get(api.TENSOR, {}))


def display_name(qualname: str) -> str:
    """``mindspore.ops.softmax`` -> ``ops.softmax``, ``mindspore.Tensor.sum`` -> ``Tensor.sum``; a top-level name
    keeps ``mindspore.``."""
    rest = qualname[len("mindspore."):]
    return rest if "." in rest else qualname


def _versions_text(versions: tuple[str, ...]) -> str:
    if len(versions) <= 2:
        return " and ".join(versions)
    return ", ".join(versions[:-1]) + " and " + versions[-1]


def rejected_before(qualname: str, shapes: tuple[api.CallShape, ...], upgrade_from: str) -> bool:
    """Whether the release a project moves from (``upgrade_from``, older than every wheel's tables) rejected the
    call too (each of ``shapes``), by the signature its documentation gives ``qualname``
    (``mindspore_api.documented_signatures``); False where that cannot be told."""
    release = api.documented_release(upgrade_from) if upgrade_from else None
    forms = api.documented_signatures(qualname, release) if release else None
    return forms is not None and all(api.mismatch(forms, shape) is not None for shape in shapes)
