"""The options every entry point (flake8, ``ms-lint``, pytest) shares, with their validation."""
from __future__ import annotations

from functools import lru_cache

import os
from dataclasses import astuple, dataclass
from fnmatch import fnmatch

MODES = ("graph", "pynative")
SYNTAX_LEVELS = ("strict", "lax")
# ``any``: the project may run on every device; a finding that holds on some devices only names them.
DEVICES = ("ascend", "gpu", "cpu", "any")
# ``upgrade_from``: the version the project's requirement pins or starts from.
PINNED = "pinned"


class SettingsError(ValueError):
    """An option value the user gave that ms-lint cannot use; the message says which values are valid."""


@dataclass(frozen=True)
class Settings:
    """How to read the code.

    ``mode``: how Cells run when the module does not say (``set_context(mode=...)``); ``graph`` is MindSpore's
    GRAPH_MODE, ``pynative`` means only jit-decorated code is compiled; ``""`` (the default) takes the mode the
    project's entry points select, else MindSpore's default (PyNative) for an application and GRAPH_MODE for a
    library (see ``ms_lint.target``).
    ``syntax_level``: ``strict`` reports what fails under STRICT (and so cannot export MindIR); ``lax`` reports
    only what fails or misbehaves under LAX too; ``""`` (the default) takes the level the project selects: STRICT
    where its code selects it or exports MindIR, else LAX, MindSpore's default (see ``ms_lint.target``).
    ``values`` (set from the fields): the fields' values as one tuple.
    """

    mode: str = ""
    syntax_level: str = ""
    # (pattern, mode) pairs: files matching a pattern run their Cells in that mode unless they call set_context
    # themselves (a package that only runs eagerly: ``pkg/pynative/*: pynative``); the longest pattern wins.
    per_path_modes: tuple[tuple[str, str], ...] = ()
    # The target device and MindSpore version the user named; "" where ms-lint infers them (ms_lint.target).
    device: str = ""
    version: str = ""
    # Methods the project adds to MindSpore's Tensor at run time (a compatibility layer's patches, such as
    # ``detach`` and ``backward``): MS602 takes them as existing.
    tensor_methods: tuple[str, ...] = ()
    # The MindSpore version the project moves from (``--ms-upgrade-from``; ``PINNED``: its requirement's), and
    # whether the version is the project's requirement's even where another MindSpore is installed.
    upgrade_from: str = ""
    pinned: bool = False
    # Report code the application never runs too (``--ms-check-unrun``): by default its findings are counted, not
    # shown (``target.never_run``).
    check_unrun: bool = False
    # Report each line of a cause (``--ms-each-line``): by default the findings of one cause in a file (the same
    # misuse in one function, one constant several calls read) are reported once, at the first.
    each_line: bool = False

    def __post_init__(self):
        if self.mode and self.mode not in MODES:
            raise SettingsError(f"ms-mode must be one of {', '.join(MODES)}, not {self.mode!r}")
        for pattern, mode in self.per_path_modes:
            if mode not in MODES:
                raise SettingsError(
                    f"per-path-ms-mode: the mode for {pattern!r} must be one of {', '.join(MODES)}, not {mode!r}")
        if self.syntax_level and self.syntax_level not in SYNTAX_LEVELS:
            raise SettingsError(
                f"ms-syntax-level must be one of {', '.join(SYNTAX_LEVELS)}, not {self.syntax_level!r}"
            )
        if self.device and self.device not in DEVICES:
            raise SettingsError(f"ms-device must be one of {', '.join(DEVICES)}, not {self.device!r}")
        if self.version and not is_version(self.version):
            raise SettingsError(f"ms-version must be a MindSpore version such as 2.7.1, not {self.version!r}")
        if self.upgrade_from and self.upgrade_from != PINNED and not is_version(self.upgrade_from):
            raise SettingsError(f"ms-upgrade-from must be a MindSpore version such as 2.7.1 (or {PINNED}: the "
                                f"project's requirement's), not {self.upgrade_from!r}")
        for name in self.tensor_methods:
            if not name.isidentifier():
                raise SettingsError(f"ms-tensor-methods: {name!r} is not a method name")
        # The settings by their values, an exact tuple of strings, for what a process keeps from file to file: the
        # garbage collector stops tracking such a tuple, never a Settings object (see ms_lint.model.project).
        object.__setattr__(self, "values", astuple(self))

    def mode_for(self, path: str) -> str:
        """The mode the options give the file at ``path`` (matched as flake8's per-file-ignores are: by its name or
        its absolute path); "" where they leave it to be inferred."""
        if self.per_path_modes and path:
            absolute = os.path.abspath(path)
            name = os.path.basename(path)
            matching = [(len(pattern), mode) for pattern, mode in self.per_path_modes
                        if fnmatch(name, pattern) or fnmatch(absolute, pattern)]
            if matching:
                return max(matching)[1]
        return self.mode

    @classmethod
    def from_values(cls, mode: str | None = None, syntax_level: str | None = None,
                    per_path_modes: str | list | dict | None = None, base: str | None = None,
                    device: str | None = None, version: str | None = None,
                    tensor_methods: str | list | tuple | None = None,
                    upgrade_from: str | None = None, check_unrun: bool | str | None = None,
                    each_line: bool | str | None = None) -> "Settings":
        return cls(
            mode=(mode or "").strip().lower(),
            syntax_level=(syntax_level or "").strip().lower(),
            per_path_modes=parse_per_path_modes(per_path_modes, base),
            device=(device or "").strip().lower(),
            version=(version or "").strip(),
            tensor_methods=parse_names(tensor_methods),
            upgrade_from=(upgrade_from or "").strip(),
            check_unrun=_is_on(check_unrun), each_line=_is_on(each_line),
        )


def _is_on(value: bool | str | None) -> bool:
    return value is True or str(value).strip().lower() in ("1", "true", "yes", "on")


def parse_names(value: str | list | tuple | None) -> tuple[str, ...]:
    """Names separated by commas or white space (or a list of them), in order, each once."""
    from flake8.utils import parse_comma_separated_list

    if not value:
        return ()
    items = value if isinstance(value, (list, tuple)) else [value]
    return tuple(dict.fromkeys(name for item in items for name in parse_comma_separated_list(str(item))))


def is_version(text: str) -> bool:
    """``2.7``, ``2.7.1``, ``2.7.1.post1``, ``2.10.0rc1``: a release number, at least major.minor."""
    import re

    return re.fullmatch(r"\d+\.\d+(\.\d+)*([.]?(post|rc|a|b|dev)\d*)*", text) is not None


def parse_per_path_modes(value: str | list | dict | None, base: str | None = None) -> tuple[tuple[str, str], ...]:
    """``PATTERN: MODE`` entries (separated by newlines or commas, or a list of them, or a TOML table of pattern =
    mode) as (pattern, mode) pairs; a pattern holding ``/`` is relative to ``base`` (default: the current
    directory), as flake8 resolves per-file-ignores."""
    if not value:
        return ()
    if isinstance(value, dict):
        entries = [(str(pattern), str(mode)) for pattern, mode in value.items()]
    else:
        text = "\n".join(value) if isinstance(value, (list, tuple)) else str(value)
        entries = []
        for entry in text.replace(",", "\n").splitlines():
            if not entry.strip():
                continue
            pattern, separator, mode = entry.rpartition(":")
            if not separator or not pattern.strip() or not mode.strip():
                raise SettingsError(f"per-path-ms-mode entries are 'PATTERN: MODE' (like 'pkg/eager/*: pynative'), "
                                    f"not {entry.strip()!r}")
            entries.append((pattern, mode))
    root = base or os.getcwd()
    return tuple(
        (os.path.abspath(os.path.join(root, pattern.strip())) if "/" in pattern else pattern.strip(),
         mode.strip().lower())
        for pattern, mode in entries)


@lru_cache(maxsize=256)
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
