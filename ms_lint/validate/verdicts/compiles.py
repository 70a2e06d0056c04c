"""Verdicts from a build or a compile: where the error was raised or the compiler points, and whether its kind
is the rule's; a compile that passed, with the finding's line shown to be in the graph or not."""
from __future__ import annotations

import ast
import linecache
import re
from dataclasses import replace

from ms_lint.findings import Finding
from ms_lint.validate.expectations import (
    COMPILE,
    CONSTRUCTION,
    OUTPUT_PROBE,
    PARAMETER_PROBE,
    RANDOMNESS_PROBE,
    SILENT,
    STATE_PROBE,
    Expectation,
    expectation_for,
    names_attribute,
    unbound_in,
    unbound_name,
)
from ms_lint.validate.fallbacks import missing_kernel
from ms_lint.validate.locations import same_file
from ms_lint.validate.verdicts import probed
from ms_lint.validate.verdicts.base import (
    CONFIRMED,
    CONFIRMED_BY_PROBE,
    INCONCLUSIVE,
    NOT_APPLICABLE,
    NOT_REPRODUCED,
    Verdict,
    raise_site,
)


def left_at_none(context, first: str, location) -> str:
    """`` (`to_mask` was left at its default None: ...)`` when a None in the error comes from a ``construct``
    argument the compile did not pass, named on the failing line."""
    if "NoneType" not in first or context.outcome.instance == "example":
        return ""
    names = context.outcome.left_at_none or []
    text = linecache.getline(location.path, location.start)
    named = [name for name in names if re.search(rf"\b{re.escape(name)}\b", text)]
    if not named:
        return ""
    return (f" (`{named[0]}` was left at its default None: register an example that passes "
            f"{'it' if len(named) == 1 else 'them'})")


def frontend_passed(context, finding: Finding, kernel: str) -> Verdict:
    """The compile failed at kernel selection, in the backend: the frontend had parsed and type-inferred the
    whole graph, so a finding whose failure the frontend raises (every compile check) is decided as if it
    compiled; what needs the graph to run (the probes) stays undecided."""
    outcome = replace(context.outcome, status="ok", error=None, compiled=True, compile_log=[])
    verdict = context.with_outcome(outcome, context.level).verdict_for(finding)
    backend = (f"the frontend compiled the graph, then the {context.device} backend has no kernel for {kernel} "
               f"(the code targets another device)")
    if verdict.message.startswith("with "):
        # Decided by a retry that switched the line on: the default compile only left it out.
        verdict.notes.append(f"the default compile: {backend}")
        return verdict
    if verdict.verdict == INCONCLUSIVE:
        verdict.message = f"{verdict.message} ({backend})"
    else:
        verdict.message = f"{backend}; {verdict.message}"
    verdict.compiler_message = context.first_line()
    return verdict


def construction_failed(context, finding: Finding, expectation: Expectation, stage: str) -> Verdict:
    error = context.error or {}
    first = context.first_line()
    kind_matches = expectation.error_matches(error.get("type", ""), error.get("message", ""))
    if expectation.check == CONSTRUCTION and kind_matches and _raised_through_line(error, finding):
        return context.make(finding, CONFIRMED, first, compiler_message=first)
    named = _named_attribute(error.get("message", "") or first)
    # The attribute the error names is the finding's when its line uses it and its data names it.
    names_this_finding = not named or (_line_mentions(finding, named) and names_attribute(finding, named))
    if kind_matches and _raised_at_line(error, finding) and names_this_finding:
        # The finding's own error, raised at its line by code the constructor runs (a method MindSpore's tensors
        # lack, PyTorch's sizes to ops.zeros): it fails there first.
        return context.make(finding, CONFIRMED, f"{first} (raised at this line while building the instance)",
                            compiler_message=first, compiler_location=raise_site(error) or None)
    kernel = missing_kernel(error.get("message") or first)
    if kernel and not (expectation.check == CONSTRUCTION and kind_matches):
        raised_at = raise_site(error)
        return context.make(
            finding, INCONCLUSIVE,
            f"this MindSpore has no {context.device} kernel for {kernel}, which building the Cell runs"
            + (f" (at {raised_at})" if raised_at else "")
            + ": the code targets another device; validate there with --device Ascend or GPU",
            compiler_message=first,
        )
    who = "the example" if stage == "example" else (
        context.outcome.built or f"{context.job.qualname}() (no arguments)")
    if stage != "example" and context.outcome.tried and len(context.outcome.tried) > 1:
        who += f" (and {len(context.outcome.tried) - 1} other way(s) of building it)"
    raised_at = raise_site(error)
    where = f" at {raised_at}" if raised_at else ""
    return context.make(
        finding, INCONCLUSIVE, f"{who} raised {first}{where}, so nothing could be compiled",
        compiler_message=first,
        example=context.example_text() if stage == "construction" else None,
    )


def compile_failed(context, finding: Finding, expectation: Expectation) -> Verdict:
    error = context.error or {}
    first = context.first_line()
    kind_matches = expectation.error_matches(error.get("type", ""), error.get("message", ""))
    unbound = unbound_name(error.get("message", "")) if finding.code == "MS116" else None
    if unbound is not None and unbound_in(finding) != unbound:
        kind_matches = False  # the name MindSpore found unbound is another finding's
    at_line = [loc for loc in context.user_locations if loc.start == finding.line]
    around = [loc for loc in context.user_locations if loc.contains(finding.line)]
    if at_line and _on_definition(finding) and not kind_matches:
        at_line = []  # a ``def`` line is where any error of the function's signature points, not only the rule's
    if at_line:
        return context.make(finding, CONFIRMED, first, compiler_message=first,
                            compiler_location=context.location_text(at_line[0]))
    graph = _graph_of_definition(finding, error.get("message", ""))
    if graph and kind_matches:
        # A finding on a ``def`` line (MS119) whose function's graph the error names: MindSpore 2.10 may print
        # the traceback of an earlier failed compile of the same process next to it, so lines do not tell.
        return context.make(finding, CONFIRMED, f"{first} (the error names {graph})",
                            compiler_message=first)
    named = _named_attribute(error.get("message", "") or first)
    if named and kind_matches and _line_mentions(finding, named):
        return context.make(finding, CONFIRMED, f"{first} (the error names .{named}, which this line uses)",
                            compiler_message=first)
    # An error naming an attribute that another finding's line uses is that finding's, not this one's; so is an
    # error located at the line of another finding whose kind of error it is (an MS108 write at its own line does
    # not confirm an MS103 further down because both rules' messages speak of member attributes; one output type
    # built from tensors is not another) -- but for a finding on a ``def`` line of the same rule, since
    # MindSpore 2.10 may print an earlier compile's traceback with the error;
    # so is an error naming the graph of the method another finding's ``def`` line starts (construct's MS119 is
    # not the MS119 of the bprop beside it).
    elsewhere = named and any(other is not finding and _line_mentions(other, named) for other in context.job.findings)
    elsewhere = elsewhere or any(other is not finding and _graph_of_definition(other, error.get("message", ""))
                                 for other in context.job.findings)
    elsewhere = elsewhere or any(
        (other.code != finding.code or not _on_definition(finding)) and other.line != finding.line
        and any(location.start == other.line for location in context.user_locations)
        and expectation_for(other.code).error_matches(error.get("type", ""), error.get("message", ""))
        for other in context.job.findings)
    if kind_matches and not elsewhere and (around or expectation.located_anywhere(finding)
                                           or not context.user_locations):
        location = (around or context.user_locations or [None])[0]
        return context.make(finding, CONFIRMED, first, compiler_message=first,
                            compiler_location=context.location_text(location))
    if expectation.check == PARAMETER_PROBE:
        by_probe = probed.parameter_verdict(context, finding, compiled=False)
        if by_probe.verdict == CONFIRMED_BY_PROBE:
            by_probe.compiler_message = first
            return by_probe
    if context.user_locations:
        # The locations run from construct inwards: the innermost one at another finding, else the innermost.
        owned = [(location, f) for location in reversed(context.user_locations) for f in context.job.findings
                 if f is not finding and location.start == f.line]
        location, owner = owned[0] if owned else (context.user_locations[-1], None)
        if owner is not None:
            message = (f"compilation stopped earlier, at line {location.start} ({owner.code}), before "
                       f"reaching this line")
        else:
            message = f"the compile failed at line {location.start}, not at this finding: {first}"
            message += left_at_none(context, first, location)
        return context.make(finding, INCONCLUSIVE, message, compiler_message=first,
                            compiler_location=context.location_text(location))
    message = f"the compile failed with an error unrelated to this finding: {first}"
    built_by_us = context.outcome.instance not in (None, "example")
    if built_by_us:
        message += " (placeholder inputs may not fit this Cell: register an example with real shapes)"
    return context.make(finding, INCONCLUSIVE, message, compiler_message=first,
                        example=context.example_text() if built_by_us else None)


def compiled(context, finding: Finding, expectation: Expectation) -> Verdict:
    where = f"compiles under {context.level.upper()} on {context.device}"
    reach = (context.outcome.reach or {}).get(str(finding.line)) or {}
    if reach.get("reached") is True:
        # The evidence: every constant condition over the line held on the compiled instance.
        where += f" with line {finding.line} in the graph"
    elif ((context.outcome.markers or {}).get(str(finding.line)) or {}).get("in_graph"):
        where += (f" with line {finding.line} in the graph (the compile stopped there with the line replaced by a "
                  f"call that raises when compiled)")
    if expectation.check == PARAMETER_PROBE:
        return probed.parameter_verdict(context, finding, compiled=True)
    if expectation.check == RANDOMNESS_PROBE:
        return probed.randomness_verdict(context, finding)
    if expectation.check == OUTPUT_PROBE:
        return probed.output_verdict(context, finding)
    if expectation.check == STATE_PROBE:
        return probed.state_verdict(context, finding)
    if expectation.check == SILENT:
        return context.make(finding, NOT_APPLICABLE, f"{where}, as expected: {expectation.silent_note}")
    if expectation.check == COMPILE and not expectation.expected_to_fail(context.level):
        if expectation.silent:
            return context.make(finding, NOT_APPLICABLE, f"{where}, as expected: {expectation.silent_note}")
        note = f" ({expectation.silent_note})" if expectation.silent_note else ""
        return context.make(finding, NOT_REPRODUCED, f"{where}{note}")
    return context.make(finding, NOT_REPRODUCED, where)


def _graph_of_definition(finding: Finding, message: str) -> str | None:
    """What of the method whose ``def`` line ``finding`` sits on the error message names: ``the graph of
    Class.method`` (``FunctionGraph : pkg_module_Class_method_20``), or one of its inputs when the method is
    ``construct`` (``Miss argument input for parameter:scale``: only the graph a compile starts from takes
    inputs); None when it names neither."""
    method = _defined_at(finding)
    if method is None or not finding.scope:
        return None
    owner = finding.scope.split(".")[-1]
    graph = re.search(r"FunctionGraph(?: ID)? : (\S+)", message)
    if graph is not None and f"_{owner}_{method}_" in graph.group(1) + "_":
        return f"the graph of {owner}.{method}"
    missing = re.search(r"Miss argument input for parameter:\s*(\w+)", message)
    if missing is not None and method == "construct" \
            and missing.group(1) in _parameters_of_definition(finding.path, finding.line):
        return f"`{missing.group(1)}`, an input of {owner}.{method}"
    return None


def _defined_at(finding: Finding) -> str | None:
    """The name of the function whose ``def`` line ``finding`` sits on; None when it sits on another line."""
    method = re.match(r"\s*(?:async\s+)?def (\w+)", linecache.getline(finding.path, finding.line))
    return method.group(1) if method else None


def _on_definition(finding: Finding) -> bool:
    return _defined_at(finding) is not None


def _parameters_of_definition(path: str, line: int) -> frozenset[str]:
    """The parameter names of the function defined at ``line`` of ``path``, its header read up to the colon."""
    header = []
    for number in range(line, line + 40):
        text = linecache.getline(path, number)
        if not text:
            break
        header.append(text.strip())
        try:
            definition = ast.parse(" ".join(header).removeprefix("async ") + " pass").body[0]
        except SyntaxError:
            continue
        arguments = definition.args
        return frozenset(argument.arg for argument in (*arguments.posonlyargs, *arguments.args,
                                                       *arguments.kwonlyargs, arguments.vararg, arguments.kwarg)
                         if argument is not None)
    return frozenset()


def _named_attribute(message: str) -> str | None:
    """The attribute an AttributeError-like compile error names (``has no attribute '_idx'``)."""
    match = re.search(r"attribute[s]?(?: named)?:? ['\"](\w+)['\"]", message or "")
    return match.group(1) if match else None


def _line_mentions(finding: Finding, attribute: str) -> bool:
    text = linecache.getline(finding.path, finding.line)
    return bool(re.search(rf"\.{re.escape(attribute)}\b", text))


def _raised_at_line(error: dict, finding: Finding) -> bool:
    frames = (error or {}).get("traceback") or []
    if not frames or not isinstance(frames[-1], (list, tuple)):
        return False
    return frames[-1][1] == finding.line and same_file(frames[-1][0], finding.path)


def _raised_through_line(error: dict, finding: Finding) -> bool:
    """Whether building raised in a call made at the finding's line, or at no line of its file that the traceback
    shows (an example's error: it names no line); an error raised at another line of the file is that line's."""
    frames = [frame for frame in (error or {}).get("traceback") or []
              if isinstance(frame, (list, tuple)) and len(frame) >= 2 and same_file(frame[0], finding.path)]
    return not frames or any(frame[1] == finding.line for frame in frames)
