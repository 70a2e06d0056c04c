"""MS108: attributes and globals written from graph code."""
from __future__ import annotations

import ast
from typing import Iterator

from ms_lint.model import TENSOR, GraphFunction, ModuleFacts
from ms_lint.findings import Finding
from ms_lint.rules.base import Rule


_WHOLE = object()  # the statement's own value


class StateWrittenInGraph(Rule):
    code = "MS108"
    name = "state-written-in-graph"
    summary = "a non-Parameter attribute of the Cell (or an item of one), or a `global`, written in graph code"
    fix_summary = "keep the state in a `Parameter` updated with `ops.assign`, or return it"
    what = """
        Reports `self.attr = ...` (and `self.attr += ...`) in graph code when `attr` is not a Parameter of the Cell,
        and assignments to names declared `global` in graph code. Writing a Parameter attribute is supported. Under
        `--ms-syntax-level=lax` only writes of tensor data not computed from the attribute's own value are
        reported. An item written into such an attribute
        (`self.cache[key] = value`) is reported too; under LAX only when an `if` on the same attribute guards it
        (a cache: `if key not in self.cache:`).
    """
    why = """
        The Cell's Python attributes are constants of the compiled graph (measured on MindSpore 2.10 CPU). Under
        STRICT, writing one fails (TypeError: "the member attribute must be of the Parameter type"; AttributeError:
        "object has no attribute" when nothing set the attribute before the graph was built). Under LAX a
        scalar attribute (`self.steps += 1`, `self.a = self.a + 1`), and a tensor one computed from its own value
        (`self.total = self.total + x`, `self.total += x`), is updated correctly on every call, but an attribute
        given other tensor data (`self.cache = x * 2`) keeps the first call's value: later calls silently see
        stale data (2.10 and 2.7.1, tests/test_ground_truth_messages.py), so with `--ms-syntax-level=lax` only
        those writes are reported. A `global` written in
        graph code is not seen by the graph's reads, at every level: they give the value the global had when the
        graph was compiled (`N += 1; return x * N` returns `x * 0` on every call), and a tensor written to a global
        that held None fails where it is read (TypeError on None; 2.10 and 2.7.1,
        tests/test_ground_truth_messages.py).
        An item written into a plain attribute (`self.cache["k"] = x * 2`, a dict or list set in `__init__`) fails
        under STRICT (TypeError: "self.cache should be initialized as a 'Parameter' in the '__init__' function to
        perform assign subscript"); under LAX the write lasts only for the call and the Cell's attribute stays
        empty, so `if "k" not in self.cache: self.cache["k"] = ...` computes the value again on every call where
        PyNative keeps the first one (measured 2.10 CPU).
    """
    example = """
        class Net(nn.Cell):
            def construct(self, x):
                self.last_input = x
                return x * 2
    """
    use_instead = """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.last_input = Parameter(ops.zeros((2, 3)), requires_grad=False)

            def construct(self, x):
                ops.assign(self.last_input, x)
                return x * 2
    """

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        for function in module.graph_functions:
            declared_global = {name for node in function.nodes_of(ast.Global) for name in node.names}
            for node in function.nodes_of(ast.Assign, ast.AugAssign, ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if target.__class__ is ast.Name and target.id not in declared_global:
                        continue  # a local name: most targets, and nothing to report
                    yield from self._written(module, function, node, target, declared_global)

    def _written(self, module: ModuleFacts, function: GraphFunction, statement: ast.AST, target: ast.AST,
                 declared_global: set[str], value: ast.AST | None = _WHOLE) -> Iterator[Finding]:
        """``value``: what ``target`` is given; the statement's whole value unless the target is one element of an
        unpacking (then its element of a literal tuple, or None when the value's parts are unknown:
        ``inv_freq, self.scaling = init(config, seq_len)`` gives no sign that ``self.scaling`` holds a tensor)."""
        if value is _WHOLE:
            value = getattr(statement, "value", None)
        if isinstance(target, (ast.Tuple, ast.List)):
            parts = value.elts if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts) \
                and not any(isinstance(e, ast.Starred) for e in (*value.elts, *target.elts)) else None
            for index, element in enumerate(target.elts):
                yield from self._written(module, function, statement, element, declared_global,
                                         parts[index] if parts is not None else None)
            return
        if isinstance(target, ast.Name) and target.id in declared_global:
            yield self.finding(
                module, statement,
                f"global {target.id} written in graph code ({function.label}): the graph does not see the write, "
                f"its reads of {target.id} give the value it had when the graph was compiled (measured at STRICT "
                "and LAX: after an increment a read still gives the old number; a tensor written to a global that "
                "held None fails where it is read, TypeError); keep it in a Parameter updated with ops.assign",
                data={"global": target.id, "function": function.label},
            )
        elif (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
              and target.value.id == function.self_name and function.owner is not None
              and function.owner.is_cell
              and not function.owner.has_attribute("parameter_attributes", target.attr)):
            tensor = function.kind(value) == TENSOR or (
                isinstance(statement, ast.AugAssign) and function.kind(target) == TENSOR)
            # Under LAX a tensor written from the attribute's own value (``self.total = self.total + x``) is updated
            # on every call; one written from other values keeps the first call's (measured 2.10 and 2.7.1).
            accumulated = tensor and (isinstance(statement, ast.AugAssign) or any(
                isinstance(node, ast.Attribute) and node.attr == target.attr and isinstance(node.value, ast.Name)
                and node.value.id == function.self_name for node in ast.walk(value or ast.Pass())))
            if tensor and not accumulated:
                consequence = "and under LAX later calls silently see the first call's value"
            elif function.strict:
                consequence = "LAX updates it on every call"
            else:
                return  # a number, or a tensor computed from its own value, written under LAX: updated correctly
            yield self.finding(
                module, statement,
                f"self.{target.attr} written in graph code ({function.label}) is not a Parameter: fails to compile "
                f"under STRICT (TypeError; AttributeError if nothing set it before), {consequence}; keep it in a "
                "Parameter updated with ops.assign, or return it",
                data={"attribute": target.attr, "tensor": tensor, "accumulated": accumulated,
                      "function": function.label},
            )
        elif isinstance(target, ast.Subscript):
            finding = _item_written(self, module, function, statement, target)
            if finding is not None:
                yield finding


def _item_written(rule: Rule, module: ModuleFacts, function: GraphFunction, statement: ast.AST,
                  target: ast.Subscript) -> Finding | None:
    """``self.cache[key] = value`` on an attribute that is not a Parameter: STRICT refuses it; under LAX the write
    never reaches the Cell, so a cache filled under a condition on it stays empty and is recomputed every call."""
    held = target.value
    if not (isinstance(held, ast.Attribute) and isinstance(held.value, ast.Name)
            and held.value.id == function.self_name and function.owner is not None and function.owner.is_cell):
        return None
    attribute = held.attr
    if not _plain_container(module, function.owner, attribute):
        return None
    cache = _cache_condition(function, statement, attribute)
    if not function.strict and cache is None:
        return None  # under LAX the item is written for the rest of the call, which is what it reads
    lax = (f"under LAX the write never reaches the Cell: self.{attribute} stays as it was, so the cache filled under "
           f"the `if` at line {cache.lineno} is filled again on every call" if cache is not None else
           f"under LAX the write lasts only for the call: self.{attribute} on the Cell stays as it was")
    return rule.finding(
        module, statement,
        f"self.{attribute}[...] written in graph code ({function.label}): self.{attribute} is not a Parameter, so "
        f"this fails to compile under STRICT (TypeError: it \"should be initialized as a 'Parameter' ... to perform "
        f"assign subscript\"); {lax}; keep the state in a Parameter updated with ops.assign, or return it",
        data={"attribute": attribute, "item": True, "levels": ["strict", "lax"] if cache is not None else ["strict"],
              **({"condition_line": cache.lineno} if cache is not None else {})},
    )


_CONTAINER_TYPES = frozenset({"builtins.dict", "builtins.list", "collections.OrderedDict", "collections.defaultdict"})


def _plain_container(module: ModuleFacts, owner, attribute: str) -> bool:
    """Whether every write of ``self.<attribute>`` in the Cell's classes puts a plain dict or list there (``{}``,
    ``[None] * n``, ``dict()``): what a factory returns may be a Parameter."""
    writes = [value for info in owner.lineage() for _, value in info.attribute_writes.get(attribute, ())]
    return bool(writes) and all(_builds_container(module, value) for value in writes)


def _builds_container(module: ModuleFacts, value: ast.AST | None) -> bool:
    if isinstance(value, (ast.Dict, ast.List, ast.DictComp, ast.ListComp)):
        return True
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult):
        return _builds_container(module, value.left) or _builds_container(module, value.right)
    return isinstance(value, ast.Call) and module.qualname(value.func) in _CONTAINER_TYPES


def _cache_condition(function: GraphFunction, statement: ast.AST, attribute: str) -> ast.If | None:
    """The ``if`` around ``statement`` whose condition reads ``self.<attribute>`` (``if key not in self.cache:``)."""
    for branch in function.nodes_of(ast.If):
        if branch.lineno < statement.lineno <= (branch.end_lineno or branch.lineno) and any(
                isinstance(node, ast.Attribute) and node.attr == attribute and isinstance(node.value, ast.Name)
                and node.value.id == function.self_name for node in ast.walk(branch.test)):
            return branch
    return None
