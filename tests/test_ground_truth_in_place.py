"""Augmented assignment (``x += y``) in graph code, as the installed MindSpore runs it, and what MS124 reports of it.

MindSpore 2.8 parses augmented assignment in graph mode into in-place operators (its release notes). Each case is a
small Cell called three times on the same input, in one subprocess: under GRAPH_MODE at STRICT and at LAX, under
``@jit`` from PyNative (the default and ``fullgraph=True``) and in plain PyNative. What a case gives (its outputs'
sums, then what its ``probe`` reads after the calls: the Cell's attribute, the caller's tensor) is written beside it
twice: what PyNative gives on every version, which graph code gives too up to 2.7.2, and what graph code gives from
2.8.0, where it writes into the tensor the name holds. Measured with 2.7.1, 2.7.2, 2.8.0, 2.9.0 and 2.10.0 on CPU:
the four graph modes agreed on every case, at every version. MS124 must report a case exactly where ``reported``
says, at any version from 2.8.0, and nothing before.
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from dataclasses import dataclass

import pytest

from ms_lint import mindspore_api as api
from ms_lint.engine import check_source
from ms_lint.rules.ms124_augmented_assignment_writes_in_place import IN_PLACE_FROM
from ms_lint.settings import Settings
from ms_lint.target import installed_mindspore
from tests.mindspore_compile import compile_environment

pytestmark = pytest.mark.mindspore

INSTALLED = installed_mindspore()
# The versions measured to write in place, and those measured not to (tests/ can name the rest: nox runs them).
MEASURED_IN_PLACE = ("2.8.0", "2.9.0", "2.10.0")
MEASURED_OUT_OF_PLACE = ("2.7.1", "2.7.2")
IN_PLACE = api.at_least(INSTALLED, IN_PLACE_FROM)
GRAPH_MODES = ("graph-strict", "graph-lax", "jit", "jit-fullgraph")

HEADER = """\
import os
import numpy as np
import mindspore as ms
from mindspore import Parameter, Tensor, nn, ops

MODE = os.environ.get("CASE_MODE", "graph")


def compiled(function):
    if MODE == "jit":
        return ms.jit(function)
    if MODE == "jit-fullgraph":
        return ms.jit(function, fullgraph=True)
    return function


def threes():
    return Tensor(np.full((2,), 3.0, np.float32))


def total(value):
    return float(value.asnumpy().sum())
"""


@dataclass(frozen=True)
class Case:
    name: str
    source: str  # defines Net (its compiled method marked ``@compiled``) and probe(net) -> list of numbers
    pynative: object  # what probe gives in PyNative, and in graph code up to 2.7.2; ("fail", error) for a raise
    in_place: object  # what probe gives in graph code from 2.8.0
    reported: int  # how many MS124 findings, from 2.8.0 (the lines marked ``# here``)


CASES = [
    Case("local-bound-to-a-tensor-attribute", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.zero = Tensor(np.zeros((2,), np.float32))
            @compiled
            def construct(self, r):
                running = self.zero
                running += r  # here
                return running
        def probe(net):
            return [total(net(threes())) for _ in range(3)] + [total(net.zero)]
    """, [6, 6, 6, 0], [6, 12, 18, 18], 1),
    Case("local-bound-to-a-parameter", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.zero = Parameter(Tensor(np.zeros((2,), np.float32)), requires_grad=False)
            @compiled
            def construct(self, r):
                running = self.zero
                running *= 2  # here
                running -= r  # written into the same tensor: the first write is the one reported
                return running
        def probe(net):
            return [total(net(threes())) for _ in range(3)] + [total(net.zero)]
    """, [-6, -6, -6, 0], [-6, -18, -42, -42], 1),
    Case("local-bound-to-an-element-of-a-parameter-tuple", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.params = ms.ParameterTuple([
                    Parameter(Tensor(np.zeros((2,), np.float32)), name="first", requires_grad=False),
                    Parameter(Tensor(np.ones((2,), np.float32)), name="second", requires_grad=False)])
            @compiled
            def construct(self, r):
                running = self.params[0]
                running += r  # here
                return running
        def probe(net):
            return [total(net(threes())) for _ in range(3)] + [total(net.params[0])]
    """, [6, 6, 6, 0], [6, 12, 18, 18], 1),
    Case("two-locals-bound-to-one-attribute", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.zero = Tensor(np.zeros((2,), np.float32))
            @compiled
            def construct(self, r):
                steps = self.zero
                running = self.zero
                steps += 1  # here
                running += r  # here
                return steps, running
        def probe(net):
            return [total(part) for _ in range(3) for part in net(threes())] + [total(net.zero)]
    """, [2, 6, 2, 6, 2, 6, 0], [8, 8, 16, 16, 24, 24, 24], 2),
    Case("a-helper-method-s-local", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.zero = Tensor(np.zeros((2,), np.float32))
            def accumulate(self, r):
                running = self.zero
                running += r  # here
                return running
            @compiled
            def construct(self, r):
                return self.accumulate(r)
        def probe(net):
            return [total(net(threes())) for _ in range(3)] + [total(net.zero)]
    """, [6, 6, 6, 0], [6, 12, 18, 18], 1),
    Case("a-copy-of-the-attribute", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.zero = Tensor(np.zeros((2,), np.float32))
            @compiled
            def construct(self, r):
                running = self.zero.copy()
                running += r  # here
                return running
        def probe(net):
            return [total(net(threes())) for _ in range(3)] + [total(net.zero)]
    """, [6, 6, 6, 0], [6, 12, 18, 0], 1),  # the copy is a constant the graph keeps: no cure
    Case("the-local-bound-to-a-new-tensor-first", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.zero = Tensor(np.zeros((2,), np.float32))
            @compiled
            def construct(self, r):
                running = self.zero
                running = running + r
                running += r
                return running
        def probe(net):
            return [total(net(threes())) for _ in range(3)] + [total(net.zero)]
    """, [12, 12, 12, 0], [12, 12, 12, 0], 0),
    Case("a-number-attribute", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.zero = 0.0
            @compiled
            def construct(self, r):
                running = self.zero
                running += r
                return running
        def probe(net):
            return [total(net(threes())) for _ in range(3)]
    """, [6, 6, 6], [6, 6, 6], 0),
    Case("a-tensor-constant-built-in-graph-code", """
        class Net(nn.Cell):
            @compiled
            def construct(self, r):
                calls = Tensor(0, ms.int32)
                calls += 1  # here
                loss = ms.tensor(0.0, ms.float32)
                loss += (r * r).mean()  # here
                buffer = Tensor(np.zeros((2,), np.float32))
                buffer += r  # here
                return calls, loss, buffer
        def probe(net):
            return [total(part) for _ in range(3) for part in net(threes())]
    """, [1, 9, 6] * 3, [1, 9, 6, 2, 18, 12, 3, 27, 18], 3),
    Case("a-tensor-an-operator-builds", """
        class Net(nn.Cell):
            @compiled
            def construct(self, r):
                running = ops.zeros((2,), ms.float32)
                running += r
                scaled = r * 2
                scaled += r
                like = ops.zeros_like(r)
                like += r
                like += 2
                return running, scaled, like
        def probe(net):
            x = threes()
            return [total(part) for _ in range(3) for part in net(x)] + [total(x)]
    """, [6, 18, 10] * 3 + [6], [6, 18, 10] * 3 + [6], 0),
    Case("a-smaller-accumulator", """
        class Net(nn.Cell):
            @compiled
            def construct(self, r):
                out = ops.zeros((1,), ms.float32)
                out += r.reshape(1, 2)  # here
                return out
        def probe(net):
            return [total(net(threes())) for _ in range(3)]
    """, [6, 6, 6], ("fail", "RuntimeError", "must have the same"), 1),
    Case("a-scalar-constant-given-a-vector", """
        class Net(nn.Cell):
            @compiled
            def construct(self, r):
                loss = Tensor(0.0, ms.float32)
                loss += r.reshape(2)  # here
                return loss
        def probe(net):
            return [total(net(threes())) for _ in range(3)]
    """, [6, 6, 6], ("fail", "RuntimeError", "must have the same"), 1),
    Case("the-argument-itself", """
        class Net(nn.Cell):
            @compiled
            def construct(self, x):
                x += 1
                return x
        def probe(net):
            x = threes()
            return [total(net(x)) for _ in range(3)] + [total(x)]
    """, [8, 8, 8, 6], [8, 10, 12, 12], 0),  # the caller's tensor changes; nothing in graph code reads it again
    Case("a-local-bound-to-the-argument-read-again", """
        class Net(nn.Cell):
            @compiled
            def construct(self, x):
                shifted = x
                shifted += 1  # here
                return shifted + x
        def probe(net):
            x = threes()
            return [total(net(x)) for _ in range(3)] + [total(x)]
    """, [14, 14, 14, 6], [16, 20, 24, 12], 1),
    Case("a-sub-cell-s-argument-its-caller-reads-again", """
        class Inner(nn.Cell):
            def construct(self, x):
                x += 1  # here
                return x
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.inner = Inner()
            @compiled
            def construct(self, r):
                y = r * 1
                z = self.inner(y)
                return y + z
        def probe(net):
            return [total(net(threes())) for _ in range(3)]
    """, [14, 14, 14], [16, 16, 16], 1),
    Case("a-helper-given-an-attribute", """
        def bump(t):
            t += 1  # here
            return t
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.zero = Tensor(np.zeros((2,), np.float32))
            @compiled
            def construct(self, x):
                return bump(self.zero) + x
        def probe(net):
            return [total(net(threes())) for _ in range(3)] + [total(net.zero)]
    """, [8, 8, 8, 0], [8, 10, 12, 6], 1),
    Case("a-loop-sum-started-at-zero", """
        class Net(nn.Cell):
            @compiled
            def construct(self, r):
                acc = 0
                for _ in range(3):
                    acc += r  # here
                return acc
        def probe(net):
            x = threes()
            return [total(net(x)) for _ in range(3)] + [total(x)]
    """, [18, 18, 18, 6], [24, 96, 384, 384], 1),
    Case("a-sum-started-at-zero-then-written", """
        class Net(nn.Cell):
            @compiled
            def construct(self, r):
                acc = 0.0
                acc += r
                acc += 1  # here
                return acc + r
        def probe(net):
            x = threes()
            return [total(net(x)) for _ in range(3)] + [total(x)]
    """, [14, 14, 14, 6], [16, 20, 24, 12], 1),
    Case("a-loop-sum-of-new-tensors", """
        class Net(nn.Cell):
            @compiled
            def construct(self, r):
                acc = 0
                for i in range(3):
                    acc += r * i
                started = 1
                started *= r
                started *= 2
                return acc, started
        def probe(net):
            x = threes()
            return [total(part) for _ in range(3) for part in net(x)] + [total(x)]
    """, [18, 12] * 3 + [6], [18, 12] * 3 + [6], 0),
    Case("an-integer-accumulator-given-floats", """
        class Net(nn.Cell):
            @compiled
            def construct(self, r):
                out = ops.zeros((2,), ms.int32)
                out += r * 0.5
                return out
        def probe(net):
            return [total(net(threes())) for _ in range(3)]
    """, [3, 3, 3], [2, 2, 2], 0),  # the sum keeps int32 from 2.8: 1.5 + 1.5 becomes 1 + 1
    Case("an-item-of-a-local-bound-to-an-attribute", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.buf = Tensor(np.zeros((3,), np.float32))
            @compiled
            def construct(self, r):
                out = self.buf
                out[0] += r.sum()
                return out
        def probe(net):
            return [total(net(threes())) for _ in range(3)] + [total(net.buf)]
    """, [6, 12, 18, 18], [6, 6, 6, 0], 0),  # graph code writes items into a copy on every version
]
# Graph code up to 2.7.2 gives PyNative's result, except where it differs on every version:
GRAPH_ON_EVERY_VERSION = {"an-item-of-a-local-bound-to-an-attribute": [6, 6, 6, 0]}

_RUNNER = r'''
import importlib.util, json, os, sys
import mindspore as ms
results = {}
for mode in sys.argv[2:]:
    os.environ["CASE_MODE"] = {"graph-strict": "graph", "graph-lax": "graph"}.get(mode, mode)
    if mode.startswith("graph"):
        ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT if mode == "graph-strict" else ms.LAX)
    else:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    for case in json.loads(open(sys.argv[1]).read()):
        name = f"{case['module']}_{mode.replace('-', '_')}"
        spec = importlib.util.spec_from_file_location(name, case["path"])
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
            results[f"{case['name']}/{mode}"] = [round(value, 4) for value in module.probe(module.Net())]
        except Exception as exc:
            results[f"{case['name']}/{mode}"] = ["fail", type(exc).__name__, str(exc)[:300]]
print("@@" + json.dumps(results))
'''


def _observe(sources: list[tuple[str, str]], modes: tuple[str, ...], workdir) -> dict[str, list]:
    """Each (name, source) run in each mode, in one subprocess: ``{"name/mode": what probe gave, or a failure}``."""
    payload = []
    for index, (name, source) in enumerate(sources):
        path = workdir / f"case_{index}.py"
        path.write_text(source)
        payload.append({"name": name, "module": f"case_{index}", "path": str(path)})
    (workdir / "cases.json").write_text(json.dumps(payload))
    completed = subprocess.run([sys.executable, "-c", _RUNNER, str(workdir / "cases.json"), *modes],
                               capture_output=True, text=True, cwd=workdir, timeout=900, env=compile_environment())
    marker = completed.stdout.rfind("@@")
    assert marker >= 0, completed.stderr[-3000:]
    return json.loads(completed.stdout[marker + 2:])


@pytest.fixture(scope="module")
def observed(tmp_path_factory):
    sources = [(case.name, HEADER + textwrap.dedent(case.source)) for case in CASES]
    return _observe(sources, (*GRAPH_MODES, "pynative"), tmp_path_factory.mktemp("in_place"))


def _matches(result: list, expected) -> bool:
    if isinstance(expected, tuple):  # ("fail", error type, a part of its message)
        return result[:2] == list(expected[:2]) and expected[2] in result[2]
    return result == [float(value) for value in expected]


def _graph_expectation(case: Case):
    if IN_PLACE:
        return case.in_place
    return GRAPH_ON_EVERY_VERSION.get(case.name, case.pynative)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_pynative_computes_a_new_tensor_on_every_version(case, observed):
    assert _matches(observed[f"{case.name}/pynative"], case.pynative), observed[f"{case.name}/pynative"]


@pytest.mark.parametrize("mode", GRAPH_MODES)
@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_graph_code_writes_in_place_from_2_8_at_every_level_and_under_jit(case, mode, observed):
    result = observed[f"{case.name}/{mode}"]
    assert _matches(result, _graph_expectation(case)), (INSTALLED, result)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_ms124_reports_exactly_the_cases_that_misbehave_from_2_8(case):
    source = HEADER + textwrap.dedent(case.source)
    marked = [number for number, line in enumerate(source.splitlines(), start=1) if line.endswith("# here")]
    assert len(marked) == case.reported
    for version in MEASURED_IN_PLACE + MEASURED_OUT_OF_PLACE + ((INSTALLED,) if INSTALLED else ()):
        findings = [f for f in check_source(source, "case.py", Settings(version=version)) if f.code == "MS124"]
        expected = marked if api.at_least(version, IN_PLACE_FROM) else []
        assert [f.line for f in findings] == expected, version


def test_the_measured_versions_are_those_the_rule_names():
    assert all(api.at_least(version, IN_PLACE_FROM) for version in MEASURED_IN_PLACE)
    assert not any(api.at_least(version, IN_PLACE_FROM) for version in MEASURED_OUT_OF_PLACE)


def test_the_fix_gives_pynative_s_result_in_graph_code(tmp_path):
    """``--fix`` writes each reported assignment out; the fixed Cells give PyNative's result under GRAPH_MODE."""
    from ms_lint.fixes import fix_source

    reported = [case for case in CASES if case.reported and not isinstance(case.in_place, tuple)]
    fixed_cases = []
    for case in reported:
        source = HEADER + textwrap.dedent(case.source)
        fixed = fix_source(source, "case.py", Settings(version="2.10.0"), codes={"MS124"}).fixed
        assert not [f for f in check_source(fixed, "case.py", Settings(version="2.10.0")) if f.code == "MS124"]
        fixed_cases.append((case, fixed))
    results = _observe([(case.name, fixed) for case, fixed in fixed_cases], ("graph-lax",), tmp_path)
    for case, _ in fixed_cases:
        assert _matches(results[f"{case.name}/graph-lax"], case.pynative), case.name
