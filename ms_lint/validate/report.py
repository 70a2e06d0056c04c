"""How a validation run is shown: one line per finding, then a summary table (text), or one JSON document."""
from __future__ import annotations

import json
import sys
import textwrap
import time
from collections import Counter

from ms_lint.validate.project import display_path
from ms_lint.validate.verdicts import (
    CONFIRMED,
    CONFIRMED_BY_PROBE,
    INCONCLUSIVE,
    NOT_APPLICABLE,
    NOT_CHECKED,
    NOT_REACHED,
    NOT_REPRODUCED,
)

_COLUMNS = (CONFIRMED, CONFIRMED_BY_PROBE, NOT_REPRODUCED, NOT_REACHED, INCONCLUSIVE, NOT_APPLICABLE,
            NOT_CHECKED)
_HEADINGS = {
    CONFIRMED: "confirmed",
    CONFIRMED_BY_PROBE: "by probe",
    NOT_REPRODUCED: "not reproduced",
    NOT_REACHED: "not reached",
    INCONCLUSIVE: "inconclusive",
    NOT_APPLICABLE: "not applicable",
    NOT_CHECKED: "not checked",
}
FORMAT_VERSION = 1


def render_text(report, show_examples: bool = True) -> str:
    lines: list[str] = []
    examples_shown: set[str] = set()
    for verdict in report.verdicts:
        finding = verdict.finding
        message = verdict.message
        if verdict.compiler_location and verdict.verdict in (CONFIRMED,):
            path, _, line = verdict.compiler_location.rpartition(":")
            if int(line or 0) != finding.line or not _same(path, finding.path):
                message += f" [compiler points at {display_path(path)}:{line}]"
        elif verdict.compiler_message and verdict.compiler_message not in message:
            message += f" [compiler: {verdict.compiler_message}]"
        if verdict.notes:
            message += f" (note: {'; '.join(verdict.notes)})"
        lines.append(
            f"{display_path(finding.path)}:{finding.line}: {finding.code} {verdict.verdict} "
            f"({verdict.device}, {'pynative' if verdict.mode == 'pynative' else verdict.level}): {message}"
        )
        if show_examples and verdict.example and verdict.target not in examples_shown:
            example = verdict.example.rstrip("\n")
            if examples_shown:
                # The imports every example shares are printed with the first one only.
                example = _without_shared_imports(example)
            examples_shown.add(verdict.target)
            lines.append(f"    add this example to {_examples_file_hint(verdict)}:")
            lines.extend(textwrap.indent(example, "        ").splitlines())
    if lines:
        lines.append("")
    lines.extend(summary_lines(report))
    return "\n".join(lines) + "\n"


def _same(first: str, second: str) -> bool:
    from ms_lint.validate.locations import same_file

    return same_file(first, second)


_SHARED_IMPORTS = ("import mindspore as ms", "import ms_lint")


def _without_shared_imports(example: str) -> str:
    lines = example.splitlines()
    while lines and (lines[0] in _SHARED_IMPORTS or not lines[0].strip()):
        lines.pop(0)
    return "\n".join(lines)


def _examples_file_hint(verdict) -> str:
    import os

    from ms_lint.validate.project import EXAMPLES_FILE_NAME, locate_module

    root = locate_module(verdict.finding.path).project_root
    path = os.path.join(root, EXAMPLES_FILE_NAME)
    return display_path(path) + ("" if os.path.isfile(path) else " (a new file)")


def summary_lines(report) -> list[str]:
    options = report.options
    cached = sum(1 for unit in report.units if unit.cached)
    compiled = len(report.units) - cached
    levels = " and ".join(level.upper() for level in report.levels) or "-"
    header = (
        f"MindSpore {report.mindspore_version or '(not installed)'} on {report.device or options.device}, "
        f"{levels}: {len(report.verdicts)} finding(s) in {report.files} file(s), "
        f"{len(report.units)} unit(s) ({compiled} run, {cached} from cache), {report.seconds:.1f} s"
    )
    lines = [header]
    if not report.verdicts:
        lines.append("nothing to validate: the static checks found no hazards")
    else:
        # "not checked" only for an interrupted run, "not reached" only when a finding has it.
        reached_column = any(verdict.verdict == NOT_REACHED for verdict in report.verdicts)
        columns = [column for column in _COLUMNS if (column != NOT_CHECKED or report.interrupted)
                   and (column != NOT_REACHED or reached_column)]
        counts: dict[str, Counter] = {}
        for verdict in report.verdicts:
            counts.setdefault(verdict.finding.code, Counter())[verdict.verdict] += 1
        totals = Counter()
        for counter in counts.values():
            totals.update(counter)
        rows = [["code"] + [_HEADINGS[column] for column in columns]]
        for code in sorted(counts):
            rows.append([code] + [str(counts[code][column]) for column in columns])
        rows.append(["total"] + [str(totals[column]) for column in columns])
        widths = [max(len(row[index]) for row in rows) for index in range(len(rows[0]))]
        for row in rows:
            cells = [row[0].ljust(widths[0])] + [cell.rjust(width) for cell, width in zip(row[1:], widths[1:])]
            lines.append("  ".join(cells).rstrip())
    if report.interrupted:
        lines.append(
            f"interrupted: {len(report.not_checked)} unit(s) not checked: {', '.join(report.not_checked) or '-'}"
        )
    for problem in report.problems:
        lines.append(f"warning: {problem}")
    open_findings = undecided(report)
    checked = [verdict for verdict in report.verdicts if verdict.verdict != NOT_APPLICABLE]
    if checked and len(open_findings) * 2 > len(checked):
        lines.append(
            f"most findings are undecided ({len(open_findings)} of {len(checked)}): this run confirms little "
            f"and clears little; register examples for the Cells named above, or gate on them with "
            f"--fail-on undecided"
        )
    return lines


def render_json(report) -> str:
    options = report.options
    counts = Counter(verdict.verdict for verdict in report.verdicts)
    document = {
        "format": FORMAT_VERSION,
        "tool": "ms-lint validate",
        "mindspore": report.mindspore_version,
        "device": report.device or options.device,
        "syntax_level": ", ".join(report.levels),
        "targets": [group.to_dict() for group in report.targets],
        # one target for every file: as ``ms-lint check`` writes it
        **({"target": report.targets[0].target.to_dict()} if len(report.targets) == 1 else {}),
        "files": report.files,
        "seconds": round(report.seconds, 3),
        "interrupted": report.interrupted,
        "not_checked": report.not_checked,
        "summary": {column: counts.get(column, 0) for column in _COLUMNS},
        "findings": [verdict.to_dict() for verdict in report.verdicts],
        "units": [unit.to_dict() for unit in report.units],
        "problems": report.problems,
        "run_log": report.run_log,
    }
    return json.dumps(document, indent=2) + "\n"


# The SARIF level of each verdict: a confirmed hazard is an error, one the run could not decide a warning, one it
# cleared or that has nothing to run a note.
SARIF_LEVELS = {CONFIRMED: "error", CONFIRMED_BY_PROBE: "error", INCONCLUSIVE: "warning", NOT_CHECKED: "warning",
                NOT_REPRODUCED: "note", NOT_REACHED: "note", NOT_APPLICABLE: "note"}


def render_sarif(report, cwd: str | None = None) -> str:
    """SARIF 2.1.0 as ``ms-lint check --format sarif`` writes it, one result per finding, with the verdict in its
    message and properties, at the level ``SARIF_LEVELS`` gives its verdict; the run's properties name the
    targets."""
    import os

    from ms_lint.output import Reported, format_sarif

    items = []
    for verdict in report.verdicts:
        finding = verdict.finding
        properties = {"verdict": verdict.verdict, "explanation": verdict.message, "device": verdict.device,
                      "syntax_level": verdict.level, "mode": verdict.mode}
        if verdict.built:
            properties["built"] = verdict.built
        if verdict.inputs:
            properties["inputs"] = list(verdict.inputs)
        if verdict.compiler_message:
            properties["compiler_message"] = verdict.compiler_message
        shown = finding.__class__(finding.path, finding.line, finding.col, finding.code,
                                  f"{finding.message} [ms-lint validate: {verdict.verdict}: {verdict.message}]",
                                  finding.scope, data=finding.data, target=finding.target)
        items.append(Reported(shown, None, properties))
    document = json.loads(format_sarif(items, cwd=cwd or os.getcwd(), errors=list(report.problems),
                                       targets=report.targets))
    for result, verdict in zip(document["runs"][0]["results"], report.verdicts):
        result["level"] = SARIF_LEVELS.get(verdict.verdict, "warning")
    document["runs"][0]["invocations"][0]["executionSuccessful"] = not report.interrupted
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def undecided(report) -> list:
    """Findings the run could not decide (neither confirmed nor cleared with evidence)."""
    from ms_lint.validate.verdicts import DECIDED

    return [verdict for verdict in report.verdicts
            if verdict.verdict not in DECIDED and verdict.verdict != NOT_APPLICABLE]


def exit_status(report, fail_on: str) -> int:
    """``confirmed``: 1 when any finding is confirmed (by compile or probe). ``any``: 1 when any finding was not
    cleared by the run (anything but "not reproduced"). ``undecided``: 1 when a finding is confirmed or could not
    be decided (inconclusive, not reached, not checked). ``never``: 0. An interrupted run exits 130."""
    if report.interrupted:
        return 130
    if fail_on == "never":
        return 0
    if fail_on == "undecided":
        return int(bool(report.confirmed) or bool(undecided(report)))
    if fail_on == "any":
        return int(any(verdict.verdict != NOT_REPRODUCED for verdict in report.verdicts))
    return int(bool(report.confirmed))


class ProgressBar:
    """A one-line progress bar on a terminal's stderr; silent elsewhere and for runs of a few jobs."""

    def __init__(self, stream=None, minimum_jobs: int = 4, width: int = 24):
        self.stream = stream or sys.stderr
        self.minimum_jobs = minimum_jobs
        self.width = width
        self.enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self.started = time.monotonic()
        self.drawn = False

    def __call__(self, done: int, total: int, target: str) -> None:
        if not self.enabled or total < self.minimum_jobs:
            return
        filled = int(self.width * done / total) if total else self.width
        bar = "#" * filled + "." * (self.width - filled)
        elapsed = time.monotonic() - self.started
        label = target if len(target) <= 40 else "..." + target[-37:]
        self.stream.write(f"\r[{bar}] {done}/{total} compiled, {elapsed:.0f} s  {label:<40}")
        self.stream.flush()
        self.drawn = True

    def phase(self, text: str) -> None:
        """What the run is doing before its compiles start (static checks, planning, the cache)."""
        if not self.enabled:
            return
        elapsed = time.monotonic() - self.started
        line = f"{text}, {elapsed:.0f} s"
        self.stream.write("\r" + line[: self.width + 78].ljust(self.width + 78))
        self.stream.flush()
        self.drawn = True

    def finish(self) -> None:
        if self.drawn:
            self.stream.write("\r" + " " * (self.width + 80) + "\r")
            self.stream.flush()
            self.drawn = False
