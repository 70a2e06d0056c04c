"""What the model's configuration values claim of MindSpore, checked with the real MindSpore on CPU (2.10 and
2.7.1: ``nox -s ground-truth-2.7.1``): the graph parser folds an attribute of a configuration object (a module's
global, or one a Cell holds) as the constant it holds, so a branch on a switch that is off is never compiled, and
ms-lint leaves out what lies there where every configuration of the application turns it off."""
from __future__ import annotations

import textwrap

import pytest

from ms_lint.engine import check_file
from ms_lint.settings import Settings
from ms_lint.target import forget_projects
from tests.mindspore_compile import compile_cases
from tests.test_configuration_values import TRAIN, application

pytestmark = pytest.mark.mindspore


@pytest.fixture(autouse=True)
def fresh_projects():
    forget_projects()
    yield
    forget_projects()


# The parser folds an attribute of a configuration object as the constant it holds: a branch on a switch that is
# off is never compiled (a call it would reject there compiles), one that is on is.
GRAPH_BRANCH = """
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.config = config

        def construct(self, x):
            if config.temporal_pool:
                x = x.size(0)
            if self.config.mode == "conv":
                x = x.size(1)
            return x * 2
"""


@pytest.mark.parametrize("switch", [False, True])
def test_the_parser_drops_a_branch_on_a_switch_every_configuration_turns_off(tmp_path, switch):
    inline = (f"import mindspore as ms\nfrom mindspore import nn\n\n\nclass Config:\n    temporal_pool = {switch}\n"
              f"    mode = 'fc'\n\n\nconfig = Config()\n" + textwrap.dedent(GRAPH_BRANCH))
    strict, lax = compile_cases([(inline, "STRICT", [[2, 3]]), (inline, "LAX", [[2, 3]])], tmp_path)
    assert (strict.ok, lax.ok) == (not switch, not switch), (strict.message[:300], lax.message[:300])
    settings = f'{{"non_local": false, "mode": "fc", "temporal_pool": {str(switch).lower()}}}'  # (PyYAML or not)
    model = application(tmp_path / "app", {"a.json": settings})
    model.write_text("import mindspore as ms\nfrom mindspore import nn\n\nfrom model_utils.config import config\n\n"
                     + textwrap.dedent(GRAPH_BRANCH))
    (tmp_path / "app" / "train.py").write_text(TRAIN.replace("Net(3, non_local=config.non_local, mode=config.mode)",
                                                             "Net()"))
    findings = [finding for finding in check_file(str(model), Settings(mode="graph"), ["MS602"])]
    line = model.read_text().splitlines().index("            x = x.size(0)") + 1
    assert [finding.line for finding in findings] == ([] if not switch else [line])
