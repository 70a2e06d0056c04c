"""Where a file lives in its project: its import root and module name, the project root, and the validator's
configuration (``[tool.ms-lint.validate]`` in the project's ``pyproject.toml``)."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import lru_cache

EXAMPLES_FILE_NAME = "ms_lint_examples.py"
CACHE_DIR_NAME = ".ms_lint_cache"

_PROJECT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", ".git", EXAMPLES_FILE_NAME)
_IDENTIFIER = re.compile(r"^[A-Za-z_]\w*$")


class ProjectError(ValueError):
    """A path or configuration value ms-lint cannot use; the message is one line for the user."""


@dataclass(frozen=True)
class ModuleLocation:
    """How the worker imports a file: ``import_root`` goes on sys.path, then ``namespace_roots`` (where its imports
    find namespace packages, as ms-lint's checks find them), then ``import module``."""

    path: str
    module: str
    import_root: str
    project_root: str
    namespace_roots: tuple[str, ...] = ()


def locate_module(path: str) -> ModuleLocation:
    """The module name and import root of ``path``: walk up while the directory is a package (has
    ``__init__.py``) or a folder without one inside a package (``_namespace_portions``); the directory above the
    top package is the import root. A plain script's import root is its own directory. A module in such a folder
    also finds its neighbours (``import sibling``, as when run as a script): its folder comes last in
    ``namespace_roots``."""
    path = os.path.abspath(path)
    directory, file_name = os.path.split(path)
    stem = file_name[:-3] if file_name.endswith(".py") else file_name
    parts = [] if stem == "__init__" else [stem]
    in_portion = False
    while True:
        while os.path.isfile(os.path.join(directory, "__init__.py")):
            directory, package = os.path.split(directory)
            parts.insert(0, package)
            if not package:
                break
        portions = _namespace_portions(directory)
        if not portions:
            break
        in_portion = in_portion or directory == os.path.dirname(path)
        parts[:0] = portions
        for _ in portions:
            directory = os.path.dirname(directory)
    if not parts or not all(_IDENTIFIER.match(part) for part in parts):
        # A file whose name cannot be imported ("my-script.py") is loaded from its path under a safe name.
        parts = [re.sub(r"\W", "_", stem) or "module"]
        directory = os.path.dirname(path)
    from ms_lint.model.project import namespace_roots

    return ModuleLocation(
        path=path,
        module=".".join(parts),
        import_root=directory,
        project_root=find_project_root(directory),
        namespace_roots=namespace_roots(directory) + ((os.path.dirname(path),) if in_portion else ()),
    )


# The most folders without ``__init__.py`` between a module and the regular package that holds them.
MAX_PORTIONS = 2


def _namespace_portions(directory: str) -> list[str]:
    """The folders from ``directory`` up that have no ``__init__.py`` and sit in a regular package (PEP 420: Python
    imports ``pkg/models/common/net.py``, ``pkg/models/__init__.py`` beside no ``common/__init__.py``, as
    ``pkg.models.common.net``), nearest last; none when no regular package holds them within ``MAX_PORTIONS``, or
    when one of them is a project's root (a project kept inside another's package, like a test's sample project,
    imports from its own root)."""
    portions: list[str] = []
    for _ in range(MAX_PORTIONS):
        parent, name = os.path.split(directory)
        if not name or not _IDENTIFIER.match(name) or parent == directory or any(
                os.path.exists(os.path.join(directory, marker)) for marker in _PROJECT_MARKERS):
            return []
        portions.insert(0, name)
        if os.path.isfile(os.path.join(parent, "__init__.py")):
            return portions
        directory = parent
    return []


@lru_cache(maxsize=256)
def find_project_root(import_root: str) -> str:
    """The nearest directory at or above ``import_root`` that looks like a project root (``pyproject.toml``,
    ``setup.cfg``, ``setup.py``, ``.git`` or an examples file); the import root itself if there is none."""
    directory = import_root
    while True:
        if any(os.path.exists(os.path.join(directory, marker)) for marker in _PROJECT_MARKERS):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return import_root
        directory = parent


@dataclass(frozen=True)
class ValidateConfig:
    """``[tool.ms-lint.validate]`` of one project. Every key is optional.

    ``examples`` (path relative to the project root), ``device``, ``syntax-level``, ``timeout`` (seconds),
    ``jobs``, ``memory-limit`` (MB), and ``inputs``: a table from target (``"pkg.module:Class"``) to a list of
    input specs, each ``"float32[None, 16]"`` (dtype and shape; ``None`` or ``-1`` for a dynamic dimension) or
    just ``"float32"`` (dynamic rank).
    """

    project_root: str
    examples: str | None = None
    device: str | None = None
    syntax_level: str | None = None
    timeout: float | None = None
    jobs: int | None = None
    memory_limit: int | None = None
    inputs: dict = field(default_factory=dict)


@lru_cache(maxsize=64)
def load_config(project_root: str) -> ValidateConfig:
    pyproject = os.path.join(project_root, "pyproject.toml")
    if not os.path.isfile(pyproject):
        return ValidateConfig(project_root=project_root)
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        try:
            import tomli as tomllib  # type: ignore[no-redef]
        except ModuleNotFoundError:
            return ValidateConfig(project_root=project_root)
    try:
        with open(pyproject, "rb") as handle:
            data = tomllib.load(handle)
    except (OSError, ValueError) as exc:
        raise ProjectError(f"{pyproject}: cannot read it ({exc})") from None
    table = data.get("tool", {}).get("ms-lint", {}).get("validate", {})
    if not isinstance(table, dict):
        raise ProjectError(f"{pyproject}: [tool.ms-lint.validate] must be a table")
    known = {"examples", "device", "syntax-level", "timeout", "jobs", "memory-limit", "inputs"}
    unknown = sorted(set(table) - known)
    if unknown:
        raise ProjectError(
            f"{pyproject}: unknown key(s) in [tool.ms-lint.validate]: {', '.join(unknown)} "
            f"(known: {', '.join(sorted(known))})"
        )
    inputs = table.get("inputs", {})
    if not isinstance(inputs, dict):
        raise ProjectError(f"{pyproject}: [tool.ms-lint.validate.inputs] must map targets to lists of specs")
    for target, specs in inputs.items():
        if not isinstance(specs, list):
            raise ProjectError(f"{pyproject}: inputs for {target!r} must be a list of specs like \"float32[2, 16]\"")
        for spec in specs:
            parse_input_spec(spec, where=f"{pyproject}: inputs for {target!r}")
    return ValidateConfig(
        project_root=project_root,
        examples=_optional(table, "examples", str, pyproject),
        device=_optional(table, "device", str, pyproject),
        syntax_level=_optional(table, "syntax-level", str, pyproject),
        timeout=_optional(table, "timeout", (int, float), pyproject),
        jobs=_optional(table, "jobs", int, pyproject),
        memory_limit=_optional(table, "memory-limit", int, pyproject),
        inputs=dict(inputs),
    )


def _optional(table: dict, key: str, kind, pyproject: str):
    value = table.get(key)
    if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
        raise ProjectError(f"{pyproject}: [tool.ms-lint.validate] {key} has the wrong type ({value!r})")
    return value


_DTYPES = {
    "float16", "float32", "float64", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "bool",
    "complex64", "complex128",
}
_SPEC = re.compile(r"^\s*(?P<dtype>[a-z0-9_]+)\s*(?:\[(?P<shape>[^\]]*)\])?\s*$")


def parse_input_spec(spec: object, where: str = "input spec") -> tuple[str, list[int] | None]:
    """``"float32[None, 16]"`` -> ``("float32", [-1, 16])``; ``"float32"`` -> ``("float32", None)`` (any rank)."""
    if not isinstance(spec, str):
        raise ProjectError(f"{where}: {spec!r} is not a string like \"float32[2, 16]\"")
    match = _SPEC.match(spec)
    if not match or match.group("dtype") not in _DTYPES:
        raise ProjectError(
            f"{where}: {spec!r} is not a spec like \"float32[2, 16]\" (dtypes: {', '.join(sorted(_DTYPES))})"
        )
    shape_text = match.group("shape")
    if shape_text is None:
        return match.group("dtype"), None
    shape: list[int] = []
    for item in filter(None, (part.strip() for part in shape_text.split(","))):
        if item in ("None", "-1", "?"):
            shape.append(-1)
        elif item.isdigit():
            shape.append(int(item))
        else:
            raise ProjectError(f"{where}: dimension {item!r} of {spec!r} must be a number, None or -1")
    return match.group("dtype"), shape


def display_path(path: str, start: str | None = None) -> str:
    """``path`` relative to the working directory when it lies below it, else absolute."""
    start = start or os.getcwd()
    try:
        relative = os.path.relpath(path, start)
    except ValueError:
        return path
    return path if relative.startswith("..") else relative
