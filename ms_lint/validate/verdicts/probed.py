"""Verdicts from the probes, which run what compiles: parameters lost in plain containers, random values drawn
once, a dict output, state a host write never reaches; a type built alone, a host method called, a name looked up
and a method called on a bare tensor on the installed MindSpore."""
from __future__ import annotations

from ms_lint.findings import Finding
from ms_lint.validate.expectations import (
    container_written,
    dict_consumer,
    expectation_for,
    forward_count,
    left_out_parameters,
    missing_name,
    rejected_keywords,
    removed_name,
    tensor_method,
)
from ms_lint.validate.verdicts.base import (
    CONFIRMED_BY_PROBE,
    CONFIRMED_KINDS,
    DECIDED,
    INCONCLUSIVE,
    NOT_REACHED,
    NOT_REPRODUCED,
    Verdict,
    said,
)


def looked_up(context, finding: Finding, verdict: Verdict) -> Verdict:
    """An MS607, MS613, MS610 or MS602 finding no build or compile decided (a host method the graph never calls, a
    line behind another stop): decided by what the worker found on the installed MindSpore and numpy, the name
    looked up (MS607, MS613), the callee's signature read (MS610: a keyword it does not take), or the method called
    on a Tensor and a Parameter (MS602). The lookup says what the line does wherever it runs, not that it runs: a
    line the unit's graph or building was shown to leave out stays ``not reached``, the lookup in its notes; a
    line of a host method that neither building nor ``construct`` runs runs whenever its users call it."""
    if verdict.verdict in DECIDED:
        return verdict
    if verdict.verdict == NOT_REACHED and finding.line not in context.job.not_run:
        found = _looked_up(context, finding, verdict, "")
        if found is not verdict:
            verdict.notes.append(f"the pattern fails in isolation: {found.message}; that decides nothing about line "
                                 f"{finding.line}, which the graph built here leaves out"
                                 if found.verdict in CONFIRMED_KINDS else f"looked up: {found.message}")
        return verdict
    why = f"; the line itself was not decided: {verdict.message}" if verdict.message else ""
    return _looked_up(context, finding, verdict, why)


def _looked_up(context, finding: Finding, verdict: Verdict, why: str) -> Verdict:
    if finding.code == "MS602":
        return _called_on_tensors(context, finding, verdict, why)
    if finding.code == "MS610":
        return _signature_read(context, finding, verdict, why)
    if finding.code not in ("MS607", "MS613"):
        return verdict
    name = missing_name(finding) if finding.code == "MS607" else removed_name(finding)
    found = ((context.outcome.probes or {}).get("api") or {}).get(name) if name else None
    if found is None:
        return verdict
    package = "MindSpore" if finding.code == "MS607" else "numpy"
    if found:
        return context.make(finding, NOT_REPRODUCED, f"the installed {package} has {name}{why}")
    return context.make(finding, CONFIRMED_BY_PROBE,
                        f"the installed {package} has no {name}: looked up in the worker, the line raises "
                        f"AttributeError (ImportError in an import) wherever it runs{why}")


def _signature_read(context, finding: Finding, verdict: Verdict, why: str) -> Verdict:
    left_out = left_out_parameters(finding)
    if left_out is not None:
        return _required_read(context, finding, verdict, why, *left_out)
    rejected = rejected_keywords(finding)
    found = ((context.outcome.probes or {}).get("keywords") or {}).get(rejected[0]) if rejected else None
    if found is None:
        return verdict
    name, keywords = rejected
    if not found:
        return context.make(finding, NOT_REPRODUCED, f"{name} takes {', '.join(keywords)} on the installed "
                                                     f"MindSpore{why}")
    shown = ", ".join(f"{keyword}=" for keyword in found)
    return context.make(finding, CONFIRMED_BY_PROBE,
                        f"{name}'s signature on the installed MindSpore takes no keyword {shown}: read in the worker, "
                        f"the call raises TypeError wherever it runs{why}")


def _required_read(context, finding: Finding, verdict: Verdict, why: str, name: str, parameters: list[str]) -> Verdict:
    """An MS610 finding of parameters the call leaves out, decided by the callee's signature on the installed
    MindSpore: each required there (no default), the call raises TypeError wherever it runs; one with a default
    there, the rule's table is not this MindSpore's."""
    found = ((context.outcome.probes or {}).get("required") or {}).get(name)
    if not found or any(parameter not in found for parameter in parameters):
        return verdict
    states = {found[parameter] for parameter in parameters}
    if states == {"optional"}:
        return context.make(finding, NOT_REPRODUCED, f"{name} has a default for {', '.join(parameters)} on the "
                                                     f"installed MindSpore{why}")
    if states != {"required"}:
        return verdict
    return context.make(finding, CONFIRMED_BY_PROBE,
                        f"{name}'s signature on the installed MindSpore requires {', '.join(parameters)}, which the "
                        f"call leaves out: read in the worker, the call raises TypeError wherever it runs{why}")


def _called_on_tensors(context, finding: Finding, verdict: Verdict, why: str) -> Verdict:
    method = tensor_method(finding)
    calls = ((context.outcome.probes or {}).get("tensor_methods") or {}).get(method) if method else None
    if not calls:
        return verdict
    ran = [result["call"] for result in calls.values() if result.get("ran")]
    if ran:
        return context.make(finding, NOT_REPRODUCED, f"{ran[0]} runs on the installed MindSpore{why}")
    expectation = expectation_for(finding.code)
    if not all(expectation.error_matches(result.get("type") or "", result.get("message") or "")
               for result in calls.values()):
        return verdict
    tensor = calls.get("Tensor") or next(iter(calls.values()))
    first = said(tensor)[0]
    return context.make(finding, CONFIRMED_BY_PROBE,
                        f"{tensor['call']} raises {first} on the installed MindSpore, and so does the call on a "
                        f"Parameter: the line raises wherever it runs on a tensor{why}", compiler_message=first)


def built_alone(context, finding: Finding, verdict: Verdict) -> Verdict:
    """An MS103 finding of a user type built from tensor data that no compile of the unit decided (the compile
    stopped before its line), where the worker's build of that type from a tensor in a Cell of its own failed
    under STRICT. The probe shows the pattern fails; only the project's graph code reaching the line shows the
    finding is real: it confirms the finding only where the unit was built and its graph reaches the line (every
    condition over it held on the built instance, on a path from ``construct``), and is a note otherwise (a
    ``@jit_class`` method that no Cell of the unit calls, a line behind a condition ms-lint could not evaluate).
    A type it can build decides nothing (what the line passes may differ); a line shown to be left out of the graph
    (``not reached``) stays so."""
    if finding.code != "MS103" or verdict.verdict != INCONCLUSIVE or context.level != "strict":
        return verdict
    result = ((context.outcome.probes or {}).get("built_alone") or {}).get(str(finding.line))
    if not result or result.get("compiled") is not False:
        return verdict
    expectation = expectation_for(finding.code)
    if not expectation.error_matches(result.get("type", ""), result.get("message", "")):
        return verdict
    first, shown = said(result)
    if not _graph_reaches(context.outcome, finding.line):
        verdict.notes.append(f"the pattern fails in isolation: {result.get('built')} in a Cell that does nothing "
                             f"else fails to compile under STRICT ({shown}); that decides nothing about line "
                             f"{finding.line}, which no compiled graph of the project was shown to reach")
        return verdict
    function = ((context.job.guards or {}).get(finding.line) or {}).get("function") or "construct"
    return context.make(
        finding, CONFIRMED_BY_PROBE,
        f"line {finding.line} is in the graph of {context.job.qualname}.{function} built as "
        f"{_built_as(context)} (every condition over it holds), and {result.get('built')} in a Cell that does "
        f"nothing else fails to compile under STRICT ({shown}): MindSpore cannot build this type from tensor data "
        f"in a graph; the compile of {context.job.qualname} stopped before the line: {verdict.message}",
        compiler_message=first)


def _graph_reaches(outcome, line: int) -> bool:
    """Whether the conditions over ``line`` held on an instance the unit's build made: the first build's, or, when
    building stopped at another finding, a build with its fix applied."""
    reaches = [outcome.reach or {}] + [attempt.get("reach") or {} for attempt in outcome.fixes or []]
    return any((reach.get(str(line)) or {}).get("reached") is True for reach in reaches)


def _built_as(context) -> str:
    outcome = context.outcome
    return "the registered example" if outcome.instance == "example" else (
        outcome.built or f"{context.job.qualname}()")


def host_called(context, finding: Finding, verdict: Verdict) -> Verdict:
    """A finding that raises eagerly too, in a host method the graph never holds (``switch_to_deploy``):
    decided by the worker's call of that method on a built instance, which either raised at the line as the
    rule says, or ran the line without error. A call that never got to the line decides nothing."""
    if verdict.verdict in CONFIRMED_KINDS:
        return verdict
    method = next((name for name, lines in (getattr(context.job, "host_calls", None) or {}).items()
                   if finding.line in lines), None)
    result = ((context.outcome.probes or {}).get("host") or {}).get(method or "")
    if result and "skipped" in result:
        verdict.notes.append(f"{method}() was not called on a {context.job.qualname}: {result['skipped']}")
        return verdict
    if not result or "ran" not in result:
        return verdict
    who = f"{method}(), called in PyNative on a {context.job.qualname} built for it,"
    error = result.get("error") or {}
    first, shown = said(error)
    if error.get("line") == finding.line:
        if expectation_for(finding.code).error_matches(error.get("type") or "", error.get("message") or ""):
            return context.make(finding, CONFIRMED_BY_PROBE, f"{who} raised at this line: {shown}",
                                compiler_message=first)
        verdict.notes.append(f"{who} raised at this line, not as the rule says: {shown}")
        return verdict
    if finding.line in result["ran"]:
        return context.make(finding, NOT_REPRODUCED, f"{who} ran line {finding.line} without error"
                            + (f" (it raised later: {shown})" if error else ""))
    if error:
        where = f"at line {error['line']}" if error.get("line") else "outside this file"
        verdict.notes.append(f"{who} raised {where} before reaching line {finding.line}: {shown}")
    else:
        verdict.notes.append(f"{who} returned without running line {finding.line}")
    return verdict


def parameter_verdict(context, finding: Finding, compiled: bool) -> Verdict:
    probe = (context.outcome.probes or {}).get("parameters")
    if not probe:
        return context.make(finding, INCONCLUSIVE, "the parameter probe did not run (no instance was built)")
    if "error" in probe:
        return context.make(finding, INCONCLUSIVE, f"the parameter probe failed: {probe['error']}")
    attribute = context.job.container_attributes.get(finding.line)
    containers = probe.get("containers") or []
    candidates = [c for c in containers if c["attribute"] == attribute] if attribute else containers
    lost = [c for c in candidates if c.get("missing_count")]
    instance = _instance_name(context, finding)
    holder = _holders(lost or candidates, instance) or (f"{instance}{attribute}" if attribute else "plain containers")
    if lost:
        count = sum(c["missing_count"] for c in lost)
        names = [name for c in lost for name in c["missing"]]
        shown = ", ".join(names[:6]) + (", ..." if count > 6 else "")
        kinds = "/".join(sorted({c["kind"] for c in lost}))
        message = (f"trainable_params() misses {count} parameter(s) held in the plain {kinds} {holder}: "
                   f"{shown}; they are never trained or saved")
        duplicates = probe.get("duplicate_names") or []
        if duplicates:
            message += f"; parameter names used twice: {', '.join(duplicates[:6])}"
        return context.make(finding, CONFIRMED_BY_PROBE, message)
    if candidates:
        cells = sum(c["cells"] for c in candidates)
        parameters = sum(c["parameters"] for c in candidates)
        held = sum(c.get("held_parameters", 0) for c in candidates)
        prefix = "compiles; " if compiled else ""
        if held == 0:
            return context.make(
                finding, NOT_REPRODUCED,
                f"{prefix}{holder} holds {cells} Cell(s) without parameters, so trainable_params() misses "
                f"nothing",
            )
        what = ", ".join(part for part in (f"{cells} Cell(s)" if cells else "",
                                           f"{parameters} Parameter(s)" if parameters else "") if part)
        return context.make(
            finding, NOT_REPRODUCED,
            f"{prefix}{holder} holds {what} whose {held} parameter(s) are all registered through other "
            f"attributes, so trainable_params() misses none",
        )
    return context.make(
        finding, INCONCLUSIVE,
        f"{holder} held no Cells or Parameters once the instance was built, so the probe saw nothing "
        f"(is it filled later? register an example that builds it fully)",
        example=context.example_text(),
    )


def randomness_verdict(context, finding: Finding) -> Verdict:
    probe = (context.outcome.probes or {}).get("randomness") or {}
    expectation = expectation_for(finding.code)
    if "skipped" in probe:
        return context.make(finding, INCONCLUSIVE, f"the randomness probe was skipped: {probe['skipped']}",
                            example=context.example_text(concrete=True))
    if "error" in probe:
        error_type, _, message = probe["error"].partition(": ")
        if expectation.error_types and expectation.error_matches(error_type, message):
            return context.make(finding, CONFIRMED_BY_PROBE,
                                f"the Cell compiles and its first call raises {probe['error']}")
        return context.make(finding, INCONCLUSIVE, f"the randomness probe failed: {probe['error']}")
    if not probe:
        return context.make(finding, INCONCLUSIVE, "the randomness probe did not run",
                            example=context.example_text(concrete=True))
    if not expectation.graph_repeats:
        return _carried_over(context, finding, probe)
    if probe.get("graph_repeats") and not probe.get("pynative_repeats"):
        return context.make(
            finding, CONFIRMED_BY_PROBE,
            "two calls on the same input return identical outputs in GRAPH_MODE and different ones in "
            "PyNative: the random value is drawn once at compile time",
        )
    if not probe.get("graph_repeats"):
        return context.make(finding, NOT_REPRODUCED, "two GRAPH_MODE calls on the same input return different "
                            "outputs: the random value is not frozen")
    return context.make(finding, INCONCLUSIVE, "outputs repeat in PyNative too: for this example the random "
                        "value does not reach the output")


def _carried_over(context, finding: Finding, probe: dict) -> Verdict:
    """What two calls on the same input say of a tensor written in place (MS124)."""
    if not probe.get("graph_repeats") and probe.get("pynative_repeats"):
        return context.make(
            finding, CONFIRMED_BY_PROBE,
            "two calls on the same input return different outputs in GRAPH_MODE and the same in PyNative: what "
            "one call writes in place is read by the next",
        )
    if probe.get("graph_repeats") and probe.get("first_calls_agree") is False:
        return context.make(
            finding, CONFIRMED_BY_PROBE,
            "the first call returns another output in GRAPH_MODE than in PyNative: the tensor written in place is "
            "read again",
        )
    if probe.get("graph_repeats"):
        return context.make(finding, NOT_REPRODUCED, "two GRAPH_MODE calls on the same input return the same output, "
                            "PyNative's: nothing written in place is read again")
    return context.make(finding, INCONCLUSIVE, "outputs differ between calls in PyNative too: for this example the "
                        "Cell's output is not a function of its input alone")


def _probe_result(context, finding: Finding, name: str) -> tuple[dict, Verdict | None]:
    """The probe's result, or the inconclusive verdict when it did not give one."""
    probe = (context.outcome.probes or {}).get(name) or {}
    if "skipped" in probe:
        return probe, context.make(finding, INCONCLUSIVE, f"the {name} probe was skipped: {probe['skipped']}",
                                   example=context.example_text(concrete=True))
    if "error" in probe:
        return probe, context.make(finding, INCONCLUSIVE, f"the {name} probe failed: {probe['error']}")
    if not probe:
        return probe, context.make(finding, INCONCLUSIVE, f"the {name} probe did not run",
                                   example=context.example_text(concrete=True))
    return probe, None


def output_verdict(context, finding: Finding) -> Verdict:
    probe, inconclusive = _probe_result(context, finding, "output")
    if inconclusive is not None:
        return inconclusive
    graph, pynative = probe.get("graph_type"), probe.get("pynative_type")
    if pynative == "dict" and graph != "dict":
        keys = ", ".join(repr(key) for key in probe.get("keys") or [])
        consumer = dict_consumer(finding)
        caller = f" ({consumer})" if consumer else ""
        return context.make(
            finding, CONFIRMED_BY_PROBE,
            f"the Cell returns a dict ({keys}) in PyNative and a {graph} in GRAPH_MODE under "
            f"{context.level.upper()}: indexing its result by key fails in the caller{caller}",
        )
    if graph == "dict":
        return context.make(finding, NOT_REPRODUCED, f"GRAPH_MODE under {context.level.upper()} returns the dict")
    return context.make(finding, INCONCLUSIVE, f"for this example the Cell returns a {pynative} in PyNative, "
                        "not a dict")


def state_verdict(context, finding: Finding) -> Verdict:
    probe, inconclusive = _probe_result(context, finding, "state")
    if inconclusive is not None:
        return inconclusive
    changed = ", ".join(probe.get("changed") or [])
    if probe.get("graph_unchanged") and not probe.get("pynative_unchanged"):
        return context.make(
            finding, CONFIRMED_BY_PROBE,
            f"changing {changed} between two calls changes the output in PyNative and not in GRAPH_MODE: "
            "the graph keeps the value of its first call",
        )
    if not probe.get("graph_unchanged"):
        return context.make(finding, NOT_REPRODUCED, f"changing {changed} between two calls changes the "
                            "GRAPH_MODE output too")
    return context.make(finding, INCONCLUSIVE, f"changing {changed} does not change the output in PyNative "
                        "either: for this example the value does not reach the output")


def gradient_verdict(context, finding: Finding) -> Verdict:
    """MS112: the Cell run in PyNative, the gradient of its output's sum taken eagerly. Cut (zero, or none) with
    respect to every floating input (to its parameters when it takes none): confirmed; a gradient that flows back
    to an input: not reproduced."""
    error = context.error or {}
    if error.get("stage") == "run":
        return context.make(finding, INCONCLUSIVE, f"calling it in PyNative raised: {context.first_line()}",
                            example=context.example_text(concrete=True))
    probe, inconclusive = _probe_result(context, finding, "gradient")
    if inconclusive is not None:
        return inconclusive
    names = (context.outcome.signature or {}).get("call") or []

    def input_name(index: str) -> str:
        return names[int(index)] if int(index) < len(names) else f"input {index}"

    def listed(items) -> str:
        return ", ".join(items[:6]) + (f" and {len(items) - 6} more" if len(items) > 6 else "")

    by_input, by_weight = probe.get("inputs") or {}, probe.get("parameters") or {}
    flowing = [f"{input_name(index)} ({value:.4g})" for index, value in by_input.items() if value]
    cut_weights = [name for name, value in by_weight.items() if not value]
    if flowing:
        return context.make(finding, NOT_REPRODUCED,
                            f"run in PyNative, a gradient of its output's sum flows back to {listed(flowing)} "
                            "(sum of magnitudes): the output does not depend on its input through the host copy "
                            "alone")
    if by_input:
        weights = f" and to {len(cut_weights)} of its {len(by_weight)} trainable parameter(s)" if by_weight else ""
        return context.make(finding, CONFIRMED_BY_PROBE,
                            f"run in PyNative, the gradient of its output's sum is zero with respect to "
                            f"{listed([input_name(index) for index in by_input])}{weights}: the gradient is cut "
                            "at the host copy")
    if cut_weights:
        return context.make(finding, CONFIRMED_BY_PROBE,
                            f"run in PyNative, the gradient of its output's sum is zero for {len(cut_weights)} of "
                            f"its {len(by_weight)} trainable parameter(s): {listed(cut_weights)}")
    return context.make(finding, NOT_REPRODUCED, f"run in PyNative, a gradient of its output's sum flows to every "
                        f"trainable parameter ({len(by_weight)}) and it takes no floating input")


def forward_verdict(context, finding: Finding) -> Verdict | None:
    """MS113: the forwards the finding's transform ran after a call, on a Cell of ms-lint's own in PyNative on the
    installed MindSpore (``forward_count_probe``); None when the probe did not run (the unit's failure says why)."""
    pattern = forward_count(finding)
    counts = (context.outcome.probes or {}).get("forwards") or []
    probe = next((count for count in counts if pattern is not None and count.get("transform") == pattern["transform"]
                  and count.get("set_grad") == pattern["set_grad"]), None)
    if probe is None:
        failed = next((count for count in counts if "error" in count or "skipped" in count), None)
        if failed is None:
            return None
        return context.make(finding, INCONCLUSIVE,
                            f"the forward count probe {'failed' if 'error' in failed else 'was skipped'}: "
                            f"{failed.get('error') or failed.get('skipped')}")
    how = (f"called and then differentiated on the same input by {pattern['transform']}"
           f"{' after set_grad()' if pattern['set_grad'] else ' without set_grad()'}")
    on = f"on MindSpore {probe.get('version')} (installed), in PyNative, a Cell of ms-lint's own {how}"
    if probe.get("again", 0) >= 1:
        return context.make(finding, CONFIRMED_BY_PROBE, f"{on} ran its forward {probe['again']} more time(s) "
                            "after the call")
    return context.make(finding, NOT_REPRODUCED, f"{on} ran no forward after the call: this MindSpore reuses the "
                        "forward of the call")


def _instance_name(context, finding: Finding) -> str:
    """``<instance>.``: the name the Cell's code gives its instance, as the finding names the container
    (``this.stages``) or else as its ``__init__`` does; empty when neither says."""
    container = container_written(finding)
    name = container.split(".", 1)[0] if "." in container else (context.job.instances or {}).get("__init__")
    return f"{name}." if name else ""


def _holders(containers: list[dict], instance: str) -> str:
    names = []
    for container in containers:
        owner = f"{container['owner']}." if container.get("owner") else ""
        name = f"{instance}{owner}{container['attribute']}"
        if name not in names:
            names.append(name)
    return ", ".join(names)
