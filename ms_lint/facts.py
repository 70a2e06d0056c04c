"""The model of graph code: what every rule asks about a module, computed once per file.

- names: every local name resolved to the qualified name it is bound to (``np`` -> ``numpy``,
  ``Base`` -> ``mindspore.nn.Cell``);
- classes: which are Cells (locally, or through the project's other modules on demand), which are ``@jit_class``,
  which attributes of a Cell hold tensors, sub-cells or user objects;
- graph code: which functions MindSpore compiles and why (``construct``/``bprop`` of Cells, ``@jit`` functions,
  methods of ``@jit_class`` classes, and what those call in this module), honouring the module's mode and the
  syntax level;
- tensor values: in each graph function, which expressions hold tensor data (not compile-time constants), with
  helper parameters taking what their call sites pass.
"""
from __future__ import annotations

import ast
import os
import weakref
from dataclasses import dataclass, field
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.project import ProjectClass
from ms_lint.settings import Settings
from ms_lint.syntax import NodeIndex

TENSOR = "tensor"  # data known only when the graph runs
HOST = "host"  # a host array (numpy and friends), not a tensor

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef

_BUILTIN_STATIC_CALLS = frozenset({
    "len", "isinstance", "issubclass", "type", "range", "str", "repr", "hasattr", "getattr", "callable", "id",
    "print", "format", "enumerate", "zip", "tuple", "list", "dict", "min", "max", "abs", "sum", "any", "all",
    "sorted", "reversed", "round", "divmod", "pow", "int", "float", "bool", "super",
})
_KIND_PASSING_BUILTINS = frozenset({
    "tuple", "list", "min", "max", "abs", "sum", "sorted", "reversed", "round", "pow", "int", "float", "bool",
    "divmod", "zip", "enumerate", "iter", "next", "dict",
})
_JIT_NAMES = ("jit", "ms_function")
_GRAD_NAMES = ("grad", "value_and_grad", "GradOperation", "vjp", "jvp")
# Results that are counts, indices, flags or shapes: host data reaching a result only through them carries no
# value into it (an index selects data, it is not differentiated).
_INDEX_BUILTINS = frozenset({"len", "int", "bool", "range", "isinstance", "type", "str", "repr", "hash", "id",
                             "callable", "hasattr"})
_INDEX_FUNCTIONS = frozenset({
    "argmax", "argmin", "argsort", "nonzero", "flatnonzero", "argwhere", "searchsorted", "digitize", "count_nonzero",
    "isnan", "isinf", "isfinite", "any", "all", "logical_and", "logical_or", "logical_not", "equal", "not_equal",
    "greater", "greater_equal", "less", "less_equal",
})
# Methods that change a container in place: their arguments become part of it.
_MUTATING_METHODS = frozenset({"append", "extend", "insert", "update", "add", "setdefault", "appendleft",
                               "extendleft"})
# The nodes the module's index records (see ModuleFacts._index).
_INDEXED_NODE_TYPES = frozenset({ast.Call, ast.Assign, ast.Import, ast.ImportFrom, ast.ClassDef, ast.FunctionDef,
                                 ast.AsyncFunctionDef})
# Cell methods that return the Cell itself, so ``Net().set_train()`` is still the Cell.
_CELL_METHODS_RETURNING_SELF = frozenset({
    "set_grad", "set_train", "to_float", "set_boost", "add_flags", "add_flags_recursive", "apply",
    "set_broadcast_flag", "set_comm_fusion",
})


def join(*kinds: str | None) -> str | None:
    """The kind of a value built from values of ``kinds``: tensor data wins over host data over constants."""
    if TENSOR in kinds:
        return TENSOR
    if HOST in kinds:
        return HOST
    return None


class ClassInfo:
    """One class of a module: its methods, whether it is a Cell or a ``@jit_class``, and what its instance
    attributes hold (found on first use: in another module of the project only a base class is usually asked
    about, and classifying its attributes would load every module they come from)."""

    def __init__(self, name: str, node: ast.ClassDef, module: "ModuleFacts | None" = None):
        self.name = name
        self.node = node
        self.methods: dict[str, FunctionNode] = {}
        self.is_cell = False
        self.is_jit_class = False
        self.local_bases: list[ClassInfo] = []
        # weak: the module owns its classes, and a cycle would keep the whole tree alive until a full collection
        self._module = weakref.ref(module) if module is not None else None
        self._tensor_attributes: set[str] = set()
        self._cell_attributes: dict[str, str | None] = {}
        self._object_attributes: dict[str, str] = {}
        self._parameter_attributes: set[str] = set()
        self._attribute_constructors: dict[str, str] = {}  # attribute -> qualname of what built it

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
    def object_attributes(self) -> dict[str, str]:
        return self._attributes()._object_attributes

    @property
    def parameter_attributes(self) -> set[str]:
        return self._attributes()._parameter_attributes

    @property
    def attribute_constructors(self) -> dict[str, str]:
        return self._attributes()._attribute_constructors

    def lineage(self) -> Iterator["ClassInfo"]:
        """This class, then its base classes of this module, in lookup order; each once, even through cycles."""
        stack, seen = [self], set()
        while stack:
            info = stack.pop()
            if id(info) in seen:
                continue
            seen.add(id(info))
            yield info
            stack.extend(reversed(info.local_bases))

    def find_method(self, name: str) -> tuple["ClassInfo", FunctionNode] | None:
        """The method ``name`` as Python's attribute lookup finds it among this module's classes."""
        return next(((info, info.methods[name]) for info in self.lineage() if name in info.methods), None)

    def attribute_constructor(self, attribute: str) -> str | None:
        """The qualified name of what ``self.<attribute> = X(...)`` built, here or in a local base class."""
        return next((info.attribute_constructors[attribute] for info in self.lineage()
                     if attribute in info.attribute_constructors), None)

    def has_attribute(self, kind: str, attribute: str) -> bool:
        return any(attribute in getattr(info, kind) for info in self.lineage())


@dataclass
class PlainContainer:
    """A Python list/tuple/dict that ends up on a Cell, and the statements that put elements in it."""

    owner: ClassInfo
    target: str  # "self.blocks" or a local name
    element_sites: list[tuple[ast.AST, str]] = field(default_factory=list)  # (statement, "cell" | "parameter")
    stored_on_self: bool = False
    wrapped: bool = False
    is_dict: bool = False
    created_by: ast.Assign | None = None  # the assignment that built the container
    stored_by: ast.Assign | None = None  # the assignment that put it on self


class GraphFunction:
    """A function MindSpore compiles, with its tensor-value environment."""

    def __init__(self, module: "ModuleFacts", node: FunctionNode, owner: ClassInfo | None, reason: str,
                 strict: bool):
        self.module = module
        self.node = node
        self.owner = owner
        self.reason = reason
        self.strict = strict
        self.parameter_kinds: dict[str, str | None] = {}
        self.objects: dict[str, str] = {}  # local name -> user class name, for MS103
        self.env: dict[str, str | None] = {}
        self.nodes: list[ast.AST] = module.index.body(node)  # shared: never modified
        self._returned_data: set[int] | None = None

    def nodes_of(self, *node_types: type) -> list[ast.AST]:
        """The nodes of this function of these types (exactly: parsed trees hold no subclasses), in source order;
        one list per set of types, shared by every rule that asks."""
        return self.module.index.body_nodes_of(self.node, node_types)

    @property
    def scope(self) -> str:
        return self.owner.name if self.owner else self.node.name

    @property
    def label(self) -> str:
        return f"{self.owner.name}.{self.node.name}" if self.owner else self.node.name

    @property
    def self_name(self) -> str | None:
        args = self.node.args.posonlyargs + self.node.args.args
        if self.owner is not None and args and not _is_static(self.node):
            return args[0].arg
        return None

    def compute_environment(self) -> None:
        env: dict[str, str | None] = dict(self.parameter_kinds)
        assignments = self.nodes_of(ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.comprehension,
                                    ast.NamedExpr, ast.withitem)
        # Flow-insensitive: a name is tensor data if any assignment makes it so; two rounds settle loops.
        for _ in range(2):
            self.env = env
            for stmt in assignments:
                if isinstance(stmt, ast.Assign):
                    kind = self.kind(stmt.value)
                    for target in stmt.targets:
                        self._bind(env, target, kind, stmt.value)
                elif isinstance(stmt, ast.AugAssign):
                    self._bind(env, stmt.target, join(self.kind(stmt.target), self.kind(stmt.value)), stmt.value)
                elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                    self._bind(env, stmt.target, self.kind(stmt.value), stmt.value)
                elif isinstance(stmt, (ast.For, ast.comprehension)):
                    self._bind_loop(env, stmt.target, stmt.iter)
                elif isinstance(stmt, ast.NamedExpr):
                    self._bind(env, stmt.target, self.kind(stmt.value), stmt.value)
                elif isinstance(stmt, ast.withitem) and stmt.optional_vars is not None:
                    self._bind(env, stmt.optional_vars, self.kind(stmt.context_expr), stmt.context_expr)
        self.env = env

    def _bind(self, env: dict, target: ast.AST, kind: str | None, value: ast.AST | None) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = join(env.get(target.id), kind)
            user_class = self.module.user_class_name(self.module.qualname(value.func)) if isinstance(
                value, ast.Call) else None
            if user_class:
                self.objects[target.id] = user_class
        elif isinstance(target, (ast.Tuple, ast.List)):
            values = value.elts if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(
                target.elts) else None
            returned = self._returned_elements(value) if values is None else None
            for index, element in enumerate(target.elts):
                if values is not None:
                    self._bind(env, element, self.kind(values[index]), values[index])
                elif returned is not None and len(returned) == len(target.elts):
                    self._bind_structured(env, element, returned[index])
                else:
                    self._bind(env, element, kind, None)
        elif isinstance(target, ast.Starred):
            self._bind(env, target.value, kind, None)

    def _bind_structured(self, env: dict, target: ast.AST, kinds) -> None:
        if isinstance(kinds, list) and isinstance(target, (ast.Tuple, ast.List)) and len(kinds) == len(target.elts):
            for element, element_kinds in zip(target.elts, kinds):
                self._bind_structured(env, element, element_kinds)
        else:
            self._bind(env, target, join(*_flatten(kinds)), None)

    def _returned_elements(self, value: ast.AST | None) -> list | None:
        """Per-element kinds of the tuple a called helper or sub-cell returns (``x, (h, w) = self.embed(x)``)."""
        if not isinstance(value, ast.Call) or self.owner is None:
            return None
        func = value.func
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                and func.value.id == self.self_name):
            return None
        found = self.owner.find_method(func.attr)
        if found is None:
            sub_cell = self.module._local_sub_cell(self.owner, func.attr)
            if sub_cell is None or "construct" not in sub_cell.methods:
                return None
            found = (sub_cell, sub_cell.methods["construct"])
        kinds = _argument_kinds(self, value, found[1], bound=not _is_static(found[1]))
        structured = self.module.returned_structure(found[1], found[0], kinds)
        return structured if isinstance(structured, list) else None

    def structure(self, expr: ast.AST):
        """Like ``kind``, but a tuple literal keeps one entry per element."""
        if isinstance(expr, ast.Tuple) and not any(isinstance(e, ast.Starred) for e in expr.elts):
            return [self.structure(e) for e in expr.elts]
        return self.kind(expr)

    def _bind_loop(self, env: dict, target: ast.AST, iterable: ast.AST) -> None:
        if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name):
            if iterable.func.id == "range":
                self._bind(env, target, None, None)
                return
            if iterable.func.id == "enumerate" and iterable.args and isinstance(target, ast.Tuple) and len(
                    target.elts) == 2:
                self._bind(env, target.elts[0], None, None)
                self._bind(env, target.elts[1], self.kind(iterable.args[0]), None)
                return
        self._bind(env, target, self.kind(iterable), None)

    def reaches_return(self, expr: ast.AST) -> bool:
        """Whether the value of ``expr`` (a node of this function) is part of what the function returns."""
        return id(expr) in self.returned_data()

    def returned_data(self) -> set[int]:
        """Ids of the expressions whose values are part of what this function returns, following assignments
        backwards (flow-insensitive, like the environment). In ``h = x.asnumpy(); return Tensor(h * 2)`` the
        ``x.asnumpy()`` call is; in ``print(x.asnumpy())``, ``if x.asnumpy().any():`` or ``y[int(n.asnumpy())]``
        it is not (a condition, an index or a count does not carry a value into the result)."""
        if self._returned_data is not None:
            return self._returned_data
        nested = {id(inner) for node in self.nodes_of(ast.FunctionDef, ast.AsyncFunctionDef)
                  for inner in self.module.index.subtree(node)[1:]}
        flows: dict[str, list[ast.AST]] = {}
        for node in self.nodes:
            for name, value in _value_flows(node):
                flows.setdefault(name, []).append(value)
        pending = [n.value for n in self.nodes_of(ast.Return) if n.value is not None
                   and id(n) not in nested]
        found: set[int] = set()
        names: set[str] = set()
        while pending:
            for part in self._data_parts(pending.pop()):
                found.add(id(part))
                if isinstance(part, ast.Name) and part.id not in names:
                    names.add(part.id)
                    pending.extend(flows.get(part.id, ()))
        self._returned_data = found
        return found

    def _data_parts(self, expr: ast.AST) -> Iterator[ast.AST]:
        """``expr`` and the sub-expressions whose values are part of its value: operands, elements, call arguments,
        the receiver of a method; not subscripts, conditions, comparisons, shapes, nor counts and indices computed
        from data (``len``, ``int``, ``argmax``, ``.astype(np.int32)``)."""
        stack = [expr]
        while stack:
            node = stack.pop()
            yield node
            if isinstance(node, ast.Attribute):
                if node.attr not in api.STATIC_TENSOR_ATTRIBUTES:
                    stack.append(node.value)
            elif isinstance(node, ast.Call):
                if not self._gives_index(node):
                    stack.extend(node.args)
                    stack.extend(k.value for k in node.keywords)
                    if isinstance(node.func, ast.Attribute):
                        stack.append(node.func.value)
            elif isinstance(node, ast.BinOp):
                stack.extend((node.left, node.right))
            elif isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.Not):
                stack.append(node.operand)
            elif isinstance(node, ast.BoolOp):
                stack.extend(node.values)
            elif isinstance(node, ast.IfExp):
                stack.extend((node.body, node.orelse))
            elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
                stack.extend(node.elts)
            elif isinstance(node, ast.Dict):
                stack.extend(node.values)
            elif isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
                stack.append(node.elt)
            elif isinstance(node, ast.DictComp):
                stack.append(node.value)
            elif isinstance(node, (ast.Subscript, ast.Starred, ast.NamedExpr, ast.Await)):
                stack.append(node.value)

    def _gives_index(self, call: ast.Call) -> bool:
        """A call whose result is a count, an index, a flag or a shape rather than data values."""
        func = call.func
        if isinstance(func, ast.Attribute):
            if func.attr in api.STATIC_TENSOR_METHODS or func.attr in _INDEX_FUNCTIONS:
                return True
            if func.attr == "astype" and call.args and any(
                    word in ast.unparse(call.args[0]) for word in ("int", "bool")):
                return True
        qualname = self.module.qualname(func)
        name = api.last_name(qualname) if qualname else None
        if qualname and qualname.startswith("builtins.") and name in _INDEX_BUILTINS:
            return True
        if name == "where" and len(call.args) == 1:
            return True
        return name in _INDEX_FUNCTIONS

    def host_conversions(self) -> list[ast.Call]:
        """Calls that copy tensor data to the host: ``x.asnumpy()``, ``.tolist()``, ``.numpy()``."""
        return [
            node for node in self.nodes_of(ast.Call)
            if isinstance(node.func, ast.Attribute)
            and node.func.attr in api.HOST_CONVERSION_METHODS and self.kind(node.func.value) == TENSOR
        ]

    def is_tensor(self, expr: ast.AST) -> bool:
        return self.kind(expr) == TENSOR

    def kind(self, expr: ast.AST | None) -> str | None:
        """TENSOR for tensor data, HOST for a host array, None for a compile-time constant or unknown value."""
        if expr is None or isinstance(expr, (ast.Constant, ast.JoinedStr, ast.Lambda)):
            return None
        if isinstance(expr, ast.Name):
            return self.env.get(expr.id)
        if isinstance(expr, ast.Attribute):
            return self._attribute_kind(expr)
        if isinstance(expr, ast.Subscript):
            return self.kind(expr.value)
        if isinstance(expr, ast.BinOp):
            return join(self.kind(expr.left), self.kind(expr.right))
        if isinstance(expr, ast.UnaryOp):
            return self.kind(expr.operand)
        if isinstance(expr, ast.BoolOp):
            return join(*(self.kind(v) for v in expr.values))
        if isinstance(expr, ast.Compare):
            return join(self.kind(expr.left), *(self.kind(c) for c in expr.comparators))
        if isinstance(expr, ast.IfExp):
            return join(self.kind(expr.body), self.kind(expr.orelse))
        if isinstance(expr, (ast.Tuple, ast.List, ast.Set)):
            return join(*(self.kind(e) for e in expr.elts))
        if isinstance(expr, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
            return self.kind(expr.elt)
        if isinstance(expr, ast.DictComp):
            return self.kind(expr.value)
        if isinstance(expr, ast.Dict):
            return join(*(self.kind(v) for v in expr.values))
        if isinstance(expr, (ast.Starred, ast.NamedExpr, ast.Await)):
            return self.kind(expr.value)
        if isinstance(expr, ast.Call):
            return self._call_kind(expr)
        return None

    def _attribute_kind(self, expr: ast.Attribute) -> str | None:
        if expr.attr in api.STATIC_TENSOR_ATTRIBUTES:
            return None
        value = expr.value
        if isinstance(value, ast.Name) and value.id == self.self_name and self.owner is not None:
            return TENSOR if self.owner.has_attribute("tensor_attributes", expr.attr) else None
        if (
            isinstance(value, ast.Attribute)
            and isinstance(value.value, ast.Name)
            and value.value.id == self.self_name
            and self.owner is not None
            and self.owner.has_attribute("cell_attributes", value.attr)
        ):
            return TENSOR if expr.attr in api.LAYER_PARAMETER_NAMES else None
        if isinstance(value, (ast.Name, ast.Attribute)) and self.module.qualname(value):
            return None  # a module attribute such as ms.float32
        return self.kind(value)

    def _call_kind(self, call: ast.Call) -> str | None:
        argument_kinds = [self.kind(a) for a in call.args] + [self.kind(k.value) for k in call.keywords]
        func = call.func
        if isinstance(func, ast.Attribute):
            receiver_kind = self.kind(func.value)
            if receiver_kind in (TENSOR, HOST):
                if func.attr in api.STATIC_TENSOR_METHODS:
                    return None
                if func.attr in api.HOST_CONVERSION_METHODS:
                    return HOST
                return receiver_kind
            if isinstance(func.value, ast.Name) and func.value.id == self.self_name and self.owner is not None:
                found = self.owner.find_method(func.attr)
                if found is None:
                    return TENSOR  # a sub-cell or primitive held on self: its call builds tensors
                kinds = _argument_kinds(self, call, found[1], bound=not _is_static(found[1]))
                return self.module.return_kind(found[1], found[0], kinds, join(*argument_kinds))
        if isinstance(func, ast.Name) and func.id in self.module.functions and func.id not in self.env:
            target = self.module.functions[func.id]
            kinds = _argument_kinds(self, call, target, bound=False)
            return self.module.return_kind(target, None, kinds, join(*argument_kinds))
        qualname = self.module.qualname(func)
        if qualname is None:
            if isinstance(func, ast.Call):  # P.Add()(x, y)
                return join(*argument_kinds) or (TENSOR if api.is_mindspore(self.module.qualname(func.func)) else None)
            return join(*argument_kinds)
        if qualname.startswith("builtins."):
            name = qualname[len("builtins."):]
            if name in _KIND_PASSING_BUILTINS:
                return join(*argument_kinds)
            if name in _BUILTIN_STATIC_CALLS:
                return None
            return join(*argument_kinds)
        if api.is_mindspore(qualname):
            if qualname in api.STATIC_MINDSPORE_FUNCTIONS:
                return None
            if api.is_mindspore_name(qualname, "Tensor", "Parameter", "tensor", "initializer"):
                return TENSOR
            if api.last_name(qualname)[:1].isupper():
                return None  # a Cell, primitive or dtype object, not data
            return TENSOR
        if api.is_host_library(qualname):
            if api.last_name(qualname) in api.ARRAY_CONSTRUCTORS or HOST in argument_kinds or TENSOR in argument_kinds:
                return HOST
            return None
        local_class = self.module.classes.get(qualname.rsplit(".", 1)[-1]) if qualname.startswith(
            self.module.local_prefix) else None
        if local_class is not None and local_class.is_cell:
            return None  # constructing a Cell gives a Cell, not data
        return join(*argument_kinds)


class EagerFunction(GraphFunction):
    """A function PyNative runs eagerly for a Cell: a ``construct`` that is not graph code, or a function of this
    module it calls, with the same tensor-value environment as graph code. ``output_of``: the Cells whose output
    this function's return value is part of (their ``construct``, or a helper whose result they return)."""

    def __init__(self, module: "ModuleFacts", node: FunctionNode, owner: ClassInfo | None, reason: str):
        super().__init__(module, node, owner, reason, strict=False)
        self.output_of: list[ClassInfo] = []


# What a constructor call builds: (qualified name, what is known of the class, the module's facts when the class is
# one of the module's own).
BuiltClass = tuple[str, ClassInfo | ProjectClass | None, "ModuleFacts | None"]


@dataclass
class CallSite:
    node: ast.Call
    qualname: str | None
    function: FunctionNode | None  # the innermost function around the call, None at module or class level
    owner: ClassInfo | None  # the innermost class around the call


class ModuleFacts:
    """Everything the rules ask about one module. Build once per file; every rule reads it."""

    def __init__(self, tree: ast.Module, path: str, settings: Settings, source: str = "", graph_code: bool = True):
        self.tree = tree
        self.path = path
        self.settings = settings
        self.source = source
        self.module_name, self.package = _module_name_of(path)
        self.local_prefix = (self.module_name or "<module>") + "."
        self.names: dict[str, str] = {}
        self.classes: dict[str, ClassInfo] = {}
        self.functions: dict[str, FunctionNode] = {}
        self.module_assignments: dict[str, ast.AST] = {}
        self.calls: list[CallSite] = []
        self.class_of_function: dict[int, ClassInfo] = {}
        self._enclosing: list[tuple[ast.AST, ClassInfo | None]] = []
        self._scope_by_line: list[str] | None = None
        self._assignment_of_value: dict[int, ast.Assign] = {}
        self.index = NodeIndex(tree)
        # qualified name -> what class_of_constructor says; asked for every call, answered once per name
        self._classes_named: dict[str, BuiltClass | None] = {}
        self._sub_cells: set[str] | None = None
        self._index()
        self._resolve_classes()
        self.mode = self._mode()
        self.graph_functions: list[GraphFunction] = []
        self._graph_by_node: dict[int, GraphFunction] = {}
        self._plain_containers: list[PlainContainer] | None = None
        self._return_kinds: dict[tuple, str | None] = {}
        self._returns_in_progress: set[int] = set()
        self._eager_functions: list[EagerFunction] | None = None
        if graph_code:
            self._find_graph_code()

    def release(self) -> None:
        """Untie the cycles between these facts and their graph functions once the rules are done, so that the
        memory returns when the last reference goes instead of lingering for the garbage collector (which a
        flake8 run would then keep rescanning, file after file)."""
        self.graph_functions = []
        self._graph_by_node = {}
        self._eager_functions = None
        self._classes_named = {}

    # -- names -------------------------------------------------------------------------------------------

    def qualname(self, expr: ast.AST | None) -> str | None:
        """The qualified name ``expr`` (a Name or dotted Attribute) is bound to, or None."""
        parts = []
        while isinstance(expr, ast.Attribute):
            parts.append(expr.attr)
            expr = expr.value
        if not isinstance(expr, ast.Name):
            return None
        head = self._resolve_name(expr.id)
        if head is None:
            return None
        return ".".join([head, *reversed(parts)])

    def _resolve_name(self, name: str, _depth: int = 0) -> str | None:
        if name in self.names:
            return self.names[name]
        if name in self.classes or name in self.functions:
            return self.local_prefix + name
        alias = self.module_assignments.get(name)
        if alias is not None and _depth < 8 and isinstance(alias, (ast.Name, ast.Attribute)):
            parts = []
            while isinstance(alias, ast.Attribute):
                parts.append(alias.attr)
                alias = alias.value
            head = self._resolve_name(alias.id, _depth + 1) if isinstance(alias, ast.Name) else None
            return ".".join([head, *reversed(parts)]) if head else None
        if name in self.module_assignments:
            return self.local_prefix + name
        if name in _BUILTINS:
            return "builtins." + name
        return None

    def _bind_import(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    self.names[alias.asname] = alias.name
                else:
                    top = alias.name.split(".", 1)[0]
                    self.names[top] = top
            return
        base = _absolute_module(node.module, node.level, self.package)
        for alias in node.names:
            if alias.name == "*":
                continue
            self.names[alias.asname or alias.name] = f"{base}.{alias.name}" if base else alias.name

    # -- indexing: one walk over the module ---------------------------------------------------------------

    def _index(self) -> None:
        nodes = self.index.nodes
        # (position where it ends, innermost function, innermost class) of the definitions around a position
        contexts: list[tuple[int, FunctionNode | None, ClassInfo | None]] = [(len(nodes), None, None)]
        class_body: tuple[int, int, ClassInfo] | None = None  # a class whose header is being read
        indexed = _INDEXED_NODE_TYPES
        for position in [position for position, node in enumerate(nodes) if node.__class__ in indexed]:
            node = nodes[position]
            if class_body is not None and position >= class_body[0]:
                # A class's bases and decorators belong to the code around it; its body to the class.
                contexts.append((class_body[1], None, class_body[2]))
                class_body = None
            while position >= contexts[-1][0]:
                contexts.pop()
            _, function, owner = contexts[-1]
            node_type = node.__class__
            if node_type is ast.Call:
                self.calls.append(CallSite(node, None, function, owner))
            elif node_type is ast.Assign:
                self._assignment_of_value[id(node.value)] = node
                if function is None and owner is None:
                    for target in node.targets:
                        if isinstance(target, ast.Name):
                            self.module_assignments.setdefault(target.id, node.value)
            elif node_type is ast.Import or node_type is ast.ImportFrom:
                self._bind_import(node)
            elif node_type is ast.ClassDef:
                info = ClassInfo(node.name, node, self)
                self.classes.setdefault(node.name, info)
                self._enclosing.append((node, info))
                class_body = (*self.index.body_span(node), info)
            elif node_type is ast.FunctionDef or node_type is ast.AsyncFunctionDef:
                if owner is not None and function is None:
                    owner.methods.setdefault(node.name, node)
                    self.class_of_function[id(node)] = owner
                elif owner is None and function is None:
                    self.functions.setdefault(node.name, node)
                self._enclosing.append((node, owner))
                contexts.append((self.index.body_span(node)[1], node, owner))
        for site in self.calls:
            site.qualname = self.qualname(site.node.func)

    def local_name_for(self, qualname: str) -> str | None:
        """A name this module already binds to ``qualname`` (``nn`` for ``mindspore.nn``), if any."""
        for name, bound in self.names.items():
            if bound == qualname:
                return name
        return None

    def assignment_of(self, value: ast.AST) -> ast.Assign | None:
        """The assignment statement whose right-hand side is ``value``."""
        return self._assignment_of_value.get(id(value))

    def calls_to(self, *names: str, mindspore_only: bool = True) -> Iterator[CallSite]:
        """Calls whose callee's own name is one of ``names`` (inside MindSpore, unless told otherwise)."""
        for site in self.calls:
            if site.qualname and api.last_name(site.qualname) in names and (
                    not mindspore_only or api.is_mindspore(site.qualname)):
                yield site

    # -- classes ------------------------------------------------------------------------------------------

    def _resolve_classes(self) -> None:
        for info in self.classes.values():
            for base in info.node.bases:
                name = self.qualname(base)
                if name and name.startswith(self.local_prefix) and name[len(self.local_prefix):] in self.classes:
                    info.local_bases.append(self.classes[name[len(self.local_prefix):]])
            info.is_jit_class = any(
                api.is_mindspore_name(self.qualname(_decorator_callee(d)), "jit_class")
                for d in info.node.decorator_list
            )
        for info in self.classes.values():
            info.is_cell = self._class_is_cell(info, frozenset())

    def _class_is_cell(self, info: ClassInfo, seen: frozenset) -> bool:
        if info.name in seen:
            return False
        for base in info.node.bases:
            name = self.qualname(base)
            if name is None:
                continue
            if api.is_mindspore_cell_class(name):
                return True
            if name.startswith(self.local_prefix):
                local = self.classes.get(name[len(self.local_prefix):])
                if local is not None and self._class_is_cell(local, seen | {info.name}):
                    return True
            elif self._project_class_is_cell(name):
                return True
        return False

    def _project_class_is_cell(self, qualname: str) -> bool:
        if api.is_mindspore(qualname) or qualname.startswith("builtins."):
            return False
        from ms_lint.project import project_class

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
        from ms_lint.project import project_class

        return (qualname, project_class(self.path, qualname, self.settings), None)

    def builds_cell(self, expr: ast.AST | None) -> bool:
        """``expr`` constructs a Cell (a ``mindspore.nn`` class or a Cell class of the project)."""
        built = self.class_of_constructor(expr)
        if built is None:
            return False
        qualname, info, _ = built
        return api.is_mindspore_cell_class(qualname) or bool(info and info.is_cell)

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
                return any(module_owns for module_owns in self._wrapped_cells_own(call, _seen))
            return bool(entry["parameters"])
        if info is None or not info.is_cell or info.name in _seen:
            return None
        if module is None:  # a class of another module of the project
            from ms_lint.project import project_class_facts

            found = project_class_facts(self.path, qualname, self.settings)
            if not found:
                return None
            module, info = found[0], found[0].classes[found[1]]
        return module._class_owns_parameters(info, _seen | {info.name})

    def _wrapped_cells_own(self, call: ast.Call, seen: frozenset) -> Iterator[bool]:
        for argument in [*call.args, *(k.value for k in call.keywords)]:
            for element in ast.walk(argument):
                if isinstance(element, ast.Call) and self.builds_cell(element):
                    yield bool(self.owns_parameters(element, seen))

    def _class_owns_parameters(self, info: ClassInfo, seen: frozenset) -> bool:
        for node in (node for method in info.methods.values() for node in self.index.subtree(method)):
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

    def _collect_attributes(self, info: ClassInfo) -> None:
        for method in info.methods.values():
            self_name = _first_argument(method)
            if self_name is None:
                continue
            for node in self.index.subtree(method):
                if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
                    continue
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                            and target.value.id == self_name):
                        continue
                    self._classify_attribute(info, target.attr, node.value)

    def _classify_attribute(self, info: ClassInfo, attribute: str, value: ast.AST) -> None:
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
            user_class = self.user_class_name(qualname)
            if user_class:
                info.object_attributes[attribute] = user_class

    # -- user-defined types (MS103) -----------------------------------------------------------------------

    def user_class_name(self, qualname: str | None) -> str | None:
        """The name of a plain user class of this module (not a Cell, not ``@jit_class``, not an Enum)."""
        if not qualname or not qualname.startswith(self.local_prefix):
            return None
        name = qualname[len(self.local_prefix):]
        info = self.classes.get(name)
        if info is not None:
            if info.is_cell or info.is_jit_class or self._is_enum(info) or self._is_exception(info):
                return None
            return name
        value = self.module_assignments.get(name)
        namedtuple_factories = ("collections.namedtuple", "typing.NamedTuple")
        if isinstance(value, ast.Call) and self.qualname(value.func) in namedtuple_factories:
            return name
        return None

    def _is_enum(self, info: ClassInfo) -> bool:
        return any((self.qualname(b) or "").startswith("enum.") for b in info.node.bases)

    def _is_exception(self, info: ClassInfo) -> bool:
        return any((self.qualname(b) or "").endswith(("Exception", "Error", "Warning")) for b in info.node.bases)

    def mutating_methods(self, class_name: str) -> set[str]:
        """Methods of user class ``class_name`` that assign to an attribute of the instance."""
        info = self.classes.get(class_name)
        result = set()
        if info is None:
            return result
        for name, method in info.methods.items():
            self_name = _first_argument(method)
            if name == "__init__" or self_name is None or _is_static(method):
                continue
            for node in self.index.subtree(method):
                targets = []
                if isinstance(node, ast.Assign):
                    targets = node.targets
                elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                    targets = [node.target]
                if any(_is_attribute_of(t, self_name) for t in targets):
                    result.add(name)
                    break
        return result

    # -- mode and graph code ------------------------------------------------------------------------------

    def _mode(self) -> str:
        """``pynative`` when the module selects PYNATIVE_MODE and never GRAPH_MODE; ``graph`` when it selects
        GRAPH_MODE; otherwise what the settings say."""
        graph = pynative = False
        for site in self.calls_to("set_context"):
            for keyword in site.node.keywords:
                if keyword.arg != "mode":
                    continue
                for node in ast.walk(keyword.value):
                    name = self.qualname(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
                    if (name and name.endswith("GRAPH_MODE")) or (isinstance(node, ast.Constant) and node.value == 0):
                        graph = True
                    if (name and name.endswith("PYNATIVE_MODE")) or (
                            isinstance(node, ast.Constant) and node.value == 1):
                        pynative = True
        if graph:
            return "graph"
        if pynative:
            return "pynative"
        return self.settings.mode

    def _runs_at_compile_time(self, function: FunctionNode) -> bool:
        """``@constexpr``/``@_primexpr`` functions run in Python while the graph compiles, on constants."""
        return any(api.is_mindspore_name(self.qualname(_decorator_callee(d)), "constexpr", "_primexpr", "primexpr")
                   for d in function.decorator_list)

    def _jit_decorator(self, function: FunctionNode) -> ast.AST | None:
        for decorator in function.decorator_list:
            if api.is_mindspore_name(self.qualname(_decorator_callee(decorator)), *_JIT_NAMES):
                return decorator
        return None

    def _is_strict(self, jit_decorator: ast.AST | None) -> bool:
        if isinstance(jit_decorator, ast.Call):
            for keyword in jit_decorator.keywords:
                if keyword.arg == "fullgraph" and isinstance(keyword.value, ast.Constant):
                    if keyword.value.value is True:
                        return True
        return self.settings.syntax_level == "strict"

    def _find_graph_code(self) -> None:
        queue: list[GraphFunction] = []
        strict = self.settings.syntax_level == "strict"

        def add(node: FunctionNode, owner: ClassInfo | None, reason: str, is_strict: bool,
                kinds: dict[str, str | None] | None) -> None:
            existing = self._graph_by_node.get(id(node))
            if existing is None:
                existing = GraphFunction(self, node, owner, reason, is_strict)
                existing.parameter_kinds = _root_parameter_kinds(node, owner) if kinds is None else dict(kinds)
                self._graph_by_node[id(node)] = existing
                self.graph_functions.append(existing)
                queue.append(existing)
                return
            changed = is_strict and not existing.strict
            existing.strict = existing.strict or is_strict
            for name, kind in (kinds or {}).items():
                merged = join(existing.parameter_kinds.get(name), kind)
                if merged != existing.parameter_kinds.get(name):
                    existing.parameter_kinds[name] = merged
                    changed = True
            if changed and existing not in queue:
                queue.append(existing)

        sub_cells = self._sub_cell_classes()
        for info in self.classes.values():
            if info.is_cell and self.mode == "graph":
                for name in ("construct", "bprop"):
                    if name in info.methods:
                        # A Cell used only as a sub-cell here gets its input kinds from the calls (`self.pos(B, H, W)`
                        # with ints from a shape), like any helper.
                        kinds = {} if name == "construct" and info.name in sub_cells else None
                        add(info.methods[name], info, f"{name} of Cell {info.name}", strict, kinds)
            if info.is_jit_class and self.mode == "graph":
                # Construction runs in Python unless the object is built inside graph code, where the methods
                # called are followed like any helper.
                for name, method in info.methods.items():
                    if name not in ("__init__", "__new__"):
                        add(method, info, f"method of @jit_class {info.name}", strict, None)
        for node, _ in self._enclosing:
            if not isinstance(node, ast.ClassDef):
                decorator = self._jit_decorator(node)
                if decorator is not None:
                    add(node, self.class_of_function.get(id(node)), "decorated with @jit", self._is_strict(decorator),
                        None)
        for site in self.calls_to(*_JIT_NAMES):
            if site.node.args and isinstance(site.node.args[0], ast.Name):
                target = self.functions.get(site.node.args[0].id)
                if target is not None:
                    add(target, None, "wrapped with jit(...)", self._is_strict(site.node), None)

        while queue:
            graph_function = queue.pop(0)
            graph_function.compute_environment()
            for callee, owner, kinds in self._callees(graph_function):
                add(callee, owner, f"called from {graph_function.label}", graph_function.strict, kinds)

    def _callees(self, caller: GraphFunction) -> Iterator[tuple[FunctionNode, ClassInfo | None, dict]]:
        """Functions of this module that ``caller`` calls, with the kinds of the arguments it passes."""
        for _, target, owner, kinds in self.calls_from(caller):
            yield target, owner, kinds

    def calls_from(self, caller: GraphFunction) -> Iterator[tuple[ast.Call, FunctionNode, ClassInfo | None, dict]]:
        """Each call in ``caller`` to a function of this module: (the call, the function, its class, the kinds of
        the arguments the call passes)."""
        for node in caller.nodes_of(ast.Call):
            func = node.func
            target: FunctionNode | None = None
            owner: ClassInfo | None = None
            bound = False
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                if func.value.id == caller.self_name and caller.owner is not None:
                    found = caller.owner.find_method(func.attr)
                    if found is not None and func.attr not in ("construct", "bprop", "__init__"):
                        owner, target = found
                        bound = not _is_static(target)
                    elif found is None:
                        sub_cell = self._local_sub_cell(caller.owner, func.attr)
                        if sub_cell is None or "construct" not in sub_cell.methods:
                            continue
                        owner, target, bound = sub_cell, sub_cell.methods["construct"], True
                elif func.value.id in self.classes:
                    found = self.classes[func.value.id].find_method(func.attr)
                    if found is not None:
                        owner, target = found
            elif isinstance(func, ast.Name):
                if func.id in self.functions and func.id not in caller.env:
                    target = self.functions[func.id]
                elif self.mode == "pynative" or caller.owner is None:
                    for target, owner, kinds in self._called_through_global(func.id):
                        yield node, target, owner, kinds
                    continue
            if target is None or target is caller.node or self._runs_at_compile_time(target):
                continue
            yield node, target, owner, _argument_kinds(caller, node, target, bound)

    def _sub_cell_classes(self) -> set[str]:
        """Local Cell classes built only as ``self.attr = Cls(...)`` and called as ``self.attr(...)`` here."""
        if self._sub_cells is None:
            self._sub_cells = self._find_sub_cell_classes()
        return self._sub_cells

    def _find_sub_cell_classes(self) -> set[str]:
        attributes: dict[str, set[str]] = {}
        excluded: set[str] = set()
        for site in self.calls:
            if not (site.qualname and site.qualname.startswith(self.local_prefix)):
                continue  # only this module's classes can be its sub-cells
            built = self.class_of_constructor(site.node)
            if not built or built[2] is not self or built[1] is None or not built[1].is_cell:
                continue
            assignment = self.assignment_of(site.node)
            target = assignment.targets[0] if assignment is not None and len(assignment.targets) == 1 else None
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                attributes.setdefault(built[1].name, set()).add(target.attr)
            else:
                excluded.add(built[1].name)
        called = {
            site.node.func.attr for site in self.calls
            if isinstance(site.node.func, ast.Attribute) and isinstance(site.node.func.value, ast.Name)
        }
        return {name for name, attrs in attributes.items() if name not in excluded and attrs <= called}

    def _local_sub_cell(self, owner: ClassInfo, attribute: str) -> ClassInfo | None:
        qualname = next((info.cell_attributes[attribute] for info in owner.lineage()
                         if info.cell_attributes.get(attribute)), None)
        if qualname and qualname.startswith(self.local_prefix):
            return self.classes.get(qualname[len(self.local_prefix):])
        return None

    def _called_through_global(self, name: str) -> Iterator[tuple[FunctionNode, ClassInfo | None, dict]]:
        """A module-level Cell instance (``net = Net()``) or gradient function (``grad_fn = value_and_grad(f)``)
        called from graph code: what it runs is compiled too."""
        value = self.module_assignments.get(name)
        if not isinstance(value, ast.Call):
            return
        built = self.class_of_constructor(value)
        if built and built[1] is not None and built[1].is_cell and built[2] is self:
            method = built[1].find_method("construct")
            if method is not None:
                yield method[1], method[0], _root_parameter_kinds(method[1], method[0])
            return
        if api.is_mindspore_name(self.qualname(value.func), *_GRAD_NAMES) and value.args:
            first = value.args[0]
            if isinstance(first, ast.Name) and first.id in self.functions:
                function = self.functions[first.id]
                yield function, None, _root_parameter_kinds(function, None)
            elif isinstance(first, ast.Name):
                yield from self._called_through_global(first.id)

    def return_kind(self, function: FunctionNode, owner: ClassInfo | None, kinds: dict[str, str | None],
                    fallback: str | None) -> str | None:
        """The kind of what ``function`` returns when called with arguments of ``kinds`` (a helper returning
        ``x.shape`` gives a constant even from a tensor argument)."""
        structured = self.returned_structure(function, owner, kinds, fallback)
        return join(*_flatten(structured))

    def returned_structure(self, function: FunctionNode, owner: ClassInfo | None, kinds: dict[str, str | None],
                           fallback: str | None = TENSOR):
        """What ``function`` returns for arguments of ``kinds``: a kind, or a list of them for a tuple."""
        key = (id(function), tuple(sorted(kinds.items())))
        if key in self._return_kinds:
            return self._return_kinds[key]
        if id(function) in self._returns_in_progress or len(self._returns_in_progress) > 8:
            return fallback  # recursion: do not look deeper
        self._returns_in_progress.add(id(function))
        try:
            probe = GraphFunction(self, function, owner, "", strict=False)
            probe.parameter_kinds = dict(kinds)
            probe.compute_environment()
            returned = [probe.structure(n.value) for n in probe.nodes_of(ast.Return) if n.value]
            result = _join_structures(returned)
        finally:
            self._returns_in_progress.discard(id(function))
        self._return_kinds[key] = result
        return result

    def is_graph_code(self, node: FunctionNode) -> bool:
        return id(node) in self._graph_by_node

    # -- eager code (PyNative) ----------------------------------------------------------------------------

    def eager_functions(self) -> list[EagerFunction]:
        """The functions PyNative runs eagerly inside Cells: each Cell's ``construct`` that is not graph code (every
        Cell of a PyNative module), and the functions of this module they call that are not graph code either."""
        if self._eager_functions is not None:
            return self._eager_functions
        functions: dict[int, EagerFunction] = {}
        queue: list[EagerFunction] = []

        def add(node: FunctionNode, owner: ClassInfo | None, reason: str, kinds: dict) -> EagerFunction | None:
            if self.is_graph_code(node):
                return None
            existing = functions.get(id(node))
            if existing is None:
                existing = functions[id(node)] = EagerFunction(self, node, owner, reason)
                existing.parameter_kinds = dict(kinds)
                queue.append(existing)
                return existing
            for name, kind in kinds.items():
                merged = join(existing.parameter_kinds.get(name), kind)
                if merged != existing.parameter_kinds.get(name):
                    existing.parameter_kinds[name] = merged
                    if existing not in queue:
                        queue.append(existing)
            return existing

        sub_cells = self._sub_cell_classes()
        constructs: set[int] = set()
        for info in self.classes.values():
            found = info.find_method("construct") if info.is_cell else None
            if found is None:
                continue
            owner, node = found
            kinds = {} if info.name in sub_cells else _root_parameter_kinds(node, owner)
            construct = add(node, owner, f"construct of Cell {owner.name}", kinds)
            if construct is not None:
                constructs.add(id(node))
                if not any(known is info for known in construct.output_of):
                    construct.output_of.append(info)
        while queue:
            function = queue.pop(0)
            function.compute_environment()
            for _, callee, owner, kinds in self.calls_from(function):
                add(callee, owner, f"called from {function.label}", kinds)
        # A helper's return value is part of a Cell's output when the call to it is part of the caller's return
        # value; another Cell's construct keeps its own Cell (and its own bprop).
        changed = True
        while changed:
            changed = False
            for function in functions.values():
                for call, callee, _, _ in self.calls_from(function):
                    helper = functions.get(id(callee))
                    if helper is None or id(callee) in constructs or not function.reaches_return(call):
                        continue
                    for info in function.output_of:
                        if not any(known is info for known in helper.output_of):
                            helper.output_of.append(info)
                            changed = True
        self._eager_functions = list(functions.values())
        return self._eager_functions

    # -- any function -------------------------------------------------------------------------------------

    def function_nodes(self) -> list[tuple[FunctionNode, ClassInfo | None]]:
        """Every function of the module (nested ones too), with its class when it is a method."""
        return [(node, self.class_of_function.get(id(node))) for node, _ in self._enclosing
                if not isinstance(node, ast.ClassDef)]

    def plain_function(self, node: FunctionNode, owner: ClassInfo | None,
                       parameter_kinds: dict[str, str | None] | None = None) -> GraphFunction:
        """A function read as host code, with the same tensor-value environment as graph code; its parameters are of
        unknown kind unless ``parameter_kinds`` says, so only values it builds itself (MindSpore calls,
        ``Tensor(...)``) count as tensors."""
        function = GraphFunction(self, node, owner, "", strict=False)
        function.parameter_kinds = dict(parameter_kinds or {})
        function.compute_environment()
        return function

    def inherits_method(self, info: ClassInfo, name: str, _seen: frozenset = frozenset()) -> bool:
        """Whether class ``info`` defines method ``name`` or inherits it from a class of this module or of the
        project's other modules (MindSpore's own classes are not followed)."""
        if name in info.methods:
            return True
        for base in info.node.bases:
            qualname = self.qualname(base)
            if not qualname or qualname in _seen or api.is_mindspore(qualname) or qualname.startswith("builtins."):
                continue
            if qualname.startswith(self.local_prefix):
                local = self.classes.get(qualname[len(self.local_prefix):])
                if local is not None and self.inherits_method(local, name, _seen | {qualname}):
                    return True
                continue
            from ms_lint.project import project_class_facts

            found = project_class_facts(self.path, qualname, self.settings)
            if found and found[0].inherits_method(found[0].classes[found[1]], name, _seen | {qualname}):
                return True
        return False

    def value_bound_to(self, expr: ast.AST, function: FunctionNode | None, owner: ClassInfo | None) -> ast.AST | None:
        """What the name or ``self.<attribute>`` ``expr`` holds where it is used in ``function`` (None: module-level
        code): the last assignment above it in that scope, else the module-level one; for ``self.<attribute>``, the
        first assignment in a method of ``owner`` or of its local bases."""
        if isinstance(expr, ast.Name):
            line = getattr(expr, "lineno", 0)
            bound = None
            for node in self.index.own_code(self.tree if function is None else function):
                if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None and node.lineno < line:
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    if any(isinstance(t, ast.Name) and t.id == expr.id for t in targets):
                        if bound is None or node.lineno >= bound.lineno:
                            bound = node
            if bound is not None:
                return bound.value
            if function is None or expr.id in {a.arg for a in ast.walk(function.args) if isinstance(a, ast.arg)}:
                return None
            return self.module_assignments.get(expr.id)
        if not (isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and owner is not None
                and function is not None and expr.value.id == _first_argument(function)):
            return None
        for info in owner.lineage():
            for method in sorted(info.methods.values(), key=lambda m: m.name != "__init__"):
                self_name = _first_argument(method)
                for node in self.index.subtree(method):
                    if isinstance(node, ast.Assign) and any(
                            isinstance(t, ast.Attribute) and t.attr == expr.attr and isinstance(t.value, ast.Name)
                            and t.value.id == self_name for t in node.targets):
                        return node.value
        return None

    def cell_origin(self, expr: ast.AST, function: FunctionNode | None, owner: ClassInfo | None) -> ast.AST | None:
        """The expression that built the Cell instance ``expr`` holds (``net`` after ``net = Net()``, ``self.net``
        after ``self.net = nn.Dense(2, 2)``, possibly chained: ``Net().set_train()``), or None when ``expr`` is not
        known to hold a Cell."""
        value = self.value_bound_to(expr, function, owner)
        built = value
        while isinstance(built, ast.Call) and isinstance(built.func, ast.Attribute) and (
                built.func.attr in _CELL_METHODS_RETURNING_SELF):
            built = built.func.value
        return value if built is not None and self.builds_cell(built) else None

    # -- plain containers on Cells (MS201, MS202) ---------------------------------------------------------

    def plain_containers(self) -> list[PlainContainer]:
        """Python lists/tuples/dicts of Cells or Parameters that a Cell keeps as attributes, unregistered."""
        if self._plain_containers is None:
            self._plain_containers = []
            for info in self.classes.values():
                if info.is_cell:
                    self._plain_containers.extend(_ContainerScan(self, info).run())
        return self._plain_containers

    # -- training scripts (MS401, MS402) ------------------------------------------------------------------

    def training_calls(self) -> list[CallSite]:
        """Calls that show the module trains: optimizers, Model with an optimizer, ``.train(``, TrainOneStep
        cells, and gradient functions."""
        result = []
        for site in self.calls:
            qualname = site.qualname or ""
            func = site.node.func
            entry = api.nn_cell_entry(qualname)
            if entry is not None and entry.get("optimizer"):
                result.append(site)
            elif api.is_mindspore_name(qualname, "Model") and (
                    len(site.node.args) >= 3 or any(k.arg == "optimizer" for k in site.node.keywords)):
                result.append(site)
            elif api.is_mindspore(qualname) and api.last_name(qualname).startswith("TrainOneStep"):
                result.append(site)
            elif api.is_mindspore_name(qualname, "grad", "value_and_grad", "GradOperation", "build_train_network"):
                result.append(site)
            elif isinstance(func, ast.Attribute) and func.attr == "train" and (site.node.args or site.node.keywords):
                result.append(site)
        return result

    def seeds_mindspore(self) -> bool:
        """The module calls ``mindspore.set_seed`` (any spelling), directly or through a seeding helper of the project.

        ``manual_seed`` does not seed parameter initialisation and ``mindspore.dataset.config.set_seed`` seeds only
        the data pipeline: neither counts. A helper whose source cannot be read (a third-party ``seed_everything``)
        is trusted when its name speaks of seeding.
        """
        known: dict[tuple[int, str], bool] = {}
        return any(_seeds(self, site.qualname, 0, known) for site in self.calls)

    # -- locations ----------------------------------------------------------------------------------------

    def scope_name(self, node: ast.AST) -> str:
        """The Cell class or function a finding at ``node`` belongs to (innermost class, else outermost function)."""
        if self._scope_by_line is None:
            self._scope_by_line = self._scopes_of_lines()
        line = getattr(node, "lineno", 0)
        return self._scope_by_line[line] if 0 <= line < len(self._scope_by_line) else ""

    def _scopes_of_lines(self) -> list[str]:
        # One table per module: a file with thousands of Cells and findings would otherwise scan every
        # definition for every finding.
        definitions = [definition for definition, _ in self._enclosing]
        last_line = max((d.end_lineno or d.lineno for d in definitions), default=0)
        classes: list[str | None] = [None] * (last_line + 1)
        functions: list[str | None] = [None] * (last_line + 1)
        # Later writes win: the class starting last (innermost) and the function starting first (outermost).
        for definition in sorted((d for d in definitions if isinstance(d, ast.ClassDef)), key=lambda d: d.lineno):
            for line in range(definition.lineno, (definition.end_lineno or definition.lineno) + 1):
                classes[line] = definition.name
        for definition in sorted((d for d in reversed(definitions) if not isinstance(d, ast.ClassDef)),
                                 key=lambda d: -d.lineno):
            for line in range(definition.lineno, (definition.end_lineno or definition.lineno) + 1):
                functions[line] = definition.name
        return [class_name or function_name or "" for class_name, function_name in zip(classes, functions)]


class _ContainerScan:
    """Follows plain containers through one Cell class's methods: where Cells or Parameters are put in, whether the
    container ends up on ``self``, and whether it is handed to a registering container or Cell."""

    def __init__(self, module: ModuleFacts, info: ClassInfo):
        self.module = module
        self.info = info
        self.attributes: dict[str, PlainContainer] = {}
        self.returned: dict[str, PlainContainer] = {}  # method name -> container it returns

    def run(self) -> list[PlainContainer]:
        found: list[PlainContainer] = []
        methods = sorted(self.info.methods.values(), key=lambda m: m.name == "__init__")  # helpers first
        for method in methods:
            found.extend(self._scan(method))
        unique = []
        for container in found:
            if container not in unique and container.stored_on_self and not container.wrapped and (
                    container.element_sites):
                unique.append(container)
        return unique

    def element_kind(self, expr: ast.AST | None, cell_names: set[str], self_name: str) -> str | None:
        if expr is None:
            return None
        if isinstance(expr, ast.Name) and expr.id in cell_names:
            return "cell"
        if self.module.builds_cell(expr):
            return "cell"
        if self.module.builds_parameter(expr):
            return "parameter"
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and isinstance(
                expr.func.value, ast.Name) and expr.func.value.id == self_name:
            helper = self.info.methods.get(expr.func.attr)
            if helper is not None and self._returns_cell(helper):
                return "cell"
        return None

    def _returns_cell(self, method: FunctionNode) -> bool:
        returns = [n.value for n in self.module.index.subtree(method) if isinstance(n, ast.Return)
                   and n.value is not None]
        return bool(returns) and all(self.module.builds_cell(value) for value in returns)

    def elements(self, expr: ast.AST, cell_names: set[str], self_name: str) -> tuple[list[str | None], bool] | None:
        """(element kinds, is a dict) when ``expr`` builds a plain container, else None."""
        if isinstance(expr, (ast.List, ast.Tuple)):
            return [self.element_kind(e.value if isinstance(e, ast.Starred) else e, cell_names, self_name)
                    for e in expr.elts], False
        if isinstance(expr, (ast.ListComp, ast.GeneratorExp)):
            return [self.element_kind(expr.elt, cell_names, self_name)], False
        if isinstance(expr, ast.Dict):
            return [self.element_kind(v, cell_names, self_name) for v in expr.values], True
        if isinstance(expr, ast.DictComp):
            return [self.element_kind(expr.value, cell_names, self_name)], True
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):
            return self.elements(expr.left, cell_names, self_name) or self.elements(expr.right, cell_names, self_name)
        if (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name)
                and expr.func.id in ("list", "tuple", "dict") and len(expr.args) == 1):
            inner = self.elements(expr.args[0], cell_names, self_name)
            return (inner[0], expr.func.id == "dict" or inner[1]) if inner else None
        return None

    def _scan(self, method: FunctionNode) -> list[PlainContainer]:
        self_name = _first_argument(method)
        if self_name is None:
            return []
        local: dict[str, PlainContainer] = {}
        cell_names: set[str] = set()
        found: list[PlainContainer] = []

        def target_of(expr: ast.AST) -> PlainContainer | None:
            if isinstance(expr, ast.Name):
                return local.get(expr.id)
            if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == self_name:
                return self.attributes.get(expr.attr)
            return None

        def add_site(container: PlainContainer | None, statement: ast.AST, kinds) -> None:
            if container is None:
                return
            for kind in kinds:
                if kind in ("cell", "parameter"):
                    container.element_sites.append((statement, kind))
                    return

        index = self.module.index
        method_nodes = index.subtree(method)
        registering_loops = [
            loop for loop in method_nodes if isinstance(loop, (ast.For, ast.While)) and any(
                self._registers_child(call, self_name) for call in index.subtree(loop) if isinstance(call, ast.Call))
        ]
        registered_lines = {n.lineno for loop in registering_loops for n in index.subtree(loop)
                            if hasattr(n, "lineno")}
        # Cells registered one by one in straight-line code: `self.insert_child_to_cell("0", conv)`.
        registered_names = {
            argument.id for call in method_nodes if isinstance(call, ast.Call)
            and self._registers_child(call, self_name) for argument in call.args[1:] if isinstance(argument, ast.Name)
        }

        def registered_elsewhere(value: ast.AST) -> bool:
            elements = value.elts if isinstance(value, (ast.List, ast.Tuple)) else []
            names = [e for e in elements if self.element_kind(e, cell_names, self_name) == "cell"]
            return bool(names) and all(isinstance(e, ast.Name) and e.id in registered_names for e in names)

        tracked = (ast.Assign, ast.AugAssign, ast.Call, ast.Return)
        nodes = sorted((n for n in method_nodes if isinstance(n, tracked)),
                       # A call runs before the assignment that stores its result: `self.x = nn.CellList(self.x)`.
                       key=lambda n: (n.lineno, not isinstance(n, ast.Call), n.col_offset))
        for node in nodes:
            if isinstance(node, ast.Assign):
                value = node.value
                contents = self.elements(value, cell_names, self_name)
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        if contents is not None:
                            container = PlainContainer(self.info, target.id, is_dict=contents[1], created_by=node)
                            local[target.id] = container
                            found.append(container)
                            if node.lineno not in registered_lines and not registered_elsewhere(value):
                                add_site(container, node, contents[0])
                        elif self.element_kind(value, cell_names, self_name) == "cell":
                            cell_names.add(target.id)
                    elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and (
                            target.value.id == self_name):
                        container = None
                        if contents is not None:
                            container = PlainContainer(self.info, f"self.{target.attr}", is_dict=contents[1],
                                                       created_by=node)
                            found.append(container)
                            if node.lineno not in registered_lines and not registered_elsewhere(value):
                                add_site(container, node, contents[0])
                        elif isinstance(value, ast.Name) and value.id in local:
                            container = local[value.id]
                        elif isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and isinstance(
                                value.func.value, ast.Name) and value.func.value.id == self_name:
                            container = self.returned.get(value.func.attr)
                        if container is not None:
                            container.stored_on_self = True
                            container.stored_by = container.stored_by or node
                            self.attributes[target.attr] = container
                        elif target.attr in self.attributes:
                            del self.attributes[target.attr]  # rebound to something else, e.g. nn.CellList(...)
                    elif isinstance(target, ast.Subscript):
                        add_site(target_of(target.value), node,
                                 [self.element_kind(value, cell_names, self_name)])
            elif isinstance(node, ast.AugAssign):
                contents = self.elements(node.value, cell_names, self_name)
                if contents is not None:
                    add_site(target_of(node.target), node, contents[0])
            elif isinstance(node, ast.Return) and isinstance(node.value, ast.Name) and node.value.id in local:
                self.returned[method.name] = local[node.value.id]
            elif isinstance(node, ast.Call):
                func = node.func
                if isinstance(func, ast.Attribute) and func.attr in ("append", "insert", "extend", "add",
                                                                     "setdefault", "update"):
                    container = target_of(func.value)
                    if container is not None and node.lineno not in registered_lines:
                        arguments = node.args[1:] if func.attr in ("insert", "setdefault") else node.args
                        for argument in arguments:
                            contents = self.elements(argument, cell_names, self_name)
                            kinds = contents[0] if contents is not None and func.attr in ("extend", "update") else [
                                self.element_kind(argument, cell_names, self_name)]
                            add_site(container, node, kinds)
                else:
                    arguments = [*node.args, *(k.value for k in node.keywords)]
                    handed = [target_of(a.value if isinstance(a, ast.Starred) else a) for a in arguments]
                    # Whether the callee registers what it gets is asked only when it gets a container.
                    if any(handed) and self._registers(node):
                        for container in filter(None, handed):
                            container.wrapped = True
                for loop in registering_loops:
                    iterated = ast.walk(loop.iter) if isinstance(loop, ast.For) else ()
                    for container in filter(None, map(target_of, iterated)):
                        container.wrapped = True
        return found

    def _registers(self, call: ast.Call) -> bool:
        """A call that registers the Cells or Parameters it is given: a Cell container, ParameterTuple, or any
        Cell constructor taking them."""
        qualname = self.module.qualname(call.func)
        return api.is_mindspore_name(qualname, *api.CELL_CONTAINERS, *api.PARAMETER_CONTAINERS) or (
            self.module.builds_cell(call))

    @staticmethod
    def _registers_child(call: ast.Call, self_name: str) -> bool:
        func = call.func
        if isinstance(func, ast.Name) and func.id == "setattr" and call.args and isinstance(
                call.args[0], ast.Name) and call.args[0].id == self_name:
            return True
        return isinstance(func, ast.Attribute) and func.attr in ("insert_child_to_cell", "insert_param_to_cell")


def _value_flows(node: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    """(name, expression) for each value that ``node`` puts into a local name: assignments, loop targets,
    ``with ... as``, and in-place container updates (``out.append(v)``, ``out[i] = v``)."""
    if isinstance(node, ast.Assign):
        for target in node.targets:
            yield from _target_flows(target, node.value)
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
        yield from _target_flows(node.target, node.value)
    elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
        yield from _target_flows(node.target, node.iter)
    elif isinstance(node, ast.withitem) and node.optional_vars is not None:
        yield from _target_flows(node.optional_vars, node.context_expr)
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
            node.func.attr in _MUTATING_METHODS):
        root = _subscript_root(node.func.value)
        if root is not None:
            for argument in [*node.args, *(k.value for k in node.keywords)]:
                yield root, argument


def _target_flows(target: ast.AST, value: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    if isinstance(target, ast.Name):
        yield target.id, value
    elif isinstance(target, (ast.Tuple, ast.List)):
        paired = isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts) and not any(
            isinstance(e, ast.Starred) for e in (*value.elts, *target.elts))
        for index, element in enumerate(target.elts):
            yield from _target_flows(element, value.elts[index] if paired else value)
    elif isinstance(target, ast.Starred):
        yield from _target_flows(target.value, value)
    elif isinstance(target, ast.Subscript):
        root = _subscript_root(target)
        if root is not None:
            yield root, value


def _subscript_root(expr: ast.AST) -> str | None:
    """``out`` for ``out``, ``out[i]`` and ``out[i][j]``; None for anything else (``self.cache[i]``)."""
    while isinstance(expr, ast.Subscript):
        expr = expr.value
    return expr.id if isinstance(expr, ast.Name) else None


_MAX_SEED_DEPTH = 4


def _seeds(module: ModuleFacts, qualname: str | None, depth: int, known: dict) -> bool:
    if not qualname or depth > _MAX_SEED_DEPTH:
        return False
    if api.is_mindspore(qualname):
        return api.last_name(qualname) == "set_seed" and not qualname.startswith("mindspore.dataset")
    if api.is_host_library(qualname) or qualname.startswith(("builtins.", "random.", "os.", "sys.")):
        return False
    key = (id(module), qualname)
    if key not in known:
        known[key] = False  # a helper that calls itself does not seed through the recursion
        from ms_lint.project import project_function

        found = project_function(module, qualname)
        if isinstance(found, str):  # a project module re-exporting a MindSpore function
            known[key] = _seeds(module, found, depth + 1, known)
        elif found is None:
            known[key] = "seed" in api.last_name(qualname).lower() and not qualname.startswith(module.local_prefix)
        else:
            facts, node = found
            known[key] = any(
                _seeds(facts, site.qualname, depth + 1, known) for site in facts.calls if _inside(site.node, node))
    return known[key]


def _inside(node: ast.AST, function: ast.AST) -> bool:
    return function.lineno <= node.lineno <= (function.end_lineno or function.lineno)


def _flatten(structure) -> list:
    if isinstance(structure, list):
        return [kind for element in structure for kind in _flatten(element)]
    return [structure]


def _join_structures(structures: list):
    if not structures:
        return None
    if all(isinstance(s, list) and len(s) == len(structures[0]) for s in structures):
        return [_join_structures([s[i] for s in structures]) for i in range(len(structures[0]))]
    return join(*(kind for s in structures for kind in _flatten(s)))


def _argument_kinds(caller: GraphFunction, call: ast.Call, target: FunctionNode, bound: bool) -> dict:
    parameters = [a.arg for a in target.args.posonlyargs + target.args.args]
    if bound and parameters:
        parameters = parameters[1:]
    kinds: dict[str, str | None] = {name: None for name in parameters}
    kinds.update({a.arg: None for a in target.args.kwonlyargs})
    for index, argument in enumerate(call.args):
        if isinstance(argument, ast.Starred):
            for name in parameters[index:]:
                kinds[name] = join(kinds[name], caller.kind(argument))
            if target.args.vararg:
                kinds[target.args.vararg.arg] = caller.kind(argument)
            break
        if index < len(parameters):
            kinds[parameters[index]] = caller.kind(argument)
        elif target.args.vararg:
            kinds[target.args.vararg.arg] = join(kinds.get(target.args.vararg.arg), caller.kind(argument))
    for keyword in call.keywords:
        if keyword.arg in kinds:
            kinds[keyword.arg] = caller.kind(keyword.value)
        elif keyword.arg is None or target.args.kwarg:
            for name in kinds:
                kinds[name] = join(kinds[name], caller.kind(keyword.value)) if keyword.arg is None else kinds[name]
    return kinds


def _root_parameter_kinds(node: FunctionNode, owner: ClassInfo | None) -> dict[str, str | None]:
    """The inputs of a compiled function are tensor data, except parameters defaulting to a literal (flags)."""
    args = node.args
    positional = args.posonlyargs + args.args
    if owner is not None and positional and not _is_static(node):
        positional = positional[1:]
    defaults: dict[str, ast.AST] = {}
    for argument, default in zip(reversed(args.posonlyargs + args.args), reversed(args.defaults)):
        defaults[argument.arg] = default
    for argument, default in zip(args.kwonlyargs, args.kw_defaults):
        if default is not None:
            defaults[argument.arg] = default
    kinds: dict[str, str | None] = {}
    for argument in positional + args.kwonlyargs:
        default = defaults.get(argument.arg)
        literal = isinstance(default, ast.Constant) and default.value is not None
        kinds[argument.arg] = None if literal else TENSOR
    for argument in (args.vararg, args.kwarg):
        if argument is not None:
            kinds[argument.arg] = TENSOR
    return kinds


def _first_argument(function: FunctionNode) -> str | None:
    positional = function.args.posonlyargs + function.args.args
    if not positional or _is_static(function):
        return None
    return positional[0].arg


def _is_static(function: FunctionNode) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in function.decorator_list)


def _is_attribute_of(target: ast.AST, name: str) -> bool:
    while isinstance(target, (ast.Attribute, ast.Subscript)):
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == name:
            return True
        target = target.value
    return False


def _decorator_callee(decorator: ast.AST) -> ast.AST:
    return decorator.func if isinstance(decorator, ast.Call) else decorator


def _absolute_module(module: str | None, level: int, package: str | None) -> str | None:
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


def _module_name_of(path: str) -> tuple[str | None, str | None]:
    """(module name, package name) of the file at ``path``, by walking up the ``__init__.py`` chain."""
    if not path or path in ("-", "stdin", "<stdin>"):
        return None, None
    absolute = os.path.abspath(path)
    directory, filename = os.path.split(absolute)
    stem = os.path.splitext(filename)[0]
    parts = [] if stem == "__init__" else [stem]
    package_parts = []
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        package_parts.insert(0, os.path.basename(directory))
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    package = ".".join(package_parts) or None
    module = ".".join(package_parts + parts) or None
    if stem == "__init__":
        return module, package
    return module, package


_BUILTINS = frozenset(dir(__import__("builtins")))
