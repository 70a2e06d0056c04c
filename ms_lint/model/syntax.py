"""One pre-order pass over a module's tree, shared by every question the model and the rules ask.

Walking the tree again for each function, class, loop and rule (``ast.walk`` costs about a microsecond per node)
was most of ms-lint's time on real projects. Instead the tree is traversed once into a flat list in source
order; the nodes of a definition or a loop are then a slice of that list.

In the list, a function's decorators, arguments and return annotation come before its body, and a class's bases,
keywords and decorators before its body, so that a body is one contiguous run. Expression contexts (the shared
``Load``/``Store``/``Del`` objects) are left out: no question is about them.
"""
from __future__ import annotations

import ast
import weakref
from bisect import bisect_left
from operator import attrgetter
from typing import Iterator

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef

# Nodes whose subtree (and, for definitions, body) is remembered as a slice of the list.
_SPANNED = frozenset({ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.For,
                      ast.AsyncFor, ast.While})
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_SKIPPED_IN_SCOPE = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)

# Fields that hold names, numbers or strings, never nodes (Python's ASDL), and the contexts.
_LEAF_FIELDS = frozenset({"ctx", "name", "id", "attr", "arg", "module", "asname", "level", "is_async",
                          "conversion", "kind", "type_comment", "tag", "rest"})


class _Mark:
    """A stack entry that records where a spanned node's body starts or its subtree ends."""

    __slots__ = ("node", "is_end")

    def __init__(self, node: ast.AST, is_end: bool):
        self.node = node
        self.is_end = is_end


def _not_a_node(_value) -> tuple:
    return ()


def _mark(_value) -> tuple:
    return ()


def _no_children(_node) -> tuple:
    return ()


_children_getters: dict[type, object] = {_Mark: _mark}
# Node types without child nodes (names, constants, operators: half the nodes of a module), listed as they are met.
_LEAF_TYPES: set[type] = set()


def _children_getter(value_type: type):
    """A function giving the values of the fields of ``value_type`` that may hold child nodes, last visited
    first (the order they go on the stack): source order, except that a definition's body comes last."""
    getter = _children_getters.get(value_type)
    if getter is not None:
        return getter
    if not issubclass(value_type, ast.AST):
        getter = _not_a_node  # None in Dict.keys or kw_defaults, names in Global/Nonlocal
    else:
        names = [] if value_type is ast.Constant else [
            name for name in value_type._fields if name not in _LEAF_FIELDS]
        if issubclass(value_type, _DEFINITIONS) and "body" in names:
            names.remove("body")
            names.append("body")
        names.reverse()
        if not names:
            getter = _no_children
            _LEAF_TYPES.add(value_type)
        elif len(names) == 1:
            only = attrgetter(names[0])
            getter = lambda node: (only(node),)  # noqa: E731 -- one attribute still gives a tuple
        else:
            getter = attrgetter(*names)
    _children_getters[value_type] = getter
    return getter


def written_name(callee: ast.AST) -> str | None:
    """The name a callee is written with: ``f`` of ``f(...)`` and of ``a.b.f(...)``; None for any other callee."""
    callee_type = callee.__class__
    return callee.attr if callee_type is ast.Attribute else callee.id if callee_type is ast.Name else None


def child_nodes(node: ast.AST) -> list[ast.AST]:
    """The child nodes of ``node`` in the order of ``ast.iter_child_nodes``, expression contexts (``ast.Load``, one
    object shared by every tree) left out."""
    found = []
    for field in node._fields:
        value = getattr(node, field, None)
        if value.__class__ is list:
            found.extend(item for item in value if isinstance(item, ast.AST))
        elif isinstance(value, ast.AST) and not isinstance(value, ast.expr_context):
            found.append(value)
    return found


def preorder(root: ast.AST) -> list[ast.AST]:
    """The nodes of ``root``'s subtree in source order, ``root`` first (contexts left out)."""
    return _traverse(root, None)


def module_preorder(tree: ast.AST) -> list[ast.AST]:
    """``preorder(tree)`` of a whole tree, taken from the ``NodeIndex`` that lists it where one does (not to be
    changed)."""
    index = _full_indexes.get(id(tree))
    if index is not None and index.nodes and index.nodes[0] is tree:
        return index.nodes
    return preorder(tree)


class _Spans:
    def __init__(self):
        self.starts: dict[int, int] = {}  # id(node) -> its position
        self.body_starts: dict[int, int] = {}  # id(definition) -> position of its body's first node
        self.ends: dict[int, int] = {}  # id(node) -> position after its subtree
        self.class_starts: list[int] = []  # the position of every class definition, in order


def _traverse(root: ast.AST, spans: _Spans | None, outline: bool = False) -> list[ast.AST]:
    nodes: list[ast.AST] = []
    append = nodes.append
    stack: list = [root]
    push = stack.append
    extend = stack.extend
    pop = stack.pop
    getters = _children_getters
    leaves = _LEAF_TYPES
    spanned_types = _SPANNED if spans is not None else frozenset()
    while stack:
        node = pop()
        node_type = node.__class__
        if node_type in leaves:
            append(node)
            continue
        children = getters.get(node_type) or _children_getter(node_type)
        if children is _not_a_node:
            continue
        if children is _mark:
            (spans.ends if node.is_end else spans.body_starts)[id(node.node)] = len(nodes)
            continue
        if node_type in spanned_types:
            spans.starts[id(node)] = len(nodes)
            push(_Mark(node, True))
            if node_type in _DEFINITIONS:
                if node_type is ast.ClassDef:
                    spans.class_starts.append(len(nodes))
                append(node)
                if outline and node_type is not ast.ClassDef:
                    push(_Mark(node, False))  # an outline leaves out what a function holds: an empty body
                    continue
                values = children(node)
                extend(reversed(values[0]))  # the body, visited last
                push(_Mark(node, False))
                for value in values[1:]:
                    if value.__class__ is list:
                        extend(reversed(value))
                    elif value is not None:
                        push(value)
                continue
        append(node)
        for value in children(node):
            if value.__class__ is list:
                extend(reversed(value))
            elif value is not None:
                push(value)
    return nodes


# -- the same pass, faster: one generated visitor per node type ---------------------------------------------
#
# The loop above pays, per node, a stack push and pop, a getter's tuple and a loop over it. A visitor per node type
# that reads its fields by name and calls the visitors of its children directly (leaves are appended without any
# call of ours) costs about half as much. It recurses, so code nested deeper than the recursion limit allows, or
# a tree holding something no parsed tree holds, is left to the loop above.

_NOT_NODES = (type(None), str, int, float, complex, bytes, bool, type(...))


def _node_types() -> list[type]:
    found, stack = [], [ast.AST]
    while stack:
        for subclass in stack.pop().__subclasses__():
            stack.append(subclass)
            if subclass.__module__ == "ast" and "_fields" in vars(subclass):
                found.append(subclass)
    return found


_NOT_NODE_FIELD_TYPES = frozenset({"identifier", "string", "constant", "int"})


def _field_shapes(node_type: type) -> dict[str, str]:
    """Each field of ``node_type`` as its grammar (the class's docstring) declares it: "" for one node, "?" for
    a node or None, "*" for a list, "-" for a value that is no node; empty when the docstring does not say."""
    doc = (node_type.__doc__ or "").strip()
    header = f"{node_type.__name__}("
    if not doc.startswith(header) or not doc.endswith(")"):
        return {}
    shapes = {}
    for field in filter(None, (part.strip() for part in doc[len(header):-1].split(","))):
        declared, _, name = field.partition(" ")
        shape = declared[-1] if declared[-1] in "*?" else ""
        shapes[name] = "-" if declared.rstrip("*?") in _NOT_NODE_FIELD_TYPES else shape
    return shapes if list(shapes) == list(node_type._fields) else {}


def _visitor_source(node_type: type, index: int, recorded: bool) -> str | None:
    """The source of the visitor of ``node_type`` (inside ``_make_visitors``; ``recorded``: the visitor also
    records the node's position), None for a leaf that is not recorded and no statement (a statement's positions
    are always filed by type: rules ask for ``nonlocal`` and ``break`` as for any other)."""
    names = [] if node_type is ast.Constant else [
        name for name in node_type._fields if name not in _LEAF_FIELDS]
    definition = issubclass(node_type, _DEFINITIONS)
    if definition and "body" in names:
        names.remove("body")
        names.append("body")
    spanned = node_type in _SPANNED
    shapes = _field_shapes(node_type)
    names = [name for name in names if shapes.get(name) != "-"]
    if not names and not spanned and not recorded and not issubclass(node_type, ast.stmt):
        return None
    indent = "    "
    lines = [f"{indent}def visit_{index}(node):"]
    indent += "    "
    lines.append(f"{indent}position = len(nodes)")
    lines.append(f"{indent}add_{index}(position)")
    if recorded:
        lines.append(f"{indent}record(position)")
    if spanned:
        lines.append(f"{indent}starts[id(node)] = position")
    if node_type is ast.ClassDef:
        lines.append(f"{indent}class_starts.append(position)")
    lines.append(f"{indent}append(node)")
    if node_type is ast.Call:
        # filed by the name its callee is written with (``written_name``, inlined), as the n-th call of the module
        lines.append(f"{indent}func = node.func")
        lines.append(f"{indent}func_type = func.__class__")
        lines.append(f"{indent}written = (func.attr if func_type is Attribute else func.id if func_type is Name")
        lines.append(f"{indent}           else None)")
        lines.append(f"{indent}if written is not None:")
        lines.append(f"{indent}    found = calls_by_name.get(written)")
        lines.append(f"{indent}    if found is None:")
        lines.append(f"{indent}        calls_by_name[written] = [len(positions_{index}) - 1]")
        lines.append(f"{indent}    else:")
        lines.append(f"{indent}        found.append(len(positions_{index}) - 1)")
        lines.append(f"{indent}visit[func_type](func)")  # the callee: the first field, already at hand
    if definition and node_type is not ast.ClassDef:
        lines.append(f"{indent}if outline:")
        lines.append(f"{indent}    body_starts[id(node)] = ends[id(node)] = len(nodes)")
        lines.append(f"{indent}    return")
    for name in names:
        if node_type is ast.Call and name == "func":
            continue  # visited above
        if definition and name == "body":
            lines.append(f"{indent}body_starts[id(node)] = len(nodes)")
        shape = shapes.get(name)
        if shape == "*":
            lines.append(f"{indent}for child in node.{name}:")
            lines.append(f"{indent}    visit[child.__class__](child)")
        elif shape == "":
            lines.append(f"{indent}value = node.{name}")
            lines.append(f"{indent}visit[value.__class__](value)")
        elif shape == "?":
            lines.append(f"{indent}value = node.{name}")
            lines.append(f"{indent}if value is not None:")
            lines.append(f"{indent}    visit[value.__class__](value)")
        else:  # a field whose type the docstring does not give: a list, a node or None
            lines.append(f"{indent}value = node.{name}")
            lines.append(f"{indent}if value.__class__ is list:")
            lines.append(f"{indent}    for child in value:")
            lines.append(f"{indent}        visit[child.__class__](child)")
            lines.append(f"{indent}else:")
            lines.append(f"{indent}    visit[value.__class__](value)")
    if spanned:
        lines.append(f"{indent}ends[id(node)] = len(nodes)")
    return "\n".join(lines)


_PASS_STATE = ("nodes", "starts", "ends", "body_starts", "class_starts", "outline", "record", "calls_by_name")


def _compile_visitors(recorded_types: frozenset):
    """The function making a set of visitors (those of ``recorded_types`` record their positions): it gives
    ``(visit, start, finish)``, the table of visitors by node type, the function that points them at one pass's
    lists (``start(nodes, starts, ends, body_starts, class_starts, outline, record, calls_by_name, typed)``; the
    calls are filed in ``calls_by_name`` by the name their callee is written with), and the one that lets go of
    them. Making the visitors costs as much as walking a small module, so a set serves pass after pass."""
    visitors, positions, leaves = [], [], []
    for index, node_type in enumerate(_VISITED_TYPES):
        source = _visitor_source(node_type, index, node_type in recorded_types)
        if source is None:
            leaves.append(index)  # appended to the list as it is met, without a call of ours
        else:
            visitors.append(source)
            positions.append(index)
    state = [*_PASS_STATE, "append", *(f"positions_{i}" for i in positions), *(f"add_{i}" for i in positions)]
    lines = ["def _make_visitors(types, ignore, not_nodes, Attribute, Name):",
             f"    {' = '.join(state)} = None",
             "    visit = dict.fromkeys(not_nodes, ignore)",
             *visitors,
             *(f"    visit[types[{i}]] = visit_{i}" for i in positions),
             f"    def start({', '.join(f'{name}_' for name in _PASS_STATE)}, typed):",
             f"        nonlocal {', '.join(state)}",
             *(f"        {name} = {name}_" for name in _PASS_STATE),
             "        append = nodes.append",
             *(f"        positions_{i} = typed[types[{i}]] = []\n        add_{i} = positions_{i}.append"
               for i in positions),
             *(f"        visit[types[{i}]] = append" for i in leaves),
             "    def finish():",
             f"        nonlocal {', '.join(state)}",
             f"        {' = '.join(state)} = None",
             *(f"        visit[types[{i}]] = ignore" for i in leaves),
             "    return visit, start, finish"]
    namespace: dict = {}
    exec(compile("\n".join(lines), "<ms_lint node visitors>", "exec"), namespace)  # noqa: S102 -- generated above
    return namespace["_make_visitors"]


_VISITED_TYPES = tuple(_node_types())
# recorded types -> the function making the visitors; compiled on first use (tens of milliseconds: not at import)
_visitor_makers: dict[frozenset, object] = {}
# recorded types -> the sets of visitors made and not in use (a pass takes one, or makes one, and gives it back)
_idle_visitors: dict[frozenset, list] = {}


def _ignore(_value) -> None:
    return None


def _visit(root: ast.AST, spans: _Spans, outline: bool, recorded_types: frozenset = frozenset(),
           recorded: list[int] | None = None, typed: dict | None = None,
           calls_by_name: dict | None = None) -> list[ast.AST] | None:
    """``_traverse(root, spans, outline)`` by the generated visitors, adding to ``recorded`` the positions of the
    nodes of ``recorded_types``, filling ``typed`` (type -> positions of its nodes) for every type but the leaves
    that are neither recorded nor statements, and ``calls_by_name`` (see ``NodeIndex.calls_by_written_name``);
    None (``spans``, ``recorded``, ``typed`` and ``calls_by_name`` then undefined) when the tree is too deep for
    them or holds a value they do not know."""
    nodes: list[ast.AST] = []
    record = recorded.append if recorded is not None else None
    recorded_types = frozenset(recorded_types)
    idle = _idle_visitors.setdefault(recorded_types, [])
    try:
        visitors = idle.pop()
    except IndexError:  # the first pass, or one inside another (another thread's)
        make_visitors = _visitor_makers.get(recorded_types)
        if make_visitors is None:
            make_visitors = _visitor_makers[recorded_types] = _compile_visitors(recorded_types)
        visitors = make_visitors(_VISITED_TYPES, _ignore, _NOT_NODES, ast.Attribute, ast.Name)
    visit, start, finish = visitors
    start(nodes, spans.starts, spans.ends, spans.body_starts, spans.class_starts, outline, record,
          {} if calls_by_name is None else calls_by_name, {} if typed is None else typed)
    try:
        visit[root.__class__](root)
    except (RecursionError, KeyError):
        return None
    finally:
        finish()  # the visitors keep no list of this pass: the tree goes when the caller lets it go
        idle.append(visitors)
    return nodes


# id(tree) -> the ``NodeIndex`` of the whole tree, while it lives (``module_preorder``)
_full_indexes: "weakref.WeakValueDictionary[int, NodeIndex]" = weakref.WeakValueDictionary()


class NodeIndex:
    """The flat pre-order list of one module and the slices of its definitions and loops."""

    def __init__(self, tree: ast.AST, outline: bool = False, recorded_types: frozenset = frozenset()):
        """``outline``: only the module's and its classes' own code; each function is listed with an empty body
        (enough to know what a module defines and imports, at a fraction of the cost). ``recorded_types``: the
        types whose positions ``recorded`` lists, in order."""
        self._spans = _Spans()
        self.outline = outline
        self.recorded: list[int] = []
        # node type -> the positions of its nodes, in order (leaves aside: a type missing has no list)
        self._positions_by_type: dict[type, list[int]] = {}
        self._calls_by_written_name: dict[str, list[int]] | None = {}
        nodes = _visit(tree, self._spans, outline, recorded_types, self.recorded, self._positions_by_type,
                       self._calls_by_written_name)
        if nodes is None:
            self._spans = _Spans()
            nodes = _traverse(tree, self._spans, outline)
            self.recorded = [position for position, node in enumerate(nodes) if node.__class__ in recorded_types]
            self._positions_by_type = {}
            self._calls_by_written_name = None
        self.nodes: list[ast.AST] = nodes
        if not outline:
            _full_indexes[id(tree)] = self
        self._bodies: dict[int, list[ast.AST]] = {}
        # (id(function), types) -> its nodes of those types; id(function) -> its nodes by type
        self._typed_bodies: dict = {}
        # types (as asked) -> the pass's position lists of those types, each once; None when one is not recorded
        self._recorded_lists: dict[tuple[type, ...], list[list[int]] | None] = {}

    def _start(self, node: ast.AST) -> int | None:
        start = self._spans.starts.get(id(node))
        return start if start is not None and self.nodes[start] is node else None

    def subtree(self, node: ast.AST) -> list[ast.AST]:
        """``node`` and every node below it, in source order."""
        start = self._start(node)
        if start is None:
            return preorder(node)
        return self.nodes[start:self._spans.ends[id(node)]]

    def subtree_positions_of(self, node: ast.AST, node_types: tuple[type, ...]) -> list[int] | None:
        """The positions of the nodes of ``node``'s subtree of exactly these types, in order; None when the pass
        did not record them (a node from elsewhere, a leaf type)."""
        start = self._start(node)
        typed_positions = self._recorded_positions(node_types)
        if start is None or typed_positions is None:
            return None
        return _positions_between(start, self._spans.ends[id(node)], typed_positions)

    def _recorded_positions(self, node_types: tuple[type, ...]) -> list[list[int]] | None:
        """The position lists the pass recorded for ``node_types``, one per type; None when it did not record one
        of them. Asked for the same few tuples of types function after function: found once per tuple."""
        try:
            return self._recorded_lists[node_types]
        except KeyError:
            pass
        positions_by_type = self._positions_by_type
        found = ([positions_by_type[node_type] for node_type in dict.fromkeys(node_types)]
                 if all(node_type in positions_by_type for node_type in node_types) else None)
        self._recorded_lists[node_types] = found
        return found

    def subtree_nodes_of(self, node: ast.AST, node_types: tuple[type, ...]) -> list[ast.AST]:
        """The nodes of ``node``'s subtree (as ``subtree`` gives them) of exactly these types, in source order."""
        positions = self.subtree_positions_of(node, node_types)
        if positions is None:
            return [inner for inner in self.subtree(node) if inner.__class__ in node_types]
        nodes = self.nodes
        return list(map(nodes.__getitem__, positions))

    def end_of(self, node: ast.AST) -> int:
        """The position after the subtree of ``node``, a definition or loop of this module."""
        return self._spans.ends[id(node)]

    def start_of(self, node: ast.AST) -> int:
        """The position of ``node``, a definition or loop of this module."""
        return self._spans.starts[id(node)]

    def body_start_of(self, definition: ast.AST) -> int:
        """The position of the first node of the body of ``definition``, a function or class of this module."""
        return self._spans.body_starts[id(definition)]

    def calls_by_written_name(self) -> dict[str, list[int]]:
        """The name each callee is written with (``f`` of ``a.f(...)``) -> the places of its calls among the
        module's calls (``positions_of(ast.Call)``), in order."""
        found = self._calls_by_written_name
        if found is None:  # a tree the visitors left to the loop
            found = self._calls_by_written_name = {}
            nodes = self.nodes
            for place, position in enumerate(self.positions_of(ast.Call)):
                written = written_name(nodes[position].func)
                if written is not None:
                    found.setdefault(written, []).append(place)
        return found

    def calls_written_in(self, node: ast.AST, written: str) -> list[ast.Call] | None:
        """The calls in ``node``'s subtree whose callee is written ``written`` (``calls_by_written_name``), in order;
        None where the index does not hold ``node``'s subtree (a node from elsewhere, an outline's function)."""
        start = self._start(node)
        if start is None or self.outline:
            return None
        calls = self.positions_of(ast.Call)
        places = self.calls_by_written_name().get(written, ())
        first = bisect_left(places, start, key=calls.__getitem__)
        last = bisect_left(places, self._spans.ends[id(node)], key=calls.__getitem__)
        nodes = self.nodes
        return [nodes[calls[place]] for place in places[first:last]]

    def positions_of(self, node_type: type) -> list[int]:
        """The position of every node of ``node_type``, in order."""
        found = self._positions_by_type.get(node_type)
        if found is None:  # a leaf type, or a tree the visitors left to the loop
            found = [position for position, node in enumerate(self.nodes) if node.__class__ is node_type]
        return found

    def class_positions(self) -> list[int]:
        """The position of every class definition, in order."""
        return self._spans.class_starts

    def body_starts_and_ends(self) -> tuple[dict[int, int], dict[int, int]]:
        """id(definition) -> position of its body's first node, id(node) -> position after its subtree: for a pass
        that asks for every definition's span."""
        return self._spans.body_starts, self._spans.ends

    def body_span(self, definition: ast.AST) -> tuple[int, int]:
        """(start, end) positions of the body of ``definition``, a function or class of this module."""
        return self._spans.body_starts[id(definition)], self._spans.ends[id(definition)]

    def body(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.AST]:
        """Every node of ``function``'s body, nested functions and lambdas included; a class defined in it is
        listed but not entered."""
        if self._start(function) is None:  # not from this module's tree
            return self._without_class_bodies([node for statement in function.body for node in preorder(statement)])
        body = self._bodies.get(id(function))
        if body is None:
            start, end = self._spans.body_starts[id(function)], self._spans.ends[id(function)]
            body = self.nodes[start:end]
            classes = self._spans.class_starts
            first_class = bisect_left(classes, start)
            if first_class < len(classes) and classes[first_class] < end:
                body = self._skipping_inside(body, (ast.ClassDef,))
            self._bodies[id(function)] = body
        return body

    def body_nodes_of(self, function: ast.FunctionDef | ast.AsyncFunctionDef,
                      node_types: tuple[type, ...]) -> list[ast.AST]:
        """The nodes of ``function``'s body (as ``body`` gives them) of exactly these types, in source order."""
        key = (id(function), node_types)
        found = self._typed_bodies.get(key)
        if found is not None:  # only a function of this tree is filed, and it lives as long as the tree
            return found
        if self._start(function) is None:
            return [node for node in self.body(function) if node.__class__ in node_types]
        typed_positions = self._recorded_positions(node_types)
        if typed_positions is not None:
            # Found among the positions the pass recorded by type, without reading the body.
            found = self._typed_body_nodes(function, typed_positions)
        elif len(node_types) == 1:
            # Rules ask one function for many single types: its nodes are sorted by type once, in one pass.
            by_type = self._typed_bodies.get(id(function))
            if by_type is None:
                by_type = self._typed_bodies[id(function)] = {}
                for node in self.body(function):
                    by_type.setdefault(node.__class__, []).append(node)
            found = by_type.get(node_types[0], [])
        else:
            found = [node for node in self.body(function) if node.__class__ in node_types]
        self._typed_bodies[key] = found
        return found

    def _typed_body_nodes(self, function: ast.AST, typed_positions: list[list[int]]) -> list[ast.AST]:
        spans = self._spans
        start, end = spans.body_starts[id(function)], spans.ends[id(function)]
        positions = _positions_between(start, end, typed_positions)
        nodes = self.nodes
        classes = spans.class_starts
        first_class = bisect_left(classes, start)
        if positions and first_class < len(classes) and classes[first_class] < end:
            # what lies inside a class defined in the body is not the function's (the class itself is)
            inside = [(class_start, spans.ends[id(nodes[class_start])])
                      for class_start in classes[first_class:bisect_left(classes, end, first_class)]]
            positions = [position for position in positions
                         if not any(class_start < position < class_end for class_start, class_end in inside)]
        return list(map(nodes.__getitem__, positions))

    def _without_class_bodies(self, nodes: list[ast.AST]) -> list[ast.AST]:
        if any(node.__class__ is ast.ClassDef for node in nodes):
            return self._skipping_inside(nodes, (ast.ClassDef,))
        return nodes

    def own_code(self, scope: ast.AST) -> Iterator[ast.AST]:
        """The nodes of a function's body, or of a module's own code outside its functions and classes."""
        if not isinstance(scope, ast.Module):
            yield from self.body(scope)
            return
        start = self._start(scope)
        if start is None:
            code = [node for statement in scope.body for node in preorder(statement)]
        else:
            code = self.nodes[start + 1:self._spans.ends[id(scope)]]
        yield from self._skipping_inside(code, _SKIPPED_IN_SCOPE)

    def _skipping_inside(self, nodes: list[ast.AST], skipped: tuple[type, ...]) -> list[ast.AST]:
        """``nodes`` (a pre-order run) without what lies inside nodes of the ``skipped`` types (those nodes stay)."""
        result = []
        position, end = 0, len(nodes)
        while position < end:
            node = nodes[position]
            result.append(node)
            if isinstance(node, skipped):
                start = self._start(node)
                position += (self._spans.ends[id(node)] - start) if start is not None else len(preorder(node))
            else:
                position += 1
        return result


def _positions_between(start: int, end: int, typed_positions: list[list[int]]) -> list[int]:
    """The positions from ``start`` up to ``end`` in any of ``typed_positions`` (sorted lists), in order."""
    if len(typed_positions) == 1:
        of_type = typed_positions[0]
        first = bisect_left(of_type, start)
        return of_type[first:bisect_left(of_type, end, first)]
    positions: list[int] = []
    for of_type in typed_positions:
        first = bisect_left(of_type, start)
        if first < len(of_type) and of_type[first] < end:
            positions.extend(of_type[first:bisect_left(of_type, end, first)])
    positions.sort()
    return positions


# -- where a line lies: the one answer to "inside this definition, branch, loop" -------------------------

def last_line(node: ast.AST) -> int:
    return getattr(node, "end_lineno", None) or node.lineno


def holds_line(node: ast.AST, line: int) -> bool:
    """Whether ``line`` is one of the lines of ``node`` (a definition, a statement, a loop), its header included."""
    return node.lineno <= line <= last_line(node)


def runs_at_import(tree: ast.Module, line: int) -> bool:
    """Whether ``line`` lies in code importing the module runs: its statements, class bodies and the decorators
    and defaults of its definitions, never a function's or a lambda's body (a branch or ``try`` may still skip
    it)."""
    def spans(node: ast.AST) -> bool:  # a definition's lines start at its first decorator
        first = min([node.lineno] + [decorator.lineno for decorator in getattr(node, "decorator_list", ())])
        return first <= line <= last_line(node)

    held = [statement for statement in tree.body if spans(statement)]
    nodes = list(held)
    while nodes:
        node = nodes.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and block_holds_line(
                node.body if isinstance(node.body, list) else [node.body], line):
            return False
        nodes.extend(child for child in ast.iter_child_nodes(node) if hasattr(child, "lineno") and spans(child))
    return bool(held)


def under(compound: ast.AST, line: int) -> bool:
    """Whether ``line`` lies in the blocks of ``compound`` (an ``if``, a loop), below its header line."""
    return compound.lineno < line <= last_line(compound)


def block_holds_line(block: list, line: int) -> bool:
    """Whether ``line`` lies within the statements of ``block`` (a body, an ``else``)."""
    return bool(block) and block[0].lineno <= line <= last_line(block[-1])


def on_other_branches(branches, first: int, second: int) -> bool:
    """Whether lines ``first`` and ``second`` sit on the two sides of one of the ``if`` statements ``branches``:
    what one side does never reaches the other."""
    for branch in branches:
        sides = [block_holds_line(branch.body, first), block_holds_line(branch.orelse, first)]
        if any(sides) and block_holds_line(branch.orelse if sides[0] else branch.body, second):
            return True
    return False


def leaves_before(branches, first: int, second: int) -> bool:
    """Whether line ``first`` sits in a side of one of the ``if`` statements ``branches`` that ends in ``return`` or
    ``raise`` and line ``second`` comes after that ``if``: a path through ``first`` never reaches ``second``."""
    for branch in branches:
        if second > last_line(branch):
            for block in (branch.body, branch.orelse):
                if block and isinstance(block[-1], (ast.Return, ast.Raise)) and block_holds_line(block, first):
                    return True
    return False


def in_one_loop(loops, first: int, second: int) -> bool:
    """Whether one of the loops ``loops`` holds both lines: what one does reaches the other on the next pass."""
    return any(holds_line(loop, first) and holds_line(loop, second) for loop in loops)


# -- small questions about definitions -------------------------------------------------------------------

def first_argument(function: FunctionNode) -> str | None:
    positional = function.args.posonlyargs + function.args.args
    if not positional or is_static(function):
        return None
    return positional[0].arg


def instance_parameter(function: FunctionNode) -> str | None:
    """The name a method gives its instance (``self``, ``this``): its first parameter; None for a static method or a
    class method (``cls`` is no instance) and for a function without parameters."""
    return None if is_classmethod(function) else first_argument(function)


def is_static(function: FunctionNode) -> bool:
    return _decorated_with(function, "staticmethod")


def is_classmethod(function: FunctionNode) -> bool:
    return _decorated_with(function, "classmethod")


def _decorated_with(function: FunctionNode, name: str) -> bool:
    return any(isinstance(d, ast.Name) and d.id == name for d in function.decorator_list)


# The source text of each binary operator (``x += y`` writes ``+``).
OPERATOR_SYMBOLS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
                    ast.Pow: "**", ast.MatMult: "@", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^",
                    ast.LShift: "<<", ast.RShift: ">>"}


def self_attribute(expr: ast.AST | None, self_name: str | None) -> str | None:
    """The one question "is ``expr`` an attribute of the instance itself (``self.<attr>``)": its attribute's name
    when ``expr`` is ``<self_name>.<attr>``, with ``self_name`` the name the method's first parameter gives the
    instance (another object, a longer chain ``self.a.b``, or no instance at all: None)."""
    if self_name is not None and expr.__class__ is ast.Attribute and expr.value.__class__ is ast.Name \
            and expr.value.id == self_name:
        return expr.attr
    return None


def is_attribute_of(target: ast.AST, name: str) -> bool:
    while isinstance(target, (ast.Attribute, ast.Subscript)):
        if self_attribute(target, name) is not None:
            return True
        target = target.value
    return False


def decorator_callee(decorator: ast.AST) -> ast.AST:
    return decorator.func if isinstance(decorator, ast.Call) else decorator


def parameter_names(function: FunctionNode) -> list[str]:
    """The names of ``function``'s parameters, in the order its signature lists them."""
    arguments = function.args  # asked of every function of a module: most have plain parameters only
    names = [argument.arg for argument in arguments.args]
    if arguments.posonlyargs:
        names[:0] = [argument.arg for argument in arguments.posonlyargs]
    if arguments.vararg is not None:
        names.append(arguments.vararg.arg)
    if arguments.kwonlyargs:
        names.extend([argument.arg for argument in arguments.kwonlyargs])
    if arguments.kwarg is not None:
        names.append(arguments.kwarg.arg)
    return names


def parameter_defaults(function: FunctionNode) -> dict[str, ast.AST]:
    """Each parameter that has a default, with the default's expression."""
    arguments = function.args
    defaults = {argument.arg: default for argument, default in zip(
        reversed(arguments.posonlyargs + arguments.args), reversed(arguments.defaults))}
    defaults.update({argument.arg: default for argument, default in zip(arguments.kwonlyargs, arguments.kw_defaults)
                     if default is not None})
    return defaults


def conditional_arms(expr: ast.IfExp) -> list[ast.AST]:
    """The values a conditional expression may give, nested ones opened: ``A() if a else B() if b else C()``."""
    found = []
    for arm in (expr.body, expr.orelse):
        found.extend(conditional_arms(arm) if isinstance(arm, ast.IfExp) else [arm])
    return found


def main_guard(tree: ast.Module) -> ast.If | None:
    """The module's top-level ``if __name__ == "__main__":`` block (the code only a run as a script runs), or None."""
    return next((node for node in tree.body if isinstance(node, ast.If) and isinstance(node.test, ast.Compare)
                 and isinstance(node.test.left, ast.Name) and node.test.left.id == "__name__"), None)
