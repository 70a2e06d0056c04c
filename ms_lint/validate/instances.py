"""The worker's ``instance`` stage: the unit's Cell built (from its registered example, or by the ways
``building`` finds: the module's own constructor calls, a config, arguments guessed from their names) and its
inputs made (placeholders from the construct signature, or the configured input specs); the constant conditions
over the finding lines read on the built instance (``reach``), and the construction lines building skipped built
again with the argument that runs them.

A build that raises because the device has no kernel for an operator is tried again with that operator computed on
the host (``fallbacks``). When every way of building raises, the first error is the job's (MS205 raises there),
and the ``fix_construction`` the job loop hands the stage (``retrying.past_construction_error``) builds it again
with the lines that stopped it fixed.
"""
from __future__ import annotations

import inspect
import re
import sys
import time
from typing import TYPE_CHECKING

from ms_lint.validate.outcome import Outcome, exception_message, first_line
from ms_lint.validate.tracing import LinesRun

if TYPE_CHECKING:
    from ms_lint.validate.jobs import JobState


def stage_instance(worker, state: "JobState", outcome: Outcome, *, fix_construction) -> None:
    """Build the instance and make its inputs; when building raises, ``fix_construction(worker, state, outcome,
    error)`` (a later stage's, handed over by the job loop) builds and compiles it again with the lines that
    stopped it fixed, and the construction error is raised as the job's."""
    state.building = time.monotonic()
    try:
        build_instance(worker, state, outcome)
    except Exception as exc:
        if outcome.stage == "construction":
            try:
                fix_construction(worker, state, outcome, exc)
            except Exception as failure:  # noqa: BLE001 -- the construction error stays the job's result
                outcome.stage = "construction"
                outcome.notes.append(f"applying a fix in memory failed: {first_line(failure)}")
        raise
    if not state.stop and state.obj is not None and state.job.get("guards"):
        outcome.reach = evaluate_reach(worker, state, state.obj)
    build_with_switches(worker, state, outcome)


def build_with_switches(worker, state: "JobState", outcome: Outcome) -> None:
    """Construction lines building skipped, built again with the argument that runs them (``reach``'s
    ``build_retries``), each build traced and recorded with where it raised."""
    skipped = set(state.job.get("construction_lines") or ()) - set(outcome.built_lines or ())
    planned = [retry for retry in state.job.get("build_retries") or () if skipped & set(retry["lines"])]
    if state.arguments is None or not planned or not isinstance(state.target, type):
        return
    results = outcome.build_retries = []
    for retry in planned:
        if not state.time_left_for(time.monotonic() - state.building):
            outcome.notes.append("stopped building again to stay within the job's time limit")
            return
        result = {"description": f"{retry['parameter']}={retry['value']!r}", "lines": retry["lines"],
                  "error": None}
        args, kwargs = with_argument(state.target, state.arguments, retry["parameter"], retry["value"])
        lines_run = LinesRun(state.job["path"], retry["lines"])
        try:
            with lines_run:
                build(worker, state, lambda: state.target(*args, **kwargs))
        except Exception as exc:  # noqa: BLE001 -- where it raised is the answer
            result["error"] = {"type": type(exc).__name__, "message": exception_message(exc)[:2000],
                               "line": lines_run.innermost_line(exc)}
        result["ran"] = sorted(lines_run.ran)
        results.append(result)


def evaluate_reach(worker, state: "JobState", obj, gradient: bool = False) -> dict:
    from mindspore import nn

    from ms_lint.validate.reach import evaluate, kept_defaults, rebound_names, rebound_values

    is_cell = isinstance(obj, nn.Cell)
    entry = getattr(obj, "construct", None) if is_cell else (getattr(obj, "__wrapped__", None) or obj)
    # An argument the function assigns again (return_dict = return_dict or self.config...) is not its default:
    # it holds what that assignment gives, when it reads plain values only.
    rebound = rebound_names(entry)
    passed = _positional_names(entry)[:len(state.inputs)]
    # An input passed as None (``past_key_values=None``, as the Cell that builds it calls it) is a constant the
    # graph folds, as a default is; the others are tensors, compiled on both sides of a condition on them.
    constants = {name: None for name, value in zip(passed, state.inputs) if value is None}
    given = {**_plain_defaults(entry, given=len(state.inputs), skip_first=False), **constants,
             **state.extra_arguments}
    defaults = {name: value for name, value in given.items() if name not in rebound}
    # One assigned again only in a branch its value skips (``if mask is not None: mask = ...``) keeps it.
    defaults.update(kept_defaults(entry, {name: value for name, value in given.items() if name in rebound}))
    defaults.update(rebound_values(entry, given, instance=obj if is_cell else None))
    name = "construct" if is_cell else state.job["qualname"].split(".")[-1]
    tensors = frozenset(name for name in passed if name not in constants)
    return evaluate(state.job.get("guards") or {}, obj if is_cell else None, defaults, entry=name,
                    tensors=tensors, gradient=gradient, instances=state.job.get("instances"))


def build_instance(worker, state: "JobState", outcome: Outcome) -> None:
    from mindspore import nn

    target = state.target
    job = state.job
    is_cell_class = isinstance(target, type) and issubclass(target, nn.Cell)
    is_jit_function = callable(target) and getattr(target, "__wrapped_by_jit__", False)
    call_parameters: list[str] | None = None
    if is_cell_class:
        outcome.kind = "cell"
        call_parameters = _call_parameters(getattr(target, "construct", None), skip_first=True)
        required = _required_parameters(target.__init__, skip_first=True)
        outcome.signature = {"init": required, "call": call_parameters or []}
    elif is_jit_function:
        outcome.kind = "jit function"
        outcome.effective_level = jit_level(target)
        call_parameters = _call_parameters(target, skip_first=False)
        required = []
        outcome.signature = {"init": [], "call": call_parameters or []}

    if state.example is not None:
        from ms_lint.examples import normalize_example_result

        outcome.instance = "example"
        outcome.stage = "example"
        with LinesRun(job["path"], job.get("construction_lines") or ()) as lines_run:
            obj, inputs = normalize_example_result(job["target"], state.example())
        outcome.built_lines = sorted(lines_run.ran)
        state.obj, state.inputs = obj, inputs
        state.eager = getattr(obj, "__wrapped__", None)
        outcome.inputs = [describe(value) for value in inputs]
        outcome.concrete_inputs = all(is_concrete(value) for value in inputs)
        if getattr(obj, "__wrapped_by_jit__", False):
            outcome.effective_level = jit_level(obj)
        return

    if not (is_cell_class or is_jit_function):
        outcome.status = "not_compilable"
        if isinstance(target, nn.Cell):
            outcome.message = f"{job['qualname']} is a Cell instance, not a class: register an example for it"
        else:
            kind = "class" if isinstance(target, type) else type(target).__name__
            outcome.message = (
                f"{job['qualname']} is a {kind}, not a Cell subclass or a @jit function: the validator "
                f"compiles the Cell that uses it, or an example registered for it"
            )
        state.stop = True
        return
    if call_parameters is None:
        outcome.status = "needs_example"
        outcome.needs = f"{job['qualname']} has keyword-only parameters without defaults"
        state.stop = True
        return
    if is_cell_class and job.get("own_examples") \
            and from_own_example(worker, state, outcome, target, call_parameters):
        return
    config = None
    if is_cell_class:
        state.call_parameters = call_parameters
        recipe = construct(worker, state, outcome, target, required)
        if recipe is None:
            outcome.status = "needs_example"
            outcome.needs = f"{job['qualname']}() needs {', '.join(required)}"
            state.stop = True
            return
        config = recipe.config
    else:
        outcome.instance = "default"
        outcome.built = f"the @jit function {job['qualname']}"
        state.obj = target
        state.eager = getattr(target, "__wrapped__", None)
    make_inputs(worker, state, outcome, state.obj, call_parameters, config, is_cell_class)


# The longest one of the project's own examples may run before it builds and calls the Cell.
EXAMPLE_SECONDS = 30.0


def from_own_example(worker, state: "JobState", outcome: Outcome, target, call_parameters: list[str]) -> bool:
    """The Cell built, and called, by the first of the project's own examples that builds it (``own_examples``:
    its docstring examples, its tests, its scripts), each run as its user would (``capturing``); its inputs are
    those of that call, else made as for any Cell. Why each example before it gave nothing goes in the notes.
    False when none built it."""
    from ms_lint.validate import capturing
    from ms_lint.validate.own_examples import describe as described

    job = state.job
    for example in job["own_examples"]:
        if example["kind"] == "skipped":  # left out by planning (a download): why goes in the notes
            outcome.notes.append(example["why"])
            continue
        what = described(example, job.get("project_root"))
        left = float(job.get("timeout") or 120.0) * 0.8 - (time.monotonic() - state.started)
        if left < 5:
            outcome.notes.append(f"{what} was not run: the job had no time left")
            break
        with LinesRun(job["path"], job.get("construction_lines") or ()) as lines_run:
            captured = capturing.run_example(example, target, state.module, min(EXAMPLE_SECONDS, left / 2),
                                             job["import_root"])
        if captured.instance is None:
            why = capturing.reason_text(captured.error) if captured.error else \
                f"it does not build a {job['qualname']}"
            outcome.notes.append(f"{what} could not be used: {why}")
            continue
        state.obj = captured.instance
        state.arguments = captured.arguments
        outcome.built_lines = sorted(lines_run.ran)
        outcome.instance = f"{example['kind']} example"
        outcome.built = f"{what}: {_call_text(job['qualname'], *captured.arguments)}"
        if captured.error:
            outcome.notes.append(f"{what} stopped after building it: {capturing.reason_text(captured.error)}")
        if captured.call is None or job.get("input_specs"):
            make_inputs(worker, state, outcome, state.obj, call_parameters, None, True)
            if captured.call is None:
                outcome.notes.append(f"{what} does not call it: its inputs were made from construct's signature")
            return True
        inputs, named = capturing.inputs_of(target, captured.call)
        state.inputs, state.extra_arguments = inputs, named
        names = _positional_names(getattr(target, "construct", None))[1:]
        outcome.inputs = [describe(value) for value in inputs]
        outcome.inputs_how = [f"{names[index] if index < len(names) else index}: {describe(value)}, from {what}"
                              for index, value in enumerate(inputs)]
        outcome.concrete_inputs = all(is_concrete(value) for value in inputs)
        outcome.left_at_none = [name for name, value in _plain_defaults(
            state.obj.construct, given=len(inputs), skip_first=False).items() if value is None and name not in named]
        return True
    return False


def _call_text(qualname: str, args: tuple, kwargs: dict) -> str:
    """``FullyConnectedNet([4, 10, 6], tanh)``: the constructor call an example made, its arguments shown briefly
    (a tensor by its shape, a function by its name, another object by its type)."""
    shown = ", ".join([_argument(value) for value in args] + [f"{name}={_argument(value)}"
                                                              for name, value in kwargs.items()])
    text = f"{qualname}({shown})"
    return text if len(text) <= 120 else text[:117] + "..."


def _argument(value) -> str:
    if getattr(value, "shape", None) is not None and getattr(value, "dtype", None) is not None:
        return describe(value)
    if inspect.isfunction(value) or inspect.isbuiltin(value) or inspect.isclass(value):
        return getattr(value, "__name__", type(value).__name__)
    if value is None or isinstance(value, (bool, int, float, str)) or (
            isinstance(value, (list, tuple, dict)) and len(repr(value)) <= 40):
        text = repr(value)
        return text if len(text) <= 40 else text[:37] + "..."
    return f"<{type(value).__name__}>"


def make_inputs(worker, state: "JobState", outcome: Outcome, obj, call_parameters: list[str], config,
                is_cell_class: bool) -> None:
    if state.job.get("input_specs"):
        state.inputs = placeholders(worker, call_parameters, state.job.get("input_specs"))
        outcome.inputs_how = ["from [tool.ms-lint.validate.inputs]"]
    else:
        from ms_lint.validate.building import first_optional_input, input_placeholders

        if not call_parameters and is_cell_class:
            # construct(self, input_ids=None, ...): without it most models raise before the hazards.
            call_parameters = first_optional_input(obj, config)
        state.inputs, outcome.inputs_how, state.sequence_inputs = input_placeholders(obj, call_parameters, config)
    outcome.inputs = [describe(value) for value in state.inputs]
    outcome.concrete_inputs = all(is_concrete(value) for value in state.inputs)
    if is_cell_class:
        # What the compile leaves at None: a None in its error may come from one of them.
        outcome.left_at_none = [name for name, value in _plain_defaults(
            obj.construct, given=len(state.inputs), skip_first=False).items() if value is None]


def construct(worker, state: "JobState", outcome: Outcome, target, required: list[str]):
    """Build the Cell the first way that works (see ``building``); None when there is no way to try. When
    every way raises, the first error is raised (a construction error is a result: MS205 raises there)."""
    from ms_lint.validate import building

    job = state.job
    class_name = job["qualname"].split(".")[-1]
    recipes = building.constructor_calls(state.module, job["path"], class_name) if "." not in job["qualname"] \
        else []
    if not required:
        recipes.append(building.Recipe("defaults", f"{job['qualname']}() (no arguments)"))
    else:
        recipes.extend(building.config_recipes(target, state.module, required))
        # A Cell taking Cells in a list (``MultiControlNetModel(controlnets)``): one element of the class named.
        for recipe in (element_lists(target, state.module, required),
                       building.guessed_arguments(target, required)):
            if recipe is not None:
                recipes.append(recipe)
    if not recipes:
        return None
    outcome.stage = "construction"
    first_error = None
    tried = []
    for recipe in recipes:
        try:
            with LinesRun(job["path"], job.get("construction_lines") or ()) as lines_run:
                obj, recipe = build_completing_config(worker, state, target, recipe)
        except _BuildFailed as failed:  # the next way may work
            exc, recipe = failed.error, failed.recipe
            tried.append(recipe.description)
            if first_error is None:
                first_error = (exc, recipe)
            continue
        state.obj = obj
        state.arguments = (recipe.args, dict(recipe.kwargs))
        outcome.built_lines = sorted(lines_run.ran)
        outcome.instance = "default" if recipe.how == "defaults" else recipe.how
        outcome.built = recipe.description + _on_host(state.host_used, worker.device)
        if recipe.guessed_sizes:
            outcome.guessed_sizes = [f"{name}={value!r}" for name, value in recipe.guessed_sizes.items()]
        if recipe.guessed:
            outcome.guessed_arguments = [f"{name}={value!r}" for name, value in recipe.guessed.items()]
        if state.host_used:
            outcome.host_operators = sorted(state.host_used)
        if tried:
            outcome.notes.append(f"building it as {tried[0]} raised first")
        return recipe
    exc, recipe = first_error
    state.failed_recipe = recipe
    outcome.instance = "default" if recipe.how == "defaults" else recipe.how
    outcome.built = recipe.description
    if recipe.guessed:  # a line raising while building with guessed values shows the hazard by probe only
        outcome.guessed_arguments = [f"{name}={value!r}" for name, value in recipe.guessed.items()]
    if state.host_kernels:
        outcome.host_operators = sorted(state.host_kernels)
    outcome.tried = tried
    raise exc


def build_completing_config(worker, state: "JobState", target, recipe):
    """``(instance, the recipe that built it)``; a config field the defaults leave None that the constructor
    reads as a mapping or a number is filled in and the build tried again (``building.completed_config``), and so
    is an optional argument left None that the constructor uses as a size (``building.completed_arguments``)."""
    from ms_lint.validate import building

    completions = 0
    while True:
        try:
            return build(worker, state, lambda: target(*recipe.args, **recipe.kwargs)), recipe
        except Exception as exc:  # noqa: BLE001 -- raised again unless a None field explains it
            completed = None
            if completions < building.MAX_COMPLETIONS:
                completed = building.completed_config(recipe, exc) or building.completed_arguments(target, recipe, exc)
            if completed is None:
                raise _BuildFailed(exc, recipe) from exc
            recipe, completions = completed, completions + 1


def build(worker, state: "JobState", build):
    """``build()``; when it raises because the device has no kernel for an operator, again with the functions
    that dispatch to it computed on the host (see ``fallbacks``), only while it runs."""
    from ms_lint.validate.fallbacks import build_with_fallbacks

    return build_with_fallbacks(build, lambda: user_namespaces(worker), state.host_kernels, state.host_used)


def user_namespaces(worker) -> list[dict]:
    """The globals of the modules imported since start-up (the user's and their dependencies')."""
    return [vars(module) for name, module in list(sys.modules.items())
            if module is not None and name.split(".")[0] not in worker.baseline_modules]


def placeholders(worker, names: list[str], specs: list[str] | None) -> tuple:
    import mindspore

    from ms_lint.validate.project import parse_input_spec

    inputs = []
    for index, _ in enumerate(names):
        if specs and index < len(specs):
            dtype, shape = parse_input_spec(specs[index])
        else:
            dtype, shape = "float32", None
        inputs.append(mindspore.Tensor(shape=[-2] if shape is None else shape, dtype=getattr(mindspore, dtype)))
    return tuple(inputs)


def fresh_instance(worker, state: "JobState"):
    if state.arguments is not None:
        args, kwargs = state.arguments
        return build(worker, state, lambda: state.target(*args, **kwargs))
    from ms_lint.examples import normalize_example_result

    return normalize_example_result(state.job["target"], state.example())[0]


class _BuildFailed(Exception):
    """Building raised ``error`` with ``recipe``, the last way tried."""

    def __init__(self, error: Exception, recipe):
        super().__init__(str(error))
        self.error, self.recipe = error, recipe


def _on_host(operators: set[str], device: str) -> str:
    if not operators:
        return ""
    return f"; computed on the host while building it (no {device} kernel): {', '.join(sorted(operators))}"


def _required_parameters(function, skip_first: bool) -> list[str]:
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return []
    parameters = list(signature.parameters.values())
    if skip_first and parameters and parameters[0].kind in (
        inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD
    ):
        parameters = parameters[1:]
    return [
        parameter.name for parameter in parameters
        if parameter.default is inspect.Parameter.empty
        and parameter.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    ]


def _positional_names(function) -> list[str]:
    try:
        return [parameter.name for parameter in inspect.signature(function).parameters.values()
                if parameter.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        return []


def with_argument(target, arguments: tuple, name: str, value) -> tuple:
    """The constructor's ``(args, kwargs)`` with ``name`` set to ``value``, whether it was passed by position,
    by keyword or not at all."""
    args, kwargs = arguments
    try:
        bound = inspect.signature(target).bind_partial(*args, **kwargs)
    except (TypeError, ValueError):
        return args, {**kwargs, name: value}
    bound.arguments[name] = value
    return bound.args, bound.kwargs


def _plain_defaults(function, given: int, skip_first: bool) -> dict:
    """The parameters of ``function`` past the ``given`` inputs that keep a plain default (None, a bool, a
    number, a string): what a condition on them reads when the graph is built."""
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return {}
    if skip_first and parameters:
        parameters = parameters[1:]
    result = {}
    for index, parameter in enumerate(parameters):
        if index < given or parameter.default is inspect.Parameter.empty:
            continue
        if isinstance(parameter.default, (bool, int, float, str, type(None))):
            result[parameter.name] = parameter.default
    return result


def _call_parameters(function, skip_first: bool) -> list[str] | None:
    """Positional parameters without default (each gets an input); None when a keyword-only one needs a value."""
    if function is None:
        return []
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return []
    parameters = list(signature.parameters.values())
    # The instance, whatever its name: a ``construct(ctx, x)`` is called with one input, as Python binds it.
    if skip_first and parameters and parameters[0].kind in (inspect.Parameter.POSITIONAL_ONLY,
                                                            inspect.Parameter.POSITIONAL_OR_KEYWORD):
        parameters = parameters[1:]
    names = []
    for parameter in parameters:
        if parameter.default is not inspect.Parameter.empty:
            continue
        if parameter.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
            names.append(parameter.name)
        elif parameter.kind == inspect.Parameter.KEYWORD_ONLY:
            return None
    return names


def jit_level(function) -> str:
    """The level a @jit function compiles at: its own ``fullgraph`` decides (True: STRICT, else LAX)."""
    for cell in getattr(function, "__closure__", None) or ():
        try:
            config = cell.cell_contents
        except ValueError:
            continue
        level = getattr(config, "jit_config_dict", {}) if config is not None else {}
        if isinstance(level, dict) and level.get("jit_syntax_level"):
            return str(level["jit_syntax_level"]).lower()
    return "lax"


def describe(value) -> str:
    shape = getattr(value, "shape", None)
    dtype = getattr(value, "dtype", None)
    if shape is not None and dtype is not None:
        return f"Tensor(shape={list(shape)}, dtype={dtype})"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def is_concrete(value) -> bool:
    shape = getattr(value, "shape", None)
    if shape is None:
        return True
    return all(isinstance(dim, int) and dim >= 0 for dim in shape)


# ``List[ControlNetModel]``, ``Tuple[X]``, ``Sequence[X]``: the class a list argument holds, in an annotation or in
# the docstring's entry for the parameter (``controlnets (`List[SD3ControlNetModel]`):``)
_LIST_OF = r"\b(?:List|Tuple|Sequence|list|tuple)\[\s*(?:[\w.]+\.)?(\w+)"


def element_lists(target, module, required: list[str]):
    """For a Cell that takes Cells in a list (``MultiControlNetModel(controlnets)``), each required argument a list
    of one element of the class its annotation or its docstring names, built from its own defaults (or from
    arguments guessed from their names: then the recipe says so), as a ``building.Recipe``; None when an argument
    names no such class or its element cannot be built."""
    from ms_lint.validate.building import Recipe, guessed_arguments

    kwargs, shown, guessed = {}, [], {}
    try:
        parameters = inspect.signature(target.__init__).parameters
    except (TypeError, ValueError):
        return None
    doc = inspect.getdoc(target) or ""
    for name in required:
        annotation = parameters[name].annotation if name in parameters else None
        texts = [str(annotation) if annotation is not inspect.Parameter.empty else ""]
        texts += re.findall(rf"^\s*{re.escape(name)}\s*\((.*)\)\s*:", doc, re.MULTILINE)
        names = [match for text in texts for match in re.findall(_LIST_OF, text)]
        namespace = vars(module) if module is not None else {}
        element_class = next((namespace.get(found) or getattr(inspect.getmodule(target), found, None)
                              for found in names), None)
        if not isinstance(element_class, type) or not hasattr(element_class, "construct"):
            return None
        try:
            items = list(inspect.signature(element_class.__init__).parameters.values())[1:]
        except (TypeError, ValueError):
            return None
        element_required = [item.name for item in items
                            if item.default is item.empty and item.kind not in (item.VAR_POSITIONAL, item.VAR_KEYWORD)]
        recipe = guessed_arguments(element_class, element_required) if element_required else Recipe(
            "defaults", f"{element_class.__name__}()")
        if recipe is None:
            return None
        try:
            element = element_class(*recipe.args, **recipe.kwargs)
        except Exception:  # noqa: BLE001 -- the element's own constructor raised: no list to give
            return None
        kwargs[name] = [element]
        guessed.update({f"{element_class.__name__}.{key}": value for key, value in recipe.guessed.items()})
        shown.append(f"{name}=[{recipe.description.split(', arguments guessed')[0]}]")
    return Recipe("element list", f"{target.__name__}({', '.join(shown)}), a list of one element of the class its "
                  f"annotation or docstring names", kwargs=kwargs, guessed=guessed)
