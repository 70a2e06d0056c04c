"""Fix-and-retry, the worker's last stages: compiles that decide what the first compile could not.

``stage_retry``: a finding line a constant condition left out of the graph (``self.training``, a constructor flag,
an argument left at its default, a custom ``bprop``) is compiled again with it switched on, each retry recorded on
its own. ``stage_fix``: a compile that stopped at a line with a finding whose rule has a line-keeping fix is run
again with that fix applied to the module's source in memory (``fixing``), up to ``fixing.MAX_FIXES`` lines; a line
without such a fix is stood in for, left out, or passed under LAX. ``fix_construction`` does the same for a build
that raised at a finding's line (``past_construction_error``, which the job loop hands the instance stage, runs it
and the retries after it). Each attempt is a plain dict in the outcome's ``retries`` or ``fixes``.
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ms_lint.validate import compiling, instances
from ms_lint.validate.expectations import expectation_for
from ms_lint.validate.locations import location_lines, parse_locations, same_file
from ms_lint.validate.outcome import Outcome, exception_message, record_exception, user_traceback
from ms_lint.validate.reach import ARGUMENT_RETRY, BPROP, GRADIENT_RETRY, reads_instance

if TYPE_CHECKING:
    from ms_lint.validate.jobs import JobState


def stage_retry(worker, state: "JobState", outcome: Outcome, after_construction_fixes: bool = False) -> None:
    """A line under a constant condition that was False is not compiled: compile again with it switched on
    (train mode; a boolean constructor argument; both, for a line under both), each retry recorded on its
    own."""
    # After building failed: built with the lines that stopped it fixed, what the last such compile left out.
    if after_construction_fixes:
        last = outcome.fixes[-1]
        reach, compiled, error = last.get("reach"), last.get("compiled"), last.get("error")
    else:
        reach, compiled, error = outcome.reach, outcome.compiled, outcome.error
    blocked = [entry.get("condition") or "" for entry in (reach or {}).values() if entry.get("reached") is False]
    # Also after a failed compile: the failing line may be one the switched-on instance leaves out.
    if not blocked or not (compiled or (error or {}).get("stage") == "compile"):
        return
    from mindspore import nn

    planned = state.job.get("retries") or []
    parameters = state.job.get("instances")  # each method's instance parameter: what a condition reads it by
    is_cell = isinstance(state.obj, nn.Cell) or (state.obj is None and isinstance(state.target, type)
                                                 and issubclass(state.target, nn.Cell))
    trainable = is_cell and (state.arguments is not None or state.example is not None)
    results: list[dict] = []
    for retry in planned:
        if retry["name"] == GRADIENT_RETRY:
            if not any(condition.startswith(f"{BPROP}()") for condition in blocked) or not trainable:
                continue
            if not retry_once(worker, state, outcome, results, retry["name"], "the gradient taken (bprop compiled)",
                              gradient=True):
                break
        elif retry["name"] == ARGUMENT_RETRY:
            if retry["source"] not in blocked or not trainable:
                continue
            if not retry_once(worker, state, outcome, results, retry["name"],
                              f"{retry['parameter']}={retry['value']!r} passed to construct",
                              argument={retry["parameter"]: retry["value"]}):
                break
        elif retry["name"] == "train":
            if not any(reads_instance(condition, "training", parameters) for condition in blocked) or not trainable:
                continue
            if not retry_once(worker, state, outcome, results, retry["name"], "set_train(True)", train=True):
                break
        else:
            if not any(reads_instance(condition, retry["attribute"], parameters) for condition in blocked) \
                    or state.arguments is None:
                continue
            retry = against_arguments(state, retry)
            if not retry_once(worker, state, outcome, results, retry["name"],
                              f"{retry['parameter']}={retry['value']!r}", flag=retry):
                break
    # A line under a flag and self.training both (if self.training: inside if self.quant_mode:).
    flag = next((against_arguments(state, retry) for retry in planned if retry["name"] == "flag"), None)
    still = [entry.get("condition") or "" for result in results
             for entry in (result.get("reach") or {}).values() if entry.get("reached") is False]
    if flag and trainable and state.arguments is not None and any(r["name"] == "train" for r in planned) \
            and any(reads_instance(c, "training", parameters) or reads_instance(c, flag["attribute"], parameters)
                    for c in still):
        retry_once(worker, state, outcome, results, "both",
                   f"{flag['parameter']}={flag['value']!r} and set_train(True)", train=True, flag=flag)
    if results:
        outcome.retries = results


def against_arguments(state: "JobState", retry: dict) -> dict:
    """A flag retry whose value the instance was built with already (an example of the project passed
    ``get_feat=True``, the value the defaults lack) switches it the other way."""
    import inspect

    value = retry.get("value")
    if not isinstance(value, bool) or state.arguments is None or not isinstance(state.target, type):
        return retry
    args, kwargs = state.arguments
    try:
        bound = inspect.signature(state.target).bind_partial(*args, **kwargs).arguments
    except (TypeError, ValueError):
        return retry
    return {**retry, "value": not value} if bound.get(retry["parameter"], None) is value else retry


def retry_once(worker, state: "JobState", outcome: Outcome, results: list, name: str, description: str,
               train: bool = False, flag: dict | None = None, gradient: bool = False,
               argument: dict | None = None) -> bool:
    """One retry, appended to ``results``; False when there was no time left for it. With ``gradient``, what
    is compiled is the Cell's gradient, which compiles its custom ``bprop``; ``argument`` is passed to
    ``construct`` by name besides the inputs."""
    if not state.time_left_for(time.monotonic() - state.building):
        outcome.notes.append("stopped compiling again to stay within the job's time limit")
        return False
    state.extra_arguments = dict(argument or {})
    try:
        return retry_with(worker, state, outcome, results, name, description, train, flag, gradient)
    finally:
        state.extra_arguments = {}


def retry_with(worker, state: "JobState", outcome: Outcome, results: list, name: str, description: str,
               train: bool, flag: dict | None, gradient: bool) -> bool:
    result = {"name": name, "description": description}
    results.append(result)
    outcome.stage = "retry"
    start = worker.capture.size() if worker.capture else 0
    try:
        result["stage"] = "construction"
        if flag is not None:
            args, kwargs = instances.with_argument(state.target, state.arguments, flag["parameter"], flag["value"])
            obj = instances.build(worker, state, lambda: state.target(*args, **kwargs))
        else:
            # A fresh instance: compile() reuses the graph it built for the same object and inputs.
            obj = instances.fresh_instance(worker, state)
        if train:
            obj.set_train(True)
        result["reach"] = instances.evaluate_reach(worker, state, obj, gradient=gradient)
        result["stage"] = "compile"
        compiling.compile_guessing_ranks(worker, state, outcome, compiling.compiled_for(obj, gradient))
        result["compiled"] = True
    except Exception as exc:  # noqa: BLE001 -- a failing retry is a result like a failing compile
        record_exception(result, exc, result.get("stage", "compile"))
        result["compiled"] = False
    finally:
        if worker.capture:
            result["compile_log"] = location_lines(worker.capture.read_from(start))
    if not result["compiled"] and state.arguments is not None and isinstance(state.target, type):
        # The switched-on lines may stop at a finding of their own: get past it as the default compile does.
        args, kwargs = state.arguments
        if flag is not None:
            args, kwargs = instances.with_argument(state.target, state.arguments, flag["parameter"], flag["value"])

        def switch_on(obj):
            if train:
                obj.set_train(True)

        fixes = fix_and_rebuild(worker, state, outcome, args, kwargs,
                                lambda obj, _: compiling.compile_guessing_ranks(worker, state, outcome,
                                                                                compiling.compiled_for(obj, gradient)),
                                first=result, prepare=switch_on, gradient=gradient)
        outcome.stage = "retry"
        if fixes:
            result["fixes"] = fixes
    return True


def stage_fix(worker, state: "JobState", outcome: Outcome) -> None:
    """The compile stopped at a line with a finding whose rule has a fix that keeps the line numbers: compile
    again with that fix applied to the module's source in memory, up to ``MAX_FIXES`` lines, each compile
    recorded with the fixes it had."""
    from ms_lint.validate.fallbacks import backend_kernel_failure

    error = outcome.error or {}
    if outcome.compiled or error.get("stage") != "compile" or state.arguments is None \
            or not isinstance(state.target, type) or backend_kernel_failure(error.get("message") or ""):
        return
    args, kwargs = state.arguments
    results = fix_and_rebuild(worker, state, outcome, args, kwargs,
                              lambda obj, result: compiling.compile_guessing_ranks(worker, state, outcome, obj))
    if results:
        outcome.fixes = results


def past_construction_error(worker, state: "JobState", outcome: Outcome, exc: Exception) -> None:
    """Building the Cell raised ``exc`` (the instance stage's ``fix_construction``, handed to it by the job loop):
    build and compile it again with the lines that stopped it fixed, then the retries from the same build."""
    fix_construction(worker, state, outcome, exc)
    retry_after_construction_fixes(worker, state, outcome)


def fix_construction(worker, state: "JobState", outcome: Outcome, exc: Exception) -> None:
    """Building the Cell raised at a line, in any module of the project, with a finding whose fix keeps the
    line numbers (MS205 raises in the constructor): build and compile again with it fixed in memory, the
    compile-stage fixes following. The job's error stays the construction error: that finding is confirmed
    by it; the attempts decide the others."""
    recipe = state.failed_recipe
    if recipe is None or not isinstance(state.target, type):
        return
    probe = {"error": {"stage": "construction", "type": type(exc).__name__, "message": exception_message(exc),
                       "traceback": user_traceback(exc)}}
    inputs_ready = []

    def make_inputs(obj):
        # before the reach conditions are read: they depend on which construct arguments the compile passes
        if not inputs_ready:
            instances.make_inputs(worker, state, outcome, obj, state.call_parameters, recipe.config, is_cell_class=True)
            inputs_ready.append(True)

    def build_inputs_and_compile(obj, result):
        state.obj = obj
        # Inputs of any rank are given a rank when the compile needs one, as for a Cell that built.
        attempt = Outcome(instance=outcome.instance, inputs_how=outcome.inputs_how)
        try:
            compiling.stage_compile(worker, state, attempt)
        finally:
            state.obj = None
            outcome.inputs_how = attempt.inputs_how
            if attempt.inputs is not None:
                outcome.inputs = attempt.inputs
            if attempt.concrete_inputs is not None:
                result["concrete_inputs"] = attempt.concrete_inputs

    try:
        results = fix_and_rebuild(worker, state, outcome, recipe.args, recipe.kwargs, build_inputs_and_compile,
                                  first=probe, prepare=make_inputs)
    finally:
        outcome.stage = "construction"
    if results:
        outcome.fixes = results


def retry_after_construction_fixes(worker, state: "JobState", outcome: Outcome) -> None:
    """The Cell was built and compiled only with the lines that stopped building fixed: the retries (train mode,
    a flag) start from the same failing build, and get past it the same way."""
    recipe = state.failed_recipe
    if not outcome.fixes or recipe is None or not isinstance(state.target, type):
        return
    state.arguments = (recipe.args, dict(recipe.kwargs))
    try:
        stage_retry(worker, state, outcome, after_construction_fixes=True)
    finally:
        state.arguments = None
        outcome.stage = "construction"


def fix_and_rebuild(worker, state: "JobState", outcome: Outcome, args, kwargs, compile_obj,
                    first: dict | None = None, prepare=None, gradient: bool = False) -> list[dict]:
    """Up to ``MAX_FIXES`` attempts, each with one more line fixed: the line where the last attempt (first
    ``first``, else the outcome) failed, building from the fixed copies (``fixing.fixed_modules``);
    ``prepare(obj)`` runs on each built instance before its reach conditions are read and it is compiled.
    An attempt whose copies fail to run (a module registering a class a second time) ends the attempts and
    decides nothing: its error says nothing of the Cell."""
    level = state.job.get("syntax_level", "strict")
    fixed_sources: dict[str, str] = {}
    # What the next fix is looked for in: the error and compile log of the last attempt, first the outcome's.
    results, fixed, last = [], [], first or {"error": outcome.error, "compile_log": outcome.compile_log}
    attempt_seconds = time.monotonic() - state.building  # the first build and compile: what one more costs
    try:
        apply_fixes(worker, state, outcome, args, kwargs, compile_obj, prepare, gradient, level, fixed_sources,
                    results, fixed, last, attempt_seconds)
    finally:
        if state.lax:
            switch_to_lax(worker, state, False)
    return results


def switch_to_lax(worker, state: "JobState", on: bool = True) -> None:
    import mindspore

    state.lax = on
    level = "LAX" if on else state.job.get("syntax_level", "strict").upper()
    mindspore.set_context(jit_syntax_level=getattr(mindspore, level))


def apply_fixes(worker, state: "JobState", outcome: Outcome, args, kwargs, compile_obj, prepare, gradient: bool,
                level: str, fixed_sources: dict, results: list, fixed: list, last: dict,
                attempt_seconds: float) -> None:
    from ms_lint.validate import fixing

    for _ in range(fixing.MAX_FIXES):
        if not state.time_left_for(attempt_seconds):
            outcome.notes.append("stopped applying fixes to stay within the job's time limit")
            break
        attempt_started = time.monotonic()
        found = next_fix(worker, state, last, fixed_sources, fixed, level)
        if found is None:
            break
        name, path, line, source, codes, skipped, how = found
        if how == STAND_IN_STEP:
            codes, stood_in = codes
        fixed_sources[name] = source
        place = {"line": line, **({} if name == state.module.__name__ else {"path": path})}
        if how == LAX_STEP:
            fixed.append({"code": "/".join(codes), "lax": True, **place})
            switch_to_lax(worker, state)
        elif how == STAND_IN_STEP:
            fixed.extend({"code": code, "stood_in": stood_in, **place} for code in codes)
        elif skipped is None:
            fixed.extend({"code": code, **place} for code in codes)
        else:
            fixed.append({"code": "/".join(codes) or None, "left_out": True, "skipped": skipped, **place})
        result = {"fixed": list(fixed)}
        results.append(result)
        last = result
        outcome.stage = "fix"
        start = worker.capture.size() if worker.capture else 0
        try:
            result["stage"] = "load"
            with fixing.fixed_modules(fixed_sources, state.module, state.job["import_root"]) as module:
                result["stage"] = "construction"
                target = fixing.resolve(module, state.job["qualname"])
                obj = instances.build(worker, state, lambda: target(*args, **kwargs))
                if prepare is not None:
                    result["stage"] = "inputs"
                    prepare(obj)
                if state.job.get("guards"):
                    result["reach"] = instances.evaluate_reach(worker, state, obj, gradient=gradient)
                result["stage"] = "compile"
                compile_obj(obj, result)
            result["compiled"] = True
        except Exception as exc:  # noqa: BLE001 -- a failing build or compile is a result
            if result["stage"] in ("load", "inputs"):
                results.pop()
                doing = "running the fixed modules" if result["stage"] == "load" else "making the inputs"
                outcome.notes.append(f"stopped applying fixes: {doing} raised {type(exc).__name__}: "
                                     f"{exception_message(exc)}")
                break
            record_exception(result, exc, result["stage"])
            result["compiled"] = False
        finally:
            if worker.capture:
                result["compile_log"] = location_lines(worker.capture.read_from(start))
        attempt_seconds = time.monotonic() - attempt_started
        if result["compiled"]:
            def prepare_and_compile(obj):
                if prepare is not None:
                    prepare(obj)
                compile_obj(obj, {})

            result["markers"] = compiling.mark_unknown_lines(worker, state, result.get("reach"), fixed_sources, args,
                                                             kwargs, prepare_and_compile)
        if result["compiled"] or (result.get("error") or {}).get("stage") not in ("compile", "construction"):
            break


def next_fix(worker, state: "JobState", last: dict, fixed_sources: dict, fixed: list, level: str):
    """``(module name, file, line, fixed source, codes, None, FIX_STEP)`` for the first line where ``last``
    failed that a fix changes alone: a compile error's locations in the Cell's file, a construction error's
    frames in any module of the project, from the innermost out; ``(..., STAND_IN_STEP)`` for the first such
    line where a stand-in replaces a name MindSpore lacks (``fixing.stand_in``). Failing both, ``(..., codes on
    the line, the lines no longer compiled, LEFT_OUT_STEP)`` when the innermost of those lines is a statement
    that can be left out without changing what the code after it reads (``fixing.leave_out``): the later lines
    get compiled. Failing that, under STRICT, ``(..., source unchanged, codes, None, LAX_STEP)`` when the
    compile stopped, with that finding's error, at a finding whose rule fails under STRICT only: the next
    compiles run under LAX, which gets past it and still fails where the later findings' rules say it does.
    None when none of these applies."""
    from ms_lint.validate import fixing
    from ms_lint.validate.fallbacks import backend_kernel_failure

    error = last.get("error") or {}
    own_path = state.job["path"]
    if error.get("stage") == "compile":
        if backend_kernel_failure(error.get("message") or ""):
            return None
        text = (error.get("message") or "") + "\n" + "\n".join(last.get("compile_log") or [])
        # The locations run from construct to the innermost call: the first fixable line from the inside.
        places = [(own_path, location.start) for location in reversed(parse_locations(text))
                  if same_file(location.path, own_path)]
    elif error.get("stage") == "construction":
        places = [(frame[0], frame[1]) for frame in reversed(error.get("traceback") or [])
                  if isinstance(frame, (list, tuple)) and len(frame) >= 2 and isinstance(frame[1], int)]
    else:
        return None

    def source_of(name: str, path: str) -> str | None:
        source = fixed_sources.get(name)
        if source is None:
            try:
                source = fixing.read_source(path)
            except OSError:
                return None
        return source

    def fixed_already(path: str, line: int) -> bool:
        return any(entry["line"] == line and same_file(entry.get("path") or own_path, path) for entry in fixed)

    innermost = stand_in = None
    missing_name = "has no attribute" in (error.get("message") or "")
    for path, line in dict.fromkeys(places):
        if same_file(path, own_path):
            name, path = state.module.__name__, own_path
        else:
            name = fixing.project_module(path, state.job["import_root"], state.module.__name__)
            if name is None:
                continue
        source = None if fixed_already(path, line) else source_of(name, path)
        if source is None:
            continue
        innermost = innermost or (name, path, line, source)
        found = fixing.fix_at_line(source, path, line, level)
        if found is not None:
            return name, path, line, found[0], found[1], None, FIX_STEP
        if stand_in is None and missing_name:
            replaced = fixing.stand_in(source, path, line, level)
            if replaced is not None:
                stand_in = (replaced, name, path, line)
    name = state.module.__name__
    source = source_of(name, own_path) if error.get("stage") == "compile" else None
    if source is not None:
        # A name unbound on some paths, reported at the call that reached the Cell it is read in, or a method
        # whose instance is not named ``self``, reported without a location: the finding is fixed where it is.
        message = error.get("message") or ""
        owner = state.job.get("qualname") or ""
        for line in (fixing.lines_reading_unbound(message, source, own_path, level)
                     + fixing.lines_misnaming_instance(message, source, own_path, level, owner)):
            found = None if fixed_already(own_path, line) else fixing.fix_at_line(source, own_path, line, level)
            if found is not None:
                return name, own_path, line, found[0], found[1], None, FIX_STEP
    if stand_in is not None:
        (fixed_source, codes, stood_in), name, path, line = stand_in
        return name, path, line, fixed_source, (codes, stood_in), None, STAND_IN_STEP
    if innermost is None:
        return None
    name, path, line, source = innermost
    left = fixing.leave_out(source, path, line)
    if left is not None:
        return name, path, line, left[0], list(fixing.codes_on_line(source, path, line, level)), left[1], \
            LEFT_OUT_STEP
    if level != "strict" or state.lax or error.get("stage") != "compile" or not same_file(path, own_path) \
            or not set(state.job.get("lax_lines") or ()) - {line}:
        return None  # nothing a compile under LAX could decide
    strict_only = [code for code in fixing.codes_on_line(source, path, line, level)
                   if not expectation_for(code).expected_to_fail("lax")
                   and expectation_for(code).error_matches(error.get("type", ""), error.get("message", ""))]
    return (name, path, line, source, strict_only, None, LAX_STEP) if strict_only else None


# How ``next_fix`` gets past a line: the rule's fix, a stand-in for a missing name, the statement left out, or the
# compiles that follow under LAX.
FIX_STEP, STAND_IN_STEP, LEFT_OUT_STEP, LAX_STEP = "fix", "stand_in", "left_out", "lax"
