"""Cells whose constructor needs what only a configuration gives: built by the project's own factory function,
called with the project's configuration file that names it, with real compiles and no examples file."""
from __future__ import annotations

import importlib.util
import os

import pytest

from ms_lint.validate.own_examples import configs_naming, factory_examples
from ms_lint.validate.planning import _parse
from ms_lint.validate.roots import PackageFiles
from ms_lint.validate.verdicts import CONFIRMED, INCONCLUSIVE

from .conftest import needs_mindspore, package_verdicts, write_files

# The configuration files are YAML: reading them needs PyYAML (the validate extra installs it).
needs_yaml = pytest.mark.skipif(importlib.util.find_spec("yaml") is None, reason="PyYAML is not installed")

FILES = {
    "pyproject.toml": "[project]\nname = 'zoo'\nversion = '0'\n",
    "zoo/__init__.py": "",
    "zoo/models.py": """
        import numpy as np
        from mindspore import nn


        class Body(nn.Cell):
            def __init__(self):
                super().__init__()
                self.dense = nn.Dense(4, 4)

            def construct(self, x):
                return self.dense(x)


        class Head(nn.Cell):
            def __init__(self, backbone, frames):
                super().__init__()
                self.backbone = backbone
                self.frames = frames

            def construct(self, x):
                return np.sin(self.backbone(x)) * self.frames


        class Tail(nn.Cell):
            def __init__(self, backbone, frames):
                super().__init__()
                self.backbone = backbone
                self.frames = frames

            def construct(self, x):
                return np.cos(self.backbone(x)) * self.frames


        class Inner(nn.Cell):
            def __init__(self, backbone, scale):
                super().__init__()
                self.backbone = backbone
                self.scale = scale

            def construct(self, x):
                return np.exp(self.backbone(x)) * self.scale


        class Outer(nn.Cell):
            def __init__(self, spec):
                super().__init__()
                self.inner = Inner(Body(), spec)

            def construct(self, x):
                return self.inner(x)


        class Orphan(nn.Cell):
            def __init__(self, backbone, frames):
                super().__init__()
                self.backbone = backbone

            def construct(self, x):
                return np.tan(self.backbone(x))
        """,
    "zoo/registry.py": """
        import mindspore

        from zoo.models import Body, Head, Orphan, Outer, Tail


        def head(cfg):
            net = Body()
            if cfg.model.load_path:
                mindspore.load_checkpoint(cfg.model.load_path, net)
            return net, Head(net, cfg.dataset.num_frames)


        def tail(cfg):
            return Tail(Body(), cfg.dataset.num_frames)


        def outer(cfg):
            return Outer(cfg.spec)


        def orphan(cfg):
            return Orphan(Body(), cfg.dataset.num_frames)
        """,
    # The evaluation configuration comes first; its checkpoint is not on this machine.
    "configs/head/val.yaml": """
        model:
          name: "head"
          load_path: "/nowhere/head.ckpt"
        dataset:
          num_frames: 3
        ---
        model:
          name: "help text of the keys"
        """,
    "configs/head/train.yaml": """
        model:
          name: head
        """,
    "configs/outer.yaml": """
        model: outer
        spec: 4
        """,
    # Names the factory, but lacks a key it reads.
    "configs/tail.yml": """
        model:
          name: tail
        """,
}


@pytest.fixture(scope="module")
def zoo(tmp_path_factory):
    return write_files(tmp_path_factory.mktemp("factories"), FILES)


@pytest.fixture(scope="module")
def verdicts(zoo, worker_pool):
    return package_verdicts(zoo / "zoo", worker_pool)


def test_configurations_naming_a_factory_evaluation_first(zoo):
    found = configs_naming(str(zoo), "head")
    assert [path.split("configs/")[1] for path in found] == ["head/val.yaml", "head/train.yaml"]
    assert configs_naming(str(zoo), "hea") == []  # the whole value, not a part of it
    assert configs_naming(str(zoo), "orphan") == []


def test_a_factory_is_listed_only_with_a_configuration_naming_it(zoo):
    path = str(zoo / "zoo/models.py")
    tree = _parse(path)
    package = PackageFiles()
    head = factory_examples(tree, path, "Head", str(zoo), package)
    assert [(example.function, example.config.split("configs/")[1]) for example in head] == [("head", "head/val.yaml")]
    assert head[0].path.endswith("zoo/registry.py") and head[0].line == 10
    assert factory_examples(tree, path, "Orphan", str(zoo), package) == []
    # A Cell built with its defaults needs no factory.
    assert factory_examples(tree, path, "Body", str(zoo), package) == []


@needs_mindspore
@needs_yaml
@pytest.mark.mindspore
def test_a_cell_built_by_a_factory_from_its_configuration_is_compiled(verdicts):
    verdict = verdicts["Head"]
    assert verdict.verdict == CONFIRMED, (verdict.message, verdict.notes)
    # The checkpoint the configuration names is not here: left None, the factory skips loading it.
    assert verdict.built.startswith("the factory head, which builds Head at zoo/registry.py:10, called with "
                                    "configs/head/val.yaml: Head(<Body>, 3)"), verdict.built


@needs_mindspore
@needs_yaml
@pytest.mark.mindspore
def test_a_configuration_lacking_a_key_the_factory_reads_is_said(verdicts):
    verdict = verdicts["Tail"]
    assert verdict.verdict == INCONCLUSIVE, verdict.message
    assert any("the factory tail" in note and "could not be used" in note and "dataset" in note
               for note in verdict.notes), verdict.notes


@needs_mindspore
@pytest.mark.mindspore
def test_a_factory_no_configuration_names_leaves_the_cell_undecided(verdicts):
    verdict = verdicts["Orphan"]
    assert verdict.verdict == INCONCLUSIVE
    assert "Orphan() needs backbone, frames: no example is registered" in verdict.message


@needs_mindspore
@needs_yaml
@pytest.mark.mindspore
def test_a_factory_building_the_cell_that_builds_it_builds_it_too(verdicts):
    # Outer builds Inner, and needs what no name tells; the factory outer builds Outer from its configuration.
    verdict = verdicts["Inner"]
    assert verdict.verdict == CONFIRMED, (verdict.message, verdict.notes)
    assert verdict.built.startswith("the factory outer, which builds Outer at zoo/registry.py:"), verdict.built
    assert "called with configs/outer.yaml: Inner(<Body>, 4)" in verdict.built, verdict.built


@needs_mindspore
@pytest.mark.mindspore
def test_without_pyyaml_the_factory_gives_way_and_says_why(zoo, tmp_path, monkeypatch):
    """Where the worker cannot import PyYAML (hidden here by a module of that name that fails to import, first on
    the workers' path), the factory is not tried and the notes say why."""
    from ms_lint.validate.pool import PoolConfig, WorkerPool

    hidden = tmp_path / "without_yaml"
    hidden.mkdir()
    (hidden / "yaml.py").write_text("raise ModuleNotFoundError(\"No module named 'yaml'\", name='yaml')\n")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, (str(hidden), os.environ.get("PYTHONPATH")))))
    pool = WorkerPool(PoolConfig(size=1, timeout=60, memory_limit_mb=2048))
    try:
        verdict = package_verdicts(zoo / "zoo", pool)["Head"]
    finally:
        pool.close()
    assert verdict.verdict == INCONCLUSIVE
    assert any("the factory head" in note and "No module named 'yaml'" in note for note in verdict.notes), \
        verdict.notes
