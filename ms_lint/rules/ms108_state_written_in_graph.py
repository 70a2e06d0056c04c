"""MS108: attributes and globals written from graph code."""
from __future__ import annotations

import ast
from dataclasses import replace, dataclass
from typing import Iterator

from ms_lint.model import TENSOR, GraphFunction, ModuleFacts
from ms_lint.model.scopes import ASSIGNMENT, PARAMETER
from ms_lint.model.syntax import OPERATOR_SYMBOLS, self_attribute, under
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.rules.base import Rule


_WHOLE = object()  # the statement's own value


@dataclass(frozen=True, kw_only=True)
class GlobalWritten(FindingData):
    """A global written in graph code: its name, the graph function."""

    global_: str = fact(key="global", subject=True)
    function: str

    def message(self) -> str:
        name = self.global_
        return (f"global {name} written in graph code ({self.function}): the graph does not see the write, its reads "
                f"of {name} give the value it had when the graph was compiled (measured at STRICT and LAX: after an "
                "increment a read still gives the old number; a tensor written to a global that held None fails "
                "where it is read, TypeError); keep it in a Parameter updated with ops.assign")


@dataclass(frozen=True, kw_only=True)
class AttributeWritten(FindingData):
    """An attribute of a Cell that is not a Parameter written in its graph code: the attribute, whether the value
    is tensor data, whether LAX updates it on every call (a value built from the state the graph writes), the
    graph function, whether the value is what the input's shapes decide (LAX then gives PyNative's value), the
    name the method gives its instance; ``also``: the other attributes the same block writes with the same
    consequence, each with its line (one finding for them all)."""

    attribute: str = fact(subject=True)
    tensor: bool
    accumulated: bool
    function: str
    shapes_only: bool
    instance: str
    also: list[dict] | None = fact(optional=True)

    @property
    def consequence(self) -> str:
        if self.shapes_only:
            return "LAX gives PyNative's value (the input's shapes decide it; a new shape compiles again)"
        if self.tensor and not self.accumulated:
            return "and under LAX later calls silently see the first call's value"
        return "LAX updates it on every call"

    def message(self) -> str:
        written = f"{self.instance}.{self.attribute}"
        if not self.also:
            return (f"{written} written in graph code ({self.function}) is not a Parameter: fails to compile under "
                    f"STRICT (TypeError; AttributeError if nothing set it before), {self.consequence}; keep it in a "
                    "Parameter updated with ops.assign, or return it")
        others = ", ".join(f"{self.instance}.{other['attribute']} (line {other['line']})" for other in self.also)
        return (f"{written} and {others} written in graph code ({self.function}) are not Parameters: fail to compile "
                f"under STRICT (TypeError; AttributeError if nothing set them before), "
                f"{self.consequence.replace('updates it on', 'updates them on', 1)}; keep them in Parameters updated "
                "with ops.assign, or return them")


@dataclass(frozen=True, kw_only=True)
class ObjectAttributeWritten(FindingData):
    """An attribute of a plain object a Cell holds written in its graph code: ``held.attribute``, ``object``
    (true), the graph function, the name the method gives its instance."""

    attribute: str = fact(subject=True)
    object: bool = fact(for_users=True)
    function: str
    instance: str

    def message(self) -> str:
        held = f"{self.instance}.{self.attribute.rpartition('.')[0]}"
        return (f"{self.instance}.{self.attribute} written in graph code ({self.function}): {held} is a plain Python "
                "object, a constant of the graph: under STRICT a Python value fails to compile; otherwise the write "
                "happens on the first call only and later calls silently see that value (all syntax levels); keep "
                "the state in a Parameter of the Cell updated with ops.assign, or return it")


@dataclass(frozen=True, kw_only=True)
class SetattrWritten(FindingData):
    """``setattr(self, name, value)`` in a Cell's graph code: the attribute (None when the name is not a string
    literal), ``setattr`` (true), the graph function, the name the method gives its instance, the syntax levels
    it is wrong at (LAX too, unless the same constant is written on every call)."""

    attribute: str | None = fact(subject=True)
    setattr: bool = fact(for_users=True)
    function: str
    instance: str
    levels: list[str]

    def message(self) -> str:
        shown = f"{self.instance}.{self.attribute}" if self.attribute is not None else "the attribute"
        lax = (f"; under LAX it runs once more while compiling and graph code reads {shown} as it was then, so later "
               "calls silently see a stale value") if "lax" in self.levels else ""
        return (f"setattr({self.instance}, ...) in graph code ({self.function}) writes {shown}, not a Parameter: "
                f"fails to compile under STRICT{lax}; keep the state in a Parameter updated with ops.assign, or "
                "return it")


@dataclass(frozen=True, kw_only=True)
class ItemWritten(FindingData):
    """``self.cache[key] = value`` in a Cell's graph code on an attribute that is a plain dict or list: the
    attribute, ``item`` (true), the syntax levels it is wrong at (LAX too for a cache filled under an ``if`` that
    reads it), the line of that ``if``, the name the method gives its instance, the graph function."""

    attribute: str = fact(subject=True)
    item: bool = fact(for_users=True)
    levels: list[str] = fact(for_users=True)
    condition_line: int | None = fact(optional=True)
    instance: str
    function: str

    def message(self) -> str:
        written = f"{self.instance}.{self.attribute}"
        lax = (f"under LAX the write never reaches the Cell: {written} stays as it was, so the cache filled under "
               f"the `if` at line {self.condition_line} is filled again on every call" if self.condition_line
               is not None else f"under LAX the write lasts only for the call: {written} on the Cell stays as it was")
        return (f"{written}[...] written in graph code ({self.function}): {written} is not a Parameter, so this fails "
                "to compile under STRICT (TypeError: it \"should be initialized as a 'Parameter' ... to perform "
                f"assign subscript\"); {lax}; keep the state in a Parameter updated with ops.assign, or return it")


@dataclass(frozen=True, kw_only=True)
class TensorItemWritten(FindingData):
    """An item of a Cell's tensor attribute that is not a Parameter written in graph code (``self.buf[:, k] *= m``,
    or through a local name bound to it: ``b = self.buf; b[i] += y``): the attribute, ``item`` (true), the syntax
    levels it is wrong at, the statement's operator (``+=``; ``=`` for a plain write), the local name it is written
    through and the line binding it (None when written as ``self.<attribute>[...]``), the instance's name, the graph
    function."""

    attribute: str = fact(subject=True)
    item: bool = fact(for_users=True)
    levels: list[str] = fact(for_users=True)
    operator: str = fact(for_users=True)
    through: str | None = fact(optional=True)
    bound_line: int | None = fact(optional=True)
    instance: str
    function: str

    def message(self) -> str:
        attribute = f"{self.instance}.{self.attribute}"
        kept = (f"the write goes into a copy, so {attribute} keeps its value from call to call where PyNative "
                "updates it")
        if self.through is not None:
            return (f"`{self.through}[...] {self.operator} ...` in graph code ({self.function}) writes an item of "
                    f"{attribute} ({self.through} is bound to it on line {self.bound_line}), a tensor that is not a "
                    f"Parameter: at STRICT and LAX alike {kept}, without an error; make {attribute} a Parameter "
                    "(graph code writes a Parameter's items in place) or return the new value")
        lax = (f"under LAX {kept}" if "lax" in self.levels
               else f"under LAX the write lasts only for the call: {attribute} on the Cell stays as it was")
        return (f"{attribute}[...] {self.operator} ... in graph code ({self.function}): {attribute} is a tensor, not a "
                "Parameter, so this fails to compile under STRICT (TypeError: it \"should be initialized as a "
                f"'Parameter' ... to perform assign subscript\"); {lax}; make {attribute} a Parameter (graph code "
                "writes a Parameter's items in place) or return the new value")


class StateWrittenInGraph(Rule):
    code = "MS108"
    compiled_only = True
    name = "state-written-in-graph"
    summary = ("a non-Parameter attribute of the Cell (or an item of one, or of a plain object it holds; "
               "`setattr(self, ...)`), or a `global`, written in graph code")
    fix_summary = "keep the state in a `Parameter` updated with `ops.assign`, or return it"
    what = """
        Reports `self.attr = ...` (and `self.attr += ...`) in graph code when `attr` is not a Parameter of the Cell,
        `setattr(self, name, value)` there, writes to an attribute of a plain Python object the Cell holds
        (`self.box.n = ...`), and assignments to names declared `global` in graph code. Writing a Parameter attribute
        is supported, whether `__init__` built it or took it from a project function or a module-level
        registry's method that returns a `Parameter(...)` it builds (`self.lr = parameter_register.register(...)`),
        or a MindSpore base class created it (an `nn.Adam` subclass's `beta1_power`, an `nn.Dense` subclass's
        `weight`; in an optimizer, `self.x = params[i]` of the parameters it was given and
        `self.parameters.clone(...)`). A method graph code calls on `self` counts with the override a subclass
        defines (`self._set_cos_sin_cache(n)` in a rotary embedding's `construct` runs the scaled variant's own
        method on its instances).
        Under `--ms-syntax-level=lax` only what LAX gets wrong is reported: tensor data written into an attribute
        from the inputs alone (`self.cache = x * 2`; not `self.acc = self.acc + x`, nor a value that
        reads another attribute the graph writes), `setattr` with a value that is not a constant, and plain
        objects' attributes.
        An item written into such an attribute (`self.cache[key] = value`) is reported too; under LAX only when an
        `if` on the same attribute guards it (a cache: `if key not in self.cache:`).
        An item of a tensor attribute that is not a Parameter (`self.buf[:, k] = m` under STRICT; `self.buf[:, k]
        *= m` at both levels), and an augmented item write through a local name bound to one (`b = self.buf;
        b[i] += y`, at both levels), are reported; a Parameter's items, and a new tensor's, are not.
    """
    why = """
        The Cell's Python attributes are constants of the compiled graph (measured on MindSpore 2.10 CPU). Under
        STRICT, writing one fails (TypeError: "the member attribute must be of the Parameter type"; AttributeError:
        "object has no attribute" when nothing set the attribute before the graph was built). Under LAX a
        scalar attribute (`self.steps += 1`, `self.a = self.a + 1`), a list or dict display (`self.hist = [x]`) and
        tensor data built from state the graph writes (`self.acc = self.acc + x`, `self.acc += x`, under a tensor
        condition too, or `self.w = x * self.step` with `self.step += 1`) are updated correctly on every call, but an
        attribute given tensor data from the inputs alone (`self.cache = x * 2`) keeps the first call's value: later
        calls silently see stale data (measured on 2.10.0 and 2.7.1 CPU alike). `setattr(self, ...)` fails under
        STRICT (RuntimeError "The third argument should be a dictionary"; ValueError for tensor data); under LAX
        it runs once more while compiling and graph code reads the attribute as it was then (a counter ends one too
        high, outputs use the stale value), which only a constant value survives. An attribute of a plain object
        (`self.box.n = self.box.n + 1`) is written on the first call only, at both levels (a Python value fails
        under STRICT). A `global` written in graph code is not seen by the graph's reads, at every level: they give
        the value the global had when the graph was compiled (`N += 1; return x * N` returns `x * 0` on every call),
        and a tensor written to a global that held None fails where it is read (TypeError on None; 2.10 and 2.7.1,
        tests/test_ground_truth_messages.py).
        The Parameters MindSpore's base classes create are updated in place at both levels (`*=` on an `nn.Adam`
        subclass's `beta1_power`, on `self.first = params[0]` of an `nn.Optimizer`; measured 2.10 and 2.7.1 CPU,
        tests/test_ground_truth_values.py).
        An item written into a plain attribute (`self.cache["k"] = x * 2`, a dict or list set in `__init__`) fails
        under STRICT (TypeError: "self.cache should be initialized as a 'Parameter' in the '__init__' function to
        perform assign subscript"); under LAX the write lasts only for the call and the Cell's attribute stays
        empty, so `if "k" not in self.cache: self.cache["k"] = ...` computes the value again on every call where
        PyNative keeps the first one (measured 2.10 CPU).
        An item of a tensor attribute that is not a Parameter (measured 2.10.0 and 2.7.1 CPU,
        tests/test_ground_truth_tensor_items.py): `self.buf[:, 1] += x` and `self.buf[0, 0] = x` fail under STRICT
        with the same TypeError; under LAX the write goes into a copy, so `self.buf[:, 1] += x` returns the same sum
        on every call and `self.buf` stays zero, where PyNative accumulates (4, 8, 12); through `held = self.buf;
        held[:, 1] += x` graph code writes into a copy at both levels, without an error. A Parameter's items are
        written in place at both levels, directly and through a name, as in PyNative.
    """
    example = """
        class Net(nn.Cell):
            def construct(self, x):
                self.last_input = x
                return x * 2
    """
    use_instead = """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.last_input = Parameter(ops.zeros((2, 3)), requires_grad=False)

            def construct(self, x):
                ops.assign(self.last_input, x)
                return x * 2
    """

    records = (GlobalWritten, AttributeWritten, ObjectAttributeWritten, SetattrWritten, ItemWritten,
               TensorItemWritten)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        for function in module.graph_functions:
            declared_global = {name for node in function.nodes_of(ast.Global) for name in node.names}
            written = []
            for node in function.nodes_of(ast.Assign, ast.AugAssign, ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if target.__class__ is ast.Name and target.id not in declared_global:
                        continue  # a local name: most targets, and nothing to report
                    written.extend(self._written(module, function, node, target, declared_global))
            for statement, data in _one_per_block(function, written):
                yield self.report(module, statement, data)
            if function.owner is not None and function.owner.is_cell:
                for call in function.nodes_of(ast.Call):
                    data = _setattr_written(module, function, call)
                    if data is not None:
                        yield self.report(module, call, data)

    def _written(self, module: ModuleFacts, function: GraphFunction, statement: ast.AST, target: ast.AST,
                 declared_global: set[str], value: ast.AST | None = _WHOLE) -> Iterator[tuple[ast.AST, FindingData]]:
        """Each write of state ``target`` makes: (the statement, its record)."""
        """``value``: what ``target`` is given; the statement's whole value unless the target is one element of an
        unpacking (then its element of a literal tuple, or None when the value's parts are unknown:
        ``inv_freq, self.scaling = init(config, seq_len)`` gives no sign that ``self.scaling`` holds a tensor)."""
        if value is _WHOLE:
            value = getattr(statement, "value", None)
        if isinstance(target, (ast.Tuple, ast.List)):
            parts = value.elts if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts) \
                and not any(isinstance(e, ast.Starred) for e in (*value.elts, *target.elts)) else None
            for index, element in enumerate(target.elts):
                yield from self._written(module, function, statement, element, declared_global,
                                         parts[index] if parts is not None else None)
            return
        if isinstance(target, ast.Name) and target.id in declared_global:
            yield statement, GlobalWritten(global_=target.id, function=function.label)
        elif (self_attribute(target, function.self_name) is not None and function.owner is not None
              and function.owner.is_cell
              and not module.is_parameter_attribute(function.owner, target.attr)):
            if _cell_built_here(module, function, value):
                return  # a Cell built in graph code and stored: MS106 reports it (it fails at every level)
            if module.returns_parameter(function.owner.attribute_constructor(target.attr)):
                return  # a Parameter a project function made (``self.lr = registry.register(...)``): assignable
            tensor = function.kind(value) == TENSOR or (
                isinstance(statement, ast.AugAssign) and function.kind(target) == TENSOR)
            shapes_only = tensor and _from_shapes_only(module, function, value)
            if shapes_only and not function.strict:
                return  # a cache of what the shapes decide: LAX recompiles per shape and sees the same value
            # Under LAX a value built from state the graph writes (``self.acc = self.acc + x``, ``self.acc += x``,
            # ``self.w = x * self.step`` with ``self.step += 1``) and a list or dict display (``self.hist = [x]``)
            # are updated on every call; tensor data from the inputs alone is not (measured 2.10.0, 2.7.1 CPU).
            lax_updates = isinstance(statement, ast.AugAssign) or isinstance(value, (ast.List, ast.Dict)) or (
                _reads_written_state(function, statement, value))
            if not (shapes_only or tensor and not (lax_updates and not function.strict) or function.strict):
                return  # a number, or a tensor computed from its own value, written under LAX: updated correctly
            yield statement, AttributeWritten(
                attribute=target.attr, tensor=tensor, accumulated=tensor and lax_updates, function=function.label,
                shapes_only=shapes_only, instance=function.self_name)
        elif isinstance(target, ast.Subscript):
            data = _item_written(module, function, statement, target)
            if data is not None:
                yield statement, data
        elif isinstance(target, ast.Attribute) and self_attribute(target.value, function.self_name) is not None and (
                function.owner is not None and function.owner.is_cell
                and function.object_type(target.value) is not None):
            yield statement, ObjectAttributeWritten(
                attribute=f"{target.value.attr}.{target.attr}", object=True, function=function.label,
                instance=function.self_name)


def _one_per_block(function: GraphFunction, written: list[tuple[ast.AST, FindingData]]
                   ) -> list[tuple[ast.AST, FindingData]]:
    """One finding for the attributes one block of statements writes with the same consequence (``self.cos_cached
    = ...; self.sin_cached = ...``, one cache rebuilt): the first write's, naming the others in its ``also``; one
    fix serves them all. Writes on the two sides of an ``if`` (two blocks) stay apart."""
    if sum(isinstance(data, AttributeWritten) for _, data in written) < 2:
        return written
    place = _statement_places(function.node)  # id(statement) -> (id(its block), its index there)
    runs: list[list[tuple[ast.AST, AttributeWritten]]] = []  # each: the writes of one block with one consequence
    open_runs: dict[tuple, list] = {}  # (block, the facts its message says besides the attribute) -> its run
    result: list[tuple[ast.AST, FindingData]] = []
    for statement, data in written:
        where = place.get(id(statement)) if isinstance(data, AttributeWritten) else None
        if where is None:
            result.append((statement, data))
            continue
        key = (where[0], data.instance, data.function, data.consequence)
        run = open_runs.get(key)
        if run is not None:
            run.append((statement, data))
            continue
        open_runs[key] = [(statement, data)]
        runs.append(open_runs[key])
        result.append((statement, data))
    for (statement, first), *rest in runs:
        if rest:
            also = [{"attribute": data.attribute, "line": other.lineno} for other, data in rest]
            result[result.index((statement, first))] = (statement, replace(first, also=also))
    return result


def _statement_places(function: ast.AST) -> dict[int, tuple[int, int]]:
    """Each statement of ``function`` (nested blocks too, not nested definitions): (id of the list of statements
    holding it, its index there)."""
    places: dict[int, tuple[int, int]] = {}
    stack = [function]
    while stack:
        node = stack.pop()
        for field in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(node, field, None)
            if isinstance(block, list):
                for index, statement in enumerate(block):
                    places[id(statement)] = (id(block), index)
                    if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                        stack.append(statement)
    return places


def _cell_built_here(module: ModuleFacts, function: GraphFunction, value: ast.AST | None) -> bool:
    """``value`` builds a Cell (``nn.Dense(3, 3)``), directly or through the local name bound to it."""
    if isinstance(value, ast.Name):
        value = module.value_bound_to(value, function.node, function.owner)
    return isinstance(value, ast.Call) and module.builds_cell(value)


def _reads_written_state(function: GraphFunction, statement: ast.AST, value: ast.AST | None) -> bool:
    """Whether ``value`` reads an attribute of ``self`` that this function writes (the written one itself, or a
    counter: ``self.acc = self.acc + x``, ``self.w = x * self.step``), directly or through a local name bound to such
    a read before ``statement`` (``old = self.acc; self.acc = old + x``; ``out, state = self.scan(x, self.state)``)."""
    if value is None:
        return False
    written = {target.attr for node in function.nodes_of(ast.Assign, ast.AugAssign)
               for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
               if self_attribute(target, function.self_name) is not None}

    def reads(expr: ast.AST) -> bool:
        return any(self_attribute(node, function.self_name) in written for node in ast.walk(expr))

    if reads(value):
        return True
    names = {node.id for node in ast.walk(value) if isinstance(node, ast.Name)}
    return any(isinstance(bound, ast.Name) and bound.id in names and assignment.lineno < statement.lineno
               and reads(assignment.value)
               for assignment in function.nodes_of(ast.Assign) for target in assignment.targets
               for bound in ast.walk(target))


def _setattr_written(module: ModuleFacts, function: GraphFunction, call: ast.Call) -> SetattrWritten | None:
    """``setattr(self, name, value)`` in a Cell's graph code. STRICT refuses it (RuntimeError "The third argument
    should be a dictionary" for a Python value, ValueError for tensor data); LAX runs it once more while compiling
    and the graph reads ``self.<name>`` as the value it had then (measured 2.10, 2.7.1 CPU): only a constant value
    written again and again comes out right."""
    if not (isinstance(call.func, ast.Name) and call.func.id == "setattr" and len(call.args) == 3
            and isinstance(call.args[0], ast.Name) and call.args[0].id == function.self_name
            and module.qualname(call.func) in (None, "setattr", "builtins.setattr")):
        return None
    name, value = call.args[1], call.args[2]
    attribute = name.value if isinstance(name, ast.Constant) and isinstance(name.value, str) else None
    if attribute is not None and module.is_parameter_attribute(function.owner, attribute):
        return None
    constant = isinstance(value, ast.Constant)
    if constant and not function.strict:
        return None  # the same constant on every call: LAX gives the Cell what PyNative gives it
    return SetattrWritten(attribute=attribute, setattr=True, function=function.label, instance=function.self_name,
                          levels=["strict"] if function.strict and constant else ["strict", "lax"])


_SHAPE_ATTRIBUTES = frozenset({"shape", "dtype", "ndim"})
_MINDSPORE_DATA_FREE = ("mindspore.",)
# MindSpore functions that draw a new value on every call (with those named ``*rand*`` and ``*seed*``).
_DRAWS = frozenset({"normal", "uniform", "multinomial", "bernoulli", "dropout", "gamma", "poisson", "shuffle"})


def _from_shapes_only(module: ModuleFacts, function: GraphFunction, value: ast.AST | None,
                      _seen: frozenset = frozenset(), _depth: int = 0) -> bool:
    """Whether ``value`` is computed from no tensor data of the call: only from shapes, dtypes (``x.shape[1]``,
    ``.type_as(x)``, ``x.dtype``), constants, the Cell's attributes that only ``__init__`` sets and are no
    Parameters (``self.inv_freq``), and MindSpore functions and tensor methods of those (``mint.arange(n)``,
    ``emb.cos()``), through the function's own local names and the parameters of a helper whose graph callers pass
    them no tensor data (``self._set_cos_sin_cache(x.shape[1])``). Such a value is what the input's shapes decide: under
    LAX the graph is compiled again for each new shape, so a cached copy equals what PyNative computes (measured
    2.10 and 2.7.1 CPU). A parameter read for its data, a sub-cell or method call, or a random function is data."""
    if value is None:
        return False
    stack = [value]
    while stack:
        node = stack.pop()
        node_type = node.__class__
        if node_type is ast.Attribute:
            if node.attr in _SHAPE_ATTRIBUTES:
                continue
            if self_attribute(node, function.self_name) is not None:
                writes = [method for info in function.owner.lineage()
                          for method, _ in info.attribute_writes.get(node.attr, ())]
                if any(method not in ("__init__", "<class body>") for method in writes) or (
                        function.owner.has_attribute("parameter_attributes", node.attr)
                        or node.attr in function.owner.cell_attributes):
                    return False
                continue
        elif node_type is ast.Subscript and isinstance(node.value, ast.Attribute) and (
                node.value.attr in _SHAPE_ATTRIBUTES):
            continue  # one dimension of a shape, whatever the index
        elif node_type is ast.Call:
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "type_as":
                stack.append(func.value)  # the argument gives its dtype only
                continue
            qualname = module.qualname(func)
            if qualname is not None:
                name = qualname.rsplit(".", 1)[-1]
                if not qualname.startswith(_MINDSPORE_DATA_FREE) and qualname != f"builtins.{name}" or (
                        "rand" in name or "seed" in name or name in _DRAWS):
                    return False
            elif isinstance(func, ast.Name) and module.scopes.binding(func) is None:  # a builtin
                if func.id == "len":
                    continue
            elif not isinstance(func, ast.Attribute) or self_attribute(func, function.self_name) is not None:
                return False  # a local function, a sub-cell, a method of the Cell, or a call of a call's result
            stack.extend(ast.iter_child_nodes(node))
            continue
        elif node_type is ast.Name:
            binding = module.scopes.binding(node)
            if binding is None or binding.scope.node is not function.node:
                continue  # a builtin, a module's import or constant
            if node.id in _seen:
                continue
            for other in binding.scope.bindings[node.id]:
                if other.kind == PARAMETER and _passed_shapes_only(module, function, node.id, _depth + 1):
                    continue  # a helper's parameter its graph callers give a shape or a constant (``seq_len``)
                if other.kind != ASSIGNMENT or other.value is None or not _from_shapes_only(
                        module, function, other.value, _seen | {node.id}, _depth):
                    return False
            continue
        elif node_type in (ast.Lambda, ast.ListComp, ast.GeneratorExp, ast.DictComp, ast.SetComp, ast.NamedExpr):
            return False
        stack.extend(ast.iter_child_nodes(node))
    return True


def _passed_shapes_only(module: ModuleFacts, function: GraphFunction, name: str, depth: int) -> bool:
    """Whether every graph caller of the helper ``function`` passes its parameter ``name`` a value computed from
    shapes and constants only (``self._set_cos_sin_cache(x.shape[1])``): not a root, whose inputs are data."""
    if function.as_root is not None or not function.passed_by or depth > 4:
        return False
    parameters = [argument.arg for argument in function.node.args.posonlyargs + function.node.args.args]
    for caller_id in function.passed_by:
        caller = module._graph_by_node.get(caller_id)
        if caller is None:
            return False
        calls = [call for call, target, _, _ in module.calls_from(caller) if target is function.node]
        if not calls:
            return False
        for call in calls:
            bound = isinstance(call.func, ast.Attribute) and parameters[:1] == [function.self_name]
            position = parameters.index(name) - bound if name in parameters else -1
            passed = next((k.value for k in call.keywords if k.arg == name), None)
            if passed is None and 0 <= position < len(call.args) and not any(
                    isinstance(a, ast.Starred) for a in call.args[:position + 1]):
                passed = call.args[position]
            if passed is None or not _from_shapes_only(module, caller, passed, frozenset(), depth):
                return False
    return True


def _item_written(module: ModuleFacts, function: GraphFunction, statement: ast.AST,
                  target: ast.Subscript) -> FindingData | None:
    """``self.cache[key] = value`` on an attribute that is not a Parameter: STRICT refuses it; under LAX the write
    never reaches the Cell, so a cache filled under a condition on it stays empty and is recomputed every call.
    An item of a tensor attribute (``self.buf[i] += y``, or through ``b = self.buf``): see ``_tensor_item_written``."""
    held = target.value
    if isinstance(held, ast.Name):
        return _tensor_item_written(module, function, statement, held)
    if not (self_attribute(held, function.self_name) is not None and function.owner is not None
            and function.owner.is_cell):
        return None
    attribute = held.attr
    if not _plain_container(module, function.owner, attribute):
        return _tensor_item_written(module, function, statement, held)
    cache = _cache_condition(function, statement, attribute)
    if not function.strict and cache is None:
        return None  # under LAX the item is written for the rest of the call, which is what it reads
    return ItemWritten(attribute=attribute, item=True, levels=["strict", "lax"] if cache is not None else ["strict"],
                       condition_line=cache.lineno if cache is not None else None, instance=held.value.id,
                       function=function.label)


def _tensor_item_written(module: ModuleFacts, function: GraphFunction, statement: ast.AST,
                         held: ast.AST) -> TensorItemWritten | None:
    """An item written into a tensor attribute of the Cell that is not a Parameter (measured 2.10.0 and 2.7.1 CPU):
    ``self.buf[...] = v`` and ``self.buf[...] += v`` fail under STRICT; under LAX the write goes into a copy, so an
    accumulation (``+=``) never reaches the attribute; through a local name bound to it (``b = self.buf``) the write
    goes into a copy at both levels, without an error. A plain item write through a name, and one under LAX, last
    for the call, which is what it reads: not reported."""
    owner = function.owner
    if owner is None or not owner.is_cell:
        return None
    through = None
    if isinstance(held, ast.Name):
        if not isinstance(statement, ast.AugAssign):
            return None
        bound = module.value_bound_to(held, function.node, owner)
        if self_attribute(bound, function.self_name) is None:
            return None
        through, held = held.id, bound
    attribute = held.attr
    if not owner.has_attribute("tensor_attributes", attribute) or module.is_parameter_attribute(owner, attribute) \
            or module.returns_parameter(owner.attribute_constructor(attribute)):
        return None
    augmented = isinstance(statement, ast.AugAssign)
    if through is None and not augmented and not function.strict:
        return None
    operator = f"{OPERATOR_SYMBOLS.get(type(statement.op), '?')}=" if augmented else "="
    return TensorItemWritten(
        attribute=attribute, item=True, levels=["strict", "lax"] if augmented else ["strict"], operator=operator,
        through=through, bound_line=held.lineno if through is not None else None, instance=held.value.id,
        function=function.label)


_CONTAINER_TYPES = frozenset({"builtins.dict", "builtins.list", "collections.OrderedDict", "collections.defaultdict"})


def _plain_container(module: ModuleFacts, owner, attribute: str) -> bool:
    """Whether every write of ``self.<attribute>`` in the Cell's classes puts a plain dict or list there (``{}``,
    ``[None] * n``, ``dict()``): what a factory returns may be a Parameter."""
    writes = [value for info in owner.lineage() for _, value in info.attribute_writes.get(attribute, ())]
    return bool(writes) and all(_builds_container(module, value) for value in writes)


def _builds_container(module: ModuleFacts, value: ast.AST | None) -> bool:
    if isinstance(value, (ast.Dict, ast.List, ast.DictComp, ast.ListComp)):
        return True
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult):
        return _builds_container(module, value.left) or _builds_container(module, value.right)
    return isinstance(value, ast.Call) and module.qualname(value.func) in _CONTAINER_TYPES


def _cache_condition(function: GraphFunction, statement: ast.AST, attribute: str) -> ast.If | None:
    """The ``if`` around ``statement`` whose condition reads ``self.<attribute>`` (``if key not in self.cache:``)."""
    for branch in function.nodes_of(ast.If):
        if under(branch, statement.lineno) and any(
                self_attribute(node, function.self_name) == attribute for node in ast.walk(branch.test)):
            return branch
    return None
