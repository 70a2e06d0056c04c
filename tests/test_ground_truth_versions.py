"""What MS610, MS611 and MS612 claim, run with the installed MindSpore (2.10.0 here; 2.7.0 to 2.9.0 under nox).

Each call is run in PyNative and compiled in GRAPH_MODE inside a Cell, in one subprocess for all; the rules are
asked at the installed version's tables, so that what they report is what that version does: MS610 reports a call
exactly where it raises TypeError in PyNative and fails to compile in graph mode, MS611's numpy-style ``repeat``
fails on CPU where it is reported and
``repeat_interleave`` gives numpy's result, MS612's calls still run and MindSpore warns about them.
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from ms_lint import mindspore_api as api
from ms_lint.engine import check_source
from ms_lint.settings import Settings
from ms_lint.target import installed_mindspore
from tests.mindspore_compile import compile_cases, compile_environment

pytestmark = pytest.mark.mindspore

INSTALLED = installed_mindspore()
# (name, the call with ``x`` a 2x3 float32 tensor, whether MS610 reports it at the installed version)
CALLS = [
    ("pytorch-dim-on-ops-softmax", "ops.softmax(x, dim=-1)", True),
    ("ops-softmax-axis", "ops.softmax(x, axis=-1)", False),
    ("mindspore-axis-on-ops-sum", "ops.sum(x, axis=1)", True),
    ("ops-sum-dim", "ops.sum(x, dim=1, keepdim=True)", False),
    ("mindspore-axis-on-mint-cat", "mint.cat((x, x), axis=0)", True),
    ("pytorch-dim-on-ops-cat", "ops.cat((x, x), dim=0)", True),
    ("mint-cat-dim-twice", "mint.cat(x, x, dim=0)", True),
    ("ops-argmax-four-arguments", "ops.argmax(x, 1, True, 4)", True),
    ("ops-where-one-argument", "ops.where(x > 0)", True),
    ("ops-transpose-input-perm", "ops.transpose(x, input_perm=(1, 0))", api._release(INSTALLED) >= (2, 7, 1)),
    ("ops-transpose-dims", "ops.transpose(x, dims=(1, 0))", api._release(INSTALLED) < (2, 7, 1)),
    ("ops-transpose-positional", "ops.transpose(x, (1, 0))", False),
    ("tensor-sum-axis-and-keepdim", "x.sum(axis=1, keepdim=True)", True),
    ("tensor-sum-axis-and-keepdims", "x.sum(axis=1, keepdims=True)", False),
    ("tensor-mean-dim-and-keep-dims", "x.mean(dim=0, keep_dims=True)", True),
    ("tensor-softmax-dim", "x.softmax(dim=-1)", True),
    ("tensor-permute-separate-axes", "x.permute(1, 0)", False),
    ("mint-argmax-axis", "mint.argmax(x, axis=1)", True),
    ("mint-nn-relu-inplace", "mint.nn.ReLU(True)", True),
    # MindSpore 1.x keywords and PyTorch's, as the development corpus writes them
    ("ops-interpolate-sizes", "ops.interpolate(x.reshape(1, 1, 2, 3), sizes=(4, 6))", True),
    ("ops-split-output-num", "ops.split(x, axis=1, output_num=3)", True),
    ("ops-ones-type", "ops.ones((2,), type=ms.float32)", True),
    ("ops-conv2d-group", "ops.conv2d(x.reshape(1, 1, 2, 3), x.reshape(1, 1, 2, 3), group=1)", True),
    ("ops-bernoulli-x", "ops.bernoulli(x=x, p=0.5)", True),
    ("tensor-clip-xmin", "x.clip(xmin=0, xmax=1)", True),
    ("tensor-var-unbiased", "x.var(unbiased=False)", True),
    ("tensor-norm-p", "x.norm(p=2)", True),
    ("mint-ones-dtype-by-position", "mint.ones((2, 3), ms.float32)", True),
    ("mint-arange-device", "mint.arange(3, device='cpu')", True),
    ("ops-softmax-primitive-dim", "ops.Softmax(dim=-1)", True),
    ("ops-dropout-primitive-p", "ops.Dropout(p=0.1)", True),
    ("load-checkpoint-map-location", "ms.load_checkpoint('missing.ckpt', map_location='cpu')", True),
]
# Built in __init__ or on the host, not in construct
NOT_GRAPH = {"mint-nn-relu-inplace", "ops-softmax-primitive-dim", "ops-dropout-primitive-p",
             "load-checkpoint-map-location"}


def _pynative_runner(calls: list[tuple[str, str]]) -> str:
    body = "\n".join(
        f"try:\n    {expr}\n    results[{name!r}] = 'ok'\nexcept Exception as exc:\n"
        f"    results[{name!r}] = type(exc).__name__" for name, expr in calls)
    return ("import json, warnings\nwarnings.simplefilter('ignore')\nimport numpy as np\nimport mindspore as ms\n"
            "from mindspore import Tensor, mint, nn, ops\nx = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))\n"
            f"results = {{}}\n{body}\nprint('@@' + json.dumps(results))\n")


def run_pynative(calls: list[tuple[str, str]], tmp_path) -> dict[str, str]:
    script = tmp_path / "pynative.py"
    script.write_text(_pynative_runner(calls))
    completed = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path,
                               timeout=600, env=compile_environment())
    marker = completed.stdout.rfind("@@")
    assert marker >= 0, completed.stderr[-3000:]
    return json.loads(completed.stdout[marker + 2:])


HEADER = "import numpy as np\nimport mindspore as ms\nfrom mindspore import Tensor, mint, nn, ops\n"


def _cell(expr: str) -> str:
    return HEADER + textwrap.dedent(f"""
        class Net(nn.Cell):
            def construct(self, x):
                return {expr}
    """)


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("versions")
    pynative = run_pynative([(name, expr) for name, expr, _ in CALLS], workdir)
    graph_cases = [(name, expr) for name, expr, _ in CALLS if name not in NOT_GRAPH]
    compiled = compile_cases([(_cell(expr), "LAX", [[2, 3]]) for _, expr in graph_cases], workdir)
    return pynative, {name: result for (name, _), result in zip(graph_cases, compiled)}


def _ms610(expr: str, version: str = INSTALLED) -> list:
    source = HEADER + textwrap.dedent(f"""
        class Net(nn.Cell):
            def construct(self, x):
                return {expr}
    """)
    return [f for f in check_source(source, "case.py", Settings(version=version)) if f.code == "MS610"]


@pytest.mark.parametrize("name, expr, reported", CALLS, ids=[c[0] for c in CALLS])
def test_ms610_reports_a_call_exactly_where_the_installed_version_raises_type_error(name, expr, reported, outcomes):
    pynative, graph = outcomes
    assert (pynative[name] == "TypeError") == reported, pynative[name]
    if name in graph:  # the compile fails at the call: RuntimeError from the graph's own binding, or TypeError
        assert (not graph[name].ok and graph[name].error in ("TypeError", "RuntimeError")) == reported, \
            graph[name].message[:400]
        assert graph[name].ok != reported, graph[name].message[:400]
    assert bool(_ms610(expr)) == reported


def test_the_renamed_keyword_s_fix_runs_where_the_call_failed(tmp_path):
    from ms_lint.fixes import fix_source

    source = HEADER + "y = ops.transpose(x, input_perm=(1, 0))\n"
    fixed = fix_source(source, "case.py", Settings(version="2.10.0"), codes={"MS610"}).fixed
    assert "ops.transpose(x, dims=(1, 0))" in fixed
    back = fix_source(fixed, "case.py", Settings(version="2.7.0"), codes={"MS610"}).fixed
    assert "ops.transpose(x, input_perm=(1, 0))" in back
    expected = "dims" if api._release(INSTALLED) >= (2, 7, 1) else "input_perm"
    call = f"ops.transpose(x, {expected}=(1, 0))"
    assert run_pynative([("fixed", call)], tmp_path) == {"fixed": "ok"}
    assert compile_cases([(_cell(call), "LAX", [[2, 3]])], tmp_path)[0].ok


# ------------------------------------------------------------------------------------------------------- MS611

REPEATS = [
    ("numpy-keyword", "x.repeat(2, axis=0)"),
    ("one-repeat-on-a-matrix", "x.repeat(2)"),
    ("numpy-axis-by-position", "x.repeat(2, 1)"),
    ("interleave-along-an-axis", "x.repeat_interleave(2, 0)"),
    ("interleave-flat", "x.repeat_interleave(2)"),
]


@pytest.fixture(scope="module")
def repeated(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("repeat")
    script = workdir / "repeat.py"
    script.write_text(
        "import json, warnings\nwarnings.simplefilter('ignore')\nimport numpy as np\nimport mindspore as ms\n"
        "x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))\nresults = {}\n" + "\n".join(
            f"try:\n    results[{name!r}] = {expr}.asnumpy().tolist()\nexcept Exception as exc:\n"
            f"    results[{name!r}] = type(exc).__name__" for name, expr in REPEATS)
        + "\nprint('@@' + json.dumps(results))\n")
    completed = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=workdir,
                               timeout=600, env=compile_environment())
    pynative = json.loads(completed.stdout[completed.stdout.rfind("@@") + 2:])
    compiled = compile_cases([(_cell(expr), "LAX", [[2, 3]]) for _, expr in REPEATS], workdir)
    return pynative, dict(zip((name for name, _ in REPEATS), compiled))


def test_numpy_style_repeat_fails_on_cpu_in_both_modes_and_repeat_interleave_gives_numpy_s_result(repeated):
    pynative, graph = repeated
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    # 2.7.0 and later: Tensor.repeat is the tile; CPU runs none of its forms, axis= is refused by keyword.
    assert pynative["numpy-keyword"] == "TypeError" and graph["numpy-keyword"].error == "TypeError"
    assert pynative["one-repeat-on-a-matrix"] == "RuntimeError" and pynative["numpy-axis-by-position"] == "RuntimeError"
    assert graph["one-repeat-on-a-matrix"].error == "ValueError"  # one repeat for a 2-D tensor
    assert "number of items of repeats" in graph["one-repeat-on-a-matrix"].message
    assert not graph["numpy-axis-by-position"].ok
    assert pynative["interleave-along-an-axis"] == np.repeat(data, 2, axis=0).tolist()
    assert pynative["interleave-flat"] == np.repeat(data, 2).tolist()
    assert graph["interleave-along-an-axis"].ok and graph["interleave-flat"].ok


def test_ms611_reports_the_numpy_forms_and_its_fix_is_repeat_interleave():
    from ms_lint.fixes import fix_source

    source = HEADER + textwrap.dedent("""
        class Net(nn.Cell):
            def construct(self, x):
                return x.repeat(2, axis=0) + x.view(2, 3, 1, 1).repeat(2, 1).sum() + x.repeat(2, 1, 1)
    """)
    findings = [f for f in check_source(source, "case.py", Settings(version=INSTALLED)) if f.code == "MS611"]
    assert [f.data["evidence"].split(" ")[0] for f in findings] == ["axis=", "2"]
    fixed = fix_source(source, "case.py", Settings(version=INSTALLED), codes={"MS611"}).fixed
    assert "x.repeat_interleave(2, 0) + x.view(2, 3, 1, 1).repeat_interleave(2, 1).sum() + x.repeat(2, 1, 1)" in fixed


SUB_CELLS = HEADER + textwrap.dedent("""
    import mindspore.numpy as mnp


    class Encoder(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(4, 8)
            self.tanh = nn.Tanh()

        def construct(self, feat):
            feat = mnp.transpose(feat, axes=(0, 2, 1))
            return self.tanh(self.dense(feat))


    class Decoder(nn.Cell):
        def construct(self, cfeat):
            return cfeat.{call}


    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.encoder = Encoder()
            self.decoder = Decoder()

        def construct(self, feat):
            return self.decoder(self.encoder(feat))
""")


def test_two_repeats_on_a_rank_3_value_a_parent_passes_from_its_sub_cells_fail_and_ms611_reports_them(tmp_path):
    """The rank comes from another Cell: the parent passes the encoder's output (a transpose to 3 axes, then
    rank-keeping layers) to the decoder's ``construct``. The tile refuses 2 repeats for it at both levels;
    ``repeat_interleave`` with the same arguments compiles; MS611 reports the first only."""
    numpy_form, interleaved = (SUB_CELLS.replace("{call}", call)
                               for call in ("repeat(3, 1)", "repeat_interleave(3, 1)"))
    results = compile_cases([(numpy_form, "STRICT", [[2, 4, 5]]), (numpy_form, "LAX", [[2, 4, 5]]),
                             (interleaved, "STRICT", [[2, 4, 5]])], tmp_path)
    for failed in results[:2]:
        assert not failed.ok and failed.error == "ValueError", failed.message[:300]
        assert "number of items of repeats" in failed.message
    assert results[2].ok, results[2].message[:300]
    codes = [f.code for f in check_source(numpy_form, "case.py", Settings(version=INSTALLED))]
    assert codes.count("MS611") == 1
    assert "MS611" not in [f.code for f in check_source(interleaved, "case.py", Settings(version=INSTALLED))]


# ------------------------------------------------------------------------------------------------------- MS612

DEPRECATED = [
    ("mindspore.ops.padding", "ops.padding(ms.Tensor(np.ones((2, 1), np.float32)), 4)"),
    ("mindspore.ops.unique_with_pad", "ops.unique_with_pad(ms.Tensor(np.array([1, 1, 2], np.int32)), 0)"),
]


@pytest.mark.parametrize("qualname, call", DEPRECATED, ids=[name for name, _ in DEPRECATED])
def test_a_deprecated_call_runs_and_mindspore_warns_as_ms612_says(qualname, call, tmp_path):
    found = api.deprecation(qualname, INSTALLED)
    source = f"from mindspore import ops\ny = {call}\n"
    findings = [f for f in check_source(source, "case.py", Settings(version=INSTALLED), ["MS612"])]
    assert [f.data["since"] for f in findings] == ([found[0]] if found else [])
    script = tmp_path / "deprecated.py"
    script.write_text(f"import numpy as np\nimport mindspore as ms\nfrom mindspore import ops\nprint({call})\n")
    environment = {**compile_environment(), "GLOG_v": "2"}
    completed = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path,
                               timeout=600, env=environment)
    assert completed.returncode == 0, completed.stderr[-2000:]  # deprecated, still there
    warned = f"is deprecated from version {found[0]}" in completed.stderr + completed.stdout if found else None
    assert warned in (True, None)


def test_an_optimizer_s_keywords_are_its_wrapped_constructor_s_and_ms604_reports_them(tmp_path):
    call = "nn.SGD(nn.Dense(2, 2).trainable_params(), lr=0.1)"
    assert run_pynative([("sgd", call)], tmp_path) == {"sgd": "TypeError"}
    source = HEADER + f"optimizer = {call}\n"
    codes = [f.code for f in check_source(source, "case.py", Settings(version=INSTALLED))]
    assert codes == ["MS604"]  # the layer rule's, not MS610's too
