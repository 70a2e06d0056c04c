"""Plain containers on Cells (asked by MS201 and MS202): the Python lists, tuples and dicts of Cells or Parameters
that a Cell class keeps as attributes without registering them, with the statements that put each element in."""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ms_lint import mindspore_api as api
from ms_lint.model.syntax import FunctionNode, first_argument, self_attribute

if TYPE_CHECKING:
    from ms_lint.model.classes import ClassInfo
    from ms_lint.model.module import ModuleFacts


@dataclass
class PlainContainer:
    """A Python list/tuple/dict that ends up on a Cell, and the statements that put elements in it."""

    owner: ClassInfo
    target: str  # "self.blocks" (by the method's own instance parameter) or a local name
    element_sites: list[tuple[ast.AST, str]] = field(default_factory=list)  # (statement, "cell" | "parameter")
    # id(statement) of each element site -> the instance parameter of the method it sits in
    site_instances: dict[int, str] = field(default_factory=dict)
    stored_on_self: bool = False
    wrapped: bool = False
    is_dict: bool = False
    created_by: ast.Assign | None = None  # the assignment that built the container
    stored_by: ast.Assign | None = None  # the assignment that put it on self

    def site_attribute(self, statement: ast.AST) -> str:
        """The ``self.<attr>`` an element site writes or appends to (``self.layers = [...]``,
        ``self.layers.append(...)``, through the instance parameter of the method it sits in), by which the
        validator's parameter probe reports it; empty when it writes a local name."""
        instance = self.site_instances.get(id(statement))
        targets: list[ast.expr] = []
        if isinstance(statement, ast.Assign):
            targets = list(statement.targets)
        elif isinstance(statement, (ast.AnnAssign, ast.AugAssign)):
            targets = [statement.target]
        else:
            call = statement.value if isinstance(statement, ast.Expr) else statement
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute):
                targets = [call.func.value]
        return next((target.attr for target in targets if self_attribute(target, instance) is not None), "")


def plain_containers(module: "ModuleFacts") -> list[PlainContainer]:
    """Python lists/tuples/dicts of Cells or Parameters that the module's Cells keep as attributes, unregistered."""
    found: list[PlainContainer] = []
    for info in module.classes.values():
        if info.is_cell:
            found.extend(_ContainerScan(module, info).run())
    return found


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
        index = self.module.index
        skipped = []
        for method in methods:
            if self._may_reach_self(method, index):
                found.extend(self._scan(method))
            else:
                skipped.append(method)
        # A helper that registers what ``__init__`` put on ``self`` (``for name, cell in self.layers.items():
        # self.insert_child_to_cell(name, cell)``) names a container only once ``__init__`` has been followed.
        for method in skipped if self.attributes else ():
            if self._may_reach_self(method, index):
                found.extend(self._scan(method))
        unique = []
        for container in found:
            if container not in unique and container.stored_on_self and not container.wrapped and (
                    container.element_sites):
                unique.append(container)
        return unique

    def _may_reach_self(self, method: FunctionNode, index) -> bool:
        """Whether ``method`` may put a container on ``self`` or change one held there: it stores a container on
        ``self.<attribute>`` (built here, or returned by a method that builds one), returns a container it builds (a
        caller may store it), or names an attribute holding one. A container the method keeps to itself is never
        reported, so a method doing none of these (most: ``__init__`` storing layers, ``construct`` collecting its
        outputs in a list) is not followed."""
        self_name = first_argument(method)
        if self_name is None:
            return False
        held, returned_by = self.attributes, self.returned
        built: set[str] = set()
        stored: list[ast.AST] = []
        for node in index.subtree_nodes_of(method, (ast.Assign,)):
            value = node.value
            builds = _container_parts(value) is not None
            for target in node.targets:
                if target.__class__ is ast.Name:
                    if builds:
                        built.add(target.id)
                elif self_attribute(target, self_name) is not None:
                    if builds or target.attr in held:
                        return True
                    stored.append(value)
        if built and any(node.value.__class__ is ast.Name and node.value.id in built
                         for node in index.subtree_nodes_of(method, (ast.Return,))):
            return True
        for value in stored:
            if value.__class__ is ast.Name and value.id in built:
                return True
            func = value.func if value.__class__ is ast.Call else None
            if self_attribute(func, self_name) in returned_by:
                return True
        return bool(held) and any(
            self_attribute(node, self_name) in held for node in index.subtree_nodes_of(method, (ast.Attribute,)))

    def element_kind(self, expr: ast.AST | None, cell_names: set[str], self_name: str) -> str | None:
        if expr is None:
            return None
        if isinstance(expr, ast.Name) and expr.id in cell_names:
            return "cell"
        if self.module.builds_cell(expr):
            # A Cell known to hold no parameter (`nn.ReLU()`, an empty `nn.SequentialCell()`) loses nothing in a
            # plain container: nothing of it is trained or saved, and no parameter name can clash.
            return "cell" if self.module.owns_parameters(expr) is not False else None
        if self.module.builds_parameter(expr):
            return "parameter"
        if isinstance(expr, ast.Call) and self_attribute(expr.func, self_name) is not None:
            helper = self.info.methods.get(expr.func.attr)
            if helper is not None and self._returns_cell(helper):
                return "cell"
        return None

    def _returns_cell(self, method: FunctionNode) -> bool:
        returns = [n.value for n in self.module.index.subtree_nodes_of(method, (ast.Return,)) if n.value is not None]
        return bool(returns) and all(self.module.builds_cell(value) for value in returns)

    def elements(self, expr: ast.AST, cell_names: set[str], self_name: str) -> tuple[list[str | None], bool] | None:
        """(element kinds, is a dict) when ``expr`` builds a plain container, else None."""
        parts = _container_parts(expr)
        if parts is None:
            return None
        return [self.element_kind(element, cell_names, self_name) for element in parts[0]], parts[1]

    def _scan(self, method: FunctionNode) -> list[PlainContainer]:
        self_name = first_argument(method)
        if self_name is None:
            return []
        local: dict[str, PlainContainer] = {}
        cell_names: set[str] = set()
        found: list[PlainContainer] = []

        def target_of(expr: ast.AST) -> PlainContainer | None:
            if isinstance(expr, ast.Name):
                return local.get(expr.id)
            if self_attribute(expr, self_name) is not None:
                return self.attributes.get(expr.attr)
            return None

        def add_site(container: PlainContainer | None, statement: ast.AST, kinds) -> None:
            if container is None:
                return
            for kind in kinds:
                if kind in ("cell", "parameter"):
                    container.element_sites.append((statement, kind))
                    container.site_instances[id(statement)] = self_name
                    return

        index = self.module.index
        tracked_types = (ast.Assign, ast.AugAssign, ast.Call, ast.Return)
        # The method's loops, the statements followed below, and the calls that register a child Cell (each with
        # its position in the module's pre-order list, which says which loops hold it).
        positions = index.subtree_positions_of(method, (ast.For, ast.While, *tracked_types))
        if positions is None:  # a method of another tree: its own pre-order list
            subtree = index.subtree(method)
            positions = list(range(len(subtree)))
        else:
            subtree = index.nodes
        loops, tracked, registering_calls = [], [], []
        for position in positions:
            node = subtree[position]
            node_type = node.__class__
            if node_type is ast.For or node_type is ast.While:
                loops.append((position, node))
            elif node_type in tracked_types:
                tracked.append(node)
                if node_type is ast.Call and self._registers_child(node, self_name):
                    registering_calls.append((position, node))
        registering_loops = []
        for start, loop in loops if registering_calls else ():
            end = start + len(index.subtree(loop))
            if any(start < position < end for position, _ in registering_calls):
                registering_loops.append(loop)
        registered_lines = {n.lineno for loop in registering_loops for n in index.subtree(loop)
                            if hasattr(n, "lineno")}
        # Cells registered one by one in straight-line code: `self.insert_child_to_cell("0", conv)`.
        registered_names = {argument.id for _, call in registering_calls for argument in call.args[1:]
                            if isinstance(argument, ast.Name)}

        def registered_elsewhere(value: ast.AST) -> bool:
            elements = value.elts if isinstance(value, (ast.List, ast.Tuple)) else []
            names = [e for e in elements if self.element_kind(e, cell_names, self_name) == "cell"]
            return bool(names) and all(isinstance(e, ast.Name) and e.id in registered_names for e in names)

        nodes = sorted(tracked,
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
                    elif self_attribute(target, self_name) is not None:
                        container = None
                        if contents is not None:
                            container = PlainContainer(self.info, f"{self_name}.{target.attr}", is_dict=contents[1],
                                                       created_by=node)
                            found.append(container)
                            if node.lineno not in registered_lines and not registered_elsewhere(value):
                                add_site(container, node, contents[0])
                        elif isinstance(value, ast.Name) and value.id in local:
                            container = local[value.id]
                        elif isinstance(value, ast.Call) and self_attribute(value.func, self_name) is not None:
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
                elif local or self.attributes:  # a call can hand over a container only once there is one
                    arguments = [*node.args, *(k.value for k in node.keywords)]
                    # ``nn.SequentialCell([*self.layers])``: a display unpacking the container hands it over too
                    arguments += [e for a in arguments if isinstance(a, (ast.List, ast.Tuple)) for e in a.elts
                                  if isinstance(e, ast.Starred)]
                    handed = [target_of(_handed_over(a)) for a in arguments]
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
        """A call that registers the Cells or Parameters it is given: a Cell container, ParameterTuple, any Cell
        constructor taking them, and the constructor of the Cell container this class derives from
        (``super().__init__(*layers)`` in a ``SequentialCell`` subclass)."""
        qualname = self.module.qualname(call.func)
        if api.is_mindspore_name(qualname, *api.CELL_CONTAINERS, *api.PARAMETER_CONTAINERS) or (
                self.module.builds_cell(call)):
            return True
        func = call.func
        return isinstance(func, ast.Attribute) and func.attr == "__init__" and any(
            api.is_mindspore_name(base, *api.CELL_CONTAINERS) for base in self.module.mindspore_bases(self.info))

    @staticmethod
    def _registers_child(call: ast.Call, self_name: str) -> bool:
        func = call.func
        if isinstance(func, ast.Name) and func.id == "setattr" and call.args and isinstance(
                call.args[0], ast.Name) and call.args[0].id == self_name:
            return True
        return isinstance(func, ast.Attribute) and func.attr in ("insert_child_to_cell", "insert_param_to_cell")


def _handed_over(argument: ast.AST) -> ast.AST:
    """The container an argument hands over: ``layers`` of ``*layers``, ``list(layers)``, ``tuple(layers)``,
    ``OrderedDict(layers)`` and ``layers[:n]``."""
    while True:
        if isinstance(argument, ast.Starred):
            argument = argument.value
        elif isinstance(argument, ast.Subscript) and isinstance(argument.slice, ast.Slice):
            argument = argument.value
        elif isinstance(argument, ast.Call) and len(argument.args) == 1 and not argument.keywords and (
                (argument.func.id if isinstance(argument.func, ast.Name) else getattr(argument.func, "attr", ""))
                in ("list", "tuple", "OrderedDict")):
            argument = argument.args[0]
        else:
            return argument


_CONTAINER_BUILDERS = frozenset({ast.List, ast.Tuple, ast.ListComp, ast.GeneratorExp, ast.Dict, ast.DictComp, ast.BinOp,
                                 ast.Call})


def _container_parts(expr: ast.AST) -> tuple[list[ast.AST], bool] | None:
    """(the element expressions, is a dict) when ``expr`` builds a plain container (a display, a comprehension,
    ``[x] * n``, ``list(...)`` of one), else None."""
    # Asked of every assignment in a Cell's methods: most values are no builder, and most builders are calls.
    expr_type = expr.__class__
    if expr_type not in _CONTAINER_BUILDERS:
        return None
    if expr_type is ast.Call:
        func = expr.func
        if func.__class__ is ast.Name and func.id in ("list", "tuple", "dict") and len(expr.args) == 1:
            inner = _container_parts(expr.args[0])
            return (inner[0], func.id == "dict" or inner[1]) if inner else None
        return None
    if expr_type is ast.List or expr_type is ast.Tuple:
        return [e.value if isinstance(e, ast.Starred) else e for e in expr.elts], False
    if expr_type is ast.ListComp or expr_type is ast.GeneratorExp:
        return [expr.elt], False
    if expr_type is ast.Dict:
        return list(expr.values), True
    if expr_type is ast.DictComp:
        return [expr.value], True
    if isinstance(expr.op, ast.Mult):  # a BinOp: ``[x] * n``
        return _container_parts(expr.left) or _container_parts(expr.right)
    return None
