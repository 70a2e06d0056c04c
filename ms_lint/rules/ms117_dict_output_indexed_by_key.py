"""MS117: a Cell whose graph-mode ``construct`` returns a ``dict``, its result indexed by key by the caller."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint.findings import Finding, FindingData
from ms_lint.model import ModuleFacts
from ms_lint.rules.base import Rule
from ms_lint.rules.dict_outputs import dict_returns, key_reads, own_host_code


@dataclass(frozen=True, kw_only=True)
class DictIndexedByKey(FindingData):
    """A Cell's dict output read by key in its own module's host code: the Cell, the key."""

    template = ("{cell}.construct returns a dict, which graph mode under STRICT gives back as a tuple of its values: "
                "[{key!r}] raises TypeError here; return a tuple and unpack it, or index by position")
    cell: str
    key: str | int | float | bool | None


class DictOutputIndexedByKey(Rule):
    code = "MS117"
    compiled_only = True
    name = "dict-output-indexed-by-key"
    summary = "the result of a Cell whose graph-mode `construct` returns a `dict`, indexed by key"
    fix_summary = "return a tuple (or a namedtuple-free fixed order) and unpack it, or index by position"
    what = """
        Reports, in host code of the same module (not graph code), `out["key"]` where `out` is what an instance
        of a Cell returns whose `construct` is graph code and returns a `dict` (a dict literal, `dict(...)`, or a
        name bound to one), whether the result is indexed at once (`net(x)["logits"]`) or through a variable.
        Only under STRICT: under LAX the dict survives.
    """
    why = """
        Under GRAPH_MODE with STRICT, a `dict` returned from `construct` comes back to Python as a tuple of its
        values (measured 2.10 CPU): `out["logits"]` raises TypeError ("tuple indices must be integers or slices,
        not str") in the caller, after the compile succeeded. Under LAX and in PyNative the caller gets the dict.
        With `--ms-syntax-level=lax` it is not reported.
    """
    example = """
        class Net(nn.Cell):
            def construct(self, x):
                return {"logits": x * 2, "features": x}

        net = Net()
        logits = net(Tensor(np.ones((2, 3), np.float32)))["logits"]
    """
    use_instead = """
        class Net(nn.Cell):
            def construct(self, x):
                return x * 2, x

        net = Net()
        logits, features = net(Tensor(np.ones((2, 3), np.float32)))
    """

    records = (DictIndexedByKey,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        if module.target.syntax_level != "strict":
            return
        cells = {module.local_prefix + name: name for name, info in module.classes.items()
                 if dict_returns(module, info)}
        if not cells:
            return
        for node, cell, _, _ in key_reads(module, cells, own_host_code(module)):
            if not isinstance(node, ast.Subscript):
                continue
            yield self.report(module, node, DictIndexedByKey(cell=cell, key=node.slice.value),
                              scope=cell)  # the Cell whose output the validator probes
