"""Which files ``ms-lint check`` finds: flake8's patterns, and, as ruff, not what git ignores, virtual environments
or build output; ``--no-respect-gitignore`` checks them all, files named on the command line are always checked
unless ``--force-exclude``."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from ms_lint.discovery import discover_files, git_ignored, is_environment

from .support import run_process

HAZARD = "import numpy as np\nfrom mindspore import nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x):\n" \
         "        return np.sin(x)\n"

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs the git executable")


def _write(root: Path, relative: str, text: str = HAZARD) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _tree(root: Path) -> None:
    _write(root, "pkg/model.py")
    _write(root, "generated/gen.py")
    _write(root, "skip_me.py")
    _write(root, "pkg/keep_me.py")
    _write(root, ".venv/lib/python3.11/site-packages/lib/mod.py")
    _write(root, "venv/mod.py")
    _write(root, "env2/lib/mod.py")
    _write(root, "env2/pyvenv.cfg", "home = /usr/bin\n")
    _write(root, "vendor/site-packages/mod.py")
    _write(root, "build/lib/mod.py")
    _write(root, "dist/mod.py")
    _write(root, ".gitignore", "generated/\nskip_me.py\n*_me.py\n!keep_me.py\n")


def _git_init(root: Path) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)


def _checked(root: Path, *args: str) -> list[str]:
    run = run_process("check", "--isolated", "--ms-syntax-level=strict", "--no-cache", *args, cwd=root)
    assert run.status in (0, 1), run.err
    return sorted({line.split(":", 1)[0].removeprefix("./") for line in run.out.splitlines()})


ALL = sorted(["build/lib/mod.py", "dist/mod.py", "env2/lib/mod.py", "generated/gen.py", "pkg/keep_me.py",
              "pkg/model.py", "skip_me.py", "venv/mod.py", "vendor/site-packages/mod.py",
              ".venv/lib/python3.11/site-packages/lib/mod.py"])


@needs_git
def test_a_walk_skips_what_git_ignores_and_environments(tmp_path):
    _tree(tmp_path)
    _git_init(tmp_path)
    assert _checked(tmp_path, ".") == ["pkg/keep_me.py", "pkg/model.py"]  # keep_me.py: git's negation holds
    assert _checked(tmp_path) == ["pkg/keep_me.py", "pkg/model.py"]  # the default path is the current directory


@needs_git
def test_no_respect_gitignore_checks_everything(tmp_path):
    _tree(tmp_path)
    _git_init(tmp_path)
    assert _checked(tmp_path, "--no-respect-gitignore", ".") == sorted(ALL)


@needs_git
def test_respect_gitignore_can_be_set_in_pyproject(tmp_path):
    _tree(tmp_path)
    _git_init(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.ms-lint]\nrespect-gitignore = false\n")
    run = run_process("check", "--ms-syntax-level=strict", "--no-cache", ".", cwd=tmp_path)
    assert len(run.out.splitlines()) == len(ALL)


@needs_git
def test_named_files_are_checked_unless_force_exclude(tmp_path):
    _tree(tmp_path)
    _git_init(tmp_path)
    named = ["skip_me.py", "generated/gen.py", "dist/mod.py", "env2/lib/mod.py", "pkg/model.py"]
    assert _checked(tmp_path, *named) == sorted(named)
    assert _checked(tmp_path, "--force-exclude", *named) == ["pkg/model.py"]
    # A named directory is walked; below it the skips apply again.
    assert _checked(tmp_path, "generated", "build") == ["build/lib/mod.py", "generated/gen.py"]
    assert _checked(tmp_path, "--force-exclude", "generated", "build") == []


@needs_git
def test_a_subdirectory_of_the_work_tree(tmp_path):
    _tree(tmp_path)
    _write(tmp_path, "pkg/generated/x.py")  # ignored by the root's "generated/" at any depth
    _write(tmp_path, "pkg/.gitignore", "local.py\n")
    _write(tmp_path, "pkg/local.py")
    _git_init(tmp_path)
    assert _checked(tmp_path / "pkg", ".") == ["keep_me.py", "model.py"]


def test_outside_a_git_work_tree_gitignore_means_nothing_but_environments_are_skipped(tmp_path):
    if any((parent / ".git").exists() for parent in [tmp_path, *tmp_path.parents]):
        pytest.skip("the temporary directory is inside a git work tree")
    _tree(tmp_path)
    assert git_ignored(str(tmp_path)) is None
    assert _checked(tmp_path, ".") == ["generated/gen.py", "pkg/keep_me.py", "pkg/model.py", "skip_me.py"]


def test_flake8_excludes_still_apply(tmp_path):
    _write(tmp_path, "pkg/model.py")
    _write(tmp_path, "pkg/.tox/x.py")
    _write(tmp_path, "pkg/other/y.py")
    assert _checked(tmp_path, "--extend-exclude", "other", ".") == ["pkg/model.py"]


def test_is_environment(tmp_path):
    (tmp_path / "anything").mkdir()
    assert not is_environment(str(tmp_path / "anything"))
    (tmp_path / "anything" / "pyvenv.cfg").write_text("")
    assert is_environment(str(tmp_path / "anything"))
    for name in (".venv", "venv", "site-packages", "build", "dist"):
        assert is_environment(str(tmp_path / name))
    assert not is_environment(str(tmp_path / "builder"))


@needs_git
def test_without_git_nothing_is_skipped_for_gitignore(tmp_path, monkeypatch):
    _tree(tmp_path)
    _git_init(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "no-such-bin"))
    found = discover_files([str(tmp_path)], filename_patterns=["*.py"], exclude=[])
    relative = sorted(os.path.relpath(path, tmp_path) for path in found)
    assert relative == ["generated/gen.py", "pkg/keep_me.py", "pkg/model.py", "skip_me.py"]


def test_standard_input_is_kept(tmp_path):
    assert discover_files(["-"], filename_patterns=["*.py"], exclude=[]) == ["-"]
