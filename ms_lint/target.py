"""The target a project is checked against: device, MindSpore version, mode and syntax level.

A finding is only right for the device, version, mode and level the code runs under. Each part of the target is
either set by the user (an option) or inferred, and remembers where it came from, so that ``ms-lint check`` can say
what it assumed. Rules ask the target (``module.target``) rather than the raw settings.

Inference, once per project (the nearest directory above a file holding ``pyproject.toml``, ``setup.cfg``,
``setup.py``, ``.git`` or an unpacked wheel's ``*.dist-info``), by reading text, never importing MindSpore:

- version: the MindSpore installed where ms-lint runs (its metadata), else the version the project's requirement
  names (``pyproject.toml``, ``setup.cfg``, ``setup.py``, ``requirements*.txt``, a wheel's ``METADATA``), else the
  version ms-lint's API tables were read from;
- device: the device the project's own code names (``set_device("Ascend")``, ``set_context(device_target="Ascend")``,
  the default of a ``--device_target`` argument or a ``device_target`` field) when every such place agrees; tests
  are not read for it; else ``any``;
- syntax level: STRICT where the project's code selects it (``set_context(jit_syntax_level=ms.STRICT)``,
  ``JitConfig(jit_syntax_level="STRICT")``, ``MS_DEV_JIT_SYNTAX_LEVEL`` set to 0 or 1) or exports MindIR
  (``mindspore.export(..., file_format="MINDIR")``), else LAX, MindSpore's default (``jit(fullgraph=True)`` makes its
  own function STRICT: see ``ms_lint.model.graph``).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable

from ms_lint.entries import context_call as _context_call
from ms_lint.entries import in_comment as _in_comment
from ms_lint.entries import is_test_path
from ms_lint.settings import DEVICES, Settings, is_version, parse_version

# The devices a claim can hold on; ``any`` in the settings means all of them.
ALL_DEVICES = ("ascend", "gpu", "cpu")
DEVICE_NAMES = {"ascend": "Ascend", "gpu": "GPU", "cpu": "CPU", "any": "any device"}


@dataclass(frozen=True)
class Target:
    """What the code is checked against. ``origins`` says, per part (``device``, ``version``, ``mode``,
    ``syntax_level``), where its value came from: ``"option"``, ``"installed"``, ``"train.py:6"``, ``"default"``."""

    device: str = "any"
    version: str = ""
    mode: str = "graph"
    syntax_level: str = "lax"
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
        """Of ``devices`` (where a claim holds), those the target may run on, in the order given; empty when the
        claim does not concern this target."""
        mine = self.devices
        return tuple(device for device in devices if device in mine)

    @property
    def key(self) -> str:
        """What in the target changes findings, as one string (for result caches)."""
        return f"device={self.device};version={self.version};mode={self.mode};level={self.syntax_level}"

    def describe(self) -> str:
        """One line naming each part and where it came from: ``MindSpore 2.7.1 (installed) · Ascend (train.py:6) ·
        graph · LAX (MindSpore's default)``."""
        device = "any device" if self.device == "any" else DEVICE_NAMES[self.device]
        level_default = "MindSpore's default"
        parts = [f"MindSpore {self.version or 'unknown'}{self._said('version', 'the newest ms-lint knows')}",
                 f"{device}{self._said('device', 'none named in the project')}",
                 f"{self.mode}{self._said('mode', '')}",
                 f"{self.syntax_level.upper()}{self._said('syntax_level', level_default)}"]
        return " · ".join(parts)

    def _said(self, part: str, default: str) -> str:
        origin = self.origin(part)
        if origin == "option":
            return f" (--ms-{part.replace('_', '-')})"
        if origin == "default":
            return f" ({default})" if default else ""
        return f" ({origin})" if origin else ""

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


# Where a finding that holds only on another device or level keeps the setting that would show it (``"ms-device=cpu"``);
# the engine leaves such findings out of the report and ``ms-lint check`` counts them.
SILENCED_BY = "silenced_by"


def device_claim(target: Target, holds_on: Iterable[str]) -> tuple[tuple[str, ...], dict]:
    """For a claim that holds on ``holds_on`` only: (the target's devices it concerns, in the order given; the
    finding's data, ``{"devices": [...]}``). When it concerns none of them, the data also names the setting that
    would show it (``SILENCED_BY``), and the devices are those where the claim holds."""
    holds_on = tuple(holds_on)
    affected = target.affected(holds_on)
    if affected:
        return affected, {"devices": list(affected)}
    return (), {"devices": list(holds_on), SILENCED_BY: f"ms-device={holds_on[0] if len(holds_on) == 1 else 'any'}"}


def target_from_settings(settings: Settings, path: str = "") -> Target:
    """The target of the file at ``path``: what the settings name, the rest inferred from the file's project (see
    the module's documentation). Each project is read once per process."""
    project = project_facts(path) if path and (not settings.device or not settings.syntax_level
                                               or not settings.version) else None
    origins: dict[str, str] = {}
    mode = settings.mode_for(path)
    if mode:
        origins["mode"] = "option" if mode == settings.mode else "--per-path-ms-mode"
    else:
        mode = inferred_mode(path, origins)

    def part(name: str, value: str, infer) -> str:
        if value:
            origins[name] = "option"
            return value
        value, origins[name] = infer()
        return value

    level = part("syntax_level", settings.syntax_level,
                 lambda: project.level if project is not None else ("lax", "default"))
    device = part("device", settings.device, lambda: project.device if project is not None else ("any", "default"))
    version = part("version", settings.version,
                   lambda: inferred_version(project.root if project is not None else ""))
    return Target(device=device, version=version, mode=mode, syntax_level=level,
                  origins=tuple(origins.items()))


def inferred_mode(path: str, origins: dict[str, str]) -> str:
    """The mode the file at ``path`` runs its Cells in, from the entry points of its application (see
    ``ms_lint.entries``); where it came from goes to ``origins["mode"]``, and the entry points that compile it when
    others run it in PyNative to ``origins["compiled_by"]``. A source without a file is read as a library's."""
    from ms_lint.entries import GRAPH, mode_of

    if not path or not os.path.isfile(path):
        origins["mode"] = "a library, checked as its users would compile it"
        return GRAPH
    root, _, _ = project_root(path)
    marked = _holds_marker(root)
    found = mode_of(path, root if marked else None)
    origins["mode"] = found.origin
    if found.compiled_by:
        origins["compiled_by"] = ", ".join(found.compiled_by)
    return found.mode


def _holds_marker(directory: str) -> bool:
    try:
        names = os.listdir(directory)
    except OSError:
        return False
    return any(name in PROJECT_MARKERS or name.endswith(".dist-info") for name in names)


# --------------------------------------------------------------------------------------------- the project's facts

PROJECT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", ".git")
# At most this many files are read for a project's device and level; larger files (generated tables) are not.
MAX_SCANNED_FILES = 20000
MAX_SCANNED_BYTES = 512_000
_SKIPPED_DIRECTORIES = frozenset({"__pycache__", "node_modules", "site-packages", "build", "dist", "venv"})


@dataclass(frozen=True)
class ProjectFacts:
    """What a project's files say of its target: ``(value, origin)`` for its device and its level."""

    root: str
    device: tuple[str, str]
    level: tuple[str, str]


_roots: dict[str, tuple[str, str, bool]] = {}
_projects: dict[tuple[str, str], ProjectFacts] = {}


def project_root(path: str) -> tuple[str, str, bool]:
    """``(root, directory to read, whether to read below it)`` for the file at ``path``: the nearest directory above
    it with a project marker (or holding an unpacked wheel's ``*.dist-info``: then only the file's top-level package
    there is read); with none, the file's own directory, alone."""
    directory = os.path.dirname(os.path.abspath(path))
    known = _roots.get(directory)
    if known is not None:
        return known
    home = os.path.expanduser("~")
    found = None
    candidate = directory
    while True:
        try:
            names = os.listdir(candidate)
        except OSError:
            names = []
        if any(marker in names for marker in PROJECT_MARKERS):
            found = (candidate, candidate, True)
            break
        if any(name.endswith(".dist-info") for name in names):
            package = os.path.relpath(directory, candidate).split(os.sep)[0]
            found = (candidate, os.path.join(candidate, package) if package != os.curdir else candidate,
                     package != os.curdir)
            break
        parent = os.path.dirname(candidate)
        if parent == candidate or parent == home:
            break
        candidate = parent
    _roots[directory] = found = found or (directory, directory, False)
    return found


def project_facts(path: str) -> ProjectFacts:
    root, directory, recursive = project_root(path)
    key = (directory, root)
    facts = _projects.get(key)
    if facts is None:
        facts = _projects[key] = _read_project(root, directory, recursive)
    return facts


def forget_projects() -> None:
    """Read every project again when next asked (after its files changed, in a long-lived process)."""
    from ms_lint.entries import forget

    forget()
    _roots.clear()
    _projects.clear()
    _requirement_versions.clear()


def _python_files(directory: str, recursive: bool) -> Iterable[str]:
    count = 0
    pending = [directory]
    while pending:
        current = pending.pop()
        try:
            entries = sorted(os.scandir(current), key=lambda entry: entry.name)
        except OSError:
            continue
        subdirectories = []
        for entry in entries:
            name = entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    if recursive and not name.startswith(".") and name not in _SKIPPED_DIRECTORIES and not \
                            name.endswith((".egg-info", ".dist-info")) and not _own_project(entry.path):
                        subdirectories.append(entry.path)
                elif name.endswith(".py") and entry.is_file() and entry.stat().st_size <= MAX_SCANNED_BYTES:
                    count += 1
                    if count > MAX_SCANNED_FILES:
                        return
                    yield entry.path
            except OSError:
                continue
        pending.extend(reversed(subdirectories))


def _own_project(directory: str) -> bool:
    """A virtual environment, or a project of its own (a sample or a sub-project), which its files' target reads."""
    return any(os.path.exists(os.path.join(directory, name)) for name in ("pyvenv.cfg", *PROJECT_MARKERS))


_DEVICE = r"[\"']((?i:ascend|gpu|cpu))[\"']"
_DEVICE_PATTERNS = (
    re.compile(r"set_device\(\s*(?:device_target\s*=\s*)?" + _DEVICE),
    # set_context(device_target="Ascend"), a variable, or a dataclass field (`device_target: str = field(default=...`)
    re.compile(r"device_target\s*(?::\s*[\w\[\]. |]+)?=\s*(?:field\(\s*default\s*=\s*)?" + _DEVICE),
)
_DEVICE_ARGUMENT = re.compile(r"add_argument\(\s*[\"']--device(?:[_-]target)?[\"']")
_ARGUMENT_DEFAULT = re.compile(r"\bdefault\s*=\s*" + _DEVICE)
_LEVEL_PATTERNS = (
    re.compile(r"jit_syntax_level\s*=\s*(?:(?:ms|mindspore|context|mindspore\.context)\.)?"
               r"[\"']?(STRICT|COMPATIBLE|LAX)\b"),
    re.compile(r"[\"']MS_DEV_JIT_SYNTAX_LEVEL[\"']\s*(?:\]\s*=|,)\s*[\"']([0-2]|(?i:strict|compatible|lax))[\"']"),
)
_LEVEL_NUMBERS = {"0": "STRICT", "1": "COMPATIBLE", "2": "LAX"}
_EXPORT = re.compile(r"\b(?:ms|mindspore|serialization)\.export\(|^\s*export\(", re.MULTILINE)
_EXPORT_IMPORT = re.compile(r"from\s+mindspore(?:\.train(?:\.serialization)?)?\s+import\s+[^\n]*\bexport\b")


def _line(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


def _read_project(root: str, directory: str, recursive: bool) -> ProjectFacts:
    devices: dict[str, str] = {}  # device -> where it is first named
    strict_at = lax_at = ""
    for path in _python_files(directory, recursive):
        relative = os.path.relpath(path, root)
        if is_test_path(relative):
            continue
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError:
            continue
        # Most files name neither: looking for the words in the bytes costs a small part of decoding them.
        names_device = b"set_device(" in data or b"device_target" in data or b"--device" in data
        names_level = b"jit_syntax_level" in data or b"SYNTAX_LEVEL" in data or b"MINDIR" in data
        if not (names_device or names_level):
            continue
        text = data.decode("utf-8", errors="replace")
        if names_device:
            for device, position in _named_devices(text):
                devices.setdefault(device, f"{relative}:{_line(text, position)}")
        if names_level:
            level, position = _selected_level(text)
            if level == "strict" and not strict_at:
                strict_at = f"{relative}:{_line(text, position)}"
            elif level == "lax" and not lax_at:
                lax_at = f"{relative}:{_line(text, position)}"
    if len(devices) == 1:
        device = next(iter(devices.items()))
    elif devices:
        named = ", ".join(f"{DEVICE_NAMES[name]} at {where}" for name, where in sorted(devices.items()))
        device = ("any", f"the project names several devices: {named}")
    else:
        device = ("any", "default")
    level = ("strict", strict_at) if strict_at else ("lax", lax_at or "default")
    return ProjectFacts(root, device, level)


def _named_devices(text: str) -> Iterable[tuple[str, int]]:
    for pattern in _DEVICE_PATTERNS:
        for match in pattern.finditer(text):
            if not _in_comment(text, match.start()) and _context_call(text, match.start()):
                yield match.group(1).lower(), match.start()
    for match in _DEVICE_ARGUMENT.finditer(text):
        if _in_comment(text, match.start()):
            continue
        end = text.find("add_argument(", match.end())
        default = _ARGUMENT_DEFAULT.search(text, match.end(), end if end >= 0 else match.end() + 600)
        if default is not None:
            yield default.group(1).lower(), match.start()


def _selected_level(text: str) -> tuple[str, int]:
    """``("strict", position)`` where the text selects STRICT (COMPATIBLE behaves the same) or exports MindIR,
    ``("lax", position)`` where it selects LAX only, ``("", 0)`` where it says nothing."""
    lax = None
    for pattern in _LEVEL_PATTERNS:
        for match in pattern.finditer(text):
            if _in_comment(text, match.start()):
                continue
            value = match.group(1).upper()
            value = _LEVEL_NUMBERS.get(value, value)
            if value in ("STRICT", "COMPATIBLE"):
                return "strict", match.start()
            if lax is None:
                lax = match.start()
    if "MINDIR" in text:
        for match in _EXPORT.finditer(text):
            if _in_comment(text, match.start()):
                continue
            if not match.group(0).lstrip().startswith("export(") or _EXPORT_IMPORT.search(text):
                return "strict", match.start()
    return ("lax", lax) if lax is not None else ("", 0)


# ------------------------------------------------------------------------------------------------------- versions


@lru_cache(maxsize=1)
def installed_mindspore() -> str:
    """The version of the MindSpore installed where ms-lint runs, from its metadata (MindSpore is not imported)."""
    from importlib.metadata import PackageNotFoundError, version

    for name in ("mindspore", "mindspore-ascend", "mindspore-gpu"):
        try:
            found = version(name)
        except (PackageNotFoundError, ValueError, OSError):
            continue
        if found and is_version(found):
            return found
    return ""


_requirement_versions: dict[str, tuple[str, str] | None] = {}


def inferred_version(root: str) -> tuple[str, str]:
    """``(version, origin)``: installed, else the project's requirement, else the API tables' version."""
    installed = installed_mindspore()
    if installed:
        return installed, "installed"
    if root:
        if root not in _requirement_versions:
            _requirement_versions[root] = required_version(root)
        required = _requirement_versions[root]
        if required is not None:
            return required
    from ms_lint.mindspore_api import mindspore_version

    return mindspore_version(), "default"


_REQUIREMENT = re.compile(r"(?<![\w.-])mindspore(?:[-_](?:ascend|gpu|cpu))?(?![\w.-])\s*(?:\[[^\]]*\])?\s*\(?"
                          r"([^;#\"'\n)]*)", re.IGNORECASE)
_SPECIFIER = re.compile(r"(===|==|~=|>=|<=|>|<|!=)\s*([0-9][\w.*+!-]*)")


def requirement_version(specification: str) -> str:
    """The version a requirement on MindSpore pins or starts from (``>=2.7.1`` -> ``2.7.1``, ``==2.5.*`` ->
    ``2.5``, ``>=2.5,<=2.7`` -> ``2.5``, ``<=2.3.0`` -> ``2.3.0``); "" where it names none."""
    specifiers = {}
    for operator, version in _SPECIFIER.findall(specification):
        version = version.rstrip(".*").split("+")[0]
        if is_version(version):
            specifiers.setdefault(operator, version)
    for operator in ("===", "==", "~=", ">=", "<="):
        if operator in specifiers:
            return specifiers[operator]
    return ""


def required_version(root: str) -> tuple[str, str] | None:
    """``(version, origin)`` from the first of the project's files whose requirement on MindSpore names one."""
    for name, requirements in _requirement_sources(root):
        for requirement in requirements:
            match = _REQUIREMENT.search(requirement)
            if match is None:
                continue
            version = requirement_version(match.group(1))
            if version:
                return version, f"{name}: {' '.join(match.group(0).split())}"
    return None


def _requirement_sources(root: str) -> Iterable[tuple[str, list[str]]]:
    pyproject = os.path.join(root, "pyproject.toml")
    if os.path.isfile(pyproject):
        try:
            from ms_lint.toml_file import read_toml

            data = read_toml(pyproject)
            project = data.get("project") if isinstance(data.get("project"), dict) else {}
            dependencies = project.get("dependencies") or []
            poetry = ((data.get("tool") or {}).get("poetry") or {}).get("dependencies") or {}
            if isinstance(poetry, dict):
                dependencies = [*dependencies, *(f"{name}{_poetry_specifier(value)}" for name, value in poetry.items())]
            yield "pyproject.toml", [str(item) for item in dependencies]
        except Exception:  # noqa: BLE001 -- an unreadable file names no version
            pass
    setup_cfg = os.path.join(root, "setup.cfg")
    if os.path.isfile(setup_cfg):
        import configparser

        parser = configparser.RawConfigParser()
        try:
            parser.read(setup_cfg, encoding="utf-8")
            if parser.has_option("options", "install_requires"):
                yield "setup.cfg", parser.get("options", "install_requires").splitlines()
        except (configparser.Error, UnicodeDecodeError, OSError):
            pass
    for name in ("setup.py",):
        text = _read_text(os.path.join(root, name))
        if text:
            yield name, re.findall(r"[\"']([^\"'\n]*)[\"']", text)
    candidates = []
    try:
        candidates = sorted(entry for entry in os.listdir(root)
                            if entry.startswith("requirements") and entry.endswith((".txt", ".in")))
        if os.path.isdir(os.path.join(root, "requirements")):
            candidates += sorted(os.path.join("requirements", entry)
                                 for entry in os.listdir(os.path.join(root, "requirements")) if entry.endswith(".txt"))
        wheels = sorted(entry for entry in os.listdir(root) if entry.endswith(".dist-info"))
    except OSError:
        wheels = []
    for name in candidates:
        yield name, _read_text(os.path.join(root, name)).splitlines()
    for wheel in wheels:
        metadata = os.path.join(wheel, "METADATA")
        yield metadata, [line.partition(":")[2] for line in _read_text(os.path.join(root, metadata)).splitlines()
                         if line.startswith("Requires-Dist:")]


def _poetry_specifier(value) -> str:
    if isinstance(value, dict):
        value = value.get("version", "")
    text = str(value).strip()
    if text.startswith("^"):
        return ">=" + text[1:]
    return text if text[:1] in "<>=~!" else ("==" + text if text and text[0].isdigit() else "")


def _read_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read(MAX_SCANNED_BYTES)
    except OSError:
        return ""
