"""Fixtures for the command-line tests: a private copy of the sample project, and ``ms-lint`` run in process."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ms_lint.cli import main

from .support import SAMPLE_PROJECT, Run


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    """A copy of the sample project, as the working directory (no configuration file above it)."""
    root = tmp_path / "project"
    shutil.copytree(SAMPLE_PROJECT, root)
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def ms_lint(capsys):
    """Run ``ms-lint ARGS`` in this process; returns its exit status and output."""

    def run(*args: str) -> Run:
        capsys.readouterr()
        try:
            status = main(list(args))
        except SystemExit as exc:  # argparse's usage errors
            status = exc.code if isinstance(exc.code, int) else 2
        captured = capsys.readouterr()
        return Run(status, captured.out, captured.err)

    return run
