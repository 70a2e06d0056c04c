"""Helpers for the command-line tests: the sample project's expected findings and ``ms-lint`` in a subprocess."""
from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

SAMPLE_PROJECT = Path(__file__).parent / "fixtures" / "sample_project"

# What the sample project holds, as ``ms-lint check`` prints it from the project's root (path, line, column, code).
SAMPLE_FINDINGS = [
    ("pkg/head.py", 8, 16, "MS101"),
    ("pkg/model.py", 8, 9, "MS201"),
    ("pkg/model.py", 11, 13, "MS101"),
    ("pkg/model.py", 12, 20, "MS102"),
]


@dataclass
class Run:
    status: int
    out: str
    err: str

    @property
    def said(self) -> str:
        """Standard error without the lines naming the target (``target: ...``), which every check run prints after
        the findings: what the run said of its work (the closing line, ``--add-noqa``'s count, statistics, errors)."""
        return "".join(line for line in self.err.splitlines(keepends=True) if not line.startswith("target: "))

    def findings(self) -> list[tuple[str, int, int, str]]:
        """The text report's findings as ``(path, line, column, code)``, paths without a leading ``./``."""
        found = []
        for line in self.out.splitlines():
            location, _, rest = line.partition(": ")
            path, row, column = location.rsplit(":", 2)
            found.append((path.removeprefix("./"), int(row), int(column), rest.split(" ", 1)[0]))
        return found


def run_process(*args: str, cwd: Path, stdin: bytes | None = None) -> Run:
    """``python -m ms_lint.cli ARGS`` in a fresh interpreter (for standard input and real exit statuses)."""
    completed = subprocess.run(
        [sys.executable, "-m", "ms_lint.cli", *args], cwd=cwd, input=stdin, capture_output=True, timeout=120
    )
    return Run(completed.returncode, completed.stdout.decode(), completed.stderr.decode())
