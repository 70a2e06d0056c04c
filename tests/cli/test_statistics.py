"""``ms-lint check --statistics`` (flake8's counts per code) and the summary line a text report ends with."""
from __future__ import annotations

import json

from ms_lint.findings import Finding
from ms_lint.output import Reported, closing_line

from .support import SAMPLE_FINDINGS

STATISTICS = (
    "2     MS101 host-library-call\n"
    "1     MS102 tensor-to-host\n"
    "1     MS201 plain-container-of-cells\n"
)
SAMPLE_CLOSING_LINE = "Found 4 findings in 2 files (1 fixable with --fix).\n"


def test_statistics_follow_the_findings_sorted_by_code(project, ms_lint):
    run = ms_lint("check", "--isolated", "--statistics")
    assert run.status == 1
    lines = run.out.splitlines(keepends=True)
    assert "".join(lines[len(SAMPLE_FINDINGS):]) == STATISTICS
    assert run.said == SAMPLE_CLOSING_LINE


def test_no_statistics_unless_asked(project, ms_lint):
    run = ms_lint("check", "--isolated")
    assert len(run.out.splitlines()) == len(SAMPLE_FINDINGS)


def test_statistics_from_the_configuration(project, ms_lint):
    (project / "pyproject.toml").write_text("[tool.ms-lint]\nstatistics = true\n")
    assert ms_lint("check").out.endswith(STATISTICS)
    (project / "pyproject.toml").unlink()
    (project / "setup.cfg").write_text("[flake8]\nstatistics = True\n")
    assert ms_lint("check").out.endswith(STATISTICS)


def test_json_statistics_object(project, ms_lint):
    document = json.loads(ms_lint("check", "--isolated", "--format=json", "--statistics").out)
    assert document["statistics"] == {
        "MS101": {"count": 2, "name": "host-library-call"},
        "MS102": {"count": 1, "name": "tensor-to-host"},
        "MS201": {"count": 1, "name": "plain-container-of-cells"},
    }
    assert "statistics" not in json.loads(ms_lint("check", "--isolated", "--format=json").out)


def test_sarif_statistics_go_to_standard_error(project, ms_lint):
    run = ms_lint("check", "--isolated", "--format=sarif", "--statistics")
    json.loads(run.out)  # the log stays valid SARIF
    assert run.said == STATISTICS


def test_only_the_text_report_has_a_closing_line(project, ms_lint):
    assert ms_lint("check", "--isolated", "--format=json").said == ""
    assert ms_lint("check", "--isolated", "--format=github").said == ""


def test_closing_line_when_clean(project, ms_lint):
    run = ms_lint("check", "--isolated", "pkg/clean.py", "pkg/blocks.py")
    assert (run.status, run.out) == (0, "")
    assert run.said == "No findings in 2 files.\n"


def test_closing_line_counts_fixable_findings_from_the_cache_too(project, ms_lint):
    assert ms_lint("check", "--isolated").said == SAMPLE_CLOSING_LINE
    run = ms_lint("check", "--isolated", "--verbose")
    assert "5 file(s) checked, 5 of them from the cache" in run.said
    assert run.said.endswith(SAMPLE_CLOSING_LINE)


def test_closing_line_wording():
    def reported(path: str, fixable: bool = False) -> Reported:
        return Reported(Finding(path, 1, 0, "MS101", "message"), fixable=fixable)

    assert closing_line([], 1) == "No findings in 1 file."
    assert closing_line([], 0) == "No findings in 0 files."
    assert closing_line([reported("a.py")], 3) == "Found 1 finding in 1 file."
    many = [reported(f"{n % 812}.py", fixable=n < 1105) for n in range(4029)]
    assert closing_line(many, 1500) == "Found 4,029 findings in 812 files (1,105 fixable with --fix)."
