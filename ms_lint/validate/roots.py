"""Which units reach a finding's function: the Cells and jit functions whose compile compiles it.

The validator compiles units (Cell classes, jit functions). A finding outside any (in a ``@jit_class`` method, a
helper function or class, a mixin's or a base class's method) is real only where the project's graph code reaches
it, so it is settled by compiling the units that reach its function. ``roots_reaching`` is the one place the
validator asks that, and it asks the model: each ``GraphFunction`` names the roots whose compile compiles it
(``compiled_by``: a Cell's ``construct`` or ``bprop``, a ``@jit`` function, of this module or of another module of
the project); a ``@jit_class`` method, a helper, a mixin's method is graph code only where such a root reaches it.

Where the model names no root (a finding the static checks made with other settings), the units that name the
function's class or the function itself, in its module or its package, come back as ``candidates``: compiling them
shows whether they reach the line. When neither a root nor a candidate is found, no graph code of the project calls
the function.
"""
from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass, field

from ms_lint.validate.dependencies import imported_from
from ms_lint.validate.own_examples import parsed_once


# At most this many units are compiled for the findings of one function: the roots first, then the candidates.
MAX_UNITS = 4
MAX_FILES = 20000
MAX_BYTES = 2_000_000


@dataclass(frozen=True)
class Unit:
    """A Cell class or jit function (``scope``) of the file ``path``; ``how``: how it reaches the function."""

    path: str
    scope: str
    how: str


@dataclass
class Reach:
    """``function``: the function holding the line (``Irrep.dim``, ``helper``); ``roots``: the units the model
    says reach it; ``candidates``: units that name it where the model cannot follow (compile them to see)."""

    function: str
    roots: list[Unit] = field(default_factory=list)
    candidates: list[Unit] = field(default_factory=list)

    @property
    def units(self) -> list[Unit]:
        return (self.roots + [unit for unit in self.candidates if unit not in self.roots])[:MAX_UNITS]


def roots_reaching(path: str, line: int, settings=None, index=None, package: "PackageFiles | None" = None) -> Reach:
    """The units whose graph code reaches the function holding ``line`` of the file at ``path``, as the model's
    graph code says (``settings``: the static checks'), and, where it names none, the units of ``package`` that
    name it (``PackageFiles.users``). ``index``: the run's ``DependencyIndex``, whose
    digests key the stored answer of each file."""
    record = _file_record(path, settings, index)
    entry = next((entry for entry in record["functions"] if entry[0] <= line <= entry[1]), None)
    if entry is None:
        return Reach(function="")
    _, _, label, name, roots, candidates = entry
    reach = Reach(function=label, roots=[Unit(unit_path or path, scope, how) for unit_path, scope, how in roots])
    found = [Unit(path, scope, how) for scope, how in candidates]
    if package is not None and not reach.roots:
        found += package.users(path, name)
    reach.candidates = _unique(found)
    return reach


def unit_kind(path: str, scope: str, settings=None, index=None) -> str | None:
    """What ``scope`` of the file at ``path`` is: ``cell``, ``jit`` (a jit function), ``jit_class``, ``class``,
    ``function``; None when the model cannot say (the file cannot be analysed)."""
    return _file_record(path, settings, index)["kinds"].get(scope)


# A stored answer of another shape is not read.
RECORD_FORMAT = 3
_RECORDS: dict[tuple, dict] = {}


def _file_record(path: str, settings, index) -> dict:
    """``{"kinds": {scope: kind}, "functions": [[start, end, label, name, roots, candidates]], "lookups": [...]}``
    for the file at ``path`` (a root: ``[file, unit, how]``, the file empty for this one), from the model once per
    version of the file and what it imports, and while the modules the model looked up (those whose graph code
    calls into it) are unchanged: kept for the process and stored under the project's
    ``.ms_lint_cache/validate/reach/``."""
    import hashlib
    import json

    from ms_lint.model.project import recording_lookups
    from ms_lint.result_cache import lookups_record, lookups_unchanged
    from ms_lint.settings import Settings
    from ms_lint.validate.dependencies import DependencyIndex
    from ms_lint.validate.project import CACHE_DIR_NAME, locate_module

    settings = settings or Settings()
    index = index or DependencyIndex()
    location = locate_module(path)
    digest = index.closure_digest(location.path, location.import_root, location.project_root)
    key = hashlib.sha256(f"{RECORD_FORMAT}\0{path}\0{digest}\0{settings!r}".encode()).hexdigest()
    if key in _RECORDS:
        return _RECORDS[key]
    stored = os.path.join(location.project_root, CACHE_DIR_NAME, "validate", "reach", f"{key}.json")
    try:
        with open(stored, encoding="utf-8") as handle:
            record = json.load(handle)
        if isinstance(record, dict) and "kinds" in record and "functions" in record \
                and lookups_unchanged(record.get("lookups", ())):
            _RECORDS[key] = record
            return record
    except (OSError, ValueError):
        pass
    with recording_lookups() as lookups:
        record = _model_record(path, settings)
    record["lookups"] = lookups_record(lookups)
    _RECORDS[key] = record
    _PENDING[stored] = json.dumps(record)
    return record


_PENDING: dict[str, str] = {}  # where each answer found this run is to be stored -> the answer


def save_records() -> None:
    """Store the answers found this run, in the projects whose ``.ms_lint_cache`` exists (once the run is done, so
    that a first run that creates it stores them too)."""
    from ms_lint.validate.cache import write_atomically

    for stored, text in _PENDING.items():
        if not os.path.isdir(os.path.dirname(os.path.dirname(os.path.dirname(stored)))):
            continue
        try:
            os.makedirs(os.path.dirname(stored), exist_ok=True)
            write_atomically(stored, text)
        except OSError:
            pass
    _PENDING.clear()


def _model_record(path: str, settings) -> dict:
    module = _module_facts(path, settings)
    if module is None:
        return {"kinds": {}, "functions": []}
    try:
        functions = []
        for node, owner in module.function_nodes():
            if owner is None and node not in module.tree.body:
                continue  # a nested function: its outer function answers for it
            reach = _model_reach(module, node, owner)
            if owner is not None and owner.is_cell:
                reach.candidates = []  # a Cell's method: its own roots, or the Cell itself
            functions.append([node.lineno, _last_line(node), reach.function,
                              owner.name if owner is not None else node.name,
                              [[unit.path if unit.path != path else "", unit.scope, unit.how]
                               for unit in reach.roots],
                              [[unit.scope, unit.how] for unit in reach.candidates]])
        return {"kinds": _kinds(module), "functions": functions}
    finally:
        module.release()
        from ms_lint.model.project import forget_full_facts

        forget_full_facts()


def _last_line(node) -> int:
    from ms_lint.model.syntax import last_line

    return last_line(node)


def _model_reach(module, function, owner) -> Reach:
    """The units that compile ``function`` (a method of ``owner``, or a module-level function): the roots the model
    says reach it (``GraphFunction.compiled_by``: this module's, and those of the project's other modules, labelled
    with their file); where it names none, the Cells of the module that name its class or name (compile them to
    see)."""
    label = f"{owner.name}.{function.name}" if owner is not None else function.name
    graph = module.graph_function_at(function)
    roots: list[Unit] = []
    if graph is not None and graph.node is function:
        for root in sorted(graph.compiled_by):
            unit = _unit_of_root(module.path, root)
            if unit is not None:
                how = f"{label} is its own graph" if root == label else f"{root} -> {label}"
                roots.append(Unit(unit[0], unit[1], how))
    reach = Reach(function=label, roots=_unique(roots))
    if reach.roots:
        return reach
    name = owner.name if owner is not None else function.name
    reach.candidates = [Unit(module.path, info.name, f"{info.name} names {name} (the model does not follow it)")
                        for info in module.classes.values() if info.is_cell
                        and info.name != name and _names(info.node, name)]
    return reach


def _unit_of_root(path: str, root: str) -> tuple[str, str] | None:
    """(file, unit) of a root as ``compiled_by`` labels it: ``Net.construct`` (the Cell ``Net``), ``step`` (a jit
    function), ``Net.construct (../models/net.py)`` (of the file named relative to ``path``'s folder); None for a
    jit method, which compiles with the class that holds it."""
    label, _, where = root.partition(" (")
    file = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(path)), where[:-1])) if where else path
    owner, _, method = label.rpartition(".")
    if not owner:
        return file, label
    return (file, owner) if method in ("construct", "bprop") else None


def _unique(units: list[Unit]) -> list[Unit]:
    found: dict[tuple[str, str], Unit] = {}
    for unit in units:
        found.setdefault((unit.path, unit.scope), unit)
    return list(found.values())


def _kinds(module) -> dict[str, str]:
    kinds: dict[str, str] = {}
    for info in module.classes.values():
        kinds[info.name] = "cell" if info.is_cell else "jit_class" if info.is_jit_class else "class"
    jitted = {graph.node.name for graph in module.graph_functions
              if graph.owner is None and graph.reason in ("decorated with @jit", "wrapped with jit(...)")}
    for node in module.tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            kinds[node.name] = "jit" if node.name in jitted else "function"
    return kinds


def _names(node: ast.AST, name: str) -> bool:
    return any((isinstance(inner, ast.Name) and inner.id == name)
               or (isinstance(inner, ast.Attribute) and inner.attr == name) for inner in ast.walk(node))


def _module_facts(path: str, settings):
    from ms_lint.model import ModuleFacts
    from ms_lint.model.source import read_source
    from ms_lint.settings import Settings

    from ms_lint.model.source import may_hold_hazards

    try:
        source = read_source(path)
        if not may_hold_hazards(source, path):
            return None  # no MindSpore code: the model says nothing of it
        tree = ast.parse(source, filename=path)
        return ModuleFacts(tree, path, settings or Settings(), source=source)
    except Exception:  # noqa: BLE001 -- a file the model cannot read has no answer; its findings keep their unit
        return None


_DEFINED = re.compile(rb"^def (\w+)\s*\(", re.MULTILINE)  # a module-level function's name


class PackageFiles:
    """The modules of the packages a run sees, read once per run, for the units that name a class or function
    of another module (``users``)."""

    def __init__(self):
        self._files: dict[str, list[tuple[str, bytes]]] = {}
        self._trees: dict[str, ast.Module | None] = {}
        self._defined: dict[str, list[tuple[str, bytes, frozenset]]] = {}  # package -> its modules' def names

    def users(self, path: str, name: str) -> list[Unit]:
        """The classes with a ``construct`` (and jit functions) of the other modules of ``path``'s package that
        import ``name`` from ``path``'s module and name it: a Cell holding a ``@jit_class`` instance, a subclass of a
        mixin or base class, a Cell calling a helper."""
        from ms_lint.validate.project import locate_module

        location = locate_module(path)
        module = location.module
        top = module.split(".")[0]
        package = os.path.join(location.import_root, top)
        if not os.path.isdir(package):
            return []
        word = re.compile(rb"\b" + re.escape(name.encode()) + rb"\b")
        found: list[Unit] = []
        for other, data in self._package(package):
            if other == path or not word.search(data):
                continue
            tree = self._tree(other, data)
            if tree is None:
                continue
            aliases = _imported_as(tree, other, location.import_root, module, name)
            if not aliases:
                continue
            for node in tree.body:
                if isinstance(node, ast.ClassDef) and _has_construct_or_cell_base(node) \
                        and any(_names(node, alias) for alias in aliases):
                    found.append(Unit(other, node.name, f"{node.name} names {name} (the model does not follow it "
                                                        f"across modules)"))
                elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _jitted(node) \
                        and any(_names(node, alias) for alias in aliases):
                    found.append(Unit(other, node.name, f"{node.name} names {name}"))
        return found

    def factories(self, path: str, name: str, wanted: frozenset) -> list[tuple[str, ast.FunctionDef]]:
        """``(file, function)``: the module-level functions (not jit) named in ``wanted`` of ``path``'s package,
        its own module first, that name class ``name`` (imported from ``path``'s module, or its own) and take
        arguments: a factory that builds the Cell from a configuration (``def emvd(cfg): ... EMVD_post(net,
        cfg.dataset.num_frames)``). Each module's ``def`` names are read once per run, so only the modules defining
        a wanted function are parsed."""
        from ms_lint.validate.project import locate_module

        location = locate_module(path)
        package = os.path.join(location.import_root, location.module.split(".")[0])
        if not os.path.isdir(package):
            return []
        if package not in self._defined:
            self._defined[package] = [(file, data, frozenset(match.decode() for match in _DEFINED.findall(data)))
                                      for file, data in self._package(package)]
        word = re.compile(rb"\b" + re.escape(name.encode()) + rb"\b")
        found: list[tuple[str, ast.FunctionDef]] = []
        for other, data, defined in sorted(self._defined[package], key=lambda item: item[0] != path):
            if not defined & wanted or not word.search(data):
                continue
            tree = self._tree(other, data)
            if tree is None:
                continue
            aliases = {name} if other == path else \
                _imported_as(tree, other, location.import_root, location.module, name)
            for node in tree.body if aliases else ():
                if isinstance(node, ast.FunctionDef) and node.name in wanted and not _jitted(node) \
                        and node.args.args and any(_names(node, alias) for alias in aliases):
                    found.append((other, node))
        return found

    def _package(self, package: str) -> list[tuple[str, bytes]]:
        if package not in self._files:
            files = []
            for directory, subdirectories, names in os.walk(package):
                subdirectories[:] = sorted(d for d in subdirectories if not d.startswith(".") and d != "__pycache__")
                for file_name in sorted(names):
                    if not file_name.endswith(".py") or len(files) >= MAX_FILES:
                        continue
                    file = os.path.join(directory, file_name)
                    try:
                        if os.path.getsize(file) > MAX_BYTES:
                            continue
                        with open(file, "rb") as handle:
                            files.append((file, handle.read()))
                    except OSError:
                        continue
            self._files[package] = files
        return self._files[package]

    def _tree(self, path: str, data: bytes) -> ast.Module | None:
        return parsed_once(self._trees, path, data)


def _has_construct_or_cell_base(node: ast.ClassDef) -> bool:
    if any(isinstance(item, ast.FunctionDef) and item.name == "construct" for item in node.body):
        return True
    return any("Cell" in ast.unparse(base) for base in node.bases)


def _jitted(node) -> bool:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if (target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")) in ("jit", "ms_function"):
            return True
    return False


def _imported_as(tree: ast.Module, path: str, import_root: str, module: str, name: str) -> set[str]:
    """The names under which the module at ``path`` refers to ``name`` of module ``module``: its alias in a ``from
    module import name``, or ``alias.name`` of an ``import module as alias`` (returned as ``name`` itself: an
    attribute named so)."""
    package_parts = os.path.relpath(os.path.dirname(path), import_root).split(os.sep)
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = imported_from(node, package_parts)
            for alias in node.names:
                if source == module and alias.name == name:
                    found.add(alias.asname or name)
                elif f"{source}.{alias.name}" == module or (source == module and alias.name == "*"):
                    found.add(name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == module:
                    found.add(name)
    return found
