"""Names: what each name of a module is bound to, by Python's scoping rules."""
from __future__ import annotations

import ast
import os
import weakref
from bisect import bisect_right
from functools import lru_cache

from ms_lint.model.syntax import FunctionNode, parameter_names


IMPORT, CLASS, FUNCTION, ASSIGNMENT, PARAMETER = "import", "class", "function", "assignment", "parameter"
_UNRESOLVED = object()
_NO_NAMES: frozenset[str] = frozenset()  # a name whose answer depends on where it is used
_MAX_ALIAS_DEPTH = 8

Position = tuple[int, int]  # (line, column)


class Binding:
    """One binding of a name: an import, a class or function definition, an assignment or a parameter."""

    __slots__ = ("name", "kind", "position", "value", "_scope", "qualname")

    def __init__(self, name: str, kind: str, position: Position, value, scope: "Scope"):
        self.name = name
        self.kind = kind
        self.position = position
        # IMPORT: the qualified name; CLASS/FUNCTION: the definition; ASSIGNMENT: the value, or None when the
        # target is not the whole value (tuple unpacking, loops, augmented assignments); PARAMETER: None.
        self.value = value
        # weak: the scope holds its bindings, and a cycle would keep the module's tree alive until a full collection
        self._scope = scope.weak
        self.qualname: str | None = None  # CLASS: set once the module's class keys are known

    @property
    def scope(self) -> "Scope":
        return self._scope()


class Scope:
    """A module, class or function scope: its bindings in source order, and the part of the file it spans."""

    __slots__ = ("node", "kind", "parent", "path", "_bindings", "_plain", "global_names", "start", "end", "_weak",
                 "parameters", "__weakref__")

    def __init__(self, node: ast.AST, kind: str, parent: "Scope | None", path: str, start: Position,
                 end: Position):
        self.node = node
        self.kind = kind  # "module", "class" or "function"
        self.parent = parent
        self.path = path  # what Python's __qualname__ puts before a name defined here: "", "f.<locals>.", "C."
        self._bindings: dict[str, list[Binding]] = {}
        # a function's plain local assignments (name, position, value), made bindings on first use: most functions
        # are never looked into, and a flake8 run pays for every object a file's analysis allocates
        self._plain: list[tuple] | None = None
        self.global_names: frozenset[str] = _NO_NAMES  # replaced by Scopes.declare_global
        self.start = start
        self.end = end
        self._weak = None
        # a function's parameter names; their bindings are made when a look-up first meets them (most never are)
        self.parameters: frozenset[str] = frozenset()

    @property
    def bindings(self) -> dict[str, list[Binding]]:
        """Each name bound here, with its bindings in source order."""
        plain = self._plain
        if plain:
            self._plain = None
            bindings = self._bindings
            for name, position, value in plain:
                bindings.setdefault(name, []).append(Binding(name, ASSIGNMENT, position, value, self))
            for name in {name for name, _, _ in plain}:
                bindings[name].sort(key=_position_of)
        return self._bindings

    @property
    def weak(self) -> "weakref.ref[Scope]":
        """One reference for all its bindings (a weak one: no cycle), made with the first: most function scopes
        never hold a binding object."""
        weak = self._weak
        if weak is None:
            weak = self._weak = weakref.ref(self)
        return weak

    def contains(self, position: Position) -> bool:
        return self.start <= position < self.end


class Scopes:
    """Every scope of a module and what each name is bound to, resolved by Python's rules as pyflakes and ruff's
    semantic model do: a function's local names shadow the module's, a class body is not visible to the functions
    inside it, ``global`` sends a name to the module, and a use sees the binding in force where it is: in the same
    scope the last one above it, from a nested function the last one of the enclosing scope (the function runs
    after the enclosing code has bound it)."""

    def __init__(self, tree: ast.Module, local_prefix: str, package: str | None):
        self.local_prefix = local_prefix
        self.package = package
        far = (1 << 30, 0)
        self.module = Scope(tree, "module", None, "", (0, 0), far)
        self._nested: list[Scope] = []  # class and function scopes, by where their bodies start
        self._answers: dict[str, object] = {}
        self._every_binding: dict[str, list[Binding]] = {}  # name -> its bindings in every scope, parameters aside
        self._parameter_names: dict[str, bool] = {}  # every name a function of the module takes as a parameter
        self._plain_local_names: dict[str, bool] = {}  # every name a function binds to a plain local value
        self._resolving: set[int] = set()
        self._qualnames: dict[ast.AST | None, str | None] = {}  # expression -> its answer
        # Functions whose scopes are made on first use (see defer), by where their bodies start, and what their
        # code binds meanwhile: names bound other than to a plain local value, and names declared global.
        self._deferred: list[_DeferredFunction] = []
        self._deferred_starts: list[Position] = []
        self._bound_in_deferred: set[str] = set()
        # the top-level package every import anywhere in the module names, functions not looked into included
        self.imported_packages: set[str] = set()
        self._global_in_deferred: set[str] = set()
        self._renamed: frozenset[str] | None = None

    # -- building (ModuleFacts' one pass over the tree calls these) ------------------------------------------

    def open(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, parent: Scope) -> Scope:
        """The scope of a definition's body, nested in ``parent``."""
        is_class = isinstance(node, ast.ClassDef)
        first = node.body[0]
        scope = Scope(node, "class" if is_class else "function", parent,
                      parent.path + node.name + ("." if is_class else ".<locals>."),
                      (first.lineno, first.col_offset), (node.end_lineno or node.lineno, node.end_col_offset or 0))
        self._nested.append(scope)
        if not is_class:
            scope.parameters = frozenset(self.note_parameters(node))
        return scope

    def note_parameters(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
        """The parameter names of ``function``, noted among those of the module."""
        names = parameter_names(function)
        noted = self._parameter_names
        for name in names:
            noted[name] = True
        return names

    # -- functions whose scopes are made on first use ------------------------------------------------------------
    #
    # Most functions of a module are never looked into: no question needs their scopes, only the names they bind
    # (which tell whether a name means the same everywhere). A function holding no class is deferred: its
    # statements are only read for those names (note_deferred_statements); its scope and those of the functions
    # inside it are made, binding for binding as the pass would have made them, when a position inside it is first
    # asked about (scope_at).

    def defer(self, function: ast.FunctionDef | ast.AsyncFunctionDef, parent: Scope, nodes: list[ast.AST],
              positions: list[int], first: int, last: int, ends: dict[int, int]) -> None:
        """Make ``function``'s scope (in ``parent``) on first use. ``positions[first:last]``: the positions, in the
        module's pre-order list ``nodes``, of the statements and definitions (calls may be among them) that the
        module's pass met inside it; ``ends``: id(definition) -> position after its subtree."""
        body = function.body[0]
        self._deferred.append(_DeferredFunction(
            function, parent, (body.lineno, body.col_offset),
            (function.end_lineno or function.lineno, function.end_col_offset or 0), nodes, positions, first, last,
            ends))

    def note_deferred_statements(self, nodes: list[ast.AST], positions: list[int]) -> list[FunctionNode]:
        """What the statements at ``positions`` of ``nodes`` (those of a deferred function's code that the module's
        pass records) bind: the names they bind to plain local values, and those they bind otherwise (which keep the
        name from having one meaning everywhere). Gives the functions defined among them, in order."""
        definitions = []
        plain_local_names = self._plain_local_names
        bound_in_deferred = self._bound_in_deferred
        for position in positions:  # two thirds of the statements a pass records: one loop, the commonest case inline
            node = nodes[position]
            node_type = node.__class__
            if node_type is ast.Assign:
                value = node.value
                aliased = value.__class__ is ast.Name or value.__class__ is ast.Attribute
                for target in node.targets:
                    if target.__class__ is not ast.Name:
                        self._note_plain_targets(target)
                    elif aliased:
                        bound_in_deferred.add(target.id)
                    else:  # the commonest statement of all: ``name = value``
                        plain_local_names[target.id] = True
            else:
                if node_type is ast.FunctionDef or node_type is ast.AsyncFunctionDef:
                    definitions.append(node)
                self._note_deferred_statement(node)
        return definitions

    def _note_deferred_statement(self, node: ast.AST) -> None:
        node_type = node.__class__
        if node_type is ast.FunctionDef or node_type is ast.AsyncFunctionDef:
            self._bound_in_deferred.add(node.name)
            self.note_parameters(node)
        elif node_type is ast.Import:
            self._bound_in_deferred.update(
                alias.asname or alias.name.split(".", 1)[0] for alias in node.names)
            self._note_imported_packages(node)
        elif node_type is ast.ImportFrom:
            self._bound_in_deferred.update(alias.asname or alias.name for alias in node.names if alias.name != "*")
            self._note_imported_packages(node)
        elif node_type is ast.Global:
            self._global_in_deferred.update(node.names)
        elif node_type is ast.AnnAssign:
            if node.value is not None:
                self._note_plain_targets(node.target)
        elif node_type is ast.AugAssign or node_type is ast.For or node_type is ast.AsyncFor:
            self._note_plain_targets(node.target)
        elif node_type is ast.withitem:
            if node.optional_vars is not None:
                self._note_plain_targets(node.optional_vars)

    def _note_plain_targets(self, target: ast.AST) -> None:
        # as bind_targets binds them in a function: every name to a plain local value
        if isinstance(target, ast.Name):
            self._plain_local_names[target.id] = True
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._note_plain_targets(element)
        elif isinstance(target, ast.Starred):
            self._note_plain_targets(target.value)

    def bind_statement(self, scope: Scope, node: ast.AST) -> None:
        """The bindings of ``node``, an assignment, import, loop, ``with`` item or ``global`` statement of
        ``scope``'s code (none for another node)."""
        node_type = node.__class__
        if node_type is ast.Assign:
            at = (node.end_lineno, node.end_col_offset)  # the names are bound once the value is computed
            for target in node.targets:
                self.bind_targets(scope, target, node.value, at)
        elif node_type is ast.Import or node_type is ast.ImportFrom:
            self.bind_import(scope, node)
        elif node_type is ast.Global:
            self.declare_global(scope, node.names)
        elif node_type is ast.AnnAssign:
            if node.value is not None:  # `x: Net = Net()` binds the value, as `x = Net()` does
                self.bind_targets(scope, node.target, node.value, (node.end_lineno, node.end_col_offset))
        elif node_type is ast.AugAssign:
            self.bind_targets(scope, node.target, None, (node.end_lineno, node.end_col_offset))
        elif node_type is ast.For or node_type is ast.AsyncFor:
            self.bind_targets(scope, node.target, None, (node.lineno, node.col_offset))
        elif node_type is ast.withitem:
            if node.optional_vars is not None:
                self.bind_targets(scope, node.optional_vars, None, (node.context_expr.lineno, 0))

    def _make_deferred(self, deferred: "_DeferredFunction") -> None:
        """The scopes of a deferred function and of the functions inside it, as the module's pass makes them."""
        nodes, ends = deferred.nodes, deferred.ends
        contexts = [(ends[id(deferred.function)], self.open(deferred.function, deferred.parent))]
        for position in deferred.positions[deferred.first:deferred.last]:
            node = nodes[position]
            while position >= contexts[-1][0]:
                contexts.pop()
            scope = contexts[-1][1]
            if node.__class__ is ast.FunctionDef or node.__class__ is ast.AsyncFunctionDef:
                self.bind(scope, node.name, FUNCTION, (node.end_lineno, node.end_col_offset), node)
                contexts.append((ends[id(node)], self.open(node, scope)))
            else:
                self.bind_statement(scope, node)
        self._nested.sort(key=_start_of)
        self._starts = [scope.start for scope in self._nested]

    def _make_deferred_around(self, position: Position) -> None:
        index = bisect_right(self._deferred_starts, position) - 1
        if index < 0:
            return
        deferred = self._deferred[index]
        if deferred.made or not position < deferred.end:
            return
        deferred.made = True
        self._make_deferred(deferred)

    def declare_global(self, scope: Scope, names: list[str]) -> None:
        scope.global_names = scope.global_names.union(names)

    def _with_parameter(self, scope: Scope, name: str) -> list[Binding]:
        """The bindings of ``name`` in function ``scope``, its parameter binding first, made on first use."""
        bindings = scope.bindings.get(name)
        if bindings is None or bindings[0].kind != PARAMETER:
            node = scope.node
            binding = Binding(name, PARAMETER, (node.lineno, node.col_offset), None, scope)
            bindings = scope.bindings[name] = [binding, *(bindings or ())]
        return bindings

    def bind(self, scope: Scope, name: str, kind: str, position: Position, value) -> Binding | None:
        if kind == ASSIGNMENT and scope.kind == "function" and not isinstance(value, (ast.Name, ast.Attribute)):
            # A plain local value: it names no module, class or function, so the answer to "what is this name"
            # outside the function does not depend on it; its binding is made when the function is looked into.
            if scope._plain is None:
                scope._plain = []
            scope._plain.append((name, position, value))
            self._plain_local_names[name] = True
            return None
        binding = Binding(name, kind, position, value, scope)
        scope._bindings.setdefault(name, []).append(binding)
        self._every_binding.setdefault(name, []).append(binding)
        return binding

    def bind_import(self, scope: Scope, node: ast.Import | ast.ImportFrom) -> None:
        position = (node.lineno, node.col_offset)
        self._note_imported_packages(node)
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    self.bind(scope, alias.asname, IMPORT, position, alias.name)
                else:
                    top = alias.name.split(".", 1)[0]
                    self.bind(scope, top, IMPORT, position, top)
            return
        base = absolute_module(node.module, node.level, self.package)
        for alias in node.names:
            if alias.name != "*":
                self.bind(scope, alias.asname or alias.name, IMPORT, position,
                          f"{base}.{alias.name}" if base else alias.name)

    def _note_imported_packages(self, node: ast.Import | ast.ImportFrom) -> None:
        if node.__class__ is ast.Import:
            self.imported_packages.update(alias.name.split(".", 1)[0] for alias in node.names)
        else:  # a relative import too: inside a package named like a library, it names that library's objects
            base = absolute_module(node.module, node.level, self.package)
            if base:
                self.imported_packages.add(base.split(".", 1)[0])

    def bind_targets(self, scope: Scope, target: ast.AST, value: ast.AST | None, position: Position) -> None:
        """The names an assignment (or a loop, ``with ... as``) binds; ``value`` only for a plain ``name = value``."""
        if isinstance(target, ast.Name):
            self.bind(scope, target.id, ASSIGNMENT, position, value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self.bind_targets(scope, element, None, position)
        elif isinstance(target, ast.Starred):
            self.bind_targets(scope, target.value, None, position)

    def finish(self) -> None:
        self.declared_global = {name for scope in self._nested for name in scope.global_names}
        self.declared_global.update(self._global_in_deferred)
        self._nested.sort(key=_start_of)
        self._starts = [scope.start for scope in self._nested]
        self._deferred.sort(key=_start_of)
        self._deferred_starts = [deferred.start for deferred in self._deferred]

    # -- questions ---------------------------------------------------------------------------------------------

    def scope_at(self, node: ast.AST) -> Scope:
        """The innermost scope whose code holds ``node`` (the module for a node without a position)."""
        line = getattr(node, "lineno", None)
        if line is None:
            return self.module
        position = (line, node.col_offset)
        if self._deferred_starts:
            self._make_deferred_around(position)
        index = bisect_right(self._starts, position) - 1
        scope = self._nested[index] if index >= 0 else self.module
        while not scope.contains(position):
            scope = scope.parent
        return scope

    def binding(self, name: ast.Name) -> Binding | None:
        """The binding in force where ``name`` is used, or None (a builtin, or a name bound nowhere)."""
        scope = self.scope_at(name)
        position = (name.lineno, name.col_offset) if hasattr(name, "lineno") else None
        return self.lookup(name.id, scope, position)

    def module_object(self, name: ast.Name) -> bool:
        """Whether ``name`` reads what the module binds at its top level (an import, a class, an assignment; a name
        no function declares ``global``): an object MindSpore's parser looks up when it compiles, so that a test of
        one of its attributes (``config.device_target == "Ascend"``) is folded before the branches are joined
        (``flow.partially_bound_reads``)."""
        binding = self.binding(name)
        return binding is not None and binding.scope is self.module and name.id not in self.declared_global

    def lookup(self, name: str, scope: Scope, position: Position | None) -> Binding | None:
        if name in scope.global_names:
            scope, position = self.module, None
        first = True
        # A class body runs where its class statement stands, so from it (and from the scopes around it up to the
        # first function) a use sees what is bound above it; a function's body runs later, when all is bound.
        runs_in_place = True
        fallback = None
        while scope is not None:
            if first or scope.kind != "class":  # a class body is not visible to the functions inside it
                bindings = self._with_parameter(scope, name) if name in scope.parameters else scope.bindings.get(name)
                if bindings:
                    if not runs_in_place or position is None:
                        return _in_force(bindings)
                    above = [b for b in bindings if b.position < position]
                    if above:
                        return _in_force(above)
                    if scope.kind == "function":
                        return _in_force(bindings)  # a local name, whatever the order
                    fallback = fallback or _in_force(bindings)
            first = False
            runs_in_place = runs_in_place and scope.kind == "class"
            scope = scope.parent
        return fallback

    def qualname(self, expr: ast.AST | None) -> str | None:
        """The qualified name ``expr`` (a Name or dotted Attribute) is bound to where it is used, or None."""
        # The model and the rules ask about the same callee again and again: answered once per expression (the
        # table holds the expression itself, so that a later object cannot be taken for it).
        answer = self._qualnames.get(expr, _UNRESOLVED)
        if answer is _UNRESOLVED:
            answer = self._qualnames[expr] = self._qualname(expr)
        return answer

    def _qualname(self, expr: ast.AST | None) -> str | None:
        expr, parts = _split_dotted(expr)
        if expr is None:
            return None
        answer = self._answers.get(expr.id, _UNRESOLVED)
        if answer is _UNRESOLVED:
            answer = self._single_answer(expr.id)
            self._answers[expr.id] = answer
        if answer is _UNRESOLVED:
            answer = self._name_qualname(self.binding(expr), expr.id)
        if answer is None:
            return None
        return ".".join([answer, *reversed(parts)]) if parts else answer

    def _single_answer(self, name: str):
        """The qualified name of ``name`` when it is the same wherever it is used, else _UNRESOLVED: most names have
        one binding, or only local ones that name no module or class, and need no look-up of their scope."""
        if name in self._bound_in_deferred:
            return _UNRESOLVED  # bound in a function not yet looked into: answered where it is used
        bindings = self._every_binding.get(name, ())
        unbound = "builtins." + name if name in BUILTIN_NAMES else None
        # a parameter or a plain local value names no module, class or function
        local_value = name in self._parameter_names or name in self._plain_local_names
        if not bindings and not local_value:
            return unbound
        answers = {None} if local_value else set()
        for binding in bindings:
            if binding.kind == ASSIGNMENT and isinstance(binding.value, (ast.Name, ast.Attribute)):
                return _UNRESOLVED  # an alias: resolved where it is bound
            answers.add(self._name_qualname(binding, name))
        if local_value or len(bindings) > 1 or bindings[0].scope is not self.module:
            answers.add(unbound)
        return answers.pop() if len(answers) == 1 else _UNRESOLVED

    def _name_qualname(self, binding: Binding | None, name: str) -> str | None:
        if binding is None:
            return "builtins." + name if name in BUILTIN_NAMES else None
        kind = binding.kind
        if kind == IMPORT:
            return binding.value
        if kind == CLASS:
            return binding.qualname
        if kind == FUNCTION:
            return self.local_prefix + binding.scope.path + name
        if kind == ASSIGNMENT:
            value = binding.value
            if isinstance(value, (ast.Name, ast.Attribute)) and id(binding) not in self._resolving and len(
                    self._resolving) < _MAX_ALIAS_DEPTH:
                self._resolving.add(id(binding))
                try:
                    return self._alias_qualname(value, binding)
                finally:
                    self._resolving.discard(id(binding))
            if binding.scope is self.module:
                return self.local_prefix + name  # a module constant or object, named by the module
        return None

    def _alias_qualname(self, value: ast.AST, binding: Binding) -> str | None:
        value, parts = _split_dotted(value)
        if value is None:
            return None
        head = self._name_qualname(self.lookup(value.id, binding.scope, binding.position), value.id)
        return ".".join([head, *reversed(parts)]) if head else None

    def renamed_names(self) -> frozenset[str]:
        """The names whose qualified name may end in another name: import aliases (``import numpy as np``),
        aliases by assignment (``g = a.f``), redefined classes (keyed ``Net@<line>``), and whatever the functions
        not yet looked into bind. Every other name ``n`` has a qualified name ending in ``n``, or none."""
        renamed = self._renamed
        if renamed is None:
            found = set(self._bound_in_deferred)
            for name, bindings in self._every_binding.items():
                for binding in bindings:
                    kind = binding.kind
                    if (kind == IMPORT and binding.value.rsplit(".", 1)[-1] != name) or (
                            kind == CLASS and (binding.qualname or "@").rsplit(".", 1)[-1] != name) or (
                            kind == ASSIGNMENT and isinstance(binding.value, (ast.Name, ast.Attribute))):
                        found.add(name)
                        break
            renamed = self._renamed = frozenset(found)
        return renamed

    def module_imports(self) -> dict[str, str]:
        """Module-level names bound by imports or aliases (``MSPreTrainedModel = PreTrainedModel``): what the module
        re-exports, the last binding of each, as qualified names."""
        names = {}
        for name, bindings in self.module.bindings.items():
            binding = bindings[-1]
            if binding.kind == IMPORT:
                names[name] = binding.value
            elif binding.kind == ASSIGNMENT and isinstance(binding.value, (ast.Name, ast.Attribute)):
                qualname = self._name_qualname(binding, name)
                if qualname is not None and qualname != self.local_prefix + name:
                    names[name] = qualname
        return names


class _DeferredFunction:
    __slots__ = ("function", "parent", "start", "end", "nodes", "positions", "first", "last", "ends", "made")

    def __init__(self, function, parent: Scope, start: Position, end: Position, nodes: list, positions: list[int],
                 first: int, last: int, ends: dict[int, int]):
        self.function = function
        self.parent = parent
        self.start = start  # where its scope will start and end (see Scopes.open)
        self.end = end
        self.nodes = nodes
        # its statements and definitions: positions[first:last], the module's list shared (most are never made)
        self.positions = positions
        self.first = first
        self.last = last
        self.ends = ends
        self.made = False


def _start_of(scope: "Scope | _DeferredFunction") -> Position:
    return scope.start


def _split_dotted(expr: ast.AST | None) -> tuple[ast.Name | None, list[str]]:
    """``a.b.c`` as (the Name ``a``, ["c", "b"]): the attributes last first; (None, ...) when not a dotted name."""
    parts = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    return (expr if isinstance(expr, ast.Name) else None), parts


def _position_of(binding: Binding) -> Position:
    return binding.position


def _in_force(bindings: list[Binding]) -> Binding:
    """The last of ``bindings``, passing over ``name = None`` placeholders (``except ImportError: nn = None``)
    when a real binding comes before them: the code that uses the name runs where the real one exists."""
    for binding in reversed(bindings):
        value = binding.value
        if not (binding.kind == ASSIGNMENT and isinstance(value, ast.Constant) and value.value is None):
            return binding
    return bindings[-1]


def absolute_module(module: str | None, level: int, package: str | None) -> str | None:
    if level == 0:
        return module
    if package is None:
        # A relative import outside a known package: keep it recognisable but unresolvable.
        return "." * level + (module or "")
    parts = package.split(".")
    if level - 1 > len(parts):
        return None
    base = parts[: len(parts) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def module_name_of(path: str) -> tuple[str | None, str | None]:
    """(module name, package name) of the file at ``path``, by walking up the ``__init__.py`` chain."""
    if not path or path in ("-", "stdin", "<stdin>"):
        return None, None
    directory, filename = os.path.split(os.path.abspath(path))
    stem = os.path.splitext(filename)[0]
    package = _package_of(directory)
    if stem == "__init__":
        return package, package
    return ".".join([package, stem] if package else [stem]) or None, package


@lru_cache(maxsize=1024)
def _package_of(directory: str) -> str | None:
    # Every file of a directory asks the same: one walk up the chain per directory, not one per file (as
    # project.source_roots does).
    package_parts = []
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        package_parts.insert(0, os.path.basename(directory))
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    return ".".join(package_parts) or None


BUILTIN_NAMES = frozenset(dir(__import__("builtins")))
