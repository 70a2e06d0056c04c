"""Which of its application's classes an entry point hands to MindSpore to compile: what it passes to
``export``, ``Model``, ``TrainOneStepCell``, ``jit``, any other function, or calls, read from the code it runs (its
module's code and every function of the application that code calls), with the values followed through
assignments, the elements of returned tuples (``net, _ = create_model(...)``), dictionaries of functions
(``{"default": default}[name]``) and registries a decorator fills (``@register_model``). In GRAPH_MODE MindSpore
compiles a Cell only when it is called or handed over; an entry point that builds a Cell only to keep it (the
evaluation wrapper a factory returns beside the network it exports) does not compile it.

The answer is None (not known) wherever the code does something this reading does not follow: a call of a value it
does not know, a method the application defines called on a value it does not know, a registry used otherwise than
by its keys. A class is compiled too where it is a base of, or named inside, a class handed over (it may be built
there)."""
from __future__ import annotations

import ast
import builtins
import functools
import os

from ms_lint.model.project import tree_of
from ms_lint.model.syntax import child_nodes, instance_parameter, self_attribute
from ms_lint.target import module_file_in, read_text, reached_from, source_root

UNKNOWN = ("?",)  # a value the reading does not know
_EXTERNAL = ("x",)  # a value of another package (a parser, ``mindspore.Model(...)``)
# Calls of another package's class that only hold what they are given (the value built holds its arguments)
_HOLDERS = frozenset({"Tensor", "Parameter", "SequentialCell", "CellList", "CellDict", "WithLossCell", "WithEvalCell",
                      "WithGradCell", "ParameterTuple"})
# Builtins that read a value without running it (``print(net)`` counts as a use: a script that builds a Cell and
# shows it is taken to run it)
_READERS = frozenset({"hasattr", "isinstance", "len", "type", "id", "issubclass", "callable", "int", "float", "bool",
                      "range", "enumerate", "zip", "sorted", "min", "max", "list", "tuple", "dict", "set", "open",
                      "setattr"})
_OPAQUE = frozenset({"eval", "exec"})  # run code of a text
# Builtins whose result is a value looked up by a name not in the code
_LOOKUPS = frozenset({"getattr", "globals", "locals", "vars", "__import__", "import_module"})
# What hands a Cell to MindSpore to compile
_SINKS = frozenset({"export", "jit", "ms_function", "build_train_network", "Model", "TrainOneStepCell",
                    "TrainOneStepWithLossScaleCell", "value_and_grad", "grad", "GradOperation", "vmap"})
_RUNNING_METHODS = frozenset({"construct", "compile", "compile_and_run", "__call__", "forward"})
# Methods of ``nn.Cell`` an ``__init__`` calls to configure a Cell, not to run one
_CELL_API = ("set_", "get_", "to_", "add_", "insert_", "init_", "register_", "update_", "_", "trainable_params",
             "parameters_", "cells", "name_cells", "recompute", "apply")
_MAX_FUNCTIONS = 400
_MAX_FILES = 4999  # (``target.reached_from`` stops at 5,000: the files an entry runs may be more)


class _Unknown(Exception):
    """The reading met code it does not follow."""


class _Module:
    """A module's tree (each node knowing its parent) and its top-level names."""

    def __init__(self, path: str, tree: ast.Module):
        self.path = path
        self.tree = tree
        self.callables: set[str] = set()  # the names of its functions and methods
        self.classes: set[str] = set()
        pending: list[ast.AST] = [tree]
        while pending:
            node = pending.pop()
            kind = node.__class__
            if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
                self.callables.add(node.name)
            elif kind is ast.ClassDef:
                self.classes.add(node.name)
            for child in child_nodes(node):
                child.parent = node
                pending.append(child)
        self.defs: dict[str, ast.AST] = {}
        self.imports: dict[str, tuple[str, str | None, str | None]] = {}  # name -> (module, attribute, base)
        self.assigned: dict[str, list[ast.expr]] = {}
        self.unpacked: dict[str, list[tuple[ast.expr, tuple[int | None, ...]]]] = {}  # ``a, b = f()``: (f(), (0,))
        for node in _top_statements(tree.body):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.defs[node.name] = node
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.imports[alias.asname] = (alias.name, None, None)
                    else:
                        self.imports[alias.name.split(".")[0]] = (alias.name.split(".")[0], None, None)
            elif isinstance(node, ast.ImportFrom):
                base = None
                if node.level:
                    base = os.path.dirname(path)
                    for _ in range(node.level - 1):
                        base = os.path.dirname(base)
                for alias in node.names:
                    if alias.name != "*":
                        self.imports[alias.asname or alias.name] = (node.module or "", alias.name, base)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    if isinstance(target, ast.Name):
                        self.assigned.setdefault(target.id, []).append(node.value)
                    else:
                        for name, path in _unpacked(target, ()):
                            self.unpacked.setdefault(name, []).append((node.value, path))


def _top_statements(body: list[ast.stmt]):
    """The statements a module runs at its top level, those of its ``if``/``try`` blocks included."""
    for node in body:
        yield node
        if isinstance(node, (ast.If, ast.Try, ast.With)):
            for field in ("body", "orelse", "finalbody"):
                yield from _top_statements(getattr(node, field, []) or [])
            for handler in getattr(node, "handlers", []):
                yield from _top_statements(handler.body)


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _own_nodes(function: ast.AST) -> list[ast.AST]:
    """The nodes of a function's body in the order of the source, not those of the functions and classes defined in
    it (no expression contexts); listed once per node."""
    known = getattr(function, "_own", None)
    if known is None:
        known = []
        pending = child_nodes(function)[::-1]
        while pending:
            node = pending.pop()
            known.append(node)
            if not isinstance(node, _SCOPES):
                pending.extend(child_nodes(node)[::-1])
        function._own = known
    return known


class _Reading:
    def __init__(self, entry: str):
        self.entry = os.path.abspath(entry)
        self.files = reached_from(self.entry)
        self.modules: dict[str, _Module | None] = {}
        self.compiled: set[str] = set()
        self.run: set[tuple[str, int]] = set()
        self.pending: list[tuple[_Module, ast.AST, frozenset]] = []
        self.returns: dict = {}
        self.built: set = set()
        self.class_names: set[str] = set()
        self.methods = self._application_methods()

    # -- modules and names
    def module(self, path: str) -> _Module | None:
        if path not in self.modules:
            self.modules[path] = _module(path)
        return self.modules[path]

    def _application_methods(self) -> set[str]:
        names: set[str] = set()
        if len(self.files) >= _MAX_FILES:
            raise _Unknown("too many files")
        for path in self.files:
            module = self.module(path)
            if module is None:
                raise _Unknown(path)
            names |= module.callables
            self.class_names |= module.classes
        return names

    def module_file(self, module: _Module, name: str, base: str | None) -> str | None:
        roots = (base,) if base is not None else tuple(dict.fromkeys((
            source_root(module.path), os.path.dirname(module.path), os.path.dirname(self.entry))))
        found = module_file_in(name, roots) if name else (
            os.path.join(base, "__init__.py") if base and os.path.isfile(os.path.join(base, "__init__.py")) else None)
        return found if found in self.files else None

    def global_value(self, module: _Module, name: str, depth: int = 0) -> frozenset:
        key = ("global", module.path, name)
        known = self.returns.get(key)
        if known is None:
            self.returns[key] = frozenset({UNKNOWN})  # (a name bound from itself)
            known = self.returns[key] = self._global_value(module, name, depth)
        return known

    def _global_value(self, module: _Module, name: str, depth: int) -> frozenset:
        if depth > 8:
            return frozenset({UNKNOWN})
        node = module.defs.get(name)
        if isinstance(node, ast.ClassDef):
            return frozenset({("type", module.path, node.name)})
        if node is not None:
            return frozenset({("function", module.path, node.lineno)})
        if name in module.imports:
            source, attribute, base = module.imports[name]
            if attribute is None:  # ``import a.b``: a module
                path = self.module_file(module, source, base)
                return frozenset({("module", path)}) if path else frozenset({_EXTERNAL})
            path = self.module_file(module, f"{source}.{attribute}" if source else attribute, base)
            if path is not None:
                return frozenset({("module", path)})
            path = self.module_file(module, source, base)
            if path is None:
                return frozenset({_EXTERNAL})
            other = self.module(path)
            return self.global_value(other, attribute, depth + 1) if other else frozenset({UNKNOWN})
        if name in module.assigned or name in module.unpacked:
            held = self.registry(module, name) if name not in module.unpacked else None
            if held is not None:
                return frozenset({("dict", held)})
            found = frozenset().union(*(self.value(module, None, value, {}) for value in module.assigned.get(name, ())))
            for value, path in module.unpacked.get(name, ()):
                part = self.value(module, None, value, {})
                for index in path:
                    part = _element(part, index)
                found |= part
            return found
        return frozenset({_EXTERNAL}) if hasattr(builtins, name) else frozenset({UNKNOWN})

    def defines(self, item: tuple, method: str, depth: int = 0) -> bool:
        """Whether the application's class ``item`` or one of its bases the application defines has ``method`` (else
        it is MindSpore's, or another package's); True where a base is not known."""
        if not item[1]:
            return False  # an object of another package
        module = self.module(item[1])
        node = next((node for node in ast.walk(module.tree) if isinstance(node, ast.ClassDef) and node.name == item[2]),
                    None) if module is not None else None
        if node is None or depth > 16:
            return True
        if any(isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name == method
               for statement in node.body):
            return True
        for base in node.bases:
            for held in self.value(module, None, base, {}):
                if held != _EXTERNAL and (held[0] != "type" or self.defines(held, method, depth + 1)):
                    return True
        return False

    def registry(self, module: _Module, name: str) -> frozenset | None:
        """What a module's dictionary holds, where it is only read by key and filled by key (by a decorator's
        parameter: every function the application decorates with it); None where it is no dictionary, a value not known
        where the module uses it otherwise (``REGISTRY.update(...)``)."""
        values = module.assigned[name]
        if not all(isinstance(value, ast.Dict) for value in values):
            return None
        held: set = set()
        for value in values:
            for item in value.values:
                held |= self.value(module, None, item, {})
        for node in ast.walk(module.tree):
            if isinstance(node, ast.Name) and node.id == name:
                parent = getattr(node, "parent", None)
                if isinstance(parent, ast.Subscript) and parent.value is node:
                    if isinstance(parent.ctx, ast.Store):
                        stored = getattr(parent, "parent", None)
                        if not isinstance(stored, ast.Assign):
                            raise _Unknown(name)
                        held |= self.stored(module, stored.value)
                    continue
                if isinstance(parent, ast.Compare) and all(isinstance(op, (ast.In, ast.NotIn)) for op in parent.ops):
                    continue
                if isinstance(parent, ast.Assign) and node in parent.targets:
                    continue
                return frozenset({UNKNOWN})  # used otherwise: what it holds is not known
        return frozenset(held)

    def stored(self, module: _Module, value: ast.expr) -> frozenset:
        """What a statement storing into a registry stores: a decorator's parameter stores every function the
        application decorates with that decorator."""
        function = _enclosing_function(value)
        if isinstance(value, ast.Name) and function is not None and value.id in _parameters(function):
            held = set()
            for path in self.files:
                other = self.module(path)
                for node in ast.walk(other.tree):
                    if isinstance(node, ast.Name) and node.id == function.name and isinstance(
                            getattr(node, "parent", None), ast.Call):
                        raise _Unknown(function.name)  # called otherwise than as a decorator
                    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and any(
                            _decorator_name(decorator) == function.name for decorator in node.decorator_list):
                        kind = "type" if isinstance(node, ast.ClassDef) else "function"
                        held.add((kind, path, node.name if kind == "type" else node.lineno))
            return frozenset(held)
        return self.value(module, function, value, {})

    # -- values
    def local_values(self, module: _Module, function: ast.AST, bound: frozenset = frozenset()) -> dict[str, frozenset]:
        """What each name of ``function`` holds, its parameters holding what ``bound`` gives them (name, value)."""
        key = ("locals", module.path, function.lineno, bound)
        known = self.returns.get(key)
        if known is not None:
            return known
        names: dict[str, frozenset] = {name: frozenset({UNKNOWN}) for name in _parameters(function)}
        names.update(bound)
        self.returns[key] = names
        for _ in range(4):  # until the bindings settle (a name bound below the line that reads it, in a loop)
            before = dict(names)
            self._bind_all(module, function, names)
            if names == before:
                break
        return names

    def _bind_all(self, module: _Module, function: ast.AST, names: dict[str, frozenset]) -> None:
        for node in _own_nodes(function):
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                value = self.value(module, function, node.value, names)
                for target in targets:
                    self.bind(target, value, names)
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension, ast.withitem, ast.NamedExpr)):
                target = node.optional_vars if isinstance(node, ast.withitem) else node.target
                if target is not None:
                    self.bind(target, frozenset({UNKNOWN}), names)
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                raise _Unknown("global")
            elif isinstance(node, ast.ExceptHandler) and node.name:
                names[node.name] = frozenset({_EXTERNAL})
            elif isinstance(node, ast.ClassDef):
                names[node.name] = frozenset({("type", module.path, node.name)})
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names[node.name] = frozenset({("function", module.path, node.lineno)})
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    names[alias.asname or alias.name.split(".")[0]] = frozenset({UNKNOWN})

    def bind(self, target: ast.expr, value: frozenset, names: dict[str, frozenset]) -> None:
        if isinstance(target, ast.Name):
            names[target.id] = names.get(target.id, frozenset()) | value
        elif isinstance(target, (ast.Tuple, ast.List)):
            for index, element in enumerate(target.elts):
                if isinstance(element, ast.Starred):
                    self.bind(element.value, frozenset({UNKNOWN}), names)
                else:
                    self.bind(element, _element(value, index), names)
        elif isinstance(target, (ast.Attribute, ast.Subscript)):
            if any(item[0] in ("class", "type", "function", "tuple", "dict") for item in value):
                raise _Unknown("stored")  # kept where this reading does not follow it

    def name_value(self, module: _Module, function: ast.AST | None, name: str, names: dict) -> frozenset:
        if function is not None:
            local = self.local_values(module, function) if names is None else names
            if name in local:
                return local[name]
            outer = _enclosing_function(function)
            if outer is not None:
                return self.name_value(module, outer, name, None)
        return self.global_value(module, name)

    def value(self, module: _Module, function: ast.AST | None, node: ast.expr, names: dict) -> frozenset:
        if isinstance(node, ast.Name):
            return self.name_value(module, function, node.id, names)
        if isinstance(node, ast.Constant):
            return frozenset({_EXTERNAL})
        if isinstance(node, ast.Tuple):
            return frozenset({("tuple", tuple(self.value(module, function, element, names)
                                              for element in node.elts))})
        if isinstance(node, (ast.List, ast.Set)):
            return frozenset().union(frozenset({_EXTERNAL}), *(
                self.value(module, function, element, names) for element in node.elts))
        if isinstance(node, ast.Dict):
            if any(element is None for element in node.keys):
                return frozenset({UNKNOWN})
            return frozenset({("dict", frozenset().union(*(
                self.value(module, function, element, names) for element in node.values)))})
        if isinstance(node, ast.Call):
            return self.call(module, function, node, names)
        if isinstance(node, ast.Subscript):
            held = self.value(module, function, node.value, names)
            if any(item[0] in ("function", "module") for item in held):
                return frozenset({UNKNOWN})
            if any(item[0] == "dict" for item in held):
                return _element(held, None)
            if isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int):
                return _element(held, node.slice.value)
            return _element(held, None)
        if isinstance(node, ast.Attribute):
            held = self.value(module, function, node.value, names)
            modules = [item[1] for item in held if item[0] == "module"]
            if modules and len(held) == 1:
                other = self.module(modules[0])
                return self.global_value(other, node.attr) if other else frozenset({UNKNOWN})
            if held == {_EXTERNAL}:
                return held
            return frozenset({UNKNOWN})
        if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp, ast.JoinedStr, ast.FormattedValue)):
            parts = [self.value(module, function, child, names) for child in ast.iter_child_nodes(node)
                     if isinstance(child, ast.expr)]
            return frozenset().union(frozenset({_EXTERNAL}), *parts)
        if isinstance(node, ast.IfExp):
            return self.value(module, function, node.body, names) | self.value(module, function, node.orelse, names)
        if isinstance(node, ast.Lambda):
            return frozenset({UNKNOWN})
        return frozenset({UNKNOWN})

    def call(self, module: _Module, function: ast.AST | None, call: ast.Call, names: dict) -> frozenset:
        arguments = [self.value(module, function, argument.value if isinstance(argument, (ast.Starred,
                                                                                          ast.keyword)) else argument,
                                names) for argument in [*call.args, *call.keywords]]
        held = frozenset().union(*arguments) if arguments else frozenset()
        callee = call.func
        if isinstance(callee, ast.Attribute):
            receiver = self.value(module, function, callee.value, names)
            modules = [item[1] for item in receiver if item[0] == "module"]
            if receiver == {_EXTERNAL}:  # another package's function or class (``ms.export``, ``nn.Dense``)
                return self.external_call(module, function, call, names, arguments, held)
            if not (modules and len(receiver) == 1):
                if any(item[0] == "dict" for item in receiver):
                    if callee.attr in ("get", "values", "items", "keys", "copy", "pop", "setdefault"):
                        return _element(receiver, None) | held | {_EXTERNAL}
                    if any(item[0] in ("function", "type", "class", "tuple") or item == UNKNOWN for item in held):
                        raise _Unknown(callee.attr)  # (what it then holds is not followed)
                    return frozenset({_EXTERNAL})
                # a method: one the application defines may build or compile anything
                dispatched = [item for item in receiver if item != _EXTERNAL]
                if callee.attr in self.methods and any(
                        item[0] != "class" or self.defines(("type", *item[1:3]), callee.attr) for item in dispatched):
                    if any(item[0] != "class" for item in dispatched):
                        raise _Unknown(callee.attr)
                    # a method of the application's class: it runs what the class names (``compiled_with``) and
                    # what it holds
                    self.compiled.update(_classes(frozenset(
                        item for item in dispatched if self.defines(("type", *item[1:3]), callee.attr))))
                elif callee.attr in _RUNNING_METHODS:
                    self.compile(receiver)
                self.compiled.update(_classes(held))
                return frozenset({_EXTERNAL})
        called = self.value(module, function, callee, names)
        if isinstance(callee, ast.Name) and called == {_EXTERNAL}:
            if callee.id in _OPAQUE:
                raise _Unknown(callee.id)
            if callee.id in _LOOKUPS:
                return frozenset({UNKNOWN})
            if callee.id in _READERS:
                return frozenset({_EXTERNAL}) | held
        result: set = set()
        for item in called:
            if item == UNKNOWN:
                raise _Unknown(ast.unparse(callee))
            if item[0] == "type":
                holds = frozenset(_classes(held))
                result.add(("class", item[1], item[2], holds))
                self.built.add((item, holds))
            elif item[0] == "class":  # a Cell called (``read_pending`` compiles it)
                result.add(UNKNOWN)
            elif item[0] == "function":
                other = self.module(item[1])
                node = next(node for node in ast.walk(other.tree) if isinstance(
                    node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno == item[2])
                bound = self.bound(module, function, node, call, names)
                self.run_function(other, node, bound)
                result |= self.returned(other, node, bound)
            elif item == _EXTERNAL:
                result |= self.external_call(module, function, call, names, arguments, held)
            elif item[0] == "module":
                raise _Unknown("module called")
            else:  # a tuple or another value called
                raise _Unknown(ast.unparse(callee))
        return frozenset(result)

    def external_call(self, module: _Module, function: ast.AST | None, call: ast.Call, names: dict,
                      arguments: list[frozenset], held: frozenset) -> frozenset:
        """A call of another package's function or class: ``export`` compiles its first argument, ``Model``,
        ``TrainOneStepCell``, ``jit``, ``grad`` compile theirs, a class holds them; any other function may run what it
        is given."""
        name = _callee_name(call.func)
        if name == "export":  # (its other arguments are the inputs)
            self.compile(arguments[0] if call.args else frozenset().union(*(
                self.value(module, function, keyword.value, names) for keyword in call.keywords
                if keyword.arg == "net")))
        elif name in _SINKS:
            self.compile(held)
        elif name in _HOLDERS or name[:1].isupper():
            kept = frozenset(_classes(held))
            if kept:
                return frozenset({("class", "", "", kept), _EXTERNAL})  # another package's object holding them
            return frozenset({_EXTERNAL})
        self.compiled.update(_classes(held))
        return frozenset({_EXTERNAL})

    def bound(self, module: _Module, scope: ast.AST | None, function: ast.AST, call: ast.Call,
              names: dict) -> frozenset:
        """What a call passes each parameter of ``function`` (those it leaves at a constant default: a constant)."""
        arguments = function.args
        positional = [argument.arg for argument in (*arguments.posonlyargs, *arguments.args)]
        passed: dict[str, frozenset] = {}
        if any(isinstance(argument, ast.Starred) for argument in call.args) or any(
                keyword.arg is None for keyword in call.keywords):
            return frozenset()
        for name, argument in zip(positional, call.args):
            passed[name] = self.value(module, scope, argument, names)
        for keyword in call.keywords:
            passed[keyword.arg] = self.value(module, scope, keyword.value, names)
        defaults = dict(zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults))
        defaults.update((argument.arg, default) for argument, default in zip(arguments.kwonlyargs,
                                                                             arguments.kw_defaults) if default)
        for name, default in defaults.items():
            if name not in passed and isinstance(default, ast.Constant):
                passed[name] = frozenset({_EXTERNAL})
        if len(call.args) > len(positional):
            return frozenset()
        return frozenset(passed.items())

    def escaped(self, module: _Module, scope: ast.AST | None, node: ast.expr, names: dict) -> None:
        """A class of the application read otherwise than to build it, or to test an object's type (kept in a
        name, passed on, registered): code not followed may build and run it."""
        parent = getattr(node, "parent", None)
        if isinstance(parent, ast.Call) and (parent.func is node or _callee_name(parent.func) in (
                "isinstance", "issubclass")):
            return
        if isinstance(parent, ast.Tuple) and isinstance(getattr(parent, "parent", None), ast.Call) and \
                _callee_name(parent.parent.func) in ("isinstance", "issubclass"):
            return
        if isinstance(parent, ast.Attribute) and parent.value is node:  # ``Net.some_attribute``
            return
        self.compiled.update(item[2] for item in self.value(module, scope, node, names) if item[0] == "type")

    def keep(self, module: _Module, scope: ast.AST | None, node: ast.Assign, names: dict) -> None:
        """A Cell the entry script keeps in a name of its own (not ``_``) is taken to run: the reading does not follow
        every use a script makes of what it keeps."""
        value = None
        for target in node.targets:
            for name, path in _unpacked(target, ()):
                if name == "_":
                    continue
                if value is None:
                    value = self.value(module, scope, node.value, names)
                part = value
                for index in path:
                    part = _element(part, index)
                self.compiled.update(_classes(part))

    def compile(self, value: frozenset) -> None:
        """``value`` is compiled: the classes it is or holds; not known where it may be or hold a value not
        known."""
        if _unknown_in(value):
            raise _Unknown("compiled")
        self.compiled.update(_classes(value))

    def returned(self, module: _Module, function: ast.AST, bound: frozenset = frozenset()) -> frozenset:
        key = (module.path, function.lineno, bound)
        if key in self.returns:
            return self.returns[key]
        self.returns[key] = frozenset({UNKNOWN})  # a recursive call
        names = self.local_values(module, function, bound)
        found: set = set()
        for node in _own_nodes(function):
            if isinstance(node, ast.Return):
                found |= self.value(module, function, node.value, names) if node.value else {_EXTERNAL}
            elif isinstance(node, (ast.Yield, ast.YieldFrom)):
                found.add(UNKNOWN)
        if isinstance(function, ast.ClassDef):
            found = {UNKNOWN}
        self.returns[key] = result = frozenset(found or {_EXTERNAL})
        return result

    def run_function(self, module: _Module, function: ast.AST, bound: frozenset = frozenset()) -> None:
        """Read what the code of ``function`` hands over, its parameters bound as ``bound`` says; each once."""
        key = (module.path, function.lineno, bound)
        if key in self.run:
            return
        if len(self.run) > _MAX_FUNCTIONS:
            raise _Unknown("too much")
        self.run.add(key)
        self.pending.append((module, function, bound))

    def read_pending(self) -> None:
        while self.pending:
            module, function, bound = self.pending.pop()
            names = self.local_values(module, function, bound) if function is not module.tree else {}
            scope = function if function is not module.tree else None
            nodes = _own_nodes(function) if scope is not None else (
                node for statement in module.tree.body if not isinstance(
                    statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                and (module.path == self.entry or not _main_guard(statement))
                for node in [statement, *_own_nodes(statement)])
            for node in nodes:
                if isinstance(node, ast.Call):
                    callee_value = self.value(module, scope, node.func, names) if not isinstance(
                        node.func, ast.Attribute) else frozenset()
                    if _classes(callee_value):  # a Cell called compiles it
                        self.compile(callee_value)
                    self.value(module, scope, node, names)
                elif isinstance(node, ast.Return) and scope is None:
                    raise _Unknown("return")
                elif isinstance(node, ast.Assign) and module.path == self.entry:
                    self.keep(module, scope, node, names)
                elif isinstance(node, ast.Expr) and module.path == self.entry and isinstance(node.value, ast.Call):
                    self.compiled.update(_classes(self.value(module, scope, node.value, names)))
                elif isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load) and (
                        node.id if isinstance(node, ast.Name) else node.attr) in self.class_names:
                    self.escaped(module, scope, node, names)


def _main_guard(statement: ast.stmt) -> bool:
    """Whether ``statement`` is ``if __name__ == "__main__":`` (a module's own trial run, not run on import)."""
    return isinstance(statement, ast.If) and "__main__" in ast.unparse(statement.test)


def _unpacked(target: ast.expr, path: tuple) -> list[tuple[str, tuple[int | None, ...]]]:
    """The names an unpacking target binds, each with the indices that lead to it (None: a starred part)."""
    if isinstance(target, ast.Name):
        return [(target.id, path)]
    if isinstance(target, ast.Starred):
        return _unpacked(target.value, (*path, None))
    if isinstance(target, (ast.Tuple, ast.List)):
        return [item for index, element in enumerate(target.elts)
                for item in _unpacked(element, (*path, index))]
    return []


def _parameters(function: ast.AST) -> list[str]:
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return []
    arguments = function.args
    names = [argument.arg for argument in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)]
    names += [argument.arg for argument in (arguments.vararg, arguments.kwarg) if argument is not None]
    return names


def _enclosing_function(node: ast.AST) -> ast.AST | None:
    node = getattr(node, "parent", None)
    while node is not None and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        node = getattr(node, "parent", None)
    return node


def _decorator_name(decorator: ast.expr) -> str:
    if isinstance(decorator, ast.Call):
        decorator = decorator.func
    return _callee_name(decorator)


def _callee_name(callee: ast.expr) -> str:
    if isinstance(callee, ast.Attribute):
        return callee.attr
    return callee.id if isinstance(callee, ast.Name) else ""


def _element(value: frozenset, index: int | None) -> frozenset:
    found: set = set()
    for item in value:
        if item[0] == "tuple":
            if index is not None and index < len(item[1]):
                found |= item[1][index]
            else:
                found = found.union(*item[1]) if item[1] else found
        elif item[0] == "dict":
            found |= item[1]
        elif item[0] in ("class", "type", "x", "?"):
            found.add(item)  # a part of a Cell, or of a value not followed
        else:
            found.add(UNKNOWN)
    return frozenset(found)


def _classes(value: frozenset) -> set[str]:
    return set(_classes_in(value))


@functools.lru_cache(maxsize=4096)
def _classes_in(value: frozenset) -> frozenset[str]:
    found: set[str] = set()
    for item in value:
        if item[0] == "class":
            found.add(item[2])
            found |= item[3]
            found.discard("")
        elif item[0] == "tuple":
            for element in item[1]:
                found |= _classes_in(element)
        elif item[0] == "dict":
            found |= _classes_in(item[1])
    return frozenset(found)


@functools.lru_cache(maxsize=4096)
def _unknown_in(value: frozenset) -> bool:
    for item in value:
        if item == UNKNOWN or (item[0] == "tuple" and any(_unknown_in(element) for element in item[1])):
            return True
    return False


_modules: dict[str, tuple[float, _Module | None]] = {}
_MAX_KEPT = 4000  # modules kept read for the process at most


def _module(path: str) -> _Module | None:
    """The module at ``path``, read once per modification time."""
    try:
        modified = os.stat(path).st_mtime
    except OSError:
        return None
    known = _modules.get(path)
    if known is None or known[0] != modified:
        if len(_modules) >= _MAX_KEPT:
            _modules.clear()
        text = read_text(path)
        tree = tree_of(path, text) if text is not None else None  # (the tree the file's own check uses)
        known = _modules[path] = (modified, _Module(path, tree) if tree is not None else None)
    return known[1]


_handed: dict[str, tuple[frozenset[str], frozenset[str] | None]] = {}


def compiled_classes(entry: str) -> frozenset[str] | None:
    """The names of the application's classes the entry point at ``entry`` compiles in GRAPH_MODE (hands over or
    calls), with those named inside them and their bases (``compiled_with``); None where not known. Found once per
    process while the files the entry imports are known (``target.reached_from``)."""
    entry = os.path.abspath(entry)
    files = reached_from(entry)
    known = _handed.get(entry)
    if known is None or known[0] is not files:
        known = _handed[entry] = (files, _find_compiled(entry))
    return known[1]


def _find_compiled(entry: str) -> frozenset[str] | None:
    try:
        reading = _Reading(entry)
        start = reading.module(entry)
        if start is None:
            return None
        reading.pending.append((start, start.tree, frozenset()))
        for path in sorted(reading.files - {entry}):  # what the modules it imports run as they are imported
            module = reading.module(path)
            reading.pending.append((module, module.tree, frozenset()))
        reading.read_pending()
        return compiled_with(reading, reading.compiled)
    except (_Unknown, RecursionError, StopIteration, KeyError):
        return None


def compiled_with(reading: _Reading, classes: set[str]) -> frozenset[str] | None:
    """``classes``, with every top-level class or function of the files the entry runs whose name is written in their
    bodies (bases included), in those names' bodies, and so on: what they may build; None where one of those builds
    through a lookup (``REGISTRY[name](...)``, ``getattr(module, name)(...)``), which may build any class. A class the
    entry builds but compiles not is read too, where its ``__init__`` calls a Cell it holds."""
    definitions: dict[str, list[tuple[_Module, ast.AST]]] = {}
    for module in reading.modules.values():
        if module is not None:
            for name, node in module.defs.items():
                definitions.setdefault(name, []).append((module, node))
    found = set(classes)
    pending: list[tuple[_Module, ast.AST]] = [item for name in found for item in definitions.get(name, ())]
    for (_, path, name), held in reading.built:
        module = reading.module(path)
        node = module.defs.get(name)
        if isinstance(node, ast.ClassDef) and _calls_held_cell(node):  # what its ``__init__`` runs is compiled
            pending.extend((module, item) for item in node.body
                           if isinstance(item, ast.FunctionDef) and item.name == "__init__")
            for other in held - found:
                found.add(other)
                pending.extend(definitions.get(other, ()))
    while pending:
        module, node = pending.pop()
        words, lookups = _reads(module, node)
        for callee in lookups:
            held = _registry_held(reading, module, callee)
            if held is None:
                return None
            for item in held:  # each thing the registry holds may be built
                word = item[2] if item[0] == "type" else next(
                    (name for name, (other, definition) in _named(definitions, item[1])
                     if getattr(definition, "lineno", None) == item[2]), None) if item[0] == "function" else None
                if word is None:
                    if item != _EXTERNAL:
                        return None
                elif word not in found:
                    found.add(word)
                    pending.extend(definitions.get(word, ()))
        for word in words - found:
            if word in definitions:
                found.add(word)
                pending.extend(definitions[word])
    return frozenset(found)


def _reads(module: _Module, node: ast.AST) -> tuple[frozenset[str], tuple[ast.expr, ...]]:
    """The names of module-level definitions a definition may read (``_global_word``), and the callees of its calls
    that look a value up (``_looked_up``); read once per definition."""
    known = getattr(node, "_reads", None)
    if known is None:
        words, lookups = set(), []
        for inner in ast.walk(node):
            if isinstance(inner, ast.Call) and _looked_up(inner.func) and not _local_subscript(module, inner.func):
                lookups.append(inner.func)
            word = _global_word(module, inner)
            if word:
                words.add(word)
        known = node._reads = (frozenset(words), tuple(lookups))
    return known


def _global_word(module: _Module, node: ast.AST) -> str | None:
    """The name of a module-level definition ``node`` may read: a name its function does not bind itself, an
    attribute of an imported name (``common.default_conv``), a base class."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in module.imports:
        return node.attr
    if not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)):
        return None
    scope = _enclosing_function(node)
    while scope is not None:
        if node.id in _bound_in(scope):
            return None
        scope = _enclosing_function(scope)
    return node.id


def _bound_in(function: ast.AST) -> frozenset[str]:
    known = getattr(function, "_bound_names", None)
    if known is None:
        names = set(_parameters(function))
        for node in _own_nodes(function):
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                names.add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names.update(alias.asname or alias.name.split(".")[0] for alias in node.names)
        known = function._bound_names = frozenset(names)
    return known


def _local_subscript(module: _Module, callee: ast.expr) -> bool:
    """Whether a callee ``x[i]`` subscripts a name no module-level statement binds (a function's own list)."""
    return isinstance(callee, ast.Subscript) and isinstance(callee.value, ast.Name) and not (
        callee.value.id in module.assigned or callee.value.id in module.imports)


def _registry_held(reading: _Reading, module: _Module, callee: ast.expr) -> frozenset | None:
    """What a module's registry that ``callee`` looks a value up in (``REGISTRY[name]``) holds; None where it is no
    registry ``_Reading.registry`` reads."""
    if not (isinstance(callee, ast.Subscript) and isinstance(callee.value, ast.Name)
            and callee.value.id in module.assigned):
        return None
    try:
        return reading.registry(module, callee.value.id)
    except _Unknown:
        return None


def _named(definitions: dict, path: str):
    """(name, (module, node)) for the top-level definitions of the file at ``path``."""
    for name, items in definitions.items():
        for module, node in items:
            if module.path == path:
                yield name, (module, node)


def _looked_up(callee: ast.expr) -> bool:
    """Whether a call's callee is looked up by a name not in the code: a subscript of a plain name, ``getattr``'s
    result, ``eval``."""
    if isinstance(callee, ast.Subscript):
        return isinstance(callee.value, ast.Name)
    if isinstance(callee, ast.Call):
        return _callee_name(callee.func) in _OPAQUE | _LOOKUPS
    return isinstance(callee, ast.Name) and callee.id in ("eval", "exec")


def _calls_held_cell(node: ast.ClassDef) -> bool:
    """Whether the ``__init__`` of a class calls an attribute of its instance that is no method of the class, or a name
    it binds itself (a Cell it builds, run once while it is built)."""
    init = next((item for item in node.body if isinstance(item, ast.FunctionDef) and item.name == "__init__"), None)
    if init is None:
        return False
    methods = {item.name for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))}
    instance = instance_parameter(init)
    bound = {target.id for item in ast.walk(init) if isinstance(item, ast.Assign)
             for target in item.targets if isinstance(target, ast.Name)} | set(_parameters(init))
    for item in ast.walk(init):
        if isinstance(item, ast.Call):
            callee = item.func
            attribute = self_attribute(callee, instance)
            if attribute is not None and attribute not in methods and not attribute.startswith(_CELL_API):
                return True
            if isinstance(callee, ast.Name) and callee.id in bound:
                return True
    return False
