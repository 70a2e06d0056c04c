"""Graph code: the functions MindSpore compiles (construct, bprop, jit, jit_class methods, and what they call),
each with its tensor-value environment; and the functions a PyNative Cell runs eagerly."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Iterator

from ms_lint import mindspore_api as api
from ms_lint.model.classes import ClassInfo, UserType
from ms_lint.model.ranks import Rank, least_rank
from ms_lint.model.syntax import (FunctionNode, decorator_callee, first_argument, is_static, parameter_defaults,
                                  parameter_names)
from ms_lint.model.scopes import ASSIGNMENT, PARAMETER
from ms_lint.model.values import (BUILTIN_STATIC_CALLS, HOST, INDEX_BUILTINS, INDEX_FUNCTIONS, KIND_PASSING_BUILTINS,
                                  TENSOR, UNKNOWN, annotated_class, annotates_python_value, constant_value,
                                  flatten, join, join_structures, literal, value_flows)

if TYPE_CHECKING:
    from ms_lint.model.module import ModuleFacts

JIT_NAMES = ("jit", "ms_function")
GRAD_NAMES = ("grad", "value_and_grad", "GradOperation", "vjp", "jvp")
_BRANCHES = (ast.If, ast.IfExp)
_NO_TYPE = UserType(None, "")  # an annotation that names no user class


_UNBOUND = object()  # a name the environment has no entry for
# How often one graph function is looked at while the values its callers pass settle. Real code needs one to three
# looks; a function looked at more often has values that swing, and takes unknown values from then on.
_LOOKS_BEFORE_UNKNOWN = 8
_MAX_LOOKS = 32  # a last guard


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
        self.objects: dict[str, UserType] = {}  # local name -> the user class of the object it holds
        self.env: dict[str, str | None] = {}
        # parameter -> the constants graph callers pass it (as (type, value) pairs), or UNKNOWN
        self.parameter_values: dict[str, object] = {}
        # What the parameters get: as a root of graph code (its signature's kinds and defaults; None for a function
        # that is graph code only because graph code calls it), and from each caller (a graph function, or a method
        # of the parent that runs a sub-cell from host code), the latest look at that caller only (id(caller's node)
        # -> (kinds, constants)): what a caller passed before its own parameters were known does not stay once it
        # knows them. Callers are named by their nodes, not held: graph functions that call each other would
        # otherwise keep each other, and the module's tree, for the garbage collector.
        self.as_root: tuple[dict[str, str | None], dict[str, object], bool] | None = None  # (kinds, constants, strict)
        self.passed_by: dict[int, tuple[dict[str, str | None], dict[str, object]]] = {}
        self.callees: set[int] = set()  # id(node) of the graph functions this one's compiled code calls
        self._dead: set[int] = set()  # ids of the nodes of branches MindSpore's parser drops
        self._folding: set[int] = set()  # bindings being folded (a guard against ``x = x``-style cycles)
        self._live: dict[tuple[type, ...], list[ast.AST]] = {}  # types -> the nodes of those types compiled
        self._returned_data: set[int] | None = None
        self._host_copy_names: dict | None = None
        self._annotated_types: dict | None = None  # parameter -> its annotation, then the UserType it names
        self._scope = None  # this function's scope among the module's scopes, found on first use
        self._self_name = _UNBOUND
        # id(expression) -> its kind, once the environment is computed (None until then: nothing is final)
        self._use_kinds: dict[int, str | None] | None = None
        # while the environment is computed: name -> what its first look-up in the current round found
        self._env_reads: dict[str, object] | None = None

    @property
    def nodes(self) -> list[ast.AST]:
        """Every node of this function that MindSpore compiles: its body without the dead branches."""
        return self.nodes_of()

    def nodes_of(self, *node_types: type) -> list[ast.AST]:
        """The nodes of this function of these types (exactly: parsed trees hold no subclasses; none given: all),
        in source order, without dead branches; one list per set of types, shared by every rule that asks."""
        live = self._live.get(node_types)  # the rules ask each function for the same types, one after another
        if live is None:
            index = self.module.index
            live = index.body_nodes_of(self.node, node_types) if node_types else index.body(self.node)
            dead = self._dead
            if dead:
                live = [node for node in live if id(node) not in dead]
            self._live[node_types] = live
        return live

    def is_dead(self, node: ast.AST) -> bool:
        """Whether ``node`` lies in a branch of this function that is never compiled."""
        return id(node) in self._dead

    # -- constant folding, as MindSpore's parser does it ---------------------------------------------------------

    def constant(self, expr: ast.AST):
        """The compile-time constant ``expr`` folds to in this function, or UNKNOWN."""
        return constant_value(expr, self._constant_of)

    def _constant_of(self, expr: ast.AST):
        if isinstance(expr, ast.Attribute):
            value = expr.value
            if isinstance(value, ast.Name) and value.id == self.self_name and self.owner is not None:
                return self.owner.constant_attribute(expr.attr)
            return UNKNOWN
        binding = self.module.scopes.binding(expr)
        if binding is None:
            return UNKNOWN  # a builtin, or a name bound nowhere
        if binding.scope.node is self.node:
            return self._local_constant(binding)
        if len(binding.scope.bindings[expr.id]) == 1 and binding.kind == ASSIGNMENT and (
                expr.id not in self.module.scopes.declared_global):
            return literal(binding.value)  # a module constant
        return UNKNOWN

    def _local_constant(self, binding):
        """A parameter's one constant, or what a straight-line assignment of this function's body folds to:
        ``return_dict = return_dict if return_dict is not None else self.config.use_return_dict`` keeps the
        parameter's constant. An assignment inside a branch or a loop, or any other binding, is not followed."""
        if binding.kind == PARAMETER:
            if not all(other is binding or self._straight_line(other)
                       for other in binding.scope.bindings[binding.name]):
                return UNKNOWN  # reassigned in a branch or a loop: which value a use sees depends on the run
            values = self.parameter_values.get(binding.name, UNKNOWN)
            return next(iter(values))[1] if values is not UNKNOWN and len(values) == 1 else UNKNOWN
        if not self._straight_line(binding) or id(binding) in self._folding:
            return UNKNOWN
        self._folding.add(id(binding))
        try:
            return self.constant(binding.value)
        finally:
            self._folding.discard(id(binding))

    def _straight_line(self, binding) -> bool:
        """``name = value`` as a statement of this function's own body, outside any branch or loop."""
        if binding.kind != ASSIGNMENT or binding.value is None:
            return False
        statement = self.module.assignment_of(binding.value)
        return statement is not None and any(s is statement for s in self.node.body)

    def find_dead_code(self) -> None:
        """Mark the branches whose condition folds to a constant, and what follows a taken branch that returns."""
        self._dead, self._live = set(), {}
        index = self.module.index
        if not index.body_nodes_of(self.node, _BRANCHES):
            return
        dropped: list[ast.AST] = []
        self._drop_in_block(self.node.body, dropped)
        for expression in index.body_nodes_of(self.node, (ast.IfExp,)):
            value = self.constant(expression.test)
            if value is not UNKNOWN:
                dropped.append(expression.orelse if value else expression.body)
        self._dead = {id(node) for root in dropped for node in index.subtree(root)}
        self._live = {}  # what was asked while the branches were folded, asked again without them

    def _drop_in_block(self, statements: list[ast.stmt], dropped: list[ast.AST]) -> None:
        for position, statement in enumerate(statements):
            if isinstance(statement, ast.If):
                value = self.constant(statement.test)
                if value is UNKNOWN:
                    self._drop_in_block(statement.body, dropped)
                    self._drop_in_block(statement.orelse, dropped)
                    continue
                taken, other = (statement.body, statement.orelse) if value else (statement.orelse, statement.body)
                dropped.extend(other)
                self._drop_in_block(taken, dropped)
                if taken and isinstance(taken[-1], (ast.Return, ast.Raise)):
                    dropped.extend(statements[position + 1:])
                    return
            elif isinstance(statement, (ast.For, ast.AsyncFor, ast.While)):
                self._drop_in_block(statement.body, dropped)
                self._drop_in_block(statement.orelse, dropped)
            elif isinstance(statement, (ast.With, ast.AsyncWith)):
                self._drop_in_block(statement.body, dropped)
            elif isinstance(statement, ast.Try):
                for block in (statement.body, *(h.body for h in statement.handlers), statement.orelse,
                              statement.finalbody):
                    self._drop_in_block(block, dropped)

    @property
    def scope(self) -> str:
        return self.owner.name if self.owner else self.node.name

    @property
    def label(self) -> str:
        return f"{self.owner.name}.{self.node.name}" if self.owner else self.node.name

    @property
    def self_name(self) -> str | None:
        name = self._self_name
        if name is _UNBOUND:  # asked for nearly every attribute the environment meets
            name = self._self_name = first_argument(self.node) if self.owner is not None else None
        return name

    def compute_environment(self) -> None:
        self._use_kinds = None
        self.objects = {}
        self.find_dead_code()
        module = self.module
        key = None
        if not self._dead:
            # Without dead branches the environment depends on the parameters' kinds alone: a helper's is computed
            # once for the probe of what it returns and again as graph code, with the same kinds.
            key = (id(self.node), id(self.owner), tuple(sorted(self.parameter_kinds.items())))
            known = module._environments.get(key)
        if key is not None and known is not None:
            self.env, self.objects = dict(known[0]), dict(known[1])
        else:
            cuts = module._cuts
            self._compute_environment()
            if key is not None and module._cuts == cuts and not module._answers_cut_short:
                module._environments[key] = (dict(self.env), dict(self.objects))
        self._env_reads = None
        self._use_kinds = {}

    def _compute_environment(self) -> None:
        env: dict[str, str | None] = dict(self.parameter_kinds)
        assignments = self.nodes_of(ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.comprehension,
                                    ast.NamedExpr, ast.withitem)
        # Flow-insensitive: a name is tensor data if any assignment makes it so; a second round settles loops, needed
        # only when the first read a name before its last assignment changed it.
        for _ in range(2):
            self.env = env
            reads = self._env_reads = {}
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
            if all(env.get(name, _UNBOUND) == seen for name, seen in reads.items()):
                break
        self.env = env

    def _bind(self, env: dict, target: ast.AST, kind: str | None, value: ast.AST | None) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = join(env.get(target.id), kind)
            user_class = self.module.user_class_name(self.module.qualname(value.func)) if isinstance(
                value, ast.Call) else None
            if user_class:
                self.objects[target.id] = UserType(self.module, user_class)
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
            self._bind(env, target, join(*flatten(kinds)), None)

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
        kinds = parameter_kinds_of_call(self, value, found[1], bound=not is_static(found[1]))
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
            for name, value in value_flows(node):
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
            if func.attr in api.STATIC_TENSOR_METHODS or func.attr in INDEX_FUNCTIONS:
                return True
            if func.attr == "astype" and call.args and any(
                    word in ast.unparse(call.args[0]) for word in ("int", "bool")):
                return True
        qualname = self.module.qualname(func)
        name = api.last_name(qualname) if qualname else None
        if qualname and qualname.startswith("builtins.") and name in INDEX_BUILTINS:
            return True
        if name == "where" and len(call.args) == 1:
            return True
        return name in INDEX_FUNCTIONS

    def host_conversions(self) -> list[ast.Call]:
        """Calls that copy tensor data to the host: ``x.asnumpy()``, ``.tolist()``, ``.numpy()``."""
        return [
            node for node in self.nodes_of(ast.Call)
            if isinstance(node.func, ast.Attribute)
            and node.func.attr in api.HOST_CONVERSION_METHODS and self.kind(node.func.value) == TENSOR
        ]

    def object_type(self, expr: ast.AST) -> UserType | None:
        """The user class of the object ``expr`` holds: a local name built from one, ``self.<attribute>`` holding
        one, or a parameter annotated with one (``past_key_values: Optional[Cache]``)."""
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and (
                expr.value.id == self.self_name and self.owner is not None):
            return next((info.object_attributes[expr.attr] for info in self.owner.lineage()
                         if expr.attr in info.object_attributes), None)
        if not isinstance(expr, ast.Name):
            return None
        if expr.id in self.objects:
            return self.objects[expr.id]
        if self._annotated_types is None:
            arguments = self.node.args
            self._annotated_types = {
                argument.arg: argument.annotation for argument in (
                    *arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)
                if argument.annotation is not None and not annotates_python_value(argument.annotation)}
        annotation = self._annotated_types.get(expr.id)
        if annotation is None:
            return None
        if not isinstance(annotation, UserType):
            annotation = self._annotated_types[expr.id] = self.module.user_type(
                annotated_class(annotation, self.module.qualname)) or _NO_TYPE
        return annotation if annotation is not _NO_TYPE else None

    def holds_jit_class_instance(self, expr: ast.AST) -> bool:
        """``expr`` is an instance of a ``@jit_class`` class: built here (``Ctx()``), held by the Cell
        (``self.ctx`` after ``self.ctx = Ctx()``) or by a local name bound to one."""
        module = self.module
        if isinstance(expr, ast.Name):
            expr = module.value_bound_to(expr, self.node, self.owner)
        elif isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and (
                expr.value.id == self.self_name and self.owner is not None):
            qualname = self.owner.attribute_constructor(expr.attr)
            built = module._class_named(qualname) if qualname else None
            return bool(built and built[1] is not None and built[1].is_jit_class)
        built = module.class_of_constructor(expr) if isinstance(expr, ast.Call) else None
        return bool(built and built[1] is not None and built[1].is_jit_class)

    def host_copy_in(self, expr: ast.AST) -> ast.Call | None:
        """The ``x.asnumpy()``/``.tolist()``/``.numpy()`` of tensor data whose host copy is part of the value of
        ``expr``, directly or through local names (``h = x.asnumpy(); np.tanh(h)``), or None."""
        copies = self._host_copies()
        for part in self._data_parts(expr):
            if isinstance(part, ast.Call) and id(part) in copies:
                return part
            if isinstance(part, ast.Name) and part.id in copies:
                return copies[part.id]
        return None

    def _host_copies(self) -> dict:
        """ids of the host conversions of tensor data, and the local names assigned one (name -> the conversion).
        Only the copy itself counts: what numpy computes from it is that numpy call's result, reported there."""
        if self._host_copy_names is None:
            found: dict = {id(call): call for call in self.host_conversions()}
            if found:
                for name, value in [flow for node in self.nodes for flow in value_flows(node)]:
                    copy = next((found[id(part)] for part in self._data_parts(value)
                                 if isinstance(part, ast.Call) and id(part) in found), None)
                    if copy is not None and name not in found:
                        found[name] = copy
            self._host_copy_names = found
        return self._host_copy_names

    def is_tensor(self, expr: ast.AST) -> bool:
        return self.kind(expr) == TENSOR

    def least_rank(self, expr: ast.AST) -> Rank | None:
        """The least rank the tensor ``expr`` evidently has on some path reaching where it is used (see ``ranks``),
        or None."""
        return least_rank(self.module, expr, self.node, self.owner)

    def kind(self, expr: ast.AST | None) -> str | None:
        """TENSOR for tensor data, HOST for a host array, None for a compile-time constant or unknown value."""
        known = self._use_kinds
        if known is None:  # the environment is being computed: nothing is final yet
            return self._kind(expr)
        key = id(expr)
        if key in known:
            return known[key]
        kind = known[key] = self._kind(expr)
        return kind

    def _kind(self, expr: ast.AST | None) -> str | None:
        if expr is None:
            return None
        expr_type = expr.__class__  # the commonest first: parsed trees hold no subclasses of node types
        if expr_type is ast.Call:
            return self._call_kind(expr)
        if expr_type is ast.Constant or expr_type is ast.JoinedStr or expr_type is ast.Lambda:
            return None
        if expr_type is ast.Name:
            kind = self.env.get(expr.id, _UNBOUND)
            if self._env_reads is not None:
                self._env_reads.setdefault(expr.id, kind)
            if kind is _UNBOUND:
                return None
            if kind != TENSOR or self._use_kinds is None:
                return kind
            return self._kind_where_used(expr)
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
        return None

    def _kind_where_used(self, name: ast.Name) -> str | None:
        """A name reused for different data (``a = np.stack(parts); a = Tensor(a)``) holds, where it is used, what
        the assignments above the use put in it: the environment is flow-insensitive and says TENSOR for the whole
        function. Inside a loop that assigns the name later, or without a position, the environment stands."""
        bindings = self._local_bindings(name.id)
        if len(bindings) < 2 or not hasattr(name, "lineno") or id(name) in self._folding:
            return TENSOR
        use = (name.lineno, name.col_offset)
        above = [binding for binding in bindings if binding.position < use]
        if not above:
            return TENSOR
        kinds = []
        self._folding.add(id(name))
        try:
            for binding in above:
                if binding.kind == PARAMETER:
                    kinds.append(self.parameter_kinds.get(name.id))
                elif binding.kind == ASSIGNMENT and binding.value is not None:
                    kinds.append(self.kind(binding.value))
                else:
                    return TENSOR  # unpacking, loops, with: what they bind is not followed here
        finally:
            self._folding.discard(id(name))
        kind = join(*kinds)
        if kind == TENSOR:
            return TENSOR  # what a loop could bring back from below is no more than that (most uses end here)
        later = [binding for binding in bindings if binding.position >= use]
        if later and any(loop.lineno <= name.lineno <= (loop.end_lineno or loop.lineno)
                         and any(binding.position[0] <= (loop.end_lineno or loop.lineno) for binding in later)
                         for loop in self.nodes_of(ast.For, ast.AsyncFor, ast.While)):
            return TENSOR
        return kind

    def _local_bindings(self, name: str) -> list:
        scopes = self.module.scopes
        scope = self._scope
        if scope is None:
            scope = self._scope = scopes.scope_at(self.node.body[0])
        if scope.node is not self.node:
            return []
        return scopes._with_parameter(scope, name) if name in scope.parameters else scope.bindings.get(name, [])

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

    def _arguments_kind(self, call: ast.Call) -> str | None:
        """The join of the kinds of what ``call`` passes (asked only where the answer depends on it: most calls in
        graph code are of sub-cells, tensor methods and MindSpore functions, whose result is data whatever they
        get)."""
        return join(*[self.kind(argument) for argument in call.args],
                    *[self.kind(keyword.value) for keyword in call.keywords])

    def _call_kind(self, call: ast.Call) -> str | None:
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
                    # a sub-cell or primitive held on self: its call builds tensors, except the static ones
                    # (``self.shape = P.Shape()``: ``self.shape(x)`` is the shape)
                    built_by = self.owner.attribute_constructor(func.attr)
                    return None if api.is_mindspore_name(built_by, *api.STATIC_PRIMITIVES) else TENSOR
                kinds = parameter_kinds_of_call(self, call, found[1], bound=not is_static(found[1]))
                return self.module.return_kind(found[1], found[0], kinds, self._arguments_kind(call))
        if isinstance(func, ast.Name) and self._env_reads is not None:
            self._env_reads.setdefault(func.id, self.env.get(func.id, _UNBOUND))
        target = self.module.local_function(func) if isinstance(func, ast.Name) and func.id not in self.env else None
        if target is not None:
            kinds = parameter_kinds_of_call(self, call, target, bound=False)
            return self.module.return_kind(target, None, kinds, self._arguments_kind(call))
        qualname = self.module.qualname(func)
        if qualname is None:
            if isinstance(func, ast.Call):  # P.Add()(x, y)
                return self._arguments_kind(call) or (
                    TENSOR if api.is_mindspore(self.module.qualname(func.func)) else None)
            return self._arguments_kind(call)
        if qualname.startswith("builtins."):
            name = qualname[len("builtins."):]
            if name in BUILTIN_STATIC_CALLS and name not in KIND_PASSING_BUILTINS:
                return None
            return self._arguments_kind(call)
        if api.is_mindspore(qualname):
            if qualname in api.STATIC_MINDSPORE_FUNCTIONS:
                return None
            if api.is_mindspore_name(qualname, "Tensor", "Parameter", "tensor", "initializer"):
                return TENSOR
            if api.last_name(qualname)[:1].isupper():
                return None  # a Cell, primitive or dtype object, not data
            return TENSOR
        if self.module.is_host_library(qualname):
            if api.last_name(qualname) in api.ARRAY_CONSTRUCTORS or self._arguments_kind(call) is not None:
                return HOST
            return None
        local_class = self.module.local_class(qualname)
        if local_class is not None and local_class.is_cell:
            return None  # constructing a Cell gives a Cell, not data
        return self._arguments_kind(call)


class EagerFunction(GraphFunction):
    """A function PyNative runs eagerly for a Cell: a ``construct`` that is not graph code, or a function of this
    module it calls, with the same tensor-value environment as graph code. ``output_of``: the Cells whose output
    this function's return value is part of (their ``construct``, or a helper whose result they return)."""

    def __init__(self, module: "ModuleFacts", node: FunctionNode, owner: ClassInfo | None, reason: str):
        super().__init__(module, node, owner, reason, strict=False)
        self.output_of: list[ClassInfo] = []


class GraphCode:
    """Which functions MindSpore compiles, and why; which a PyNative Cell runs eagerly; what helpers return. A part
    of ``ModuleFacts``; it asks the classes and names below it."""

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
        return self.settings.mode_for(self.path)

    def _runs_at_compile_time(self, function: FunctionNode) -> bool:
        """``@constexpr``/``@_primexpr`` functions run in Python while the graph compiles, on constants."""
        return any(api.is_mindspore_name(self.qualname(decorator_callee(d)), "constexpr", "_primexpr", "primexpr")
                   for d in function.decorator_list)

    def _jit_decorator(self, function: FunctionNode) -> ast.AST | None:
        for decorator in function.decorator_list:
            if api.is_mindspore_name(self.qualname(decorator_callee(decorator)), *JIT_NAMES):
                return decorator
        return None

    def _is_strict(self, jit_decorator: ast.AST | None) -> bool:
        if isinstance(jit_decorator, ast.Call):
            for keyword in jit_decorator.keywords:
                if keyword.arg == "fullgraph" and isinstance(keyword.value, ast.Constant):
                    if keyword.value.value is True:
                        return True
        return self.target.syntax_level == "strict"

    def _find_graph_code(self) -> None:
        queue: list[GraphFunction] = []
        # the project's level: STRICT where the option asks for it or the project selects it (ms_lint.target)
        strict = self.target.syntax_level == "strict"

        def add_root(node: FunctionNode, owner: ClassInfo | None, reason: str, is_strict: bool,
                     sub_cell: bool = False) -> GraphFunction:
            existing = self._graph_by_node.get(id(node))
            if existing is None:
                existing = GraphFunction(self, node, owner, reason, is_strict)
                if sub_cell:  # what its callers pass; looked at once one passes something
                    kinds, values = {}, {}
                else:
                    kinds = root_parameter_kinds(node, owner)
                    values = root_parameter_values(node, self.keyword_arguments)
                    queue.append(existing)
                existing.as_root = (kinds, values, is_strict)
                existing.parameter_kinds, existing.parameter_values = dict(kinds), dict(values)
                self._graph_by_node[id(node)] = existing
                self.graph_functions.append(existing)
            elif is_strict and not existing.strict:
                existing.as_root = (*existing.as_root[:2], True)
                existing.strict = True
            return existing

        sub_cells = self._sub_cell_classes()
        for info in self.classes.values():
            if info.is_cell and self.mode == "graph":
                for name in ("construct", "bprop"):
                    if name in info.methods:
                        # A Cell used only as a sub-cell here gets its input kinds and values from the calls
                        # (`self.pos(B, H, W)` with ints from a shape), like any helper.
                        add_root(info.methods[name], info, f"{name} of Cell {info.name}", strict,
                                 sub_cell=name == "construct" and info.key in sub_cells)
            if info.is_jit_class and self.mode == "graph":
                # Construction runs in Python unless the object is built inside graph code, where the methods
                # called are followed like any helper.
                for name, method in info.methods.items():
                    if name not in ("__init__", "__new__"):
                        add_root(method, info, f"method of @jit_class {info.name}", strict)
        for node, _ in self._enclosing:
            if not isinstance(node, ast.ClassDef):
                decorator = self._jit_decorator(node)
                if decorator is not None:
                    add_root(node, self.class_of_function.get(id(node)), "decorated with @jit",
                             self._is_strict(decorator))
        for site in self.calls_to(*JIT_NAMES):
            if site.node.args and isinstance(site.node.args[0], ast.Name):
                target = self.local_function(site.node.args[0])
                if target is not None:
                    add_root(target, None, "wrapped with jit(...)", self._is_strict(site.node))
        self._follow_calls(queue)

    def _follow_calls(self, queue: list["GraphFunction"]) -> None:
        """Compute the environments of the queued graph functions and of every function of this module their
        compiled code calls, until what each caller passes no longer changes.

        A root starts from its signature, every other function from nothing, and each gains only what its callers
        pass, so the answer is the same in whatever order the functions are looked at: a helper or a sub-cell's
        construct is first looked at once a caller passes it something; a sub-cell's construct no caller here
        passes anything (it is called in ways the model cannot follow) is looked at last, with its parameters
        unknown. A function no caller reaches any more (its call now lies in a dropped branch) is graph code no
        more. A function whose values swing (two functions that each drop the call that gives the other its value)
        takes unknown values from then on."""
        looks: dict[int, int] = {}
        while True:
            while queue:
                function = queue.pop(0)
                node_id = id(function.node)
                if self._graph_by_node.get(node_id) is not function:
                    continue  # dropped while it waited
                if function.as_root is None and not function.passed_by:
                    self._drop_graph_function(function, queue)
                    continue
                looks[node_id] = looks.get(node_id, 0) + 1
                if looks[node_id] == _LOOKS_BEFORE_UNKNOWN:
                    self._values_unknown.add(node_id)
                    self._settle(function, queue)
                if looks[node_id] > _MAX_LOOKS:
                    continue  # a guard: values that never settle
                function.compute_environment()
                passed: dict[int, tuple[FunctionNode, ClassInfo | None, dict, dict]] = {}
                for call, callee, owner, kinds in self.calls_from(function):
                    values = parameter_values_of_call(call, callee, kinds, function.constant)
                    known = passed.get(id(callee))
                    if known is None:
                        passed[id(callee)] = (callee, owner, dict(kinds), values)
                    else:
                        _join_parameters(known[2], known[3], kinds, values)
                for gone in function.callees - passed.keys():
                    callee = self._graph_by_node.get(gone)
                    if callee is not None:
                        callee.passed_by.pop(node_id, None)
                        self._settle(callee, queue)
                function.callees = set(passed)
                for node, owner, kinds, values in passed.values():
                    callee = self._graph_by_node.get(id(node))
                    created = callee is None
                    if created:
                        callee = GraphFunction(self, node, owner, f"called from {function.label}", False)
                        self._graph_by_node[id(node)] = callee
                        self.graph_functions.append(callee)
                    first_look = node_id not in callee.passed_by
                    callee.passed_by[node_id] = (kinds, values)
                    self._settle(callee, queue, created,
                                 added=(kinds, values, function.strict) if first_look and not created else None)
            never_looked_at = [function for function in self.graph_functions if id(function.node) not in looks]
            if never_looked_at:  # sub-cells' constructs no caller here passes anything: the last to be looked at
                for function in never_looked_at:
                    self._values_unknown.add(id(function.node))
                    self._settle(function, queue, True)
                continue
            self._note_host_calls_of_sub_cells(queue)
            if queue:
                continue
            # Functions that call each other keep each other reached after the roots stopped calling them.
            reached = {id(function.node) for function in self.graph_functions if function.as_root is not None}
            stack = list(reached)
            while stack:
                for callee in self._graph_by_node[stack.pop()].callees:
                    if callee not in reached and callee in self._graph_by_node:
                        reached.add(callee)
                        stack.append(callee)
            unreached = [function for function in self.graph_functions if id(function.node) not in reached]
            if not unreached:
                return
            for function in unreached:
                function.passed_by.clear()
                queue.append(function)

    def _note_host_calls_of_sub_cells(self, queue: list["GraphFunction"]) -> None:
        """What host code of a sub-cell's parent passes when it runs the sub-cell (``self.encoder(x, boxes)`` in a
        method that is not graph code): MindSpore compiles the sub-cell's construct for those values too. Each such
        method counts as one more caller, read as a root is: its parameters hold their literal defaults, or
        anything."""
        readers: dict[int, GraphFunction] = {}
        for key, attributes in self._sub_cell_classes().items():
            construct = self._graph_by_node.get(id(self.classes[key].methods.get("construct")))
            if construct is None:
                continue
            filled = parameter_names(construct.node)[1:]
            host: dict[int, tuple[dict, dict]] = {}
            for site in self.calls_written(*attributes):
                func = site.node.func
                if not (isinstance(func, ast.Attribute) and func.attr in attributes and isinstance(func.value, ast.Name)
                        and site.function is not None and func.value.id == first_argument(site.function)
                        and site.owner is not None and self._local_sub_cell(site.owner, func.attr) is self.classes[key]
                        and not self.is_graph_code(site.function)):
                    continue
                reader = readers.get(id(site.function))
                if reader is None:
                    reader = readers[id(site.function)] = self.plain_function(
                        site.function, site.owner,
                        parameter_values=root_parameter_values(site.function, self.keyword_arguments))
                values = parameter_values_of_call(site.node, construct.node, filled, reader.constant)
                known = host.get(id(site.function))
                if known is None:
                    host[id(site.function)] = ({}, values)
                else:
                    _join_parameters(known[0], known[1], {}, values)
            stale = [caller for caller in construct.passed_by
                     if caller not in self._graph_by_node and caller not in host]
            if not host and not stale:
                continue
            for caller in stale:
                del construct.passed_by[caller]
            construct.passed_by.update(host)
            self._settle(construct, queue)

    def _settle(self, function: "GraphFunction", queue: list["GraphFunction"], new: bool = False,
                added: tuple[dict, dict, bool] | None = None) -> None:
        """Work out ``function``'s parameters again from its own entry as a root and the latest of what each caller
        passes; queue it when they changed (or it was never looked at). ``added``: what a caller passes for the
        first time (kinds, constants, whether it is strict), joined to what the function has, without joining
        again what every other caller passes (a helper of a thousand callers)."""
        if added is not None:
            kinds, values = dict(function.parameter_kinds), dict(function.parameter_values)
            _join_parameters(kinds, values, added[0], added[1])
            strict = function.strict or added[2]
        else:
            kinds, values, strict = (dict(function.as_root[0]), dict(function.as_root[1]), function.as_root[2]) if (
                function.as_root is not None) else ({}, {}, False)
            for caller_id, (passed_kinds, passed_values) in function.passed_by.items():
                _join_parameters(kinds, values, passed_kinds, passed_values)
                caller = self._graph_by_node.get(caller_id)
                strict = strict or (caller is not None and caller.strict)
        if id(function.node) in self._values_unknown:
            values = dict.fromkeys(parameter_names(function.node), UNKNOWN)
        if function.as_root is None and function.passed_by:
            first = self._graph_by_node.get(next(iter(function.passed_by)))
            if first is not None:
                function.reason = f"called from {first.label}"
        changed = new or (kinds, values, strict) != (function.parameter_kinds, function.parameter_values,
                                                     function.strict)
        function.parameter_kinds, function.parameter_values, function.strict = kinds, values, strict
        unreached = function.as_root is None and not function.passed_by  # dropped when its turn comes
        if (changed or unreached) and function not in queue:
            queue.append(function)

    def _drop_graph_function(self, function: "GraphFunction", queue: list["GraphFunction"]) -> None:
        """``function`` is no longer graph code: no graph caller reaches it. What it passed its callees goes."""
        del self._graph_by_node[id(function.node)]
        self.graph_functions.remove(function)
        for gone in function.callees:
            callee = self._graph_by_node.get(gone)
            if callee is not None:
                callee.passed_by.pop(id(function.node), None)
                self._settle(callee, queue)

    def keyword_arguments(self) -> dict[str, object]:
        """For each keyword passed by a call of this module whose callee the model cannot name (``layer(x, k=v)``
        over a CellList, ``self.blocks[kind](x, k=v)``): the constants it passes, or UNKNOWN. Such a call may reach
        any Cell; a call to a known function or Cell reaches only that one, and is followed as a call."""
        if self._keyword_arguments is None:
            found: dict[str, object] = {}
            for site in self.calls_with_keywords():
                if self._callee_is_known(site):
                    continue
                for keyword in site.node.keywords:
                    if keyword.arg is not None:
                        known = found.get(keyword.arg)
                        passed = _constants(self._passed_on(keyword.value, site.function))
                        found[keyword.arg] = passed if known is None else (
                            UNKNOWN if UNKNOWN in (known, passed) else known | passed)
            self._keyword_arguments = found
        return self._keyword_arguments

    def _user_method(self, caller: GraphFunction, func: ast.Attribute) -> tuple[ClassInfo | None, FunctionNode | None]:
        """The method of a user object of this module that ``obj.method`` or ``self.obj.method`` calls."""
        user_type = caller.object_type(func.value)
        if user_type is not None and user_type.module is self and user_type.key in self.classes:
            info = self.classes[user_type.key]
        else:
            # a method of a sub-cell of this module's classes: self.encoder.set_attention_type("full")
            value = func.value
            info = self._local_sub_cell(caller.owner, value.attr) if (
                isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name)
                and value.value.id == caller.self_name and caller.owner is not None) else None
            if info is None:
                return None, None
        found = info.find_method(func.attr)
        return found if found is not None else (None, None)

    def _passed_on(self, value: ast.AST, function: FunctionNode | None):
        """The constant a keyword argument passes: a literal, or a flag the calling function passes on unchanged from
        its own literal default (``block(x, return_dict=return_dict)`` in ``def construct(self, x,
        return_dict=False)``)."""
        constant = literal(value)
        if constant is not UNKNOWN or function is None or not isinstance(value, ast.Name):
            return constant
        default = parameter_defaults(function).get(value.id)
        constant = literal(default) if default is not None else UNKNOWN
        if constant is None or constant is UNKNOWN:
            return UNKNOWN
        scope = self.scopes.scope_at(function.body[0])
        bindings = scope.bindings.get(value.id, ()) if scope.node is function else ()
        return UNKNOWN if any(binding.kind != PARAMETER for binding in bindings) else constant

    def _callee_is_known(self, site) -> bool:
        func = site.node.func
        if site.qualname is not None:
            return True  # a function, class or library object named by the module's names
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and site.owner is not None and (
                site.function is not None and func.value.id == first_argument(site.function)):
            return site.owner.find_method(func.attr) is not None or any(
                info.cell_attributes.get(func.attr) for info in site.owner.lineage())
        return False

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
                        bound = not is_static(target)
                    elif found is None:
                        sub_cell = self._local_sub_cell(caller.owner, func.attr)
                        if sub_cell is None or "construct" not in sub_cell.methods:
                            continue
                        owner, target, bound = sub_cell, sub_cell.methods["construct"], True
                elif self.local_class(self.qualname(func.value)) is not None:
                    found = self.local_class(self.qualname(func.value)).find_method(func.attr)
                    if found is not None:
                        owner, target = found
                else:
                    owner, target = self._user_method(caller, func)
                    bound = target is not None
            elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute):
                owner, target = self._user_method(caller, func)
                bound = target is not None
            elif isinstance(func, ast.Name):
                local = self.local_function(func) if func.id not in caller.env else None
                if local is not None:
                    target = local
                elif self.mode == "pynative" or caller.owner is None:
                    for target, owner, kinds in self._called_through_global(func.id):
                        yield node, target, owner, kinds
                    continue
            if target is None or target is caller.node or self._runs_at_compile_time(target):
                continue
            yield node, target, owner, parameter_kinds_of_call(caller, node, target, bound)

    def _sub_cell_classes(self) -> dict[str, set[str]]:
        """Local Cell classes built only as ``self.attr = Cls(...)`` and called as ``self.attr(...)`` here, each
        with the attributes that hold it."""
        if self._sub_cells is None:
            self._sub_cells = self._find_sub_cell_classes()
        return self._sub_cells

    def _find_sub_cell_classes(self) -> dict[str, set[str]]:
        attributes: dict[str, set[str]] = {}
        excluded: set[str] = set()
        for site in self.calls_to_local_classes():  # only this module's classes can be its sub-cells
            built = self.class_of_constructor(site.node)
            if not built or built[2] is not self or built[1] is None or not built[1].is_cell:
                continue
            assignment = self.assignment_of(site.node)
            target = assignment.targets[0] if assignment is not None and len(assignment.targets) == 1 else None
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                attributes.setdefault(built[1].key, set()).add(target.attr)
            else:
                excluded.add(built[1].key)
        if not attributes:
            return {}  # most modules: no call made here to learn of
        called = self.called_attributes()
        return {name: attrs for name, attrs in attributes.items() if name not in excluded and attrs <= called}

    def _local_sub_cell(self, owner: ClassInfo, attribute: str) -> ClassInfo | None:
        """The class of this module that ``self.<attribute>`` of ``owner`` holds as a sub-cell (asked for every such
        call in graph code: answered once per class and attribute)."""
        key = (id(owner), attribute)
        found = self._sub_cell_of.get(key, _UNBOUND)
        if found is _UNBOUND:
            found = self._sub_cell_of[key] = self.local_class(next(
                (info.cell_attributes[attribute] for info in owner.lineage() if info.cell_attributes.get(attribute)),
                None))
        return found

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
                yield method[1], method[0], root_parameter_kinds(method[1], method[0])
            return
        if api.is_mindspore_name(self.qualname(value.func), *GRAD_NAMES) and value.args:
            first = value.args[0]
            if isinstance(first, ast.Name) and self.local_function(first) is not None:
                function = self.local_function(first)
                yield function, None, root_parameter_kinds(function, None)
            elif isinstance(first, ast.Name):
                yield from self._called_through_global(first.id)

    def return_kind(self, function: FunctionNode, owner: ClassInfo | None, kinds: dict[str, str | None],
                    fallback: str | None) -> str | None:
        """The kind of what ``function`` returns when called with arguments of ``kinds`` (a helper returning
        ``x.shape`` gives a constant even from a tensor argument)."""
        structured = self.returned_structure(function, owner, kinds, fallback)
        return join(*flatten(structured))

    def returned_structure(self, function: FunctionNode, owner: ClassInfo | None, kinds: dict[str, str | None],
                           fallback: str | None = TENSOR):
        """What ``function`` returns for arguments of ``kinds``: a kind, or a list of them for a tuple."""
        key = (id(function), tuple(sorted(kinds.items())))
        if key in self._return_kinds:
            return self._return_kinds[key]
        in_progress = self._returns_in_progress
        if id(function) in in_progress or len(in_progress) > 8:
            self._cut_short = True
            self._cuts += 1
            return fallback  # recursion: do not look deeper
        cut_around, self._cut_short = self._cut_short, False
        in_progress.add(id(function))
        try:
            probe = GraphFunction(self, function, owner, "", strict=False)
            probe.parameter_kinds = dict(kinds)
            probe.compute_environment()
            returned = [probe.structure(n.value) for n in probe.nodes_of(ast.Return) if n.value]
            result = join_structures(returned)
        finally:
            in_progress.discard(id(function))
        # An answer that a cut-off look-up shaped depends on which function the look started from: it serves the
        # rest of that look, then it is dropped, so that the answers do not depend on the order of the questions.
        if self._cut_short:
            self._answers_cut_short.append(key)
        self._cut_short = cut_around or self._cut_short
        self._return_kinds[key] = result
        if not in_progress:
            for cut in self._answers_cut_short:
                del self._return_kinds[cut]
            self._answers_cut_short.clear()
            self._cut_short = False
        return result

    def function_nodes(self) -> list[tuple[FunctionNode, ClassInfo | None]]:
        """Every function of the module (nested ones too), with its class when it is a method."""
        return [(node, self.class_of_function.get(id(node))) for node, _ in self._enclosing
                if not isinstance(node, ast.ClassDef)]

    def plain_function(self, node: FunctionNode, owner: ClassInfo | None,
                       parameter_kinds: dict[str, str | None] | None = None,
                       parameter_values: dict[str, object] | None = None) -> GraphFunction:
        """A function read as host code, with the same tensor-value environment as graph code; its parameters are of
        unknown kind unless ``parameter_kinds`` says, so only values it builds itself (MindSpore calls,
        ``Tensor(...)``) count as tensors; they hold unknown values unless ``parameter_values`` says."""
        function = GraphFunction(self, node, owner, "", strict=False)
        function.parameter_kinds = dict(parameter_kinds or {})
        function.parameter_values = dict(parameter_values or {})
        function.compute_environment()
        return function

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
            kinds = {} if info.key in sub_cells else root_parameter_kinds(node, owner)
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


def parameter_kinds_of_call(caller: GraphFunction, call: ast.Call, target: FunctionNode, bound: bool) -> dict:
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


def root_parameter_kinds(node: FunctionNode, owner: ClassInfo | None) -> dict[str, str | None]:
    """The inputs of a compiled function are tensor data, except parameters defaulting to a literal (flags) and
    parameters annotated as Python values (``dim: int``, ``sizes: tuple[int, ...]``, ``mode: Optional[str]``)."""
    args = node.args
    positional = args.posonlyargs + args.args
    if owner is not None and positional and not is_static(node):
        positional = positional[1:]
    defaults = parameter_defaults(node)
    kinds: dict[str, str | None] = {}
    for argument in positional + args.kwonlyargs:
        default = defaults.get(argument.arg)
        literal = isinstance(default, ast.Constant) and default.value is not None
        kinds[argument.arg] = None if literal or annotates_python_value(argument.annotation) else TENSOR
    for argument in (args.vararg, args.kwarg):
        if argument is not None:
            kinds[argument.arg] = None if annotates_python_value(argument.annotation) else TENSOR
    return kinds


def _constants(value) -> object:
    """A constant as the set of constants a parameter is passed; UNKNOWN stays UNKNOWN."""
    return UNKNOWN if value is UNKNOWN else frozenset({(type(value).__name__, value)})


def root_parameter_values(node: FunctionNode, keyword_arguments) -> dict[str, object]:
    """What the parameters of a compiled entry point (``construct``, a ``@jit`` function) hold when the graph code
    of the project does not pass them: a flag's literal default (``return_dict=False``, ``output_type="ms"``),
    unless a call of this module passes that keyword something else (``self.block(x, use_cache=use_cache)``
    reaches a Cell built in a way the model cannot follow; ``keyword_arguments()`` gives those). A ``None`` default
    is left unknown: it usually stands for an optional tensor input that callers do pass; so is a parameter without
    a default, which Python may call with anything."""
    values: dict[str, object] = dict.fromkeys(parameter_names(node), UNKNOWN)
    for name, default in parameter_defaults(node).items():
        value = literal(default)
        value = UNKNOWN if value is None or value is UNKNOWN else _constants(value)
        passed = keyword_arguments().get(name) if value is not UNKNOWN else None  # asked only for flags
        if passed is not None and (passed is UNKNOWN or passed | value != value):
            value = UNKNOWN
        values[name] = value
    return values


def _join_parameters(kinds: dict[str, str | None], values: dict[str, object], passed_kinds: dict[str, str | None],
                     passed_values: dict[str, object]) -> None:
    """Join into ``kinds`` and ``values`` what one more call passes (its kinds, and its constants or UNKNOWN)."""
    for name, kind in passed_kinds.items():
        kinds[name] = join(kinds.get(name), kind)
    for name, passed in passed_values.items():
        known = values.get(name)
        values[name] = passed if known is None else UNKNOWN if UNKNOWN in (known, passed) else known | passed


def parameter_values_of_call(call: ast.Call, target: FunctionNode, filled, constant_of) -> dict:
    """The constants ``call`` passes to each parameter of ``target`` (its default when the call does not pass it),
    UNKNOWN where the argument is not a constant. ``filled`` names the parameters the call fills; ``constant_of``
    gives the constant an argument's expression holds where the call is made, or UNKNOWN."""
    args = target.args
    positional = [a.arg for a in args.posonlyargs + args.args]
    positional = positional[len(positional) - len([p for p in positional if p in filled]):]
    defaults = parameter_defaults(target)
    passed: dict[str, ast.AST] = {}
    unpacked = False
    for position, argument in enumerate(call.args):
        if isinstance(argument, ast.Starred):
            unpacked = True
            break
        if position < len(positional):
            passed[positional[position]] = argument
    for keyword in call.keywords:
        if keyword.arg is None:
            unpacked = True
        else:
            passed[keyword.arg] = keyword.value
    values: dict[str, object] = {}
    for name in filled:
        if name in passed:
            values[name] = _constants(constant_of(passed[name]))
        elif not unpacked and name in defaults:
            values[name] = _constants(literal(defaults[name]))
        else:
            values[name] = UNKNOWN
    return values
