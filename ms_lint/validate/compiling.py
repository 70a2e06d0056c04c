"""The worker's ``compile`` stage: the built instance compiled in GRAPH_MODE at the job's syntax level (a @jit
function compiled without running), its error recorded as the job's result (the probes still run after it), and
the compile log kept for the locations it prints. A unit whose findings are PyNative hazards judged in PyNative
(the job's ``mode``) is not compiled: it is called eagerly in PyNative instead (``run_eagerly``).

Inputs of any rank that reach code needing a rank are given rank 3, 4, then 2; inputs made for a Linear get their
chance as sequences first. After a compile that passed, a finding line under a condition ms-lint could not
evaluate is compiled again with its statement replaced by a call that raises when compiled, which shows whether
MindSpore kept it in the graph (``mark_unknown_lines``).
"""
from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

from ms_lint.validate import instances
from ms_lint.validate.locations import location_lines, parse_locations, same_file
from ms_lint.validate.outcome import Outcome, exception_message, first_line, record_exception

if TYPE_CHECKING:
    from ms_lint.validate.jobs import JobState, OutputCapture


def compile_and_record(worker, state: "JobState", outcome: Outcome, capture: "OutputCapture") -> None:
    """A compile error is the expected result of most jobs: record it and let the probes still run."""
    start = capture.size()
    if state.job.get("mode") == "pynative":
        try:
            run_eagerly(worker, state, outcome)
        except Exception as exc:  # noqa: BLE001 -- SystemExit and friends go up to run_job
            record_exception(outcome, exc, "run")
            outcome.ran = False
        return
    try:
        stage_compile(worker, state, outcome)
    except Exception as exc:  # noqa: BLE001 -- SystemExit and friends go up to run_job
        record_exception(outcome, exc, "compile")
        outcome.compiled = False
    finally:
        outcome.compile_log = location_lines(capture.read_from(start))
    if outcome.compiled and state.arguments is not None:
        outcome.markers = mark_unknown_lines(
            worker, state, outcome.reach, {}, *state.arguments,
            lambda obj: obj.compile(*state.inputs, **state.extra_arguments))
    if state.job.get("reached") and state.obj is not None:
        outcome.reached = mark_reached_lines(worker, state, outcome)


# The most compiles ``mark_reached_lines`` runs for one file's lines.
_MAX_REACHED_COMPILES = 6


def mark_reached_lines(worker, state: "JobState", outcome: Outcome) -> dict:
    """Whether the unit's graph compiles each line of the findings outside it that it may reach (``reached`` of
    the job: a ``@jit_class`` method, a helper, in this module or another of the package): their statements are
    replaced, in memory, by calls that raise when compiled (``fixing.marked_lines``), the Cell built again from the
    copies and compiled. A marker that raises shows its line is in the graph; a compile that passes shows the lines
    left marked are not. ``"path:line"`` -> ``{"in_graph": bool}``, or ``{"skipped": why}``, or ``{"error": the
    compile's error}`` (it stopped elsewhere first)."""
    from ms_lint.model.source import read_source
    from ms_lint.validate import fixing

    results: dict[str, dict] = {}
    by_path: dict[str, list[int]] = {}
    for path, line in state.job["reached"]:
        by_path.setdefault(path, []).append(int(line))
    why = None
    if state.arguments is None or not isinstance(state.target, type) or state.module is None:
        why = "the unit was not built by ms-lint (a registered example), so it cannot be built again from a copy"
    for path, lines in by_path.items():
        if why is not None:
            results.update({f"{path}:{line}": {"skipped": why} for line in lines})
            continue
        import_root = state.job["import_root"]
        name = state.module.__name__ if same_file(path, state.job["path"]) else fixing.project_module(
            path, import_root, state.module.__name__)
        try:
            source = read_source(path)
        except OSError:
            name = None
        found = fixing.marked_lines(source, path, lines) if name is not None else None
        if found is None:
            results.update({f"{path}:{line}": {"skipped": f"{path} is not a module the unit imports"}
                            for line in lines})
            continue
        _, markable = found
        for line in lines:
            if line not in markable:
                results[f"{path}:{line}"] = {"skipped": "its line is not a simple statement a marker can replace"}
        pending = {line for line in lines if line in markable}
        for _ in range(_MAX_REACHED_COMPILES):
            if not pending:
                break
            if not state.time_left_for(time.monotonic() - state.building):
                results.update({f"{path}:{line}": {"skipped": "the job had no time left"} for line in pending})
                pending = set()
                break
            text, markable = fixing.marked_lines(source, path, pending)
            try:
                with fixing.fixed_modules({name: text}, state.module, import_root) as module:
                    target = fixing.resolve(module, state.job["qualname"])
                    args, kwargs = state.arguments
                    compiled = instances.build(worker, state, lambda: target(*args, **kwargs))
                    compiled.compile(*state.inputs, **state.extra_arguments)
            except Exception as exc:  # noqa: BLE001 -- the marker's own error is the answer
                fired = fixing.marker_line(exception_message(exc))
                lines_fired = [line for line in pending if markable.get(line) == fired] if fired else []
                if lines_fired:
                    for line in lines_fired:
                        results[f"{path}:{line}"] = {"in_graph": True}
                        pending.discard(line)
                    continue
                results.update({f"{path}:{line}": {"error": first_line(exc)} for line in pending})
                pending = set()
                break
            results.update({f"{path}:{line}": {"in_graph": False} for line in pending})
            pending = set()
        results.update({f"{path}:{line}": {"skipped": "too many compiles"} for line in pending})
    return results


def mark_unknown_lines(worker, state: "JobState", reach: dict | None, sources: dict[str, str], args, kwargs,
                       compile_obj) -> dict:
    """After a compile that passed (of the module's own source, or of ``sources``, fixed copies): the finding
    lines under a condition ms-lint could not evaluate (``attn.shape != (b, n, n)``), each compiled again by
    ``compile_obj`` with its statement replaced by a call that raises when compiled (``fixing.marked``), which
    shows whether MindSpore kept the line in the graph: line -> ``{"in_graph": bool}``, or ``{"error"}``."""
    from ms_lint.model.source import read_source
    from ms_lint.validate import fixing

    unknown = sorted(int(line) for line, entry in (reach or {}).items()
                     if entry.get("reached") is None and entry.get("unknown"))
    if not unknown or not isinstance(state.target, type) or state.module is None:
        return {}
    name, path = state.module.__name__, state.job["path"]
    try:
        source = sources.get(name) or read_source(path)
    except OSError:
        return {}
    markers: dict[str, dict] = {}
    for line in unknown[:_MAX_MARKED_LINES]:
        if not state.time_left_for(time.monotonic() - state.building):
            markers[str(line)] = {"skipped": "the job had no time left"}
            continue
        text = fixing.marked(source, path, line)
        if text is None:
            continue
        try:
            with fixing.fixed_modules({**sources, name: text}, state.module, state.job["import_root"]) as module:
                target = fixing.resolve(module, state.job["qualname"])
                compile_obj(instances.build(worker, state, lambda: target(*args, **kwargs)))
            markers[str(line)] = {"in_graph": False}
        except Exception as exc:  # noqa: BLE001 -- the marker's own error is the answer
            markers[str(line)] = {"in_graph": True} if fixing.MARKER_MESSAGE in str(exc) \
                else {"error": first_line(exc)}
    return markers


def stage_compile(worker, state: "JobState", outcome: Outcome) -> None:
    import mindspore

    level = "LAX" if state.lax else state.job.get("syntax_level", "strict").upper()
    mindspore.set_context(mode=mindspore.GRAPH_MODE, jit_syntax_level=getattr(mindspore, level))
    obj = state.obj
    started = time.monotonic()
    if isinstance(obj, mindspore.nn.Cell):
        try:
            obj.compile(*state.inputs, **state.extra_arguments)
        except Exception as exc:  # noqa: BLE001 -- raised again unless inputs of a fixed rank get further
            compile_with_ranks(worker, state, outcome, exc, time.monotonic() - started)
    elif getattr(obj, "__wrapped_by_jit__", False):
        if outcome.effective_level is None:
            outcome.effective_level = instances.jit_level(obj)
        # Compile without running, as Cell.compile does: data-less placeholders cannot run.
        os.environ["MS_DEV_PRECOMPILE_ONLY"] = "1"
        try:
            obj(*state.inputs)
        finally:
            os.environ.pop("MS_DEV_PRECOMPILE_ONLY", None)
    else:
        outcome.status = "not_compilable"
        outcome.message = (
            f"the example for {state.job['target']} returned {type(obj).__name__}, which is neither a Cell "
            f"nor a @jit function"
        )
        state.stop = True
        return
    outcome.compiled = True
    outcome.compile_seconds = round(time.monotonic() - started, 3)


def run_eagerly(worker, state: "JobState", outcome: Outcome) -> None:
    """PyNative's counterpart of the compile: the built instance called once, eagerly, on the job's inputs. A
    placeholder without data is given data of its dtype, each size of any length 4 and any rank 2, 3, then 4 (the
    first rank that runs is kept; else the first error is raised)."""
    import mindspore

    from ms_lint.validate.building import with_data

    mindspore.set_context(mode=mindspore.PYNATIVE_MODE)
    obj = state.eager or state.obj
    if not callable(obj):
        outcome.status = "not_compilable"
        outcome.message = f"the example for {state.job['target']} returned {type(obj).__name__}, which cannot be run"
        state.stop = True
        return
    started = time.monotonic()
    loose = [index for index, value in enumerate(state.inputs) if not instances.is_concrete(value)]
    first_error = None
    for rank in EAGER_RANKS if any(list(state.inputs[index].shape) == [-2] for index in loose) else EAGER_RANKS[:1]:
        inputs = with_data(state.inputs, rank)
        try:
            obj(*inputs, **state.extra_arguments)
        except Exception as exc:  # noqa: BLE001 -- the first rank's error is raised unless another rank runs
            first_error = first_error or exc
            if not loose or not state.time_left_for(time.monotonic() - started):
                break
            continue
        if loose:
            replace_inputs(worker, state, outcome, inputs, {
                index: f"{(outcome.inputs_how or [''] * (index + 1))[index].split(':')[0]}: "
                       f"{instances.describe(inputs[index])}, given data to run eagerly" for index in loose})
        outcome.ran = True
        outcome.compile_seconds = round(time.monotonic() - started, 3)
        return
    raise first_error


EAGER_RANKS = (2, 3, 4)  # given to an input of any rank when the unit is run eagerly


def compile_guessing_ranks(worker, state: "JobState", outcome: Outcome, compiled) -> None:
    """``compiled.compile`` with the job's inputs, given a rank as ``compile_with_ranks`` does when an input of
    any rank reaches code that needs one (a retry or a fix compiles code the first compile left out)."""
    started = time.monotonic()
    try:
        compiled.compile(*state.inputs, **state.extra_arguments)
    except Exception as exc:  # noqa: BLE001 -- raised again unless inputs of a fixed rank get further
        compile_with_ranks(worker, state, outcome, exc, time.monotonic() - started, compiled)


def compile_with_ranks(worker, state: "JobState", outcome: Outcome, error: Exception, seconds: float,
                       compiled=None) -> None:
    """The compile failed because an input of any rank reached code that needs its rank (``For Chunk, the
    input tensor is with dynamic rank``, see ``_needs_rank``), or code that unpacks or indexes more sizes than the
    rank the compile gave a tensor made from it, at a line with no finding (``_wrong_rank_elsewhere``): compile
    again with the placeholders ms-lint made
    of any rank given rank 3, 4, then 2 (every dimension still of any size). The first rank that compiles is
    kept; else the first that fails with another error that does not show the rank was wrong (``b, c, h, w =
    x.shape`` on rank 3), which is raised; else the first that fails at all; else the original error. Inputs
    made for a Linear get their chance as sequences first (``compile_as_sequences``)."""
    import mindspore

    error = compile_as_sequences(worker, state, outcome, compiled or state.obj, error)
    if error is None:
        return
    guessed = outcome.instance not in (None, "example") and not state.job.get("input_specs")
    loose = [index for index, value in enumerate(state.inputs) if list(getattr(value, "shape", ())) == [-2]]
    if not (_needs_rank(error) or _wrong_rank_elsewhere(state, error)) or not guessed or not loose:
        raise error
    failed = wrong_rank = None
    for rank in RANKS:
        if not state.time_left_for(seconds):
            break
        inputs = tuple(mindspore.Tensor(shape=[-1] * rank, dtype=value.dtype) if index in loose else value
                       for index, value in enumerate(state.inputs))
        try:
            (compiled or state.obj).compile(*inputs, **state.extra_arguments)
        except Exception as exc:  # noqa: BLE001
            if _needs_rank(exc):
                continue
            if _shows_wrong_rank(exc):
                wrong_rank = wrong_rank or (rank, inputs, exc)
                continue
            failed = failed or (rank, inputs, exc)
            continue
        keep_rank(worker, state, outcome, rank, inputs, loose)
        return
    failed = failed or wrong_rank
    if failed is None:
        raise error
    rank, inputs, exc = failed
    keep_rank(worker, state, outcome, rank, inputs, loose)
    raise exc


def compile_as_sequences(worker, state: "JobState", outcome: Outcome, compiled, error: Exception):
    """The compile failed where the code needs more axes than an input of ``[2, features]`` for a Linear has
    (``x.view(*x.shape[:-1], heads, -1).permute(0, 2, 1, 3)`` on an attention block's input), at a line with no
    finding: compile again with those inputs as sequences, ``[2, length, features]``, kept unless they fail the
    same way at the same line. None when they compiled; else the error to go on with."""
    sequences = state.sequence_inputs
    if not sequences or not _shows_wrong_shape(error):
        return error
    stopped_at = _innermost_line(error, state.job["path"])
    if stopped_at is None or stopped_at in (state.job.get("finding_lines") or ()):
        return error  # the finding's own error, perhaps
    state.sequence_inputs = {}
    inputs = tuple(sequences[index][0] if index in sequences else value
                   for index, value in enumerate(state.inputs))
    try:
        compiled.compile(*inputs, **state.extra_arguments)
    except Exception as exc:  # noqa: BLE001 -- the error past the shape is the compile's result
        if _shows_wrong_shape(exc) and _innermost_line(exc, state.job["path"]) == stopped_at:
            return error
        keep_sequences(worker, state, outcome, inputs, sequences)
        return exc
    keep_sequences(worker, state, outcome, inputs, sequences)
    return None


def keep_sequences(worker, state: "JobState", outcome: Outcome, inputs: tuple, sequences: dict) -> None:
    replace_inputs(worker, state, outcome, inputs, {
        index: f"{described} (rank 2 failed where the code needs more axes)"
        for index, (_, described) in sequences.items()})


def keep_rank(worker, state: "JobState", outcome: Outcome, rank: int, inputs: tuple, loose: list[int]) -> None:
    how = outcome.inputs_how or []
    replace_inputs(worker, state, outcome, inputs, {
        index: f"{how[index].split(':')[0]}: float32 of rank {rank}, any size (of any rank, the compile failed "
               f"with dynamic rank)"
        for index in loose if index < len(how)})


def replace_inputs(worker, state: "JobState", outcome: Outcome, inputs: tuple, described: dict[int, str]) -> None:
    """Compile with ``inputs`` from now on; ``described``: the new line of ``inputs_how`` for each input changed."""
    state.inputs = inputs
    outcome.inputs = [instances.describe(value) for value in inputs]
    how = list(outcome.inputs_how or [])
    for index, line in described.items():
        if index < len(how):
            how[index] = line
    outcome.inputs_how = how
    outcome.concrete_inputs = all(instances.is_concrete(value) for value in inputs)


RANKS = (3, 4, 2)  # tried for inputs of any rank that an operator needs the rank of


# The most lines ``mark_unknown_lines`` compiles a marker for, one compile each.
_MAX_MARKED_LINES = 4


def compiled_for(cell, gradient: bool):
    """What a compile builds for ``cell``: the Cell itself, or with ``gradient`` a Cell taking its gradient with
    respect to every input, which has MindSpore compile the custom ``bprop`` (measured on 2.10: its errors are
    raised at its own lines, as construct's are)."""
    if not gradient:
        return cell
    from mindspore import nn, ops

    class GradientOf(nn.Cell):
        def __init__(self, network):
            super().__init__()
            self.network = network
            self.gradient = ops.GradOperation(get_all=True)

        def construct(self, *inputs):
            return self.gradient(self.network)(*inputs)

    return GradientOf(cell)


# What MindSpore 2.10 raises when an input of any rank (shape [-2]) reaches code that needs its rank: an operator
# (Chunk), unpacking its shape (`x.view(*x.shape[:2], -1)`), a two-axis transpose (measured: the same code
# compiles, or fails with the hazard's own error, on an input of rank 3).
_RANK_SYMPTOMS = ("dynamic rank", "dynamic length sequence", "large than the output size")


def _needs_rank(error: BaseException) -> bool:
    return _mentions(error, _RANK_SYMPTOMS)


def _mentions(error: BaseException, symptoms: tuple[str, ...]) -> bool:
    text = exception_message(error)
    return any(symptom in text for symptom in symptoms)


# A shape unpacked into more or fewer names than the rank given (``b, c, h, w = self.shape(x)`` on rank 3), or a
# tensor indexed with more axes than it has (``x[:, :, None, :, :]`` on rank 3: "Tuple index ... out rang of tensor
# shape"), measured on MindSpore 2.10.
_WRONG_RANK_SYMPTOMS = ("TupleGetItem evaluator index should be in range", "not enough values to unpack",
                        "too many values to unpack", "out rang of tensor shape")


def _shows_wrong_rank(error: BaseException) -> bool:
    return _mentions(error, _WRONG_RANK_SYMPTOMS)


def _wrong_rank_elsewhere(state: "JobState", error: BaseException) -> bool:
    """The compile of inputs of any rank failed where the code unpacks or indexes more sizes than a tensor made
    from them was given (``x.view((*x.shape[:-1], -1, 4))`` of an input of any rank has rank 3 in the compile,
    and ``b, h, n, d = states.shape`` fails), at a line of the unit's file with no finding (or in another file):
    the rank is the placeholder's, not the code's, so a fixed rank is tried as for ``_needs_rank``."""
    if not _shows_wrong_rank(error):
        return False
    stopped_at = _innermost_line(error, state.job["path"])
    return stopped_at is None or stopped_at not in (state.job.get("finding_lines") or ())


# An input with fewer axes than the code reshapes or permutes it into (measured on 2.10).
_WRONG_SHAPE_SYMPTOMS = _WRONG_RANK_SYMPTOMS + ("the number of axes must be equal to the dimension of Tensor",
                                                "the accumulate of x_shape must be equal to out_shape")


def _innermost_line(error: BaseException, path: str) -> int | None:
    """The innermost line of ``path`` that the compile error ``error`` names."""
    lines = [location.start for location in parse_locations(exception_message(error)) if same_file(location.path, path)]
    return lines[-1] if lines else None


def _shows_wrong_shape(error: BaseException) -> bool:
    return _mentions(error, _WRONG_SHAPE_SYMPTOMS)
