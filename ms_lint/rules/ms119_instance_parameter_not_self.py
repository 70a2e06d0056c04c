"""MS119: a Cell method compiled in graph mode whose first parameter is not named ``self``."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint.findings import Finding, FindingData, fact
from ms_lint.edits import Edit, FixContext
from ms_lint.model import ModuleFacts
from ms_lint.model.syntax import is_classmethod, is_static
from ms_lint.rules.base import Rule


@dataclass(frozen=True, kw_only=True)
class InstanceNotSelf(FindingData):
    """A graph method whose first parameter is not named ``self``: that parameter, the method, and whether its
    last parameters have defaults (a call passing every input then shifts them instead of failing on the
    count)."""

    parameter: str
    function: str
    shifted: bool

    def message(self) -> str:
        first = self.parameter
        shifted = (f", or, since its last parameters have defaults, a call passing every input gives `{first}` the "
                   "first, each parameter the input meant for the one after it and the last its default, and the "
                   "compile fails where a shifted value is used") if self.shifted else ""
        return (f"the first parameter of {self.function} is `{first}`, not `self`: MindSpore's graph parser "
                f"recognizes the instance by the name `self` only and counts `{first}` as one more argument "
                "(TypeError: \"The parameters number of the function is ..., but the number of provided arguments "
                f"is ...\"{shifted}) under STRICT and LAX; PyNative runs it. Name it `self`")


@dataclass(frozen=True, kw_only=True)
class BpropInstanceNotSelf(FindingData):
    """A ``bprop`` whose first parameter is not named ``self``, taking as many inputs as ``construct`` does (or
    ``construct`` takes ``*inputs``): that parameter, the bprop, how many forward inputs it takes and how many
    ``construct`` takes (None for ``*inputs``)."""

    parameter: str
    function: str
    inputs: int
    construct_inputs: int | None = fact(for_users=True)

    def message(self) -> str:
        count = (f"The number of parameter of this primal function is {self.inputs}, but the number of parameters "
                 f"of bprop is {self.inputs + 1}")
        return (f"the first parameter of {self.function} is `{self.parameter}`, not `self`: MindSpore's graph parser "
                f"recognizes the instance by the name `self` only and counts `{self.parameter}` as one more input of "
                f"the primal function, so taking the gradient fails (TypeError: \"{count}\") under STRICT and LAX; "
                "PyNative runs it. Name it `self`")


@dataclass(frozen=True, kw_only=True)
class BpropInputsDiffer(BpropInstanceNotSelf):
    """A ``bprop`` whose first parameter is not named ``self`` and whose forward inputs are not those of
    ``construct``: besides, the names of its forward inputs and of the inputs ``construct`` takes."""

    construct_inputs: int
    input_names: list[str]
    construct_names: list[str]

    def message(self) -> str:
        arity = ("TypeError: \"The params of function 'bprop' of Primitive or Cell requires the forward inputs as "
                 "well as the 'out' and 'dout'\"")
        if self.inputs + 1 == self.construct_inputs:  # `ctx` fills the missing input's place: the count matches
            raised = ("the gradient fails with RuntimeError (\"The output size of the 'bprop' must match the number "
                      f"of parameters ...\"), and once it is named `self` with {arity}")
        else:
            raised = f"the gradient fails with {arity}, named `{self.parameter}` or `self`"
        return (f"{self.function} takes {self.inputs} forward input{'s' if self.inputs != 1 else ''} "
                f"({', '.join(self.input_names) or 'none'}) before out and dout, but "
                f"{self.function.rpartition('.')[0]}.construct takes {self.construct_inputs} "
                f"({', '.join(self.construct_names)}); its first parameter is `{self.parameter}`, not `self`, which "
                "the graph parser counts as one more input: a bprop takes `self`, every input of construct, then out "
                f"and dout, so naming it `self` alone does not fix it ({raised}) under STRICT and LAX; name it `self` "
                "and take the inputs of construct")


class InstanceParameterNotSelf(Rule):
    code = "MS119"
    compiled_only = True
    name = "instance-parameter-not-self"
    summary = "a Cell's `construct` (or a method graph code calls) whose first parameter is not named `self`"
    fix_summary = "name the first parameter `self` (`def construct(self, x)`, not `def construct(ctx, x)`)"
    what = """
        Reports `construct`, `bprop` and the other methods of a Cell that graph code calls when their first
        parameter is named anything but `self`: `def construct(ctx, x, k)` in a Cell ported from a PyTorch
        `autograd.Function` (`forward(ctx, ...)`), `def scale(this, x)`. Static and class methods are left alone.
    """
    why = """
        MindSpore's graph parser recognizes the instance by the name `self` only: any other name is counted as one
        more argument, and the call fails to compile (TypeError: "The parameters number of the function is 3, but
        the number of provided arguments is 2", pointing at the `def` line), for the Cell compiled on its own and
        as a sub-cell alike. A `bprop` takes `self`, every input of `construct`, then `out` and `dout`: with `ctx`
        first, taking the gradient fails (TypeError: "The number of parameter of this primal function is 1, but the
        number of parameters of bprop is 2" for `construct(self, x)` and `bprop(ctx, x, out, dout)`), and naming it
        `self` fixes that. A `bprop(ctx, x, out, dout)` ported from PyTorch's `backward(ctx, grad)` for a
        `construct` with more inputs has the wrong number of parameters besides: renamed, it still fails
        (TypeError: "The params of function 'bprop' of Primitive or Cell requires the forward inputs as well as the
        'out' and 'dout'"), and the message says so. Measured on 2.10 and 2.7.1 CPU
        (tests/test_ground_truth_messages.py), the same under STRICT and LAX; PyNative runs it as Python does.
    """
    example = """
        class RoundSTE(nn.Cell):
            def construct(ctx, x):
                return ops.round(x)
    """
    use_instead = """
        class RoundSTE(nn.Cell):
            def construct(self, x):
                return ops.round(x)
    """
    autofix = """
        Renames the parameter to `self` and every use of it in the method's body (nested functions and lambdas that
        do not rebind it included); not applied when the method already uses the name `self` for something else.
    """

    records = (InstanceNotSelf, BpropInstanceNotSelf, BpropInputsDiffer)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        for function in module.graph_functions:
            first = _misnamed_instance(function)
            if first is None:
                continue
            if function.node.name == "bprop":
                yield self._bprop(module, function, first)
                continue
            # With defaults at the end, a call passing every input fills `ctx` with the first and the last
            # parameter with its default: no count error, the inputs shift by one place.
            yield self.report(module, function.node, InstanceNotSelf(
                parameter=first.arg, function=function.label, shifted=bool(function.node.args.defaults)))

    def _bprop(self, module: ModuleFacts, function, first: ast.arg) -> Finding:
        """A ``bprop`` takes the instance, the inputs of ``construct``, then ``out`` and ``dout``: with ``ctx`` first,
        the parser counts ``ctx`` as an input; when the count is wrong besides, naming it ``self`` is not enough."""
        inputs = _positional(function.node)[1:-2]
        construct = function.owner.find_method("construct")
        # a construct taking ``*inputs`` has no count to compare: only the name is reported
        forward = _positional(construct[1])[1:] if construct is not None and construct[1].args.vararg is None \
            else None
        required = len(forward) - len(construct[1].args.defaults) if forward is not None else None
        if forward is None or required <= len(inputs) <= len(forward):
            return self.report(module, function.node, BpropInstanceNotSelf(
                parameter=first.arg, function=function.label, inputs=len(inputs),
                construct_inputs=len(forward) if forward is not None else None))
        return self.report(module, function.node, BpropInputsDiffer(
            parameter=first.arg, function=function.label, inputs=len(inputs), construct_inputs=len(forward),
            input_names=[a.arg for a in inputs], construct_names=[a.arg for a in forward]))

    def fix(self, context: FixContext, finding: Finding) -> list[Edit]:
        function = next((f for f in context.module.graph_functions if f.node is finding.node), None)
        first = _misnamed_instance(function) if function is not None else None
        if first is None:
            return []
        node = function.node
        uses = [n for n in ast.walk(node) if isinstance(n, ast.Name) and n.id == first.arg]
        if any(isinstance(n, ast.Name) and n.id == "self" for n in ast.walk(node)) \
                or any(a.arg in (first.arg, "self") for inner in ast.walk(node) if inner is not node
                       and isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                       for a in (*inner.args.posonlyargs, *inner.args.args, *inner.args.kwonlyargs)):
            return []  # ``self`` is taken, or an inner function rebinds the name: renaming could change meaning
        start = context.offset(first.lineno, first.col_offset)
        edits = [Edit(start, start + len(first.arg), "self")]
        edits += [context.replace(use, "self") for use in uses]
        return edits


def _positional(node) -> list[ast.arg]:
    return [*node.args.posonlyargs, *node.args.args]


def _misnamed_instance(function) -> ast.arg | None:
    """The first parameter of a Cell's graph-code method when it is not named ``self``."""
    owner = function.owner
    node = function.node
    if owner is None or not owner.is_cell or node not in owner.node.body:
        return None
    if is_static(node) or is_classmethod(node):
        return None
    positional = [*node.args.posonlyargs, *node.args.args]
    if not positional or positional[0].arg == "self":
        return None
    return positional[0]
