"""What the validator's markers show (``fixing.marked_lines``): a statement replaced by a call of a module function
that raises a constant error stops the compile there when, and only when, the graph holds the statement; a
``@jit_class`` method or a helper that the Cell's graph never calls is not compiled, so its marker never raises.
Real compiles, CPU, STRICT and LAX (measured alike on 2.10.0 and 2.7.1)."""
from __future__ import annotations

import pytest

from ms_lint.validate.fixing import MARKER_MESSAGE, marked_lines, marker_line
from tests.mindspore_compile import compile_cases

pytestmark = pytest.mark.mindspore

SOURCE = """\
import mindspore as ms
import numpy as np
from mindspore import nn


@ms.jit_class
class Helper:
    def __init__(self):
        self.k = 2

    def used(self, x):
        y = x * self.k
        return y

    def unused(self, x):
        z = np.sin(x)
        return z


def called(x):
    w = x + 1
    return w


def never_called(x):
    v = x - 1
    return v


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.helper = Helper()

    def construct(self, x):
        return called(self.helper.used(x)) * 2
"""


def _line(text: str) -> int:
    return next(number for number, line in enumerate(SOURCE.splitlines(), 1) if text in line)


CASES = [  # (id, the statements marked, the marked line the compile stops at or None)
    ("a-jit-class-method-the-graph-calls", ["y = x * self.k"], "y = x * self.k"),
    ("a-jit-class-method-only-host-code-calls", ["z = np.sin(x)"], None),
    ("a-helper-the-graph-calls", ["w = x + 1"], "w = x + 1"),
    ("a-helper-nothing-calls", ["v = x - 1"], None),
    ("only-the-reached-one-of-several-raises", ["z = np.sin(x)", "v = x - 1", "w = x + 1"], "w = x + 1"),
]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    cases = []
    for _, texts, _ in CASES:
        source, marked = marked_lines(SOURCE, "case.py", [_line(text) for text in texts])
        assert sorted(marked) == sorted(_line(text) for text in texts)
        cases += [(source, "STRICT", [[2, 3]]), (source, "LAX", [[2, 3]])]
    results = compile_cases(cases, tmp_path_factory.mktemp("ground_truth_markers"))
    return {case[0]: (results[2 * i], results[2 * i + 1]) for i, case in enumerate(CASES)}


@pytest.mark.parametrize("case", CASES, ids=[case[0] for case in CASES])
def test_a_marker_raises_at_compile_only_where_the_graph_holds_its_line(case, outcomes):
    name, _, stops_at = case
    for result in outcomes[name]:
        if stops_at is None:
            assert result.ok, result.message[:500]
        else:
            assert not result.ok and MARKER_MESSAGE in result.message, result.message[:500]
            assert marker_line(result.message) == _line(stops_at)
