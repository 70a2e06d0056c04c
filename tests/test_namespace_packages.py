"""Namespace packages (PEP 420: directories without ``__init__.py``) in every lookup of the project's modules: a
Cell base class, a helper function, a module-level instance's method, as found with the ``__init__.py`` there.

Python imports ``models.base`` in ``proj/models/net.py`` from ``proj`` (the directory the program runs from, or a
``src`` directory on the path): ms-lint looks in the directories above the file up to the project's root (where
``pyproject.toml``, ``setup.cfg``, ``setup.py`` or ``.git`` lies), after the places it looks for regular packages.
"""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from ms_lint.engine import check_file
from ms_lint.model import project
from ms_lint.rules import RULES_BY_CODE
from ms_lint.settings import Settings

BASE = """\
from mindspore import nn


class Base(nn.Cell):
    pass
"""
NET = """\
import numpy as np

from {package}.base import Base


class Net(Base):
    def construct(self, x):
        return np.sin(x)
"""
SEEDING = """\
import mindspore


def prepare():
    mindspore.set_seed(1)
"""
TRAIN = """\
from mindspore import Model, nn

from {package}.seeding import prepare


def main():
    prepare()
    net = nn.Dense(4, 2)
    Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.01, 0.9)).train(1, None)


if __name__ == "__main__":
    main()
"""
REGISTRY = """\
from mindspore import Parameter, Tensor


class Registry:
    def register(self, value):
        return Parameter(Tensor(value), requires_grad=False)


registry = Registry()
"""
STEP = """\
from mindspore import nn

from {package}.registry import registry


class Step(nn.Cell):
    def __init__(self):
        super().__init__()
        self.lr = registry.register(0.1)
        self.state = 0.0

    def construct(self, x, lr):
        self.lr = lr
        self.state = x.sum()
        return x * self.lr
"""


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def codes(path: Path) -> list[str]:
    return sorted(f.code for f in check_file(str(path), Settings(syntax_level="strict", device="any"), RULES_BY_CODE))


@pytest.fixture(params=["namespace", "regular"])
def layout(request, tmp_path) -> tuple[Path, Path]:
    """(the project's root, the package's directory) for a package without and with ``__init__.py``."""
    root = tmp_path / "proj"
    package = root / "models"
    package.mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'proj'\n")
    if request.param == "regular":
        (package / "__init__.py").write_text("")
    return root, package


def test_a_cell_base_class_in_a_namespace_package_is_found(layout):
    _, package = layout
    write(package, {"base.py": BASE, "net.py": NET.format(package="models")})
    assert codes(package / "net.py") == ["MS101"]


def test_a_helper_function_in_a_namespace_package_is_followed(layout):
    _, package = layout
    write(package, {"seeding.py": SEEDING, "train.py": TRAIN.format(package="models")})
    # prepare() seeds: found, MS402 has nothing to say; a helper that is not found does not seed
    assert "MS402" not in codes(package / "train.py")
    (package / "seeding.py").write_text(SEEDING.replace("mindspore.set_seed(1)", "pass"))
    assert "MS402" in codes(package / "train.py")


def test_a_module_level_instance_s_method_in_a_namespace_package_is_followed(layout):
    _, package = layout
    write(package, {"registry.py": REGISTRY, "step.py": STEP.format(package="models")})
    # registry.register returns a Parameter: writing self.lr in construct is supported, self.state is not
    findings = check_file(str(package / "step.py"), Settings(syntax_level="strict"), ["MS108"])
    assert [f.data["attribute"] for f in findings] == ["state"]


def test_a_src_layout_and_a_regular_package_inside_a_namespace_package(tmp_path):
    root = tmp_path / "proj"
    write(root, {".git/HEAD": "", "src/ns/models/__init__.py": "", "src/ns/models/base.py": BASE,
                 "src/ns/nets/net.py": NET.format(package="ns.models"),
                 "src/ns/models/net.py": NET.format(package="ns.models")})
    assert codes(root / "src" / "ns" / "nets" / "net.py") == ["MS101"]
    assert codes(root / "src" / "ns" / "models" / "net.py") == ["MS101"]
    assert project.source_roots(str(root / "src" / "ns" / "nets" / "net.py")) == [
        str(root / "src" / "ns" / "nets"), str(root / "src" / "ns"), str(root / "src"), str(root)]


def test_without_a_project_root_only_the_file_s_own_directory_is_searched(tmp_path):
    # No marker above: where Python would import the package from is unknown, as before.
    package = tmp_path / "loose" / "models"
    write(package, {"base.py": BASE, "net.py": NET.format(package="models")})
    if project.namespace_roots(str(package)):  # a project marker above the temporary directory
        pytest.skip(f"{tmp_path} lies in a project")
    assert codes(package / "net.py") == []
    assert project.source_roots(str(package / "net.py")) == [str(package)]


def test_a_module_of_the_file_s_own_directory_comes_before_one_of_the_project_root(tmp_path):
    root = tmp_path / "proj"
    write(root, {"setup.cfg": "", "base.py": "class Base:\n    pass\n", "models/base.py": BASE,
                 "models/net.py": NET.format(package="models").replace("from models.base", "from base")})
    assert codes(root / "models" / "net.py") == ["MS101"]  # base is models/base.py, the script's neighbour
