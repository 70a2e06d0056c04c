"""Expression kinds: what each expression of a function holds (tensor data, a host array, a compile-time constant
or an unknown value), as its tensor-value environment says; the constants expressions fold to and the branches
those constants drop; what part of a function's values reaches its return, and its host copies of tensor data.
The base of every function the model reads, graph code or not (see ``graph``)."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Iterator

from ms_lint import mindspore_api as api
from ms_lint.model.classes import ClassInfo, UserType
from ms_lint.model.configuration import configured_value
from ms_lint.model.ranks import Rank, least_rank, zero_dimensional
from ms_lint.model.syntax import FunctionNode, first_argument, holds_line, is_static, last_line, self_attribute
from ms_lint.model.scopes import ASSIGNMENT, FUNCTION, PARAMETER
from ms_lint.model.values import (BUILTIN_STATIC_CALLS, HOST, INDEX_BUILTINS, INDEX_FUNCTIONS, KIND_PASSING_BUILTINS,
                                  TENSOR, UNKNOWN, annotated_class, annotates_python_value, constant_value,
                                  flatten, join, literal, string_method_value, value_flows)

if TYPE_CHECKING:
    from ms_lint.model.module import ModuleFacts

_BRANCHES = (ast.If, ast.IfExp)
# What only tensors have (``used_as_tensor``): attributes, and the methods lists, tuples, dicts and strings lack.
_TENSOR_ATTRIBUTES = frozenset({"shape", "dtype", "ndim"})
_PYTHON_VALUE_METHODS = frozenset(name for value in ([], (), {}, "", 0, 0.0) for name in dir(value))
# MindSpore functions whose first argument is a shape or a size, not data.
_SIZE_FACTORIES = frozenset({"zeros", "ones", "full", "fill", "empty", "arange", "range", "eye", "linspace",
                             "logspace", "rand", "randn", "randint", "normal", "uniform", "standard_normal",
                             "tuple_to_array"})
_NO_TYPE = UserType(None, "")  # an annotation that names no user class
_NUMBER_TYPES = {int: "int", float: "float"}  # bool is no size
# Calls that give a Python number (``number_type``); ``float(...)`` is left out: a float asked for is no mistake.
_NUMBER_CALLS = {"builtins.len": "int", "builtins.int": "int", "builtins.round": "int", "math.floor": "int",
                 "math.ceil": "int"}
_MAX_NUMBER_DEPTH = 8
_UNBOUND = object()  # a name the environment has no entry for


class FunctionKinds:
    """One function of a module read for what its expressions hold: its tensor-value environment, the constants it
    folds and the branches they drop. ``GraphFunction`` adds why MindSpore compiles it and who calls it."""

    def __init__(self, module: "ModuleFacts", node: FunctionNode, owner: ClassInfo | None):
        self.module = module
        self.node = node
        self.owner = owner
        self.parameter_kinds: dict[str, str | None] = {}
        self.objects: dict[str, UserType] = {}  # local name -> the user class of the object it holds
        self.env: dict[str, str | None] = {}
        # parameter -> the constants graph callers pass it (as (type, value) pairs), or UNKNOWN
        self.parameter_values: dict[str, object] = {}
        self.runs_as_python = False  # host code: methods of constant strings fold as Python computes them
        self._chosen: dict[str, object] = {}  # parameter -> the one of its several values a branch is folded with
        self._dead: set[int] = set()  # ids of the nodes of branches MindSpore's parser drops
        self._folding: set[int] = set()  # bindings being folded (a guard against ``x = x``-style cycles)
        self._loops: list[tuple[int, int]] | None = None  # (first line, last line) of each loop of the function
        self._statements: set[int] | None = None  # ids of the statements of the function's own body
        self._live: dict[tuple[type, ...], list[ast.AST]] = {}  # types -> the nodes of those types compiled
        self._returned_data: set[int] | None = None
        self._host_copy_names: dict | None = None
        self._tensor_parameters: set[str] | None = None
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
        if isinstance(expr, ast.Call):
            if self.runs_as_python:
                value = string_method_value(expr, self.constant)
                if value is not UNKNOWN:
                    return value
            return self._returned_constant(expr)
        if isinstance(expr, ast.Attribute):
            if self_attribute(expr, self.self_name) is not None and self.owner is not None:
                return self.owner.constant_attribute(expr.attr)
            return configured_value(self.module.path, expr)  # ``config.non_local``, ``self.config.x``
        binding = self.module.scopes.binding(expr)
        if binding is None:
            return UNKNOWN  # a builtin, or a name bound nowhere
        if binding.scope.node is self.node:
            return self._local_constant(binding, expr)
        if len(binding.scope.bindings[expr.id]) == 1 and binding.kind == ASSIGNMENT and (
                expr.id not in self.module.scopes.declared_global):
            return literal(binding.value)  # a module constant
        return UNKNOWN

    def _returned_constant(self, call: ast.Call):
        """What a call of a function of the module folds to where its whole body returns one expression of its
        parameters (``exists(mask)`` with ``def exists(val): return val is not None``), its arguments folded here
        (MindSpore inlines the call and folds the test: ``tests/test_ground_truth_folded_arguments.py``)."""
        func = call.func
        if not isinstance(func, ast.Name) or any(isinstance(argument, ast.Starred) for argument in call.args) or any(
                keyword.arg is None for keyword in call.keywords) or id(call) in self._folding:
            return UNKNOWN
        binding = self.module.scopes.binding(func)
        if binding is None or binding.kind != FUNCTION or binding.scope.kind != "module" or len(
                binding.scope.bindings[func.id]) != 1 or not isinstance(binding.value, ast.FunctionDef):
            return UNKNOWN
        function = binding.value
        body = [statement for statement in function.body if not (
            isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant))]  # (its docstring)
        arguments = function.args
        if function.decorator_list or len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None \
                or arguments.vararg or arguments.kwarg or arguments.posonlyargs or arguments.kwonlyargs:
            return UNKNOWN
        names = [argument.arg for argument in arguments.args]
        if len(call.args) > len(names) or any(keyword.arg not in names for keyword in call.keywords):
            return UNKNOWN
        given: dict[str, ast.expr] = dict(zip(names, call.args))
        given.update((keyword.arg, keyword.value) for keyword in call.keywords)
        defaults = dict(zip(names[len(names) - len(arguments.defaults):], arguments.defaults))
        self._folding.add(id(call))
        try:
            values = {name: self.constant(given[name]) if name in given else literal(defaults[name])
                      if name in defaults else UNKNOWN for name in names}
        finally:
            self._folding.discard(id(call))
        return constant_value(body[0].value, lambda expr: values.get(expr.id, UNKNOWN)
                              if isinstance(expr, ast.Name) else UNKNOWN)

    def _local_constant(self, binding, use: ast.expr | None = None):
        """A parameter's one constant, or what a straight-line assignment of this function's body folds to:
        ``return_dict = return_dict if return_dict is not None else self.config.use_return_dict`` keeps the
        parameter's constant. An assignment inside a branch or a loop, or any other binding, is not followed; but
        one that comes after the ``use`` outside any loop around it cannot reach it (``if mask is not None: mask =
        reshape(mask)``)."""
        if binding.kind == PARAMETER:
            if not all(other is binding or self._straight_line(other) or self._after(other, use)
                       for other in binding.scope.bindings[binding.name]):
                return UNKNOWN  # reassigned in a branch or a loop: which value a use sees depends on the run
            if binding.name in self._chosen:
                return self._chosen[binding.name]
            values = self.parameter_values.get(binding.name, UNKNOWN)
            return next(iter(values))[1] if values is not UNKNOWN and len(values) == 1 else UNKNOWN
        if not self._straight_line(binding) or id(binding) in self._folding:
            return UNKNOWN
        self._folding.add(id(binding))
        try:
            return self.constant(binding.value)
        finally:
            self._folding.discard(id(binding))

    def _after(self, binding, use: ast.expr | None) -> bool:
        """Whether ``binding`` comes after ``use`` in this function's text, and no loop of the function holds both:
        no run binds it before the use reads."""
        if use is None or not hasattr(use, "lineno") or binding.position <= (use.lineno, use.col_offset):
            return False
        loops = self._loops
        if loops is None:
            loops = self._loops = [(node.lineno, node.end_lineno or node.lineno) for node in
                                   self.module.index.subtree_nodes_of(self.node, (ast.For, ast.AsyncFor, ast.While))]
        return not any(start <= use.lineno <= end and start <= binding.position[0] <= end for start, end in loops)

    def _straight_line(self, binding) -> bool:
        """``name = value`` as a statement of this function's own body, outside any branch or loop."""
        if binding.kind != ASSIGNMENT or binding.value is None:
            return False
        statement = self.module.assignment_of(binding.value)
        if statement is None:
            return False
        if self._statements is None:
            self._statements = {id(s) for s in self.node.body}
        return id(statement) in self._statements

    def _test_value(self, test: ast.expr):
        """The constant a branch's ``test`` folds to, or, where it reads one parameter that holds several known
        values (``if model_type == "DBPN_ITERATIVE":`` where every caller passes one of an option's ``choices``),
        the truth it has for each of them alike; else UNKNOWN. (MindSpore compiles a graph function once per
        constant its callers pass; Python runs host code with each: a branch no value takes is taken by none.)"""
        value = self.constant(test)
        if value is not UNKNOWN:
            return value
        several = {node.id for node in ast.walk(test) if isinstance(node, ast.Name) and isinstance(
            self.parameter_values.get(node.id), frozenset) and len(self.parameter_values[node.id]) > 1}
        if len(several) != 1:
            return UNKNOWN
        name = several.pop()
        truths = set()
        for _, choice in self.parameter_values[name]:
            self._chosen[name] = choice
            try:
                value = self.constant(test)
            finally:
                del self._chosen[name]
            if value is UNKNOWN:
                return UNKNOWN
            truths.add(bool(value))
        return truths.pop() if len(truths) == 1 else UNKNOWN

    def find_dead_code(self) -> None:
        """Mark the branches whose condition folds to a constant, and what follows a taken branch that returns."""
        self._dead, self._live = set(), {}
        index = self.module.index
        if not index.body_nodes_of(self.node, _BRANCHES):
            return
        dropped: list[ast.AST] = []
        self._drop_in_block(self.node.body, dropped)
        for expression in index.body_nodes_of(self.node, (ast.IfExp,)):
            value = self._test_value(expression.test)
            if value is not UNKNOWN:
                dropped.append(expression.orelse if value else expression.body)
        self._dead = {id(node) for root in dropped for node in index.subtree(root)}
        self._live = {}  # what was asked while the branches were folded, asked again without them

    def _drop_in_block(self, statements: list[ast.stmt], dropped: list[ast.AST]) -> None:
        for position, statement in enumerate(statements):
            if isinstance(statement, ast.If):
                value = self._test_value(statement.test)
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

    # -- the tensor-value environment: what each name holds, and the kind of each expression ---------------------

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
        if self_attribute(func, self.self_name) is None:
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
        it is not (a condition, an index or a count does not carry a value into the result); nor is what
        ``ops.stop_gradient(...)`` wraps, or a name read where it holds such a call's result (``d =
        ops.stop_gradient(d)`` before ``return x * d``): the result carries no gradient through it."""
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
                if isinstance(part, ast.Name) and part.id not in names and not self._cut_from_gradients(part):
                    names.add(part.id)
                    pending.extend(flows.get(part.id, ()))
        self._returned_data = found
        return found

    def _stops_gradient(self, node: ast.AST) -> bool:
        return isinstance(node, ast.Call) and api.is_mindspore(qualname := self.module.qualname(node.func)) and (
            api.last_name(qualname) == "stop_gradient")

    def _cut_from_gradients(self, name: ast.Name) -> bool:
        """``name`` reads, where it is used, the result of ``ops.stop_gradient(...)``."""
        binding = self.module.scopes.binding(name)
        return binding is not None and self._stops_gradient(getattr(binding, "value", None))

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
                if not self._gives_index(node) and not self._stops_gradient(node):
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

    # -- Python numbers, as graph code computes them ---------------------------------------------------------------

    def number_type(self, expr: ast.AST, _depth: int = 0) -> str | None:
        """``"int"`` or ``"float"`` where ``expr`` is evidently a Python number in this function, never tensor data:
        a numeric literal or the constant it folds to, a tensor's shape entry (``x.shape[1]``, ``ops.shape(x)[0]``,
        ``self.shape(x)[0]`` of a ``Shape`` operator, a name unpacked from one: ``b, c = x.shape``), ``len(...)``,
        ``int(...)``, ``math.floor(...)``, and arithmetic of those (``/`` of two numbers is a float, as in Python);
        None where that is not evident."""
        if _depth > _MAX_NUMBER_DEPTH or expr is None:
            return None
        if isinstance(expr, ast.Constant):
            return _NUMBER_TYPES.get(type(expr.value))
        if isinstance(expr, ast.BinOp):
            left, right = self.number_type(expr.left, _depth + 1), self.number_type(expr.right, _depth + 1)
            if left is None or right is None:
                return None
            if isinstance(expr.op, ast.Div) or "float" in (left, right):
                return "float"
            return "int"
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
            return self.number_type(expr.operand, _depth + 1)
        if isinstance(expr, ast.IfExp):
            body, orelse = self.number_type(expr.body, _depth + 1), self.number_type(expr.orelse, _depth + 1)
            return body if body == orelse else None
        if isinstance(expr, ast.Call):
            return _NUMBER_CALLS.get(self.module.qualname(expr.func) or "")
        if isinstance(expr, ast.Subscript):
            index = expr.slice
            if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub):
                index = index.operand
            if isinstance(index, ast.Constant) and type(index.value) is int and self._is_shape(expr.value):
                return "int"
            return None
        if isinstance(expr, (ast.Name, ast.Attribute)):
            folded = self.constant(expr)
            if folded is not UNKNOWN:
                return _NUMBER_TYPES.get(type(folded))
            if isinstance(expr, ast.Name):
                return self._name_number_type(expr, _depth)
        return None

    def float_division(self, expr: ast.AST, _depth: int = 0) -> ast.BinOp | None:
        """The true division (``c / 2`` of two Python numbers) that makes ``expr`` a Python float in this function,
        directly, through arithmetic on it, or through a name every binding of which is such a float; None where
        ``expr`` is not evidently a float for that reason (``int(c / 2)``, ``c // 2``, ``x.shape[1] * 0.5``)."""
        if _depth > _MAX_NUMBER_DEPTH or self.number_type(expr) != "float":
            return None
        if isinstance(expr, ast.BinOp):
            if isinstance(expr.op, ast.Div):
                return (self.float_division(expr.left, _depth + 1) or self.float_division(expr.right, _depth + 1)
                        or expr)
            return self.float_division(expr.left, _depth + 1) or self.float_division(expr.right, _depth + 1)
        if isinstance(expr, ast.UnaryOp):
            return self.float_division(expr.operand, _depth + 1)
        if isinstance(expr, ast.IfExp):
            return self.float_division(expr.body, _depth + 1) and self.float_division(expr.orelse, _depth + 1)
        if isinstance(expr, ast.Name):
            bindings = self._local_bindings(expr.id)
            found = [self.float_division(binding.value, _depth + 1) for binding in bindings
                     if binding.kind == ASSIGNMENT and binding.value is not None]
            return found[0] if found and len(found) == len(bindings) and all(found) else None
        return None

    def _is_shape(self, expr: ast.AST) -> bool:
        """Whether ``expr`` is a shape, a tuple of ints: ``x.shape`` (of anything but ``self``), ``ops.shape(x)``,
        ``P.Shape()(x)``, or ``self.<name>(x)`` where ``self.<name>`` holds a ``Shape`` operator."""
        if isinstance(expr, ast.Attribute):
            return expr.attr == "shape" and self_attribute(expr, self.self_name) is None
        if not isinstance(expr, ast.Call):
            return False
        func = expr.func
        if isinstance(func, ast.Call):  # ``P.Shape()(x)``
            return api.is_mindspore_name(self.module.qualname(func.func), "Shape")
        held = self._self_attribute(func)
        if held is not None and self.owner is not None:
            return api.is_mindspore_name(self.owner.attribute_constructor(held), "Shape")
        return api.is_mindspore_name(self.module.qualname(func), "shape")

    def _name_number_type(self, name: ast.Name, depth: int) -> str | None:
        """The number type every binding of a local name gives it (an assignment of a number, or unpacking a shape),
        or None."""
        bindings = self._local_bindings(name.id)
        types = set()
        for binding in bindings:
            if binding.kind != ASSIGNMENT:
                return None
            if binding.value is not None:
                types.add(self.number_type(binding.value, depth + 1))
            else:
                types.add("int" if self._unpacks_shape(binding) else None)
        return types.pop() if len(types) == 1 else None

    def _unpacks_shape(self, binding) -> bool:
        """Whether ``binding`` is a name of a flat tuple unpacking a shape (``b, c, h, w = x.shape``)."""
        for node in self.nodes_of(ast.Assign):
            if (node.end_lineno, node.end_col_offset) != binding.position or len(node.targets) != 1:
                continue
            target = node.targets[0]
            return isinstance(target, (ast.Tuple, ast.List)) and all(
                isinstance(element, ast.Name) for element in target.elts) and any(
                element.id == binding.name for element in target.elts) and self._is_shape(node.value)
        return False

    def object_type(self, expr: ast.AST) -> UserType | None:
        """The user class of the object ``expr`` holds: a local name built from one, ``self.<attribute>`` holding
        one, or a parameter annotated with one (``past_key_values: Optional[Cache]``)."""
        if self_attribute(expr, self.self_name) is not None and self.owner is not None:
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
        elif self_attribute(expr, self.self_name) is not None and self.owner is not None:
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

    def used_as_tensor(self, name: str) -> bool:
        """Whether parameter ``name`` is evidently tensor data by how this function uses it, not only by what its
        callers are taken to pass (a ``construct`` parameter may hold a tuple of ints): a tensor method is called on
        it (``t.sum()``, not a method a list, tuple, dict or string also has), its ``shape``/``dtype``/``ndim`` is
        read, or it is the first argument of a MindSpore function (``ops.relu(t)``; not a factory given sizes)."""
        found = self._tensor_parameters
        if found is None:
            found = self._tensor_parameters = set()
            names = {argument.arg for argument in (*self.node.args.posonlyargs, *self.node.args.args,
                                                   *self.node.args.kwonlyargs)}
            names.discard(self.self_name)
            methods = api.tensor_methods(self.module.target.version)
            for node in self.nodes_of(ast.Attribute, ast.Call) if names else ():
                if isinstance(node, ast.Attribute):
                    if isinstance(node.value, ast.Name) and node.value.id in names and (
                            node.attr in _TENSOR_ATTRIBUTES or (
                                node.attr in methods and node.attr not in _PYTHON_VALUE_METHODS)):
                        found.add(node.value.id)
                elif node.args and isinstance(node.args[0], ast.Name) and node.args[0].id in names:
                    qualname = self.module.qualname(node.func)
                    if api.is_mindspore(qualname) and api.last_name(qualname)[:1].islower() and (
                            api.last_name(qualname) not in _SIZE_FACTORIES):
                        found.add(node.args[0].id)
        return name in found and self.parameter_kinds.get(name) == TENSOR

    def is_tensor(self, expr: ast.AST) -> bool:
        return self.kind(expr) == TENSOR

    def least_rank(self, expr: ast.AST) -> Rank | None:
        """The least rank the tensor ``expr`` evidently has on some path reaching where it is used (see ``ranks``),
        or None."""
        return least_rank(self.module, expr, self.node, self.owner)

    def zero_dimensional(self, expr: ast.AST) -> bool:
        """Whether ``expr`` is one number (a 0-d tensor or a Python number) on every path reaching where it is used
        (see ``ranks.zero_dimensional``)."""
        return zero_dimensional(self.module, expr, self.node, self.owner)

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
        if later and any(holds_line(loop, name.lineno)
                         and any(binding.position[0] <= last_line(loop) for binding in later)
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
        if self_attribute(expr, self.self_name) is not None and self.owner is not None:
            return TENSOR if self.owner.has_attribute("tensor_attributes", expr.attr) else None
        if (
            self_attribute(value, self.self_name) is not None
            and self.owner is not None
            and self.owner.has_attribute("cell_attributes", value.attr)
        ):
            return TENSOR if expr.attr in api.LAYER_PARAMETER_NAMES else None
        if isinstance(value, (ast.Name, ast.Attribute)) and self.module.qualname(value):
            return None  # a module attribute such as ms.float32
        if isinstance(value, ast.Name) and value.id in self.parameter_kinds:
            annotated = self._annotated_class_of(value.id)
            if annotated is not None:  # ``attn: Attention``: an object of the project, read as ``self.<attr>`` is
                return TENSOR if isinstance(annotated, ClassInfo) and annotated.has_attribute(
                    "tensor_attributes", expr.attr) else None
        return self.kind(value)

    def _held_callee(self, func: ast.AST, depth: int = 0) -> tuple[str, bool] | None:
        """``(attribute, element)`` when ``func`` calls what ``self.<attribute>`` holds (``element``: False) or an
        element of it (True): ``self.layers[i]``, a local name bound to ``self.emb`` or ``self.layers[i]``, a loop
        variable over ``self.layers`` (``enumerate``, ``.values()`` and ``.items()`` of it too)."""
        element = False
        while isinstance(func, ast.Subscript):
            func, element = func.value, True
        if isinstance(func, ast.Attribute):
            held = self._self_attribute(func)
            return (held, element) if held is not None else None
        if not isinstance(func, ast.Name) or depth > 4:
            return None
        bound = self.module.value_bound_to(func, self.node, self.owner)
        if bound is not None:
            inner = self._held_callee(bound, depth + 1) if isinstance(bound, (ast.Attribute, ast.Subscript)) else None
            return (inner[0], inner[1] or element) if inner is not None else None
        for loop in self.nodes_of(ast.For):
            target, iterated = loop.target, loop.iter
            if isinstance(iterated, ast.Call) and not iterated.keywords and len(iterated.args) == 1 and (
                    isinstance(iterated.func, ast.Name) and iterated.func.id == "enumerate"):
                target = target.elts[1] if isinstance(target, ast.Tuple) and len(target.elts) == 2 else None
                iterated = iterated.args[0]
            elif isinstance(iterated, ast.Call) and not iterated.args and isinstance(iterated.func, ast.Attribute) \
                    and iterated.func.attr in ("values", "items"):
                if iterated.func.attr == "items":
                    target = target.elts[1] if isinstance(target, ast.Tuple) and len(target.elts) == 2 else None
                iterated = iterated.func.value
            if isinstance(target, ast.Name) and target.id == func.id:
                held = self._self_attribute(iterated)
                return (held, True) if held is not None else None
        return None

    def _self_attribute(self, expr: ast.AST) -> str | None:
        """``attribute`` of ``self.<attribute>``, where that is not a method of the class."""
        if self_attribute(expr, self.self_name) is not None \
                and self.owner is not None and self.owner.find_method(expr.attr) is None:
            return expr.attr
        return None

    def _held_call_kind(self, attribute: str, element: bool):
        """What calling what ``self.<attribute>`` holds (or, ``element``, an element of it) gives: a sub-cell or
        primitive held on self builds tensors, except the static ones (``self.shape = P.Shape()``: ``self.shape(x)``
        is the shape); an element of a Cell container (``self.layers[i]``) is a sub-cell. ``_UNBOUND`` when the
        element of something else is called (the arguments decide)."""
        built_by = self.owner.attribute_constructor(attribute)
        if not element:
            return None if api.is_mindspore_name(built_by, *api.STATIC_PRIMITIVES) else TENSOR
        return TENSOR if api.is_mindspore_name(built_by, *api.CELL_CONTAINERS) else _UNBOUND

    def _annotated_class_of(self, name: str):
        """The class of the project a parameter's annotation names (``attn: Attention``, ``Optional[Attention]``):
        its ``ClassInfo`` in this module, or its summary from another module; None for any other annotation (a
        tensor, a MindSpore or library type, none at all)."""
        arguments = self.node.args
        annotation = next((argument.annotation for argument in (
            *arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs) if argument.arg == name), None)
        qualname = annotated_class(annotation, self.module.qualname) if annotation is not None else None
        built = self.module._class_named(qualname) if qualname else None
        return built[1] if built is not None else None

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
            if self_attribute(func, self.self_name) is not None and self.owner is not None:
                found = self.owner.find_method(func.attr)
                if found is None:
                    return self._held_call_kind(func.attr, element=False)
                kinds = parameter_kinds_of_call(self, call, found[1], bound=not is_static(found[1]))
                return self.module.return_kind(found[1], found[0], kinds, self._arguments_kind(call))
        if self.owner is not None and self.self_name is not None and func.__class__ is not ast.Attribute:
            held = self._held_callee(func)
            if held is not None:
                kind = self._held_call_kind(*held)
                if kind is not _UNBOUND:
                    return kind
        if isinstance(func, ast.Name) and self._env_reads is not None:
            self._env_reads.setdefault(func.id, self.env.get(func.id, _UNBOUND))
        target = self.module.local_function(func) if isinstance(func, ast.Name) and func.id not in self.env else None
        if target is not None:
            kinds = parameter_kinds_of_call(self, call, target, bound=False)
            return self.module.return_kind(target, None, kinds, self._arguments_kind(call))
        qualname = self.module.qualname(func)
        if qualname is None:
            if isinstance(func, ast.Call):  # P.Add()(x, y)
                primitive = self.module.qualname(func.func)
                if api.is_mindspore_name(primitive, *api.STATIC_PRIMITIVES):
                    return None  # ops.Shape()(x), ops.DType()(x): known while compiling
                return self._arguments_kind(call) or (TENSOR if api.is_mindspore(primitive) else None)
            return self._arguments_kind(call)
        if qualname.startswith("builtins."):
            name = qualname[len("builtins."):]
            if name in BUILTIN_STATIC_CALLS and name not in KIND_PASSING_BUILTINS:
                return None
            return self._arguments_kind(call)
        if api.top_package(qualname) in api.HOST_VALUE_LIBRARIES and not qualname.startswith(
                self.module.local_prefix):
            return HOST  # a library object (``sympy.Integer(n)``, ``json.load(f)``): no tensor data, whatever it reads
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


def parameter_kinds_of_call(caller: FunctionKinds, call: ast.Call, target: FunctionNode, bound: bool) -> dict:
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
