"""MS613: a name numpy removed (``np.bool``, ``np.int``, ``np.asscalar``), read where the code runs with a numpy
that lacks it."""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterator

from ms_lint.edits import Edit, FixContext
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.model import ModuleFacts
from ms_lint.rules.base import Rule
from ms_lint.rules.ms607_missing_mindspore_api import guarded
from ms_lint.settings import parse_version
from ms_lint.target import numpy_version


@dataclass(frozen=True)
class Removed:
    since: str  # the numpy release that no longer has the name
    back: str  # the release that defines the name again (as another object), "" for none
    use: str  # what to write instead
    builtin: bool  # ``use`` is the Python builtin the name was an alias of (the fix writes it)


# Measured on numpy 1.23.5, 1.24.0 and 2.0.0 (``hasattr(numpy, name)``): the aliases of Python builtins that numpy
# 1.20 deprecated are gone from 1.24 (numpy 2.0 defines ``bool`` and ``long`` again, as numpy's own scalar types);
# ``asscalar`` and ``alen`` are gone from 1.23.
REMOVED = {
    "bool": Removed("1.24", "2.0", "bool", True),
    "int": Removed("1.24", "", "int", True),
    "float": Removed("1.24", "", "float", True),
    "complex": Removed("1.24", "", "complex", True),
    "object": Removed("1.24", "", "object", True),
    "str": Removed("1.24", "", "str", True),
    "long": Removed("1.24", "2.0", "int", True),
    "unicode": Removed("1.24", "", "str", True),
    "typeDict": Removed("1.24", "", "numpy.sctypeDict", False),
    "asscalar": Removed("1.23", "", "a.item()", False),
    "alen": Removed("1.23", "", "len(a)", False),
}
# what reads a removed name: an attribute of that name, or an import from numpy (two patterns: each alone begins with
# what the regular expression engine scans for quickly)
_READ = (re.compile(r"\.(?:" + "|".join(REMOVED) + r")\b"), re.compile(r"from(?<!\wfrom)\s+numpy\s+import\b"))


@dataclass(frozen=True, kw_only=True)
class RemovedName(FindingData):
    """A name numpy removed, read where the code runs with a numpy that lacks it: the code as written, the name,
    the numpy version the code runs with and where that comes from, the release that removed the name, what
    fails, what to write instead, and whether that is the Python builtin the name was an alias of."""

    template = "{written}: numpy has no `{name}` since {since} (the code runs with numpy {version}, {origin}): " \
               "{failure}; use `{use}`{same}"
    written: str
    name: str = fact(subject=True)
    version: str
    origin: str
    since: str
    failure: str
    use: str
    builtin: bool

    @property
    def same(self) -> str:
        return ", which it was an alias of" if self.builtin else ""


class RemovedNumpyName(Rule):
    code = "MS613"
    cause_in_file = ("written",)
    name = "removed-numpy-name"
    summary = "a name numpy removed (`np.bool`, `np.int`, `np.float`, `np.asscalar`): AttributeError with the numpy " \
              "MindSpore runs with"
    fix_summary = "write the builtin the alias stood for (`np.bool` -> `bool`, `np.int` -> `int`)"
    level = "error"
    records = (RemovedName,)
    what = """
        Reports `numpy.name` (numpy imported under any name), `from numpy import name` and `import numpy.name`, in
        any code of a module that imports MindSpore (host code, data pipelines, `__init__` and graph code alike),
        where `name` is one numpy has removed and the code runs with a numpy that lacks it: the aliases of
        Python builtins (`np.bool`, `np.int`, `np.float`, `np.complex`, `np.object`, `np.str`, `np.long`,
        `np.unicode`) and `np.typeDict`, gone from NumPy 1.24, and `np.asscalar`, `np.alen`, gone from 1.23. The
        numpy is the one installed where ms-lint runs, else the newest release below 2 the project's requirement on
        numpy allows, else the newest MindSpore's own requirement allows (MindSpore 2.10 asks numpy>=1.25; 2.7 to
        2.9 ask numpy>=1.20,<2, where pip installs 1.26). A read guarded for its absence is not reported (as
        MS607's: `try` ... `except AttributeError`, `hasattr(np, "bool")`, a version test), nor a read of the
        name on another object.
    """
    why = """
        The read raises AttributeError when the line runs (`module 'numpy' has no attribute 'bool'`; ImportError
        for an import): in a Cell's `__init__` the network cannot be built, in data-pipeline code every worker
        fails. MindSpore 2.x installs numpy 1.24 or later (numpy 1.26 beside 2.7 to 2.9, at least 1.25 beside
        2.10), so code written for MindSpore 1.x and the numpy of its day fails on upgrade, with no MindSpore API
        involved. The aliases meant the Python builtins themselves (`np.bool is bool` on numpy 1.23), so the
        builtin is the exact replacement; `np.bool_` is numpy's own boolean scalar type, another object.
    """
    example = """
        class Sampler(nn.Cell):
            def __init__(self, num):
                super().__init__()
                self.keep = Tensor(np.ones(num, dtype=np.bool))
    """
    use_instead = """
        class Sampler(nn.Cell):
            def __init__(self, num):
                super().__init__()
                self.keep = Tensor(np.ones(num, dtype=bool))
    """
    autofix = """
        Writes the builtin an alias stood for (`np.bool` -> `bool`, `np.long` -> `int`, `np.unicode` -> `str`)
        where the module does not bind that name itself; `np.typeDict`, `np.asscalar` and `np.alen` are left to you.
    """

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        aliases = [local for local, qualname in module.names.items() if qualname == "numpy"]
        source = module.source
        if not source or "numpy" not in source or not any(pattern.search(source) for pattern in _READ):
            return
        version, origin = numpy_version(module.target.project, module.target.version)
        gone = _gone(version)
        if not gone:
            return
        if aliases and any(f"{alias}." in source for alias in aliases):
            for node in module.index.subtree_nodes_of(module.tree, (ast.Attribute,)):
                if node.attr in gone and isinstance(node.ctx, ast.Load) and module.qualname(node.value) == "numpy" \
                        and not guarded(module.tree, node, node.attr, subtree=module.index.subtree):
                    yield self._finding(module, node, ast.unparse(node), node.attr, version, origin,
                                        "AttributeError when the line runs")
        for node in module.index.subtree_nodes_of(module.tree, (ast.ImportFrom, ast.Import)):
            if isinstance(node, ast.ImportFrom):
                names = [alias.name for alias in node.names] if node.module == "numpy" and not node.level else []
                written = "from numpy import {}"
            else:
                names = [alias.name.split(".")[1] for alias in node.names if alias.name.startswith("numpy.")]
                written = "import numpy.{}"
            for name in names:
                if name in gone and not guarded(module.tree, node, name, subtree=module.index.subtree):
                    yield self._finding(module, node, written.format(name), name, version, origin,
                                        "ImportError when it runs")

    def _finding(self, module: ModuleFacts, node: ast.AST, written: str, name: str, version: str, origin: str,
                 failure: str) -> Finding:
        removed = REMOVED[name]
        return self.report(module, node, RemovedName(written=written, name=name, version=version, origin=origin,
                                                     since=removed.since, failure=failure, use=removed.use,
                                                     builtin=removed.builtin))

    def fix(self, context: FixContext, finding: Finding) -> list[Edit]:
        found = self.data_of(finding)
        node, removed = finding.node, REMOVED.get(found.name) if found is not None else None
        if not isinstance(node, ast.Attribute) or removed is None or not removed.builtin:
            return []
        scopes = context.module.scopes  # the builtin must be what its name means there, not a binding of the code's
        if scopes.lookup(removed.use, scopes.scope_at(node), (node.lineno, node.col_offset)) is not None:
            return []
        return [context.replace(node, removed.use)]


@lru_cache(maxsize=32)
def _gone(version: str) -> frozenset[str]:
    """The names of ``REMOVED`` that numpy ``version`` lacks."""
    release = parse_version(version)
    return frozenset(name for name, removed in REMOVED.items()
                     if release >= parse_version(removed.since)
                     and not (removed.back and release >= parse_version(removed.back)))
