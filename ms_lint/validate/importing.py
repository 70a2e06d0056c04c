"""The worker's first stages: the unit's module imported (``stage_import``), its examples file loaded
(``stage_examples``), its target looked up (``stage_resolve``); and after each job, the process put back as it was
(the user's modules forgotten when the next job has another import root, the environment restored).

A module whose parent package's ``__init__`` fails to import (a private module an older MindSpore had, a submodule
the installed package lacks) is imported with those ``__init__`` files run statement by statement, the statements
that raise left out, for that job only, and the outcome says which.
"""
from __future__ import annotations

import ast
import importlib
import importlib.util
import os
import sys
import traceback
import types
from typing import TYPE_CHECKING

from ms_lint.validate.locations import same_file
from ms_lint.validate.outcome import Outcome, exception_message, first_line
from ms_lint.validate.tracing import LinesRun

if TYPE_CHECKING:
    from ms_lint.validate.jobs import JobState


def restore_process_state(worker) -> None:
    if getattr(worker, "stand_ins", None) is not None:
        from ms_lint.validate import standins

        standins.uninstall(worker.stand_ins)
        worker.stand_ins = None
        # The user's modules were imported with stand-ins bound: the next job imports them afresh.
        forget_user_modules(worker)
        worker.current_root = None
    if worker.bare_imports is not None:
        top, present = worker.bare_imports
        worker.bare_imports = None
        for name in set(sys.modules) - present:
            if name == top or name.startswith(top + "."):
                del sys.modules[name]
    if os.environ != worker.baseline_environ:
        os.environ.clear()
        os.environ.update(worker.baseline_environ)
    try:
        worker.mindspore.set_context(mode=worker.mindspore.GRAPH_MODE)
    except Exception:  # noqa: BLE001 -- a broken context shows up in the next job's outcome
        pass


def stage_import(worker, state: "JobState", outcome: Outcome) -> None:
    job = state.job
    root = job["import_root"]
    if worker.current_root is not None and root != worker.current_root:
        forget_user_modules(worker)
    worker.current_root = root
    roots = [root, *job.get("namespace_roots", ())]
    # The folders between the import root and the project root last: a module of a folder without __init__.py
    # that imports its project's package by name (``from pkg.models.common import Block``) finds it, as running the
    # project's scripts from its root does.
    above = [folder for folder in _folders_up_to(root, job.get("project_root")) if folder not in roots]
    worker.user_roots.extend(directory for directory in roots + above if directory not in worker.user_roots)
    sys.path[:] = roots + worker.baseline_path + above
    examples = job.get("examples_file")
    if examples:
        sys.path.insert(1, os.path.dirname(examples))
    importlib.invalidate_caches()
    if job.get("module_only"):
        # A module's own job: its module-level lines run while it is imported, so it is imported afresh and the
        # finding lines it runs are traced.
        forget_user_modules(worker)
        lines_run = LinesRun(job["path"], job.get("finding_lines") or ())
        try:
            with lines_run:
                state.module = import_with_stand_ins(worker, job, outcome)
        finally:
            outcome.import_lines = sorted(lines_run.ran)
        return
    try:
        state.module = import_with_stand_ins(worker, job, outcome)
    except ImportError as exc:
        parents = _failing_parent_packages(exc, job["module"], job["path"])
        if not parents:
            raise
        # A package's __init__ importing what this MindSpore lacks (a private module an older release had) need
        # not stop a module that does not use it: import it with its parent packages left unexecuted, for this
        # job only (the next one imports the package as Python does, and says so again).
        worker.bare_imports = (parents[0][0], set(sys.modules))
        skipped, run = {}, []
        for name, directory in parents:
            if name not in sys.modules:  # the packages whose __init__ ran to its end stay as they are
                run.append(name)
                for path, line, error in _partial_package(name, directory):
                    skipped.setdefault((path, line), error)
        run = ", ".join(run)
        if skipped:
            left = "; ".join(f"{path}:{line} ({error})" for (path, line), error in list(skipped.items())[:4])
            more = f"; {len(skipped) - 4} more" if len(skipped) > 4 else ""
            outcome.notes.append(f"imported with its parent packages' __init__ ({run}) run except the statements "
                                 f"that raised: {left}{more}")
        else:
            outcome.notes.append(f"imported with its parent packages' __init__ run statement by statement ({run}): "
                                 f"{first_line(exc)}")
        # What a later install may change: the cache keeps the outcome only while it is so.
        outcome.parents_error = {"type": type(exc).__name__, "message": exception_message(exc),
                                 "first_line": first_line(exc)}
        state.module = import_with_stand_ins(worker, job, outcome)


def _folders_up_to(root: str, project_root: str | None) -> list[str]:
    """The folders above ``root`` up to ``project_root``, nearest first; none for an installed package."""
    if not project_root or os.path.basename(root) in ("site-packages", "dist-packages"):
        return []
    folders = []
    folder = root
    while folder != project_root and folder.startswith(project_root + os.sep):
        folder = os.path.dirname(folder)
        folders.append(folder)
    return folders


def import_with_stand_ins(worker, job: dict, outcome: Outcome):
    """``import_module`` of the job's module; when that raises ``ModuleNotFoundError`` for a third-party package
    installed nowhere (or an installed package's private submodule, or a name an installed module lacks: see
    ``standins.missing_package``; also where a lazy loader wraps that error in its own), again with a stand-in
    for it (``standins``), up to ``standins.MAX_STAND_INS`` new ones for this job (those earlier jobs of the worker
    gave stay and do not count), each named in the outcome. From then on, a use of a stand-in is recorded
    (``standins.armed``)."""
    from ms_lint.validate import standins

    _install_known_stand_ins(worker, job)
    added = 0
    while True:
        try:
            module = import_module(worker, job["module"], job["path"])
        except Exception as raised:  # noqa: BLE001 -- raised again unless a missing package explains it
            exc = _import_failure(raised)
            if exc is None:
                _name_stand_ins(worker, outcome)
                raise
            missing = standins.missing_package(exc, [job["import_root"], *job.get("namespace_roots", ()),
                                                     *_folders_up_to(job["import_root"], job.get("project_root"))])
            known = worker.stand_ins.missing if getattr(worker, "stand_ins", None) is not None else []
            if missing is None or missing in known or added >= standins.MAX_STAND_INS:
                _name_stand_ins(worker, outcome)
                raise
            if getattr(worker, "stand_ins", None) is None:
                worker.stand_ins = standins.install([])
            worker.stand_ins.add(missing)
            added += 1
            _record_import_failure(outcome, exc, missing)
            _forget_package(job["module"].split(".")[0], worker)
            continue
        except BaseException:
            _name_stand_ins(worker, outcome)  # an import that fails on a stand-in says which it met
            raise
        if _name_stand_ins(worker, outcome):
            standins.arm()
        return module


def _install_known_stand_ins(worker, job: dict) -> None:
    """Stand-ins for the missing packages earlier jobs of the project needed (``known_stand_ins``, given by the
    pool), before the first import: a fresh worker then imports a library's module once, not once per missing
    package. Each is still a package installed nowhere (the job's own checks, as for one the import reports)."""
    from ms_lint.validate import standins

    folders = [job["import_root"], *job.get("namespace_roots", ()),
               *_folders_up_to(job["import_root"], job.get("project_root"))]
    known = worker.stand_ins.missing if getattr(worker, "stand_ins", None) is not None else []
    for name in job.get("known_stand_ins") or ():
        if name in known or standins.missing_package(ModuleNotFoundError(name=name), folders) != name:
            continue
        if getattr(worker, "stand_ins", None) is None:
            worker.stand_ins = standins.install([])
            known = worker.stand_ins.missing
        worker.stand_ins.add(name, ahead=True)


def _import_failure(raised: BaseException) -> BaseException | None:
    """The ``ImportError`` or ``AttributeError`` an import raised: ``raised`` itself, or the one a lazy loader
    wrapped (``RuntimeError: Failed to import x.loaders because of the following error``, raised from it)."""
    seen = set()
    error: BaseException | None = raised
    while error is not None and id(error) not in seen:
        if isinstance(error, (ImportError, AttributeError)):
            return error
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return None


def _record_import_failure(outcome: Outcome, exc: BaseException, missing: str) -> None:
    """Where importing raised ``exc``, which the stand-in for ``missing`` then answered: the innermost frame of
    user code, the line a module-level finding is decided by."""
    from ms_lint.validate.outcome import user_traceback

    frames = user_traceback(exc)
    if not frames:
        return
    path, line = frames[-1][0], frames[-1][1]
    outcome.import_failures = (outcome.import_failures or []) + [{
        "path": path, "line": line, "type": type(exc).__name__, "first_line": first_line(exc),
        "message": exception_message(exc)[:2000], "stand_in": missing}]


def _name_stand_ins(worker, outcome: Outcome) -> bool:
    """Name in the outcome the missing packages the import has stand-ins for, and what the stand-ins answered in
    their place (``standins.answers``); whether there are any."""
    from ms_lint.validate import standins

    if getattr(worker, "stand_ins", None) is None:
        return False
    outcome.stand_ins = worker.stand_ins.used()
    answered = standins.answers()
    if answered and not any(note.startswith("the stand-ins answered") for note in outcome.notes):
        outcome.notes.append(f"the stand-ins answered the module's checks of its dependencies as an installed "
                             f"release would: {', '.join(answered[:6])}{', ...' if len(answered) > 6 else ''}")
    return True


def _forget_package(top: str, worker) -> None:
    """The modules of package ``top`` a failed import left in ``sys.modules`` (the parents of the module that
    raised): imported again with the stand-ins."""
    if top in worker.baseline_modules:
        return
    for name, module in list(sys.modules.items()):
        if (name == top or name.startswith(top + ".")) and not getattr(module, "__ms_lint_bare__", False):
            del sys.modules[name]


def import_module(worker, name: str, path: str):
    top = name.split(".")[0]
    if top in worker.baseline_modules and not _module_file_is(sys.modules.get(top), path, top):
        if "." in name:
            raise ImportError(
                f"package {top!r} has the name of a module MindSpore already imported; rename the package"
            )
        # A script named like a standard module ("random.py") is loaded from its path under another name.
        return load_from_path(f"_ms_lint_script_{abs(hash(path))}", path)
    module = importlib.import_module(name)
    loaded_from = getattr(module, "__file__", None)
    if loaded_from and not same_file(loaded_from, path):
        raise ImportError(f"'import {name}' loads {loaded_from}, not {path}; is another {top!r} on sys.path?")
    return module


def forget_user_modules(worker) -> None:
    for name, module in list(sys.modules.items()):
        if name.split(".")[0] in worker.baseline_modules:
            continue
        files = [getattr(module, "__file__", None) or ""] + _folders_of(module)
        if any(file.startswith(root + os.sep) for file in files for root in worker.user_roots) \
                or name.startswith("_ms_lint_"):
            del sys.modules[name]
    worker.examples_cache.clear()


def _folders_of(module) -> list[str]:
    """A package's folders: where a namespace package (a folder without ``__init__.py``, no ``__file__``) is. Its
    ``__path__`` is read as last computed: computing it again asks for its parent, which may be forgotten."""
    path = getattr(module, "__path__", None)
    try:
        return [folder for folder in list(getattr(path, "_path", path) or ()) if isinstance(folder, str)]
    except Exception:  # noqa: BLE001 -- a package's own __path__ object may raise anything
        return []


def stage_examples(worker, state: "JobState", outcome: Outcome) -> None:
    path = state.job.get("examples_file")
    if not path:
        return
    if not os.path.isfile(path):
        raise FileNotFoundError(f"examples file {path} does not exist")
    stat = os.stat(path)
    key = (path, stat.st_mtime_ns, stat.st_size)
    if key not in worker.examples_cache:
        from ms_lint import examples

        examples.clear()
        load_from_path(f"_ms_lint_examples_{abs(hash(path))}", path)
        worker.examples_cache[key] = examples.registered()
    state.example = worker.examples_cache[key].get(state.job["target"])
    outcome.examples_file = path


def stage_resolve(worker, state: "JobState", outcome: Outcome) -> None:
    if state.job.get("module_only"):
        outcome.kind = "module"  # its findings are decided by the import: nothing to build or compile
        state.stop = True
        return
    obj = state.module
    for part in state.job["qualname"].split("."):
        if not hasattr(obj, part):
            outcome.status = "not_found"
            outcome.message = f"{state.job['qualname']} is not defined in {state.job['module']} at import"
            state.stop = True
            return
        obj = getattr(obj, part)
    state.target = obj


def _failing_parent_packages(exc: ImportError, name: str, path: str) -> list[tuple[str, str]]:
    """``[(package name, directory)]`` of the parents of module ``name`` (file ``path``), outermost first, when
    ``exc`` was raised while one of their ``__init__.py`` ran; empty otherwise."""
    parts = name.split(".")[:-1]
    directory = os.path.dirname(os.path.abspath(path))
    if os.path.basename(path) == "__init__.py":
        directory = os.path.dirname(directory)  # a package: its folder is its own, the parent's is one up
    parents = []
    for depth in range(len(parts), 0, -1):
        parents.append((".".join(parts[:depth]), directory))
        directory = os.path.dirname(directory)
    parents.reverse()
    inits = {os.path.realpath(os.path.join(folder, "__init__.py")) for _, folder in parents}
    raised_in = {os.path.realpath(frame.filename) for frame in traceback.extract_tb(exc.__traceback__)}
    return parents if inits & raised_in else []


def _partial_package(name: str, directory: str) -> list[tuple[str, int, str]]:
    """``sys.modules[name]``: the package at ``directory`` with its ``__init__`` run statement by statement, those
    that raise left out (a ``from . import a, b, c`` that raises: each name on its own), so that what it defines
    before and after the failing import (``threestudio.register``) is there for its submodules; its submodules
    import. The statements left out: ``[(path, line, first line of the error)]``."""
    init = os.path.join(directory, "__init__.py")
    module = types.ModuleType(name)
    module.__ms_lint_bare__ = True
    module.__path__ = [directory]
    module.__file__ = init
    module.__package__ = name
    module.__spec__ = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[directory])
    sys.modules[name] = module
    parent, _, child = name.rpartition(".")
    if parent in sys.modules:
        setattr(sys.modules[parent], child, module)
    try:
        with open(init, encoding="utf-8") as handle:
            tree = ast.parse(handle.read(), init)
    except (OSError, SyntaxError, ValueError):
        return []  # no __init__ to run (a namespace folder), or one that does not parse: left bare
    skipped = []
    for statement in tree.body:
        parts = [statement]
        if isinstance(statement, ast.ImportFrom) and len(statement.names) > 1:
            parts = [ast.copy_location(ast.ImportFrom(statement.module, [alias], statement.level), statement)
                     for alias in statement.names]
        for part in parts:
            try:
                code = compile(ast.Module([part], []), init, "exec")
                exec(code, module.__dict__)  # noqa: S102 -- the project's own __init__, as importing it runs it
            except Exception as exc:  # noqa: BLE001 -- the statement is left out; the others still run
                sys.modules[name] = module  # a failed import of a submodule may have taken the package out
                skipped.append((init, statement.lineno, first_line(exc)))
    return skipped


def load_from_path(name: str, path: str):
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def _module_file_is(module, path: str, top: str) -> bool:
    file = getattr(module, "__file__", None)
    if not file:
        return False
    if same_file(file, path):
        return True
    # The top package of path: its __init__.py.
    directory = os.path.dirname(path)
    while directory and os.path.basename(directory) != top:
        parent = os.path.dirname(directory)
        if parent == directory:
            return False
        directory = parent
    return same_file(file, os.path.join(directory, "__init__.py"))
