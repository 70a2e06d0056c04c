"""``ms-lint rules``, every rule's documentation, and the README table generated from the same registry."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from ms_lint.rules import ALL_RULES
from ms_lint.tools import readme_table

README = Path(__file__).resolve().parents[2] / "README.md"


# ---------------------------------------------------------------------------------------------------- ms-lint rules


def test_rules_lists_every_rule(ms_lint):
    run = ms_lint("rules")
    assert run.status == 0
    lines = run.out.splitlines()
    assert lines[0].split() == ["CODE", "NAME", "DEFAULT", "AUTOFIX", "SUMMARY"]
    assert len(lines) == 1 + len(ALL_RULES)
    for line, rule in zip(lines[1:], ALL_RULES):
        code, name, default, autofix, *summary = line.split()
        assert (code, name) == (rule.code, rule.name)
        assert default == ("on" if rule.enabled_by_default else "off")
        assert autofix == ("yes" if rule.autofix else "no")
        assert " ".join(summary) == " ".join(rule.summary.split())


@pytest.mark.parametrize("key", ["MS201", "ms201", "plain-container-of-cells"])
def test_rules_prints_one_rules_documentation(ms_lint, key):
    run = ms_lint("rules", key)
    assert run.status == 0
    rule = next(r for r in ALL_RULES if r.code == "MS201")
    assert run.out == rule.documentation()


def test_rules_unknown_code_is_one_error_line(ms_lint):
    run = ms_lint("rules", "MS999")
    assert run.status == 2
    assert run.out == ""
    assert run.err == "ms-lint: error: unknown rule 'MS999'; `ms-lint rules` lists them\n"


def test_rules_json(ms_lint):
    records = json.loads(ms_lint("rules", "--format", "json").out)
    assert [record["code"] for record in records] == [rule.code for rule in ALL_RULES]
    one = json.loads(ms_lint("rules", "--format", "json", "MS101").out)
    assert one["code"] == "MS101" and one["documentation"].startswith("# MS101 ")


# --------------------------------------------------------------------------------------------------- README table


def test_table_has_one_row_per_rule():
    rows = readme_table.rules_table().splitlines()[2:]
    assert [row.split(" | ")[0].strip("| ") for row in rows] == [rule.code for rule in ALL_RULES]


def test_table_of_fixes_has_one_row_per_rule_with_an_autofix():
    rows = readme_table.fixes_table().splitlines()[2:]
    assert [row.split(" | ")[0].strip("| ") for row in rows] == [rule.code for rule in ALL_RULES if rule.autofix]
    assert len(rows) > 10


def test_tables_are_written_between_the_markers_and_are_stable(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(f"# Title\n\nintro\n\n{readme_table.START_MARKER}\nSTALE RULES\n{readme_table.END_MARKER}"
                      f"\n\nfixes\n\n{readme_table.FIXES_START_MARKER}\nSTALE FIXES\n"
                      f"{readme_table.FIXES_END_MARKER}\n\nafter\n")
    assert readme_table.main([str(readme), "--check"]) == 1
    assert "STALE RULES" in readme.read_text()
    assert readme_table.main([str(readme)]) == 0
    text = readme.read_text()
    assert text.startswith("# Title\n\nintro\n\n") and text.endswith(f"{readme_table.FIXES_END_MARKER}\n\nafter\n")
    assert "STALE" not in text
    assert f"{readme_table.rules_table()}{readme_table.END_MARKER}\n\nfixes\n\n" in text
    assert f"{readme_table.FIXES_START_MARKER}\n{readme_table.fixes_table()}{readme_table.FIXES_END_MARKER}" in text
    assert readme_table.main([str(readme), "--check"]) == 0
    assert readme_table.main([str(readme)]) == 0
    assert readme.read_text() == text


def test_missing_markers_are_an_error(tmp_path, capsys):
    readme = tmp_path / "README.md"
    readme.write_text("# no table here\n")
    assert readme_table.main([str(readme), "--check"]) == 2
    assert "rules-table:start" in capsys.readouterr().err
    readme.write_text(f"{readme_table.START_MARKER}\n{readme_table.END_MARKER}\n")  # no table of fixes
    assert readme_table.main([str(readme)]) == 2
    assert "fixes-table:start" in capsys.readouterr().err


def test_pipes_in_summaries_are_escaped(monkeypatch):
    rule = ALL_RULES[0]
    monkeypatch.setattr(rule, "summary", "a | b")
    assert "| a \\| b |" in readme_table.rules_table()


def test_repository_readme_table_is_in_sync():
    assert README.is_file(), f"{README} is missing"
    assert readme_table.main([str(README), "--check"]) == 0, (
        "README.md's rule table is out of date: run python -m ms_lint.tools.readme_table README.md")
