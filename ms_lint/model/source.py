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


def may_hold_hazards(source: str, path: str = "") -> bool:
    """Whether the file may hold a hazard; one that cannot is skipped before any analysis.

    A name resolves to a MindSpore object only through an import that spells ``mindspore`` (a ``jit`` or
    ``jit_class`` imported from a module of the project is not MindSpore's, for every check), or, inside MindSpore's
    own package (a ``path`` that names it), through a relative import. A file where no import spells it (``mindspore``
    only in a checkpoint's URL or a comment) reaches MindSpore only through the project's own classes, and holds
    graph code only as ``construct`` or ``bprop`` of a class deriving from a Cell of another module: whole words,
    which ``constructor`` or ``reconstruct`` are not. Such a file without them is not checked, even where it holds a
    subclass of the project's Cell that only overrides ``__init__``."""
    if "mindspore" in source and (_imports_mindspore(source) or "mindspore" in path):
        return True
    return _has_word(source, "construct") or _has_word(source, "bprop")


def _imports_mindspore(source: str) -> bool:
    """Whether a statement that spells ``mindspore`` may import it: ``import`` written before the word in the
    statement (``import os, mindspore``, ``try: import mindspore as ms``), or ``from`` right before it (``from
    mindspore import nn``); a comment or a string that says ``import`` before the word counts too. Only the lines
    holding the word are read, from the first line of their statement when backslashes continue it, and each part
    of the text at most once (a file of one long line holding the word thousands of times is read in one pass)."""
    start = source.find("mindspore")
    line_end = -1  # where the line of the word last read ends
    scanned = 0  # how far that word's statement has been read
    while start >= 0:
        if start > line_end:  # the word's first on its line
            line_start = source.rfind("\n", 0, start) + 1
            continues_last = False
            while line_start:  # back over the lines that a backslash continues into this one
                before = line_start - 2
                if before >= 0 and source[before] == "\r":
                    before -= 1
                if before < 0 or source[before] != "\\":
                    break
                if line_start == line_end + 1:  # the last word's line continues into this one: one statement
                    continues_last = True
                    break
                line_start = source.rfind("\n", 0, before) + 1
            if not continues_last:
                scanned = line_start
            line_end = source.find("\n", start)
            if line_end < 0:
                line_end = len(source)
        before_word = source[scanned:start]
        if "import" in before_word or before_word.replace("\\", " ").split()[-1:] == ["from"]:
            return True
        scanned = start
        start = source.find("mindspore", start + len("mindspore"))
    return False


def _has_word(text: str, word: str) -> bool:
    """Whether ``word`` stands in ``text`` as a whole word (a search by regular expression, ``\\bword\\b``, takes
    four times as long: a file is read through for it before anything else)."""
    start = text.find(word)
    while start >= 0:
        end = start + len(word)
        before, after = text[start - 1:start], text[end:end + 1]
        if not (before.isalnum() or before == "_" or after.isalnum() or after == "_"):
            return True
        start = text.find(word, end)
    return False
