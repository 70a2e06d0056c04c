"""MS112: a PyNative Cell's output built from a host copy of a tensor (``asnumpy()``): its gradient is zero."""
from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass
from typing import Iterator

from ms_lint.model import TENSOR, ClassInfo, FunctionNode, ModuleFacts
from ms_lint.model.project import project_class_facts
from ms_lint.model.syntax import self_attribute
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
        given to `mindspore.grad`/`value_and_grad`: a host copy in it, or in what it calls (a method of a Cell
        instance such as `net.features(x)`, the methods that one calls on `self`, a module function), is reported
        when the differentiated result is built from it; for a Cell of another module of the project, at the call
        in this module, naming the method, its file and the copy's line.
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
        for forward in _differentiated_functions(module):
            function = module.plain_function(forward, None, _tensor_inputs(forward, bound=False))
            for node in function.host_conversions():
                if function.reaches_return(node) and id(node) not in reported:
                    reported.add(id(node))
                    yield self._differentiated_finding(module, node, forward.name, None)
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
                        yield self._differentiated_finding(module, node, forward.name, label)
                    elif id(first) not in reported:
                        reported.add(id(first))  # one finding per call of this module
                        yield self._differentiated_finding(
                            module, first, forward.name, f"{label} in {os.path.basename(helper_facts.path)}",
                            copied_at=(helper_facts.path, node.lineno, node.func.attr))
                pending.extend((helper_facts, body, inner, first) for inner in body.nodes_of(ast.Call)
                               if body.reaches_return(inner))

    def _differentiated_finding(self, module: ModuleFacts, node: ast.Call, forward: str, helper: str | None,
                                copied_at: tuple[str, int, str] | None = None) -> Finding:
        return self.report(module, node, DifferentiatedCopied(
            method=copied_at[2] if copied_at is not None else node.func.attr, differentiated=forward,
            through=helper or "", path=copied_at[0] if copied_at is not None else None,
            line=copied_at[1] if copied_at is not None else None))


def _differentiated_functions(module: ModuleFacts) -> list[FunctionNode]:
    found: list[FunctionNode] = []
    for site in module.calls_to(*_GRAD_TRANSFORMS):
        if not (site.node.args and isinstance(site.node.args[0], ast.Name)):
            continue
        target = module.local_function(site.node.args[0])
        if target is not None and not module.is_graph_code(target) and target not in found:
            found.append(target)
    return found


def _tensor_inputs(function: FunctionNode, bound: bool) -> dict[str, str | None]:
    positional = function.args.posonlyargs + function.args.args
    if bound:
        positional = positional[1:]
    return {argument.arg: TENSOR for argument in positional}


_MAX_HELPERS = 32  # the functions followed from one differentiated function


def _helper_called(module: ModuleFacts, caller, call: ast.Call
                   ) -> tuple[ModuleFacts, FunctionNode, ClassInfo | None] | None:
    """(the facts of its module, the function, its class) that ``call`` in ``caller`` runs: a module function, a
    method of ``caller``'s own instance (``self.normalise(y)``), or a method (not ``construct``) of a Cell instance
    a name holds (``net.features(x)`` after ``net = Net()``, ``Net`` of this module or another of the project).
    None for anything else, graph code, and a Cell with its own ``bprop``."""
    func = call.func
    target = module.local_function(func) if isinstance(func, ast.Name) and func.id not in caller.env else None
    if target is not None:
        return None if target is caller.node or module.is_graph_code(target) else (module, target, None)
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)) or func.attr in (
            "construct", "__call__", "__init__"):
        return None
    if self_attribute(func, caller.self_name) is not None and caller.owner is not None:
        info, facts = caller.owner, module
    else:
        value = module.value_bound_to(func.value, caller.node, None)
        built = module.class_of_constructor(value) if isinstance(value, ast.Call) else None
        if not (built and built[1] is not None and built[1].is_cell):
            return None
        if built[2] is module and isinstance(built[1], ClassInfo):
            info, facts = built[1], module
        else:
            found = project_class_facts(module.path, built[0], module.settings)
            if found is None:
                return None
            facts, info = found[0], found[0].classes[found[1]]
    if facts.inherits_method(info, "bprop"):
        return None
    found = info.find_method(func.attr)
    if found is None or found[1] is caller.node or facts.is_graph_code(found[1]):
        return None
    return facts, found[1], found[0]


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
