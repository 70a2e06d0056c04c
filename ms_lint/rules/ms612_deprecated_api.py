"""MS612: a call of what the target MindSpore version deprecates (its own deprecation decorator says since when)."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.edits import Edit, FixContext
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.model import TENSOR, ModuleFacts
from ms_lint.rules.base import Rule
from ms_lint.rules.ms610_call_rejected_by_version import display_name

# How MindSpore's decorator names a replacement (``ops.pad``, ``nn.Adam``, ``Tensor.isclose``) -> its package path.
_SHORT_PREFIXES = {"ops.": "mindspore.ops.", "nn.": "mindspore.nn.", "mint.": "mindspore.mint.",
                   "Tensor.": "mindspore.Tensor."}


@dataclass(frozen=True, kw_only=True)
class Deprecated(FindingData):
    """A call of what a target's version deprecates: the callee, the version it is deprecated from, the
    replacement MindSpore's warning names ("" where none), the version whose decorator marks it, and the target's
    versions."""

    name: str = fact(subject=True)
    since: str
    replacement: str
    version: str
    target_versions: list[str] = fact(for_users=True)

    @property
    def use(self) -> str:
        if self.replacement in (display_name(self.name), self.name):  # (ops.ScalarCast names itself)
            return "; MindSpore's warning names the same name as its replacement"
        return f"; use {self.replacement}" if self.replacement else "; MindSpore names no replacement"

    def message(self) -> str:
        return (f"{display_name(self.name)} is deprecated from MindSpore {self.since} (marked in MindSpore "
                f"{self.version}, which warns when it runs and will remove it in a later release){self.use}")


class DeprecatedApi(Rule):
    code = "MS612"
    cause_in_file = ("name",)
    name = "deprecated-api"
    summary = "a call of a MindSpore function, class or Tensor method that the target version deprecates"
    fix_summary = "call the replacement MindSpore names (`ops.padding` -> `ops.pad`)"
    enabled_by_default = False
    level = "warning"
    what = """
        Reports a call of a public MindSpore callable (`mindspore`, `ops`, `nn`, `mint`) in any code, or of a Tensor
        method on a tensor value in the code a Cell runs, that MindSpore's own deprecation decorator marks in the
        target's version (each version a requirement allows), with the version it is deprecated from and the
        replacement MindSpore names. Which ones, since when and their replacements are read from each MindSpore
        release ms-lint ships tables for (the decorator's own arguments); a version older than all of them is not
        judged (what it deprecates is unknown). Off by default: a deprecated call still works.
    """
    why = """
        MindSpore warns at run time ("'UniformReal' is deprecated from version 2.10.0 and will be removed in a future
        version, use 'mindspore.mint.rand' instead"), once per name and only for the lines that run; the name is to
        be removed in a later release, where the call fails.
    """
    example = """
        def draw(shape):
            return ops.randint(0, 10, shape)
    """
    use_instead = """
        def draw(shape):
            return mint.randint(0, 10, shape)
    """
    autofix = """
        Calls the replacement where MindSpore names one function or class whose signature in the target's version is
        the same as the deprecated one's (`mindspore.set_dump` -> `mindspore.tools.set_dump`); others are left to
        you.
    """

    records = (Deprecated,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        versions = api.answering_tables(module.target.judged_versions)
        if not versions:
            return
        deprecated = _deprecated_names(versions)
        written = module.written_call_names()
        if deprecated.isdisjoint(written):
            return
        for site in module.calls_written(*(name for name in written if name in deprecated)):
            if site.qualname and api.is_mindspore(site.qualname):
                found = _deprecated(site.qualname, versions)
                if found is not None:
                    yield self._finding(module, site.node, site.qualname, found)
        if module.uses_torch():
            return
        methods = _deprecated_methods(versions)
        if methods.isdisjoint(written):
            return
        reported: set[int] = set()
        for function in module.cell_functions():
            for node in function.nodes_of(ast.Call):
                func = node.func
                if not isinstance(func, ast.Attribute) or func.attr not in methods or id(node) in reported \
                        or (module.qualname(func) or "").startswith("mindspore.") \
                        or function.kind(func.value) != TENSOR:
                    continue
                qualname = f"{api.TENSOR}.{func.attr}"
                found = _deprecated(qualname, versions)
                if found is not None:
                    reported.add(id(node))
                    yield self._finding(module, node, qualname, found)

    def _finding(self, module: ModuleFacts, node: ast.Call, qualname: str,
                 found: tuple[str, tuple[str, str]]) -> Finding:
        version, (since, replacement) = found
        return self.report(module, node, Deprecated(name=qualname, since=since, replacement=replacement,
                                                    version=version,
                                                    target_versions=list(module.target.judged_versions)))

    def fix(self, context: FixContext, finding: Finding) -> list[Edit]:
        call = finding.node
        deprecated = self.data_of(finding)
        if deprecated is None:
            return []
        replacement = _replacement_qualname(deprecated.replacement)
        old, version = deprecated.name, deprecated.version
        if not isinstance(call, ast.Call) or replacement is None or old.startswith(api.TENSOR + ".") \
                or replacement.startswith(api.TENSOR + "."):
            return []
        before, after = api.signatures(old, version), api.signatures(replacement, version)
        if before is None or after is None or [form.text for form in before] != [form.text for form in after]:
            return []
        return [context.replace(call.func, context.reference(replacement))]


def _replacement_qualname(text: str) -> str | None:
    """The qualified name of a replacement MindSpore names as one dotted name; None for prose."""
    if not text or not all(part.isidentifier() for part in text.split(".")):
        return None
    for short, full in _SHORT_PREFIXES.items():
        if text.startswith(short):
            return full + text[len(short):]
    return text if text.startswith("mindspore.") else None


def _deprecated(qualname: str, versions: tuple[str, ...]) -> tuple[str, tuple[str, str]] | None:
    for version in versions:
        found = api.deprecation(qualname, version)
        if found is not None:
            return version, found
    return None


@lru_cache(maxsize=16)
def _deprecated_names(versions: tuple[str, ...]) -> frozenset[str]:
    return frozenset(api.last_name(name) for version in versions
                     for name in api.tables(version).get("deprecations", {}))


@lru_cache(maxsize=16)
def _deprecated_methods(versions: tuple[str, ...]) -> frozenset[str]:
    return frozenset(api.last_name(name) for version in versions
                     for name in api.tables(version).get("deprecations", {}) if name.startswith(api.TENSOR + "."))
