"""A condition on a buffer, a one-element tensor a Cell holds that is no Parameter (``self.flag = Tensor(False)``,
``self.scale = Tensor(0.5)`` set in ``__init__``), is folded by the value the buffer holds when the graph is built:
the branch it rules out is never compiled, so a line there that fails to compile under STRICT compiles; the branch
it takes is compiled and fails. A Parameter's value is read when the graph runs: both sides are compiled. Checked
with the real MindSpore compile (CPU, STRICT; measured alike on 2.10.0 and 2.7.1): what ``ms-lint validate``
folds such conditions by (``ms_lint.validate.condition_values``), a reduction of a one-element buffer
(``self.x_min.min() > -1.1e-5``) and a buffer ``register_buffer`` keeps included."""
from __future__ import annotations

import pytest

from tests.mindspore_compile import compile_cases

pytestmark = pytest.mark.mindspore

SOURCE = """\
import numpy as np
import mindspore as ms
from mindspore import Parameter, Tensor, mint, nn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        {store}

    def construct(self, x):
        if {test}:
            x = Tensor(np.sin(x.asnumpy()))
        return x + 1
"""

# (id, how the Cell holds it, the condition, whether the compile succeeds)
CASES = [
    ("min-of-buffer-true", "Tensor([-1e-5], ms.float32)", "self.held.min() > -1.1e-5", False),
    ("min-of-buffer-false", "Tensor([-1.0], ms.float32)", "self.held.min() > -1.1e-5", True),
    ("registered-buffer-true", "register:mint.zeros(1) - 1e-5", "self.held.max() > -1.1e-5", False),
    ("registered-buffer-false", "register:mint.zeros(1) - 1.0", "self.held.max() > -1.1e-5", True),
    ("bool-buffer-false", "Tensor(False)", "self.held", True),
    ("bool-buffer-true", "Tensor(True)", "self.held", False),
    ("int-buffer-zero", "Tensor(0)", "self.held", True),
    ("float-buffer-compared-false", "Tensor(-1.0, ms.float32)", "self.held > 0", True),
    ("float-buffer-compared-true", "Tensor(1.0, ms.float32)", "self.held > 0", False),
    ("parameter-compared", "Parameter(Tensor(-1.0, ms.float32), name='held')", "self.held > 0", False),
]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    cases = [(SOURCE.format(store=_store(held), test=test), "STRICT", [[3]]) for _, held, test, _ in CASES]
    results = compile_cases(cases, tmp_path_factory.mktemp("ground_truth_buffer_conditions"))
    return {case[0]: result for case, result in zip(CASES, results)}


def _store(held: str) -> str:
    if held.startswith("register:"):
        return f'self.register_buffer("held", {held[len("register:"):]})'
    return f"self.held = {held}"


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_a_condition_on_a_buffer_folds_by_its_value_and_one_on_a_parameter_does_not(case, outcomes):
    name, _, _, compiles = case
    result = outcomes[name]
    assert result.ok is compiles, result.message[:500]
    if not compiles:
        assert result.error == "AttributeError" and "asnumpy" in result.message, result.message[:500]
