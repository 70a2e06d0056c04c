"""The ``ms-lint`` pre-commit hook, run for real with ``pre-commit try-repo`` on a small project.

The hook repository is a fresh commit of this working tree (``try-repo`` installs from a commit, and the working
tree may hold changes not committed yet). pre-commit builds the hook's environment from the package index once
per module; set ``PRE_COMMIT_HOME`` to reuse it across runs.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .support import SAMPLE_PROJECT

pytestmark = pytest.mark.slow

REPOSITORY = Path(__file__).resolve().parents[2]
# What installing the hook needs from the working tree.
HOOK_FILES = ("pyproject.toml", "README.md", "LICENSE", "setup.cfg", ".pre-commit-hooks.yaml")
HOOK_DIRECTORIES = ("ms_lint",)

pytest.importorskip("pre_commit", reason="pre-commit is not installed")
if shutil.which("git") is None:
    pytest.skip("git is not installed", allow_module_level=True)


def git(*args: str, cwd: Path) -> str:
    completed = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True,
        env={**os.environ, "GIT_AUTHOR_NAME": "test", "GIT_AUTHOR_EMAIL": "test@example.com",
             "GIT_COMMITTER_NAME": "test", "GIT_COMMITTER_EMAIL": "test@example.com"},
    )
    return completed.stdout


def commit_all(path: Path) -> None:
    git("init", "-q", "-b", "main", cwd=path)
    git("add", "-A", cwd=path)
    git("commit", "-q", "-m", "snapshot", cwd=path)


def working_tree_files() -> list[Path]:
    """The hook's files in this working tree, committed or not, without what git ignores."""
    try:
        listed = git("ls-files", "-co", "--exclude-standard", "-z", cwd=REPOSITORY).split("\0")
    except (subprocess.CalledProcessError, OSError):
        listed = [str(p.relative_to(REPOSITORY)) for d in HOOK_DIRECTORIES for p in (REPOSITORY / d).rglob("*")]
        listed += list(HOOK_FILES)
    wanted = []
    for name in filter(None, listed):
        relative = Path(name)
        if (name in HOOK_FILES or relative.parts[0] in HOOK_DIRECTORIES) and (REPOSITORY / relative).is_file():
            wanted.append(relative)
    return wanted


@pytest.fixture(scope="module")
def hook_repository(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("hook-repository")
    for relative in working_tree_files():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPOSITORY / relative, root / relative)
    assert (root / ".pre-commit-hooks.yaml").is_file()
    commit_all(root)
    return root


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory) -> Path:
    configured = os.environ.get("PRE_COMMIT_HOME")
    return Path(configured) if configured else tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture
def sample_repository(tmp_path) -> Path:
    root = tmp_path / "sample"
    shutil.copytree(SAMPLE_PROJECT, root)
    (root / "README.md").write_text("# sample\n")
    commit_all(root)
    return root


def try_repo(hook_repository: Path, project: Path, home: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(hook_repository), "ms-lint", "--color=never", *args],
        cwd=project, capture_output=True, text=True, timeout=900,
        env={**os.environ, "PRE_COMMIT_HOME": str(home)},
    )


def test_hook_fails_with_the_findings(hook_repository, pre_commit_home, sample_repository):
    result = try_repo(hook_repository, sample_repository, pre_commit_home, "--all-files")
    assert result.returncode == 1, result.stdout + result.stderr
    output = result.stdout
    assert "Failed" in output and "hook id: ms-lint" in output
    for expected in ("pkg/model.py:8:9: MS201", "pkg/model.py:11:13: MS101", "pkg/model.py:12:20: MS102",
                     "pkg/head.py:8:16: MS101"):
        assert expected in output, output


def test_hook_passes_on_clean_files(hook_repository, pre_commit_home, tmp_path):
    root = tmp_path / "clean"
    (root / "pkg").mkdir(parents=True)
    for name in ("__init__.py", "blocks.py", "clean.py"):
        shutil.copy(SAMPLE_PROJECT / "pkg" / name, root / "pkg" / name)
    commit_all(root)
    result = try_repo(hook_repository, root, pre_commit_home, "--all-files")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Passed" in result.stdout


def test_hook_is_skipped_when_no_python_file_is_staged(hook_repository, pre_commit_home, sample_repository):
    (sample_repository / "README.md").write_text("# sample\n\nmore words\n")
    git("add", "README.md", cwd=sample_repository)
    result = try_repo(hook_repository, sample_repository, pre_commit_home)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "(no files to check)Skipped" in result.stdout


def test_hook_checks_only_the_staged_python_files(hook_repository, pre_commit_home, sample_repository):
    head = sample_repository / "pkg" / "head.py"
    head.write_text(head.read_text() + "\n")
    git("add", "pkg/head.py", cwd=sample_repository)
    result = try_repo(hook_repository, sample_repository, pre_commit_home)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "pkg/head.py:8:16: MS101" in result.stdout
    assert "pkg/model.py" not in result.stdout


def test_flake8_hook_with_ms_lint_as_additional_dependency(hook_repository, pre_commit_home, sample_repository):
    # The documented alternative: flake8's own hook with ms-lint installed next to it (here as a local hook, so
    # that the test needs no clone of flake8's repository).
    (sample_repository / ".pre-commit-config.yaml").write_text(
        "repos:\n"
        "  - repo: local\n"
        "    hooks:\n"
        "      - id: flake8\n"
        "        name: flake8\n"
        "        entry: flake8 --select=MS\n"
        "        language: python\n"
        "        types: [python]\n"
        "        require_serial: true\n"
        f"        additional_dependencies: [flake8, '{hook_repository}']\n"
    )
    git("add", ".pre-commit-config.yaml", cwd=sample_repository)
    result = subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files", "--color=never"],
        cwd=sample_repository, capture_output=True, text=True, timeout=900,
        env={**os.environ, "PRE_COMMIT_HOME": str(pre_commit_home)},
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "pkg/model.py:11:13: MS101" in result.stdout
    assert "pkg/head.py:8:16: MS101" in result.stdout
