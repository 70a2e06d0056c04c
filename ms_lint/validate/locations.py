"""The source locations MindSpore's compiler names in its errors and logs.

Formats seen in MindSpore 2.10: ``# 0 In file /abs/path.py:10, 12~21`` (line, then 0-based columns),
``In file /abs/path.py:9~13, 4~16`` (a line range) and ``# In file /abs/path.py:78~83, 4~16``.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache

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
    """Every location in ``text``, in order, without repeats, and without the lines MindSpore prints between frames
    of its own functions: a function of MindSpore's is compiled once per graph, and the traceback names, between
    its frames, the line of its first use anywhere (measured on 2.10: an index out of range at line 660 printed
    as ``660``, MindSpore's ``_compile_utils.py``, line ``2027`` -- the graph's first ``[:, :n]`` -- and
    ``_compile_utils.py`` again), not a call that was made there."""
    every = []
    for match in _LOCATION.finditer(text or ""):
        start = int(match.group("start"))
        end = int(match.group("end") or start)
        every.append(Location(match.group("path").strip(), start, max(start, end)))
    found: list[Location] = []
    seen = set()
    for index, location in enumerate(every):
        if 0 < index < len(every) - 1 and not _in_mindspore(location.path) and _in_mindspore(
                every[index - 1].path) and _in_mindspore(every[index + 1].path):
            continue
        if location not in seen:
            seen.add(location)
            found.append(location)
            if len(found) >= limit:
                break
    return found


@lru_cache(maxsize=256)
def _in_mindspore(path: str) -> bool:
    return _mindspore_directory() is not None and os.path.realpath(path).startswith(_mindspore_directory())


@lru_cache(maxsize=1)
def _mindspore_directory() -> str | None:
    """Where the installed MindSpore package lives (found without importing it)."""
    from importlib.util import find_spec

    try:
        spec = find_spec("mindspore")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return os.path.join(os.path.realpath(list(spec.submodule_search_locations)[0]), "")


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
