"""The source locations MindSpore's compiler names in its errors and logs.

Formats seen in MindSpore 2.10: ``# 0 In file /abs/path.py:10, 12~21`` (line, then 0-based columns),
``In file /abs/path.py:9~13, 4~16`` (a line range) and ``# In file /abs/path.py:78~83, 4~16``.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

_LOCATION = re.compile(r"In file (?P<path>[^\n]+?\.pyw?):(?P<start>\d+)(?:~(?P<end>\d+))?")


@dataclass(frozen=True)
class Location:
    path: str
    start: int
    end: int

    def contains(self, line: int) -> bool:
        return self.start <= line <= self.end

    def to_list(self) -> list:
        return [self.path, self.start, self.end]


def parse_locations(text: str, limit: int = 64) -> list[Location]:
    """Every location in ``text``, in order, without repeats."""
    found: list[Location] = []
    seen = set()
    for match in _LOCATION.finditer(text or ""):
        start = int(match.group("start"))
        end = int(match.group("end") or start)
        location = Location(match.group("path").strip(), start, max(start, end))
        if location not in seen:
            seen.add(location)
            found.append(location)
            if len(found) >= limit:
                break
    return found


def location_lines(text: str, limit: int = 64) -> list[str]:
    """The lines of ``text`` that name a location (kept from compiler logs, which can be long)."""
    lines = [line.strip() for line in (text or "").splitlines() if "In file " in line]
    return lines[:limit]


def same_file(first: str, second: str) -> bool:
    try:
        return os.path.realpath(first) == os.path.realpath(second)
    except (OSError, ValueError):
        return first == second


_DIVIDER = re.compile(r"^[-=*#~_+. ]+$")
_HEADING = re.compile(r"^- .*:(\s*\(.*\))?$")
_NOISE = re.compile(r"^\[(ERROR|WARNING|INFO)\]")


def message_line(text: str) -> str:
    """The line of an error message that says what went wrong: MindSpore's messages can open with a divider
    (``-----``), a section heading (``- Framework Unexpected Exception Raised:``) or a log prefix, and end with
    framework call stacks; none of those is the message. Empty when there is no such line."""
    for line in (text or "").splitlines():
        line = line.strip()
        if not line:
            continue
        if "Call Stack" in line and _HEADING.match(line):
            break  # framework frames follow, never the message
        if line.startswith("# ") and "In file " in line:
            break  # the traceback of the construct code
        if _DIVIDER.match(line) or _HEADING.match(line) or _NOISE.match(line):
            continue
        return line
    return ""
