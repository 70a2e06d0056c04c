"""The options every entry point (flake8, ``ms-lint``, pytest) shares, with their validation."""
from __future__ import annotations

from dataclasses import dataclass

MODES = ("graph", "pynative")
SYNTAX_LEVELS = ("strict", "lax")


class SettingsError(ValueError):
    """An option value the user gave that ms-lint cannot use; the message says which values are valid."""


@dataclass(frozen=True)
class Settings:
    """How to read the code.

    ``mode``: how Cells run when the module does not say (``set_context(mode=...)``); ``graph`` is MindSpore's
    GRAPH_MODE, ``pynative`` means only jit-decorated code is compiled.
    ``syntax_level``: ``strict`` reports what fails under STRICT (and so cannot export MindIR); ``lax`` reports
    only what fails or misbehaves under LAX too.
    """

    mode: str = "graph"
    syntax_level: str = "strict"

    def __post_init__(self):
        if self.mode not in MODES:
            raise SettingsError(f"ms-mode must be one of {', '.join(MODES)}, not {self.mode!r}")
        if self.syntax_level not in SYNTAX_LEVELS:
            raise SettingsError(
                f"ms-syntax-level must be one of {', '.join(SYNTAX_LEVELS)}, not {self.syntax_level!r}"
            )

    @classmethod
    def from_values(cls, mode: str | None = None, syntax_level: str | None = None) -> "Settings":
        return cls(
            mode=(mode or "graph").strip().lower(),
            syntax_level=(syntax_level or "strict").strip().lower(),
        )
