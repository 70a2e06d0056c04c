"""The bundled sample projects show what they claim: the clean one reports nothing, the others every rule."""
from __future__ import annotations

from pathlib import Path

from ms_lint.engine import check_file
from ms_lint.rules import RULES_BY_CODE
from ms_lint.settings import Settings

SAMPLES = Path(__file__).resolve().parent.parent / "sample_projects"


def findings_under(directory: Path):
    for path in sorted(directory.rglob("*.py")):
        yield from check_file(str(path), Settings(), RULES_BY_CODE)


def test_clean_project_reports_nothing_even_with_every_rule_selected():
    assert [f"{f.path}:{f.line}: {f.text}" for f in findings_under(SAMPLES / "clean_project")] == []


def test_hazardous_samples_show_every_rule():
    hazardous = [d for d in SAMPLES.iterdir() if d.is_dir() and d.name != "clean_project"]
    codes = {f.code for directory in hazardous for f in findings_under(directory)}
    assert codes == set(RULES_BY_CODE) - {"MS900"}
