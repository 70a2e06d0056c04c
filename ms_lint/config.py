"""Options for ``ms-lint check`` (and the pytest plugin): command line, ``pyproject.toml`` and flake8's files.

Where options come from, highest precedence first:

1. the command line;
2. ``[tool.ms-lint]`` in the nearest ``pyproject.toml`` (searched from the working directory upwards);
3. flake8's configuration, found as flake8 finds it: ``[tool.flake8]`` in ``./pyproject.toml`` (the
   Flake8-pyproject convention), else the first ``setup.cfg``/``tox.ini``/``.flake8`` with a ``[flake8]``
   section from the working directory upwards. Keys that only flake8 or other plugins use are left alone.

``--config FILE`` names the one file to read instead (a ``.toml`` file is read for ``[tool.ms-lint]``, else
``[tool.flake8]``; any other file for ``[flake8]``); ``--isolated`` reads none.

Select and ignore lists keep flake8's semantics exactly (flake8's own decision engine is used): codes are
prefixes, the longest matching prefix wins, ``--select``/``--ignore`` replace the defaults while the
``extend-`` forms add to them, and rules that are off by default are in the default ignore list, so that
``--extend-select=MS110`` (or any explicit selection that names them) turns them on. Patterns for ``exclude``,
``extend-exclude`` and ``per-file-ignores`` follow flake8 too: a pattern without a ``/`` matches a file or
directory name anywhere, one with a ``/`` is relative to the file that sets it (to the working directory on the
command line).
"""
from __future__ import annotations

import argparse
import configparser
import difflib
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

from ms_lint.settings import (DEVICES, MODES, SYNTAX_LEVELS, Settings, SettingsError, is_version, parse_names,
                              parse_per_path_modes)

OUTPUT_FORMATS = ("text", "json", "sarif", "github")
FLAKE8_FILES = ("setup.cfg", "tox.ini", ".flake8")
PYPROJECT = "pyproject.toml"
MS_LINT_TABLE = "tool.ms-lint"


class ConfigError(ValueError):
    """A configuration the user wrote that ms-lint cannot use; the message is one line that says where and why."""


@dataclass(frozen=True)
class ConfigSource:
    """One place options were read from, for messages (``"setup.cfg [flake8]"``) and relative patterns."""

    path: str
    section: str

    @property
    def directory(self) -> str:
        return os.path.dirname(os.path.abspath(self.path))

    def __str__(self) -> str:
        return f"{os.path.relpath(self.path) if os.path.isabs(self.path) else self.path} [{self.section}]"


@dataclass(frozen=True)
class _Option:
    name: str
    parse: Callable[[Any, str, str], Any]
    # flake8's sections also hold flake8's own options of the same name with another meaning (``format``).
    from_flake8: bool = True


@dataclass
class LintOptions:
    """Every option ``ms-lint check`` uses, resolved and validated."""

    select: list[str] | None = None
    ignore: list[str] | None = None
    extend_select: list[str] = field(default_factory=list)
    extend_ignore: list[str] = field(default_factory=list)
    per_file_ignores: list[tuple[str, list[str]]] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    extend_exclude: list[str] = field(default_factory=list)
    filename: list[str] = field(default_factory=lambda: ["*.py"])
    settings: Settings = field(default_factory=Settings)
    disable_noqa: bool = False
    jobs: int | None = None  # None: choose from the number of files and CPUs
    format: str = "text"
    respect_gitignore: bool = True  # skip what git ignores, virtual environments and build output
    force_exclude: bool = False  # ... in paths named on the command line too
    cache: bool = True
    statistics: bool = False  # count the findings per code after the report
    sources: list[ConfigSource] = field(default_factory=list)
    # option name -> the configuration file it was read from (``"setup.cfg [flake8]"``); not there: the command line
    # or the default
    read_from: dict[str, str] = field(default_factory=dict)

    def __post_init__(self):
        self._deciders: dict[tuple[str, ...], Any] = {}
        self._selected: dict[tuple[str, ...], frozenset[str]] = {}  # per-file ignores -> the codes selected

    def __getstate__(self):
        # Sent to worker processes: the decision engines are rebuilt there on first use.
        state = dict(self.__dict__)
        state["_deciders"] = {}
        state["_selected"] = {}
        return state

    @property
    def all_excludes(self) -> list[str]:
        return [*self.exclude, *self.extend_exclude]

    def per_file_codes(self, path: str) -> tuple[str, ...]:
        """The per-file-ignores codes for ``path``: flake8 applies the longest matching pattern only."""
        from flake8 import utils

        best: tuple[str, list[str]] | None = None
        for pattern, codes in self.per_file_ignores:
            if utils.fnmatch(os.path.basename(path), [pattern]) or utils.fnmatch(os.path.abspath(path), [pattern]):
                if best is None or len(pattern) > len(best[0]):
                    best = (pattern, codes)
        return tuple(best[1]) if best else ()

    def is_selected(self, code: str, path: str | None = None) -> bool:
        """Whether ``code`` is reported (for ``path``, with its per-file ignores), as flake8 would decide."""
        return self._decides(code, self.per_file_codes(path) if path is not None else ())

    def _decides(self, code: str, extra: tuple[str, ...]) -> bool:
        from flake8.style_guide import Decision

        decider = self._deciders.get(extra)
        if decider is None:
            decider = self._deciders[extra] = self._decision_engine(extra)
        return decider.decision_for(code) is Decision.Selected

    def selected_codes(self, path: str | None = None) -> frozenset[str]:
        """The codes reported (for ``path``, with its per-file ignores); decided once per set of per-file ignores."""
        from ms_lint.rules import RULES_BY_CODE

        extra = self.per_file_codes(path) if path is not None else ()
        found = self._selected.get(extra)
        if found is None:
            found = self._selected[extra] = frozenset(code for code in RULES_BY_CODE if self._decides(code, extra))
        return found

    def fingerprint(self) -> str:
        """What in these options changes which findings a file gets (for caches)."""
        parts = [
            f"select={self.select}", f"ignore={self.ignore}", f"extend_select={self.extend_select}",
            f"extend_ignore={self.extend_ignore}", f"per_file_ignores={self.per_file_ignores}",
            f"settings={self.settings.values}",  # every setting: a new one cannot be left out
            f"disable_noqa={self.disable_noqa}",
        ]
        return ";".join(parts)

    def target_for(self, path: str):
        """The target the file at ``path`` is checked against: these settings, the rest inferred from its project."""
        from ms_lint.target import target_from_settings

        return target_from_settings(self.settings, path, self.read_from)

    def fingerprint_for(self, path: str) -> str:
        """``fingerprint`` and the target of the file at ``path``, inferred parts included: a project that comes to
        name another device or level, comes to name a class its application never ran (or to build one with other
        arguments), or gains or loses an entry point that runs the file (an application that comes to train), or
        comes to turn a Cell's ``training`` flag on (``target.sets_training``), or
        whose configuration files, scripts or options change (``model.configuration``), checks its files again."""
        from ms_lint.model.configuration import configuration_key
        from ms_lint.target import entries_running, never_run_key, sets_training, sites_key

        return (f"{self.fingerprint()};target={self.target_for(path).key};sites={sites_key(path)};"
                f"entries={entries_running(path)};configuration={configuration_key(path)};"
                f"training={sets_training(path)};never_run={never_run_key(path)}")

    def _decision_engine(self, per_file_ignores: tuple[str, ...]):
        from flake8.style_guide import DecisionEngine

        from ms_lint.rules import ALL_RULES

        namespace = argparse.Namespace(
            select=self.select,
            ignore=self.ignore,
            extend_select=self.extend_select,
            extend_ignore=[*self.extend_ignore, *per_file_ignores],
            # As flake8 sets them for the plugin: its entry point name is selected, off-by-default rules ignored.
            extended_default_select=["MS"],
            extended_default_ignore=[rule.code for rule in ALL_RULES if not rule.enabled_by_default],
        )
        return DecisionEngine(namespace)


# --------------------------------------------------------------------------------------------------- value parsing


def _as_items(value: Any, where: str, name: str) -> list[str]:
    """A list option: a comma/whitespace separated string (flake8's form) or a list of such strings (TOML)."""
    from flake8.utils import parse_comma_separated_list

    if isinstance(value, str):
        return parse_comma_separated_list(value)
    if isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value):
        return [part for item in value for part in parse_comma_separated_list(item)]
    raise ConfigError(f"{where}: {name} must be a list of strings or a comma-separated string, not {value!r}")


def _parse_codes(value: Any, where: str, name: str) -> list[str]:
    codes = _as_items(value, where, name)
    for code in codes:
        _check_code(code, where, name)
    return codes


def _check_code(code: str, where: str, name: str) -> None:
    from flake8.defaults import VALID_CODE_PREFIX

    from ms_lint.rules import RULES_BY_CODE

    if not VALID_CODE_PREFIX.match(code):
        raise ConfigError(
            f"{where}: {name}: {code!r} is not an error code or prefix (capital letters then digits, like MS101 "
            f"or MS1)"
        )
    if code.startswith("MS") and not any(known.startswith(code) for known in RULES_BY_CODE):
        raise ConfigError(f"{where}: {name}: {code} matches no ms-lint rule (`ms-lint rules` lists them)")


def _parse_patterns(value: Any, where: str, name: str, base: str) -> list[str]:
    from flake8.utils import normalize_paths

    return normalize_paths(_as_items(value, where, name), parent=base)


def _parse_filename_patterns(value: Any, where: str, name: str) -> list[str]:
    return _as_items(value, where, name)


def _parse_per_file_ignores(value: Any, where: str, name: str, base: str) -> list[tuple[str, list[str]]]:
    from flake8.exceptions import ExecutionError
    from flake8.utils import normalize_path, parse_files_to_codes_mapping

    if isinstance(value, Mapping):
        pairs = [(pattern, _as_items(codes, where, f"{name} {pattern!r}")) for pattern, codes in value.items()]
    else:
        if isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value):
            value = "\n".join(value)
        if not isinstance(value, str):
            raise ConfigError(
                f"{where}: {name} must be 'PATTERNS:CODES' entries (a string or list of strings) or a table "
                f"of pattern = [codes], not {value!r}"
            )
        try:
            pairs = parse_files_to_codes_mapping(value)
        except ExecutionError:
            flat = " ".join(value.split())
            raise ConfigError(
                f"{where}: {name} must be 'PATTERNS:CODES' entries, like 'tests/*:MS101,MS102', not {flat!r}"
            ) from None
    result = []
    for pattern, codes in pairs:
        for code in codes:
            _check_code(code, where, name)
        result.append((normalize_path(pattern, base), list(codes)))
    return result


def _parse_per_path_modes(value: Any, where: str, name: str, base: str) -> tuple[tuple[str, str], ...]:
    try:
        modes = parse_per_path_modes(value, base)
        Settings(per_path_modes=modes)  # validates each mode
    except SettingsError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    return modes


def _parse_choice(choices: Sequence[str]) -> Callable[[Any, str, str], str]:
    def parse(value: Any, where: str, name: str) -> str:
        text = value.strip().lower() if isinstance(value, str) else value
        if text not in choices:
            raise ConfigError(f"{where}: {name} must be one of {', '.join(choices)}, not {value!r}")
        return text

    return parse


_TRUE = {"1", "yes", "true", "on"}
_FALSE = {"0", "no", "false", "off"}


def _parse_bool(value: Any, where: str, name: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise ConfigError(f"{where}: {name} must be true or false, not {value!r}")


def _parse_version(value: Any, where: str, name: str) -> str:
    text = str(value).strip() if isinstance(value, (str, int, float)) and not isinstance(value, bool) else ""
    if not is_version(text):
        raise ConfigError(f"{where}: {name} must be a MindSpore version such as 2.7.1, not {value!r}")
    return text


def _parse_names(value: Any, where: str, name: str) -> tuple[str, ...]:
    names = parse_names(_as_items(value, where, name))
    for item in names:
        if not item.isidentifier():
            raise ConfigError(f"{where}: {name} holds method names, not {item!r}")
    return names


def _parse_jobs(value: Any, where: str, name: str) -> int | None:
    if isinstance(value, str) and value.strip().lower() == "auto":
        return None
    try:
        jobs = int(value)
    except (TypeError, ValueError):
        jobs = 0
    if isinstance(value, bool) or jobs < 1:
        raise ConfigError(f"{where}: {name} must be 'auto' or a positive number of processes, not {value!r}")
    return jobs


def _with_base(parse):
    """Mark a parser that needs the directory relative patterns are resolved against."""
    parse.needs_base = True
    return parse


OPTIONS: dict[str, _Option] = {
    option.name: option
    for option in (
        _Option("select", _parse_codes),
        _Option("ignore", _parse_codes),
        _Option("extend-select", _parse_codes),
        _Option("extend-ignore", _parse_codes),
        _Option("per-file-ignores", _with_base(_parse_per_file_ignores)),
        _Option("exclude", _with_base(_parse_patterns)),
        _Option("extend-exclude", _with_base(_parse_patterns)),
        _Option("filename", _parse_filename_patterns),
        _Option("ms-mode", _parse_choice(MODES)),
        _Option("ms-syntax-level", _parse_choice(SYNTAX_LEVELS)),
        _Option("ms-device", _parse_choice(DEVICES)),
        _Option("ms-version", _parse_version),
        _Option("ms-tensor-methods", _parse_names),
        _Option("ms-check-unrun", _parse_bool),
        _Option("ms-each-line", _parse_bool),
        _Option("per-path-ms-mode", _with_base(_parse_per_path_modes)),
        _Option("disable-noqa", _parse_bool),
        _Option("jobs", _parse_jobs),
        _Option("format", _parse_choice(OUTPUT_FORMATS), from_flake8=False),
        _Option("respect-gitignore", _parse_bool, from_flake8=False),
        _Option("force-exclude", _parse_bool, from_flake8=False),
        _Option("cache", _parse_bool, from_flake8=False),
        _Option("statistics", _parse_bool),
    )
}

# Tables under [tool.ms-lint] that belong to other ms-lint commands; ``ms-lint check`` leaves them alone.
OTHER_COMMAND_TABLES = frozenset({"validate", "parity"})


def _parse_value(name: str, value: Any, where: str, base: str) -> Any:
    option = OPTIONS[name]
    if getattr(option.parse, "needs_base", False):
        return option.parse(value, where, name, base)
    return option.parse(value, where, name)


# ------------------------------------------------------------------------------------------------------- reading


def _read_toml(path: str) -> dict:
    from ms_lint.toml_file import TomlError, read_toml

    try:
        return read_toml(path)
    except TomlError as exc:
        raise ConfigError(str(exc)) from None


def _read_ini(path: str) -> configparser.RawConfigParser | None:
    parser = configparser.RawConfigParser()
    try:
        parser.read(path, encoding="UTF-8")
    except (UnicodeDecodeError, configparser.Error) as exc:
        # flake8 skips an unparseable file while searching; so does ms-lint (an explicit --config is an error).
        message = " ".join(str(exc).split())
        raise ConfigError(f"{path}: not a valid configuration file ({message})") from None
    return parser


def _toml_table(data: dict, dotted: str) -> dict | None:
    table: Any = data
    for key in dotted.split("."):
        if not isinstance(table, dict) or key not in table:
            return None
        table = table[key]
    return table if isinstance(table, dict) else None


def _normalise_key(key: str) -> str:
    return key.strip().lower().replace("_", "-")


def _values_from_ms_lint_table(table: dict, source: ConfigSource) -> dict[str, Any]:
    values = {}
    for raw_key, value in table.items():
        key = _normalise_key(raw_key)
        if key in OTHER_COMMAND_TABLES and isinstance(value, dict):
            continue
        if key not in OPTIONS:
            raise ConfigError(f"{source}: unknown option {raw_key!r}{_did_you_mean(key)}")
        values[key] = _parse_value(key, value, str(source), source.directory)
    return values


def _values_from_flake8_section(items: Iterable[tuple[str, Any]], source: ConfigSource) -> dict[str, Any]:
    values = {}
    for raw_key, value in items:
        key = _normalise_key(raw_key)
        option = OPTIONS.get(key)
        if option is None or not option.from_flake8:
            continue  # flake8's own option or another plugin's
        values[key] = _parse_value(key, value, str(source), source.directory)
    return values


def _did_you_mean(key: str) -> str:
    close = difflib.get_close_matches(key, OPTIONS, n=1)
    known = ", ".join(OPTIONS)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"{hint} (known options: {known})"


def _stop_directory() -> str | None:
    home = os.path.expanduser("~")
    return os.path.abspath(home) if home != "~" else None


def _parents(start: str) -> Iterable[str]:
    """``start`` and its parents, stopping before the home directory as flake8 does."""
    path = os.path.abspath(start)
    home = _stop_directory()
    while True:
        yield path
        parent = os.path.dirname(path)
        if parent == path or parent == home:
            return
        path = parent


def _find_ms_lint_table(start: str) -> tuple[ConfigSource, dict] | None:
    for directory in _parents(start):
        path = os.path.join(directory, PYPROJECT)
        if os.path.isfile(path):
            table = _toml_table(_read_toml(path), MS_LINT_TABLE)
            if table is not None:
                return ConfigSource(path, MS_LINT_TABLE), table
    return None


def _find_flake8_config(start: str) -> tuple[ConfigSource, list[tuple[str, Any]]] | None:
    pyproject = os.path.join(os.path.abspath(start), PYPROJECT)
    if os.path.isfile(pyproject):
        table = _toml_table(_read_toml(pyproject), "tool.flake8")
        if table is not None:
            return ConfigSource(pyproject, "tool.flake8"), list(table.items())
    for directory in _parents(start):
        for name in FLAKE8_FILES:
            path = os.path.join(directory, name)
            if not os.path.isfile(path):
                continue
            try:
                parser = _read_ini(path)
            except ConfigError:
                continue  # flake8 ignores a file it cannot parse while searching
            if parser is not None and parser.has_section("flake8"):
                return ConfigSource(path, "flake8"), list(parser.items("flake8"))
    return None


def _read_explicit_config(path: str) -> list[tuple[ConfigSource, dict[str, Any]]]:
    if not os.path.isfile(path):
        raise ConfigError(f"{path}: no such configuration file")
    if path.endswith(".toml"):
        data = _read_toml(path)
        table = _toml_table(data, MS_LINT_TABLE)
        if table is not None:
            source = ConfigSource(path, MS_LINT_TABLE)
            return [(source, _values_from_ms_lint_table(table, source))]
        table = _toml_table(data, "tool.flake8")
        if table is not None:
            source = ConfigSource(path, "tool.flake8")
            return [(source, _values_from_flake8_section(table.items(), source))]
        raise ConfigError(f"{path}: has no [tool.ms-lint] or [tool.flake8] table")
    parser = _read_ini(path)
    if parser is None or not parser.has_section("flake8"):
        raise ConfigError(f"{path}: has no [flake8] section")
    source = ConfigSource(path, "flake8")
    return [(source, _values_from_flake8_section(parser.items("flake8"), source))]


def read_config_files(
    cwd: str | None = None, config_file: str | None = None, isolated: bool = False
) -> list[tuple[ConfigSource, dict[str, Any]]]:
    """The parsed configuration layers, lowest precedence first."""
    if isolated:
        return []
    if config_file is not None:
        return _read_explicit_config(config_file)
    start = cwd or os.getcwd()
    layers = []
    flake8 = _find_flake8_config(start)
    if flake8 is not None:
        source, items = flake8
        layers.append((source, _values_from_flake8_section(items, source)))
    ms_lint = _find_ms_lint_table(start)
    if ms_lint is not None:
        source, table = ms_lint
        layers.append((source, _values_from_ms_lint_table(table, source)))
    return layers


def resolve_options(
    command_line: Mapping[str, Any] | None = None,
    *,
    cwd: str | None = None,
    config_file: str | None = None,
    isolated: bool = False,
) -> LintOptions:
    """Merge defaults, configuration files and ``command_line`` (option name -> raw value; ``None`` = not given).

    Raises ConfigError with a one-line message for anything invalid.
    """
    from flake8 import defaults

    values: dict[str, Any] = {}
    sources = []
    read_from: dict[str, str] = {}
    for source, layer in read_config_files(cwd, config_file, isolated):
        values.update(layer)
        sources.append(source)
        read_from.update(dict.fromkeys(layer, str(source)))
    base = os.path.abspath(cwd or os.getcwd())
    for name, raw in (command_line or {}).items():
        if raw is None:
            continue
        if name not in OPTIONS:
            raise ConfigError(f"unknown option {name!r}")
        values[name] = _parse_value(name, raw, f"--{name}", base)
        read_from.pop(name, None)

    options = LintOptions(sources=sources, read_from=read_from)
    options.select = values.get("select")
    options.ignore = values.get("ignore")
    options.extend_select = values.get("extend-select", [])
    options.extend_ignore = values.get("extend-ignore", [])
    options.per_file_ignores = values.get("per-file-ignores", [])
    options.exclude = values.get("exclude", list(defaults.EXCLUDE))
    options.extend_exclude = values.get("extend-exclude", [])
    options.filename = values.get("filename", ["*.py"])
    options.settings = Settings(
        mode=values.get("ms-mode", ""), syntax_level=values.get("ms-syntax-level", ""),
        per_path_modes=values.get("per-path-ms-mode", ()), device=values.get("ms-device", ""),
        version=values.get("ms-version", ""), tensor_methods=values.get("ms-tensor-methods", ()),
        check_unrun=values.get("ms-check-unrun", False), each_line=values.get("ms-each-line", False),
    )
    options.disable_noqa = values.get("disable-noqa", False)
    options.jobs = values.get("jobs")
    options.format = values.get("format", "text")
    options.respect_gitignore = values.get("respect-gitignore", True)
    options.force_exclude = values.get("force-exclude", False)
    options.cache = values.get("cache", True)
    options.statistics = values.get("statistics", False)
    return options
