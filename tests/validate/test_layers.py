"""The validator's place among the layers: it reads findings and the lint library, never the command line."""
from __future__ import annotations

import ast
from pathlib import Path

import ms_lint.validate

VALIDATE = Path(ms_lint.validate.__file__).parent


def imported_modules(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_no_validator_module_imports_the_command_line():
    importing = sorted(str(path.relative_to(VALIDATE)) for path in VALIDATE.rglob("*.py")
                       if any(name == "ms_lint.commands" or name.startswith("ms_lint.commands.")
                              for name in imported_modules(path)))
    assert importing == []


def test_no_validator_module_is_longer_than_800_lines():
    long = {str(path.relative_to(VALIDATE)): n for path in VALIDATE.rglob("*.py")
            if (n := len(path.read_text().splitlines())) > 800}
    assert long == {}
