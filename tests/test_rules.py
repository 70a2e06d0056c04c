"""Every rule against its fixture files, whose expected findings are written inline (``x = np.sin(x)  # MS101``).

A fixture may start with an options line, ``# ms-lint: syntax_level=lax mode=pynative device=cpu version=2.7.1``;
without one a fixture is checked at STRICT on any device, for MindSpore ``FIXTURE_VERSION``, the version the
fixtures were written for (set explicitly: the fixtures live inside this repository, whose own target would
otherwise be inferred, its version from the MindSpore installed, which a message such as MS607's names). Every MS
code a line should get is listed in its trailing comment; a line with no code must get no finding. Fixture
directories are small packages, for the cross-module cases.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ms_lint.engine import check_file
from ms_lint.noqa import lines_of
from ms_lint.rules import ALL_RULES, RULES_BY_CODE
from ms_lint.settings import Settings

FIXTURES = Path(__file__).parent / "fixtures" / "rules"
FIXTURE_FILES = sorted(p for p in FIXTURES.rglob("*.py"))
_EXPECTED = re.compile(r"\bMS\d{3}\b")
_OPTIONS = re.compile(r"^# ms-lint:(.*)$", re.MULTILINE)
FIXTURE_VERSION = "2.10.0"


def expected_findings(path: Path) -> set[tuple[int, str]]:
    expected = set()
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if "#" in line and not line.lstrip().startswith("# ms-lint:"):
            comment = line[line.index("#"):]
            expected.update((number, code) for code in _EXPECTED.findall(comment))
    return expected


def fixture_settings(path: Path) -> Settings:
    match = _OPTIONS.search(path.read_text())
    values = dict(item.split("=", 1) for item in match.group(1).split()) if match else {}
    # A fixture is a module of a library unless it says otherwise: its Cells are compiled in GRAPH_MODE.
    return Settings.from_values(values.get("mode", "graph"), values.get("syntax_level", "strict"),
                                device=values.get("device", "any"), version=values.get("version", FIXTURE_VERSION))


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_fixture_findings_match_inline_expectations(path: Path):
    # a finding that stands for others of its cause in the function reports their lines too
    found = {(line, f.code) for f in check_file(str(path), fixture_settings(path), RULES_BY_CODE)
             for line in lines_of(f)}
    expected = expected_findings(path)
    assert sorted(found - expected) == [], "unexpected findings"
    assert sorted(expected - found) == [], "expected findings not reported"


@pytest.mark.parametrize("rule", [r for r in ALL_RULES if r.code != "MS900"], ids=lambda r: r.code)
def test_every_rule_has_positive_and_negative_fixtures(rule):
    own = [p for p in FIXTURE_FILES if p.name.startswith(rule.code) or p.parent.name.startswith(rule.code)]
    assert own, f"no fixture named {rule.code}*.py"
    codes = [code for p in own for _, code in expected_findings(p)]
    assert rule.code in codes, f"{rule.code} fixtures expect no {rule.code} finding"
    lines = sum(len(p.read_text().splitlines()) for p in own)
    assert lines > len(codes) + 10, f"{rule.code} fixtures have no clean code around the findings"


@pytest.mark.parametrize("rule", [r for r in ALL_RULES if r.code != "MS900"], ids=lambda r: r.code)
def test_every_finding_carries_the_facts_of_its_message(rule):
    own = [p for p in FIXTURE_FILES if p.name.startswith(rule.code) or p.parent.name.startswith(rule.code)]
    findings = [f for p in own for f in check_file(str(p), fixture_settings(p), [rule.code])]
    assert findings, f"{rule.code} fixtures give no {rule.code} finding"
    empty = [f"{f.path}:{f.line}" for f in findings if not f.data]
    assert empty == [], f"{rule.code} findings without data"
    for finding in findings:
        json.dumps(dict(finding.data), allow_nan=False)  # JSON values only: raises otherwise
        assert all(isinstance(key, str) for key in finding.data)


def test_an_internal_error_carries_its_error(tmp_path):
    from ms_lint.engine import internal_error

    finding = internal_error("x.py", ValueError("bad input"))
    assert finding.code == "MS900" and finding.data == {"stage": "check", "error": "ValueError",
                                                        "detail": "ValueError: bad input"}
    assert finding.message == ("ms-lint could not check this file (ValueError: bad input); please report it with "
                               "the file")
    unreadable = check_file(str(tmp_path), Settings())  # a directory cannot be read as a file
    assert [f.code for f in unreadable] == ["MS900"] and unreadable[0].data["error"] == "IsADirectoryError"
    assert unreadable[0].data["stage"] == "read"
    assert unreadable[0].message.startswith("ms-lint could not read this file (")
