"""MS124: an augmented assignment (``x += y``) in graph code that MindSpore 2.8 and later runs in place, writing
into a tensor that outlives it: a Cell's attribute, a constant of the graph, the caller's tensor."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.edits import Edit, FixContext
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.model import TENSOR, GraphFunction, ModuleFacts
from ms_lint.model.scopes import ASSIGNMENT, PARAMETER, Binding
from ms_lint.model.syntax import OPERATOR_SYMBOLS, holds_line, self_attribute
from ms_lint.rules.base import Rule

# The first release whose graph mode parses ``x += y`` into an in-place operator (its release notes; measured:
# 2.7.1 and 2.7.2 compute a new tensor, 2.8.0, 2.9.0 and 2.10.0 write into x's tensor, at STRICT and LAX, in
# GRAPH_MODE and under ``jit``; PyNative computes a new tensor on every version).
IN_PLACE_FROM = (2, 8, 0)
_OPERATORS = OPERATOR_SYMBOLS
# ``0 + r`` is r itself in the compiled graph: a name that starts at 0 and is then ``+= r`` holds r's tensor, and
# its next augmented assignment writes into r (measured 2.8.0 to 2.10.0; ``1 * r`` is a new tensor).
_IDENTITY = {ast.Add: 0}
# The values MindSpore builds as constants of the graph when graph code calls them with constant arguments.
_CONSTANT_BUILDERS = ("Tensor", "tensor")
# Calls that build a tensor of the shape their first argument gives.
_SHAPED_BUILDERS = ("zeros", "ones", "full", "empty")
_MAX_CHAIN = 12
_SEQUENCES = (ast.Tuple, ast.List, ast.ListComp, ast.Dict, ast.DictComp, ast.Set)  # ``ys += (y,)``: a new tuple
_ATOMS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant)


@dataclass(frozen=True)
class Holder:
    """The tensor an augmented assignment writes into: ``kind`` is ``attribute`` (``self.<name>``, a tensor or a
    Parameter), ``constant`` (a tensor built in graph code from constants), ``argument`` (what the caller passes)
    or ``fresh`` (a new tensor of a literal shape, ``ops.zeros((1,))``); ``text`` names it."""

    kind: str
    text: str
    rank: int | None = None  # the rank of a constant or of a shaped tensor built from a literal shape
    parameter: bool = False


@dataclass(frozen=True, kw_only=True)
class WrittenInPlace(FindingData):
    """``x += y`` that MindSpore from 2.8 writes into the tensor the name holds: the statement, the name and the
    operator; the holder as the message names it, what it is (``attribute``, ``constant``, ``argument``,
    ``smaller``), the attribute and whether it is a Parameter; the versions that write in place and those that do
    not; how the name comes to hold it, what follows, what older versions do; the fix and its alternative; where
    the caller reads its tensor again; the graph function."""

    template = ("{statement} writes in place into {holder} in MindSpore {in_versions} graph code{how}: {consequence} "
                "({before}); write `{fix}`{alternative}")
    statement: str
    name: str = fact(subject=True)
    operator: str = fact(for_users=True)
    holder: str
    holds: str = fact(for_users=True)
    attribute: str = fact(subject=True)
    parameter: bool = fact(for_users=True)
    in_versions: str
    versions: list[str] = fact(for_users=True)
    older_versions: list[str] = fact(for_users=True)
    how: str
    consequence: str
    before: str
    fix: str
    alternative: str
    seen: str = fact(for_users=True)
    function: str = fact(for_users=True)


class AugmentedAssignmentWritesInPlace(Rule):
    code = "MS124"
    compiled_only = True
    name = "augmented-assignment-writes-in-place"
    summary = ("`x += y` (and `-=`, `*=`, ...) in graph code on a name holding a Cell's tensor attribute or "
               "Parameter, a tensor constant built there, or a tensor its caller reads again: MindSpore 2.8 and "
               "later write the result into that tensor")
    fix_summary = "compute a new tensor: `total = total + r`"
    records = (WrittenInPlace,)
    what = """
        Reports an augmented assignment to a local name (`total += r`, `-=`, `*=`, `/=`, ...) in graph code (a
        Cell's `construct` under GRAPH_MODE, a `@jit` function, and what they call) when the target MindSpore
        version runs it in place (2.8.0 and later: under a requirement's range each version is judged, and the
        message names those from 2.8.0) and the name holds, by the binding in force there, followed through plain
        assignments (`total = self.zero`, `steps = total`):

        - a tensor attribute or Parameter of the Cell, a sub-cell's weight, or an element of a `ParameterTuple`
          the Cell holds (`total = self.zero`, `total = self.sums[0]`): the attribute keeps the result;
        - a tensor built in graph code from constants (`loss = Tensor(0.0)`, `ms.tensor(...)`), or a copy of a
          tensor attribute (`total = self.zero.copy()`): the graph keeps it;
        - a parameter of the function, where the tensor is seen read again once written: by the function itself
          under the parameter's name (`y = x; y += 1; return x + y`), by a caller in graph code that reads the
          name it passed after the call (`z = self.block(y); return y + z`), or because the caller passes a tensor
          attribute (`bump(self.zero)`);
        - any of these through a name that started at `0` and was `+=` it (`total = 0` then `total += r` once in
          a loop, or `total += r; total += 1`): `0 + r` is `r` itself in the graph, so the next write goes into `r`;
        - a tensor of evidently smaller rank than the value added (`out = ops.zeros((1,))` then
          `out += x.reshape(2, 3)`, `loss = Tensor(0.0)` then `loss += x.reshape(2)`): the call fails.

        Not reported: a name bound to a new tensor (`h = self.dense(x); h += x`, `ops.zeros_like(x)`), a number
        attribute, a tuple (`ys += (y,)`), a parameter nothing is seen to read again (a host caller rarely reads
        its input again), attributes written directly (`self.acc += x`: MS108) and items (`out[i] += y`: graph
        code writes items into a copy on every version). Writes the rule does not follow, though measured: through
        `x.reshape(...)`, `x.astype(<its own dtype>)` or an `nn.Identity` (each gives the same tensor; `transpose`,
        slices, `squeeze` and `expand_dims` give new ones), the first element of a tuple summed from 0 in a loop,
        and an int32 accumulator given floats (2.8 keeps int32: `1.5 + 1.5` becomes 2).
    """
    why = """
        MindSpore 2.8 parses augmented assignment in graph mode into in-place operators (its release notes), where
        earlier releases, and PyNative on every release, compute a new tensor and rebind the name. Measured on CPU
        with 2.7.0, 2.7.1, 2.7.2, 2.8.0, 2.9.0 and 2.10.0, the same at STRICT and LAX, in GRAPH_MODE and under `@jit`
        with and without `fullgraph=True` (`tests/test_ground_truth_in_place.py`): from 2.8.0, `total = self.zero;
        total += r` returns 3, 6, 9 over three calls with `r` = 3 where 2.7 and PyNative return 3 each time, and
        `self.zero` (a tensor attribute or a Parameter) holds 9 afterwards, and so does `self.sums[0]` of a
        `ParameterTuple` bound the same way; two names bound to one attribute are one
        tensor (`steps = self.zero; total = self.zero; steps += 1; total += r` returns 4 and 4, then 8 and 8);
        `t = Tensor(0); t += 1` returns 1, 2, 3; `y = x; y += 1; return y + x` returns 8, not 7, and the caller's
        `x` grows by 1 each call; a sub-cell doing `x += 1` to what its caller passed changes the value its caller
        adds next (7 becomes 8); `total = 0` then `total += r` three times in a loop returns 12 instead of 9 and
        leaves the caller's `r` at 4 times its value; and `out = ops.zeros((1,)); out += r` with `r` of shape (2,)
        raises RuntimeError ("For 'Assign', the 'x' and 'y' must have the same shape"; `Tensor(0.0)` given a vector:
        "... same dimension"). `total = self.zero.copy()` is no cure: the copy is a constant the graph keeps, and
        grows the same way (3, 6, 9), though `self.zero` stays 0. Binding the name to a new tensor is: `total =
        total + r` gives PyNative's result on every version. Code ported from PyTorch, where `x += y` writes in
        place too, gets PyTorch's result in graph code from 2.8 and another one in PyNative: where the finding is
        meant, write the sum out anyway, so that both modes agree.
    """
    example = """
        class Trainer(nn.Cell):
            def __init__(self, net):
                super().__init__()
                self.net = net
                self.zero = Tensor(0.0, ms.float32)

            def construct(self, batches):
                total = self.zero
                for x in batches:
                    total += self.net(x)
                return total
    """
    use_instead = """
        class Trainer(nn.Cell):
            def __init__(self, net):
                super().__init__()
                self.net = net
                self.zero = Tensor(0.0, ms.float32)

            def construct(self, batches):
                total = self.zero
                for x in batches:
                    total = total + self.net(x)
                return total
    """
    autofix = """
        Writes the assignment out (`total += r` -> `total = total + r`, the value parenthesised where it is not a
        single operand: `t *= a + b` -> `t = t * (a + b)`), which computes a new tensor on every version, as
        PyNative does.
    """

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        target = module.target
        versions = [version for version in target.judged_versions if api.at_least(version, IN_PLACE_FROM)]
        if not versions or not module.graph_functions:
            return
        older = [version for version in (*target.judged_versions, target.upgrade_from)
                 if version and not api.at_least(version, IN_PLACE_FROM)]
        calls: dict[int, list] | None = None  # id(function node) -> (caller, call) for each call in graph code
        for function in module.graph_functions:
            for node in function.nodes_of(ast.AugAssign):
                if not isinstance(node.target, ast.Name) or type(node.op) not in _OPERATORS \
                        or isinstance(node.value, _SEQUENCES) or function.kind(node.target) != TENSOR:
                    continue
                written = _written_into(module, function, node)
                if written is None:
                    continue
                seen = None
                if written.holder.kind == "argument" and not (written.start and written.start.node is node):
                    # the caller's tensor: a change nothing reads again is harmless (a host caller rarely does)
                    if calls is None:
                        calls = _calls_by_callee(module)
                    seen = _read_again(module, function, node, written.holder.text, calls.get(id(function.node), ()))
                    if seen is None:
                        continue
                finding = self._finding(module, function, node, written, versions, older, seen)
                if finding is not None:
                    yield finding

    def _finding(self, module: ModuleFacts, function: GraphFunction, node: ast.AugAssign, written: "Written",
                 versions: list[str], older: list[str], seen: str | None) -> Finding | None:
        holder, start = written.holder, written.start
        name, op = node.target.id, _OPERATORS[type(node.op)]
        value = _short(ast.unparse(node.value))
        rank = function.least_rank(node.value)
        if holder.rank is not None and rank is not None and rank.at_least > holder.rank:
            kind = "smaller"
            consequence = (f"it has rank {holder.rank} and the value added rank {rank.at_least} or more (line "
                           f"{rank.shaped_by.lineno}), so the broadcast result cannot be written into it and the "
                           "call fails (RuntimeError: For 'Assign', the 'x' and 'y' must have the same shape)")
        elif holder.kind == "fresh":
            return None  # a new tensor of its own: writing into it is harmless
        elif holder.kind == "attribute":
            kind = "attribute"
            consequence = "the attribute keeps the result, so the next call starts from it"
        elif holder.kind == "constant":
            kind = "constant"
            consequence = "the graph keeps that constant, so its value carries over to the next call"
        else:
            kind = "argument"
            consequence = f"the caller's tensor changes{': ' + seen if seen else ''}"
        if start is not None and start.node is node:
            consequence = f"from the second pass the tensor is added to itself, so the sum is wrong, and {consequence}"
        if start is not None:
            constant, added = ast.unparse(start.value), _short(ast.unparse(start.node.value))
            when = "after the loop's first pass" if start.node is node else f"after line {start.node.lineno}"
            how = (f" ({name} starts at {constant} on line {start.value.lineno}, and `{constant} {op} {added}` is "
                   f"{added}'s own tensor in the graph: {name} becomes it {when})")
        elif written.line is not None:
            how = f" ({name} is bound to it on line {written.line})"
        else:
            how = ""
        holder_text = holder.text if holder.kind != "argument" else f"the tensor the caller passes as {holder.text}"
        before = (f"MindSpore {_listed(older)} and PyNative compute a new tensor" if older
                  else "PyNative and MindSpore before 2.8 compute a new tensor")
        alternative = (f", or update {holder.text} with ops.assign where it is meant to keep the result"
                       if kind == "attribute" else "")
        return self.report(module, node, WrittenInPlace(
            statement=f"{name} {op}= {value}", name=name, operator=op, holder=holder_text,
            holds=kind, attribute=holder.text if holder.kind == "attribute" else "", parameter=holder.parameter,
            in_versions=_listed(versions), versions=versions, older_versions=older, how=how,
            consequence=consequence, before=before, fix=f"{name} = {name} {op} {_operand(node.value, value)}",
            alternative=alternative, seen=seen or "", function=function.label))

    def fix(self, context: FixContext, finding: Finding) -> list[Edit]:
        node = finding.node
        if not isinstance(node, ast.AugAssign) or not isinstance(node.target, ast.Name) \
                or type(node.op) not in _OPERATORS:
            return []
        name, op = node.target.id, _OPERATORS[type(node.op)]
        return [context.replace(node, f"{name} = {name} {op} {_operand(node.value, context.text(node.value))}")]


@dataclass(frozen=True)
class Start:
    """Where a name starts at the identity of its operator (``total = 0`` for ``+=``): ``value``, that constant;
    ``node``, the augmented assignment that makes the name the added tensor itself (``total += r``: ``0 + r`` is
    ``r`` in the graph)."""

    value: ast.Constant
    node: ast.AugAssign


@dataclass(frozen=True)
class Written:
    """What an augmented assignment writes into: ``holder``; ``line``, the line of the assignment that gave the
    name its tensor (None for the function's own parameter); ``start``, where the write goes through ``0 + r``
    being ``r``."""

    holder: Holder
    line: int | None = None
    start: Start | None = None


def _written_into(module: ModuleFacts, function: GraphFunction, node: ast.AugAssign) -> Written | None:
    """What ``node`` writes into, where that is known: a tensor that outlives the statement, or one of known rank."""
    binding = module.scopes.binding(node.target)
    if binding is None or binding.scope.node is not function.node:
        return None
    start = _identity_start(binding, node.op)
    if start is not None:
        # ``total = 0`` above a loop holding ``total += r``: from the second pass total is r's tensor
        if not _in_loop_without(function, node, start):
            return None
        holder = _holder_of_expression(module, function, node.value, 0, through_writes=True)
        return Written(holder, start=Start(start, node)) if holder is not None else None
    written = _written_by_binding(module, function, binding, 0)
    if written is None or binding.kind != ASSIGNMENT or written.start is not None:
        return written
    return Written(written.holder, binding.value.lineno if binding.value is not None else binding.position[0])


def _written_by_binding(module: ModuleFacts, function: GraphFunction, binding: Binding, depth: int,
                        through_writes: bool = False) -> Written | None:
    """What the name ``binding`` binds holds. ``through_writes``: a name an augmented assignment wrote into in
    place still holds the tensor it held before (asked of the value added; a target written into twice is reported
    at its first write)."""
    if depth > _MAX_CHAIN or binding is None or binding.scope.node is not function.node:
        return None
    if binding.kind == PARAMETER:
        arguments = function.node.args
        if binding.name == function.self_name or binding.name in {
                argument.arg for argument in (arguments.vararg, arguments.kwarg) if argument is not None}:
            return None
        return Written(Holder("argument", binding.name))
    if binding.kind != ASSIGNMENT:
        return None
    if binding.value is not None:
        holder = _holder_of_expression(module, function, binding.value, depth + 1)
        return Written(holder) if holder is not None else None
    augment = _augmentation_at(function, binding)
    if augment is None:
        return None  # unpacked, a loop's variable, a ``with`` target: not followed
    earlier = module.scopes.binding(augment.target)
    start = _identity_start(earlier, augment.op) if earlier is not None else None
    if start is None:
        if through_writes:
            return _written_by_binding(module, function, earlier, depth + 1, through_writes)
        return None  # an augmented assignment above writes in place too: it is the one reported, or harmless
    holder = _holder_of_expression(module, function, augment.value, depth + 1, through_writes=True)
    return Written(holder, start=Start(start, augment)) if holder is not None else None


def _calls_by_callee(module: ModuleFacts) -> dict[int, list]:
    """The calls graph code makes to the module's functions, by the called function's node: (caller, call)."""
    found: dict[int, list] = {}
    for caller in module.graph_functions:
        for call, target, _, _ in module.calls_from(caller):
            found.setdefault(id(target), []).append((caller, call))
    return found


def _read_again(module: ModuleFacts, function: GraphFunction, node: ast.AugAssign, parameter: str,
                calls) -> str | None:
    """Where the tensor passed as ``parameter``, written into by ``node``, is read again once written: by this
    function under the parameter's own name (``y = x; y += 1; return x + y``), or by a caller in graph code (``calls``:
    those of ``function``) that reads the name it passed after the call (``y = self.block(x); return x + y``) or
    passes a tensor attribute (``bump(self.zero)``); None where nothing is seen to."""
    scopes = module.scopes
    if node.target.id != parameter:
        for name in function.nodes_of(ast.Name):
            if name.id == parameter and isinstance(name.ctx, ast.Load) and name.lineno > node.end_lineno:
                binding = scopes.binding(name)
                if binding is not None and binding.kind == PARAMETER:
                    return f"line {name.lineno} reads {parameter} again and sees the changed value"
    for caller, call in calls:
        passed = _argument_for(call, function, parameter)
        if isinstance(passed, ast.Attribute):
            held = _attribute_holder(caller, passed)
            if held is not None:
                return (f"{caller.label} passes {held.text} on line {call.lineno}, so the attribute keeps the "
                        "result from call to call")
        if not isinstance(passed, ast.Name):
            continue
        given = scopes.binding(passed)
        for name in caller.nodes_of(ast.Name):
            if name.id == passed.id and isinstance(name.ctx, ast.Load) and name.lineno > call.end_lineno \
                    and given is not None and scopes.binding(name) is given:
                return (f"{caller.label} passes {passed.id} on line {call.lineno} and reads it again on line "
                        f"{name.lineno}, where it sees the changed value")
    return None


def _argument_for(call: ast.Call, function: GraphFunction, parameter: str) -> ast.AST | None:
    """What ``call`` passes ``function``'s ``parameter``, or None where that cannot be read off the call."""
    for keyword in call.keywords:
        if keyword.arg == parameter:
            return keyword.value
    positional = [argument.arg for argument in (*function.node.args.posonlyargs, *function.node.args.args)]
    if function.self_name is not None and positional and positional[0] == function.self_name:
        positional = positional[1:]
    if parameter not in positional or any(isinstance(argument, ast.Starred) for argument in call.args):
        return None
    index = positional.index(parameter)
    return call.args[index] if index < len(call.args) else None


def _holder_of_expression(module: ModuleFacts, function: GraphFunction, expr: ast.AST, depth: int,
                          through_writes: bool = False) -> Holder | None:
    """The tensor ``expr`` is, where it is one the rule knows."""
    if isinstance(expr, ast.Name):
        written = _written_by_binding(module, function, module.scopes.binding(expr), depth, through_writes)
        return written.holder if written is not None and written.start is None else None
    if isinstance(expr, ast.Attribute):
        return _attribute_holder(function, expr)
    if isinstance(expr, ast.Subscript):
        return _element_holder(function, expr)
    if not isinstance(expr, ast.Call):
        return None
    func = expr.func
    if isinstance(func, ast.Attribute) and func.attr == "copy" and not expr.args and not expr.keywords \
            and isinstance(func.value, ast.Attribute):
        copied = _attribute_holder(function, func.value)
        if copied is not None and not copied.parameter:
            # a tensor attribute is a constant of the graph, and so is its copy (measured 2.8.0 to 2.10.0)
            return Holder("constant", f"{copied.text}.copy()")
        return None
    qualname = module.qualname(func)
    if not api.is_mindspore(qualname):
        return None
    called = api.last_name(qualname)
    if called in _CONSTANT_BUILDERS and all(function.kind(argument) != TENSOR for argument in (
            *expr.args, *(keyword.value for keyword in expr.keywords))):
        return Holder("constant", _short(ast.unparse(expr)), _literal_rank(expr.args[0]) if expr.args else None)
    if called in _SHAPED_BUILDERS and expr.args:
        rank = _shape_rank(expr.args[0])
        return Holder("fresh", _short(ast.unparse(expr)), rank) if rank is not None else None
    return None


def _attribute_holder(function: GraphFunction, expr: ast.Attribute) -> Holder | None:
    """``self.<name>`` holding a tensor or a Parameter of the Cell, or a sub-cell's weight (``self.dense.weight``)."""
    owner, self_name = function.owner, function.self_name
    if owner is None or self_name is None:
        return None
    value = expr.value
    if isinstance(value, ast.Name) and value.id == self_name and owner.has_attribute("tensor_attributes", expr.attr):
        return Holder("attribute", f"{self_name}.{expr.attr}",
                      parameter=owner.has_attribute("parameter_attributes", expr.attr))
    if self_attribute(value, self_name) is not None \
            and owner.has_attribute("cell_attributes", value.attr) and expr.attr in api.LAYER_PARAMETER_NAMES:
        return Holder("attribute", f"{self_name}.{value.attr}.{expr.attr}", parameter=True)
    return None


def _element_holder(function: GraphFunction, expr: ast.Subscript) -> Holder | None:
    """``self.<name>[i]`` of a ``ParameterTuple`` the Cell holds: the Parameter itself (measured 2.8.0 to 2.10.0:
    ``total = self.params[0]; total += x`` writes into it)."""
    owner = function.owner
    attribute = self_attribute(expr.value, function.self_name)
    if owner is None or attribute is None or isinstance(expr.slice, ast.Slice) \
            or not api.is_mindspore_name(owner.attribute_constructor(attribute), "ParameterTuple"):
        return None
    return Holder("attribute", _short(ast.unparse(expr)), parameter=True)


def _identity_start(binding: Binding, op: ast.operator) -> ast.Constant | None:
    """The constant ``binding`` gives its name when it is the identity of ``op`` (``total = 0`` for ``+=``)."""
    identity = _IDENTITY.get(type(op))
    value = binding.value if binding.kind == ASSIGNMENT else None
    if identity is not None and isinstance(value, ast.Constant) and type(value.value) in (int, float) \
            and value.value == identity:
        return value
    return None


def _in_loop_without(function: GraphFunction, node: ast.AST, start: ast.AST) -> bool:
    """Whether a loop of ``function`` holds ``node`` and not ``start``: its next pass runs ``node`` again."""
    return any(holds_line(loop, node.lineno) and not holds_line(loop, start.lineno)
               for loop in function.nodes_of(ast.For, ast.While))


def _augmentation_at(function: GraphFunction, binding: Binding) -> ast.AugAssign | None:
    """The augmented assignment that made ``binding`` (bound where the statement ends)."""
    for node in function.nodes_of(ast.AugAssign):
        if isinstance(node.target, ast.Name) and node.target.id == binding.name \
                and (node.end_lineno, node.end_col_offset) == binding.position:
            return node
    return None


def _literal_rank(value: ast.AST) -> int | None:
    """The rank of the tensor ``Tensor(value)`` builds from a literal: 0 for a number, 1 for a flat list, ..."""
    if isinstance(value, ast.Constant) and type(value.value) in (int, float, bool):
        return 0
    if isinstance(value, (ast.List, ast.Tuple)) and value.elts:
        inner = {_literal_rank(element) for element in value.elts}
        return 1 + inner.pop() if len(inner) == 1 and None not in inner else None
    return None


def _shape_rank(shape: ast.AST) -> int | None:
    """The rank a literal shape gives (``(1,)``, ``1``, ``()``), or None."""
    if isinstance(shape, ast.Constant) and type(shape.value) is int:
        return 1
    if isinstance(shape, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Constant) for e in shape.elts):
        return len(shape.elts)
    return None


def _operand(value: ast.AST, text: str) -> str:
    """``text``, the source of ``value``, as the right operand of a binary operator."""
    return text if isinstance(value, _ATOMS) or (isinstance(value, ast.UnaryOp)
                                                 and not isinstance(value.op, ast.Not)) else f"({text})"


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _listed(versions: list[str]) -> str:
    return versions[0] if len(versions) == 1 else f"{versions[0]} to {versions[-1]}"
