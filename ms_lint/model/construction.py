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
from collections.abc import Iterator
from keyword import softkwlist

from ms_lint.model.configuration import argument_values, value_sort
from ms_lint.model.project import tree_of
from ms_lint.model.syntax import FunctionNode, instance_parameter, module_preorder, self_attribute
from ms_lint.model.values import UNKNOWN, literal
from ms_lint.target import application_modules, files_naming, lookups_followed, module_never_runs, never_run

_SWITCHES = (bool, int, float, str, type(None))  # the values that choose a branch (a tuple is kept unknown)


class _NoKeywords(dict):
    """What a ``**kwargs`` parameter holds where no call passes it a keyword: an empty mapping, which a call that
    forwards it (``Net(layers, **kwargs)``) passes nothing by."""

    __hash__ = object.__hash__

    def __setitem__(self, key, value):
        raise TypeError("read only")


NO_KEYWORDS = _NoKeywords()


class OneOf(frozenset):
    """The values (``(type, value)`` pairs) a parameter holds where the places that pass it differ but each one's
    values are known (``get_generator(args.model_type)`` with the option's ``choices``, ``get_generator("DBPN")``
    elsewhere): a branch that each of them decides alike is decided (``FunctionKinds``)."""


_MAX_CHOICES = 16
_MAX_TREES = 256
# file -> (the text parsed, its tree, its index; None: no Python)
_trees: dict[str, tuple[str, ast.Module | None, "_FileIndex | None"]] = {}


def constructor_constants(path: str, name: str, init: FunctionNode, tree: ast.Module | None = None,
                          fold=None, dead=None) -> dict[str, object]:
    """Parameter -> the one constant (a bool, a number, a string, None) every construction site of the class
    ``name`` (defined with ``init`` in the module at ``path``) passes it or leaves at its default, or the ``OneOf``
    its sites pass where they differ but each is known; parameters not known are left out. With the module's
    ``tree``, ``fold(call, argument)`` gives what an argument of a site in the module folds to
    (``Block(drop=drop_rate)`` in an ``__init__`` every construction of which passes ``drop_rate=0.``), and
    ``dead(call)`` whether the site lies in a branch no caller runs, as for ``function_constants``."""
    parameters, defaults = _signature(init)
    if not parameters[1:] and init.args.kwarg is None:
        return {}
    return _constants(_sites(path, name, ast.ClassDef, tree if fold is not None else None, dead), parameters[1:],
                      defaults, fold, _forwarded_keywords(init))


def function_constants(path: str, function: FunctionNode, tree: ast.Module, fold, dead=None) -> dict[str, object]:
    """The same for a function of the module at ``path`` (``tree``): the constant every call of it in the
    application passes each parameter; ``fold(call, argument)`` gives what an argument of a call in this module
    folds to (``_bn(64, self.res_base)`` in an ``__init__``), the other modules' arguments are read as literals and
    configuration attributes (``Net(non_local=config.non_local)``: ``configuration.argument_value``); a call in a
    branch of this module that ``dead(call)`` says no caller runs passes nothing."""
    parameters, defaults = _signature(function)
    if not parameters and function.args.kwarg is None:
        return {}
    return _constants(_sites(path, function.name, (ast.FunctionDef, ast.AsyncFunctionDef), tree, dead), parameters,
                      defaults, fold, _forwarded_keywords(function))


def construction_sites(path: str, name: str, defining) -> tuple[list[tuple[str, ast.Call, str | None]], int] | None:
    """Every place the application builds the class (``defining``: ``ast.ClassDef``) or calls the function
    ``name`` of the module at ``path`` in code it may run: (the file, the call, the top-level class or function of
    that file around it, None at its top level), with how many sites lie in code the application never runs
    (``never_run``); None where the application names it in a way the model does not read (as for
    ``constructor_constants``)."""
    found = _sites(path, name, defining, None, None)
    return None if found is None else ([(file, call, around) for file, call, _, around in found[0]], found[1])


_NAMESPACE_WRITE = re.compile(r"(?:__dict__|\bvars\([^)]*\))\s*(?:\.update\(|\[)")


def attribute_writes(path: str, attribute: str, lineage: frozenset[str] | None = None) -> int | None:
    """How many places of the application that uses the module at ``path`` write (or delete) an attribute called
    ``attribute`` of any object (``self.mode = mode``, ``metric.mode = "x"``); None where one may be written in a
    way not counted: ``setattr`` with that name or a name computed, ``__setattr__``, an instance's ``__dict__``
    written, a file that is no Python or does not parse, or no application's files to read. ``lineage``: the names
    of the class whose instances are asked about and of all its bases, where they are all known; a write on the
    instance of another class's method (``self.mode = "train"`` in a dataset, ``setattr(self, key, value)`` in a
    configuration class) sets none of them and is not counted."""
    files = files_naming(path, attribute)
    if files is None:
        return None
    for word in ("setattr", "__setattr__", "__dict__", "vars"):
        for file, text in files_naming(path, word) or ():
            if word == "setattr":
                index = _index(file, text) if file.endswith(".py") else None
                tree = _trees[file][1] if index is not None else None
                others = index.other_instances(lineage) if tree is not None else set()
                if tree is None or any(
                        isinstance(node.func, ast.Name) and node.func.id == "setattr"
                        and id(node) not in others
                        and (len(node.args) < 2 or literal(node.args[1]) in (UNKNOWN, attribute))
                        for node in index.calls):
                    return None
            elif word == "__setattr__" or _NAMESPACE_WRITE.search(text) and _writes_a_namespace(file, text, lineage):
                return None
    count = 0
    for file, text in files:
        if not file.endswith(".py"):
            continue  # (a configuration names it: a loader writes it only through the ways counted above)
        index = _index(file, text)
        tree = _trees[file][1] if index is not None else None
        if tree is None:
            return None
        others = index.other_instances(lineage)
        count += sum(id(node) not in others for node in index.attribute_stores(tree).get(attribute, ()))
    return count


_NAMESPACE_METHODS = frozenset({"update", "setdefault", "__setitem__", "__delitem__", "pop", "popitem", "clear"})


def _writes_a_namespace(file: str, text: str, lineage: frozenset[str] | None) -> bool:
    """Whether ``file`` may write an object's ``__dict__`` (``args.__dict__.update(cfg)``, ``vars(obj)[k] = v``)
    other than the instance of another class's method; a read (``models.__dict__[name]``) writes none. True for
    a file that is no Python or does not parse."""
    index = _index(file, text) if file.endswith(".py") else None
    tree = _trees[file][1] if index is not None else None
    if tree is None:
        return True

    def namespace(node: ast.AST) -> ast.AST | None:
        """The object whose namespace ``node`` is (``obj`` of ``obj.__dict__`` or ``vars(obj)``)."""
        if isinstance(node, ast.Attribute) and node.attr == "__dict__":
            return node.value
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "vars" and node.args:
            return node.args[0]
        return None

    others = index.other_instances(lineage)
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and not isinstance(node.ctx, ast.Load):
            owner = namespace(node.value)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
                node.func.attr in _NAMESPACE_METHODS):
            owner = namespace(node.func.value)
        else:
            continue
        if owner is not None and id(node) not in others and not _parsed_arguments(tree, owner):
            return True
    return False


_PARSING = frozenset({"parse_args", "parse_known_args", "parse_intermixed_args", "Namespace"})


def _parsed_arguments(tree: ast.Module, owner: ast.AST) -> bool:
    """Whether ``owner`` is a name that the file ``tree`` binds only to what an argparse parser returns
    (``args = parser.parse_args()``, ``args, _ = parser.parse_known_args()``, ``argparse.Namespace(...)``) or to
    None, in any scope, and that no function takes as a parameter: an ``argparse.Namespace``, whose ``__dict__`` written
    (``args.__dict__.update(yaml_dict)``) sets no attribute of any other class's instances."""
    if not isinstance(owner, ast.Name):
        return False
    name, bound = owner.id, False
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and any(
                argument.arg == name for argument in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs,
                                                      *filter(None, (node.args.vararg, node.args.kwarg)))):
            return False
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load) and node.id == name:
            bound = True
        elif isinstance(node, (ast.Import, ast.ImportFrom)) and any(
                (alias.asname or alias.name.split(".")[0]) == name for alias in node.names):
            return False
    if not bound:
        return False
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and target.id == name:
                    if not (_parses(node.value) or isinstance(node.value, ast.Constant) and node.value.value is None):
                        return False
                elif any(isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store) and inner.id == name
                         for inner in ast.walk(target)):
                    if not (isinstance(target, ast.Tuple) and isinstance(target.elts[0], ast.Name)
                            and target.elts[0].id == name and _parses(node.value, known=True)):
                        return False
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)) and any(
                isinstance(inner, ast.Name) and inner.id == name for inner in ast.walk(node.target)):
            return False
        elif isinstance(node, ast.withitem) and node.optional_vars is not None and any(
                isinstance(inner, ast.Name) and inner.id == name for inner in ast.walk(node.optional_vars)):
            return False
        elif isinstance(node, ast.ExceptHandler) and node.name == name:
            return False
    return True


def _parses(value: ast.AST | None, known: bool = False) -> bool:
    """Whether ``value`` is a call of a parser's ``parse_args`` (or, ``known``, ``parse_known_args``, whose first
    element is the namespace) or of ``argparse.Namespace``."""
    if not isinstance(value, ast.Call):
        return False
    function = value.func
    called = function.attr if isinstance(function, ast.Attribute) else function.id if isinstance(
        function, ast.Name) else None
    return called in _PARSING and (known or called != "parse_known_args")


def _on_other_instances(classes: list[ast.ClassDef], lineage: frozenset[str] | None) -> set[int]:
    """The ids of the writes in a file (its ``classes``, nested ones included) that set an attribute of the
    instance of a method of a class outside ``lineage`` (``self.mode = mode``, ``setattr(self, key, value)``): that
    class's instances (and its subclasses'), never one of the lineage's. Empty where ``lineage`` is None."""
    others: set[int] = set()
    if lineage is None:
        return others
    for node in classes:
        if node.name in lineage:
            continue
        for method in node.body:
            instance = instance_parameter(method) if isinstance(
                method, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
            if instance is None:
                continue
            for write in ast.walk(method):
                if isinstance(write, ast.Call) and isinstance(write.func, ast.Name) and write.func.id == "setattr" \
                        and write.args and isinstance(write.args[0], ast.Name) and write.args[0].id == instance \
                        or isinstance(write, ast.Attribute) and not isinstance(write.ctx, ast.Load) \
                        and self_attribute(write, instance) is not None \
                        or _on_namespace_of(write, instance):
                    others.add(id(write))
    for node in classes:  # (a class of the lineage defined inside another's method keeps its writes)
        if node.name in lineage:
            others.difference_update(id(write) for write in ast.walk(node))
    return others


def _on_namespace_of(write: ast.AST, instance: str) -> bool:
    """Whether ``write`` is ``<instance>.__dict__[k] = v`` or ``<instance>.__dict__.update(...)``."""
    target = write.value if isinstance(write, ast.Subscript) and not isinstance(write.ctx, ast.Load) else \
        write.func.value if isinstance(write, ast.Call) and isinstance(write.func, ast.Attribute) else None
    return target is not None and self_attribute(target, instance) == "__dict__"


def _sites(path: str, name: str, defining, tree: ast.Module | None, dead):
    """([(the file, a site that builds or calls ``name`` and may run, whether the file is the module itself, the
    top-level definition of the file around the site)], how many sites are left out as never run); None where a
    file names it in a way not read, or the definitions are not one."""
    files = files_naming(path, name)
    if not files:
        return None
    word = re.compile(rf"\b{re.escape(name)}\b")
    own = os.path.abspath(path)
    modules = application_modules(path) or frozenset()
    follows = lookups_followed(path)
    exports_read = _exports_read(path)
    sites: list[tuple[str, ast.Call, bool, str | None]] = []
    definitions = unrun_sites = 0
    quoted = decorated = False
    for file, text in files:
        if not file.endswith(".py"):
            return None  # a configuration or a script names it: built in ways the model does not read
        here = tree is not None and os.path.abspath(file) == own
        index = _index(file, text, tree if here else None)
        found = _sites_in(index, name, word, defining, modules, follows,
                          None if os.path.abspath(file) == own else (file, own), exports_read)
        if found is None:
            return None
        definitions += found[0]
        quoted, decorated = quoted or found[2], decorated or found[3]
        unrun = _unrun_spans(file, index)
        for call in found[1]:
            if any(start <= call.lineno <= end for start, end in unrun) or (
                    here and dead is not None and dead(call)):
                unrun_sites += 1  # in code the application never runs (``resnet101()`` nothing calls)
                continue
            around = next((block for start, end, block in index.spans if start <= call.lineno <= end), None)
            sites.append((file, call, here, around))
    if definitions != 1 or (quoted and decorated):
        return None  # a decorator may register it, and the string find it
    return sites, unrun_sites


def _exports_read(path: str) -> bool:
    """Whether a file of the application that uses the module at ``path`` may read a module's ``__all__`` (as a
    value: ``module.__all__``, ``for name in __all__``), or the files are not known."""
    files = files_naming(path, "__all__")
    if files is None:
        return True
    for file, text in files:
        index = _index(file, text) if file.endswith(".py") else None
        if index is None or index.reads_exports:
            return True
    return False


def _constants(found, parameters: list[str], defaults: dict[str, object], fold,
               keywords: ast.arg | None = None) -> dict[str, object]:
    """The constants of ``parameters`` over the sites ``found``; ``NO_KEYWORDS`` for the ``**keywords``
    parameter where no site passes a keyword that none of ``parameters`` takes."""
    if not found or not found[0]:
        return {}
    values: dict[str, set] = {parameter: set() for parameter in parameters}
    extra = False
    for file, call, here, _ in found[0]:
        value_of = ((lambda argument, call=call: fold(call, argument)) if here
                    else (lambda argument, file=file: _one_of(argument_values(file, _bound_once(file, argument)))))
        passed = _passed(call, parameters, defaults, value_of)
        if passed is None:
            return {}
        extra = extra or any(keyword.arg not in parameters for keyword in call.keywords if keyword.arg is not None)
        for parameter, value in passed.items():
            if isinstance(value, OneOf):
                values[parameter].update(value)
            else:
                values[parameter].add(UNKNOWN if value is UNKNOWN else (value_sort(value), value))
    constants: dict[str, object] = {}
    for parameter, found in values.items():
        if UNKNOWN in found or not all(type(value) in _SWITCHES for _, value in found):
            continue
        if len(found) == 1:
            constants[parameter] = next(iter(found))[1]
        elif len(found) <= _MAX_CHOICES:
            constants[parameter] = OneOf(found)
    if keywords is not None and not extra:
        constants[keywords.arg] = NO_KEYWORDS
    return constants


def _bound_once(file: str, argument: ast.expr) -> ast.expr:
    """What a name passed as an argument in ``file`` holds where the file binds it once, by ``name = value``
    (``model = args.model_type`` then ``get_generator(model)``: any read of it that does not fail sees that value);
    else the argument itself."""
    known = _trees.get(file)
    if not isinstance(argument, ast.Name) or known is None or known[1] is None:
        return argument
    stores, values, bound = known[2].bindings(known[1])
    name = argument.id
    if bound is None or name in bound:
        return argument  # a parameter, an import, a definition, ``global``, ``except ... as``; or ``import *``
    value = values.get(name)
    return value if stores.get(name) == 1 and value is not None else argument


def _bound_names(node: ast.AST) -> tuple[str, ...] | None:
    """The names ``node`` binds by no ``ast.Name`` target; None for ``from module import *`` (every name)."""
    if isinstance(node, ast.arg):
        return (node.arg,)
    if isinstance(node, ast.alias):
        return None if node.name == "*" else (node.asname or node.name.split(".")[0],)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ExceptHandler, ast.MatchAs,
                         ast.MatchStar)):
        return (node.name,) if node.name is not None else ()
    return tuple(node.names) if isinstance(node, (ast.Global, ast.Nonlocal)) else ()


def _one_of(values):
    """One value where a run can hold only one, the values where it can hold several, else UNKNOWN."""
    if values is UNKNOWN:
        return UNKNOWN
    return next(iter(values))[1] if len(values) == 1 else OneOf(values)


def _forwarded_keywords(function: FunctionNode) -> ast.arg | None:
    """The ``**kwargs`` parameter of ``function`` where its body only forwards it whole (``Net(**kwargs)``): a use
    of it otherwise (``kwargs["mode"] = "x"``, ``kwargs.pop(...)``, a nested function) may fill it."""
    keywords = function.args.kwarg
    if keywords is None:
        return None
    forwarded = {id(keyword.value) for node in ast.walk(function) if isinstance(node, ast.Call)
                 for keyword in node.keywords if keyword.arg is None}
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and node.id == keywords.arg and id(node) not in forwarded:
            return None
        if node is not function and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return None
    return keywords


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
    ``*args``/``**kwargs`` hide it (but a ``**kwargs`` that holds no keyword at any call: ``NO_KEYWORDS``)."""
    if any(isinstance(argument, ast.Starred) for argument in call.args) or any(
            keyword.arg is None and value_of(keyword.value) is not NO_KEYWORDS for keyword in call.keywords):
        return None
    passed: dict[str, object] = dict(zip(parameters, (value_of(argument) for argument in call.args)))
    for keyword in call.keywords:
        if keyword.arg in parameters:
            passed[keyword.arg] = value_of(keyword.value)
    return {parameter: passed[parameter] if parameter in passed else defaults.get(parameter, UNKNOWN)
            for parameter in parameters}


def _sites_in(index: "_FileIndex | None", name: str, word: re.Pattern, defining, modules: frozenset[str],
              follows: bool = False, other: tuple[str, str] | None = None,
              exports_read: bool = True) -> tuple[int, list[ast.Call], bool, bool] | None:
    """(definitions of ``name``, the calls of it, whether a string names it, whether a definition of it is
    decorated) in one Python file (its ``index``); None where the file names it
    in a way not understood (passed as a value, a base class, a string, imported under another name or from
    another package, not Python). ``name`` read from a module of another package (``nn.Cell`` after ``import
    mindspore.nn as nn``: the first name of the import is none of the application's ``modules``) is another class.
    A string only compared (``args.net == "Net"``) or offered (``choices=["Net"]``) names it to nothing where the
    application looks no name up as its text cannot follow (``follows``) and no decorator registers it. In a file
    of another module (``other``: (that file, the module's own)), ``from .net_a import Net as NetA`` builds it as
    ``NetA(...)`` where that import names the module, and a file that defines its own top-level ``name`` names
    that one (but where it imports ``name`` unrenamed or with ``*``). A string passed to a parameter its function
    never reads names nothing, nor one of a module's ``__all__`` where no file reads ``__all__`` (``exports_read``
    False): ``from module import *`` binds the name, which its users then write."""
    if index is None:
        return None
    named = index.names.get(name)  # (None: the text does not tokenize)
    foreign = index.foreign_names(modules)
    if name in foreign:
        return None  # the file's own ``name`` is another package's class
    understood = sum(root in foreign for attribute, root in index.qualified if attribute == name) + (
        index.annotating.get(name, 0))
    quoted = decorated = False
    for node in index.strings:
        if name in node.value and _names_code(node.value, name, word):
            if id(node) in index.unread or not exports_read and id(node) in index.exported:
                continue  # (no code reads it: ``_resnet("resnet18", ...)``, ``__all__`` no code reads)
            if not follows or id(node) not in index.inert:
                return None  # ``getattr(module, "Net")``, ``{"type": "Net"}``, ``eval("Net(3)")``
            quoted = True
    if other is not None and _defines_own(other[0], name, defining):
        renamed = _renamed_only(index, name, other)
        return None if renamed is None else (0, renamed, quoted, False)
    definitions = 0
    sites: list[ast.Call] = []
    for node in index.definitions:
        if isinstance(node, defining) and node.name == name:
            definitions += 1
            decorated = decorated or bool(node.decorator_list)
            understood += 1
        elif isinstance(node, ast.ClassDef) and any(_names(base, name, foreign) for base in node.bases):
            found = _subclass_sites(node, name, foreign)
            if found is None:
                return None  # built through a subclass whose construction the model does not follow
            sites.extend(found)
            understood += 1 + sum(_names(call.func.value, name, foreign) for call in found)
    for node in index.imports:
        for alias in node.names:
            if alias.name.rsplit(".", 1)[-1] == name:
                if alias.asname not in (None, name):
                    renamed = _renamed_sites(index, node, alias, other)
                    if renamed is None:
                        return None  # built under another name
                    sites.extend(renamed)
                    understood += 1
                    continue
                understood += 1 + (alias.asname == name)
    for node in index.calls:
        callee = node.func
        if _names(callee, name, foreign):
            sites.append(node)
            understood += 1
        elif isinstance(callee, ast.Name) and callee.id == "super" and node.args and isinstance(
                node.args[0], ast.Name) and node.args[0].id == name:
            understood += 1
    if named != understood:
        return None
    sites.sort(key=lambda call: (call.lineno, call.col_offset))
    return definitions, sites, quoted, decorated


def _defines_own(file: str, name: str, defining) -> bool:
    """Whether ``file`` (indexed) defines a top-level ``name`` of its own (``defining``: a class or a function)."""
    tree = _trees[file][1] if file in _trees else None
    return tree is not None and any(isinstance(node, defining) and node.name == name for node in tree.body)


def _renamed_only(index: "_FileIndex", name: str, other: tuple[str, str]) -> list[ast.Call] | None:
    """The sites in a file that defines its own ``name``: only those of an import that renames the module's own
    (``from .net_a import Net as NetA``); None where it imports ``name`` unrenamed or with ``*``."""
    sites: list[ast.Call] = []
    for node in index.imports:
        for alias in node.names:
            if alias.name == "*":
                return None
            if alias.name.rsplit(".", 1)[-1] == name:
                if alias.asname in (None, name):
                    return None
                renamed = _renamed_sites(index, node, alias, other)
                if renamed is None:
                    return None
                sites.extend(renamed)
    return sorted(sites, key=lambda call: (call.lineno, call.col_offset))


def _renamed_sites(index: "_FileIndex", node: ast.AST, alias: ast.alias, other: tuple[str, str] | None):
    """The calls of ``alias.asname`` where ``from module import name as asname`` (``node``) imports the module's
    own class (``other``: (this file, the module's)); none where it imports another module's; None where the
    module is not found or the new name is used but in calls and that import."""
    if other is None or not isinstance(node, ast.ImportFrom):
        return None
    file, own = other
    found = _import_targets(file, node)
    if not found:
        return None
    if own not in found:
        return []  # another module's class of that name
    if len(found) > 1:
        return None
    calls = [call for call in index.calls if isinstance(call.func, ast.Name) and call.func.id == alias.asname]
    if index.names.get(alias.asname, 0) != 1 + len(calls) or any(
            isinstance(definition, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and definition.name == alias.asname for definition in index.definitions):
        return None  # ``NetA`` passed as a value, bound again, or imported twice
    return calls


def _import_targets(file: str, node: ast.ImportFrom) -> set[str]:
    """The files ``from module import ...`` in ``file`` may import: a relative import's one; an absolute one's
    module found from the file's folder or a folder above it (where a run of the application may start)."""
    folder = os.path.dirname(os.path.abspath(file))
    if node.level:
        for _ in range(node.level - 1):
            folder = os.path.dirname(folder)
        roots = [folder]
    else:
        roots = [folder]
        for _ in range(6):
            parent = os.path.dirname(roots[-1])
            if parent == roots[-1]:
                break
            roots.append(parent)
    found = set()
    for root in roots:
        parts = (node.module or "").split(".") if node.module else []
        if not all(parts):
            return set()
        base = os.path.join(root, *parts)
        for candidate in (os.path.join(base, "__init__.py"), base + ".py"):
            if os.path.isfile(candidate):
                found.add(os.path.abspath(candidate))
                break
    return found


def _unrun_spans(file: str, index: "_FileIndex") -> list[tuple[int, int]]:
    """The lines of the top-level functions and classes of ``file`` its application never runs (``never_run``;
    the whole file where it never runs the module): a construction there builds nothing. Found once per index."""
    if index.unrun is None or index.unrun[0] != file:
        if module_never_runs(file):
            spans = [(1, 1 << 62)]
        else:
            unrun = never_run(file, [name for _, _, name in index.spans]) if index.spans else frozenset()
            spans = [(start, end) for start, end, name in index.spans if name in unrun]
        index.unrun = (file, spans)
    return index.unrun[1]


# The nodes whose docstrings ``_FileIndex`` passes over.
_DEFINITIONS = frozenset({ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef})


class _FileIndex:
    """What ``_sites_in`` reads of one file, found in one pass for every name asked: how often each name is written
    (``_WrittenNames``), its strings that are no docstring, its definitions, imports and calls."""

    __slots__ = ("names", "strings", "definitions", "imports", "calls", "spans", "qualified", "_imported", "inert",
                 "_bindings", "unrun", "_attribute_stores", "_other_instances", "exported", "unread", "reads_exports",
                 "annotating")

    def __init__(self, tree: ast.Module, text: str):
        nodes = module_preorder(tree)
        self.names = _WrittenNames(nodes, text)
        self.strings: list[ast.Constant] = []
        self.definitions: list[ast.AST] = []
        self.imports: list[ast.AST] = []
        self.calls: list[ast.Call] = []
        self.qualified: list[tuple[str, str | None]] = []  # (attribute, the name its chain starts from)
        self._imported: dict[str, str] | None = None
        self._bindings: tuple[Counter, dict[str, ast.expr], frozenset[str] | None] | None = None
        self.inert: set[int] = set()  # the strings only compared or offered as a command line's choices
        self.unrun: tuple[str, list[tuple[int, int]]] | None = None  # (the file, ``_unrun_spans``)
        self._attribute_stores: dict[str, list[ast.Attribute]] | None = None
        self._other_instances: dict[frozenset[str] | None, set[int]] = {}
        # (first line, last line, name) of each top-level function and class, decorators included
        self.spans = [(min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)]),
                       node.end_lineno or node.lineno, node.name) for node in tree.body
                      if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
        docstrings = set()
        for node in nodes:  # (a parent before its children: its docstring is known before it is met)
            kind = node.__class__
            if kind is ast.Attribute:
                self.qualified.append((node.attr, _root(node)))
            elif kind is ast.Call:
                self.calls.append(node)
                if node.keywords:
                    self.inert.update(id(element) for keyword in node.keywords if keyword.arg == "choices" and (
                        isinstance(keyword.value, (ast.List, ast.Tuple, ast.Set))) for element in keyword.value.elts)
                if isinstance(node.func, ast.Attribute) and node.func.attr == "join" and isinstance(
                        node.func.value, ast.Constant):  # ``"_".join(["TSM", ...])``: pieces of a text, no code
                    docstrings.update(id(piece) for argument in node.args if isinstance(argument, (ast.List, ast.Tuple))
                                      for piece in argument.elts)
            elif kind is ast.Constant:
                if isinstance(node.value, str) and id(node) not in docstrings:
                    self.strings.append(node)
            elif kind is ast.Compare:
                self.inert.update(id(operand) for operand in (node.left, *node.comparators))
            elif kind is ast.Import or kind is ast.ImportFrom:
                self.imports.append(node)
            elif kind in _DEFINITIONS:
                if kind is not ast.Module:
                    self.definitions.append(node)
                if node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant):
                    docstrings.add(id(node.body[0].value))
        self.exported = set(_exported_names(tree))  # the strings of ``__all__``
        self.unread = set(_unread_arguments(tree, self.calls))  # the strings a function never reads
        self.reads_exports = _reads_exports(nodes)
        self.annotating = _annotating_names(nodes)  # name -> how often an annotation writes it

    def bindings(self, tree: ast.Module) -> tuple[Counter, dict[str, ast.expr], frozenset[str] | None]:
        """(how often each name is stored to, the value the last ``name = value`` of the file's ``tree`` gives it,
        the names something else binds: a parameter, an import, a definition; None where ``import *`` binds any),
        found in one walk for every name ``_bound_once`` asks."""
        if self._bindings is None:
            stores: Counter[str] = Counter()
            values: dict[str, ast.expr] = {}
            bound: set[str] | None = set()
            # (one ``name = value`` at most where the name is stored once: any order)
            for node in module_preorder(tree):
                if isinstance(node, ast.Name):
                    if not isinstance(node.ctx, ast.Load):
                        stores[node.id] += 1
                elif isinstance(node, ast.Assign):
                    if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                        values[node.targets[0].id] = node.value
                elif bound is not None:
                    names = _bound_names(node)
                    if names is None:
                        bound = None
                    else:
                        bound.update(names)
            self._bindings = (stores, values, None if bound is None else frozenset(bound))
        return self._bindings

    def attribute_stores(self, tree: ast.Module) -> dict[str, list[ast.Attribute]]:
        """Attribute name -> the nodes of the file's ``tree`` that write or delete an attribute so named, found in
        one walk for every attribute ``attribute_writes`` asks."""
        if self._attribute_stores is None:
            self._attribute_stores = {}
            for node in module_preorder(tree):
                if node.__class__ is ast.Attribute and not isinstance(node.ctx, ast.Load):
                    self._attribute_stores.setdefault(node.attr, []).append(node)
        return self._attribute_stores

    def other_instances(self, lineage: frozenset[str] | None) -> set[int]:
        """``_on_other_instances`` of the file, once per ``lineage``."""
        found = self._other_instances.get(lineage)
        if found is None:
            found = self._other_instances[lineage] = _on_other_instances(
                [node for node in self.definitions if node.__class__ is ast.ClassDef], lineage)
        return found

    def foreign_names(self, modules: frozenset[str]) -> frozenset[str]:
        """The names the file's absolute imports bind to what another package holds: the first name of the module
        imported is none of ``modules`` (``nn`` of ``import mindspore.nn as nn``, ``Cell`` of ``from mindspore.nn
        import Cell``)."""
        if self._imported is None:
            self._imported = {}
            for node in self.imports:
                if isinstance(node, ast.ImportFrom):
                    if node.level or not node.module:
                        continue  # a relative import: the application's own
                    for alias in node.names:
                        self._imported[alias.asname or alias.name] = node.module.split(".")[0]
                else:
                    for alias in node.names:
                        self._imported[alias.asname or alias.name.split(".")[0]] = alias.name.split(".")[0]
        return frozenset(bound for bound, module in self._imported.items() if module not in modules)


def _exported_names(tree: ast.Module) -> Iterator[int]:
    """The strings of the module's top-level ``__all__`` (``__all__ = ["resnet18", ...]``, ``__all__ += [...]``): the
    names ``from module import *`` binds, which its importers then write as names."""
    for statement in tree.body:
        target = statement.targets[0] if isinstance(statement, ast.Assign) and len(statement.targets) == 1 else (
            statement.target if isinstance(statement, ast.AugAssign | ast.AnnAssign) else None)
        if isinstance(target, ast.Name) and target.id == "__all__" and isinstance(statement.value, (
                ast.List, ast.Tuple)):
            yield from (id(element) for element in statement.value.elts if isinstance(element, ast.Constant))


def _annotating_names(nodes: list[ast.AST]) -> Counter:
    """How often the annotations of the file (``-> ResNet``, ``block: Type[Bottleneck]``, ``x: Net = ...``) write
    each name: a type named there builds or calls nothing."""
    found: Counter[str] = Counter()
    for node in nodes:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            annotations = [node.returns]
        elif isinstance(node, ast.arg | ast.AnnAssign):
            annotations = [node.annotation]
        else:
            continue
        for annotation in annotations:
            for part in ast.walk(annotation) if annotation is not None else ():
                if isinstance(part, ast.Name):
                    found[part.id] += 1
    return found


def _is_exports(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id == "__all__" or isinstance(node, ast.Attribute) and (
        node.attr == "__all__")


def _reads_exports(nodes: list[ast.AST]) -> bool:
    """Whether the file reads a module's ``__all__`` other than to build an ``__all__`` (``__all__ +=
    other.__all__``, ``__all__.extend(...)``, ``module.__all__.append(name)``)."""
    building: set[int] = set()
    for node in nodes:  # (a statement before its parts)
        if id(node) in building:
            building.update(id(child) for child in ast.iter_child_nodes(node))
            continue
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if targets and all(_is_exports(target) for target in targets):
                building.update(id(child) for child in ast.iter_child_nodes(node))
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(
                node.value.func, ast.Attribute) and node.value.func.attr in ("append", "extend") and _is_exports(
                    node.value.func.value):
            building.update(id(child) for child in ast.iter_child_nodes(node))
        elif _is_exports(node) and (isinstance(node, ast.Attribute) or isinstance(node.ctx, ast.Load)):
            return True
    return False


def _unread_arguments(tree: ast.Module, calls: list[ast.Call]) -> Iterator[int]:
    """The strings passed to a parameter that the module's top-level function never reads (``_resnet("resnet18",
    BasicBlock, ...)`` where ``_resnet`` ignores ``arch``): the module defines the function once and binds its
    name nowhere else, and the function reads no namespace (``locals()``) and passes no ``*args``/``**kwargs`` of
    its own on."""
    defined = Counter(node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)))
    called = {call.func.id for call in calls if isinstance(call.func, ast.Name)}
    unread: dict[str, tuple[list[str], set[str]]] = {}
    for function in tree.body:
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or defined[function.name] != 1 or (
                function.decorator_list) or function.name not in called:
            continue
        arguments = function.args
        positional = [argument.arg for argument in (*arguments.posonlyargs, *arguments.args)]
        loaded = {node.id for node in ast.walk(function) if isinstance(node, ast.Name)}
        if {"locals", "vars", "eval", "exec"} & loaded:
            continue
        names = {name for name in positional if name not in loaded}
        if names:
            unread[function.name] = (positional, names)
    if not unread:
        return
    rebound: set[str] = set()
    for node in module_preorder(tree):
        if isinstance(node, ast.Name):
            if not isinstance(node.ctx, ast.Load):
                rebound.add(node.id)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            rebound.update(alias.asname or alias.name for alias in node.names)
    for call in calls:
        if not isinstance(call.func, ast.Name) or call.func.id not in unread or call.func.id in rebound:
            continue
        positional, names = unread[call.func.id]
        for place, argument in enumerate(call.args):
            if isinstance(argument, ast.Starred):
                break
            if place < len(positional) and positional[place] in names and isinstance(argument, ast.Constant):
                yield id(argument)
        for keyword in call.keywords:
            if keyword.arg in names and isinstance(keyword.value, ast.Constant):
                yield id(keyword.value)


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


def _names(expr: ast.AST, name: str, foreign: frozenset[str] = frozenset()) -> bool:
    """``Net`` or ``model.Net``, but for a chain that starts from a name imported from another package
    (``foreign``: ``nn.Cell``)."""
    return (isinstance(expr, ast.Name) and expr.id == name) or (
        isinstance(expr, ast.Attribute) and expr.attr == name and _root(expr) not in foreign)


def _root(expr: ast.AST) -> str | None:
    """The name a chain of attributes starts from (``nn`` of ``nn.layer.Cell``); None for another expression."""
    while isinstance(expr, ast.Attribute):
        expr = expr.value
    return expr.id if isinstance(expr, ast.Name) else None


def _subclass_sites(subclass: ast.ClassDef, name: str, foreign: frozenset[str]) -> list[ast.Call] | None:
    """The calls by which a subclass of ``name`` (its first base) builds its base: each ``super().__init__(...)``,
    ``super(Sub, self).__init__(...)`` or ``Net.__init__(self, ...)`` of its own ``__init__``, as a call of the
    class (``Net.__init__``'s instance left out); None where another base comes first, the subclass keeps the
    base's ``__init__`` (its own construction sites build the base), or names the base another way."""
    if not _names(subclass.bases[0], name, foreign) or sum(_names(base, name, foreign) for base in subclass.bases) != 1:
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
        elif _names(receiver, name, foreign) and node.args and not isinstance(node.args[0], ast.Starred):
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
