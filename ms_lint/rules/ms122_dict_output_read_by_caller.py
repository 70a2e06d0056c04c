"""MS122: a Cell's graph-mode ``construct`` returns a ``dict`` that host code of the project reads by key."""
from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from typing import Iterator

from ms_lint.findings import Finding, FindingData, fact
from ms_lint.model import ClassInfo, FunctionNode, ModuleFacts
from ms_lint.model.project import modules_naming, source_roots
from ms_lint.model.syntax import preorder
from ms_lint.rules.base import Rule
from ms_lint.rules.dict_outputs import dict_returns, key_reads, own_host_code

# The consumers the message names; the data lists them all.
_NAMED_CONSUMERS = 1


@dataclass(frozen=True, kw_only=True)
class DictReadByCaller(FindingData):
    """A dict returned by a Cell's construct that host code reads by key: the Cell, the keys returned, the first
    consumer (``path:line``) and how it reads (``["boxes"]``), every consumer, how many more the message counts,
    the syntax level and the version."""

    template = ("{cell}.construct returns a dict, which GRAPH_MODE at STRICT gives back to Python as a tuple of "
                "its values (keys lost), and {consumer} reads it by key with {read}{others}; return a tuple and "
                "unpack it in the caller, or read the output by position")
    cell: str
    keys: list[str] = fact(for_users=True)
    consumer: str
    read: str
    consumers: list[str] = fact(for_users=True)
    others: str
    level: str = fact(for_users=True)
    version: str = fact(for_users=True)


class DictOutputReadByCaller(Rule):
    code = "MS122"
    compiled_only = True
    name = "dict-output-read-by-caller"
    summary = "a `return` of a `dict` from a Cell's graph-mode `construct` whose caller in the project reads it by key"
    fix_summary = "return a tuple in a fixed order and unpack it in the caller, or read the output by position"
    what = """
        Reports the `return` statements of a Cell's graph-mode `construct` that return a `dict` (a literal, a
        comprehension, `dict(...)`, or a name bound to one), at a STRICT target, when host code of the project
        calls an instance of that Cell and reads its output by key: `out["logits"]`, `net(x)["loss"]`,
        `out.get("k")`, `out.keys()`, `out.items()`, `out.values()`. The caller is looked for in the same module and
        in every module of the project that names the Cell's class (the Python files under its source root); it is
        host code when it is module-level code or a function that is not graph code (in another module: not a
        method of a Cell, not a `jit` function) and that no code uses as a value (a function a table of losses
        hands out may be called from a `construct`), and it builds the instance itself (`net = Model(...)` or
        `Model(...)(x)`). A Cell whose output is only used inside another Cell's `construct` is not reported:
        there the dict stays a dict. The
        finding names the first caller; its data holds the Cell, the keys, every caller (`file:line`) and the level.
        A Cell whose output is indexed by key (`out["k"]`) in its own module is MS117's: that rule reports the read,
        and this one stays silent for the Cell, so one cause gives one finding (the fix, a tuple, is the same for
        every caller).
    """
    why = """
        Under GRAPH_MODE with STRICT, a `dict` returned from the `construct` of the Cell Python calls comes back as a
        tuple of its values, in the dict's order; its keys are lost (nested dicts become nested tuples; keys made
        at run time too). `out["logits"]` then raises TypeError ("tuple indices must be integers or slices, not
        str") and `out.get(...)` AttributeError, in a loss, a post-processor or a training loop that may sit in
        another module, after the compile succeeded. A Cell whose dict output another Cell's `construct` reads stays
        inside one graph, where the dict works at both levels. Under LAX the caller gets the dict. Measured on
        MindSpore 2.7.0, 2.7.1, 2.7.2, 2.8.0, 2.9.0 and 2.10 (CPU): `tests/test_ground_truth_dict_output.py`. A
        `@jit(fullgraph=True)` function returning a dict gives a tuple too, at either level, and a plain `@jit`
        function its dict; neither is reported.
    """
    example = """
        # model.py
        class Detector(nn.Cell):
            def construct(self, x):
                return {"logits": self.head(x), "boxes": self.box(x)}

        # train.py
        from model import Detector

        ms.set_context(mode=ms.GRAPH_MODE)
        net = Detector()
        out = net(images)
        loss = loss_fn(out["logits"], labels)
    """
    use_instead = """
        # model.py
        class Detector(nn.Cell):
            def construct(self, x):
                return self.head(x), self.box(x)

        # train.py
        from model import Detector

        ms.set_context(mode=ms.GRAPH_MODE)
        net = Detector()
        logits, boxes = net(images)
        loss = loss_fn(logits, labels)
    """
    records = (DictReadByCaller,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        if module.target.syntax_level != "strict":
            return
        returning = {}
        for name, info in module.classes.items():
            returns = dict_returns(module, info)
            if returns:
                returning[name] = returns
        if not returning:
            return
        cells = {module.local_prefix + name: name for name in returning}
        root = source_roots(module.path)[0]
        imports = _imports(module)
        own_reads = list(key_reads(module, cells, own_host_code(module)))
        for node, cell, _, _ in own_reads:
            if isinstance(node, ast.Subscript):
                returning.pop(cell, None)  # MS117 reports this read: one finding for one cause
        if not returning:
            return
        found_in = [(module, read) for read in own_reads if read[1] in returning]
        others = {}
        for name in returning if imports else ():
            # a caller builds the Cell itself: its module's text holds ``Name(``
            for other in modules_naming(module.path, f"{name}(", module.settings, any_of=imports):
                others.setdefault(id(other), other)
        for other in others.values():
            found_in.extend((other, read) for read in key_reads(
                other, cells, lambda function, owner, other=other: _host(other, function, owner)))
        consumers: dict[str, list[tuple[str, str]]] = {}
        passed: dict[tuple[str, str], bool] = {}
        for facts, (node, cell, read, function) in found_in:
            if _passed_as_value(facts, function, passed):
                continue
            consumers.setdefault(cell, []).append((_where(facts.path, node, root), read))
        for name, returns in returning.items():
            found = consumers.get(name)
            if not found:
                continue
            keys = _keys(returns)
            for node in returns:
                more = len(found) - _NAMED_CONSUMERS
                yield self.report(module, node, DictReadByCaller(
                    cell=name, keys=keys, consumer=found[0][0], read=found[0][1],
                    consumers=[where for where, _ in found], others=f" (and {more} more)" if more > 0 else "",
                    level="strict", version=module.target.version), scope=name)


def _passed_as_value(module: ModuleFacts, function: FunctionNode | None, known: dict[tuple[str, str], bool]) -> bool:
    """Whether the module-level ``function`` is also used as a value (``LOSSES = {"detection": detection_loss}``),
    in its module or in another that names it: then code ms-lint cannot follow may call it, a Cell's construct
    among them, where the dict stays inside the graph."""
    if function is None or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or (
            module.functions.get(function.name) is not function):
        return False
    key = (module.path, function.name)
    if key not in known:
        imports = _imports(module)
        users = [module, *(modules_naming(module.path, function.name, module.settings, any_of=imports)
                           if imports else ())]
        known[key] = any(_as_value(user, module, function.name) for user in users)
    return known[key]


def _imports(module: ModuleFacts) -> tuple[str, ...]:
    """What the text of a module importing from ``module`` holds: the project's top package (or the module's own
    name, for a module outside any package), or a relative import; empty for a source without a file name."""
    if not module.module_name:
        return ()
    top = module.module_name.split(".", 1)[0]
    return (top, "from .") if module.package else (top,)


def _as_value(user: ModuleFacts, module: ModuleFacts, name: str) -> bool:
    """Whether ``user`` reads the function ``name`` of ``module`` other than as the function of a call."""
    qualname = module.local_prefix + name
    called = {id(node.func) for node in preorder(user.tree) if node.__class__ is ast.Call}
    return any(node.__class__ is ast.Name and node.id == name and isinstance(node.ctx, ast.Load)
               and id(node) not in called and user.qualname(node) == qualname for node in preorder(user.tree))


def _host(module: ModuleFacts, function: FunctionNode | None, owner: ClassInfo | None) -> bool:
    """Whether code of another module's function runs in Python: module level, or neither a Cell's method nor a
    ``jit`` function."""
    if function is None:
        return True
    if owner is not None and owner.is_cell:
        return False
    for decorator in getattr(function, "decorator_list", ()):
        qualname = module.qualname(decorator.func if isinstance(decorator, ast.Call) else decorator) or ""
        if qualname.rsplit(".", 1)[-1] == "jit":
            return False
    return True


def _where(path: str, node: ast.AST, root: str) -> str:
    relative = os.path.relpath(os.path.abspath(path), root)
    return f"{(relative if not relative.startswith(os.pardir) else path).replace(os.sep, '/')}:{node.lineno}"


def _keys(returns: list[ast.Return]) -> list[str]:
    """The constant string keys of the dict literals returned, in order."""
    keys: list[str] = []
    for node in returns:
        if isinstance(node.value, ast.Dict):
            keys.extend(key.value for key in node.value.keys if isinstance(key, ast.Constant)
                        and isinstance(key.value, str) and key.value not in keys)
    return keys
