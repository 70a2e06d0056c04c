"""Classes: Cell lineage (MindSpore's Cells, the project's bases in other modules), jit classes, user classes and
what their methods mutate, what a Cell's attributes hold, and which Cells own parameters. (The plain containers a
Cell keeps are ``containers``.)"""
from __future__ import annotations

import ast
import re
import unicodedata
import weakref
from typing import TYPE_CHECKING, Iterator, Sequence

from ms_lint import mindspore_api as api
from ms_lint.model.project import (ProjectClass, answer, class_answer, class_location, facts_of, project_class,
                                   project_class_facts, project_method)
from ms_lint.model.construction import OneOf, attribute_writes, constructor_constants
from ms_lint.model.scopes import ASSIGNMENT
from ms_lint.model.syntax import (FunctionNode, conditional_arms, decorator_callee, first_argument, is_attribute_of,
                                  is_static, self_attribute)
from ms_lint.model.values import UNKNOWN, annotated_class, constant_value, literal

if TYPE_CHECKING:
    from ms_lint.model.module import ModuleFacts

# Cell methods that return the Cell itself, so ``Net().set_train()`` is still the Cell.
CELL_METHODS_RETURNING_SELF = frozenset({
    "set_grad", "set_train", "to_float", "set_boost", "add_flags", "add_flags_recursive", "apply",
    "set_broadcast_flag", "set_comm_fusion",
})


_NOT_ASKED = object()


class ClassInfo:
    """One class of a module: its methods, whether it is a Cell or a ``@jit_class``, and what its instance
    attributes hold (found on first use: in another module of the project only a base class is usually asked
    about, and classifying its attributes would load every module they come from)."""

    def __init__(self, name: str, node: ast.ClassDef, module: "ModuleFacts | None" = None):
        self.name = name
        self.key = name  # where ``ModuleFacts.classes`` files it: its __qualname__, unique in the module
        self.node = node
        self.methods: dict[str, FunctionNode] = {}
        self.is_cell = False
        self.is_jit_class = False
        self.local_bases: list[ClassInfo] = []  # final once the module's classes are resolved
        # What lineage, find_method and attribute_constructor answered (asked per call in graph code), kept without
        # a reference to this class itself: a cycle would keep the module's tree alive until a full collection.
        self._bases_in_order: tuple[ClassInfo, ...] | None = None
        self._methods_found: dict[str, tuple[int, FunctionNode] | None] = {}  # name -> (place in lineage, method)
        self.start_attributes(module)

    def start_attributes(self, module: "ModuleFacts | None") -> None:
        """Forget what the instance attributes were found to hold (they may rest on other modules' classes): they are
        found again, from ``module``'s code, when next asked."""
        self._constructors_found: dict[str, str | None] = {}
        self._constants_found: dict[str, object] = {}  # attribute -> what constant_attribute answered
        # weak: the module owns its classes, and a cycle would keep the whole tree alive until a full collection
        self._module = weakref.ref(module) if module is not None else None
        self._owner = self._module  # kept: the module the class lies in
        self._constructed: dict[str, object] | None = None
        self._tensor_attributes: set[str] = set()
        self._cell_attributes: dict[str, str | None] = {}
        # attribute -> every Cell class it may hold, where that is more than one (``A(...) if c else B(...)``)
        self._cell_choices: dict[str, tuple[str, ...]] = {}
        self._object_attributes: dict[str, "UserType"] = {}
        self._parameter_attributes: set[str] = set()
        self._attribute_constructors: dict[str, str] = {}  # attribute -> qualname of what built it
        # attribute -> (method, value) of each write to ``self.<attribute>``; the value is None for ``+=``
        self._attribute_writes: dict[str, list[tuple[str, ast.AST | None]]] = {}

    def _attributes(self) -> "ClassInfo":
        if self._module is not None:
            module, self._module = self._module(), None
            if module is not None:
                module._collect_attributes(self)
        return self

    @property
    def tensor_attributes(self) -> set[str]:
        return self._attributes()._tensor_attributes

    @property
    def cell_attributes(self) -> dict[str, str | None]:
        return self._attributes()._cell_attributes

    @property
    def cell_choices(self) -> dict[str, tuple[str, ...]]:
        """The Cell classes an attribute set from a conditional expression may hold (``self.x = A(...) if c else
        B(...)``: both), where there are several; ``cell_attributes`` names the first."""
        return self._attributes()._cell_choices

    @property
    def object_attributes(self) -> dict[str, "UserType"]:
        return self._attributes()._object_attributes

    @property
    def parameter_attributes(self) -> set[str]:
        return self._attributes()._parameter_attributes

    @property
    def attribute_constructors(self) -> dict[str, str]:
        return self._attributes()._attribute_constructors

    @property
    def attribute_writes(self) -> dict[str, list[tuple[str, ast.AST | None]]]:
        return self._attributes()._attribute_writes

    def constant_attribute(self, attribute: str, _seen: frozenset = frozenset()):
        """The constant ``self.<attribute>`` holds in every instance: one write in ``__init__`` (or the class body),
        and no other anywhere in the class's lineage, of a value that folds to a constant from literals and other
        such attributes (``self.use_sdpa = self.implementation == "sdpa"`` after ``self.implementation = "eager"``,
        ``self.a = self.b and self.c``); else UNKNOWN. A parameter of ``__init__`` folds to the constant every place
        that builds the class passes it (``constructor_constants``); any other name is not folded. ``self.training``
        is False (as ``Cell.__init__`` leaves it) where nothing the application runs switches it
        (``ModuleFacts.training_stays_off``) and the class's lineage never writes it; else unknown."""
        if attribute == "training":
            module = self._owner() if self._owner is not None else None
            if self.is_cell and "training" not in self._seen_writes() and module is not None and (
                    module.training_stays_off()):
                return False
            return UNKNOWN
        if attribute in _seen:
            return UNKNOWN
        # Asked once per attribute: chains of attributes built from each other share their operands. An answer
        # that met a cycle is UNKNOWN from wherever the cycle is entered.
        found = self._constants_found.get(attribute, _NOT_ASKED)
        if found is _NOT_ASKED:
            found = self._constants_found[attribute] = self._fold_attribute(attribute, _seen)
        return found

    def _seen_writes(self) -> set[str]:
        """The attributes this class or a base of this module writes anywhere."""
        return {attribute for info in self.lineage() for attribute in info.attribute_writes}

    def _fold_attribute(self, attribute: str, _seen: frozenset):
        writes = [(info, *write) for info in self.lineage() for write in info.attribute_writes.get(attribute, ())]
        if len(writes) != 1 or writes[0][1] not in ("__init__", "<class body>"):
            return UNKNOWN
        info, method, value = writes[0]
        if value is None:
            return UNKNOWN
        if not self.is_cell and not self._written_only_by_class(attribute, method):
            return UNKNOWN  # a plain object's attribute that code outside the class may set (``metric.mode = ...``)
        value_literal = literal(value)
        if value_literal is not UNKNOWN or method != "__init__":
            return value_literal
        self_name = first_argument(info.methods[method]) if method in info.methods else None
        seen = _seen | {attribute}
        constructed = info.constructor_constants()

        def lookup(expr: ast.AST):
            if self_attribute(expr, self_name) is not None:
                return self.constant_attribute(expr.attr, seen)
            if isinstance(expr, ast.Name):
                value = constructed.get(expr.id, UNKNOWN)
                return UNKNOWN if isinstance(value, OneOf) else value  # (several values: no one constant)
            return UNKNOWN

        return constant_value(value, lookup)

    def _written_only_by_class(self, attribute: str, method: str) -> bool:
        """Whether the application writes ``attribute`` of no object but where this class's one write does
        (``attribute_writes``: the ``self.<attribute> = ...`` of ``__init__``, none for the class body's)."""
        module = self._owner() if self._owner is not None else None
        if module is None or not module.path:
            return False
        return attribute_writes(module.path, attribute, self._lineage_names()) == (method == "__init__")

    def _lineage_names(self) -> frozenset[str] | None:
        """The names of this class and of all its bases, where every base is one of this module's classes (or
        ``object``); None where a base lies elsewhere (its own bases are not read here)."""
        lineage = self.lineage()
        names = frozenset(info.name for info in lineage)
        for info in lineage:
            for base in info.node.bases:
                if not (isinstance(base, ast.Name) and (base.id in names or base.id == "object")):
                    return None
        return names

    def constructor_constants(self) -> dict[str, object]:
        """Parameter of ``__init__`` -> the constant every place its application builds this class passes it
        (or leaves at its default), for the parameters ``__init__`` never binds again (``model.construction``); a
        plain class's too (``F1(num_labels)`` with the default ``mode="Binary"``); empty for a library's class or a
        class built in ways the model does not read."""
        found = self._constructed
        if found is None:
            found = self._constructed = {}
            module = self._owner() if self._owner is not None else None
            init = self.methods.get("__init__")
            if module is not None and init is not None and module.path and "." not in self.key:
                constants = constructor_constants(module.path, self.name, init, module.tree, module.argument_constant,
                                                  module.call_never_runs)
                if constants:
                    rebound = {node.id for node in ast.walk(init)
                               if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load)}
                    found.update((name, value) for name, value in constants.items() if name not in rebound)
        return found

    def lineage(self) -> tuple["ClassInfo", ...]:
        """This class, then its base classes of this module, in lookup order; each once, even through cycles."""
        bases = self._bases_in_order
        if bases is None:
            found, stack, seen = [], list(reversed(self.local_bases)), {id(self)}
            while stack:
                info = stack.pop()
                if id(info) in seen:
                    continue
                seen.add(id(info))
                found.append(info)
                stack.extend(reversed(info.local_bases))
            bases = self._bases_in_order = tuple(found)
        return (self, *bases)

    def find_method(self, name: str) -> tuple["ClassInfo", FunctionNode] | None:
        """The method ``name`` as Python's attribute lookup finds it among this module's classes."""
        found = self._methods_found.get(name, _NOT_ASKED)
        if found is _NOT_ASKED:
            found = self._methods_found[name] = next(
                ((place, info.methods[name]) for place, info in enumerate(self.lineage()) if name in info.methods),
                None)
        return (self.lineage()[found[0]], found[1]) if found is not None else None

    def attribute_constructor(self, attribute: str) -> str | None:
        """The qualified name of what ``self.<attribute> = X(...)`` built, here or in a local base class."""
        found = self._constructors_found.get(attribute, _NOT_ASKED)
        if found is _NOT_ASKED:
            found = self._constructors_found[attribute] = next(
                (info.attribute_constructors[attribute] for info in self.lineage()
                 if attribute in info.attribute_constructors), None)
        return found

    def has_attribute(self, kind: str, attribute: str) -> bool:
        return any(attribute in getattr(info, kind) for info in self.lineage())


class UserType:
    """A plain user class (not a Cell, jit class, operator, Enum or exception), in this module or another module of
    the project, as graph code sees its instances."""

    __slots__ = ("_module", "key", "_mutations")

    def __init__(self, module: "ModuleFacts | None", key: str, mutations: dict[str, str] | None = None):
        """``module``: the facts of this module, for a class of its own; a class of another module comes with
        ``mutations``, what the project index answered for it (see ``mutation``)."""
        # weak: the module's classes hold their attributes' types, and a cycle would keep its tree alive until a
        # full collection
        self._module = weakref.ref(module) if module is not None else lambda: None
        self.key = key  # its key in that module's ``classes``, or the namedtuple's name
        self._mutations = mutations

    @property
    def module(self) -> "ModuleFacts | None":
        return self._module()

    @property
    def name(self) -> str:
        return self.key.rsplit(".", 1)[-1].split("@")[0]

    def mutation(self, method: str) -> str | None:
        """How calling ``method`` changes an instance: "container" (a list, dict or object it holds), "attribute"
        (rebinds an attribute), or None."""
        if self._mutations is not None:
            return self._mutations.get(method)
        return self.module.mutations(self.key).get(method)


# Parameter names MindSpore's own wrappers give the Cell they wrap (WithLossCell(backbone, ...),
# TrainOneStepCell(network, ...)).
_CELL_PARAMETER_NAMES = frozenset({"network", "net", "backbone", "cell"})

# Methods of a container that change it; each also changes the object holding the container.
CONTAINER_MUTATORS = frozenset({"append", "extend", "insert", "update", "add", "setdefault", "appendleft",
                                "extendleft", "pop", "popitem", "remove", "clear", "discard", "__setitem__"})

# What a constructor call builds: (qualified name, what is known of the class, the module's facts when the class is
# one of the module's own).
BuiltClass = tuple[str, ClassInfo | ProjectClass | None, "ModuleFacts | None"]


class ClassFacts:
    """The questions about classes: which are Cells, what they build and own, what their attributes hold. A part of
    ``ModuleFacts``; it asks the names below it (``qualname``) and the project index."""

    # -- classes ------------------------------------------------------------------------------------------

    def _resolve_classes(self) -> None:
        for info in self.classes.values():
            for base in info.node.bases:
                name = self.qualname(base)
                local = self.local_class(name)
                if local is not None:
                    info.local_bases.append(local)
            info.is_jit_class = any(
                api.is_mindspore_name(self.qualname(decorator_callee(d)), "jit_class")
                for d in info.node.decorator_list
            )
        for info in self.classes.values():
            info.is_cell = self._class_is_cell(info, frozenset())

    def _class_is_cell(self, info: ClassInfo, seen: frozenset) -> bool:
        if info.key in seen:
            return False
        for base in info.node.bases:
            name = self.qualname(base)
            if name is None:
                continue
            if api.is_mindspore_cell_class(name):
                return True
            if name.startswith(self.local_prefix):
                local = self.classes.get(name[len(self.local_prefix):])
                if local is not None and self._class_is_cell(local, seen | {info.key}):
                    return True
            elif self._project_class_is_cell(name):
                return True
        return False

    def _project_class_is_cell(self, qualname: str) -> bool:
        if api.is_mindspore(qualname) or qualname.startswith("builtins."):
            return False

        found = project_class(self.path, qualname, self.settings)
        return bool(found and found.is_cell)

    def class_of_constructor(self, call: ast.AST) -> BuiltClass | None:
        """For ``Foo(...)``: (qualified name, what is known of the class, the facts of this module when the class is
        one of its own) of the class it builds; None when ``Foo`` names nothing known. A class of another module
        of the project comes as its summary (see ``project_class_facts`` for its tree)."""
        if not isinstance(call, ast.Call):
            return None
        qualname = self.qualname(call.func)
        if qualname is None:
            return None
        if qualname not in self._classes_named:
            self._classes_named[qualname] = self._class_named(qualname)
        return self._classes_named[qualname]

    def _class_named(self, qualname: str) -> BuiltClass | None:
        if qualname.startswith(self.local_prefix):
            local = self.classes.get(qualname[len(self.local_prefix):])
            return (qualname, local, self) if local is not None else None
        if api.is_mindspore(qualname) or qualname.startswith("builtins.") or api.is_host_library(qualname):
            return (qualname, None, None)

        return (qualname, project_class(self.path, qualname, self.settings), None)

    def builds_cell(self, expr: ast.AST | None) -> bool:
        """``expr`` constructs a Cell (a ``mindspore.nn`` class or a Cell class of the project)."""
        built = self.class_of_constructor(expr)
        if built is None:
            return False
        qualname, info, _ = built
        return api.is_mindspore_cell_class(qualname) or bool(info and info.is_cell)

    def builds_optimizer(self, expr: ast.AST | None) -> ClassInfo | str | None:
        """For ``expr`` constructing a MindSpore optimizer (``nn.Adam(...)``, ``mint.optim.AdamW(...)``) or a
        class of this module deriving from one: the project class (its own methods count), or the MindSpore class's
        qualified name; None for any other value."""
        built = self.class_of_constructor(expr)
        if built is None:
            return None
        qualname, info, module = built
        if api.is_optimizer_class(qualname):
            return qualname
        if module is self and info is not None and info.is_cell and any(
                api.is_optimizer_class(base) for base in self.mindspore_bases(info)):
            return info
        return None

    def builds_parameter(self, expr: ast.AST | None) -> bool:
        return isinstance(expr, ast.Call) and api.is_mindspore_name(self.qualname(expr.func), "Parameter")

    def owns_parameters(self, call: ast.Call, _seen: frozenset = frozenset()) -> bool | None:
        """Whether the Cell ``call`` builds owns parameters: True, False, or None when unknown."""
        built = self.class_of_constructor(call)
        if built is None:
            return None
        qualname, info, module = built
        entry = api.nn_cell_entry(qualname)
        if entry is not None:
            if entry["parameters"] == "wrapped":
                owned = list(self._wrapped_cells_own(call, _seen))
                return True if True in owned else None if None in owned else False
            return bool(entry["parameters"])
        if info is None or not info.is_cell or qualname in _seen:
            return None
        if module is None:  # a class of another module of the project: its module's answer, once per run
            located = class_location(self.path, qualname, self.settings)
            if located is None:
                return None
            seen, name = _seen | {qualname}, located[1]
            return answer("owns parameters", located[0], self.settings, (name, *sorted(seen)), lambda facts: (
                None if facts is None or name not in facts.classes
                else facts._class_owns_parameters(facts.classes[name], seen)))
        return module._class_owns_parameters(info, _seen | {qualname})

    def _wrapped_cells_own(self, call: ast.Call, seen: frozenset) -> Iterator[bool | None]:
        """For each Cell a wrapping container is given (``nn.SequentialCell([...])``, ``nn.SequentialCell(blocks)``
        with ``blocks`` a list the function fills): whether it owns parameters (None: unknown); one None for an
        argument whose Cells cannot be told."""
        for argument in [*call.args, *(k.value for k in call.keywords)]:
            elements = self.elements_put_in(argument.value if isinstance(argument, ast.Starred) else argument)
            if elements is None:
                yield None
                continue
            for element in elements:
                for node in ast.walk(element):
                    if isinstance(node, ast.Call) and self.builds_cell(node):
                        yield self.owns_parameters(node, seen)

    def elements_put_in(self, expr: ast.AST, _depth: int = 0) -> list[ast.AST] | None:
        """The expressions that become the elements of the sequence ``expr`` holds: those of a display or a
        comprehension, of ``list(...)``/``tuple(...)`` of one, and for a local name, those of what it is bound to and
        of what the function appends, inserts or adds to it (``blocks.append(Block(...))``); None when that cannot
        be told (a parameter, an attribute, a loop variable, the result of a call)."""
        if _depth > 4:
            return None
        if isinstance(expr, (ast.List, ast.Tuple, ast.Set)):
            return [e.value if isinstance(e, ast.Starred) else e for e in expr.elts]
        if isinstance(expr, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
            return [expr.elt]
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Mult)):
            parts = [self.elements_put_in(side, _depth + 1) for side in (expr.left, expr.right)
                     if not (isinstance(expr.op, ast.Mult) and isinstance(side, ast.Constant))]
            return None if any(part is None for part in parts) else [e for part in parts for e in part]
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in ("list", "tuple") and (
                len(expr.args) == 1 and not expr.keywords):
            return self.elements_put_in(expr.args[0], _depth + 1)
        if not isinstance(expr, ast.Name):
            return None
        binding = self.scopes.binding(expr)
        if binding is None or binding.value is None or binding.kind != ASSIGNMENT:
            return None
        found = self.elements_put_in(binding.value, _depth + 1)
        if found is None:
            return None
        for node in self.index.subtree_nodes_of(binding.scope.node, (ast.Call, ast.AugAssign)):
            if isinstance(node, ast.AugAssign):
                if isinstance(node.target, ast.Name) and node.target.id == expr.id:
                    added = self.elements_put_in(node.value, _depth + 1)
                    if added is None:
                        return None
                    found = found + added
                continue
            func = node.func
            if self_attribute(func, expr.id) is not None:
                if func.attr in ("append", "insert") and node.args:
                    found = found + [node.args[-1]]
                elif func.attr == "extend" and node.args:
                    added = self.elements_put_in(node.args[0], _depth + 1)
                    if added is None:
                        return None
                    found = found + added
        return found

    def _class_owns_parameters(self, info: ClassInfo, seen: frozenset) -> bool:
        for node in (node for method in info.methods.values()
                     for node in self.index.subtree_nodes_of(method, (ast.Call,))):
            if isinstance(node, ast.Call):
                if self.builds_parameter(node) or api.is_mindspore_name(self.qualname(node.func), "initializer"):
                    return True
                if self.builds_cell(node) and self.owns_parameters(node, seen):
                    return True
        for base in info.node.bases:
            base_call = ast.Call(func=base, args=[], keywords=[])
            if self.owns_parameters(base_call, seen):
                return True
        return False

    def mindspore_bases(self, info: ClassInfo, other_modules: bool = True, _seen: frozenset = frozenset()
                        ) -> list[str]:
        """The qualified names of the MindSpore classes ``info`` derives from, through its bases of this module and,
        unless told otherwise, of the project's other modules (``nn.Adam`` for ``class MyAdam(BaseAdam)`` with
        ``BaseAdam(nn.Adam)`` elsewhere: that module is read in full, so ask only where the answer matters)."""
        found: list[str] = []
        for local in info.lineage():
            for base in local.node.bases:
                qualname = self.qualname(base)
                if not qualname or qualname in _seen or qualname.startswith(self.local_prefix):
                    continue
                if api.is_mindspore(qualname):
                    found.append(qualname)
                elif other_modules and not qualname.startswith("builtins.") and not api.is_host_library(qualname):
                    found += self._mindspore_bases_elsewhere(qualname, _seen | {qualname})
        return found

    def _mindspore_bases_elsewhere(self, qualname: str, seen: frozenset) -> list[str]:
        """``mindspore_bases`` of the project class ``qualname`` of another module: its module's answer, once per
        run."""
        located = class_location(self.path, qualname, self.settings)
        if located is None:
            return []
        name = located[1]
        return list(answer("mindspore bases", located[0], self.settings, (name, *sorted(seen)), lambda facts: (
            [] if facts is None or name not in facts.classes
            else facts.mindspore_bases(facts.classes[name], True, seen))))

    def is_parameter_attribute(self, info: ClassInfo, attribute: str) -> bool:
        """Whether ``self.<attribute>`` of class ``info`` holds a Parameter: one its classes of this module build or
        keep (``has_attribute("parameter_attributes", ...)``), or one a MindSpore base class creates, also through
        the project's bases in other modules (``beta1_power`` of a subclass of a project ``nn.Adam`` subclass)."""
        if info.has_attribute("parameter_attributes", attribute):
            return True
        if attribute not in api.CREATED_PARAMETER_NAMES:
            return False  # no MindSpore class makes one of that name: the bases need not be read
        return any(attribute in api.base_parameter_attributes(base) for base in self.mindspore_bases(info))

    def _collect_attributes(self, info: ClassInfo) -> None:
        # What a MindSpore base class's constructor creates as Parameters (``nn.Adam``'s ``beta1_power``), through
        # this module's classes (``is_parameter_attribute`` follows the bases of other modules when asked).
        # (which classes are optimizers is the same in every version: the newest tables answer, and the module's
        # target, which reads the project, is not asked for every class of every module read)
        created = [attribute for base in self.mindspore_bases(info, other_modules=False)
                   for attribute in api.base_parameter_attributes(base)]
        info._parameter_attributes.update(created)
        info._tensor_attributes.update(created)
        if created:
            self._optimizer_parameters(info)
        writes = info._attribute_writes
        for statement in info.node.body:
            if isinstance(statement, ast.Assign):
                for target in statement.targets:
                    if isinstance(target, ast.Name):
                        writes.setdefault(target.id, []).append(("<class body>", statement.value))
        for method in info.methods.values():
            self_name = first_argument(method)
            if self_name is None:
                continue
            for node in self.index.subtree_nodes_of(method, (ast.AugAssign, ast.Assign, ast.AnnAssign)):
                node_type = node.__class__
                if node_type is ast.AugAssign:
                    target = node.target
                    if self_attribute(target, self_name) is not None:
                        writes.setdefault(target.attr, []).append((method.name, None))
                    continue
                if (node_type is not ast.Assign and node_type is not ast.AnnAssign) or node.value is None:
                    continue
                targets = node.targets if node_type is ast.Assign else [node.target]
                for target in targets:
                    if isinstance(target, (ast.Tuple, ast.List)):  # ``self.a, self.b = ...``: values unknown
                        for element in target.elts:
                            if is_attribute_of(element, self_name) and isinstance(element, ast.Attribute):
                                writes.setdefault(element.attr, []).append((method.name, None))
                        continue
                    if self_attribute(target, self_name) is None:
                        continue
                    writes.setdefault(target.attr, []).append((method.name, node.value))
                    self._classify_attribute(info, target.attr, node.value)
                    if isinstance(node.value, ast.Name) and self._given_cell(method, node.value.id):
                        info.cell_attributes.setdefault(target.attr, None)

    def _optimizer_parameters(self, info: ClassInfo) -> None:
        """In an optimizer (a class with a MindSpore optimizer among its bases), ``self.x = params[i]`` keeps one of
        the Parameters the optimizer was given (the argument of ``__init__`` it hands to its base's, or
        ``self.parameters``), and ``self.m = self.parameters.clone(...)`` a ParameterTuple of copies: Parameters
        that its graph code may update."""
        if not any((api.nn_cell_entry(base) or {}).get("optimizer")
                   for base in self.mindspore_bases(info, other_modules=False)):
            return
        for method in info.methods.values():
            self_name = first_argument(method)
            if self_name is None:
                continue
            given = {argument.id for call in self.index.subtree_nodes_of(method, (ast.Call,))
                     if isinstance(call.func, ast.Attribute) and call.func.attr == "__init__"
                     for argument in [*call.args, *(k.value for k in call.keywords)]
                     if isinstance(argument, ast.Name) and "param" in argument.id.lower()}

            def holds_parameters(expr: ast.AST) -> bool:
                if isinstance(expr, ast.Name):
                    return expr.id in given
                return self_attribute(expr, self_name) in ("parameters", "_parameters", "params")

            for node in self.index.subtree_nodes_of(method, (ast.Assign,)):
                value = node.value
                kept = (isinstance(value, ast.Subscript) and holds_parameters(value.value)) or (
                    isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
                    and value.func.attr == "clone" and holds_parameters(value.func.value))
                if not kept:
                    continue
                for target in node.targets:
                    if self_attribute(target, self_name) is not None:
                        info._parameter_attributes.add(target.attr)
                        info._tensor_attributes.add(target.attr)

    def _given_cell(self, method: FunctionNode, name: str) -> bool:
        """``name`` is a parameter of ``method`` that takes a Cell: annotated with a Cell class, or named as
        MindSpore's wrappers name the network they wrap (``network``, ``backbone``, ...)."""
        arguments = method.args
        for argument in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs):
            if argument.arg == name:
                qualname = annotated_class(argument.annotation, self.qualname)
                if qualname is not None:
                    built = self._class_named(qualname)
                    return bool(built) and (api.is_mindspore_cell_class(built[0])
                                            or bool(built[1] and built[1].is_cell))
                return name in _CELL_PARAMETER_NAMES
        return False

    def _classify_attribute(self, info: ClassInfo, attribute: str, value: ast.AST) -> None:
        if isinstance(value, ast.IfExp):
            # ``A(...) if c else B(...)``: the attribute holds either Cell; other values of the arms stay unknown
            built = [self.qualname(arm.func) for arm in conditional_arms(value)
                     if isinstance(arm, ast.Call) and self.builds_cell(arm)]
            if built:
                info.cell_attributes[attribute] = built[0]
                if len(set(built)) > 1:
                    info.cell_choices[attribute] = tuple(dict.fromkeys(built))
            return
        if isinstance(value, ast.Call):
            qualname = self.qualname(value.func)
            if qualname:
                info.attribute_constructors.setdefault(attribute, qualname)
            if api.is_mindspore_name(qualname, "Parameter", "ParameterTuple"):
                info.parameter_attributes.add(attribute)
            if api.is_mindspore_name(qualname, "Parameter", "Tensor", "tensor", "initializer", "ParameterTuple"):
                info.tensor_attributes.add(attribute)
                return
            if self.builds_cell(value):
                info.cell_attributes[attribute] = qualname
                return
            if api.is_mindspore(qualname) and api.last_name(qualname)[:1].islower() and (
                    qualname.startswith(("mindspore.ops.", "mindspore.numpy."))):
                info.tensor_attributes.add(attribute)
                return
            user_type = self.user_type(qualname)
            if user_type is not None:
                info.object_attributes[attribute] = user_type

    # -- user-defined types (MS103) -----------------------------------------------------------------------

    def user_class_name(self, qualname: str | None) -> str | None:
        """The name of a plain user class of this module (not a Cell, not ``@jit_class``, not an Enum)."""
        if not qualname or not qualname.startswith(self.local_prefix):
            return None
        name = qualname[len(self.local_prefix):]
        info = self.classes.get(name)
        if info is not None:
            if (info.is_cell or info.is_jit_class or self.is_operator_class(info) or self._is_enum(info)
                    or self._is_exception(info)):
                return None
            return name
        value = self.module_assignments.get(name)
        namedtuple_factories = ("collections.namedtuple", "typing.NamedTuple")
        if isinstance(value, ast.Call) and self.qualname(value.func) in namedtuple_factories:
            return name
        return None

    def is_operator_class(self, info: ClassInfo) -> bool:
        """A custom operator: a subclass of MindSpore's ``Primitive`` (``PrimitiveWithInfer``, ``Custom``, ...),
        directly or through classes of this module. Graph code builds and calls operators: they are no user type."""
        return any(api.is_mindspore_name(self.qualname(base), *api.PRIMITIVE_BASES)
                   for known in info.lineage() for base in known.node.bases)

    def _is_enum(self, info: ClassInfo) -> bool:
        return any((self.qualname(b) or "").startswith("enum.") for b in info.node.bases)

    def _is_exception(self, info: ClassInfo) -> bool:
        return any((self.qualname(b) or "").endswith(("Exception", "Error", "Warning")) for b in info.node.bases)

    def is_jit_class(self, qualname: str | None) -> bool:
        """Whether ``qualname`` names a ``@jit_class`` class of this module or of another module of the project."""
        if not qualname:
            return False
        if qualname.startswith(self.local_prefix):
            info = self.classes.get(qualname[len(self.local_prefix):])
            return info is not None and info.is_jit_class
        summary = self._other_module_class(qualname)
        return summary is not None and summary.is_jit_class

    def _other_module_class(self, qualname: str):
        """The project's summary of the class ``qualname`` names in another module of the project; None for a name
        of this module, of MindSpore, of a host library or a builtin, or one the project does not define."""
        if qualname.startswith(self.local_prefix) or api.is_mindspore(qualname) or api.is_host_library(qualname) or (
                qualname.startswith("builtins.")):
            return None
        return project_class(self.path, qualname, self.settings)  # cheap, kept between files

    def user_type(self, qualname: str | None) -> UserType | None:
        """The plain user class ``qualname`` names: one of this module's, or of another module of the project."""
        if not qualname:
            return None
        key = self.user_class_name(qualname)
        if key is not None:
            return UserType(self, key)
        summary = self._other_module_class(qualname)
        if summary is None or summary.is_cell or summary.is_jit_class:
            return None
        located = class_location(self.path, qualname, self.settings)
        if located is None:
            return None
        name = located[1]

        def user_class(facts):  # its key in its module, and how its methods change an instance
            key = None if facts is None or name not in facts.classes else facts.user_class_name(
                facts.local_prefix + name)
            return None if key is None else (key, sorted(facts.mutations(key).items()))

        found = answer("user type", located[0], self.settings, (name,), user_class)
        return UserType(None, found[0], dict(found[1])) if found is not None else None

    def mutations(self, class_key: str) -> dict[str, str]:
        """For each method of user class ``class_key`` (its own or inherited in this module) that changes the
        instance: "container" when it changes a container or object the instance holds (``self.items.append(x)``,
        ``self.cache[k] = v``, ``self.layers[i].update(k, v)``), else "attribute" when it rebinds an attribute
        (``self.steps += 1``). A method that calls a changing method of ``self`` changes it the same way."""
        known = self._mutations.get(class_key)
        if known is not None:
            return known
        info = self.classes.get(class_key)
        result: dict[str, str] = {}
        self._mutations[class_key] = result
        if info is None:
            return result
        methods = {name: method for owner in reversed(list(info.lineage())) for name, method in owner.methods.items()}
        calls: dict[str, set[str]] = {}
        for name, method in methods.items():
            self_name = first_argument(method)
            if name == "__init__" or self_name is None or is_static(method):
                continue
            kind, called = _changes_made_by(self.index.subtree_nodes_of(method, _CHANGING_TYPES), self_name)
            if kind:
                result[name] = kind
            calls[name] = called
        changed = True
        while changed:
            changed = False
            for name, called in calls.items():
                for callee in called:
                    inherited = result.get(callee)
                    if inherited and result.get(name) != "container" and result.get(name) != inherited:
                        result[name] = "container" if "container" in (inherited, result.get(name)) else inherited
                        changed = True
        return result

    def inherits_method(self, info: ClassInfo, name: str) -> bool:
        """Whether class ``info`` defines method ``name`` or inherits it from a class of this module or of the
        project's other modules (MindSpore's own classes are not followed)."""
        return self.method_of(info, name) is not None

    def cell_method_named(self, name: str) -> tuple["ModuleFacts", ClassInfo, FunctionNode] | None:
        """The method ``name`` of the one Cell class that this module defines or imports from another module of
        the project and that has it (its own or inherited): ``(facts of the defining module, the class that defines
        it, the method)``, as ``method_of`` answers. What a call ``obj.name(...)`` runs where the code does not say
        what ``obj`` holds (a function's parameter, ``self.model``) and this module can only mean that Cell. None
        when no such Cell has it, when several different methods answer, when a class of this module that is not
        a Cell has it too, and for the methods ``nn.Cell`` itself defines."""
        if name in api.CELL_INSTANCE_NAMES or name.startswith("__"):
            return None
        cache = self._cell_methods_named
        if name in cache:
            return cache[name]
        found: dict[int, tuple] = {}
        for info in self.classes.values():
            located = self.method_of(info, name)
            if located is not None and not info.is_cell:
                cache[name] = None
                return None
            if located is not None:
                found[id(located[2])] = located
        for facts, info in self._imported_cells():
            located = facts.method_of(info, name)
            if located is not None:
                found[id(located[2])] = located
        cache[name] = next(iter(found.values())) if len(found) == 1 else None
        return cache[name]

    def _imported_cells(self) -> list[tuple["ModuleFacts", ClassInfo]]:
        """The Cell classes of the project's other modules this module imports by name (``from .model import
        Net``): (facts of the defining module, the class)."""
        imported = self._imported_cell_classes
        if imported is None:
            imported = []
            for qualname in sorted(set(self.names.values())):
                last = qualname.rpartition(".")[2]
                if not last[:1].isupper() or qualname.startswith(self.local_prefix) or api.is_mindspore(qualname) \
                        or api.is_host_library(qualname):
                    continue
                summary = project_class(self.path, qualname, self.settings)
                if summary is None or not summary.is_cell:
                    continue
                located = project_class_facts(self.path, qualname, self.settings)
                if located is not None:
                    imported.append((located[0], located[0].classes[located[1]]))
            self._imported_cell_classes = imported
        return imported

    def method_of(self, info: ClassInfo, name: str, through_cells: bool = True,
                  _seen: frozenset = frozenset()) -> tuple["ModuleFacts", ClassInfo, FunctionNode] | None:
        """The one answer to "does this class have method ``name``": ``(facts of the defining module, the class
        that defines it, the method)``, found as ``ClassInfo.find_method`` finds it among this module's classes,
        else in their bases from the project's other modules (``method_elsewhere``), else None."""
        found = info.find_method(name)
        if found is not None:
            return (self, *found)  # type: ignore[return-value]
        located = self.method_elsewhere(info, name, through_cells, _seen)
        if located is None:
            return None
        facts = facts_of(located[0], self.settings)
        owner = facts.classes.get(located[1]) if facts is not None else None
        method = owner.methods.get(name) if owner is not None else None
        return (facts, owner, method) if method is not None else None

    def method_elsewhere(self, info: ClassInfo, name: str, through_cells: bool = True,
                         _seen: frozenset = frozenset()) -> tuple[str, str, str, bool] | None:
        """Where class ``info`` inherits method ``name`` from the project's other modules when its lineage in this
        module lacks it: (file of the defining module, key of the class that defines it, that class's name,
        whether it is a Cell), found in its bases there (each with its own lineage, then its bases), else None.
        MindSpore's own classes are not followed; nor, unless ``through_cells``, a project base that is a Cell
        (its own module decides what of it is graph code: only the summary of its module is read). Each base's
        answer is the project index's, computed once per run."""
        for local in info.lineage():
            for base in local.node.bases:
                qualname = self.qualname(base)
                if not qualname or qualname in _seen or qualname.startswith(self.local_prefix) \
                        or api.is_mindspore(qualname) or qualname.startswith("builtins."):
                    continue
                if not through_cells:
                    summary = project_class(self.path, qualname, self.settings)
                    if summary is None or summary.is_cell:
                        continue
                found = project_method(self.path, qualname, name, self.settings, through_cells, _seen | {qualname})
                if found is not None:
                    return found
        return None

    def _setter_lines(self) -> Sequence[str] | None:
        """What ``_names_set_by`` reads the module's text by: its lines (a method whose text names none of the
        setters it looks for is not walked), none when the module's text names none, or None when the text is not at
        hand: then every method is walked."""
        found = self._setter_names_written
        if found is None:  # not asked yet
            source = self.source
            found = self._setter_names_written = (
                "unknown" if not source else "named" if _names_a_setter(source) else "none")
        return None if found == "unknown" else self.lines if found == "named" else ()

    def instance_names(self, info: ClassInfo, through_project: bool = True, _depth: int = 0) -> frozenset[str] | None:
        """Every name an instance of class ``info`` can be asked for: what any method of it or of its bases sets on
        the instance (``self.x = ...``, ``self.a, self.b = ...``, ``self.x += ...``, ``register_buffer("x", ...)``),
        what their class bodies bind (methods, properties, class attributes), and what MindSpore's ``nn.Cell``
        instances have; None when that cannot be known: a base that is neither this project's nor ``nn.Cell``
        (another MindSpore layer, a third-party class, a name that does not resolve), a metaclass, an attribute set
        under a computed name (``setattr(self, name, ...)``, ``self.__dict__``), or a ``__getattr__``. Without
        ``through_project``, the bases from the project's other modules are left out (nothing of theirs is read):
        the names are then a part of the answer, for a rule that reads the rest only where it needs it."""
        if _depth > _MAX_BASE_DEPTH:
            return None
        names: set[str] = set()
        for local in info.lineage():
            own = _names_set_by(local, self.index.subtree_nodes_of, self._setter_lines())
            if own is None or any(keyword.arg == "metaclass" for keyword in local.node.keywords):
                return None
            names |= own
            for base in local.node.bases:
                qualname = self.qualname(base)
                if qualname is None:
                    return None
                if qualname in ("builtins.object", "object") or (
                        qualname.startswith(self.local_prefix) and qualname[len(self.local_prefix):] in self.classes):
                    continue  # a local base is in the lineage
                if api.is_mindspore_name(qualname, "Cell"):
                    names |= api.CELL_INSTANCE_NAMES
                    continue
                if api.is_mindspore(qualname) or qualname.startswith("builtins.") or api.is_host_library(qualname):
                    return None
                if not through_project:
                    continue
                found, inherited = class_answer(self.path, qualname, self.settings, "instance names",
                                                lambda facts, name: _as_tuple(facts.instance_names(
                                                    facts.classes[name], True, _depth + 1)))
                if not found or inherited is None:
                    return None
                names.update(inherited)
        return frozenset(names)


_MAX_BASE_DEPTH = 8


def _as_tuple(names: frozenset[str] | None) -> tuple[str, ...] | None:
    """Names as the project index keeps them for the process: a tuple, which the garbage collector stops tracking."""
    return None if names is None else tuple(sorted(names))


# Methods of a Cell that set an attribute named by their first argument.
_NAMED_SETTERS = frozenset({"register_buffer", "insert_child_to_cell", "insert_param_to_cell", "_set_attr_for_cell",
                            "register_parameter", "add_module"})
# Names whose use lets an instance gain attributes under computed names.
_DYNAMIC_SETTERS = frozenset({"setattr", "__setattr__", "__dict__", "vars", "__getattr__", "_cells", "_params",
                              "_buffers", "update_parameters_name"})


# What the text of a method that uses a setter holds: a name the walk below looks for, as a whole word.
_SETTER_NAMES = (*_NAMED_SETTERS, *_DYNAMIC_SETTERS)
_SETTER_WORDS = re.compile(r"\b(?:" + "|".join(sorted(map(re.escape, _SETTER_NAMES))) + r")\b")


def _names_a_setter(text: str) -> bool:
    """Whether ``text`` names one of the setters ``_names_set_by`` looks for, as Python reads its identifiers (in
    NFKC form: ``ｓｅｔａｔｔｒ`` is ``setattr``)."""
    if not text.isascii() and not unicodedata.is_normalized("NFKC", text):
        text = unicodedata.normalize("NFKC", text)
    # each name looked for in the text first (a plain search is many times as fast), as a whole word only then
    return any(name in text for name in _SETTER_NAMES) and _SETTER_WORDS.search(text) is not None


def _method_text(lines: Sequence[str], method: FunctionNode) -> str:
    """The text of ``method``, its decorators included."""
    first = min([method.lineno, *(decorator.lineno for decorator in method.decorator_list)])
    return "".join(lines[first - 1:method.end_lineno])


def _names_set_by(info: ClassInfo, nodes_of, lines: Sequence[str] | None = None) -> set[str] | None:
    """The names class ``info`` binds in its body and its methods set on the instance; None when it sets some under
    a computed name or answers any name (``__getattr__``). ``lines``: the module's lines, where a method whose text
    names none of the setters looked for need not be walked (empty: the module names none); None: walk all."""
    names = set(info.methods) | set(info.attribute_writes)
    for statement in info.node.body:
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            names.add(statement.target.id)
        elif isinstance(statement, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(statement.name)
        elif isinstance(statement, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in statement.names)
        elif not isinstance(statement, (ast.Assign, ast.Expr, ast.Pass)):
            return None  # a loop, a condition, a ``with``: names bound in ways not read here
    if "__getattr__" in info.methods or "__getattribute__" in info.methods:
        return None
    for method in info.methods.values() if lines is None or lines else ():
        if lines is not None and not _names_a_setter(_method_text(lines, method)):
            continue
        self_name = first_argument(method)
        for node in nodes_of(method, (ast.Call, ast.Attribute, ast.Name)):
            if isinstance(node, ast.Name) and node.id in ("setattr", "vars"):
                return None
            if isinstance(node, ast.Attribute) and node.attr in _DYNAMIC_SETTERS:
                return None
            func = node.func if isinstance(node, ast.Call) else None
            if self_attribute(func, self_name) in _NAMED_SETTERS:
                first = node.args[0] if node.args else None
                if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
                    return None
                names.add(first.value)
    return names


_CHANGING_TYPES = (ast.Call, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)  # what _changes_made_by reads


def _changes_made_by(nodes: list[ast.AST], self_name: str) -> tuple[str | None, set[str]]:
    """How the code ``nodes`` changes the object ``self_name`` ("container", "attribute" or None), and the names of
    the methods of ``self_name`` it calls."""
    kind = None
    called: set[str] = set()
    for node in nodes:
        node_type = node.__class__
        if node_type is ast.Call:
            func = node.func
            if self_attribute(func, self_name) is not None:
                called.add(func.attr)
            elif isinstance(func, ast.Attribute) and func.attr in CONTAINER_MUTATORS and is_attribute_of(
                    func.value, self_name):
                kind = "container"
            continue
        if node_type is ast.Assign:
            targets = node.targets
        elif node_type is ast.AugAssign or node_type is ast.AnnAssign:
            targets = [node.target]
        elif node_type is ast.Delete:
            targets = node.targets
        else:
            continue
        for target in targets:
            for element in (target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]):
                if isinstance(element, ast.Subscript) and is_attribute_of(element, self_name):
                    kind = "container"
                elif is_attribute_of(element, self_name) and kind is None:
                    kind = "attribute"
    return kind, called
