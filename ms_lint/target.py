"""The target a project is checked against: device, MindSpore version, mode and syntax level.

A finding is only right for the device, version, mode and level the code runs under. Each part of the target is
either set by the user (an option) or inferred, and remembers where it came from, so that ``ms-lint check`` can say
what it assumed. Rules ask the target (``module.target``) rather than the raw settings.

Inference, once per project (the application folder or the packaging root around a file: see ``project_root``),
by reading text, never importing MindSpore:

- version: the MindSpore installed where ms-lint runs (its metadata) where the project's requirement allows it or
  names none (the requirement says what the project runs), else the versions the project's requirement allows
  (``pyproject.toml``, ``setup.cfg``, ``setup.py``, ``requirements*.txt``, a wheel's ``METADATA``): a pin is one
  version, a range (``mindspore>=2.7.1``) each release in it ms-lint has API tables for, and its lower bound
  (``Target.versions``; ``Target.version`` is the lowest), else the version ms-lint's API tables were read from;
- device: the device the project's own code names (``set_device("Ascend")``, ``set_context(device_target="Ascend")``,
  the default of a ``--device_target`` argument or a ``device_target`` field) when every such place agrees; tests
  are not read for it; else ``any``;
- syntax level: STRICT where the project's code selects it (``set_context(jit_syntax_level=ms.STRICT)``,
  ``JitConfig(jit_syntax_level="STRICT")``, ``MS_DEV_JIT_SYNTAX_LEVEL`` set to 0 or 1) or exports MindIR
  (``mindspore.export(..., file_format="MINDIR")``), else LAX, MindSpore's default (``jit(fullgraph=True)`` makes its
  own function STRICT: see ``ms_lint.model.graph``);
- mode, per module: from the entry points of its application that reach it through the project's imports, else
  the application's, else GRAPH for a library's module (see the mode section, ``mode_of``).
"""
from __future__ import annotations

import os
import re
import stat
import tempfile
import zlib
from collections import Counter
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Iterable, Mapping

from ms_lint.settings import DEVICES, PINNED, Settings, is_version, parse_version

# The devices a claim can hold on; ``any`` in the settings means all of them.
ALL_DEVICES = ("ascend", "gpu", "cpu")
DEVICE_NAMES = {"ascend": "Ascend", "gpu": "GPU", "cpu": "CPU", "any": "any device"}


# Where a part set in a configuration file came from: ``"config: setup.cfg [flake8]"``.
CONFIG_ORIGIN = "config: "
# The origin of a part that projects sharing one target each inferred from their own files.
PER_PROJECT = "per project"
PARTS = ("version", "device", "mode", "syntax_level")


@dataclass(frozen=True)
class Target:
    """What the code is checked against. ``origins`` says, per part (``device``, ``version``, ``mode``,
    ``syntax_level``), where its value came from: ``"option"`` (the command line), ``"config: setup.cfg [flake8]"``
    (a configuration file), ``"installed"``, ``"train.py:6"`` (relative to the project), ``"default"``.
    ``project``: the project's root directory (absolute; "" where no file was named). Two targets are the same
    when their values are, whatever their origins and projects."""

    device: str = "any"
    version: str = ""
    mode: str = "graph"
    syntax_level: str = "lax"
    origins: tuple[tuple[str, str], ...] = field(default=(), compare=False)
    project: str = field(default="", compare=False)
    # Every version the code is judged for, oldest first: those a requirement's range allows (``>=2.7.1``: 2.7.1,
    # 2.7.2, 2.8.0, 2.9.0, 2.10.0), or () for ``version`` alone. ``version`` is the first.
    versions: tuple[str, ...] = ()
    # The version the project moves from (``--ms-upgrade-from``): what breaks or changes meaning since then.
    upgrade_from: str = ""
    # The requirement the versions come from, as written (``mindspore>=2.7.1``).
    requirement: str = field(default="", compare=False)
    # For ``any``: the devices the project names where it names several (``("gpu", "cpu")``: its scripts select
    # one or the other), so that a claim about a device it never names does not concern it; () for all three.
    named_devices: tuple[str, ...] = ()

    def __post_init__(self):
        if self.device not in DEVICES:
            raise ValueError(f"device must be one of {', '.join(DEVICES)}, not {self.device!r}")

    @property
    def devices(self) -> tuple[str, ...]:
        """The devices the code may run on: one; for ``any`` those the project names, else all three."""
        if self.device == "any":
            return self.named_devices or ALL_DEVICES
        return (self.device,)

    @property
    def device_label(self) -> str:
        """``Ascend``, ``any device``, or ``GPU or CPU`` for the several devices a project names."""
        if self.device == "any" and self.named_devices:
            return " or ".join(DEVICE_NAMES[device] for device in self.named_devices)
        return DEVICE_NAMES[self.device]

    @property
    def version_tuple(self) -> tuple[int, ...]:
        return parse_version(self.version) if self.version else ()

    @property
    def judged_versions(self) -> tuple[str, ...]:
        """The versions a version-dependent claim is judged for, oldest first: the range's, else ``version`` ("":
        the newest tables')."""
        return self.versions or (self.version,)

    def origin(self, part: str) -> str:
        return dict(self.origins).get(part, "")

    def set_by_user(self, part: str) -> bool:
        """Whether the part's value was set by an option, on the command line or in a configuration file."""
        origin = self.origin(part)
        return origin == "option" or origin.startswith(CONFIG_ORIGIN)

    def affected(self, devices: Iterable[str]) -> tuple[str, ...]:
        """Of ``devices`` (where a claim holds), those the target may run on, in the order given; empty when the
        claim does not concern this target."""
        mine = self.devices
        return tuple(device for device in devices if device in mine)

    @property
    def key(self) -> str:
        """What in the target changes findings, as one string (for result caches)."""
        versions = ",".join(self.versions)
        devices = "/".join(self.named_devices)
        return (f"device={self.device}{devices};version={self.version};versions={versions};from={self.upgrade_from};"
                f"mode={self.mode};level={self.syntax_level};numpy={numpy_version(self.project, self.version)[0]}")

    def describe(self) -> str:
        """One line naming each part and where it came from: ``MindSpore 2.7.1 (installed) · Ascend (train.py:6) ·
        graph · LAX (MindSpore's default)``."""
        device = self.device_label
        level_default = "MindSpore's default"
        parts = [f"MindSpore {self.describe_versions()}{self._said('version', 'the newest ms-lint knows')}",
                 f"{device}{self._said('device', 'none named in the project')}",
                 f"{self.mode}{self._said('mode', '')}",
                 f"{self.syntax_level.upper()}{self._said('syntax_level', level_default)}"]
        return " · ".join(parts)

    def label(self, parts: Iterable[str] = PARTS) -> str:
        """The values of ``parts`` alone, for telling targets apart: ``Ascend · LAX``."""
        shown = {"version": f"MindSpore {self.describe_versions()}",
                 "device": self.device_label,
                 "mode": self.mode, "syntax_level": self.syntax_level.upper()}
        return " · ".join(shown[part] for part in parts)

    def describe_versions(self) -> str:
        """``2.7.1``, or for a range ``2.7.1 to 2.10.0``."""
        if len(self.versions) > 1:
            return f"{self.versions[0]} to {self.versions[-1]}"
        return self.version or "unknown"

    def _said(self, part: str, default: str) -> str:
        origin = self.origin(part)
        if origin == PER_PROJECT:
            return " (per project)"
        if origin == "option":
            return f" (--ms-{part.replace('_', '-')})"
        if origin.startswith(CONFIG_ORIGIN):
            return f" (ms-{part.replace('_', '-')} in {origin[len(CONFIG_ORIGIN):]})"
        if origin == "default":
            return f" ({default})" if default else ""
        return f" ({origin})" if origin else ""

    def to_dict(self) -> dict:
        return {**self.values(), "origins": dict(self.origins)}

    def values(self) -> dict:
        """The parts, as JSON values, without their origins."""
        return {
            "device": self.device,
            **({"devices": list(self.named_devices)} if self.device == "any" and self.named_devices else {}),
            "mindspore_version": self.version,
            **({"mindspore_versions": list(self.versions)} if self.versions else {}),
            **({"upgrade_from": self.upgrade_from} if self.upgrade_from else {}),
            "mode": self.mode,
            "syntax_level": self.syntax_level,
        }

    def summary(self) -> dict:
        """What a finding carries (``Finding.target``): the parts and the project's root, relative to the working
        directory where it lies below it (``"."`` for the working directory itself)."""
        return {**self.values(), "project": shown_path(self.project)}


def shown_path(path: str) -> str:
    """``path`` relative to the working directory where it lies below it, else as it is."""
    if not path:
        return ""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return path
    return path if relative == os.pardir or relative.startswith(os.pardir + os.sep) else relative


@dataclass(frozen=True)
class TargetGroup:
    """The projects checked against one target (their targets' values are the same, their origins may differ)."""

    projects: tuple[Target, ...]

    @property
    def target(self) -> Target:
        """The target, with each part's origin where every project has the same, else ``PER_PROJECT``."""
        first = self.projects[0]
        origins = []
        for part, _ in first.origins:
            said = {target.origin(part) for target in self.projects}
            origins.append((part, said.pop() if len(said) == 1 else PER_PROJECT))
        return Target(first.device, first.version, first.mode, first.syntax_level, tuple(origins),
                      first.project if len(self.projects) == 1 else "", first.versions, first.upgrade_from,
                      first.requirement, first.named_devices)

    def matches(self, values: Mapping) -> bool:
        """Whether a finding's ``target`` (``Target.summary()``) is this one."""
        return all(values.get(key) == value for key, value in self.projects[0].values().items())

    def describe(self, named: bool = True) -> str:
        """``Target.describe()``, then the project (``named``) or how many share it and the first of them:
        ``...: 143 projects (official/cv/ResNet, official/cv/VGG16, official/nlp/Bert, ...)``."""
        line = self.target.describe()
        paths = [shown_path(target.project) or "-" for target in self.projects]
        if len(paths) > 1:
            shown = ", ".join(paths[:3]) + (", ..." if len(paths) > 3 else "")
            return f"{line}: {len(paths)} projects ({shown})"
        return f"{line}: {paths[0]}" if named else line

    def to_dict(self) -> dict:
        return {**self.target.to_dict(),
                "projects": [{"path": shown_path(target.project), "origins": dict(target.origins)}
                             for target in self.projects]}


def group_targets(targets: Iterable[Target]) -> list[TargetGroup]:
    """``targets`` (one per project) grouped by their values, each group's projects by path, the groups most
    projects share first (then by their first project's path)."""
    groups: dict[Target, list[Target]] = {}
    for target in sorted(targets, key=lambda target: target.project):
        groups.setdefault(target, []).append(target)
    return sorted((TargetGroup(tuple(projects)) for projects in groups.values()),
                  key=lambda group: (-len(group.projects), group.projects[0].project))


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


def target_from_settings(settings: Settings, path: str = "", sources: Mapping[str, str] | None = None) -> Target:
    """The target of the file at ``path``: what the settings name, the rest inferred from the file's project (see
    the module's documentation). Each project is read once per process, and the target of a file made once (a run
    asks it several times); the mode is the file's own (the entry points that run it), the rest its directory's,
    inferred once per directory. ``sources``: where a part the settings name was read from, by option name
    (``{"ms-device": "setup.cfg [flake8]"}``); one not there was given on the command line."""
    named = tuple(sorted((sources or {}).items()))
    file = os.path.abspath(path) if path else ""
    key = (settings, file, named)
    target = _targets.get(key)
    if target is None:
        origins: dict[str, str] = {}
        mode = settings.mode_for(path)
        if mode:
            origins["mode"] = "option" if mode == settings.mode else "--per-path-ms-mode"
        else:
            mode = inferred_mode(path, origins)
        directory = os.path.dirname(file) if path else ""
        shared = _directory_targets.get((settings, directory, named))
        if shared is None:
            shared = _directory_targets[(settings, directory, named)] = _directory_target(settings, path, sources)
        origins.update(shared.origins)
        target = _targets[key] = replace(shared, mode=mode, origins=tuple(_named_origins(origins, sources).items()))
    return target


_targets: dict[tuple, Target] = {}  # (settings, file, sources) -> its target
# (settings, directory, sources) -> the target of its files but for the mode (and its origin)
_directory_targets: dict[tuple, Target] = {}


def _directory_target(settings: Settings, path: str, sources: Mapping[str, str] | None) -> Target:
    """The parts of the target of the file at ``path`` that its directory's project decides: all but the mode."""
    project = project_facts(path) if path and (not settings.device or not settings.syntax_level
                                               or not settings.version or settings.upgrade_from == PINNED) else None
    origins: dict[str, str] = {}

    def part(name: str, value: str, infer) -> str:
        if value:
            origins[name] = "option"
            return value
        value, origins[name] = infer()
        return value

    level = part("syntax_level", settings.syntax_level,
                 lambda: project.level if project is not None else ("lax", "default"))
    device = part("device", settings.device, lambda: project.device if project is not None else ("any", "default"))
    named_devices = project.devices if project is not None and not settings.device else ()
    versions: tuple[str, ...] = ()
    requirement = ""
    if settings.version:
        origins["version"] = "option"
        version = settings.version
    else:
        version, versions, origins["version"], requirement = inferred_versions(
            project.root if project is not None else "", pinned=settings.pinned)
    upgrade_from = settings.upgrade_from
    if upgrade_from == PINNED:
        upgrade_from = pinned_version(project.root if project is not None else "")
    return Target(device=device, version=version, syntax_level=level, origins=tuple(origins.items()),
                  project=project_root(path)[0] if path else "", versions=versions, upgrade_from=upgrade_from,
                  requirement=requirement, named_devices=named_devices)


def _named_origins(origins: dict[str, str], sources: Mapping[str, str] | None) -> dict[str, str]:
    """``origins`` with a part the settings name said to come from the configuration file it was read from."""
    for name, origin in origins.items():
        source = (sources or {}).get(f"ms-{name.replace('_', '-')}")
        if origin == "option" and source:
            origins[name] = CONFIG_ORIGIN + source
    return origins


def inferred_mode(path: str, origins: dict[str, str]) -> str:
    """The mode the file at ``path`` runs its Cells in, from the entry points of its application (``mode_of``);
    where it came from goes to ``origins["mode"]``, and the entry points that compile it when others run it in
    PyNative to ``origins["compiled_by"]``. A source without a file is read as a library's."""
    if not path or not os.path.isfile(path):
        origins["mode"] = LIBRARY
        return GRAPH
    file = os.path.abspath(path)
    found = _inferred_modes.get(file)
    if found is None:
        root, _, recursive = project_root(path)
        found = _inferred_modes[file] = mode_of(path, root if recursive else None)
    origins["mode"] = found.origin
    if found.compiled_by:
        origins["compiled_by"] = ", ".join(found.compiled_by)
    return found.mode


_inferred_modes: dict[str, ModuleMode] = {}  # file -> its mode, inferred once per process (``_forget_modes``)


# --------------------------------------------------------------------------------------------- the project's facts

PROJECT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", ".git")
# At most this many files are read for a project's device and level; larger files (generated tables) are not.
MAX_SCANNED_FILES = 20000
MAX_SCANNED_BYTES = 512_000
_SKIPPED_DIRECTORIES = frozenset({"__pycache__", "node_modules", "site-packages", "build", "dist", "venv"})


@dataclass(frozen=True)
class ProjectFacts:
    """What a project's files say of its target: ``(value, origin)`` for its device and its level; ``devices``:
    the devices it names where it names several (its device is then ``any``)."""

    root: str
    device: tuple[str, str]
    level: tuple[str, str]
    devices: tuple[str, ...] = ()


_roots: dict[str, tuple[str, str, bool]] = {}
_projects: dict[tuple[str, str], ProjectFacts] = {}
# an application's folder -> the repository around it (its packaging root), whose requirement names a version too
_enclosing: dict[str, str] = {}
_applications: dict[str, tuple[bool, bool]] = {}

# An application's own entry scripts, by name; a file so named counts where it runs as a script (below).
ENTRY_SCRIPT = re.compile(r"(?:train|eval|infer|export)[\w.-]*\.py|main\.py")
_SCRIPT = re.compile(r"""__name__\s*==\s*["']__main__["']|^(?:\w+\s*=\s*)?[\w.]*parse_(?:known_)?args\("""
                     r"|^[A-Za-z_][\w.]*\(.*\)\s*$", re.MULTILINE)
# A config folder: one of these names, holding settings files (an application's ``config/resnet50.yaml``).
CONFIG_FOLDERS = ("config", "configs")
CONFIG_SUFFIXES = (".yaml", ".yml", ".json", ".ini", ".cfg", ".toml")
TEST_FOLDERS = ("test", "tests", "testing", "unittest", "ut", "st")


@lru_cache(maxsize=1)
def shared_folders() -> frozenset[str]:
    """Folders no project reaches into from above nor holds: the home directory and the system's temporary folders
    (scratch space other programs share: scripts left there make no application of what lies below)."""
    folders = [tempfile.gettempdir(), *(("/tmp", "/var/tmp") if os.name == "posix" else ())]
    home = os.path.expanduser("~")
    folders += [home] if home != "~" else []
    return frozenset(form(folder) for folder in folders for form in (os.path.abspath, os.path.realpath))


def project_root(path: str) -> tuple[str, str, bool]:
    """``(root, directory to read, whether to read below it)`` for the file at ``path``.

    The nearest directory above it with a packaging marker (``pyproject.toml``, ``setup.cfg``, ``setup.py``,
    ``.git``; or holding an unpacked wheel's ``*.dist-info``: then only the file's top-level package there is read)
    is the project, unless an application folder lies between them: then the nearest such folder is (a repository
    of applications, such as a model zoo, is one project per application). An application folder holds its own
    entry scripts (``train*.py``, ``eval*.py``, ``infer*.py``, ``export*.py``, ``main.py`` that run as scripts), a
    ``requirements*.txt`` or a config folder (``config/`` or ``configs/`` with settings files); it is not a test
    folder or inside one, nor inside the importable package of the repository around it (a library's modules stay
    one project with it). A folder inside another application is one of its own only where it holds entry scripts
    of its own and is no part of it (see ``_own_application``). A hidden directory (``.cache``) is never crossed.
    The search ends below the home directory and the temporary folders (``shared_folders``). With neither, the
    file's own directory is the project, alone."""
    directory = os.path.dirname(os.path.abspath(path))
    known = _roots.get(directory)
    if known is not None:
        return known
    shared = shared_folders()
    applications: list[str] = []  # the application folders on the way up, nearest first
    found = None
    candidate = directory
    while candidate not in shared:
        names = _listing(candidate)
        if any(marker in names for marker in PROJECT_MARKERS):
            found = (candidate, candidate, True)
            if _in_library_package(candidate, directory):
                applications.clear()
            break
        if _holds_wheel_metadata(candidate, names):
            package = os.path.relpath(directory, candidate).split(os.sep)[0]
            found = (candidate, os.path.join(candidate, package) if package != os.curdir else candidate,
                     package != os.curdir)
            applications.clear()  # a wheel is a library: its files are its package's
            break
        name = os.path.basename(candidate)
        if name in TEST_FOLDERS:
            applications.clear()  # what lies in a test folder belongs to the project that holds the tests
        elif _application_signs(candidate, names)[0]:
            applications.append(candidate)
        parent = os.path.dirname(candidate)
        if parent == candidate or name.startswith("."):
            break
        candidate = parent
    application = None
    for folder in reversed(applications):  # the outermost first, then each application inside it
        if application is None or _own_application(folder, application):
            application = folder
    if application is not None:
        if found is not None:
            _enclosing[application] = found[0]
        found = (application, application, True)
    _roots[directory] = found = found or (directory, directory, False)
    return found


def packaging_root(path: str) -> str:
    """The directory whose packaging marker (or unpacked wheel) makes the project of the file at ``path``, also where
    ``project_root`` gives an application folder inside it; with neither, ``project_root``'s answer."""
    root = project_root(path)[0]
    return _enclosing.get(root, root)


def _own_application(folder: str, application: str) -> bool:
    """Whether ``folder``, an application folder inside ``application``, is an application of its own: it holds
    entry scripts of its own (a ModelArts or inference entry, a variant trained on its own) and is no part of
    ``application`` (not a package, not in its ``src/`` or one of its packages)."""
    child = os.path.relpath(folder, application).split(os.sep)[0]
    return (child != "src" and "__init__.py" not in _listing(os.path.join(application, child))
            and "__init__.py" not in _listing(folder) and _applications[folder][1])


_listings: dict[str, frozenset[str]] = {}
_wheel_metadata: dict[str, bool] = {}  # folder -> whether it holds an unpacked wheel's ``*.dist-info``


def _holds_wheel_metadata(directory: str, names: frozenset[str]) -> bool:
    known = _wheel_metadata.get(directory)
    if known is None:
        known = _wheel_metadata[directory] = any(name.endswith(".dist-info") for name in names)
    return known


def _listing(directory: str) -> frozenset[str]:
    names = _listings.get(directory)
    if names is None:
        try:
            names = frozenset(os.listdir(directory))
        except OSError:
            names = frozenset()
        _listings[directory] = names
    return names


# Top-level folders of a repository that hold its scripts and applications, not its library, even as packages.
SCRIPT_FOLDERS = frozenset({"examples", "example", "tutorials", "tutorial", "demo", "demos", "samples", "tools",
                            "scripts", "benchmark", "benchmarks", "applications", "apps", "model_zoo", "recipes",
                            "research", "projects", "docs"})


def _in_library_package(root: str, directory: str) -> bool:
    """Whether ``directory`` lies in an importable package at the top of ``root`` (``root/pkg/`` or
    ``root/src/pkg/``, holding ``__init__.py``, other than ``examples/``, ``tools/`` and the like), or is ``root``
    itself."""
    parts = os.path.relpath(directory, root).split(os.sep)
    if parts[0] == os.curdir:
        return True
    top = os.path.join(*parts[:2]) if parts[0] == "src" and len(parts) > 1 else parts[0]
    return os.path.basename(top) not in SCRIPT_FOLDERS and "__init__.py" in _listing(os.path.join(root, top))


def _application_signs(directory: str, names: frozenset[str]) -> tuple[bool, bool]:
    """``(whether directory is an application folder, whether it holds entry scripts of its own)``."""
    known = _applications.get(directory)
    if known is None:
        entry = any(ENTRY_SCRIPT.fullmatch(name) and _runs_as_script(os.path.join(directory, name)) for name in names)
        known = _applications[directory] = (
            entry or any(name.startswith("requirements") and name.endswith(".txt") for name in names)
            or any(name in CONFIG_FOLDERS and _holds_settings(os.path.join(directory, name)) for name in names),
            entry)
    return known


def _runs_as_script(path: str) -> bool:
    """A ``__main__`` guard, arguments parsed or a call at the top level: an entry script, not a module named
    like one (``eval_utils.py``); read once per process (``_forget_modes``)."""
    known = _scripts.get(path)
    if known is None:
        known = _scripts[path] = _SCRIPT.search(_read_text(path)) is not None
    return known


_scripts: dict[str, bool] = {}  # file -> whether it runs as a script


def _holds_settings(directory: str) -> bool:
    return any(name.endswith(CONFIG_SUFFIXES) for name in _listing(directory))


def project_facts(path: str) -> ProjectFacts:
    root, directory, recursive = project_root(path)
    key = (directory, root)
    facts = _projects.get(key)
    if facts is None:
        facts = _projects[key] = _read_project(root, directory, recursive)
    return facts


def forget_projects() -> None:
    """Read every project again when next asked (after its files changed, in a long-lived process)."""
    _roots.clear()
    _projects.clear()
    _targets.clear()
    _directory_targets.clear()
    _enclosing.clear()
    _applications.clear()
    _listings.clear()
    _wheel_metadata.clear()
    _requirement_versions.clear()
    numpy_version.cache_clear()
    _forget_modes()


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
    """A virtual environment, or a project of its own (a sample, a sub-project, an application), which its files'
    target reads."""
    return "pyvenv.cfg" in _listing(directory) or project_root(os.path.join(directory, "module.py"))[0] == directory


def is_test_path(relative: str) -> bool:
    """A test module or a file under a tests directory: it names the device its tests run on, not the project's."""
    parts = relative.replace(os.sep, "/").split("/")
    name = parts[-1]
    return (any(part in TEST_FOLDERS for part in parts[:-1])
            or name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py")


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


def _in_comment(text: str, position: int) -> bool:
    """Whether the text at ``position`` is, by its line, a comment or inside a string or prose (a documentation
    line quoting the call: a ``#``, a backtick or an unbalanced quote before it)."""
    before = text[text.rfind("\n", 0, position) + 1:position]
    return "#" in before or "`" in before or before.count('"') % 2 == 1 or before.count("'") % 2 == 1


def _context_call(text: str, position: int) -> bool:
    """Not a method of another object (``op.set_device("CPU")`` places one operator): bare, or on ``ms``,
    ``mindspore``, ``context`` or ``ms.context``."""
    if position == 0 or text[position - 1] != ".":
        return True
    start = position - 1
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_."):
        start -= 1
    return text[start:position - 1] in ("ms", "mindspore", "context", "mindspore.context", "ms.context")


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
    several = tuple(name for name in ALL_DEVICES if name in devices) if 1 < len(devices) < len(ALL_DEVICES) else ()
    return ProjectFacts(root, device, level, several)


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
    exported = exports_mindir(text)
    if exported is not None:
        return "strict", exported
    return ("lax", lax) if lax is not None else ("", 0)


def exports_mindir(text: str) -> int | None:
    """The position of a ``mindspore.export(...)`` of the text that names MindIR (which compiles the network it
    exports as a graph at STRICT, in PyNative too), else None."""
    if "MINDIR" in text:
        for match in _EXPORT.finditer(text):
            if _in_comment(text, match.start()):
                continue
            if not match.group(0).lstrip().startswith("export(") or _EXPORT_IMPORT.search(text):
                return match.start()
    return None


# ----------------------------------------------------------------------------------------------------- the mode
# Entry points and the mode they run the code in, read as text (MindSpore is never imported).
#
# MindSpore's default mode is PyNative (``mindspore.get_context("mode")`` is 1 in a fresh process, 2.7.1 to 2.10.0):
# a Cell's ``construct`` is compiled only where code selects GRAPH_MODE before running it. That code is an
# application's entry points: the scripts (``train.py``, ``eval.py``, ``infer.py``, ``export.py``, ``main.py``, or
# any with a ``__main__`` guard or a top-level run that imports MindSpore, but a module's own trial run) in the
# folders above a module, outside any package but the application's own folder (``entry_points_in``). A library
# has none: its users choose the mode.
#
# For a module, ``mode_of`` says, with where it came from:
#
# - the entry points that reach the module through the project's imports (each entry's own imports, followed from
#   module to module): GRAPH where one of them selects GRAPH_MODE (``set_context(mode=GRAPH_MODE)`` or ``mode=0``,
#   in the entry or in a module it imports that sets up the context; ``mode=args.mode`` read from an argparse or
#   configuration default, or from a condition that names GRAPH_MODE), else PyNative (what they select, or MindSpore's
#   default);
# - a module of an application no entry point reaches: GRAPH where an entry point of the application selects it,
#   else PyNative (but where the entry points lie above the folder the module's packages lie in, which may be
#   another application's, such a module is a library's);
# - a module with no entry point above it: a library, checked as its users would compile it (GRAPH).
#
# Everything read is kept for the process, by file and modification time (``forget_projects`` drops it).

GRAPH, PYNATIVE = "graph", "pynative"
LIBRARY = "a library, checked as its users would compile it"  # the origin of a library's mode

_MAIN_GUARD = re.compile(r"^if\s+__name__\s*==\s*[\"']__main__[\"']\s*:", re.MULTILINE)
_SET_CONTEXT = re.compile(r"\bset_context\s*\(")
_MODE_KEYWORD = re.compile(r"(?<![\w.])mode\s*=(?!=)")
_GRAPH_WORDS = frozenset({"0", "graph", "graph_mode"})
_PYNATIVE_WORDS = frozenset({"1", "pynative", "pynative_mode"})
# The folders looked at for a module's entry points go this many levels above the one its top package lies in
# (``app/src/utils/ops.py`` where neither ``src`` nor ``utils`` is a package).
_LEVELS_ABOVE_SOURCE_ROOT = 3
# At most this many modules are followed from one entry point, and this many configuration files read.
_MAX_REACHED = 5000
_MAX_CONFIG_FILES = 200
_MAX_BYTES = MAX_SCANNED_BYTES


def _named_entry(path: str) -> bool:
    """An application's entry script by its name (``ENTRY_SCRIPT``) that runs as a script."""
    return ENTRY_SCRIPT.fullmatch(os.path.basename(path)) is not None and _runs_as_script(path)


@dataclass(frozen=True)
class Selection:
    """One ``set_context(mode=...)``: the line, the value's text, and what it selects (``graph``, ``pynative``, or
    "" when the value is read from elsewhere: ``args.mode``)."""

    line: int
    value: str
    mode: str


@dataclass(frozen=True)
class EntryMode:
    """What one entry point runs its code in, and where that is said (``train.py:74``, ``src/env.py:37``; "" for
    MindSpore's default)."""

    entry: str  # the entry point's path
    mode: str
    where: str
    # where the mode is a configuration file's (``mode=cfg.context_mode``) and the application's configuration files
    # select both modes: each such file's (path, mode, line)
    configured: tuple[tuple[str, str, int], ...] = ()


@dataclass(frozen=True)
class ModuleMode:
    """The mode a module runs its Cells in and why: ``origin`` is a phrase for the target line (``train.py:74``, ``a
    library, checked as its users would compile it``); ``compiled_by`` names the entry points that select GRAPH_MODE
    when others reaching the module run it in PyNative (the findings name them)."""

    mode: str
    origin: str
    compiled_by: tuple[str, ...] = ()


# ------------------------------------------------------------------------------------------ reading files


_texts: dict[str, tuple[float, str | None]] = {}


def _text(path: str) -> str | None:
    """The file's text (None when unreadable or too large), read once per modification time."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    known = _texts.get(path)
    if known is not None and known[0] == status.st_mtime:
        return known[1]
    text = None
    if stat.S_ISREG(status.st_mode) and status.st_size <= _MAX_BYTES:  # never a FIFO, which would block the read
        try:
            with open(path, "rb") as handle:
                text = handle.read().decode("utf-8", errors="replace")
        except OSError:
            pass
    _texts[path] = (status.st_mtime, text)
    return text


def _forget_modes() -> None:
    """Read every file again for the mode when next asked."""
    _texts.clear()
    _code_texts.clear()
    _nothing_imported.clear()
    _loads_files.clear()
    _scripts.clear()
    _source_roots.clear()
    _application_words.clear()
    _application_files.clear()
    _application_texts.clear()
    _application_word_texts.clear()
    _application_runs.clear()
    _training_set.clear()
    _selections.clear()
    _imports.clear()
    _import_names.clear()
    _closures.clear()
    _entries_in.clear()
    _module_applications.clear()
    _inferred_modes.clear()
    _entry_modes.clear()
    _followed_lookups.clear()
    _applications_using.clear()
    _module_names.clear()
    shell_entries.cache_clear()


# ------------------------------------------------------------------------------------ mode selections


_selections: dict[str, tuple[Selection, ...]] = {}


def selections(path: str, skip_main_block: bool = False) -> tuple[Selection, ...]:
    """The ``set_context(mode=...)`` calls of the file, in order (with ``skip_main_block``, those before a
    top-level ``if __name__ == "__main__":``: a module's own trial run selects nothing for its importers)."""
    text = _text(path)
    if text is None or "set_context" not in text or "mode" not in text:
        return ()
    if path not in _selections:
        _selections[path] = tuple(_find_selections(text))
    found = _selections[path]
    if skip_main_block and found:
        guard = _MAIN_GUARD.search(text)
        if guard is not None:
            last = _line(text, guard.start())
            found = tuple(selection for selection in found if selection.line < last)
    return found


def _find_selections(text: str):
    from ms_lint.mindspore_api import parameters_text

    for match in _SET_CONTEXT.finditer(text):
        if _in_comment(text, match.start()) or not _context_call(text, match.start()):
            continue
        for argument in parameters_text(_balanced(text, match.end())):
            keyword = _MODE_KEYWORD.match(argument)
            value = argument[keyword.end():].strip() if keyword else ""
            if value:
                yield Selection(_line(text, match.start()), " ".join(value.split()), _named_mode(value))


def _balanced(text: str, start: int) -> str:
    """The text from ``start`` to the parenthesis that closes the one before it (at most 2,000 characters)."""
    depth = 1
    quote = ""
    end = min(len(text), start + 2000)
    for position in range(start, end):
        character = text[position]
        if quote:
            if character == quote and text[position - 1] != "\\":
                quote = ""
        elif character in "\"'":
            quote = character
        elif character in "([{":
            depth += 1
        elif character in ")]}":
            depth -= 1
            if depth == 0:
                return text[start:position]
    return text[start:end]


def _named_mode(value: str) -> str:
    """What a ``mode=`` value selects by itself: GRAPH where it names GRAPH_MODE or is 0 (a condition naming both
    can select it), PyNative where it names only PYNATIVE_MODE or is 1, else "" (read from elsewhere)."""
    if re.search(r"\bGRAPH_MODE\b", value) or value.strip() == "0":
        return GRAPH
    if re.search(r"\bPYNATIVE_MODE\b", value) or value.strip() == "1":
        return PYNATIVE
    default = re.search(r"get(?:env|\()\s*\(?\s*[\"'][^\"']+[\"']\s*,\s*[\"']?(\w+)", value)
    return _word_mode(default.group(1)) if default else ""


def _word_mode(word: str) -> str:
    word = word.strip().strip("\"'").lower()
    return GRAPH if word in _GRAPH_WORDS else PYNATIVE if word in _PYNATIVE_WORDS else ""


def _resolved(selection: Selection, path: str, context: tuple[str, ...], folder: str) -> tuple[str, str]:
    """(mode, how) of a selection whose value is read from elsewhere (``mode=args.mode``, ``mode=context_mode``):
    GRAPH where the file names GRAPH_MODE (a condition or table that can select it); PyNative where it names only
    PYNATIVE_MODE; else the default an argparse option, a configuration file of the application or an assignment
    in the files of ``context`` gives that name; else GRAPH: the code chooses the mode, and GRAPH_MODE is what it
    can be compiled in."""
    if selection.mode:
        return selection.mode, ""
    text = _text(path) or ""
    for mode, word in ((GRAPH, "GRAPH_MODE"), (PYNATIVE, "PYNATIVE_MODE")):
        for match in re.finditer(rf"\b{word}\b", text):
            if not _in_comment(text, match.start()):
                return mode, f"mode={selection.value}, which can be {word}"
    names = re.findall(r"[A-Za-z_]\w*", selection.value)
    name = names[-1] if names else ""
    if name:
        spelled = name.replace("_", "[-_]")
        option = re.compile(rf"add_argument\(\s*[\"']--?{spelled}[\"'][^)]*?\bdefault\s*=\s*[\"']?([\w.]+)", re.S)
        assigned = re.compile(rf"^\s*[\"']?{spelled}[\"']?\s*[:=]\s*[\"']?([\w.]+)", re.MULTILINE)
        for other in (path, *context, *_configuration_files(folder)):
            other_text = _text(other) or ""
            if name not in other_text:
                continue
            for pattern in (option, assigned):
                for match in pattern.finditer(other_text):
                    mode = _word_mode(match.group(1).rsplit(".", 1)[-1])
                    if mode and not _in_comment(other_text, match.start()):
                        return mode, f"mode={selection.value}, {match.group(1)} at {_relative(other, folder)}:" \
                                     f"{_line(other_text, match.start())}"
    return GRAPH, f"mode={selection.value}, read as GRAPH_MODE"


@lru_cache(maxsize=256)
def _configuration_files(folder: str) -> tuple[str, ...]:
    """The YAML and JSON files of an application's folder (its own and its configuration folders')."""
    found: list[str] = []
    if not folder:
        return ()
    for directory, subdirectories, names in os.walk(folder):
        subdirectories[:] = sorted(name for name in subdirectories if not name.startswith(".")
                                   and name not in ("__pycache__", "node_modules", "build", "dist"))
        for name in sorted(names):
            if name.endswith((".yaml", ".yml", ".json")):
                found.append(os.path.join(directory, name))
                if len(found) >= _MAX_CONFIG_FILES:
                    return tuple(found)
    return tuple(found)


# ----------------------------------------------------------------------------------------- imports


_closures: dict[str, frozenset[str]] = {}


# An import statement: ``from PACKAGE import NAMES`` (NAMES possibly in parentheses over lines) or ``import NAMES``.
_IMPORT_STATEMENT = re.compile(
    r"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]*)|import[ \t]+([^\n#;]+))", re.MULTILINE)


def source_root(path: str) -> str:
    """The directory the module at ``path`` is imported from: above its top package (the ``__init__.py`` chain), or
    its own; found once per folder and process (``_forget_modes``)."""
    folder = os.path.dirname(os.path.abspath(path))
    directory = _source_roots.get(folder)
    if directory is not None:
        return directory
    directory = folder
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    _source_roots[folder] = directory
    return directory


_source_roots: dict[str, str] = {}  # folder -> the source root of its modules


@lru_cache(maxsize=8192)
def module_file_in(module: str, roots: tuple[str, ...]) -> str | None:
    """The file of ``module`` under ``roots``, where Python's path finder would look: a package's ``__init__.py``,
    else the module's ``.py`` file. Only regular files count: a directory named like a module, or a FIFO that would
    block the read, is no module."""
    *packages, name = parts = module.split(".")
    if not all(parts) or any(os.sep in part for part in parts):
        return None
    for root in roots:
        directory = os.path.join(root, *packages)
        if not os.path.isdir(directory):
            continue
        for candidate in (os.path.join(directory, name, "__init__.py"), os.path.join(directory, name + ".py")):
            if os.path.isfile(candidate):
                return os.path.abspath(candidate)
    return None


_imports: dict[tuple[str, tuple[str, ...]], tuple[float, tuple[str, ...]]] = {}


def imported_files(path: str, roots: tuple[str, ...]) -> tuple[str, ...]:
    """The project files the module at ``path`` imports, as its import statements' text says (each package on the
    way included), found from ``roots`` (its source roots) as Python finds them; read once per modification time."""
    try:
        modified = os.stat(path).st_mtime
    except OSError:
        return ()
    known = _imports.get((path, roots))
    if known is not None and known[0] == modified:
        return known[1]
    found: dict[str, None] = {}
    for module, base in _imported_names(path, modified):
        parts = module.split(".")
        base_roots = roots if base is None else (base,)
        for end in range(1, len(parts) + 1):
            located = module_file_in(".".join(parts[:end]), base_roots)
            if located is not None:
                found[located] = None
    found.pop(os.path.abspath(path), None)
    result = tuple(found)
    _imports[(path, roots)] = (modified, result)
    return result


def _imported_names(path: str, modified: float) -> tuple[tuple[str, str | None], ...]:
    """The modules the import statements of the file at ``path`` name, in order, each with the folder a relative
    import is found from (None: from the importer's source roots); read once per modification time, whatever
    roots they are then looked for under."""
    known = _import_names.get(path)
    if known is not None and known[0] == modified:
        return known[1]
    text = _text(path) or ""
    named: list[tuple[str, str | None]] = []
    for source, names, plain in _IMPORT_STATEMENT.findall(text):
        if plain:
            for item in plain.split(","):
                module = item.split(" as ")[0].strip()
                if module.replace(".", "").replace("_", "").isalnum():
                    named.append((module, None))
            continue
        listed = [item.split(" as ")[0].strip(" ()\n\t\\") for item in names.strip("()").split(",")]
        listed = [name for name in listed if name.isidentifier()]
        level = len(source) - len(source.lstrip("."))
        module = source[level:]
        if level:
            base = os.path.dirname(os.path.abspath(path))
            for _ in range(level - 1):
                base = os.path.dirname(base)
            if module:
                named.append((module, base))
            for name in listed:
                named.append((f"{module}.{name}" if module else name, base))
        elif module:
            named.append((module, None))
            for name in listed:
                named.append((f"{module}.{name}", None))
    result = tuple(named)
    _import_names[path] = (modified, result)
    return result


_import_names: dict[str, tuple[float, tuple[tuple[str, str | None], ...]]] = {}


def reached_from(entry: str) -> frozenset[str]:
    """The project files running ``entry`` imports, itself included (at most ``_MAX_REACHED``)."""
    known = _closures.get(entry)
    if known is not None:
        return known
    reached = {entry}
    pending = [entry]
    folder = os.path.dirname(os.path.abspath(entry))  # what the script's directory on ``sys.path`` finds too
    while pending and len(reached) < _MAX_REACHED:
        module = pending.pop()
        root = source_root(module)
        roots = tuple(dict.fromkeys((root, os.path.dirname(os.path.abspath(module)), folder)))
        for imported in imported_files(module, roots):
            if imported not in reached:
                reached.add(imported)
                pending.append(imported)
    _closures[entry] = result = frozenset(reached)
    return result


# ------------------------------------------------------------------------------------- entry points


_entries_in: dict[str, tuple[str, ...]] = {}


def entry_points_in(directory: str) -> tuple[str, ...]:
    """The entry points directly in ``directory`` that import MindSpore: each file named like an application's script
    (``ENTRY_SCRIPT``) that runs as one, or with a ``__main__`` guard; and, in a folder of scripts (not a package),
    each other file that runs as a script, with code at its top level (``coco_attack.py`` calling ``main()``). A
    package (a folder with ``__init__.py``) has none, its scripts being its modules' trial runs, unless it is an
    application's own folder (``project_root``: a model zoo's ``app/__init__.py`` beside ``train.py``)."""
    known = _entries_in.get(directory)
    if known is not None:
        return known
    found = []
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        names = []
    package = "__init__.py" in names
    if not package or _application_folder(directory):
        for name in names:
            path = os.path.join(directory, name)
            if not name.endswith(".py") or is_test_path(name) or not os.path.isfile(path):
                continue
            text = _text(path)
            if text is None or "mindspore" not in text and not (_named_entry(path) and _reaches_mindspore(path)):
                continue
            if _named_entry(path) or _MAIN_GUARD.search(text) or (not package and _TOP_LEVEL_RUN.search(text)):
                found.append(path)
    _entries_in[directory] = result = tuple(found)
    return result


# Code a script runs at its top level: a call of a function it names (``main()``, ``run(args)``), or its arguments
# parsed (``args = parser.parse_args()``); a module's configuration (``logger = getLogger()``) is not.
_TOP_LEVEL_RUN = re.compile(r"^(?:main|run|train|evaluate|test|infer|predict)\w*\(.*\)\s*$"
                            r"|^\w+\s*=\s*[\w.]*parse_(?:known_)?args\(", re.MULTILINE)


def _reaches_mindspore(path: str) -> bool:
    """Whether a project module the script at ``path`` imports names MindSpore (``train.py`` calling
    ``src.train_ns.train``)."""
    return any("mindspore" in (_text(module) or "") for module in reached_from(path))


# A shell script's run of a Python file: ``python ./train.py``, ``python3 -u ${BASE}/../src/extract.py``.
_SHELL_RUN = re.compile(r"\bpython[\d.]*\s+(?:-[A-Za-z]\s+)*[\"']?([^\s\"';|&]+\.py)\b")


@lru_cache(maxsize=1024)
def shell_entries(folder: str) -> tuple[str, ...]:
    """The Python files of the application at ``folder`` that its shell scripts (``*.sh`` in it and in its
    ``scripts/``) run, where they use MindSpore: entry points wherever they lie (``src/extract_feature.py`` in a
    package). A path is found relative to the script, else to the application, else by its name in the
    application's folder and its ``src/``."""
    found: dict[str, None] = {}
    for directory in (folder, os.path.join(folder, "scripts")):
        for name in sorted(_listing(directory)):
            if not name.endswith(".sh"):
                continue
            for match in _SHELL_RUN.finditer(_read_text(os.path.join(directory, name))):
                written = re.sub(r"^(?:\$\{?\w+\}?/)+", "", match.group(1))
                parts = [part for part in written.split("/") if part not in ("", ".", "..")]
                candidates = [os.path.normpath(os.path.join(directory, written)), os.path.join(folder, *parts),
                              os.path.join(folder, parts[-1]), os.path.join(folder, "src", parts[-1])]
                for candidate in candidates:
                    if candidate.startswith(os.path.join(folder, "")) and os.path.isfile(candidate) and not \
                            is_test_path(os.path.basename(candidate)):
                        text = _text(candidate) or ""
                        if "mindspore" in text or _reaches_mindspore(candidate):
                            found[os.path.abspath(candidate)] = None
                        break
    return tuple(found)


def _script_folder_entries(folder: str) -> tuple[str, ...]:
    """The entry scripts of an application's folder of scripts (``app/scripts/train.py``): named as such, or run
    under a ``__main__`` guard."""
    scripts = os.path.join(folder, "scripts")
    if not os.path.isdir(scripts):
        return ()
    return tuple(entry for entry in entry_points_in(scripts)
                 if _named_entry(entry) or _MAIN_GUARD.search(_text(entry) or ""))


def _application_folder(directory: str, with_entries: bool = True) -> bool:
    """Whether ``directory`` is an application's own folder, its project (``project_root``), holding entry scripts
    named as such (``with_entries``) or any sign of an application (``_application_signs``)."""
    return (project_root(os.path.join(directory, "__init__.py"))[0] == directory
            and _applications.get(directory, (False, False))[0 if not with_entries else 1])


_module_applications: dict[tuple[str, str], tuple[str, tuple[str, ...]] | None] = {}


def application_of(path: str, bound: str | None) -> tuple[str, tuple[str, ...]] | None:
    """(the application's folder, its entry points) for the module at ``path``, from the entry points of the folders
    above it, up to ``_LEVELS_ABOVE_SOURCE_ROOT`` folders above the one its top package lies in, or ``bound`` (the
    project's root, where a project marker says where it ends) where that is nearer:
    the scripts named like an application's, and the others with a ``__main__`` guard but those that such a script
    imports or that lie inside a package (a module's trial run). The folder is the highest holding one; None for a
    library module."""
    directory = os.path.dirname(os.path.abspath(path))
    key = (directory, bound or "")
    if key in _module_applications:
        return _module_applications[key]
    top = source_root(path)
    for _ in range(_LEVELS_ABOVE_SOURCE_ROOT):  # an application's ``src`` and its folders need not be packages
        parent = os.path.dirname(top)
        if parent == top or parent in shared_folders():
            break
        top = parent
    if bound is not None and os.path.abspath(bound).startswith(top):
        top = os.path.abspath(bound)  # the project ends below
    levels = []
    current = directory
    while True:
        levels.append(current)
        parent = os.path.dirname(current)
        if current == top or parent == current or not current.startswith(top):
            break
        current = parent
    named = [entry for level in levels for entry in entry_points_in(level)
             if _named_entry(entry)]
    run_from = {entry: level for level in levels if _application_folder(level, with_entries=False)
                for entry in (*shell_entries(level), *_script_folder_entries(level)) if entry not in named}
    named += list(run_from)
    # a script inside the package the module belongs to is a trial run of that package's modules; one beside the
    # folder the module's packages lie in (``app/coco_attack.py`` by ``app/src/model/net.py``) runs it
    packages = source_root(path)
    packages = packages if packages.startswith(os.path.join(top, "")) else top
    entries = named + [entry for level in levels for entry in entry_points_in(level)
                       if not _named_entry(entry) and not any(entry in reached_from(other) for other in named)
                       and not _inside_a_package(os.path.dirname(entry), packages)]
    found = None
    if entries:
        folder = next(level for level in reversed(levels)
                      if any(run_from.get(e, os.path.dirname(e)) == level for e in entries))
        found = (folder, tuple(sorted(entries)))
    _module_applications[key] = found
    return found


def _inside_a_package(directory: str, top: str) -> bool:
    """Whether a folder above ``directory``, up to ``top``, is a package."""
    while directory.startswith(top) and directory != top:
        directory = os.path.dirname(directory)
        if os.path.isfile(os.path.join(directory, "__init__.py")):
            return True
    return False


def _entry_mode(entry: str, folder: str) -> EntryMode:
    """The mode ``entry`` runs in: its own ``set_context(mode=...)`` where it selects GRAPH_MODE; GRAPH where it exports
    MindIR (``mindspore.export`` compiles the network in PyNative too); its own selection of PyNative; else that of a
    module it imports (the first GRAPH one, else the first); else MindSpore's default (PyNative). Found once per
    process (``_forget_modes``)."""
    found = _entry_modes.get((entry, folder))
    if found is None:
        found = _entry_modes[(entry, folder)] = _find_entry_mode(entry, folder)
    return found


_entry_modes: dict[tuple[str, str], EntryMode] = {}


def _find_entry_mode(entry: str, folder: str) -> EntryMode:
    reached = reached_from(entry)
    context = tuple(sorted(reached - {entry}))
    own = selections(entry)
    if own:
        modes = [(_resolved(selection, entry, context, folder), selection) for selection in own]
        (mode, _), selection = next((item for item in modes if item[0][0] == GRAPH), modes[0])
        if mode == GRAPH:
            return EntryMode(entry, mode, f"{_relative(entry, folder)}:{selection.line}",
                             _configured_modes(selection, folder))
    text = _text(entry) or ""
    exported = exports_mindir(text)
    if exported is not None:  # the network it exports is compiled, whatever the mode
        return EntryMode(entry, GRAPH, f"{_relative(entry, folder)}:{_line(text, exported)} (exports MindIR)")
    if own:
        return EntryMode(entry, mode, f"{_relative(entry, folder)}:{selection.line}")
    chosen = None
    for module in context:
        for selection in selections(module, skip_main_block=True):
            mode, _ = _resolved(selection, module, (entry, *context), folder)
            candidate = EntryMode(entry, mode, f"{_relative(entry, folder)}, through "
                                               f"{_relative(module, folder)}:{selection.line}",
                                  _configured_modes(selection, folder) if mode == GRAPH else ())
            if mode == GRAPH:
                return candidate
            chosen = chosen or candidate
    return chosen or EntryMode(entry, PYNATIVE, "")


def _configured_modes(selection: Selection, folder: str) -> tuple[tuple[str, str, int], ...]:
    """For a selection read from elsewhere (``mode=context_mode``, ``mode=cfg.system.context_mode``), the
    application's configuration files that set the key it names (``context_mode: "pynative_mode"``): (path, mode,
    line) each, where they select both modes (else none: one mode, which ``_resolved`` gives)."""
    if selection.mode:
        return ()
    names = re.findall(r"[A-Za-z_]\w*", selection.value)
    if not names:
        return ()
    key = re.compile(rf"^\s*[\"']?{names[-1]}[\"']?\s*:\s*[\"']?([\w.]+)", re.MULTILINE)
    found = []
    for path in _configuration_files(folder):
        text = _text(path) or ""
        if names[-1] in text:
            for match in key.finditer(text):
                mode = _word_mode(match.group(1).rsplit(".", 1)[-1])
                if mode and not _in_comment(text, match.start()):
                    found.append((path, mode, _line(text, match.start())))
    return tuple(found) if len({mode for _, mode, _ in found}) > 1 else ()


def _configuring(configured: tuple[tuple[str, str, int], ...], path: str) -> tuple[tuple[str, str, int], ...]:
    """Of an application's configuration files that select both modes, those that name the module at ``path``: its
    name (``emvd`` for ``models/emvd.py``) as a value (``name: "emvd"``) or as their folder (``configs/emvd/``)."""
    stem = os.path.splitext(os.path.basename(path))[0]
    if stem in ("__init__", "model", "models", "network", "net"):
        return ()
    value = re.compile(rf"^[^#\n]*:\s*[\"']?{re.escape(stem)}[\"']?\s*$", re.MULTILINE | re.IGNORECASE)
    return tuple(item for item in configured
                 if stem in os.path.dirname(item[0]).split(os.sep) or value.search(_text(item[0]) or ""))


def _as_configured(mode: EntryMode, path: str, folder: str) -> EntryMode:
    """What ``mode``'s entry point runs the module at ``path`` in: where its mode is a configuration file's and the
    application's configuration files select both, PyNative when every file naming the module selects it."""
    configuring = _configuring(mode.configured, path) if mode.configured else ()
    if not configuring or any(selected != PYNATIVE for _, selected, _ in configuring):
        return mode
    config, _, line = configuring[0]
    return EntryMode(mode.entry, PYNATIVE, f"{_relative(mode.entry, folder)}, through {_relative(config, folder)}:"
                                           f"{line}")


def _relative(path: str, folder: str) -> str:
    relative = os.path.relpath(path, folder) if folder else path
    return (path if relative.startswith(os.pardir) else relative).replace(os.sep, "/")


def mode_of(path: str, bound: str | None) -> ModuleMode:
    """The mode the module at ``path`` runs its Cells in, inferred from the entry points of its application (see
    the module's documentation)."""
    application = application_of(path, bound)
    if application is None:
        return ModuleMode(GRAPH, LIBRARY)
    folder, entries = application
    target = os.path.abspath(path)
    modes = [_entry_mode(entry, folder) for entry in entries]
    reaching = [mode for mode in modes if target in reached_from(mode.entry)]
    root = source_root(path)
    if not reaching and root != folder and root.startswith(os.path.join(folder, "")) and not _application_folder(
            folder, with_entries=False):
        # scripts in a folder above the one the module's packages lie in, none of which imports it: not known to be
        # its application (in an application's own folder, its modules are its own: ``ldm/modules/attention.py``
        # that ``txt2img.py`` builds from a configuration file's class name)
        return ModuleMode(GRAPH, LIBRARY)
    modes = [_as_configured(mode, target, folder) for mode in modes]
    reaching = [_as_configured(mode, target, folder) for mode in reaching]
    graph = sorted((mode for mode in (reaching or modes) if mode.mode == GRAPH),
                   key=lambda mode: not os.path.basename(mode.entry).startswith("train"))  # training first
    if graph:
        others = [mode for mode in reaching if mode.mode != GRAPH]
        if others:
            names = tuple(_relative(mode.entry, folder) for mode in graph)
            more = f" and {len(names) - 1} more" if len(names) > 1 else ""
            return ModuleMode(GRAPH, f"compiled by {names[0]}{more} ({graph[0].where}); "
                                     f"{_relative(others[0].entry, folder)} runs it in PyNative", names)
        return ModuleMode(GRAPH, graph[0].where)
    selected = next((mode for mode in (reaching or modes) if mode.where), None)
    if selected is not None:
        return ModuleMode(PYNATIVE, selected.where)
    names = ", ".join(_relative(mode.entry, folder) for mode in (reaching or modes)[:3])
    return ModuleMode(PYNATIVE, f"MindSpore's default: {names} select{'s' if len(reaching or modes) == 1 else ''} "
                                f"no mode")


def graph_entries(path: str) -> tuple[str, ...] | None:
    """The entry points (their paths) that run the module at ``path`` in GRAPH_MODE, as ``mode_of`` reads them: of
    those that import it, else of all its application's; None for a library's module."""
    root, _, recursive = project_root(path)
    application = application_of(path, root if recursive else None)
    if application is None:
        return None
    folder, entries = application
    target = os.path.abspath(path)
    modes = [_as_configured(_entry_mode(entry, folder), target, folder) for entry in entries]
    reaching = [mode for mode in modes if target in reached_from(mode.entry)]
    return tuple(mode.entry for mode in (reaching or modes) if mode.mode == GRAPH)


# ---------------------------------------------------------------------------------------- what an application runs
# An application runs what its entry points reach (``_runs``, below), and at most what its files name: a class that
# no file of the application names (its scripts, its modules, its configuration files, its shell scripts), but where
# it is defined, in a module the application uses, never runs there. A library's users may run all of it; so may the
# fixtures of tests. A module of an application nothing can import (``_nothing_imports``) never runs.

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# (each pattern begins with what it reads, for the search to pass over what cannot start a match: a word's
# boundary is looked behind)
_DEFINED = re.compile(r"(?:class(?<!\wclass)|def(?<!\wdef))\s+([A-Za-z_][A-Za-z0-9_]*)"
                      r"|super(?<!\wsuper)\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*,")
_CLASS = re.compile(r"^\s*class\s+([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)
_FUNCTION = re.compile(r"^def\s+([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)  # a module's own functions
_TOP_LEVEL = re.compile(r"^(?:async[ \t]+def|def|class)[ \t]+([A-Za-z_]\w*)", re.MULTILINE)  # its top-level blocks
_NAMING_FILES = (".py", ".sh", ".yaml", ".yml", ".json", ".cfg", ".ini", ".txt", ".toml")
# How a file names a module: an import statement's names, a file name (``model.py``), a dotted path in a string
# (``importlib.import_module("src.model")``, ``"src.model.Net"`` in a configuration).
_IMPORT_LINE = re.compile(r"^[ \t]*(?:from[ \t]+[\w.]+[ \t]+import\b[^\n]*|import[ \t]+[^\n]*)", re.MULTILINE)
# (a word is tried from its first letter alone: no place inside it starts one)
_FILE_OR_PATH = re.compile(r"([A-Za-z_](?<![A-Za-z_].)\w*)(?:\.py\b|(?=\.[A-Za-z_]))|\.(?<=[\w\])]\.)([A-Za-z_]\w*)")
_application_words: dict[str, tuple[dict[str, int], dict[str, int], set[str]] | None] = {}
# At most this many characters of an application's files are read for the names they use (an application folder
# that big is a workspace of many, whose names say little of one of them).
MAX_NAMING_TEXT = 32_000_000


_application_files: dict[str, tuple[tuple[str, ...], bool]] = {}
_MAX_CODE_TEXTS = 8192
# What a Python file says without running: a line that is only a comment, and a docstring (a triple-quoted string
# that starts the file or a line after one ending in ``:``, alone on its lines). A class a docstring's example builds
# (``>>> Residual(fn)``) is built by a reader of the documentation, not by the application.
_COMMENT_LINE = re.compile(r"^[ \t]*#[^\n]*", re.MULTILINE)
_DOCSTRING = re.compile(r"(\A\s*|:[ \t]*(?:#[^\n]*)?\n\s*)[rRuU]?(\"\"\"|\'\'\')([\s\S]*?)\2"
                        r"(?=[ \t]*(?:#[^\n]*)?(?:\n|\Z))")


_code_texts: dict[str, str] = {}  # a file's text -> ``_code_text`` of it, for the texts ``_text`` keeps


def _code_text(text: str) -> str:
    """``text`` of a Python file with what runs nothing blanked out (``_COMMENT_LINE``, ``_DOCSTRING``), line for
    line; worked out once per text (the questions about one application ask it of the same files again and
    again)."""
    known = _code_texts.get(text)
    if known is not None:
        return known
    code = text
    if "#" in code:
        code = _COMMENT_LINE.sub("", code)
    if '"""' in code or "'''" in code:
        code = _DOCSTRING.sub(lambda match: match.group(1) + "\n" * match.group(3).count("\n"), code)
    if len(_code_texts) >= _MAX_CODE_TEXTS:
        _code_texts.clear()
    _code_texts[text] = code
    return code


def _naming_files(folder: str, complete: bool = True) -> tuple[str, ...] | None:
    """The files of the application at ``folder`` that may name its classes (``_NAMING_FILES``), listed once per
    process, walking at most ``MAX_SCANNED_FILES`` entries; None, where ``complete`` asks for all, when there are
    more."""
    known = _application_files.get(folder)
    if known is None:
        files: list[str] = []
        more = False
        seen = 0
        for directory, subdirectories, names in os.walk(folder):
            subdirectories[:] = sorted(name for name in subdirectories
                                       if not name.startswith(".") and name not in _SKIPPED_DIRECTORIES)
            seen += len(names) + len(subdirectories)
            if seen > MAX_SCANNED_FILES:
                more = True
                break
            files.extend(os.path.join(directory, name) for name in sorted(names) if name.endswith(_NAMING_FILES))
        _application_files[folder] = known = (tuple(files), more)
    return None if complete and known[1] else known[0]


def _words_of(folder: str) -> tuple[dict[str, int], dict[str, int], set[str]] | None:
    """(how often each word occurs in the files of the application at ``folder``, how often each is defined there:
    ``class X``, ``def x``, ``super(X, self)``; the words that may name a module: those of import statements, file
    names and dotted paths), read once per process; None where the folder holds more entries or text than are read
    (``MAX_SCANNED_FILES``, ``MAX_NAMING_TEXT``) or a Python file too large to read: what it would name is not
    known."""
    if folder in _application_words:
        return _application_words[folder]
    _application_words[folder] = None
    words: Counter[str] = Counter()
    defined: dict[str, int] = {}
    modules: set[str] = set()
    size = 0
    files = _naming_files(folder)
    if files is None:
        return None
    for path in files:
        text = _text(path)
        if text is None:
            if path.endswith(".py"):
                return None
            continue
        size += len(text)
        if size > MAX_NAMING_TEXT:
            return None
        if path.endswith(".py"):
            text = _code_text(text)
        words.update(_WORD.findall(text))
        for line in _IMPORT_LINE.findall(text):
            modules.update(_WORD.findall(line))
        modules.update(word or after_dot for word, after_dot in _FILE_OR_PATH.findall(text))
        if path.endswith(".py"):
            for match in _DEFINED.finditer(text):
                word = match.group(1) or match.group(2)
                defined[word] = defined.get(word, 0) + 1
    _application_words[folder] = known = (words, defined, modules)
    return known


# (absolute path, modification time) -> ``_application_using``
_applications_using: dict[tuple[str, float], tuple[str, tuple[str, ...]] | None] = {}


def _application_using(path: str) -> tuple[str, tuple[str, ...]] | None:
    """The application (folder, entry points) that uses the module at ``path`` and that alone: None for a library's
    module, for a module no file of the application names (``_nothing_imports`` answers for it) and for a
    source without a file. Found once per file, version of it and process (``_forget_modes``): a relative path
    names another file once the working directory changes."""
    file = os.path.abspath(path)
    try:
        key = (file, os.stat(file).st_mtime)
    except OSError:
        key = (file, -1.0)
    if key in _applications_using:
        return _applications_using[key]
    _applications_using[key] = found = _find_application_using(path)
    return found


def _find_application_using(path: str) -> tuple[str, tuple[str, ...]] | None:
    application = _application_around(path, nested_in_any_project=True)
    if application is None:
        # a library's module, an application kept among tests (their fixtures), or scripts inside a project that
        # is not theirs (an application folder in a library's package: its users import the modules)
        return None
    file = os.path.abspath(path)
    read = _words_of(application[0])
    if read is None:
        return None  # too many files to read: what they name is not known
    modules = read[2]
    stem = os.path.splitext(os.path.basename(file))[0]
    if stem != "__init__" and file not in application[1] and stem not in modules and not _MAIN_GUARD.search(
            _text(file) or ""):
        return None  # a module no file names as a module: ``_nothing_imports`` says whether any can run it
    return application


# What an application runs, by what its entry points reach: each entry point and the modules it imports run their
# top-level statements (an import statement, ``__all__`` and a module's own ``__main__`` block but an entry point's
# excepted: they name without running); a top-level ``def``/``class`` of a module that runs runs where code that runs
# names it, and then so does all it names; a module whose name code that runs names (a configuration's
# ``src.models.net``, ``import_module("net")``) runs too. The application's configuration files, shell scripts and
# tests name what they run. Where a module that runs looks names up as the text cannot follow (``globals()[...]``,
# ``eval``, ``import_module(f"...")``, ``getattr(models, name)``, ``sys.path`` edits that its imports need), what
# the application runs is what its files name (``_words_of``).
_BLOCK_START = re.compile(r"(?:async[ \t]+def|def|class)[ \t]+([A-Za-z_]\w*)")
_LOOKED_UP = re.compile(r"(?:globals|locals|vars)\(\)\s*(?:\[|\.get\()|(?:eval|exec)(?<![\w.]....)\s*\("
                        r"|(?:import_module|__import__)\(\s*(?![rbuRBU]?[\"'][\w.]*[\"']\s*[,)])")
_LOOKING_UP = ("globals()", "locals()", "vars()", "eval", "exec", "import_module(", "__import__(")  # all it finds
_MODULE_GETATTR = re.compile(r"getattr(?<!\wgetattr)\(\s*([A-Za-z_]\w*)\s*,\s*(?![rbuRBU]?[\"'])")
_PATH_EDIT = re.compile(r"sys(?<!\wsys)\.path\s*(?:\.\s*(?:append|insert|extend)\b|\[|\+?=)")
_TRIPLE_QUOTE = re.compile(r"\"\"\"|'''")
_ALIAS = re.compile(r"([A-Za-z_][\w.]*)\s+as\s+([A-Za-z_]\w*)")
# A decorator that may keep what it decorates where code finds it by a key (``@MODELS.register_module()``,
# ``@clip_grad.register("Number", "Tensor")``): any but those that only wrap or compile it.
_REGISTERING = re.compile(r"@(?![ \t]*(?:[\w.]*\.)?(?:jit|ms_function|constexpr|_?primexpr|jit_class|dataclass|"
                          r"lru_cache|cache|staticmethod|classmethod|property|wraps|contextmanager|abstractmethod|"
                          r"overload|no_grad)\b[ \t]*(?:\(.*\))?[ \t]*(?:#.*)?$)")


@dataclass(frozen=True)
class _Pieces:
    """A Python file cut at its top-level statements: the words its top-level statements run (``runs``), the
    names its import statements give other names (``as``: (name, alias)), each top-level ``def``/``class`` (its
    name, the words it names, whether a decorator registers it), the words its import statements name, and of the
    words the statements and blocks name, those that may name a module (``quoted``, ``quoted_in``: an attribute, a
    string's path): a bare name in code finds no module but through an import, which ``reached_from`` follows."""

    runs: frozenset[str]
    aliases: tuple[tuple[str, str], ...]
    blocks: tuple[tuple[str, frozenset[str], bool], ...]
    imports: frozenset[str]
    quoted: frozenset[str]  # the words of ``runs`` that may name a module (``_module_words``)
    quoted_in: dict[str, frozenset[str]]  # a block's name -> those words of its blocks
    looks_up: bool  # names looked up as the text cannot follow (``_LOOKED_UP``)
    edits_path: bool  # ``sys.path`` edited
    getattr_of: frozenset[str]  # the names ``getattr`` reads a computed attribute of

    @property
    def registered(self) -> frozenset[str]:
        """The names of the blocks a decorator may register."""
        return frozenset(name for name, _, registered in self.blocks if registered)


def _pieces(text: str, entry: bool) -> _Pieces:
    """``text`` cut where a line at column 0 starts a statement (not inside a triple-quoted string): a line
    ``def``/``class``/``async def``/``@`` starts a block."""
    runs: set[str] = set()
    imports: set[str] = set()
    aliases: list[tuple[str, str]] = []
    blocks: list[tuple[str, frozenset[str], bool]] = []
    quoted: set[str] = set()
    quoted_in: dict[str, set[str]] = {}
    kind, name, lines = "", "", []  # the piece being read

    def close() -> None:
        if not lines:
            return
        piece = "\n".join(lines)
        if kind == "import":
            imports.update(_WORD.findall(piece))
            aliases.extend(_ALIAS.findall(piece))
        elif kind == "block":
            start = next((index for index, line in enumerate(lines) if _BLOCK_START.match(line)), len(lines))
            registered = any(_REGISTERING.match(line) for line in lines[:start] if line.startswith("@"))
            blocks.append((name, frozenset(_WORD.findall(piece)), registered))
            quoted_in.setdefault(name, set()).update(_module_words(piece))
        elif kind == "run":
            runs.update(_WORD.findall(piece))
            quoted.update(_module_words(piece))

    in_string = ""
    for line in text.splitlines():
        if not in_string and line[:1] not in ("", " ", "\t", "#", ")", "]", "}"):
            decorators_only = kind == "block" and not name  # decorators read, their block's own line not yet
            if line.startswith("@") and decorators_only:
                lines.append(line)  # one more decorator of the same block
            else:
                started = _BLOCK_START.match(line)
                if started is not None and decorators_only:
                    name = started.group(1)  # the decorated block's own line
                    lines.append(line)
                else:
                    close()
                    lines = [line]
                    if started is not None or line.startswith("@"):
                        kind, name = "block", started.group(1) if started is not None else ""
                    elif line.startswith(("import ", "from ")):
                        kind = "import"
                    elif line.startswith("__all__") or not entry and _MAIN_GUARD.match(line):
                        kind = ""  # names, runs nothing
                    else:
                        kind = "run"
        else:
            lines.append(line)
        if '"""' in line or "'''" in line:
            for quote in _TRIPLE_QUOTE.findall(line):
                in_string = "" if in_string == quote else in_string or quote
    close()
    looks_up = any(word in text for word in _LOOKING_UP) and _LOOKED_UP.search(text) is not None
    edits_path = "sys.path" in text and _PATH_EDIT.search(text) is not None
    getattr_of = frozenset(_MODULE_GETATTR.findall(text)) if "getattr(" in text else frozenset()
    return _Pieces(frozenset(runs), tuple(aliases), tuple(blocks), frozenset(imports), frozenset(quoted),
                   {block: frozenset(words) for block, words in quoted_in.items()}, looks_up, edits_path, getattr_of)


# A string literal on one line (a triple-quoted one as its pieces between quotes); an attribute's name.
_STRING = re.compile(r"([\"'])((?:\\.|(?!\1).)*)\1")
_ATTRIBUTE = re.compile(r"\.[ \t]*([A-Za-z_]\w*)")


def _module_words(piece: str) -> set[str]:
    """The words of ``piece`` that may name a module: an attribute outside an import statement (``src.nets``),
    and inside a string literal all the words of one without spaces (``"src.nets"``, ``f"models.{name}"``), and in
    one with spaces (a command, a message) those of a path (``python src/model.py``, ``src.model``) or after
    ``-m``; all its words where a string spans lines."""
    if '"""' in piece or "'''" in piece or "\\\n" in piece:
        return set(_WORD.findall(piece))
    words = set(_ATTRIBUTE.findall(_IMPORT_LINE.sub("", piece)))
    for match in _STRING.finditer(piece):
        tokens = match.group(2).split()
        if len(tokens) == 1:
            words.update(_WORD.findall(tokens[0]))
            continue
        for index, token in enumerate(tokens):
            token = token.rstrip(".,;:!?)'\"")
            if "." in token or "/" in token or index and tokens[index - 1] == "-m":
                words.update(_WORD.findall(token))
    return words


_file_pieces: dict[tuple[str, bool], tuple[str, _Pieces]] = {}


def _pieces_of(path: str, entry: bool) -> _Pieces | None:
    text = _text(path)
    if text is None:
        return None
    known = _file_pieces.get((path, entry))
    if known is None or known[0] is not text:
        known = _file_pieces[(path, entry)] = (text, _pieces(_code_text(text), entry))
    return known[1]


_application_runs: dict[tuple[str, tuple[str, ...]], tuple[frozenset[str], frozenset[str]] | None] = {}


def _runs(folder: str, entries: tuple[str, ...]) -> tuple[frozenset[str], frozenset[str]] | None:
    """(the Python files the application at ``folder`` runs, the words the code it runs names), by what its entry
    points ``entries``, its tests, configuration files and shell scripts reach (see above); None where the text
    cannot say: a file it runs looks names up (``_LOOKED_UP``, ``getattr`` on a module of the application, imports
    that need its ``sys.path`` edits), too many files, or one too large to read. Found once per process."""
    key = (folder, entries)
    if key in _application_runs:
        return _application_runs[key]
    _application_runs[key] = None
    files = _naming_files(folder)
    if files is None:
        return None
    by_stem: dict[str, list[str]] = {}
    for path in files:
        if path.endswith(".py"):
            stem = os.path.splitext(os.path.basename(path))[0]
            by_stem.setdefault(os.path.basename(os.path.dirname(path)) if stem == "__init__" else stem, []).append(
                os.path.abspath(path))
    run: set[str] = set()
    pending: list[str] = []
    quoted: set[str] = set()  # the words of ``run`` that may name a module: ``_module_words``, a file not Python
    quoted_pending: list[str] = []
    reached: set[str] = set()
    blocks: dict[str, list[frozenset[str]]] = {}  # name -> the words of each block of a reached file so named
    quoted_blocks: dict[str, list[frozenset[str]]] = {}  # name -> those words of each that may name a module
    aliased: dict[str, set[str]] = {}  # alias -> the names imported as it

    def name(words: Iterable[str], in_string: Iterable[str] = ()) -> None:
        for word in words:
            if word not in run:
                run.add(word)
                pending.append(word)
        for word in in_string:
            if word not in quoted:
                quoted.add(word)
                quoted_pending.append(word)

    def reach(path: str) -> bool:
        for module in reached_from(path) if path.endswith(".py") else (path,):
            if module in reached:
                continue
            reached.add(module)
            pieces = _pieces_of(module, module in scripts)
            if pieces is None:
                return False
            name(pieces.runs, pieces.quoted)
            for alias_name, alias in pieces.aliases:
                aliased.setdefault(alias, set()).add(alias_name.rsplit(".", 1)[-1])
                if alias in run:
                    name((alias_name.rsplit(".", 1)[-1],))
            for block, words, registered in pieces.blocks:
                if registered or block in run:
                    name(words, pieces.quoted_in.get(block, ()))
                else:
                    blocks.setdefault(block, []).append(words)
                    quoted_blocks.setdefault(block, []).append(pieces.quoted_in.get(block, frozenset()))
        return len(reached) < _MAX_REACHED

    scripts = {*entries, *(os.path.abspath(path) for path in files if path.endswith(".py") and _script(path))}
    roots = [*scripts, *(path for path in files if not path.endswith(".py") or is_test_path(
        os.path.relpath(path, folder)))]
    for root in roots:
        if root.endswith(".py"):
            if not reach(os.path.abspath(root)):
                return None
        else:
            words = _WORD.findall(_text(root) or "")
            name(words, words)
    while pending or quoted_pending:
        while pending:
            word = pending.pop()
            for words, in_string in zip(blocks.pop(word, ()), quoted_blocks.pop(word, ())):
                name(words, in_string)
            name(aliased.get(word, ()))
        while quoted_pending:
            for module in by_stem.get(quoted_pending.pop(), ()):
                if module not in reached and not reach(module):
                    return None
    stems = set(by_stem)
    for module in reached:
        pieces = _pieces_of(module, module in scripts)
        if pieces is None or pieces.looks_up or pieces.getattr_of & stems & pieces.imports or (
                pieces.edits_path and not _imports_resolve(module, stems)):
            return None
    _application_runs[key] = found = (frozenset(reached), frozenset(run))
    return found


def _script(path: str) -> bool:
    """Whether the file at ``path`` is a script its application's users run, wherever it lies: named like an entry
    point (``ENTRY_SCRIPT``), or reading its command line under a ``__main__`` guard (``model/train_naive.py``)."""
    text = _text(path) or ""
    return _MAIN_GUARD.search(text) is not None and (
        ENTRY_SCRIPT.fullmatch(os.path.basename(path)) is not None or "parse_args(" in text
        or "parse_known_args(" in text)


def _imports_resolve(path: str, stems: set[str]) -> bool:
    """Whether each module of the application that the file at ``path`` imports (its dotted name starts with the
    name of one of the application's modules or packages, ``stems``) is found without its ``sys.path`` edits."""
    try:
        modified = os.stat(path).st_mtime
    except OSError:
        return False
    roots = (source_root(path), os.path.dirname(os.path.abspath(path)))
    return all(module_file_in(module.split(".")[0], roots if base is None else (base,)) is not None
               for module, base in _imported_names(path, modified) if module.split(".")[0] in stems)


def never_run(path: str, names: Iterable[str]) -> frozenset[str]:
    """Of ``names`` (classes and functions the module at ``path`` defines), those its application never runs: all
    of them in a module no code it runs imports or names (``_runs``), else those no code it runs names and those no
    file of the application names but where they are defined. Where the text cannot say what runs (``_runs``), those
    no file names; all of them where nothing can import the module (``_nothing_imports``). Empty for a library's
    module, for a module no file names as a module but some file writes its name, and for a source without a
    file."""
    if _nothing_imports(path):
        return frozenset(names)
    application = _application_using(path)
    read = _words_of(application[0]) if application is not None else None
    if read is None:
        return frozenset()
    words, defined, _ = read
    file = os.path.abspath(path)
    pieces = _pieces_of(file, file in application[1])
    registered = pieces.registered if pieces is not None else frozenset()
    names = tuple(name for name in names if name not in registered)  # found by a key, wherever that is written
    unnamed = {name for name in names if words.get(name, 0) <= defined.get(name, 0)}
    runs = _runs(*application)
    if runs is None:
        return frozenset(unnamed)
    reached, run = runs
    if file not in reached:
        return frozenset(names)
    return frozenset(unnamed.union(name for name in names if name not in run))


def module_never_runs(path: str) -> bool:
    """Whether the application of the module at ``path`` never runs it at all: no code it runs imports or names it
    (``never_run``'s answer for everything the module defines, and for its top-level statements too), or nothing
    can import it (``_nothing_imports``)."""
    if _nothing_imports(path):
        return True
    application = _application_using(path)
    if application is None or _words_of(application[0]) is None:
        return False
    runs = _runs(*application)
    return runs is not None and os.path.abspath(path) not in runs[0]


# Code that may import a module no file names: by the files a folder holds (``pkgutil.iter_modules``, a path loaded
# as a module), or by a computed name beside a listing of a folder.
_LOADS_FILES = re.compile(r"\b(?:iter_modules|walk_packages|spec_from_file_location|SourceFileLoader|load_source|"
                          r"run_path|find_spec)\b")
_COMPUTED_IMPORT = re.compile(r"(?:import_module|__import__)\(\s*(?![rbuRBU]?[\"'][\w.]*[\"']\s*[,)])|\bexec\(")
_LISTS_FOLDER = re.compile(r"\b(?:listdir|scandir|glob|iglob|rglob|iterdir|walk)\(")


# (absolute path, modification time) -> ``_nothing_imports``; application folder -> whether a Python file of it
# imports modules it finds by listing a folder
_nothing_imported: dict[tuple[str, float], bool] = {}
_loads_files: dict[str, bool] = {}
_FOUND_BY_TOOLS = frozenset({"__init__", "__main__", "conftest", "setup", "conf", "noxfile", "mindspore_hub_conf"})
# What a script its users run by its path does: a statement at its top level that only calls a function
# (``get_multicards_json(host_id)``, ``main()``; a module's setting up, ``sys.path.append(...)``, calls a method) or
# loops, or reading its command line.
_TOP_LEVEL_CALL = re.compile(r"^(?:[A-Za-z_]\w*\(|(?:for|while|with|async)\b)|\bparse_(?:known_)?args\(|"
                             r"\bsys\.argv\b", re.MULTILINE)


def _nothing_imports(path: str) -> bool:
    """Whether nothing can import the module at ``path``, a module in a folder of an application (not one beside
    its entry scripts, not one of its scripts or tests, nor a file that calls or loops at its top level or reads its
    command line, which its users may run by its path, nor one a tool finds by its name: a package's ``__init__``,
    ``conftest.py``,
    ``mindspore_hub_conf.py``): no other file of the application writes its name (code, configuration, shell
    script, test), none composes it from pieces of strings (``composes_name``) and none imports modules it finds by
    listing a folder (``_LOADS_FILES``, or a computed import beside a listing). False for a library's module, whose
    users import it, and where the application's files cannot all be read."""
    if not path:
        return False
    file = os.path.abspath(path)
    try:
        key = (file, os.stat(file).st_mtime)
    except OSError:
        key = (file, -1.0)
    known = _nothing_imported.get(key)
    if known is None:
        known = _nothing_imported[key] = _find_nothing_imports(path, file)
    return known


def _find_nothing_imports(path: str, file: str) -> bool:
    application = _application_around(path, nested_in_any_project=True)
    if application is None:
        return False
    if os.path.dirname(file) == os.path.abspath(application[0]):
        return False  # a module beside the entry scripts: one the user runs by its path, or is about to import
    stem = os.path.splitext(os.path.basename(file))[0]
    text = _text(file)
    if text is None or stem in _FOUND_BY_TOOLS or file in application[1] or _MAIN_GUARD.search(text) or is_test_path(
            os.path.relpath(file, application[0])) or _TOP_LEVEL_CALL.search(_code_text(text)):
        return False  # (a package's ``__init__``, a script, a test: a tool or a user finds them by their place)
    read = _words_of(application[0])
    texts = _naming_texts(application[0])
    if read is None or texts is None:
        return False
    own = len(re.findall(rf"\b{re.escape(stem)}\b", _code_text(text)))
    if read[0].get(stem, 0) > own or _composed(texts, stem):
        return False
    loads = _loads_files.get(application[0])
    if loads is None:
        loads = _loads_files[application[0]] = any(
            _LOADS_FILES.search(code) or _COMPUTED_IMPORT.search(code) and _LISTS_FOLDER.search(code)
            for name, code in texts if name.endswith(".py"))
    return not loads


def files_naming(path: str, name: str) -> tuple[tuple[str, str], ...] | None:
    """(file, text) of each file of the application that uses the module at ``path`` whose text holds the word
    ``name`` (a class the module defines), Python or not: every place the application can name it. None where
    the module is no application's alone (``never_run``'s cases) or its application has more files than are read."""
    application = _application_using(path)
    if application is None:
        return None
    texts = _naming_texts(application[0])
    if texts is None:
        return None
    if _WORD_RUN.fullmatch(name):  # (a word: the texts that hold it as a whole word, from the words of each)
        return tuple(texts[number] for number in _texts_by_word(application[0], texts).get(name, ()))
    word = re.compile(rf"\b{re.escape(name)}\b")
    return tuple((file, text) for file, text in texts if name in text and word.search(text))


# A piece of a string literal beside a slot that code fills at run time: ``f"conv_{k}"``, ``"conv_%d" % k``,
# ``"conv_" + k``, ``"{}_conv".format(k)``.
_BEFORE_SLOT = re.compile(r"[\"']([A-Za-z0-9_]{2,})(?:\{|%[-+ #0-9.]*[sdif]|[\"']\s*\+)")
_AFTER_SLOT = re.compile(r"(?:\}|%[-+ #0-9.]*[sdif]|\+\s*[rRuUfF]?[\"'])([A-Za-z0-9_]{2,})[\"']")


def composes_name(path: str, name: str) -> bool | None:
    """Whether a Python file of the application that uses the module at ``path`` may compose ``name`` at run time: a
    string literal there starts ``name`` before a slot code fills (``f"conv_{k}x{k}"`` for ``conv_7x7``), or ends it
    after one. None where ``files_naming`` is None."""
    application = _application_using(path)
    texts = _naming_texts(application[0]) if application is not None else None
    if texts is None:
        return None
    return _composed(texts, name)


def _composed(texts: tuple[tuple[str, str], ...], name: str) -> bool:
    """Whether a Python file of ``texts`` (file, text) may compose ``name`` at run time (``composes_name``)."""
    return any((name.startswith(piece) and piece != name) for file, text in texts if file.endswith(".py")
               for piece in _BEFORE_SLOT.findall(text)) or any(
        (name.endswith(piece) and piece != name) for file, text in texts if file.endswith(".py")
        for piece in _AFTER_SLOT.findall(text))


_application_texts: dict[str, tuple[tuple[str, str], ...]] = {}
_WORD_RUN = re.compile(r"\w+")
_application_word_texts: dict[str, tuple[tuple[tuple[str, str], ...], dict[str, list[int]]]] = {}


def _texts_by_word(folder: str, texts: tuple[tuple[str, str], ...]) -> dict[str, list[int]]:
    """Word -> the numbers (in order) of the ``texts`` of the application at ``folder`` that hold it whole (a run of
    word characters, as ``\\b`` bounds it), found in one pass over the texts."""
    known = _application_word_texts.get(folder)
    if known is None or known[0] is not texts:
        by_word: dict[str, list[int]] = {}
        for number, (_, text) in enumerate(texts):
            for found in set(_WORD_RUN.findall(text)):
                by_word.setdefault(found, []).append(number)
        known = _application_word_texts[folder] = (texts, by_word)
    return known[1]


def _naming_texts(folder: str) -> tuple[tuple[str, str], ...] | None:
    """(file, text) of each readable file of the application at ``folder`` that may name its classes
    (``_naming_files``), read once per process, as ``_words_of`` reads them."""
    known = _application_texts.get(folder)
    if known is None:
        files = _naming_files(folder)
        if files is None:
            return None
        known = _application_texts[folder] = tuple(
            (file, text) for file in files for text in (_text(file),) if text is not None)
    return known


# Looking a name up in a module's namespace: ``models.__dict__[name]``, ``vars(models)[name]``,
# ``sys.modules[...]``, ``inspect.getmembers(models)``.
_NAMESPACE_LOOKUP = re.compile(r"__dict__\s*(?:\[|\.get\()|\bvars\(\s*[\w.]|\bsys\.modules\b|\bgetmembers\(")
# The object whose namespace ``vars(x)`` or ``x.__dict__[...]`` reads (None: no name: ``f().__dict__[k]``).
_NAMESPACE_OF = re.compile(r"(?:(?<![\w.])([A-Za-z_]\w*)(?:\.\w+)*)?\.__dict__\s*(?:\[|\.get\()"
                           r"|\bvars\(\s*([A-Za-z_]\w*)?")


def _reads_a_module_namespace(text: str) -> bool:
    """Whether a file's ``text`` may look a name up in a module's namespace (``_NAMESPACE_LOOKUP``): ``sys.modules``
    and ``getmembers`` always; ``vars(x)`` and ``x.__dict__[...]`` where the file imports the name ``x`` starts
    from (``vars(models)``), not where it reads a namespace of another object (``vars(args)`` of parsed
    options, ``self.__dict__[key]``)."""
    if not _NAMESPACE_LOOKUP.search(text):
        return False
    if re.search(r"\bsys\.modules\b|\bgetmembers\(", text):
        return True
    for match in _NAMESPACE_OF.finditer(text):
        name = match.group(1) or match.group(2)
        if name is None or name in ("sys", "globals", "locals") or re.search(
                rf"\bimport\b[^\n]*\b{name}\b|\bimport\s*\([^)]*\b{name}\b|\b{name}\s*=\s*(?:__import__|"
                rf"import_module|importlib)", text):
            return True
    return False


_followed_lookups: dict[str, bool] = {}  # application folder -> ``lookups_followed``
_module_names: dict[str, frozenset[str]] = {}  # application folder -> ``application_modules``


def lookups_followed(path: str) -> bool:
    """Whether the application that uses the module at ``path`` looks no name up as its text cannot follow
    (``_runs``: ``getattr`` on one of its modules, ``globals()[...]``, ``eval``, ``import_module(name)``; and no
    Python file of it reads a module's namespace: ``models.__dict__[name]``): a string naming one of its classes
    then builds it nowhere but where code calls what the string chooses."""
    application = _application_using(path)
    if application is None:
        return False
    known = _followed_lookups.get(application[0])
    if known is None:
        known = _followed_lookups[application[0]] = _words_of(application[0]) is not None and _runs(
            *application) is not None and not any(_reads_a_module_namespace(_text(file) or "") for file in
                                                  _naming_files(application[0]) or () if file.endswith(".py"))
    return known


def application_modules(path: str) -> frozenset[str] | None:
    """The names an import of the application that uses the module at ``path`` may start with and find one of its
    own modules: the name of each of its Python files and of each folder above one (the application's folder and
    those above it too). None where ``files_naming`` is None: a library's module, or too many files."""
    application = _application_using(path)
    if application is None:
        return None
    if application[0] in _module_names:
        return _module_names[application[0]]
    files = _naming_files(application[0])
    if files is None:
        return None
    names = set(application[0].split(os.sep))
    for file in files:
        if file.endswith(".py"):
            *folders, stem = os.path.relpath(file, application[0])[:-3].split(os.sep)
            names.update(folders)
            names.add(stem)
    known = _module_names[application[0]] = frozenset(names)
    return known


def entries_running(path: str) -> tuple[str, ...] | None:
    """The entry points of the application of the module at ``path`` (``application_of``, as ``mode_of`` reads it)
    that run it: those that import it (or are it), else, where none does, all of the application's (a module only a
    configuration file names). None for a library's module, whose users may run it from anywhere: one no entry point
    of an application lies around, one of an application kept among tests (their fixtures) or inside the importable
    package of the repository around it, and a source without a file."""
    application = _running_application(path)
    if application is None:
        return None
    file = os.path.abspath(path)
    return tuple(entry for entry in application[1] if file in reached_from(entry)) or application[1]


def _running_application(path: str) -> tuple[str, tuple[str, ...]] | None:
    """The application (folder, entry points) that runs the module at ``path``, as ``entries_running`` reads it;
    None for a library's module (see there)."""
    return _application_around(path, nested_in_any_project=False)


def _application_around(path: str, nested_in_any_project: bool) -> tuple[str, tuple[str, ...]] | None:
    """The application (folder, entry points: ``application_of``) around the module at ``path``; None for a
    source without a file, a library's module, an application kept among tests (their fixtures), and one nested
    inside the project around it: inside its library package, or (``nested_in_any_project``) anywhere below the
    project's root."""
    if not path or not os.path.isfile(path):
        return None
    file = os.path.abspath(path)
    root, _, recursive = project_root(file)
    application = application_of(file, root if recursive else None)
    if application is None or any(part in TEST_FOLDERS for part in application[0].split(os.sep)):
        return None
    if application[0].startswith(os.path.join(root, "")) and (
            nested_in_any_project or _in_library_package(root, application[0])):
        return None
    return application


# Turning a Cell's ``training`` flag on (``Cell.__init__`` leaves it False): ``set_train()``, ``set_train(True)``,
# ``set_train(mode)``, or a write of ``.training`` with anything but ``False``.
_SETS_TRAINING = re.compile(r"\bset_train\((?!\s*(?:mode\s*=\s*)?False\s*\))|\.training\s*=(?!=)(?!\s*False\b)")


def sets_training(path: str) -> bool:
    """Whether some Python file of the application that runs the module at ``path`` (``entries_running``'s) may
    turn a Cell's ``training`` flag on (``_SETS_TRAINING``): ``set_train()``, ``set_train(True)``,
    ``set_train(mode)``, ``net.training = flag``. True for a library's module (its users may) and where the
    application's files are more than are listed (``MAX_SCANNED_FILES``). What MindSpore's own training calls do
    (``Model.train`` sets it) is ``ModuleFacts.application_trains``'s question."""
    application = _running_application(path)
    if application is None:
        return True
    known = _training_set.get(application[0])
    if known is None:
        files = _naming_files(application[0])
        texts = [_text(file) for file in files or () if file.endswith(".py")]
        known = _training_set[application[0]] = files is None or any(
            text is None or "train" in text and _SETS_TRAINING.search(text) is not None for text in texts)
    return known


_training_set: dict[str, bool] = {}


def application_sources(path: str) -> tuple[str, tuple[str, ...]] | None:
    """(the folder, the files that may name its classes: ``_NAMING_FILES``) of the application that uses the module
    at ``path`` (``model.configuration`` reads its settings from them); None where ``files_naming`` is (a library's
    module, more files than are read). The same tuple while the files are known (``forget_projects`` lists them
    again)."""
    application = _application_using(path)
    files = _naming_files(application[0]) if application is not None else None
    return (application[0], files) if files is not None else None


def read_text(path: str) -> str | None:
    """The text of the file at ``path`` as the application's other questions read it (once per modification time;
    None when unreadable or too large)."""
    return _text(path)


def never_run_key(path: str) -> str:
    """What ``never_run`` answers for the classes the file at ``path`` defines, as one string (for
    result caches: a file of the application that comes to name one checks the module again)."""
    text = _text(path) if path and os.path.isfile(path) else None
    if not text:
        return ""
    if module_never_runs(path):
        return "*"
    return ",".join(sorted(never_run(path, {*_CLASS.findall(text), *_TOP_LEVEL.findall(text)})))


_METHOD = re.compile(r"^[ \t]+(?:async[ \t]+)?def[ \t]+([A-Za-z_]\w*)", re.MULTILINE)
_REGISTRY_KEY = re.compile(r"^([A-Za-z_]\w*)[ \t]*=[ \t]*\{|^[ \t]+[\"']([A-Za-z_]\w*)[\"'][ \t]*:[ \t]*lambda\b",
                           re.MULTILINE)


def sites_key(path: str) -> str:
    """A digest of the other files of the application that name the classes, functions, methods and registries
    (``OPS = {...}`` and its keys) the file at ``path`` defines (for result caches: a file that comes to build one
    with other arguments, or to call one, checks the module again: ``model.construction``, ``model.graph``); empty
    where none does."""
    text = _text(path) if path and os.path.isfile(path) else None
    if not text:
        return ""
    own = os.path.abspath(path)
    naming: set[str] = set()
    # (and its methods and the keys of its registries: a file that comes to call one runs it: ``model.graph``)
    methods = {name for name in _METHOD.findall(text) if not name.startswith("__")}
    registries = {name for pair in _REGISTRY_KEY.findall(text) for name in pair if name}
    for name in {*_CLASS.findall(text), *_FUNCTION.findall(text), *methods, *registries}:
        naming.update(file for file, _ in files_naming(path, name) or () if file != own)
    digest = zlib.crc32(b"")
    for file in sorted(naming):  # a site in a function the application comes to call builds the class then
        digest = zlib.crc32(file.encode() + (_text(file) or "").encode("utf-8", "replace")
                            + never_run_key(file).encode(), digest)
    return f"{digest:08x}" if naming else ""

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


_requirement_versions: dict[str, tuple[str, tuple[str, ...], str, str] | None] = {}


def inferred_version(root: str) -> tuple[str, str]:
    """``(version, origin)``: installed, else the project's requirement (its lowest version; an application's, else
    the repository's around it), else the API tables' version."""
    version, _, origin, _ = inferred_versions(root)
    return version, origin


def inferred_versions(root: str, pinned: bool = False) -> tuple[str, tuple[str, ...], str, str]:
    """``(version, versions, origin, requirement)``: the installed MindSpore (unless ``pinned``: the project's
    requirement only), else the versions the project's requirement allows (an application's, else the repository's
    around it; ``versions`` empty for one, or ``pinned``), else the API tables' version."""
    installed = "" if pinned else installed_mindspore()
    required = _project_requirement(root)
    if installed and (required is None or allows(required[3], installed)):
        return installed, (), "installed", ""
    if required is not None:
        version, versions, origin, requirement = required
        if installed:  # ms-lint runs beside another MindSpore than the one the project installs
            origin = f"{origin}; not the installed {installed}"
        return version, () if pinned else versions, origin, requirement
    from ms_lint.mindspore_api import mindspore_version

    return mindspore_version(), (), "default", ""


def _project_requirement(root: str) -> tuple[str, tuple[str, ...], str, str] | None:
    """``required_versions`` of the nearest folder whose requirements name a MindSpore version (an application's,
    else the repository's around it), its origin shown from ``root``; None where none does."""
    for where, shown_from in _requirement_folders(root):
        if where not in _requirement_versions:
            _requirement_versions[where] = required_versions(where)
        required = _requirement_versions[where]
        if required is not None:
            version, versions, origin, requirement = required
            return version, versions, os.path.join(shown_from, origin), requirement
    return None


def allows(requirement: str, version: str) -> bool:
    """Whether ``requirement`` as written (``mindspore>=2.7.1``, ``numpy<1.24``) allows release ``version``: what
    decides whether an installed package is the one the project runs with."""
    release = parse_version(version)
    bounds = [(operator, parse_version(bound.rstrip(".*").split("+")[0]), bound.endswith(".*"))
              for operator, bound in _SPECIFIER.findall(requirement)]
    return all(_allows(operator, release, bound, star) for operator, bound, star in bounds if bound)


def _requirement_folders(root: str) -> Iterable[tuple[str, str]]:
    """The folders whose requirements speak for the project at ``root``, nearest first: the application's own, then
    the repository's around it; each with where an origin read there is shown from (relative to ``root``)."""
    for where in (root, _enclosing.get(root)) if root else ():
        if where is not None:
            yield where, "" if where == root else os.path.relpath(where, root)


def pinned_version(root: str) -> str:
    """The version the project's requirement pins or starts from ("" where it names none)."""
    if not root:
        return ""
    version, _, origin, _ = inferred_versions(root, pinned=True)
    return "" if origin == "default" else version


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


def allowed_versions(specification: str) -> tuple[str, ...]:
    """The versions a requirement on MindSpore allows that ms-lint judges separately, oldest first: the version it
    pins or starts from (``requirement_version``), then each release ms-lint has API tables for that it allows
    (``>=2.7.1`` -> 2.7.1, 2.7.2, 2.8.0, 2.9.0, 2.10.0); one version for a pin."""
    from ms_lint.mindspore_api import shipped_versions

    first = requirement_version(specification)
    if not first:
        return ()
    specifiers = [(operator, parse_version(version.rstrip(".*").split("+")[0]), version.endswith(".*"))
                  for operator, version in _SPECIFIER.findall(specification)]
    found = [first]
    for version in shipped_versions():
        release = parse_version(version)
        if release > _padded(parse_version(first)) and all(_allows(operator, release, bound, star)
                                                           for operator, bound, star in specifiers):
            found.append(version)
    return tuple(found)


def _padded(release: tuple[int, ...]) -> tuple[int, ...]:
    return release + (0,) * (3 - len(release))


def _allows(operator: str, release: tuple[int, ...], bound: tuple[int, ...], star: bool) -> bool:
    """Whether ``release`` satisfies ``operator bound`` (release numbers only, as PEP 440 compares them)."""
    if star or operator == "~=":  # ==2.6.*, ~=2.7.0: the bound's leading numbers, then at least it
        prefix = bound if star else bound[:-1]
        if release[:len(prefix)] != prefix:
            return operator == "!="
        return operator != "!=" and (star or release >= _padded(bound))
    release, bound = _padded(release), _padded(bound)
    return {"==": release == bound, "===": release == bound, "!=": release != bound, ">=": release >= bound,
            "<=": release <= bound, ">": release > bound, "<": release < bound}.get(operator, True)


def required_version(root: str) -> tuple[str, str] | None:
    """``(version, origin)`` from the first of the project's files whose requirement on MindSpore names one."""
    found = required_versions(root)
    return None if found is None else (found[0], found[2])


def required_versions(root: str) -> tuple[str, tuple[str, ...], str, str] | None:
    """``(version, versions, origin, requirement)`` from the first of the project's files whose requirement on
    MindSpore names a version: the one it pins or starts from, every version ``allowed_versions`` judges (empty for
    one), where it was read, and the requirement as written."""
    for name, requirements in _requirement_sources(root):
        for requirement in requirements:
            match = _REQUIREMENT.search(requirement)
            if match is None:
                continue
            version = requirement_version(match.group(1))
            if version:
                written = " ".join(match.group(0).split())
                versions = allowed_versions(match.group(1))
                return version, versions if len(versions) > 1 else (), f"{name}: {written}", written
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


# ------------------------------------------------------------------------------------------------------- numpy

# MindSpore's own requirement on numpy, by the first version that asks it (its wheels' metadata): 2.7.0 to 2.9.0 ask
# ``numpy<2.0.0,>=1.20.0``, 2.10.0 asks ``numpy>=1.25.0``; MindSpore runs with numpy below 2 (its binary breaks with
# numpy 2), so pip's choice is the newest 1.x release a requirement allows.
_MINDSPORE_NUMPY = (((2, 10), ">=1.25.0"), ((), ">=1.20.0,<2.0.0"))
# the last release of each minor version, oldest first
_NUMPY_RELEASES = ("1.20.3", "1.21.6", "1.22.4", "1.23.5", "1.24.4", "1.25.2", "1.26.4")
_NUMPY_REQUIREMENT = re.compile(r"(?<![\w.-])numpy(?![\w.-])\s*(?:\[[^\]]*\])?\s*\(?([^;#\"'\n)]*)", re.IGNORECASE)


@lru_cache(maxsize=1)
def installed_numpy() -> str:
    """The version of the numpy installed where ms-lint runs, from its metadata (numpy is not imported)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("numpy")
    except (PackageNotFoundError, ValueError, OSError):
        return ""
    return found if is_version(found) else ""


@lru_cache(maxsize=256)
def numpy_version(root: str, mindspore: str) -> tuple[str, str]:
    """``(version, origin)``: the numpy the code runs with. The installed numpy, where it is the project's (beside
    the project's MindSpore: ``_installed_environment``) and the project's requirement on numpy allows it; else the
    newest numpy release below 2 that requirement allows (an application's, else the repository's around it), else
    the newest that MindSpore ``mindspore`` itself allows."""
    installed = installed_numpy()
    required = _numpy_requirement(root)
    if installed and _installed_environment(root, mindspore) and (required is None or allows(required[0], installed)):
        return installed, "installed"
    if required is not None:
        written, origin = required
        return _newest_allowed(written), f"the newest {written} allows ({origin})"
    release = parse_version(mindspore) if mindspore and is_version(mindspore) else (99,)
    specification = next(specification for first, specification in _MINDSPORE_NUMPY if release[:len(first)] >= first)
    return _newest_allowed(specification), f"the newest MindSpore {mindspore} allows" if mindspore else \
        "the newest MindSpore allows"


def _numpy_requirement(root: str) -> tuple[str, str] | None:
    """``(requirement as written, where)``: the first requirement on numpy of the project's folders (an
    application's, else the repository's around it) that leaves a numpy release below 2 to choose; None where none
    does."""
    for where, shown_from in _requirement_folders(root):
        for name, requirements in _requirement_sources(where):
            for requirement in requirements:
                match = _NUMPY_REQUIREMENT.search(requirement)
                if match is not None and _newest_allowed(match.group(1)):
                    return " ".join(match.group(0).split()), os.path.join(shown_from, name)
    return None


def _installed_environment(root: str, mindspore: str) -> bool:
    """Whether the packages installed beside ms-lint are the project's: its MindSpore ``mindspore`` is the
    installed one (where no MindSpore is installed, or one the project's requirement excludes, the project runs in
    another environment)."""
    installed = installed_mindspore()
    if not installed:
        return False
    required = _project_requirement(root)
    return required is None or allows(required[3], installed) or mindspore == installed


def _newest_allowed(specification: str) -> str:
    """The newest numpy release below 2 that ``specification`` allows (a pinned version itself); "" for none."""
    specifiers = [(operator, parse_version(bound.rstrip(".*")), bound.endswith(".*"))
                  for operator, bound in _SPECIFIER.findall(specification)]
    if not specifiers:
        return ""
    pinned = [bound for operator, bound in _SPECIFIER.findall(specification) if operator in ("==", "===")]
    for version in reversed(tuple(pinned) or _NUMPY_RELEASES):
        if all(_allows(operator, parse_version(version), bound, star) for operator, bound, star in specifiers):
            return version
    return ""
