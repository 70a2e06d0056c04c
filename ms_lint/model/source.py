"""Reading Python source as Python does; the outline of a module's text."""
from __future__ import annotations

import re
import tokenize


def source_encoding(data: bytes) -> str:
    """The encoding Python reads ``data`` with: its coding cookie or BOM (``utf-8-sig``), else UTF-8."""
    try:
        encoding, _ = tokenize.detect_encoding(iter(data.splitlines(keepends=True)).__next__)
    except SyntaxError:
        return "utf-8"
    return encoding


def decode_source(data: bytes, strict: bool = False) -> str:
    """Python source bytes as text, as Python reads them, the BOM dropped. Undecodable bytes are replaced, or with
    ``strict`` raise ``UnicodeDecodeError`` (``LookupError`` for an unknown coding), as Python refuses the file."""
    try:
        text = data.decode(source_encoding(data))
    except (UnicodeDecodeError, LookupError):
        if strict:
            raise
        text = data.decode("utf-8", errors="replace")
    return text.lstrip("\ufeff")


def read_source(path: str) -> str:
    """Read a Python file as Python does: honour its coding cookie and BOM; undecodable bytes are replaced."""
    with open(path, "rb") as handle:
        return decode_source(handle.read())


# What marks the lines of a function's header and body for ``outline_text``.
_DEF_LINE = re.compile(r"[ \t]*(?:async[ \t]+)?def[ \t]")
_STRINGS_AND_COMMENT = re.compile(r"""'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|#.*""")
_OPENING_BRACKET = re.compile(r"[(\[{]")
_CLOSING_BRACKET = re.compile(r"[)\]}]")
_TRIPLE_QUOTE = re.compile(r"\"\"\"|'''")


def outline_text(source: str) -> str | None:
    """``source`` with every function body replaced by ``pass`` (line numbers kept): what a module defines and
    imports, its classes' own code, parsed at a fraction of the cost of the whole text. None where the lines cannot
    be told apart without tokenizing (a header or a body boundary inside a multi-line string); parse the whole
    text then. A body is the lines indented deeper than its ``def``, blank and comment lines included; a text cut
    wrongly does not parse, or parses to the same definitions (checked on the standard library and the corpus)."""
    lines = source.split("\n")
    count = len(lines)
    index = 0
    is_def = _DEF_LINE.match
    while index < count:
        line = lines[index]
        if not is_def(line):
            index += 1
            continue
        indent = len(line) - len(line.lstrip(" \t"))
        depth, end = 0, index
        while True:  # the header, to the colon that closes it
            if '"""' in lines[end] or "'''" in lines[end]:
                return None
            code = _STRINGS_AND_COMMENT.sub("", lines[end]).rstrip()
            depth += len(_OPENING_BRACKET.findall(code)) - len(_CLOSING_BRACKET.findall(code))
            if depth <= 0:
                break
            end += 1
            if end >= count:
                return None
        if not code.endswith(":"):
            index = end + 1  # a function on one line: kept as it is
            continue
        first = last = end + 1
        while last < count:
            text = lines[last]
            stripped = text.lstrip(" \t\r\f")  # \r: a file with \r\n line ends, split at \n
            if stripped and stripped[0] != "#" and len(text) - len(stripped) <= indent:
                break
            last += 1
        if last == first:
            return None
        quotes = sum(len(_TRIPLE_QUOTE.findall(text)) for text in lines[first:last] if '"""' in text or "'''" in text)
        if quotes % 2:
            return None  # a string runs on past the indented lines
        lines[first] = line[:indent] + " pass"
        for position in range(first + 1, last):
            lines[position] = ""
        index = last
    return "\n".join(lines)
