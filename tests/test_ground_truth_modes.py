"""Which code MindSpore compiles, measured: the default mode of a fresh process, what PyNative compiles (only `@jit`
code), and what a root reaches in GRAPH_MODE (a `@jit_class` method graph code calls, and not one only host code
calls; a method found through `super()` or a held object's `__call__`; a mixin's method, a helper and a `@jit_class`
defined in another module, reached or called by host code only).
Each claim is checked against what ms-lint reports for the same code, at both syntax levels."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ms_lint.engine import check_file, check_source
from ms_lint.rules import RULES_BY_CODE
from ms_lint.settings import Settings
from ms_lint.target import PYNATIVE, SILENCED_BY, forget_projects
from tests.mindspore_compile import compile_cases, compile_environment
from tests.test_modes import CELL_LINE, JIT_LINE, MODEL

pytestmark = pytest.mark.mindspore

# What a fresh process does without set_context: its mode, a Cell whose construct holds a statement graph mode
# refuses (``try``), the same code under ``@jit`` (LAX) and ``@jit(fullgraph=True)`` (STRICT), and ``export`` of it
# to MindIR; MindSpore compiles only code it can read from a file, so the cases are a module of their own.
_CASES = """
from mindspore import nn


class Net(nn.Cell):
    def construct(self, x):
        try:
            y = x * 2
        except ValueError:
            y = x
        return y


class Fine(nn.Cell):
    def construct(self, x):
        return x * 2


def guarded(x):
    try:
        y = x * 2
    except ValueError:
        y = x
    return y
"""

_DEFAULT_MODE = r'''
import json
import numpy as np
import mindspore as ms
from default_mode_cases import Fine, Net, guarded

x = ms.Tensor(np.ones((2, 3), np.float32))
result = {"mode": ms.get_context("mode"), "pynative": ms.PYNATIVE_MODE, "graph": ms.GRAPH_MODE}
for name, run in (("cell", lambda: Net()(x)), ("jit_lax", lambda: ms.jit(guarded)(x)),
                  ("jit_strict", lambda: ms.jit(guarded, fullgraph=True)(x)),
                  ("export", lambda: ms.export(Net(), x, file_name="net", file_format="MINDIR")),
                  ("export_fine", lambda: ms.export(Fine(), x, file_name="fine", file_format="MINDIR"))):
    try:
        run()
        result[name] = "ok"
    except BaseException as exc:
        result[name] = type(exc).__name__ + ": " + str(exc).splitlines()[0]
print("@@RESULT@@" + json.dumps(result))
'''


@pytest.fixture(scope="module")
def default_mode(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("default_mode")
    (workdir / "default_mode_cases.py").write_text(_CASES)
    completed = subprocess.run([sys.executable, "-c", _DEFAULT_MODE], capture_output=True, text=True, timeout=600,
                               env=compile_environment(), cwd=workdir)
    marker = completed.stdout.rfind("@@RESULT@@")
    assert marker >= 0, completed.stderr[-3000:]
    return json.loads(completed.stdout[marker + len("@@RESULT@@"):])


def test_mindsporess_default_mode_is_pynative(default_mode):
    assert default_mode["mode"] == default_mode["pynative"] != default_mode["graph"]
    assert PYNATIVE == "pynative"  # what ms-lint assumes of an application that selects no mode


UNSUPPORTED_TRY = "RuntimeError: Unsupported statement 'Try'."


def test_pynative_runs_a_cell_and_compiles_only_jit_code(default_mode):
    assert default_mode["cell"] == "ok"
    assert default_mode["jit_lax"] == default_mode["jit_strict"] == UNSUPPORTED_TRY


def test_exporting_mindir_compiles_the_network_in_pynative_too(default_mode):
    assert default_mode["export_fine"] == "ok"
    assert default_mode["export"] == UNSUPPORTED_TRY


@pytest.mark.parametrize("level", ["strict", "lax"])
def test_an_application_that_selects_no_mode_gets_only_its_jit_code_reported(tmp_path, level, default_mode):
    # The compile above: the Cell runs in PyNative, the @jit function fails. ms-lint reports the @jit function and
    # leaves the Cell's finding out, naming the setting that shows it.
    forget_projects()
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "train.py").write_text("import mindspore as ms\nfrom model import Net\n\nnet = Net()\nprint(net)\n")
    silenced = []
    findings = check_source(MODEL, str(tmp_path / "model.py"), Settings(syntax_level=level),
                            RULES_BY_CODE, silenced=silenced)
    assert [(f.code, f.line) for f in findings] == [("MS109", JIT_LINE)]
    assert [(f.code, f.line, f.data[SILENCED_BY]) for f in silenced] == [("MS109", CELL_LINE, "ms-mode=graph")]
    shown = check_file(str(tmp_path / "model.py"), Settings(mode="graph", syntax_level=level), RULES_BY_CODE)
    assert [(f.code, f.line) for f in shown] == [("MS109", CELL_LINE), ("MS109", JIT_LINE)]


@pytest.mark.parametrize("level", ["strict", "lax"])
def test_an_entry_point_that_exports_mindir_compiles_what_it_exports(tmp_path, level, default_mode):
    forget_projects()
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "train.py").write_text("import mindspore as ms\nfrom model import Net\n\nnet = Net()\nprint(net)\n")
    (tmp_path / "export.py").write_text("import mindspore as ms\nfrom model import Net\n\n"
                                        "ms.export(Net(), x, file_name='net', file_format='MINDIR')\n")
    findings = check_file(str(tmp_path / "model.py"), Settings(syntax_level=level), RULES_BY_CODE)
    assert [(f.code, f.line) for f in findings] == [("MS109", CELL_LINE), ("MS109", JIT_LINE)]
    assert findings[0].message.endswith("(compiled by export.py)")


# (id, modules beside the case: name -> source, the case's source): each case fails to compile at both levels where a
# line says "MS109" (a ``try`` a root reaches, in the case or a module beside it), and compiles at both where none
# does; ms-lint reports exactly those lines, each in its own file.
REACH_CASES = [
    ("jit-class-built-on-the-host", {}, """
        import numpy as np
        import mindspore as ms
        from mindspore import nn

        @ms.jit_class
        class Schedule:
            def __init__(self, steps):
                self.scale = self.parse(steps)

            def parse(self, steps):
                try:
                    return float(len(list(self.expand(steps))))
                except ValueError:
                    return 1.0

            def expand(self, steps):
                for step in range(steps):
                    yield np.float32(step)

            def step(self, x):
                return x * self.scale

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.schedule = Schedule(3)

            def construct(self, x):
                return self.schedule.step(x)
    """),
    ("jit-class-method-graph-code-calls", {}, """
        import mindspore as ms
        from mindspore import nn

        @ms.jit_class
        class Schedule:
            def __init__(self):
                self.scale = 2.0

            def step(self, x):
                try:  # MS109
                    y = x * self.scale
                except ValueError:
                    y = x
                return y

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.schedule = Schedule()

            def construct(self, x):
                return self.schedule.step(x)
    """),
    ("jit-class-called-as-a-function", {}, """
        import mindspore as ms
        from mindspore import nn

        @ms.jit_class
        class Processor:
            def __call__(self, x):
                try:  # MS109
                    y = x * 2
                except ValueError:
                    y = x
                return y

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.processor = Processor()

            def construct(self, x):
                return self.processor(x)
    """),
    ("method-found-through-super", {}, """
        from mindspore import nn

        class Base(nn.Cell):
            def scale(self, x):
                try:  # MS109
                    y = x * 2
                except ValueError:
                    y = x
                return y

        class Net(Base):
            def scale(self, x):
                return x

            def construct(self, x):
                return super().scale(x)
    """),
    ("mixin-method-of-another-module", {"scaling": """
        from mindspore import ops

        class ScaleMixin:
            def scale(self, x):
                try:  # MS109
                    y = x * 2
                except ValueError:
                    y = x
                return y

            def describe(self):
                try:
                    return "scale"
                except ValueError:
                    return ""
    """}, """
        from mindspore import nn
        from scaling import ScaleMixin

        class Net(ScaleMixin, nn.Cell):
            def construct(self, x):
                return self.scale(x)
    """),
    ("jit-class-of-another-module", {"schedules": """
        import mindspore as ms

        @ms.jit_class
        class Schedule:
            def __init__(self):
                self.scale = 2.0

            def step(self, x):
                try:  # MS109
                    y = x * self.scale
                except ValueError:
                    y = x
                return y

            def describe(self):
                try:
                    return "schedule"
                except ValueError:
                    return ""
    """}, """
        from mindspore import nn
        from schedules import Schedule

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.schedule = Schedule()

            def construct(self, x):
                return self.schedule.step(x)
    """),
    ("helper-of-another-module", {"clipping": """
        from mindspore import ops

        def clip(x):
            try:  # MS109
                y = x * 2
            except ValueError:
                y = x
            return ops.abs(y)

        def describe(name):
            try:
                return name.upper()
            except AttributeError:
                return ""
    """}, """
        from mindspore import nn
        from clipping import clip, describe

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.title = describe("net")

            def construct(self, x):
                return clip(x)
    """),
    ("jit-class-of-another-module-built-on-the-host", {"parsers": """
        import numpy as np
        import mindspore as ms

        @ms.jit_class
        class Formula:
            def __init__(self, text):
                self.terms = self.parse(text)

            def parse(self, text):
                try:
                    return [np.float32(len(term)) for term in text.split("+")]
                except ValueError:
                    return []

            def __iter__(self):
                yield from self.terms

            def scale(self, x):
                return x * 2
    """}, """
        from mindspore import nn
        from parsers import Formula

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.formula = Formula("a+bb")
                self.count = len(list(self.formula))

            def construct(self, x):
                return self.formula.scale(x) + self.count
    """),
    ("helper-of-another-module-only-host-code-calls", {"naming": """
        import mindspore as ms

        def label(parts):
            try:
                return "-".join(parts) + ms.__version__
            except TypeError:
                return ""
    """}, """
        from mindspore import nn
        from naming import label

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.label = label(["net", "a"])

            def construct(self, x):
                return x * 2
    """),
]


def _marked(path: Path) -> list[int]:
    return [number for number, line in enumerate(path.read_text().splitlines(), 1) if "# MS109" in line]


@pytest.fixture(scope="module")
def reach_outcomes(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("reach_cases")
    for _, modules, _ in REACH_CASES:
        for name, source in modules.items():
            (workdir / f"{name}.py").write_text(textwrap.dedent(source))
    cases = [(source, level, [[2, 3]]) for _, _, source in REACH_CASES for level in ("STRICT", "LAX")]
    results = compile_cases(cases, workdir)
    return workdir, {case[0]: (results[2 * i], results[2 * i + 1]) for i, case in enumerate(REACH_CASES)}


@pytest.mark.parametrize("case", REACH_CASES, ids=[c[0] for c in REACH_CASES])
def test_graph_code_is_what_a_root_reaches(case, reach_outcomes):
    name, modules, _ = case
    workdir, outcomes = reach_outcomes
    index = [c[0] for c in REACH_CASES].index(name)
    path = workdir / f"case_{2 * index}.py"  # written by compile_cases, once per level
    beside = {module: workdir / f"{module}.py" for module in modules}
    fails = bool(_marked(path)) or any(_marked(other) for other in beside.values())
    for result in outcomes[name]:
        assert result.ok is not fails, result.message[:500]
    forget_projects()
    for level in ("strict", "lax"):
        settings = Settings(mode="graph", syntax_level=level)
        assert [f.line for f in check_file(str(path), settings, ["MS109"])] == _marked(path), level
        for other in beside.values():
            found = check_file(str(other), settings, ["MS109"])
            assert [f.line for f in found] == _marked(other), (other.name, level)
            assert all(f"compiled by Net.construct ({path.name})" in f.message for f in found)


def test_the_cases_beside_each_other_read_the_same_whatever_is_checked_first(reach_outcomes):
    workdir, _ = reach_outcomes
    files = sorted(str(path) for path in Path(workdir).glob("*.py"))
    settings = Settings(mode="graph", syntax_level="strict")

    def findings(order):
        forget_projects()
        return {path: [(f.line, f.message) for f in check_file(path, settings, ["MS109"])] for path in order}

    assert findings(files) == findings(list(reversed(files)))
