"""Report formats shared by the ``ms-lint`` commands: text (flake8's), JSON, SARIF 2.1.0 and GitHub workflow commands.

Every formatter takes ``Reported`` items (a finding, where it spans, extra properties) and returns the whole
output as one string, so a command can print it or write it to ``--output-file``.
"""
from __future__ import annotations

import ast
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence
from urllib.parse import quote

from ms_lint import __version__
from ms_lint.findings import RELATED, Finding

if TYPE_CHECKING:
    from ms_lint.target import TargetGroup

FORMATS = ("text", "json", "sarif", "github")
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SARIF_VERSION = "2.1.0"
SOURCE_ROOT = "%SRCROOT%"
TOOL_NAME = "ms-lint"
FALLBACK_INFORMATION_URI = "https://pypi.org/project/ms-lint/"
# GitHub code scanning shows at most this much of a rule's short and full description.
GITHUB_DESCRIPTION_LIMIT = 1024
_LEVELS = ("error", "warning", "note")
_GITHUB_COMMAND = {"error": "error", "warning": "warning", "note": "notice"}
_PROBLEM_SEVERITY = {"error": "error", "warning": "warning", "note": "recommendation"}


@dataclass(frozen=True)
class Region:
    """Where a finding spans, 1-based, columns in Unicode code points, ``end_column`` one past the last character.

    Limited to the finding's first line: a finding on a whole class should not claim every line of it.
    """

    start_line: int
    start_column: int
    end_line: int
    end_column: int


@dataclass(frozen=True)
class Reported:
    """One finding as reported: ``region`` when the source was at hand, ``properties`` for extra data (JSON, SARIF),
    ``fixable`` when ``ms-lint check --fix`` fixes it."""

    finding: Finding
    region: Region | None = None
    properties: Mapping[str, Any] = field(default_factory=dict)
    fixable: bool = False

    @property
    def column(self) -> int:
        """The column flake8 prints: the AST's (UTF-8 byte) offset plus one."""
        return self.finding.col + 1


def region_of(finding: Finding, lines: Sequence[str]) -> Region | None:
    """The finding's span on its first line, from its AST node when it has one."""
    if not 0 < finding.line <= len(lines):
        return None
    line = lines[finding.line - 1].rstrip("\r\n")
    encoded = line.encode("utf-8", errors="surrogatepass")

    def characters(byte_offset: int) -> int:
        return len(encoded[:max(byte_offset, 0)].decode("utf-8", errors="replace"))

    start = characters(finding.col)
    node = finding.node
    end_line = getattr(node, "end_lineno", None) if isinstance(node, ast.AST) else None
    end_offset = getattr(node, "end_col_offset", None) if isinstance(node, ast.AST) else None
    if end_line == finding.line and end_offset is not None and end_offset > finding.col:
        end = characters(end_offset)
    else:
        end = len(line)
    end = max(end, start + 1)
    return Region(finding.line, start + 1, finding.line, end + 1)


def _rule(code: str):
    from ms_lint.rules import RULES_BY_CODE

    return RULES_BY_CODE.get(code)


def rule_level(code: str) -> str:
    """The rule's severity (``error``, ``warning`` or ``note``); rules without one are errors."""
    rule = _rule(code)
    level = getattr(rule, "level", "error") if rule is not None else "error"
    return level if level in _LEVELS else "error"


def render(
    items: Sequence[Reported],
    fmt: str,
    *,
    files_checked: int = 0,
    errors: Sequence[str] = (),
    cwd: str | None = None,
    targets: Sequence[TargetGroup] = (),
    statistics: bool = False,
) -> str:
    """The whole report in ``fmt`` (one of FORMATS). ``errors``: problems that kept files from being checked;
    ``targets``: what the files were checked against (one group per target, with the projects that share it);
    ``statistics``: count the findings per code (and per target, where there are several), after them in text, as
    ``"statistics"`` objects in JSON (SARIF and GitHub's commands have no place for them: see
    ``format_statistics``)."""
    cwd = os.path.abspath(cwd or os.getcwd())
    if fmt == "text":
        return format_text(items) + (format_statistics(items, targets) if statistics else "")
    if fmt == "json":
        return format_json(items, files_checked=files_checked, errors=errors, targets=targets,
                           statistics=statistics)
    if fmt == "sarif":
        return format_sarif(items, cwd=cwd, errors=errors, targets=targets)
    if fmt == "github":
        return format_github(items, cwd=cwd)
    raise ValueError(f"unknown output format {fmt!r}")


# ------------------------------------------------------------------------------------------------------------ text


def format_text(items: Sequence[Reported]) -> str:
    """flake8's default format: ``path:line:column: CODE message``."""
    return "".join(text_line(item) + "\n" for item in items)


def text_line(item: Reported) -> str:
    finding = item.finding
    return f"{finding.path}:{finding.line}:{item.column}: {finding.code} {finding.message}"


# ------------------------------------------------------------------------------------------------------ statistics


def code_statistics(items: Sequence[Reported]) -> list[tuple[str, int, str]]:
    """``(code, count, name)`` per code, sorted by code; the name is the rule's (for a code without a rule, E999
    and E902, its first message, as flake8 shows)."""
    counts: dict[str, int] = {}
    first_message: dict[str, str] = {}
    for item in items:
        code = item.finding.code
        counts[code] = counts.get(code, 0) + 1
        first_message.setdefault(code, item.finding.message)
    statistics = []
    for code in sorted(counts):
        rule = _rule(code)
        statistics.append((code, counts[code], rule.name if rule is not None else first_message[code]))
    return statistics


def format_statistics(items: Sequence[Reported], targets: Sequence[TargetGroup] = ()) -> str:
    """flake8's ``--statistics`` lines: ``count CODE name``, the count padded to five columns; where the findings
    were judged against several targets, then the same per target, each under a line naming it
    (``Ascend · LAX (12 projects):``), its counts indented."""
    lines = [f"{count:<5} {code} {name}\n" for code, count, name in code_statistics(items)]
    for group, mine in per_target(items, targets):
        if mine:
            lines.append(f"{target_label(group, targets)}:\n")
            lines.extend(f"  {count:<5} {code} {name}\n" for code, count, name in code_statistics(mine))
    return "".join(lines)


def per_target(items: Sequence[Reported], targets: Sequence[TargetGroup]) -> list[tuple[TargetGroup, list]]:
    """``(group, its findings)`` per target, where there are several targets; else nothing."""
    if len(targets) < 2:
        return []
    return [(group, [item for item in items if group.matches(item.finding.target)]) for group in targets]


def target_label(group: TargetGroup, targets: Sequence[TargetGroup]) -> str:
    """The parts that tell ``group`` from the run's other targets, and how many projects share it:
    ``Ascend · LAX (12 projects)``."""
    from ms_lint.target import PARTS

    varying = [part for part in PARTS if len({other.target.label([part]) for other in targets}) > 1]
    count = len(group.projects)
    return f"{group.target.label(varying or PARTS)} ({count} project{'' if count == 1 else 's'})"


def closing_line(items: Sequence[Reported], files_checked: int, targets: Sequence[TargetGroup] = ()) -> str:
    """The line a text report ends with: ``Found 4,029 findings in 812 files (1,105 fixable with --fix).``, or
    ``No findings in 12 files.`` (``files_checked``); the fixable part only where a fix is there to apply; where
    the findings were judged against several targets, the count per target: ``...: 3,000 at Ascend · LAX (143
    projects), 1,029 at any device · STRICT (3 projects).``"""
    def counted(number: int, noun: str) -> str:
        return f"{number:,} {noun}{'' if number == 1 else 's'}"

    if not items:
        return f"No findings in {counted(files_checked, 'file')}."
    files = len({item.finding.path for item in items})
    fixable = sum(1 for item in items if item.fixable)
    fixes = f" ({fixable:,} fixable with --fix)" if fixable else ""
    split = ", ".join(f"{len(mine):,} at {target_label(group, targets)}"
                      for group, mine in per_target(items, targets) if mine)
    return f"Found {counted(len(items), 'finding')} in {counted(files, 'file')}{fixes}{': ' + split if split else ''}."


# ------------------------------------------------------------------------------------------------------------ JSON


def target_properties(targets: Sequence[TargetGroup], items: Sequence[Reported] = (),
                      statistics: bool = False) -> dict:
    """``{"targets": [...]}``: each target (``TargetGroup.to_dict()``: its parts, their origins, the projects that
    share it with their own origins) with the number of findings judged against it (and, with ``statistics``,
    their counts per code); with ``"target"`` too (its parts and origins) where there is exactly one."""
    if not targets:
        return {}
    entries = []
    for group in targets:
        entry = group.to_dict()
        mine = [item for item in items if group.matches(item.finding.target)] if len(targets) > 1 else list(items)
        entry["findings"] = len(mine)
        if statistics:
            entry["statistics"] = _statistics_object(mine)
        entries.append(entry)
    properties: dict[str, Any] = {}
    if len(targets) == 1:
        properties["target"] = targets[0].target.to_dict()
    properties["targets"] = entries
    return properties


def _statistics_object(items: Sequence[Reported]) -> dict:
    return {code: {"count": count, "name": name} for code, count, name in code_statistics(items)}


def format_json(items: Sequence[Reported], *, files_checked: int = 0, errors: Sequence[str] = (),
                targets: Sequence[TargetGroup] = (), statistics: bool = False) -> str:
    findings = []
    for item in items:
        rule = _rule(item.finding.code)
        entry = {
            "path": item.finding.path,
            "line": item.finding.line,
            "column": item.column,
            "code": item.finding.code,
            "name": rule.name if rule is not None else "",
            "message": item.finding.message,
            "scope": item.finding.scope,
            "level": rule_level(item.finding.code),
            "data": dict(item.finding.data),
        }
        if item.finding.target:
            entry["target"] = dict(item.finding.target)
        entry.update(item.properties)
        findings.append(entry)
    document = {
        "tool": TOOL_NAME,
        "version": __version__,
        "files_checked": files_checked,
        "errors": list(errors),
        **target_properties(targets, items, statistics),
        "findings": findings,
    }
    if statistics:
        document["statistics"] = _statistics_object(items)
    return json.dumps(document, indent=2) + "\n"


# ----------------------------------------------------------------------------------------------------------- SARIF


def _truncate(text: str, limit: int = GITHUB_DESCRIPTION_LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _plain(text: str) -> str:
    import textwrap

    return " ".join(textwrap.dedent(text).split())


def information_uri() -> str:
    """The project's home page from the installed metadata, else its PyPI page."""
    try:
        from importlib.metadata import PackageNotFoundError, metadata

        meta = metadata("ms-lint")
    except (ImportError, PackageNotFoundError):
        return FALLBACK_INFORMATION_URI
    for entry in meta.get_all("Project-URL") or []:
        label, _, url = entry.partition(",")
        if label.strip().lower() in {"homepage", "home", "documentation", "source", "repository"} and url.strip():
            return url.strip()
    home = meta.get("Home-page")
    return home.strip() if home and home.strip() not in {"", "UNKNOWN"} else FALLBACK_INFORMATION_URI


def sarif_rules() -> list[dict]:
    """One SARIF reportingDescriptor per rule, in registry order (a result's ``ruleIndex`` points here)."""
    from ms_lint.rules import ALL_RULES

    descriptors = []
    for rule in ALL_RULES:
        level = rule_level(rule.code)
        documentation = rule.documentation()
        descriptors.append({
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": _truncate(_plain(rule.summary))},
            "fullDescription": {"text": _truncate(_plain(rule.what))},
            "help": {"text": documentation, "markdown": documentation},
            "defaultConfiguration": {"enabled": bool(rule.enabled_by_default), "level": level},
            "properties": {
                "tags": ["mindspore", "graph-mode", "correctness"],
                "problem.severity": _PROBLEM_SEVERITY[level],
                "autofix": bool(rule.autofix),
            },
        })
    return descriptors


def _artifact_location(path: str, cwd: str) -> dict:
    """A path relative to the working directory (``%SRCROOT%``), which GitHub maps to the repository root."""
    absolute = os.path.abspath(os.path.join(cwd, path))
    try:
        relative = os.path.relpath(absolute, cwd)
    except ValueError:  # another drive on Windows
        relative = None
    if relative is None or relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return {"uri": Path(absolute).as_uri()}
    return {"uri": quote(Path(relative).as_posix(), safe="/"), "uriBaseId": SOURCE_ROOT}


def format_sarif(items: Sequence[Reported], *, cwd: str, errors: Sequence[str] = (),
                 targets: Sequence[TargetGroup] = ()) -> str:
    rules = sarif_rules()
    index = {descriptor["id"]: position for position, descriptor in enumerate(rules)}
    results = []
    for item in items:
        finding = item.finding
        region = item.region or Region(finding.line, item.column, finding.line, item.column + 1)
        result: dict[str, Any] = {
            "ruleId": finding.code,
            "level": rule_level(finding.code),
            "message": {"text": finding.message},
            "locations": [{
                "physicalLocation": {
                    "artifactLocation": _artifact_location(finding.path, cwd),
                    "region": {
                        "startLine": region.start_line,
                        "startColumn": region.start_column,
                        "endLine": region.end_line,
                        "endColumn": region.end_column,
                    },
                },
            }],
        }
        related = finding.data.get(RELATED) or ()
        if related:  # the other places of the cause the finding stands for
            result["relatedLocations"] = [{
                "id": number,
                "message": {"text": f"the same {finding.code} cause"},
                "physicalLocation": {
                    "artifactLocation": _artifact_location(finding.path, cwd),
                    "region": {"startLine": place["line"], "startColumn": place["col"] + 1},
                },
            } for number, place in enumerate(related, start=1)]
        if finding.code in index:
            result["ruleIndex"] = index[finding.code]
        properties = dict(item.properties)
        if finding.scope:
            properties.setdefault("scope", finding.scope)
        if finding.data:
            properties.setdefault("data", dict(finding.data))
        if finding.target:
            properties.setdefault("target", dict(finding.target))
        if properties:
            result["properties"] = properties
        results.append(result)
    invocation: dict[str, Any] = {
        "executionSuccessful": not errors,
        "workingDirectory": {"uri": Path(cwd).as_uri() + "/"},
    }
    if errors:
        invocation["toolExecutionNotifications"] = [
            {"level": "error", "message": {"text": error}} for error in errors
        ]
    log = {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [{
            "tool": {
                "driver": {
                    "name": TOOL_NAME,
                    "version": __version__,
                    "semanticVersion": __version__,
                    "informationUri": information_uri(),
                    "rules": rules,
                },
            },
            "originalUriBaseIds": {SOURCE_ROOT: {"uri": Path(cwd).as_uri() + "/"}},
            "columnKind": "unicodeCodePoints",
            "invocations": [invocation],
            "results": results,
            **({"properties": target_properties(targets, items)} if targets else {}),
        }],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------------------------------------------------- GitHub


def escape_data(text: str) -> str:
    """A workflow command's message, escaped as GitHub's toolkit does (``escapeData``)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value (``escapeProperty``): also ``:`` and ``,``."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _github_path(path: str, cwd: str) -> str:
    absolute = os.path.abspath(os.path.join(cwd, path))
    relative = os.path.relpath(absolute, cwd)
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return absolute
    return Path(relative).as_posix()


def format_github(items: Sequence[Reported], *, cwd: str) -> str:
    """One ``::error file=...,line=...,col=...,title=MSxxx::message`` annotation per finding."""
    lines = []
    for item in items:
        finding = item.finding
        command = _GITHUB_COMMAND[rule_level(finding.code)]
        column = item.region.start_column if item.region is not None else item.column
        properties = ",".join([
            f"file={escape_property(_github_path(finding.path, cwd))}",
            f"line={finding.line}",
            f"col={column}",
            f"title={escape_property(finding.code)}",
        ])
        lines.append(f"::{command} {properties}::{escape_data(finding.message)}\n")
    return "".join(lines)
