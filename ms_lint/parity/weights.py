"""Map a PyTorch ``state_dict`` onto a MindSpore Cell's parameters, and copy the tensors across.

Order of precedence, each step only for what the previous ones left:
1. the user's map (``{"ms_param_name": "torch_key"}``; ``null`` leaves a parameter out on purpose);
2. by name, with MindSpore's renames (BatchNorm ``gamma/beta/moving_mean/moving_variance``, LayerNorm and
   GroupNorm ``gamma/beta``, Embedding ``embedding_table``, PReLU ``w``) and wrapper layers folded
   (``bn.bn2d.gamma`` in a ``BatchNorm3d`` is ``bn.weight``);
3. by definition order and shape (longest common subsequence of same-role, same-shape tensors).
Shapes must agree, or differ only by size-1 axes (MindSpore's ``Conv1d`` weight is ``(out, in, 1, k)``).
Everything not transferred is reported; ``num_batches_tracked`` has no MindSpore counterpart and is dropped.
"""
from __future__ import annotations

import difflib
import json
import os
from dataclasses import dataclass

import numpy as np

from ms_lint.parity.report import MS, PT, ParityUsageError, WeightProblem, WeightReport, WeightTransfer

LEAF_RENAMES = {
    "gamma": "weight",
    "beta": "bias",
    "moving_mean": "running_mean",
    "moving_variance": "running_var",
    "embedding_table": "weight",
    "w": "weight",  # nn.PReLU
}
ROLES = {"weight", "bias", "running_mean", "running_var"}
DROPPED_TORCH_LEAVES = {"num_batches_tracked"}


@dataclass
class MsParam:
    name: str
    shape: tuple
    param: object
    layer_path: str | None  # the layer (see trace.py) that owns it, None if it sits on a model-level cell
    candidates: tuple  # PyTorch names it may have, best first
    role: str


@dataclass
class TorchTensor:
    key: str
    shape: tuple
    tensor: object
    role: str


def load_map_file(path: str) -> dict[str, str | None]:
    """Read ``--map``: a JSON object, or lines ``ms_name = torch_key`` / ``ms_name: torch_key`` (``#`` comments)."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as exc:
        raise ParityUsageError(f"--map: cannot read {path}: {exc.strerror or exc}") from None
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise ParityUsageError(f"--map: {path} is not valid JSON: {exc.msg} (line {exc.lineno})") from None
        for key, value in data.items():
            if value is not None and not isinstance(value, str):
                raise ParityUsageError(f"--map: {path}: the value for {key!r} must be a PyTorch key or null")
        return dict(data)
    mapping: dict[str, str | None] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        for separator in ("=", ":", None):
            parts = line.split(separator, 1) if separator else line.split(None, 1)
            if len(parts) == 2:
                break
        else:
            raise ParityUsageError(f"--map: {os.path.basename(path)}:{number}: expected 'ms_name = torch_key'")
        ms_name, torch_key = parts[0].strip(), parts[1].strip()
        mapping[ms_name] = None if torch_key in ("", "null", "None", "-") else torch_key
    return mapping


def ms_parameters(cell, layer_paths: dict[str, str]) -> list[MsParam]:
    """``layer_paths``: layer path -> layer type name, from the MindSpore side's layer discovery."""
    found = []
    for name, param in cell.parameters_and_names():
        layer_path = _owning_layer(name, layer_paths)
        leaf = name.rsplit(".", 1)[-1]
        renamed = LEAF_RENAMES.get(leaf, leaf) if leaf != "w" or _is_prelu(layer_paths.get(layer_path)) else leaf
        candidates = [name]
        if layer_path is not None:
            folded = f"{layer_path}.{renamed}" if layer_path else renamed
            parent = name.rsplit(".", 1)[0] if "." in name else ""
            unfolded = f"{parent}.{renamed}" if parent else renamed
            for candidate in (unfolded, folded):
                if candidate not in candidates:
                    candidates.append(candidate)
        found.append(MsParam(name=name, shape=tuple(param.shape), param=param, layer_path=layer_path,
                             candidates=tuple(candidates), role=renamed if renamed in ROLES else "other"))
    return found


def _is_prelu(type_name: str | None) -> bool:
    return bool(type_name) and type_name.lower().startswith("prelu")


def _owning_layer(name: str, layer_paths: dict[str, str]) -> str | None:
    parts = name.split(".")
    for cut in range(len(parts) - 1, -1, -1):
        prefix = ".".join(parts[:cut])
        if prefix in layer_paths:
            return prefix
    return None


def torch_tensors(module) -> tuple[list[TorchTensor], list[str]]:
    tensors, dropped = [], []
    for key, tensor in module.state_dict().items():
        leaf = key.rsplit(".", 1)[-1]
        if leaf in DROPPED_TORCH_LEAVES:
            dropped.append(key)
            continue
        tensors.append(TorchTensor(key=key, shape=tuple(tensor.shape), tensor=tensor,
                                   role=leaf if leaf in ROLES else "other"))
    return tensors, dropped


def shapes_compatible(ms_shape: tuple, torch_shape: tuple) -> bool:
    if ms_shape == torch_shape:
        return True
    return (int(np.prod(ms_shape)) == int(np.prod(torch_shape))
            and tuple(d for d in ms_shape if d != 1) == tuple(d for d in torch_shape if d != 1))


def plan_transfer(ms_params: list[MsParam], torch_list: list[TorchTensor],
                  user_map: dict[str, str | None] | None = None) -> tuple[WeightReport, list[tuple]]:
    """Decide which PyTorch tensor goes into which MindSpore parameter.

    Returns the report and the transfers as ``(MsParam, TorchTensor)`` pairs.
    """
    report = WeightReport()
    by_key = {t.key: t for t in torch_list}
    by_ms = {p.name: p for p in ms_params}
    taken_ms: set[str] = set()
    taken_torch: set[str] = set()
    pairs: list[tuple[MsParam, TorchTensor]] = []

    def accept(ms_param: MsParam, tensor: TorchTensor, how: str) -> None:
        taken_ms.add(ms_param.name)
        taken_torch.add(tensor.key)
        if shapes_compatible(ms_param.shape, tensor.shape):
            note = "" if ms_param.shape == tensor.shape else f"reshaped from {tensor.shape}"
            report.transferred.append(WeightTransfer(ms_name=ms_param.name, torch_key=tensor.key,
                                                     shape=ms_param.shape, how=how, note=note))
            pairs.append((ms_param, tensor))
        else:
            report.problems.append(WeightProblem(kind="shape_mismatch", ms_name=ms_param.name, torch_key=tensor.key,
                                                 ms_shape=ms_param.shape, torch_shape=tensor.shape,
                                                 hint=_shape_hint(ms_param.shape, tensor.shape)))

    for ms_name, torch_key in (user_map or {}).items():
        if ms_name not in by_ms:
            raise ParityUsageError(f"--map: {ms_name!r} is not a parameter of the {MS} model"
                                   f"{_did_you_mean(ms_name, by_ms)}")
        if torch_key is None:
            taken_ms.add(ms_name)
            report.problems.append(WeightProblem(kind="skipped_by_map", ms_name=ms_name,
                                                 ms_shape=by_ms[ms_name].shape))
            continue
        if torch_key not in by_key:
            raise ParityUsageError(f"--map: {torch_key!r} is not in the {PT} state_dict"
                                   f"{_did_you_mean(torch_key, by_key)}")
        accept(by_ms[ms_name], by_key[torch_key], "map")

    for ms_param in ms_params:
        if ms_param.name in taken_ms:
            continue
        for rank, candidate in enumerate(ms_param.candidates):
            tensor = by_key.get(candidate)
            if tensor is not None and tensor.key not in taken_torch:
                accept(ms_param, tensor, "name" if rank == 0 else "rename")
                break

    rest_ms = [p for p in ms_params if p.name not in taken_ms]
    rest_torch = [t for t in torch_list if t.key not in taken_torch]
    for ms_param, tensor in _match_by_order(rest_ms, rest_torch):
        accept(ms_param, tensor, "order")

    transferred_storage = {_storage_key(t.tensor) for _, t in pairs}
    for ms_param in ms_params:
        if ms_param.name not in taken_ms:
            report.problems.append(WeightProblem(kind="unmapped_ms", ms_name=ms_param.name, ms_shape=ms_param.shape))
    for tensor in torch_list:
        if tensor.key in taken_torch:
            continue
        if _storage_key(tensor.tensor) in transferred_storage:
            report.aliases.append(tensor.key)  # a tied weight: MindSpore holds it once
            continue
        report.problems.append(WeightProblem(kind="unmapped_torch", torch_key=tensor.key, torch_shape=tensor.shape))
    return report, pairs


def _match_by_order(ms_params: list[MsParam], tensors: list[TorchTensor]) -> list[tuple[MsParam, TorchTensor]]:
    """Longest common subsequence of (role, shape)-compatible tensors, both lists in definition order."""
    n, m = len(ms_params), len(tensors)
    if not n or not m:
        return []
    table = np.zeros((n + 1, m + 1), dtype=np.int32)
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            if _order_compatible(ms_params[i], tensors[j]):
                table[i, j] = table[i + 1, j + 1] + 1
            else:
                table[i, j] = max(table[i + 1, j], table[i, j + 1])
    matches = []
    i = j = 0
    while i < n and j < m:
        if _order_compatible(ms_params[i], tensors[j]) and table[i, j] == table[i + 1, j + 1] + 1:
            matches.append((ms_params[i], tensors[j]))
            i, j = i + 1, j + 1
        elif table[i + 1, j] >= table[i, j + 1]:
            i += 1
        else:
            j += 1
    return matches


def _order_compatible(ms_param: MsParam, tensor: TorchTensor) -> bool:
    if ms_param.role != tensor.role and "other" not in (ms_param.role, tensor.role):
        return False
    return shapes_compatible(ms_param.shape, tensor.shape)


def _storage_key(tensor) -> tuple:
    try:
        return (tensor.untyped_storage().data_ptr(), tensor.storage_offset(), tuple(tensor.shape))
    except (AttributeError, RuntimeError):
        return (id(tensor),)


def _shape_hint(ms_shape: tuple, torch_shape: tuple) -> str:
    if len(ms_shape) == 2 and ms_shape == tuple(reversed(torch_shape)):
        return "the layout looks transposed"
    if int(np.prod(ms_shape)) == int(np.prod(torch_shape)):
        return "same number of elements in another layout"
    return "the layer was built with different sizes"


def _did_you_mean(name: str, known) -> str:
    close = difflib.get_close_matches(name, list(known), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def apply_transfer(pairs: list[tuple]) -> None:
    """Copy each PyTorch tensor into its MindSpore parameter, in the parameter's dtype and shape."""
    import mindspore
    import torch

    for ms_param, tensor in pairs:
        source = tensor.tensor.detach().cpu()
        if source.dtype == torch.bfloat16:
            source = source.float()
        array = source.numpy().reshape(ms_param.shape)
        ms_param.param.set_data(mindspore.Tensor(array, dtype=ms_param.param.dtype))


def bias_hints(report: WeightReport, ms_layers: dict[str, object], torch_layers: dict[str, object]) -> None:
    """Explain a missing bias on one side (MindSpore's Conv defaults to no bias, Dense to a bias)."""
    for problem in report.problems:
        if problem.kind == "unmapped_torch" and problem.torch_key.rsplit(".", 1)[-1] == "bias":
            path = problem.torch_key.rsplit(".", 1)[0] if "." in problem.torch_key else ""
            cell = ms_layers.get(path)
            if cell is not None and getattr(cell, "has_bias", True) is False:
                problem.hint = (f"{MS} nn.{type(cell).__name__} has no bias (has_bias defaults to False for "
                                f"convolutions, PyTorch's bias to True): pass has_bias=True")
        elif problem.kind == "unmapped_ms" and problem.ms_name.rsplit(".", 1)[-1] == "bias":
            path = problem.ms_name.rsplit(".", 1)[0] if "." in problem.ms_name else ""
            module = torch_layers.get(path)
            if module is not None and getattr(module, "bias", 0) is None:
                problem.hint = (f"the {PT} {type(module).__name__} has bias=False; {MS} nn.Dense has has_bias=True "
                                f"by default: pass has_bias=False")
