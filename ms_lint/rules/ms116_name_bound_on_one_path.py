"""MS116: a name read after an ``if`` or a loop that binds it on some paths only, in graph code."""
from __future__ import annotations

import ast
from typing import Iterator

from ms_lint.findings import Finding
from ms_lint.edits import Edit, FixContext
from ms_lint.model import ModuleFacts
from ms_lint.model.flow import PartialRead, partially_bound_reads
from ms_lint.model.values import UNKNOWN
from ms_lint.rules.base import Rule


class NameBoundOnOnePath(Rule):
    code = "MS116"
    compiled_only = True
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
        attributes (`if self.flag:`, `if not self.training:`, `if self.proj is None:`) are left alone: the parser
        keeps one branch of them before it looks names up, and what is read under them is not reported either.
        Methods a Cell inherits from a base or a mixin are compiled with the Cell and checked too, in whatever
        module of the project they are defined: a `construct` it inherits, and a method graph code calls
        (`self.prepare(x)`); the finding is reported at the read, in the file that holds the method.
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

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        for function in module.graph_functions:
            for read in _partial_reads(function):
                yield self.finding(module, read.name, _message(read, function.label), data=_data(read, function.label))

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


def _partial_reads(function) -> list[PartialRead]:
    if not function.module.index.body_nodes_of(function.node, (ast.If, ast.For, ast.While, ast.AsyncFor)):
        return []  # straight-line code binds every name on every path (dead branches count: they are parsed)
    walrus = [node.target.id for node in function.nodes_of(ast.NamedExpr)]
    return partially_bound_reads(function.node, walrus, function.module.lines, _own_constant(function))


def _own_constant(function):
    """``function.constant`` for conditions of the Cell's own attributes, but UNKNOWN for an attribute that code of
    the module also writes on another object (``self.model.decoder.class_embed = ...``): the parser reads the
    instance's value, which that write changes after ``__init__``."""
    written_elsewhere = None

    def constant(expr):
        nonlocal written_elsewhere
        if written_elsewhere is None:
            module = function.module
            written_elsewhere = {node.attr for node in module.index.subtree_nodes_of(module.tree, (ast.Attribute,))
                                 if isinstance(node.ctx, ast.Store) and not isinstance(node.value, ast.Name)}
        if any(isinstance(node, ast.Attribute) and node.attr in written_elsewhere for node in ast.walk(expr)):
            return UNKNOWN
        return function.constant(expr)
    return constant


def _data(read: PartialRead, label: str) -> dict:
    """The name read, and what binds it on some paths only: a loop (``for``/``while``) or an ``if``, at its line."""
    origin = read.origin
    binder = ("while" if isinstance(origin, ast.While) else "for") if read.in_loop else "if"
    return {"name": read.name.id, "bound_in": binder, "bound_at_line": origin.lineno, "function": label}


def _message(read: PartialRead, label: str) -> str:
    name, origin = read.name.id, read.origin
    name_error = f"NameError: \"The name '{name}' is not defined, or not supported in graph mode\""
    if read.in_loop:
        keyword = "while" if isinstance(origin, ast.While) else "for"
        unbound = (f"UnboundLocalError: \"The local variable '{name}' defined in the '{keyword}' loop body cannot be "
                   "used outside of the loop body\"")
        if read.in_body:
            return (f"`{name}` is read in the body of the `{keyword}` loop at line {origin.lineno} before the pass "
                    f"binds it: only another pass (or another branch) of the body binds it ({label}); MindSpore's "
                    f"graph parser rejects the read ({name_error}) under STRICT and LAX; bind `{name}` before the "
                    f"loop (`{name} = None`)")
        earlier = read.earlier
        error = (f"{name_error}, at the read on line {earlier.lineno} in the loop body, which a later iteration "
                 "reaches before it binds the name" if earlier is not None else unbound)
        return (f"`{name}` is read after the `{keyword}` loop at line {origin.lineno}, whose body first binds it "
                f"({label}): MindSpore's graph parser rejects it ({error}) under STRICT and LAX; bind `{name}` "
                f"before the loop (`{name} = None`)")
    return (f"`{name}` is read after the `if` at line {origin.lineno}, which binds it on one branch only ({label}): "
            f"MindSpore's graph parser joins both branches before it folds the condition and rejects it under "
            f"STRICT and LAX, whatever the condition, with UnboundLocalError: \"The local variable '{name}' is not "
            f"defined in false branch, but defined in true branch\" or, when it resolves another name of the "
            f"function first, {name_error} at the read; bind `{name}` before the `if` (`{name} = None`) or on every "
            "branch")
