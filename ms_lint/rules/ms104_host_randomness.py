"""MS104: host random numbers drawn in graph code."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.model import TENSOR, ModuleFacts
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.rules.base import Rule


@dataclass(frozen=True, kw_only=True)
class HostDraw(FindingData):
    """A host random number drawn in graph code: the function drawing it, the graph function."""

    template = ("{callee}() in graph code ({function}) is drawn once, at compile time: every step reuses the same "
                "value (all syntax levels); use mindspore.ops random ops (ops.uniform, ops.standard_normal, "
                "ops.bernoulli) or draw in the data pipeline")
    callee: str = fact(subject=True)
    function: str


_SEEDING = frozenset({"seed", "manual_seed", "get_state", "set_state", "getstate", "setstate"})


class HostRandomness(Rule):
    code = "MS104"
    compiled_only = True
    name = "host-randomness"
    summary = "`numpy.random`, `random` or `torch.rand*` in graph code: drawn once at compile time"
    fix_summary = "`mindspore.ops` random ops (`ops.uniform`, `ops.standard_normal`, ...) or the data pipeline"
    replaces = ("MS101",)
    what = """
        Reports calls to host random sources (`numpy.random.*`, `random.*`, `torch.rand*`/`randn`/`randint`/...,
        `os.urandom`, `uuid.uuid4`) inside graph code. Seeding itself (`np.random.seed(...)`, `random.seed`,
        `torch.manual_seed`) draws nothing and is not reported, nor are draws after a reseed with a value fixed while
        the graph compiles (a literal, `self.seed`, a seed parameter; not a tensor), earlier in the same function
        or, for a helper, in every graph function that calls it before the call: every call then draws the same
        value in PyNative too, so graph mode changes nothing.
    """
    why = """
        Graph code runs Python only while compiling. A host random call is evaluated once, at compile time, and its
        value becomes a constant of the graph: every step then reuses the same "random" number (the same dropout
        mask, the same augmentation). It compiles and runs without an error at every syntax level, which is what
        makes it dangerous.
    """
    example = """
        class Noise(nn.Cell):
            def construct(self, x):
                return x + np.random.normal(0.0, 0.1)
    """
    use_instead = """
        class Noise(nn.Cell):
            def construct(self, x):
                return x + ops.standard_normal(x.shape) * 0.1
    """

    records = (HostDraw,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        reseeds = _Reseeds(module)
        for function in module.graph_functions:
            for node in function.nodes_of(ast.Call):
                qualname = module.qualname(node.func)
                if not api.is_host_random(qualname):
                    continue
                family, name = qualname.rsplit(".", 1)
                if name in _SEEDING or family in reseeds.before(function, node):
                    continue
                yield self.report(module, node, HostDraw(callee=qualname, function=function.label))


class _Reseeds:
    """Which host random modules are reseeded, with a value fixed while the graph compiles, before a draw.

    A reseed with a compile-time value (a literal, `self.seed` set in `__init__`, a seed parameter a caller fills
    from one) makes every call draw the same numbers in PyNative too, so graph mode changes nothing. It counts where
    it comes earlier in the same function, or, for a helper, earlier in every graph function that calls it before
    the call (transitively). A seed taken from a tensor is no such value."""

    def __init__(self, module: ModuleFacts):
        self.module = module
        self._callers: dict[int, list[tuple[object, ast.Call]]] | None = None
        self._at_entry: dict[int, frozenset[str]] = {}

    def before(self, function, node: ast.AST) -> frozenset[str]:
        """The families reseeded before ``node`` in ``function``, or on every way into it."""
        here = self._reseeded_before(function, node)
        return here | self.at_entry(function)

    def _reseeded_before(self, function, node: ast.AST) -> frozenset[str]:
        where = (node.lineno, node.col_offset)
        found = set()
        for call in function.nodes_of(ast.Call):
            if (call.lineno, call.col_offset) >= where:
                break
            qualname = self.module.qualname(call.func)
            if not api.is_host_random(qualname):
                continue
            family, name = qualname.rsplit(".", 1)
            if name in ("seed", "manual_seed") and call.args and not any(
                    function.kind(argument) == TENSOR for argument in call.args):
                found.add(family)
        return frozenset(found)

    def at_entry(self, function) -> frozenset[str]:
        """The families every graph caller of ``function`` reseeds before calling it; none for a root of graph
        code (its callers run in Python, on every step)."""
        key = id(function.node)
        known = self._at_entry.get(key)
        if known is not None:
            return known
        self._at_entry[key] = frozenset()  # a cycle of calls reseeds nothing on its own
        callers = self._callers_of().get(key) if function.as_root is None else None
        result: frozenset[str] = frozenset()
        if callers:
            result = frozenset.intersection(*(self._reseeded_before(caller, call) | self.at_entry(caller)
                                              for caller, call in callers))
        self._at_entry[key] = result
        return result

    def _callers_of(self) -> dict[int, list[tuple[object, ast.Call]]]:
        if self._callers is None:
            self._callers = {}
            for caller in self.module.graph_functions:
                for call, target, _, _ in self.module.calls_from(caller):
                    self._callers.setdefault(id(target), []).append((caller, call))
        return self._callers
