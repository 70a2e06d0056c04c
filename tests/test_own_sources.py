"""ms-lint's own sources pass flake8 under the configuration in setup.cfg (with the ms-lint plugin loaded)."""
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_own_sources_pass_flake8():
    completed = subprocess.run([sys.executable, "-m", "flake8", "ms_lint", "tests", "benchmarks"], cwd=REPO,
                               capture_output=True, text=True, timeout=600)
    assert completed.returncode == 0, completed.stdout + completed.stderr
