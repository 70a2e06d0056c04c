"""The target a project is checked against: device, MindSpore version, mode and syntax level.

A finding is only right for the device, version, mode and level the code runs under. Each part of the target is
either set by the user (an option) or inferred, and remembers where it came from, so that ``ms-lint check`` can say
what it assumed. Rules ask the target (``module.target``) rather than the raw settings.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from ms_lint.settings import DEVICES, Settings

# The devices a claim can hold on; ``any`` in the settings means all of them.
ALL_DEVICES = ("ascend", "gpu", "cpu")
DEVICE_NAMES = {"ascend": "Ascend", "gpu": "GPU", "cpu": "CPU", "any": "any device"}


def parse_version(text: str) -> tuple[int, ...]:
    """``2.7.1.post1`` -> ``(2, 7, 1)``: the release numbers, for comparisons (``>= (2, 8)``)."""
    parts = []
    for piece in text.split("."):
        digits = ""
        for character in piece:
            if not character.isdigit():
                break
            digits += character
        if not digits:
            break
        parts.append(int(digits))
        if len(digits) != len(piece):
            break
    return tuple(parts)


@dataclass(frozen=True)
class Target:
    """What the code is checked against. ``origins`` says, per part (``device``, ``version``, ``mode``,
    ``syntax_level``), where its value came from: ``"option"``, ``"installed"``, ``"train.py:6"``, ``"default"``."""

    device: str = "any"
    version: str = ""
    mode: str = "graph"
    syntax_level: str = "strict"
    origins: tuple[tuple[str, str], ...] = field(default=(), compare=False)

    def __post_init__(self):
        if self.device not in DEVICES:
            raise ValueError(f"device must be one of {', '.join(DEVICES)}, not {self.device!r}")

    @property
    def devices(self) -> tuple[str, ...]:
        """The devices the code may run on: one, or all three for ``any``."""
        return ALL_DEVICES if self.device == "any" else (self.device,)

    @property
    def version_tuple(self) -> tuple[int, ...]:
        return parse_version(self.version) if self.version else ()

    def origin(self, part: str) -> str:
        return dict(self.origins).get(part, "")

    def affected(self, devices: Iterable[str]) -> tuple[str, ...]:
        """Of ``devices`` (where a claim holds), those the target may run on, in ``ALL_DEVICES`` order; empty when
        the claim does not concern this target."""
        wanted = set(devices)
        return tuple(device for device in self.devices if device in wanted)

    def to_dict(self) -> dict:
        return {
            "device": self.device,
            "mindspore_version": self.version,
            "mode": self.mode,
            "syntax_level": self.syntax_level,
            "origins": dict(self.origins),
        }


def device_names(devices: Iterable[str]) -> str:
    """``("gpu", "cpu")`` -> ``"GPU and CPU"``."""
    names = [DEVICE_NAMES[device] for device in devices]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def target_from_settings(settings: Settings) -> Target:
    """The target as the settings name it; parts the user did not set take ms-lint's defaults (device ``any``,
    the version the API tables were generated from)."""
    from ms_lint.mindspore_api import mindspore_version

    origins = [("mode", "option" if settings.mode != "graph" else "default"),
               ("syntax_level", "option" if settings.syntax_level != "strict" else "default"),
               ("device", "option" if settings.device else "default"),
               ("version", "option" if settings.version else "default")]
    return Target(device=settings.device or "any", version=settings.version or mindspore_version(),
                  mode=settings.mode, syntax_level=settings.syntax_level, origins=tuple(origins))
