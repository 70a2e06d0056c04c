"""ModuleFacts: everything the rules ask about one module, computed once per file from its layers (names,
classes, graph code) over one pre-order pass of the tree."""
from __future__ import annotations

import ast
import os
import weakref
from bisect import bisect_left, bisect_right
from itertools import islice
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.model.classes import CELL_METHODS_RETURNING_SELF, BuiltClass, ClassFacts, ClassInfo
from ms_lint.model.containers import PlainContainer, plain_containers
from ms_lint.model.project import (answer, find_module_file, keep_checked, project_function, project_instance_method,
                                   use_module_facts)
from ms_lint.model.graph import EagerFunction, GraphCode, GraphFunction
from ms_lint.model.layers import LayerReads
from ms_lint.model.scopes import ASSIGNMENT, CLASS, FUNCTION, Binding, Scope, Scopes, module_name_of
from ms_lint.model.source import source_lines
from ms_lint.model.syntax import (FunctionNode, NodeIndex, first_argument, holds_line, leaves_before, main_guard,
                                  on_other_branches, self_attribute)
from ms_lint.settings import Settings
from ms_lint.target import (Target, entries_running, is_test_path, reached_from, sets_training,
                            target_from_settings)

# The nodes the module's index records (see ModuleFacts._index).
_INDEXED_NODE_TYPES = frozenset({ast.Assign, ast.Import, ast.ImportFrom, ast.ClassDef, ast.FunctionDef,
                                 ast.AsyncFunctionDef, ast.Global, ast.AnnAssign, ast.AugAssign, ast.For,
                                 ast.AsyncFor, ast.withitem})


_UNRESOLVED = object()
# what training_calls looks for besides optimizers and TrainOneStep cells
_TRAINING_CALL_NAMES = frozenset({"Model", "grad", "value_and_grad", "GradOperation", "build_train_network", "train"})


class CallSite:
    """One call of the module (tens of thousands per project), and where it stands."""

    __slots__ = ("node", "_qualname", "_around", "_module", "_position")

    def __init__(self, node: ast.Call, module: "weakref.ref[ModuleFacts]", position: int):
        self.node = node
        self._qualname = _UNRESOLVED
        self._around: tuple[FunctionNode | None, ClassInfo | None] | None = None
        # weak: the module keeps its call sites, and a cycle would keep its tree alive until a full collection
        self._module = module
        self._position = position  # in the module's index

    @property
    def qualname(self) -> str | None:
        """The qualified name of the callee, resolved when first asked: most calls never are."""
        qualname = self._qualname
        if qualname is _UNRESOLVED:
            qualname = self._qualname = self._module().qualname(self.node.func)
        return qualname

    @property
    def function(self) -> FunctionNode | None:
        """The innermost function around the call, None at module or class level (found when first asked)."""
        return (self._around or self._find_code_around())[0]

    @property
    def owner(self) -> ClassInfo | None:
        """The innermost class around the call."""
        return (self._around or self._find_code_around())[1]

    def _find_code_around(self) -> tuple[FunctionNode | None, ClassInfo | None]:
        around = self._around = self._module().code_around(self._position)
        return around


class ModuleFacts(ClassFacts, GraphCode):
    """Everything the rules ask about one module. Build once per file; every rule reads it."""

    def __init__(self, tree: ast.Module, path: str, settings: Settings, source: str = "", graph_code: bool = True,
                 outline: bool = False, lines: list[str] | None = None, callers_elsewhere: bool = True):
        """``graph_code``: find the graph code (another module's facts, read for its classes, need not);
        ``outline``: read only what the module and its classes define and import, not what functions hold (all
        another module's summary needs); implies no graph code. ``lines``: the source's lines, where the caller has
        them already (flake8 does). ``callers_elsewhere``: ask the project's other modules which functions of this
        one their graph code calls (the project index reads them without asking it again)."""
        self.tree = tree
        self.path = path
        self.settings = settings
        self.source = source
        self._lines: list[str] | None = lines
        self.module_name, self.package = module_name_of(path)
        self.local_prefix = (self.module_name or "<module>") + "."
        self.names: dict[str, str] = {}
        self.classes: dict[str, ClassInfo] = {}
        self.functions: dict[str, FunctionNode] = {}
        self.module_assignments: dict[str, ast.AST] = {}
        # Each call of the module and its position in the index; its CallSite, with the function and class around
        # it, is made when asked for (most never are: a flake8 run pays for every object a file's analysis keeps).
        self._call_nodes: list[ast.Call] = []
        self._call_positions: list[int] = []
        self._call_sites: list[CallSite | None] = []
        # the definitions' bodies as (start, end, (function, class) of the code inside, index of the one around it),
        # by start: made when the first call site is
        self._definition_bodies: list[tuple[int, int, tuple, int]] | None = None
        self._definition_starts: list[int] = []
        self._all_calls: list[CallSite] | None = None
        self._renamed_callees: list[str] | None = None
        self.class_of_function: dict[int, ClassInfo] = {}
        self._enclosing: list[tuple[ast.AST, ClassInfo | None]] = []
        self._scope_by_line: list[str] | None = None
        self._assignment_of_value: dict[int, ast.Assign] | None = None  # filed on first use
        self._setter_names_written: str | None = None  # see ClassFacts._setter_lines
        self.index = NodeIndex(tree, outline, _INDEXED_NODE_TYPES)
        self._layer_reads: LayerReads | None = None
        self.scopes = Scopes(tree, self.local_prefix, self.package)
        self.qualname = self.scopes.qualname  # asked hundreds of times per file: no wrapper call in between
        self._start_answers()
        self._index()
        self._resolve_classes()
        self.callers_elsewhere = callers_elsewhere
        self._target: Target | None = None
        self.mode_inferred = False
        self.mode = self._mode() if graph_code and not outline else ""
        if graph_code and not outline:
            self._find_graph_code()

    def _start_answers(self) -> None:
        """Empty the answers the questions fill in as they are asked: those that may rest on the project's other
        modules (what their classes are, what they build), and the graph code. The module's own structure (tree,
        index, scopes, classes and what they derive from) stays."""
        # qualified name -> what class_of_constructor says; asked for every call, answered once per name
        self._classes_named: dict[str, BuiltClass | None] = {}
        self._classes_of: dict[str, tuple | None] = {}  # qualified name -> what class_of answered
        self._cell_methods_named: dict[str, tuple | None] = {}  # method name -> what cell_method_named answered
        self._imported_cell_classes: list | None = None  # the project's Cell classes this module imports
        self._never_run: frozenset[str] | None = None  # the classes and functions its application never runs
        self._unrun_lines: list[tuple[int, int]] | None = None  # the lines of the code it never runs
        self._dead_built: dict[tuple[str, int], bool] = {}  # (name, depth) -> ``built_only_in_dead_code``
        self._attribute_uses: dict[str, int] | None = None  # name -> how often the module's code names ``x.<name>``
        self._uncalled_sub_cells: frozenset[str] | None = None  # ``sub_cells_never_called``
        self._uncalled_methods: dict[int, bool] = {}  # id(method) -> ``method_never_called``
        self._unchosen_entries: dict[tuple[str, str], bool] = {}  # ``registry_entry_never_chosen``
        self._application_trains: bool | None = None
        self._training_stays_off: bool | None = None
        self._sub_cells: dict[str, set[str]] | None = None
        self._sub_cell_of: dict[tuple[int, str], tuple[ClassInfo, ...]] = {}  # (id(class), attribute) -> sub-cells
        self._choice_assignment_of: dict[int, ast.Assign] | None = None
        self._overrides_of: dict[tuple[int, str], list] = {}  # (id(class), method) -> subclasses' own versions
        self._keyword_arguments: dict[str, object] | None = None
        self._mutations: dict[str, dict[str, str]] = {}
        self.graph_functions: list[GraphFunction] = []
        self._graph_by_node: dict[int, GraphFunction] = {}
        self.cell_roots: set[str] = set()  # the labels of the roots that are a Cell's construct or bprop
        self.roots_elsewhere: set[str] = set()  # the labels of the roots in the project's other modules
        # the construct a Cell inherits from a mixin of another module: ((facts, class, method), label, only
        # GRAPH_MODE compiles it, strict), for that module to find (``outgoing_calls``)
        self._inherited_roots: list[tuple] = []
        self._values_unknown: set[int] = set()  # id(node) of graph functions whose parameters may hold anything
        self._plain_containers: list[PlainContainer] | None = None
        self._return_kinds: dict[tuple, str | None] = {}
        self._returns_in_progress: set[int] = set()
        self._cut_short = False  # a look-up under way met the recursion guard
        self._answers_cut_short: list[tuple] = []
        self._cuts = 0  # how many times a look-up met the recursion guard
        # (id(function), id(class), its parameters' kinds) -> (environment, objects) of a function without dead
        # branches, computed with no answer the recursion guard shaped
        self._environments: dict[tuple, tuple[dict, dict]] = {}
        self._eager_functions: list[EagerFunction] | None = None
        self._constructors: dict[int, object] = {}  # id(__init__) -> it, folded (``in_dead_branch``)
        self._call_graph: _CallGraph | None = None
        for info in self.classes.values():
            info.start_attributes(self)

    def renew(self, path: str | None = None) -> None:
        """Ready facts kept from an earlier file's analysis for the next one (``project.ProjectIndex`` keeps them
        for a run): every answer that may rest on other modules is asked again, so that the next analysis makes,
        and records, its own lookups of them. ``path``: the name the module goes by from now on (a checked file's,
        or the file's own)."""
        if path is not None and path != self.path:
            self.path = path
            self._target = None
        self._start_answers()

    def find_graph_code(self) -> None:
        """Find the graph code of facts built without it (another module's, now checked in its turn)."""
        if not self.graph_functions:
            if not self.mode:
                self.mode = self._mode()
            self._find_graph_code()

    def release(self) -> None:
        """Untie the cycles between these facts and their graph functions once the rules are done, so that the
        memory returns when the last reference goes instead of lingering for the garbage collector (which a
        flake8 run would then keep rescanning, file after file). Facts the run keeps for the questions of the
        files checked later stay, without their answers."""
        self.graph_functions = []
        self._graph_by_node = {}
        self._eager_functions = None
        self._constructors = {}
        self._classes_named = {}
        self._classes_of = {}
        self._cell_methods_named = {}
        self._imported_cell_classes = None
        self._call_graph = None
        self._layer_reads = None
        keep_checked(self)

    # -- indexing: one walk over the module ---------------------------------------------------------------

    def _index(self) -> None:
        nodes = self.index.nodes
        recorded = self.index.recorded
        scopes = self.scopes
        module_scope = scopes.module
        body_starts, ends = self.index.body_starts_and_ends()
        class_starts = self.index.class_positions()
        enclosing = self._enclosing
        bind, bind_statement, open_scope = scopes.bind, scopes.bind_statement, scopes.open
        # (position where it ends, innermost function, innermost class, scope) of the definitions around a position
        contexts: list[tuple[int, FunctionNode | None, ClassInfo | None, Scope]] = [
            (len(nodes), None, None, module_scope)]
        context_end, function, owner, scope = contexts[-1]
        class_body: tuple[int, int, ClassInfo, Scope] | None = None  # a class whose header is being read
        class_bindings: list[tuple[Binding, ClassInfo]] = []
        numbered = enumerate(recorded)
        for index_position, position in numbered:
            node = nodes[position]
            if class_body is not None and position >= class_body[0]:
                # A class's bases and decorators belong to the code around it; its body to the class.
                contexts.append((class_body[1], None, class_body[2], class_body[3]))
                context_end, function, owner, scope = contexts[-1]
                class_body = None
            if position >= context_end:
                while position >= contexts[-1][0]:
                    contexts.pop()
                context_end, function, owner, scope = contexts[-1]
            node_type = node.__class__
            if node_type is ast.Assign:
                bind_statement(scope, node)
                if scope is module_scope:
                    for target in node.targets:
                        if target.__class__ is ast.Name:
                            self.module_assignments.setdefault(target.id, node.value)
            elif node_type is ast.ClassDef:
                info = ClassInfo(node.name, node, self)
                # the name is bound once the class statement has run: its bases still see the binding before it
                # (``class Output(Output):`` derives from the imported Output)
                binding = bind(scope, node.name, CLASS, (node.end_lineno, node.end_col_offset), node)
                class_bindings.append((binding, info))
                enclosing.append((node, info))
                class_body = (body_starts[id(node)], ends[id(node)], info, open_scope(node, scope))
            elif node_type is ast.FunctionDef or node_type is ast.AsyncFunctionDef:
                if owner is not None and function is None:
                    owner.methods.setdefault(node.name, node)
                    self.class_of_function[id(node)] = owner
                elif scope is module_scope:
                    self.functions[node.name] = node  # the definition in force once the module has run
                bind(scope, node.name, FUNCTION, (node.end_lineno, node.end_col_offset), node)
                enclosing.append((node, owner))
                end = ends[id(node)]
                first_class = bisect_right(class_starts, position)
                if first_class < len(class_starts) and class_starts[first_class] < end:
                    contexts.append((end, node, owner, open_scope(node, scope)))  # a class inside: made now
                    context_end, function, owner, scope = contexts[-1]
                    continue
                # Deferred: what its code (functions inside included) binds is noted, and the pass goes on after it.
                last = bisect_left(recorded, end, index_position)
                scopes.note_parameters(node)
                scopes.defer(node, scope, nodes, recorded, index_position + 1, last, ends)
                inside = recorded[index_position + 1:last]
                if inside:
                    enclosing.extend([(definition, owner)
                                      for definition in scopes.note_deferred_statements(nodes, inside)])
                    next(islice(numbered, len(inside), len(inside)), None)
            else:
                bind_statement(scope, node)
        scopes.finish()
        self._key_classes(class_bindings)
        self.names = scopes.module_imports()
        self._call_positions = self.index.positions_of(ast.Call)
        self._call_nodes = [nodes[position] for position in self._call_positions]
        self._call_sites = [None] * len(self._call_nodes)

    def _key_classes(self, class_bindings: list[tuple["Binding", ClassInfo]]) -> None:
        """Give every class its key in ``classes``: its path as Python's ``__qualname__`` writes it (``Net``,
        ``test_a.<locals>.Net``); a class redefined in the same scope keeps the plain key for the definition in
        force at the end of the scope, the earlier ones get ``Net@<line>``."""
        for binding, info in class_bindings:
            later = binding.scope.bindings[binding.name]
            redefined = any(other.kind == CLASS and other.position > binding.position for other in later)
            info.key = binding.scope.path + info.name + (f"@{info.node.lineno}" if redefined else "")
            binding.qualname = self.local_prefix + info.key
            self.classes[info.key] = info

    def qualname(self, expr: ast.AST | None) -> str | None:
        """The qualified name ``expr`` (a Name or dotted Attribute) is bound to where it is used, or None."""
        return self.scopes.qualname(expr)

    def layer_read(self, node: ast.Attribute, function: FunctionNode | None, owner: ClassInfo | None) -> str | None:
        """The MindSpore layer the attribute read ``node`` (in ``function`` of ``owner``) is made on, where the code
        says which (``LayerReads.layer_read``: ``self.fc.<name>`` of ``self.fc = nn.Dense(...)``, ``m.<name>`` in
        ``if isinstance(m, nn.Dense):``)."""
        if self._layer_reads is None:
            self._layer_reads = LayerReads(self)
        return self._layer_reads.layer_read(node, function, owner)

    def local_class(self, qualname: str | None) -> ClassInfo | None:
        """The class of this module that ``qualname`` names."""
        if qualname and qualname.startswith(self.local_prefix):
            return self.classes.get(qualname[len(self.local_prefix):])
        return None

    def is_host_library(self, qualname: str | None) -> bool:
        """``qualname`` names an object of a host library (numpy, torch...), not one of this module's own: a script
        called ``statistics.py`` defines ``statistics.Box`` itself."""
        return api.is_host_library(qualname) and not qualname.startswith(self.local_prefix)

    def imports_a_host_library(self) -> bool:
        """Whether the module imports a host library anywhere: a name can be bound to a host library's object only
        through an import that names it."""
        return not self.scopes.imported_packages.isdisjoint(api.HOST_LIBRARIES)

    def uses_torch(self) -> bool:
        """Whether the module imports PyTorch (or a PyTorch shim such as ``mindtorch``): its tensors may be PyTorch's,
        whose methods take other arguments."""
        return any(qualname.split(".", 1)[0] in ("torch", "mindtorch") for qualname in self.names.values())

    def local_function(self, expr: ast.AST) -> FunctionNode | None:
        """The function of this module (at any depth) that the name ``expr`` calls where it is used."""
        if not isinstance(expr, ast.Name):
            return None
        binding = self.scopes.binding(expr)
        return binding.value if binding is not None and binding.kind == FUNCTION else None

    def local_name_for(self, qualname: str) -> str | None:
        """A name this module already binds to ``qualname`` (``nn`` for ``mindspore.nn``), if any."""
        for name, bound in self.names.items():
            if bound == qualname:
                return name
        return None

    def assignment_of(self, value: ast.AST) -> ast.Assign | None:
        """The assignment statement whose right-hand side is ``value``."""
        by_value = self._assignment_of_value
        if by_value is None:  # most modules never ask: the statements are filed by value only when one does
            nodes = self.index.nodes
            by_value = self._assignment_of_value = {
                id(nodes[position].value): nodes[position] for position in self.index.positions_of(ast.Assign)}
        return by_value.get(id(value))

    def calls_written(self, *names: str) -> list[CallSite]:
        """The calls, in source order, that may call an object whose own name is one of ``names``: those whose
        callee is written with that name (``f(...)``, ``a.b.f(...)``), and those through a name the module binds to
        an object of another name (``from m import f as g``, ``g = a.f``, a class). Every call whose callee's
        qualified name ends in one of ``names`` is among them; the callers check the qualified name."""
        by_name = self.written_call_names()
        if len(names) <= len(by_name):
            wanted = {name: None for name in names if name in by_name}
        else:  # many names (every layer class MindSpore has) against the few a module calls
            named = frozenset(names)
            wanted = {name: None for name in by_name if name in named}
        renamed = self._renamed_callees
        if renamed is None:  # the names called here that may name an object of another name: most never do
            renamed = self._renamed_callees = [name for name in self.scopes.renamed_names() if name in by_name]
        for name in renamed:
            wanted[name] = None
        found = [position for name in wanted for position in by_name[name]]
        if len(wanted) > 1:
            found.sort()
        site = self._site
        return [site(position) for position in found]

    @property
    def calls(self) -> list[CallSite]:
        """Every call of the module, in source order."""
        if self._all_calls is None:
            self._all_calls = [self._site(position) for position in range(len(self._call_nodes))]
        return self._all_calls

    def calls_with_keywords(self) -> Iterator[CallSite]:
        """The calls that pass keyword arguments, in source order."""
        site = self._site
        return (site(position) for position, node in enumerate(self._call_nodes) if node.keywords)

    def called_attributes(self) -> set[str]:
        """The attribute names called on a name (``method`` of ``obj.method(...)``) anywhere in the module."""
        return {node.func.attr for node in self._call_nodes
                if node.func.__class__ is ast.Attribute and node.func.value.__class__ is ast.Name}

    def _site(self, position: int) -> CallSite:
        site = self._call_sites[position]
        if site is None:
            site = self._call_sites[position] = CallSite(self._call_nodes[position], weakref.ref(self),
                                                         self._call_positions[position])
        return site

    def code_around(self, position: int) -> tuple[FunctionNode | None, ClassInfo | None]:
        """The one answer to "the enclosing definition": (innermost function, innermost class) of the code at
        ``position`` of the index (``index.nodes``), as ``_index`` tells them:
        a function's code starts right after its ``def`` (its decorators and defaults count as its own), a class's
        with its body."""
        bodies = self._definition_bodies
        if bodies is None:
            bodies = self._definition_bodies = []
            start_of = self.index.start_of
            body_start, end_of = self.index.body_start_of, self.index.end_of
            open_bodies: list[int] = []
            for node, owner in self._enclosing:
                if node.__class__ is ast.ClassDef:
                    start, code = body_start(node), (None, owner)
                else:
                    start, code = start_of(node) + 1, (node, owner)
                while open_bodies and start >= bodies[open_bodies[-1]][1]:
                    open_bodies.pop()
                bodies.append((start, end_of(node), code, open_bodies[-1] if open_bodies else -1))
                open_bodies.append(len(bodies) - 1)
            self._definition_starts = [body[0] for body in bodies]
        index = bisect_right(self._definition_starts, position) - 1
        while index >= 0 and position >= bodies[index][1]:
            index = bodies[index][3]
        return bodies[index][2] if index >= 0 else (None, None)

    def written_call_names(self) -> dict[str, list[int]]:
        """The name each callee is written with (``f`` of ``a.f(...)``) -> the positions of its calls in ``calls``."""
        return self.index.calls_by_written_name()

    def calls_to_local_classes(self) -> list[CallSite]:
        """The calls, in source order, that may build a class of this module: each call whose callee is one of its
        classes is among them (``class_of_constructor`` says which)."""
        prefix = self.local_prefix
        return [site for site in self.calls_written(*{info.name for info in self.classes.values()})
                if site.qualname and site.qualname.startswith(prefix)]

    def calls_to(self, *names: str, mindspore_only: bool = True) -> Iterator[CallSite]:
        """Calls whose callee's own name is one of ``names`` (inside MindSpore, unless told otherwise), in source
        order."""
        named = names if len(names) < 8 else frozenset(names)  # asked of every candidate: hundreds of names, a set
        for site in self.calls_written(*names):
            qualname = site.qualname
            if qualname and api.last_name(qualname) in named and (not mindspore_only or api.is_mindspore(qualname)):
                yield site

    # -- values bound to names -----------------------------------------------------------------------------

    def value_bound_to(self, expr: ast.AST, function: FunctionNode | None, owner: ClassInfo | None) -> ast.AST | None:
        """What the name or ``self.<attribute>`` ``expr`` holds where it is used in ``function`` (None: module-level
        code): for a name, the value of the assignment in force there (the scopes' answer); for
        ``self.<attribute>``, the first assignment in a method of ``owner`` or of its local bases."""
        if isinstance(expr, ast.Name):
            binding = self.scopes.binding(expr)  # Python's own rule: the binding in force where it is used
            return binding.value if binding is not None and binding.kind == ASSIGNMENT else None
        if not (owner is not None and function is not None
                and self_attribute(expr, first_argument(function)) is not None):
            return None
        for info in owner.lineage():
            for method in sorted(info.methods.values(), key=lambda m: m.name != "__init__"):
                self_name = first_argument(method)
                for node in self.index.subtree_nodes_of(method, (ast.Assign,)):
                    if isinstance(node, ast.Assign) and any(
                            self_attribute(t, self_name) == expr.attr for t in node.targets):
                        return node.value
        return None

    def returns_parameter(self, qualname: str | None) -> bool:
        """Whether the project function or method ``qualname`` names (a module-level function, or a method of a
        module-level instance: ``parameter_register.register``) returns a ``Parameter`` it builds on every return,
        directly or through a local name bound only to ``Parameter(...)``; what it returns is then a Parameter of
        the Cell that stores it. Asked for the few attributes a rule would report, not for every one."""
        if not qualname or api.is_mindspore(qualname):
            return False
        found = project_function(self, qualname)
        if not isinstance(found, tuple):
            found = project_instance_method(self, qualname)
        if not found:
            return False
        facts, function = found
        returns, bound = [], {}
        stack = list(function.body)
        while stack:  # the function's own statements, not those of the functions it defines
            node = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                continue
            if isinstance(node, ast.Return):
                returns.append(node)
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        bound.setdefault(target.id, []).append(node.value)
            stack.extend(ast.iter_child_nodes(node))
        return bool(returns) and all(facts.builds_parameter(node.value) or (
            isinstance(node.value, ast.Name) and bound.get(node.value.id)
            and all(facts.builds_parameter(value) for value in bound[node.value.id])) for node in returns)

    def cell_origin(self, expr: ast.AST, function: FunctionNode | None, owner: ClassInfo | None) -> ast.AST | None:
        """The expression that built the Cell instance ``expr`` holds (``net`` after ``net = Net()``, ``self.net``
        after ``self.net = nn.Dense(2, 2)``, possibly chained: ``Net().set_train()``), or None when ``expr`` is not
        known to hold a Cell."""
        value = self.value_bound_to(expr, function, owner)
        built = value
        while isinstance(built, ast.Call) and isinstance(built.func, ast.Attribute) and (
                built.func.attr in CELL_METHODS_RETURNING_SELF):
            built = built.func.value
        return value if built is not None and self.builds_cell(built) else None

    def optimizer_origin(self, expr: ast.AST, function: FunctionNode | None, owner: ClassInfo | None
                         ) -> ClassInfo | str | None:
        """The optimizer class whose instance ``expr`` holds (``opt`` after ``opt = nn.Adam(...)``, ``self.opt``
        after ``self.opt = mint.optim.AdamW(...)``): a project class (``builds_optimizer``) or a MindSpore class's
        qualified name; None when ``expr`` is not known to hold an optimizer."""
        return self.builds_optimizer(self.value_bound_to(expr, function, owner))

    # -- training scripts (MS401, MS402) ------------------------------------------------------------------

    def training_calls(self) -> list[CallSite]:
        """Calls that show the module trains: optimizers, Model with an optimizer (not ``optimizer=None``),
        ``.train(`` as ``Model.train`` is called, TrainOneStep cells, and gradient functions (``grad`` and
        ``value_and_grad`` with weights). A module that evaluates or predicts (``model.eval(dataset)``,
        ``model.predict(x)``) and runs no training (no ``.train(``, TrainOneStep cell or gradient function) builds
        its optimizer and ``Model`` only to evaluate: none of those counts."""
        result, running = [], []
        evaluates = any(
            (site.node.args or site.node.keywords) for name in ("eval", "predict")
            if name in self.written_call_names() for site in self.calls_written(name)
            if isinstance(site.node.func, ast.Attribute) and site.node.func.attr == name)
        optimizers = api.optimizer_names()
        written = [name for name in self.written_call_names()
                   if name in optimizers or name in _TRAINING_CALL_NAMES or name.startswith("TrainOneStep")]
        for site in self.calls_written(*written):
            qualname = site.qualname or ""
            func = site.node.func
            entry = api.nn_cell_entry(qualname)
            if entry is not None and entry.get("optimizer"):
                result.append(site)
            elif api.is_mindspore_name(qualname, "Model") and _given_an_optimizer(site.node):
                result.append(site)
            elif (api.is_mindspore(qualname) and api.last_name(qualname).startswith("TrainOneStep")) or (
                    api.is_mindspore_name(qualname, "GradOperation", "build_train_network")) or (
                    api.is_mindspore_name(qualname, "grad", "value_and_grad") and _given_weights(site.node)) or (
                    isinstance(func, ast.Attribute) and func.attr == "train" and _model_train(site.node, qualname)):
                result.append(site)
                running.append(site)
        if running or not evaluates:
            return result
        return [site for site in result if self._optimizer_handed_on(site)]

    def _optimizer_handed_on(self, site: CallSite) -> bool:
        """Whether the optimizer ``site`` builds reaches something other than a ``Model`` (an adversarial-defence
        trainer, a project's training loop), which may train with it: the optimizer as written, or the name it is
        assigned to, read anywhere in its function but as an argument of a ``Model(...)`` call."""
        entry = api.nn_cell_entry(site.qualname or "")
        if entry is None or not entry.get("optimizer"):
            return False  # (a ``Model``: what it does is read from its own calls)
        scope = site.function if site.function is not None else self.tree
        model_arguments = {id(argument) for call in ast.walk(scope) if isinstance(call, ast.Call)
                           and api.is_mindspore_name(self.qualname(call.func) or "", "Model")
                           for argument in (*call.args, *(keyword.value for keyword in call.keywords))}
        names = [target.id for statement in ast.walk(scope) if isinstance(statement, ast.Assign)
                 and statement.value is site.node for target in statement.targets if isinstance(target, ast.Name)]
        if not names:
            return id(site.node) not in model_arguments and not any(
                isinstance(statement, ast.Return) and statement.value is site.node for statement in ast.walk(scope))
        return any(isinstance(node, ast.Name) and node.id in names and isinstance(node.ctx, ast.Load)
                   and id(node) not in model_arguments for node in ast.walk(scope))

    def application_trains(self) -> bool:
        """Whether an entry path of the application that runs this module trains: an entry point that imports it
        (else any of the application's, where none does: ``target.entries_running``) whose own training calls
        (``training_calls``, what MS401 and MS402 read) or those of a project module it imports, outside a Cell
        (a training loop, an optimizer built in a function; a TrainOneStep Cell a module defines trains nothing
        until some function builds it with an optimizer), show it trains. True for a library's module (its users
        may train) and for a source without a file."""
        if self._application_trains is None:
            entries = entries_running(self.path)
            self._application_trains = entries is None or any(
                self._entry_trains(entry) for entry in entries)
        return self._application_trains

    def training_stays_off(self) -> bool:
        """Whether every Cell the application that runs this module builds keeps ``training`` False, as
        ``Cell.__init__`` leaves it: no entry path trains (``application_trains``: ``Model.train`` sets it) and no
        file of the application turns it on (``target.sets_training``: ``set_train()``, ``net.training = flag``).
        False for a library's module and a source without a file."""
        if self._training_stays_off is None:
            self._training_stays_off = not self.application_trains() and not sets_training(self.path)
        return self._training_stays_off

    def _entry_trains(self, entry: str) -> bool:
        if os.path.abspath(self.path) == entry:
            return bool(self.training_calls())
        _read(entry)
        if answer("trains", entry, self.settings, (), lambda facts: facts is None or bool(facts.training_calls())):
            return True
        for module in sorted(reached_from(entry) - {entry}):
            _read(module)
            if answer("trains outside cells", module, self.settings, (), lambda facts: facts is not None and any(
                    site.owner is None or not site.owner.is_cell for site in facts.training_calls())):
                return True
        return False

    def plain_containers(self) -> list[PlainContainer]:
        """Python lists/tuples/dicts of Cells or Parameters that a Cell keeps as attributes, unregistered (MS201,
        MS202; see ``containers``)."""
        if self._plain_containers is None:
            self._plain_containers = plain_containers(self)
        return self._plain_containers

    def seeds_mindspore(self) -> bool:
        """The module calls ``mindspore.set_seed`` (any spelling), directly or through a seeding helper of the project.

        ``manual_seed`` does not seed parameter initialisation and ``mindspore.dataset.config.set_seed`` seeds the
        data pipeline, numpy and ``random`` (``seeds_numpy``), not MindSpore's random operators: neither counts. A
        helper whose source cannot be read (a third-party ``seed_everything``) is trusted when its name speaks of
        seeding.
        """
        known: dict[tuple[int, str], bool] = {}
        qualname = self.qualname
        return any(_seeds(self, qualname(node.func), 0, known) and self.random_seed(node, position) is None
                   for position, node in zip(self._call_positions, self._call_nodes)) or self.seeded_by_imports()

    def seeds_numpy(self, before: int | None = None) -> bool:
        """The module calls ``numpy.random.seed`` (any spelling; ``mindspore.dataset.config.set_seed`` calls it
        too, measured 2.10 and 2.7.1), directly or through a seeding helper of the
        project (or a third-party one named for seeding), on a line before ``before`` when given (a seed drawn
        after the network is built seeds nothing of it). MindSpore's parameter initialisers draw from numpy's
        generator: a numpy seed alone makes the initial weights the same in every process (measured 2.10 and
        2.7.1 CPU), though not MindSpore's random operators (``ops.rand``, dropout)."""
        known: dict[tuple[int, str], bool] = {}
        qualname = self.qualname
        return any(_seeds(self, qualname(node.func), 0, known, _NUMPY_SEED) and self.random_seed(node, position) is None
                   for position, node in zip(self._call_positions, self._call_nodes)
                   if before is None or node.lineno < before) or self.seeded_by_imports(_NUMPY_SEED)

    def seeded_by_imports(self, what: str = "mindspore") -> bool:
        """Whether a project module this file imports (directly or through others) seeds ``what`` at its top
        level: that code runs when the import does, before anything the importer builds or trains
        (``from src.unet_parts import UNet`` where ``unet_parts`` calls ``ms.set_seed(1212)`` at module level)."""
        if not self.path or not os.path.isfile(self.path):
            return False
        path = os.path.abspath(self.path)
        for module in sorted(reached_from(path) - {path}):
            _read(module)
            if answer("seeds at import", module, self.settings, (what,),
                      lambda facts: facts is not None and facts.seeds_at_top_level(what)):
                return True
        return False

    def seeds_at_top_level(self, what: str = "mindspore") -> bool:
        """Whether the module's own top-level code (outside definitions and its ``if __name__ == "__main__":``
        block, which an import does not run) calls a seeding function of ``what`` with a fixed seed."""
        guard = main_guard(self.tree)
        known: dict[tuple[int, str], bool] = {}
        for position, node in zip(self._call_positions, self._call_nodes):
            if (guard is None or node.lineno < guard.lineno) and self.code_around(position) == (None, None) and _seeds(
                    self, self.qualname(node.func), 0, known, what) and self.random_seed(node, position) is None:
                return True
        return False

    def seeded_at_random(self, before: int | None = None) -> str | None:
        """The assignment that draws at random the number a seeding call of the module passes
        (``manual_seed = random.randint(1, 10000)`` then ``ds.config.set_seed(manual_seed)``), on a line before
        ``before`` when given: such a seed differs in every run, and seeds nothing that repeats."""
        known: dict[tuple[int, str], bool] = {}
        qualname = self.qualname
        for position, node in zip(self._call_positions, self._call_nodes):
            if (before is None or node.lineno < before) and (
                    _seeds(self, qualname(node.func), 0, known) or _seeds(
                        self, qualname(node.func), 0, known, _NUMPY_SEED)):
                drawn = self.random_seed(node, position)
                if drawn is not None:
                    return drawn
        return None

    def random_seed(self, call: ast.Call, position: int) -> str | None:
        """For a call passing a seed (its first argument or ``seed=``): the text of the assignment that draws it at
        random (``args.seed = random.randint(1, 10000)``; a call of ``random``, ``numpy.random``, ``secrets`` or
        ``time.time``, or ``int(...)`` of one), read from the last assignment of the same name or attribute
        chain before the call in the same function; else None. ``position``: the call's in the index."""
        given = next((keyword.value for keyword in call.keywords if keyword.arg == "seed"),
                     call.args[0] if call.args else None)
        if given is None:
            return None
        if _drawn_at_random(self, given):
            return ast.unparse(given)
        if not isinstance(given, (ast.Name, ast.Attribute)):
            return None
        written = ast.unparse(given)
        function = self.code_around(position)[0]
        nodes = self.index.nodes
        found = None
        for place in self.index.positions_of(ast.Assign):
            statement = nodes[place]
            if statement.lineno < call.lineno and any(ast.unparse(target) == written for target in statement.targets
                                                      ) and self.code_around(place)[0] is function:
                if found is None or statement.lineno > found.lineno:
                    found = statement
        return ast.unparse(found) if found is not None and _drawn_at_random(self, found.value) else None

    def broadcasts_parameters(self) -> bool:
        """The module calls ``set_auto_parallel_context(parameter_broadcast=True)``: data-parallel training then
        copies rank 0's parameters to every card when the network is compiled (measured 2.10 and 2.7.1 CPU, two
        processes under ``msrun``). ``set_context`` does not take the keyword (ValueError) and does not count."""
        return any(keyword.arg == "parameter_broadcast" and isinstance(keyword.value, ast.Constant)
                   and keyword.value.value is True
                   for site in self.calls_to("set_auto_parallel_context") for keyword in site.node.keywords)

    def runs_replicas(self) -> bool:
        """The module keeps the processes' models in step: it sets a parallel mode other than stand-alone
        (``set_auto_parallel_context(parallel_mode=...)``: data, hybrid, semi-auto or auto parallel, or a value it
        cannot read) or builds a ``DistributedGradReducer``, itself or through a helper of the project. Without
        either, ``communication.init()`` leaves each process training its own model (MindSpore's default
        ``ParallelMode.STAND_ALONE``: "Only one processor is working")."""
        known: dict[tuple, bool] = {}
        return any(_replicates(self, node, 0, known) for node in self._call_nodes)

    # -- entry paths (MS401, MS402): what a path through the module's functions goes on to do --------------------

    def training_on_path(self, site: CallSite) -> list[CallSite]:
        """The training calls (``training_calls``) on the path that runs ``site``: in its function (not on the
        other side of an ``if`` from it), in the functions that function calls, and, when it trains nothing itself,
        in what its callers in this module do besides calling it (again not on the other side of an ``if``):
        ``init()`` in ``def eval_net()``, and the optimizer in ``def train_net()``, both called from the main block
        on two sides of ``if args.mode == "train":``, are two paths, not one."""
        graph = self._module_call_graph()
        seen: set[int] = set()
        pending: list[tuple[FunctionNode | None, int]] = [(site.function, site.node.lineno)]
        while pending:
            function, line = pending.pop(0)
            if id(function) in seen:
                continue
            seen.add(id(function))
            found = self._training_from(function, line, graph)
            if found:
                return found
            pending.extend((caller, call.lineno) for caller, call in graph.callers.get(id(function), ()))
        return []

    def training_from_entry(self) -> list[CallSite]:
        """The training calls the module's own top-level code runs (its main block), directly or through the
        functions of this module it calls."""
        return self._training_from(None, None, self._module_call_graph())

    def _training_from(self, function: FunctionNode | None, line: int | None, graph: "_CallGraph") -> list[CallSite]:
        """The training calls ``function`` (None: the module's top-level code) makes, or that the functions it calls
        make, leaving out those on the other side of an ``if`` from ``line``, or after an ``if`` whose side holding
        ``line`` returns."""
        def reachable(other: int) -> bool:
            return line is None or not (on_other_branches(graph.branches, line, other)
                                        or leaves_before(graph.branches, line, other))

        found = [training for training in graph.training.get(id(function), ()) if reachable(training.node.lineno)]
        for call, callee in graph.callees.get(id(function), ()):
            if reachable(call.lineno):
                found.extend(graph.trained_by(callee))
        return sorted({id(t): t for t in found}.values(), key=lambda t: (t.node.lineno, t.node.col_offset))

    def _module_call_graph(self) -> "_CallGraph":
        if self._call_graph is None:
            self._call_graph = _CallGraph(self)
        return self._call_graph

    # -- locations ----------------------------------------------------------------------------------------

    @property
    def lines(self) -> list[str] | None:
        """The source's lines (with their ends), split when first asked; None without a source."""
        if self._lines is None and self.source:
            self._lines = source_lines(self.source)
        return self._lines

    @property
    def target(self) -> Target:
        """The device, MindSpore version, mode and syntax level this module is checked against."""
        if self._target is None:
            self._target = target_from_settings(self.settings, self.path)
        return self._target

    @property
    def is_test(self) -> bool:
        """Whether this module is a test module by its name (``ms_lint.target.is_test_path``: ``test_*.py``,
        ``*_test.py``, ``conftest.py``); its folder is not asked (a project's own example code may live under a
        ``tests`` folder beside its tests)."""
        return bool(self.path) and is_test_path(os.path.basename(self.path))

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


def _read(file: str) -> None:
    """Record the file at ``file`` among the lookups of the analysis under way, so that a result kept for it is
    computed again when the file changes (``result_cache.lookups_unchanged``)."""
    directory, name = os.path.split(os.path.splitext(file)[0])
    if name == "__init__":
        directory, name = os.path.split(directory)
    find_module_file(name, [directory])


class _CallGraph:
    """Which functions of a module call which (by name, and methods through their instance parameter), and where
    its training calls lie: what ``training_on_path`` walks. Built once per module, when a rule asks."""

    def __init__(self, module: ModuleFacts):
        self.callees: dict[int, list[tuple[ast.Call, FunctionNode]]] = {}  # id(caller or None) -> its calls
        self.callers: dict[int, list[tuple[FunctionNode | None, ast.Call]]] = {}  # id(callee) -> who calls it
        self.training: dict[int, list[CallSite]] = {}  # id(function or None) -> the training calls in it
        self.branches = module.index.subtree_nodes_of(module.tree, (ast.If,))
        self._trained: dict[int, list[CallSite]] = {}
        for site in module.training_calls():
            if site.function is not None or site.owner is None:
                self.training.setdefault(id(site.function), []).append(site)
        for site in module.calls:
            function, func = site.function, site.node.func
            if function is None and site.owner is not None:
                continue  # a class body
            callee = None
            if isinstance(func, ast.Name):
                callee = module.local_function(func)
            elif site.owner is not None and function is not None \
                    and self_attribute(func, first_argument(function)) is not None:
                found = site.owner.find_method(func.attr)
                callee = found[1] if found is not None else None
            # a function handed to another one runs too: ``fire.Fire(main)``, ``mp.spawn(worker, ...)``
            handed = [module.local_function(argument) for argument in (*site.node.args,
                                                                       *(k.value for k in site.node.keywords))
                      if isinstance(argument, ast.Name)]
            for target in (callee, *handed):
                if target is not None and target is not function:
                    self.callees.setdefault(id(function), []).append((site.node, target))
                    self.callers.setdefault(id(target), []).append((function, site.node))

    def trained_by(self, function: FunctionNode) -> list[CallSite]:
        """The training calls ``function`` makes or the functions it calls make."""
        known = self._trained.get(id(function))
        if known is not None:
            return known
        self._trained[id(function)] = []  # a recursion trains nothing more through itself
        found = list(self.training.get(id(function), ()))
        for _, callee in self.callees.get(id(function), ()):
            found.extend(self.trained_by(callee))
        self._trained[id(function)] = found
        return found


_MAX_SEED_DEPTH = 4
_NUMPY_SEED = "numpy"


# The keywords ``Model.train`` takes (2.7.1 to 2.10.0): a ``.train(...)`` call with another keyword, on an object
# not known to be MindSpore's, is a method of another class (an attack's ``train(attack_method=...)``).
_MODEL_TRAIN_KEYWORDS = frozenset({"epoch", "train_dataset", "callbacks", "dataset_sink_mode", "sink_size",
                                   "initial_epoch"})


def _model_train(call: ast.Call, qualname: str) -> bool:
    """Whether a ``.train(...)`` call trains: given arguments, and, unless it is a method of MindSpore's or a
    MindSpore suite's (``mindformers.Trainer.train(train_checkpoint=...)``), each keyword one ``Model.train``
    takes."""
    return bool(call.args or call.keywords) and (qualname.split(".")[0].startswith("mind") or all(
        keyword.arg in _MODEL_TRAIN_KEYWORDS or keyword.arg is None for keyword in call.keywords))


def _given_weights(call: ast.Call) -> bool:
    """Whether ``grad``/``value_and_grad`` differentiates with respect to weights (its third argument or
    ``weights=``, not ``None``): without, it takes the gradient of the inputs (an attack's perturbation), which
    trains nothing."""
    given = call.args[2] if len(call.args) >= 3 else next(
        (keyword.value for keyword in call.keywords if keyword.arg == "weights"), None)
    return given is not None and not (isinstance(given, ast.Constant) and given.value is None)


def _given_an_optimizer(call: ast.Call) -> bool:
    """Whether ``Model(...)`` is given an optimizer: a third argument or ``optimizer=``, not ``None``."""
    given = call.args[2] if len(call.args) >= 3 else next(
        (keyword.value for keyword in call.keywords if keyword.arg == "optimizer"), None)
    return given is not None and not (isinstance(given, ast.Constant) and given.value is None)


def _seeds(module: ModuleFacts, qualname: str | None, depth: int, known: dict, what: str = "mindspore") -> bool:
    """Whether calling ``qualname`` seeds ``what``: MindSpore (``mindspore.set_seed``) or numpy
    (``numpy.random.seed``), itself or through helpers of the project (a third-party helper named for seeding
    is trusted)."""
    if not qualname or depth > _MAX_SEED_DEPTH:
        return False
    if api.is_mindspore(qualname):
        if api.last_name(qualname) != "set_seed":
            return False
        # the data pipeline's seed (``mindspore.dataset.config.set_seed``) seeds numpy's generator and Python's too
        return qualname.startswith("mindspore.dataset") if what == _NUMPY_SEED else not qualname.startswith(
            "mindspore.dataset")
    if what == _NUMPY_SEED and qualname == "numpy.random.seed":
        return True
    if api.is_host_library(qualname) or qualname.startswith(("builtins.", "random.", "os.", "sys.")):
        return False
    key = (id(module), qualname, what)
    if key not in known:
        known[key] = False  # a helper that calls itself does not seed through the recursion
        found = project_function(module, qualname)
        if isinstance(found, str):  # a project module re-exporting a MindSpore function
            known[key] = _seeds(module, found, depth + 1, known, what)
        elif found is None:
            known[key] = "seed" in api.last_name(qualname).lower() and not qualname.startswith(module.local_prefix)
        else:
            facts, node = found
            known[key] = any(_seeds(facts, facts.qualname(call.func), depth + 1, known, what)
                             for call in facts.index.subtree_nodes_of(node, (ast.Call,))
                             if holds_line(node, call.lineno))
    return known[key]


_RANDOM_SOURCES = ("random.", "numpy.random.", "secrets.", "time.time")


def _drawn_at_random(module: ModuleFacts, value: ast.AST) -> bool:
    """``value`` is a number drawn anew in every run: a call of Python's ``random``, ``numpy.random`` (their
    ``seed`` aside), ``secrets`` or ``time.time``, or ``int(...)``/``abs(...)`` of one."""
    if not isinstance(value, ast.Call):
        return False
    qualname = module.qualname(value.func) or ""
    if qualname in ("builtins.int", "builtins.abs", "int", "abs") and value.args:
        return _drawn_at_random(module, value.args[0])
    return qualname.startswith(_RANDOM_SOURCES) and not qualname.endswith(".seed")


def _replicates(module: ModuleFacts, call: ast.Call, depth: int, known: dict) -> bool:
    """Whether ``call`` sets a parallel mode other than stand-alone or builds a ``DistributedGradReducer``, itself
    or through the helpers of the project it calls (``runs_replicas``)."""
    qualname = module.qualname(call.func)
    if not qualname or depth > _MAX_SEED_DEPTH:
        return False
    if api.is_mindspore(qualname):
        name = api.last_name(qualname)
        if name == "DistributedGradReducer":
            return True
        if name != "set_auto_parallel_context":
            return False
        mode = next((keyword.value for keyword in call.keywords if keyword.arg == "parallel_mode"), None)
        if mode is None:
            return False
        written = mode.value if isinstance(mode, ast.Constant) else (
            mode.attr if isinstance(mode, ast.Attribute) else None)
        return not (isinstance(written, str) and written.lower() == "stand_alone")
    if api.is_host_library(qualname) or qualname.startswith(("builtins.", "random.", "os.", "sys.")):
        return False
    key = (id(module), qualname)
    if key not in known:
        known[key] = False  # a helper that calls itself does not replicate through the recursion
        found = project_function(module, qualname)
        if isinstance(found, tuple):
            facts, node = found
            known[key] = any(_replicates(facts, inner, depth + 1, known)
                             for inner in facts.index.subtree_nodes_of(node, (ast.Call,))
                             if holds_line(node, inner.lineno))
    return known[key]


use_module_facts(ModuleFacts)  # the project's other modules are read with the same class
