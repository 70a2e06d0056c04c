"""Run the rules over one file: parse once, build the module's facts once, ask every enabled rule.

Both front ends call this: the flake8 plugin (with flake8's tree and lines) and ``ms-lint check``.
Nothing here raises on bad input: an internal error becomes an MS900 finding.
"""
from __future__ import annotations

import ast
from typing import Iterable, Sequence

from ms_lint.findings import Finding
from ms_lint.model.source import read_source
from ms_lint.settings import Settings
from ms_lint.target import SILENCED_BY

INTERNAL_ERROR = "MS900"


def may_hold_hazards(source: str, path: str = "") -> bool:
    """Whether the file may hold a hazard; one that cannot is skipped before any analysis.

    A name resolves to a MindSpore object only through an import that spells ``mindspore`` (a ``jit`` or
    ``jit_class`` imported from a module of the project is not MindSpore's, for every check), or, inside MindSpore's
    own package (a ``path`` that names it), through a relative import. A file where no import spells it (``mindspore``
    only in a checkpoint's URL or a comment) reaches MindSpore only through the project's own classes, and holds
    graph code only as ``construct`` or ``bprop`` of a class deriving from a Cell of another module: whole words,
    which ``constructor`` or ``reconstruct`` are not. Such a file without them is not checked, even where it holds a
    subclass of the project's Cell that only overrides ``__init__``."""
    if "mindspore" in source and (_imports_mindspore(source) or "mindspore" in path):
        return True
    return _has_word(source, "construct") or _has_word(source, "bprop")


def _imports_mindspore(source: str) -> bool:
    """Whether a statement that spells ``mindspore`` may import it: ``import`` written before the word in the
    statement (``import os, mindspore``, ``try: import mindspore as ms``), or ``from`` right before it (``from
    mindspore import nn``); a comment or a string that says ``import`` before the word counts too. Only the lines
    holding the word are read, from the first line of their statement when backslashes continue it, and each part
    of the text at most once (a file of one long line holding the word thousands of times is read in one pass)."""
    start = source.find("mindspore")
    line_end = -1  # where the line of the word last read ends
    scanned = 0  # how far that word's statement has been read
    while start >= 0:
        if start > line_end:  # the word's first on its line
            line_start = source.rfind("\n", 0, start) + 1
            continues_last = False
            while line_start:  # back over the lines that a backslash continues into this one
                before = line_start - 2
                if before >= 0 and source[before] == "\r":
                    before -= 1
                if before < 0 or source[before] != "\\":
                    break
                if line_start == line_end + 1:  # the last word's line continues into this one: one statement
                    continues_last = True
                    break
                line_start = source.rfind("\n", 0, before) + 1
            if not continues_last:
                scanned = line_start
            line_end = source.find("\n", start)
            if line_end < 0:
                line_end = len(source)
        before_word = source[scanned:start]
        if "import" in before_word or before_word.replace("\\", " ").split()[-1:] == ["from"]:
            return True
        scanned = start
        start = source.find("mindspore", start + len("mindspore"))
    return False


def _has_word(text: str, word: str) -> bool:
    """Whether ``word`` stands in ``text`` as a whole word (a search by regular expression, ``\\bword\\b``, takes
    four times as long: a file is read through for it before anything else)."""
    start = text.find(word)
    while start >= 0:
        end = start + len(word)
        before, after = text[start - 1:start], text[end:end + 1]
        if not (before.isalnum() or before == "_" or after.isalnum() or after == "_"):
            return True
        start = text.find(word, end)
    return False


def internal_error(path: str, exc: BaseException) -> Finding:
    summary = (f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__).replace("\n", " ")
    if len(summary) > 200:
        summary = summary[:197] + "..."
    return Finding(
        path=path,
        line=1,
        col=0,
        code=INTERNAL_ERROR,
        message=f"ms-lint could not check this file ({summary}); please report it with the file",
        data={"error": type(exc).__name__, "detail": summary},
    )


def check_tree(
    tree: ast.Module,
    source: str,
    path: str,
    settings: Settings,
    codes: Iterable[str] | None = None,
    lines: list[str] | None = None,
    silenced: list[Finding] | None = None,
) -> list[Finding]:
    """All findings of the enabled rules (``codes``: the codes to run; default: the rules on by default; ``lines``:
    the source's lines, where the caller has them). A finding that holds only on another target (its data names the
    setting that would show it, ``ms_lint.target.SILENCED_BY``) is left out, and added to ``silenced`` if given."""
    module, findings = analyse(tree, source, path, settings, codes, lines, silenced)
    if module is not None:
        module.release()
    return findings


def _without_silenced(findings: list[Finding], silenced: list[Finding] | None) -> list[Finding]:
    if not any(SILENCED_BY in finding.data for finding in findings):
        return findings
    if silenced is not None:
        silenced.extend(finding for finding in findings if SILENCED_BY in finding.data)
    return [finding for finding in findings if SILENCED_BY not in finding.data]


def _with_what_compiles(module, findings: list[Finding]) -> list[Finding]:
    """Each finding of a rule whose claim holds only in graph code gets the roots that compile its line
    (``compiled_by``: ``Net.construct``, ``train_step``, ``Net.construct (../models/net.py)``); one in code that only
    GRAPH_MODE compiles, where the module's mode was inferred PyNative, the setting that would show it. The message
    of one compiled only from other modules names the root (``compiled by Net.construct (model.py)``); of one whose
    module runs in GRAPH_MODE only under some of its application's entry points, those (``compiled by
    infer.py``)."""
    from dataclasses import replace

    from ms_lint.rules import RULES_BY_CODE

    result = []
    entry_points = module.target.origin("compiled_by")
    for finding in findings:
        rule = RULES_BY_CODE.get(finding.code)
        function = module.graph_function_at(finding.node) if (
            rule is not None and rule.compiled_only and finding.node is not None) else None
        if function is not None and function.compiled_by:
            data = dict(finding.data)
            data["compiled_by"] = sorted(function.compiled_by)
            if function.graph_mode_only:
                data[SILENCED_BY] = "ms-mode=graph"
            message = finding.message
            if all(label in module.roots_elsewhere for label in function.compiled_by):
                # compiled only because graph code of another module calls it: say which
                roots = sorted(function.compiled_by)
                message = f"{message} (compiled by {roots[0]}" + (
                    f" and {len(roots) - 1} more)" if len(roots) > 1 else ")")
            elif entry_points and module.mode == "graph" and module.mode_inferred and any(
                    label in module.cell_roots for label in function.compiled_by):
                data["entry_points"] = entry_points.split(", ")
                message = f"{message} (compiled by {data['entry_points'][0]}" + (
                    f" and {len(data['entry_points']) - 1} more entry points)" if len(data["entry_points"]) > 1
                    else ")")
            finding = replace(finding, message=message, data=data)
        result.append(finding)
    return result


def analyse(tree: ast.Module, source: str, path: str, settings: Settings, codes: Iterable[str] | None = None,
            lines: list[str] | None = None, silenced: list[Finding] | None = None):
    """(module facts, findings); the facts are None when the file was skipped or the analysis failed. ``silenced``:
    see ``check_tree``."""
    try:
        from ms_lint.model import ModuleFacts
        from ms_lint.model.project import recording_lookups, remember_summary
        from ms_lint.rules import rules_for

        if not may_hold_hazards(source, path):
            return None, []
        with recording_lookups() as lookups:
            module = ModuleFacts(tree, path, settings, source=source, lines=lines)
        remember_summary(module, lookups)
        findings: list[Finding] = []
        for rule in rules_for(codes):
            findings.extend(rule.check(module))
        findings = _with_what_compiles(module, findings)
        return module, _one_finding_per_cause(_without_silenced(findings, silenced))
    except RecursionError as exc:
        return None, [internal_error(path, RecursionError(f"code nested too deeply to analyse ({exc})"))]
    except Exception as exc:  # noqa: BLE001 -- a checker exception must never abort the user's run
        return None, [internal_error(path, exc)]
    finally:
        from ms_lint.model.project import forget_full_facts

        forget_full_facts()


SYNTAX_ERROR = "E999"


def check_source(source: str, path: str, settings: Settings, codes: Iterable[str] | None = None,
                 report_syntax_errors: bool = False, silenced: list[Finding] | None = None) -> list[Finding]:
    """Parse ``source`` and check it. A file that does not parse gives no MS finding: flake8 reports it as E999,
    and with ``report_syntax_errors`` (for front ends other than flake8) so does this function. ``silenced``: see
    ``check_tree``."""
    if not may_hold_hazards(source, path) and not report_syntax_errors:
        return []
    try:
        tree = ast.parse(source, filename=path)
    except (SyntaxError, ValueError) as exc:
        if not report_syntax_errors:
            return []
        line = getattr(exc, "lineno", None) or 1
        column = max((getattr(exc, "offset", None) or 1) - 1, 0)
        reason = getattr(exc, "msg", None) or str(exc)
        return [Finding(path, line, column, SYNTAX_ERROR, f"{type(exc).__name__}: {reason}",
                        data={"error": type(exc).__name__, "detail": reason})]
    except RecursionError as exc:
        return [internal_error(path, RecursionError(f"code nested too deeply to parse ({exc})"))]
    except MemoryError:
        # CPython's parser raises a bare MemoryError when its own stack overflows on deeply nested code.
        return [internal_error(path, MemoryError("code nested too deeply to parse (the parser ran out of memory)"))]
    return check_tree(tree, source, path, settings, codes, silenced=silenced)


DECODE_ERROR = "E902"


def decode_error(path: str, data: bytes, exc: Exception) -> Finding:
    """flake8's one-line E902 for a file Python cannot decode, on the line of the first undecodable byte."""
    line = data[:exc.start].count(b"\n") + 1 if isinstance(exc, UnicodeDecodeError) else 1
    return Finding(path, line, 0, DECODE_ERROR, f"{type(exc).__name__}: {exc}",
                   data={"error": type(exc).__name__, "detail": str(exc)})


def check_file(path: str, settings: Settings, codes: Iterable[str] | None = None) -> list[Finding]:
    try:
        source = read_source(path)
    except OSError as exc:
        # Not a fault of ms-lint: say why the file could not be read (a directory, a symlink loop, permissions).
        reason = f"{type(exc).__name__}: {exc.strerror}" if exc.strerror else f"{type(exc).__name__}: {exc}"
        return [Finding(path=path, line=1, col=0, code=INTERNAL_ERROR,
                        message=f"ms-lint could not read this file ({reason})",
                        data={"error": type(exc).__name__, "detail": reason})]
    return check_source(source, path, settings, codes)


def _one_finding_per_cause(findings: Sequence[Finding]) -> list[Finding]:
    """Drop a finding when a rule that replaces its code reported the same node."""
    from ms_lint.rules import RULES_BY_CODE

    replaced: set[tuple[int, str]] = set()
    for finding in findings:
        rule = RULES_BY_CODE.get(finding.code)
        if rule is not None and finding.node is not None:
            for code in rule.replaces:
                replaced.add((id(finding.node), code))
    kept = [f for f in findings if f.node is None or (id(f.node), f.code) not in replaced]
    kept = _without_nested_causes(kept)
    kept.sort(key=lambda f: (f.line, f.col, f.code))
    return _unique(kept)


def _without_nested_causes(findings: list[Finding]) -> list[Finding]:
    """Drop a finding that lies inside the node of a finding whose rule covers its code (``covers_nested``)."""
    from ms_lint.rules import RULES_BY_CODE

    covering = [(f, RULES_BY_CODE[f.code].covers_nested) for f in findings
                if f.node is not None and f.code in RULES_BY_CODE and RULES_BY_CODE[f.code].covers_nested]
    if not covering:
        return findings

    def inside(inner: Finding, outer: Finding) -> bool:
        a, b = inner.node, outer.node
        return inner is not outer and hasattr(a, "end_lineno") and hasattr(b, "end_lineno") and (
            (b.lineno, b.col_offset) <= (a.lineno, a.col_offset)
            and (a.end_lineno, a.end_col_offset) <= (b.end_lineno, b.end_col_offset))

    return [f for f in findings
            if not any(f.code in codes and inside(f, outer) for outer, codes in covering)]


def _unique(findings: list[Finding]) -> list[Finding]:
    seen = set()
    result = []
    for finding in findings:
        key = (finding.line, finding.col, finding.code)
        if key not in seen:
            seen.add(key)
            result.append(finding)
    return result
