"""MS104: host random numbers drawn in graph code."""
from __future__ import annotations

import ast
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.model import ModuleFacts
from ms_lint.findings import Finding
from ms_lint.rules.base import Rule


_SEEDING = frozenset({"seed", "manual_seed", "get_state", "set_state", "getstate", "setstate"})


class HostRandomness(Rule):
    code = "MS104"
    name = "host-randomness"
    summary = "`numpy.random`, `random` or `torch.rand*` in graph code: drawn once at compile time"
    fix_summary = "`mindspore.ops` random ops (`ops.uniform`, `ops.standard_normal`, ...) or the data pipeline"
    replaces = ("MS101",)
    what = """
        Reports calls to host random sources (`numpy.random.*`, `random.*`, `torch.rand*`/`randn`/`randint`/...,
        `os.urandom`, `uuid.uuid4`) inside graph code. Seeding itself (`np.random.seed(...)`, `random.seed`,
        `torch.manual_seed`) draws nothing and is not reported, nor are draws after a reseed with a constant in
        the same function: every call then draws the same value in PyNative too, so graph mode changes nothing.
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

    messages = {"": "{callee}() in graph code ({function}) is drawn once, at compile time: every step reuses the same "
                    "value (all syntax levels); use mindspore.ops random ops (ops.uniform, ops.standard_normal, "
                    "ops.bernoulli) or draw in the data pipeline"}

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        for function in module.graph_functions:
            reseeded: set[str] = set()  # random modules reseeded with a constant earlier in this function
            for node in function.nodes_of(ast.Call):
                qualname = module.qualname(node.func)
                if not api.is_host_random(qualname):
                    continue
                family, name = qualname.rsplit(".", 1)
                if name in _SEEDING:
                    # Seeding draws nothing; a constant seed before each draw makes every call draw the same value
                    # in PyNative too, so graph mode changes nothing.
                    if name in ("seed", "manual_seed") and node.args and all(
                            isinstance(a, ast.Constant) for a in node.args):
                        reseeded.add(family)
                    continue
                if family in reseeded:
                    continue
                yield self.report(module, node, callee=qualname, function=function.label)
