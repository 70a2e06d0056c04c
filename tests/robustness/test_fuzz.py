"""Generated programs never make the checker raise, and every finding points into the file.

Two generators: a grammar of MindSpore-shaped programs (imports in several spellings, Cells with ``__init__`` and
``construct``, helpers, jit functions, containers of Cells and Parameters, decorators, numpy and ops calls, control
flow, comprehensions, nested functions), and hypothesmith's programs from Python's own grammar, which reach odd
syntax the first does not. CI runs a bounded number of examples; ``MS_LINT_FUZZ_EXAMPLES=5000`` runs more.
"""
from __future__ import annotations

import ast
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ms_lint.engine import check_source
from ms_lint.plugin import MsLintChecker
from ms_lint.rules import RULES_BY_CODE
from ms_lint.settings import Settings

EXAMPLES = int(os.environ.get("MS_LINT_FUZZ_EXAMPLES", "60"))
FUZZ_SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    derandomize=EXAMPLES <= 60,  # CI sees the same programs every run; a long run explores new ones
    database=None,
)
ALL_CODES = tuple(RULES_BY_CODE)
# Valid programs such as `1()` make the compiler warn; the warning says nothing about ms-lint.
pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning")
ALL_SETTINGS = [Settings(mode, level) for mode in ("graph", "pynative") for level in ("strict", "lax")]


def assert_checks_cleanly(source: str, settings_: Settings) -> None:
    """The properties every program must have: nothing raises, no internal error, findings inside the file."""
    tree = ast.parse(source)  # the generators make only valid programs
    line_count = max(1, len(source.splitlines()))
    findings = check_source(source, "generated.py", settings_, ALL_CODES)
    for finding in findings:
        assert finding.code in RULES_BY_CODE
        assert finding.code != "MS900", f"{finding.message}\n--- program ---\n{source}"
        assert 1 <= finding.line <= line_count, (finding, source)
        assert finding.col >= 0
        assert finding.message and "\n" not in finding.message
    MsLintChecker.settings = settings_
    try:
        reported = [(line, col, text.split(" ", 1)[0]) for line, col, text, _ in
                    MsLintChecker(tree, "generated.py", source.splitlines(keepends=True)).run()]
    finally:
        MsLintChecker.settings = Settings(syntax_level="strict")
    # The plugin may leave out rules nobody selected, never report something check_source does not.
    assert set(reported) <= {(f.line, f.col, f.code) for f in findings}


# ------------------------------------------------------------------------------- MindSpore-shaped programs

IMPORT_SPELLINGS = [
    "import mindspore",
    "import mindspore as ms",
    "import mindspore.nn as nn",
    "import mindspore.ops as ops",
    "from mindspore import nn, ops",
    "from mindspore import Tensor, Parameter, jit, jit_class",
    "from mindspore import ops as P",
    "import mindspore.ops.operations as P",
    "from mindspore.ops import functional as F",
    "from mindspore.nn import Cell, CellList, SequentialCell",
    "from mindspore.common.initializer import initializer, Normal",
    "from mindspore import context",
    "from mindspore.communication import init, get_rank",
    "import mindspore.dataset as ds",
    "from mindspore.nn import *",
    "import numpy as np",
    "from numpy import random as npr",
    "import random",
    "import time",
    "from . import layers",
    "from ..base import Base",
    "from .layers import *",
    "try:\n    import mindspore.nn as nn\nexcept ImportError:\n    nn = None",
    "if True:\n    import mindspore as ms\nelse:\n    ms = None",
    "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from mindspore import Tensor",
]
CORE_IMPORTS = st.sampled_from([
    "import mindspore as ms\nimport mindspore.nn as nn\nimport mindspore.ops as ops\nimport numpy as np",
    "import mindspore as ms\nfrom mindspore import nn, ops, Tensor, Parameter\nimport numpy as np",
    "from mindspore import nn, ops\nimport mindspore\nms = mindspore\nimport numpy as np",
])
NAMES = st.sampled_from(["x", "y", "z", "out", "h", "i", "n", "mask", "feat"])
ATTRIBUTES = st.sampled_from(["dense", "layers", "cells", "params", "weight", "op", "flag", "table", "cache",
                              "blocks", "scale", "conv", "act"])
CLASS_NAMES = [f"Net{i}" for i in range(3)]
FUNCTION_NAMES = [f"helper{i}" for i in range(2)]
SIMPLE_CONSTANTS = st.sampled_from(["0", "1", "2", "-1", "0.5", "True", "False", "None", "'mean'", "(1, 2)", "3j",
                                    "...", "b'x'", "1e-5", "[]", "{}"])
ATOM_EXPRESSIONS = st.one_of(
    NAMES, SIMPLE_CONSTANTS, ATTRIBUTES.map(lambda a: f"self.{a}"),
    st.sampled_from(["ms.float32", "ms.float16", "mindspore.int32", "np.pi", "self.training", "x.shape",
                     "x.dtype", "x.ndim", "len(x)", "Tensor", "Parameter", "nn.Cell"]),
)


def _expression(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    pairs = st.tuples(children, children)
    return st.one_of(
        FORMATTED,
        children.map(lambda e: f"ops.relu({e})"),
        pairs.map(lambda p: f"ops.matmul({p[0]}, {p[1]})"),
        children.map(lambda e: f"np.ones({e})"),
        children.map(lambda e: f"np.array({e}).mean()"),
        children.map(lambda e: f"({e}).asnumpy()"),
        children.map(lambda e: f"({e}).item()"),
        children.map(lambda e: f"({e}).shape[0]"),
        children.map(lambda e: f"float({e})"),
        children.map(lambda e: f"int({e})"),
        children.map(lambda e: f"len({e})"),
        children.map(lambda e: f"self.dense({e})"),
        st.tuples(st.sampled_from(FUNCTION_NAMES + ["self.helper", "self.util", "self._block"]), children).map(
            lambda p: f"{p[0]}({p[1]})"),
        children.map(lambda e: f"Tensor({e}, ms.float32)"),
        children.map(lambda e: f"ms.Tensor(np.zeros(3) + {e})"),
        pairs.map(lambda p: f"P.Add()({p[0]}, {p[1]})"),
        pairs.map(lambda p: f"ops.Concat(axis=0)(({p[0]}, {p[1]}))"),
        pairs.map(lambda p: f"({p[0]}) + ({p[1]})"),
        pairs.map(lambda p: f"({p[0]}) * ({p[1]})"),
        pairs.map(lambda p: f"({p[0]}) @ ({p[1]})"),
        pairs.map(lambda p: f"({p[0]}) < ({p[1]}) <= 3"),
        pairs.map(lambda p: f"({p[0]}) and not ({p[1]})"),
        children.map(lambda e: f"-({e})"),
        st.tuples(children, children, children).map(lambda t: f"({t[0]}) if ({t[1]}) else ({t[2]})"),
        pairs.map(lambda p: f"[{p[0]} for v in ({p[1]})]"),
        pairs.map(lambda p: f"[v * ({p[0]}) for v in range(3) if ({p[1]})]"),
        pairs.map(lambda p: f"{{k: {p[0]} for k, v in enumerate({p[1]})}}"),
        pairs.map(lambda p: f"tuple(c({p[0]}) for c in ({p[1]}))"),
        pairs.map(lambda p: f"({p[0]}, {p[1]})"),
        pairs.map(lambda p: f"[{p[0]}, *({p[1]})]"),
        pairs.map(lambda p: f"{{'a': {p[0]}, **({p[1]})}}"),
        pairs.map(lambda p: f"({p[0]})[{p[1]}]"),
        children.map(lambda e: f"({e})[1:, ..., ::2]"),
        children.map(lambda e: f"(lambda t: t + ({e}))"),
        children.map(lambda e: f"str({e})"),
        children.map(lambda e: f"isinstance({e}, (Tensor, int))"),
        children.map(lambda e: f"print({e})"),
        children.map(lambda e: f"getattr(self, 'act')({e})"),
        children.map(lambda e: f"x.astype(np.int32)[{e}]"),
        children.map(lambda e: f"npr.rand(2) * ({e})"),
        children.map(lambda e: f"random.random() + ({e})"),
        children.map(lambda e: f"ops.stop_gradient({e})"),
        pairs.map(lambda p: f"ops.where(({p[0]}) > 0, {p[1]}, 0)"),
        children.map(lambda e: f"x.view(-1).sum(axis={e})"),
        pairs.map(lambda p: f"F.depend({p[0]}, {p[1]})"),
        children.map(lambda e: f"self.cells[0]({e})"),
        children.map(lambda e: f"ops.zeros_like({e}).to(ms.float16)"),
    )


ANNOTATIONS = st.sampled_from(["Tensor", "int", "list", "'Tensor'", "ms.Tensor | None"])
FORMATTED = ATOM_EXPRESSIONS.map(lambda e: 'f"{ ' + e + '!r:>10}"')
EXPRESSIONS = st.recursive(ATOM_EXPRESSIONS, _expression, max_leaves=3)
TARGETS = st.one_of(
    NAMES, ATTRIBUTES.map(lambda a: f"self.{a}"), st.tuples(NAMES, NAMES).map(lambda p: f"{p[0]}, {p[1]}"),
    st.tuples(NAMES, NAMES).map(lambda p: f"{p[0]}, *{p[1]}"), NAMES.map(lambda n: f"{n}[0]"),
    ATTRIBUTES.map(lambda a: f"self.{a}[0]"),
)


def indent(lines: list[str], levels: int = 1) -> list[str]:
    return [("    " * levels + line) if line else line for line in lines]


@st.composite
def statements(draw, depth: int = 0, in_loop: bool = False, in_method: bool = True) -> list[str]:
    """A list of statement lines (never empty) valid inside a function body."""
    count = draw(st.integers(1, 3 if depth == 0 else 2))
    lines: list[str] = []
    for _ in range(count):
        choices = ["assign", "augassign", "annassign", "call", "return", "pass", "assert", "setitem", "append",
                   "del", "raise"]
        if depth < 2 and draw(st.booleans()):
            choices += ["if", "for", "while", "try", "with", "nested_def", "walrus"]
        if in_loop:
            choices += ["break", "continue"]
        kind = draw(st.sampled_from(choices))
        expression = draw(EXPRESSIONS)
        if kind == "assign":
            lines.append(f"{draw(TARGETS)} = {expression}")
        elif kind == "augassign":
            lines.append(f"{draw(NAMES)} {draw(st.sampled_from(['+=', '*=', '-=', '@=', '//=', '|=']))} {expression}")
        elif kind == "annassign":
            lines.append(f"{draw(NAMES)}: {draw(ANNOTATIONS)} = {expression}")
        elif kind == "call":
            lines.append(expression)
        elif kind == "return":
            lines.append(draw(st.sampled_from([f"return {expression}", "return", f"return {expression}, x"])))
        elif kind == "pass":
            lines.append("pass")
        elif kind == "assert":
            lines.append(f"assert {expression}, 'message'")
        elif kind == "setitem":
            lines.append(f"self.cache[{draw(NAMES)}] = {expression}")
        elif kind == "append":
            lines.append(f"{draw(st.sampled_from(['out', 'self.layers', 'self.params', 'self.cache']))}."
                         f"{draw(st.sampled_from(['append', 'extend', 'insert']))}({expression})")
        elif kind == "del":
            lines.append(f"del {draw(NAMES)}")
        elif kind == "raise":
            lines.append(f"raise ValueError({expression})")
        elif kind == "break":
            lines.append("break")
        elif kind == "continue":
            lines.append("continue")
        elif kind == "walrus":
            lines.append(f"if (w := {expression}) is not None:")
            lines += indent(draw(statements(depth + 1, in_loop, in_method)))
        elif kind == "if":
            lines.append(f"if {expression}:")
            lines += indent(draw(statements(depth + 1, in_loop, in_method)))
            if draw(st.booleans()):
                lines.append(f"elif {draw(EXPRESSIONS)}:")
                lines += indent(draw(statements(depth + 1, in_loop, in_method)))
            if draw(st.booleans()):
                lines.append("else:")
                lines += indent(draw(statements(depth + 1, in_loop, in_method)))
        elif kind == "for":
            header = draw(st.sampled_from([
                f"for i in range({expression}):", f"for cell in self.{draw(ATTRIBUTES)}:",
                "for i, cell in enumerate(self.cells):", f"for a, b in zip({expression}, x):",
                f"for v in {expression}:",
            ]))
            lines.append(header)
            lines += indent(draw(statements(depth + 1, True, in_method)))
            if draw(st.booleans()):
                lines.append("else:")
                lines += indent(draw(statements(depth + 1, in_loop, in_method)))
        elif kind == "while":
            lines.append(f"while {expression}:")
            lines += indent(draw(statements(depth + 1, True, in_method)))
        elif kind == "try":
            lines.append("try:")
            lines += indent(draw(statements(depth + 1, in_loop, in_method)))
            lines.append(draw(st.sampled_from(["except ValueError as error:", "except (TypeError, KeyError):",
                                               "except Exception:"])))
            lines += indent(draw(statements(depth + 1, in_loop, in_method)))
            if draw(st.booleans()):
                lines.append("finally:")
                lines += indent(draw(statements(depth + 1, in_loop, in_method)))
        elif kind == "with":
            lines.append(f"with {draw(st.sampled_from(['open(path)', 'ms.no_grad()', 'self.lock', expression]))} "
                         f"as {draw(NAMES)}:")
            lines += indent(draw(statements(depth + 1, in_loop, in_method)))
        elif kind == "nested_def":
            decorator = draw(st.sampled_from(["", "@jit", "@ms.jit", "@functools.lru_cache()"]))
            if decorator:
                lines.append(decorator)
            lines.append("def inner(v, *rest, scale=2, **options):")
            lines += indent(draw(statements(depth + 1, False, in_method)))
            lines.append(f"{draw(NAMES)} = inner({expression})")
    return lines


@st.composite
def init_methods(draw) -> list[str]:
    lines = [draw(st.sampled_from(["def __init__(self, channels=3, *args, **kwargs):",
                                   "def __init__(self):", "def __init__(self, cfg, blocks=None):"]))]
    body = []
    body.append(draw(st.sampled_from(["super().__init__()", "super(type(self), self).__init__()",
                                      "nn.Cell.__init__(self)", "super().__init__(auto_prefix=False)", "pass"])))
    attribute_lines = st.sampled_from([
        "self.dense = nn.Dense(3, 4)",
        "self.conv = nn.Conv2d(3, 8, 3, padding=1)",
        "self.conv = nn.Conv2d(3, 8, 3, pad_mode='pad', padding=1)",
        "self.layers = [nn.ReLU() for _ in range(3)]",
        "self.layers = nn.CellList([nn.ReLU(), nn.Dense(2, 2)])",
        "self.cells = nn.SequentialCell(nn.ReLU(), nn.Tanh())",
        "self.blocks = {'a': nn.ReLU(), 'b': Net0()}",
        "self.params = [Parameter(Tensor(np.ones(3), ms.float32), name='p')]",
        "self.weight = Parameter(initializer('normal', (3, 3)), name='w')",
        "self.scale = ms.Tensor(np.ones(3))",
        "self.op = ops.Add()",
        "self.act = nn.GELU()",
        "self.flag = True",
        "self.cache = {}",
        "self.table = np.arange(10)",
        "self.layers.append(nn.Dense(2, 2))",
        "setattr(self, 'extra', nn.ReLU())",
        "self.insert_child_to_cell('child', nn.ReLU())",
        "self.to_float(ms.float16)",
        "blocks = []\nfor i in range(3):\n    blocks.append(nn.Dense(i + 1, 2))\nself.blocks = blocks",
        "self.blocks = nn.CellList(blocks or [])",
        "self.helper_object = Helper()",
    ])
    body += draw(st.lists(attribute_lines, min_size=0, max_size=4))
    if draw(st.booleans()):
        body += draw(statements(1, False, True))
    lines += indent([line for entry in body for line in entry.split("\n")])
    return lines


@st.composite
def cell_classes(draw, name: str) -> list[str]:
    lines = []
    decorator = draw(st.sampled_from(["", "", "", "@jit_class", "@ms.jit_class", "@dataclasses.dataclass"]))
    if decorator:
        lines.append(decorator)
    base = draw(st.sampled_from(["nn.Cell", "nn.Cell", "Cell", "ms.nn.Cell", "mindspore.nn.Cell", "object", "",
                                 "Base", "layers.Block", "nn.SequentialCell", "Net0", "Net1", "nn.Cell, Mixin",
                                 "metaclass=abc.ABCMeta"]))
    lines.append(f"class {name}({base}):" if base else f"class {name}:")
    body: list[str] = []
    if draw(st.booleans()):
        body.append(draw(st.sampled_from(["'''A generated class.'''", "counter = 0", "layers: list = []"])))
    if draw(st.integers(0, 3)):
        body += draw(init_methods())
    for _ in range(draw(st.integers(1, 2))):
        decorator = draw(st.sampled_from(["", "", "@staticmethod", "@property", "@jit", "@ms.jit(jit_level='O1')",
                                          "@functools.wraps(print)"]))
        method = draw(st.sampled_from(["construct", "construct", "helper", "util", "_block", "bprop", "forward",
                                       "__call__"]))
        parameters = {
            "construct": "self, x, y=None, *args, **kwargs",
            "bprop": "self, x, out, dout",
        }.get(method, "self, x")
        if decorator == "@staticmethod":
            parameters = "x, scale=1.0"
        if decorator == "@property":
            parameters = "self"
        if decorator:
            body.append(decorator)
        body.append(f"def {method}({parameters}):")
        body += indent(draw(statements(0, False, True)))
    lines += indent(body)
    return lines


@st.composite
def functions(draw, name: str) -> list[str]:
    lines = []
    decorator = draw(st.sampled_from(["", "@jit", "@ms.jit", "@jit(capture_mode='ast')", "@mindspore.jit()",
                                      "@ms.jit(jit_syntax_level=ms.LAX)", "@custom_decorator"]))
    if decorator:
        lines.append(decorator)
    lines.append(draw(st.sampled_from([f"def {name}(x, y=1, *, scale=None):", f"def {name}(self, x):",
                                       f"async def {name}(x):", f"def {name}(*args, **kwargs):"])))
    lines += indent(draw(statements(0, False, False)))
    return lines


MODULE_STATEMENTS = st.sampled_from([
    "ms.set_context(mode=ms.GRAPH_MODE)",
    "ms.set_context(mode=ms.PYNATIVE_MODE)",
    "context.set_context(mode=context.GRAPH_MODE, jit_syntax_level=ms.LAX)",
    "ms.set_seed(1)",
    "init()",
    "net = Net0()",
    "net = Net1().set_train()",
    "loss_fn = nn.MSELoss()",
    "optimizer = nn.Adam(net.trainable_params(), learning_rate=1e-3)",
    "grad_fn = ms.value_and_grad(net, None, optimizer.parameters)",
    "train_step = jit(helper0)",
    "model = ms.Model(net, loss_fn, optimizer)\nmodel.train(1, dataset)",
    "net.to_float(ms.float16)",
    "net = ms.amp.auto_mixed_precision(net, 'O2')",
    "dataset = ds.GeneratorDataset(source, ['x']).map(operations=[ops.relu])",
    "Helper = Net0",
    "Alias = Alias2 = Net1",
    "if __name__ == '__main__':\n    out = Net0()(ms.Tensor(np.ones((2, 3))))\n    print(out.asnumpy())",
    "__all__ = ['Net0', 'helper0']",
])


@st.composite
def mindspore_programs(draw) -> str:
    chunks = [draw(CORE_IMPORTS)]
    chunks += draw(st.lists(st.sampled_from(IMPORT_SPELLINGS), max_size=4))
    definitions = [("class", name) for name in CLASS_NAMES[:draw(st.integers(1, len(CLASS_NAMES)))]]
    definitions += [("function", name) for name in FUNCTION_NAMES[:draw(st.integers(0, len(FUNCTION_NAMES)))]]
    definitions = draw(st.permutations(definitions))
    for kind, name in definitions:
        lines = draw(cell_classes(name)) if kind == "class" else draw(functions(name))
        chunks.append("\n".join(lines))
    chunks += draw(st.lists(MODULE_STATEMENTS, max_size=4))
    return "\n\n\n".join(chunks) + "\n"


@FUZZ_SETTINGS
@given(program=mindspore_programs(), settings_=st.sampled_from(ALL_SETTINGS))
def test_mindspore_shaped_programs_check_cleanly(program, settings_):
    assert_checks_cleanly(program, settings_)


# ---------------------------------------------------------------------------- Python's whole grammar

try:
    import hypothesmith
except ImportError:  # an optional test dependency: the grammar above still runs
    hypothesmith = None


def _python_grammar_programs() -> st.SearchStrategy[str]:
    if hypothesmith is None:
        return st.nothing()
    # The prefix makes the checker analyse the program instead of skipping it as unrelated to MindSpore.
    prefix = "import mindspore as ms\nimport mindspore.nn as nn\n"
    wrappers = st.sampled_from([
        lambda body: prefix + body,
        lambda body: prefix + "class Net(nn.Cell):\n" + "".join(f"    {line}\n" for line in body.splitlines())
        + "    def construct(self, x):\n        return x\n",
        lambda body: prefix + "class Net(nn.Cell):\n    def construct(self, x):\n"
        + "".join(f"        {line}\n" for line in body.splitlines()) + "        return x\n",
    ])

    def wrap(pair) -> str:
        wrapper, body = pair
        source = wrapper(body)
        try:
            ast.parse(source)
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            return prefix + body  # re-indenting broke a multi-line string or a continuation: keep it at top level
        return source

    # from_grammar is fast and reaches odd whitespace, comments and line endings; from_node builds statements.
    programs = st.one_of(hypothesmith.from_grammar(), hypothesmith.from_node())
    return st.tuples(wrappers, programs).map(wrap)


@pytest.mark.skipif(hypothesmith is None, reason="hypothesmith is not installed")
# Generating from Python's grammar is slower: half the examples keeps CI fast.
@settings(FUZZ_SETTINGS, max_examples=max(10, EXAMPLES // 2))
@given(program=_python_grammar_programs(), settings_=st.sampled_from(ALL_SETTINGS))
def test_programs_from_python_grammar_check_cleanly(program, settings_):
    try:
        ast.parse(program)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return  # flake8 reports what Python cannot parse (E999); nothing for ms-lint to check
    assert_checks_cleanly(program, settings_)
