"""Editors run ``flake8 --stdin-display-name=PATH -`` on the unsaved buffer: the MS findings must be those of the file.

``pkg/head.py`` subclasses ``Block`` from ``pkg/blocks.py``; its MS101 exists only if the Cell base is resolved
through the other module, which on standard input can only be found from the display name's location.
"""
from __future__ import annotations

import subprocess
import sys

import pytest

from .support import run_process


def flake8(*args: str, cwd, stdin: bytes | None = None) -> list[str]:
    completed = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select=MS", *args],
        cwd=cwd, input=stdin, capture_output=True, timeout=120,
    )
    assert completed.returncode in (0, 1), completed.stderr.decode()
    return completed.stdout.decode().splitlines()


def test_flake8_on_standard_input_matches_flake8_on_the_file(project):
    on_file = flake8("pkg/head.py", cwd=project)
    on_stdin = flake8("--stdin-display-name=pkg/head.py", "-", cwd=project,
                      stdin=(project / "pkg" / "head.py").read_bytes())
    assert on_file, "the cross-module Cell's finding is missing on the file itself"
    assert [line.split(" ", 2)[:2] for line in on_file] == [["pkg/head.py:8:16:", "MS101"]]
    assert on_stdin == on_file


def test_flake8_on_an_unsaved_buffer_resolves_bases_from_the_display_name(project):
    buffer = (project / "pkg" / "head.py").read_bytes()
    on_stdin = flake8("--stdin-display-name=pkg/unsaved_head.py", "-", cwd=project, stdin=buffer)
    assert [line.split(" ", 2)[:2] for line in on_stdin] == [["pkg/unsaved_head.py:8:16:", "MS101"]]


def test_flake8_with_an_absolute_display_name_from_another_directory(project, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    display = project / "pkg" / "head.py"
    on_stdin = flake8(f"--stdin-display-name={display}", "-", cwd=elsewhere, stdin=display.read_bytes())
    assert [line.split(" ", 2)[:2] for line in on_stdin] == [[f"{display}:8:16:", "MS101"]]


@pytest.mark.parametrize("name", ["model.py", "head.py", "clean.py"])
def test_ms_lint_check_on_standard_input_matches_the_file(project, name):
    path = f"pkg/{name}"
    on_file = run_process("check", "--isolated", path, cwd=project)
    on_stdin = run_process("check", "--isolated", f"--stdin-display-name={path}", "-", cwd=project,
                           stdin=(project / path).read_bytes())
    assert (on_stdin.status, on_stdin.out) == (on_file.status, on_file.out)
    assert on_stdin.out.splitlines() == flake8(path, cwd=project)
