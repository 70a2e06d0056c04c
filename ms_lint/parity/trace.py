"""Run a model once with every layer hooked, recording each layer call's inputs and outputs.

A *layer* is a sub-module that is compared as a whole: a library module (``mindspore.nn.Conv2d``,
``torch.nn.BatchNorm2d``, ...) other than a container, or a user module without sub-modules. Containers
(``SequentialCell``/``Sequential``, ``CellList``/``ModuleList``, ``CellDict``/``ModuleDict``) and user modules with
sub-modules are looked into. MindSpore runs in PyNative mode, where ``Cell.register_forward_pre_hook(hook(cell,
args))`` and ``Cell.register_forward_hook(hook(cell, args, output))`` fire on every call (mindspore 2.10).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ms_lint.parity.report import MS, PT, LayerRef
from ms_lint.parity.targets import describe_exception

MS_CONTAINERS = {"SequentialCell", "CellList", "CellDict"}
TORCH_CONTAINERS = {"Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"}


@dataclass
class LayerCall:
    ref: LayerRef
    module: Any
    inputs: list = field(default_factory=list)  # numpy arrays, positional tensor arguments in order
    outputs: list | None = None  # numpy arrays, flattened; None while running, and for ever if the layer raised


@dataclass
class Trace:
    framework: str
    calls: list[LayerCall] = field(default_factory=list)
    outputs: list | None = None
    error: str | None = None
    failed_layer: LayerRef | None = None


class FrameworkSide:
    """What differs between MindSpore and PyTorch for discovery, hooks, conversion and running."""

    label = ""
    library_prefix = ""
    containers: set = set()

    def children(self, module) -> list[tuple[str, Any]]:
        raise NotImplementedError

    def is_tensor(self, value) -> bool:
        raise NotImplementedError

    def to_numpy(self, value) -> np.ndarray:
        raise NotImplementedError

    def hook(self, module, pre, post) -> list:
        raise NotImplementedError

    def call(self, model, arrays: list[np.ndarray]):
        raise NotImplementedError

    def set_mode(self, model, train: bool) -> None:
        raise NotImplementedError

    def type_name(self, module) -> str:
        return type(module).__name__

    def is_library(self, module) -> bool:
        return type(module).__module__.startswith(self.library_prefix)

    def layers(self, model) -> list[tuple[str, Any]]:
        """The model's layers in definition order, each once (a shared module under its first path)."""
        found: list[tuple[str, Any]] = []
        seen: set[int] = set()

        def visit(path: str, module) -> None:
            if id(module) in seen:
                return
            seen.add(id(module))
            children = self.children(module)
            is_container = self.is_library(module) and self.type_name(module) in self.containers
            if not children or (self.is_library(module) and not is_container):
                found.append((path, module))
                return
            for name, child in children:
                visit(f"{path}.{name}" if path else name, child)

        visit("", model)
        return found

    def flatten(self, value) -> list[np.ndarray]:
        if self.is_tensor(value):
            return [self.to_numpy(value)]
        if isinstance(value, (list, tuple)):
            return [array for item in value for array in self.flatten(item)]
        if isinstance(value, dict):
            return [array for item in value.values() for array in self.flatten(item)]
        if isinstance(value, (bool, int, float, np.ndarray, np.number)):
            return [np.asarray(value)]
        return []


class MindSporeSide(FrameworkSide):
    label = MS
    library_prefix = "mindspore."
    containers = MS_CONTAINERS

    def __init__(self):
        import mindspore

        self.ms = mindspore

    def children(self, module):
        return [(name, cell) for name, cell in module.name_cells().items() if cell is not None]

    def is_tensor(self, value) -> bool:
        return isinstance(value, self.ms.Tensor)

    def to_numpy(self, value) -> np.ndarray:
        if value.dtype == self.ms.bfloat16:
            value = value.astype(self.ms.float32)
        return np.array(value.asnumpy(), copy=True)

    def hook(self, module, pre, post):
        return [module.register_forward_pre_hook(lambda cell, args: pre(cell, args)),
                module.register_forward_hook(lambda cell, args, output: post(cell, output))]

    def call(self, model, arrays):
        return model(*[self.ms.Tensor(array) for array in arrays])

    def set_mode(self, model, train: bool) -> None:
        model.set_train(train)


class TorchSide(FrameworkSide):
    label = PT
    library_prefix = "torch."
    containers = TORCH_CONTAINERS

    def __init__(self):
        import torch

        self.torch = torch

    def children(self, module):
        return list(module.named_children())

    def is_tensor(self, value) -> bool:
        return isinstance(value, self.torch.Tensor)

    def to_numpy(self, value) -> np.ndarray:
        value = value.detach().cpu()
        if value.dtype == self.torch.bfloat16:
            value = value.float()
        return value.numpy().copy()

    def hook(self, module, pre, post):
        return [module.register_forward_pre_hook(lambda mod, args: pre(mod, args)),
                module.register_forward_hook(lambda mod, args, output: post(mod, output))]

    def call(self, model, arrays):
        # Inputs go where the model's weights are (a factory may have moved it to an accelerator).
        first = next(iter(model.parameters()), None)
        device = first.device if first is not None else "cpu"
        with self.torch.no_grad():
            return model(*[self.torch.from_numpy(np.array(array, copy=True)).to(device) for array in arrays])

    def set_mode(self, model, train: bool) -> None:
        model.train(train)


def run_traced(side: FrameworkSide, model, arrays: list[np.ndarray]) -> Trace:
    """Call ``model`` on ``arrays`` once, recording every layer call; a raised error is recorded, not raised."""
    trace = Trace(framework=side.label)
    paths = {id(module): path for path, module in side.layers(model)}
    call_counts: dict[int, int] = {}
    open_calls: list[LayerCall] = []

    def pre(module, args):
        key = id(module)
        index = call_counts.get(key, 0)
        call_counts[key] = index + 1
        inputs = [side.to_numpy(a) for a in _flat_args(side, args)]
        ref = LayerRef(framework=side.label, path=paths[key], type_name=side.type_name(module),
                       input_shapes=[tuple(a.shape) for a in inputs], call_index=index)
        # Inputs are copied before the layer runs: an in-place layer (ReLU(inplace=True)) overwrites them.
        call = LayerCall(ref=ref, module=module, inputs=inputs)
        open_calls.append(call)
        trace.calls.append(call)

    def post(module, output):
        while open_calls:
            call = open_calls.pop()
            if call.module is module:
                call.outputs = side.flatten(output)
                call.ref.output_shapes = [tuple(a.shape) for a in call.outputs]
                return

    handles = []
    try:
        for path, module in side.layers(model):
            handles.extend(side.hook(module, pre, post))
        try:
            result = side.call(model, arrays)
            trace.outputs = side.flatten(result)
        except Exception as exc:  # the model's own failure is a finding, not a crash
            trace.error = describe_exception(exc)
            if open_calls:
                trace.failed_layer = open_calls[-1].ref
    finally:
        for handle in handles:
            handle.remove()
    return trace


def _flat_args(side: FrameworkSide, args) -> list:
    flat = []
    for arg in args if isinstance(args, (tuple, list)) else (args,):
        if side.is_tensor(arg):
            flat.append(arg)
        elif isinstance(arg, (tuple, list)):
            flat.extend(_flat_args(side, arg))
    return flat
