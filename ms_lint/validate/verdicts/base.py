"""What a verdict is: the kinds, the ``Verdict`` of one finding, and what is said without running anything."""
from __future__ import annotations

from dataclasses import dataclass, field

from ms_lint.findings import Finding
from ms_lint.validate.expectations import (
    MODULE_LEVEL,
    expectation_for,
)
from ms_lint.validate.locations import message_line


CONFIRMED = "confirmed"
CONFIRMED_BY_PROBE = "confirmed by probe"
NOT_REPRODUCED = "not reproduced"
NOT_REACHED = "not reached"  # it compiled, but the finding's line was not part of the graph
INCONCLUSIVE = "inconclusive"
NOT_APPLICABLE = "not applicable"
NOT_CHECKED = "not checked"  # an interrupted run never got to it
VERDICTS = (CONFIRMED, CONFIRMED_BY_PROBE, NOT_REPRODUCED, NOT_REACHED, INCONCLUSIVE, NOT_APPLICABLE)
DECIDED = (CONFIRMED, CONFIRMED_BY_PROBE, NOT_REPRODUCED)
CONFIRMED_KINDS = (CONFIRMED, CONFIRMED_BY_PROBE)


@dataclass
class Verdict:
    finding: Finding
    verdict: str
    message: str
    device: str
    level: str
    target: str = ""
    compiler_message: str | None = None  # the first line of the compiler's (or constructor's) error
    compiler_location: str | None = None  # "path:line" the compiler pointed at
    example: str | None = None  # the example to add to the examples file
    notes: list[str] = field(default_factory=list)
    cached: bool = False
    built: str | None = None  # how the instance was built (an example, a constructor call, a config, ...)
    inputs: list[str] = field(default_factory=list)  # how each input was made
    mode: str = "graph"  # the mode it was checked in: "graph" (compiled) or "pynative" (run eagerly)

    @property
    def confirmed(self) -> bool:
        return self.verdict in CONFIRMED_KINDS

    def to_dict(self) -> dict:
        data = self.finding.to_dict()
        data.update({
            "verdict": self.verdict,
            "explanation": self.message,
            "device": self.device,
            "syntax_level": self.level,
            "mode": self.mode,
            "unit": self.target,  # the Cell or function compiled; the finding's own "target" is what it was judged for
            "compiler_message": self.compiler_message,
            "compiler_location": self.compiler_location,
            "example": self.example,
            "notes": list(self.notes),
            "cached": self.cached,
            "built": self.built,
            "inputs": list(self.inputs),
        })
        return data


def module_level_verdict(finding: Finding, device: str, level: str) -> Verdict:
    if finding.code == "MS900":
        message = "the static check itself failed on this file; nothing to compile"
    elif finding.code in ("E999", "E902"):
        message = "the file does not parse: nothing in it can be compiled"
    elif expectation_for(finding.code).nothing_to_compile:
        message = expectation_for(finding.code).nothing_to_compile
    elif not finding.scope and expectation_for(finding.code).check != MODULE_LEVEL:
        message = "not inside a Cell or a @jit function: there is nothing to compile"
    else:
        message = "module-level finding: there is no Cell to compile, so no compile probe"
    return Verdict(finding, NOT_APPLICABLE, message, device, level)


def not_checked_verdict(finding: Finding, device: str, level: str, target: str) -> Verdict:
    return Verdict(finding, NOT_CHECKED, "the run was interrupted before this was checked", device, level, target)


def said(error: dict) -> tuple[str, str]:
    """``(Type: the message's line, the same cut to 160 characters)`` of an error a probe or a build recorded
    (``{"type", "message"}``); empty strings for none."""
    if not error:
        return "", ""
    first = f"{error.get('type')}: {message_line(error.get('message') or '')}"
    return first, first if len(first) <= 160 else first[:157] + "..."


def raise_site(error: dict | None) -> str:
    """Where user code raised: the last traceback frame outside MindSpore, as ``path:line``."""
    from ms_lint.validate.project import display_path

    frames = (error or {}).get("traceback") or []
    if not frames or not isinstance(frames[-1], (list, tuple)):
        return ""
    path, line = frames[-1][0], frames[-1][1]
    return f"{display_path(path)}:{line}"


def last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return ""
    line = lines[-1]
    return line if len(line) <= 200 else line[:197] + "..."


def demote_guessed(verdict: Verdict, outcome, cell: str = "the Cell") -> None:
    """A confirmed ``verdict`` whose Cell was built with values the project never gave it (required arguments or
    config fields guessed from their names, sizes left None guessed) becomes ``confirmed by probe``: the hazard
    showed on the line, in a Cell the project may never build that way. The note names the guessed values."""
    if verdict.verdict != CONFIRMED:
        return
    said = []
    if outcome.guessed_arguments:
        said.append(f"{', '.join(outcome.guessed_arguments)} guessed from the names (no example, default, "
                    f"docstring, test or config gives them)")
    if outcome.guessed_sizes:
        said.append(f"{', '.join(outcome.guessed_sizes)} guessed (left None by default, used as sizes)")
    if said:
        verdict.verdict = CONFIRMED_BY_PROBE
        verdict.notes.append(f"confirmed by probe, not confirmed: {cell} was built with {'; '.join(said)}")
