"""Every rule fixture's findings as users read them, pinned beside the fixture: ``MS101.py`` has ``MS101.expected``,
one ``line:column: CODE message`` per finding (column as flake8 prints it), sorted.

The inline comments of a fixture (tests/test_rules.py) say which lines get which codes; the snapshot adds the column
and the message, which users read and the validator used to parse, so that a changed message or position shows up as
a changed snapshot in review. After a deliberate change, write the snapshots again and read the diff:

    MS_LINT_UPDATE_SNAPSHOTS=1 python -m pytest tests/test_rule_snapshots.py
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from ms_lint.engine import check_file
from ms_lint.rules import RULES_BY_CODE
from tests.test_rules import FIXTURE_FILES, FIXTURES, fixture_settings

UPDATE = os.environ.get("MS_LINT_UPDATE_SNAPSHOTS") == "1"


def snapshot_path(fixture: Path) -> Path:
    return fixture.with_suffix(".expected")


def render(fixture: Path) -> str:
    findings = check_file(str(fixture), fixture_settings(fixture), RULES_BY_CODE)
    lines = sorted((f.line, f.col, f.code, f.message) for f in findings)
    return "".join(f"{line}:{col + 1}: {code} {message}\n" for line, col, code, message in lines)


@pytest.mark.parametrize("fixture", FIXTURE_FILES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_findings_match_the_snapshot_beside_the_fixture(fixture: Path):
    expected_file = snapshot_path(fixture)
    found = render(fixture)
    if UPDATE:
        if found:
            expected_file.write_text(found, encoding="utf-8")
        elif expected_file.exists():
            expected_file.unlink()
        return
    expected = expected_file.read_text(encoding="utf-8") if expected_file.exists() else ""
    assert found == expected, f"{fixture.name}: findings differ from {expected_file.name} (see this module's docstring)"


def test_no_snapshot_is_left_without_its_fixture():
    fixtures = {snapshot_path(path) for path in FIXTURE_FILES}
    orphans = [path for path in FIXTURES.rglob("*.expected") if path not in fixtures]
    assert orphans == []
