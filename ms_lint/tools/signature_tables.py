"""The signature and deprecation tables of the installed MindSpore (run by ``generate_tables``).

``signatures`` maps a namespace (``mindspore.ops``, ``mindspore.Tensor``, ...) to ``{name: [overloads]}`` for every
public callable there: each overload is a parameter list written as Python writes one, without annotations
(``input, dim=None, keepdim=False, *, dtype=None``), read with ``inspect.signature`` (a class's is its
constructor's). Defaults are their ``repr`` where that is a literal (``None``, ``-1``, ``'nearest'``, ``(1, 1)``),
else ``...`` (an object: a dtype, a function).

Where Python cannot say, MindSpore's own argument parser is asked: a Tensor method or a generated functional
implemented in C++ (``Tensor.sum``, ``mint.max(*args, **kwargs)``) is called with arguments no overload takes, and
the parser's TypeError lists "the valid calling" forms; each becomes one overload, its parameters written
``name=?`` (accepted, by name and position, whether it has a default not said). A callable neither can read is
``["?"]``: a Primitive instance (its ``__call__`` is C++), a C++ method whose parser names no forms. The tables
never guess.

A namespace that re-exports another's objects (``mindspore.ops.functional`` re-exports ``mindspore.ops``) keeps
only the entries that differ from the other's (``SIGNATURE_FALLBACK``); ``mindspore_api.signatures`` looks there.

``deprecations`` maps ``namespace.name`` to ``{"since": version, "use": replacement}`` for every public callable
MindSpore wraps in its deprecation decorator (``mindspore.common._decorator.deprecated``): read from the
decorator's own closure, so the version and the replacement are what MindSpore's run-time warning says
(replacement "" where it names none).
"""
from __future__ import annotations

import importlib
import inspect
import re
import types
from typing import Any, Iterable

# The namespaces whose public callables get signatures; ``mindspore.Tensor`` stands for the Tensor's methods.
SIGNATURE_NAMESPACES = (
    "mindspore", "mindspore.ops", "mindspore.ops.functional", "mindspore.nn", "mindspore.mint",
    "mindspore.mint.nn", "mindspore.mint.nn.functional", "mindspore.Tensor",
)
# A namespace -> the namespace whose entries it shares: only its own differing entries are stored.
SIGNATURE_FALLBACK = {"mindspore.ops.functional": "mindspore.ops"}
UNREADABLE = "?"
UNSTATED = "?"  # a default MindSpore's parser does not state
# Modules whose *args/**kwargs functions are MindSpore's generated overload dispatchers, which the parser answers.
_PARSED_MODULES = ("mindspore.ops", "mindspore.mint", "mindspore.common.tensor", "mindspore._c_expression")
_PROBE_ARITY = 9  # more positional arguments than any overload takes
_PROBE_KEYWORD = "ms_lint_probe"
_VALID_CALLING = "The valid calling should be:"
_FORM = re.compile(r'^\s*"(?:[\w.]+\.)?\w+\((.*)\)"\s*$')
_SIMPLE = (type(None), bool, int, float, str)


class _Text:
    """A default written as given (``repr`` is the text)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def default_text(value: Any) -> str:
    """A default as the table writes it: its ``repr`` where that is a literal, else ``...``."""
    if isinstance(value, _SIMPLE) or (isinstance(value, (tuple, list)) and len(value) <= 8
                                      and all(isinstance(item, _SIMPLE) for item in value)):
        text = repr(value)
        if len(text) <= 40 and " at 0x" not in text:
            return text
    return "..."


def render_signature(signature: inspect.Signature) -> str:
    parameters = []
    for parameter in signature.parameters.values():
        default = parameter.default
        if default is not inspect.Parameter.empty:
            default = _Text(default.text if isinstance(default, _Text) else default_text(default))
        parameters.append(parameter.replace(annotation=inspect.Parameter.empty, default=default))
    text = str(signature.replace(parameters=parameters, return_annotation=inspect.Signature.empty))
    return text[1:-1]


def init_signature(cls: type) -> inspect.Signature:
    """The signature users call (without ``__init__``'s instance parameter), looking through
    ``def deco(self, *args, **kwargs)`` wrappers around ``__init__``.

    MindSpore's optimizers wrap ``__init__`` in one or two such decorators that keep the real function in a
    closure variable and do not set ``__wrapped__``.
    """
    function = cls.__init__
    for _ in range(8):
        signature = _without_first(inspect.signature(function))
        kinds = {p.kind for p in signature.parameters.values()}
        if not kinds or not kinds <= {inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD}:
            return signature
        try:
            closure = inspect.getclosurevars(function).nonlocals
        except (TypeError, ValueError):
            return signature
        inner = [value for value in closure.values() if inspect.isfunction(value)]
        if len(inner) != 1:
            return signature
        function = inner[0]
    return _without_first(inspect.signature(function))


def _without_first(signature: inspect.Signature) -> inspect.Signature:
    """``signature`` of a function defined in a class, without its first parameter (the instance)."""
    parameters = list(signature.parameters.values())
    if parameters and parameters[0].kind in (inspect.Parameter.POSITIONAL_ONLY,
                                             inspect.Parameter.POSITIONAL_OR_KEYWORD):
        parameters = parameters[1:]
    return signature.replace(parameters=parameters)


def _takes_anything(signature: inspect.Signature) -> bool:
    kinds = [parameter.kind for parameter in signature.parameters.values()]
    return kinds == [inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD]


def parsed_forms(message: str) -> list[str] | None:
    """The overloads a MindSpore parser's TypeError lists ("The valid calling should be:" and one quoted form a
    line), as parameter lists with ``=?`` defaults; None when the message lists none."""
    if _VALID_CALLING not in message:
        return None
    forms = []
    for line in message.split(_VALID_CALLING, 1)[1].splitlines():
        match = _FORM.match(line)
        if match is None:
            continue
        parameters = []
        for part in _split_top_level(match.group(1)):
            part = part.strip()
            if not part:
                continue
            if part in ("*", "/") or part.startswith("*"):
                parameters.append(part.split("=", 1)[0])
                continue
            name = part.split("=", 1)[0].strip()
            if not name.isidentifier():
                return None
            parameters.append(f"{name}={UNSTATED}")
        forms.append(", ".join(parameters))
    return sorted(set(forms)) or None


def _split_top_level(text: str) -> list[str]:
    parts, depth, current = [], 0, []
    for character in text:
        if character in "<([{":
            depth += 1
        elif character in ">)]}":
            depth -= 1
        if character == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(character)
    parts.append("".join(current))
    return parts


def _ask_parser(call) -> list[str] | None:
    """The forms MindSpore's parser lists for ``call`` given arguments no overload takes."""
    probe = object()
    for args, kwargs in (((probe,) * _PROBE_ARITY, {}), ((), {_PROBE_KEYWORD: probe})):
        try:
            call(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 -- the parser's refusal is what is read
            forms = parsed_forms(str(exc))
            if forms:
                return forms
    return None


def _parsed_module(obj: Any) -> bool:
    module = getattr(obj, "__module__", None) or ""
    return module.startswith(_PARSED_MODULES) or isinstance(obj, types.BuiltinFunctionType)


def callable_signature(obj: Any) -> list[str]:
    """The overloads of a public callable of a module (a function, a class)."""
    if not (inspect.isclass(obj) or inspect.isfunction(obj) or inspect.isbuiltin(obj)):
        return [UNREADABLE]  # a callable instance: a Primitive's __call__ is C++
    try:
        signature = init_signature(obj) if inspect.isclass(obj) and inspect.isfunction(obj.__init__) \
            else inspect.signature(obj)
    except (TypeError, ValueError):
        signature = None
    return _read(signature, obj, not inspect.isclass(obj) and _parsed_module(obj))  # never build a probe


def tensor_method_signature(static: Any, bound: Any) -> list[str]:
    """The overloads of a Tensor method: ``static`` as the class holds it, ``bound`` to a tensor."""
    if isinstance(static, (staticmethod, classmethod)):
        return callable_signature(static.__func__ if isinstance(static, staticmethod) else bound)
    try:
        signature = _without_first(inspect.signature(static)) if inspect.isfunction(static) \
            else inspect.signature(bound)
    except (TypeError, ValueError):
        signature = None
    return _read(signature, bound, True)


def _read(signature: inspect.Signature | None, call: Any, parsed: bool) -> list[str]:
    """``signature`` written out; where it is missing or takes anything (a dispatcher MindSpore's parser checks),
    the parser's forms instead, when it lists them."""
    if signature is not None and not (parsed and _takes_anything(signature)):
        return [render_signature(signature)]
    forms = _ask_parser(call) if parsed else None
    if forms:
        return forms
    return [UNREADABLE] if signature is None else [render_signature(signature)]


def _public_callables(namespace: types.ModuleType) -> Iterable[tuple[str, Any]]:
    for name in sorted(dir(namespace)):
        if name.startswith("_"):
            continue
        try:
            obj = getattr(namespace, name)
        except Exception:  # noqa: BLE001 -- a lazy attribute that fails to load has no signature to give
            continue
        if inspect.ismodule(obj) or not callable(obj):
            continue
        yield name, obj


def signature_tables(ms: types.ModuleType) -> dict[str, dict[str, list[str]]]:
    tables: dict[str, dict[str, list[str]]] = {}
    tensor = ms.Tensor([[1.0, 2.0]], ms.float32)
    for namespace in SIGNATURE_NAMESPACES:
        if namespace == "mindspore.Tensor":
            entries = {}
            for name in sorted(dir(ms.Tensor)):
                if name.startswith("_") or isinstance(inspect.getattr_static(ms.Tensor, name, None), property):
                    continue
                try:
                    bound = getattr(tensor, name)
                except Exception:  # noqa: BLE001 -- an attribute that raises when read is no method
                    continue
                if callable(bound):
                    entries[name] = tensor_method_signature(inspect.getattr_static(ms.Tensor, name), bound)
        else:
            module = importlib.import_module(namespace)
            entries = {name: callable_signature(obj) for name, obj in _public_callables(module)}
        tables[namespace] = entries
    for namespace, shared in SIGNATURE_FALLBACK.items():
        tables[namespace] = {name: forms for name, forms in tables[namespace].items()
                             if tables[shared].get(name) != forms}
    return tables


def deprecation_table(ms: types.ModuleType) -> dict[str, dict[str, str]]:
    """``{namespace.name: {"since": version, "use": replacement}}`` for the public callables MindSpore's deprecation
    decorator wraps (a function, or a class whose ``__init__`` it wraps)."""
    decorator = importlib.import_module("mindspore.common._decorator").deprecated
    marker = _decorator_code(decorator)
    table = {}
    for namespace in SIGNATURE_NAMESPACES:
        if namespace == "mindspore.Tensor":
            candidates = [(name, inspect.getattr_static(ms.Tensor, name, None)) for name in dir(ms.Tensor)
                          if not name.startswith("_")]
        else:
            candidates = list(_public_callables(importlib.import_module(namespace)))
        for name, obj in candidates:
            found = _deprecation_of(obj, marker)
            if found is not None:
                table[f"{namespace}.{name}"] = found
    for namespace, shared in SIGNATURE_FALLBACK.items():  # kept once, as for the signatures
        for name in [name for name in table if name.startswith(namespace + ".")]:
            if table.get(shared + name[len(namespace):]) == table[name]:
                del table[name]
    return dict(sorted(table.items()))


def _decorator_code(decorator) -> types.CodeType | None:
    """The code of the wrapper MindSpore's ``deprecated(version, substitute)`` returns around a function."""
    wrapper = decorator("0", "")(lambda: None)
    return getattr(wrapper, "__code__", None)


def _deprecation_of(obj: Any, marker: types.CodeType | None) -> dict[str, str] | None:
    if marker is None:
        return None
    if isinstance(obj, (staticmethod, classmethod)):
        obj = obj.__func__
    function = obj.__dict__.get("__init__") if inspect.isclass(obj) else obj
    code = getattr(function, "__code__", None)
    if code is not marker and not (code is not None and code.co_code == marker.co_code
                                   and code.co_filename == marker.co_filename):
        return None
    cells = dict(zip(code.co_freevars, (cell.cell_contents for cell in function.__closure__ or ())))
    version, substitute = cells.get("version"), cells.get("substitute")
    if not isinstance(version, str):
        return None
    return {"since": version, "use": substitute if isinstance(substitute, str) else ""}
