"""Names a function reads after a statement that binds them on some paths only, joined as MindSpore's parser joins.

MindSpore's graph parser joins the two branches of an ``if`` before it folds the condition: a local name one branch
binds and the other leaves unbound cannot be read after the ``if`` (UnboundLocalError "not defined in false branch,
but defined in true branch"), whatever the condition -- ``if y is not None:`` with ``y`` left at None, a shape, a
module constant, even ``if True:``. A name first bound inside a ``for`` or ``while`` body (the loop variable
included) cannot be read after the loop, however many times it runs. Only a condition the parser resolves from the
Cell's own attributes (``if self.flag:``, ``if not self.training:``, ``if self.proj is None:``) or from an attribute
of an object the module binds at its top level (``if config.device_target == "Ascend":`` with ``config`` a
configuration object, a class or a module; not ``config.model.flag``, not the module's string ``TARGET`` itself)
keeps a single branch, so what its branches bind is not joined. A branch that ends in ``return``, ``raise``,
``break`` or ``continue`` takes no part in the join. Measured on MindSpore 2.10 and 2.7.1 CPU, the same under STRICT
and LAX.

The analysis is syntactic and asks nothing else of the model: ``partially_bound_reads`` walks a function's body in
order, keeping for each local name whether every path so far binds it or which statement binds it on some only.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterable, Iterator

from ms_lint.model.syntax import FunctionNode, first_argument, parameter_names, preorder, self_attribute
from ms_lint.model.values import UNKNOWN

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_HIDING_NAMES = frozenset({ast.Lambda, *_COMPREHENSIONS})  # what may hide a name read inside it from the function
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_LOOP_TYPES = frozenset(_LOOPS)
_DEFINITION_TYPES = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})


@dataclass(frozen=True)
class PartialRead:
    """The first read of ``name`` after ``origin``, an ``if``, ``for`` or ``while`` that binds it on some paths; or,
    inside a loop's body, a read that a pass reaches before it binds the name (``in_body``). For a read after a loop,
    ``earlier`` is such a read in its body, where MindSpore's parser stops first."""

    name: ast.Name
    origin: ast.stmt
    earlier: ast.Name | None = None

    @property
    def in_loop(self) -> bool:
        return isinstance(self.origin, _LOOPS)

    @property
    def in_body(self) -> bool:
        """The read lies inside the loop ``origin``: a pass reaches it before it binds the name, which only another
        pass, or another branch of the body, binds (``if i == 0: x = t`` / ``else: x += t``)."""
        origin, name = self.origin, self.name
        return self.in_loop and (origin.lineno, origin.col_offset) <= (name.lineno, name.col_offset) <= (
            origin.end_lineno, origin.end_col_offset)


def partially_bound_reads(function: FunctionNode, walrus_targets: Iterable[str] = (),
                          lines: list[str] | None = None, constant=None, module_object=None) -> list[PartialRead]:
    """The reads in ``function``'s body of local names that some path leaves unbound at that point, one per name and
    binding statement, in source order. Reads under a condition the parser resolves itself are left out: one branch
    of it is dropped before any name in it is looked up. The names ``walrus_targets`` (what ``:=`` binds in the
    function, which the walk does not look for inside expressions) count as bound throughout: no finding rests on
    them. ``lines``, the module's source lines, only make the walk faster: an expression whose lines hold none of
    the names bound on some paths only is not walked. ``constant(expr)``, when given, is the constant a condition
    made of the Cell's own attributes folds to (or UNKNOWN): an ``and``/``or`` whose leading such operands decide it
    (``self.use_sdpa and not output_attentions`` with ``use_sdpa`` False) is resolved too. ``module_object(name)``,
    when given, says whether a name read in the function is an object bound at the module's top level, whose
    attributes the parser resolves like the Cell's own (``config.device_target == "Ascend"``)."""
    walker = _Walker(function, lines, constant, module_object)
    walker.block(function.body, _State({*parameter_names(function), *walrus_targets}, {}))
    # A name no path binds before a loop, read in its body before the pass binds it (an earlier pass, or another
    # branch, binds it): reported at the read after the loop, naming this one, or at this read when none follows.
    found = [PartialRead(read.name, read.origin, walker.early.get((read.name.id, id(read.origin))))
             if read.in_loop else read for read in walker.found]
    found += [read for key, read in walker.early_reads.items() if key not in walker._reported]
    return sorted(found, key=lambda read: (read.name.lineno, read.name.col_offset))


class _State:
    """At one point of a function: the names every path to it binds, and those some path binds, each with the
    statement that binds it on some paths only. A name in neither is not bound yet."""

    __slots__ = ("bound", "partial")

    def __init__(self, bound: set[str], partial: dict[str, ast.stmt]):
        self.bound = bound
        self.partial = partial

    def copy(self) -> "_State":
        return _State(set(self.bound), dict(self.partial))


class _Walker:
    def __init__(self, function: FunctionNode, lines: list[str] | None, constant=None, module_object=None):
        self.function = function
        self.constant = constant
        self.module_object = module_object
        self.lines = lines
        self.self_name = first_argument(function)
        self.found: list[PartialRead] = []
        self._reported: set[tuple[str, int]] = set()
        self._declared: set[str] | None = None  # ``global``/``nonlocal`` names, found when first needed
        self._quiet = 0  # inside a branch the parser may drop: nothing read there is looked up for sure
        self._stored: list[set[str]] = []  # per loop (or ``try``) being walked: the names its body binds
        # (name, id(loop)) -> the first read in the loop's body that a pass reaches before it binds the name
        self.early: dict[tuple[str, int], ast.Name] = {}
        self.early_reads: dict[tuple[str, int], PartialRead] = {}
        self._walking: list[ast.stmt] = []  # the loops whose bodies are being walked

    def block(self, statements: list[ast.stmt], state: _State) -> _State | None:
        """The state after ``statements``; None when every path through them leaves the block."""
        for statement in statements:
            state = self.statement(statement, state)
            if state is None:
                return None
        return state

    def statement(self, node: ast.stmt, state: _State) -> _State | None:
        kind = type(node)
        if kind is ast.Assign:
            self.read(node.value, state)
            for target in node.targets:
                self.bind(target, state)
            return state
        if kind is ast.Expr:
            self.read(node.value, state)
            return state
        if kind is ast.If:
            return self._if(node, state)
        if kind in _LOOP_TYPES:
            return self._loop(node, state)
        if kind is ast.AugAssign or kind is ast.AnnAssign:
            if node.value is not None:
                self.read(node.value, state)
            if kind is ast.AugAssign:
                self.read(node.target, state, loading=True)
            if node.value is not None:
                self.bind(node.target, state)
            return state
        if kind is ast.Return or kind is ast.Raise:
            if state.partial:
                for child in ast.iter_child_nodes(node):
                    self.read(child, state)
            return None
        if kind is ast.Break or kind is ast.Continue:
            return None
        if kind is ast.With or kind is ast.AsyncWith:
            for item in node.items:
                self.read(item.context_expr, state)
                if item.optional_vars is not None:
                    self.bind(item.optional_vars, state)
            return self.block(node.body, state)
        if kind in _DEFINITION_TYPES:
            for expression in _definition_header(node):
                self.read(expression, state)
            self.bind_name(node.name, state)
            return state
        if kind is ast.Try or kind is ast.TryStar or kind is ast.Match:
            return self._every_part_bound(node, state)
        if kind is ast.Import or kind is ast.ImportFrom:
            for alias in node.names:
                self.bind_name((alias.asname or alias.name).partition(".")[0], state)
            return state
        if kind is ast.Delete:
            for target in node.targets:
                if isinstance(target, ast.Name):
                    state.bound.discard(target.id)
                    state.partial.pop(target.id, None)
                else:
                    self.read(target, state)
            return state
        if state.partial:
            for child in ast.iter_child_nodes(node):
                self.read(child, state)
        return state

    def _if(self, node: ast.If, state: _State) -> _State | None:
        self.read(node.test, state)
        resolved = _resolved_by_parser(node.test, self.self_name, self.module_object) or _decided_by_parser(
            node.test, self.self_name, self.constant, self.module_object)
        self._quiet += resolved
        try:
            body = self.block(node.body, state.copy())
            orelse = self.block(node.orelse, state.copy())
        finally:
            self._quiet -= resolved
        elif_ = node.orelse[0] if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If) \
            and node.orelse[0].col_offset == node.col_offset else None
        if body is None or orelse is None:
            after = orelse if body is None else body
            return after if after is None or elif_ is None else _rebound_at(after, elif_, node)
        if resolved:  # one branch is kept: what either binds counts as bound, unless the other leaves it partial
            # (a name only an earlier pass of the loop being walked binds is as good as unbound here)
            bound = (body.bound | orelse.bound) - {
                name for branch in (body, orelse) for name, origin in branch.partial.items()
                if not any(loop is origin for loop in self._walking) or name not in (body.bound | orelse.bound)}
        else:
            bound = body.bound & orelse.bound
        partial = {}
        for name in (body.bound ^ orelse.bound) | body.partial.keys() | orelse.partial.keys():
            if name not in bound:
                origin = body.partial.get(name) or orelse.partial.get(name) or node
                if (name in body.bound or name in orelse.bound) and any(loop is origin for loop in self._walking):
                    origin = node  # a pass binds it on one branch only: the ``if`` is what leaves it unbound
                partial[name] = origin
        merged = _State(bound, partial)
        return merged if elif_ is None else _rebound_at(merged, elif_, node)

    def _loop(self, node: ast.stmt, state: _State) -> _State:
        self.read(node.iter if isinstance(node, (ast.For, ast.AsyncFor)) else node.test, state)
        inside = state.copy()
        # What the body binds and nothing bound before the loop: a pass may read it before it binds it again
        for name in _stored_names(node.body) - state.bound - state.partial.keys():
            inside.partial[name] = node
        self._walking.append(node)
        try:
            stored = self._walk_storing(node.body, inside,
                                        node.target if isinstance(node, (ast.For, ast.AsyncFor)) else None)
        finally:
            self._walking.pop()
        after = state.copy()
        for name in stored - state.bound:
            after.partial[name] = state.partial.get(name) or node
        return self.block(node.orelse, after) or after

    def _every_part_bound(self, node: ast.stmt, state: _State) -> _State:
        """``try`` and ``match``: each part is walked for its reads; whatever any part binds counts as bound after
        the statement (no finding rests on which part ran)."""
        stored: set[str] = set()
        if isinstance(node, ast.Match):
            self.read(node.subject, state)
            for case in node.cases:
                names = {n.name for n in ast.walk(case.pattern)
                         if isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name}
                inside = state.copy()
                inside.bound |= names
                stored |= names | self._walk_storing(case.body, inside)
        else:
            stored |= self._walk_storing(node.body, state.copy())
            for handler in node.handlers:
                inside = state.copy()
                if handler.name:
                    inside.bound.add(handler.name)
                    stored.add(handler.name)
                stored |= self._walk_storing(handler.body, inside)
            stored |= self._walk_storing(node.orelse, state.copy())
            stored |= self._walk_storing(node.finalbody, state.copy())
        for name in stored:
            self.bind_name(name, state)
        return state

    def _walk_storing(self, statements: list[ast.stmt], state: _State, target: ast.AST | None = None) -> set[str]:
        """Walks ``statements`` from ``state`` (after binding ``target``) and gives every name they bind."""
        self._stored.append(set())
        try:
            if target is not None:
                self.bind(target, state)
            self.block(statements, state)
        finally:
            stored = self._stored.pop()
        if self._stored:
            self._stored[-1] |= stored
        return stored

    def read(self, expression: ast.AST, state: _State, loading: bool = False) -> None:
        partial = state.partial
        if not partial:
            return  # nothing is bound on some paths only: no read can be one (the usual case, kept cheap)
        first = getattr(expression, "lineno", None)
        if self.lines is not None and first is not None:
            text = "".join(self.lines[first - 1:expression.end_lineno])
            if not any(name in text for name in partial):
                return
        for node in _loads(expression, loading):
            if isinstance(node, ast.Name) and node.id in partial:
                origin = partial[node.id]
                if any(loop is origin for loop in self._walking):
                    self._early(node, origin)  # inside the loop's body: an earlier pass bound it
                else:
                    self._report(node, origin)

    def _early(self, name: ast.Name, loop: ast.stmt) -> None:
        if self._quiet or name.id in self._declared_names():
            return
        key = (name.id, id(loop))
        if key not in self.early:
            self.early[key] = name
            self.early_reads[key] = PartialRead(name, loop)

    def _report(self, name: ast.Name, origin: ast.stmt) -> None:
        if self._quiet or name.id in self._declared_names():
            return
        key = (name.id, id(origin))
        if key not in self._reported:
            self._reported.add(key)
            self.found.append(PartialRead(name, origin))

    def _declared_names(self) -> set[str]:
        if self._declared is None:
            function = self.function
            if self.lines is not None and not any(
                    "global" in line or "nonlocal" in line
                    for line in self.lines[function.lineno - 1:function.end_lineno]):
                self._declared = set()  # the usual function, told from its text without a walk of its body
            else:
                self._declared = {name for node in _own_nodes(function.body)
                                  if isinstance(node, (ast.Global, ast.Nonlocal)) for name in node.names}
        return self._declared

    def bind(self, target: ast.AST, state: _State) -> None:
        if isinstance(target, ast.Name):
            self.bind_name(target.id, state)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self.bind(element, state)
        elif isinstance(target, ast.Starred):
            self.bind(target.value, state)
        else:  # ``a.b = ...``, ``a[i] = ...``: reads ``a``
            self.read(target, state)

    def bind_name(self, name: str, state: _State) -> None:
        state.bound.add(name)
        state.partial.pop(name, None)
        if self._stored:
            self._stored[-1].add(name)


def _rebound_at(state: _State, elif_: ast.If, chain: ast.If) -> _State:
    """``state`` with the names an ``elif`` binds on some paths said to be bound so by its whole chain: a name is
    bound before the chain's ``if``, not between its branches."""
    state.partial = {name: chain if origin is elif_ else origin for name, origin in state.partial.items()}
    return state


def _resolved_by_parser(test: ast.expr, self_name: str | None, module_object=None) -> bool:
    """Whether MindSpore's parser evaluates ``test`` itself and keeps one branch: it is made of the Cell's own
    attributes (``self.flag``, not ``self.config.flag``) or of attributes of objects the module binds at its top
    level (``config.device_target``, not ``config.model.flag``: ``module_object`` says which names those are),
    ``not``, ``and``/``or``, and comparisons of those with constants or with each other (not ``in`` a tuple).
    Measured: ``if self.norm:`` on a Cell attribute still joins; treated as resolved here all the same, so that no
    finding rests on a value the parser might know. ``if config.device_target == "Ascend":`` keeps one branch (2.10
    and 2.7.1, STRICT and LAX), whatever the configuration holds: the value is the application's, so no finding
    rests on it either."""
    if self_name is None and module_object is None:
        return False
    if isinstance(test, ast.Attribute):
        return (self_name is not None and self_attribute(test, self_name) is not None) or (
            module_object is not None and isinstance(test.value, ast.Name) and module_object(test.value))
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _resolved_by_parser(test.operand, self_name, module_object)
    if isinstance(test, ast.BoolOp):
        return all(_resolved_by_parser(value, self_name, module_object) for value in test.values)
    if isinstance(test, ast.Compare):
        return all(isinstance(operand, ast.Constant) or _resolved_by_parser(operand, self_name, module_object)
                   for operand in (test.left, *test.comparators)) \
            and any(not isinstance(operand, ast.Constant) for operand in (test.left, *test.comparators))
    return False


def _decided_by_parser(test: ast.expr, self_name: str | None, constant, module_object=None) -> bool:
    """Whether ``test`` is an ``and``/``or`` that the parser decides from its leading operands made of the Cell's own
    attributes, whose constants ``constant`` knows: ``self.use_sdpa and not output_attentions`` with ``use_sdpa``
    False keeps the ``else`` branch alone. The parser reads the operands left to right and stops folding at the
    first it cannot evaluate: ``not output_attentions and self.use_sdpa`` joins both branches, and so does
    ``self.use_sdpa and not output_attentions`` with ``use_sdpa`` True (measured 2.10 and 2.7.1 CPU, STRICT and
    LAX)."""
    if constant is None or not isinstance(test, ast.BoolOp):
        return False
    deciding = isinstance(test.op, ast.Or)
    for operand in test.values:
        if not _resolved_by_parser(operand, self_name, module_object):
            return False
        value = constant(operand)
        if value is UNKNOWN:
            return False
        if bool(value) == deciding:
            return True
    return False


def _loads(expression: ast.AST, loading: bool) -> Iterator[ast.AST]:
    """The names ``expression`` reads, in evaluation order near enough; not those inside a lambda or bound by a
    comprehension's own ``for``."""
    if isinstance(expression, ast.Name):
        if loading or isinstance(expression.ctx, ast.Load):
            yield expression
        return
    nodes = preorder(expression)
    if not any(node.__class__ in _HIDING_NAMES for node in nodes):  # most expressions: every name in it is read
        for node in nodes:
            if node.__class__ is ast.Name and (loading or node.ctx.__class__ is ast.Load):
                yield node
        return
    stack = [(expression, frozenset())]
    while stack:
        node, hidden = stack.pop()
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, _COMPREHENSIONS):
            hidden = hidden | {name.id for generator in node.generators for name in ast.walk(generator.target)
                               if isinstance(name, ast.Name)}
        if isinstance(node, ast.Name):
            if (loading or isinstance(node.ctx, ast.Load)) and node.id not in hidden:
                yield node
            continue
        stack.extend((child, hidden) for child in reversed(list(ast.iter_child_nodes(node))))


def _stored_names(statements: list[ast.stmt]) -> set[str]:
    """The names ``statements`` bind in the function's own scope (not those a comprehension, a lambda or a nested
    definition binds inside itself)."""
    names: set[str] = set()
    hidden: list[tuple[tuple[int, int], tuple[int, int]]] = []  # the spans of what binds names of its own
    stores: list[ast.Name] = []
    for statement in statements:
        for node in preorder(statement):
            node_type = node.__class__
            if node_type is ast.Name:
                if node.ctx.__class__ is ast.Store:
                    stores.append(node)
            elif node_type in _DEFINITION_TYPES:
                names.add(node.name)
                hidden.append(((node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset)))
            elif node_type in _HIDING_NAMES:
                hidden.append(((node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset)))
    for node in stores:
        if not hidden or not any(start <= (node.lineno, node.col_offset) <= end for start, end in hidden):
            names.add(node.id)
    return names


def _own_nodes(statements: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every node of ``statements``, not descending into nested functions, classes or lambdas."""
    stack = list(reversed(statements))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _SCOPES):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _definition_header(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> list[ast.AST]:
    if isinstance(node, ast.ClassDef):
        return [*node.decorator_list, *node.bases, *node.keywords]
    return [*node.decorator_list, *node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
