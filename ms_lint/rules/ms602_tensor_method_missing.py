"""MS602: a PyTorch tensor method that MindSpore's ``Tensor`` does not have (``.detach()``, ``.cuda()``)."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.model import TENSOR, GraphFunction, ModuleFacts
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.rules.base import Rule

# PyTorch ``torch.Tensor`` methods ported code calls, with the MindSpore function of the same operation (None: no
# equivalent; the message says what to do instead). `detach` -> `ops.stop_gradient` is the one MindSpore's
# migration documentation names (stop_gradient removes a value's effect on the gradient). A name is
# reported only while the installed MindSpore's Tensor lacks it (the generated ``tensor_methods`` table), so a
# MindSpore release that adds one silences it. Every equivalent is checked to exist
# (tests/test_pytorch_tensor_methods.py).
PYTORCH_ONLY_METHODS: dict[str, str | None] = {
    "detach": "mindspore.ops.stop_gradient",
    "detach_": "mindspore.ops.stop_gradient",
    "cpu": None,
    "cuda": None,
    "xpu": None,
    "backward": "mindspore.value_and_grad",
    "retain_grad": None,
    "get_device": None,
    "share_memory_": None,
    "element_size": None,
    "new_tensor": "mindspore.tensor",
    "relu": "mindspore.ops.relu",
    "relu_": "mindspore.ops.relu",
    "log_softmax": "mindspore.ops.log_softmax",
    "clamp_min": "mindspore.ops.clamp",
    "clamp_max": "mindspore.ops.clamp",
    "true_divide_": "mindspore.ops.true_divide",
    "kron": "mindspore.ops.kron",
    "mv": "mindspore.ops.mv",
    "exp2": "mindspore.ops.exp2",
    "dist": "mindspore.ops.dist",
    "prelu": "mindspore.ops.prelu",
    "stft": "mindspore.ops.stft",
    "split_with_sizes": "mindspore.ops.split",
    "narrow_copy": "mindspore.ops.narrow",
    "take_along_dim": "mindspore.ops.gather_elements",
    "unflatten": None,
    "sqrt_": "mindspore.ops.sqrt",
    "neg_": "mindspore.ops.neg",
    "pow_": "mindspore.ops.pow",
    "round_": "mindspore.ops.round",
    "t_": "mindspore.ops.t",
    "unsqueeze_": "mindspore.ops.unsqueeze",
    "squeeze_": "mindspore.ops.squeeze",
    "transpose_": "mindspore.ops.swapaxes",
    # Tensor methods 2.7.1 lacks and 2.8.0 has (the generated tables): reported for the older targets only.
    "set_": None,
    "is_shared": None,
}
_DEVICE_MOVES = frozenset({"cpu", "cuda", "xpu"})

# PyTorch methods that MindSpore's Tensor has as properties (generated ``tensor_properties`` table): calling one
# calls its value. ``x.size(d)`` means ``x.shape[d]``; MindSpore's ``size`` is the number of elements.
PYTORCH_METHODS_READ_AS_PROPERTIES: dict[str, str] = {"size": "shape"}
_WATCHED = frozenset(PYTORCH_ONLY_METHODS) | frozenset(PYTORCH_METHODS_READ_AS_PROPERTIES)


@dataclass(frozen=True, kw_only=True)
class PytorchTensorMethod(FindingData):
    """A PyTorch tensor method called on a MindSpore tensor: the method, ``mindspore.Tensor``, the version of the
    tables read and the target's version, whether MindSpore has it as a property (the call then fails on its
    value) rather than not at all, the function, whether that is graph code, and for a property the dimension
    the call asks for (``x.size(1)``), as written."""

    name: str = fact(subject=True)
    module: str = fact(for_users=True)
    version: str = fact(for_users=True)
    target_version: str = fact(for_users=True)
    property: bool
    function: str
    graph: bool
    dimension: str | None = fact(optional=True)

    def message(self) -> str:
        method = self.name
        where = f"graph code ({self.function})" if self.graph else self.function
        if self.property:
            attribute = PYTORCH_METHODS_READ_AS_PROPERTIES[method]
            instead = f".{attribute}[{self.dimension}]" if self.dimension is not None else f".{attribute}"
            return (f".{method}() is a PyTorch tensor method; MindSpore's Tensor.{method} is a property (the number "
                    f"of elements), so the call fails in {where}: TypeError in PyNative ('int' object is not "
                    f"callable), ValueError in graph mode ('The object is not callable'); use {instead}")
        equivalent = PYTORCH_ONLY_METHODS[method]
        if method in _DEVICE_MOVES:
            advice = "drop it: MindSpore places tensors on the device chosen with mindspore.set_device"
        elif method == "backward":
            advice = "compute gradients with mindspore.value_and_grad (or ops.grad) around the forward function"
        elif equivalent is not None:
            advice = f"use {equivalent.replace('mindspore.ops.', 'ops.')}"
        else:
            advice = "MindSpore has no equivalent tensor method"
        return (f".{method}() is a PyTorch tensor method that MindSpore's Tensor does not have: AttributeError in "
                f"{where}, in graph mode and PyNative alike; {advice}")


class TensorMethodMissing(Rule):
    code = "MS602"
    name = "tensor-method-missing"
    summary = ("a PyTorch tensor method that MindSpore's `Tensor` does not have (`.detach()`, `.cuda()`, ...) or has "
               "as a property (`.size(0)`)")
    fix_summary = "use the MindSpore equivalent the message names (`x.detach()` -> `ops.stop_gradient(x)`)"
    what = """
        Reports calls, on a tensor value, of PyTorch `torch.Tensor` methods that the target MindSpore version's
        `Tensor` and `Parameter` do not have at all (`.detach()`, `.cuda()`, `.cpu()`, `.relu()`, `.clamp_min()`,
        in-place forms such as `.unsqueeze_()`; `.set_()` only before 2.8), in graph code and in code PyNative runs
        for a Cell, and in any other function of the module where the value is known to be a tensor; also `.size()`
        / `.size(d)`, which MindSpore's Tensor has as a property (the number of elements), not a method. The set of
        MindSpore's tensor methods is generated from each MindSpore release ms-lint ships tables for; the message
        names the MindSpore function of the same operation where there is one (`detach` -> `ops.stop_gradient`).
        Modules that import `torch` (or a PyTorch shim such as `mindtorch`) are skipped: their tensors may be
        PyTorch's. A project whose compatibility layer adds methods to `Tensor` at run time (`Tensor.detach =
        ...` before training starts) names them in `ms-tensor-methods` (`--ms-tensor-methods=detach,backward`), and
        they are not reported. A function that calls the same method again is reported once, at the first call,
        with the lines of the others (a compile stops at the first); the fix rewrites them all.
    """
    why = """
        The method does not exist: the call raises AttributeError in graph mode (STRICT and LAX) and in PyNative
        alike (measured 2.10 CPU: `'Tensor' object has no attribute 'detach'`). Calling `size` calls an int:
        TypeError in PyNative ("'int' object is not callable"), ValueError in graph mode ("The object is not
        callable"). In graph code the failure comes at the first compile; in PyNative at the first call that
        reaches the line.
    """
    example = """
        class Net(nn.Cell):
            def construct(self, x, target):
                teacher = self.teacher(x).detach()
                return self.loss(x, teacher)
    """
    use_instead = """
        class Net(nn.Cell):
            def construct(self, x, target):
                teacher = ops.stop_gradient(self.teacher(x))
                return self.loss(x, teacher)
    """
    autofix = """
        `x.detach()` becomes `ops.stop_gradient(x)` (importing it when needed); `x.cpu()`/`x.cuda()` with no
        arguments become `x` (MindSpore places tensors on the device set with `mindspore.set_device`);
        `x.size(d)` becomes `x.shape[d]`, `x.size()` becomes `x.shape`.
    """

    records = (PytorchTensorMethod,)
    # one cause: the same method in one function, which a compile stops at first, whichever dimension it asks for
    place_facts = frozenset({"dimension"})

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        version = module.target.version
        for node, function, missing in _reported(module):
            dimension = _dimension(node) if not missing else None
            yield self.report(module, node, PytorchTensorMethod(
                name=node.func.attr, module="mindspore.Tensor", version=api.mindspore_version(version),
                target_version=version, property=not missing, function=function.label,
                graph=module.is_graph_code(function.node),
                dimension=ast.unparse(dimension) if dimension is not None else None))

    def fix(self, context, finding: Finding) -> list:
        return _fixed(context, finding.node)


def _reported(module: ModuleFacts) -> Iterator[tuple[ast.Call, GraphFunction, bool]]:
    """The calls the rule reports, each as (call, its function, whether MindSpore's Tensor lacks the method rather
    than having it as a property)."""
    version = module.target.version
    existing, properties = api.tensor_methods(version), api.tensor_properties(version)
    # Every call of the module is among its call sites: when none calls such a method, reading each function's
    # calls is spared.
    if module.uses_torch() or _WATCHED.isdisjoint(module.written_call_names()):
        return iter(())
    return _calls(module, existing, properties)


def _calls(module: ModuleFacts, existing, properties) -> Iterator[tuple[ast.Call, GraphFunction, bool]]:
    reported: set[int] = set()
    for function in _tensor_code(module):
        for node in function.nodes_of(ast.Call):
            func = node.func
            if id(node) in reported or not isinstance(func, ast.Attribute) or func.attr not in _WATCHED:
                continue
            if func.attr in module.settings.tensor_methods:
                continue  # the project adds it to Tensor at run time
            missing = func.attr in PYTORCH_ONLY_METHODS and func.attr not in existing
            if not (missing or func.attr in properties) or function.kind(func.value) != TENSOR:
                continue
            reported.add(id(node))
            yield node, function, missing


def _fixed(context, call: ast.AST) -> list:
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
        return []
    method = call.func.attr
    receiver = context.receiver(call.func)
    if method in PYTORCH_METHODS_READ_AS_PROPERTIES:
        dimension = _dimension(call)
        if dimension is None and (call.args or call.keywords):
            return []
        read = f"{receiver}.{PYTORCH_METHODS_READ_AS_PROPERTIES[method]}"
        return [context.replace(call, read if dimension is None else f"{read}[{context.text(dimension)}]")]
    if call.args or call.keywords:
        return []
    if method == "detach":
        stopped = context.text(call.func.value)  # an argument needs no parentheses of its own
        return [context.replace(call, f"{context.reference('mindspore.ops.stop_gradient')}({stopped})")]
    if method in _DEVICE_MOVES:
        return [context.replace(call, receiver)]
    return []


def _tensor_code(module: ModuleFacts) -> Iterator[GraphFunction]:
    """Graph code, the code PyNative runs for Cells, then every other function of the module (its parameters of
    unknown kind: only values it builds itself, from MindSpore calls, count as tensors)."""
    seen: set[int] = set()
    for function in module.cell_functions():
        seen.add(id(function.node))
        yield function
    for node, owner in module.function_nodes():
        if id(node) in seen:
            continue
        seen.add(id(node))
        calls = module.index.body_nodes_of(node, (ast.Call,))
        if any(isinstance(c.func, ast.Attribute) and c.func.attr in _WATCHED for c in calls):
            yield module.plain_function(node, owner)


def _dimension(call: ast.Call) -> ast.AST | None:
    """The dimension ``x.size(d)`` / ``x.size(dim=d)`` asks for; None for ``x.size()`` or another form."""
    if len(call.args) == 1 and not call.keywords and not isinstance(call.args[0], ast.Starred):
        return call.args[0]
    if not call.args and len(call.keywords) == 1 and call.keywords[0].arg == "dim":
        return call.keywords[0].value
    return None
