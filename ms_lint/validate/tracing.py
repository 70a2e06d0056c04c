"""Which lines of one file run while a block runs: the tracer that building (``instances``: the construction lines
a build ran) and the host-method probe (``probes``: the finding lines a host method ran) both use."""
from __future__ import annotations

import sys

from ms_lint.validate.locations import same_file


class LinesRun:
    """While active, the ``lines`` of file ``path`` that run, in any frame of that file (``ran``), and whether a
    code object's file is ``path`` (``in_file``, by the file name a code object carries)."""

    def __init__(self, path: str, lines):
        self.path = path
        self.wanted = set(lines)
        self.ran: set[int] = set()
        self._files: dict[str, bool] = {}
        self._previous = None

    def in_file(self, filename: str) -> bool:
        known = self._files.get(filename)  # asked on every call the traced code makes
        if known is None:
            known = self._files[filename] = same_file(filename, self.path)
        return known

    def innermost_line(self, exc: BaseException) -> int | None:
        """The innermost line of the file in ``exc``'s traceback, or None."""
        line = None
        traceback = exc.__traceback__
        while traceback is not None:
            if self.in_file(traceback.tb_frame.f_code.co_filename):
                line = traceback.tb_lineno
            traceback = traceback.tb_next
        return line

    def _lines(self, frame, event, _arg):
        if event == "line" and frame.f_lineno in self.wanted:
            self.ran.add(frame.f_lineno)
        return self._lines

    def _calls(self, frame, _event, _arg):
        return self._lines if self.in_file(frame.f_code.co_filename) else None

    def __enter__(self) -> "LinesRun":
        self._previous = sys.gettrace()
        if self.wanted:
            sys.settrace(self._calls)
        return self

    def __exit__(self, *_exc) -> None:
        sys.settrace(self._previous)
