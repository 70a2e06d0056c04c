"""Library Cells validated without an example: each module of a library imports with stand-ins for the optional
packages it needs, whatever the worker's earlier jobs stood in."""
from __future__ import annotations

import pytest

from ms_lint.validate.verdicts import CONFIRMED

from .conftest import needs_mindspore, package_verdicts, write_files

pytestmark = [pytest.mark.mindspore, needs_mindspore]


def _optional_dependencies(module: int, count: int) -> str:
    imports = "".join(f"import ms_lint_absent_dep_{module}_{index}\n" for index in range(count))
    return imports + f'''
import numpy as np
from mindspore import Tensor, nn


class Net{module}(nn.Cell):
    def construct(self, x):
        return Tensor(np.sin(x))
'''


@pytest.fixture(scope="module")
def optional_verdicts(tmp_path_factory, worker_pool):
    # Three modules of seven missing packages each (a worker runs two of them at least) and one of ten.
    files = {"optional/__init__.py": ""}
    files.update({f"optional/m{module}.py": _optional_dependencies(module, 7) for module in range(3)})
    files["optional/m3.py"] = _optional_dependencies(3, 10)
    root = write_files(tmp_path_factory.mktemp("optional"), files)
    return package_verdicts(root / "optional", worker_pool)


def test_each_module_of_a_library_gets_stand_ins_for_its_own_missing_packages(optional_verdicts):
    for module, count in ((0, 7), (1, 7), (2, 7), (3, 10)):
        verdict = optional_verdicts[f"Net{module}"]
        assert verdict.verdict == CONFIRMED, (verdict.message, verdict.notes)
        stood_in = next(note for note in verdict.notes if note.startswith("imported with a stand-in"))
        for index in range(count):
            assert f"ms_lint_absent_dep_{module}_{index}" in stood_in, stood_in


HUB = '''
import os

import numpy as np
from mindspore import Tensor, nn
from ms_lint_absent_hub.constants import HUB_HOME
from ms_lint_absent_hub.checks import _validated
from ms_lint_absent_hub.utils import HubMixin

MODULES_CACHE = os.path.join(HUB_HOME, "modules")  # a missing package's folder, as a path


class Saver(HubMixin):
    pass


Saver.push_to_hub = Saver.push_to_hub  # a class attribute the missing base class gives


class Net(nn.Cell):
    def construct(self, x):
        return Tensor(np.sin(x))


class HubNet(nn.Cell, HubMixin):  # a Cell with a missing mixin still imports
    def construct(self, x):
        return Tensor(np.cos(x))


class Checked(nn.Cell):
    @_validated(hidden=int)  # a private name of a missing module, as a decorator with arguments
    def __init__(self, hidden=4):
        super().__init__()
        self.hidden = hidden

    def construct(self, x):
        return Tensor(np.tan(x))
'''


@pytest.fixture(scope="module")
def hub_verdicts(tmp_path_factory, worker_pool):
    root = write_files(tmp_path_factory.mktemp("hub"), {"hubbed/__init__.py": "", "hubbed/models.py": HUB})
    return package_verdicts(root / "hubbed", worker_pool)


def test_a_missing_package_s_names_serve_as_a_path_and_a_base_s_class_attributes(hub_verdicts):
    net = hub_verdicts["Net"]
    assert net.verdict == CONFIRMED, (net.message, net.notes)
    stood_in = next(note for note in net.notes if note.startswith("imported with a stand-in"))
    assert "ms_lint_absent_hub" in stood_in


def test_a_cell_with_a_missing_mixin_is_built_and_compiled(hub_verdicts):
    net = hub_verdicts["HubNet"]
    assert net.verdict == CONFIRMED, (net.message, net.notes)


def test_a_private_name_of_a_missing_module_is_a_stand_in_that_can_be_called(hub_verdicts):
    checked = hub_verdicts["Checked"]
    assert checked.verdict == CONFIRMED, (checked.message, checked.notes)
    assert checked.built == "Checked() (no arguments)"


LAZY = '''
import importlib

import numpy as np
from mindspore import Tensor, nn


def _load(name):
    try:
        return importlib.import_module(name)
    except Exception as error:
        raise RuntimeError(f"Failed to import {name} because of the following error") from error


loaders = _load("lazy.loaders")


class Net(nn.Cell):
    def construct(self, x):
        return Tensor(np.sin(x))
'''


def test_a_missing_package_behind_a_lazy_loader_s_own_error_gets_a_stand_in(tmp_path, worker_pool):
    files = {"lazy/__init__.py": "", "lazy/loaders.py": "import ms_lint_absent_peft\n", "lazy/models.py": LAZY}
    root = write_files(tmp_path, files)
    net = package_verdicts(root / "lazy", worker_pool)["Net"]
    assert net.verdict == CONFIRMED, (net.message, net.notes)
    assert any("stand-in for the missing package(s) ms_lint_absent_peft" in note for note in net.notes), net.notes
