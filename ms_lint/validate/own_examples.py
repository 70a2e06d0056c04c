"""The project's own examples of a Cell, found by reading (nothing runs here): the ``>>>`` examples of the class's
docstring and of its ``construct``'s, then the project's tests that build it (pytest functions and methods, directly
or through a fixture), then its scripts and ``__main__`` blocks that build it, then the project's Cells that build
it in their own code (``enclosing_examples``: the arguments the project passes where it builds it), then its
functions that build it from a configuration, with a configuration file that names them (``factory_examples``).
Planning lists
them in that order for each unit, after a registered example; the worker runs each as the user would until one
builds the Cell (``capturing``), and the verdict names the one used (file and line).

A docstring example that downloads (``from_pretrained``, a hub or dataset download) is left out here, with the
reason, since it cannot run offline.
"""
from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass

from ms_lint.target import is_test_path

# At most this many of each kind per unit: each costs a run in the worker when the ones before it give nothing.
MAX_PER_KIND = {"docstring": 2, "test": 3, "script": 2, "enclosing": 2, "factory": 2}
STORE_FORMAT = 1
# What an example needs the network for: it cannot give a Cell offline.
_DOWNLOADS = re.compile(r"\b(from_pretrained|hf_hub_download|snapshot_download|load_dataset|urlopen|urlretrieve|"
                        r"download\w*|requests\.get|wget)\s*\(")


@dataclass(frozen=True)
class OwnExample:
    """One example: ``kind`` ``docstring`` (``code``: its statements), ``test`` (``function``: ``test_x`` or
    ``TestX.test_y``) or ``script`` (``main``: the ``__main__`` block of a module, else the whole file run as a
    script); ``line``: where it builds the Cell (a docstring: its first ``>>>`` line)."""

    kind: str
    path: str
    line: int
    code: str = ""  # a docstring example: its statements; a factory: the class it builds
    function: str = ""
    main: bool = False
    config: str = ""  # a factory: the configuration file it is called with

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"

    def to_dict(self) -> dict:
        return {"kind": self.kind, "path": self.path, "line": self.line, "code": self.code,
                "function": self.function, "main": self.main, **({"config": self.config} if self.config else {})}


def docstring_examples(tree: ast.Module, path: str, class_name: str,
                       shown: str | None = None) -> tuple[list[OwnExample], list[str]]:
    """``(examples, skipped)``: the ``>>>`` examples of class ``class_name``'s docstring and of its construct's,
    as statements; ``skipped``: why a docstring example was left out (it downloads), naming the file ``shown``
    (``path`` by default)."""
    cls = next((node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == class_name), None)
    if cls is None:
        return [], []
    holders = [cls] + [node for node in cls.body if isinstance(node, ast.FunctionDef) and node.name == "construct"]
    found, skipped = [], []
    for holder in holders:
        docstring = _docstring_node(holder)
        if docstring is None:
            continue
        code, first = doctest_code(docstring.value)
        if not code.strip():
            continue
        line = docstring.lineno + first
        download = _DOWNLOADS.search(code)
        if download:
            skipped.append(f"the docstring example at {shown or path}:{line} downloads ({download.group(1)}(...)): "
                           f"it cannot run offline")
            continue
        found.append(OwnExample("docstring", path, line, code=code))
    return found[:MAX_PER_KIND["docstring"]], skipped


def enclosing_examples(tree: ast.Module, path: str, class_name: str, package=None) -> list[OwnExample]:
    """The project's Cells that build class ``class_name`` in their own code (``self.encoder = RRDBNet(...)``,
    ``[Block(dim, heads) for _ in range(depth)]``): built as any Cell is built and called, such a Cell builds and
    calls the class with the arguments and inputs the project gives it. Those of its own module first, then those
    of its package's other modules (``package``: a ``roots.PackageFiles``, which finds the Cells importing it).
    Only for a class whose own constructor needs arguments: one that has defaults is built from them."""
    if not _needs_arguments(tree, class_name):
        return []
    found = [OwnExample("enclosing", path, call.lineno, function=node.name)
             for node in tree.body if isinstance(node, ast.ClassDef) and node.name != class_name
             and _cell_like(node) for call in [_calls_class(node, class_name)] if call is not None]
    if package is not None and len(found) < MAX_PER_KIND["enclosing"]:
        for unit in package.users(path, class_name):
            other = _parse_file(unit.path)
            node = next((node for node in (other.body if other else ()) if isinstance(node, ast.ClassDef)
                         and node.name == unit.scope), None)
            call = _calls_class(node, class_name) if node is not None else None
            if call is not None:
                found.append(OwnExample("enclosing", unit.path, call.lineno, function=unit.scope))
    return found[:MAX_PER_KIND["enclosing"]]


def factory_examples(tree: ast.Module, path: str, class_name: str, root: str, package) -> list[OwnExample]:
    """The project's functions that build class ``class_name`` from a configuration they are given (``def
    emvd(cfg): ... EMVD_post(backbone=net, frame_num=cfg.dataset.num_frames)``), each with a configuration file
    under ``root`` (the project, or an installed package's own folder: ``scan_root``) that names it (``model: {name:
    emvd}`` in ``configs/emvd/val.yaml``): called with that file read, they build the class as the project's entry
    points do. Only for a class whose own constructor needs arguments, and only functions some configuration
    names."""
    if package is None or not _needs_arguments(tree, class_name):
        return []
    named = config_names(root)
    if not named:
        return []
    found: list[OwnExample] = []
    # A factory that builds a Cell of the module which builds the class (a block inside a layer inside a model)
    # builds the class too: those are looked for when none builds it directly.
    for name in [class_name, *_builders_in_module(tree, class_name)]:
        for file, function in package.factories(path, name, frozenset(named)):
            call = _calls_class(function, name)
            if call is not None and len(found) < MAX_PER_KIND["factory"]:
                found.append(OwnExample("factory", file, call.lineno, code=name, function=function.name,
                                        config=named[function.name][0]))
        if found:
            break
    return found


def _builders_in_module(tree: ast.Module, class_name: str, limit: int = 4) -> list[str]:
    """The Cells of the module that build class ``class_name``, then those that build them, nearest first, at
    most ``limit``."""
    cells = [node for node in tree.body if isinstance(node, ast.ClassDef) and _cell_like(node)]
    found: list[str] = []
    wanted = [class_name]
    while wanted and len(found) < limit:
        name = wanted.pop(0)
        for node in cells:
            if node.name != class_name and node.name not in found and _calls_class(node, name) is not None:
                found.append(node.name)
                wanted.append(node.name)
    return found[:limit]


# Configuration files read per root, once per process: (path, text); and the names each root's files give.
_CONFIGS: dict[str, list[tuple[str, str]]] = {}
_NAMED: dict[str, dict[str, list[str]]] = {}
MAX_CONFIGS = 2000
MAX_CONFIG_BYTES = 256 * 1024
# Folders of other software, never the project's configuration.
_NOT_CONFIGS = frozenset({"node_modules", "site-packages", "dist-packages", "venv", "env", "build", "dist"})
# Evaluation configurations first: they build the Cells a model is run with, and no training state.
_EVALUATION = re.compile(r"(^|[^a-z])(val|eval|test|infer)", re.IGNORECASE)
# A key naming what to build, and the name: ``name: emvd``, ``model: "emvd"``, ``arch: emvd``.
_NAMING = re.compile(r"""^\s*(?:\w*name|model|arch|network|type)\s*:\s*["']?([A-Za-z_]\w*)["']?\s*(?:#.*)?$""",
                     re.MULTILINE)


def config_names(root: str) -> dict[str, list[str]]:
    """Each name the YAML files under ``root`` give a naming key (``name: emvd``) -> those files, evaluation ones
    first; read once per root and process."""
    if root not in _NAMED:
        named: dict[str, list[str]] = {}
        for file, text in _config_files(root):
            for name in dict.fromkeys(match.group(1) for match in _NAMING.finditer(text)):
                named.setdefault(name, []).append(file)
        _NAMED[root] = {name: sorted(files, key=lambda file: (not _EVALUATION.search(os.path.basename(file)), file))
                        for name, files in named.items()}
    return _NAMED[root]


def configs_naming(root: str, name: str) -> list[str]:
    """The YAML files under ``root`` with a naming key whose value is ``name``, evaluation ones first."""
    return list(config_names(root).get(name, ()))


def _config_files(project_root: str) -> list[tuple[str, str]]:
    if project_root not in _CONFIGS:
        files: list[tuple[str, str]] = []
        for directory, subdirectories, names in os.walk(project_root):
            subdirectories[:] = sorted(name for name in subdirectories if not name.startswith((".", "__"))
                                       and name not in _NOT_CONFIGS)
            for file_name in sorted(names):
                if not file_name.endswith((".yaml", ".yml")) or len(files) >= MAX_CONFIGS:
                    continue
                file = os.path.join(directory, file_name)
                try:
                    if os.path.getsize(file) <= MAX_CONFIG_BYTES:
                        with open(file, encoding="utf-8", errors="replace") as handle:
                            files.append((file, handle.read()))
                except OSError:
                    continue
        _CONFIGS[project_root] = files
    return _CONFIGS[project_root]


def _needs_arguments(tree: ast.Module, class_name: str) -> bool:
    """Whether class ``class_name``'s own ``__init__`` has a parameter without a default (past the instance)."""
    cls = next((node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == class_name), None)
    init = next((node for node in (cls.body if cls else ()) if isinstance(node, ast.FunctionDef)
                 and node.name == "__init__"), None)
    if init is None:
        return False
    positional = init.args.posonlyargs + init.args.args
    return len(positional) - 1 > len(init.args.defaults) or any(
        default is None for default in init.args.kw_defaults)


def _cell_like(node: ast.ClassDef) -> bool:
    return any(isinstance(item, ast.FunctionDef) and item.name == "construct" for item in node.body) \
        or any("Cell" in ast.unparse(base) for base in node.bases)


def _docstring_node(node) -> ast.Constant | None:
    first = node.body[0] if node.body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return first.value
    return None


def doctest_code(docstring: str) -> tuple[str, int]:
    """``(statements, index of the first >>> line)`` of a docstring's ``>>>`` and ``...`` lines, prompts removed,
    in order; output lines and ``# doctest: +SKIP`` statements left out. A statement that does not parse (prose
    around the prompts) ends the code before it."""
    lines = docstring.splitlines()
    statements: list[list[str]] = []
    first = -1
    for index, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith(">>>"):
            if first < 0:
                first = index
            statements.append([_without_prompt(stripped)])
        elif stripped.startswith("...") and statements and (len(stripped) == 3 or stripped[3] == " "):
            statements[-1].append(_without_prompt(stripped))
    kept = []
    for statement in statements:
        text = "\n".join(statement)
        if "doctest: +SKIP" in text:
            continue
        try:
            ast.parse(text)
        except SyntaxError:
            break
        kept.append(text)
    return "\n".join(kept) + ("\n" if kept else ""), max(first, 0)


def _without_prompt(stripped: str) -> str:
    return stripped[4:] if stripped[3:4] == " " else stripped[3:]


# ------------------------------------------------------------------------------------------ tests and scripts


class ProjectFiles:
    """The test files and scripts of the projects a run sees, each read once per run (their text is kept: a few
    files of a project), with where each builds each class."""

    def __init__(self):
        self._scanned: dict[str, list[tuple[str, bytes]]] = {}  # scan root -> [(path, data)]
        self._words: dict[str, list[tuple[str, bytes, frozenset]]] = {}  # scan root -> [(path, data, its words)]
        self._trees: dict[str, ast.Module | None] = {}
        self._called: dict[int, tuple[ast.Module, dict[str, set]]] = {}  # id(tree) -> (tree, name -> names called)
        self._listed: dict[str, list[tuple[str, int, int]]] = {}
        self._digests: dict[str, str] = {}
        self._stores: dict[str, dict] = {}  # project root -> its stored answers, by scan root
        self._changed: set[str] = set()

    def candidates(self, root: str) -> list[tuple[str, bytes]]:
        """The tests and scripts under ``root``: test files (``ms_lint.target.is_test_path``), ``conftest.py``
        files, and files with a ``__main__`` block or outside any package."""
        if root not in self._scanned:
            self._scanned[root] = list(_read_candidates(root, self._listing(root)))
        return self._scanned[root]

    def _listing(self, root: str) -> list[tuple[str, int, int]]:
        """``(path, mtime_ns, size)`` of the Python files under ``root``, listed once per run."""
        if root not in self._listed:
            self._listed[root] = list(_python_files(root))
        return self._listed[root]

    def stored_examples(self, root: str, class_name: str, own_path: str, project_root: str,
                        own_tree: ast.Module | None = None) -> list[OwnExample]:
        """``examples``, answered from ``project_root``'s ``.ms_lint_cache`` while no Python file under ``root``
        (nor the class's module) changed: a re-run lists the files, and reads none."""
        import hashlib

        if root not in self._digests:
            self._digests[root] = hashlib.sha256(repr(self._listing(root)).encode()).hexdigest()
        store = self._store(project_root)
        entry = store.setdefault(root, {})
        if entry.get("files") != self._digests[root]:
            entry.clear()
            entry.update({"files": self._digests[root], "answers": {}})
        try:
            stat = os.stat(own_path)
            own = f"{class_name}\0{own_path}\0{stat.st_mtime_ns}\0{stat.st_size}"
        except OSError:
            own = None
        answers = entry["answers"]
        if own is not None and own in answers:
            return [OwnExample(**item) for item in answers[own]]
        found = self.examples(root, class_name, own_path, own_tree)
        if own is not None:
            answers[own] = [example.to_dict() for example in found]
            self._changed.add(project_root)
        return found

    def _store(self, project_root: str) -> dict:
        import json

        if project_root not in self._stores:
            try:
                with open(self._store_path(project_root), encoding="utf-8") as handle:
                    data = json.load(handle)
                roots = data.get("roots") if isinstance(data, dict) and data.get("format") == STORE_FORMAT else {}
            except (OSError, ValueError):
                roots = {}
            self._stores[project_root] = roots if isinstance(roots, dict) else {}
        return self._stores[project_root]

    @staticmethod
    def _store_path(project_root: str) -> str:
        from ms_lint.validate.project import CACHE_DIR_NAME

        return os.path.join(project_root, CACHE_DIR_NAME, "validate", "own_examples.json")

    def save(self) -> None:
        """Write the answers found this run, in the projects whose ``.ms_lint_cache`` exists."""
        import json

        from ms_lint.validate.cache import write_atomically

        for project_root in self._changed:
            path = self._store_path(project_root)
            if not os.path.isdir(os.path.dirname(os.path.dirname(path))):
                continue
            try:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                write_atomically(path, json.dumps({"format": STORE_FORMAT, "roots": self._stores[project_root]}))
            except OSError:
                pass
        self._changed.clear()

    def _with_words(self, root: str) -> list[tuple[str, bytes, frozenset]]:
        """The candidates under ``root`` with the words each holds, found once per run."""
        if root not in self._words:
            self._words[root] = [(path, data, frozenset(_WORD.findall(data))) for path, data in self.candidates(root)]
        return self._words[root]

    def tree(self, path: str, data: bytes) -> ast.Module | None:
        return parsed_once(self._trees, path, data)

    def examples(self, root: str, class_name: str, own_path: str,
                 own_tree: ast.Module | None = None) -> list[OwnExample]:
        """The tests, then the scripts, under ``root`` that build ``class_name`` (``own_path``: the class's
        module, whose ``__main__`` block counts as a script); after the tests that build it directly, those that
        build it through a class or function of its module that builds it (``DPModel(...)``, whose method builds
        ``_TrainOneStepCell``)."""
        if own_tree is None and os.path.isfile(own_path):
            own_tree = _parse_file(own_path)
        tests = self._examples_of(root, class_name, own_path, scripts=True)
        for builder in self._builders(own_tree, class_name) if own_tree is not None else ():
            tests += [example for example in self._examples_of(root, builder, own_path, scripts=False)
                      if example.kind == "test"]
        if own_tree is not None:
            main = _main_block(own_tree)
            call = _first_call(main, class_name) if main is not None else None
            if call is not None:
                tests.append(OwnExample("script", own_path, call.lineno, main=True))
        found = list(dict.fromkeys(tests))
        own_scripts = [example for example in found if example.kind == "script" and example.path == own_path]
        scripts = own_scripts + [example for example in found if example.kind == "script"
                                 and example.path != own_path]
        return ([example for example in found if example.kind == "test"][:MAX_PER_KIND["test"]]
                + scripts[:MAX_PER_KIND["script"]])

    def _builders(self, tree: ast.Module, class_name: str) -> list[str]:
        """The module-level classes and functions of ``tree``, other than ``class_name``, whose code calls it (a
        model whose method builds the training Cell): their tests build it too. What each calls is read once per
        module and run."""
        known = self._called.get(id(tree))
        if known is None or known[0] is not tree:
            called = {node.name: {_called_name(inner) for inner in ast.walk(node) if isinstance(inner, ast.Call)}
                      for node in tree.body if isinstance(node, (ast.ClassDef, ast.FunctionDef))}
            known = self._called[id(tree)] = (tree, called)
        return [name for name, names in known[1].items() if name != class_name and class_name in names][:3]

    def _examples_of(self, root: str, name: str, own_path: str, scripts: bool) -> list[OwnExample]:
        """The tests (and with ``scripts`` the scripts) under ``root`` that call ``name``."""
        wanted = name.encode()
        found: list[OwnExample] = []
        files = self.candidates(root)
        for path, data, words in self._with_words(root):
            if wanted not in words:
                continue
            tree = self.tree(path, data)
            if tree is None:
                continue
            relative = os.path.relpath(path, root)
            if is_test_path(relative):
                if os.path.basename(path) != "conftest.py":
                    found.extend(_tests_building(tree, path, name))
                found.extend(_tests_through_fixtures(self, tree, path, name, files, root))
            elif scripts and path != own_path and (_main_block(tree) is not None or not _in_package(path)):
                call = _first_call(tree, name)
                if call is not None:
                    found.append(OwnExample("script", path, call.lineno, main=_main_block(tree) is not None))
        return found


_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


def parsed_once(trees: dict, path: str, data: bytes) -> ast.Module | None:
    """The tree of ``data`` (the file ``path``), parsed once while ``trees`` (path -> tree) lives; None for a file
    that does not parse."""
    if path not in trees:
        try:
            trees[path] = ast.parse(data, filename=path)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            trees[path] = None
    return trees[path]


def _called_name(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)


def _python_files(root: str):
    """``(path, mtime_ns, size)`` of the Python files under ``root`` that may be tests or scripts, found as
    ``ms_lint.target`` finds a project's files (no virtual environment, build output or project of its own)."""
    from ms_lint.target import _python_files as project_files

    for path in project_files(root, True):
        try:
            stat = os.stat(path)
        except OSError:
            continue
        yield path, stat.st_mtime_ns, stat.st_size


def _read_candidates(root: str, files):
    """``(path, data)`` of the tests and scripts among ``files``."""
    for path, _, _ in files:
        test = is_test_path(os.path.relpath(path, root))
        if not test and os.path.basename(path) in ("setup.py", "ms_lint_examples.py"):
            continue
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError:
            continue
        if test or b"__main__" in data or not _in_package(path):
            yield path, data


def _in_package(path: str) -> bool:
    return os.path.isfile(os.path.join(os.path.dirname(path), "__init__.py"))


def _parse_file(path: str) -> ast.Module | None:
    try:
        with open(path, "rb") as handle:
            return ast.parse(handle.read(), filename=path)
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _calls_class(node: ast.AST, class_name: str) -> ast.Call | None:
    for inner in ast.walk(node):
        if isinstance(inner, ast.Call):
            func = inner.func
            if (func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)) == class_name:
                return inner
    return None


def _first_call(tree: ast.AST, class_name: str) -> ast.Call | None:
    return _calls_class(tree, class_name)


def _main_block(tree: ast.Module) -> ast.If | None:
    """The module's ``if __name__ == "__main__":`` block."""
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare) and len(node.test.comparators) == 1:
            sides = [node.test.left, node.test.comparators[0]]
            names = [side.id for side in sides if isinstance(side, ast.Name)]
            values = [side.value for side in sides if isinstance(side, ast.Constant)]
            if names == ["__name__"] and values == ["__main__"]:
                return node
    return None


def _test_functions(tree: ast.Module):
    """``(qualified name, function)`` of the module's tests: ``test_*`` functions and ``Test*`` classes' methods."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
            yield node.name, node
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            for method in node.body:
                if isinstance(method, ast.FunctionDef) and method.name.startswith("test"):
                    yield f"{node.name}.{method.name}", method


def _tests_building(tree: ast.Module, path: str, class_name: str) -> list[OwnExample]:
    found = []
    for name, function in _test_functions(tree):
        call = _calls_class(function, class_name)
        if call is not None:
            found.append(OwnExample("test", path, call.lineno, function=name))
    return found


def _fixtures_building(tree: ast.Module, class_name: str) -> dict[str, int]:
    """Fixture name -> the line where it builds ``class_name``, for the module's ``@pytest.fixture`` functions."""
    found = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and any(_is_fixture(decorator) for decorator in node.decorator_list):
            call = _calls_class(node, class_name)
            if call is not None:
                found[_fixture_name(node)] = call.lineno
    return found


def _is_fixture(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return (target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")) == "fixture"


def _fixture_name(node: ast.FunctionDef) -> str:
    for decorator in node.decorator_list:
        if isinstance(decorator, ast.Call) and _is_fixture(decorator):
            for keyword in decorator.keywords:
                if keyword.arg == "name" and isinstance(keyword.value, ast.Constant):
                    return str(keyword.value.value)
    return node.name


def _tests_through_fixtures(files: ProjectFiles, tree: ast.Module, path: str, class_name: str,
                            candidates: list[tuple[str, bytes]], root: str) -> list[OwnExample]:
    """The tests that take a fixture of ``tree`` (a test module, or a ``conftest.py`` for the tests below its
    folder) that builds ``class_name``."""
    fixtures = _fixtures_building(tree, class_name)
    if not fixtures:
        return []
    users: list[tuple[str, ast.Module]] = [(path, tree)]
    if os.path.basename(path) == "conftest.py":
        folder = os.path.dirname(path) + os.sep
        users = [(other, files.tree(other, data)) for other, data in candidates
                 if other.startswith(folder) and other != path and is_test_path(os.path.relpath(other, root))
                 and any(name.encode() in data for name in fixtures)]
    found = []
    for user, user_tree in users:
        if user_tree is None:
            continue
        for name, function in _test_functions(user_tree):
            parameters = {argument.arg for argument in function.args.args}
            for fixture, line in fixtures.items():
                if fixture in parameters:
                    found.append(OwnExample("test", user, function.lineno, function=name))
                    break
    return found


def scan_root(project_root: str, import_root: str, module: str) -> str:
    """Where a unit's tests and scripts are looked for: its project, or, for an installed package (its import root
    is site-packages), the package's own folder."""
    if os.path.basename(import_root) in ("site-packages", "dist-packages"):
        return os.path.join(import_root, module.split(".")[0])
    return project_root


def describe(example: dict, project_root: str | None = None) -> str:
    """``the docstring example at demo/decoder.py:9``, ``the test test_decoder at tests/test_decoder.py:12``: the
    path relative to ``project_root`` when it lies below it."""
    path = example["path"]
    if project_root:
        relative = os.path.relpath(path, project_root)
        path = path if relative.startswith("..") else relative
    where = f"{path}:{example['line']}"
    if example["kind"] == "docstring":
        return f"the docstring example at {where}"
    if example["kind"] == "test":
        return f"the test {example['function']} at {where}"
    if example["kind"] == "enclosing":
        return f"{example['function']}, which builds it at {where}"
    if example["kind"] == "factory":
        config = example.get("config") or ""
        if project_root and not os.path.relpath(config, project_root).startswith(".."):
            config = os.path.relpath(config, project_root)
        return f"the factory {example['function']}, which builds {example.get('code') or 'it'} at {where}, called " \
               f"with {config}"
    return f"the {'__main__ block' if example.get('main') else 'script'} at {where}"
