"""What every place an application builds one of its classes passes to the parameters of its ``__init__``: the
constants a parameter holds in every instance (``Net(batch_norm=False)`` and ``Net()`` with the default ``False``
at each site), so that the branches they decide (``if batch_norm:``, ``if self.two_stage_type == "enclayer1":``) are
known never to run. Read from the text of the application's files (``target.files_naming``): every word naming the
class must be one the model understands (its definition, an import, a call, ``super(Cls, self)``, a docstring), else
nothing is known; a library's class and a class no site builds have no constants."""
from __future__ import annotations

import ast
import io
import os
import re
import tokenize

from ms_lint.model.project import tree_of
from ms_lint.model.syntax import FunctionNode, preorder
from ms_lint.model.values import UNKNOWN, literal
from ms_lint.target import files_naming

_SWITCHES = (bool, str, type(None))  # the values that choose a branch (a number is a size, kept unknown)
_MAX_READ = 256
# text -> how often each word occurs in it as a name (None: it does not tokenize); id(tree) -> (the tree, the nodes
# of the types ``_sites_in`` reads, in pre-order): each file's once
_names: dict[str, dict[str, int] | None] = {}
_nodes: dict[int, tuple[ast.Module, list[ast.AST]]] = {}
_READ_TYPES = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef, ast.Constant, ast.Import,
               ast.ImportFrom, ast.Call)


def constructor_constants(path: str, name: str, init: FunctionNode) -> dict[str, object]:
    """Parameter -> the one switch (a bool, a string, None) every construction site of the class ``name`` (defined
    with ``init`` in the module at ``path``) passes it or leaves at its default; parameters that differ or are not
    known are left out."""
    parameters, defaults = _signature(init)
    return _constants(path, name, parameters[1:], defaults, ast.ClassDef, None, None)


def function_constants(path: str, function: FunctionNode, tree: ast.Module, fold) -> dict[str, object]:
    """The same for a function of the module at ``path`` (``tree``): the switch every call of it in the
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
        found = _sites_in(tree if here else _tree(file, text), text, name, word, defining)
        if found is None:
            return {}
        definitions += found[0]
        for call in found[1]:
            passed = _passed(call, parameters, defaults, (lambda argument, call=call: fold(call, argument))
                             if here else literal)
            if passed is None:
                return {}
            sites += 1
            for parameter, value in passed.items():
                values[parameter].add(UNKNOWN if value is UNKNOWN else (type(value), value))
    if definitions != 1 or not sites:
        return {}
    return {parameter: next(iter(found))[1] for parameter, found in values.items()
            if len(found) == 1 and UNKNOWN not in found and next(iter(found))[0] in _SWITCHES}


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


def _sites_in(tree: ast.Module | None, text: str, name: str, word: re.Pattern,
              defining) -> tuple[int, list[ast.Call]] | None:
    """(definitions of ``name``, the calls of it) in one Python file; None where the file names it in a way not
    understood (passed as a value, a base class, a string, imported under another name, not Python)."""
    if tree is None:
        return None
    understood, definitions = 0, 0
    sites: list[ast.Call] = []
    docstrings = set()
    for node in _nodes_of(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body and (
                isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)):
            docstrings.add(id(node.body[0].value))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and name in node.value and (
                id(node) not in docstrings and _names_code(node.value, name, word)):
            return None  # ``getattr(module, "Net")``, ``{"type": "Net"}``, ``eval("Net(3)")``
        if isinstance(node, defining) and node.name == name:
            definitions += 1
            understood += 1
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name.rsplit(".", 1)[-1] == name:
                    if alias.asname not in (None, name):
                        return None  # built under another name
                    understood += 1 + (alias.asname == name)
        elif isinstance(node, ast.Call):
            callee = node.func
            if (isinstance(callee, ast.Name) and callee.id == name) or (
                    isinstance(callee, ast.Attribute) and callee.attr == name):
                sites.append(node)
                understood += 1
            elif isinstance(callee, ast.Name) and callee.id == "super" and node.args and isinstance(
                    node.args[0], ast.Name) and node.args[0].id == name:
                understood += 1
    names = _names_in(text)  # every word that is a name must be one of those understood
    if names is None or names.get(name, 0) != understood:
        return None
    return definitions, sites


def _names_code(value: str, name: str, word: re.Pattern) -> bool:
    """Whether a string may name the class or function to code that builds it: the name alone, in a dotted path
    (``"src.model.Net"``) or called (``"Net(3)"``); prose that mentions it (``"Net is ResNet when ..."``) does not."""
    return bool(word.search(value)) and (re.fullmatch(r"[\w.:/-]+", value.strip()) is not None
                                         or f"{name}(" in value)


def _tree(file: str, text: str) -> ast.Module | None:
    return tree_of(file, text)


def _names_in(text: str) -> dict[str, int] | None:
    known = _names.get(text, _names)
    if known is not _names:
        return known
    found: dict[str, int] | None = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.NAME:
                found[token.string] = found.get(token.string, 0) + 1
    except (tokenize.TokenError, SyntaxError):
        found = None
    if len(_names) >= _MAX_READ:
        _names.clear()
    _names[text] = found
    return found


def _nodes_of(tree: ast.Module) -> list[ast.AST]:
    known = _nodes.get(id(tree))
    if known is not None and known[0] is tree:
        return known[1]
    found = [node for node in preorder(tree) if isinstance(node, _READ_TYPES)]
    if len(_nodes) >= _MAX_READ:
        _nodes.clear()
    _nodes[id(tree)] = (tree, found)
    return found
