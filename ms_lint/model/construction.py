"""What every place an application builds one of its classes passes to the parameters of its ``__init__``: the
constants a parameter holds in every instance (``Net(batch_norm=False)`` and ``Net()`` with the default ``False``
at each site; ``Block(drop=0.)``), so that the branches they decide (``if batch_norm:``, ``if
self.two_stage_type == "enclayer1":``, ``if drop > 0.:``, ``if self.stride != 1:``) are known never to run. Read
from the text of the application's files (``target.files_naming``): every word naming the class must be one the
model understands (its definition, an import, a call, ``super(Cls, self)``, a subclass whose ``__init__`` calls
``super().__init__(...)``, a docstring), else nothing is known; a library's class and a class no site builds have
no constants."""
from __future__ import annotations

import ast
import io
import os
import re
import sys
import tokenize
import unicodedata
from collections import Counter
from keyword import softkwlist

from ms_lint.model.project import tree_of
from ms_lint.model.syntax import FunctionNode, preorder
from ms_lint.model.values import UNKNOWN, literal
from ms_lint.target import files_naming, module_never_runs, never_run

_SWITCHES = (bool, int, float, str, type(None))  # the values that choose a branch (a tuple is kept unknown)
_MAX_TREES = 256
# file -> (the text parsed, its tree, its index; None: no Python)
_trees: dict[str, tuple[str, ast.Module | None, "_FileIndex | None"]] = {}


def constructor_constants(path: str, name: str, init: FunctionNode, tree: ast.Module | None = None,
                          fold=None) -> dict[str, object]:
    """Parameter -> the one constant (a bool, a number, a string, None) every construction site of the class
    ``name`` (defined with ``init`` in the module at ``path``) passes it or leaves at its default; parameters that
    differ or are not known are left out. With the module's ``tree``, ``fold(call, argument)`` gives what an
    argument of a site in the module folds to (``Block(drop=drop_rate)`` in an ``__init__`` every construction of
    which passes ``drop_rate=0.``), as for ``function_constants``."""
    parameters, defaults = _signature(init)
    return _constants(path, name, parameters[1:], defaults, ast.ClassDef, tree if fold is not None else None, fold)


def function_constants(path: str, function: FunctionNode, tree: ast.Module, fold) -> dict[str, object]:
    """The same for a function of the module at ``path`` (``tree``): the constant every call of it in the
    application passes each parameter; ``fold(call, argument)`` gives what an argument of a call in this module
    folds to (``_bn(64, self.res_base)`` in an ``__init__``), the other modules' arguments are read as literals."""
    parameters, defaults = _signature(function)
    return _constants(path, function.name, parameters, defaults, (ast.FunctionDef, ast.AsyncFunctionDef), tree, fold)


def _constants(path: str, name: str, parameters: list[str], defaults: dict[str, object], defining,
               tree: ast.Module | None, fold) -> dict[str, object]:
    if not parameters:
        return {}
    files = files_naming(path, name)
    if not files:
        return {}
    word = re.compile(rf"\b{re.escape(name)}\b")
    own = os.path.abspath(path)
    values: dict[str, set] = {parameter: set() for parameter in parameters}
    definitions = sites = 0
    for file, text in files:
        if not file.endswith(".py"):
            return {}  # a configuration or a script names it: built in ways the model does not read
        here = tree is not None and os.path.abspath(file) == own
        index = _index(file, text, tree if here else None)
        found = _sites_in(index, name, word, defining)
        if found is None:
            return {}
        definitions += found[0]
        unrun = _unrun_spans(file, index)
        for call in found[1]:
            if any(start <= call.lineno <= end for start, end in unrun):
                continue  # in a function or class the application never runs (``resnet101()`` nothing calls)
            passed = _passed(call, parameters, defaults, (lambda argument, call=call: fold(call, argument))
                             if here else literal)
            if passed is None:
                return {}
            sites += 1
            for parameter, value in passed.items():
                values[parameter].add(UNKNOWN if value is UNKNOWN else (_sort(value), value))
    if definitions != 1 or not sites:
        return {}
    return {parameter: next(iter(found))[1] for parameter, found in values.items()
            if len(found) == 1 and UNKNOWN not in found and type(next(iter(found))[1]) in _SWITCHES}


def _sort(value) -> type:
    """What two sites must agree on besides the value: its type, where an int and a float of one value are one
    number (``drop=0`` and the default ``drop=0.`` decide every comparison alike), and ``False`` is no ``0``."""
    return float if type(value) is int else type(value)


def _signature(function: FunctionNode) -> tuple[list[str], dict[str, object]]:
    """The parameters of a function, positional ones first, and the literal defaults."""
    arguments = function.args
    positional = [argument.arg for argument in (*arguments.posonlyargs, *arguments.args)]
    defaults: dict[str, object] = {}
    for parameter, default in zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults):
        defaults[parameter] = literal(default)
    for argument, default in zip(arguments.kwonlyargs, arguments.kw_defaults):
        if default is not None:
            defaults[argument.arg] = literal(default)
    return positional + [argument.arg for argument in arguments.kwonlyargs], defaults


def _passed(call: ast.Call, parameters: list[str], defaults: dict[str, object], value_of) -> dict[str, object] | None:
    """What one site passes each parameter (``value_of`` each argument, UNKNOWN where not known); None where
    ``*args``/``**kwargs`` hide it."""
    if any(isinstance(argument, ast.Starred) for argument in call.args) or any(
            keyword.arg is None for keyword in call.keywords):
        return None
    passed: dict[str, object] = dict(zip(parameters, (value_of(argument) for argument in call.args)))
    for keyword in call.keywords:
        if keyword.arg in parameters:
            passed[keyword.arg] = value_of(keyword.value)
    return {parameter: passed[parameter] if parameter in passed else defaults.get(parameter, UNKNOWN)
            for parameter in parameters}


def _sites_in(index: "_FileIndex | None", name: str, word: re.Pattern, defining) -> tuple[int, list[ast.Call]] | None:
    """(definitions of ``name``, the calls of it) in one Python file (its ``index``); None where the file names it
    in a way not understood (passed as a value, a base class, a string, imported under another name, not Python)."""
    if index is None:
        return None
    named = index.names.get(name)
    for node in index.strings:
        if name in node.value and _names_code(node.value, name, word):
            return None  # ``getattr(module, "Net")``, ``{"type": "Net"}``, ``eval("Net(3)")``
    understood, definitions = 0, 0
    sites: list[ast.Call] = []
    for node in index.definitions:
        if isinstance(node, defining) and node.name == name:
            definitions += 1
            understood += 1
        elif isinstance(node, ast.ClassDef) and any(_names(base, name) for base in node.bases):
            found = _subclass_sites(node, name)
            if found is None:
                return None  # built through a subclass whose construction the model does not follow
            sites.extend(found)
            understood += 1 + sum(_names(call.func.value, name) for call in found)
    for node in index.imports:
        for alias in node.names:
            if alias.name.rsplit(".", 1)[-1] == name:
                if alias.asname not in (None, name):
                    return None  # built under another name
                understood += 1 + (alias.asname == name)
    for node in index.calls:
        callee = node.func
        if _names(callee, name):
            sites.append(node)
            understood += 1
        elif isinstance(callee, ast.Name) and callee.id == "super" and node.args and isinstance(
                node.args[0], ast.Name) and node.args[0].id == name:
            understood += 1
    if named != understood:
        return None
    sites.sort(key=lambda call: (call.lineno, call.col_offset))
    return definitions, sites


def _unrun_spans(file: str, index: "_FileIndex") -> list[tuple[int, int]]:
    """The lines of the top-level functions and classes of ``file`` its application never runs (``never_run``;
    the whole file where it never runs the module): a construction there builds nothing."""
    if module_never_runs(file):
        return [(1, 1 << 62)]
    unrun = never_run(file, [name for _, _, name in index.spans]) if index.spans else frozenset()
    return [(start, end) for start, end, name in index.spans if name in unrun]


class _FileIndex:
    """What ``_sites_in`` reads of one file, found in one pass for every name asked: how often each name is written
    (``_WrittenNames``), its strings that are no docstring, its definitions, imports and calls."""

    __slots__ = ("names", "strings", "definitions", "imports", "calls", "spans")

    def __init__(self, tree: ast.Module, text: str):
        nodes = preorder(tree)
        self.names = _WrittenNames(nodes, text)
        self.strings: list[ast.Constant] = []
        self.definitions: list[ast.AST] = []
        self.imports: list[ast.AST] = []
        self.calls: list[ast.Call] = []
        # (first line, last line, name) of each top-level function and class, decorators included
        self.spans = [(min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)]),
                       node.end_lineno or node.lineno, node.name) for node in tree.body
                      if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
        docstrings = set()
        for node in nodes:  # (a parent before its children: its docstring is known before it is met)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                if not isinstance(node, ast.Module):
                    self.definitions.append(node)
                if node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant):
                    docstrings.add(id(node.body[0].value))
            elif isinstance(node, ast.Constant):
                if isinstance(node.value, str) and id(node) not in docstrings:
                    self.strings.append(node)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                self.imports.append(node)
            elif isinstance(node, ast.Call):
                self.calls.append(node)


class _WrittenNames:
    """How often the code of a file writes each name, as the tokenizer reads its text (``get``; None where the text
    does not tokenize), counted from its tree: where a keyword of some statements only may be written as the name
    (``match``, ``case``, ``_``, ``type``), or a name written with letters outside ASCII may read as it (the tree
    holds names in their NFKC form), from the tokenizer itself."""

    __slots__ = ("_counts", "_text", "_tokens", "_other_spellings")

    def __init__(self, nodes: list[ast.AST], text: str):
        self._text = text
        self._tokens: dict[str, int] | None | bool = False  # (read only where asked)
        self._other_spellings: frozenset[str] | None = None
        written: list[str] = []
        unwritten: list[str] = []  # those inside f-strings, which the tokenizer reads as strings before Python 3.12
        inner = set()
        for node in nodes:
            kind = node.__class__
            if kind is ast.Name:
                written.append(node.id)
            elif kind is ast.Attribute:
                written.append(node.attr)
            elif kind in _NAME_HOLDERS:
                written.extend(_names_of(node))
            elif kind is ast.JoinedStr and _FSTRING_NAMES_ARE_STRINGS and id(node) not in inner:
                for part in ast.walk(node):
                    if part.__class__ is ast.JoinedStr:
                        inner.add(id(part))  # (an f-string inside: its names are counted here)
                    else:
                        unwritten.extend(_names_of(part))
        self._counts = Counter(written)
        if unwritten:
            self._counts.subtract(unwritten)

    def get(self, name: str, default: int = 0) -> int | None:
        if name in _TOKENIZED or name in self._spelled_otherwise():
            if self._tokens is False:
                try:
                    self._tokens = Counter(token.string for token in tokenize.generate_tokens(
                        io.StringIO(self._text).readline) if token.type == tokenize.NAME)
                except (tokenize.TokenError, SyntaxError):
                    self._tokens = None
            return None if self._tokens is None else self._tokens.get(name, default)
        return self._counts.get(name, default)

    def _spelled_otherwise(self) -> frozenset[str]:
        """The names the tree holds for the words of the text with a letter outside ASCII."""
        if self._other_spellings is None:
            text = self._text
            self._other_spellings = frozenset() if text.isascii() else frozenset(
                unicodedata.normalize("NFKC", word) for word in _WORD_RUN.findall(text) if not word.isascii())
        return self._other_spellings


# Before Python 3.12 the tokenizer reads an f-string whole, as a string: the names of its expressions are no names.
_FSTRING_NAMES_ARE_STRINGS = sys.version_info < (3, 12)
# The names the tokenizer also gives for what the tree holds as no name: keywords of some statements only and, from
# Python 3.12, an f-string's conversions (``f"{x!r}"``).
_TOKENIZED = frozenset(softkwlist) | (frozenset() if _FSTRING_NAMES_ARE_STRINGS else frozenset("rsa"))
_WORD_RUN = re.compile(r"\w+")
# The nodes but ``Name`` and ``Attribute`` that write names (``_names_of``): a definition, a parameter, a keyword
# argument, an import, ``global``, a pattern's capture, ``except E as name``, a type parameter.
_NAMED = frozenset(getattr(ast, kind) for kind in (
    "FunctionDef", "AsyncFunctionDef", "ClassDef", "ExceptHandler", "MatchAs", "MatchStar", "TypeVar", "ParamSpec",
    "TypeVarTuple") if hasattr(ast, kind))
_NAME_HOLDERS = _NAMED | {ast.arg, ast.keyword, ast.alias, ast.ImportFrom, ast.Global, ast.Nonlocal, ast.MatchClass,
                          ast.MatchMapping}


def _names_of(node: ast.AST) -> list[str]:
    """The names ``node`` writes (none for a node that writes none)."""
    kind = node.__class__
    if kind is ast.Name:
        return [node.id]
    if kind is ast.Attribute:
        return [node.attr]
    if kind is ast.arg:
        return [node.arg]
    if kind is ast.keyword:
        return [] if node.arg is None else [node.arg]
    if kind is ast.alias:
        return [*(node.name.split(".") if node.name != "*" else ()), *((node.asname,) if node.asname else ())]
    if kind is ast.ImportFrom:
        return node.module.split(".") if node.module else []
    if kind is ast.Global or kind is ast.Nonlocal:
        return list(node.names)
    if kind is ast.MatchClass:
        return list(node.kwd_attrs)
    if kind is ast.MatchMapping:
        return [node.rest] if node.rest else []
    if kind in _NAMED:
        return [node.name] if node.name else []
    return []


def _names(expr: ast.AST, name: str) -> bool:
    """``Net`` or ``model.Net``."""
    return (isinstance(expr, ast.Name) and expr.id == name) or (isinstance(expr, ast.Attribute) and expr.attr == name)


def _subclass_sites(subclass: ast.ClassDef, name: str) -> list[ast.Call] | None:
    """The calls by which a subclass of ``name`` (its first base) builds its base: each ``super().__init__(...)``,
    ``super(Sub, self).__init__(...)`` or ``Net.__init__(self, ...)`` of its own ``__init__``, as a call of the
    class (``Net.__init__``'s instance left out); None where another base comes first, the subclass keeps the
    base's ``__init__`` (its own construction sites build the base), or names the base another way."""
    if not _names(subclass.bases[0], name) or sum(_names(base, name) for base in subclass.bases) != 1:
        return None
    init = next((statement for statement in subclass.body if isinstance(statement, ast.FunctionDef)
                 and statement.name == "__init__"), None)
    if init is None:
        return None
    sites = []
    for node in ast.walk(init):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "__init__"):
            continue
        receiver = node.func.value
        if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name) and receiver.func.id == "super" and (
                not receiver.args or (isinstance(receiver.args[0], ast.Name) and receiver.args[0].id == subclass.name)):
            sites.append(node)
        elif _names(receiver, name) and node.args and not isinstance(node.args[0], ast.Starred):
            sites.append(ast.copy_location(ast.Call(func=node.func, args=node.args[1:], keywords=node.keywords), node))
    return sites


def _names_code(value: str, name: str, word: re.Pattern) -> bool:
    """Whether a string may name the class or function to code that builds it: the name alone, in a dotted path
    (``"src.model.Net"``) or called (``"Net(3)"``); prose that mentions it (``"Net is ResNet when ..."``) does not."""
    return bool(word.search(value)) and (re.fullmatch(r"[\w.:/-]+", value.strip()) is not None
                                         or f"{name}(" in value)


def _index(file: str, text: str, tree: ast.Module | None = None) -> _FileIndex | None:
    """The index of a file's ``text`` (parsed here unless its ``tree`` is given); None where it is no Python."""
    known = _trees.get(file)
    if known is not None and known[0] is text and (tree is None or known[1] is tree):
        return known[2]
    if tree is None:
        tree = tree_of(file, text)  # parsed once per run, and handed to the file's own check
    index = _FileIndex(tree, text) if tree is not None else None
    if len(_trees) >= _MAX_TREES:
        _trees.clear()
    _trees[file] = (text, tree, index)
    return index
