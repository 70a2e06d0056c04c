"""Graph code: which functions MindSpore compiles (construct, bprop, jit, jit_class methods, and what they call) and
why, what each is passed by its callers, the module's mode, and the functions a PyNative Cell runs eagerly. What
the expressions of these functions hold is answered by ``kinds``."""
from __future__ import annotations

import ast
import io
import os
import re
import tokenize
from collections import Counter
from typing import TYPE_CHECKING, Iterator

from ms_lint import mindspore_api as api
from ms_lint.model.classes import ClassInfo
from ms_lint.model.configuration import configuration_key, reads_configuration
from ms_lint.model.construction import OneOf, construction_sites, function_constants
from ms_lint.model.kinds import FunctionKinds, parameter_kinds_of_call
from ms_lint.model.project import answer, project_class_facts, project_function, tree_of
from ms_lint.model.syntax import (FunctionNode, NodeIndex, conditional_arms, decorator_callee, first_argument,
                                  is_classmethod, is_static, main_guard, parameter_defaults, parameter_names,
                                  self_attribute)
from ms_lint.model.scopes import PARAMETER
from ms_lint.model.values import (TENSOR, TENSOR_DATA, UNKNOWN, annotates_python_value, flatten, join, join_parameters,
                                  join_structures, literal)
from ms_lint.model.handover import compiled_classes
from ms_lint.target import (composes_name, files_naming, graph_entries, lookups_followed, module_never_runs, never_run,
                            read_text)

if TYPE_CHECKING:
    from ms_lint.model.module import ModuleFacts

JIT_NAMES = ("jit", "ms_function")
GRAD_NAMES = ("grad", "value_and_grad", "GradOperation", "vjp", "jvp")

_UNBOUND = object()  # a sub-cell not looked up yet
# How often one graph function is looked at while the values its callers pass settle. Real code needs one to three
# looks; a function looked at more often has values that swing, and takes unknown values from then on.
_LOOKS_BEFORE_UNKNOWN = 8
_MAX_LOOKS = 32  # a last guard
_MAX_DEAD_DEPTH = 6  # how many definitions deep a class built only in another one never built is followed


class GraphFunction(FunctionKinds):
    """A function MindSpore compiles, with its tensor-value environment (see ``FunctionKinds``)."""

    def __init__(self, module: "ModuleFacts", node: FunctionNode, owner: ClassInfo | None, reason: str,
                 strict: bool):
        super().__init__(module, node, owner)
        self.reason = reason
        self.strict = strict
        # What the parameters get: as a root of graph code (its signature's kinds and defaults; None for a function
        # that is graph code only because graph code calls it), and from each caller (a graph function, or a method
        # of the parent that runs a sub-cell from host code), the latest look at that caller only (id(caller's node)
        # -> (kinds, constants)): what a caller passed before its own parameters were known does not stay once it
        # knows them. Callers are named by their nodes, not held: graph functions that call each other would
        # otherwise keep each other, and the module's tree, for the garbage collector.
        self.as_root: tuple[dict[str, str | None], dict[str, object], bool] | None = None  # (kinds, constants, strict)
        self.passed_by: dict[int, tuple[dict[str, str | None], dict[str, object]]] = {}
        self.callees: set[int] = set()  # id(node) of the graph functions this one's compiled code calls
        # As a root: its label (``Net.construct``, ``train_step``, ``Net.construct (../net.py)`` for a root of
        # another module) -> whether only GRAPH_MODE compiles it (a Cell's construct where the mode was inferred
        # PyNative; a @jit function is compiled in either mode). ``compiled_by``: the same for every root that
        # reaches this function, once the graph code is found.
        self.roots: dict[str, bool] = {}
        self.compiled_by: dict[str, bool] = {}

    @property
    def graph_mode_only(self) -> bool:
        """Compiled only if the module runs in GRAPH_MODE: every root reaching it is a Cell's construct or bprop
        whose module was inferred to run in PyNative."""
        return bool(self.compiled_by) and all(self.compiled_by.values())

    @property
    def scope(self) -> str:
        return self.owner.name if self.owner else self.node.name

    @property
    def label(self) -> str:
        return f"{self.owner.name}.{self.node.name}" if self.owner else self.node.name


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
        GRAPH_MODE; otherwise the target's mode: an option's, else the one inferred from the entry points of the
        module's application (``mode_inferred``), MindSpore's default PyNative where none selects GRAPH_MODE."""
        self.mode_inferred = False
        own = self._own_mode()
        if own:
            return own
        target = self.target
        self.mode_inferred = target.origin("mode") not in ("option", "--per-path-ms-mode")
        return target.mode

    def _own_mode(self) -> str:
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
        return ""

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
        """The graph code is what a root reaches through the calls MindSpore follows. Roots: ``construct`` and
        ``bprop`` of the Cells when the module runs in GRAPH_MODE (where the mode was inferred PyNative, as roots
        that only GRAPH_MODE compiles, whose findings are left out of the report), ``@jit`` functions and methods
        and ``jit(f)`` in either mode, and, with ``callers_elsewhere``, the functions of this module that graph code of
        the project's other modules calls (``ProjectIndex.graph_calls_into``). A ``@jit_class`` method, a helper
        or a base class's method is graph code only when a root reaches it; a Cell its application never runs
        (``never_run``) is no root."""
        queue: list[GraphFunction] = []
        # the project's level: STRICT where the option asks for it or the project selects it (ms_lint.target)
        strict = self.target.syntax_level == "strict"

        def add_root(node: FunctionNode, owner: ClassInfo | None, reason: str, is_strict: bool, label: str,
                     graph_mode_only: bool = False, sub_cell: bool = False,
                     passed: tuple[dict, dict] | None = None) -> GraphFunction:
            existing = self._graph_by_node.get(id(node))
            if existing is None:
                existing = GraphFunction(self, node, owner, reason, is_strict)
                if sub_cell:  # what its callers pass; looked at once one passes something
                    kinds, values = {}, {}
                else:
                    kinds, values = passed if passed is not None else (
                        root_parameter_kinds(node, owner, self.index),
                        root_parameter_values(node, self.keyword_arguments))
                    queue.append(existing)
                existing.as_root = (kinds, values, is_strict)
                existing.parameter_kinds, existing.parameter_values = dict(kinds), dict(values)
                self._graph_by_node[id(node)] = existing
                self.graph_functions.append(existing)
            else:
                if existing.as_root is None:
                    existing.reason = reason
                    kinds, values = passed if passed is not None else (
                        root_parameter_kinds(node, owner, self.index),
                        root_parameter_values(node, self.keyword_arguments))
                    existing.as_root = (kinds, values, is_strict)
                    self._settle(existing, queue)
                elif passed is not None:
                    kinds, values = dict(existing.as_root[0]), dict(existing.as_root[1])
                    join_parameters(kinds, values, *passed)
                    existing.as_root = (kinds, values, existing.as_root[2])
                    self._settle(existing, queue)
                if is_strict and not existing.strict:
                    existing.as_root = (*existing.as_root[:2], True)
                    existing.strict = True
            existing.roots[label] = existing.roots.get(label, True) and graph_mode_only
            return existing

        sub_cells = self._sub_cell_classes()
        cells_compiled = self.mode == "graph" or self.mode_inferred
        self._inherited_roots = []
        unrun = self.never_run
        for info in self.classes.values():
            if info.is_cell and cells_compiled and info.name not in unrun:
                graph_mode_only = self.mode != "graph" or self.compiled_by_no_entry(info.name)
                for name in ("construct", "bprop"):
                    label = f"{info.name}.{name}"
                    if name in info.methods:
                        # A Cell used only as a sub-cell here gets its input kinds and values from the calls
                        # (`self.pos(B, H, W)` with ints from a shape), like any helper.
                        self.cell_roots.add(label)
                        add_root(info.methods[name], info, f"{name} of Cell {info.name}", strict, label,
                                 graph_mode_only=graph_mode_only,
                                 sub_cell=name == "construct" and info.key in sub_cells)
                        continue
                    # a construct the Cell inherits from a base that is no Cell (a mixin): compiled for this Cell
                    found = info.find_method(name)
                    if found is None:
                        if name == "construct":  # (a bprop is looked for among this module's classes only)
                            found = self.method_of(info, name, through_cells=False)
                            if found is not None and found[0] is not self and not found[1].is_cell:
                                self._inherited_roots.append((found, label, graph_mode_only, strict))
                    elif not found[0].is_cell:
                        self.cell_roots.add(label)
                        add_root(found[1], found[0], f"{name} of Cell {info.name}", strict, label,
                                 graph_mode_only=graph_mode_only)
        for node, _ in self._enclosing:
            if not isinstance(node, ast.ClassDef):
                decorator = self._jit_decorator(node)
                if decorator is not None:
                    owner = self.class_of_function.get(id(node))
                    if owner is not None and owner.name in unrun:
                        continue
                    add_root(node, owner, "decorated with @jit", self._is_strict(decorator),
                             f"{owner.name}.{node.name}" if owner else node.name)
        for site in self.calls_to(*JIT_NAMES):
            if site.node.args and isinstance(site.node.args[0], ast.Name):
                target = self.local_function(site.node.args[0])
                if target is not None:
                    add_root(target, None, "wrapped with jit(...)", self._is_strict(site.node), target.name)
        self._follow_calls(queue)
        if self.callers_elsewhere:
            queue = []
            for node, owner, passed, labels, is_strict in self._called_from_other_modules():
                for label, graph_mode_only in labels.items():
                    self.roots_elsewhere.add(label)
                    add_root(node, owner, f"called from {label}", is_strict, label, graph_mode_only, passed=passed)
            if queue:
                self._follow_calls(queue)
        self._mark_roots()

    def compiled_by_no_entry(self, name: str) -> bool:
        """Whether no entry point that runs this module in GRAPH_MODE (its mode inferred so) compiles its Cell class
        ``name``: each hands MindSpore (``export``, ``Model``, a call) only Cells that neither are nor build it
        (``handover.compiled_classes``), so that the Cell runs in PyNative where it runs. False where one entry's
        answer is not known, and where the mode is the module's own or an option's."""
        if not (self.mode == "graph" and self.mode_inferred and self.path) or self.settings.check_unrun:
            return False
        entries = graph_entries(self.path)
        if not entries:
            return False
        naming = files_naming(self.path, name)  # (None: a library's module, whose Cells its users build)
        if naming is None or any(not file.endswith(".py") for file, _ in naming):
            return False  # named where the reading does not follow (a configuration, a shell script)
        if any(_named_in_a_string(file, text, name) for file, text in naming):
            return False  # (``EXPERIMENTS = ("blocks.ScoreLogger", ...)``: code may build it by that name)
        for entry in entries:
            compiled = compiled_classes(entry)
            if compiled is None or name in compiled:
                return False
        return True

    @property
    def never_run(self) -> frozenset[str]:
        """The Cell classes and the top-level classes and functions of the module its application never runs
        (``target.never_run``: no code the application runs names them, or the module is one it never imports or
        names); none for a library's module, nor where the settings ask for code never run too
        (``--ms-check-unrun``)."""
        if self._never_run is None:
            names = {info.name for info in self.classes.values() if info.is_cell}
            names.update(node.name for node in self.tree.body
                         if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))
            self._never_run = never_run(self.path, names) if names and not self.settings.check_unrun \
                else frozenset()
        return self._never_run

    def never_runs(self, node: ast.AST) -> bool:
        """Whether the application of the module never runs ``node``: it lies in a top-level class or function
        the application never runs (``never_run``), or in a top-level class or function it builds or calls only in
        code it never runs (``built_only_in_dead_code``), or in a branch of a Cell's
        ``__init__`` or a function of the module that no caller runs (``in_dead_branch``), or the application never
        runs the module at all."""
        if self._unrun_lines is None:
            if self.settings.check_unrun:
                self._unrun_lines = []
            elif module_never_runs(self.path):
                self._unrun_lines = [(1, 1 << 62)]
            else:
                unrun = self.never_run
                self._unrun_lines = [
                    (min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)]),
                     node.end_lineno or node.lineno) for node in self.tree.body
                    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name in unrun]
        line = getattr(node, "lineno", None)
        if line is None:
            return False
        if any(start <= line <= end for start, end in self._unrun_lines):
            return True
        if self.settings.check_unrun or not self.path:
            return False
        if isinstance(node, ast.stmt | ast.expr):
            folded = self._folded_around(node)
            if folded is not None and folded.is_dead(node):
                return True
        top = self._top_block(line)
        if top is None:
            return self._in_registry_entry_never_chosen(line)
        return top is not None and (self.built_only_in_dead_code(top.name) or (
            isinstance(top, ast.ClassDef) and (top.name in self.sub_cells_never_called() or self._in_uncalled_method(
                top, line))))

    def _in_registry_entry_never_chosen(self, line: int) -> bool:
        """Whether ``line`` lies in a function a top-level registry of the module holds under a key no run chooses
        (``registry_entry_never_chosen``: ``OPS = {"conv_7x1": lambda c: ...}``)."""
        statement = next((node for node in self.tree.body if node.lineno <= line <= (
            node.end_lineno or node.lineno)), None)
        registry = _registry_name(statement)
        if registry is None:
            return False
        entry = next(((key.value, value) for key, value in zip(statement.value.keys, statement.value.values)
                      if isinstance(value, ast.Lambda) and value.lineno <= line <= (value.end_lineno or value.lineno)
                      and isinstance(key, ast.Constant) and isinstance(key.value, str)), None)
        return entry is not None and self.registry_entry_never_chosen(registry, entry[0])

    def registry_entry_never_chosen(self, registry: str, key: str) -> bool:
        """Whether no run of the application calls the function that the module's top-level dict ``registry``
        holds under ``key`` (``OPS[name](c, stride)``): the application only looks the registry up by a key
        (``registry_only_looked_up``: never iterates it, passes it on or composes the key in the lookup), looks no
        name up as its text cannot follow (``lookups_followed``), and writes ``key`` only as the registry's key and
        as strings in code no run reaches (``key_never_chosen``: a genotype no entry names). False where another
        file than a Python one names either (a configuration or a command line may choose the key), and for a
        library's module. Once per entry."""
        known = self._unchosen_entries.get((registry, key))
        if known is None:
            self._unchosen_entries[(registry, key)] = False  # (a guard: registries whose keys lie in each other)
            known = self._unchosen_entries[(registry, key)] = self._find_registry_entry_never_chosen(registry, key)
        return known

    def _find_registry_entry_never_chosen(self, registry: str, key: str) -> bool:
        if not self.path or not key.isidentifier() or not lookups_followed(self.path) or composes_name(
                self.path, key) is not False:
            return False
        own = os.path.abspath(self.path)
        for name, question in ((registry, "registry only looked up"), (key, "key never chosen")):
            files = files_naming(self.path, name)
            if not files or any(not file.endswith(".py") for file, _ in files):
                return False
            for file, _ in files:
                if os.path.abspath(file) == own:
                    found = self.registry_only_looked_up(registry) if name == registry else self.key_never_chosen(
                        key, registry)
                else:
                    found = answer(question, file, self.settings, (registry, key), lambda facts, name=name: (
                        facts is not None and (facts.registry_only_looked_up(registry) if name == registry
                                               else facts.key_never_chosen(key, None))))
                if not found:
                    return False
        return True

    def registry_only_looked_up(self, registry: str) -> bool:
        """Whether this module writes the name ``registry`` only where it defines it at the top level, imports it,
        tests a key's presence (``name in OPS``) or looks a key up by a name, a literal or an attribute
        (``OPS[name]``, ``ops.OPS[primitive]``), never composing the key there (``OPS[f"conv_{k}"]``)."""
        parents = {id(child): node for node in ast.walk(self.tree) for child in ast.iter_child_nodes(node)}
        written = list(_written_names(self.tree, registry))
        if not self.path or _words_in_code(read_text(self.path) or "", registry) != len(written):
            return False
        for node, statement in written:
            parent = parents.get(id(node))
            if isinstance(node, ast.Name) and isinstance(parent, ast.Attribute):
                continue  # (the module of ``ops.OPS``: the attribute is looked at below)
            if isinstance(node, ast.alias) or (
                    statement in self.tree.body and _registry_name(statement) == registry and node in getattr(
                        statement, "targets", ())):
                continue
            if isinstance(node, ast.Name | ast.Attribute) and isinstance(node.ctx, ast.Load) and (
                    isinstance(parent, ast.Subscript) and parent.value is node and isinstance(
                        parent.ctx, ast.Load) and isinstance(parent.slice, ast.Name | ast.Constant | ast.Attribute
                                                             | ast.Subscript)
                    or isinstance(parent, ast.Compare) and node in parent.comparators and all(
                        isinstance(operator, ast.In | ast.NotIn) for operator in parent.ops)):
                continue
            return False
        return True

    def key_never_chosen(self, key: str, registry: str | None) -> bool:
        """Whether this module writes ``key`` only as a whole string (``("conv_7x1_1x7", 0)``) in code no run
        reaches (``never_runs``) or in a top-level assignment of names nothing else names (``AmoebaNet =
        Genotype(...)`` that no file reads), or as a key of its top-level dict ``registry``."""
        written = list(_written_names(self.tree, key))
        if not self.path or _words_in_code(read_text(self.path) or "", key) != len(written):
            return False
        for node, statement in written:
            if not (isinstance(node, ast.Constant) and node.value == key):
                return False
            if registry is not None and statement in self.tree.body and _registry_name(
                    statement) == registry and any(node is entry for entry in statement.value.keys):
                continue
            if not (self.never_runs(node) or statement in self.tree.body and _held_as_data(
                    self.tree, statement, node) and self._assigned_never_read(statement)):
                return False
        return True

    def _assigned_never_read(self, statement: ast.stmt) -> bool:
        """Whether the top-level assignment ``statement`` binds names (``AmoebaNet = Genotype(...)``) that no file
        of the application names but there."""
        targets = statement.targets if isinstance(statement, ast.Assign) else [getattr(statement, "target", None)]
        if not targets or not all(isinstance(target, ast.Name) for target in targets):
            return False
        text = read_text(self.path) or ""
        own = os.path.abspath(self.path)
        for target in targets:
            files = files_naming(self.path, target.id)
            if not files or any(os.path.abspath(file) != own for file, _ in files) or _words_in_code(
                    text, target.id) != 1:
                return False
        return True

    def _in_uncalled_method(self, top: ast.ClassDef, line: int) -> bool:
        """Whether ``line`` lies in the body of a method of the top-level class ``top`` that no run calls
        (``method_never_called``; its ``def`` line is the class's: ``forward`` with no ``construct``)."""
        method = next((node for node in top.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                       and node.body[0].lineno <= line <= (node.end_lineno or node.lineno)), None)
        return method is not None and self.method_never_called(top, method)

    def method_never_called(self, top: ast.ClassDef, method: FunctionNode) -> bool:
        """Whether no run of the application calls the method ``method`` of the top-level class ``top``: every
        place its name is written in the application lies in this module, in code no run reaches (``never_runs``: a
        function no entry calls, a dead branch, another such method) or in the method itself (``repvgg_convert``,
        which no file calls, is the only code that calls ``block.switch_to_deploy()``). Never for a name MindSpore
        itself may call (``construct``, a Cell's own methods, a dunder), a decorated method, a class with a base
        other than ``nn.Cell`` and this module's classes (another base may call it), where a string code keeps
        holds the name (``hasattr(m, "switch_to_deploy")`` counts as a use; a comment or docstring does not), nor
        for a library's module. Once per method."""
        known = self._uncalled_methods.get(id(method))
        if known is None:
            self._uncalled_methods[id(method)] = False  # (a guard: methods whose only calls are in each other)
            known = self._uncalled_methods[id(method)] = self._find_method_never_called(top, method)
        return known

    def _find_method_never_called(self, top: ast.ClassDef, method: FunctionNode) -> bool:
        name = method.name
        info = self.classes.get(top.name)
        if info is None or not self.path or name.startswith("__") or name in api.CELL_INSTANCE_NAMES or name in (
                "construct", "bprop") or any(not (isinstance(decorator, ast.Name) and decorator.id in (
                    "staticmethod", "classmethod")) for decorator in method.decorator_list):
            return False
        for owner in info.lineage():
            for base in owner.node.bases:
                qualname = self.qualname(base)
                if not (qualname in _PLAIN_BASES or self.local_class(qualname) is not None):
                    return False  # (another base may call it by its name: a Callback's ``on_train_step_end``)
        files = files_naming(self.path, name)
        own = os.path.abspath(self.path)
        if not files or any(not file.endswith(".py") for file, _ in files) or all(
                os.path.abspath(file) != own for file, _ in files):
            return False  # (a configuration names it, or the application's files are not known: a library's users)
        for file, _ in files:
            if os.path.abspath(file) == own:
                if not self.name_never_runs(name, method, top):
                    return False
            elif not answer("name written only where no run reaches", file, self.settings, (name,),
                            lambda facts: facts is not None and facts.name_never_runs(name, None, None)):
                return False
        return True

    def name_never_runs(self, name: str, method: FunctionNode | None, top: ast.ClassDef | None) -> bool:
        """Whether this module writes the word ``name`` only in code no run reaches (``never_runs``), in the method
        ``method`` itself, as the name of a method it defines, in comments and docstrings, or as another class's
        call of its own method (``self.name()`` in a method of a class that defines ``name``, which calls that
        class's method: one that is neither ``top``, the class of ``method``, nor one of its bases; ``top`` is None
        for a module other than ``method``'s, whose classes are none of its bases)."""
        written = list(_written_names(self.tree, name))
        if not self.path or _words_in_code(read_text(self.path) or "", name) != len(written):
            return False  # (the file read is not the tree checked, or it writes the name as nothing read here)
        own_calls = _own_method_reads(self.tree, name, self._lineage_nodes(top))
        return all(method is not None and method.lineno <= statement.lineno <= (method.end_lineno or method.lineno)
                   or node is statement and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                   or id(node) in own_calls or not _runs_code(statement) or self.never_runs(statement)
                   for node, statement in written)

    def _lineage_nodes(self, top: ast.ClassDef | None) -> frozenset[int]:
        """The ids of the class nodes of ``top`` and its bases of this module (none for None)."""
        info = self.classes.get(top.name) if top is not None else None
        if info is None:
            return frozenset({id(top)}) if top is not None else frozenset()
        return frozenset(id(owner.node) for owner in info.lineage()) | {id(top)}

    def _top_block(self, line: int) -> ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | None:
        """The top-level class or function of the module that holds ``line``."""
        return next((block for block in self.tree.body if isinstance(block, (
            ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and block.lineno <= line <= (
            block.end_lineno or block.lineno)), None)

    def sub_cells_never_called(self) -> frozenset[str]:
        """The Cell classes of this module that its application builds only as sub-cells of this module's Cells
        (``self.head = Head(...)``: ``_sub_cell_classes``), that no other file of it names and no class here derives
        from, and whose every use (``self.head(x)``) lies in a branch graph code drops (``if self.training:`` in an
        application that never trains): their ``construct`` never runs. None for a library's module."""
        if self._uncalled_sub_cells is None:
            self._uncalled_sub_cells = frozenset(self._find_sub_cells_never_called())
        return self._uncalled_sub_cells

    def _find_sub_cells_never_called(self) -> Iterator[str]:
        sub_cells = self._sub_cell_classes() if self.path else {}
        if not sub_cells:
            return
        own = os.path.abspath(self.path)
        derived = {base.key for info in self.classes.values() for base in info.local_bases}
        uses: dict[str, list[ast.Attribute]] = {}
        calls: dict[int, ast.Call] = {}
        walked = False
        for key, attributes in sub_cells.items():
            info = self.classes.get(key)
            if info is None or key in derived or "." in key:
                continue
            naming = files_naming(self.path, info.name)
            if naming is None or any(os.path.abspath(file) != own for file, _ in naming):
                continue
            if not walked:  # (one pass over the module's nodes for both, once a class may be one)
                walked = True
                for node in self.index.nodes if not self.index.outline else ast.walk(self.tree):
                    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and isinstance(
                            node.value, ast.Name):
                        uses.setdefault(node.attr, []).append(node)
                    elif isinstance(node, ast.Call):
                        calls[id(node.func)] = node
            found = [use for attribute in attributes for use in uses.get(attribute, ())]
            if found and all(id(use) in calls and self._call_dropped(calls[id(use)]) for use in found):
                yield info.name

    def _call_dropped(self, call: ast.Call) -> bool:
        """Whether ``call`` never runs: graph code drops the branch that holds it (``in_dead_branch`` of the function
        around it), or it lies in a top-level class or function the application never runs or builds only in code
        it never runs."""
        top = self._top_block(call.lineno)
        if top is not None and (top.name in self.never_run or self.built_only_in_dead_code(top.name)):
            return True
        function = next((graph.node for graph in self.graph_functions
                         if graph.node.lineno <= call.lineno <= (graph.node.end_lineno or graph.node.lineno)
                         and any(node is call for node in ast.walk(graph.node))), None)
        return function is not None and self.in_dead_branch(call, function)

    def built_only_in_dead_code(self, name: str, depth: int = 0) -> bool:
        """Whether every place the application builds the top-level class or calls the top-level function ``name``
        of this module (``construction_sites``) lies in code no run of it reaches: a branch no run takes
        (``in_dead_branch``: ``if self.non_local:`` that every construction leaves False, ``if
        config.temporal_pool:`` that every configuration sets False), or a top-level class or function of its file
        that is itself built only there (followed ``_MAX_DEAD_DEPTH`` deep), or in code the application never runs;
        or no code builds or calls it (every word that names it read: an ``Attention`` where the one module that
        builds an ``Attention`` defines its own), where it is not decorated (a decorator may register it) and the
        application looks no name up as its text cannot follow (``lookups_followed``). False where a site is not
        read and for a library's module."""
        known = self._dead_built.get((name, depth))
        if known is None:
            self._dead_built[(name, depth)] = False  # (a guard: a class built only inside itself)
            known = self._dead_built[(name, depth)] = self._built_only_in_dead_code(name, depth)
        return known

    def _built_only_in_dead_code(self, name: str, depth: int) -> bool:
        definition = next((node for node in self.tree.body if isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name), None)
        if definition is None or depth > _MAX_DEAD_DEPTH or not self.path or self._runs_as_script():
            return False  # (a script's functions: its own ``__main__`` block calls them)
        defining = ast.ClassDef if isinstance(definition, ast.ClassDef) else (ast.FunctionDef, ast.AsyncFunctionDef)
        found = construction_sites(self.path, name, defining)
        if found is None:
            return False
        sites, unrun = found
        if not sites:
            # every site lies in code the application never runs, or no code builds or calls it where no name is
            # looked up as the text cannot follow (``getattr(models, args.arch)`` may build it)
            # (a decorator may register it: ``@clip_grad.register("Number", "Tensor")`` that ``hyper_map`` calls)
            return unrun > 0 or not definition.decorator_list and lookups_followed(self.path)
        own = os.path.abspath(self.path)
        for file, call, around in sites:
            if around is None or around == name:
                return False  # at the top level of its file (not followed), or inside the definition itself
            position = (call.lineno, call.col_offset)
            if os.path.abspath(file) == own:
                dead = self.dead_call(position, around, depth + 1)
            else:
                dead = answer("built only in dead code", file, self.settings,
                              (*position, around or "", depth + 1, configuration_key(file)),
                              lambda facts, position=position, around=around: facts is not None and facts.dead_call(
                                  position, around, depth + 1))
            if not dead:
                return False
        return True

    def _runs_as_script(self) -> bool:
        """Whether the module holds a top-level ``if __name__ == "__main__":`` block."""
        return main_guard(self.tree) is not None

    def dead_call(self, position: tuple[int, int], around: str | None, depth: int) -> bool:
        """Whether the call at ``position`` (line, column) of this module, in its top-level definition ``around``,
        lies in code no run reaches: a dead branch of the function around it, or a definition built only there."""
        block = next((node for node in self.tree.body if isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == around), None)
        if block is None:
            return False
        if self.built_only_in_dead_code(around, depth):
            return True
        function, call = None, None
        stack: list[tuple[ast.AST, FunctionNode | None]] = [(block, None)]
        while stack and call is None:
            node, inside = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                inside = node
            if isinstance(node, ast.Call) and (node.lineno, node.col_offset) == position:
                function, call = inside, node
            stack.extend((child, inside) for child in ast.iter_child_nodes(node) if getattr(child, "lineno", 0) <= (
                position[0]) <= (getattr(child, "end_lineno", None) or 1 << 62))  # (only what holds its line)
        return call is not None and self.in_dead_branch(call, function)

    def _mark_roots(self) -> None:
        """Give each graph function the roots that reach it (``compiled_by``)."""
        by_node = self._graph_by_node
        for function in self.graph_functions:
            function.compiled_by = {}
        for root in self.graph_functions:
            if not root.roots:
                continue
            reached, stack = {id(root.node)}, [root]
            while stack:
                function = stack.pop()
                for label, graph_mode_only in root.roots.items():
                    function.compiled_by[label] = function.compiled_by.get(label, True) and graph_mode_only
                for callee in function.callees:
                    if callee not in reached and callee in by_node:
                        reached.add(callee)
                        stack.append(by_node[callee])

    def _called_from_other_modules(self):
        """(function, its class, (kinds, constants) passed, root labels, strict) for each function of this module
        that graph code of another module of the project calls and this module's own roots do not reach; the
        roots are labelled with where they lie (``Net.construct (models/net.py)``)."""
        from ms_lint.model.project import graph_calls_into

        candidates: dict[str, set[str]] = {}
        for node, owner in self.function_nodes():
            if id(node) in self._graph_by_node:
                continue
            if owner is None:
                if self.functions.get(node.name) is node:
                    candidates.setdefault("", set()).add(node.name)
            elif owner.methods.get(node.name) is node and node.name not in ("__init__", "__new__"):
                candidates.setdefault(owner.key, set()).add(node.name)
        if not candidates:
            return
        for (class_key, name), (kinds, values, labels, is_strict) in graph_calls_into(self, candidates).items():
            owner = self.classes.get(class_key) if class_key else None
            node = owner.methods.get(name) if owner is not None else self.functions.get(name)
            if node is not None and id(node) not in self._graph_by_node:
                yield node, owner, (dict(kinds), dict(values)), labels, is_strict

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
                        join_parameters(known[2], known[3], kinds, values)
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
                if not (site.function is not None and self_attribute(func, first_argument(site.function)) in attributes
                        and site.owner is not None and self.classes[key] in self._local_sub_cells(site.owner, func.attr)
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
                    join_parameters(known[0], known[1], {}, values)
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
            join_parameters(kinds, values, added[0], added[1])
            strict = function.strict or added[2]
        else:
            kinds, values, strict = (dict(function.as_root[0]), dict(function.as_root[1]), function.as_root[2]) if (
                function.as_root is not None) else ({}, {}, False)
            for caller_id, (passed_kinds, passed_values) in function.passed_by.items():
                join_parameters(kinds, values, passed_kinds, passed_values)
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

    def _user_method(self, caller: GraphFunction, func: ast.Attribute, external: bool = True):
        """``(facts of its module, class, method)`` of the method ``obj.method`` or ``self.obj.method`` calls: of a
        user object (``self.scaler.apply(x)``), a ``@jit_class`` instance the Cell holds or a local name holds
        (``self.sched.step(x)`` after ``self.sched = Scheduler()``), or a sub-cell (``self.encoder.set_mode(m)``),
        whose class is this module's or another module's of the project (only this module's unless ``external``);
        None when the model cannot name it."""
        found = self._receiver_class(caller, func.value, external)
        if found is None:
            return None
        facts, info = found
        return self._method(facts, info, func.attr, external)

    def _method(self, facts, info: ClassInfo, name: str, external: bool):
        """``method_of``, or, unless ``external``, only among the classes of this module."""
        if external:
            return facts.method_of(info, name)
        found = info.find_method(name) if facts is self else None
        return (self, *found) if found is not None else None

    def _receiver_class(self, caller: GraphFunction, receiver: ast.AST, external: bool = True):
        """``(facts, ClassInfo)`` of the class of the object ``receiver`` holds in ``caller``, where the model can
        name it: a user object (``object_type``), a sub-cell of this module, or what ``self.<attribute> = X(...)``
        or a local ``x = X(...)`` built, in this module or another module of the project."""
        user_type = caller.object_type(receiver)
        if user_type is not None:
            module = user_type.module
            info = module.classes.get(user_type.key) if module is not None else None
            return (module, info) if info is not None and (external or module is self) else None
        if isinstance(receiver, ast.Attribute):
            # a sub-cell of this module's classes: self.encoder.set_attention_type("full")
            info = self.class_called(caller, receiver)
            if info is not None:
                return self, info
            if self_attribute(receiver, caller.self_name) is None or caller.owner is None:
                return None
            qualname = caller.owner.attribute_constructor(receiver.attr)
        elif isinstance(receiver, ast.Name) and receiver.id in caller.env:
            value = self.value_bound_to(receiver, caller.node, caller.owner)
            qualname = self.qualname(value.func) if isinstance(value, ast.Call) else None
        else:
            return None
        return self.class_of(qualname, external)

    def class_of(self, qualname: str | None, external: bool = True):
        """``(facts, ClassInfo)`` of the class ``qualname`` names in this module or another module of the
        project; None for any other name (answered once per name)."""
        if not qualname:
            return None
        local = self.local_class(qualname)
        if local is not None:
            return self, local
        if not external:
            return None
        if qualname in self._classes_of:
            return self._classes_of[qualname]
        found = None
        if self._other_module_class(qualname) is not None:
            found = project_class_facts(self.path, qualname, self.settings)
            found = (found[0], found[0].classes[found[1]]) if found is not None else None
        self._classes_of[qualname] = found
        return found

    def class_called(self, caller: GraphFunction, receiver: ast.AST) -> ClassInfo | None:
        """The class of this module whose method ``<receiver>.f(...)`` calls in ``caller``: ``self``'s class, a class
        named (``Block.f``), the class of a sub-cell (``self.block.f``), or of ``type(...)`` of one of these."""
        receiver = _type_of(receiver) or receiver
        if isinstance(receiver, ast.Name) and receiver.id == caller.self_name and caller.owner is not None:
            return caller.owner
        if isinstance(receiver, ast.Name):
            return self.local_class(self.qualname(receiver))
        if (self_attribute(receiver, caller.self_name) is not None and caller.owner is not None):
            return self._local_sub_cell(caller.owner, receiver.attr)
        return None

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
        if site.owner is not None and site.function is not None and self_attribute(
                func, first_argument(site.function)) is not None:
            return site.owner.find_method(func.attr) is not None or any(
                info.cell_attributes.get(func.attr) for info in site.owner.lineage())
        return False

    def calls_from(self, caller: GraphFunction) -> Iterator[tuple[ast.Call, FunctionNode, ClassInfo | None, dict]]:
        """Each call in ``caller`` to a function of this module: (the call, the function, its class, the kinds of
        the arguments the call passes). Methods are found through ``self``, ``super()``, a class (``Block.shift(x)``),
        a sub-cell or held object (``self.block.shift(x)``, a ``@jit_class`` instance) and ``type(...)`` of one; a
        static method's first parameter takes the first argument, a classmethod's ``cls`` none. Calls to functions of
        the project's other modules are ``external_calls``."""
        for node, facts, target, owner, bound in self._resolved_calls(caller, external=False):
            yield node, target, owner, parameter_kinds_of_call(caller, node, target, bound)
            func = node.func
            if bound and self_attribute(func, caller.self_name) is not None and caller.owner is not None:
                # ``self.m()`` in a method a subclass inherits runs the subclass's own ``m`` on its instances
                for sub_owner, override in self._overrides(caller.owner, caller.node, func.attr):
                    yield node, override, sub_owner, parameter_kinds_of_call(caller, node, override, True)

    def external_calls(self, caller: GraphFunction):
        """Each call in ``caller`` to a function or method defined in another module of the project (a helper it
        imports, a method inherited from a mixin or base class there, a method of an object whose class is there):
        (the call, the facts of that module, the function, its class, the kinds the call passes)."""
        for node, facts, target, owner, bound in self._resolved_calls(caller, external=True):
            if facts is not self:
                yield node, facts, target, owner, parameter_kinds_of_call(caller, node, target, bound)

    def _resolved_calls(self, caller: GraphFunction, external: bool):
        """(call, facts of the callee's module, callee, its class, whether its first parameter is bound) for each
        call in ``caller`` whose callee the model can name, in this module or, with ``external``, another of the
        project (whose modules are read only then)."""
        for node in caller.nodes_of(ast.Call):
            func = node.func
            target: FunctionNode | None = None
            owner: ClassInfo | None = None
            facts = self
            bound = False
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                if self_attribute(func, caller.self_name) is not None and caller.owner is not None:
                    found = caller.owner.find_method(func.attr)
                    if found is not None and func.attr not in ("construct", "bprop", "__init__"):
                        owner, target = found
                        bound = not is_static(target)
                    elif found is None:
                        sub_cells = self._local_sub_cells(caller.owner, func.attr)
                        if sub_cells:
                            # each Cell the attribute may hold runs its construct (``A(...) if c else B(...)``)
                            for other in sub_cells[1:]:
                                if "construct" in other.methods and not facts._runs_at_compile_time(
                                        other.methods["construct"]):
                                    yield node, self, other.methods["construct"], other, True
                            sub_cell = sub_cells[0]
                            if "construct" not in sub_cell.methods:
                                continue
                            owner, target, bound = sub_cell, sub_cell.methods["construct"], True
                        elif func.attr not in ("construct", "bprop", "__init__"):
                            # a method a base or mixin of another module defines, or the ``__call__`` of an object
                            # the Cell holds (``self.processor(x)`` with a ``@jit_class`` processor)
                            inherited = self.method_of(caller.owner, func.attr) if external else None
                            if inherited is None:
                                held = self._receiver_class(caller, func, external)
                                inherited = self._method(*held, "__call__", external) if held is not None else None
                            if inherited is not None:
                                facts, owner, target = inherited
                                bound = not is_static(target)
                elif self.class_of(self.qualname(func.value), external) is not None:
                    facts, info = self.class_of(self.qualname(func.value), external)
                    found = self._method(facts, info, func.attr, external)
                    if found is not None:
                        facts, owner, target = found
                        bound = is_classmethod(target)  # Block.make_mask(x): cls is filled
                elif external and func.value.id not in caller.env and self._other_module_function(
                        self.qualname(func)):
                    facts, target = self._other_module_function(self.qualname(func))  # utils.helper(x)
                else:
                    found = self._user_method(caller, func, external)
                    if found is not None:
                        facts, owner, target = found
                        bound = not is_static(target)
            elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute):
                # a method of a sub-cell or held object: self.block.make_mask(x), a static one's x is its first
                found = self._user_method(caller, func, external)
                if found is not None:
                    facts, owner, target = found
                    bound = not is_static(target)
            elif isinstance(func, ast.Attribute) and _type_of(func.value) is not None:
                # type(self.block).shift(x): the class's function, unbound unless a classmethod
                found = self._user_method(caller, ast.Attribute(value=_type_of(func.value), attr=func.attr), external)
                if found is not None:
                    facts, owner, target = found
                    bound = is_classmethod(target)
            elif isinstance(func, ast.Attribute) and _is_super(func.value) and caller.owner is not None:
                # super().helper(x): the method the bases define
                found = self._super_method(caller.owner, func.attr, external)
                if found is not None and func.attr not in ("construct", "bprop", "__init__"):
                    facts, owner, target = found
                    bound = not is_static(target)
            elif isinstance(func, ast.Name):
                local = self.local_function(func) if func.id not in caller.env else None
                if local is not None:
                    target = local
                elif external and func.id not in caller.env and self._other_module_function(self.qualname(func)):
                    facts, target = self._other_module_function(self.qualname(func))
                elif self.mode == "pynative" or caller.owner is None:
                    for target, owner, kinds in self._called_through_global(func.id):
                        yield node, self, target, owner, False
                    continue
            if target is None or (facts is self and target is caller.node) or facts._runs_at_compile_time(target):
                continue
            yield node, facts, target, owner, bound

    def _other_module_function(self, qualname: str | None):
        """``(facts, FunctionDef)`` of the module-level function of another module of the project ``qualname``
        names, or None."""
        if not qualname or qualname.startswith(self.local_prefix) or api.is_mindspore(qualname) \
                or api.is_host_library(qualname) or qualname.startswith("builtins."):
            return None
        found = project_function(self, qualname)
        return found if isinstance(found, tuple) and found[0] is not self else None

    def _super_method(self, owner: ClassInfo, name: str, external: bool):
        """``(facts, class, method)`` that ``super().name`` finds from a method of ``owner``: the first of its bases,
        in this module or the project's other modules, that has it."""
        for info in owner.lineage()[1:]:
            if name in info.methods:
                return self, info, info.methods[name]
        if not external:
            return None
        for local in owner.lineage():
            for base in local.node.bases:
                found = self.class_of(self.qualname(base))
                if found is not None and found[0] is not self:
                    method = found[0].method_of(found[1], name)
                    if method is not None:
                        return method
        return None

    def outgoing_calls(self) -> dict[tuple[str, str, str], tuple[dict, dict, dict[str, bool], bool]]:
        """What this module's graph code calls in the project's other modules, as ``ProjectIndex`` keeps it for
        them: (file, class key or "", function name) -> (the kinds and constants the calls pass, joined; the roots
        that reach the calls, each with whether only GRAPH_MODE compiles it; whether one is STRICT)."""
        found: dict[tuple[str, str, str], tuple[dict, dict, dict[str, bool], bool]] = {}
        for (facts, owner, node), label, graph_mode_only, strict in self._inherited_roots:
            if facts.path:
                key = (os.path.abspath(facts.path), owner.key, node.name)
                kinds = root_parameter_kinds(node, owner, facts.index)
                values = root_parameter_values(node, facts.keyword_arguments)
                known = found.get(key)
                if known is not None:
                    join_parameters(known[0], known[1], kinds, values)
                    kinds, values = known[0], known[1]
                roots = known[2] if known is not None else {}
                roots[label] = roots.get(label, True) and graph_mode_only
                found[key] = (kinds, values, roots, strict or (known is not None and known[3]))
        for function in self.graph_functions:
            if not function.compiled_by:
                continue
            for node, facts, target, owner, kinds in self.external_calls(function):
                if not facts.path:
                    continue
                values = parameter_values_of_call(node, target, kinds, function.constant)
                key = (os.path.abspath(facts.path), owner.key if owner is not None else "", target.name)
                known = found.get(key)
                if known is None:
                    found[key] = (dict(kinds), values, dict(function.compiled_by), function.strict)
                else:
                    join_parameters(known[0], known[1], kinds, values)
                    for label, graph_mode_only in function.compiled_by.items():
                        known[2][label] = known[2].get(label, True) and graph_mode_only
                    found[key] = (known[0], known[1], known[2], known[3] or function.strict)
        return found

    def _overrides(self, owner: ClassInfo, caller: FunctionNode, name: str) -> list[tuple[ClassInfo, FunctionNode]]:
        """The methods ``name`` that subclasses of ``owner`` in this module define over ``owner``'s, in those
        subclasses that inherit ``caller`` (a ``construct`` of a rotary embedding base calling
        ``self._set_cos_sin_cache``, which a scaled variant overrides): what ``self.<name>()`` in ``caller`` runs on
        their instances."""
        key = (id(owner), name)
        candidates = self._overrides_of.get(key)
        if candidates is None:
            candidates = self._overrides_of[key] = [
                (info, info.methods[name]) for info in self.classes.values()
                if info is not owner and name in info.methods and any(base is owner for base in info.lineage()[1:])
                and not info.methods[name] is owner.find_method(name)[1]] if owner.find_method(name) else []
        found = []
        for info, method in candidates:
            inherited = info.find_method(caller.name)
            if inherited is not None and inherited[1] is caller and not is_static(method) and (
                    info.find_method(name)[1] is method):
                found.append((info, method))
        return found

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
            assignment = self.assignment_of(site.node) or self._choice_assignments().get(id(site.node))
            target = assignment.targets[0] if assignment is not None and len(assignment.targets) == 1 else None
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                attributes.setdefault(built[1].key, set()).add(target.attr)
            else:
                excluded.add(built[1].key)
        if not attributes:
            return {}  # most modules: no call made here to learn of
        called = self.called_attributes()
        return {name: attrs for name, attrs in attributes.items() if name not in excluded and attrs <= called}

    def _choice_assignments(self) -> dict[int, ast.Assign]:
        """Each Cell built in an arm of a conditional expression that an assignment binds (``self.x = A(...) if c
        else B(...)``), by the call's id, with that assignment."""
        found = self._choice_assignment_of
        if found is None:
            nodes = self.index.nodes
            found = self._choice_assignment_of = {
                id(arm): nodes[position] for position in self.index.positions_of(ast.Assign)
                if isinstance(nodes[position].value, ast.IfExp) for arm in conditional_arms(nodes[position].value)}
        return found

    def _local_sub_cell(self, owner: ClassInfo, attribute: str) -> ClassInfo | None:
        """The class of this module that ``self.<attribute>`` of ``owner`` holds as a sub-cell (the first, where
        a conditional expression chooses among several: ``_local_sub_cells``)."""
        found = self._local_sub_cells(owner, attribute)
        return found[0] if found else None

    def _local_sub_cells(self, owner: ClassInfo, attribute: str) -> tuple[ClassInfo, ...]:
        """The classes of this module that ``self.<attribute>`` of ``owner`` may hold as a sub-cell: one, or each
        of ``A(...) if c else B(...)`` (asked for every such call in graph code: answered once per class and
        attribute)."""
        key = (id(owner), attribute)
        found = self._sub_cell_of.get(key, _UNBOUND)
        if found is _UNBOUND:
            holder = next((info for info in owner.lineage() if info.cell_attributes.get(attribute)), None)
            names = () if holder is None else holder.cell_choices.get(attribute) or (
                holder.cell_attributes[attribute],)
            found = self._sub_cell_of[key] = tuple(
                info for info in map(self.local_class, names) if info is not None)
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
                yield method[1], method[0], root_parameter_kinds(method[1], method[0], self.index)
            return
        if api.is_mindspore_name(self.qualname(value.func), *GRAD_NAMES) and value.args:
            first = value.args[0]
            if isinstance(first, ast.Name) and self.local_function(first) is not None:
                function = self.local_function(first)
                yield function, None, root_parameter_kinds(function, None, self.index)
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

    def cell_functions(self) -> list[GraphFunction]:
        """The code a Cell runs, with the kinds of its values: the graph functions, then the functions PyNative
        runs eagerly for Cells (``eager_functions``)."""
        return [*self.graph_functions, *self.eager_functions()]

    def is_graph_code(self, node: FunctionNode) -> bool:
        """Whether MindSpore compiles ``node`` in the module's mode: a root reaches it, and not only roots that
        GRAPH_MODE alone compiles where the module runs in PyNative."""
        function = self._graph_by_node.get(id(node))
        return function is not None and not function.graph_mode_only

    def graph_function_at(self, node: ast.AST) -> GraphFunction | None:
        """The innermost graph function whose code holds ``node`` (by its lines), compiled in the module's mode or
        only in GRAPH_MODE; None outside graph code."""
        line = getattr(node, "lineno", None)
        if line is None:
            return None
        end = getattr(node, "end_lineno", None) or line
        found = None
        for function in self.graph_functions:
            start, stop = function.node.lineno, function.node.end_lineno or function.node.lineno
            if start <= line and end <= stop and (found is None or start > found.node.lineno):
                found = function
        return found

    def in_dead_branch(self, node: ast.AST, function: FunctionNode | None) -> bool:
        """Whether ``node``, in ``function``, lies in a branch of graph code that MindSpore's parser drops (its
        condition folds to a constant: ``if self.seq_aux:`` with ``self.seq_aux = False`` set once in
        ``__init__``), or in a branch of a Cell's ``__init__`` that no construction of the Cell runs (``if
        batch_norm:`` where every site that builds it passes ``batch_norm=False``: ``constructor_constants``), or of
        a function of the module no call runs (``_bn(channel, res_base=False)`` that every ``__init__`` calls with
        ``self.res_base`` holding ``False``: ``function_constants``), or of another method by what its instance's
        attributes hold (``if self.non_local:``); a configuration attribute every run holds folds in each
        (``if config.temporal_pool:``: ``configuration.configured_value``)."""
        if function is None:
            return False
        graph = self._graph_by_node.get(id(function))
        if graph is not None:
            return graph.is_dead(node)
        folded = self._folded_by_callers(function)
        return folded is not None and folded.is_dead(node)

    def _folded_by_callers(self, function: FunctionNode) -> FunctionKinds | None:
        """A Cell's ``__init__``, or a function of the module, with the switches every caller passes it, its
        branches folded (``in_dead_branch``); None for other code. Once per function."""
        key = id(function)
        if key in self._constructors:
            return self._constructors[key]
        self._constructors[key] = None  # (a guard: a function whose callers' arguments ask about it again)
        owner = self.class_of_function.get(key)
        constants = None
        if owner is not None and function.name == "__init__" and owner.methods.get("__init__") is function:
            constants = owner.constructor_constants()
        elif owner is None and self.functions.get(function.name) is function and self.path:
            constants = function_constants(self.path, function, self.tree, self.argument_constant,
                                           self.call_never_runs)
        elif owner is not None and function.name != "__init__" and (
                not owner.is_cell or self._runs_only_while_built(owner, function)):
            constants = {}  # another method: what its instance's attributes hold decides (``if self.non_local:``)
        folded = None
        if constants is not None:
            folded = FunctionKinds(self, function, owner)
            # Python runs every ``__init__`` and a plain class's methods (but a ``jit_class``'s, which may compile)
            folded.runs_as_python = owner is not None and (function.name == "__init__" or not (
                owner.is_cell or owner.node.decorator_list))
            folded.parameter_values = {name: value if isinstance(value, OneOf) else frozenset({(type(value), value)})
                                       for name, value in constants.items()}
            if constants or reads_configuration(function) or function.name != "__init__" and owner is not None:
                folded.find_dead_code()
        self._constructors[key] = folded
        return folded

    def _runs_only_while_built(self, owner: ClassInfo, function: FunctionNode) -> bool:
        """Whether the Cell's method ``function`` runs only while the Cell is built: every use of its name in the
        application is a ``self.<name>(...)`` call in the class's own ``__init__`` (``self._prepare_base_model()``).
        Then its instance's attributes hold what ``__init__`` gave them; a method called later (``redeploy()``) may
        meet attributes a parent or a user has set since (``net.deployed = True``)."""
        init = owner.methods.get("__init__")
        if init is None or not self.path:
            return False
        name = function.name
        files = files_naming(self.path, name)
        if files is None or any(os.path.abspath(file) != os.path.abspath(self.path) for file, _ in files):
            return False  # (another file names it, or the application's files are not known: a library's users)
        self_name = first_argument(init)
        calls = self.index.calls_written_in(init, name)
        if calls is None:  # (an outline's method: the index does not hold its body)
            calls = [node for node in ast.walk(init) if isinstance(node, ast.Call)]
        called = sum(isinstance(call.func, ast.Attribute) and call.func.attr == name and self_attribute(
            call.func, self_name) is not None for call in calls)
        if self._attribute_uses is None:
            self._attribute_uses = Counter(node.attr for node in ast.walk(self.tree) if isinstance(node, ast.Attribute))
        return called > 0 and self._attribute_uses[name] == called

    def argument_constant(self, call: ast.Call, argument: ast.expr):
        """What an argument of a call of this module folds to: in a Cell's ``__init__`` or a function of the module,
        with what its callers pass (``self.res_base``, ``res_base``, ``drop_rate``); elsewhere only a literal."""
        folded = self._folded_around(call)
        return folded.constant(argument) if folded is not None else literal(argument)

    def call_never_runs(self, call: ast.Call) -> bool:
        """Whether a call of this module lies in a branch of a Cell's ``__init__`` or of a function of the module
        that no caller runs (``if SE_layer: self.se = SE(c)`` where every construction passes
        ``SE_layer=False``), or in a top-level function of the module that the application calls nowhere or only
        in code no run reaches (``_resnet(...)`` in ``resnext50_32x4d``, which nothing calls:
        ``built_only_in_dead_code``)."""
        folded = self._folded_around(call)
        if folded is not None and folded.is_dead(call):
            return True
        top = self._top_block(call.lineno)
        return isinstance(top, ast.FunctionDef | ast.AsyncFunctionDef) and self.built_only_in_dead_code(top.name)

    def _folded_around(self, call: ast.stmt | ast.expr) -> FunctionKinds | None:
        """The class's ``__init__``, another method of a plain class (folded by what its instance's attributes
        hold where no code outside the class writes them: ``if self.mode.lower() == "binary":``) or the function of
        the module whose lines hold ``call`` (or another node), folded with what its callers pass
        (``_folded_by_callers``); None elsewhere. (A Cell's other methods: its graph code answers for those.)"""
        around = None
        for info in self.classes.values():
            init = info.methods.get("__init__")
            if init is not None and init.lineno <= call.lineno <= (init.end_lineno or init.lineno):
                return self._folded_by_callers(init)
            for method in () if info.is_cell else info.methods.values():
                if method.lineno <= call.lineno <= (method.end_lineno or method.lineno) and (
                        around is None or method.lineno > around.lineno):
                    around = method  # (the innermost: a class defined in a method)
        if around is not None:
            return self._folded_by_callers(around)
        for function in self.functions.values():
            if function.lineno <= call.lineno <= (function.end_lineno or function.lineno):
                return self._folded_by_callers(function)
        return None

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
        unrun = self.never_run
        for info in self.classes.values():
            found = info.find_method("construct") if info.is_cell and info.name not in unrun else None
            if found is None:
                continue
            owner, node = found
            kinds = {} if info.key in sub_cells else root_parameter_kinds(node, owner, self.index)
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
        self._fold_sub_cells_by_callers(functions, sub_cells)
        return self._eager_functions

    def _fold_sub_cells_by_callers(self, functions: dict[int, EagerFunction], sub_cells: dict[str, set[str]]) -> None:
        """Fold the branches of each sub-cell's eager ``construct`` by what every call of it in the module passes
        (``if nums is None:`` where each passes ``Tensor(counts)``): Python takes no branch that no passed value
        takes. Only where every call of the attributes holding it is in eager code read here."""
        passed: dict[int, dict[str, object]] = {}
        seen: set[int] = set()
        for function in functions.values():
            for call, callee, _, kinds in self.calls_from(function):
                target = functions.get(id(callee))
                if target is None or target.owner is None or target.owner.key not in sub_cells or (
                        callee.name != "construct") or id(call) in seen:
                    continue
                seen.add(id(call))
                values = parameter_values_of_call(call, callee, kinds, function.constant)
                known = passed.setdefault(id(callee), {})
                for name, value in values.items():
                    earlier = known.get(name)
                    known[name] = value if earlier is None else UNKNOWN if UNKNOWN in (earlier, value) else (
                        earlier | value)
        for key, values in passed.items():
            function = functions[key]
            attributes = sub_cells[function.owner.key]
            calls = [self.index.calls_written_in(self.tree, attribute) for attribute in sorted(attributes)]
            if any(found is None or any(id(node) not in seen for node in found) for found in calls) or all(
                    value is UNKNOWN for value in values.values()):
                continue
            function.parameter_values = {name: values.get(name, UNKNOWN) for name in parameter_names(function.node)}
            function.find_dead_code()


# The bases a class may have for the names of its methods to be all that calls them (with ``construct``, ``bprop``
# and the Cell's own: ``CELL_INSTANCE_NAMES``).
_PLAIN_BASES = frozenset({"object", "mindspore.nn.Cell", "mindspore.nn.cell.Cell"})


def _registry_name(statement: ast.stmt | None) -> str | None:
    """The name a top-level statement binds a dict literal to (``OPS = {...}``), else None."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(
            statement.targets[0], ast.Name) and isinstance(statement.value, ast.Dict):
        return statement.targets[0].id
    return None


def _held_as_data(module: ast.Module, statement: ast.stmt, node: ast.AST) -> bool:
    """Whether the top-level assignment ``statement`` of ``module`` holds ``node`` as data only: inside lists,
    tuples, sets, dicts and named tuples the module defines (``Genotype(normal=[("conv_3x3", 0)])`` after
    ``Genotype = namedtuple(...)``), passed to no other call."""
    named_tuples = {target.id for other in module.body if isinstance(other, ast.Assign) and isinstance(
        other.value, ast.Call) and getattr(other.value.func, "id", getattr(other.value.func, "attr", None)) == (
        "namedtuple") for target in other.targets if isinstance(target, ast.Name)}
    value = getattr(statement, "value", None)
    stack = [(value, ())] if value is not None else []
    while stack:
        current, path = stack.pop()
        if current is node:
            return all(isinstance(step, ast.List | ast.Tuple | ast.Set | ast.Dict | ast.keyword | ast.Starred)
                       or isinstance(step, ast.Call) and isinstance(step.func, ast.Name) and step.func.id in
                       named_tuples for step in path)
        stack.extend((child, (*path, current)) for child in ast.iter_child_nodes(current))
    return False


def _written_names(tree: ast.AST, name: str) -> Iterator[tuple[ast.AST, ast.stmt]]:
    """Each node of ``tree`` that writes the word ``name`` (``x.name``, ``name``, ``def name``, a keyword, an
    import's name, a string holding the word: once per time it holds it), with the innermost statement around it."""
    word = re.compile(rf"\b{re.escape(name)}\b")
    stack: list[tuple[ast.AST, ast.stmt | None]] = [(tree, None)]
    while stack:
        node, statement = stack.pop()
        if isinstance(node, ast.stmt):
            statement = node
        if statement is not None:
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                for _ in word.finditer(node.value):
                    yield node, statement
            elif name in (getattr(node, "attr", None), getattr(node, "id", None), getattr(node, "arg", None),
                          getattr(node, "asname", None)) or isinstance(node, (
                              ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name or isinstance(
                                  node, ast.alias) and name in node.name.split("."):
                yield node, statement
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                for written in node.names:
                    if written == name:
                        yield node, statement
        stack.extend((child, statement) for child in ast.iter_child_nodes(node))


def _own_method_reads(tree: ast.AST, name: str, excluded: frozenset[int]) -> set[int]:
    """The ids of the ``self.name`` reads in the methods of each class of ``tree`` that defines a method ``name``
    itself (its own method, or a subclass's override of it), but of no class whose node's id is in ``excluded``."""
    found: set[int] = set()
    for klass in ast.walk(tree):
        if not isinstance(klass, ast.ClassDef) or id(klass) in excluded or not any(
                isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name for node in klass.body):
            continue
        for function in klass.body:
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            receiver = first_argument(function)
            found.update(id(node) for node in ast.walk(function) if self_attribute(node, receiver) == name)
    return found


def _named_in_a_string(file: str, text: str, name: str) -> bool:
    """Whether the Python file ``file`` (its text ``text``) writes the word ``name`` inside a string its code holds
    (not a docstring): a name code may look a class up by."""
    if not any(token in text for token in (f'"{name}', f"'{name}", f".{name}")):
        return False
    tree = tree_of(file, text)
    return tree is None or any(isinstance(node, ast.Constant) and _runs_code(statement)
                               for node, statement in _written_names(tree, name))


def _words_in_code(text: str, name: str) -> int:
    """How often ``text`` (Python) writes the word ``name`` outside comments: as a name, or inside a string (-1
    where it does not tokenize)."""
    word = re.compile(rf"\b{re.escape(name)}\b")
    count = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.NAME and token.string == name:
                count += 1
            elif token.type in _STRING_TOKENS:
                count += len(word.findall(token.string))
    except (tokenize.TokenError, SyntaxError):
        return -1
    return count


_STRING_TOKENS = frozenset({tokenize.STRING, *(getattr(tokenize, kind) for kind in (
    "FSTRING_MIDDLE",) if hasattr(tokenize, kind))})


def _runs_code(statement: ast.stmt) -> bool:
    """Whether ``statement`` runs anything: not a docstring or other bare string."""
    return not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant))


def _is_super(expr: ast.AST) -> bool:
    """``super()`` or ``super(Cls, self)``."""
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "super"


def _type_of(expr: ast.AST) -> ast.AST | None:
    """``x`` of ``type(x)``, else None."""
    if (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "type"
            and len(expr.args) == 1 and not expr.keywords):
        return expr.args[0]
    return None


def root_parameter_kinds(node: FunctionNode, owner: ClassInfo | None,
                         index: NodeIndex | None = None) -> dict[str, str | None]:
    """The inputs of a compiled function are tensor data, except parameters defaulting to a literal (flags),
    parameters annotated as Python values (``dim: int``, ``sizes: tuple[int, ...]``, ``mode: Optional[str]``) and
    parameters bounding a ``range()`` (``for i in range(n)``, ``range(n - 1)``): MindSpore's ``range`` takes int
    scalars only and refuses a tensor (TypeError), so the caller passes an int, a constant of the graph.
    ``index``: that of the module ``node`` lies in, which finds its ``range()`` calls without a walk."""
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
    for name in _range_bounds(node, index) if kinds else ():
        if name in kinds:
            kinds[name] = None
    return kinds


def _range_bounds(node: FunctionNode, index: NodeIndex | None = None) -> set[str]:
    """The names a ``range()`` call of ``node`` takes as a bound, alone or in arithmetic (``range(n)``,
    ``range(1, n + 1)``); not those it reads through (``range(x.shape[0])``)."""
    names: set[str] = set()
    calls = index.calls_written_in(node, "range") if index is not None else None
    for call in ast.walk(node) if calls is None else calls:
        if call.__class__ is ast.Call and call.func.__class__ is ast.Name and call.func.id == "range":
            pending = list(call.args)
            while pending:
                bound = pending.pop()
                if isinstance(bound, ast.Name):
                    names.add(bound.id)
                elif isinstance(bound, ast.BinOp):
                    pending.extend((bound.left, bound.right))
                elif isinstance(bound, ast.UnaryOp):
                    pending.append(bound.operand)
    return names


def builds_tensor(expr: ast.expr) -> bool:
    """Whether ``expr`` is a tensor, never None, by its text: a ``Tensor(...)`` built from data, or arithmetic
    (``x * 2``, ``-x``), which gives no None."""
    if isinstance(expr, (ast.BinOp, ast.UnaryOp)) and not isinstance(expr.op, ast.Not):
        return True
    if not isinstance(expr, ast.Call) or not expr.args:
        return False
    func = expr.func
    if isinstance(func, ast.Name):
        return func.id == "Tensor"
    return isinstance(func, ast.Attribute) and func.attr in ("Tensor", "tensor") and isinstance(
        func.value, ast.Name) and func.value.id in ("ms", "mindspore")


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
            constant = constant_of(passed[name])
            values[name] = _constants(TENSOR_DATA if constant is UNKNOWN and builds_tensor(passed[name]) else constant)
        elif not unpacked and name in defaults:
            values[name] = _constants(literal(defaults[name]))
        else:
            values[name] = UNKNOWN
    return values
