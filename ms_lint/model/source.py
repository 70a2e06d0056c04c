"""Reading Python source as Python does; the outline of a module's text."""
from __future__ import annotations

import io
import re
import tokenize


# A coding cookie counts on the first two lines only; Python's tokenizer ends a line at \n, \r\n or a lone \r.
_FIRST_TWO_LINES = re.compile(rb"[^\r\n]*(?:\r\n?|\n)?[^\r\n]*(?:\r\n?|\n)?")


def source_encoding(data: bytes) -> str:
    """The encoding Python reads ``data`` with: its coding cookie or BOM (``utf-8-sig``), else UTF-8."""
    head = _FIRST_TWO_LINES.match(data).group()  # not the whole file split into lines, for two of them
    try:
        encoding, _ = tokenize.detect_encoding(iter(head.splitlines(keepends=True)).__next__)
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


def source_lines(source: str) -> list[str]:
    """``source``'s lines, ends kept, as Python numbers them: a line ends at ``\\n``, ``\\r\\n`` or ``\\r`` only.
    (``str.splitlines`` also breaks at form feeds and other separators, which shifts every line after one against
    the tree's line numbers.)"""
    return io.StringIO(source, newline="").readlines()


def read_source(path: str) -> str:
    """Read a Python file as Python does: honour its coding cookie and BOM; undecodable bytes are replaced."""
    with open(path, "rb") as handle:
        return decode_source(handle.read())


# What marks the lines of a function's header and body for ``outline_text``.
_DEF_LINE = re.compile(r"[ \t]*(?:async[ \t]+)?def[ \t]")
_DEF_OR_CLASS_LINE = re.compile(r"[ \t]*(?:(?:async[ \t]+)?def|class)[ \t]")
_STRINGS_AND_COMMENT = re.compile(r"""'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|#.*""")
_OPENING_BRACKET = re.compile(r"[(\[{]")
_CLOSING_BRACKET = re.compile(r"[)\]}]")
_TRIPLE_QUOTE = re.compile(r"\"\"\"|'''")


def outline_text(source: str, class_bodies: bool = True) -> str | None:
    """``source`` with every function body replaced by ``pass`` (line numbers kept): what a module defines and
    imports, its classes' own code, parsed at a fraction of the cost of the whole text; without ``class_bodies``,
    every class body is replaced too (the module's own code and its classes' headers). None where the lines cannot
    be told apart (a header inside a multi-line string, a body the tokenizer cannot end); parse the whole text
    then. A body is the lines indented deeper than its ``def`` or ``class``, blank and comment lines included, or,
    where a multi-line string in it runs back to the margin, the lines up to the first token the tokenizer finds at
    the header's indentation or left of it. A text cut wrongly does not parse, or parses to the same definitions
    (checked on the standard library and the corpus)."""
    lines = source.split("\n")
    count = len(lines)
    index = 0
    is_def = (_DEF_LINE if class_bodies else _DEF_OR_CLASS_LINE).match
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
        if quotes % 2:  # a string runs on past the indented lines: where the body ends is the tokenizer's to say
            last = _body_end(lines, index, first, indent)
            if last is None or sum(len(_TRIPLE_QUOTE.findall(text)) for text in lines[first:last]) % 2:
                return None  # the tokenizer started inside a string (a ``def`` line in a module's docstring)
        lines[first] = line[:indent] + " pass"
        for position in range(first + 1, last):
            lines[position] = ""
        index = last
    return "\n".join(lines)


# The tokens that do not start a line of code: inside f-strings (Python 3.12 tokenizes their parts) and layout.
_NOT_CODE = frozenset({tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT,
                       tokenize.ENDMARKER})
_FSTRING_START, _FSTRING_END = getattr(tokenize, "FSTRING_START", None), getattr(tokenize, "FSTRING_END", None)


def _body_end(lines: list[str], header: int, first: int, indent: int) -> int | None:
    """The index of the first line after the body (whose first line is ``lines[first]``) of the function whose
    header starts at ``lines[header]``, at ``indent``: the line of the first statement past the header that starts
    at that indentation or left of it (a line continued from the body belongs to it); None when the tokenizer fails
    first (a file that does not parse)."""
    rows = (line + "\n" for line in lines[header:])
    try:
        fstrings = 0
        statement_starts = True  # the next token starts a statement
        for token in tokenize.generate_tokens(rows.__next__):
            kind, row = token.type, token.start[0] + header - 1
            if fstrings:  # inside an f-string (Python 3.12 tokenizes its parts): no code starts there
                fstrings += (kind == _FSTRING_START) - (kind == _FSTRING_END)
                continue
            if kind in _NOT_CODE:
                statement_starts = statement_starts or kind == tokenize.NEWLINE
                continue
            if statement_starts and row >= first and token.start[1] <= indent:
                return row
            statement_starts = False
            if kind == _FSTRING_START:
                fstrings = 1
    except (tokenize.TokenError, SyntaxError):
        return None
    return len(lines)
