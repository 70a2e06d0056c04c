"""MS607: a name read from a MindSpore module that the module does not have (``nn.functional.softmax``)."""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Iterable, Iterator

from ms_lint import mindspore_api as api
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.model import ModuleFacts
from ms_lint.rules.base import Rule

# Handlers that make a failed look-up part of the code's plan: ``try: f = nn.utils.weight_norm except ...``.
_CAUGHT = frozenset({"AttributeError", "ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


@dataclass(frozen=True, kw_only=True)
class MissingName(FindingData):
    """A name read or imported from a MindSpore module that the module does not have: the code as written (an
    attribute chain, an import), the module, the name, what fails (``AttributeError when the line runs``), the
    version of the tables read and the target's version; where the target allows several versions (a requirement's
    range), ``versions``: those of them that lack it (``version`` is the first)."""

    written: str
    module: str
    name: str = fact(subject=True)
    failure: str
    version: str
    target_version: str = fact(for_users=True)
    versions: list[str] | None = fact(optional=True)

    def message(self) -> str:
        hint = _replacement(self.module, self.name, self.version)
        versions = _versions_text(self.versions or [self.version])
        return (f"{self.written}: {self.module} has no `{self.name}` in MindSpore {versions} ({self.failure})"
                + (f"; {hint}" if hint else ""))


class MissingMindSporeApi(Rule):
    code = "MS607"
    cause_in_file = ("written", "module", "name")
    name = "missing-mindspore-api"
    summary = "a name read from a MindSpore module that the module does not have (`nn.functional`, `ops.xyz`)"
    fix_summary = "use the name MindSpore has (`mint.nn.functional.softmax`, `ops.softmax`)"
    what = """
        Reports `module.name` where `module` is a MindSpore module (`mindspore.nn`, `mindspore.ops`,
        `mindspore.mint`, ... imported under any name) and `name` is neither one of its attributes nor one of its
        submodules in the target's MindSpore version (`--ms-version`, else the installed or required one; for a
        requirement's range, any version it allows: the message names those that lack it; a version older than every
        shipped table is not judged, since what it has is unknown), and
        `from mindspore.x import name` / `import mindspore.x.name` of such a name, or from such a module
        (`from mindspore.nn.transformer import TransformerEncoder`: a module of older MindSpore versions, which
        2.7.1 and 2.10 lack; the classes built from it are this finding's, not MS604's, whose signatures are those of
        the target's `nn.TransformerEncoder`). The names come from each
        MindSpore release itself (`python -m ms_lint.tools.generate_tables`, run under each version ms-lint ships
        tables for), submodules not imported by default included. A read guarded
        for its absence is not reported: inside `try` with an `except` for AttributeError or ImportError (or
        Exception), in an `except` (another version's fallback), under an `if` or a conditional expression that tests
        the MindSpore version or `hasattr(..., "name")`; nor are annotations, nor a write (`nn.functional = ...`
        puts the name there).
    """
    why = """
        The read raises AttributeError (ImportError for an import) when the line runs: in `__init__` the model
        cannot be built, in `construct` graph mode stops compiling (`AttributeError: Module: 'Namespace:mindspore.nn'
        object has no attribute 'functional'`), in PyNative the step fails. Such names come from PyTorch
        (`torch.nn.functional` is `mindspore.mint.nn.functional` or `mindspore.ops`; `torch.nn.utils.weight_norm`
        has no MindSpore counterpart) or from another MindSpore version (`mint.nn.CosineEmbeddingLoss` is in 2.10,
        not in 2.7.1): the message names the version whose tables answered.
    """
    example = """
        class Attention(nn.Cell):
            def construct(self, scores):
                return nn.functional.softmax(scores, axis=-1)
    """
    use_instead = """
        class Attention(nn.Cell):
            def construct(self, scores):
                return ops.softmax(scores, axis=-1)
    """

    records = (MissingName,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        # Each version the target allows that tables answer for (none for a version older than them all: unknown).
        versions = api.answering_tables(module.target.judged_versions)
        found: dict[tuple[int, int, str], tuple[ast.AST, str, str, str, str, list[str]]] = {}
        for version in versions:
            for node, written, owner, part, failure in self._misses(module, version):
                key = (node.lineno, node.col_offset, written)
                found.setdefault(key, (node, written, owner, part, failure, []))[5].append(version)
        for node, written, owner, part, failure, lacking in found.values():
            yield self.report(module, node, MissingName(
                written=written, module=owner, name=part, failure=failure, version=lacking[0],
                target_version=module.target.version, versions=lacking if len(versions) > 1 else None))

    def _misses(self, module: ModuleFacts, version: str) -> Iterator[tuple[ast.AST, str, str, str, str]]:
        """``(node, as written, module, name, what fails)`` for each name MindSpore ``version`` lacks."""
        tracked = {local: qualname for local, qualname in module.names.items()
                   if api.module_names(qualname, version) is not None}
        if tracked and module.source:
            yield from self._attribute_reads(module, tracked, version)
        yield from self._imports(module, version)

    def _attribute_reads(self, module: ModuleFacts, tracked: dict[str, str], version: str) -> Iterator[tuple]:
        # The source text first: a look-up through the tables per dotted chain, the tree only where one misses.
        source = module.source
        misses = []
        for alias, owner in tracked.items():
            pattern = _chain_pattern(alias)
            # Each chain once (``ops.matmul`` is written many times), then where the missing ones are written.
            missing = {chain: found for chain in set(pattern.findall(source))
                       if (found := _first_missing(owner, chain, version)) is not None}
            if not missing:
                continue
            for match in pattern.finditer(source):
                found = missing.get(match.group(1))
                start = match.start()
                if found is not None and not (start and (source[start - 1].isalnum() or source[start - 1] in "._")):
                    misses.append((start, *found))
        if not misses:
            return
        attributes = None
        for offset, owner, part in misses:
            line = source.count("\n", 0, offset) + 1
            if attributes is None:
                attributes = module.index.subtree_nodes_of(module.tree, (ast.Attribute,))
            for node in attributes:
                if node.lineno == line and node.attr == part and isinstance(node.ctx, ast.Load) \
                        and module.qualname(node.value) == owner \
                        and not guarded(module.tree, node, part, subtree=module.index.subtree):
                    yield node, f"{ast.unparse(node)}", owner, part, "AttributeError when the line runs"
                    break

    def _imports(self, module: ModuleFacts, version: str) -> Iterator[tuple]:
        gone_modules: set[tuple[str, str]] = set()  # a missing module imported from several times: one finding
        for node in module.index.subtree_nodes_of(module.tree, (ast.ImportFrom, ast.Import)):
            if isinstance(node, ast.ImportFrom):
                if node.level or not node.module:
                    continue
                names = api.module_names(node.module, version)
                missing = [alias.name for alias in node.names
                           if names is not None and alias.name != "*" and alias.name not in names]
                owner = node.module
                gone = api.first_missing(node.module, version) if names is None and (
                    node.module.startswith(api.MINDSPORE + ".")) else None
                if gone is not None:  # a module the version lacks: ``from mindspore.nn.transformer import ...``
                    if gone not in gone_modules and not guarded(module.tree, node, gone[1],
                                                                subtree=module.index.subtree):
                        gone_modules.add(gone)
                        yield node, f"from {node.module} import ...", gone[0], gone[1], "ImportError when it runs"
                    continue
            else:
                missing, owner = [], ""
                for alias in node.names:
                    parts = alias.name.split(".")
                    for depth in range(1, len(parts)):
                        names = api.module_names(".".join(parts[:depth]), version)
                        if names is not None and parts[depth] not in names:
                            missing, owner = [parts[depth]], ".".join(parts[:depth])
                            break
                    if missing:
                        break
            for part in missing:
                if not guarded(module.tree, node, part, subtree=module.index.subtree):
                    written = f"from {owner} import {part}" if isinstance(node, ast.ImportFrom) else \
                        f"import {owner}.{part}"
                    yield node, written, owner, part, "ImportError when it runs"


def _versions_text(versions: list[str]) -> str:
    """``2.7.1``, ``2.7.1 and 2.8.0``, ``2.7.1, 2.8.0 and 2.9.0``."""
    return versions[0] if len(versions) == 1 else ", ".join(versions[:-1]) + " and " + versions[-1]


@lru_cache(maxsize=64)
def _chain_pattern(alias: str) -> re.Pattern:
    """The dotted chain read from ``alias`` (``utils.weight_norm`` after ``nn.``). The pattern starts with the alias's
    literal text, so the regular expression engine skips to each place it is written instead of trying every
    position (several times faster on real modules)."""
    return re.compile(re.escape(alias + ".") + r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)")


def _first_missing(owner: str, chain: str, version: str) -> tuple[str, str] | None:
    """``(module, name)`` for the first name of ``chain`` (``utils.weight_norm``) its module does not have, going
    down from ``owner`` while the tables know the module; None when every name read is there."""
    return api.first_missing(f"{owner}.{chain}", version)


@lru_cache(maxsize=256)  # a missing name is usually written many times, in many files
def _replacement(owner: str, part: str, version: str) -> str:
    """Where MindSpore has what was meant: the same path under ``mindspore.mint`` (PyTorch's ``nn.functional``),
    or a close spelling in the same module."""
    if owner.startswith("mindspore.") and not owner.startswith("mindspore.mint"):
        mint = "mindspore.mint." + owner[len("mindspore."):]
        names = api.module_names(mint, version)
        if names is not None and part in names:
            return f"mindspore.mint has it: {mint}.{part}"
    import difflib  # only for a name found missing: most runs never need the module

    public = sorted(name for name in api.module_names(owner, version) or () if not name.startswith("_"))
    close = difflib.get_close_matches(part, public, n=1, cutoff=0.8)
    return f"did you mean {owner}.{close[0]}?" if close else ""


def guarded(tree: ast.Module, node: ast.AST, part: str | tuple[str, ...], caught: frozenset[str] = _CAUGHT,
            subtree: Callable[[ast.AST], Iterable[ast.AST]] = ast.walk) -> bool:
    """Whether the read of ``part`` at ``node`` is made where its absence is planned for: inside ``try`` with an
    ``except`` for one of ``caught`` (AttributeError/ImportError/Exception; MS610 asks for TypeError), or in an
    ``except`` (another version's fallback), under a test (``if``, or a conditional expression) of the version or
    naming ``part`` (``hasattr(.., "part")``; of several names, any); or whether it is an annotation; or whether a
    function around it is chosen under such a test (``if version >= "1.11": return new_form`` then ``return
    old_form``). ``subtree``: a definition's nodes (``NodeIndex.subtree`` gives them without walking the tree)."""
    position = (node.lineno, node.col_offset)
    names = (part,) if isinstance(part, str) else part
    quoted = tuple(quote for name in names for quote in (f'"{name}"', f"'{name}'"))
    return _guarded_where_written(tree, position, quoted, caught) or _chosen_by_version(tree, position, quoted,
                                                                                        subtree)


def _guarded_where_written(tree: ast.Module, position: tuple[int, int], quoted: tuple[str, ...],
                           caught: frozenset[str]) -> bool:
    body: list[ast.stmt] = tree.body
    while body:
        statement = next((s for s in body if (s.lineno, s.col_offset) <= position
                          <= (s.end_lineno, s.end_col_offset)), None)
        if statement is None:
            return False
        if isinstance(statement, (ast.If, ast.While)) and _tests_for(statement.test, quoted):
            return True
        if isinstance(statement, (ast.Try, ast.TryStar)):
            if _contains(statement.body, position) and any(_catches(handler, caught) for handler in statement.handlers):
                return True
            if any(_contains(handler.body, position) for handler in statement.handlers):
                return True  # the fallback of another version: it runs only when what the ``try`` tried failed
        if _in_annotation(statement, position):
            return True
        body = next((block for block in _blocks(statement) if _contains(block, position)), [])
        if not body:  # the innermost statement: a conditional expression in it may test the version
            return any(_tests_for(branch.test, quoted)
                       and (_spans(branch.body, position) or _spans(branch.orelse, position))
                       for branch in ast.walk(statement) if isinstance(branch, ast.IfExp))
    return False


def _chosen_by_version(tree: ast.Module, position: tuple[int, int], quoted: tuple[str, ...],
                       subtree: Callable[[ast.AST], Iterable[ast.AST]]) -> bool:
    """Whether a function around ``position`` is named only where a test of the version (or of ``quoted``) chooses
    it: the way a compatibility module picks one implementation per MindSpore version."""
    scope: ast.AST = tree
    while True:
        inner = next((statement for statement in ast.iter_child_nodes(scope)
                      if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                      and _spans(statement, position)), None)
        if inner is None:
            return False
        if not isinstance(inner, ast.ClassDef) and _named_under_a_test(scope, inner, quoted, subtree):
            return True
        scope = inner


def _named_under_a_test(scope: ast.AST, function: ast.AST, quoted: tuple[str, ...],
                        subtree: Callable[[ast.AST], Iterable[ast.AST]]) -> bool:
    """Whether ``function`` is named in an arm of such a test in ``scope``, or after an ``if`` on it that returns
    (``if version_ge(...): return new`` then ``return old``)."""
    uses, branches = [], []
    for node in subtree(scope):
        if node.__class__ is ast.Name and node.id == function.name and node.ctx.__class__ is ast.Load:
            uses.append((node.lineno, node.col_offset))
        elif node.__class__ in (ast.If, ast.IfExp):
            branches.append(node)
    for branch in branches if uses else ():
        inside = any(_spans(branch, use) and not _spans(branch.test, use) for use in uses)
        after = branch.__class__ is ast.If and branch.body[-1].__class__ in (ast.Return, ast.Raise) \
            and any(use[0] > branch.end_lineno for use in uses)
        if (inside or after) and _tests_for(branch.test, quoted):
            return True
    return False


def _tests_for(test: ast.expr, quoted: tuple[str, ...]) -> bool:
    text = ast.unparse(test)
    return "version" in text.lower() or "TYPE_CHECKING" in text or any(q in text for q in quoted)


def _spans(node: ast.AST, position: tuple[int, int]) -> bool:
    return (node.lineno, node.col_offset) <= position <= (node.end_lineno, node.end_col_offset)


def _blocks(statement: ast.stmt) -> list[list[ast.stmt]]:
    blocks = [getattr(statement, field, None) for field in ("body", "orelse", "finalbody")]
    blocks += [handler.body for handler in getattr(statement, "handlers", ())]
    blocks += [case.body for case in getattr(statement, "cases", ())]
    return [block for block in blocks if isinstance(block, list) and block]


def _contains(block: list[ast.stmt], position: tuple[int, int]) -> bool:
    return bool(block) and (block[0].lineno, block[0].col_offset) <= position \
        <= (block[-1].end_lineno, block[-1].end_col_offset)


def _catches(handler: ast.ExceptHandler, caught: frozenset[str]) -> bool:
    if handler.type is None:
        return True
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any((t.id if isinstance(t, ast.Name) else getattr(t, "attr", "")) in caught for t in types)


def _in_annotation(statement: ast.stmt, position: tuple[int, int]) -> bool:
    annotations = []
    if isinstance(statement, ast.AnnAssign):
        annotations.append(statement.annotation)
    elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
        arguments = statement.args
        every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg]
        annotations += [a.annotation for a in every if a is not None and a.annotation is not None]
        if statement.returns is not None:
            annotations.append(statement.returns)
    return any((a.lineno, a.col_offset) <= position <= (a.end_lineno, a.end_col_offset) for a in annotations)
