"""MS116: a name read after an ``if`` or a loop that binds it on some paths only, in graph code."""
from __future__ import annotations

import ast
import os
from dataclasses import dataclass, replace
from typing import Iterator

from ms_lint.findings import Finding, FindingData, fact
from ms_lint.edits import Edit, FixContext
from ms_lint.model import ModuleFacts
from ms_lint.model.syntax import self_attribute
from ms_lint.model.flow import PartialRead, partially_bound_reads
from ms_lint.model.project import answer
from ms_lint.model.source import may_hold_hazards, read_source
from ms_lint.model.values import UNKNOWN
from ms_lint.rules.base import Rule


@dataclass(frozen=True, kw_only=True)
class PartlyBound(FindingData):
    """A name read where only some paths bind it: the name; what binds it on some paths only (``if``, ``for``,
    ``while``) and that statement's line; the function as the message names it; whether the read lies in the
    loop's own body, before the pass binds it; the line of such a read in the body that a read after the loop is
    reached through first. For a method of a mixin the Cell inherits: the method and the Cell; for one in another
    module: that module's path and the read's line there."""

    name: str = fact(subject=True)
    bound_in: str
    bound_at_line: int
    function: str
    in_body: bool
    earlier_line: int | None = fact(optional=True)
    method: str | None = fact(optional=True, subject=True)
    cell: str | None = fact(optional=True, for_users=True)
    path: str | None = fact(optional=True)
    line: int | None = fact(optional=True, for_users=True)

    def message(self) -> str:
        name, at = self.name, f"at line {self.bound_at_line}"
        if self.path is not None:
            at += f" of {os.path.basename(self.path)}"
        name_error = f"NameError: \"The name '{name}' is not defined, or not supported in graph mode\""
        if self.bound_in in ("for", "while"):
            keyword = self.bound_in
            if self.in_body:
                return (f"`{name}` is read in the body of the `{keyword}` loop {at} before the pass binds it: only "
                        f"another pass (or another branch) of the body binds it ({self.function}); MindSpore's graph "
                        f"parser rejects the read ({name_error}) under STRICT and LAX; bind `{name}` before the loop "
                        f"(`{name} = None`)")
            error = (f"{name_error}, at the read on line {self.earlier_line} in the loop body, which a later "
                     "iteration reaches before it binds the name" if self.earlier_line is not None else
                     f"UnboundLocalError: \"The local variable '{name}' defined in the '{keyword}' loop body cannot "
                     "be used outside of the loop body\"")
            return (f"`{name}` is read after the `{keyword}` loop {at}, whose body first binds it ({self.function}): "
                    f"MindSpore's graph parser rejects it ({error}) under STRICT and LAX; bind `{name}` before the "
                    f"loop (`{name} = None`)")
        return (f"`{name}` is read after the `if` {at}, which binds it on one branch only ({self.function}): "
                "MindSpore's graph parser joins both branches before it folds the condition and rejects it under "
                f"STRICT and LAX, whatever the condition, with UnboundLocalError: \"The local variable '{name}' is "
                "not defined in false branch, but defined in true branch\" or, when it resolves another name of the "
                f"function first, {name_error} at the read; bind `{name}` before the `if` (`{name} = None`) or on "
                "every branch")


class NameBoundOnOnePath(Rule):
    code = "MS116"
    name = "name-bound-on-one-path"
    summary = "a local name read after an `if` that binds it on one branch only, or after the loop that first binds it"
    fix_summary = "bind the name before the `if` or the loop (`loss_fct = None`), or on every branch"
    what = """
        Reports, in graph code, the first read of a local name after an `if` statement that binds the name on one
        branch and not on the other (no `else`, or an `else` that does not bind it), and after a `for` or `while`
        loop whose body first binds it (the loop variable included); and, where nothing after the loop reads it, a
        read in the loop body that a pass reaches before it binds the name, which only an earlier pass binds
        (`if i == 0: x = t` / `else: x = x + t`, `x += t`). A branch that ends in `return`, `raise`,
        `break` or `continue` does not count. Conditions MindSpore's parser evaluates itself from the Cell's own
        attributes (`if self.flag:`, `if not self.training:`, `if self.proj is None:`) or from an attribute of an
        object the module binds at its top level (`if default_config.device_target == "Ascend":`, a configuration
        read at import time, a class or a module; not `config.model.flag`, not a module's string `TARGET` itself,
        not a test of membership `in` a tuple) are left alone: the parser keeps one branch of them before it looks
        names up (measured on 2.10 and 2.7.1 CPU, STRICT and LAX: tests/test_ground_truth_joins_and_logging.py), and
        what is read under them is not reported either.
        Methods a Cell inherits from a base or a mixin are compiled with the Cell and checked too, in whatever
        module of the project they are defined: a `construct` it inherits, and a method graph code calls
        (`self.prepare(x)`); the finding is reported at the read, in the file that holds the method. A mixin module
        that imports nothing of MindSpore is not checked itself: its reads are reported where the Cell inherits
        (`class` line) or calls the method, naming the method's file and lines.
    """
    why = """
        Python looks a name up when the line runs; MindSpore's graph parser joins the two branches of every `if`
        before it folds the condition, and rejects a name that one branch leaves unbound as soon as code after the
        `if` reads it: `UnboundLocalError: The local variable 'z' is not defined in false branch, but defined in
        true branch`, whatever the condition (an argument left at `None`, a shape, a module constant, even
        `if True:`); where the parser resolves another name of the function first (a read under a branch after
        an `if` whose binding it dropped), the error is `NameError: The name 'z' is not defined, or not supported
        in graph mode` at the read instead, and the message names both. A name first bound in a loop body cannot be
        read after the loop (`UnboundLocalError: The local variable 'z' defined in the 'for' loop body cannot be
        used outside of the loop body`), however many times the loop runs; when the loop body itself reads the
        name before binding it in that iteration (`if i == 0: z = x` / `else: z = z + x`, or `z += x`), the parser
        stops there first with the NameError, which the message then names, with its line, or reports at that read
        when nothing after the loop reads the name (also in a loop over a CellList). Measured on 2.10 and 2.7.1 CPU
        (tests/test_ground_truth_messages.py), the same under STRICT and LAX, also in a mixin method of another
        module that the Cell calls (the error names the mixin's file); PyNative runs the code as Python does.
        The pattern is common in code ported from PyTorch: `if labels is not None: loss_fct = CrossEntropyLoss()`
        and, later, `if next_sentence_label is not None: ... loss_fct(...)`.
    """
    example = """
        class Head(nn.Cell):
            def construct(self, x, labels=None):
                if labels is not None:
                    loss_fct = nn.CrossEntropyLoss()
                    loss = loss_fct(x, labels)
                if labels is not None:
                    x = x + loss_fct(x, labels)
                return x
    """
    use_instead = """
        class Head(nn.Cell):
            def construct(self, x, labels=None):
                loss_fct = None
                if labels is not None:
                    loss_fct = nn.CrossEntropyLoss()
                    loss = loss_fct(x, labels)
                if labels is not None:
                    x = x + loss_fct(x, labels)
                return x
    """
    autofix = """
        Binds the name to `None` on a line of its own just before the `if` or the loop. Safe: on every path where
        the code ran before, the name is bound again before it is read; where it was not, Python raised
        UnboundLocalError and now reads `None`.
    """

    compiled_only = True
    records = (PartlyBound,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        written: list[set[str]] = []  # the attributes written on other objects: found once per module, if asked
        for function in module.graph_functions:
            for read in _partial_reads(function, written):
                yield self.report(module, read.name, _data(_described(read), function.label))
        yield from self._inherited(module)

    def _inherited(self, module: ModuleFacts) -> Iterator[Finding]:
        """Reads in methods a Cell inherits from a base that is not a Cell, which the model does not take for graph
        code: a ``construct`` of a mixin of this module (reported at the read), and a ``construct`` or a method graph
        code calls (``self.prepare(x)``) of a mixin of another module of the project (reported where the Cell
        inherits or calls it, naming the method's file and lines)."""
        if module.mode != "graph":
            return
        seen: set[int] = set()
        for info in module.classes.values():
            if not info.is_cell or "construct" in info.methods:
                continue
            found = info.find_method("construct")
            if found is not None and not found[0].is_cell and not module.is_graph_code(found[1]):
                if id(found[1]) not in seen:
                    seen.add(id(found[1]))
                    label = f"{found[0].name}.construct, the construct of Cell {info.name}"
                    for read in partially_bound_reads(found[1], _walrus(found[1]), module.lines,
                                                      module_object=module.scopes.module_object):
                        # the Cell is what compiles it: the validator builds that one
                        yield self.report(module, read.name, replace(
                            _data(_described(read), label), method=f"{found[0].name}.construct", cell=info.name),
                            scope=info.name)
            elif found is None:
                other = _method_of_other_module_base(module, info, "construct")
                if other is not None:
                    yield from self._elsewhere(module, info.node, other, "construct",
                                               f"the construct of Cell {info.name}")
        for function in module.graph_functions:
            owner = function.owner
            if owner is None or not owner.is_cell or function.self_name is None:
                continue
            for call in function.nodes_of(ast.Call):
                func = call.func
                if self_attribute(func, function.self_name) is None or owner.find_method(func.attr) is not None:
                    continue
                if owner.attribute_constructor(func.attr) is not None or any(
                        func.attr in info.cell_attributes for info in owner.lineage()):
                    continue  # a sub-cell or an operator the Cell holds
                other = _method_of_other_module_base(module, owner, func.attr)
                if other is not None and (other[:2], func.attr, id(owner)) not in seen:
                    seen.add((other[:2], func.attr, id(owner)))
                    yield from self._elsewhere(module, call, other, func.attr, f"called from {function.label} here")

    def _elsewhere(self, module: ModuleFacts, node: ast.AST, other: tuple[str, str, str, bool], name: str,
                   how: str) -> Iterator[Finding]:
        module_file, class_key, base, _ = other
        where = os.path.basename(module_file)
        label = f"{base}.{name} in {where}, {how}"
        for described in _reads_elsewhere(module, module_file, class_key, name):
            yield self.report(module, node, replace(_data(described, label), path=module_file, line=described[1],
                                                    method=f"{base}.{name}"))

    def fix(self, context: FixContext, finding: Finding) -> list[Edit]:
        read = _read_of(context.module, finding)
        if read is None:
            return []
        origin = read.origin
        line_start = context.offset(origin.lineno, 0)
        indent = context.source[line_start:context.start_of(origin)]
        if indent.strip():
            return []  # another statement starts the line (``a = 1; if b: ...``)
        line_end = context.source.find("\n", line_start)
        newline = "\r\n" if line_end > 0 and context.source[line_end - 1] == "\r" else "\n"
        return [Edit(line_start, line_start, f"{indent}{read.name.id} = None{newline}")]


def _walrus(function: ast.AST) -> list[str]:
    return [node.target.id for node in ast.walk(function) if isinstance(node, ast.NamedExpr)
            and isinstance(node.target, ast.Name)]


def _method_of_other_module_base(module: ModuleFacts, info, name: str) -> tuple[str, str, str, bool] | None:
    """(that module's file, the key and name of the base that defines it, whether it is a Cell) for method ``name``
    that Cell ``info`` inherits from a base class of another module of the project that is not a Cell (a mixin);
    None when its lineage here has it, none has it, or the first class that has it is a Cell (whose own module
    decides what of it is graph code)."""
    if info.find_method(name) is not None:
        return None
    found = module.method_elsewhere(info, name, through_cells=False)  # only a mixin's module is read in full
    return None if found is None or found[3] or _checked_itself(found[0]) else found


def _checked_itself(module_file: str) -> bool:
    """Whether ms-lint checks the module at ``module_file`` itself, where the model finds what graph code of other
    modules calls in it (a module that imports nothing of MindSpore is skipped: ``source.may_hold_hazards``)."""
    try:
        return may_hold_hazards(read_source(module_file), module_file)
    except (OSError, UnicodeDecodeError, ValueError):
        return False


def _reads_elsewhere(module: ModuleFacts, module_file: str, class_key: str, name: str) -> tuple:
    """``_described`` reads of method ``name`` of class ``class_key`` of the project module ``module_file``: the
    project index's answer, found once per run however many Cells inherit the method."""

    def reads(facts):
        owner = facts.classes.get(class_key) if facts is not None else None
        method = owner.methods.get(name) if owner is not None else None
        if method is None:
            return ()
        return [_described(read) for read in partially_bound_reads(method, _walrus(method), facts.lines,
                                                                   module_object=facts.scopes.module_object)]

    return answer("name bound on one path", module_file, module.settings, (class_key, name), reads)


def _read_of(module: ModuleFacts, finding: Finding) -> PartialRead | None:
    """The read ``finding`` reports, walked again in the one graph function that holds it."""
    position = (finding.line, finding.col)
    for function in module.graph_functions:
        node = function.node
        if not (node.lineno, node.col_offset) <= position <= (node.end_lineno, node.end_col_offset):
            continue
        for read in _partial_reads(function):
            if read.name is finding.node:
                return read
    return None


def _partial_reads(function, written: list[set[str]] | None = None) -> list[PartialRead]:
    """``written``: where the attributes the module writes on other objects are kept once found (see
    ``_own_constant``), for the functions of one module."""
    if not function.module.index.body_nodes_of(function.node, (ast.If, ast.For, ast.While, ast.AsyncFor)):
        return []  # straight-line code binds every name on every path (dead branches count: they are parsed)
    walrus = [node.target.id for node in function.nodes_of(ast.NamedExpr)]
    return partially_bound_reads(function.node, walrus, function.module.lines,
                                 _own_constant(function, [] if written is None else written),
                                 function.module.scopes.module_object)


def _own_constant(function, written: list[set[str]]):
    """``function.constant`` for conditions of the Cell's own attributes, but UNKNOWN for an attribute that code of
    the module also writes on another object (``self.model.decoder.class_embed = ...``): the parser reads the
    instance's value, which that write changes after ``__init__``. ``written`` holds those attributes once found."""

    def constant(expr):
        if not written:
            module = function.module
            written.append({node.attr for node in module.index.subtree_nodes_of(module.tree, (ast.Attribute,))
                            if isinstance(node.ctx, ast.Store) and not isinstance(node.value, ast.Name)})
        written_elsewhere = written[0]
        if any(isinstance(node, ast.Attribute) and node.attr in written_elsewhere for node in ast.walk(expr)):
            return UNKNOWN
        return function.constant(expr)
    return constant


def _described(read: PartialRead) -> tuple[str, int, int, int, str, int | None, bool]:
    """What a finding says of ``read``, as plain values: (the name, the line and column of the read, the line of the
    statement that binds it on some paths, that statement's keyword: ``if``, ``for`` or ``while``, for a read after
    a loop the line of a read in its body that a later iteration reaches before the binding, else None, and whether
    the read lies in the loop's body itself)."""
    name, origin = read.name.id, read.origin
    keyword = ("while" if isinstance(origin, ast.While) else "for") if read.in_loop else "if"
    earlier = read.earlier if read.in_loop else None
    return name, read.name.lineno, read.name.col_offset, origin.lineno, keyword, (
        earlier.lineno if earlier is not None else None), read.in_body


def _data(described: tuple, label: str) -> PartlyBound:
    """The name read, and what binds it on some paths only: a loop (``for``/``while``) or an ``if``, at its line."""
    name, _, _, origin_line, keyword, earlier, in_body = described
    return PartlyBound(name=name, bound_in=keyword, bound_at_line=origin_line, function=label,
                       in_body=keyword != "if" and in_body, earlier_line=earlier)
