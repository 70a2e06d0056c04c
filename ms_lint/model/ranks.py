"""Least ranks: how many dimensions a tensor value evidently has, from the calls that shaped it.

Rank matters where PyTorch and MindSpore's graph mode read the same call differently by rank: ``k.transpose(-1, -2)``
swaps the last two axes of a tensor of any rank in PyTorch and in PyNative, while graph mode takes a full
permutation, so the call compiles on a 2-D tensor only (measured on MindSpore 2.10 CPU, STRICT and LAX). Nothing
here guesses: a value has a least rank only when an assignment that reaches its use was shaped by a call that fixes
it (``x.view(b, s, h, d)``, ``x.permute(0, 2, 1, 3)``, ``x[:, :, :n, :]``, a method of the same class returning
such a value) or derived from one by a call that keeps or raises it (``contiguous``, ``softmax``, broadcasting
arithmetic, ``mint.cat``, ``unsqueeze``). Whenever that assignment's path is the one compiled, the value has that
rank, whatever the other paths give.

Sub-cells carry ranks across Cells of the module: ``self.encoder(x)`` has the rank the ``construct`` of the class
built on ``self.encoder`` returns (or, for a MindSpore layer that keeps its input's rank, ``nn.Dense``, ``nn.Tanh``,
the rank of its input), and a parameter of a Cell's ``construct`` has the rank of what another Cell of the module
passes it through an attribute holding that Cell (``self.decoder(pcm, cfeat)``).

Asks the scopes (bindings in force), qualified names and the classes' methods; asked by the graph layer.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ms_lint.model.scopes import ASSIGNMENT, PARAMETER
from ms_lint.model.syntax import FunctionNode, first_argument, holds_line, in_one_loop, self_attribute

if TYPE_CHECKING:
    from ms_lint.model.classes import ClassInfo
    from ms_lint.model.module import ModuleFacts


@dataclass(frozen=True)
class Rank:
    """At least ``at_least`` dimensions, as the call ``shaped_by`` fixed them."""

    at_least: int
    shaped_by: ast.AST


# Methods whose result has exactly as many dimensions as their arguments name.
_SHAPING_METHODS = frozenset({"view", "reshape", "permute"})
# Functions (by their last name, inside MindSpore) doing the same with a shape or permutation second argument.
_SHAPING_FUNCTIONS = frozenset({"reshape", "permute", "transpose"})
# Methods and functions whose result has the rank of the tensor they act on (elementwise, casts, two-axis swaps).
_RANK_KEEPING = frozenset({
    "abs", "add", "astype", "bfloat16", "bool", "clamp", "clip", "clone", "contiguous", "cos", "detach", "div",
    "double", "dropout", "elu", "exp", "flip", "float", "gelu", "half", "int", "leaky_relu", "log", "log_softmax",
    "long", "masked_fill", "mul", "neg", "pow", "relu", "roll", "rsqrt", "sigmoid", "silu", "sin", "softmax",
    "sqrt", "sub", "swapaxes", "swapdims", "tanh", "to", "tril", "triu", "type", "type_as", "cast",
})
_RANK_RAISING = frozenset({"unsqueeze", "expand_dims"})
_MATRIX_PRODUCTS = frozenset({"matmul", "bmm", "batch_matmul"})
_JOINING = frozenset({"cat", "concat", "concatenate"})
# MindSpore layers (Cells, by their last name) whose output has the rank of their first input.
_RANK_KEEPING_LAYERS = frozenset({
    "Dense", "Dropout", "ELU", "GELU", "HSigmoid", "HSwish", "LayerNorm", "LeakyReLU", "LogSoftmax", "Mish", "ReLU",
    "ReLU6", "SeLU", "SiLU", "Sigmoid", "Softmax", "Tanh",
})
# Reductions that, given only the tensor (no axis, dimensions not kept), give one number: a 0-d tensor.
_FULL_REDUCTIONS = frozenset({"sum", "mean", "max", "min", "prod", "all", "any", "amax", "amin"})
# Those whose function form (``ops.max(x)``) may give more than the number (a value and its index): methods only.
_PAIRED_REDUCTIONS = frozenset({"max", "min"})
# MindSpore's reduction primitives (``ops.ReduceSum(keep_dims=False)``): called on the tensor alone, one number.
_REDUCTION_PRIMITIVES = frozenset({"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceAll",
                                   "ReduceAny"})
_MAX_DEPTH = 12  # nested calls of the class's own methods, sub-cells and callers followed at most


def least_rank(module: "ModuleFacts", expr: ast.AST, function: FunctionNode,
               owner: "ClassInfo | None") -> Rank | None:
    """The least rank ``expr``, used in ``function`` (a method of ``owner``, or None), evidently has on some path
    that reaches it, or None."""
    return _Ranks(module).of(expr, function, owner, 0)


class _Ranks:
    def __init__(self, module: "ModuleFacts"):
        self.module = module
        self._blocks: dict[int, dict[int, tuple]] = {}

    def of(self, expr: ast.AST, function: FunctionNode, owner, depth: int) -> Rank | None:
        if depth > _MAX_DEPTH:
            return None
        if isinstance(expr, ast.Name):
            return self._name(expr, function, owner, depth)
        if isinstance(expr, ast.Call):
            return self._call(expr, function, owner, depth)
        if isinstance(expr, ast.Subscript):
            return self._subscript(expr, function, owner, depth)
        if isinstance(expr, ast.BinOp):
            left = self.of(expr.left, function, owner, depth + 1)
            right = self.of(expr.right, function, owner, depth + 1)
            if isinstance(expr.op, ast.MatMult):
                return _product(left, right, expr)
            return _larger(left, right)
        if isinstance(expr, ast.IfExp):
            return _larger(self.of(expr.body, function, owner, depth + 1),
                           self.of(expr.orelse, function, owner, depth + 1))
        if isinstance(expr, ast.UnaryOp) and not isinstance(expr.op, ast.Not):
            return self.of(expr.operand, function, owner, depth + 1)
        return None

    # -- calls ------------------------------------------------------------------------------------------------

    def _call(self, call: ast.Call, function: FunctionNode, owner, depth: int) -> Rank | None:
        func = call.func
        qualname = self.module.qualname(func)
        if qualname is not None and qualname.startswith("mindspore."):
            return self._mindspore_function(call, qualname.rpartition(".")[2], function, owner, depth)
        if not isinstance(func, ast.Attribute):
            target = self.module.local_function(func)
            return None if target is None else self._returned(target, None, depth)
        if owner is not None and self_attribute(func, first_argument(function)) is not None:
            found = owner.find_method(func.attr)
            if found is not None:
                return self._returned(found[1], found[0], depth)
            return self._sub_cell(call, owner.attribute_constructor(func.attr), function, owner, depth)
        method = func.attr
        if method in _SHAPING_METHODS:
            return _counted(call.args, call)
        if method == "transpose" and len(call.args) >= 3:
            return _counted(call.args, call)
        if method in _RANK_KEEPING or method == "transpose":
            return self.of(func.value, function, owner, depth + 1)
        if method in _RANK_RAISING:
            receiver = self.of(func.value, function, owner, depth + 1)
            return None if receiver is None else Rank(receiver.at_least + 1, call)
        return None

    def _mindspore_function(self, call: ast.Call, name: str, function: FunctionNode, owner,
                            depth: int) -> Rank | None:
        args = call.args
        if name in _SHAPING_FUNCTIONS and len(args) == 2 and not call.keywords:
            return _counted(args[1:], call)
        if name in ("transpose", "permute") and len(args) == 1 and len(call.keywords) == 1 \
                and call.keywords[0].arg in ("axes", "perm", "dims") \
                and isinstance(call.keywords[0].value, (ast.Tuple, ast.List)):
            return _counted([call.keywords[0].value], call)  # numpy's ``transpose(x, axes=(0, 2, 1))``
        if name in _MATRIX_PRODUCTS and len(args) == 2:
            if name != "matmul":
                return Rank(3, call)  # a batch of matrices
            first, second = (self.of(a, function, owner, depth + 1) for a in args)
            return _product(first, second, call)
        if name in _JOINING and args and isinstance(args[0], (ast.List, ast.Tuple)):
            ranks = [self.of(e, function, owner, depth + 1) for e in args[0].elts if not isinstance(e, ast.Starred)]
            return _larger(*ranks)
        if name == "stack" and args and isinstance(args[0], (ast.List, ast.Tuple)):
            ranks = [self.of(e, function, owner, depth + 1) for e in args[0].elts if not isinstance(e, ast.Starred)]
            joined = _larger(*ranks)
            return None if joined is None else Rank(joined.at_least + 1, call)
        if name in _RANK_KEEPING and args:
            return self.of(args[0], function, owner, depth + 1)
        if name in _RANK_RAISING and args:
            first = self.of(args[0], function, owner, depth + 1)
            return None if first is None else Rank(first.at_least + 1, call)
        return None

    def _sub_cell(self, call: ast.Call, built: str | None, function: FunctionNode, owner,
                  depth: int) -> Rank | None:
        """``self.layer(x)``: what the ``construct`` of the Cell built on the attribute returns, or the rank of ``x``
        for a MindSpore layer that keeps it."""
        if built is None:
            return None
        if built.startswith("mindspore."):
            if built.rpartition(".")[2] in _RANK_KEEPING_LAYERS and call.args \
                    and not isinstance(call.args[0], ast.Starred):
                return self.of(call.args[0], function, owner, depth + 1)
            return None
        info = self.module.local_class(built)
        if info is None or not info.is_cell:
            return None
        found = info.find_method("construct")
        return None if found is None else self._returned(found[1], found[0], depth)

    def _passed(self, name: str, function: FunctionNode, owner, depth: int) -> Rank | None:
        """A parameter of a Cell's ``construct``: the largest rank among the values other Cells of the module pass it
        through an attribute holding an instance of that Cell."""
        if depth >= _MAX_DEPTH:
            return None
        return _larger(*(self.of(passed, method, caller, depth + 1)
                         for caller, method, passed in values_passed(self.module, function, owner, name)))

    def _returned(self, target: FunctionNode, owner, depth: int) -> Rank | None:
        """The largest rank a ``return`` of ``target`` gives."""
        return _larger(*(self.of(node.value, target, owner, depth + 1) for node in self.module.index.own_code(target)
                         if isinstance(node, ast.Return) and node.value is not None))

    # -- indexing ---------------------------------------------------------------------------------------------

    def _subscript(self, node: ast.Subscript, function: FunctionNode, owner, depth: int) -> Rank | None:
        """``x[:, :, :n, :]`` keeps every axis it slices; an integer or ``None`` index changes the count."""
        index = node.slice
        elements = index.elts if isinstance(index, ast.Tuple) else [index]
        if not elements or not all(isinstance(e, ast.Slice) for e in elements):
            return None
        receiver = self.of(node.value, function, owner, depth + 1)
        sliced = Rank(len(elements), node)
        return sliced if receiver is None or receiver.at_least < len(elements) else receiver

    # -- names ------------------------------------------------------------------------------------------------

    def _name(self, name: ast.Name, function: FunctionNode, owner, depth: int) -> Rank | None:
        """The largest rank among the assignments that can reach the use: those above it back to the first that
        always runs before it, and those below it in a loop that holds it. Where that value arrives, the use has
        it: the other paths cannot make the call fit that one."""
        reaching = self.reaching(name, function)
        if reaching is None:
            return None
        return _larger(*(self.of(binding.value, function, owner, depth + 1) if binding.kind == ASSIGNMENT
                         else self._passed(name.id, function, owner, depth + 1)
                         for binding in reaching
                         if binding.kind == ASSIGNMENT and binding.value is not None or binding.kind == PARAMETER))

    def reaching(self, name: ast.Name, function: FunctionNode) -> list | None:
        """The bindings of ``name`` that can reach its use in ``function``: those above it back to the first that
        always runs before it, and those below it in a loop that holds it; None where it is not ``function``'s."""
        scope = self.module.scopes.scope_at(name)
        if scope.node is not function:
            return None
        use = (name.lineno, name.col_offset)
        if name.id in scope.parameters:
            self.module.scopes.binding(name)  # the scopes make a parameter's binding when it is first looked up
        bindings = scope.bindings.get(name.id, [])
        blocks = self._statement_blocks(function)
        use_blocks = _blocks_at(blocks, use)
        if use_blocks is None:
            return None
        reaching = [binding for binding in bindings
                    if binding.position >= use and _in_loop_with(blocks, binding.position, use)]
        for binding in sorted((b for b in bindings if b.position < use), key=lambda b: b.position, reverse=True):
            reaching.append(binding)
            binding_blocks = _blocks_at(blocks, binding.position)
            if binding_blocks is not None and use_blocks[:len(binding_blocks)] == binding_blocks:
                break
        return reaching

    # -- zero-dimensional values ------------------------------------------------------------------------------

    def zero_dimensional(self, expr: ast.AST, function: FunctionNode, owner, depth: int = 0) -> bool:
        """Whether ``expr`` is one number on every path that reaches its use: a number, a full reduction of a
        tensor (``x.sum()``, ``ops.sum(x)``, ``self.sum(x)`` for ``self.sum = ops.ReduceSum()``, no axis, dimensions
        not kept), ``ops.size(x)``, ``x.item()``, or arithmetic of such values."""
        if depth > _MAX_DEPTH:
            return False
        if isinstance(expr, ast.Constant):
            return isinstance(expr.value, (int, float)) and not isinstance(expr.value, bool)
        if isinstance(expr, ast.BinOp) and not isinstance(expr.op, ast.MatMult):
            return all(self.zero_dimensional(side, function, owner, depth + 1) for side in (expr.left, expr.right))
        if isinstance(expr, ast.UnaryOp) and not isinstance(expr.op, ast.Not):
            return self.zero_dimensional(expr.operand, function, owner, depth + 1)
        if isinstance(expr, ast.Name):
            reaching = self.reaching(expr, function)
            return bool(reaching) and all(binding.kind == ASSIGNMENT and binding.value is not None
                                          and self.zero_dimensional(binding.value, function, owner, depth + 1)
                                          for binding in reaching)
        if isinstance(expr, ast.Call):
            return self._zero_dimensional_call(expr, function, owner)
        return False

    def _zero_dimensional_call(self, call: ast.Call, function: FunctionNode, owner) -> bool:
        func = call.func
        qualname = self.module.qualname(func)
        if qualname is not None and qualname.startswith("mindspore."):
            name = qualname.rpartition(".")[2]
            return len(call.args) == 1 and not call.keywords and (
                name in _FULL_REDUCTIONS - _PAIRED_REDUCTIONS or name == "size")
        if not isinstance(func, ast.Attribute):
            return False
        if owner is not None and self_attribute(func, first_argument(function)) is not None:
            if owner.find_method(func.attr) is not None or len(call.args) != 1 or call.keywords:
                return False
            writes = [value for info in owner.lineage() for _, value in info.attribute_writes.get(func.attr, ())]
            return bool(writes) and all(_full_reduction_primitive(self.module, value) for value in writes)
        if func.attr == "item":
            return not call.args and not call.keywords
        return func.attr in _FULL_REDUCTIONS and not call.args and not call.keywords

    def _statement_blocks(self, function: FunctionNode) -> dict:
        """For each statement of ``function`` (not of nested definitions): the ids of the statement lists around it,
        outermost first, and whether one of them is a loop body."""
        found = self._blocks.get(id(function))
        if found is None:
            found = self._blocks[id(function)] = {}
            _file_statements(function.body, (id(function.body),), False, found)
        return found


def zero_dimensional(module: "ModuleFacts", expr: ast.AST, function: FunctionNode, owner: "ClassInfo | None") -> bool:
    """Whether ``expr``, used in ``function`` (a method of ``owner``, or None), is one number on every path that
    reaches it (``_Ranks.zero_dimensional``): assigned through a boolean mask, it fills every selected element."""
    return _Ranks(module).zero_dimensional(expr, function, owner)


def _full_reduction_primitive(module: "ModuleFacts", value: ast.AST | None) -> bool:
    """``ops.ReduceSum()``, ``P.ReduceSum(False)``, ``ops.ReduceMean(keep_dims=False)``: a reduction primitive that
    drops the axes it reduces; or ``ops.Size()``."""
    if not isinstance(value, ast.Call):
        return False
    name = (module.qualname(value.func) or "").rpartition(".")[2]
    if not (module.qualname(value.func) or "").startswith("mindspore."):
        return False
    if name == "Size":
        return not value.args and not value.keywords
    if name not in _REDUCTION_PRIMITIVES or len(value.args) > 1:
        return False
    keep = value.args[0] if value.args else next((k.value for k in value.keywords if k.arg == "keep_dims"), None)
    return keep is None or isinstance(keep, ast.Constant) and keep.value is False


def _file_statements(statements: list[ast.stmt], blocks: tuple, in_loop: bool, found: dict) -> None:
    for statement in statements:
        found[id(statement)] = (statement, blocks, in_loop)
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        loop = isinstance(statement, (ast.For, ast.AsyncFor, ast.While))
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(statement, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                _file_statements(inner, blocks + (id(inner),), in_loop or loop, found)
        for handler in getattr(statement, "handlers", ()):
            _file_statements(handler.body, blocks + (id(handler.body),), in_loop, found)
        for case in getattr(statement, "cases", ()):
            _file_statements(case.body, blocks + (id(case.body),), in_loop, found)


def _innermost(blocks: dict, position: tuple[int, int]):
    """The innermost statement whose span holds ``position``."""
    line = position[0]
    best = None
    for statement, statement_blocks, in_loop in blocks.values():
        if holds_line(statement, line):
            if best is None or len(statement_blocks) > len(best[1]):
                best = (statement, statement_blocks, in_loop)
    return best


def _blocks_at(blocks: dict, position: tuple[int, int]) -> tuple | None:
    found = _innermost(blocks, position)
    return None if found is None else found[1]


def _in_loop_with(blocks: dict, later: tuple[int, int], use: tuple[int, int]) -> bool:
    """Whether an assignment after the use sits in a loop that also holds the use (it reaches the use next time)."""
    return in_one_loop((statement for statement, _, _ in blocks.values()
                        if isinstance(statement, (ast.For, ast.AsyncFor, ast.While))), use[0], later[0])


def values_passed(module: "ModuleFacts", function: FunctionNode, owner: "ClassInfo | None",
                  name: str) -> list[tuple["ClassInfo", FunctionNode, ast.expr]]:
    """What other Cells of the module pass to parameter ``name`` of ``function``, the ``construct`` of the Cell
    ``owner``, through an attribute holding an instance of it (``self.decoder(pcm, cfeat)``): each value with the
    class and the method passing it. Empty for any other function."""
    if owner is None or not owner.is_cell or function.name != "construct":
        return []
    arguments = function.args
    positional = [a.arg for a in (*arguments.posonlyargs, *arguments.args)][1:]
    if name not in positional and name not in (a.arg for a in arguments.kwonlyargs):
        return []
    index = positional.index(name) if name in positional else None
    qualname = module.local_prefix + owner.key
    found = []
    for caller in module.classes.values():
        holders = {attribute for attribute, built in caller.attribute_constructors.items() if built == qualname}
        if not holders:
            continue
        for method in caller.methods.values():
            receiver = first_argument(method)
            for node in module.index.own_code(method):
                if not isinstance(node, ast.Call) or self_attribute(node.func, receiver) not in holders:
                    continue
                passed = _argument(node, index, name)
                if passed is not None:
                    found.append((caller, method, passed))
    return found


def _counted(args: list[ast.expr], call: ast.AST) -> Rank | None:
    """The number of axes ``(b, s, h, d)`` or ``b, s, h, d`` names (None when a starred or a named shape hides it)."""
    if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
        args = args[0].elts
    elif len(args) == 1:
        return None  # a shape held in a name, or a dtype (``x.view(ms.float16)``)
    if any(isinstance(a, ast.Starred) for a in args):
        return None
    return Rank(len(args), call)


def _argument(call: ast.Call, index: int | None, name: str) -> ast.expr | None:
    """What ``call`` passes to the parameter at ``index`` (after ``self``) named ``name``, or None."""
    if any(isinstance(argument, ast.Starred) for argument in call.args):
        return None
    if index is not None and index < len(call.args):
        return call.args[index]
    return next((keyword.value for keyword in call.keywords if keyword.arg == name), None)


def _larger(*ranks: Rank | None) -> Rank | None:
    known = [rank for rank in ranks if rank is not None]
    return max(known, key=lambda rank: rank.at_least) if known else None


def _product(first: Rank | None, second: Rank | None, node: ast.AST) -> Rank | None:
    """A matrix product: batch axes broadcast, so it has the larger rank when both are matrices or more; a vector
    operand (rank 1) takes one axis away."""
    if first is not None and second is not None and min(first.at_least, second.at_least) >= 2:
        return Rank(max(first.at_least, second.at_least), node)
    known = first or second
    if known is None or known.at_least < 2:
        return None
    return Rank(known.at_least - 1, node)
