"""What a validation run compiles for: the target ``ms-lint check`` infers (``ms_lint.target``), with the device this
machine has.

The syntax level of each file is its project's, as ``check`` infers it (STRICT where the project selects it or
exports MindIR, else LAX), unless ``--syntax-level`` (or ``[tool.ms-lint.validate] syntax-level``) names one. The
device is one for the whole run (the workers select it once): the one ``--device`` names, else the one the projects'
code names when this MindSpore can use it here, else CPU, and the run says why (``device_note``) on standard error
and in each verdict whose finding depends on the device.
"""
from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from dataclasses import dataclass, field, replace

from ms_lint.target import DEVICE_NAMES, Target

COMPILE_DEVICES = {"cpu": "CPU", "gpu": "GPU", "ascend": "Ascend"}


@dataclass
class RunTarget:
    """``device``: what every unit is compiled on; ``level``: the syntax level an option set (None: each file's
    project's); ``device_note``: why ``device`` is not the device the projects name (empty when it is)."""

    device: str
    level: str | None
    lint_options: object = None
    device_origin: str = ""
    level_origin: str = "--syntax-level"
    device_note: str = ""
    _targets: dict = field(default_factory=dict)

    def check_target(self, path: str) -> Target:
        """``ms-lint check``'s target for the file at ``path``."""
        target = self._targets.get(path)
        if target is None:
            target = self._targets[path] = _lint_options(self.lint_options).target_for(path)
        return target

    def level_for(self, path: str) -> str:
        """The syntax level the file at ``path`` is compiled at."""
        return self.level or self.check_target(path).syntax_level or "lax"

    def target_for(self, path: str) -> Target:
        """The target the file at ``path`` is validated against, as ``check`` names it: its project's, with the
        device compiled on and the level compiled at."""
        target = self.check_target(path)
        origins = dict(target.origins)
        device = self.device.lower()
        if device != target.device:
            origins["device"] = self.device_origin or "compiled on"
        level = self.level_for(path)
        if self.level and (level != target.syntax_level or origins.get("syntax_level") == "option"):
            origins["syntax_level"] = self.level_origin
        return replace(target, device=device, syntax_level=level, origins=tuple(origins.items()),
                       named_devices=target.named_devices if device == "any" else ())

    def groups(self, paths) -> list:
        """The targets of ``paths`` (one per project), grouped as ``ms-lint check`` groups them
        (``ms_lint.target.group_targets``)."""
        from ms_lint.target import group_targets

        found: dict[str, Target] = {}
        for path in paths:
            target = self.target_for(path)
            found.setdefault(target.project, target)
        return group_targets(found.values())

    def lines(self, paths) -> list[str]:
        """``target: ...`` lines for standard error, as ``ms-lint check`` prints its own (naming the project where
        there are several), then why the device is not the one the projects name."""
        groups = self.groups(paths)
        several = len(groups) > 1 or any(len(group.projects) > 1 for group in groups)
        lines = [f"target: {group.describe(named=several)}" for group in groups]
        if self.device_note:
            lines.append(f"target: {self.device_note}")
        return lines


def _lint_options(options):
    if options is not None:
        return options
    from ms_lint.config import resolve_options

    return resolve_options({})


def resolve_run_target(device: str | None, level: str | None, lint_options, paths, mindspore_version: str = "",
                       cache_root: str | None = None, origins: dict | None = None) -> RunTarget:
    """The run's target for the files ``paths``: ``device`` and ``level`` as given (None: inferred); ``origins``:
    where a given one came from (``--device`` by default)."""
    origins = origins or {}
    run = RunTarget(device="CPU", level=level, lint_options=lint_options,
                    level_origin=origins.get("syntax_level", "--syntax-level"))
    if device:
        run.device, run.device_origin = device, origins.get("device", "--device")
        return run
    named: dict[str, str] = {}
    for path in paths:
        target = run.check_target(path)
        if target.device != "any":
            named.setdefault(target.device, target.origin("device"))
    if not named:
        run.device_origin = "any device: CPU here"
        return run
    if len(named) > 1:
        run.device_note = (f"the projects name several devices ({', '.join(DEVICE_NAMES[name] for name in named)}): "
                           f"compiling on CPU")
        run.device_origin = "several devices named"
        return run
    (wanted, origin), = named.items()
    if wanted == "cpu":
        return run
    wanted_name = COMPILE_DEVICES[wanted]
    if wanted_name in supported_devices(mindspore_version, cache_root):
        run.device = wanted_name
        return run
    run.device_origin = f"{wanted_name} named at {origin} is not available here"
    run.device_note = (f"the project names {wanted_name} ({origin}), which this MindSpore cannot use here: compiling "
                       f"on CPU; findings that depend on the device are decided for CPU (--device {wanted_name} on a "
                       f"machine that has it)")
    return run


_SUPPORTED: dict[str, list[str]] = {}
_PROBE = ("from mindspore._c_expression import MSContext\n"
          "context = MSContext.get_instance()\n"
          "print(','.join(d for d in ('CPU', 'GPU', 'Ascend') if context.is_pkg_support_device(d)))\n")


def supported_devices(mindspore_version: str, cache_root: str | None = None) -> list[str]:
    """The devices this MindSpore can use on this machine, asked once (a process importing MindSpore takes
    seconds): remembered for the process and, under ``cache_root``'s ``.ms_lint_cache/validate``, for this
    interpreter, machine and MindSpore version."""
    key = f"{sys.executable}|{platform.node()}|{mindspore_version}"
    if key in _SUPPORTED:
        return _SUPPORTED[key]
    store = os.path.join(cache_root, "devices.json") if cache_root else None
    stored = {}
    if store is not None:
        try:
            with open(store, encoding="utf-8") as handle:
                stored = json.load(handle)
        except (OSError, ValueError):
            stored = {}
        if isinstance(stored, dict) and isinstance(stored.get(key), list):
            _SUPPORTED[key] = stored[key]
            return stored[key]
    try:
        completed = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=120,
                                   stdin=subprocess.DEVNULL)
        devices = [name for name in completed.stdout.strip().split(",") if name] if completed.returncode == 0 \
            else ["CPU"]
    except (OSError, subprocess.SubprocessError):
        devices = ["CPU"]
    _SUPPORTED[key] = devices
    if store is not None:
        _PENDING[store] = {**(stored if isinstance(stored, dict) else {}), key: devices}
    return devices


_PENDING: dict[str, dict] = {}


def save_devices() -> None:
    """Store the devices found this run, where the project's ``.ms_lint_cache`` exists by the end of the run."""
    from ms_lint.validate.cache import write_atomically

    for store, devices in _PENDING.items():
        if not os.path.isdir(os.path.dirname(os.path.dirname(store))):
            continue
        try:
            os.makedirs(os.path.dirname(store), exist_ok=True)
            write_atomically(store, json.dumps(devices))
        except OSError:
            pass
    _PENDING.clear()
