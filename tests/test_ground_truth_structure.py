"""What the Cell-structure, seed and data-pipeline rules claim, checked with the real MindSpore on CPU.

Each case is a small module run in one MindSpore subprocess: ``build()`` makes the object, ``call(obj)`` uses it.
The runner records which stage raised and what. Every case is also linted: the rule must report exactly the
cases that fail (or misbehave), and nothing else.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from ms_lint.engine import check_source
from ms_lint.rules import RULES_BY_CODE
from ms_lint.settings import Settings
from tests.mindspore_compile import compile_environment, names_the_exception

pytestmark = pytest.mark.mindspore

HEADER = """
import numpy as np
import mindspore as ms
import mindspore.dataset as ds
from mindspore import nn, ops, Tensor, Parameter
"""

_RUNNER = r'''
import importlib.util, json, os, sys
import mindspore as ms
sys.path.insert(0, os.getcwd())  # dataset worker processes find the case modules by name
results = []
for case in json.load(sys.stdin):
    ms.set_context(mode=getattr(ms, case["mode"]))
    stage = "import"
    try:
        spec = importlib.util.spec_from_file_location(case["module"], case["path"])
        module = importlib.util.module_from_spec(spec)
        sys.modules[case["module"]] = module
        spec.loader.exec_module(module)
        stage = "build"
        built = module.build()
        stage = "call"
        value = module.call(built) if hasattr(module, "call") else None
        results.append({"ok": True, "value": value})
    except BaseException as exc:
        results.append({"ok": False, "stage": stage, "error": type(exc).__name__, "message": str(exc)[:2000]})
print("@@RESULTS@@" + json.dumps(results))
'''

# Indented like the case sources, which are dedented after the join.
SHAPE_CALL = """
        def call(net):
            return list(net(Tensor(np.ones((1, 3, 12, 12), np.float32))).shape)
"""

# (id, mode, code the rule reports or None, source, expected outcome: "ok" or (stage, error, text in message))
CASES = [
    # First, in a process that has run no operator yet: after one, such a pipeline hangs (see the test below).
    ("operators-in-pipeline-workers", "PYNATIVE_MODE", "MS501", """
        class Source:
            def __init__(self):
                self.data = np.arange(24, dtype=np.float32).reshape(4, 2, 3)
            def __getitem__(self, index):
                return (ops.flip(Tensor(self.data[index]), (1,)).asnumpy(),)
            def __len__(self):
                return 4
        def halve(x):
            return ops.div(Tensor(x), 2.0).asnumpy()
        def build():
            dataset = ds.GeneratorDataset(Source(), ["x"], shuffle=False, python_multiprocessing=True,
                                          num_parallel_workers=2)
            return dataset.map(operations=halve, input_columns="x", python_multiprocessing=True,
                               num_parallel_workers=2)
        def call(dataset):
            return [row[0].tolist() for row in dataset.create_tuple_iterator(output_numpy=True)]
    """, "ok"),
    ("forward-only-graph", "GRAPH_MODE", "MS203", """
        class Net(nn.Cell):
            def forward(self, x):
                return x * 2
        def build():
            return Net()
    """ + SHAPE_CALL, ("call", "AttributeError", "the method 'construct' is not defined")),
    ("forward-only-pynative", "PYNATIVE_MODE", "MS203", """
        class Net(nn.Cell):
            def forward(self, x):
                return x * 2
        def build():
            return Net()
    """ + SHAPE_CALL, ("call", "AttributeError", "the method 'construct' is not defined")),
    ("construct-graph", "GRAPH_MODE", None, """
        class Net(nn.Cell):
            def construct(self, x):
                return x * 2
        def build():
            return Net()
    """ + SHAPE_CALL, "ok"),
    ("no-super-plain-attribute-graph", "GRAPH_MODE", "MS204", """
        class Net(nn.Cell):
            def __init__(self):
                self.factor = 2
            def construct(self, x):
                return x * self.factor
        def build():
            return Net()
    """ + SHAPE_CALL, ("call", "AttributeError", "super().__init__()")),
    ("no-super-plain-attribute-pynative", "PYNATIVE_MODE", "MS204", """
        class Net(nn.Cell):
            def __init__(self):
                self.factor = 2
            def construct(self, x):
                return x * self.factor
        def build():
            return Net()
    """ + SHAPE_CALL, ("call", "AttributeError", "")),
    ("no-super-sub-cell", "PYNATIVE_MODE", "MS204", """
        class Net(nn.Cell):
            def __init__(self):
                self.conv = nn.Conv2d(3, 8, 3)
            def construct(self, x):
                return self.conv(x)
        def build():
            return Net()
    """ + SHAPE_CALL, ("build", "AttributeError", "_auto_prefix")),
    ("no-super-parameter", "PYNATIVE_MODE", "MS204", """
        class Net(nn.Cell):
            def __init__(self):
                self.w = Parameter(Tensor(np.ones(3, np.float32)), name="w")
            def construct(self, x):
                return x * self.w
        def build():
            return Net()
    """ + SHAPE_CALL, ("build", "AttributeError", "Cell.__init__")),
    ("super-graph", "GRAPH_MODE", None, """
        class Net(nn.Cell):
            def __init__(self):
                super(Net, self).__init__()
                self.factor = 2
            def construct(self, x):
                return x * self.factor
        def build():
            return Net()
    """ + SHAPE_CALL, "ok"),
    ("conv-padding-default-pad-mode", "PYNATIVE_MODE", "MS205", """
        def build():
            return nn.Conv2d(3, 8, 3, padding=1)
    """ + SHAPE_CALL, ("build", "ValueError", "pad_mode")),
    ("conv-padding-valid", "PYNATIVE_MODE", "MS205", """
        def build():
            return nn.Conv2d(3, 8, 3, pad_mode="valid", padding=1)
    """ + SHAPE_CALL, ("build", "ValueError", "pad_mode")),
    ("conv-transpose-padding", "PYNATIVE_MODE", "MS205", """
        def build():
            return nn.Conv2dTranspose(3, 8, 2, stride=2, padding=1)
    """ + SHAPE_CALL, ("build", "ValueError", "pad_mode")),
    ("conv-padding-pad-mode-pad", "GRAPH_MODE", None, """
        def build():
            return nn.Conv2d(3, 8, 3, pad_mode="pad", padding=1)
    """ + SHAPE_CALL, "ok"),
    ("conv-zero-padding", "PYNATIVE_MODE", None, """
        def build():
            return nn.Conv2d(3, 8, 3, padding=0)
    """ + SHAPE_CALL, "ok"),
    ("set-seed-reproduces-weights", "PYNATIVE_MODE", None, """
        def build():
            ms.set_seed(5)
            first = nn.Dense(3, 3).weight.asnumpy()
            ms.set_seed(5)
            return bool((first == nn.Dense(3, 3).weight.asnumpy()).all())
        def call(same):
            return same
    """, "ok"),
    ("manual-seed-does-not-reproduce-weights", "PYNATIVE_MODE", None, """
        def build():
            ms.manual_seed(5)
            first = nn.Dense(3, 3).weight.asnumpy()
            ms.manual_seed(5)
            return bool((first == nn.Dense(3, 3).weight.asnumpy()).all())
        def call(same):
            return same
    """, "ok"),
]

# Values the runs must produce, beyond not failing.
EXPECTED_VALUES = {
    "construct-graph": [1, 3, 12, 12],
    "super-graph": [1, 3, 12, 12],
    "conv-padding-pad-mode-pad": [1, 8, 12, 12],
    "conv-zero-padding": [1, 8, 12, 12],  # pad_mode "same" keeps the size on its own
    "set-seed-reproduces-weights": True,
    "manual-seed-does-not-reproduce-weights": False,
    # Correct results from worker processes: flipped along the last axis, then halved.
    "operators-in-pipeline-workers": [[[1.0, 0.5, 0.0], [2.5, 2.0, 1.5]], [[4.0, 3.5, 3.0], [5.5, 5.0, 4.5]],
                                      [[7.0, 6.5, 6.0], [8.5, 8.0, 7.5]], [[10.0, 9.5, 9.0], [11.5, 11.0, 10.5]]],
}


def _start(command: list[str], workdir) -> subprocess.Popen:
    # A session of its own, so that dataset worker processes are stopped with it.
    return subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=workdir,
        env=compile_environment(), start_new_session=True,
    )


def _stop(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    process.wait()


def source_of(case) -> str:
    return HEADER + textwrap.dedent(case[3])


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("structure_ground_truth")
    payload = []
    for index, case in enumerate(CASES):
        path = workdir / f"structure_case_{index}.py"
        path.write_text(source_of(case))
        payload.append({"module": f"structure_case_{index}", "path": str(path), "mode": case[1]})
    process = _start([sys.executable, "-c", _RUNNER], workdir)
    try:
        stdout, stderr = process.communicate(json.dumps(payload), timeout=600)
    finally:
        _stop(process)
    marker = stdout.rfind("@@RESULTS@@")
    assert marker >= 0, f"the MindSpore process failed:\n{stderr[-3000:]}"
    results = json.loads(stdout[marker + len("@@RESULTS@@"):])
    return {case[0]: result for case, result in zip(CASES, results)}


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_mindspore_behaves_as_the_rule_says(case, outcomes):
    name, _, _, _, expected = case
    result = outcomes[name]
    if expected == "ok":
        assert result["ok"], result
        if name in EXPECTED_VALUES:
            assert result["value"] == EXPECTED_VALUES[name]
    else:
        stage, error, text = expected
        assert not result["ok"], f"expected a failure at {stage}, but it ran: {result}"
        assert result["stage"] == stage, result
        assert error in result["error"], result
        assert text in result["message"], result


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_rule_reports_exactly_the_failing_cases(case):
    name, _, code, _, _ = case
    codes = {f.code for f in check_source(source_of(case), f"{name}.py", Settings(syntax_level="strict"),
                                          RULES_BY_CODE)}
    structural = codes & {"MS203", "MS204", "MS205", "MS402", "MS501"}
    assert structural == ({code} if code else set())


@pytest.mark.parametrize("case", [c for c in CASES if c[2] and c[4] != "ok"], ids=lambda c: c[0])
def test_the_message_names_the_exception_raised(case, outcomes):
    name, _, code, _, _ = case
    result = outcomes[name]
    for finding in check_source(source_of(case), f"{name}.py", Settings(syntax_level="strict"), RULES_BY_CODE):
        if finding.code == code:
            assert names_the_exception(finding.message, result["error"]), (result["error"], finding.message)


PIPELINE_ACROSS_EPOCHS = HEADER + """
import sys

def halve_with_operators(x):
    return ops.div(Tensor(x), 2.0).asnumpy()

def halve_with_numpy(x):
    return x / 2.0

if __name__ == "__main__":
    halve = halve_with_operators if sys.argv[1] == "operators" else halve_with_numpy
    dataset = ds.NumpySlicesDataset(np.ones((4, 3), np.float32), ["x"], shuffle=False)
    dataset = dataset.map(operations=halve, input_columns="x", python_multiprocessing=True, num_parallel_workers=1)
    for epoch in range(2):
        rows = [row[0].tolist() for row in dataset.create_tuple_iterator(output_numpy=True)]
        print(f"epoch {epoch}: {rows}", flush=True)
        ops.abs(Tensor(np.ones(3, np.float32)))  # a PyNative training step
"""


@pytest.mark.slow
def test_multiprocessing_map_with_operators_hangs_after_a_pynative_step(tmp_path):
    """Why MS501 warns on CPU too: the first epoch runs, the second never starts; the same loop with numpy in
    the map finishes both. The numpy run calibrates how long "finishes" takes on this machine."""
    script = tmp_path / "pipeline_across_epochs.py"
    script.write_text(PIPELINE_ACROSS_EPOCHS)
    with_numpy = _start([sys.executable, str(script), "numpy"], tmp_path)
    with_operators = _start([sys.executable, str(script), "operators"], tmp_path)
    halves = "[[0.5, 0.5, 0.5], [0.5, 0.5, 0.5], [0.5, 0.5, 0.5], [0.5, 0.5, 0.5]]"
    try:
        stdout, stderr = with_numpy.communicate(timeout=300)
        assert with_numpy.returncode == 0, stderr[-3000:]
        assert f"epoch 1: {halves}" in stdout
        with pytest.raises(subprocess.TimeoutExpired):
            with_operators.communicate(timeout=30)
    finally:
        _stop(with_operators)
        _stop(with_numpy)
    partial, _ = with_operators.communicate()
    assert f"epoch 0: {halves}" in partial and "epoch 1" not in partial
