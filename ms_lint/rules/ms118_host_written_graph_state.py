"""MS118: a global or plain attribute that graph code reads, written by host code (frozen at compile time)."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.model import ClassInfo, FunctionNode, ModuleFacts
from ms_lint.model.project import project_class_facts
from ms_lint.model.syntax import child_nodes, instance_parameter, self_attribute
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.rules.base import Rule

_NUMBER = (int, float, bool)


@dataclass(frozen=True, kw_only=True)
class HostWrite(FindingData):
    """Host code writing state graph code reads: the graph functions reading it, and what the finding's line
    writes (``scale`` for ``net.scale = ...``, ``SMOOTHING`` for ``SMOOTHING = ...``; nothing for a setter
    call)."""

    readers: list[str]
    written: list[str]


@dataclass(frozen=True, kw_only=True)
class GlobalWrittenByHost(HostWrite):
    """A global graph code reads, written by host code (a ``global`` statement in a function)."""

    global_: str = fact(key="global", subject=True)

    def message(self) -> str:
        return (f"global {self.global_} is read by graph code ({', '.join(self.readers)}), which folds in the value "
                "it had at the first call: this write never reaches the compiled graph; hold it in a Parameter "
                "updated with ops.assign, or pass it as an input")


@dataclass(frozen=True, kw_only=True)
class AttributeWrittenByHost(HostWrite):
    """A plain attribute of a Cell graph code reads, written through an instance by host code (or by a setter
    the host calls in a loop): the Cell and the attribute."""

    cell: str
    attribute: str = fact(subject=True)

    def message(self) -> str:
        return (f"{self.cell}.{self.attribute} is a plain attribute read by graph code ({', '.join(self.readers)}), "
                "which folds in the value it had at the first call: this write never reaches the compiled graph; "
                "hold it in a Parameter updated with ops.assign, or pass it as an input")


class HostWrittenGraphState(Rule):
    code = "MS118"
    compiled_only = True
    name = "host-written-graph-state"
    summary = "a global or plain Python attribute read by graph code and written by host code later"
    fix_summary = "hold the value in a `Parameter(..., requires_grad=False)` updated with `ops.assign`, or pass it " \
                  "as an input"
    what = """
        Reports host-side writes of a value that graph code reads as a compile-time constant:
        - a module global holding a number (`SMOOTHING = 0.1`) read in graph code and assigned in a host function
          under `global SMOOTHING` (a schedule);
        - a plain number attribute of a Cell (`self.temperature = 1.0` in `__init__`, or an argument defaulting to
          a number or annotated `float`/`int`, or `float(...)`) read in graph code and assigned through an instance
          inside a loop of host code (`net.scale = 0.5` in the training loop), or by a setter method (not graph
          code) that host code calls inside a loop (`net.set_temperature(t)` per epoch); the Cell may come from
          another module of the project, read by its `construct`, when the looping script selects graph mode. A
          setter called once while configuring the network, before its first call, is harmless and not
          reported. The object may be one whose class the code does not say (`model.set_scale(s)` with `model` a
          parameter of the training function, `self.network.set_scale(s)` in a trainer, what a factory returned):
          the setter is then that of the one Cell class this module defines or imports with a method of that name
          (none is followed when several have one, or a class of the module that is not a Cell has one too), and
          a call on the loop's own variable (`for block in blocks: block.set_ratio(r)`, each configured once) is
          not reported.
        The finding is on the write and names the graph code that reads the value. Writes of tensors and
        Parameters are not reported.
    """
    why = """
        The graph is compiled at the first call with the value it had then folded in as a constant. Later writes
        do not recompile it: every later call keeps the first value, under STRICT and LAX alike (measured 2.10 CPU:
        a global changed from 0.1 to 0.5, an attribute changed by assignment and by a setter, outputs unchanged).
        Nothing is raised; a temperature, label-smoothing or loss-scale schedule silently never takes effect.
    """
    example = """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.temperature = 1.0

            def set_temperature(self, value):
                self.temperature = value

            def construct(self, x):
                return x / self.temperature

        net = Net()
        for epoch in range(10):
            net.set_temperature(1.0 + epoch)
    """
    use_instead = """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.temperature = Parameter(Tensor(1.0, ms.float32), requires_grad=False)

            def set_temperature(self, value):
                ops.assign(self.temperature, Tensor(value, ms.float32))

            def construct(self, x):
                return x / self.temperature

        net = Net()
        for epoch in range(10):
            net.set_temperature(1.0 + epoch)
    """

    records = (GlobalWrittenByHost, AttributeWrittenByHost)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        # The reads are looked for only when a host write can exist: a `global` statement, a write or call through
        # a name inside a loop.
        globals_wanted = bool(module.scopes.declared_global)
        instances = _cell_instances(module)
        candidates = _loop_writes(module, instances) if instances else []
        untyped = _untyped_setter_calls(module, instances)
        if not (globals_wanted or candidates or untyped):
            return
        global_reads, attribute_reads = _graph_reads(module, globals_wanted, bool(candidates or untyped))
        if global_reads:
            yield from self._global_writes(module, global_reads)
        if attribute_reads or any(facts is not module for facts, _ in instances.values()):  # another module's Cell
            yield from self._attribute_writes(module, attribute_reads, candidates, instances)
        if untyped:
            yield from self._untyped_setters(module, attribute_reads, untyped)

    def _untyped_setters(self, module: ModuleFacts, reads: dict[tuple[int, str], list[str]],
                         calls: list[tuple[ast.Call, tuple]]) -> Iterator[Finding]:
        """Setter calls in host loops on an object whose class the code does not say (``model.set_scale(s)`` with
        ``model`` a parameter, ``self.net.set_scale(s)``): the setter of the one Cell that has a method of that
        name (``cell_method_named``), reported when it writes a plain attribute the Cell's graph code reads."""
        classes = {id(info): info for info in module.classes.values()}
        for call, (facts, owner, method) in calls:
            if facts is module:
                def readers(attribute: str, owner: ClassInfo = owner) -> list[str]:
                    return [reader for (other_id, other_attribute), found in reads.items()
                            if other_attribute == attribute and (
                                owner in classes[other_id].lineage() or classes[other_id] in owner.lineage())
                            for reader in found]
            else:
                external = _construct_reads(facts, owner) if module.mode == "graph" else {}

                def readers(attribute: str, external: dict = external) -> list[str]:
                    return external.get(attribute, [])
            self_name = instance_parameter(method)
            for stmt in facts.index.body_nodes_of(method, (ast.Assign, ast.AugAssign)):
                attribute = _assigned_attribute(stmt, self_name)
                if attribute and _plain_value(stmt) and readers(attribute):
                    yield self._attribute_finding(module, call, owner, attribute, readers(attribute))
                    break

    def _global_writes(self, module: ModuleFacts, reads: dict[str, list[str]]) -> Iterator[Finding]:
        for node, _ in module.function_nodes():
            if module.is_graph_code(node):
                continue
            body = module.index.body(node)
            declared = {name for stmt in body if isinstance(stmt, ast.Global) for name in stmt.names}
            for name in sorted(declared & set(reads)):
                for stmt in body:
                    if _assigns_name(stmt, name):
                        yield self.report(
                            module, stmt,
                            GlobalWrittenByHost(global_=name, readers=list(reads[name]), written=_written(stmt)),
                            scope=reads[name][0].split(".", 1)[0])  # the graph code the validator probes

    def _attribute_writes(self, module: ModuleFacts, reads: dict[tuple[int, str], list[str]],
                          candidates: list[tuple[FunctionNode | None, ast.AST]],
                          instances: dict[tuple[int, str], tuple]) -> Iterator[Finding]:
        classes = {id(info): info for info in module.classes.values()}
        elsewhere: dict[int, dict[str, list[str]]] = {}  # id(class of another module) -> attribute -> readers
        owners: dict[int, ModuleFacts] = {}  # id(class of another module) -> its module's facts
        resolved: dict[str, ClassInfo | None] = {}  # qualified name -> the class of another module it names

        def readers(info: ClassInfo, attribute: str) -> list[str]:
            if id(info) not in classes:  # a Cell of another module of the project, built and driven here
                if id(info) not in elsewhere:
                    elsewhere[id(info)] = _construct_reads(owners[id(info)], info) if module.mode == "graph" else {}
                return elsewhere[id(info)].get(attribute, [])
            found: list[str] = []
            for other_id, other_attribute in reads:
                other = classes[other_id]
                if other_attribute == attribute and (info in other.lineage() or other in info.lineage()):
                    found.extend(reads[(other_id, other_attribute)])
            return found

        def instance(function: FunctionNode | None, name: str) -> ClassInfo | None:
            found = instances.get((id(function), name)) or instances.get((id(None), name))
            if found is None or found[0] is module:
                return found[1] if found is not None else None
            qualname = found[1]  # another module's Cell: that module is read only for a name a loop drives
            if qualname not in resolved:
                facts = project_class_facts(module.path, qualname, module.settings)
                resolved[qualname] = facts[0].classes[facts[1]] if facts is not None else None
                if facts is not None:
                    owners[id(resolved[qualname])] = facts[0]
            return resolved[qualname]

        driven = [instance(node, stmt.func.value.id) for node, stmt in candidates if isinstance(stmt, ast.Call)]
        setters = _setters(module, readers, [(owners[id(info)], info) for info in driven
                                             if info is not None and id(info) in owners]) if driven else {}
        for node, stmt in candidates:
            if _configures_a_new_instance(module, node, stmt):
                continue
            if isinstance(stmt, ast.Call):
                # A setter (a method of the Cell, not graph code, writing the attribute on self) called in a loop,
                # after the first call is certain; one called once while configuring the network is harmless.
                info = instance(node, stmt.func.value.id)
                written = setters.get((id(info), stmt.func.attr)) if info is not None else None
                if written:
                    yield self._attribute_finding(module, stmt, info, written[0], readers(info, written[0]))
                continue
            # A write through an instance: `net.scale = 0.5` in the training loop.
            for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                    info = instance(node, target.value.id)
                    if info is not None and readers(info, target.attr):
                        yield self._attribute_finding(module, stmt, info, target.attr, readers(info, target.attr))

    def _attribute_finding(self, module: ModuleFacts, stmt: ast.AST, info: ClassInfo, attribute: str,
                           readers: list[str]) -> Finding:
        return self.report(module, stmt, AttributeWrittenByHost(
            cell=info.name, attribute=attribute, readers=sorted(set(readers)), written=_written(stmt)),
            scope=info.name)  # the Cell the validator probes


def _configures_a_new_instance(module: ModuleFacts, function: FunctionNode | None, stmt: ast.AST) -> bool:
    """Whether ``stmt`` writes to (or calls a method of) an instance the same pass of its innermost loop built
    before it (``cell = Mask(...); cell.enabled = True`` for each layer): each pass configures a new Cell before any
    call compiles it, which is no change after the compile."""
    if isinstance(stmt, ast.Call):
        receivers = [stmt.func.value] if isinstance(stmt.func, ast.Attribute) else []
    else:
        receivers = [target.value for target in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
                     if isinstance(target, ast.Attribute)]
    names = {receiver.id for receiver in receivers if isinstance(receiver, ast.Name)}
    holding = [loop for loop in _loops(module, function)
               if loop.lineno < stmt.lineno <= (loop.end_lineno or loop.lineno)]
    if not names or not holding:
        return False
    innermost = max(holding, key=lambda loop: loop.lineno)
    return all(any(isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and node.lineno < stmt.lineno
                   and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
                   for node in _loop_body_nodes(innermost)) for name in names)


def _written(stmt: ast.AST) -> list[str]:
    """What an assignment writes, by name (``net.scale = ...`` writes ``scale``, ``SMOOTHING = ...`` writes
    ``SMOOTHING``): what the validator's state probe changes between two calls. A setter call writes nothing by name:
    the probe then changes every plain number attribute of the Cell."""
    if not isinstance(stmt, (ast.Assign, ast.AugAssign)):
        return []
    names: list[str] = []
    for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", None)
        if name and name not in names:
            names.append(name)
    return names


def _loop_writes(module: ModuleFacts, instances: dict[tuple[int, str], tuple[ModuleFacts, ClassInfo]]
                 ) -> list[tuple[FunctionNode | None, ast.AST]]:
    """Host statements inside loops that write a number to an attribute of a name, or call a method on a name, in
    the functions where a Cell instance of this module is bound to a name (every function when one is at module
    level)."""
    scopes = {scope for scope, _ in instances}
    candidates: list[tuple[FunctionNode | None, ast.AST]] = []
    seen: set[int] = set()
    for node, _ in [*module.function_nodes(), (None, None)]:
        if id(node) not in scopes and id(None) not in scopes:
            continue
        if node is not None and module.is_graph_code(node):
            continue
        for loop in _loops(module, node):
            for stmt in _loop_body_nodes(loop):
                if id(stmt) in seen:
                    continue
                seen.add(id(stmt))
                if isinstance(stmt, ast.Call) and isinstance(stmt.func, ast.Attribute) and isinstance(
                        stmt.func.value, ast.Name):
                    candidates.append((node, stmt))
                elif isinstance(stmt, (ast.Assign, ast.AugAssign)) and _plain_value(stmt) and any(
                        isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                        for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])):
                    candidates.append((node, stmt))
    return candidates


def _untyped_setter_calls(module: ModuleFacts, instances: dict[tuple[int, str], tuple]
                          ) -> list[tuple[ast.Call, tuple]]:
    """Calls inside loops of host code of a method on an object whose class the code does not say (a parameter of
    the function, ``self.<attribute>`` set from one, what a factory returned) and that no pass of the loop rebinds
    (``for layer in layers: layer.set_scale(s)`` configures each layer once): each with the method of the one Cell
    of this module, or imported into it, that has a method of that name (``cell_method_named``), not graph code,
    not ``__init__``/``construct``."""
    found: list[tuple[ast.Call, tuple]] = []
    seen: set[int] = set()
    for node, owner in [*module.function_nodes(), (None, None)]:
        if node is not None and module.is_graph_code(node):
            continue
        self_name = instance_parameter(node) if node is not None and owner is not None else None
        for loop in _loops(module, node):
            body = _loop_body_nodes(loop)
            if all(id(stmt) in seen for stmt in body if isinstance(stmt, ast.Call) and isinstance(
                    stmt.func, ast.Attribute)):
                continue  # (a loop inside one read already)
            rebound = {target.id for stmt in [loop, *body]
                       for target in _bound_targets(stmt) if isinstance(target, ast.Name)}
            for stmt in body:
                if id(stmt) in seen or not (isinstance(stmt, ast.Call) and isinstance(stmt.func, ast.Attribute)):
                    continue
                seen.add(id(stmt))
                receiver = stmt.func.value
                if isinstance(receiver, ast.Name):
                    if receiver.id in rebound or receiver.id == self_name or (id(node), receiver.id) in instances \
                            or (id(None), receiver.id) in instances or _built_class(module, receiver, node):
                        continue
                elif self_name is None or self_attribute(receiver, self_name) is None:
                    continue
                method = module.cell_method_named(stmt.func.attr)
                if method is not None and stmt.func.attr not in ("__init__", "construct") and not (
                        method[0] is module and module.is_graph_code(method[2])):
                    found.append((stmt, method))
    return found


def _bound_targets(stmt: ast.AST) -> list[ast.AST]:
    """The names and attributes a loop header or statement binds."""
    if isinstance(stmt, (ast.For, ast.AsyncFor, ast.comprehension)):
        return list(ast.walk(stmt.target))
    if isinstance(stmt, ast.Assign):
        return [node for target in stmt.targets for node in ast.walk(target)]
    if isinstance(stmt, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr)):
        return [stmt.target]
    if isinstance(stmt, ast.withitem) and stmt.optional_vars is not None:
        return list(ast.walk(stmt.optional_vars))
    return []


def _built_class(module: ModuleFacts, receiver: ast.Name, function: FunctionNode | None) -> bool:
    """Whether the name holds an instance of a class the code names where it is built (``x = Foo(...)``): the
    class then says what the method is, and it is not a Cell of this module driven by a loop."""
    value = module.value_bound_to(receiver, function, None)
    built = module.class_of_constructor(value) if isinstance(value, ast.Call) else None
    return built is not None and (built[1] is not None or api.is_mindspore(built[0])
                                  or api.is_host_library(built[0]) or built[0].startswith("builtins."))


def _setters(module: ModuleFacts, readers, elsewhere=()) -> dict[tuple[int, str], list[str]]:
    """(class id, method name) -> the graph-read attributes that method of a Cell (not graph code, not
    ``__init__``) writes on self; for the Cells of this module, and for those of other modules built here
    (``elsewhere``: (their module's facts, the class)), with the methods they inherit there."""
    setters: dict[tuple[int, str], list[str]] = {}
    classes = [(module, info, [info]) for info in module.classes.values() if info.is_cell]
    classes += [(facts, info, list(info.lineage())) for facts, info in elsewhere]
    for facts, info, lineage in classes:
        for owner in lineage:
            for name, method in owner.methods.items():
                if name in ("__init__", "construct") or (facts is module and module.is_graph_code(method)):
                    continue
                self_name = instance_parameter(method)
                for stmt in facts.index.body_nodes_of(method, (ast.Assign, ast.AugAssign)):
                    attribute = _assigned_attribute(stmt, self_name)
                    if attribute and _plain_value(stmt) and readers(info, attribute):
                        setters.setdefault((id(info), name), []).append(attribute)
    return setters


def _construct_reads(facts: ModuleFacts, info: ClassInfo) -> dict[str, list[str]]:
    """For a Cell of another module of the project (whose graph code that module's own check works out): the plain
    number attributes its ``construct`` (its own or inherited there) reads, each with that construct's name."""
    found = info.find_method("construct")
    if found is None:
        return {}
    owner, construct = found
    self_name = instance_parameter(construct)
    plain = _plain_attributes(facts, info)
    reads: dict[str, list[str]] = {}
    for node in facts.index.body_nodes_of(construct, (ast.Attribute,)):
        if isinstance(node.ctx, ast.Load) and self_attribute(node, self_name) in plain:
            reads.setdefault(node.attr, [f"{owner.name}.construct"])
    return reads


def _graph_reads(module: ModuleFacts, globals_wanted: bool,
                 attributes_wanted: bool) -> tuple[dict[str, list[str]], dict[tuple[int, str], list[str]]]:
    """Globals holding numbers, and plain number attributes of Cells, that graph code reads."""
    number_globals = {name for name, value in module.module_assignments.items()
                      if _is_number(value)} if globals_wanted else set()
    global_reads: dict[str, list[str]] = {}
    attribute_reads: dict[tuple[int, str], list[str]] = {}
    plain: dict[int, set[str]] = {}
    for function in module.graph_functions:
        if number_globals:
            parameters = {a.arg for a in ast.walk(function.node.args) if isinstance(a, ast.arg)}
            for node in function.nodes_of(ast.Name):
                if (isinstance(node.ctx, ast.Load) and node.id in number_globals and node.id not in function.env
                        and node.id not in parameters):
                    readers = global_reads.setdefault(node.id, [])
                    if function.label not in readers:
                        readers.append(function.label)
        owner = function.owner
        if not attributes_wanted or owner is None or not owner.is_cell or function.self_name is None:
            continue
        if id(owner) not in plain:
            plain[id(owner)] = _plain_attributes(module, owner)
        for node in function.nodes_of(ast.Attribute):
            if isinstance(node.ctx, ast.Load) and self_attribute(node, function.self_name) in plain[id(owner)]:
                readers = attribute_reads.setdefault((id(owner), node.attr), [])
                if function.label not in readers:
                    readers.append(function.label)
    return global_reads, attribute_reads


def _plain_attributes(module: ModuleFacts, owner: ClassInfo) -> set[str]:
    """Attributes every ``__init__`` of the lineage sets to a number: a literal, an argument defaulting to one or
    annotated as one (``temperature: float``), or ``float(...)``/``int(...)`` of anything."""
    found: set[str] = set()
    for info in owner.lineage():
        init = info.methods.get("__init__")
        if init is None:
            continue
        self_name = instance_parameter(init)
        defaults = _number_defaults(init)
        for stmt in module.index.body(init):
            attribute = _assigned_attribute(stmt, self_name)
            if attribute is None or not isinstance(stmt, ast.Assign):
                continue
            value = stmt.value
            if _is_number(value) or (isinstance(value, ast.Name) and value.id in defaults) or (
                    isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                    and value.func.id in ("float", "int") and module.scopes.binding(value.func) is None):
                found.add(attribute)
    return {a for a in found if not any(
        owner.has_attribute(kind, a) for kind in ("tensor_attributes", "cell_attributes", "object_attributes",
                                                  "parameter_attributes"))}


def _number_defaults(function: FunctionNode) -> set[str]:
    """The parameters that take a number: defaulting to one, or annotated ``int``/``float``."""
    args = function.args
    positional = args.posonlyargs + args.args
    names = {a.arg for a, d in zip(reversed(positional), reversed(args.defaults)) if _is_number(d)}
    names |= {a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None and _is_number(d)}
    names |= {a.arg for a in (*positional, *args.kwonlyargs)
              if isinstance(a.annotation, ast.Name) and a.annotation.id in ("int", "float")}
    return names


def _is_number(value: ast.AST | None) -> bool:
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, (ast.USub, ast.UAdd)):
        value = value.operand
    return isinstance(value, ast.Constant) and isinstance(value.value, _NUMBER)


def _plain_value(stmt: ast.AST) -> bool:
    """A write of a number or of a host value (not a tensor built by MindSpore, not a Parameter)."""
    value = stmt.value
    if isinstance(value, ast.Call):
        return value.func.__class__ is ast.Name and value.func.id in ("float", "int", "min", "max", "round")
    return isinstance(value, (ast.Constant, ast.Name, ast.BinOp, ast.UnaryOp, ast.IfExp, ast.Attribute,
                              ast.Subscript))


def _assigned_attribute(stmt: ast.AST, self_name: str | None) -> str | None:
    if self_name is None:
        return None
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(
        stmt, ast.AugAssign) else []
    for target in targets:
        if self_attribute(target, self_name) is not None:
            return target.attr
    return None


def _assigns_name(stmt: ast.AST, name: str) -> bool:
    if isinstance(stmt, ast.Assign):
        return any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets)
    if isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
        return isinstance(stmt.target, ast.Name) and stmt.target.id == name
    return False


def _cell_instances(module: ModuleFacts) -> dict[tuple[int, str], tuple]:
    """(enclosing function id, name) -> (this module's facts, the Cell class) an assignment ``name = Cls(...)`` builds
    for a Cell of this module, or (None, its qualified name) for a Cell of another module of the project (a training
    script driving a model), whose module is read only where a loop drives the instance."""
    instances: dict[tuple[int, str], tuple] = {}
    local_prefix = module.local_prefix
    capitalised = [name for name in module.written_call_names() if name[:1].isupper()]  # how classes are called
    looping: dict[int, bool] = {}  # id(function) -> whether it has a loop, where a host write could be made
    for site in module.calls_written(*capitalised) if capitalised else ():
        assignment = module.assignment_of(site.node)
        target = assignment.targets[0] if assignment is not None and len(assignment.targets) == 1 else None
        if not isinstance(target, ast.Name):
            continue
        function = site.function
        if function is not None and looping.setdefault(id(function), bool(_loops(module, function))) is False:
            continue  # an instance no loop of its function can drive (one at module level every function can)
        built = module.class_of_constructor(site.node)
        if not built or built[1] is None or not built[1].is_cell:
            continue
        if built[2] is module and isinstance(built[1], ClassInfo):
            instances[(id(site.function), target.id)] = (module, built[1])
        elif not built[0].startswith(local_prefix) and not api.is_mindspore(built[0]):
            instances[(id(site.function), target.id)] = (None, built[0])
    return instances


def _loops(module: ModuleFacts, function: FunctionNode | None) -> list[ast.AST]:
    if function is not None:
        return [n for n in module.index.body_nodes_of(function, (ast.For, ast.While))]
    return [n for n in module.tree.body if isinstance(n, (ast.For, ast.While))]


def _loop_body_nodes(loop: ast.AST) -> list[ast.AST]:
    """The nodes of a loop's body, not those of the functions and classes defined in it (no expression contexts)."""
    found = []
    stack = list(loop.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        found.append(node)
        stack.extend(child_nodes(node))
    return found
