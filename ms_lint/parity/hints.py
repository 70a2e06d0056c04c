"""Known causes of MindSpore/PyTorch differences, read from the settings of two aligned layers.

Each check compares the attributes the layers keep after construction (mindspore 2.10, torch 2.x) and says
what to change on the MindSpore side. ``config_notes`` runs on every aligned pair; ``divergence_hints`` adds
what explains a particular divergence.
"""
from __future__ import annotations

from ms_lint.parity.align import family_of, kind_of
from ms_lint.parity.report import MS, PT, ConfigNote, Divergence


def _tuple(value, n: int) -> tuple:
    if isinstance(value, int):
        return (value,) * n
    value = tuple(value)
    return value[-n:] if len(value) > n else value


def _ms_conv_padding(cell, n: int):
    """Per spatial axis ``(before, after)`` for pad_mode 'pad'/'valid'; None for 'same' (depends on the input)."""
    mode = str(getattr(cell, "pad_mode", "same")).lower()
    if mode == "valid":
        return tuple((0, 0) for _ in range(n))
    if mode == "same":
        return None
    padding = getattr(cell, "padding", 0)
    if isinstance(padding, int):
        return tuple((padding, padding) for _ in range(n))
    padding = tuple(padding)
    if len(padding) == 2 * n:
        return tuple((padding[2 * i], padding[2 * i + 1]) for i in range(n))
    if len(padding) > 2 * n:  # Conv1d keeps (0, 0, p, p)
        padding = padding[-2 * n:]
        return tuple((padding[2 * i], padding[2 * i + 1]) for i in range(n))
    return tuple((p, p) for p in _tuple(padding, n))


def _conv_notes(cell, module, rank) -> list[tuple[str, str]]:
    notes = []
    kernel = tuple(module.kernel_size)
    n = len(kernel)
    stride, dilation = tuple(module.stride), tuple(module.dilation)
    torch_padding = module.padding
    mode = str(getattr(cell, "pad_mode", "same")).lower()
    name = type(cell).__name__
    transposed = "transpose" in type(module).__name__.lower()
    if isinstance(torch_padding, str):
        if torch_padding != mode:
            notes.append((f"pad_mode={mode!r} ({MS}) vs padding={torch_padding!r} ({PT}): "
                          f"pass pad_mode={torch_padding!r}", "outputs"))
    else:
        torch_pad = tuple((p, p) for p in _tuple(torch_padding, n))
        ms_pad = _ms_conv_padding(cell, n)
        if ms_pad is None:
            if transposed:
                # 'same' makes a transposed convolution's output exactly input * stride.
                extra = _tuple(getattr(module, "output_padding", 0), n)
                equivalent = all(d * (k - 1) + 1 + e - 2 * p[0] == s
                                 for s, k, d, p, e in zip(stride, kernel, dilation, torch_pad, extra))
            else:
                # 'same' matches explicit padding only for stride 1 and an odd effective kernel.
                equivalent = all(s == 1 and (k - 1) * d == 2 * p[0]
                                 for s, k, d, p in zip(stride, kernel, dilation, torch_pad))
            if not equivalent:
                notes.append((f"{MS} nn.{name} pads 'same' (its default pad_mode), {PT} uses "
                              f"{_padding_text(torch_padding)}: {_pad_fix(torch_padding, n)}",
                              "outputs"))
        elif ms_pad != torch_pad:
            notes.append((f"padding {_pairs_text(ms_pad)} ({MS}, pad_mode={mode!r}) vs {_pairs_text(torch_pad)} "
                          f"({PT}): {_pad_fix(torch_padding, n)}", "outputs"))
    ms_kernel = _tuple(getattr(cell, "kernel_size", kernel), n)
    ms_stride = _tuple(getattr(cell, "stride", stride), n)
    ms_dilation = _tuple(getattr(cell, "dilation", dilation), n)
    for label, ms_value, torch_value in (("kernel_size", ms_kernel, kernel), ("stride", ms_stride, stride),
                                         ("dilation", ms_dilation, dilation)):
        if ms_value != torch_value:
            notes.append((f"{label} {ms_value} ({MS}) vs {torch_value} ({PT})", "outputs"))
    ms_group, torch_groups = getattr(cell, "group", 1), getattr(module, "groups", 1)
    if ms_group != torch_groups:
        notes.append((f"group={ms_group} ({MS}) vs groups={torch_groups} ({PT})", "outputs"))
    ms_bias, torch_bias = bool(getattr(cell, "has_bias", False)), module.bias is not None
    if ms_bias != torch_bias:
        fix = "pass has_bias=True (MindSpore convolutions default to no bias)" if torch_bias else \
            "pass has_bias=False"
        notes.append((f"has_bias={ms_bias} ({MS}) vs bias={torch_bias} ({PT}): {fix}", "outputs"))
    padding_mode = getattr(module, "padding_mode", "zeros")
    if padding_mode != "zeros":
        notes.append((f"{PT} pads with padding_mode={padding_mode!r}; {MS} convolutions pad with zeros: pad "
                      f"first with nn.Pad(mode='{padding_mode.upper()}') and use pad_mode='valid'", "outputs"))
    return notes


def _padding_text(padding) -> str:
    if not isinstance(padding, int) and len(set(padding)) == 1:
        padding = padding[0]
    return f"padding={padding if isinstance(padding, int) else tuple(padding)}"


def _pairs_text(pairs: tuple) -> str:
    """``((1, 1), (2, 2))`` as ``(1, 2)``, ``((1, 1), (1, 1))`` as ``1``; uneven pairs as they are."""
    if all(before == after for before, after in pairs):
        sides = tuple(before for before, _ in pairs)
        return str(sides[0]) if len(set(sides)) == 1 else str(sides)
    return str(pairs)


def _pad_fix(torch_padding, n: int) -> str:
    pads = _tuple(torch_padding, n)
    if all(p == 0 for p in pads):
        return "pass pad_mode='valid' (or pad_mode='pad', padding=0)"
    value = pads[0] if len(set(pads)) == 1 else tuple(p for p in pads for _ in range(2))
    # padding without pad_mode='pad' fails at construction, which the static rule MS205 reports.
    return f"pass pad_mode='pad', padding={value} (padding needs pad_mode='pad': rule MS205)"


def _linear_notes(cell, module, rank) -> list[tuple[str, str]]:
    notes = []
    ms_bias = bool(getattr(cell, "has_bias", True))
    torch_bias = getattr(module, "bias", None) is not None
    if ms_bias != torch_bias:
        fix = "pass has_bias=False (nn.Dense has a bias by default)" if not torch_bias else "pass has_bias=True"
        notes.append((f"has_bias={ms_bias} ({MS}) vs bias={torch_bias} ({PT}): {fix}", "outputs"))
    if getattr(cell, "activation_flag", False):
        notes.append((f"{MS} nn.Dense applies activation={type(cell.activation).__name__}; {PT} Linear applies "
                      f"none: apply it separately, or check the next layer", "outputs"))
    return notes


def _batchnorm_notes(cell, module, rank) -> list[tuple[str, str]]:
    notes = []
    inner = getattr(cell, "bn2d", cell)  # nn.BatchNorm3d wraps a BatchNorm2d
    ms_eps, torch_eps = getattr(inner, "eps", None), getattr(module, "eps", None)
    if ms_eps is not None and torch_eps is not None and abs(ms_eps - torch_eps) > 1e-12:
        notes.append((f"eps={ms_eps:g} ({MS}) vs eps={torch_eps:g} ({PT})", "outputs"))
    # MindSpore keeps 1 - momentum internally; the user-facing value is 1 - PyTorch's momentum.
    stored = getattr(inner, "momentum", None)
    torch_momentum = getattr(module, "momentum", None)
    if stored is not None and torch_momentum is not None and abs(stored - torch_momentum) > 1e-9:
        ms_given = 1.0 - stored
        notes.append((f"momentum={ms_given:g} ({MS}) updates the moving statistics like momentum={stored:g} in "
                      f"{PT}, the reference uses momentum={torch_momentum:g}: pass momentum={1.0 - torch_momentum:g} "
                      f"(MindSpore's momentum is 1 - PyTorch's)", "training"))
    use_batch = getattr(inner, "use_batch_statistics", None)
    tracks = getattr(module, "track_running_stats", True)
    if use_batch is True and tracks:
        notes.append((f"use_batch_statistics=True makes {MS} use batch statistics in eval mode too; {PT} uses "
                      f"the running statistics in eval mode", "outputs"))
    if not tracks and use_batch is not True:
        notes.append((f"{PT} has track_running_stats=False (always batch statistics): pass "
                      f"use_batch_statistics=True", "outputs"))
    return notes


def _layernorm_notes(cell, module, rank) -> list[tuple[str, str]]:
    notes = []
    ms_eps = getattr(cell, "epsilon", getattr(cell, "eps", None))
    torch_eps = getattr(module, "eps", None)
    if ms_eps is not None and torch_eps is not None and abs(ms_eps - torch_eps) > 1e-12:
        notes.append((f"epsilon={ms_eps:g} ({MS}; nn.LayerNorm defaults to 1e-7) vs eps={torch_eps:g} ({PT}): "
                      f"pass epsilon={torch_eps:g}", "outputs"))
    return notes


def _groupnorm_notes(cell, module, rank) -> list[tuple[str, str]]:
    notes = []
    if getattr(cell, "num_groups", None) != getattr(module, "num_groups", None):
        notes.append((f"num_groups={getattr(cell, 'num_groups', None)} ({MS}) vs "
                      f"{getattr(module, 'num_groups', None)} ({PT})", "outputs"))
    ms_eps, torch_eps = getattr(cell, "eps", None), getattr(module, "eps", None)
    if ms_eps is not None and torch_eps is not None and abs(ms_eps - torch_eps) > 1e-12:
        notes.append((f"eps={ms_eps:g} ({MS}) vs eps={torch_eps:g} ({PT})", "outputs"))
    return notes


def _dropout_notes(cell, module, rank) -> list[tuple[str, str]]:
    p = getattr(cell, "p", None)
    keep_prob = getattr(cell, "keep_prob", None)
    ms_rate = p if p is not None else (1.0 - keep_prob if keep_prob is not None else None)
    torch_rate = getattr(module, "p", None)
    if ms_rate is None or torch_rate is None or abs(ms_rate - torch_rate) < 1e-9:
        return []
    if p is None and keep_prob is not None and abs(keep_prob - torch_rate) < 1e-9:
        return [(f"nn.Dropout({keep_prob:g}) sets keep_prob (the first argument), so it drops {ms_rate:g}; {PT} "
                 f"drops {torch_rate:g}: pass p={torch_rate:g}", "training")]
    return [(f"drop rate {ms_rate:g} ({MS}) vs {torch_rate:g} ({PT})", "training")]


def _gelu_notes(cell, module, rank) -> list[tuple[str, str]]:
    ms_approx = getattr(cell, "approximate", "tanh")
    torch_approx = getattr(module, "approximate", "none")
    if type(cell).__name__ == "FastGelu":
        return [(f"nn.FastGelu is an approximation; {PT} GELU(approximate={torch_approx!r}): use "
                 f"nn.GELU(approximate={torch_approx == 'tanh'})", "outputs")]
    if ms_approx != torch_approx:
        return [(f"nn.GELU uses approximate={ms_approx!r} ({MS}; nn.GELU() defaults to the tanh approximation) vs "
                 f"{torch_approx!r} ({PT}): pass approximate={torch_approx == 'tanh'}", "outputs")]
    return []


def _leaky_relu_notes(cell, module, rank) -> list[tuple[str, str]]:
    ms_alpha, torch_slope = getattr(cell, "alpha", None), getattr(module, "negative_slope", None)
    if ms_alpha is not None and torch_slope is not None and abs(ms_alpha - torch_slope) > 1e-12:
        return [(f"alpha={ms_alpha:g} ({MS}; nn.LeakyReLU defaults to 0.2) vs negative_slope={torch_slope:g} "
                 f"({PT}; default 0.01): pass alpha={torch_slope:g}", "outputs")]
    return []


def _pool_notes(cell, module, rank) -> list[tuple[str, str]]:
    notes = []
    kernel = getattr(module, "kernel_size", None)
    if kernel is None:
        return notes
    n = len(kernel) if isinstance(kernel, tuple) else {"1d": 1, "3d": 3}.get(type(module).__name__[-2:], 2)
    torch_kernel = _tuple(kernel, n)
    torch_stride = _tuple(module.stride if module.stride is not None else kernel, n)
    ms_kernel = _tuple(getattr(cell, "kernel_size", torch_kernel), n)
    ms_stride = _tuple(getattr(cell, "stride", torch_stride), n)
    if ms_kernel != torch_kernel:
        notes.append((f"kernel_size {ms_kernel} ({MS}) vs {torch_kernel} ({PT})", "outputs"))
    if ms_stride != torch_stride:
        wanted = torch_stride[0] if len(set(torch_stride)) == 1 else torch_stride
        notes.append((f"stride {ms_stride} ({MS}; MindSpore pooling defaults to stride 1) vs {torch_stride} ({PT}; "
                      f"defaults to kernel_size): pass stride={wanted}", "outputs"))
    return notes


def _softmax_notes(cell, module, rank) -> list[tuple[str, str]]:
    primitive = getattr(cell, "softmax", None) or getattr(cell, "log_softmax", None)
    ms_axis = getattr(cell, "axis", None)
    if ms_axis is None:
        ms_axis = getattr(primitive, "axis", None)
    if isinstance(ms_axis, (tuple, list)):
        ms_axis = ms_axis[0] if len(ms_axis) == 1 else None
    torch_dim = getattr(module, "dim", None)
    if torch_dim is None or ms_axis is None or rank is None:
        return []
    if ms_axis % rank != torch_dim % rank:
        return [(f"axis={ms_axis} ({MS}) vs dim={torch_dim} ({PT})", "outputs")]
    return []


def _embedding_notes(cell, module, rank) -> list[tuple[str, str]]:
    ms_pad, torch_pad = getattr(cell, "padding_idx", None), getattr(module, "padding_idx", None)
    if ms_pad != torch_pad:
        return [(f"padding_idx={ms_pad} ({MS}) vs {torch_pad} ({PT})", "training")]
    return []


CHECKS = {
    "conv": _conv_notes,
    "linear": _linear_notes,
    "layernorm": _layernorm_notes,
    "groupnorm": _groupnorm_notes,
    "gelu": _gelu_notes,
    "leakyrelu": _leaky_relu_notes,
    "softmax": _softmax_notes,
    "logsoftmax": _softmax_notes,
    "embedding": _embedding_notes,
}


def _checks_for(kind: str):
    if kind in CHECKS:
        return CHECKS[kind]
    if kind.startswith("batchnorm"):
        return _batchnorm_notes
    family = family_of(kind)
    if family == "conv":
        return _conv_notes
    if family == "dropout":
        return _dropout_notes
    if family == "pool" and not kind.startswith("adaptive"):
        return _pool_notes
    return None


def pair_notes(cell, module, rank: int | None = None) -> list[tuple[str, str]]:
    """(message, affects) for every known setting that differs between a MindSpore layer and a PyTorch layer.

    ``rank``: the number of dimensions of the layer's first input, where known (for axis arguments).
    """
    ms_kind, torch_kind = kind_of(type(cell).__name__), kind_of(type(module).__name__)
    if ms_kind != torch_kind:
        return [(f"different layer types: {MS} {type(cell).__name__} vs {PT} {type(module).__name__}", "outputs")]
    check = _checks_for(torch_kind)
    if check is None:
        return []
    try:
        return check(cell, module, rank)
    except (AttributeError, TypeError, ValueError):  # a layer subclass without the usual attributes
        return []


def config_notes(pairs: list[tuple], ms_calls, torch_calls) -> list[ConfigNote]:
    notes, seen = [], set()
    for ms_index, torch_index in pairs:
        if ms_index is None or torch_index is None:
            continue
        ms_call, torch_call = ms_calls[ms_index], torch_calls[torch_index]
        key = (id(ms_call.module), id(torch_call.module))
        if key in seen:
            continue
        seen.add(key)
        for message, affects in pair_notes(ms_call.module, torch_call.module, _rank(torch_call.ref)):
            notes.append(ConfigNote(ms_path=ms_call.ref.path or "<model>", torch_path=torch_call.ref.path or "<model>",
                                    message=message, affects=affects))
    return notes


def divergence_hints(div: Divergence, ms_module, torch_module, *, train: bool,
                     untransferred_ms: set[str], untransferred_torch: set[str]) -> list[str]:
    hints = []
    ms_kind, torch_kind = kind_of(div.ms.type_name), kind_of(div.torch.type_name)
    if div.where == "layer":
        for message, _ in pair_notes(ms_module, torch_module, _rank(div.torch)):
            hints.append(message)
        shape_differs = any(d.shape_differs for d in div.output_diffs)
        if family_of(torch_kind) == "conv" and shape_differs and not any("pad" in h for h in hints):
            hints.append(f"{MS} convolutions default to pad_mode='same' (output size = input size), {PT} to "
                         f"padding=0: set pad_mode='valid', or pad_mode='pad' with PyTorch's padding")
        missing = [name for name in untransferred_ms if _in_layer(name, div.ms.path)]
        missing += [key for key in untransferred_torch if _in_layer(key, div.torch.path)]
        if missing:
            hints.append(f"this layer has tensors that were not transferred: {', '.join(sorted(missing))}")
        if family_of(torch_kind) == "dropout" and train:
            hints.append("Dropout draws different random masks in each framework in train mode: compare in eval "
                         "mode (leave out --train)")
        elif torch_kind.startswith("batchnorm") and not train:
            hints.append(f"in eval mode BatchNorm uses the moving statistics: check that moving_mean/moving_variance "
                         f"were transferred from running_mean/running_var and that both models were in eval mode "
                         f"({MS} set_train(False), {PT} eval())")
        elif torch_kind.startswith("batchnorm") and train:
            hints.append("in train mode BatchNorm normalises with the batch statistics; the momentum only changes "
                         "the moving statistics (MindSpore momentum = 1 - PyTorch momentum)")
    elif div.where in ("between", "after"):
        place = "between these layers" if div.where == "between" else "after the last aligned layers"
        hints.append(f"the code {place} in construct() / forward() computes something different; functional "
                     f"calls (ops.*, F.*, tensor methods) are not layers and are not compared one by one")
        for side, other, refs in ((MS, PT, div.unaligned_ms), (PT, MS, div.unaligned_torch)):
            if refs:
                names = ", ".join(f"{r.display_path} ({r.type_name})" for r in refs)
                hints.append(f"{side} runs {names} here and {other} has no such layer: if the port applies it as a "
                             f"function (ops.relu, F.relu, ...), check that call")
    else:
        hints.append("the models receive different inputs: check the input order and any preprocessing at the "
                     "start of construct() / forward()")
    if ms_kind != torch_kind and div.where == "layer" and not any("different layer types" in h for h in hints):
        hints.append(f"different layer types: {MS} {div.ms.type_name} vs {PT} {div.torch.type_name}")
    return hints


def _rank(ref) -> int | None:
    return len(ref.input_shapes[0]) if ref.input_shapes else None


def _in_layer(name: str, layer_path: str) -> bool:
    if not layer_path:
        return True
    return name.startswith(layer_path + ".")
