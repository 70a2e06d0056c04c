"""Compare tensors, pair the two models' layer calls in execution order, and find the first divergence."""
from __future__ import annotations

import numpy as np

from ms_lint.parity.report import Divergence, TensorDiff
from ms_lint.parity.trace import LayerCall

# MindSpore class name (lower case) -> the PyTorch class it ports, where the names differ.
KIND_ALIASES = {
    "dense": "linear",
    "sequentialcell": "sequential",
    "celllist": "modulelist",
    "celldict": "moduledict",
    "conv1dtranspose": "convtranspose1d",
    "conv2dtranspose": "convtranspose2d",
    "conv3dtranspose": "convtranspose3d",
    "hswish": "hardswish",
    "hsigmoid": "hardsigmoid",
    "fastgelu": "gelu",
    "embeddinglookup": "embedding",
    "syncbatchnorm": "batchnorm2d",
}

FAMILIES = {
    "activation": {"relu", "relu6", "gelu", "tanh", "sigmoid", "silu", "leakyrelu", "elu", "selu", "celu", "prelu",
                   "hardswish", "hardsigmoid", "hardtanh", "softplus", "softsign", "mish", "tanhshrink", "logsigmoid",
                   "softmax", "logsoftmax", "softmin", "identity", "rrelu"},
    "norm": {"batchnorm1d", "batchnorm2d", "batchnorm3d", "layernorm", "groupnorm", "instancenorm1d",
             "instancenorm2d", "instancenorm3d", "localresponsenorm", "rmsnorm"},
    "conv": {"conv1d", "conv2d", "conv3d", "convtranspose1d", "convtranspose2d", "convtranspose3d"},
    "pool": {"maxpool1d", "maxpool2d", "maxpool3d", "avgpool1d", "avgpool2d", "avgpool3d", "adaptiveavgpool1d",
             "adaptiveavgpool2d", "adaptiveavgpool3d", "adaptivemaxpool1d", "adaptivemaxpool2d", "adaptivemaxpool3d"},
    "dropout": {"dropout", "dropout1d", "dropout2d", "dropout3d", "alphadropout"},
}

GAP_SCORE = -1.0
_DP_LIMIT = 2_000_000  # above this many cells, pair by order instead of aligning


def kind_of(type_name: str) -> str:
    """A framework-neutral layer kind: ``Dense`` and ``Linear`` are both "linear"."""
    name = type_name.lower()
    if name.endswith("ext") and len(name) > 3:  # MindSpore's mint-style twins: DropoutExt, MaxPool2dExt, ...
        name = name[:-3]
    return KIND_ALIASES.get(name, name)


def family_of(kind: str) -> str | None:
    for family, members in FAMILIES.items():
        if kind in members:
            return family
    return None


def compare_arrays(label: str, ms_array, torch_array, atol: float, rtol: float) -> TensorDiff:
    if ms_array is None or torch_array is None:
        return TensorDiff(label=label,
                          ms_shape=None if ms_array is None else tuple(ms_array.shape),
                          torch_shape=None if torch_array is None else tuple(torch_array.shape),
                          ok=False)
    diff = TensorDiff(label=label, ms_shape=tuple(ms_array.shape), torch_shape=tuple(torch_array.shape),
                      ms_dtype=str(ms_array.dtype), torch_dtype=str(torch_array.dtype), total=int(torch_array.size))
    if diff.shape_differs:
        return diff
    a = _as_float(ms_array)
    b = _as_float(torch_array)
    if a.size == 0:
        diff.max_abs, diff.max_rel, diff.ok = 0.0, 0.0, True
        return diff
    both_nan = np.isnan(a) & np.isnan(b)
    same_inf = np.isinf(a) & np.isinf(b) & (np.sign(a) == np.sign(b))
    with np.errstate(invalid="ignore", over="ignore"):
        absolute = np.abs(a - b)
    absolute = np.where(both_nan | same_inf, 0.0, absolute)
    absolute = np.where(np.isnan(absolute), np.inf, absolute)  # NaN on one side only is a full mismatch
    magnitude = np.abs(np.where(np.isfinite(b), b, 0.0))
    outside = absolute > atol + rtol * magnitude
    diff.max_abs = float(absolute.max())
    nonzero = magnitude > 0
    if nonzero.any():
        diff.max_rel = float((absolute[nonzero] / magnitude[nonzero]).max())
    else:
        diff.max_rel = 0.0 if diff.max_abs == 0 else float("inf")
    diff.mismatched = int(outside.sum())
    diff.ok = diff.mismatched == 0
    return diff


def _as_float(array: np.ndarray) -> np.ndarray:
    if array.dtype == np.bool_:
        return array.astype(np.float64)
    if np.issubdtype(array.dtype, np.complexfloating):
        return np.abs(array).astype(np.float64)
    return array.astype(np.float64, copy=False)


def compare_lists(prefix: str, ms_arrays: list, torch_arrays: list, atol: float, rtol: float) -> list[TensorDiff]:
    count = max(len(ms_arrays), len(torch_arrays))
    diffs = []
    for index in range(count):
        ms_array = ms_arrays[index] if index < len(ms_arrays) else None
        torch_array = torch_arrays[index] if index < len(torch_arrays) else None
        label = prefix if count == 1 else f"{prefix} {index}"
        diffs.append(compare_arrays(label, ms_array, torch_array, atol, rtol))
    return diffs


def _features(call: LayerCall) -> tuple:
    kind = kind_of(call.ref.type_name)
    return kind, family_of(kind), call.ref.output_shapes, call.ref.input_shapes, call.ref.path


def _score(ms_features: tuple, torch_features: tuple) -> float:
    ms_kind, ms_family, ms_out, ms_in, ms_path = ms_features
    torch_kind, torch_family, torch_out, torch_in, torch_path = torch_features
    if ms_kind == torch_kind:
        score = 3.0
    elif ms_family is not None and ms_family == torch_family:
        score = 1.0
    else:
        score = -2.0
    score += 2.0 if ms_out == torch_out else -1.0
    if ms_in == torch_in:
        score += 1.0
    if ms_path and ms_path == torch_path:
        score += 2.0
    return score


def pair_score(ms_call: LayerCall, torch_call: LayerCall) -> float:
    """How plausible it is that these two calls are the same step of the model (higher is better).

    Same kind (``Dense``/``Linear``) counts most, then the same output shape, the same path and input shape; two
    layers of one family (two activations) can pair, so that a wrong activation is compared, not skipped.
    """
    return _score(_features(ms_call), _features(torch_call))


def align_calls(ms_calls: list[LayerCall], torch_calls: list[LayerCall]) -> list[tuple[int | None, int | None]]:
    """Pair the calls in execution order (global alignment); unpaired calls get ``None`` on the other side."""
    n, m = len(ms_calls), len(torch_calls)
    if n * m > _DP_LIMIT:
        pairs = [(i, i) for i in range(min(n, m))]
        pairs += [(i, None) for i in range(m, n)] + [(None, j) for j in range(n, m)]
        return pairs
    ms_features = [_features(c) for c in ms_calls]
    torch_features = [_features(c) for c in torch_calls]
    score = [[0.0] * (m + 1) for _ in range(n + 1)]
    move = [[0] * (m + 1) for _ in range(n + 1)]  # 0 pair, 1 skip a MindSpore call, 2 skip a PyTorch call
    for i in range(1, n + 1):
        score[i][0], move[i][0] = GAP_SCORE * i, 1
    for j in range(1, m + 1):
        score[0][j], move[0][j] = GAP_SCORE * j, 2
    for i in range(1, n + 1):
        row, previous_row, features = score[i], score[i - 1], ms_features[i - 1]
        moves = move[i]
        for j in range(1, m + 1):
            best, step = previous_row[j - 1] + _score(features, torch_features[j - 1]), 0
            if previous_row[j] + GAP_SCORE > best:
                best, step = previous_row[j] + GAP_SCORE, 1
            if row[j - 1] + GAP_SCORE > best:
                best, step = row[j - 1] + GAP_SCORE, 2
            row[j], moves[j] = best, step
    pairs: list[tuple[int | None, int | None]] = []
    i, j = n, m
    while i > 0 or j > 0:
        step = move[i][j]
        if step == 0:
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif step == 1:
            pairs.append((i - 1, None))
            i -= 1
        else:
            pairs.append((None, j - 1))
            j -= 1
    pairs.reverse()
    return pairs


def find_divergence(ms_calls: list[LayerCall], torch_calls: list[LayerCall],
                    pairs: list[tuple[int | None, int | None]], atol: float, rtol: float) -> Divergence | None:
    """Walk the aligned calls in order; the first pair whose inputs or outputs differ is the divergence."""
    previous: tuple[LayerCall, LayerCall] | None = None
    unaligned_ms: list[LayerCall] = []
    unaligned_torch: list[LayerCall] = []
    for ms_index, torch_index in pairs:
        if ms_index is None:
            unaligned_torch.append(torch_calls[torch_index])
            continue
        if torch_index is None:
            unaligned_ms.append(ms_calls[ms_index])
            continue
        ms_call, torch_call = ms_calls[ms_index], torch_calls[torch_index]
        input_diffs = compare_lists("input", ms_call.inputs, torch_call.inputs, atol, rtol)
        if not all(d.ok for d in input_diffs):
            return Divergence(where="between" if previous else "before", ms=ms_call.ref, torch=torch_call.ref,
                              input_diffs=input_diffs,
                              previous_ms=previous[0].ref if previous else None,
                              previous_torch=previous[1].ref if previous else None,
                              unaligned_ms=[c.ref for c in unaligned_ms],
                              unaligned_torch=[c.ref for c in unaligned_torch])
        # A layer that raised has no outputs (None): that is where the run stopped.
        failed = ms_call.outputs is None or torch_call.outputs is None
        output_diffs = compare_lists("output", ms_call.outputs or [], torch_call.outputs or [], atol, rtol)
        if failed or not all(d.ok for d in output_diffs):
            return Divergence(where="layer", ms=ms_call.ref, torch=torch_call.ref, input_diffs=input_diffs,
                              output_diffs=output_diffs)
        previous = (ms_call, torch_call)
        unaligned_ms, unaligned_torch = [], []
    if previous is not None:
        return Divergence(where="after", ms=previous[0].ref, torch=previous[1].ref,
                          unaligned_ms=[c.ref for c in unaligned_ms],
                          unaligned_torch=[c.ref for c in unaligned_torch])
    return None


def call_for(calls: list[LayerCall], ref) -> LayerCall | None:
    for call in calls:
        if call.ref is ref:
            return call
    return None
