"""What MindSpore does with each hazard, as far as the validator can observe it: the single table verdicts use.

Measured with MindSpore 2.10 (see the rule documentation for the per-level details). Every rule has its entry,
a plain compile failure located at the finding's line included (``Expectation(COMPILE)``); a code without one is
refused (``expectation_for`` raises KeyError), never taken for a compile.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

# How a finding can be checked.
COMPILE = "compile"  # the Cell fails to compile (or to be called) at the finding
CONSTRUCTION = "construction"  # building the Cell instance fails
PARAMETER_PROBE = "parameter probe"  # compiles; trainable_params() shows what is lost
RANDOMNESS_PROBE = "randomness probe"  # compiles; repeated calls show a value frozen, or state carried over
OUTPUT_PROBE = "output probe"  # compiles; the output's Python type in GRAPH_MODE and in PyNative
STATE_PROBE = "state probe"  # compiles; a host write between two calls reaches PyNative's output, not the graph's
# run in PyNative, not compiled; the gradient of its output w.r.t. its inputs and trainable parameters is zero
GRADIENT_PROBE = "gradient probe"
# a Cell of ms-lint's own, called and then differentiated as the finding says, counts the forwards the transform ran
FORWARD_COUNT_PROBE = "forward count probe"
SILENT = "silent"  # compiles and misbehaves in a way no probe observes
MODULE_LEVEL = "module level"  # not inside a Cell or jit function: nothing to compile
# The findings the worker also decides by a lookup on the installed MindSpore and numpy (the name, the callee's
# signature, the method called on a tensor): what the line does wherever it runs.
LOOKED_UP = ("MS602", "MS607", "MS610", "MS613")

LEVELS = ("strict", "lax")


@dataclass(frozen=True)
class Expectation:
    check: str
    # Syntax levels at which the compile is expected to fail; at the others the hazard is silent or absent.
    fails_at: frozenset = frozenset(LEVELS)
    # Error kinds that mean "this hazard": any exception type listed, with a message matching any pattern.
    error_types: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()
    # Where the compiler points: "finding" (the finding's line) or "anywhere" (e.g. the use in construct), but at
    # the finding's line for the findings ``located_here_when`` says so of (one kind of a rule's several).
    located: str = "finding"
    located_here_when: Callable[[object], bool] | None = None
    # What a successful compile means when the hazard does not fail at this level, and whether the hazard is
    # then silent (wrong results no probe observes: "not applicable") rather than absent ("not reproduced").
    silent_note: str = ""
    silent: bool = False
    # For checks with nothing to compile: why, when it is not simply module-level code.
    nothing_to_compile: str = ""
    # Whether the hazard raises in PyNative too (a missing method, a layer built with wrong arguments): then
    # running the line eagerly, in a host method the graph never holds, decides it as well as a compile would.
    shows_eagerly: bool = False
    # Says, from a finding's data, that this one of the rule's findings is silent where the others raise (MS606: a
    # positional argument some layers refuse and others take with another meaning): its verdict is then "not
    # applicable", with ``silent_note``, where the compile or the construction shows nothing.
    silent_when: Callable[[object], bool] | None = None
    # For the randomness probe (two calls on the same input in GRAPH_MODE, then in PyNative): whether graph code
    # repeats its output where the hazard is real (a value drawn once at compile time: MS104), or gives another
    # one, or PyNative's no more (what a call writes in place is read by the next, or by its caller: MS124).
    graph_repeats: bool = True
    # Whether the hazard is PyNative's own (judged in PyNative): the unit is run eagerly, never compiled.
    eager: bool = False
    # Says, from a finding's data, that this one of the rule's findings has nothing the validator can run (MS112 at
    # the call of a differentiated function of a script): it is then "not applicable", with ``nothing_to_compile``.
    nothing_to_run_when: Callable[[object], bool] | None = None

    def error_matches(self, error_type: str, message: str) -> bool:
        if self.error_types and error_type not in self.error_types:
            return False
        if not self.patterns:
            return bool(self.error_types)
        return any(re.search(pattern, message, re.IGNORECASE) for pattern in self.patterns)

    def located_anywhere(self, finding) -> bool:
        return self.located == "anywhere" and not (self.located_here_when is not None
                                                   and self.located_here_when(finding))

    def expected_to_fail(self, level: str) -> bool:
        return level in self.fails_at


# -------------------------------------------------------------------- what the validator reads of a finding's data
# Each reads the record the finding's rule declares (``ms_lint.rules.data_of``), by its fields; a finding whose
# data is none of its rule's shapes (built by hand, without data) gives nothing. The rules are imported when asked:
# the worker, which imports this module, never reads findings.

def _record(finding, *kinds):
    """The record of ``finding``'s data when it is one of ``kinds``; None otherwise."""
    from ms_lint.rules import data_of

    data = data_of(finding)
    return data if isinstance(data, kinds) else None


def built_from_tensor_data(finding) -> bool:
    """Whether an MS103 finding is of a user type or @jit_class built from tensor data (which fails where it is
    built), not of a user object's state changed (which fails in the object's own method)."""
    from ms_lint.rules.ms103_user_type_in_graph import UserTypeBuilt

    return _record(finding, UserTypeBuilt) is not None


def built_call(finding) -> dict | None:
    """For an MS103 finding of a user type built from tensor data, the call that builds it: the callee's dotted
    name, how many positional arguments and which keywords it passes; None for any other finding, a call that
    unpacks ``*args``, or one whose callee is not a dotted name of the type."""
    from ms_lint.rules.ms103_user_type_in_graph import UserTypeBuilt

    built = _record(finding, UserTypeBuilt)
    if built is None or not built.built_type or not built.callee or built.starred:
        return None
    if built.callee.rpartition(".")[2] != built.built_type.rpartition(".")[2]:
        return None
    return {"callee": built.callee, "positional": built.positional, "keywords": list(built.keywords)}


def silent_positional(finding) -> bool:
    """Whether an MS606 finding's layer takes the value as another parameter and runs (its effect is silent),
    where the other layers raise."""
    from ms_lint.rules.ms606_layer_positional_argument import ShiftedPositional

    shifted = _record(finding, ShiftedPositional)
    return shifted is not None and bool(shifted.silent)


def _held_in_plain_container(finding):
    from ms_lint.rules.ms201_plain_container_of_cells import CellsInPlainContainer
    from ms_lint.rules.ms202_plain_container_of_parameters import ParametersInPlainContainer

    return _record(finding, CellsInPlainContainer, ParametersInPlainContainer)


def container_attribute(finding) -> str | None:
    """For a finding of Cells or Parameters in a plain container (MS201, MS202), the ``self.<attr>`` its line puts
    elements in (the parameter probe reports by attribute); None for any other finding, or when it is not known."""
    held = _held_in_plain_container(finding)
    return held.attribute if held is not None else None


def container_written(finding) -> str:
    """For a finding of Cells or Parameters in a plain container, the container as the code writes it
    (``this.stages``); empty for any other finding."""
    held = _held_in_plain_container(finding)
    return held.container if held is not None else ""


def written_names(finding) -> list[str]:
    """What the line of a finding of host-written graph state (MS118) writes: ``scale`` for ``net.scale = ...``,
    ``SMOOTHING`` for ``SMOOTHING = ...``; nothing for a setter call, or any other finding."""
    from ms_lint.rules.ms118_host_written_graph_state import HostWrite

    write = _record(finding, HostWrite)
    return list(write.written) if write is not None else []


def differentiated_function(finding) -> bool:
    """Whether an MS112 finding is of a function given to grad/value_and_grad (a script's training step), not of a
    Cell's output: nothing the validator builds runs it."""
    from ms_lint.rules.ms112_gradient_cut_by_host_copy import DifferentiatedCopied

    return _record(finding, DifferentiatedCopied) is not None


_STRICT = frozenset({"strict"})
_EAGER = ("an eager-mode (PyNative) hazard in module-level code: a GRAPH_MODE compile cannot show it, and ms-lint "
          "runs no training script, where the forward count (MS113) is wrong without an error")

# An attribute read that nothing sets, or that the MindSpore layer lacks: AttributeError wherever it is read.
_NO_SUCH_ATTRIBUTE = Expectation(
    COMPILE,
    error_types=("AttributeError",),
    patterns=(r"has no attribute",),
    located="anywhere",
    shows_eagerly=True,
)

EXPECTATIONS: dict[str, Expectation] = {
    "MS101": Expectation(
        COMPILE,
        fails_at=_STRICT,
        error_types=("ValueError", "TypeError", "RuntimeError"),
        patterns=(r"should be constant", r"nonconstant", r"not supported", r"numpy", r"Unsupported"),
        silent_note="under LAX the call runs in the Python interpreter and gives a numpy array or a number, or "
        "fails at run time",
    ),
    "MS102": Expectation(
        COMPILE,
        fails_at=_STRICT,
        error_types=("AttributeError",),
        patterns=(r"asnumpy", r"tolist", r"has no attribute"),
        silent_note="under LAX the conversion runs in the Python interpreter",
    ),
    "MS103": Expectation(
        COMPILE,
        fails_at=_STRICT,
        error_types=("TypeError", "AttributeError", "ValueError"),
        # "empty sequence", "list_getitem": a cache updated in a user object's method, read back empty under LAX;
        # the last two: a user type (a @jit_class, at every level) built from tensors
        patterns=(r"modify a member attribute", r"member attribute", r"not supported", r"empty sequence",
                  r"list_getitem", r"inputs should be constant", r"required to be constants"),
        located="anywhere",  # a cache's change fails in its own module's method; a type fails where it is built
        located_here_when=built_from_tensor_data,
        silent_note="under LAX the object is interpreted and its state changes only during compilation",
        silent=True,
    ),
    "MS104": Expectation(
        RANDOMNESS_PROBE,
        fails_at=frozenset(),
        silent_note="the value is drawn once at compile time and reused by every call",
    ),
    "MS124": Expectation(
        RANDOMNESS_PROBE,
        fails_at=frozenset(),
        graph_repeats=False,
        # a smaller accumulator: the first call raises (measured 2.8.0 to 2.10.0, tests/test_ground_truth_in_place.py)
        error_types=("RuntimeError",),
        patterns=(r"For 'Assign', the 'x' and 'y' must have the same",),
        silent_note="from MindSpore 2.8 the result is written into the tensor the name holds; before 2.8 graph "
        "code computes a new tensor, as PyNative does",
    ),
    "MS105": Expectation(
        SILENT,
        fails_at=frozenset(),
        error_types=("ValueError",),
        patterns=(r"should be constant", r"nonconstant"),
        silent_note="the thread runs once while compiling and never again; no probe observes that",
    ),
    "MS106": Expectation(
        COMPILE,
        fails_at=frozenset(),
        error_types=("ValueError", "TypeError", "RuntimeError"),
        patterns=(r"Parameter", r"initializer", r"not supported in 'construct'", r"already exists in network"),
        silent_note="a Cell created in construct compiles with its weights frozen at compile time; "
        "no probe observes that",
        silent=True,
    ),
    "MS107": Expectation(
        COMPILE,
        error_types=("AttributeError", "RuntimeError"),
        patterns=(r"set_data",),
    ),
    "MS108": Expectation(
        COMPILE,
        fails_at=_STRICT,
        # setattr(self, ...) under STRICT: RuntimeError "The third argument should be a dictionary" (ValueError
        # "should be constant" for tensor data); a plain object's attribute: ValueError (measured 2.10.0, 2.7.1)
        error_types=("AttributeError", "TypeError", "RuntimeError", "ValueError"),
        patterns=(r"has no attribute", r"member attribute", r"Parameter type", r"third argument should be a dict",
                  r"should be constant", r"to perform assign subscript"),
        silent_note="under LAX the attribute keeps the value of the first call; no probe observes that",
        silent=True,
    ),
    "MS109": Expectation(
        COMPILE,
        error_types=("RuntimeError", "SyntaxError", "TypeError", "ValueError"),
        patterns=(r"Unsupported (statement|expression|syntax)", r"not supported"),
    ),
    "MS110": Expectation(
        COMPILE,
        fails_at=frozenset(),
        error_types=("RuntimeError", "ValueError", "TypeError"),
        patterns=(r"dynamic", r"shape"),
        silent_note="dynamic shapes compile on this device; they fail or recompile on devices that need "
        "static shapes",
    ),
    "MS111": Expectation(
        COMPILE,
        error_types=("ValueError", "RuntimeError", "TypeError"),
        patterns=(r"not supported in 'construct'", r"not supported", r"forbidden"),
    ),
    "MS114": Expectation(
        COMPILE,
        fails_at=_STRICT,
        error_types=("ValueError",),
        patterns=(r"should be constant", r"nonconstant", r"truth value"),
        silent_note="under LAX the builtin runs in the Python interpreter",
    ),
    "MS115": Expectation(
        COMPILE,
        fails_at=_STRICT,
        error_types=("ValueError", "RuntimeError", "TypeError"),
        patterns=(r"should be constant", r"nonconstant", r"Format", r"Kernel select"),
        silent_note="under LAX the formatting or logging call runs in the Python interpreter",
    ),
    "MS117": Expectation(
        OUTPUT_PROBE,
        fails_at=frozenset(),
        silent_note="the Cell compiles; its dict output comes back as a tuple, and the caller's key lookup fails",
    ),
    "MS122": Expectation(
        OUTPUT_PROBE,
        fails_at=frozenset(),
        silent_note="the Cell compiles; its dict output comes back as a tuple, and the caller's key lookup fails",
    ),
    "MS118": Expectation(
        STATE_PROBE,
        fails_at=frozenset(),
        silent_note="the graph keeps the value of the first call; a write between two calls changes nothing",
    ),
    "MS120": Expectation(
        SILENT,
        fails_at=frozenset(),
        silent_note="the logging call runs once, while the graph compiles, and is not part of the graph; "
        "no probe observes that",
    ),
    "MS121": Expectation(
        COMPILE,
        error_types=("TypeError", "ValueError"),
        # the join fails at the two paths' lines; under STRICT a joined value used in an operation may fail first,
        # at the operation
        patterns=(r"Cannot join the return values of different branches", r"Type Join Failed",
                  r"should be constant"),
        located="anywhere",
        silent_note="a value that never reaches the output compiles under LAX",
    ),
    "MS601": Expectation(
        COMPILE,
        error_types=("ValueError", "TypeError"),
        patterns=(r"number of axes", r"axes", r"perm"),
        silent_note="on a 2-D tensor the two axes read as a full permutation: it compiles and returns the tensor "
        "unchanged where PyNative transposes it",
        silent=True,
    ),
    "MS602": Expectation(
        COMPILE,
        error_types=("AttributeError", "ValueError", "TypeError"),
        patterns=(r"has no attribute", r"cannot get attributes", r"not callable"),
        shows_eagerly=True,
    ),
    "MS603": Expectation(
        COMPILE,
        error_types=("RuntimeError", "TypeError"),
        patterns=(r"GetShapeVector", r"parameters number of the function"),
    ),
    "MS116": Expectation(
        COMPILE,
        error_types=("UnboundLocalError", "NameError"),
        patterns=(r"not defined in false branch", r"cannot be used outside of the loop body", r"is not defined"),
    ),
    "MS607": Expectation(
        COMPILE,
        error_types=("AttributeError", "ImportError", "ModuleNotFoundError"),
        patterns=(r"has no attribute", r"cannot import name", r"No module named"),
        shows_eagerly=True,
    ),
    "MS119": Expectation(
        COMPILE,
        error_types=("TypeError", "RuntimeError"),
        patterns=(r"parameters number of the function", r"number of parameters of bprop",
                  r"Miss argument input for parameter", r"requires the forward inputs",
                  r"output size of the 'bprop'"),
        # Without a location of its own, MindSpore 2.10 may print the traceback of an earlier failed compile.
        located="anywhere",
    ),
    "MS201": Expectation(
        PARAMETER_PROBE,
        fails_at=frozenset(),
        error_types=("RuntimeError", "ValueError"),
        patterns=(r"already exists",),
        located="anywhere",
    ),
    "MS202": Expectation(
        PARAMETER_PROBE,
        fails_at=frozenset(),
        error_types=("RuntimeError", "ValueError"),
        patterns=(r"already exists",),
        located="anywhere",
    ),
    "MS203": Expectation(
        COMPILE,
        error_types=("AttributeError", "RuntimeError", "NotImplementedError"),
        patterns=(r"'construct' is not defined", r"construct"),
        located="anywhere",
    ),
    "MS204": Expectation(
        CONSTRUCTION,
        error_types=("AttributeError", "RuntimeError", "TypeError"),
        patterns=(r"_auto_prefix", r"has no attribute", r"__init__"),
        located="anywhere",
    ),
    "MS205": Expectation(
        CONSTRUCTION,
        error_types=("ValueError", "TypeError"),
        patterns=(r"pad",),
        located="anywhere",
        shows_eagerly=True,
    ),
    "MS605": Expectation(
        COMPILE,
        error_types=("TypeError",),
        patterns=(r"should be mindspore dtype", r"positional argument"),
        shows_eagerly=True,
    ),
    "MS606": Expectation(
        CONSTRUCTION,
        error_types=("TypeError", "ValueError"),
        patterns=(r"pad_mode", r"use_one_hot", r"beta1", r"begin_norm_axis", r"reduction"),
        located="anywhere",
        shows_eagerly=True,
        silent_when=silent_positional,
        silent_note="the layer takes the value as another parameter and runs (a dropout's keep rate, a weight "
        "initialiser): nothing raises",
    ),
    "MS608": Expectation(
        SILENT,
        silent_note="the layer runs with MindSpore's meaning of the value: its running statistics move another "
        "way, which no compile shows",
    ),
    "MS609": Expectation(
        SILENT,
        silent_note="the layer runs with MindSpore's default, which differs from PyTorch's: nothing raises",
    ),
    "MS123": _NO_SUCH_ATTRIBUTE,
    "MS614": _NO_SUCH_ATTRIBUTE,
    "MS615": Expectation(
        COMPILE,
        error_types=("TypeError", "ValueError"),
        patterns=(r"object is not callable",),  # (searched case-insensitively: "The object is not callable" too)
        shows_eagerly=True,
    ),
    "MS616": Expectation(
        COMPILE,
        error_types=("AttributeError", "ValueError"),
        patterns=(r"has no attribute", r"Failed to convert the value"),
        located="anywhere",
        shows_eagerly=True,
    ),
    "MS610": Expectation(
        COMPILE,
        error_types=("TypeError", "RuntimeError"),
        patterns=(r"unexpected keyword argument", r"positional argument", r"incorrect keyword name",
                  r"valid calling", r"missing \d+ required", r"multiple values", r"Multiply values",
                  r"parameters number of the function"),
        shows_eagerly=True,
    ),
    "MS611": Expectation(
        COMPILE,
        error_types=("TypeError", "ValueError", "RuntimeError"),
        patterns=(r"keyword name: axis", r"unexpected keyword argument 'axis'", r"number of items of repeats",
                  r"not supported on this device", r"\A\s*\Z"),  # (graph mode on CPU: a RuntimeError saying nothing)
        shows_eagerly=True,
        silent_note="on Ascend the call runs and returns the tile instead of the repeated elements",
    ),
    "MS612": Expectation(
        COMPILE,
        fails_at=frozenset(),
        silent_note="a deprecated call still runs: MindSpore warns when it does",
    ),
    "MS613": Expectation(
        COMPILE,
        error_types=("AttributeError", "ImportError"),
        patterns=(r"has no attribute", r"cannot import name"),
        located="anywhere",
        shows_eagerly=True,
    ),
    "MS604": Expectation(
        CONSTRUCTION,
        error_types=("TypeError",),
        patterns=(r"unexpected keyword argument",),
        located="anywhere",
        shows_eagerly=True,
    ),
    "MS130": Expectation(
        COMPILE,
        fails_at=frozenset(),
        silent_note="the nest compiles; what it costs is compile time (benchmarks/control_flow.py)",
    ),
    "MS131": Expectation(
        COMPILE,
        fails_at=frozenset(),
        error_types=("TypeError", "ValueError", "RuntimeError"),
        patterns=(r"SliceToIndices", r"TensorScatterUpdate", r"seq_abs"),
        silent_note="tensor-bounded slices compile on this device as dynamic shape; slow or unsupported on Ascend",
    ),
    "MS132": Expectation(
        COMPILE,
        error_types=("TypeError",),
        patterns=(r"float", r"Float"),
    ),
    "MS133": Expectation(
        COMPILE,
        error_types=("TypeError",),
        patterns=(r"BitXor",),
    ),
    "MS702": Expectation(
        COMPILE,
        fails_at=frozenset(),
        silent_note="the ranges are the Ascend kernels': CPU accepts these values (measured, MindSpore 2.10)",
    ),
    "MS701": Expectation(MODULE_LEVEL),
    "MS112": Expectation(GRADIENT_PROBE, eager=True, nothing_to_run_when=differentiated_function,
                         nothing_to_compile="an eager-mode (PyNative) hazard of a function the script differentiates: "
                         "ms-lint runs no training script, where its gradient is zero without an error"),
    "MS113": Expectation(FORWARD_COUNT_PROBE, eager=True, nothing_to_compile=_EAGER),
    "MS301": Expectation(MODULE_LEVEL),
    "MS401": Expectation(MODULE_LEVEL),
    "MS402": Expectation(MODULE_LEVEL),
    "MS501": Expectation(MODULE_LEVEL),
    "MS900": Expectation(MODULE_LEVEL),
}


def nothing_to_run(finding) -> bool:
    """Whether ``finding`` has no Cell or jit function to compile or run: outside any, of a module-level rule, or
    one of its rule's findings that ``nothing_to_run_when`` says so of."""
    if not finding.scope:
        return True  # outside any unit (a syntax error's E999 too, which no rule reports)
    expectation = expectation_for(finding.code)
    return expectation.check == MODULE_LEVEL or (
        expectation.nothing_to_run_when is not None and expectation.nothing_to_run_when(finding))


def judged_eagerly(finding) -> bool:
    """Whether ``finding`` was judged in PyNative and its hazard is PyNative's own: its unit is run eagerly, not
    compiled (a graph-code finding of @jit code under a PyNative target is compiled, as jit compiles it)."""
    return expectation_for(finding.code).eager and (finding.target or {}).get("mode", "pynative") == "pynative"


def expectation_for(code: str) -> Expectation:
    """The rule's expectation; KeyError for a code without one (each rule has one: ``tests/test_finding_data.py``)."""
    return EXPECTATIONS[code]


def built_at_its_line(code: str) -> bool:
    """Whether building the Cell raises at the finding's own line (a layer built with wrong arguments), so that
    a build that ran the line without error decides it; not MS204, whose line is a ``def``."""
    expectation = expectation_for(code)
    return expectation.check == CONSTRUCTION and expectation.shows_eagerly


def probes_for(codes) -> list[str]:
    """The probes a job runs for its findings' codes, in a stable order."""
    wanted = {expectation_for(code).check for code in codes}
    return [name for name, check in (("parameters", PARAMETER_PROBE), ("randomness", RANDOMNESS_PROBE),
                                     ("output", OUTPUT_PROBE), ("state", STATE_PROBE),
                                     ("gradient", GRADIENT_PROBE))
            if check in wanted]


# What MindSpore says of a name bound on some paths only: at the read (UnboundLocalError), or, when the Cell is
# compiled as a part of another, at the call that reached it (NameError).
_UNBOUND_NAME = re.compile(r"The local variable '(\w+)' (?:is not defined|defined in the)"
                           r"|The name '(\w+)' is not defined")


def unbound_name(message: str) -> str | None:
    """The name a MindSpore error says is unbound on some paths, or None when it says no such thing."""
    match = _UNBOUND_NAME.search(message)
    return None if match is None else match.group(1) or match.group(2)


def missing_name(finding) -> str | None:
    """``module.name`` an MS607 finding says the installed MindSpore lacks (its data), or None."""
    from ms_lint.rules.ms607_missing_mindspore_api import MissingName

    missing = _record(finding, MissingName)
    return f"{missing.module}.{missing.name}" if missing is not None and missing.module and missing.name else None


def rejected_keywords(finding) -> tuple[str, list[str]] | None:
    """``(callee, keywords)`` where an MS610 finding says the callee takes no such keywords (its data), or None."""
    from ms_lint.rules.ms610_call_rejected_by_version import CallRejected

    rejected = _record(finding, CallRejected)
    if rejected is None or rejected.kind != "keyword" or not rejected.keywords or "." not in rejected.name:
        return None
    return rejected.name, list(rejected.keywords)


def left_out_parameters(finding) -> tuple[str, list[str]] | None:
    """``(callee, parameters)`` where an MS610 finding says the call leaves out parameters the callee requires (its
    data), or None."""
    from ms_lint.rules.ms610_call_rejected_by_version import CallRejected

    rejected = _record(finding, CallRejected)
    if rejected is None or rejected.kind != "missing" or not rejected.missing or "." not in rejected.name:
        return None
    return rejected.name, list(rejected.missing)


def removed_name(finding) -> str | None:
    """``numpy.name`` an MS613 finding says the installed numpy no longer has (its data), or None."""
    from ms_lint.rules.ms613_removed_numpy_name import RemovedName

    removed = _record(finding, RemovedName)
    return f"numpy.{removed.name}" if removed is not None and removed.name else None


def unbound_in(finding) -> str | None:
    """The name an MS116 finding says is bound on one path only (its data), or None."""
    from ms_lint.rules.ms116_name_bound_on_one_path import PartlyBound

    bound = _record(finding, PartlyBound)
    return bound.name if bound is not None else None


def dict_consumer(finding) -> str | None:
    """Where an MS122 finding's caller reads the Cell's dict by key (``path:line``; its data), or None."""
    from ms_lint.rules.ms122_dict_output_read_by_caller import DictReadByCaller

    read = _record(finding, DictReadByCaller)
    return (read.consumer or None) if read is not None else None


def concerns_devices(finding) -> bool:
    """Whether the finding's claim holds on some devices only: its record names the devices it concerns."""
    from ms_lint.rules import data_of

    return bool(getattr(data_of(finding), "devices", None))


def forward_count(finding) -> dict | None:
    """The transform an MS113 finding differentiates the Cell with and whether the Cell had set_grad() (its data),
    as ``{"transform", "set_grad"}``; None for any other finding."""
    from ms_lint.rules.ms113_grad_after_call_without_set_grad import ForwardRunTwice

    run = _record(finding, ForwardRunTwice)
    return {"transform": run.transform, "set_grad": bool(run.set_grad)} if run is not None else None


def tensor_method(finding) -> str | None:
    """The PyTorch tensor method an MS602 finding calls (``detach_``, ``size``; its data), or None."""
    from ms_lint.rules.ms602_tensor_method_missing import PytorchTensorMethod

    called = _record(finding, PytorchTensorMethod)
    return (called.name or None) if called is not None else None


def names_attribute(finding, attribute: str) -> bool:
    """Whether the finding is about ``attribute``: a name its data declares as its subject (the method,
    attribute, callee, type) is it (``detach``, ``mindspore.nn.functional`` for ``functional``)."""
    from ms_lint.rules import data_of

    data = data_of(finding)
    return data is not None and any(value == attribute or value.endswith("." + attribute)
                                    for value in data.subjects())
