"""Which files ``ms-lint check`` checks: flake8's patterns (``--exclude``, ``--extend-exclude``, ``--filename``),
and, as ruff does by default, nothing that git ignores and no virtual environment or build output.

What git ignores is asked of git itself (``git ls-files --others --ignored --exclude-standard --directory``), once
per directory named on the command line: that is git's own answer (nested ``.gitignore`` files, negations,
``.git/info/exclude``, the global excludes file) for about 10 ms, with no dependency to install. As in ruff, a
``.gitignore`` outside a git work tree means nothing, and without a ``git`` executable nothing is skipped for it.

Files and directories named on the command line are always checked (unless flake8's excludes match them, as in
flake8), except with ``force_exclude``, which applies the .gitignore and virtual-environment skips to them too
(for pre-commit, which passes every changed file by name).
"""
from __future__ import annotations

import logging
import os
import subprocess
from typing import Iterator, Sequence

STDIN = "-"
# Skipped by name anywhere below the paths given (ruff's defaults for environments and build output), as is every
# directory that holds a ``pyvenv.cfg`` (a virtual environment, whatever its name).
ENVIRONMENT_DIRECTORIES = frozenset({".venv", "venv", "site-packages", "build", "dist"})
_LOG = logging.getLogger(__name__)


def is_environment(directory: str) -> bool:
    """A virtual environment or build output: by its name, or by the ``pyvenv.cfg`` that every venv holds."""
    return (os.path.basename(os.path.normpath(directory)) in ENVIRONMENT_DIRECTORIES
            or os.path.isfile(os.path.join(directory, "pyvenv.cfg")))


def git_work_tree(directory: str) -> str | None:
    """The top of the git work tree holding ``directory`` (the nearest parent with ``.git``), or None."""
    current = os.path.abspath(directory)
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def git_ignored(directory: str) -> tuple[frozenset[str], frozenset[str]] | None:
    """``(files, directories)`` git ignores under ``directory``, as absolute paths; None outside a work tree or
    when git cannot say (no git executable, a repository git refuses to read)."""
    top = git_work_tree(directory)
    if top is None:
        return None
    relative = os.path.relpath(os.path.abspath(directory), top)
    command = ["git", "-C", top, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory",
               "--", relative]
    try:
        completed = subprocess.run(command, capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    if completed.returncode != 0:
        return None
    files, directories = set(), set()
    for entry in completed.stdout.decode("utf-8", errors="surrogateescape").split("\0"):
        if not entry:
            continue
        path = os.path.normpath(os.path.join(top, entry))
        (directories if entry.endswith("/") else files).add(path)
    return frozenset(files), frozenset(directories)


def discover_files(
    paths: Sequence[str],
    *,
    filename_patterns: Sequence[str],
    exclude: Sequence[str],
    stdin_display_name: str = "stdin",
    respect_gitignore: bool = True,
    force_exclude: bool = False,
) -> list[str]:
    """The files to check, each once, in order (``-`` stays ``-``)."""
    from flake8 import utils

    def excluded(path: str) -> bool:
        if path == STDIN:
            if stdin_display_name == "stdin":
                return False
            path = stdin_display_name
        return utils.matches_filename(path, patterns=exclude, log_message='"%(path)s" has %(whether)sbeen excluded',
                                      logger=_LOG)

    found: list[str] = []
    for path in paths or ["."]:
        if excluded(path):
            continue
        if path == STDIN or not os.path.isdir(path):
            if path == STDIN or not (force_exclude and respect_gitignore and _skipped_by_default(path)):
                found.append(path)
            continue
        if force_exclude and respect_gitignore and _skipped_by_default(path, is_directory=True):
            continue
        ignored = git_ignored(path) if respect_gitignore else None
        found.extend(_walk(path, excluded, filename_patterns, respect_gitignore, ignored))
    return list(dict.fromkeys(found))


def _skipped_by_default(path: str, is_directory: bool = False) -> bool:
    """For ``force_exclude``: a path named on the command line that a walk would have skipped."""
    absolute = os.path.abspath(path)
    parent = absolute if is_directory else os.path.dirname(absolute)
    # Inside a virtual environment or build output, at any depth.
    current = parent
    while True:
        if is_environment(current):
            return True
        up = os.path.dirname(current)
        if up == current:
            break
        current = up
    ignored = git_ignored(parent)
    if ignored is None:
        return False
    files, directories = ignored
    if absolute in files or absolute in directories:
        return True
    return any(absolute.startswith(directory + os.sep) for directory in directories)


def _walk(top: str, excluded, filename_patterns, respect_gitignore: bool,
          ignored: tuple[frozenset[str], frozenset[str]] | None) -> Iterator[str]:
    from flake8 import utils

    ignored_files, ignored_directories = ignored or (frozenset(), frozenset())
    for root, directories, files in os.walk(top):
        kept = []
        for directory in directories:
            joined = os.path.join(root, directory)
            if excluded(joined):
                continue
            if respect_gitignore and (is_environment(joined) or os.path.abspath(joined) in ignored_directories):
                continue
            kept.append(directory)
        directories[:] = kept
        for name in files:
            joined = os.path.join(root, name)
            if excluded(joined) or not utils.fnmatch(joined, filename_patterns):
                continue
            if ignored_files and os.path.abspath(joined) in ignored_files:
                continue
            yield joined
