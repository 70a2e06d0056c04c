"""What a unit's outcome depends on, computed once per run and shared by every unit.

A unit depends on its module, the ``__init__.py`` files of its packages and every module of the same import root
it imports, transitively (all of them run when the worker imports it). Each file is read once per run; across
runs, a file whose size and modification time have not changed keeps the digest and the imports stored in
``.ms_lint_cache/validate/files.json``, so a re-run with nothing changed reads and parses no source at all.

Examples are keyed per target: a unit's key covers the examples file's shared code (imports, helpers) and the
example functions registered for that target, so editing one example re-runs only its unit.
"""
from __future__ import annotations

import ast
import hashlib
import json
import os

from ms_lint.validate.cache import write_atomically
from ms_lint.validate.project import CACHE_DIR_NAME

STORE_NAME = "files.json"
STORE_FORMAT = 1


class DependencyIndex:
    """Per-run memo of file digests, imports and closures; backed by a stat-keyed store per project root."""

    def __init__(self, limit: int = 2000):
        self.limit = limit
        self._stores: dict[str, dict] = {}  # project root -> {path: [mtime_ns, size, digest, imports]}
        self._changed: set[str] = set()
        self._entries: dict[str, tuple[str, list[str]]] = {}  # path -> (digest, imported module names)
        self._module_files: dict[tuple[str, str], list[str]] = {}
        self._closures: dict[tuple, object] = {}  # closures, digests, direct imports, package inits
        self._examples: dict[str, dict] = {}
        self.files_read = 0  # files read and parsed this run (the rest came from the store)
        self.pending_findings: list[tuple[str, str]] = []  # static findings to store once the run is done

    # -- per file ------------------------------------------------------------------------------------------------

    def _store(self, project_root: str) -> dict:
        if project_root not in self._stores:
            path = os.path.join(project_root, CACHE_DIR_NAME, "validate", STORE_NAME)
            try:
                with open(path, encoding="utf-8") as handle:
                    data = json.load(handle)
                files = data.get("files") if isinstance(data, dict) and data.get("format") == STORE_FORMAT else {}
            except (OSError, ValueError):
                files = {}
            self._stores[project_root] = files if isinstance(files, dict) else {}
        return self._stores[project_root]

    def entry(self, path: str, project_root: str, root: str) -> tuple[str, list[str]]:
        """``(digest, imported module names)`` of ``path``: from the store when its stat is unchanged."""
        if path in self._entries:
            return self._entries[path]
        try:
            stat = os.stat(path)
        except OSError:
            self._entries[path] = ("missing", [])
            return self._entries[path]
        store = self._store(project_root)
        stored = store.get(path)
        if (isinstance(stored, list) and len(stored) == 4 and stored[0] == stat.st_mtime_ns
                and stored[1] == stat.st_size):
            result = (stored[2], list(stored[3]))
        else:
            result = self._read(path, root)
            store[path] = [stat.st_mtime_ns, stat.st_size, result[0], result[1]]
            self._changed.add(project_root)
        self._entries[path] = result
        return result

    def _read(self, path: str, root: str) -> tuple[str, list[str]]:
        self.files_read += 1
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError:
            return "missing", []
        digest = hashlib.sha256(data).hexdigest()
        try:
            tree = ast.parse(data, filename=path)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return digest, []
        return digest, imported_modules(tree, path, root)

    def digest(self, path: str, project_root: str, root: str) -> str:
        return self.entry(path, project_root, root)[0]

    # -- closures ------------------------------------------------------------------------------------------------

    def sources(self, path: str, root: str, project_root: str) -> frozenset:
        """The module's file, its packages' ``__init__.py`` files, and what it imports from ``root``,
        transitively."""
        key = (root, path)
        if key in self._closures:
            return self._closures[key]
        # An installed package (its import root is site-packages): its own files only, not its neighbours'.
        own = None
        if os.path.basename(root) in ("site-packages", "dist-packages"):
            own = os.path.relpath(path, root).split(os.sep)[0].removesuffix(".py")
        seen: set[str] = set()
        pending = [path, *self._inits(path, root)]
        while pending and len(seen) < self.limit:
            current = pending.pop()
            if current in seen or not os.path.basename(current) in self._listing(os.path.dirname(current)):
                continue
            seen.add(current)
            known = self._closures.get((root, current))
            if known is not None:
                seen.update(known)  # its own closure is known already: take it whole
                continue
            pending.extend(file for file in self._direct(current, root, project_root, own) if file not in seen)
        result = frozenset(seen)
        self._closures[key] = result
        return result

    def closure_digest(self, path: str, root: str, project_root: str) -> str:
        """One digest over the closure's paths and contents (computed once per module and run).

        Across runs the closure is stored with the stat of each of its files and the modification time of each
        of their directories (a module file added or removed changes its directory's): when none changed, the
        stored digest is reused without walking the imports again."""
        key = ("digest", root, path)
        if key in self._closures:
            return self._closures[key]
        store = self._store(project_root)
        closures = store.setdefault("\0closures", {})
        name = f"{root}\0{path}"
        stored = closures.get(name)
        if isinstance(stored, dict) and self._unchanged(stored):
            self._closures[key] = stored["digest"]
            return stored["digest"]
        digest = hashlib.sha256()
        files = sorted(self.sources(path, root, project_root))
        for source in files:
            digest.update(source.encode() + b"\0")
            digest.update(self.digest(source, project_root, root).encode())
        result = digest.hexdigest()
        stats = {source: self._stat(source) for source in files}
        directories = {os.path.dirname(source) for source in files}
        closures[name] = {"digest": result, "files": stats,
                          "dirs": {directory: self._stat(directory)[0] for directory in directories}}
        self._changed.add(project_root)
        self._closures[key] = result
        return result

    def _stat(self, path: str) -> list:
        key = ("stat", path)
        if key not in self._closures:
            try:
                stat = os.stat(path)
                self._closures[key] = [stat.st_mtime_ns, stat.st_size]
            except OSError:
                self._closures[key] = [None, None]
        return self._closures[key]

    def _unchanged(self, stored: dict) -> bool:
        files, directories = stored.get("files"), stored.get("dirs")
        if not (isinstance(files, dict) and isinstance(directories, dict) and isinstance(stored.get("digest"), str)):
            return False
        return (all(self._stat(directory)[0] == mtime for directory, mtime in directories.items())
                and all(self._stat(file) == list(value) for file, value in files.items()))

    def _direct(self, path: str, root: str, project_root: str, own: str | None) -> list[str]:
        """The files ``path`` imports directly from ``root``, with their packages' ``__init__.py`` files."""
        key = ("direct", root, path, own)
        if key not in self._closures:
            files: list[str] = []
            for module_name in self.entry(path, project_root, root)[1]:
                if own is not None and module_name.split(".")[0] != own:
                    continue
                for search in (root, *self._namespace_roots(root)):  # as the worker's sys.path holds them
                    found = self.module_files(module_name, search)
                    for candidate in found:
                        files.append(candidate)
                        files.extend(self._inits(candidate, search))
                    if found:
                        break
            self._closures[key] = list(dict.fromkeys(files))
        return self._closures[key]

    def _namespace_roots(self, root: str) -> tuple[str, ...]:
        from ms_lint.model.project import namespace_roots

        key = ("namespaces", root)
        if key not in self._closures:
            self._closures[key] = namespace_roots(root)
        return self._closures[key]

    def _inits(self, path: str, root: str) -> list[str]:
        key = ("inits", root, os.path.dirname(path))
        if key not in self._closures:
            inits = []
            directory = os.path.dirname(path)
            while directory.startswith(root) and directory != root:
                if "__init__.py" in self._listing(directory):
                    inits.append(os.path.join(directory, "__init__.py"))
                directory = os.path.dirname(directory)
            self._closures[key] = inits
        return self._closures[key]

    def module_files(self, module_name: str, root: str) -> list[str]:
        key = (root, module_name)
        if key not in self._module_files:
            parts = module_name.split(".")
            files = []
            for count in range(1, len(parts) + 1):
                directory = os.path.join(root, *parts[:count - 1])
                names = self._listing(directory)
                if parts[count - 1] + ".py" in names:
                    files.append(os.path.join(directory, parts[count - 1] + ".py"))
                if "__init__.py" in self._listing(os.path.join(directory, parts[count - 1])):
                    files.append(os.path.join(directory, parts[count - 1], "__init__.py"))
            self._module_files[key] = files
        return self._module_files[key]

    def _listing(self, directory: str) -> frozenset:
        """The names in ``directory``, listed once per run (instead of one stat per candidate module file)."""
        key = ("listing", directory)
        if key not in self._closures:
            try:
                self._closures[key] = frozenset(os.listdir(directory))
            except OSError:
                self._closures[key] = frozenset()
        return self._closures[key]

    # -- examples ------------------------------------------------------------------------------------------------

    def example_digest(self, examples_file: str, target: str) -> str:
        """The examples file's shared code plus the example functions registered for ``target``."""
        if examples_file not in self._examples:
            self._examples[examples_file] = _split_examples(examples_file)
        split = self._examples[examples_file]
        if split.get("whole") is not None:
            return split["whole"]
        digest = hashlib.sha256(split["shared"].encode())
        for text in split["targets"].get(target, []):
            digest.update(b"\0" + text.encode())
        if split["unknown"]:
            # An example whose target is not a plain string could be any unit's.
            digest.update(b"\0" + "\0".join(split["unknown"]).encode())
        return digest.hexdigest()

    def save(self) -> None:
        """Write the stores of the projects whose ``.ms_lint_cache`` exists (a run that compiled nothing there
        leaves the project alone)."""
        for project_root in self._changed:
            if not os.path.isdir(os.path.join(project_root, CACHE_DIR_NAME)):
                continue
            directory = os.path.join(project_root, CACHE_DIR_NAME, "validate")
            try:
                os.makedirs(directory, exist_ok=True)
                write_atomically(os.path.join(directory, STORE_NAME),
                                 json.dumps({"format": STORE_FORMAT, "files": self._stores[project_root]}))
            except OSError:
                pass  # the cache is an optimisation: the outcome cache reports unwritable directories
        self._changed.clear()


def _split_examples(path: str) -> dict:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return {"whole": "missing"}
    try:
        tree = ast.parse(data, filename=path)
        text = data.decode("utf-8")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {"whole": hashlib.sha256(data).hexdigest()}
    shared, targets, unknown = [], {}, []
    for node in tree.body:
        segment = ast.get_source_segment(text, node) or ast.dump(node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names = [_example_target(decorator) for decorator in node.decorator_list]
            names = [name for name in names if name is not False]
            if names:
                for name in names:
                    if name is None:
                        unknown.append(segment)
                    else:
                        targets.setdefault(name, []).append(segment)
                continue
        shared.append(segment)
    return {"whole": None, "shared": "\n".join(shared), "targets": targets, "unknown": unknown}


def _example_target(decorator):
    """The target of ``@ms_lint.example("pkg.mod:Class")``; None when not a literal; False when not an example."""
    if not isinstance(decorator, ast.Call):
        return False
    func = decorator.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if name != "example":
        return False
    if decorator.args and isinstance(decorator.args[0], ast.Constant) and isinstance(decorator.args[0].value, str):
        return decorator.args[0].value
    return None


def imported_modules(tree: ast.Module, path: str, root: str) -> list[str]:
    package_parts = os.path.relpath(os.path.dirname(path), root).split(os.sep)
    return sorted(imported_names(tree, [] if package_parts == ["."] else package_parts))


def imported_names(tree: ast.Module, package_parts: list[str]) -> set[str]:
    """The module names the import statements of a module of package ``package_parts`` name (``from .layers import
    X``: ``pkg.layers``; ``from pkg import layers``: ``pkg`` and ``pkg.layers``)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = imported_from(node, package_parts)
            if module:
                names.add(module)
                # "from pkg import sub" may import the submodule pkg.sub.
                names.update(f"{module}.{alias.name}" for alias in node.names if alias.name != "*")
    return names


def imported_from(node: ast.ImportFrom, package_parts: list[str]) -> str:
    """The module a ``from ... import`` statement of a module of package ``package_parts`` names, a relative one
    resolved (``from .layers import X`` in ``pkg``: ``pkg.layers``)."""
    if not node.level:
        return node.module or ""
    base = package_parts[: len(package_parts) - (node.level - 1)] if node.level > 1 else package_parts
    prefix = ".".join(base)
    return f"{prefix}.{node.module}" if node.module and prefix else (node.module or prefix)
