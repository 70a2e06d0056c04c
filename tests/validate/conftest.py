"""Shared pieces of the validator's tests: private copies of the test projects, one worker pool for the session
(importing MindSpore costs seconds per process), and findings built at known lines."""
from __future__ import annotations

import importlib.util
import shutil
import textwrap
from pathlib import Path

import pytest

from ms_lint.findings import Finding

PROJECTS = Path(__file__).parent / "projects"
REPOSITORY = Path(__file__).parents[2]
HAS_MINDSPORE = importlib.util.find_spec("mindspore") is not None


def write_files(root: Path, files: dict[str, str]) -> Path:
    """``files`` (path below ``root`` -> text, dedented) written under ``root``; ``root``."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
    return root


def package_verdicts(package: Path, pool) -> dict:
    """The validator's verdicts on the findings in ``package`` at STRICT, without a cache, by the scope of each."""
    from ms_lint.validate.runner import ValidateOptions, lint_options_for, validate_paths

    report = validate_paths([str(package)], ValidateOptions(use_cache=False, timeout=90), pool=pool,
                            lint_options=lint_options_for("strict"))
    return {verdict.finding.scope: verdict for verdict in report.verdicts}


needs_mindspore = pytest.mark.skipif(not HAS_MINDSPORE, reason="MindSpore is not installed")


@pytest.fixture(scope="session")
def projects(tmp_path_factory) -> Path:
    """A copy of tests/validate/projects: runs write their cache next to the project."""
    root = tmp_path_factory.mktemp("validate-projects")
    for project in PROJECTS.iterdir():
        if project.is_dir():
            ignored = shutil.ignore_patterns("__pycache__", ".ms_lint_cache")
            shutil.copytree(project, root / project.name, ignore=ignored)
    return root


@pytest.fixture(scope="session")
def worker_pool():
    """Two workers for the whole session; tests pass their own timeouts and limits per job."""
    from ms_lint.validate.pool import PoolConfig, WorkerPool

    pool = WorkerPool(PoolConfig(size=2, timeout=60, memory_limit_mb=2048))
    yield pool
    pool.close()


def finding_at(path: Path, text: str, code: str, scope: str, occurrence: int = 1, *, reported: bool = True
               ) -> Finding:
    """A finding on the line of ``path`` that contains ``text`` (its ``occurrence``-th such line), with the data
    the static check gives ``code`` there.

    ``reported`` says whether the static check reports ``code`` on that line (at STRICT or LAX, on any device), and
    is checked: a test that hands the validator a finding ms-lint does not make (a false positive it is to refute)
    says ``reported=False``."""
    seen = 0
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if text in line:
            seen += 1
            if seen == occurrence:
                return built_finding(path, number, line.index(text), code, scope, reported=reported)
    raise AssertionError(f"{text!r} is not in {path}")


def built_finding(path, line: int, col: int, code: str, scope: str, message: str | None = None, *,
                  reported: bool = True) -> Finding:
    """A finding of ``code`` at ``line`` of ``path``, with the data the static check gives it there (none where it
    reports nothing there); ``reported``: see ``finding_at``, and checked the same way."""
    levels = reporting_levels(path, code, line)
    assert bool(levels) == reported, (
        f"{code} at {path}:{line} is {'reported at ' + ' and '.join(levels) if levels else 'reported at no level'} "
        f"by ms-lint, but the test says reported={reported}")
    return Finding(str(path), line, col, code, message or f"{code} in {scope}", scope,
                   data=reported_data(path, code, line))


def reporting_levels(path, code: str, line: int) -> list[str]:
    """The syntax levels at which the static check reports ``code`` at ``line`` of ``path``, on any device (a
    finding that holds only on another device counts)."""
    from ms_lint.engine import check_source
    from ms_lint.model.source import read_source
    from ms_lint.rules import RULES_BY_CODE
    from ms_lint.settings import Settings

    source, levels = read_source(str(path)), []
    for level in ("strict", "lax"):
        silenced: list = []
        found = check_source(source, str(path), Settings(syntax_level=level, device="any"), RULES_BY_CODE,
                             silenced=silenced)
        if any((finding.code, finding.line) == (code, line) for finding in [*found, *silenced]):
            levels.append(level)
    return levels


def reported_data(path, code: str, line: int) -> dict:
    """The data of the finding the static check gives ``code`` at ``line`` of ``path`` (at the inferred level, else
    at STRICT); empty when there is none."""
    from ms_lint.engine import check_file
    from ms_lint.rules import RULES_BY_CODE
    from ms_lint.settings import Settings

    found = (f for settings in (Settings(), Settings(syntax_level="strict"))
             for f in check_file(str(path), settings, RULES_BY_CODE) if f.code == code and f.line == line)
    return dict(next(found, Finding("", 0, 0, code, "")).data)


def only(verdicts, code: str | None = None):
    chosen = [v for v in verdicts if code is None or v.finding.code == code]
    assert len(chosen) == 1, [(v.finding.code, v.verdict, v.message) for v in verdicts]
    return chosen[0]


def verdicts_by_scope(findings, pool, with_line: bool = False) -> dict:
    """Validate ``findings`` without the cache; their verdicts by ``(scope, code)`` (and line)."""
    from ms_lint.validate.runner import ValidateOptions, validate_findings

    report = validate_findings(findings, ValidateOptions(use_cache=False), pool=pool)
    return {(v.finding.scope, v.finding.code, *((v.finding.line,) if with_line else ())): v
            for v in report.verdicts}
