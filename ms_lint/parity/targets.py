"""Turn ``module:Class`` / ``module:factory`` / ``path/to/file.py:Class`` into a model (and maybe its inputs).

A target names a class with a no-argument constructor, a factory function returning the model or
``(model, inputs)``, or a ready model instance. The module part is an importable dotted name (the current
directory is on ``sys.path``, as under pytest) or a path to a ``.py`` file.
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import os
import sys
import traceback
from dataclasses import dataclass
from typing import Any

from ms_lint.parity.report import ParityUsageError


@dataclass
class LoadedTarget:
    spec: str
    model: Any
    inputs: Any = None  # whatever the factory returned next to the model, or None


def split_target(spec: str) -> tuple[str, str]:
    module_part, sep, attr = spec.rpartition(":")
    # A Windows drive letter ("C:\\net.py") is not the separator.
    if not sep or not module_part or not attr or (len(module_part) == 1 and attr[:1] in "\\/"):
        raise ParityUsageError(f"target {spec!r} must look like module:Class, module:factory or path/to/file.py:Class")
    return module_part, attr


def ensure_cwd_on_path() -> None:
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.insert(0, cwd)


def import_target_module(module_part: str, spec: str):
    ensure_cwd_on_path()
    if module_part.endswith(".py") or os.sep in module_part or "/" in module_part:
        return _import_file(module_part, spec)
    try:
        return importlib.import_module(module_part)
    except ModuleNotFoundError as exc:
        if exc.name and (module_part == exc.name or module_part.startswith(exc.name + ".")):
            raise ParityUsageError(f"target {spec!r}: no module named {exc.name!r} "
                                   f"(run from the project root, or give a path to the .py file)") from None
        raise ParityUsageError(_import_failure(module_part, exc)) from None
    except Exception as exc:  # the user's module failed while importing: say where, in one line
        raise ParityUsageError(_import_failure(module_part, exc)) from None


def _import_file(path: str, spec: str):
    if not os.path.isfile(path):
        raise ParityUsageError(f"target {spec!r}: file not found: {path}")
    abspath = os.path.abspath(path)
    directory = os.path.dirname(abspath)
    # Sibling imports in the user's file (``from layers import Block``) resolve as when it runs as a script.
    if directory not in sys.path:
        sys.path.insert(0, directory)
    stem = os.path.splitext(os.path.basename(abspath))[0]
    digest = hashlib.sha1(abspath.encode()).hexdigest()[:8]
    name = f"_ms_lint_parity_{stem}_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    module_spec = importlib.util.spec_from_file_location(name, abspath)
    if module_spec is None or module_spec.loader is None:
        raise ParityUsageError(f"target {spec!r}: cannot load {path} as a Python module")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module  # dataclasses and pickling look the module up while it executes
    try:
        module_spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise ParityUsageError(_import_failure(path, exc)) from None
    return module


def _import_failure(module_label: str, exc: BaseException) -> str:
    return f"error while importing {module_label}: {describe_exception(exc)}"


def describe_exception(exc: BaseException) -> str:
    """``Type: first line of the message (file.py:LINE)``, pointing at the innermost frame outside libraries."""
    if isinstance(exc, SyntaxError) and exc.filename:
        return f"{type(exc).__name__}: {exc.msg} ({_short_path(exc.filename)}:{exc.lineno})"
    message = str(exc).strip().splitlines()
    text = f"{type(exc).__name__}: {message[0]}" if message else type(exc).__name__
    location = _user_frame(exc)
    return f"{text} ({location})" if location else text


def _user_frame(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    for frame in reversed(frames):
        filename = frame.filename
        if _is_library_file(filename) or filename.startswith("<"):
            continue
        return f"{_short_path(filename)}:{frame.lineno}"
    return ""


def _is_library_file(filename: str) -> bool:
    normalized = filename.replace("\\", "/")
    return ("/site-packages/" in normalized or "/dist-packages/" in normalized
            or "/importlib/" in normalized or "/ms_lint/parity/" in normalized
            or normalized.startswith(sys.prefix.replace("\\", "/") + "/lib/"))


def _short_path(filename: str) -> str:
    try:
        rel = os.path.relpath(filename)
    except ValueError:
        return filename
    return filename if rel.startswith("..") else rel


def resolve_attribute(module, attr: str, spec: str):
    value = module
    for part in attr.split("."):
        try:
            value = getattr(value, part)
        except AttributeError:
            raise ParityUsageError(f"target {spec!r}: {getattr(module, '__name__', spec)} has no attribute {attr!r}"
                                   f"{_available_names(module)}") from None
    return value


def _available_names(module) -> str:
    names = [name for name, value in vars(module).items()
             if not name.startswith("_") and isinstance(value, type)
             and getattr(value, "__module__", None) == module.__name__]
    return f" (classes defined there: {', '.join(sorted(names))})" if names else ""


def load_target(spec: str, expected: str) -> LoadedTarget:
    """Load ``spec`` and check that it gives a model of the ``expected`` framework ("mindspore" or "torch")."""
    module_part, attr = split_target(spec)
    module = import_target_module(module_part, spec)
    obj = resolve_attribute(module, attr, spec)
    model, inputs = _instantiate(obj, spec, expected)
    _check_framework(model, spec, expected)
    return LoadedTarget(spec=spec, model=model, inputs=inputs)


def _instantiate(obj, spec: str, expected: str):
    if _framework_of(obj) is not None:
        return obj, None  # a ready instance at module level
    if not callable(obj):
        raise ParityUsageError(f"target {spec!r} is a {type(obj).__name__}, not a class, factory or model")
    kind = "constructor" if isinstance(obj, type) else "factory"
    _check_callable_without_arguments(obj, spec)
    try:
        result = obj()
    except Exception as exc:
        raise ParityUsageError(f"target {spec!r}: the {kind} raised {describe_exception(exc)}") from None
    if isinstance(result, (tuple, list)) and len(result) == 2 and _framework_of(result[0]) is not None:
        return result[0], result[1]
    return result, None


def _check_callable_without_arguments(obj, spec: str) -> None:
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return  # builtins and some extension types have no signature: just call them
    try:
        signature.bind()
    except TypeError:
        required = [name for name, param in signature.parameters.items()
                    if param.default is param.empty and param.kind not in (param.VAR_POSITIONAL, param.VAR_KEYWORD)]
        raise ParityUsageError(f"target {spec!r} needs arguments ({', '.join(required)}): give a class with a "
                               f"no-argument constructor, or a factory function that takes none") from None


def _framework_of(obj) -> str | None:
    for module_name, class_path, label in (("mindspore", ("nn", "Cell"), "mindspore"),
                                           ("torch", ("nn", "Module"), "torch")):
        lib = sys.modules.get(module_name)
        if lib is None:
            continue
        base = lib
        for part in class_path:
            base = getattr(base, part, None)
        if isinstance(base, type) and isinstance(obj, base):
            return label
    return None


def _check_framework(model, spec: str, expected: str) -> None:
    actual = _framework_of(model)
    if actual == expected:
        return
    wanted = "a mindspore.nn.Cell" if expected == "mindspore" else "a torch.nn.Module"
    if actual is not None:
        raise ParityUsageError(f"target {spec!r} gives {_label(actual)}, expected {wanted}: the MindSpore target "
                               f"comes first (ms-lint parity MS_TARGET TORCH_TARGET)")
    raise ParityUsageError(f"target {spec!r} gives a {type(model).__module__}.{type(model).__name__}, "
                           f"expected {wanted}")


def _label(framework: str) -> str:
    return "a mindspore.nn.Cell" if framework == "mindspore" else "a torch.nn.Module"
