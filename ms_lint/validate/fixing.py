"""Getting past an earlier fixable finding (runs in the worker).

When the compile stops at a line that holds a finding whose rule has an automatic fix that keeps every line where
it is (MS601's ``.transpose(a, b)`` -> ``.swapaxes(a, b)``), the worker applies that fix to the module's source in
memory and compiles again, so the findings after that line can be decided. The fixed source is executed as a copy
of the module under the same file name, and served to ``inspect`` (which MindSpore's parser reads the source
through) from ``linecache``, so error locations keep naming the user's file and lines; the file on disk and the
imported module are left as they are.
"""
from __future__ import annotations

import ast
import importlib.util
import linecache
from contextlib import contextmanager

MAX_FIXES = 6  # compiles after the first, each with one more line fixed


def fix_at_line(source: str, path: str, line: int, syntax_level: str) -> tuple[str, list[str]] | None:
    """``(fixed source, codes fixed)`` for the findings on ``line`` whose fix changes that line only; None when
    there is none."""
    from ms_lint.fixes import fix_source
    from ms_lint.settings import Settings

    def on_line(findings):
        return [finding for finding in findings if finding.line == line]

    try:
        settings = Settings(syntax_level=syntax_level)
        before = [finding.code for finding in _findings_on(source, path, line, settings)]
        result = fix_source(source, path, settings, accept=on_line)
    except Exception:  # noqa: BLE001 -- a static-analysis failure: nothing to fix
        return None
    if not result.changed or not _only_line_changed(source, result.fixed, line):
        return None
    after = {finding.code for finding in on_line(result.remaining)}
    fixed = [code for code in dict.fromkeys(before) if code not in after]
    return (result.fixed, fixed) if fixed else None


def _findings_on(source: str, path: str, line: int, settings) -> list:
    from ms_lint.engine import analyse

    _, findings = analyse(ast.parse(source, filename=path), source, path, settings)
    return [finding for finding in findings if finding.line == line]


def _only_line_changed(before: str, after: str, line: int) -> bool:
    old, new = before.splitlines(), after.splitlines()
    return len(old) == len(new) and all(a == b for number, (a, b) in enumerate(zip(old, new), start=1)
                                        if number != line)


@contextmanager
def served_source(path: str, source: str):
    """Within the block, ``inspect`` and ``linecache`` read ``source`` for ``path`` (an entry without a
    modification time is never checked against the file)."""
    saved = linecache.cache.get(path)
    linecache.cache[path] = (len(source), None, source.splitlines(keepends=True), path)
    try:
        yield
    finally:
        if saved is None:
            linecache.cache.pop(path, None)
        else:
            linecache.cache[path] = saved


def load_copy(name: str, path: str, source: str):
    """A new module object for ``name`` executed from ``source`` under the file name ``path`` (relative imports
    resolve as for the original); ``sys.modules`` keeps the original."""
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    exec(compile(source, path, "exec"), vars(module))  # noqa: S102 -- the user's own module, one line fixed
    return module


def resolve(module, qualname: str):
    obj = module
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj
