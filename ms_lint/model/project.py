"""Classes defined in the user's other modules: found on demand, when a base class is not resolved locally.

Only the user's own project is searched (the source root above the file's top package, the file's own directory,
and for namespace packages the directories above up to the project's root), never site-packages: a Cell base from
another module of the project is common, and following third-party code would make every editor keystroke pay for
parsing libraries.

Two caches, because a flake8 run checks a whole project in one process. What most questions need (is this class
a Cell, what does this module re-export) is kept for the whole process as a small summary per module and file
version, and so is where each module's file lies. A summary is read from the module's outline (its own code and
its classes' headers, not what functions and classes hold), or kept from the module's own analysis when the run
checked it first.
The full facts of another module (its tree) are kept only while one file is analysed: keeping hundreds of trees
alive would make every full garbage collection of the host process scan them, file after file.

All of it is owned by one ``ProjectIndex``, ``INDEX``, for the process; the functions of this module are its
methods.
"""
from __future__ import annotations

import ast
import os
import re
import stat
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Iterable

from ms_lint.model.scopes import ASSIGNMENT
from ms_lint.model.source import outline_text, read_source
from ms_lint.model.syntax import preorder
from ms_lint.model.values import join_parameters
from ms_lint.settings import Settings
from ms_lint.target import imported_files, module_file_in

if TYPE_CHECKING:
    from ms_lint.model.module import ModuleFacts

_MAX_REEXPORT_HOPS = 8
_MAX_TEXT_TREES = 256  # the trees of files read as text that ``tree_of`` keeps until their check


@dataclass(frozen=True)
class ProjectClass:
    """What is known of a class of another module of the project without keeping that module's tree."""

    name: str
    is_cell: bool
    is_jit_class: bool


@dataclass(frozen=True)
class ModuleSummary:
    names: dict[str, str]  # local name -> qualified name (what the module imports, hence re-exports)
    classes: dict[str, tuple[bool, bool]]  # class name -> (is_cell, is_jit_class)

    def project_class(self, name: str) -> ProjectClass:
        return ProjectClass(name, *self.classes[name])

    @classmethod
    def of(cls, facts: "ModuleFacts") -> ModuleSummary:
        return cls(dict(facts.names), {name: (info.is_cell, info.is_jit_class) for name, info in facts.classes.items()})


def _kept_key(module_file: str, settings: Settings) -> tuple:
    return (module_file, *settings.values)


class ProjectIndex:
    """What one process knows of the project's modules besides the file being analysed: the summaries of the other
    modules, by file version, for the whole process; where each module's file lies; the lookups each summary was
    built with; and, while one file is analysed, the trees and full facts of the modules it asked about."""

    # What builds a module's facts: ms_lint.model.module.ModuleFacts, handed down by that module when it is defined
    # (it sits above this one, and a module's facts ask this module for the classes of the others).
    facts_class: "type[ModuleFacts] | None" = None

    def __init__(self) -> None:
        self._full_facts: dict[tuple[str, float, Settings], "ModuleFacts | None"] = {}  # for the file being analysed
        self._facts_lookups: dict[tuple[str, float, Settings], dict] = {}  # the lookups each was built with
        self._modified: dict[str, float] = {}  # file -> its modification time, while a file is analysed
        # file -> how many times its full facts or outline were read, for the benchmark
        self.reads: dict[str, int] = {}
        self._trees: dict[tuple[str, float, None], tuple[ast.Module, str]] = {}  # for the file being analysed
        # file -> (its text, its tree, None where it is no Python) of the files an application's text was read from
        # to learn what builds its classes (``tree_of``), the most recently read last: parsed once, their own check
        # takes the tree (``kept_tree``)
        self._text_trees: OrderedDict[str, tuple[str, ast.Module | None]] = OrderedDict()
        self._checked_tree: tuple[str, str, ast.Module] | None = None  # (file, source, tree) of the file checked
        # source root -> its Python files, and file -> its bytes, for the file being analysed
        self._listings: dict[str, tuple[tuple[str, str], ...]] = {}
        self._texts: dict[str, bytes | None] = {}
        # What the process keeps, file after file, is made of plain tuples, dicts, strings and numbers, the settings
        # spelled by their values (``_kept_key``): the garbage collector stops tracking dicts and tuples of such
        # values, so the host's full collections (dozens in a flake8 run over a large project) do not walk a
        # project's worth of names and classes each time; only the tuple per file that holds a summary's two dicts
        # stays tracked.
        # (file, *settings' values) -> (the file's modification time, *ModuleSummary's fields), for the whole
        # process; the fields are None when the file is unreadable or not Python
        self._summaries: dict[tuple, tuple[float, dict[str, str] | None, dict[str, tuple[bool, bool]] | None]] = {}
        self._in_progress: set[str] = set()
        # (file, *settings' values) -> hash of the text a kept summary was made from, until it is compared with the
        # file's
        self._unverified: dict[tuple, int] = {}
        # Module lookups, for caches of results: (module, source roots) -> the file found (None: none). Every active
        # recorder sees every lookup; a module's kept facts and summary remember the lookups made while they were
        # built, and replay them whenever they are reused, so that what one file's analysis read is complete even
        # when it read summaries only.
        self._recorders: list[dict[tuple[str, tuple[str, ...]], str | None]] = []
        self._lookups_of: dict[tuple, dict[tuple[str, tuple[str, ...]], str | None]] = {}
        # The run's store (``keep_modules``): the full facts of modules read or checked, kept from file to file so
        # that a module is read once per run however many files ask about it, and its own check reuses them.
        # file -> KeptFacts, least recently used first; empty unless a run asks for it.
        self._kept: OrderedDict[str, KeptFacts] = OrderedDict()
        self._unasked: OrderedDict[str, None] = OrderedDict()  # those no other module asked about, in that order
        self._kept_lines = 0
        self._keep_limit = 0  # lines of source the store may hold; 0: nothing is kept past the file analysed
        self._analysis = 0  # counts the analyses: forget_full_facts ends one
        self._to_check: set[str] = set()  # the files the run is to check and has not checked yet
        # The answers to questions about other modules (``answer``), each computed once per run: (question, file,
        # settings' values, what else it names) -> (the file's modification time, the answer, the lookups made for
        # it as pairs). Plain tuples, which the garbage collector lets go of.
        self._answers: dict[tuple, tuple[float, object, tuple]] = {}
        self._answering: set[tuple] = set()
        # The summary store (``use_store``), where a run finds the summaries and answers of the modules earlier runs
        # read, by their content: (file, settings' values) -> its entry, as read or since made, and those to write.
        self._store = None
        self._stored: dict[tuple, dict] = {}
        self._unsaved: set[tuple] = set()
        # where modules lie, asked for every base class and import: answered once per directory and name
        # What graph code calls in other modules, for the whole process: (file, *settings' values) -> (the file's
        # modification time, ModuleFacts.outgoing_calls of the module read alone); and, to tell which modules to
        # read, file -> (modification time, the names it calls and the names its imports spell, or None for a
        # module without a root of graph code); the Python files under each source root.
        self._graph_summaries: dict[tuple, tuple[float, dict]] = {}
        self._summarising: set[str] = set()
        self._root_calls_of: dict[str, tuple[float, frozenset[str]]] = {}
        self._indexes: dict[str, dict[str, list[tuple[str, str]]]] = {}
        self._project_listings: dict[str, tuple[tuple[str, str], ...]] = {}
        self._source_roots_of = lru_cache(maxsize=1024)(_source_roots_of)
        self._in_project = lru_cache(maxsize=4096)(_in_project)
        self._find_module_file = module_file_in

    @contextmanager
    def recording_lookups(self):
        """The project modules looked up while the block runs, directly or through a summary: a dict of
        ``(module, source roots) -> file or None``. Recording changes nothing in what the analysis finds."""
        lookups: dict[tuple[str, tuple[str, ...]], str | None] = {}
        recorders = self._recorders
        recorders.append(lookups)
        try:
            yield lookups
        finally:
            # By identity: ``list.remove`` compares with ``==``, and a block nested in this one may have recorded
            # the same lookups, leaving an equal dict above this one on the stack.
            del recorders[next(index for index in range(len(recorders) - 1, -1, -1) if recorders[index] is lookups)]

    def _replay_lookups(self, key: tuple) -> None:
        for recorder in self._recorders:
            recorder.update(self._lookups_of.get(key, ()))

    def forget_full_facts(self) -> None:
        """Drop the other modules' trees kept while a file was analysed (their summaries stay, and so do the facts
        the run's store keeps)."""
        self._full_facts.clear()
        self._facts_lookups.clear()
        self._modified.clear()
        self._trees.clear()
        self._listings.clear()
        self._texts.clear()
        self._checked_tree = None
        self._analysis += 1
        self.flush_store()

    def _version(self, module_file: str, settings: Settings | None) -> tuple[str, float, Settings | None] | None:
        """(file, its modification time, settings), None when the file cannot be read; the time is read once while
        one file is analysed (its lookups ask it of the same few modules again and again)."""
        modified = self._modified.get(module_file)
        if modified is None:
            try:
                modified = self._modified[module_file] = os.path.getmtime(module_file)
            except OSError:
                return None
        return module_file, modified, settings

    def keep_modules(self, lines: int, files: Iterable[str] = ()) -> None:
        """Keep the full facts of the modules read or checked, up to ``lines`` lines of their source (the least
        recently used go first), from one file's analysis to the next: a run of ``ms-lint check`` over ``files``
        then reads and models each module once, whether it is checked or asked about by other modules' questions
        (the summary of a module the run is to check is made from its full facts, which its check reuses). 0 keeps
        nothing past the file analysed: what a host process that drives the garbage collector itself needs
        (flake8, pylint), where kept trees would be walked by every full collection."""
        self._keep_limit = max(0, lines)
        self._to_check = {os.path.abspath(file) for file in files} if self._keep_limit else set()
        self._evict()

    def kept_tree(self, path: str, source: str, settings: Settings) -> ast.Module | None:
        """The tree of the facts the run keeps for the file at ``path``, when they were made from ``source``: its
        check need not parse it again (``facts_to_check`` then hands those facts over); else the tree ``tree_of``
        parsed from ``source``."""
        module_file = os.path.abspath(path)
        kept = self._kept.get(module_file) if self._kept else None
        if kept is not None and kept.facts.source == source and kept.facts.settings == settings:
            return kept.facts.tree
        known = self._text_trees.pop(module_file, None) if self._text_trees else None
        return known[1] if known is not None and known[0] == source else None

    def tree_of(self, file: str, text: str) -> ast.Module | None:
        """The tree of ``text``, the text of the file at ``file`` (None where it is no Python), for the questions
        that read an application's files as text: that of the file being checked or of the facts the run keeps for
        the file when they were made from this text, else parsed once and kept (the most recent
        ``_MAX_TEXT_TREES``) until the file's check takes it."""
        module_file = os.path.abspath(file)
        checked = self._checked_tree
        if checked is not None and checked[0] == module_file and checked[1] == text:
            return checked[2]
        kept = self._kept.get(module_file) if self._kept else None
        if kept is not None and kept.facts.tree is not None and kept.facts.source == text:
            return kept.facts.tree
        known = self._text_trees.get(module_file)
        if known is not None and known[0] == text:
            self._text_trees.move_to_end(module_file)
            return known[1]
        try:
            tree = ast.parse(text, filename=module_file)
        except (SyntaxError, ValueError):
            tree = None
        if known is None and len(self._text_trees) >= _MAX_TEXT_TREES:
            self._text_trees.popitem(last=False)
        self._text_trees[module_file] = (text, tree)
        self._text_trees.move_to_end(module_file)
        return tree

    def facts_to_check(self, tree: ast.Module, path: str, settings: Settings, source: str = "",
                       lines: list[str] | None = None) -> "ModuleFacts":
        """The facts to check the module ``tree`` with: those the run keeps for it (read when another module asked
        about it) when ``tree`` is theirs, ready for this file's analysis with their graph code, else new ones."""
        module_file = os.path.abspath(path) if path else ""
        self._checked_tree = (module_file, source, tree) if module_file and source else None
        kept = self._kept.get(module_file) if self._kept and module_file else None
        if kept is not None and kept.facts.tree is tree and kept.facts.settings == settings:
            self._use_kept(module_file)
            facts = kept.facts
            facts.renew(path)
            kept.analysis = self._analysis
            kept.checking = True  # until its check ends, another module's question reads the module as it would
            if lines is not None:
                facts._lines = lines
            for recorder in self._recorders:
                recorder.update(kept.lookups)
            facts.find_graph_code()
            return facts
        return self.facts_class(tree, path, settings, source=source, lines=lines)

    def keep_checked(self, facts: "ModuleFacts") -> None:
        """Keep the facts of a module just checked for the questions later files ask about it, when the run keeps
        modules (the lookups made while they were built come from ``remember_summary``)."""
        if not self._keep_limit or not facts.source or not facts.path or facts.tree is None:
            return
        module_file = os.path.abspath(facts.path)
        self._to_check.discard(module_file)
        version = self._version(module_file, facts.settings)
        if version is None:
            return
        kept = self._kept.get(module_file)
        if kept is not None and kept.facts is facts:
            self._use_kept(module_file)
            kept.checking = False
            facts.renew()  # what the check found goes; the next analysis asks again
            return
        lookups = self._lookups_of.get(_kept_key(module_file, facts.settings), {})
        facts.renew()
        self._keep(module_file, KeptFacts(facts, version[1], dict(lookups), facts.source.count("\n") + 1,
                                          self._analysis, _text_hash(facts.source)))

    def _keep(self, module_file: str, kept: "KeptFacts") -> None:
        if not self._keep_limit or kept.lines > self._keep_limit:
            return
        old = self._kept.pop(module_file, None)
        if old is not None:
            self._kept_lines -= old.lines
        self._kept[module_file] = kept
        self._unasked.pop(module_file, None)
        if not kept.asked:
            self._unasked[module_file] = None
        self._kept_lines += kept.lines
        self._evict()

    def _use_kept(self, module_file: str) -> None:
        """The kept facts of ``module_file`` used: the most recently used now."""
        self._kept.move_to_end(module_file)
        if module_file in self._unasked:
            self._unasked.move_to_end(module_file)

    def _forget_kept(self, module_file: str) -> None:
        self._kept_lines -= self._kept.pop(module_file).lines
        self._unasked.pop(module_file, None)

    def _evict(self) -> None:
        """Make room: the modules no other module asked about go first (a module checked once and never asked
        about again, most of a project), then the least recently used."""
        kept = self._kept
        while self._unasked and self._kept_lines > self._keep_limit:
            self._kept_lines -= kept.pop(self._unasked.popitem(last=False)[0]).lines
        while kept and self._kept_lines > self._keep_limit:
            self._kept_lines -= kept.popitem(last=False)[1].lines

    def _kept_facts(self, module_file: str, settings: Settings, modified: float) -> "ModuleFacts | None":
        """The facts the run keeps for this version of the file, ready for this analysis (their answers asked again
        in each analysis that uses them, and the lookups made while they were built recorded again)."""
        kept = self._kept.get(module_file)
        if kept is None or kept.checking:
            return None  # being checked: with its graph code, which facts read for a question have not
        if kept.modified != modified or kept.facts.settings != settings or not _kept_text_on_disk(kept, module_file):
            self._forget_kept(module_file)
            return None
        self._kept.move_to_end(module_file)
        self._unasked.pop(module_file, None)
        kept.asked = True
        if kept.analysis != self._analysis:
            kept.facts.renew(module_file)
            kept.analysis = self._analysis
        for recorder in self._recorders:
            recorder.update(kept.lookups)
        return kept.facts

    # -- answers to the questions about other modules, and the summary store ---------------------------------

    def answer(self, question: str, module_file: str, settings: Settings, key: tuple, compute):
        """The answer to ``question`` about the project module ``module_file``, for what ``key`` names (a class, a
        method: strings, numbers, booleans and tuples of them): ``compute(facts)`` from the module's full facts
        (None when it cannot be read) gives it as plain data (those values, lists and dicts of them; a tuple that
        holds a dict stays in the garbage collector's lists, so pairs rather than a dict inside one). Each answer
        is computed once per run and version of the file, the lookups made meanwhile recorded again whenever it is
        reused (the store keeps it for later runs too), so that no question walks another module's tree twice.
        The model's questions about other modules go through here, and so can a rule's: the name of the question
        keeps answers apart."""
        version = self._version(module_file, settings)
        if version is None:
            return _frozen(compute(None))
        memo = (question, module_file, *settings.values, *key)
        known = self._answers.get(memo)
        if known is not None and known[0] == version[1]:
            self._record(known[2])
            return known[1]
        entry = self._entry(module_file, settings)
        name = repr((question, key))
        stored = entry["answers"].get(name) if entry is not None else None
        if stored is not None and self._store.unchanged(stored[1]):
            found = self._answers[memo] = (version[1], _frozen(stored[0]), tuple(_lookups_from(stored[1]).items()))
            self._record(found[2])
            return found[1]
        if memo in self._answering or self._in_progress:
            # asked again while it is computed, or while a module is being read: what it finds then may differ
            return _frozen(compute(self._module_facts(module_file, settings)))
        self._answering.add(memo)
        try:
            with self.recording_lookups() as lookups:
                found_answer = _frozen(compute(self._module_facts(module_file, settings)))
        finally:
            self._answering.discard(memo)
        self._answers[memo] = (version[1], found_answer, tuple(lookups.items()))  # all of it plain tuples
        if entry is not None:
            entry["answers"][name] = [found_answer, self._store.record(lookups)]
            self._unsaved.add((module_file, settings.values))
        return found_answer

    def _record(self, lookups) -> None:
        """Record ``lookups`` (a dict, or its items) again in every recorder."""
        for recorder in self._recorders:
            recorder.update(lookups)

    def use_store(self, store) -> None:
        """Take the summaries and answers of the modules whose content is unchanged from ``store`` (a
        ``ms_lint.result_cache.SummaryStore``: ``read(file, settings' values)``, ``write(file, settings' values,
        entry)``, ``record(lookups)``, ``unchanged(record)``), and keep there those this run makes; None: no store."""
        self.flush_store()
        self._store = store
        self._stored.clear()

    def flush_store(self) -> None:
        """Write the entries of the store that changed (at the end of each file's analysis)."""
        if self._store is None or not self._unsaved:
            return
        for module_file, values in self._unsaved:
            self._store.write(module_file, values, self._stored[module_file, values])
        self._unsaved.clear()

    def _entry(self, module_file: str, settings: Settings) -> dict | None:
        """The store's entry of this module's content: ``{"summary": [names, classes] or None, "lookups": the
        summary's, "answers": {question and key: [answer, its lookups]}}``, as much of it as is known."""
        if self._store is None:
            return None
        key = (module_file, settings.values)
        entry = self._stored.get(key)
        if entry is None:
            entry = self._stored[key] = self._store.read(module_file, settings.values)
            entry.setdefault("answers", {})
        return entry

    def _stored_summary(self, module_file: str, settings: Settings):
        """(summary or None, its lookups) from the store, or None when it has none still valid."""
        entry = self._entry(module_file, settings)
        if entry is None or "summary" not in entry or not self._store.unchanged(entry.get("lookups")):
            return None
        stored = entry["summary"]
        summary = None if stored is None else ModuleSummary(
            {str(name): str(qualname) for name, qualname in stored[0].items()},
            {str(name): (bool(flags[0]), bool(flags[1])) for name, flags in stored[1].items()})
        return summary, _lookups_from(entry["lookups"])

    def _store_summary(self, module_file: str, settings: Settings, summary: ModuleSummary | None,
                       lookups: dict) -> None:
        entry = self._entry(module_file, settings)
        if entry is None:
            return
        entry["summary"] = None if summary is None else [summary.names, summary.classes]
        entry["lookups"] = self._store.record(lookups)
        self._unsaved.add((module_file, settings.values))

    def source_roots(self, path: str) -> list[str]:
        """Directories a module of this project is imported from: above the top package, and the file's own."""
        return list(self._source_roots_of(os.path.dirname(os.path.abspath(path))))

    def find_module_file(self, module: str, roots: list[str]) -> str | None:
        """The file of ``module`` under ``roots``, the project's source roots, or None."""
        found = self._find_module_file(module, tuple(roots))
        for recorder in self._recorders:
            recorder[(module, tuple(roots))] = found
        return found

    def project_class(self, path: str, qualname: str, settings: Settings) -> ProjectClass | None:
        """The summary of the project class ``qualname`` seen from file ``path``."""
        found = self._find_class(path, qualname, settings, self._module_summary)
        return found[0].project_class(found[1]) if found else None

    def project_class_facts(self, path: str, qualname: str, settings: Settings) -> tuple["ModuleFacts", str] | None:
        """(facts of the defining module, class name) for the project class ``qualname`` seen from file ``path``
        (found through the summaries: only the defining module is read in full)."""
        location = self.class_location(path, qualname, settings)
        facts = self._module_facts(location[0], settings) if location else None
        return (facts, location[1]) if facts is not None and location[1] in facts.classes else None

    def class_location(self, path: str, qualname: str, settings: Settings) -> tuple[str, str] | None:
        """(file of the defining module, class name) for the project class ``qualname`` seen from file ``path``,
        found through the summaries of the modules that re-export it."""
        found = self._find_class(path, qualname, settings, self._module_summary)
        return (found[3], found[1]) if found else None

    def project_method(self, path: str, qualname: str, name: str, settings: Settings, through_cells: bool,
                       seen: frozenset) -> tuple[str, str, str, bool] | None:
        """Where the project class ``qualname`` (seen from file ``path``) finds method ``name``, through its bases in
        its own and other modules as ``ClassFacts.method_of`` looks (``seen``: the qualified names already
        followed): (file of the defining module, key of the class that defines it, that class's name, whether it
        is a Cell), else None. Answered once per run."""
        location = self.class_location(path, qualname, settings)
        if location is None:
            return None
        class_name = location[1]

        def compute(facts):
            if facts is None or class_name not in facts.classes:
                return None
            found = facts.method_of(facts.classes[class_name], name, through_cells, seen)
            return None if found is None else (os.path.abspath(found[0].path), found[1].key, found[1].name,
                                               found[1].is_cell)

        return self.answer("method", location[0], settings, (class_name, name, through_cells, *sorted(seen)), compute)

    def facts_of(self, module_file: str, settings: Settings) -> "ModuleFacts | None":
        """The full facts of the project module ``module_file`` (a file an answer names), read once per run."""
        return self._module_facts(module_file, settings)

    def class_answer(self, path: str, qualname: str, settings: Settings, question: str, answer) -> tuple[bool, object]:
        """``(True, answer(facts of the defining module, class name))`` for the project class ``qualname`` seen from
        file ``path``: the index's answer to ``question`` about that class (``answer`` above: once per run and
        version of the file that defines it, with the lookups made while it was found); a small answer (tuples of
        names) that many files ask of one base class, which would otherwise read that module's whole tree once per
        file. ``(False, None)`` when ``qualname`` is no project class."""
        location = self.class_location(path, qualname, settings)
        if location is None or self._version(location[0], settings) is None:
            return False, None
        name = location[1]
        return True, self.answer(question, location[0], settings, (name,), lambda facts: (
            answer(facts, name) if facts is not None and name in facts.classes else None))

    def defined_as(self, path: str, qualname: str, settings: Settings) -> str | None:
        """The qualified name where the project class ``qualname``, seen from file ``path``, is defined (a name a
        package re-exports, ``pkg.Model``, is defined as ``pkg.models.Model``); None when it is no project class."""
        found = self._find_class(path, qualname, settings, self._module_summary)
        return f"{found[2]}.{found[1]}" if found else None

    def _find_class(self, path: str, qualname: str, settings: Settings, load):
        if not path or qualname.startswith("."):
            return None
        roots = self.source_roots(path)
        if not self._in_project(qualname.split(".", 1)[0], tuple(roots)):
            return None  # the standard library or a third-party package: never searched
        for _ in range(_MAX_REEXPORT_HOPS):
            if "." not in qualname:
                return None
            module_name, class_name = qualname.rsplit(".", 1)
            module_file = self.find_module_file(module_name, roots)
            if module_file is None:
                return None
            module = load(module_file, settings)
            if module is None:
                return None
            if class_name in module.classes:
                return module, class_name, module_name, module_file
            reexported = module.names.get(class_name)
            if reexported is None or reexported == qualname:
                return None
            qualname = reexported
        return None

    def modules_naming(self, path: str, word: str, settings: Settings,
                       any_of: tuple[str, ...] = ()) -> list["ModuleFacts"]:
        """The facts of the project's other modules whose text holds ``word`` (a class name) and one of ``any_of``
        when given (the ways to import it): what only the users of a module tell (who calls its Cell, and what they
        do with its output). The Python files under the project's first source root are searched (hidden
        directories and virtual environments left out), each found module through ``find_module_file``, so that a
        result cache checks this file again when one of them changes (a file added later that names ``word`` is not
        seen until this one is checked again)."""
        if not path or not os.path.isfile(path):
            return []  # a source without a file (standard input, an editor's buffer): no project around it
        roots = self.source_roots(path)
        own = os.path.abspath(path)
        needle, alternatives = word.encode(), [text.encode() for text in any_of]
        found = []
        texts = self._texts
        for module_file, module_name in self._python_files(roots[0]):
            if module_file == own:
                continue
            if module_file not in texts:  # each file read once while one file is analysed, whatever is asked
                try:
                    with open(module_file, "rb") as handle:
                        texts[module_file] = handle.read()
                except OSError:
                    texts[module_file] = None
            text = texts[module_file]
            if text is None or needle not in text or (
                    alternatives and not any(alternative in text for alternative in alternatives)):
                continue
            if self.find_module_file(module_name, roots) != module_file:
                continue
            facts = self._module_facts(module_file, settings)
            if facts is not None:
                found.append(facts)
        return found

    def _python_files(self, root: str) -> tuple[tuple[str, str], ...]:
        """(file, module name from ``root``) of the Python files under ``root``, at most ``_MAX_SEARCHED_FILES``;
        listed once while a file is analysed (a file added later is seen by the next)."""
        if root not in self._listings:
            self._listings[root] = _list_python_files(root)
        return self._listings[root]

    def _module_summary(self, module_file: str, settings: Settings) -> ModuleSummary | None:
        version = self._version(module_file, settings)
        if version is None:
            return None
        key = _kept_key(module_file, settings)
        known = self._summaries.get(key)
        if known is not None and known[0] == version[1]:
            if self._on_disk(key):
                self._replay_lookups(key)
                return _kept_summary(known)
            del self._summaries[key]  # made from other text than the file's: read the file
        if module_file in self._in_progress:
            return None  # classes that inherit from each other across modules: unknown while it is being read
        stored = self._stored_summary(module_file, settings) if self._store is not None else None
        if stored is not None:
            summary, lookups = stored
            self._record(lookups)
        else:
            with self.recording_lookups() as lookups:
                if module_file in self._to_check:  # read in full once: its check reuses what is read
                    facts = self._module_facts(module_file, settings)
                else:
                    facts = self._read_module(module_file, settings, outline=True)[0]
                summary = None if facts is None else ModuleSummary.of(facts)  # None: unreadable, or not Python
            self._store_summary(module_file, settings, summary, lookups)
        self._lookups_of[key] = lookups
        self._keep_summary(key, version[1], summary)  # an older version of the file is forgotten
        return summary

    def _keep_summary(self, key: tuple, modified: float, summary: ModuleSummary | None) -> None:
        self._summaries[key] = (modified, None, None) if summary is None else (
            modified, summary.names, summary.classes)

    def remember_summary(self, facts: "ModuleFacts", lookups: dict) -> None:
        """Keep the summary of a file just analysed in full (``lookups``: those made while its facts were built), as
        if another file had asked for it: a run checks a project's files one after another in one process, and the
        modules others ask about (base classes, packages' ``__init__``) are usually among them, so they need not be
        read again. The text analysed is checked against the file the first time it is used: an editor may have
        handed over unsaved text."""
        if not facts.source or not facts.path:
            return
        module_file = os.path.abspath(facts.path)
        version = self._version(module_file, facts.settings)
        if version is None:
            return
        key = _kept_key(module_file, facts.settings)
        summary = ModuleSummary.of(facts)
        self._keep_summary(key, version[1], summary)
        self._lookups_of[key] = lookups
        self._unverified[key] = _text_hash(facts.source)
        if self._store is not None:  # the store keeps what the file's content gives
            if self._on_disk(key):
                self._store_summary(module_file, facts.settings, summary, lookups)
            else:
                del self._summaries[key]

    def _on_disk(self, key: tuple) -> bool:
        """Whether a kept summary was made from the text the file holds (always, unless it came from an analysed
        text not yet compared with the file)."""
        analysed = self._unverified.pop(key, None)
        if analysed is None:
            return True  # never unverified, or compared already
        try:
            return _text_hash(read_source(key[0])) == analysed
        except OSError:
            return False

    def _module_facts(self, module_file: str, settings: Settings) -> "ModuleFacts | None":
        key = self._version(module_file, settings)
        if key is None:
            return None
        if key in self._full_facts:
            for recorder in self._recorders:
                recorder.update(self._facts_lookups.get(key, ()))
            return self._full_facts[key]
        facts = self._kept_facts(module_file, settings, key[1]) if self._kept else None
        if facts is not None:
            lookups = self._kept[module_file].lookups
        else:
            facts, lookups = self._read_module(module_file, settings, outline=False)
            checked = self._kept.get(module_file)
            if facts is not None and (checked is None or not checked.checking):
                self._keep(module_file, KeptFacts(facts, key[1], lookups, facts.source.count("\n") + 1,
                                                  self._analysis, asked=True))
        if module_file not in self._in_progress:
            self._full_facts[key] = facts
            self._facts_lookups[key] = lookups
        return facts

    def _read_module(self, module_file: str, settings: Settings, outline: bool) -> tuple["ModuleFacts | None", dict]:
        """Another module's facts, its outline (what it defines and imports) or all of them, and the lookups made
        while they were built; None when it cannot be read, or while it is being read (classes that inherit from
        each other across modules)."""
        if module_file in self._in_progress or self.facts_class is None:
            return None, {}
        self._in_progress.add(module_file)
        lookups: dict = {}
        try:
            tree, source = self._parsed(module_file, outline)
            with self.recording_lookups() as lookups:
                facts = self.facts_class(tree, module_file, settings, source, graph_code=False, outline=outline)
            self._lookups_of[_kept_key(module_file, settings)] = lookups
            self.reads[module_file] = self.reads.get(module_file, 0) + 1
        except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
            facts = None
        finally:
            self._in_progress.discard(module_file)
        return facts, lookups

    def _parsed(self, module_file: str, outline: bool = False) -> tuple[ast.Module, str]:
        """The module's tree and source, parsed once while a file is analysed. For its outline alone, unless the
        whole tree is at hand, the text with its function and class bodies cut (``outline_text``): most of a
        module's nodes lie in them, and the outline of a module checked later in the run is read only to learn its
        classes."""
        version = self._version(module_file, None)
        found = self._trees.get(version)
        if found is not None:
            return found
        source = read_source(module_file)
        known = self._text_trees.get(module_file) if self._text_trees else None
        if known is not None and known[1] is not None and known[0] == source:  # read as text already (whole)
            found = self._trees[version] = (known[1], source)
            return found
        if outline and "\0" not in source:  # Python refuses a file with a null byte anywhere, a body it cuts included
            # Its classes' bodies are cut too: a summary needs only their headers, unless a class derives from a
            # class defined inside another (``class Block(Layers.Base)``), which only the bodies define.
            for class_bodies in (False, True):
                text = outline_text(source, class_bodies)
                if text is None:
                    break
                try:
                    tree = ast.parse(text, filename=module_file)
                except SyntaxError:
                    break  # cut where only a tokenizer could tell: the whole text decides
                if class_bodies or not _derives_from_an_inner_class(tree):
                    return tree, text
        found = self._trees[version] = (ast.parse(source, filename=module_file), source)
        return found

    def graph_calls_into(self, module: "ModuleFacts", candidates: dict[str, set[str]]) -> dict[tuple[str, str], tuple]:
        """The one answer to "which functions of this module does graph code of another module compile": for the
        functions of ``module`` named in ``candidates`` (class key, "" for module level -> function names), those
        the graph code of another module of the project calls (a helper it imports, a method of a mixin or base
        class its Cells inherit, a method of a ``@jit_class`` object it holds): (class key, name) -> (the kinds and
        constants the calls pass, joined; the roots reaching the calls, each labelled with its file and whether only
        GRAPH_MODE compiles it; whether one is STRICT).

        Each other module is read alone, as if no other module called it, so the answer does not depend on the
        order files are checked in; a call through a module that is itself graph code only because a third module
        calls it is not followed. Only modules that may make such a call are read, the smallest first: those that
        import the module (or a package that re-exports it), whose roots, as their text says, call one of the names
        as a root would call it, and, for a method, that name its class. Each is found through
        ``find_module_file``, so that a result cache checks this file again when one of them changes; one that comes
        to call it later is not seen until this file is checked again. Once ``_CALLERS_READ`` modules compile a
        function in either mode, the later ones are not read for its name: what they pass and their roots are left
        out."""
        path = module.path
        if not path or not os.path.isfile(path):
            return {}
        own = os.path.abspath(path)
        stem = os.path.splitext(os.path.basename(own))[0]
        from ms_lint.mindspore_api import tensor_methods

        # how a root's code would call each (``_root_calls``): a helper by name or through its module, a method of a
        # base class or mixin through ``self``, of a sub-cell through ``self.<attribute>``, of any other object
        # through whatever holds it; a Tensor method's name on an object is taken for the Tensor's
        # (``self.pos_embed.to(dtype)``); and a module that calls a method names its class (it derives from it,
        # builds it or annotates it)
        tensor = tensor_methods()
        wanted = set()
        classes_of: dict[str, set[str]] = {}  # each mark -> the names of the classes whose method it may call
        for class_key, functions in candidates.items():
            info = module.classes.get(class_key) if class_key else None
            kinds = ("f", "o") if info is None else ("s", "a") if info.is_cell else ("s", "a", "o")
            for kind in kinds:
                for name in functions:
                    if (name.startswith("__") and (name != "__call__" or info is None or info.is_cell)) or (
                            kind in ("a", "o") and name in tensor):
                        continue  # graph code runs a Cell's construct, not its ``__call__``
                    wanted.add(f"{kind}:{name}")
                    classes_of.setdefault(f"{kind}:{name}", set()).add(info.name if info is not None else "")
        roots = self.source_roots(path)
        found: dict[tuple[str, str], tuple] = {}
        # the functions enough modules compile (in either mode): the modules after them are not read for them
        callers: dict[tuple[str, str], int] = {}
        index = self._importers_index(roots[0])
        spelled = {stem if stem != "__init__" else os.path.basename(os.path.dirname(own))}
        spelled.update(key.rsplit(".", 1)[-1] for key in candidates if key)  # a class a package re-exports
        spelled.update(candidates.get("", ()))  # a function it re-exports
        # the smallest first: each is analysed, and the first that compiles a function may be all that is read
        for module_file, module_name in sorted({entry for word in spelled for entry in index.get(word, ())},
                                               key=lambda entry: (_size(entry[0]), entry)):
            if not wanted:
                break
            marks = wanted & self._root_calls(module_file)
            if not marks:
                continue  # those it calls are all read already, or its text changed since the index was made
            if module_file == own or not self._imports_module(module_file, own):
                continue
            named = {name for mark in marks for name in classes_of[mark]}
            if "" not in named and not self._names_any(module_file, named):
                continue
            if self.find_module_file(module_name, roots) != module_file:
                continue
            where = os.path.relpath(module_file, os.path.dirname(own)).replace(os.sep, "/")
            for (target, class_key, name), (kinds, values, labels, strict) in self._graph_summary(
                    module_file, module.settings).items():
                if target != own or name not in candidates.get(class_key, ()):
                    continue
                labelled = {f"{label} ({where})": only for label, only in labels.items()}
                if not all(labelled.values()):
                    callers[(class_key, name)] = callers.get((class_key, name), 0) + 1
                    if callers[(class_key, name)] >= _CALLERS_READ:
                        wanted.difference_update(f"{kind}:{name}" for kind in "fsao")
                known = found.get((class_key, name))
                if known is None:
                    found[(class_key, name)] = (dict(kinds), dict(values), labelled, strict)
                    continue
                join_parameters(known[0], known[1], kinds, values)
                for label, only in labelled.items():
                    known[2][label] = known[2].get(label, True) and only
                found[(class_key, name)] = (known[0], known[1], known[2], known[3] or strict)
        return found

    def _project_files(self, root: str) -> tuple[tuple[str, str], ...]:
        """``_python_files`` of ``root``, listed once per process (``forget_projects`` lists them again)."""
        if root not in self._project_listings:
            self._project_listings[root] = _list_python_files(root)
        return self._project_listings[root]

    def _importers_index(self, root: str) -> dict[str, list[tuple[str, str]]]:
        """For the Python files under ``root`` (``_project_files``) whose text holds a root of graph code
        (``construct``, ``bprop``, ``jit``, or ``Cell``: a Cell may inherit its ``construct`` from a mixin): each
        word of their import statements (a module's name, a name imported) -> the files (and module names); made
        once per process, from the files' text."""
        index = self._indexes.get(root)
        if index is None:
            index = self._indexes[root] = {}
            for module_file, module_name in self._project_files(root):
                try:
                    if not stat.S_ISREG(os.stat(module_file).st_mode):
                        continue  # opening a FIFO named like a module would block
                    with open(module_file, "rb") as handle:
                        data = handle.read()
                except OSError:
                    continue
                if b"construct" in data or b"bprop" in data or b"jit" in data or b"Cell" in data:
                    for word in _import_words(data):
                        index.setdefault(word, []).append((module_file, module_name))
        return index

    def _root_calls(self, module_file: str) -> frozenset[str]:
        """The names called in the functions of the module its roots reach, as its text says: ``construct``,
        ``bprop`` and functions decorated with a ``jit``, then the functions of the module of the names they call
        (``helper(x)``, ``self.helper(x)``). Each name is marked with how it is called: ``f:name`` (``name(...)``),
        ``s:name`` (``self.name(...)``, ``cls.name(...)``, ``super().name(...)``; ``local:name`` for a name the
        module defines a function of), ``a:name`` (``self.x.name(...)``), ``o:name`` (any other ``x.name(...)``);
        ``s:construct`` and ``s:bprop`` for a module with a class that derives from another. A superset of what its
        graph code calls, for a module whose text holds a root; read once per modification time, for the modules that
        import the one asking (``_importers_index``)."""
        try:
            status = os.stat(module_file)
        except OSError:
            return frozenset()
        known = self._root_calls_of.get(module_file)
        if known is not None and known[0] == status.st_mtime:
            return known[1]
        data = b""
        if stat.S_ISREG(status.st_mode):  # a FIFO named like a module would block the read
            try:
                with open(module_file, "rb") as handle:
                    data = handle.read()
            except OSError:
                pass
        found = _names_called_from_roots(data) if (  # "Cell": a construct inherited from a mixin
            b"construct" in data or b"bprop" in data or b"jit" in data or b"Cell" in data) else frozenset()
        self._root_calls_of[module_file] = (status.st_mtime, found)
        return found

    @staticmethod
    def _names_any(module_file: str, words: set[str]) -> bool:
        """Whether the file's text holds one of ``words`` as a word."""
        try:
            if not stat.S_ISREG(os.stat(module_file).st_mode):
                return False
            with open(module_file, "rb") as handle:
                data = handle.read()
        except OSError:
            return False
        return any(word.encode() in data and re.search(rb"\b" + re.escape(word.encode()) + rb"\b", data)
                   for word in words)

    def _imports_module(self, importer: str, module_file: str) -> bool:
        """Whether ``importer`` imports ``module_file``, or a package whose ``__init__.py`` imports it (a name the
        package re-exports)."""
        imported = imported_files(importer, tuple(self.source_roots(importer)))
        return module_file in imported or any(
            os.path.basename(other) == "__init__.py"
            and module_file in imported_files(other, tuple(self.source_roots(other))) for other in imported)

    def _graph_summary(self, module_file: str, settings: Settings) -> dict:
        """``ModuleFacts.outgoing_calls`` of the module read alone, kept for the process by file version. The facts
        the run keeps for the module (``keep_modules``) serve, unless this file's analysis is using them; those made
        here are kept in their stead, for the module's own check and the questions about it."""
        version = self._version(module_file, settings)
        if version is None:
            return {}
        key = _kept_key(module_file, settings)
        known = self._graph_summaries.get(key)
        if known is not None and known[0] == version[1]:
            return known[1]
        if module_file in self._summarising or self.facts_class is None:
            return {}
        self._summarising.add(module_file)
        kept = self._kept.get(module_file) if self._kept and version not in self._full_facts else None
        if kept is not None and (kept.checking or kept.modified != version[1] or kept.facts.settings != settings
                                 or not _kept_text_on_disk(kept, module_file)):
            kept = None
        facts = None
        try:
            if kept is not None:
                kept.checking = True  # a question about the module meanwhile reads it apart, as it would
                facts = kept.facts
                facts.renew(module_file)
                kept.analysis = self._analysis
                for recorder in self._recorders:
                    recorder.update(kept.lookups)
                facts.callers_elsewhere = False
                facts.find_graph_code()
            else:
                tree, source = self._parsed(module_file)
                facts = self.facts_class(tree, module_file, settings, source, callers_elsewhere=False)
            summary = facts.outgoing_calls()
            facts.release()
        except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
            summary = {}
            if kept is not None and self._kept.get(module_file) is kept:  # its graph code half found: read it again
                self._forget_kept(module_file)
        finally:
            self._summarising.discard(module_file)
            if facts is not None:
                facts.callers_elsewhere = True  # kept: the module's own check asks the other modules
            if kept is not None:
                kept.checking = False
        self._graph_summaries[key] = (version[1], summary)
        return summary

    def forget_listings(self) -> None:
        """List the project's files again when next asked (after files were added, in a long-lived process)."""
        self._project_listings.clear()
        self._indexes.clear()

    def project_function(self, module: "ModuleFacts", qualname: str, hops: int = 0):
        """The module-level function ``qualname`` names, seen from ``module``: ``(facts, FunctionDef)`` in this
        module or another module of the project; the MindSpore name when a project module merely re-exports one;
        else None."""
        if qualname.startswith(module.local_prefix):
            node = module.functions.get(qualname[len(module.local_prefix):])
            return (module, node) if node is not None else None
        if "." not in qualname or hops > _MAX_REEXPORT_HOPS:
            return None
        roots = self.source_roots(module.path)
        if not self._in_project(qualname.split(".", 1)[0], tuple(roots)):
            return None  # the standard library or a third-party package: never searched
        module_name, function_name = qualname.rsplit(".", 1)
        module_file = self.find_module_file(module_name, roots)
        other = self._module_facts(module_file, module.settings) if module_file else None
        if other is None:
            return None
        node = other.functions.get(function_name)
        if node is not None:
            return other, node
        reexported = other.names.get(function_name)
        if not reexported or reexported == qualname:
            return None
        if reexported == "mindspore" or reexported.startswith("mindspore."):
            return reexported
        return self.project_function(other, reexported, hops + 1)

    def project_instance_method(self, module: "ModuleFacts", qualname: str):
        """The method ``qualname`` names through a module-level instance of a project class (``registry.register``
        where the module holding ``registry`` binds ``registry = Registry()`` at module level): ``(facts of the
        class's module, FunctionDef)``, else None."""
        if "." not in qualname:
            return None
        holder, method = qualname.rsplit(".", 1)
        if holder.startswith(module.local_prefix) and "." not in holder[len(module.local_prefix):]:
            facts, name = module, holder[len(module.local_prefix):]
        elif "." in holder:
            roots = self.source_roots(module.path)
            if not self._in_project(holder.split(".", 1)[0], tuple(roots)):
                return None
            module_name, name = holder.rsplit(".", 1)
            module_file = self.find_module_file(module_name, roots)
            facts = self._module_facts(module_file, module.settings) if module_file else None
        else:
            return None
        if facts is None:
            return None
        # the binding an importer sees: the last module-level one, as the scopes answer every name
        binding = facts.scopes.lookup(name, facts.scopes.module, None)
        if binding is None or binding.kind != ASSIGNMENT or not isinstance(binding.value, ast.Call):
            return None
        built = facts.class_of_constructor(binding.value)
        if built is None or built[1] is None:
            return None
        class_qualname, info, defined_here = built
        if defined_here is None:  # a class of another module of the project
            found_class = self.project_class_facts(facts.path, class_qualname, module.settings)
            if found_class is None:
                return None
            facts, info = found_class[0], found_class[0].classes[found_class[1]]
        found = facts.method_of(info, method)  # the one answer, through the class's bases
        return (found[0], found[2]) if found else None


@dataclass(eq=False)
class KeptFacts:
    """The full facts of one module the run keeps (``ProjectIndex.keep_modules``)."""

    facts: "ModuleFacts"
    modified: float  # the file's modification time when they were made
    lookups: dict  # those made while they were built, recorded again whenever they are used
    lines: int
    analysis: int  # the last analysis that used them
    text_hash: int | None = None  # of a checked text not yet compared with the file's
    asked: bool = False  # whether another module's question used them
    checking: bool = False  # whether they are the facts of the check under way


def _frozen(value):
    """``value`` with its lists as tuples, its dicts' values alike: plain data the garbage collector lets go of,
    the same whether computed now or read back from the store's JSON."""
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(item) for item in value)
    if isinstance(value, dict):
        return {key: _frozen(item) for key, item in value.items()}
    return value


def _lookups_from(record) -> dict:
    """The lookups (``(module, roots) -> file``) a stored record (``result_cache.lookups_record``) lists."""
    return {(str(module), tuple(roots)): found for module, roots, found, _ in record or ()}


def _kept_text_on_disk(kept: KeptFacts, module_file: str) -> bool:
    """Whether facts kept from a check were made from the text the file holds (an editor may hand over unsaved
    text); compared once."""
    if kept.text_hash is None:
        return True
    try:
        same = _text_hash(read_source(module_file)) == kept.text_hash
    except OSError:
        return False
    kept.text_hash = None
    return same


# How many modules compiling a function are read for what they pass it (see ``graph_calls_into``).
_CALLERS_READ = 1
# A name called: ``name(`` or ``.name(``; ``self.name(`` (``cls.``, ``super().``) or ``self.x.name(``; a ``def``; a
# class with a base.
_CALLED_NAME_TEXT = re.compile(r"(\.?)\b(\w+)\s*\(")
_CALLED_ON_SELF_TEXT = re.compile(r"\b(?:self|cls|super\(\))\.(?:(\w+)\.)?(\w+)\s*\(")
_DEFINITION = re.compile(r"[ \t]*(?:async[ \t]+)?def[ \t]+(\w+)[ \t]*\(")
_SUBCLASS = re.compile(r"^[ \t]*class[ \t]+\w+[ \t]*\([ \t]*[\w.]", re.MULTILINE)
_WORD = re.compile(rb"\w+")


def _import_words(data: bytes) -> set[str]:
    """The words of the import statements of a module's text (``from a.b import (c, d)``: a, b, c, d)."""
    found: set[str] = set()
    start = 0
    while True:
        position = data.find(b"import", start)
        if position < 0:
            return found
        line_start = data.rfind(b"\n", 0, position) + 1
        line_end = data.find(b"\n", position)
        line_end = len(data) if line_end < 0 else line_end
        line = data[line_start:line_end].lstrip()
        if line.startswith((b"from ", b"import ")):
            if b"(" in line and b")" not in line:  # names in parentheses over lines
                close = data.find(b")", line_end)
                line_end = len(data) if close < 0 else close
                line = data[line_start:line_end]
            found.update(word.decode() for word in _WORD.findall(line))
        start = max(line_end, position + 6)


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _names_called_from_roots(data: bytes) -> frozenset[str]:
    """See ``ProjectIndex._root_calls``: read from the text, a function's code being the lines after its ``def``
    indented deeper than it."""
    text = data.decode("utf-8", errors="replace")
    lines = text.split("\n")
    indents = [len(line) - len(line.lstrip()) if line.strip() and not line.lstrip().startswith("#") else -1
               for line in lines]
    definitions: dict[str, list[tuple[int, int]]] = {}  # name -> (first line, last line + 1) of each function
    roots = []
    for number, line in enumerate(lines):
        match = _DEFINITION.match(line)
        if match is None:
            continue
        end = number + 1
        while end < len(lines) and (indents[end] < 0 or indents[end] > indents[number]):
            end += 1
        definitions.setdefault(match.group(1), []).append((number, end))
        decorated = number > 0 and lines[number - 1].lstrip().startswith("@") and "jit" in lines[number - 1]
        if match.group(1) in ("construct", "bprop") or decorated:
            roots.append((number, end))
    names: set[str] = set()
    if _SUBCLASS.search(text):
        names.update(("s:construct", "s:bprop"))  # a construct a Cell inherits from a mixin
    reached = set(roots)
    while roots:
        start, end = roots.pop()
        code = "\n".join(lines[start + 1:end])
        called = [(f"{'o' if dot else 'f'}:{name}", name) for dot, name in _CALLED_NAME_TEXT.findall(code)]
        called += [(f"{'a' if attribute else ('local' if name in definitions else 's')}:{name}", name)
                   for attribute, name in _CALLED_ON_SELF_TEXT.findall(code)]
        for marked, name in called:
            names.add(marked)
            if marked[0] in "fl":  # a function or a method of this module: its code is reached too
                for body in definitions.get(name, ()):
                    if body not in reached:
                        reached.add(body)
                        roots.append(body)
        if "self." in code:
            names.add("a:__call__")  # ``self.processor(x)``: a held object's ``__call__``
    return frozenset(names)


def _kept_summary(kept: tuple) -> ModuleSummary | None:
    return None if kept[1] is None else ModuleSummary(kept[1], kept[2])


def _text_hash(source: str) -> int:
    # flake8 hands over the lines with newlines translated: a file with \r\n line ends holds the same code
    return hash(source.replace("\r\n", "\n"))


def _source_roots_of(directory: str) -> tuple[str, ...]:
    """Above the top regular package (the ``__init__.py`` chain) and the file's own directory, then
    ``namespace_roots`` of the first: those come last, so they answer only what the first ones do not."""
    own = directory
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    return (*((directory,) if directory == own else (directory, own)), *namespace_roots(directory))


def namespace_roots(root: str) -> tuple[str, ...]:
    """Where else the modules of ``root`` (a directory modules are imported from) import namespace packages (PEP
    420: directories without ``__init__.py``) from: each directory above it up to its project's root (where
    ``pyproject.toml``, ``setup.cfg``, ``setup.py``, ``.git`` or an unpacked wheel's ``*.dist-info`` lies: the target's
    ``packaging_root``), nearest first. ``from models.base import Base`` in ``proj/models/net.py`` finds
    ``proj/models/base.py`` as Python does from ``proj``; without a project root above, there is none."""
    from ms_lint.target import packaging_root

    top = packaging_root(os.path.join(root, "__init__.py"))
    found = []
    while root != top and root.startswith(os.path.join(top, "")):
        root = os.path.dirname(root)
        found.append(root)
    return tuple(found)


def _in_project(top_level: str, roots: tuple[str, ...]) -> bool:
    return any(os.path.isdir(os.path.join(root, top_level)) or os.path.isfile(os.path.join(root, top_level + ".py"))
               for root in roots)


# The most files searched for the users of a module: a script outside any package has its own directory as its
# source root, which may be large (a home directory); past this the search stops.
_MAX_SEARCHED_FILES = 5000
_SKIPPED_DIRECTORIES = frozenset({"__pycache__", "site-packages", "node_modules", "venv", "build", "dist"})


def _list_python_files(root: str) -> tuple[tuple[str, str], ...]:
    files = []
    walked = 0  # directories and files looked at: a large tree without Python stops the walk too
    for directory, subdirectories, names in os.walk(root):
        walked += 1 + len(names)
        if walked > 10 * _MAX_SEARCHED_FILES:
            break
        subdirectories[:] = sorted(name for name in subdirectories if not name.startswith(".")
                                   and name not in _SKIPPED_DIRECTORIES and name.isidentifier())
        relative = os.path.relpath(directory, root)
        package = [] if relative == os.curdir else relative.split(os.sep)
        for name in sorted(names):
            stem, extension = os.path.splitext(name)
            if extension != ".py" or not stem.isidentifier():
                continue
            module_name = ".".join(package if stem == "__init__" else [*package, stem])
            if module_name:
                files.append((os.path.abspath(os.path.join(directory, name)), module_name))
            if len(files) >= _MAX_SEARCHED_FILES:
                return tuple(files)
    return tuple(files)


def _derives_from_an_inner_class(tree: ast.Module) -> bool:
    """Whether a class of ``tree`` names a base as an attribute of one of the module's classes."""
    classes = [node for node in preorder(tree) if node.__class__ is ast.ClassDef]
    names = {node.name for node in classes}
    for node in classes:
        for base in node.bases:
            while base.__class__ is ast.Attribute:
                base = base.value
                if base.__class__ is ast.Name and base.id in names:
                    return True
    return False


# The process's one index; the functions the model and the lint library call are its methods.
INDEX = ProjectIndex()
recording_lookups = INDEX.recording_lookups
forget_full_facts = INDEX.forget_full_facts
source_roots = INDEX.source_roots
find_module_file = INDEX.find_module_file
project_class = INDEX.project_class
project_class_facts = INDEX.project_class_facts
class_location = INDEX.class_location
project_method = INDEX.project_method
facts_of = INDEX.facts_of
answer = INDEX.answer
defined_as = INDEX.defined_as
class_answer = INDEX.class_answer
modules_naming = INDEX.modules_naming
project_function = INDEX.project_function
graph_calls_into = INDEX.graph_calls_into
project_instance_method = INDEX.project_instance_method
remember_summary = INDEX.remember_summary
keep_modules = INDEX.keep_modules
use_store = INDEX.use_store
kept_tree = INDEX.kept_tree
tree_of = INDEX.tree_of
facts_to_check = INDEX.facts_to_check
keep_checked = INDEX.keep_checked


def use_module_facts(facts_class: "type[ModuleFacts]") -> None:
    ProjectIndex.facts_class = facts_class
