"""Examples: how the validator gets an instance of a Cell (or a jit function) and inputs to compile it with.

A project's examples file (``ms_lint_examples.py`` at the project root by default) registers one function per
target with ``@ms_lint.example("package.module:ClassName")``. The function takes no arguments and returns
``(cell, inputs)``: the object to compile (a Cell instance, or the jit function itself) and a tuple of its
positional inputs. Inputs may be concrete tensors or data-less placeholders such as
``mindspore.Tensor(shape=[None, 16], dtype=mindspore.float32)``; probes that run the Cell need concrete ones.

This module imports nothing heavy: the examples file is loaded only inside the validator's worker processes.
"""
from __future__ import annotations

import keyword
import re
from typing import Callable, Iterable

ExampleFunction = Callable[[], object]

_TARGET = re.compile(r"^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*:[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*$")

_registry: dict[str, ExampleFunction] = {}


class ExampleError(ValueError):
    """An example that cannot be used; the message says what to change."""


def register(target: str) -> Callable[[ExampleFunction], ExampleFunction]:
    """Decorator: register the decorated function as the example for ``target`` ("pkg.module:QualName")."""
    if not isinstance(target, str) or not _TARGET.match(target.strip()):
        raise ExampleError(
            f"ms_lint.example target must look like 'package.module:ClassName', got {target!r}"
        )
    target = target.strip()

    def decorate(function: ExampleFunction) -> ExampleFunction:
        if not callable(function):
            raise ExampleError(f"ms_lint.example({target!r}) must decorate a function, not {function!r}")
        _registry[target] = function
        return function

    return decorate


def registered() -> dict[str, ExampleFunction]:
    """The examples registered so far, by target."""
    return dict(_registry)


def clear() -> None:
    _registry.clear()


def lookup(target: str) -> ExampleFunction | None:
    return _registry.get(target)


def normalize_example_result(target: str, result: object) -> tuple[object, tuple]:
    """Check what an example function returned and turn it into ``(object, inputs tuple)``."""
    if not isinstance(result, tuple) or len(result) != 2:
        raise ExampleError(
            f"the example for {target} must return (cell, inputs), got {type(result).__name__}"
        )
    obj, inputs = result
    if inputs is None:
        inputs = ()
    elif isinstance(inputs, list):
        inputs = tuple(inputs)
    elif not isinstance(inputs, tuple):
        # A single tensor is the common case for one-input Cells.
        inputs = (inputs,)
    if not callable(obj):
        raise ExampleError(f"the example for {target} returned {type(obj).__name__}, which cannot be called")
    return obj, inputs


def suggest_example(
    target: str,
    init_parameters: Iterable[str] = (),
    call_parameters: Iterable[str] = (),
    is_cell: bool = True,
    concrete_inputs: bool = False,
) -> str:
    """The example a user should add to the examples file for ``target``, as Python source.

    ``init_parameters``: the ``__init__`` arguments without a default (the user fills them in);
    ``call_parameters``: the positional parameters of ``construct`` (or of the jit function);
    ``concrete_inputs``: whether the check needs real tensors (a probe that runs the Cell) or placeholders do.
    """
    module, _, qualname = target.partition(":")
    top_name = qualname.split(".")[0]
    function_name = _function_name(qualname)
    lines = [
        "import mindspore as ms",
        "import ms_lint",
        "",
        "",
        f'@ms_lint.example("{target}")',
        f"def {function_name}():",
        f"    from {module} import {top_name}",
        "",
    ]
    if is_cell:
        arguments = ", ".join(f"{name}=..." for name in init_parameters)
        note = "  # replace each ... with a real argument" if arguments else ""
        lines.append(f"    cell = {qualname}({arguments}){note}")
    else:
        lines.append(f"    cell = {qualname}")
    names = [name for name in call_parameters]
    for name in names:
        if concrete_inputs:
            lines.append(f"    {name} = ms.ops.ones((2, 8), ms.float32)  # the real shape and dtype of {name}")
        else:
            lines.append(f"    {name} = ms.Tensor(shape=[-2], dtype=ms.float32)  # or the real shape and dtype")
    if not names:
        lines.append("    return cell, ()")
    else:
        lines.append(f"    return cell, ({', '.join(names)},)")
    return "\n".join(lines) + "\n"


def _function_name(qualname: str) -> str:
    parts = re.findall(r"[A-Z]+(?=[A-Z][a-z]|\d|\b)|[A-Z]?[a-z]+|\d+", qualname.replace(".", "_"))
    name = "_".join(part.lower() for part in parts) or "target"
    name = re.sub(r"\W", "_", name)
    if keyword.iskeyword(name) or name[0].isdigit():
        name = f"example_{name}"
    return f"{name}_example"
