"""A sub-cell's ``construct`` whose callers never pass ``mask`` (its default ``None``): graph mode folds ``if mask
is not None:`` and ``if exists(mask):`` (a helper returning ``val is not None``), so the branch, which reassigns
``mask`` and calls ``mask.repeat(2, axis=0)`` (TypeError from 2.7.0), is never compiled; passing a mask compiles it
and fails; callers that pass several constants (``"a"``, ``"b"``) leave ``if mask == "c":`` uncompiled, one that
passes ``"c"`` compiles it; callers that all pass a tensor (``x * 2``) leave ``if mask is None:`` uncompiled.
Checked with the real MindSpore compile (CPU, STRICT and LAX; measured alike on 2.10.0
and 2.7.1), and ms-lint reports MS611 exactly where the branch is compiled."""
from __future__ import annotations

import pytest

from ms_lint.engine import check_source
from ms_lint.settings import Settings
from tests.mindspore_compile import compile_cases
from tests.test_folded_arguments import SOURCE

pytestmark = pytest.mark.mindspore


# (id, the branch's test, the sub-cell's call, whether the compile succeeds)
CASES = [
    ("is-not-none-never-passed", "mask is not None", "self.attn(x)", True),
    ("helper-never-passed", "exists(mask)", "self.attn(x)", True),
    ("is-not-none-passed", "mask is not None", "self.attn(x, x)", False),
    ("helper-passed", "exists(mask)", "self.attn(x, x)", False),
    # callers that pass several constants: each call compiles with its own, and a branch none takes is compiled by none
    ("several-constants-none-takes", 'mask == "c"', 'self.attn(x, "a") + self.attn(x, "b")', True),
    ("several-constants-one-takes", 'mask == "c"', 'self.attn(x, "a") + self.attn(x, "c")', False),
    # callers that pass a tensor: ``mask is None`` folds to False, so its branch is compiled by none
    ("is-none-tensor-passed", "mask is None", "self.attn(x, x * 2)", True),
    ("is-not-none-tensor-passed", "mask is not None", "self.attn(x, x * 2)", False),
    ("is-none-tensor-or-nothing-passed", "mask is None", "self.attn(x) + self.attn(x, x * 2)", False),
]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    cases = []
    for _, test, call, _ in CASES:
        source = SOURCE.format(test=test, before="", call=call)
        cases += [(source, "STRICT", [[2, 3]]), (source, "LAX", [[2, 3]])]
    results = compile_cases(cases, tmp_path_factory.mktemp("ground_truth_folded_arguments"))
    return {case[0]: (results[2 * i], results[2 * i + 1]) for i, case in enumerate(CASES)}


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_a_branch_on_an_argument_no_caller_passes_is_not_compiled(case, outcomes):
    name, test, call, compiles = case
    strict, lax = outcomes[name]
    assert strict.ok is compiles, strict.message[:500]
    assert lax.ok is compiles, lax.message[:500]
    source = SOURCE.format(test=test, before="", call=call)
    for level in ("strict", "lax"):
        codes = {f.code for f in check_source(source, "case.py", Settings(syntax_level=level, version="2.10.0"))}
        assert codes == (set() if compiles else {"MS611"})
