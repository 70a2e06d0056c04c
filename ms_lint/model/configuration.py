"""What an attribute of an application's configuration holds in every run of it: ``config.non_local``,
``args.model_type``, ``self.config.temporal_pool`` read where the object is the application's configuration (a
YAML or JSON file read into an object, a Python configuration module, an argparse namespace), so that the branches
it decides and the Cells built with it are known as if the literal were written.

A key is known where every source that can give it agrees: each configuration file of the application that sets it
(the first document of a YAML file; a JSON object; a ``config/`` folder's Python module, by its top-level
assignments), and the default of each argparse option of that name (``store_true``: False). It is unknown wherever
a run may give it another value: a shell script or a Python string passes ``--key`` (or ``key=value``), a file the
model cannot read names it (a YAML file without PyYAML, one that does not parse), code assigns it (``args.key = ...``,
``setattr(config, "key", ...)``, ``set_defaults``), a dictionary or a class of configuration in Python spells it, it
sits at another depth of a file than the one read, or no source sets it. An argparse option's ``choices`` bound what
a string key can hold, overridden or not (``configured_values``).

Only applications have configurations: a library's module (``target.application_folder`` is None) knows nothing. The
sources of one application are read once per process, each key looked up once."""
from __future__ import annotations

import ast
import bisect
import json
import os
import re
import weakref
import zlib

from ms_lint.model.values import UNKNOWN, literal
from ms_lint.target import CONFIG_FOLDERS, application_sources, read_text

# The names an application gives its configuration object (``config = get_config()``, ``args = parser.parse_args()``,
# ``args = config``), as a variable or as an attribute of the instance (``self.config``).
CONFIGURATION_NAMES = frozenset({"config", "cfg", "args", "opt", "opts", "conf", "args_opt", "hparams", "cfgs",
                                 "configs"})
_SCALARS = (bool, int, float, str, type(None))
_MAX_KEYS = 8  # the longest chain of keys read (``config.model.backbone.x``)
_MAX_JSON = 1_000_000  # characters of a JSON file parsed (larger ones hold data, not settings)
_SETTINGS = (".sh", ".yaml", ".yml", ".json")  # the files besides Python ones that set a key
_ADD_ARGUMENT = re.compile(r"\badd_argument\s*\(")
_AUGMENTED = r"(?:[-+*/%&|^@]|//|\*\*|>>|<<)?="
_RECEIVER = re.compile(r"(\w+)\s*\.\s*$")  # what stands before ``.key``
_WRITE = re.compile(rf"\s*{_AUGMENTED}(?!=)")  # an assignment after ``.key``
_QUOTED = re.compile(r"[\"']$")
_CLOSED = re.compile(r"[\"']\s*[:,\]]")  # a dictionary's key, an argument, a subscript
_KEYWORD = re.compile(r"\s*(?::[^=\n]*)?=(?!=)")
_IN_SET_DEFAULTS = re.compile(r"set_defaults\([^)]*$")
_SETTINGS_CLASS = re.compile(r"^\s*class\s+\w*(?:Config|Cfg|Args|Options|Settings)\b", re.MULTILINE)


def value_sort(value) -> type:
    """What two places that give a switch must agree on besides its value: its type, where an int and a float of
    one value are one number (``drop=0`` and the default ``drop=0.`` decide every comparison alike), and ``False``
    is no ``0``."""
    return float if type(value) is int else type(value)


class _Sources:
    """The configuration sources of one application, each read once: the files' texts by kind, the first
    document of each YAML and JSON file (or ``_UNREADABLE``), the top-level assignments of its Python
    configuration modules, and the argparse calls of its Python files (as parsed calls)."""

    def __init__(self, folder: str, files: tuple[str, ...]):
        self.folder = folder
        self.files = files
        self.settings: list[tuple[str, object]] = []  # (file, its first document, or _UNREADABLE)
        self.choices: dict[str, frozenset] = {}  # key -> the choices a model-zoo YAML's third document lists
        self.modules: list[tuple[str, dict[str, ast.expr] | None]] = []  # config modules: (file, name -> value)
        self.python: list[tuple[str, str]] = []  # (file, text) of the other Python files
        self.scripts: list[str] = []  # the texts of the shell scripts
        self.answers: dict[tuple[str, ...], frozenset | object] = {}
        for file in files:
            text = read_text(file)
            if text is None:
                continue
            if file.endswith((".yaml", ".yml")):
                self._read_yaml(file, text)
            elif file.endswith(".json"):
                self.settings.append((file, _json(text)))
            elif file.endswith(".sh"):
                self.scripts.append(text)
            elif file.endswith(".py"):
                parts = os.path.relpath(file, folder).split(os.sep)
                if any(part in CONFIG_FOLDERS for part in parts[:-1]):
                    self.modules.append((file, _assignments(text)))
                else:
                    self.python.append((file, text))
        self.spans = {file: _argparse_calls(text) for file, text in self.python}  # their ``add_argument`` calls
        self.options: dict[str, list[ast.Call]] = {}  # key -> the ``add_argument`` calls that set it
        for spans in self.spans.values():
            for _, _, call in spans:
                for key in _destinations(call) if call is not None else ():
                    self.options.setdefault(key, []).append(call)
        digest = zlib.crc32(b"")
        for file in files:
            if file.endswith(_SETTINGS) or file.endswith(".py"):
                digest = zlib.crc32(file.encode() + (read_text(file) or "").encode("utf-8", "replace"), digest)
        self.digest = f"{digest:08x}"

    def _read_yaml(self, file: str, text: str) -> None:
        try:
            import yaml  # the ``validate`` extra: without it nothing is known from YAML
        except ImportError:
            self.settings.append((file, _UNREADABLE))
            return
        try:
            documents = list(yaml.load_all(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))
        except Exception:  # noqa: BLE001 - any file the parser refuses is one whose settings are not known
            self.settings.append((file, _UNREADABLE))
            return
        self.settings.append((file, documents[0] if documents else None))
        if len(documents) == 3 and isinstance(documents[2], dict):  # values, help texts, choices (the model zoo's)
            for key, choices in documents[2].items():
                if isinstance(choices, list) and all(type(choice) in _SCALARS for choice in choices):
                    self.choices[str(key)] = frozenset(choices)

    def values(self, keys: tuple[str, ...]):
        """The values ``keys`` can hold in a run (a frozenset of ``(type, value)`` pairs), or UNKNOWN."""
        found = self.answers.get(keys)
        if found is None:
            found = self.answers[keys] = self._values(keys)
        return found

    def _values(self, keys: tuple[str, ...]):
        key = keys[-1]
        values: set = set()
        defined = False
        for _, document in self.settings:
            if document is _UNREADABLE:
                return UNKNOWN  # (a file that cannot be read may set it: its text is not searched, YAML quotes keys)
            found = _lookup(document, keys)
            if found is _MISSING:
                continue
            if found is UNKNOWN or type(found) not in _SCALARS:
                return UNKNOWN
            values.add((value_sort(found), found))
            defined = True
        for _, assigned in self.modules:
            if assigned is None:
                return UNKNOWN
            if key in assigned:
                value = literal(assigned[key]) if len(keys) == 1 else UNKNOWN
                if value is UNKNOWN or type(value) not in _SCALARS:
                    return UNKNOWN
                values.add((value_sort(value), value))
                defined = True
        choices = self.choices.get(key) if len(keys) == 1 else None
        for call in self.options.get(key, ()) if len(keys) == 1 else ():
            option = _option(call)
            if option is UNKNOWN:
                return UNKNOWN
            default, option_choices = option
            values.add((value_sort(default), default))
            defined = True
            if option_choices is not None:
                choices = option_choices if choices is None else choices & option_choices
        if not defined:
            return UNKNOWN
        if self._overridden(key):
            if choices is None:
                return UNKNOWN
            values |= {(value_sort(choice), choice) for choice in choices}  # argparse refuses any other
        elif choices is not None and not all(value in choices for _, value in values):
            return UNKNOWN  # a default outside its own choices: not what a run is refused for, left alone
        return frozenset(values)

    def _overridden(self, key: str) -> bool:
        """Whether a run may set ``key`` some other way: a shell script passes it (``--key value``, ``--options
        key=value``), Python code passes it as an option or assigns it (``args.key = ...``, ``setattr(args, "key",
        ...)``), or a dictionary, a subscript, ``set_defaults`` or a class of settings in Python spells it. Each
        place the texts write the key is read by what stands around it."""
        dashed = key.replace("_", "-")
        words = re.compile(rf"(?<!\w){re.escape(key)}(?![\w-])" if dashed == key else
                           rf"(?<!\w)(?:{re.escape(key)}|{re.escape(dashed)})(?![\w-])")
        for text in self.scripts:
            if key in text or dashed in text:
                for match in words.finditer(text):
                    if text.endswith("--", 0, match.start()) or text.startswith("=", match.end()):
                        return True  # ``--key``, ``key=value``
        for file, text in self.python:
            if key not in text and dashed not in text:
                continue
            settings_class = _SETTINGS_CLASS.search(text) is not None
            for match in words.finditer(text):
                before, after = text[max(0, match.start() - 80):match.start()], text[match.end():match.end() + 80]
                receiver = _RECEIVER.search(before)
                if receiver is not None and receiver.group(1) in CONFIGURATION_NAMES and _WRITE.match(after):
                    return True  # ``args.key = ...``, ``self.config.key += 1``
                if (_QUOTED.search(before) and _CLOSED.match(after) or before.endswith(("'--", '"--'))) and _outside(
                        self.spans[file], match.start()):
                    return True  # ``{"key": ...}``, ``cfg["key"]``, ``setattr(args, "key", ...)``, ``"--key"``
                if _KEYWORD.match(after) and (settings_class or _IN_SET_DEFAULTS.search(before)):
                    return True  # a class of settings with a field of that name, ``parser.set_defaults(key=...)``
        return False


_UNREADABLE = object()  # a configuration file that could not be parsed
_MISSING = object()  # a key a file does not set


def _json(text: str):
    if len(text) > _MAX_JSON:
        return _UNREADABLE
    try:
        document = json.loads(text)
    except ValueError:
        return _UNREADABLE
    return document if isinstance(document, dict) else None


def _lookup(document, keys: tuple[str, ...]):
    """The value at ``keys`` in a file's document; _MISSING where the file does not set the last key; UNKNOWN where
    it sets it at another place too, or only there (a loader may flatten or nest what the code reads)."""
    if not isinstance(document, dict):
        return _MISSING
    places = _places(document, keys[-1])
    if not places:
        return _MISSING
    node = document
    for key in keys:
        if not isinstance(node, dict) or key not in node:
            return UNKNOWN
        node = node[key]
    return node if places == 1 else UNKNOWN


def _places(node, key: str, depth: int = 0) -> int:
    """How often ``key`` is a key in ``node``, at any depth (a document nested deeper than is read: twice)."""
    if depth > 16:
        return 2
    if isinstance(node, dict):
        return (key in node) + sum(_places(value, key, depth + 1) for value in node.values())
    if isinstance(node, list):
        return sum(_places(value, key, depth + 1) for value in node)
    return 0


def _assignments(text: str) -> dict[str, ast.expr] | None:
    """A configuration module's top-level ``name = value`` assignments (a name bound twice: its value is kept
    only where both agree as literals); None where it does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    found: dict[str, ast.expr] = {}
    for statement in tree.body:
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target] if isinstance(
            statement, (ast.AnnAssign, ast.AugAssign)) else []
        for target in targets:
            if isinstance(target, ast.Name):
                value = statement.value if not isinstance(statement, ast.AugAssign) else None
                earlier = found.get(target.id)
                if value is None or (target.id in found and (earlier is None or literal(earlier) != literal(value))):
                    found[target.id] = ast.Name(id=target.id, ctx=ast.Load())  # two values: not a literal
                else:
                    found[target.id] = value
    return found


def _argparse_calls(text: str) -> list[tuple[int, int, ast.Call | None]]:
    """(where it starts, where it ends, the call parsed or None) of each ``add_argument(...)`` of ``text``."""
    return [_call_at(text, match.start()) for match in _ADD_ARGUMENT.finditer(text)] if "add_argument" in text else []


def _call_at(text: str, start: int) -> tuple[int, int, ast.Call | None]:
    """The call that starts at ``start`` in ``text`` (``add_argument(...)``): its span, and the call parsed (None
    where it does not parse)."""
    depth, quote, opening = 0, "", text.index("(", start)
    position = opening
    end = min(len(text), position + 4000)
    while position < end:
        character = text[position]
        if quote:
            if character == "\\":
                position += 1
            elif text.startswith(quote, position):
                position += len(quote) - 1
                quote = ""
        elif character == "#":
            newline = text.find("\n", position)
            position = end if newline < 0 else newline
            continue
        elif character in "\"'":
            quote = text[position:position + 3] if text[position:position + 3] in ('"""', "'''") else character
            position += len(quote) - 1
        elif character in "([{":
            depth += 1
        elif character in ")]}":
            depth -= 1
            if depth == 0:
                try:
                    node = ast.parse("add_argument" + text[opening:position + 1], mode="eval").body
                except (SyntaxError, ValueError):
                    return start, position + 1, None
                return start, position + 1, node if isinstance(node, ast.Call) else None
        position += 1
    return start, end, None


def _destinations(call: ast.Call) -> set[str]:
    """The attribute an argparse option sets (``--model-type``: ``model_type``; ``dest="x"``)."""
    for keyword in call.keywords:
        if keyword.arg == "dest":
            value = literal(keyword.value)
            return {value} if isinstance(value, str) else set()
    names = [literal(argument) for argument in call.args]
    if not names or not all(isinstance(name, str) for name in names):
        return set()  # ``add_argument("--" + item, ...)``: the option of every key of a configuration
    long = [name for name in names if name.startswith("--")]
    chosen = long[0] if long else names[0]
    return {chosen.lstrip("-").replace("-", "_")}


def _option(call: ast.Call):
    """(the default, the choices or None) of an argparse option, or UNKNOWN where a run may not take its default
    (``required``, a default that is no literal, ``argparse.SUPPRESS``, ``append``)."""
    keywords = {keyword.arg: keyword.value for keyword in call.keywords if keyword.arg is not None}
    if any(keyword.arg is None for keyword in call.keywords):
        return UNKNOWN
    if "required" in keywords and literal(keywords["required"]) is not False:
        return UNKNOWN
    action = literal(keywords["action"]) if "action" in keywords else "store"
    if action in ("store_true", "store_false"):
        default = literal(keywords["default"]) if "default" in keywords else action == "store_false"
    elif action == "store" and "nargs" not in keywords and "const" not in keywords:
        default = literal(keywords["default"]) if "default" in keywords else None
    else:
        return UNKNOWN
    if default is UNKNOWN or type(default) not in _SCALARS:
        return UNKNOWN
    choices = None
    if "choices" in keywords:
        node = keywords["choices"]
        listed = [literal(element) for element in node.elts] if isinstance(node, (ast.List, ast.Tuple, ast.Set)) \
            else [UNKNOWN]
        if any(choice is UNKNOWN or type(choice) not in _SCALARS for choice in listed):
            return UNKNOWN
        choices = frozenset(listed)
    return default, choices


def _outside(spans: list[tuple[int, int, ast.Call | None]], position: int) -> bool:
    """Whether ``position`` lies outside each of the ``add_argument(...)`` calls ``spans`` (in order)."""
    at = bisect.bisect_right(spans, (position, 1 << 62)) - 1
    return at < 0 or spans[at][1] <= position


_applications: dict[str, _Sources] = {}


def _sources(path: str) -> _Sources | None:
    found = application_sources(path)
    if found is None:
        return None
    folder, files = found
    sources = _applications.get(folder)
    if sources is None or sources.files is not files:  # (listed again: its files may have changed)
        if len(_applications) >= 64:
            _applications.clear()
        sources = _applications[folder] = _Sources(folder, files)
    return sources


def configuration_keys(expr: ast.AST) -> tuple[str, ...] | None:
    """The keys an attribute read names where its object is a configuration: ``config.x`` -> ``("x",)``,
    ``cfg.model.depth`` -> ``("model", "depth")``, ``self.config.x`` (a configuration held by an instance) ->
    ``("x",)``; None for any other expression."""
    keys: list[str] = []
    node = expr
    while isinstance(node, ast.Attribute):
        keys.append(node.attr)
        node = node.value
    if not keys or not isinstance(node, ast.Name) or len(keys) > _MAX_KEYS:
        return None
    keys.reverse()
    if node.id in CONFIGURATION_NAMES:
        return tuple(keys)
    if len(keys) > 1 and keys[0] in CONFIGURATION_NAMES:
        return tuple(keys[1:])  # ``self.config.x``, ``model.cfg.x``
    return None


_reads_configuration: "weakref.WeakKeyDictionary[ast.AST, bool]" = weakref.WeakKeyDictionary()


def reads_configuration(function: ast.AST) -> bool:
    """Whether ``function`` reads an attribute of a configuration (``if config.temporal_pool:``); walked once per
    function (asked again for each class and caller that folds it)."""
    known = _reads_configuration.get(function)
    if known is None:
        known = _reads_configuration[function] = any(
            isinstance(node, ast.Attribute) and configuration_keys(node) is not None for node in ast.walk(function))
    return known


def configured_values(path: str, expr: ast.AST):
    """The values (a frozenset of ``(type, value)`` pairs) the configuration attribute ``expr``, read in the file
    at ``path``, can hold in a run of its application, or UNKNOWN (see the module's docstring)."""
    keys = configuration_keys(expr)
    if keys is None or not path:
        return UNKNOWN
    sources = _sources(path)
    return UNKNOWN if sources is None else sources.values(keys)


def configured_value(path: str, expr: ast.AST):
    """The one constant the configuration attribute ``expr`` holds in every run, or UNKNOWN."""
    values = configured_values(path, expr)
    return next(iter(values))[1] if values is not UNKNOWN and len(values) == 1 else UNKNOWN


def argument_values(path: str, expr: ast.AST):
    """The values (``(type, value)`` pairs) an argument written in the file at ``path`` can hold in a run: a
    literal's one, or those of a configuration attribute (``get_generator(args.model_type)`` with the option's
    ``choices``); else UNKNOWN."""
    value = literal(expr)
    return frozenset({(value_sort(value), value)}) if value is not UNKNOWN else configured_values(path, expr)


def argument_value(path: str, expr: ast.AST):
    """What an argument written in the file at ``path`` holds in every run: a literal, or a configuration
    attribute every source of which agrees (``Net(non_local=config.non_local)``); else UNKNOWN."""
    value = literal(expr)
    return value if value is not UNKNOWN else configured_value(path, expr)


def configuration_key(path: str) -> str:
    """A digest of the configuration sources of the application that uses the module at ``path`` (for result
    caches: a configuration, a script or an option that comes to set a key otherwise checks the module again);
    empty for a library's module."""
    sources = _sources(path)
    return "" if sources is None else sources.digest


def forget_configurations() -> None:
    """Read every application's configuration again when next asked (after its files changed)."""
    _applications.clear()
