"""MS900: ms-lint itself failed on a file; the finding replaces what would have aborted the whole run."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from ms_lint.model import ModuleFacts
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.rules.base import Rule


@dataclass(frozen=True, kw_only=True)
class CouldNotCheck(FindingData):
    """ms-lint failed on a file: what it could not do (``check`` it, or ``read`` it), the exception's type and
    its summary."""

    stage: str
    error: str = fact(for_users=True)
    detail: str

    def message(self) -> str:
        if self.stage == "read":
            return f"ms-lint could not read this file ({self.detail})"
        return f"ms-lint could not check this file ({self.detail}); please report it with the file"


class InternalError(Rule):
    code = "MS900"
    name = "internal-error"
    summary = "ms-lint could not check the file (the reason is in the message)"
    fix_summary = "report it with the file; the rest of the run is unaffected"
    what = """
        Reported on line 1 when checking a file raised inside ms-lint (for example code nested too deeply to
        analyse). The message carries the exception summary. The other files, and the other flake8 plugins, are
        checked as usual.
    """
    why = """
        An exception raised by a flake8 plugin aborts the user's whole flake8 run, in the editor and in CI. ms-lint
        turns it into this finding instead, so a single odd file never hides every other result.
    """
    example = """
        # any file on which ms-lint fails internally
    """
    use_instead = """
        # nothing to change in the code; select it away with --extend-ignore=MS900 while it is being fixed
    """

    records = (CouldNotCheck,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        return iter(())  # the engine reports MS900 itself when a check raises
