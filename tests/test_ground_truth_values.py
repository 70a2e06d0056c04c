"""What the model claims about values and what MindSpore's own classes create, and the messages of the rules that
ask it, checked with the real MindSpore on CPU (2.10 and 2.7.1: ``nox -s ground-truth-2.7.1``): host values in graph
code, sub-cell outputs, conditions on an argument's data, Cast primitives, Parameters a base class creates, a cache
grown through an overridden method, names a loop pass reads before it binds them, container constructors, padding
tuples, seeds and parameter broadcast across processes. Each compiled case is linted at both syntax levels."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ms_lint import mindspore_api as api
from ms_lint.engine import check_file, check_source
from ms_lint.settings import Settings
from tests.mindspore_compile import compile_cases, compile_environment, names_the_exception

pytestmark = pytest.mark.mindspore

HEADER = """
import json
from dataclasses import dataclass
import numpy as np
import mindspore as ms
import mindspore.ops.operations as P
from mindspore import Tensor, nn, ops
from mindspore.common import dtype as mstype
"""

# Learned queries over a CellList: a sub-cell called with nothing, then tensor methods on what it returns.
_QUERIES = """
    class Query(nn.Cell):
        def __init__(self):
            super().__init__()
            self.table = ms.Parameter(ops.ones((4, 3), ms.float32))
        def construct(self):
            return self.table
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.queries = nn.CellList([Query(), Query()])
        def construct(self, x):
            n = x.shape[0]
            out = x
            for query in self.queries:
                out = out + query().unsqueeze(1).{broadcast}.sum()
            return out
"""

# (id, code reported or None, source, STRICT outcome, LAX outcome, whether ms-lint reports it under LAX)
COMPILE_CASES = [
    ("learned-queries-expanded-pytorch-style", "MS603", _QUERIES.format(broadcast="expand(-1, n, -1)"), "fail",
     "fail", True),
    ("learned-queries-broadcast", None, _QUERIES.format(broadcast="broadcast_to((-1, n, -1))"), "ok", "ok", False),
    ("a-number-before-an-if-on-an-argument", "MS121", """
        class Net(nn.Cell):
            def construct(self, t):
                v = 0
                if t[0][0] > 0:
                    v = ops.relu(t)
                return v + 1
    """, "fail", "fail", True),
    ("a-tensor-before-an-if-on-an-argument", None, """
        class Net(nn.Cell):
            def construct(self, t):
                v = t * 0
                if t[0][0] > 0:
                    v = ops.relu(t)
                return v + 1
    """, "ok", "ok", False),
    ("cast-primitive-to-two-dtypes", "MS121", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.cast = P.Cast()
            def wrap(self, x):
                if x.sum() > 0:
                    return self.cast(x, mstype.float16)
                return self.cast(x, mstype.float32)
            def construct(self, x):
                return self.wrap(x)
    """, "fail", "fail", True),
    ("cast-primitive-to-one-dtype", None, """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.cast = P.Cast()
            def wrap(self, x):
                if x.sum() > 0:
                    return self.cast(x * 2, mstype.float32)
                return self.cast(x, mstype.float32)
            def construct(self, x):
                return self.wrap(x)
    """, "ok", "ok", False),
    ("parameters-an-optimizer-base-creates", None, """
        class TrackedAdam(nn.Adam):
            def construct(self, gradients):
                self.beta1_power *= self.beta1
                self.beta2_power *= self.beta2
                return self.beta1_power
        class KeepFirst(nn.Optimizer):
            def __init__(self, params, learning_rate=0.1):
                super().__init__(learning_rate, params)
                self.first = params[0]
                self.decay = Tensor(0.5, ms.float32)
            def construct(self, gradients):
                self.first *= self.decay
                return self.first
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.dense = nn.Dense(3, 3)
                self.adam = TrackedAdam(self.dense.trainable_params())
                self.keep = KeepFirst(self.dense.trainable_params())
            def construct(self, x):
                return self.adam((x, x)) + self.keep((x, x)).sum() + x
        def state(net):
            net(Tensor(np.ones((2, 3), np.float32)))
            return [float(net.adam.beta1_power.asnumpy()), float(net.keep.first.asnumpy().ravel()[0])]
    """, "ok", "ok", False),
    ("cache-grown-through-an-overridden-method", "MS108", """
        class Rotary(nn.Cell):
            def __init__(self, dim=4, max_len=2):
                super().__init__()
                self.inv_freq = ops.arange(0, dim, 2).astype(ms.float32)
                self.max_seq_len_cached = max_len
                self._set_cos_sin_cache(max_len)
            def _set_cos_sin_cache(self, seq_len):
                self.max_seq_len_cached = seq_len
                self.cos_cached = ops.outer(ops.arange(seq_len).astype(ms.float32), self.inv_freq).cos()
            def construct(self, x, seq_len=None):
                if seq_len > self.max_seq_len_cached:
                    self._set_cos_sin_cache(seq_len)
                return self.cos_cached[:seq_len]
        class ScaledRotary(Rotary):
            def _set_cos_sin_cache(self, seq_len):
                self.max_seq_len_cached = seq_len
                self.cos_cached = ops.outer(ops.arange(seq_len).astype(ms.float32) / 2, self.inv_freq).cos()
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.rot = ScaledRotary()
            def construct(self, x):
                return self.rot(x, seq_len=x.shape[0])
    """, "fail", "ok", True),
    ("a-loop-pass-reads-before-it-binds-then-read-after", "MS116", """
        class Net(nn.Cell):
            def construct(self, t):
                for i in range(3):
                    if i == 0:
                        x = t * 2
                    else:
                        x += t
                return x
    """, "fail", "fail", True),
    ("a-loop-pass-reads-before-it-binds", "MS116", """
        class Net(nn.Cell):
            def construct(self, t):
                out = t
                for i in range(3):
                    if i == 0:
                        x = t * 2
                    else:
                        x = x + t
                    out = out + x
                return out
    """, "fail", "fail", True),
    ("a-pass-over-a-cell-list-reads-what-the-first-pass-bound", "MS116", """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.blocks = nn.CellList([nn.Dense(3, 3), nn.Dense(3, 3)])
            def construct(self, x):
                outputs = []
                for i, block in enumerate(self.blocks):
                    if i == 0:
                        part = block(x)
                    else:
                        part = block(x + part)
                    outputs.append(part)
                return outputs[-1]
    """, "fail", "fail", True),
    ("a-loop-name-bound-before-the-loop", None, """
        class Net(nn.Cell):
            def construct(self, t):
                out = t
                x = None
                for i in range(3):
                    if i == 0:
                        x = t * 2
                    else:
                        x = x + t
                    out = out + x
                return out
    """, "ok", "ok", False),
    ("host-values-in-graph-code", None, """
        TEMPLATE = {"scale": 2.0, "sizes": np.array([1.0, 2.0])}
        @dataclass
        class Term:
            value: object
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.template = json.loads('{"first": 2.0, "lengths": [1, 2]}')
                self.anchors = np.array([[1.0, 2.0], [3.0, 4.0]])
            def construct(self, x):
                first = Term(self.template["first"])
                lengths = np.array(self.template["lengths"]).tolist()
                widths = self.anchors[:, 0].tolist()
                sizes = TEMPLATE["sizes"].tolist()
                return x * first.value * len(lengths) * len(widths) * len(sizes) * TEMPLATE["scale"]
    """, "ok", "ok", False),
]


# Inputs other than one (2, 3) tensor: a sequence longer than the cache built in __init__ grows it.
_SHAPES = {"cache-grown-through-an-overridden-method": [[5, 3]]}


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("values")
    cases = []
    for _, _, source, _, _, _ in COMPILE_CASES:
        full = HEADER + textwrap.dedent(source)
        cases += [(full, "STRICT", [[2, 3]]), (full, "LAX", [[2, 3]])]
    cases = [(source, level, _SHAPES.get(COMPILE_CASES[index // 2][0], shapes))
             for index, (source, level, shapes) in enumerate(cases)]
    results = compile_cases(cases, workdir)
    return {case[0]: (results[2 * i], results[2 * i + 1]) for i, case in enumerate(COMPILE_CASES)}, workdir


def _codes(path: Path, level: str) -> list:
    return [f for f in check_file(str(path), Settings(syntax_level=level)) if f.code.startswith("MS")]


@pytest.mark.parametrize("case", COMPILE_CASES, ids=[c[0] for c in COMPILE_CASES])
def test_the_rule_agrees_with_the_compiler(case, compiled):
    outcomes, workdir = compiled
    name, code, source, strict_outcome, lax_outcome, lax_reported = case
    strict, lax = outcomes[name]
    assert ("ok" if strict.ok else "fail") == strict_outcome, strict.message[:500]
    assert ("ok" if lax.ok else "fail") == lax_outcome, lax.message[:500]
    path = workdir / f"lint_{name.replace('-', '_')}.py"
    path.write_text(HEADER + textwrap.dedent(source))
    for level, result, reported in (("strict", strict, True), ("lax", lax, lax_reported)):
        findings = _codes(path, level)
        assert {f.code for f in findings} == ({code} if code and reported else set()), (level, findings)
        for finding in findings:
            if not result.ok:
                assert names_the_exception(finding.message, result.error), (level, result.error, finding.message)


def test_what_the_failures_say(compiled):
    outcomes, _ = compiled
    for name, read in (("a-loop-pass-reads-before-it-binds-then-read-after", "x"),
                       ("a-loop-pass-reads-before-it-binds", "x"),
                       ("a-pass-over-a-cell-list-reads-what-the-first-pass-bound", "part")):
        for result in outcomes[name]:
            assert result.error == "NameError" and f"The name '{read}' is not defined" in result.message, result.message
    for result in outcomes["learned-queries-expanded-pytorch-style"]:
        assert result.error == "TypeError" and "parameters number of the function is 2" in result.message
    strict, lax = outcomes["a-number-before-an-if-on-an-argument"]
    assert "AbstractTensor cannot join with AbstractScalar" in lax.message
    assert "should be constant" in strict.message  # the joined value's use fails first under STRICT
    for result in outcomes["cast-primitive-to-two-dtypes"][1:]:
        assert "Type Join Failed: dtype1 = Float16, dtype2 = Float32" in result.message
    strict, _ = outcomes["cache-grown-through-an-overridden-method"]
    assert strict.error == "TypeError" and "max_seq_len_cached" in strict.message
    for result in outcomes["parameters-an-optimizer-base-creates"]:
        beta1_power, first = result.state  # updated in place: both are Parameters
        assert beta1_power < 0.9 and first != pytest.approx(0.0)


_HOST_OBJECT = HEADER + """
import sympy


@dataclass
class Term:
    value: object


class Polynomial(nn.Cell):
    def construct(self, x, degree):
        order = sympy.Integer(degree)
        return x * float(Term(order).value)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.polynomial = Polynomial()

    def construct(self, x):
        return self.polynomial(x, 3)
"""


def test_a_sympy_number_built_from_an_argument_is_a_host_value(tmp_path):
    if importlib.util.find_spec("sympy") is None:
        pytest.skip("sympy is not installed with this MindSpore")
    strict, lax = compile_cases([(_HOST_OBJECT, "STRICT", [[2, 3]]), (_HOST_OBJECT, "LAX", [[2, 3]])], tmp_path)
    assert strict.ok and lax.ok, (strict.message, lax.message)
    # Polynomial alone, a root: its `degree` could be tensor data, yet a sympy number is a host value
    alone = _HOST_OBJECT[:_HOST_OBJECT.index("\nclass Net(")]
    assert [f.code for f in check_source(alone, "case.py", Settings(syntax_level="strict"))] == []


_RUNNER = r'''
import importlib.util, json, sys
import numpy as np
import mindspore as ms
path = sys.argv[1]
result = {}
try:
    spec = importlib.util.spec_from_file_location("case", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["case"] = module
    spec.loader.exec_module(module)
    result = {"ok": True, "outputs": module.run()}
except BaseException as exc:
    result = {"ok": False, "error": type(exc).__name__, "message": str(exc)[:800]}
print("@@RESULT@@" + json.dumps(result))
'''


def _run(workdir: Path, source: str, *arguments: str) -> dict:
    path = workdir / "case_run.py"
    path.write_text(textwrap.dedent(source))
    completed = subprocess.run([sys.executable, "-c", _RUNNER, str(path), *arguments], capture_output=True,
                               text=True, cwd=workdir, timeout=300, env=compile_environment())
    marker = completed.stdout.rfind("@@RESULT@@")
    assert marker >= 0, completed.stderr[-3000:]
    return json.loads(completed.stdout[marker + len("@@RESULT@@"):])


def test_the_parameters_base_classes_create_are_the_shipped_table(tmp_path):
    """Every class of ``BASE_PARAMETER_ATTRIBUTES``, built with small arguments: its Parameter and ParameterTuple
    attributes are the table's (the network's own parameters, which an optimizer keeps too, left out)."""
    source = """
        import warnings
        import mindspore as ms
        from mindspore import Parameter, ParameterTuple, nn

        LAYERS = {"Dense": (2, 2), "Conv1d": (2, 2, 3), "Conv2d": (2, 2, 3), "Conv3d": (2, 2, 3),
                  "Conv1dTranspose": (2, 2, 3), "Conv2dTranspose": (2, 2, 3), "Conv3dTranspose": (2, 2, 3),
                  "BatchNorm1d": (2,), "BatchNorm2d": (2,), "LayerNorm": ((2,),), "GroupNorm": (1, 2),
                  "Embedding": (4, 2), "PReLU": ()}

        def attributes(cell, given):
            names = set(cell._params) | set(getattr(cell, "_params_list", {}) or {}) | set(vars(cell))
            # per-parameter copies are named after the network's parameters (ASGD's ``eta_weight``): not the class's
            return sorted(name for name in names if "." not in name and name not in given
                          and not any(name.endswith("_" + parameter) for parameter in given)
                          and isinstance(getattr(cell, name, None), (Parameter, ParameterTuple)))

        def run():
            warnings.filterwarnings("ignore")
            net = nn.Dense(2, 2)
            given = {parameter.name for parameter in net.trainable_params()}
            found = {}
            for name in sorted(dir(nn)):
                cls = getattr(nn, name)
                if isinstance(cls, type) and issubclass(cls, nn.Optimizer) and name != "Optimizer":
                    for arguments in [(net.trainable_params(),), (net.trainable_params(), 0.1, 0.9)]:
                        try:
                            found[name] = attributes(cls(*arguments), given)
                            break
                        except Exception:
                            continue
            found["Optimizer"] = attributes(nn.Optimizer(0.1, net.trainable_params()), given)
            for name, arguments in LAYERS.items():
                options = {"has_bias": True} if name.startswith("Conv") else {}
                found[name] = attributes(getattr(nn, name)(*arguments, **options), set())
            return found
    """
    result = _run(tmp_path, source)
    assert result["ok"], result
    built = result["outputs"]
    for name, attributes in api.BASE_PARAMETER_ATTRIBUTES.items():
        assert sorted(attributes) == built[name], name
    unlisted = {name for name, attributes in built.items() if name not in api.BASE_PARAMETER_ATTRIBUTES}
    # an optimizer the table leaves out has its base's (``base_parameter_attributes`` answers so)
    for name in unlisted:
        assert set(built[name]) == set(api.BASE_PARAMETER_ATTRIBUTES["Optimizer"]), name


def test_pytorch_padding_tuples_fail_with_any_pad_mode_and_the_fix_builds(tmp_path):
    source = """
        import warnings
        from mindspore import nn

        PAD = {"pad_mode": "pad"}
        CALLS = [("Conv2d", {"padding": (1, 2)}), ("Conv2d", {"padding": (1, 2), **PAD}),
                 ("Conv3d", {"padding": (1, 1, 1), **PAD}), ("Conv1d", {"padding": (1,), **PAD}),
                 ("Conv2dTranspose", {"padding": (1, 1), **PAD}), ("Conv2d", {"padding": (1, 1, 2, 2), **PAD}),
                 ("Conv3d", {"padding": (1, 1, 1, 1, 1, 1), **PAD}), ("Conv1d", {"padding": 1, **PAD})]

        def run():
            warnings.filterwarnings("ignore")
            outcomes = []
            for name, options in CALLS:
                try:
                    getattr(nn, name)(4, 4, 3, **options)
                    outcomes.append("ok")
                except Exception as exc:
                    outcomes.append(type(exc).__name__)
            return outcomes
    """
    result = _run(tmp_path, source)
    assert result["ok"], result
    assert result["outputs"] == ["ValueError", "ValueError", "ValueError", "TypeError", "ValueError", "ok", "ok", "ok"]
    # what MS205 reports, and the form its fix writes, which builds
    layer = textwrap.dedent("""
        from mindspore import nn
        conv = nn.Conv2d(4, 4, 3, padding=(1, 2))
        volume = nn.Conv3d(4, 4, 3, pad_mode="pad", padding=(1, 1, 1))
    """)
    findings = check_source(layer, "layer.py", Settings(syntax_level="strict"))
    expected = [("MS205", [1, 1, 2, 2]), ("MS205", [1, 1, 1, 1, 1, 1])]  # as JSON carries it
    assert [(f.code, f.data["fixed_padding"]) for f in findings] == expected
    assert all("with any pad_mode" in f.message for f in findings)


def test_a_module_of_older_versions_is_missing_and_ms607_reports_it_not_ms604(tmp_path):
    source = """
        def run():
            try:
                from mindspore.nn.transformer import TransformerEncoder  # noqa: F401
            except ImportError as exc:
                return type(exc).__name__
            return "ok"
    """
    result = _run(tmp_path, source)
    assert result["ok"] and result["outputs"] == "ModuleNotFoundError", result
    legacy = textwrap.dedent("""
        from mindspore.nn.transformer import TransformerEncoder
        encoder = TransformerEncoder(batch_size=2, num_layers=2, hidden_size=8, ffn_hidden_size=16, seq_length=4,
                                     num_heads=2)
    """)
    findings = check_source(legacy, "legacy.py", Settings(syntax_level="strict"))
    assert [(f.code, f.data["module"], f.data["name"]) for f in findings] == [("MS607", "mindspore.nn", "transformer")]


def test_a_dtype_name_is_a_dtype_and_separate_sizes_are_not(tmp_path):
    source = """
        import mindspore as ms
        from mindspore import float32, ops

        def run():
            half = ms.float16
            outcomes = [str(ops.zeros((2, 3), float32).dtype), str(ops.ones((2, 3), half).dtype)]
            try:
                ops.zeros(2, 3)
                outcomes.append("ok")
            except TypeError:
                outcomes.append("TypeError")
            return outcomes
    """
    result = _run(tmp_path, source)
    assert result["ok"] and result["outputs"] == ["Float32", "Float16", "TypeError"], result
    findings = check_source(textwrap.dedent(source), "sizes.py", Settings(syntax_level="strict"))
    assert [(f.code, f.data["sizes"]) for f in findings] == [("MS605", ["2", "3"])]


def test_containers_given_to_a_container_constructor_are_registered(tmp_path):
    source = HEADER + """
class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 3)

    def construct(self, x):
        return self.fc(x)


class Stack(nn.SequentialCell):
    def __init__(self):
        layers = []
        for _ in range(2):
            layers.append(Block())
        super().__init__(layers)
        self.layers = layers


class Handed(nn.Cell):
    def __init__(self):
        super().__init__()
        layers = [Block(), Block(), Block()]
        self.layers = layers
        self.body = nn.SequentialCell(list(layers))
        self.first_two = nn.CellList(layers[:2])

    def construct(self, x):
        return self.body(x)


class Stages(nn.Cell):
    def __init__(self):
        super().__init__()
        self.stages = []
        for _ in range(2):
            blocks = []
            for _ in range(2):
                blocks.append(Block())
            self.stages.append(nn.SequentialCell(blocks))

    def construct(self, x):
        for stage in self.stages:
            x = stage(x)
        return x


def run():
    x = Tensor(np.ones((2, 3), np.float32))
    ms.set_context(mode=ms.GRAPH_MODE)
    outcomes = []
    for cls in (Stack, Handed, Stages):
        net = cls()
        count = len(net.trainable_params())
        try:
            net(x)
            outcomes.append([count, "ok"])
        except RuntimeError as exc:
            outcomes.append([count, "already exists" in str(exc)])
    return outcomes
"""
    result = _run(tmp_path, source)
    assert result["ok"], result
    # The plain list of SequentialCells keeps none of its 8 parameters, and their names clash at the compile.
    assert result["outputs"] == [[4, "ok"], [6, "ok"], [0, True]]
    findings = check_source(source, "containers.py", Settings(syntax_level="strict"))
    lines = source.splitlines()
    assert [(f.line, f.code) for f in findings] == [
        (lines.index("            self.stages.append(nn.SequentialCell(blocks))") + 1, "MS201")]


def test_a_host_copy_in_a_method_a_differentiated_method_calls_zeroes_the_gradient(tmp_path):
    source = """
        import mindspore as ms
        from mindspore import Tensor, nn
        import numpy as np

        ms.set_context(mode=ms.PYNATIVE_MODE)


        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.dense = nn.Dense(3, 3)

            def normalise(self, y):
                return Tensor(y.asnumpy() * 2)

            def loss(self, x):
                return self.normalise(self.dense(x)).sum()

            def loss_on_tensors(self, x):
                return (self.dense(x) * 2).sum()

            def construct(self, x):
                return self.dense(x)


        net = Net()


        def forward(x):
            return net.loss(x)


        def forward_on_tensors(x):
            return net.loss_on_tensors(x)


        def run():
            x = Tensor(np.ones((2, 3), np.float32))
            cut = ms.value_and_grad(forward, None, net.trainable_params())(x)[1]
            kept = ms.value_and_grad(forward_on_tensors, None, net.trainable_params())(x)[1]
            return [float(np.abs(g.asnumpy()).sum()) for g in cut], [float(np.abs(g.asnumpy()).sum()) for g in kept]
    """
    result = _run(tmp_path, source)
    assert result["ok"], result
    cut, kept = result["outputs"]
    assert cut == [0.0, 0.0] and all(value > 0 for value in kept)
    findings = check_source(textwrap.dedent(source), "train.py", Settings(syntax_level="strict"))
    line = textwrap.dedent(source).splitlines().index("        return Tensor(y.asnumpy() * 2)") + 1
    assert [(f.line, f.code) for f in findings] == [(line, "MS112")]


def test_a_host_copy_reached_from_a_differentiated_method_through_an_untyped_model_zeroes_the_gradient(tmp_path):
    """A trainer differentiates its own method (``value_and_grad(self.forward_fn)``), which calls a method of the
    model it was handed (``self.model.loss_of(x)``: a parameter, whose class the code does not say); and a Cell's
    own method differentiated as a bound method (``value_and_grad(net.score)``). A host copy in either cuts the
    gradient to exactly zero; the same computed with tensors keeps it."""
    source = """
        import mindspore as ms
        from mindspore import Tensor, nn
        import numpy as np

        ms.set_context(mode=ms.PYNATIVE_MODE)


        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.dense = nn.Dense(3, 3)

            def loss_of(self, x):
                return Tensor(self.dense(x).asnumpy() * 2).sum()

            def score(self, x):
                return Tensor(self.dense(x).asnumpy()).sum()

            def kept(self, x):
                return (self.dense(x) * 2).sum()

            def construct(self, x):
                return self.dense(x)


        class Trainer:
            def __init__(self, model):
                self.model = model
                self.grad_fn = ms.value_and_grad(self.forward_fn, None, model.trainable_params())
                self.kept_fn = ms.value_and_grad(self.forward_kept, None, model.trainable_params())

            def forward_fn(self, x):
                return self.model.loss_of(x)

            def forward_kept(self, x):
                return self.model.kept(x)


        def run():
            x = Tensor(np.ones((2, 3), np.float32))
            net = Net()
            trainer = Trainer(net)
            sums = lambda grads: [float(np.abs(g.asnumpy()).sum()) for g in grads]
            method = ms.value_and_grad(net.score, None, net.trainable_params())(x)[1]
            return sums(trainer.grad_fn(x)[1]), sums(method), sums(trainer.kept_fn(x)[1])
    """
    result = _run(tmp_path, source)
    assert result["ok"], result
    cut, method, kept = result["outputs"]
    assert cut == [0.0, 0.0] and method == [0.0, 0.0] and all(value > 0 for value in kept)
    findings = check_source(textwrap.dedent(source), "train.py", Settings(syntax_level="strict"))
    lines = textwrap.dedent(source).splitlines()
    assert [(f.line, f.code) for f in findings if f.code == "MS112"] == [
        (lines.index("        return Tensor(self.dense(x).asnumpy() * 2).sum()") + 1, "MS112"),
        (lines.index("        return Tensor(self.dense(x).asnumpy()).sum()") + 1, "MS112")]


def test_a_host_copy_behind_stop_gradient_loses_no_gradient_the_code_keeps(tmp_path):
    """A factor computed on the host and wrapped in ``ops.stop_gradient`` (a sign from ``numpy.linalg.det``): the
    output's gradient flows through the other factor exactly as with the factor computed by ``mindspore.ops``, so
    MS112 reports nothing; the same host factor without ``stop_gradient``, as the only path, loses the gradient."""
    source = """
        import numpy
        import mindspore as ms
        from mindspore import Tensor, nn, ops

        ms.set_context(mode=ms.PYNATIVE_MODE)


        class Signed(nn.Cell):
            def construct(self, x):
                sign = Tensor(numpy.sign(x.asnumpy()), ms.float32)
                sign = ops.stop_gradient(sign)
                return x * sign


        class SignedOnDevice(nn.Cell):
            def construct(self, x):
                return x * ops.stop_gradient(ops.sign(x))


        class Copied(nn.Cell):
            def construct(self, x):
                return Tensor(x.asnumpy() * 2, ms.float32)


        def run():
            x = Tensor(numpy.array([1.0, -2.0, 3.0], numpy.float32))
            return [ms.grad(net)(x).asnumpy().tolist() for net in (Signed(), SignedOnDevice(), Copied())]
    """
    result = _run(tmp_path, source)
    assert result["ok"], result
    host, device, copied = result["outputs"]
    assert host == device == [1.0, -1.0, 1.0]
    assert copied == [0.0, 0.0, 0.0]
    findings = check_source(textwrap.dedent(source), "train.py", Settings(syntax_level="strict"))
    line = textwrap.dedent(source).splitlines().index("        return Tensor(x.asnumpy() * 2, ms.float32)") + 1
    assert [(f.line, f.code) for f in findings] == [(line, "MS112")]


# -- seeds and parameter broadcast across processes (MS401, MS402) ------------------------------------------------

_SEEDED = """
import hashlib, sys
import numpy as np
if sys.argv[1] == "numpy":
    np.random.seed(1)
import mindspore as ms
from mindspore import nn, ops
if sys.argv[1] == "mindspore":
    ms.set_seed(1)
if sys.argv[1] == "dataset":
    ms.dataset.config.set_seed(1)
if sys.argv[1] == "random":
    import random
    ms.dataset.config.set_seed(random.randint(1, 10000))
weights = np.concatenate([p.asnumpy().ravel() for cell in (nn.Dense(4, 4), nn.Conv2d(3, 4, 3), nn.Embedding(10, 4))
                          for p in cell.trainable_params()])
print(hashlib.md5(weights.tobytes()).hexdigest(), hashlib.md5(ops.rand(3).asnumpy().tobytes()).hexdigest())
"""


def _two_processes(workdir: Path, seed: str) -> list[list[str]]:
    path = workdir / "seeded.py"
    path.write_text(_SEEDED)
    runs = [subprocess.run([sys.executable, str(path), seed], capture_output=True, text=True, cwd=workdir,
                           timeout=300, env=compile_environment()) for _ in range(2)]
    return [run.stdout.split()[-2:] for run in runs]


def test_a_numpy_seed_alone_repeats_the_initial_weights_not_the_random_operators(tmp_path):
    first, second = _two_processes(tmp_path, "none")
    assert first[0] != second[0] and first[1] != second[1]
    first, second = _two_processes(tmp_path, "numpy")
    assert first[0] == second[0]  # the initialisers draw from numpy's generator
    assert first[1] != second[1]  # ops.rand does not
    first, second = _two_processes(tmp_path, "mindspore")
    assert first == second
    first, second = _two_processes(tmp_path, "dataset")
    assert first[0] == second[0]  # the data pipeline's seed seeds numpy's generator too
    assert first[1] != second[1]
    first, second = _two_processes(tmp_path, "random")
    assert first[0] != second[0] and first[1] != second[1]  # a seed drawn at random repeats nothing (MS402)


_BROADCAST = """
import hashlib, sys
import numpy as np
import mindspore as ms
from mindspore import nn
from mindspore.communication import get_rank, init

ms.set_context(mode=ms.GRAPH_MODE)
init()
ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, parameter_broadcast=sys.argv[1] == "on")
net = nn.Dense(4, 4)
model = ms.train.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.0))
data = ms.dataset.NumpySlicesDataset({"x": np.ones((4, 4), np.float32), "y": np.ones((4, 4), np.float32)},
                                     shuffle=False).batch(2)
model.train(1, data, dataset_sink_mode=False)  # a learning rate of 0: what the step leaves is what it started from
print(f"RANK {get_rank()} {hashlib.md5(net.weight.asnumpy().tobytes()).hexdigest()}", flush=True)
"""


def _broadcast_ranks(workdir: Path, broadcast: str, port: int, source: str = _BROADCAST) -> dict[str, str]:
    msrun = Path(sys.executable).parent / "msrun"
    script = workdir / "broadcast.py"
    script.write_text(source)
    logs = workdir / f"logs_{broadcast}"
    environment = {**compile_environment(), "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    subprocess.run([str(msrun), "--worker_num=2", "--local_worker_num=2", f"--master_port={port}",
                    f"--log_dir={logs}", "--join=True", str(script), broadcast], capture_output=True, text=True,
                   cwd=workdir, timeout=300, env=environment)
    ranks = {}
    for log in logs.glob("worker_*.log"):
        for line in log.read_text(errors="replace").splitlines():
            if line.startswith("RANK "):
                _, rank, digest = line.split()
                ranks[rank] = digest
    return ranks


def test_parameter_broadcast_copies_rank_0s_weights_and_set_context_refuses_it(tmp_path):
    if not (Path(sys.executable).parent / "msrun").exists():
        pytest.skip("msrun is not installed beside this interpreter")
    apart = _broadcast_ranks(tmp_path, "off", 8131)
    together = _broadcast_ranks(tmp_path, "on", 8133)
    assert len(apart) == len(together) == 2, (apart, together)
    assert apart["0"] != apart["1"]
    assert together["0"] == together["1"]
    refused = _run(tmp_path, """
        import mindspore as ms

        def run():
            try:
                ms.set_context(parameter_broadcast=True)
            except ValueError as exc:
                return "not recognized" in str(exc)
            return False
    """)
    assert refused == {"ok": True, "outputs": True}


_STAND_ALONE = """
import hashlib, sys
import numpy as np
import mindspore as ms
from mindspore import nn
from mindspore.communication import get_rank, init

ms.set_seed(1)
ms.set_context(mode=ms.GRAPH_MODE)
init()
if sys.argv[1] != "stand_alone":
    ms.set_auto_parallel_context(parallel_mode=sys.argv[1])
net = nn.Dense(4, 4)
model = ms.train.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.1))
# each rank its own data: only averaged gradients leave the ranks' weights equal after the step
data = ms.dataset.NumpySlicesDataset({"x": np.full((4, 4), get_rank() + 1.0, np.float32),
                                      "y": np.zeros((4, 4), np.float32)}, shuffle=False).batch(2)
model.train(1, data, dataset_sink_mode=False)
print(f"RANK {get_rank()} {hashlib.md5(net.weight.asnumpy().tobytes()).hexdigest()}", flush=True)
"""


def test_init_alone_leaves_each_process_training_its_own_model(tmp_path):
    """Why MS401 asks for a parallel mode (``ModuleFacts.runs_replicas``): after ``communication.init()`` with no
    ``parallel_mode`` (MindSpore's default, stand-alone), two ranks that start equal and see different data end the
    step with different weights (no gradient is averaged); with ``data_parallel`` they end equal."""
    if not (Path(sys.executable).parent / "msrun").exists():
        pytest.skip("msrun is not installed beside this interpreter")
    apart = _broadcast_ranks(tmp_path, "stand_alone", 8135, _STAND_ALONE)
    together = _broadcast_ranks(tmp_path, "data_parallel", 8137, _STAND_ALONE)
    assert len(apart) == len(together) == 2, (apart, together)
    assert apart["0"] != apart["1"]
    assert together["0"] == together["1"]


# -- a sub-cell chosen by a conditional expression (MS131) --------------------------------------------------------

_CHOSEN_SUB_CELL = """
import numpy as np
import mindspore as ms
from mindspore import nn


class _Nearest(nn.Cell):
    def construct(self, x, c):
        return x[:, :c], isinstance(c, int)


class _Bilinear(nn.Cell):
    def construct(self, x, c):
        c_orig = c
        return (x * 2)[:, :c_orig], isinstance(c_orig, int)


class Sampler(nn.Cell):
    def __init__(self, mode):
        super().__init__()
        self.interpolate = _Nearest() if mode == "nearest" else _Bilinear()

    def construct(self, x):
        n, c, h, w = x.shape
        return self.interpolate(x, c - 1)


def run():
    ms.set_context(mode=ms.GRAPH_MODE)
    found = []
    for mode in ("nearest", "bilinear"):
        out, is_int = Sampler(mode)(ms.Tensor(np.ones((2, 3, 4, 4), np.float32)))
        found.append([list(out.shape), bool(is_int)])
    return found
"""


def test_a_shape_int_reaches_either_sub_cell_a_conditional_expression_chooses(tmp_path):
    """``self.interpolate = A() if c else B()`` with ``c`` from the input's shape passed to it: in either Cell the
    argument is a Python int while compiling (``isinstance(c, int)`` is True, the slice's length is fixed), so the
    slice it bounds has a static shape; ms-lint follows both arms and reports no MS131 for it."""
    result = _run(tmp_path, _CHOSEN_SUB_CELL)
    assert result == {"ok": True, "outputs": [[[2, 2, 4, 4], True], [[2, 2, 4, 4], True]]}, result
    findings = check_source(_CHOSEN_SUB_CELL, "sampler.py", Settings(mode="graph"), codes=["MS131"])
    assert [f.code for f in findings] == []
    data = _CHOSEN_SUB_CELL.replace("n, c, h, w = x.shape", "c = (x > 0).sum()")
    findings = check_source(data, "sampler.py", Settings(mode="graph"), codes=["MS131"])
    assert sorted(f.scope for f in findings) == ["_Bilinear", "_Nearest"]
