"""Reading Python source as Python does."""
from __future__ import annotations

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
