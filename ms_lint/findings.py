"""What a rule reports."""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, Mapping


@dataclass(frozen=True)
class Finding:
    """One hazard at one place in one file.

    ``scope`` names the graph unit the finding sits in (``"Decoder"`` for a Cell class, ``"train_step"`` for a
    jit function, ``""`` at module level); the validator groups findings by it.
    ``data``: the facts the message is made from (the missing name, the method, the built type, the devices and
    levels the claim holds for), as JSON values: what every consumer (JSON/SARIF output, the validator) reads
    instead of the message text.
    ``target``: the target the finding was judged against, as JSON values (``Target.summary()``: ``device``,
    ``mindspore_version``, ``mode``, ``syntax_level`` and ``project``, the root of the file's project); the lint
    library sets it on every finding it reports (``ms-lint check``, ``ms-lint validate``), empty elsewhere.
    """

    path: str
    line: int
    col: int
    code: str
    message: str
    scope: str = ""
    node: ast.AST | None = field(default=None, compare=False, repr=False, hash=False)
    data: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)
    target: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def text(self) -> str:
        """The finding as flake8 prints its message: code first."""
        return f"{self.code} {self.message}"

    def to_dict(self) -> dict:
        return {
            "path": self.path,
            "line": self.line,
            "col": self.col,
            "code": self.code,
            "message": self.message,
            "scope": self.scope,
            "data": dict(self.data),
            "target": dict(self.target),
        }
