"""Run the rules over one file: parse once, build the module's facts once, ask every enabled rule.

Both front ends call this: the flake8 plugin (with flake8's tree and lines) and ``ms-lint check``.
Nothing here raises on bad input: an internal error becomes an MS900 finding.
"""
from __future__ import annotations

import ast
from typing import Iterable, Sequence

from ms_lint.findings import Finding, compile_note
from ms_lint.model.source import may_hold_hazards, read_source
from ms_lint.settings import Settings
from ms_lint.target import SILENCED_BY

INTERNAL_ERROR = "MS900"


def internal_error(path: str, exc: BaseException) -> Finding:
    summary = (f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__).replace("\n", " ")
    if len(summary) > 200:
        summary = summary[:197] + "..."
    return _could_not(path, "check", type(exc).__name__, summary)


def _could_not(path: str, stage: str, error: str, detail: str) -> Finding:
    """MS900 on line 1: ms-lint could not ``stage`` (check, read) the file, for ``error`` (``detail``)."""
    from ms_lint.rules.ms900_internal_error import CouldNotCheck

    data = CouldNotCheck(stage=stage, error=error, detail=detail)
    return Finding(path=path, line=1, col=0, code=INTERNAL_ERROR, message=data.message(), data=data.as_data())


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


def _unrun_marked(module, findings: list[Finding]) -> list[Finding]:
    """The findings, those in code the module's application never runs (``GraphCode.never_runs``: a class or
    function no code it runs names, a module it never imports) marked as holding only with ``--ms-check-unrun``:
    every rule's hazard needs its code to run (none where the settings ask for that code too)."""
    from dataclasses import replace

    return [replace(finding, data={**finding.data, SILENCED_BY: "ms-check-unrun"})
            if finding.node is not None and module.never_runs(finding.node) else finding for finding in findings]


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
            if all(label in module.roots_elsewhere for label in function.compiled_by):
                data["compiled_elsewhere"] = True  # compiled only because graph code of another module calls it
            elif entry_points and module.mode == "graph" and module.mode_inferred and any(
                    label in module.cell_roots for label in function.compiled_by):
                data["entry_points"] = entry_points.split(", ")
            message = finding.message + compile_note(data)
            finding = replace(finding, message=message, data=data)
        result.append(finding)
    return result


def analyse(tree: ast.Module, source: str, path: str, settings: Settings, codes: Iterable[str] | None = None,
            lines: list[str] | None = None, silenced: list[Finding] | None = None):
    """(module facts, findings); the facts are None when the file was skipped or the analysis failed. ``silenced``:
    see ``check_tree``."""
    try:
        from ms_lint.model import ModuleFacts  # noqa: F401 -- the project index builds facts with it
        from ms_lint.model.project import facts_to_check, recording_lookups, remember_summary
        from ms_lint.rules import rules_for

        if not may_hold_hazards(source, path):
            return None, []
        with recording_lookups() as lookups:
            module = facts_to_check(tree, path, settings, source=source, lines=lines)
        remember_summary(module, lookups)
        findings: list[Finding] = []
        for rule in rules_for(codes):
            findings.extend(rule.check(module))
        findings = _unrun_marked(module, _with_what_compiles(module, findings))
        hidden: list[Finding] | None = None if silenced is None else []
        findings = _one_finding_per_cause(_without_silenced(findings, hidden))
        if not settings.each_line:  # the findings left out are counted per cause too, as they would be shown
            findings = collapsed_causes(module, findings)
            hidden = None if hidden is None else collapsed_causes(module, _one_finding_per_cause(hidden))
        if silenced is not None:
            silenced.extend(hidden)
        return module, findings
    except RecursionError as exc:
        return None, [internal_error(path, RecursionError(f"code nested too deeply to analyse ({exc})"))]
    except Exception as exc:  # noqa: BLE001 -- a checker exception must never abort the user's run
        return None, [internal_error(path, exc)]
    finally:
        from ms_lint.model.project import forget_full_facts

        forget_full_facts()


SYNTAX_ERROR = "E999"


def parsed(source: str, path: str, settings: Settings) -> ast.Module:
    """The tree of ``source``: that of the facts a run keeps for the file when they were made from this text (read
    when another module asked about it), else parsed now."""
    from ms_lint.model.project import kept_tree

    tree = kept_tree(path, source, settings) if path else None
    return tree if tree is not None else ast.parse(source, filename=path)


def check_source(source: str, path: str, settings: Settings, codes: Iterable[str] | None = None,
                 report_syntax_errors: bool = False, silenced: list[Finding] | None = None) -> list[Finding]:
    """Parse ``source`` and check it. A file that does not parse gives no MS finding: flake8 reports it as E999,
    and with ``report_syntax_errors`` (for front ends other than flake8) so does this function. ``silenced``: see
    ``check_tree``."""
    if not may_hold_hazards(source, path) and not report_syntax_errors:
        return []
    try:
        tree = parsed(source, path, settings)
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
        return [_could_not(path, "read", type(exc).__name__, reason)]
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


# Facts of a finding's data that say where or by what it is compiled, not what the misuse is.
_PLACE_FACTS = frozenset({"related", "compiled_by", "compiled_elsewhere", "entry_points"})


def collapsed_causes(module, findings: list[Finding]) -> list[Finding]:
    """One finding per cause: the findings of one code that share a cause (``cause_of``) reported once, at the
    first by position, which stands for the others (``findings.with_related``: their places in its data and
    message, their nodes for its fix)."""
    from ms_lint.findings import with_related

    counts: dict[str, int] = {}
    for finding in findings:
        counts[finding.code] = counts.get(finding.code, 0) + 1
    if all(count < 2 for count in counts.values()):
        return findings
    positions: dict[int, int] | None = None
    groups: dict[object, list[Finding]] = {}
    kept: list[Finding | list[Finding]] = []
    for finding in findings:
        key = None
        if counts[finding.code] > 1 and finding.node is not None:
            if positions is None:
                positions = {id(node): place for place, node in enumerate(module.index.nodes)}
            key = cause_of(module, finding, positions)
        if key is None:
            kept.append(finding)
        elif key in groups:
            groups[key].append(finding)
        else:
            groups[key] = [finding]
            kept.append(groups[key])
    return [with_related(item[0], tuple(item[1:])) if isinstance(item, list) and len(item) > 1
            else item[0] if isinstance(item, list) else item for item in kept]


def cause_of(module, finding: Finding, positions: dict[int, int]):
    """What makes two findings of one file one cause, None where a finding is its own: the rule's own answer
    (``Rule.cause``: a constant of the module several calls read), else the code, the function (or class body)
    around the finding and every fact of its data but where it lies (one misuse of one API in one function)."""
    import json

    from ms_lint.rules import RULES_BY_CODE

    rule = RULES_BY_CODE.get(finding.code)
    if rule is None:
        return None
    own = rule.cause(module, finding)
    if own is not None:
        return finding.code, "rule", own
    position = positions.get(id(finding.node))
    if position is None:
        return None
    function, owner = module.code_around(position)
    if function is None and owner is None:
        return None  # module level: each statement runs once, on its own
    facts = {key: value for key, value in finding.data.items()
             if key not in _PLACE_FACTS and key not in rule.place_facts}
    around = id(function) if function is not None else ("class", owner.name)
    return finding.code, around, json.dumps(facts, sort_keys=True, default=str), rule.cause_facts(module, finding)
