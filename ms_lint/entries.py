"""Entry points and the mode they run the code in, read as text (MindSpore is never imported).

MindSpore's default mode is PyNative (``mindspore.get_context("mode")`` is 1 in a fresh process, 2.7.1 to 2.10.0):
a Cell's ``construct`` is compiled only where code selects GRAPH_MODE before running it. That code is an
application's entry points: the scripts (``train.py``, ``eval.py``, ``infer.py``, ``export.py``, ``main.py``, or
any with a ``__main__`` guard that imports MindSpore, but a module's own trial run) in the folders above a module,
outside any package. A library has none: its users choose the mode.

For a module, ``mode_of`` says, with where it came from:

- the entry points that reach the module through the project's imports (each entry's own imports, followed from
  module to module): GRAPH where one of them selects GRAPH_MODE (``set_context(mode=GRAPH_MODE)`` or ``mode=0``,
  in the entry or in a module it imports that sets up the context; ``mode=args.mode`` read from an argparse or
  configuration default, or from a condition that names GRAPH_MODE), else PyNative (what they select, or MindSpore's
  default);
- a module of an application no entry point reaches: GRAPH where an entry point of the application selects it,
  else PyNative (but where the entry points lie above the folder the module's packages lie in, which may be
  another application's, such a module is a library's);
- a module with no entry point above it: a library, checked as its users would compile it (GRAPH).

Everything read is kept for the process, by file and modification time (``forget`` drops it).
"""
from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from functools import lru_cache

GRAPH, PYNATIVE = "graph", "pynative"

# Scripts an application runs, by name (outside a package); any other script counts by its ``__main__`` guard.
_ENTRY_NAME = re.compile(r"(?:train|eval|infer|export|predict|main|run|demo)[\w-]*\.py$")
_MAIN_GUARD = re.compile(r"^if\s+__name__\s*==\s*[\"']__main__[\"']\s*:", re.MULTILINE)
_SET_CONTEXT = re.compile(r"\bset_context\s*\(")
_MODE_KEYWORD = re.compile(r"(?<![\w.])mode\s*=(?!=)")
_GRAPH_WORDS = frozenset({"0", "graph", "graph_mode"})
_PYNATIVE_WORDS = frozenset({"1", "pynative", "pynative_mode"})
# The folders looked at for a module's entry points go this many levels above the one its top package lies in
# (``app/src/utils/ops.py`` where neither ``src`` nor ``utils`` is a package).
_LEVELS_ABOVE_SOURCE_ROOT = 3
# At most this many modules are followed from one entry point, and this many configuration files read.
_MAX_REACHED = 5000
_MAX_CONFIG_FILES = 200
_MAX_BYTES = 512_000


def in_comment(text: str, position: int) -> bool:
    """Whether the text at ``position`` is, by its line, a comment or inside a string or prose (a documentation
    line quoting the call: a ``#``, a backtick or an unbalanced quote before it)."""
    before = text[text.rfind("\n", 0, position) + 1:position]
    return "#" in before or "`" in before or before.count('"') % 2 == 1 or before.count("'") % 2 == 1


def context_call(text: str, position: int) -> bool:
    """Not a method of another object (``op.set_device("CPU")`` places one operator): bare, or on ``ms``,
    ``mindspore``, ``context`` or ``ms.context``."""
    if position == 0 or text[position - 1] != ".":
        return True
    start = position - 1
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_."):
        start -= 1
    return text[start:position - 1] in ("ms", "mindspore", "context", "mindspore.context", "ms.context")


def is_test_path(relative: str) -> bool:
    """A test module or a file under a tests directory: it names the device its tests run on, not the project's."""
    parts = relative.replace(os.sep, "/").split("/")
    name = parts[-1]
    return (any(part in ("test", "tests", "testing", "unittest", "ut", "st") for part in parts[:-1])
            or name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py")


def _line(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


@dataclass(frozen=True)
class Selection:
    """One ``set_context(mode=...)``: the line, the value's text, and what it selects (``graph``, ``pynative``, or
    "" when the value is read from elsewhere: ``args.mode``)."""

    line: int
    value: str
    mode: str


@dataclass(frozen=True)
class EntryMode:
    """What one entry point runs its code in, and where that is said (``train.py:74``, ``src/env.py:37``; "" for
    MindSpore's default)."""

    entry: str  # the entry point's path
    mode: str
    where: str


@dataclass(frozen=True)
class ModuleMode:
    """The mode a module runs its Cells in and why: ``origin`` is a phrase for the target line (``train.py:74``, ``a
    library, checked as its users would compile it``); ``compiled_by`` names the entry points that select GRAPH_MODE
    when others reaching the module run it in PyNative (the findings name them)."""

    mode: str
    origin: str
    compiled_by: tuple[str, ...] = ()


# ------------------------------------------------------------------------------------------ reading files


_texts: dict[str, tuple[float, str | None]] = {}


def _text(path: str) -> str | None:
    """The file's text (None when unreadable or too large), read once per modification time."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    known = _texts.get(path)
    if known is not None and known[0] == status.st_mtime:
        return known[1]
    text = None
    if stat.S_ISREG(status.st_mode) and status.st_size <= _MAX_BYTES:  # never a FIFO, which would block the read
        try:
            with open(path, "rb") as handle:
                text = handle.read().decode("utf-8", errors="replace")
        except OSError:
            pass
    _texts[path] = (status.st_mtime, text)
    return text


def forget() -> None:
    """Read every file again when next asked."""
    _texts.clear()
    _selections.clear()
    _closures.clear()
    _entries_in.clear()
    _applications.clear()


# ------------------------------------------------------------------------------------ mode selections


_selections: dict[str, tuple[Selection, ...]] = {}


def selections(path: str, skip_main_block: bool = False) -> tuple[Selection, ...]:
    """The ``set_context(mode=...)`` calls of the file, in order (with ``skip_main_block``, those before a
    top-level ``if __name__ == "__main__":``: a module's own trial run selects nothing for its importers)."""
    text = _text(path)
    if text is None or "set_context" not in text or "mode" not in text:
        return ()
    if path not in _selections:
        _selections[path] = tuple(_find_selections(text))
    found = _selections[path]
    if skip_main_block and found:
        guard = _MAIN_GUARD.search(text)
        if guard is not None:
            last = _line(text, guard.start())
            found = tuple(selection for selection in found if selection.line < last)
    return found


def _find_selections(text: str):
    for match in _SET_CONTEXT.finditer(text):
        if in_comment(text, match.start()) or not context_call(text, match.start()):
            continue
        arguments = _balanced(text, match.end())
        for keyword in _MODE_KEYWORD.finditer(arguments):
            value = _argument_value(arguments, keyword.end()).strip()
            if value:
                yield Selection(_line(text, match.start()), " ".join(value.split()), _named_mode(value))


def _balanced(text: str, start: int) -> str:
    """The text from ``start`` to the parenthesis that closes the one before it (at most 2,000 characters)."""
    depth = 1
    quote = ""
    end = min(len(text), start + 2000)
    for position in range(start, end):
        character = text[position]
        if quote:
            if character == quote and text[position - 1] != "\\":
                quote = ""
        elif character in "\"'":
            quote = character
        elif character in "([{":
            depth += 1
        elif character in ")]}":
            depth -= 1
            if depth == 0:
                return text[start:position]
    return text[start:end]


def _argument_value(arguments: str, start: int) -> str:
    """One argument's text: up to the next comma outside brackets."""
    depth = 0
    for position in range(start, len(arguments)):
        character = arguments[position]
        if character in "([{":
            depth += 1
        elif character in ")]}":
            depth -= 1
        elif character == "," and depth == 0:
            return arguments[start:position]
    return arguments[start:]


def _named_mode(value: str) -> str:
    """What a ``mode=`` value selects by itself: GRAPH where it names GRAPH_MODE or is 0 (a condition naming both
    can select it), PyNative where it names only PYNATIVE_MODE or is 1, else "" (read from elsewhere)."""
    if re.search(r"\bGRAPH_MODE\b", value) or value.strip() == "0":
        return GRAPH
    if re.search(r"\bPYNATIVE_MODE\b", value) or value.strip() == "1":
        return PYNATIVE
    default = re.search(r"get(?:env|\()\s*\(?\s*[\"'][^\"']+[\"']\s*,\s*[\"']?(\w+)", value)
    return _word_mode(default.group(1)) if default else ""


def _word_mode(word: str) -> str:
    word = word.strip().strip("\"'").lower()
    return GRAPH if word in _GRAPH_WORDS else PYNATIVE if word in _PYNATIVE_WORDS else ""


def _resolved(selection: Selection, path: str, context: tuple[str, ...], folder: str) -> tuple[str, str]:
    """(mode, how) of a selection whose value is read from elsewhere (``mode=args.mode``, ``mode=context_mode``):
    GRAPH where the file names GRAPH_MODE (a condition or table that can select it); PyNative where it names only
    PYNATIVE_MODE; else the default an argparse option, a configuration file of the application or an assignment
    in the files of ``context`` gives that name; else GRAPH: the code chooses the mode, and GRAPH_MODE is what it
    can be compiled in."""
    if selection.mode:
        return selection.mode, ""
    text = _text(path) or ""
    for mode, word in ((GRAPH, "GRAPH_MODE"), (PYNATIVE, "PYNATIVE_MODE")):
        for match in re.finditer(rf"\b{word}\b", text):
            if not in_comment(text, match.start()):
                return mode, f"mode={selection.value}, which can be {word}"
    names = re.findall(r"[A-Za-z_]\w*", selection.value)
    name = names[-1] if names else ""
    if name:
        spelled = name.replace("_", "[-_]")
        option = re.compile(rf"add_argument\(\s*[\"']--?{spelled}[\"'][^)]*?\bdefault\s*=\s*[\"']?([\w.]+)", re.S)
        assigned = re.compile(rf"^\s*[\"']?{spelled}[\"']?\s*[:=]\s*[\"']?([\w.]+)", re.MULTILINE)
        for other in (path, *context, *_configuration_files(folder)):
            other_text = _text(other) or ""
            if name not in other_text:
                continue
            for pattern in (option, assigned):
                for match in pattern.finditer(other_text):
                    mode = _word_mode(match.group(1).rsplit(".", 1)[-1])
                    if mode and not in_comment(other_text, match.start()):
                        return mode, f"mode={selection.value}, {match.group(1)} at {_relative(other, folder)}:" \
                                     f"{_line(other_text, match.start())}"
    return GRAPH, f"mode={selection.value}, read as GRAPH_MODE"


@lru_cache(maxsize=256)
def _configuration_files(folder: str) -> tuple[str, ...]:
    """The YAML and JSON files of an application's folder (its own and its configuration folders')."""
    found: list[str] = []
    if not folder:
        return ()
    for directory, subdirectories, names in os.walk(folder):
        subdirectories[:] = sorted(name for name in subdirectories if not name.startswith(".")
                                   and name not in ("__pycache__", "node_modules", "build", "dist"))
        for name in sorted(names):
            if name.endswith((".yaml", ".yml", ".json")):
                found.append(os.path.join(directory, name))
                if len(found) >= _MAX_CONFIG_FILES:
                    return tuple(found)
    return tuple(found)


# ----------------------------------------------------------------------------------------- imports


_closures: dict[str, frozenset[str]] = {}


def reached_from(entry: str) -> frozenset[str]:
    """The project files running ``entry`` imports, itself included (at most ``_MAX_REACHED``)."""
    known = _closures.get(entry)
    if known is not None:
        return known
    reached = {entry}
    pending = [entry]
    from ms_lint.model.project import INDEX

    while pending and len(reached) < _MAX_REACHED:
        for imported in INDEX.imported_files(pending.pop()):
            if imported not in reached:
                reached.add(imported)
                pending.append(imported)
    _closures[entry] = result = frozenset(reached)
    return result


# ------------------------------------------------------------------------------------- entry points


_entries_in: dict[str, tuple[str, ...]] = {}


def entry_points_in(directory: str) -> tuple[str, ...]:
    """The entry points directly in ``directory``: none in a package (a folder with ``__init__.py``, whose scripts
    are its modules' trial runs); else each file named like an application's script, or with a ``__main__`` guard,
    that imports MindSpore."""
    known = _entries_in.get(directory)
    if known is not None:
        return known
    found = []
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        names = []
    if "__init__.py" not in names:
        for name in names:
            path = os.path.join(directory, name)
            if not name.endswith(".py") or is_test_path(name) or not os.path.isfile(path):
                continue
            text = _text(path)
            if text is None or "mindspore" not in text:
                continue
            if _ENTRY_NAME.match(name) or _MAIN_GUARD.search(text):
                found.append(path)
    _entries_in[directory] = result = tuple(found)
    return result


_applications: dict[tuple[str, str], tuple[str, tuple[str, ...]] | None] = {}


def application_of(path: str, bound: str | None) -> tuple[str, tuple[str, ...]] | None:
    """(the application's folder, its entry points) for the module at ``path``, from the entry points of the folders
    above it, up to ``_LEVELS_ABOVE_SOURCE_ROOT`` folders above the one its top package lies in, or ``bound`` (the
    project's root, where a project marker says where it ends) where that is nearer:
    the scripts named like an application's, and the others with a ``__main__`` guard but those that such a script
    imports or that lie inside a package (a module's trial run). The folder is the highest holding one; None for a
    library module."""
    directory = os.path.dirname(os.path.abspath(path))
    key = (directory, bound or "")
    if key in _applications:
        return _applications[key]
    from ms_lint.model.project import INDEX

    top = INDEX.source_roots(path)[0]
    for _ in range(_LEVELS_ABOVE_SOURCE_ROOT):  # an application's ``src`` and its folders need not be packages
        parent = os.path.dirname(top)
        if parent == top or parent == os.path.expanduser("~"):
            break
        top = parent
    if bound is not None and os.path.abspath(bound).startswith(top):
        top = os.path.abspath(bound)  # the project ends below
    levels = []
    current = directory
    while True:
        levels.append(current)
        parent = os.path.dirname(current)
        if current == top or parent == current or not current.startswith(top):
            break
        current = parent
    named = [entry for level in levels for entry in entry_points_in(level)
             if _ENTRY_NAME.match(os.path.basename(entry))]
    imported = {module for entry in named for module in reached_from(entry)}
    entries = named + [entry for level in levels for entry in entry_points_in(level)
                       if not _ENTRY_NAME.match(os.path.basename(entry)) and entry not in imported
                       and not _inside_a_package(os.path.dirname(entry), top)]
    found = None
    if entries:
        folder = next(level for level in reversed(levels) if any(os.path.dirname(e) == level for e in entries))
        found = (folder, tuple(sorted(entries)))
    _applications[key] = found
    return found


def _inside_a_package(directory: str, top: str) -> bool:
    """Whether a folder above ``directory``, up to ``top``, is a package."""
    while directory.startswith(top) and directory != top:
        directory = os.path.dirname(directory)
        if os.path.isfile(os.path.join(directory, "__init__.py")):
            return True
    return False


def _entry_mode(entry: str, folder: str) -> EntryMode:
    """The mode ``entry`` runs in: its own ``set_context(mode=...)``, else that of a module it imports (the first
    GRAPH one, else the first), else MindSpore's default (PyNative)."""
    reached = reached_from(entry)
    context = tuple(sorted(reached - {entry}))
    own = selections(entry)
    if own:
        modes = [(_resolved(selection, entry, context, folder), selection) for selection in own]
        (mode, _), selection = next((item for item in modes if item[0][0] == GRAPH), modes[0])
        return EntryMode(entry, mode, f"{_relative(entry, folder)}:{selection.line}")
    chosen = None
    for module in context:
        for selection in selections(module, skip_main_block=True):
            mode, _ = _resolved(selection, module, (entry, *context), folder)
            candidate = EntryMode(entry, mode, f"{_relative(entry, folder)}, through "
                                               f"{_relative(module, folder)}:{selection.line}")
            if mode == GRAPH:
                return candidate
            chosen = chosen or candidate
    return chosen or EntryMode(entry, PYNATIVE, "")


def _relative(path: str, folder: str) -> str:
    relative = os.path.relpath(path, folder) if folder else path
    return (path if relative.startswith(os.pardir) else relative).replace(os.sep, "/")


def mode_of(path: str, bound: str | None) -> ModuleMode:
    """The mode the module at ``path`` runs its Cells in, inferred from the entry points of its application (see
    the module's documentation)."""
    application = application_of(path, bound)
    if application is None:
        return ModuleMode(GRAPH, "a library, checked as its users would compile it")
    folder, entries = application
    target = os.path.abspath(path)
    modes = [_entry_mode(entry, folder) for entry in entries]
    reaching = [mode for mode in modes if target in reached_from(mode.entry)]
    from ms_lint.model.project import INDEX

    source_root = INDEX.source_roots(path)[0]
    if not reaching and source_root != folder and source_root.startswith(os.path.join(folder, "")):
        # scripts in a folder above the one the module's packages lie in, none of which imports it: not known to be
        # its application
        return ModuleMode(GRAPH, "a library, checked as its users would compile it")
    graph = sorted((mode for mode in (reaching or modes) if mode.mode == GRAPH),
                   key=lambda mode: not os.path.basename(mode.entry).startswith("train"))  # training first
    if graph:
        others = [mode for mode in reaching if mode.mode != GRAPH]
        if others:
            names = tuple(_relative(mode.entry, folder) for mode in graph)
            more = f" and {len(names) - 1} more" if len(names) > 1 else ""
            return ModuleMode(GRAPH, f"compiled by {names[0]}{more} ({graph[0].where}); "
                                     f"{_relative(others[0].entry, folder)} runs it in PyNative", names)
        return ModuleMode(GRAPH, graph[0].where)
    selected = next((mode for mode in (reaching or modes) if mode.where), None)
    if selected is not None:
        return ModuleMode(PYNATIVE, selected.where)
    names = ", ".join(_relative(mode.entry, folder) for mode in (reaching or modes)[:3])
    return ModuleMode(PYNATIVE, f"MindSpore's default: {names} select{'s' if len(reaching or modes) == 1 else ''} "
                                f"no mode")
