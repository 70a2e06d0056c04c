"""``# noqa`` as flake8 reads it, for ``ms-lint check`` and the pytest plugin (flake8 applies it itself).

flake8's own pieces do the work: its regular expressions (``flake8.defaults.NOQA_INLINE_REGEXP``/``NOQA_FILE``)
and its decision (``Violation.is_inline_ignored``): a bare ``# noqa`` silences every code on the line,
``# noqa: MS101,MS2`` the listed codes and prefixes, and a line ``# flake8: noqa`` skips the whole file. As in
flake8, a comment anywhere in a multi-line string or statement token range counts for every line of it.
"""
from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import replace
from typing import Iterable, Iterator, Sequence

from ms_lint.findings import Finding


def file_is_skipped(lines: Sequence[str], source: str | None = None) -> bool:
    """A line that is only ``# flake8: noqa`` turns off checking for the file (flake8's rule); ``source``, the text
    of ``lines`` where the caller has it, lets a file that never writes ``flake8`` go without a look at each line."""
    from flake8.defaults import NOQA_FILE

    if source is not None and "flake8" not in source.lower():  # what each match of NOQA_FILE holds
        return False
    return any(NOQA_FILE.match(line) for line in lines)


def mentions_noqa(source: str) -> bool:
    """Whether ``source`` holds ``noqa`` anywhere, in any case: without, no finding of it is silenced (a search
    ignoring case with a regular expression takes ten times as long)."""
    return "noqa" in source.lower()


def noqa_line_ranges(tokens: Iterable[tokenize.TokenInfo], line_count: int,
                     comments: dict[int, int] | None = None) -> Iterator[tuple[int, int]]:
    """The ``(first, last)`` line ranges flake8 reads one ``noqa`` for: each runs from a line to the next ``NL`` or
    ``NEWLINE`` token, so a multi-line string or a backslash-continued line forms one range (a bracketed
    statement's lines end at their ``NL`` tokens, each a range of its own). ``comments`` gets the column of each
    comment, by line."""
    first, last = line_count + 2, -1
    for token in tokens:
        if token.type in (tokenize.ENDMARKER, tokenize.DEDENT):
            continue
        if token.type == tokenize.COMMENT and comments is not None:
            comments[token.start[0]] = token.start[1]
        first = min(first, token.start[0])
        last = max(last, token.end[0])
        if token.type in (tokenize.NL, tokenize.NEWLINE):
            yield first, last
            first, last = line_count + 2, -1


def line_ranges(lines: Sequence[str], up_to: int, comments: dict[int, int] | None = None) -> list[tuple[int, int]]:
    """``noqa_line_ranges`` of ``lines``, tokenized only as far as the range that holds line ``up_to``.

    Raises ``tokenize.TokenError`` or ``SyntaxError`` where the tokenizer cannot read that far."""
    ranges = []
    tokens = tokenize.generate_tokens(io.StringIO("".join(lines)).readline)
    for first, last in noqa_line_ranges(tokens, len(lines), comments):
        ranges.append((first, last))
        if last >= up_to:
            break
    return ranges


def _noqa_line_mapping(lines: Sequence[str], up_to: int) -> dict[int, str]:
    """Line number -> the text flake8 searches for ``noqa``: the whole token range the line belongs to (for the
    lines up to ``up_to``: a finding further down would have to be looked up again)."""
    try:
        return noqa_line_mapping(line_ranges(lines, up_to), lines)
    except (tokenize.TokenError, SyntaxError):
        return {}


def noqa_line_mapping(ranges: Iterable[tuple[int, int]], lines: Sequence[str]) -> dict[int, str]:
    """Line number -> the text of its range in ``lines``, for the lines of ``ranges``."""
    mapping: dict[int, str] = {}
    for first, last in ranges:
        joined = "".join(lines[first - 1:last])
        for number in range(first, last + 1):
            mapping[number] = joined
    return mapping


def ranges_of_their_own(line_numbers: Iterable[int], lines: Sequence[str], nodes: Sequence[ast.AST]) -> bool:
    """Whether each of ``line_numbers`` is a ``noqa`` range of its own (``noqa_line_ranges``: the tokenizer ends it
    with the line), which ``nodes``, every node of the module's tree, tell without tokenizing: no string starts on
    an earlier line and ends on it or later (a string written over several lines, or strings joined over lines:
    those may span several ranges, and are left to the tokenizer), and neither it nor the line before it ends with
    a backslash."""
    wanted = sorted(set(line_numbers))
    if not wanted:
        return True
    for number in wanted:
        for line in (lines[number - 2] if number > 1 else "", lines[number - 1] if number <= len(lines) else ""):
            if line.rstrip("\r\n").endswith("\\"):
                return False
    first, last = wanted[0], wanted[-1]
    for node in nodes:
        node_type = node.__class__
        if (node_type is ast.Constant or node_type is ast.JoinedStr) and node.lineno < node.end_lineno and (
                node.lineno <= last and node.end_lineno >= first):
            if any(node.lineno <= number <= node.end_lineno for number in wanted):
                return False
    return True


def without_noqa(findings: Iterable[Finding], lines: Sequence[str],
                 mapping: dict[int, str] | None = None) -> list[Finding]:
    """The findings that no ``# noqa`` comment silences (``mapping``: line -> the text of its range, where the caller
    has it). A finding that stands for others of its cause (``findings.RELATED``) is silenced by a comment on its
    own line; one on another place of the cause takes only that place from it."""
    findings = list(findings)
    if not findings or not any("noqa" in line.lower() for line in lines):
        return findings
    if mapping is None:
        mapping = _noqa_line_mapping(lines, max(line for finding in findings for line in lines_of(finding)))
    kept = []
    for finding in findings:
        if not _silenced(finding.code, finding.path, finding.line, finding.col, lines, mapping):
            kept.append(_related_without_noqa(finding, lines, mapping))
    return kept


def lines_of(finding: Finding) -> list[int]:
    """The lines of ``finding`` and of the other places of its cause it stands for."""
    from ms_lint.findings import RELATED

    return [finding.line, *(place["line"] for place in finding.data.get(RELATED) or ())]


def related_without_noqa(findings: Iterable[Finding], lines: Sequence[str]) -> list[Finding]:
    """The findings, each without the other places of its cause that a ``# noqa`` on their line silences (for
    flake8, which reads the comment on the line it reports)."""
    findings = list(findings)
    if not any(len(lines_of(finding)) > 1 for finding in findings) or not any(
            "noqa" in line.lower() for line in lines):
        return findings
    mapping = _noqa_line_mapping(lines, max(line for finding in findings for line in lines_of(finding)))
    return [_related_without_noqa(finding, lines, mapping) for finding in findings]


def _related_without_noqa(finding: Finding, lines: Sequence[str], mapping: dict[int, str]) -> Finding:
    from ms_lint.findings import RELATED, with_related

    places = finding.data.get(RELATED)
    if not places:
        return finding
    silenced = [place for place in places
                if _silenced(finding.code, finding.path, place["line"], place["col"], lines, mapping)]
    if not silenced:
        return finding
    absorbed = finding.absorbed or tuple(replace(finding, line=place["line"], col=place["col"], node=None,
                                                 data={}, absorbed=()) for place in places)
    gone = {(place["line"], place["col"]) for place in silenced}
    return with_related(finding, tuple(other for other in absorbed if (other.line, other.col) not in gone))


def _silenced(code: str, path: str, line: int, col: int, lines: Sequence[str], mapping: dict[int, str]) -> bool:
    from flake8.violation import Violation

    physical = mapping.get(line)
    if physical is None:
        physical = lines[line - 1] if 0 < line <= len(lines) else ""
    return Violation(code, path, line, col + 1, "", physical).is_inline_ignored(disable_noqa=False)
