"""Ground truth for MS133: ``^`` of two Python bools in graph code, compiled at STRICT and LAX."""
from __future__ import annotations

import textwrap

import pytest

from ms_lint.engine import check_file
from ms_lint.settings import Settings
from tests.mindspore_compile import compile_at_both_levels, names_the_exception

pytestmark = pytest.mark.mindspore

HEADER = """
import mindspore as ms
from mindspore import nn, ops
"""

# (id, source defining Net, whether the compile fails and MS133 reports it)
CASES = [
    ("is-none-xor", """
        class Net(nn.Cell):
            def construct(self, x, a=None, b=None):
                if (a is None) ^ (b is not None):
                    x = x + 1
                return x
    """, True),
    ("isinstance-xor", """
        class Net(nn.Cell):
            def construct(self, x, a=None):
                return x + 1 if isinstance(a, int) ^ (a is None) else x
    """, True),
    ("not-xor-literal", """
        class Net(nn.Cell):
            def construct(self, x, a=None):
                return x + 1 if (not (a is None)) ^ True else x
    """, True),
    ("bools-through-names", """
        class Net(nn.Cell):
            def construct(self, x, a=None, b=None):
                missing = a is None
                absent = b is None
                if missing ^ absent:
                    x = x + 1
                return x
    """, True),
    ("not-equal-instead", """
        class Net(nn.Cell):
            def construct(self, x, a=None, b=None):
                if (a is None) != (b is not None):
                    x = x + 1
                return x
    """, False),
    ("and-or-of-bools", """
        class Net(nn.Cell):
            def construct(self, x, a=None, b=None):
                if ((a is None) & (b is None)) | (a is not None):
                    x = x + 1
                return x
    """, False),
    ("xor-of-ints", """
        class Net(nn.Cell):
            def construct(self, x, a=3):
                return x + (a ^ 1)
    """, False),
    ("xor-of-bool-tensors", """
        class Net(nn.Cell):
            def construct(self, x):
                return (x > 0) ^ (x < 2)
    """, False),
]


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("bool_xor")
    return compile_at_both_levels(CASES, HEADER, workdir, [[2, 3]]), workdir


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_ms133_agrees_with_the_compiler(case, compiled):
    outcomes, workdir = compiled
    name, source, fails = case
    path = workdir / f"lint_{name}.py"
    path.write_text(HEADER + textwrap.dedent(source))
    for level, result in zip(("strict", "lax"), outcomes[name]):
        assert result.ok is not fails, (level, result.message[:500])
        if fails:
            assert result.error == "TypeError" and "BitXor" in result.message, result.message[:500]
        findings = [f for f in check_file(str(path), Settings(syntax_level=level)) if f.code == "MS133"]
        assert bool(findings) is fails, (level, [f.message for f in findings])
        for finding in findings:
            assert names_the_exception(finding.message, result.error), finding.message
