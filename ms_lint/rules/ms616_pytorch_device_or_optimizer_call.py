"""MS616: PyTorch's device moves and optimizer calls on MindSpore objects (``x.to("cuda")``, ``net.cuda()``,
``optimizer.zero_grad()``, ``mindspore.tensor.from_numpy``)."""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Iterator

from ms_lint.edits import Edit
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.model import TENSOR, ModuleFacts
from ms_lint.model.classes import ClassInfo
from ms_lint.model.syntax import first_argument
from ms_lint.rules.base import Rule

# Device names ``Tensor.to``/``Cell.to`` reject (measured 2.10 and 2.7.1: ValueError "Failed to convert the value
# ... to enum"); "cpu", "CPU", "Ascend" and "npu" are accepted.
_REJECTED_DEVICE = re.compile(r"(cuda(:\d+)?|gpu|GPU)\Z")
# PyTorch's device moves of ``nn.Module``, which ``nn.Cell`` lacks (AttributeError, measured 2.10 and 2.7.1)
_CELL_DEVICE_METHODS = frozenset({"cuda", "cpu"})
_WATCHED = frozenset({"to", "zero_grad", "from_numpy"}) | _CELL_DEVICE_METHODS

TENSOR_TO_DEVICE = "tensor-to-device"
CELL_TO_DEVICE = "cell-to-device"
CELL_DEVICE_METHOD = "cell-device-method"
ZERO_GRAD = "zero-grad"
TENSOR_FUNCTION_FROM_NUMPY = "tensor-function-from-numpy"


@dataclass(frozen=True, kw_only=True)
class PytorchObjectCall(FindingData):
    """A PyTorch call on a MindSpore object: what kind (one of the constants above), the call as written, the class
    of the object (``mindspore.Tensor``, a layer's or optimizer's qualified name, the project's Cell), the device
    named (for ``to``), and whether the call is in graph code."""

    kind: str
    call: str = fact(subject=True)
    holder: str
    device: str | None = fact(optional=True)
    in_graph: bool

    def message(self) -> str:
        holder = self.holder.replace("mindspore.", "", 1)
        placement = "MindSpore places data on the device chosen once with mindspore.set_device (or set_context)"
        if self.kind == TENSOR_TO_DEVICE:
            where = " (graph code fails to compile, STRICT and LAX)" if self.in_graph else ""
            return (f"{self.call} moves a {holder} to {self.device!r}, a device MindSpore does not name: ValueError "
                    f"\"Failed to convert the value ... to enum\"{where} (measured 2.10 and 2.7.1); drop the move: "
                    f"{placement}")
        if self.kind == CELL_TO_DEVICE:
            return (f"{self.call} moves {holder}, a Cell, to {self.device!r}: ValueError on 2.10 (no such device), "
                    f"AttributeError on 2.7.1 (Cell has no `to`; measured); drop the move: {placement}")
        if self.kind == CELL_DEVICE_METHOD:
            return (f"{self.call} is PyTorch's nn.Module device move; {holder}, a Cell, has no such method: "
                    f"AttributeError (measured 2.10 and 2.7.1); drop it: {placement}")
        if self.kind == ZERO_GRAD:
            return (f"{self.call}: {holder}, a MindSpore optimizer, has no zero_grad: AttributeError (measured 2.10 "
                    f"and 2.7.1); delete the line: MindSpore gradients are returned by value_and_grad/grad for each "
                    f"step, never accumulated, so there is nothing to reset")
        return (f"{self.call}: mindspore.tensor is a function, not the Tensor class: AttributeError ('function' "
                f"object has no attribute 'from_numpy'; measured 2.10 and 2.7.1); use Tensor.from_numpy(...) or "
                f"mindspore.from_numpy(...)")


class PytorchDeviceOrOptimizerCall(Rule):
    code = "MS616"
    name = "pytorch-device-or-optimizer-call"
    summary = ("a PyTorch device move or optimizer call on a MindSpore object (`x.to(\"cuda\")`, `net.cuda()`, "
               "`optimizer.zero_grad()`)")
    fix_summary = "drop the device move, delete `optimizer.zero_grad()`; `mindspore.tensor.from_numpy` -> " \
                  "`Tensor.from_numpy`"
    what = """
        Reports PyTorch calls that fail on the MindSpore object they are made on, in any code, where the code says
        what the object is: `.to("cuda")` (also `"cuda:0"`, `"gpu"`, `device="cuda"`, or a name bound to such a
        string) on a tensor value or on a Cell; `.cuda()`/`.cpu()` on a Cell (a Cell of the project, `self` in one
        of its methods, or a MindSpore layer: `net = Net()`, `self.fc = nn.Dense(...)`); `.zero_grad()` on a
        MindSpore optimizer (built from an `nn` optimizer, `mint.optim`/`experimental.optim`, or a class of the
        module deriving from one); and `mindspore.tensor.from_numpy(...)`. A value whose class is not known
        (a parameter, an object handed in) is not reported, nor a class of the project that defines the method
        itself. Modules that import `torch` (or a shim such as `mindtorch`) are skipped. `.cuda()` on a tensor is
        MS602's.
    """
    why = """
        MindSpore's `Tensor.to` accepts only MindSpore's device names ("CPU"/"cpu", "Ascend"/"npu"): `"cuda"`,
        `"cuda:0"` and `"GPU"` raise ValueError ("Failed to convert the value ... to enum"), in PyNative and in graph
        code at both syntax levels (measured 2.10 and 2.7.1 CPU). `Cell.to("cuda")` raises ValueError on 2.10;
        on 2.7.1 a Cell has no `to` at all (AttributeError). A Cell has no `cuda`/`cpu` and an optimizer no
        `zero_grad` (AttributeError on both). `mindspore.tensor` is the function that builds a tensor, not the
        class, so `mindspore.tensor.from_numpy` raises AttributeError. MindSpore chooses the device once for the
        process (`mindspore.set_device`), and computes gradients by value (`value_and_grad`) instead of
        accumulating them in the parameters, so there is nothing to move and nothing to reset.
    """
    example = """
        import mindspore as ms
        from mindspore import nn


        def train(net, data):
            optimizer = nn.Adam(net.trainable_params(), 1e-3)
            grad_fn = ms.value_and_grad(net, None, optimizer.parameters)
            for x in data:
                x = ms.tensor.from_numpy(x).to("cuda")
                optimizer.zero_grad()
                loss, grads = grad_fn(x)
                optimizer(grads)
    """
    use_instead = """
        import mindspore as ms
        from mindspore import nn


        def train(net, data):
            optimizer = nn.Adam(net.trainable_params(), 1e-3)
            grad_fn = ms.value_and_grad(net, None, optimizer.parameters)
            for x in data:
                x = ms.Tensor.from_numpy(x)
                loss, grads = grad_fn(x)
                optimizer(grads)
    """
    autofix = """
        A device move whose only argument is the device (`x.to("cuda")`, `net.cuda()`) becomes its receiver, and
        the whole statement goes where it was the statement (`net.cuda()` on a line of its own); an
        `optimizer.zero_grad()` statement is deleted (`pass` where it was the only statement of its block);
        `mindspore.tensor.from_numpy` becomes `Tensor.from_numpy`.
    """

    records = (PytorchObjectCall,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        if module.uses_torch() or _WATCHED.isdisjoint(module.written_call_names()):
            return
        functions: dict[int, object] = {}
        for site in module.calls_written(*_WATCHED):
            node = site.node
            func = node.func
            if not isinstance(func, ast.Attribute) or func.attr not in _WATCHED:
                continue
            found = self._found(module, site, func, node, functions)
            if found is not None:
                yield self.report(module, node, found)

    def _found(self, module: ModuleFacts, site, func: ast.Attribute, node: ast.Call, functions: dict
               ) -> PytorchObjectCall | None:
        function, owner = site.function, site.owner
        in_graph = function is not None and module.is_graph_code(function)
        written = ast.unparse(node)
        method = func.attr
        if method == "from_numpy":
            if module.qualname(func.value) == "mindspore.tensor":
                return PytorchObjectCall(kind=TENSOR_FUNCTION_FROM_NUMPY, call=written, holder="mindspore.tensor",
                                         in_graph=in_graph)
            return None
        if method == "zero_grad":
            if node.args or node.keywords:
                return None
            optimizer = module.optimizer_origin(func.value, function, owner)
            if optimizer is None or (isinstance(optimizer, ClassInfo) and optimizer.find_method(method)):
                return None
            return PytorchObjectCall(kind=ZERO_GRAD, call=written, holder=_name(optimizer), in_graph=in_graph)
        device = _device(module, node, function, owner) if method == "to" else None
        if method == "to" and device is None:
            return None
        cell = _cell(module, func.value, function, owner, method)
        if cell is not None:
            kind = CELL_TO_DEVICE if method == "to" else CELL_DEVICE_METHOD
            if kind == CELL_DEVICE_METHOD and (node.args or node.keywords):
                return None
            return PytorchObjectCall(kind=kind, call=written, holder=cell, device=device, in_graph=in_graph)
        if method != "to" or function is None:
            return None
        if not functions:  # graph code and the code PyNative runs for Cells, whose parameters may be tensors
            functions.update((id(cell_function.node), cell_function) for cell_function in module.cell_functions())
            functions[0] = None
        key = id(function)
        if key not in functions:
            functions[key] = module.plain_function(function, owner)
        if functions[key].kind(func.value) != TENSOR:
            return None
        return PytorchObjectCall(kind=TENSOR_TO_DEVICE, call=written, holder="mindspore.Tensor", device=device,
                                 in_graph=in_graph)

    def fix(self, context, finding: Finding) -> list:
        call = finding.node
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
            return []
        record = self.data_of(finding)
        if record is None:
            return []
        kind = record.kind
        if kind == TENSOR_FUNCTION_FROM_NUMPY:
            return [context.replace(call.func.value, context.reference("mindspore.Tensor"))]
        statement = _statement_of(context.module, call)
        if kind == ZERO_GRAD:
            return _deleted(context, statement) if statement is not None else []
        if kind in (TENSOR_TO_DEVICE, CELL_TO_DEVICE) and len(call.args) + len(call.keywords) != 1:
            return []
        if statement is not None:
            return _deleted(context, statement)
        return [context.replace(call, context.receiver(call.func))]


def _name(found: ClassInfo | str) -> str:
    return found.name if isinstance(found, ClassInfo) else found


def _device(module: ModuleFacts, call: ast.Call, function, owner) -> str | None:
    """The device ``x.to(...)`` names when it is one MindSpore rejects: a string, as the first argument or
    ``device=``, written there or bound to the name given."""
    given = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "device"), None)
    if isinstance(given, ast.Name):
        given = module.value_bound_to(given, function, owner)
    if isinstance(given, ast.Constant) and isinstance(given.value, str) and _REJECTED_DEVICE.match(given.value):
        return given.value
    return None


def _cell(module: ModuleFacts, receiver: ast.AST, function, owner: ClassInfo | None, method: str) -> str | None:
    """The Cell class ``receiver`` holds (``self`` in a Cell's method, a name or ``self.x`` bound to a Cell built
    here, the Cell built there: ``Net().cuda()``), unless that class defines ``method`` itself; None otherwise."""
    if (owner is not None and owner.is_cell and isinstance(receiver, ast.Name) and function is not None
            and receiver.id == first_argument(function)):
        return owner.name if owner.find_method(method) is None else None
    origin = receiver if module.builds_cell(receiver) else module.cell_origin(receiver, function, owner)
    while isinstance(origin, ast.Call) and isinstance(origin.func, ast.Attribute) and module.class_of_constructor(
            origin) is None:
        origin = origin.func.value  # ``Net().set_train()``: the Cell that was built
    built = module.class_of_constructor(origin)
    if built is None:
        return None
    qualname, info, _ = built
    if info is not None and info.find_method(method) is not None:
        return None
    return info.name if info is not None else qualname


def _statement_of(module: ModuleFacts, call: ast.Call) -> ast.Expr | None:
    """The expression statement that is ``call`` and nothing more, or None."""
    for node in ast.walk(module.tree):
        for field in ("body", "orelse", "finalbody"):
            for statement in getattr(node, field, ()) or ():
                if isinstance(statement, ast.Expr) and statement.value is call:
                    return statement
    return None


def _deleted(context, statement: ast.Expr) -> list:
    """Delete ``statement`` with its line where it has the line to itself; ``pass`` where it is the first of a block
    whose every statement this rule may delete; nothing where another statement shares its line."""
    module = context.module
    for node in ast.walk(module.tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and statement in block:
                if statement is block[0] and all(_maybe_deleted(other) for other in block):
                    return [context.replace(statement, "pass")]  # the block may lose all its statements
                start, end = context.start_of(statement), context.end_of(statement)
                line_start = context.source.rfind("\n", 0, start) + 1
                line_end = context.source.find("\n", end)
                line_end = len(context.source) if line_end < 0 else line_end + 1
                before = context.source[line_start:start]
                after = context.source[end:line_end]
                if before.strip() or after.strip() and not after.strip().startswith("#"):
                    return []
                return [Edit(line_start, line_end, "")]
    return []


def _maybe_deleted(statement: ast.stmt) -> bool:
    """Whether ``statement`` is a call the fix may delete (a watched method called as a statement)."""
    return (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
            and isinstance(statement.value.func, ast.Attribute) and statement.value.func.attr in _WATCHED)
