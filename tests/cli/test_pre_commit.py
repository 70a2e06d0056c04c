"""The ``ms-lint`` pre-commit hook, run for real with ``pre-commit run`` on a small git repository.

The hook is the one ``.pre-commit-hooks.yaml`` defines (its id, entry, file types, whether file names are passed),
given to pre-commit as a local hook of the repository under test with ``language: system``: pre-commit runs it with
the ``ms-lint`` of this environment instead of building an environment from the package index, so the tests need
no network. pre-commit comes with the test extra.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from .support import SAMPLE_PROJECT

pytestmark = pytest.mark.slow

REPOSITORY = Path(__file__).resolve().parents[2]

if shutil.which("git") is None:
    pytest.skip("git is not installed (pre-commit needs it)", allow_module_level=True)


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


def ms_lint_hook() -> dict:
    """The ``ms-lint`` hook as this repository's ``.pre-commit-hooks.yaml`` defines it, run from this environment."""
    hooks = yaml.safe_load((REPOSITORY / ".pre-commit-hooks.yaml").read_text())
    hook, = [hook for hook in hooks if hook["id"] == "ms-lint"]
    assert hook["language"] == "python" and hook["entry"] == "ms-lint check"
    return {**hook, "language": "system"}


def use_hooks(repository: Path, *hooks: dict) -> None:
    config = {"repos": [{"repo": "local", "hooks": list(hooks)}]}
    (repository / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    git("add", ".pre-commit-config.yaml", cwd=repository)


def pre_commit(repository: Path, *args: str) -> subprocess.CompletedProcess:
    """``pre-commit run ARGS`` in ``repository``, with this environment's commands first on the path."""
    home = repository.parent / "pre-commit-home"
    path = os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--color=never", *args], cwd=repository, capture_output=True,
        text=True, timeout=300, env={**os.environ, "PRE_COMMIT_HOME": str(home), "PATH": path},
    )


@pytest.fixture
def sample_repository(tmp_path) -> Path:
    root = tmp_path / "sample"
    shutil.copytree(SAMPLE_PROJECT, root)
    (root / "README.md").write_text("# sample\n")
    commit_all(root)
    use_hooks(root, ms_lint_hook())
    return root


def test_hook_fails_with_the_findings(sample_repository):
    result = pre_commit(sample_repository, "--all-files")
    assert result.returncode == 1, result.stdout + result.stderr
    output = result.stdout
    assert "Failed" in output and "hook id: ms-lint" in output
    for expected in ("pkg/model.py:8:9: MS201", "pkg/model.py:11:13: MS101", "pkg/model.py:12:20: MS102",
                     "pkg/head.py:8:16: MS101"):
        assert expected in output, output


def test_hook_passes_on_clean_files(tmp_path):
    root = tmp_path / "clean"
    (root / "pkg").mkdir(parents=True)
    for name in ("__init__.py", "blocks.py", "clean.py"):
        shutil.copy(SAMPLE_PROJECT / "pkg" / name, root / "pkg" / name)
    commit_all(root)
    use_hooks(root, ms_lint_hook())
    result = pre_commit(root, "--all-files")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Passed" in result.stdout


def test_hook_is_skipped_when_no_python_file_is_staged(sample_repository):
    git("commit", "-q", "-m", "hooks", cwd=sample_repository)
    (sample_repository / "README.md").write_text("# sample\n\nmore words\n")
    git("add", "README.md", cwd=sample_repository)
    result = pre_commit(sample_repository)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "(no files to check)Skipped" in result.stdout


def test_hook_checks_only_the_staged_python_files(sample_repository):
    git("commit", "-q", "-m", "hooks", cwd=sample_repository)
    head = sample_repository / "pkg" / "head.py"
    head.write_text(head.read_text() + "\n")
    git("add", "pkg/head.py", cwd=sample_repository)
    result = pre_commit(sample_repository)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "pkg/head.py:8:16: MS101" in result.stdout
    assert "pkg/model.py" not in result.stdout


def test_flake8_hook_reports_the_ms_findings_where_ms_lint_is_installed(sample_repository):
    # The documented alternative: flake8's own hook with ms-lint installed next to it (here the flake8 of this
    # environment, where ms-lint is installed).
    use_hooks(sample_repository, {"id": "flake8", "name": "flake8", "entry": "flake8 --select=MS",
                                  "language": "system", "types": ["python"], "require_serial": True})
    result = pre_commit(sample_repository, "--all-files")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "pkg/model.py:11:13: MS101" in result.stdout
    assert "pkg/head.py:8:16: MS101" in result.stdout
