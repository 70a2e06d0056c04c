"""``ms-lint check --add-noqa``: mark every line that has findings with ``# noqa: CODE`` (ruff's ``--add-noqa``).

Each comment goes where flake8 (and ``ms-lint check``, see ``ms_lint.noqa``) reads it for the finding: flake8
searches the whole token range a line belongs to, from one ``NL``/``NEWLINE`` token to the next, so a finding
inside a multi-line string or on a backslash-continued line is marked at the end of the range's last line, the
only place a comment can go there. A ``# noqa: E501`` already in that range gets the new codes added
(``# noqa: E501, MS101``); a bare ``# noqa`` already silences everything. Only the ends of lines change: the
tokenizer says where code, strings and comments are, so a ``#`` inside a string is never taken for a comment, and
what the file means stays the same. Lines keep their own line endings; the file keeps its encoding. A finding that
stands for other places of its cause (``findings.RELATED``) marks their lines too: fixing the first place then
leaves the others silenced, as they were.
"""
from __future__ import annotations

import tokenize
from dataclasses import dataclass, field
from typing import Sequence

from ms_lint.findings import Finding
from ms_lint.model.source import source_lines

_LINE_ENDINGS = ("\r\n", "\n", "\r")


@dataclass
class Marked:
    """The source with its ``# noqa`` comments, how many lines were marked, and the findings no comment silences
    (a file the tokenizer cannot read, or a ``# noqa: CODES`` inside a string that flake8 reads first)."""

    source: str
    lines_marked: int = 0
    unmarked: list[Finding] = field(default_factory=list)


def add_noqa(source: str, findings: Sequence[Finding]) -> Marked:
    """``source`` with a ``# noqa`` for each of ``findings`` (the ones ``ms-lint check`` reports)."""
    from flake8.defaults import NOQA_INLINE_REGEXP

    from ms_lint.noqa import line_ranges, lines_of, noqa_line_mapping, without_noqa

    findings = list(findings)
    if not findings:
        return Marked(source)
    lines = source_lines(source)
    comments: dict[int, int] = {}  # line -> the column its comment starts at
    try:
        ranges = line_ranges(lines, max(line for finding in findings for line in lines_of(finding)), comments)
    except (tokenize.TokenError, SyntaxError):
        return Marked(source, unmarked=findings)
    range_of = {}
    for first, last in ranges:
        for number in range(first, last + 1):
            range_of[number] = (first, last)
    codes_by_range: dict[tuple[int, int], set[str]] = {}
    for finding in findings:
        for line in lines_of(finding):
            if line in range_of:
                codes_by_range.setdefault(range_of[line], set()).add(finding.code)
    marked = 0
    for (first, last), codes in sorted(codes_by_range.items()):
        joined = "".join(lines[first - 1:last])
        match = NOQA_INLINE_REGEXP.search(joined)
        last_line_start = len(joined) - len(lines[last - 1])
        comment = comments.get(last)
        if match is None:
            lines[last - 1] = _appended(lines[last - 1], sorted(codes))
        elif match.group("codes") is None or comment is None or match.start() < last_line_start + comment:
            continue  # a bare noqa covers everything; a noqa inside a string cannot be extended (left unmarked)
        else:
            listed = tuple(match.group("codes").replace(",", " ").split())
            missing = sorted(code for code in codes if not code.startswith(listed))
            if not missing:
                continue
            end = match.start("codes") + len(match.group("codes").rstrip(", \t\r\n\f\v")) - last_line_start
            line = lines[last - 1]
            lines[last - 1] = line[:end] + "".join(f", {code}" for code in missing) + line[end:]
        marked += 1
    # Appending to a range's last line leaves the ranges as they were: check the marks as flake8 reads them.
    unmarked = without_noqa(findings, lines, noqa_line_mapping(codes_by_range, lines))
    return Marked("".join(lines), marked, unmarked)


def _appended(line: str, codes: list[str]) -> str:
    """``line`` with ``  # noqa: CODES`` at its end, before its line ending (trailing blanks dropped)."""
    ending = next((end for end in _LINE_ENDINGS if line.endswith(end)), "")
    body = line[:len(line) - len(ending)].rstrip(" \t")
    return f"{body}  # noqa: {', '.join(codes)}{ending}"


def add_noqa_to_file(path: str, findings: Sequence[Finding]) -> Marked:
    """Mark ``path`` for ``findings`` and write it back, in its own encoding and line endings, if anything changed.

    Raises ``OSError`` when the file cannot be read or written, ``UnicodeError``/``LookupError`` when it cannot be
    decoded as Python decodes it."""
    from ms_lint.fixes import write_fixed
    from ms_lint.model.source import decode_source

    with open(path, "rb") as handle:
        source = decode_source(handle.read(), strict=True)
    result = add_noqa(source, findings)
    if result.lines_marked:
        write_fixed(path, result.source)
    return result
