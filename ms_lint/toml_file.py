"""Reading a TOML file (``pyproject.toml``): ``tomllib``, or ``tomli`` on Python 3.10; below the configuration and
the target, which both read ``pyproject.toml``."""
from __future__ import annotations


class TomlError(ValueError):
    """A TOML file that cannot be read; the message names the file and why."""


def read_toml(path: str) -> dict:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        try:
            import tomli as tomllib
        except ModuleNotFoundError:
            raise TomlError(f"{path}: reading pyproject.toml on Python 3.10 needs the tomli package") from None
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except OSError as exc:
        raise TomlError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise TomlError(f"{path}: not valid TOML ({exc})") from None
