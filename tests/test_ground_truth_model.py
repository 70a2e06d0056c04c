"""What the model claims about MindSpore, checked with the real MindSpore 2.10 compile on CPU: branches the parser
folds away, what user objects keep, and which parameters are no tensors. Each case is linted at both syntax levels
and compiled at both; one subprocess compiles every case."""
from __future__ import annotations

import json
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
import math
from typing import Optional
import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor
"""

# (id, code reported, source, STRICT outcome, LAX outcome). An outcome is "fail" (the first call raises), "ok" (it
# runs), or "silent" (it runs, and the module's ``evidence(net)`` shows what graph mode lost). The code is
# expected at a level whose outcome is not "ok". ``arguments(x)``, when defined, gives the call's arguments.
CASES = [
    ("early-return-on-a-flag-default", None, """
        class Net(nn.Cell):
            def construct(self, x, return_dict: bool = False):
                if not return_dict:
                    return x * 2
                return np.sin(x)
    """, "ok", "ok"),
    ("flag-fixed-in-init", None, """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.use_numpy = False
            def construct(self, x):
                if self.use_numpy:
                    return np.sin(x)
                return x
    """, "ok", "ok"),
    ("flag-folded-from-another-attribute", None, """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.backend = "ms"
                self.use_numpy = self.backend == "np"
            def construct(self, x):
                if self.use_numpy:
                    return np.sin(x)
                return x
    """, "ok", "ok"),
    ("and-decided-by-a-leading-false-flag", None, """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.implementation = "eager"
                self.use_sdpa = self.implementation == "sdpa"
            def construct(self, x, output_attentions=False):
                if self.use_sdpa and not output_attentions:
                    out = x + 1
                else:
                    probs = x * 2
                    out = probs + 1
                if output_attentions:
                    return out, probs
                return out
    """, "ok", "ok"),
    ("and-with-the-flag-after-an-argument-joins", "MS116", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.use_sdpa = False
            def construct(self, x, output_attentions=False):
                if not output_attentions and self.use_sdpa:
                    out = x + 1
                else:
                    probs = x * 2
                    out = probs + 1
                if output_attentions:
                    return out, probs
                return out
    """, "fail", "fail"),
    ("and-a-true-flag-leaves-to-the-graph-joins", "MS116", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.use_sdpa = True
            def construct(self, x, output_attentions=False):
                if self.use_sdpa and not output_attentions:
                    out = x + 1
                else:
                    probs = x * 2
                    out = probs + 1
                if output_attentions:
                    return out, probs
                return out
    """, "fail", "fail"),
    # A cache of what the input's shapes decide: LAX compiles again for each new shape, so every call returns what
    # PyNative computes (``evidence`` raises if not); STRICT refuses the attribute write.
    ("cache-of-what-shapes-decide", "MS108", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.inv_freq = Tensor(np.array([1.0, 0.5], np.float32))
                self.cached_length = None
                self.cached = None
            def construct(self, x):
                length = x.shape[1]
                if length == self.cached_length and self.cached is not None:
                    return self.cached
                self.cached_length = length
                steps = ops.arange(length).astype(ms.float32)
                self.cached = ops.outer(steps, self.inv_freq).cos().astype(x.dtype)
                return self.cached
        def evidence(net):
            for length in (4, 6, 4, 6):
                got = net(Tensor(np.ones((1, length), np.float32))).asnumpy()
                want = np.cos(np.outer(np.arange(length), [1.0, 0.5]))
                assert got.shape == want.shape and np.allclose(got, want, atol=1e-5), (length, got)
            return None
    """, "fail", "ok"),
    ("cache-of-the-input-data", "MS108", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.cached_length = None
                self.cached = None
            def construct(self, x):
                length = x.shape[1]
                if length == self.cached_length and self.cached is not None:
                    return self.cached
                self.cached_length = length
                self.cached = x * 2
                return self.cached
        def evidence(net):
            outputs = [net(Tensor(np.full((1, n), v, np.float32))).asnumpy() for n, v in ((4, 1.0), (6, 1.0), (4, 3.0))]
            return bool(np.allclose(outputs[2], 2.0))  # PyNative computes 6.0 again: the length changed in between
    """, "fail", "silent"),
    ("python-float-from-a-helper", "MS108", """
        def scale_of(n):
            return 1.0 / math.sqrt(n)
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.scaling = 1.0
                self.seen = 0
            def construct(self, x):
                n = x.shape[1]
                if n > self.seen:
                    self.scaling = scale_of(n)
                    self.seen = n
                return x * self.scaling
        def evidence(net):
            for n in (4, 9):
                got = net(Tensor(np.ones((1, n), np.float32))).asnumpy()
                assert np.allclose(got, 1.0 / math.sqrt(n)), (n, got)
            return None
    """, "fail", "ok"),
    # A normalisation layer built in construct whose weights start at ones and zeros: frozen there it computes the
    # plain normalisation, as PyNative does with a new layer on every call (``evidence`` raises if not).
    ("layer-norm-built-in-construct", None, """
        class Net(nn.Cell):
            def construct(self, x):
                return nn.LayerNorm(x.shape[-1:], begin_norm_axis=-1, begin_params_axis=-1)(x)
        def evidence(net):
            values = np.arange(6, dtype=np.float32).reshape(2, 3)
            got = net(Tensor(values)).asnumpy()
            centred = values - values.mean(-1, keepdims=True)
            want = centred / np.sqrt((centred ** 2).mean(-1, keepdims=True) + 1e-7)
            assert np.allclose(got, want, atol=1e-4), got
            assert not net.trainable_params()
            return None
    """, "ok", "ok"),
    ("flag-a-constructor-switches-on", "MS101", """
        class Switchable(nn.Cell):
            def __init__(self, use_numpy=False):
                super().__init__()
                self.use_numpy = use_numpy
            def construct(self, x):
                if self.use_numpy:
                    return np.sin(x)
                return x
        class Net(Switchable):
            def __init__(self):
                super().__init__(True)
    """, "fail", "ok"),
    ("number-fixed-in-init-drops-its-branch", None, """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.drop = 0.
                self.stride = 1
            def construct(self, x):
                if self.drop > 0. or self.stride != 1:
                    return np.sin(x)
                return x
    """, "ok", "ok"),
    ("number-fixed-in-init-keeps-its-branch", "MS101", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.drop = 0.1
            def construct(self, x):
                if self.drop > 0.:
                    return np.sin(x)
                return x
    """, "fail", "ok"),
    ("helper-called-with-one-output-type", None, """
        def embed(x, output_type="np"):
            if output_type == "np":
                return np.sin(x)
            return ops.sin(x)
        class Net(nn.Cell):
            def construct(self, x):
                return embed(x, output_type="ms")
    """, "ok", "ok"),
    ("fallback-to-config-keeps-the-flag", None, """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.use_return_dict = True
            def construct(self, x, return_dict: Optional[bool] = False):
                return_dict = return_dict if return_dict is not None else self.use_return_dict
                if not return_dict:
                    return x
                return np.sin(x)
    """, "ok", "ok"),
    ("annotated-int-parameter", None, """
        class Net(nn.Cell):
            def construct(self, x, n: int = 4):
                return x * math.sqrt(n)
    """, "ok", "ok"),
    ("list-appended-in-a-held-object", "MS103", """
        class Items:
            def __init__(self):
                self.items = []
            def add(self, x):
                self.items.append(x)
                return x
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.store = Items()
            def construct(self, x):
                self.store.add(x)
                return x * 2
        def evidence(net):
            return len(net.store.items) == 0  # two calls, nothing kept
    """, "silent", "silent"),
    ("cache-passed-in-and-updated", "MS103", """
        class Cache:
            def __init__(self):
                self.key_cache = []
            def update(self, key, layer):
                if len(self.key_cache) <= layer:
                    self.key_cache.append(key)
                else:
                    self.key_cache[layer] = ops.cat([self.key_cache[layer], key], axis=0)
                return self.key_cache[layer]
        class Net(nn.Cell):
            def construct(self, x, past_key_values: Optional[Cache] = None):
                if past_key_values is not None:
                    x = past_key_values.update(x, 0)
                return x
        def arguments(x):
            return x, Cache()
    """, "fail", "fail"),
    ("layers-grown-until-long-enough", "MS103", """
        class Layers:
            def __init__(self):
                self.layers = []
            def get(self, x, idx):
                while len(self.layers) <= idx:
                    self.layers.append(x)
                return self.layers[idx]
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.cache = Layers()
            def construct(self, x):
                return self.cache.get(x * 2, 0)
    """, "fail", "fail"),
    ("thread-without-tensor-data", "MS105", """
        import threading, time
        COUNT = {"runs": 0}
        def log_step():
            COUNT["runs"] += 1
        class Net(nn.Cell):
            def construct(self, x):
                threading.Thread(target=log_step).start()
                return x * 2
        def evidence(net):
            time.sleep(0.3)
            return COUNT["runs"] == 1  # two calls: it ran once, while compiling
    """, "silent", "silent"),
    ("thread-given-tensor-data", "MS105", """
        import threading
        def record(value):
            return value
        class Net(nn.Cell):
            def construct(self, x):
                threading.Thread(target=record, args=(x,)).start()
                return x * 2
    """, "fail", "ok"),
    ("scalar-attribute-written", "MS108", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.steps = 0
            def construct(self, x):
                self.steps += 1
                return x * self.steps
        def evidence(net):
            return net.steps != 2
    """, "fail", "ok"),
    ("tensor-attribute-written", "MS108", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.last = None
            def construct(self, x):
                self.last = x * 2
                return x
        def evidence(net):
            net(ms.Tensor(np.full((2, 3), 5.0, np.float32)))
            return float(net.last.asnumpy()[0, 0]) == 2.0  # still the first input's value
    """, "fail", "silent"),
    ("with-a-held-jit-class-instance", None, """
        @ms.jit_class
        class Scope:
            def __init__(self):
                self.depth = 3
            def __enter__(self):
                return self
            def __exit__(self, *args):
                return False
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.scope = Scope()
            def construct(self, x):
                with self.scope as held:
                    x = x * held.depth
                return x
    """, "ok", "ok"),
    ("mask-assignment-of-selected-rows", "MS110", """
        class Net(nn.Cell):
            def construct(self, x):
                y = ops.zeros((4, 3), ms.float32)
                mask = ops.arange(4) % 2 == 0
                y[mask] = ops.ones((2, 3), ms.float32)  # one row per selected row, as PyTorch means it
                return x + y[:2]
    """, "fail", "fail"),
    ("pure-method-of-a-held-object", None, """
        class Scaler:
            def __init__(self, factor):
                self.factor = factor
            def apply(self, x):
                return x * self.factor
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.scaler = Scaler(3.0)
            def construct(self, x):
                return self.scaler.apply(x)
    """, "ok", "ok"),
]

_RUNNER = r'''
import importlib.util, json, sys
import numpy as np
import mindspore as ms
results = []
for case in json.load(sys.stdin):
    ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=getattr(ms, case["level"]))
    try:
        spec = importlib.util.spec_from_file_location(case["module"], case["path"])
        module = importlib.util.module_from_spec(spec)
        sys.modules[case["module"]] = module  # the module MindSpore looks the compiled code's globals up in
        spec.loader.exec_module(module)
        net = module.Net()
        x = ms.Tensor(np.ones((2, 3), np.float32))
        arguments = module.arguments(x) if hasattr(module, "arguments") else (x,)
        net(*arguments)
        net(*arguments)
        evidence = module.evidence(net) if hasattr(module, "evidence") else None
        results.append({"ok": True, "evidence": evidence})
    except BaseException as exc:
        results.append({"ok": False, "error": type(exc).__name__, "message": str(exc)[:1000]})
print("@@RESULTS@@" + json.dumps(results))
'''


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("model_cases")
    payload = []
    for index, (_, _, source, _, _) in enumerate(CASES):
        for level in ("STRICT", "LAX"):
            # MindSpore imports the module of the code it compiles by name: one importable file per compile.
            path = workdir / f"case_{index}_{level.lower()}.py"
            path.write_text(HEADER + textwrap.dedent(source))
            payload.append({"module": path.stem, "path": str(path), "level": level})
    completed = subprocess.run([sys.executable, "-c", _RUNNER], input=json.dumps(payload), capture_output=True,
                               text=True, cwd=workdir, timeout=600, env=compile_environment())
    marker = completed.stdout.rfind("@@RESULTS@@")
    assert marker >= 0, completed.stderr[-3000:]
    results = json.loads(completed.stdout[marker + len("@@RESULTS@@"):])
    return {case[0]: (results[2 * i], results[2 * i + 1]) for i, case in enumerate(CASES)}


def _observed(result: dict, expected: str) -> str:
    if not result["ok"]:
        return "fail"
    return "silent" if expected == "silent" and result["evidence"] else "ok"


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_the_model_agrees_with_the_compiler(case, outcomes):
    name, code, source, strict_outcome, lax_outcome = case
    strict, lax = outcomes[name]
    assert _observed(strict, strict_outcome) == strict_outcome, strict.get("message", "")[:500]
    assert _observed(lax, lax_outcome) == lax_outcome, lax.get("message", "")[:500]
    full = HEADER + textwrap.dedent(source)
    for level, outcome in (("strict", strict_outcome), ("lax", lax_outcome)):
        found = {f.code for f in check_source(full, "case.py", Settings(syntax_level=level), RULES_BY_CODE)}
        assert found == ({code} if code and outcome != "ok" else set()), level


@pytest.mark.parametrize("case", [c for c in CASES if c[1]], ids=lambda c: c[0])
def test_the_message_names_the_exception_raised(case, outcomes):
    name, code, source, _, _ = case
    full = HEADER + textwrap.dedent(source)
    for level, result in zip(("strict", "lax"), outcomes[name]):
        if result["ok"]:
            continue
        for finding in check_source(full, "case.py", Settings(syntax_level=level), RULES_BY_CODE):
            if finding.code == code:
                assert names_the_exception(finding.message, result["error"]), (level, result, finding.message)
