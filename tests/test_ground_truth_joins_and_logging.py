"""What MS120 (logging), MS121 (paths joining different types), MS108's item writes and MS116's inherited methods
claim, checked with the real MindSpore on CPU: each reported case fails or misbehaves, each negative twin compiles.
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ms_lint.engine import check_file
from ms_lint.settings import Settings
from tests.mindspore_compile import compile_cases, compile_environment, names_the_exception

pytestmark = pytest.mark.mindspore

HEADER = """
import logging
import numpy as np
import mindspore as ms
from mindspore import nn, ops

logger = logging.getLogger("ground_truth")
logger.setLevel(logging.INFO)
logger.propagate = False
CALLS = []


class _Recorder(logging.Handler):
    def emit(self, record):
        CALLS.append(record.getMessage())


logger.addHandler(_Recorder())
"""

# (id, code reported under STRICT or None, source, STRICT outcome, LAX outcome, whether ms-lint reports it under LAX)
COMPILE_CASES = [
    ("cast-on-one-branch", "MS121", """
        class Net(nn.Cell):
            def construct(self, x):
                if x.sum() > 0:
                    y = x.astype(ms.float16)
                else:
                    y = x
                return y
    """, "fail", "fail", True),
    ("cast-on-one-branch-of-the-name-itself", "MS121", """
        class Net(nn.Cell):
            def construct(self, x):
                h = ops.relu(x)
                if (h == 0).any():
                    h = h.astype(ms.float16)
                return h + 1
    """, "fail", "fail", True),
    ("two-dtypes", "MS121", """
        class Net(nn.Cell):
            def construct(self, x):
                if x.max() > 1:
                    y = ops.cast(x, ms.int32)
                else:
                    y = ops.cast(x, ms.float32)
                return y
    """, "fail", "fail", True),
    ("cast-returned-on-one-path", "MS121", """
        class Net(nn.Cell):
            def construct(self, x):
                if x.sum() > 0:
                    return x.to(ms.float16)
                return x
    """, "fail", "fail", True),
    ("cast-in-a-conditional-expression", "MS121", """
        class Net(nn.Cell):
            def construct(self, x):
                return x.astype(ms.float16) if x.sum() > 0 else x
    """, "fail", "fail", True),
    ("int-against-a-tensor", "MS121", """
        class Net(nn.Cell):
            def construct(self, x):
                total = x.sum()
                if total > 100:
                    loss = 0
                else:
                    loss = total * 2
                return loss
    """, "fail", "fail", True),
    ("number-before-an-if-on-data-a-parent-passes", "MS121", """
        class Block(nn.Cell):
            def construct(self, x):
                v = 0
                if x[0][0] > 0:
                    v = x * 2
                return v

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.block = Block()

            def construct(self, x):
                return self.block(ops.relu(x))
    """, "fail", "fail", True),
    ("wrapper-returning-two-dtypes-on-a-flag-a-parent-computes", "MS121", """
        class Wrap(nn.Cell):
            def construct(self, x, flag):
                if flag > 0:
                    return x.astype(ms.float16)
                return x

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.wrap = Wrap()

            def construct(self, x):
                return self.wrap(x, x.sum())
    """, "fail", "fail", True),
    ("wrapper-given-a-constant-flag", None, """
        class Wrap(nn.Cell):
            def construct(self, x, flag):
                if flag > 0:
                    return x.astype(ms.float16)
                return x

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.wrap = Wrap()

            def construct(self, x):
                return self.wrap(x, 1)
    """, "ok", "ok", False),
    ("none-against-a-tensor", "MS121", """
        class Net(nn.Cell):
            def construct(self, x):
                aux = None
                if x.sum() < 0:
                    aux = ops.relu(x)
                return aux
    """, "fail", "ok", False),
    ("joined-value-read-but-not-returned", "MS121", """
        class Net(nn.Cell):
            def construct(self, x):
                if x.sum() > 0:
                    y = x.astype(ms.float16)
                else:
                    y = x
                z = y * 2
                return x
    """, "fail", "ok", False),
    ("same-cast-on-both-paths", None, """
        class Net(nn.Cell):
            def construct(self, x):
                if x.sum() > 0:
                    y = x.astype(ms.float16)
                else:
                    y = (x * 2).astype(ms.float16)
                return y
    """, "ok", "ok", False),
    ("cast-under-self-training", None, """
        class Net(nn.Cell):
            def construct(self, x):
                if self.training:
                    y = x.astype(ms.float16)
                else:
                    y = x
                return y
    """, "ok", "ok", False),
    ("cast-under-a-none-test", None, """
        class Net(nn.Cell):
            def construct(self, x, mask=None):
                if mask is None:
                    y = x.astype(ms.float16)
                else:
                    y = x
                return y
    """, "ok", "ok", False),
    ("cast-under-a-dtype-or-shape-test", None, """
        class Net(nn.Cell):
            def construct(self, x):
                if x.dtype == ms.float32:
                    y = x.astype(ms.float16)
                else:
                    y = x
                if x.shape[0] == 2:
                    z = x.astype(ms.float16)
                else:
                    z = x
                return y, z
    """, "ok", "ok", False),
    ("cast-under-a-dtype-predicate", None, """
        class Net(nn.Cell):
            def construct(self, x):
                if x.is_floating_point():
                    y = x.astype(ms.float16)
                else:
                    y = x
                return y
    """, "ok", "ok", False),
    ("tuples-of-different-lengths", None, """
        class Net(nn.Cell):
            def construct(self, x):
                if x.sum() > 0:
                    y = (x, x)
                else:
                    y = (x,)
                return y[0]
    """, "ok", "ok", False),
    ("item-written-into-a-plain-dict", "MS108", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.cache = {}
            def construct(self, x):
                self.cache["k"] = x * 2
                return x + self.cache["k"]
    """, "fail", "ok", False),
    ("item-written-into-a-plain-list", "MS108", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.slots = [0, 0]
            def construct(self, x):
                self.slots[0] = x * 2
                return x + self.slots[0]
    """, "fail", "ok", False),
    ("construct-inherited-from-a-mixin", "MS116", """
        class Mixin:
            def construct(self, x):
                if x.sum() > 0:
                    z = x
                return z
        class Net(Mixin, nn.Cell):
            pass
    """, "fail", "fail", True),
    # A test of an attribute of an object the module binds (a configuration read at import time, a class, a
    # module) is folded before the branches are joined: only the branch kept binds the name.
    ("attribute-of-a-module-configuration-object", None, """
        class _Config:
            def __init__(self):
                self.device_target = "CPU"
        default_config = _Config()
        class Net(nn.Cell):
            def construct(self, x):
                if default_config.device_target == "Ascend":
                    y = x * 2
                elif default_config.device_target == "CPU":
                    y = x * 3
                return y
    """, "ok", "ok", False),
    ("attribute-of-a-module-class", None, """
        class Settings:
            target = "CPU"
        class Net(nn.Cell):
            def construct(self, x):
                if Settings.target == "CPU":
                    y = x * 3
                return y
    """, "ok", "ok", False),
    ("number-attribute-of-a-module-configuration", None, """
        import types
        config = types.SimpleNamespace(rate=0.0, flag=False)
        class Net(nn.Cell):
            def construct(self, x):
                if config.rate <= 0. and not config.flag:
                    y = x * 3
                return y
    """, "ok", "ok", False),
    ("attribute-of-an-imported-module", None, """
        import logging as options
        class Net(nn.Cell):
            def construct(self, x):
                if options.INFO > 0:
                    y = x * 3
                return y
    """, "ok", "ok", False),
    ("string-attribute-of-the-cell", None, """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.target = "CPU"
            def construct(self, x):
                if self.target == "Ascend":
                    y = x * 2
                elif self.target == "CPU":
                    y = x * 3
                return y
    """, "ok", "ok", False),
    # ... but a module's string itself, an attribute of an attribute, or a test of membership in a tuple joins
    ("module-string-itself", "MS116", """
        TARGET = "CPU"
        class Net(nn.Cell):
            def construct(self, x):
                if TARGET == "CPU":
                    y = x * 3
                return y
    """, "fail", "fail", True),
    ("attribute-of-an-attribute-of-a-configuration", "MS116", """
        import types
        config = types.SimpleNamespace(model=types.SimpleNamespace(target="CPU"))
        class Net(nn.Cell):
            def construct(self, x):
                if config.model.target == "CPU":
                    y = x * 3
                return y
    """, "fail", "fail", True),
    ("configuration-attribute-in-a-tuple", "MS116", """
        import types
        config = types.SimpleNamespace(target="CPU")
        class Net(nn.Cell):
            def construct(self, x):
                if config.target in ("CPU", "GPU"):
                    y = x * 3
                return y
    """, "fail", "fail", True),
    ("configuration-attribute-of-a-helper", None, """
        import types
        config = types.SimpleNamespace(target="CPU")
        def scale(x):
            if config.target == "CPU":
                y = x * 3
            return y
        class Net(nn.Cell):
            def construct(self, x):
                return scale(x)
    """, "ok", "ok", False),
]


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("joins")
    cases = []
    for _, _, source, _, _, _ in COMPILE_CASES:
        full = HEADER + textwrap.dedent(source)
        cases += [(full, "STRICT", [[2, 3]]), (full, "LAX", [[2, 3]])]
    results = compile_cases(cases, workdir)
    return {case[0]: (results[2 * i], results[2 * i + 1]) for i, case in enumerate(COMPILE_CASES)}, workdir


def _codes(path: Path, level: str, wanted: set[str]) -> set[str]:
    return {f.code for f in check_file(str(path), Settings(syntax_level=level)) if f.code in wanted}


@pytest.mark.parametrize("case", COMPILE_CASES, ids=[c[0] for c in COMPILE_CASES])
def test_the_rule_agrees_with_the_compiler(case, compiled):
    outcomes, workdir = compiled
    name, code, source, strict_outcome, lax_outcome, lax_reported = case
    strict, lax = outcomes[name]
    assert ("ok" if strict.ok else "fail") == strict_outcome, strict.message[:500]
    assert ("ok" if lax.ok else "fail") == lax_outcome, lax.message[:500]
    if code == "MS121" and not strict.ok:
        assert "Cannot join" in strict.message or "should be constant" in strict.message, strict.message[:500]
    if code == "MS121" and not lax.ok:
        assert "Cannot join the return values of different branches" in lax.message, lax.message[:500]
    if code == "MS108":
        assert strict.error == "TypeError" and "assign subscript" in strict.message, strict.message[:500]
    path = workdir / f"lint_{name}.py"
    path.write_text(HEADER + textwrap.dedent(source))
    ours = {"MS108", "MS116", "MS120", "MS121"}
    assert _codes(path, "strict", ours) == ({code} if code else set())
    assert _codes(path, "lax", ours) == ({code} if lax_reported else set())
    for level, result, reported in (("strict", strict, True), ("lax", lax, lax_reported)):
        if code and reported and not result.ok:
            for finding in check_file(str(path), Settings(syntax_level=level)):
                if finding.code == code:
                    assert names_the_exception(finding.message, result.error), (level, result.error, finding.message)


def test_a_method_of_a_mixin_of_another_module_is_compiled_with_the_cell(tmp_path):
    (tmp_path / "mixin_module.py").write_text(textwrap.dedent("""
        class ScaleMixin:
            def prepare(self, x, mask=None):
                if mask is not None:
                    scale = mask.sum()
                return x * scale

        class ConstructMixin:
            def construct(self, x):
                for index in range(2):
                    last = x * index
                return last
    """))
    calls = HEADER + textwrap.dedent("""
        from mixin_module import ScaleMixin
        class Net(ScaleMixin, nn.Cell):
            def construct(self, x):
                return self.prepare(x)
    """)
    inherits = HEADER + textwrap.dedent("""
        from mixin_module import ConstructMixin
        class Net(ConstructMixin, nn.Cell):
            pass
    """)
    results = compile_cases([(calls, "STRICT", [[2, 3]]), (calls, "LAX", [[2, 3]]), (inherits, "STRICT", [[2, 3]]),
                             (inherits, "LAX", [[2, 3]])], tmp_path)
    for result in results[:2]:
        assert result.error == "UnboundLocalError" and "'scale' is not defined in false branch" in result.message
        assert "mixin_module.py" in result.message
    for result in results[2:]:
        assert result.error == "UnboundLocalError" and "'last' defined in the 'for' loop body" in result.message
    # reported in the file that holds the mixins, each naming the Cell whose construct compiles it
    findings = [f for f in check_file(str(tmp_path / "mixin_module.py"), Settings(mode="graph")) if f.code == "MS116"]
    assert [(f.data["name"], f.data["function"]) for f in findings] == [
        ("scale", "ScaleMixin.prepare"), ("last", "ConstructMixin.construct")]
    for finding, name, case in zip(findings, ("scale", "last"), ("case_0.py", "case_2.py")):
        assert finding.message.startswith(f"`{name}` ")  # the validator matches MindSpore's name against it
        assert finding.message.endswith(f"(compiled by Net.construct ({case}))")


_RUNNER = r'''
import importlib.util, json, os, sys
import numpy as np
import mindspore as ms
results = []
for case in json.load(sys.stdin):
    if case["mode"] == "graph":
        ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=getattr(ms, case["level"]))
    else:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    name = os.path.basename(case["path"])[:-3]
    spec = importlib.util.spec_from_file_location(name, case["path"])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
        net = module.Net()
        outputs = [float(net(ms.Tensor(np.full((2, 3), i + 1, np.float32))).asnumpy().ravel()[0]) for i in range(3)]
        results.append({"ok": True, "outputs": outputs, "records": len(module.CALLS)})
    except BaseException as exc:
        results.append({"ok": False, "error": type(exc).__name__, "message": str(exc)[:1000]})
print("@@RESULTS@@" + json.dumps(results))
'''


def _run_three_calls(source: str, runs: list[tuple[str, str]], workdir: Path) -> list[dict]:
    """Build ``Net`` and call it on three different inputs, per (mode, level): outputs and how many log records."""
    payload = []
    for index, (mode, level) in enumerate(runs):
        path = workdir / f"calls_{index}.py"
        path.write_text(source)
        payload.append({"path": str(path), "mode": mode, "level": level})
    completed = subprocess.run([sys.executable, "-c", _RUNNER], input=json.dumps(payload), capture_output=True,
                               text=True, cwd=workdir, timeout=600, env=compile_environment())
    marker = completed.stdout.rfind("@@RESULTS@@")
    assert marker >= 0, completed.stderr[-3000:]
    return json.loads(completed.stdout[marker + len("@@RESULTS@@"):])


_RUNS = [("graph", "STRICT"), ("graph", "LAX"), ("pynative", "LAX")]


def test_a_logging_call_runs_once_while_compiling(tmp_path):
    source = HEADER + textwrap.dedent("""
        class Net(nn.Cell):
            def construct(self, x):
                logger.info("step")
                if x.sum() > 100:
                    logger.warning("large input")  # never true for these inputs
                return x * 2
    """)
    strict, lax, eager = _run_three_calls(source, _RUNS, tmp_path)
    assert strict["ok"] and lax["ok"] and eager["ok"]
    assert strict["records"] == lax["records"] == 2  # one "step" and the false warning, both at compile time
    assert eager["records"] == 3
    path = tmp_path / "lint_logging.py"
    path.write_text(source)
    for level in ("strict", "lax"):
        findings = [f for f in check_file(str(path), Settings(syntax_level=level)) if f.code == "MS120"]
        assert [f.data["call"] for f in findings] == ["logger.info", "logger.warning"]
        assert "condition_line" in findings[1].data


def test_a_logging_call_with_tensor_data_runs_every_call_under_lax(tmp_path):
    source = HEADER + textwrap.dedent("""
        class Net(nn.Cell):
            def construct(self, x):
                logger.info("mean %s", x.mean())
                return x * 2
    """)
    strict, lax, eager = _run_three_calls(source, _RUNS, tmp_path)
    assert not strict["ok"] and "should be constant" in strict["message"]
    assert lax["ok"] and lax["records"] == eager["records"] == 3
    path = tmp_path / "lint_tensor_logging.py"
    path.write_text(source)
    assert {f.code for f in check_file(str(path), Settings(syntax_level="strict"))} == {"MS115"}
    assert {f.code for f in check_file(str(path), Settings(syntax_level="lax"))} == set()


def test_a_dict_cache_filled_in_construct_is_filled_again_every_call_under_lax(tmp_path):
    source = HEADER + textwrap.dedent("""
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.cache = {}
            def construct(self, x):
                if "k" not in self.cache:
                    self.cache["k"] = x * 2
                return x + self.cache["k"]
    """)
    strict, lax, eager = _run_three_calls(source, _RUNS, tmp_path)
    assert not strict["ok"] and strict["error"] == "TypeError"
    assert eager["outputs"] == [3.0, 4.0, 5.0]  # PyNative keeps the first call's value
    assert lax["outputs"] == [3.0, 6.0, 9.0]  # the graph computes it again on every call
    path = tmp_path / "lint_cache.py"
    path.write_text(source)
    for level in ("strict", "lax"):
        assert [f.code for f in check_file(str(path), Settings(syntax_level=level))] == ["MS108"]
