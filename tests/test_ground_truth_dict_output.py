"""What Python gets back from graph code that returns a ``dict`` (MS117, MS122), measured with the real MindSpore in
GRAPH_MODE at STRICT and LAX: a top-level Cell's dict (flat, nested, filled in by item, with keys from a
comprehension or from an input), a Cell whose dict another Cell's construct reads, a ``@jit`` function with and
without ``fullgraph=True``, and what reading the tuple by key raises. The measured source is linted too."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from ms_lint.engine import check_source
from ms_lint.settings import Settings
from tests.mindspore_compile import compile_environment

pytestmark = pytest.mark.mindspore

CASES = """
import mindspore as ms
from mindspore import nn


class Flat(nn.Cell):
    def construct(self, x):
        return {"a": x * 2, "b": x}


class Nested(nn.Cell):
    def construct(self, x):
        return {"a": x * 2, "inner": {"c": x}}


class ByItem(nn.Cell):
    def construct(self, x):
        out = {}
        out["a"] = x
        out["b"] = x + 1
        return out


class Comprehension(nn.Cell):
    def __init__(self):
        super().__init__()
        self.names = ["p", "q"]

    def construct(self, x):
        return {name: x for name in self.names}


class InputKey(nn.Cell):
    def construct(self, x, key):
        return {key: x}


class Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = Flat()

    def construct(self, x):
        out = self.inner(x)
        return out["a"] + out["b"]


@ms.jit
def plain_jit(x):
    return {"a": x * 2, "b": x}


def _fullgraph(x):
    return {"a": x * 2, "b": x}


fullgraph_jit = ms.jit(_fullgraph, fullgraph=True)


def run(x):
    return {"flat": Flat()(x), "nested": Nested()(x), "by_item": ByItem()(x), "comprehension": Comprehension()(x),
            "input_key": InputKey()(x, "z"), "outer": Outer()(x), "plain_jit": plain_jit(x),
            "fullgraph_jit": fullgraph_jit(x)}


def read_by_key(x):
    out = Flat()(x)
    errors = []
    for read in (lambda: out["a"], lambda: out.get("a"), lambda: out.keys()):
        try:
            read()
            errors.append("ok")
        except (TypeError, AttributeError) as exc:
            errors.append(type(exc).__name__)
    return errors
"""

_RUNNER = r'''
import importlib.util, json, sys
import numpy as np
import mindspore as ms

def shape(value):
    if isinstance(value, dict):
        return {"dict": {str(key): shape(item) for key, item in value.items()}}
    if isinstance(value, (tuple, list)):
        return [type(value).__name__, *(shape(item) for item in value)]
    return type(value).__name__

level, path = sys.argv[1:]
ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=getattr(ms, level))
spec = importlib.util.spec_from_file_location("case", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
x = ms.Tensor(np.ones((2, 3), np.float32))
result = {name: shape(value) for name, value in module.run(x).items()}
result["read_by_key"] = module.read_by_key(x)
print("@@RESULT@@" + json.dumps(result))
'''

TUPLE_OF_TWO = ["tuple", "Tensor", "Tensor"]
DICT_OF_TWO = {"dict": {"a": "Tensor", "b": "Tensor"}}


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    """What each case returns to Python, per level, in one process per level."""
    workdir = tmp_path_factory.mktemp("dict_output")
    path = workdir / "case.py"
    path.write_text(textwrap.dedent(CASES))
    results = {}
    for level in ("STRICT", "LAX"):
        completed = subprocess.run([sys.executable, "-c", _RUNNER, level, str(path)], capture_output=True, text=True,
                                   cwd=workdir, timeout=300, env=compile_environment())
        marker = completed.stdout.rfind("@@RESULT@@")
        assert marker >= 0, completed.stderr[-3000:]
        results[level] = json.loads(completed.stdout[marker + len("@@RESULT@@"):])
    return results


def test_a_top_level_cell_s_dict_is_a_tuple_of_its_values_at_strict(measured):
    strict = measured["STRICT"]
    assert strict["flat"] == TUPLE_OF_TWO
    assert strict["nested"] == ["tuple", "Tensor", ["tuple", "Tensor"]]  # the inner dict too
    assert strict["by_item"] == TUPLE_OF_TWO
    assert strict["comprehension"] == TUPLE_OF_TWO  # keys made at compile time
    assert strict["input_key"] == ["tuple", "Tensor"]  # a key given as an input
    # Read by key, the tuple raises in the caller.
    assert strict["read_by_key"] == ["TypeError", "AttributeError", "AttributeError"]


def test_a_top_level_cell_s_dict_stays_a_dict_at_lax(measured):
    lax = measured["LAX"]
    assert lax["flat"] == DICT_OF_TWO
    assert lax["nested"] == {"dict": {"a": "Tensor", "inner": {"dict": {"c": "Tensor"}}}}
    assert lax["by_item"] == DICT_OF_TWO
    assert lax["comprehension"] == {"dict": {"p": "Tensor", "q": "Tensor"}}
    assert lax["input_key"] == {"dict": {"z": "Tensor"}}
    assert lax["read_by_key"] == ["ok", "ok", "ok"]


@pytest.mark.parametrize("level", ["STRICT", "LAX"])
def test_a_dict_read_inside_another_cell_s_construct_works(measured, level):
    assert measured[level]["outer"] == "Tensor"


@pytest.mark.parametrize("level", ["STRICT", "LAX"])
def test_a_jit_function_s_level_is_its_fullgraph_not_the_context_s(measured, level):
    assert measured[level]["plain_jit"] == DICT_OF_TWO
    assert measured[level]["fullgraph_jit"] == TUPLE_OF_TWO


CALLER = """
import numpy as np
from mindspore import Tensor, nn


class Flat(nn.Cell):
    def construct(self, x):
        return {"a": x * 2, "b": x}


class Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = Flat()

    def construct(self, x):
        out = self.inner(x)
        return out["a"] + out["b"]


def run():
    x = Tensor(np.ones((2, 3), np.float32))
    total = Outer()(x)
    net = Flat()
    return net(x)["a"], total
"""


def test_the_lint_reports_the_host_read_once_at_strict_only():
    lines = CALLER.splitlines()
    read = lines.index('    return net(x)["a"], total') + 1
    found = sorted((f.line, f.code) for f in check_source(CALLER, "case.py", Settings(syntax_level="strict")))
    assert found == [(read, "MS117")]  # MS117 owns a read in the Cell's own module; MS122 a caller elsewhere
    assert check_source(CALLER, "case.py", Settings(syntax_level="lax")) == []
