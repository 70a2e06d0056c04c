"""What an entry point compiles in GRAPH_MODE, measured: building a Cell compiles nothing; ``export`` compiles the
Cell it is given (and what that Cell holds), not another built beside it; calling a Cell compiles it. ms-lint's
answer (``handover.compiled_classes``) is checked against the same shapes: a Cell that only a PyNative entry runs
and a GRAPH_MODE entry only builds is no graph code."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ms_lint.engine import check_file
from ms_lint.rules import RULES_BY_CODE
from ms_lint.settings import Settings
from ms_lint.target import SILENCED_BY, forget_projects
from tests.mindspore_compile import compile_environment

pytestmark = pytest.mark.mindspore

# A backbone that compiles, and an evaluation wrapper around it whose construct graph mode refuses (``try``).
_CASES = """
from mindspore import nn


class Net(nn.Cell):
    def construct(self, x):
        return x * 2


class Post(nn.Cell):
    def __init__(self, backbone):
        super().__init__()
        self.backbone = backbone

    def construct(self, x):
        try:
            y = self.backbone(x)
        except ValueError:
            y = x
        return y
"""

_RUN = r'''
import json
import numpy as np
import mindspore as ms
from handover_cases import Net, Post

x = ms.Tensor(np.ones((2, 3), np.float32))
result = {}
for level in ("STRICT", "LAX"):
    ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=getattr(ms, level))
    for name, run in (("build", lambda: Post(Net())),
                      ("export_backbone", lambda: (Post(Net()), ms.export(Net(), x, file_name="net",
                                                                          file_format="MINDIR"))),
                      ("export_wrapper", lambda: ms.export(Post(Net()), x, file_name="post", file_format="MINDIR")),
                      ("call_wrapper", lambda: Post(Net())(x))):
        try:
            run()
            result[f"{name}_{level}"] = "ok"
        except BaseException as exc:
            result[f"{name}_{level}"] = type(exc).__name__ + ": " + str(exc).splitlines()[0]
print("@@RESULT@@" + json.dumps(result))
'''

UNSUPPORTED_TRY = "RuntimeError: Unsupported statement 'Try'."


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("handover")
    (workdir / "handover_cases.py").write_text(_CASES)
    completed = subprocess.run([sys.executable, "-c", _RUN], capture_output=True, text=True, timeout=600,
                               env=compile_environment(), cwd=workdir)
    marker = completed.stdout.rfind("@@RESULT@@")
    assert marker >= 0, completed.stderr[-3000:]
    return json.loads(completed.stdout[marker + len("@@RESULT@@"):])


@pytest.mark.parametrize("level", ["STRICT", "LAX"])
def test_graph_mode_compiles_what_is_exported_or_called_not_what_is_built(measured, level):
    assert measured[f"build_{level}"] == "ok"
    assert measured[f"export_backbone_{level}"] == "ok"  # the wrapper built beside it is never compiled
    assert measured[f"export_wrapper_{level}"] == UNSUPPORTED_TRY
    assert measured[f"call_wrapper_{level}"] == UNSUPPORTED_TRY


# The same shapes as an application: a registry of factories that return (network, evaluation wrapper), an export
# script in GRAPH_MODE, a training script in PyNative.
_MODELS = _CASES.replace("from mindspore import nn\n", "from mindspore import nn\n\n_factories = {}\n\n\n"
                         "def register(fn):\n    _factories[fn.__name__] = fn\n    return fn\n") + """

@register
def net(cfg):
    network = Net()
    return network, Post(network)


def create(name, cfg=None):
    network, wrapper = _factories[name](cfg)
    return network, wrapper
"""
_TRY_LINE = _MODELS.splitlines().index("        try:") + 1
_EXPORT = """import numpy as np
import mindspore as ms
from models import create

ms.set_context(mode=ms.GRAPH_MODE)


def main(name):
    {binding} = create(name)
    ms.export({exported}, ms.Tensor(np.ones((2, 3), np.float32)), file_name="net", file_format="MINDIR")


if __name__ == "__main__":
    main("net")
"""
_TRAIN = """import numpy as np
import mindspore as ms
from models import create

ms.set_context(mode=ms.PYNATIVE_MODE)

if __name__ == "__main__":
    network, wrapper = create("net")
    print(wrapper(ms.Tensor(np.ones((2, 3), np.float32))))
"""


def _check(tmp_path, export: str, level: str):
    forget_projects()
    (tmp_path / "models.py").write_text(_MODELS)
    (tmp_path / "export.py").write_text(export)
    (tmp_path / "train.py").write_text(_TRAIN)
    silenced = []
    from ms_lint.engine import check_source
    findings = check_source(_MODELS, str(tmp_path / "models.py"), Settings(syntax_level=level.lower()),
                            RULES_BY_CODE, silenced=silenced)
    return ([(f.code, f.line) for f in findings],
            [(f.code, f.line, f.data.get(SILENCED_BY)) for f in silenced if f.code == "MS109"])


@pytest.mark.parametrize("level", ["STRICT", "LAX"])
def test_a_wrapper_the_graph_entry_only_builds_is_no_graph_code(tmp_path, measured, level):
    assert measured[f"export_backbone_{level}"] == "ok"
    findings, silenced = _check(tmp_path, _EXPORT.format(binding="network, _", exported="network"), level)
    assert ("MS109", _TRY_LINE) not in findings
    assert silenced == [("MS109", _TRY_LINE, "ms-mode=graph")]
    shown = check_file(str(tmp_path / "models.py"), Settings(mode="graph", syntax_level=level.lower()),
                       RULES_BY_CODE)
    assert ("MS109", _TRY_LINE) in [(f.code, f.line) for f in shown]


@pytest.mark.parametrize("level", ["STRICT", "LAX"])
def test_the_wrapper_exported_is_graph_code(tmp_path, measured, level):
    assert measured[f"export_wrapper_{level}"] == UNSUPPORTED_TRY
    findings, _ = _check(tmp_path, _EXPORT.format(binding="_, wrapper", exported="wrapper"), level)
    assert ("MS109", _TRY_LINE) in findings


@pytest.mark.parametrize("level", ["STRICT", "LAX"])
def test_the_wrapper_called_in_graph_mode_is_graph_code(tmp_path, measured, level):
    assert measured[f"call_wrapper_{level}"] == UNSUPPORTED_TRY
    export = _EXPORT.format(binding="network, wrapper", exported="network").replace(
        "    ms.export(", "    wrapper(ms.Tensor(np.ones((2, 3), np.float32)))\n    ms.export(")
    findings, _ = _check(tmp_path, export, level)
    assert ("MS109", _TRY_LINE) in findings


@pytest.mark.parametrize("level", ["STRICT", "LAX"])
def test_a_wrapper_a_string_of_the_application_names_may_be_built_by_that_name(tmp_path, measured, level):
    # ``EXPERIMENTS = ("models.Post", ...)``: code the reading does not follow may look the class up by its name and
    # compile it; a docstring naming it is no such string
    (tmp_path / "experiments.py").write_text('"""Post, the wrapper, is built by its own experiment."""\n')
    findings, _ = _check(tmp_path, _EXPORT.format(binding="network, _", exported="network"), level)
    assert ("MS109", _TRY_LINE) not in findings
    (tmp_path / "experiments.py").write_text('EXPERIMENTS = ("models.Post",)\n')
    findings, _ = _check(tmp_path, _EXPORT.format(binding="network, _", exported="network"), level)
    assert ("MS109", _TRY_LINE) in findings
