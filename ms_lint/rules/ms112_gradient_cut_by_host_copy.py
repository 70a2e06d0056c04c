"""MS112: a PyNative Cell's output built from a host copy of a tensor (``asnumpy()``): its gradient is zero."""
from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass
from typing import Iterator

from ms_lint.model import TENSOR, ClassInfo, FunctionNode, ModuleFacts
from ms_lint.model.project import project_class_facts
from ms_lint.model.scopes import PARAMETER
from ms_lint.model.syntax import first_argument, self_attribute
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.rules.base import Rule

_GRAD_TRANSFORMS = ("grad", "value_and_grad")


@dataclass(frozen=True, kw_only=True)
class CellOutputCopied(FindingData):
    """A host copy in a Cell's eager code that its output is built from: the copying method, the Cells whose
    output it reaches, the function holding it."""

    method: str = fact(subject=True)
    cells: list[str]
    function: str

    def message(self) -> str:
        where = "" if self.function.rpartition(".")[2] == "construct" else f" (in {self.function})"
        return (f".{self.method}() copies a tensor to the host and the output of {' and '.join(self.cells)} is built "
                f"from it{where}: PyNative gradients through host data are zero (like .detach()); compute it with "
                f"mindspore.ops, or define {self.cells[0]}.bprop")


@dataclass(frozen=True, kw_only=True)
class DifferentiatedCopied(FindingData):
    """A host copy the result of a function given to grad/value_and_grad is built from: the copying method, the
    differentiated function, the helper it is reached through (empty when in the function itself), and for a copy
    in another module, that module's path and the copy's line there (the finding sits at the call here)."""

    method: str = fact(subject=True)
    differentiated: str
    through: str
    path: str | None = fact(optional=True, for_users=True)
    line: int | None = fact(optional=True)

    def message(self) -> str:
        where = f" (line {self.line})" if self.line is not None else ""
        through = f" through {self.through}" if self.through else ""
        return (f".{self.method}(){where} copies a tensor to the host and the result of {self.differentiated}, which "
                f"is differentiated (grad/value_and_grad), is built from it{through}: PyNative gradients through "
                "host data are zero (like .detach()); compute it with mindspore.ops")


class GradientCutByHostCopy(Rule):
    code = "MS112"
    name = "gradient-cut-by-host-copy"
    summary = "a PyNative Cell's output is built from `asnumpy()`, `.numpy()` or `.tolist()` of a tensor"
    fix_summary = "compute it with `mindspore.ops` on tensors, or define `bprop` on the Cell"
    what = """
        In PyNative (eager) code, reports `x.asnumpy()`, `x.numpy()` and `x.tolist()` on tensor data in a Cell's
        `construct`, or in a method or function it calls, when the value the Cell returns is built from that host
        copy (`Tensor(x.asnumpy() * 2)`, `x / x.max().asnumpy()`), and the Cell has no `bprop` method of its own or
        inherited (from this module or another module of the project). Not reported: host reads whose value does
        not reach the output (logging, `print(float(x.mean().asnumpy()))`, a condition such as
        `if x.asnumpy().any():`, an index or count such as `int(n.asnumpy())` or `np.argsort(...)`), and host copies
        of tensors named as integer data (`input_ids.tolist()`, `attention_mask[i].asnumpy()`), which have no
        gradient to cut; nor a host value the code cuts from gradients itself (`ops.stop_gradient(Tensor(...))`, or
        a name rebound to `ops.stop_gradient(name)` before the output reads it): the output's gradient flows
        through its other inputs as with a factor computed by `mindspore.ops` (measured 2.10 and 2.7.1,
        tests/test_ground_truth_values.py). A module is
        PyNative when it calls `set_context(mode=PYNATIVE_MODE)` or `--ms-mode=pynative` is given; in graph code
        the conversion is MS102's, and is not reported twice. The same holds for a function of a PyNative module
        given to `mindspore.grad`/`value_and_grad`, or a method given to them (`value_and_grad(self.forward_fn)`
        in a trainer class, `value_and_grad(net.compute_loss)`): a host copy in it, or in what it calls (a method
        of a Cell instance such as `net.features(x)`, the methods that one calls on `self`, a module function), is
        reported when the differentiated result is built from it; for a Cell of another module of the project, at
        the call in this module, naming the method, its file and the copy's line. Where the code does not say what
        the object is (`model.loss_of(x)` on a parameter, `self.model.loss_of(x)`, a factory's result), the method
        is that of the one Cell class this module defines or imports that has a method of that name; with several,
        or a non-Cell class of the module with one too, the call is not followed.
    """
    why = """
        PyNative builds gradients from the tensor operators it records while `construct` runs. A host copy has no
        history: whatever is computed from it and turned back into a tensor (`Tensor(array)`) is a constant to
        the gradient, the equivalent of PyTorch's `detach()` (MindSpore's migration guide). Measured on MindSpore
        2.10: `mindspore.grad(net)(x)` through such a path is exactly zero, for the inputs and the weights, with
        no error and no warning, so the layers before it silently stop learning. A `bprop(self, *inputs, out,
        dout)` method on the Cell tells MindSpore the gradient to use instead (measured: nonzero). In graph mode
        the same call fails to compile under STRICT instead (MS102).
    """
    example = """
        import mindspore as ms
        from mindspore import Tensor, nn

        ms.set_context(mode=ms.PYNATIVE_MODE)


        class Scale(nn.Cell):
            def construct(self, x):
                peak = x.abs().max().asnumpy()
                return Tensor(x.asnumpy() / peak)
    """
    use_instead = """
        import mindspore as ms
        from mindspore import Tensor, nn

        ms.set_context(mode=ms.PYNATIVE_MODE)


        class Scale(nn.Cell):
            def construct(self, x):
                return x / x.abs().max()


        class HostScale(nn.Cell):  # when the host computation is needed, say what its gradient is
            def construct(self, x):
                return Tensor(x.asnumpy() * 2)

            def bprop(self, x, out, dout):
                return (dout * 2,)
    """

    records = (CellOutputCopied, DifferentiatedCopied)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        reported: set[int] = set()
        for finding in self._cell_outputs(module):
            reported.add(id(finding.node))
            yield finding
        if module.mode == "pynative":
            yield from self._differentiated(module, reported)

    def _cell_outputs(self, module: ModuleFacts) -> Iterator[Finding]:
        for function in module.eager_functions():
            cells = [info for info in function.output_of if not module.inherits_method(info, "bprop")]
            if not cells:
                continue
            for node in function.host_conversions():
                if not function.reaches_return(node) or holds_integers(node.func.value):
                    continue
                yield self.report(module, node, CellOutputCopied(
                    method=node.func.attr, cells=[info.name for info in cells], function=function.label))

    def _differentiated(self, module: ModuleFacts, reported: set[int]) -> Iterator[Finding]:
        """Functions given to ``grad``/``value_and_grad``: host copies in them, or in what they call (a Cell's method,
        the methods it calls on ``self``, a module function; in this module or, for a Cell built from another
        module of the project, in that one), that reach the differentiated result."""
        for forward, forward_owner in _differentiated_functions(module):
            function = module.plain_function(forward, forward_owner,
                                             _tensor_inputs(forward, bound=forward_owner is not None))
            name = f"{forward_owner.name}.{forward.name}" if forward_owner is not None else forward.name
            for node in function.host_conversions():
                if function.reaches_return(node) and id(node) not in reported:
                    reported.add(id(node))
                    yield self._differentiated_finding(module, node, name, None)
            # (the module of the caller, the caller, a call of it whose value reaches the result, the call of this
            # module it was reached through)
            pending = [(module, function, call, call) for call in function.nodes_of(ast.Call)
                       if function.reaches_return(call)]
            followed: set[int] = set()
            while pending:
                facts, caller, call, first = pending.pop(0)
                helper = _helper_called(facts, caller, call)
                if helper is None or id(helper[1]) in followed or len(followed) > _MAX_HELPERS:
                    continue
                followed.add(id(helper[1]))
                helper_facts, target, owner = helper
                body = helper_facts.plain_function(target, owner, _tensor_inputs(target, bound=owner is not None))
                label = f"{owner.name}.{target.name}" if owner is not None else target.name
                for node in body.host_conversions():
                    if not body.reaches_return(node) or id(node) in reported:
                        continue
                    reported.add(id(node))
                    if helper_facts is module:
                        yield self._differentiated_finding(module, node, name, label)
                    elif id(first) not in reported:
                        reported.add(id(first))  # one finding per call of this module
                        yield self._differentiated_finding(
                            module, first, name, f"{label} in {os.path.basename(helper_facts.path)}",
                            copied_at=(helper_facts.path, node.lineno, node.func.attr))
                pending.extend((helper_facts, body, inner, first) for inner in body.nodes_of(ast.Call)
                               if body.reaches_return(inner))

    def _differentiated_finding(self, module: ModuleFacts, node: ast.Call, forward: str, helper: str | None,
                                copied_at: tuple[str, int, str] | None = None) -> Finding:
        return self.report(module, node, DifferentiatedCopied(
            method=copied_at[2] if copied_at is not None else node.func.attr, differentiated=forward,
            through=helper or "", path=copied_at[0] if copied_at is not None else None,
            line=copied_at[1] if copied_at is not None else None))


def _differentiated_functions(module: ModuleFacts) -> list[tuple[FunctionNode, ClassInfo | None]]:
    """The host functions of this module given to grad/value_and_grad, each with its class for a method: a
    function (``forward_fn``), a method of the class the call is written in (``self.forward_fn``), or a method of
    a Cell instance (``net.compute_loss``)."""
    found: list[tuple[FunctionNode, ClassInfo | None]] = []
    for site in module.calls_to(*_GRAD_TRANSFORMS):
        argument = site.node.args[0] if site.node.args else None
        target: FunctionNode | None = None
        owner: ClassInfo | None = None
        if isinstance(argument, ast.Name):
            target = module.local_function(argument)
        elif isinstance(argument, ast.Attribute) and isinstance(argument.value, ast.Name):
            method = _method_of_receiver(module, site.function, site.owner, argument)
            if method is not None and method[0] is module:
                _, owner, target = method
        if target is not None and not module.is_graph_code(target) and (target, owner) not in found:
            found.append((target, owner))
    return found


def _tensor_inputs(function: FunctionNode, bound: bool) -> dict[str, str | None]:
    positional = function.args.posonlyargs + function.args.args
    if bound:
        positional = positional[1:]
    return {argument.arg: TENSOR for argument in positional}


_MAX_HELPERS = 32  # the functions followed from one differentiated function


def _helper_called(module: ModuleFacts, caller, call: ast.Call
                   ) -> tuple[ModuleFacts, FunctionNode, ClassInfo | None] | None:
    """(the facts of its module, the function, its class) that ``call`` in ``caller`` runs: a module function, or
    a method (not ``construct``) of ``caller``'s own instance (``self.normalise(y)``), of a Cell instance a name
    holds (``net.features(x)`` after ``net = Net()``, ``Net`` of this module or another of the project) or of what
    ``self.<attribute>`` holds; where the code does not say what the object is (a parameter, ``self.model``), the
    method of the one Cell of this module or imported into it that has one of that name. None for anything else,
    graph code, and a Cell with its own ``bprop``."""
    func = call.func
    target = module.local_function(func) if isinstance(func, ast.Name) and func.id not in caller.env else None
    if target is not None:
        return None if target is caller.node or module.is_graph_code(target) else (module, target, None)
    if not isinstance(func, ast.Attribute) or func.attr in ("construct", "__call__", "__init__"):
        return None
    found = _method_of_receiver(module, caller.node, caller.owner, func)
    if found is None or found[2] is caller.node or found[0].is_graph_code(found[2]) or (
            found[1].is_cell and found[0].inherits_method(found[1], "bprop")):
        return None
    return found[0], found[2], found[1]


def _method_of_receiver(module: ModuleFacts, function: FunctionNode | None, owner: ClassInfo | None,
                        func: ast.Attribute) -> tuple[ModuleFacts, ClassInfo, FunctionNode] | None:
    """(facts of its module, its class, the method) that ``<receiver>.<name>`` names in host code: a method of the
    enclosing class for ``self``, of the Cell a name or ``self.<attribute>`` was built as (``net = Net()``), or,
    for a receiver the code does not say (a parameter, an attribute set from one), ``cell_method_named``."""
    receiver = func.value
    self_name = first_argument(function) if function is not None and owner is not None else None
    if isinstance(receiver, ast.Name) and self_name is not None and receiver.id == self_name:
        return module.method_of(owner, func.attr)
    if isinstance(receiver, ast.Name):
        value = module.value_bound_to(receiver, function, None)
    elif self_name is not None and self_attribute(receiver, self_name) is not None:
        value = module.value_bound_to(receiver, function, owner)
    else:
        return None
    if value is None or (isinstance(value, ast.Name) and module.scopes.binding(value) is not None
                         and module.scopes.binding(value).kind == PARAMETER):
        return module.cell_method_named(func.attr)  # a parameter, or an attribute holding one
    built = module.class_of_constructor(value) if isinstance(value, ast.Call) else None
    if built is None and isinstance(value, ast.Call):
        return module.cell_method_named(func.attr)  # what a factory returns (``net = create_model(cfg)``)
    if not (built and built[1] is not None and built[1].is_cell):
        return None
    if built[2] is module and isinstance(built[1], ClassInfo):
        info, facts = built[1], module
    else:
        located = project_class_facts(module.path, built[0], module.settings)
        if located is None:
            return None
        facts, info = located[0], located[0].classes[located[1]]
    return facts.method_of(info, func.attr)


# Names that hold token ids, indices, masks, counts: integer tensors, which have no gradient to cut.
_INTEGER_NAMES = re.compile(r"(^|_)(ids?|index|indices|idx|mask|masks|positions?|lengths?|lens?|labels?|counts?)$")


def holds_integers(expr: ast.AST) -> bool:
    """``input_ids``, ``attention_mask[i]``, ``position_ids.flatten()``: a tensor named as integer data."""
    while isinstance(expr, (ast.Subscript, ast.Call, ast.Attribute)):
        if isinstance(expr, ast.Call):
            expr = expr.func
        if isinstance(expr, ast.Attribute) and not isinstance(expr.value, ast.Name):
            expr = expr.value
        elif isinstance(expr, ast.Attribute):
            return bool(_INTEGER_NAMES.search(expr.attr)) or bool(_INTEGER_NAMES.search(expr.value.id))
        elif isinstance(expr, ast.Subscript):
            expr = expr.value
    return isinstance(expr, ast.Name) and bool(_INTEGER_NAMES.search(expr.id))
