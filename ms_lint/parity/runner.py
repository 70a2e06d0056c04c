"""Run a parity check: transfer the weights, run both models on the same input, compare, explain."""
from __future__ import annotations

from typing import Any

import numpy as np

from ms_lint.parity.report import MS, PT, ParityReport, ParityUsageError, RunFailure, fmt_shape

# Default (atol, rtol) by the reference output's dtype: two frameworks' kernels differ in summation order, so the
# bounds are looser than a same-framework comparison.
DEFAULT_TOLERANCES = {
    "float64": (1e-7, 1e-7),
    "float32": (1e-5, 1e-4),
    "float16": (1e-3, 1e-3),
    "bfloat16": (1e-2, 1e-2),
}
INPUT_DTYPES = ("float32", "float16", "float64", "int32", "int64", "bool")
_DEFAULT_INT_HIGH = 10


def default_tolerance(arrays: list[np.ndarray]) -> tuple[float, float]:
    """The loosest default among the reference outputs' float dtypes (float32's when there are none)."""
    names = {str(a.dtype) for a in arrays if np.issubdtype(a.dtype, np.floating)} or {"float32"}
    bounds = [DEFAULT_TOLERANCES.get(name, DEFAULT_TOLERANCES["float32"]) for name in names]
    return max(b[0] for b in bounds), max(b[1] for b in bounds)


def make_inputs(shapes: list[tuple], dtypes: list[str], seed: int, int_high: int) -> list[np.ndarray]:
    """Seeded inputs: standard normal floats, integers in ``[0, int_high)``, fair booleans."""
    if len(dtypes) == 1:
        dtypes = dtypes * len(shapes)
    if len(dtypes) != len(shapes):
        raise ParityUsageError(f"--dtype given {len(dtypes)} times for {len(shapes)} inputs: give it once for all, "
                               f"or once per --input-shape")
    rng = np.random.default_rng(seed)
    arrays = []
    for shape, dtype in zip(shapes, dtypes):
        if dtype not in INPUT_DTYPES:
            raise ParityUsageError(f"--dtype {dtype!r} is not one of {', '.join(INPUT_DTYPES)}")
        if dtype.startswith("float"):
            arrays.append(rng.standard_normal(shape).astype(dtype))
        elif dtype == "bool":
            arrays.append(rng.random(shape) < 0.5)
        else:
            arrays.append(rng.integers(0, int_high, size=shape).astype(dtype))
    return arrays


def embedding_vocab(torch_model) -> int:
    """Integer inputs must be valid indices for every Embedding: draw below the smallest vocabulary."""
    sizes = [m.num_embeddings for m in torch_model.modules() if hasattr(m, "num_embeddings")]
    return min(sizes) if sizes else _DEFAULT_INT_HIGH


def as_arrays(inputs: Any, label: str) -> list[np.ndarray]:
    """Inputs given by a factory or a test: a tensor/array, or a list/tuple of them, of either framework."""
    items = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    arrays = []
    for item in items:
        if hasattr(item, "asnumpy"):
            arrays.append(np.array(item.asnumpy(), copy=True))
        elif hasattr(item, "detach") and hasattr(item, "numpy"):
            tensor = item.detach().cpu()
            if str(tensor.dtype) == "torch.bfloat16":
                tensor = tensor.float()
            arrays.append(tensor.numpy().copy())
        else:
            try:
                arrays.append(np.asarray(item))
            except Exception:
                raise ParityUsageError(f"{label}: cannot use a {type(item).__name__} as a model input") from None
            if arrays[-1].dtype == object:
                raise ParityUsageError(f"{label}: cannot use a {type(item).__name__} as a model input")
    return arrays


def prepare_frameworks(seed: int) -> None:
    """Import both frameworks, seed them, and put MindSpore in PyNative mode (hooks need it)."""
    import mindspore
    import torch

    torch.manual_seed(seed)
    mindspore.set_seed(seed)
    mindspore.set_context(mode=mindspore.PYNATIVE_MODE)


def compare_models(cell, module, inputs: list[np.ndarray], *, atol: float | None = None, rtol: float | None = None,
                   weight_map: dict | None = None, transfer_weights: bool = True, train: bool = False,
                   seed: int = 0, ms_label: str = "", torch_label: str = "") -> ParityReport:
    """Compare ``cell`` (MindSpore) with ``module`` (PyTorch, the reference) on ``inputs`` (numpy arrays)."""
    import mindspore

    previous_mode = mindspore.get_context("mode")
    mindspore.set_context(mode=mindspore.PYNATIVE_MODE)
    try:
        return _compare(cell, module, inputs, atol=atol, rtol=rtol, weight_map=weight_map,
                        transfer_weights=transfer_weights, train=train, seed=seed, ms_label=ms_label,
                        torch_label=torch_label)
    finally:
        if previous_mode != mindspore.PYNATIVE_MODE:
            mindspore.set_context(mode=previous_mode)


def _compare(cell, module, inputs, *, atol, rtol, weight_map, transfer_weights, train, seed, ms_label,
             torch_label) -> ParityReport:
    from ms_lint.parity import align, hints, weights
    from ms_lint.parity.trace import MindSporeSide, TorchSide, run_traced

    ms_side, torch_side = MindSporeSide(), TorchSide()
    report = ParityReport(ms_target=ms_label or type(cell).__name__, torch_target=torch_label or type(module).__name__,
                          inputs=[(tuple(a.shape), str(a.dtype)) for a in inputs], seed=seed,
                          mode="train" if train else "eval")

    ms_layers = dict(ms_side.layers(cell))
    torch_layers = dict(torch_side.layers(module))
    if transfer_weights:
        ms_params = weights.ms_parameters(cell, {path: type(m).__name__ for path, m in ms_layers.items()})
        torch_list, _dropped = weights.torch_tensors(module)
        report.weights, pairs = weights.plan_transfer(ms_params, torch_list, weight_map)
        weights.bias_hints(report.weights, ms_layers, torch_layers)
        weights.apply_transfer(pairs)
    else:
        report.weights.enabled = False

    ms_side.set_mode(cell, train)
    torch_side.set_mode(module, train)
    ms_trace = run_traced(ms_side, cell, inputs)
    torch_trace = run_traced(torch_side, module, inputs)

    if ms_trace.error is not None and torch_trace.error is not None:
        # Both failing says more about the inputs than about the port.
        raise ParityUsageError(f"both models failed on the inputs {_input_text(inputs)}: {MS}: {ms_trace.error}; "
                               f"{PT}: {torch_trace.error}")
    for trace in (ms_trace, torch_trace):
        if trace.error is not None:
            report.failures.append(RunFailure(framework=trace.framework, error=trace.error, layer=trace.failed_layer))
    if atol is None or rtol is None:
        default_atol, default_rtol = default_tolerance(torch_trace.outputs or [])
        atol = default_atol if atol is None else atol
        rtol = default_rtol if rtol is None else rtol
    report.atol, report.rtol = atol, rtol

    if ms_trace.outputs is not None and torch_trace.outputs is not None:
        report.output_count = (len(ms_trace.outputs), len(torch_trace.outputs))
        report.outputs = align.compare_lists("output", ms_trace.outputs, torch_trace.outputs, atol, rtol)
        if not report.outputs:
            report.warnings.append("neither model returned a tensor: nothing to compare")

    pairs = align.align_calls(ms_trace.calls, torch_trace.calls)
    report.layer_counts = (len(ms_trace.calls), len(torch_trace.calls))
    report.aligned_layers = sum(1 for i, j in pairs if i is not None and j is not None)
    report.notes = hints.config_notes(pairs, ms_trace.calls, torch_trace.calls)

    if not report.passed:
        divergence = align.find_divergence(ms_trace.calls, torch_trace.calls, pairs, atol, rtol)
        if divergence is not None:
            ms_call = align.call_for(ms_trace.calls, divergence.ms)
            torch_call = align.call_for(torch_trace.calls, divergence.torch)
            untransferred_ms = {p.ms_name for p in report.weights.problems if p.ms_name}
            untransferred_torch = {p.torch_key for p in report.weights.problems
                                   if p.torch_key and p.kind != "shape_mismatch"}
            divergence.hints = hints.divergence_hints(divergence, ms_call.module, torch_call.module, train=train,
                                                      untransferred_ms=untransferred_ms,
                                                      untransferred_torch=untransferred_torch)
            report.divergence = divergence

    if train and any(align.family_of(align.kind_of(c.ref.type_name)) == "dropout" for c in torch_trace.calls):
        report.warnings.append("train mode: Dropout draws different random masks in each framework, so outputs "
                               "cannot match; compare in eval mode")
    if not report.weights.complete and report.weights.enabled:
        count = len([p for p in report.weights.problems if p.kind != "skipped_by_map"])
        noun = "tensor was" if count == 1 else "tensors were"
        report.warnings.append(f"{count} {noun} not transferred: the models do not share all weights "
                               f"(use --map FILE to pair them by hand)")
    return report


def _input_text(inputs: list[np.ndarray]) -> str:
    return ", ".join(f"{fmt_shape(a.shape)} {a.dtype}" for a in inputs)


def load_and_compare(ms_spec: str, torch_spec: str, *, input_shapes: list[tuple] | None, dtypes: list[str] | None,
                     seed: int, atol: float | None, rtol: float | None, map_file: str | None,
                     train: bool) -> ParityReport:
    """The ``ms-lint parity`` pipeline: load both targets, build the inputs, compare."""
    from ms_lint.parity import weights
    from ms_lint.parity.targets import load_target

    weight_map = weights.load_map_file(map_file) if map_file else None
    prepare_frameworks(seed)
    ms_target = load_target(ms_spec, "mindspore")
    torch_target = load_target(torch_spec, "torch")
    if input_shapes:
        dtypes = dtypes or ["float32"]
        high = embedding_vocab(torch_target.model) if any(not d.startswith("float") for d in dtypes) else 0
        inputs = make_inputs(input_shapes, dtypes, seed, high)
    elif dtypes:
        raise ParityUsageError("--dtype sets the dtype of generated inputs: give --input-shape with it")
    elif ms_target.inputs is not None:
        inputs = as_arrays(ms_target.inputs, ms_spec)
    elif torch_target.inputs is not None:
        inputs = as_arrays(torch_target.inputs, torch_spec)
    else:
        raise ParityUsageError("no inputs: give --input-shape (once per input), or let a factory return "
                               "(model, inputs)")
    # The user's module may have switched MindSpore to graph mode at import; hooks need PyNative.
    prepare_frameworks(seed)
    return compare_models(ms_target.model, torch_target.model, inputs, atol=atol, rtol=rtol, weight_map=weight_map,
                          train=train, seed=seed, ms_label=ms_spec, torch_label=torch_spec)


def missing_framework() -> str | None:
    """One line saying how to install what is missing, or None when both frameworks import."""
    for name, label in (("torch", PT), ("mindspore", MS)):
        try:
            __import__(name)
        except ImportError as exc:
            detail = str(exc).splitlines()[0] if str(exc) else ""
            if isinstance(exc, ModuleNotFoundError) and exc.name == name:
                return f"{label} is not installed; install it with: pip install \"ms-lint[parity]\""
            return f"{label} failed to import ({detail}); reinstall it with: pip install \"ms-lint[parity]\""
    return None
