"""Probes for hazards that compile fine. Run inside the worker process (they use MindSpore).

- ``parameter_probe``: the Cells and Parameters held in plain Python lists, tuples and dicts on a Cell's
  attributes are not registered: their parameters are missing from ``trainable_params()`` (never trained or
  saved), and equal names collide in the graph.
- ``randomness_probe``: host randomness (``np.random``, ``random``) in graph code is drawn once at compile time:
  two calls on the same input give identical outputs in GRAPH_MODE and different ones in PyNative; a tensor
  written in place (MS124) makes the graph's second call differ from its first, or the graph's first from
  PyNative's.
- ``output_probe``: a ``dict`` returned from ``construct`` comes back as a tuple in GRAPH_MODE under STRICT: the
  Python type of one call's output in each mode.
- ``state_probe``: a plain attribute or global that graph code reads keeps its first value: a write between two
  calls changes PyNative's output and not the graph's.
- ``gradient_probe``: a PyNative Cell whose output is built from a host copy (``asnumpy()``, MS112): the gradient
  of its output, taken eagerly, is zero with respect to its inputs and the parameters before the copy.
- ``forward_count_probe``: a Cell called and then differentiated on the same input (MS113): on a Cell of ms-lint's
  own that counts its forwards, in PyNative, how many more forwards the transform runs after the call.
- ``built_alone_probe``: a user type that a line builds from tensor data (MS103), built from a tensor by a Cell
  that does nothing else, compiled under STRICT: whether MindSpore can build that type in a graph at all, asked
  where the unit's own compile stops before the line.
- ``host_method_probe``: a host method the graph never holds (``switch_to_deploy()``), called on a built instance
  in PyNative as its callers would: which finding lines it ran, and where it raised.

The worker's ``probe`` stage (``stage_probe``) runs the probes a job asks for on its built instance, and records
each probe's result (or why it was skipped) in the outcome's ``probes``; ``build_types_alone`` runs right after the
import, whatever the build and compile do; ``_has_name`` and ``_call_on_tensors`` answer MS607 and MS602 on the
installed MindSpore.
"""
from __future__ import annotations

import os
from collections import Counter
from typing import TYPE_CHECKING

from ms_lint.validate import instances
from ms_lint.validate.outcome import Outcome, exception_message, first_line
from ms_lint.validate.tracing import LinesRun

if TYPE_CHECKING:
    from ms_lint.validate.jobs import JobState

_MAX_DEPTH = 3
_MAX_LISTED = 12


def parameter_probe(cell) -> dict:
    """Parameters reachable through plain containers on ``cell`` and its sub-Cells that ``cell`` does not own."""
    from mindspore import Parameter, nn

    internal = set(vars(nn.Cell()))
    registered = {id(parameter) for parameter in cell.get_parameters()}
    trainable = list(cell.trainable_params())
    containers = []
    unregistered_names: list[str] = []
    for owner_name, owner in cell.cells_and_names():
        for attribute, value in list(vars(owner).items()):
            if attribute in internal or not isinstance(value, (list, tuple, dict)):
                continue
            if isinstance(value, tuple) and type(value).__name__ == "ParameterTuple":
                continue
            holder = f"{owner_name}.{attribute}" if owner_name else attribute
            found = {"cells": 0, "parameters": 0, "held_parameters": 0, "missing": [], "missing_count": 0}
            _walk_container(value, holder, found, registered, unregistered_names, Parameter, nn.Cell, 0)
            if found["cells"] or found["parameters"]:
                containers.append({
                    "attribute": attribute,
                    "owner": owner_name,
                    "kind": type(value).__name__,
                    "cells": found["cells"],
                    "parameters": found["parameters"],
                    "held_parameters": found["held_parameters"],
                    "missing": found["missing"][:_MAX_LISTED],
                    "missing_count": found["missing_count"],
                })
    names = Counter([parameter.name for parameter in trainable] + unregistered_names)
    return {
        "trainable": len(trainable),
        "containers": containers,
        "duplicate_names": sorted(name for name, count in names.items() if count > 1),
    }


def _walk_container(value, path, found, registered, unregistered_names, parameter_type, cell_type, depth):
    if depth > _MAX_DEPTH:
        return
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, item in items:
        item_path = f"{path}[{key!r}]"
        if isinstance(item, cell_type):
            found["cells"] += 1
            for name, parameter in item.parameters_and_names():
                found["held_parameters"] += 1
                if id(parameter) not in registered:
                    found["missing_count"] += 1
                    found["missing"].append(f"{item_path}.{name}")
                    unregistered_names.append(parameter.name)
        elif isinstance(item, parameter_type):
            found["parameters"] += 1
            found["held_parameters"] += 1
            if id(item) not in registered:
                found["missing_count"] += 1
                found["missing"].append(f"{item_path} ({item.name})")
                unregistered_names.append(item.name)
        elif isinstance(item, (list, tuple, dict)):
            _walk_container(item, item_path, found, registered, unregistered_names, parameter_type, cell_type,
                            depth + 1)


def randomness_probe(target, inputs, eager=None) -> dict:
    """Call ``target`` twice on the same inputs in GRAPH_MODE, then twice in PyNative, and compare outputs.

    ``eager``: what runs in PyNative (the undecorated function of a jit function); the target itself by default.
    """
    import mindspore

    mindspore.set_context(mode=mindspore.GRAPH_MODE)
    graph_first = _to_numpy(target(*inputs))
    graph_second = _to_numpy(target(*inputs))
    mindspore.set_context(mode=mindspore.PYNATIVE_MODE)
    try:
        eager = eager or target
        eager_first = _to_numpy(eager(*inputs))
        eager_second = _to_numpy(eager(*inputs))
    finally:
        mindspore.set_context(mode=mindspore.GRAPH_MODE)
    return {
        "graph_repeats": _same(graph_first, graph_second),
        "pynative_repeats": _same(eager_first, eager_second),
        "first_calls_agree": _same(graph_first, eager_first),
    }


def output_probe(target, inputs, eager=None) -> dict:
    """The Python type of ``target``'s output in GRAPH_MODE and in PyNative, and its dict keys when there are."""
    import mindspore

    mindspore.set_context(mode=mindspore.GRAPH_MODE)
    graph = target(*inputs)
    mindspore.set_context(mode=mindspore.PYNATIVE_MODE)
    try:
        pynative = (eager or target)(*inputs)
    finally:
        mindspore.set_context(mode=mindspore.GRAPH_MODE)
    return {
        "graph_type": type(graph).__name__,
        "pynative_type": type(pynative).__name__,
        "keys": [str(key) for key in pynative][:8] if isinstance(pynative, dict) else [],
    }


def state_probe(target, inputs, names, eager=None) -> dict:
    """Call ``target``, change the state ``names`` (attributes of the Cell, else globals of its module; every plain
    number attribute of the Cell when ``names`` is empty), call it again; in GRAPH_MODE, then in PyNative. The
    state is restored after each mode."""
    import sys

    import mindspore

    module = sys.modules.get(type(target).__module__)
    changes = _state_changes(target, module, names)
    if not changes:
        return {"skipped": "no plain number attribute or global to change"}

    def two_calls(function):
        first = _to_numpy(function(*inputs))
        for holder, name, _, changed in changes:
            _set(holder, name, changed)
        try:
            second = _to_numpy(function(*inputs))
        finally:
            for holder, name, original, _ in changes:
                _set(holder, name, original)
        return _same(first, second)

    mindspore.set_context(mode=mindspore.GRAPH_MODE)
    graph_unchanged = two_calls(target)
    mindspore.set_context(mode=mindspore.PYNATIVE_MODE)
    try:
        pynative_unchanged = two_calls(eager or target)
    finally:
        mindspore.set_context(mode=mindspore.GRAPH_MODE)
    return {
        "changed": [name for _, name, _, _ in changes],
        "graph_unchanged": graph_unchanged,
        "pynative_unchanged": pynative_unchanged,
    }


def gradient_probe(target, inputs) -> dict:
    """In PyNative: the gradient of the sum of ``target``'s output (its first floating tensor) with respect to each
    floating input and each trainable parameter, as the sum of its magnitudes (None where MindSpore gives none):
    ``{"inputs": {index: float | None}, "parameters": {name: float | None}}``, or ``{"skipped": why}``."""
    import mindspore
    from mindspore import nn

    positions = tuple(index for index, value in enumerate(inputs) if _floating(value))
    weights = list(target.trainable_params()) if isinstance(target, nn.Cell) else []
    if not positions and not weights:
        return {"skipped": "it has no floating input and no trainable parameter to differentiate by"}

    def summed(*values):
        output = _first_floating(target(*values))
        if output is None:
            raise TypeError("the output holds no floating tensor")
        return output.sum()

    mode = mindspore.get_context("mode")
    mindspore.set_context(mode=mindspore.PYNATIVE_MODE)
    try:
        gradients = mindspore.grad(summed, grad_position=positions or None, weights=weights or None)(*inputs)
    finally:
        mindspore.set_context(mode=mode)
    by_input, by_weight = (gradients if positions and weights else
                           (gradients, ()) if positions else ((), gradients))
    by_input = by_input if isinstance(by_input, (list, tuple)) else (by_input,)
    return {
        "inputs": {str(index): _magnitude(gradient) for index, gradient in zip(positions, by_input)},
        "parameters": {weight.name: _magnitude(gradient) for weight, gradient in zip(weights, by_weight)},
    }


def forward_count_probe(transform: str, set_grad: bool) -> dict:
    """In PyNative, a Cell that counts its forwards called once on a tensor, then differentiated by ``transform``
    (``grad``, ``value_and_grad``, ``vjp``, ``GradOperation``) with respect to its weights on the same tensor,
    after ``set_grad()`` when ``set_grad``: ``{"transform", "set_grad", "again": the forwards the transform ran}``,
    or ``{"skipped": why}``."""
    import numpy as np

    import mindspore
    from mindspore import ParameterTuple, Tensor, nn, ops

    class Counting(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(3, 1)
            self.forwards = 0

        def construct(self, x):
            self.forwards += 1  # noqa: MS108 -- run in PyNative only, where it counts the forwards
            return self.dense(x).sum()

    if transform not in ("grad", "value_and_grad", "vjp", "GradOperation"):
        return {"skipped": f"{transform} is not a transform the probe knows"}
    mode = mindspore.get_context("mode")
    mindspore.set_context(mode=mindspore.PYNATIVE_MODE)
    try:
        net = Counting()
        if set_grad:
            net.set_grad()
        x = Tensor(np.ones((2, 3), np.float32))
        output = net(x)
        weights = net.trainable_params()
        if transform == "grad":
            mindspore.grad(net, None, weights)(x)
        elif transform == "value_and_grad":
            mindspore.value_and_grad(net, None, weights)(x)
        elif transform == "vjp":
            _, pullback = mindspore.vjp(net, x)
            pullback(ops.ones_like(output))
        else:
            ops.GradOperation(get_by_list=True)(net, ParameterTuple(weights))(x)
    finally:
        mindspore.set_context(mode=mode)
    return {"transform": transform, "set_grad": set_grad, "again": net.forwards - 1,
            "version": mindspore.__version__}


def _floating(value) -> bool:
    dtype = getattr(value, "dtype", None)
    return dtype is not None and hasattr(value, "asnumpy") and "float" in str(dtype).lower()


def _first_floating(value):
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return next((item for item in map(_first_floating, value) if item is not None), None)
    return value if _floating(value) else None


def _magnitude(gradient) -> float | None:
    import numpy as np

    return None if gradient is None else float(np.abs(gradient.asnumpy()).sum())


def _state_changes(target, module, names) -> list:
    """(holder, name, original, changed value) for each number to change."""
    from mindspore import nn

    def number(value) -> bool:
        return isinstance(value, (int, float)) and not isinstance(value, bool)

    internal = set(vars(nn.Cell()))
    attributes = vars(target)
    if not names:
        names = [name for name, value in attributes.items() if name not in internal and number(value)]
    changes = []
    for name in names:
        if number(attributes.get(name)):
            changes.append((target, name, attributes[name], attributes[name] * 2 + 1))
        elif module is not None and number(getattr(module, name, None)):
            value = getattr(module, name)
            changes.append((module, name, value, value * 2 + 1))
    return changes


def _set(holder, name, value) -> None:
    setattr(holder, name, value)


def _to_numpy(value):
    import numpy as np

    if isinstance(value, (list, tuple)):
        return [_to_numpy(item) for item in value]
    if isinstance(value, dict):
        return {key: _to_numpy(item) for key, item in value.items()}
    if hasattr(value, "asnumpy"):
        return value.asnumpy()
    return np.asarray(value)


def _same(first, second) -> bool:
    import numpy as np

    if isinstance(first, list) and isinstance(second, list):
        return len(first) == len(second) and all(_same(a, b) for a, b in zip(first, second))
    if isinstance(first, dict) and isinstance(second, dict):
        return first.keys() == second.keys() and all(_same(first[key], second[key]) for key in first)
    try:
        return bool(np.array_equal(first, second, equal_nan=True))
    except TypeError:
        return bool(np.array_equal(first, second))


_BUILT_ALONE_SOURCE = """\
from mindspore import nn


class BuildsAlone(nn.Cell):
    def construct(self, x):
        return BUILT({arguments})
"""


def built_alone_probe(namespace: dict, callee: str, positional: int, keywords: list[str], directory: str) -> dict:
    """Compile, under STRICT, a Cell whose ``construct`` builds ``callee`` (a dotted name in ``namespace``, the user
    module's globals) from its tensor input, passed as each of ``positional`` arguments and ``keywords``:
    ``{"compiled": bool, "type", "message"}``, or ``{"skipped": why}``."""
    import importlib.util
    import os
    import sys

    import mindspore

    head, *rest = callee.split(".")
    if head not in namespace:
        return {"skipped": f"{head} is not a name of the module"}
    built = namespace[head]
    for part in rest:
        built = getattr(built, part, None)
    if not isinstance(built, type):
        return {"skipped": f"{callee} is not a class"}
    arguments = ", ".join(["x"] * positional + [f"{keyword}=x" for keyword in keywords])
    path = os.path.join(directory, f"ms_lint_built_alone_{abs(hash((callee, arguments)))}.py")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(_BUILT_ALONE_SOURCE.format(arguments=arguments))
    name = os.path.basename(path)[:-3]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    module.BUILT = built
    spec.loader.exec_module(module)
    level = mindspore.get_context("jit_syntax_level")
    mindspore.set_context(mode=mindspore.GRAPH_MODE, jit_syntax_level=mindspore.STRICT)
    sys.modules[name] = module  # where MindSpore's parser looks the graph's global names up
    try:
        module.BuildsAlone().compile(mindspore.Tensor(shape=[2, 3], dtype=mindspore.float32))
    except Exception as exc:  # noqa: BLE001 -- the error is the answer
        return {"compiled": False, "type": type(exc).__name__, "message": str(exc)[:2000],
                "built": f"{callee}({arguments})"}
    finally:
        sys.modules.pop(name, None)
        mindspore.set_context(jit_syntax_level=level)
    return {"compiled": True, "built": f"{callee}({arguments})"}


class _OutOfTime(Exception):
    pass


def host_method_probe(instance, method: str, path: str, lines: list[int], seconds: float) -> dict:
    """Call ``instance.method()`` in PyNative, within ``seconds``, tracing the lines of ``path`` it runs:
    ``{"ran": the ``lines`` run, "error": None or {"type", "message", "line"}}``, ``line`` being the innermost
    line of ``path`` in the traceback (None when it raised elsewhere)."""
    import signal

    import mindspore

    def out_of_time(_signum, _frame):
        raise _OutOfTime(f"{method}() ran longer than {seconds:g} s")

    mode = mindspore.get_context("mode")
    previous_alarm = signal.signal(signal.SIGALRM, out_of_time)
    mindspore.set_context(mode=mindspore.PYNATIVE_MODE)
    error = None
    tracer = LinesRun(path, lines)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.1))
    try:
        with tracer:
            getattr(instance, method)()
    except _OutOfTime as exc:
        error = {"type": "timeout", "message": str(exc), "line": None}
    except Exception as exc:  # noqa: BLE001 -- where it raised is the answer
        error = {"type": type(exc).__name__, "message": str(exc)[:2000], "line": tracer.innermost_line(exc)}
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous_alarm)
        mindspore.set_context(mode=mode)
    return {"ran": sorted(tracer.ran), "error": error}


# ---------------------------------------------------------------------------------------------- the probe stage

def build_types_alone(worker, state: "JobState", outcome: Outcome) -> None:
    """The user types MS103 says the unit builds from tensor data, each built from a tensor in a Cell of its
    own, once the unit's module is imported."""
    built_types = state.job.get("built_types") or {}
    if not built_types or state.module is None or state.job.get("syntax_level", "strict") != "strict":
        return  # under LAX such types are interpreted: building one alone would decide nothing
    alone = outcome.probe_results()["built_alone"] = {}
    done: dict[tuple, dict] = {}
    for line, call in built_types.items():
        key = (call["callee"], call["positional"], tuple(call["keywords"]))
        if key not in done:
            done[key] = _run_probe(built_alone_probe, vars(state.module), call["callee"],
                                   call["positional"], call["keywords"], os.getcwd())
        alone[line] = done[key]


def stage_probe(worker, state: "JobState", outcome: Outcome) -> None:
    from mindspore import nn

    wanted = state.job.get("probes") or []
    results = outcome.probe_results()
    if "parameters" in wanted and isinstance(state.obj, nn.Cell):
        results["parameters"] = _run_probe(parameter_probe, state.obj)
    if "randomness" in wanted:
        if state.example is None and not outcome.concrete_inputs:
            results["randomness"] = {"skipped": "it needs an example with concrete inputs"}
        elif not outcome.compiled:
            results["randomness"] = {"skipped": "the Cell did not compile"}
        elif not outcome.concrete_inputs:
            results["randomness"] = {"skipped": "the example's inputs are placeholders without data"}
        else:
            results["randomness"] = _run_probe(randomness_probe, state.obj, state.inputs, state.eager)
    for name in ("output", "state"):
        if name not in wanted:
            continue
        if state.example is None:
            results[name] = {"skipped": "it needs an example with concrete inputs"}
        elif not outcome.compiled:
            results[name] = {"skipped": "the Cell did not compile"}
        elif not outcome.concrete_inputs:
            results[name] = {"skipped": "the example's inputs are placeholders without data"}
        elif name == "output":
            results[name] = _run_probe(output_probe, state.obj, state.inputs, state.eager)
        else:
            results[name] = _run_probe(state_probe, state.obj, state.inputs,
                                       state.job.get("state_names") or [], state.eager)
    if "gradient" in wanted:
        if not outcome.ran and not outcome.compiled:
            results["gradient"] = {"skipped": "the Cell did not run"}
        elif not outcome.concrete_inputs:
            results["gradient"] = {"skipped": "its inputs are placeholders without data"}
        else:
            results["gradient"] = _run_probe(gradient_probe, state.eager or state.obj, state.inputs)
    call_host_methods(worker, state, results)


def call_host_methods(worker, state: "JobState", results: dict) -> None:
    """Each host method holding findings that raise eagerly too, called on an instance of its own (a method
    such as ``switch_to_deploy`` changes the instance the retries still compile)."""
    wanted = state.job.get("host_calls") or {}
    if not wanted or state.obj is None:
        return
    called = results["host"] = {}
    for method, lines in wanted.items():
        if not state.time_left_for(_HOST_CALL_SECONDS):
            called[method] = {"skipped": "the job had no time left"}
            continue
        try:
            instance = instances.fresh_instance(worker, state)
        except Exception as exc:  # noqa: BLE001 -- building it again is what failed: nothing called
            called[method] = {"skipped": f"building the instance again failed: {first_line(exc)}"}
            continue
        called[method] = _run_probe(host_method_probe, instance, method, state.job["path"], lines,
                                    _HOST_CALL_SECONDS)


# The longest a host method called by ``call_host_methods`` may run.
_HOST_CALL_SECONDS = 20.0


def _has_name(dotted: str) -> bool | None:
    """Whether the installed MindSpore has ``module.name`` (an attribute, or a submodule imported or not); None
    when the module cannot be imported."""
    import importlib
    import importlib.util

    owner, _, name = dotted.rpartition(".")
    try:
        module = importlib.import_module(owner)
    except Exception:  # noqa: BLE001 -- the module is not there either: nothing to tell
        return None
    if hasattr(module, name):
        return True
    try:
        return importlib.util.find_spec(dotted) is not None
    except (ImportError, ValueError):
        return False


def rejected_keywords(dotted: str, keywords: list[str]) -> list[str] | None:
    """Which of ``keywords`` the Python function ``module.name`` of the installed packages (or the class, built by
    its Python ``__init__``: ``ops.L2Normalize(...)``) does not take (a call passing one raises TypeError wherever
    it runs); None when that cannot be read (not a plain function, it takes ``**kwargs``, or it is not there)."""
    parameters = _python_parameters(dotted)
    if parameters is None or any(p.kind == p.VAR_KEYWORD for p in parameters):
        return None
    taken = {p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    return [keyword for keyword in keywords if keyword not in taken]


def required_parameters(dotted: str, names: list[str]) -> dict[str, str] | None:
    """For each of ``names``, whether the Python function (or class) ``module.name`` of the installed packages
    has it ``required`` (no default: a call leaving it out raises TypeError wherever it runs), ``optional`` or
    ``absent``; None when its signature cannot be read."""
    parameters = _python_parameters(dotted)
    if parameters is None:
        return None
    named = {p.name: p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    return {name: "absent" if name not in named else "required" if named[name].default is named[name].empty
            else "optional" for name in names}


def _python_parameters(dotted: str) -> list | None:
    """The parameters of the function ``module.name``, or of the class's Python ``__init__`` (its own or a
    base's, bound: no ``self``; a ``Cell``'s and a ``Primitive``'s construction passes the call's arguments to
    it); None where there is no Python signature to trust (a builtin, a class whose ``__init__`` is C code, a name
    that is not there)."""
    import importlib
    import inspect

    owner, _, name = dotted.rpartition(".")
    try:
        function = getattr(importlib.import_module(owner), name)
        if not (inspect.isfunction(function.__init__) if inspect.isclass(function) else inspect.isfunction(function)):
            return None
        return list(inspect.signature(function).parameters.values())
    except Exception:  # noqa: BLE001 -- nothing to tell
        return None


def _call_on_tensors(method: str) -> dict:
    """``{receiver: {"call", "ran"} | {"call", "type", "message"}}``: ``method`` called with no argument on a
    MindSpore Tensor and on a Parameter, eagerly (an attribute lookup and a Python call: no graph involved)."""
    import numpy as np
    import mindspore

    results = {}
    for receiver in ("Tensor", "Parameter"):
        call = f"{receiver}([1.0, 2.0]).{method}()"
        try:
            value = mindspore.Tensor(np.array([1.0, 2.0], np.float32))
            if receiver == "Parameter":
                value = mindspore.Parameter(value, name="ms_lint_probe")
            getattr(value, method)()
        except Exception as exc:  # noqa: BLE001 -- what the call raises is the result
            results[receiver] = {"call": call, "type": type(exc).__name__, "message": exception_message(exc)}
        else:
            results[receiver] = {"call": call, "ran": True}
    return results


def _run_probe(probe, *args) -> dict:
    try:
        return probe(*args)
    except Exception as exc:  # noqa: BLE001 -- a probe that fails leaves the finding inconclusive
        return {"error": first_line(exc)}
