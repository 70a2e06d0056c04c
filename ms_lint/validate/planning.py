"""From findings to jobs: one job per Cell class or jit function that carries findings.

A job says what the worker imports (module, import root), what it compiles (the target's qualified name), with
which inputs (an example, config input specs, or placeholders), which probes it runs, and its cache key.
Module-level findings get no job: there is nothing to compile.
"""
from __future__ import annotations

import ast
import hashlib
import json
import os
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache

from ms_lint.findings import Finding
from ms_lint.validate.dependencies import DependencyIndex
from ms_lint.validate.expectations import (
    COMPILE,
    CONSTRUCTION,
    MODULE_LEVEL,
    PARAMETER_PROBE,
    RANDOMNESS_PROBE,
    STATE_PROBE,
    built_at_its_line,
    expectation_for,
    missing_name,
    probes_for,
    tensor_method,
)
from ms_lint.validate.project import EXAMPLES_FILE_NAME, ModuleLocation, load_config, locate_module

# Bumped when the worker's outcome format or behaviour changes, so old cache entries are not reused.
OUTCOME_FORMAT = 15


@dataclass
class Job:
    """One unit to compile: a Cell class or a jit function, with the findings inside it."""

    target: str  # "package.module:QualName", the name examples are registered under
    location: ModuleLocation
    qualname: str
    findings: list[Finding]
    probes: list[str]
    examples_file: str | None
    input_specs: list[str] | None
    container_attributes: dict[int, str] = field(default_factory=dict)  # finding line -> self.<attr>
    # Attributes or globals that host code writes (MS118): the state probe changes them between two calls.
    state_names: list[str] = field(default_factory=list)
    # Names MS607 says a MindSpore module lacks (``mindspore.nn.utils.weight_norm``): the worker looks them up.
    api_names: list[str] = field(default_factory=list)
    # Methods MS602 says MindSpore's Tensor lacks or has as a property (``detach_``, ``size``): the worker calls each
    # on a Tensor and a Parameter.
    tensor_methods: list[str] = field(default_factory=list)
    # The user types MS103 says a line builds from tensor data: the worker builds each from a tensor in a Cell of its
    # own, which decides the finding where the unit's compile stops before its line.
    built_types: dict[str, dict] = field(default_factory=dict)
    guards: dict[int, dict] = field(default_factory=dict)  # finding line -> the branch conditions leading to it
    # finding line -> the host method it sits in, which neither building the Cell nor construct runs
    not_run: dict[int, str] = field(default_factory=dict)
    # host method -> the lines it holds of findings that raise eagerly too: the worker calls it on a built instance
    host_calls: dict[str, list[int]] = field(default_factory=dict)
    # constructor arguments that run construction lines the defaults skip (``reach.build_retries``)
    build_retries: list[dict] = field(default_factory=list)
    retries: list[dict] = field(default_factory=list)  # what to switch on when a guarded line is not compiled
    # method -> the name it gives its instance (``reach.instance_parameters``): what the guards read it by
    instances: dict[str, str] = field(default_factory=dict)
    cache_key: str = ""

    @property
    def path(self) -> str:
        return self.location.path

    def request(self, syntax_level: str) -> dict:
        """What the worker needs, as JSON-ready data."""
        return {
            "target": self.target,
            "path": self.location.path,
            "module": self.location.module,
            "import_root": self.location.import_root,
            "namespace_roots": list(self.location.namespace_roots),
            "qualname": self.qualname,
            "examples_file": self.examples_file,
            "input_specs": self.input_specs,
            "probes": self.probes,
            "state_names": self.state_names,
            "api_names": self.api_names,
            "tensor_methods": self.tensor_methods,
            "built_types": self.built_types,
            # The lines a compile under LAX can still decide (``retrying.next_fix``): rules failing at every level.
            "lax_lines": sorted({f.line for f in self.findings if expectation_for(f.code).check == COMPILE
                                 and expectation_for(f.code).expected_to_fail("lax")}),
            "syntax_level": syntax_level,
            "finding_lines": sorted({f.line for f in self.findings}),
            # Traced while the instance is built: a line that did not run there was not checked by building it.
            "construction_lines": sorted({f.line for f in self.findings
                                          if built_at_its_line(f.code)}),
            "guards": {str(line): guard for line, guard in self.guards.items()},
            "instances": self.instances,
            "retries": self.retries,
            "host_calls": self.host_calls,
            "build_retries": self.build_retries,
        }


@dataclass
class Plan:
    jobs: list[Job]
    module_level: list[Finding]  # findings with no Cell or jit function to compile


def plan_jobs(
    findings: list[Finding],
    examples_override: str | None = None,
    device: str = "CPU",
    syntax_level: str = "strict",
    mindspore_version: str = "",
    tool_version: str = "",
    index: DependencyIndex | None = None,
) -> Plan:
    """Group ``findings`` by the Cell class or jit function they sit in and describe each group as a job."""
    groups: "OrderedDict[tuple[str, str], list[Finding]]" = OrderedDict()
    module_level: list[Finding] = []
    # Jobs run in file and line order, whatever order the files were found in.
    for finding in sorted(findings, key=lambda f: (os.path.abspath(f.path), f.line, f.col, f.code)):
        if not finding.scope or expectation_for(finding.code).check == MODULE_LEVEL:
            module_level.append(finding)
            continue
        groups.setdefault((os.path.abspath(finding.path), finding.scope), []).append(finding)

    groups = _attach_helpers_to_cells(groups)
    index = index or DependencyIndex()
    jobs = []
    for (path, scope), group in groups.items():
        location = locate_module(path)
        config = load_config(location.project_root)
        target = f"{location.module}:{scope}"
        examples_file = _examples_file(location.project_root, config.examples, examples_override)
        specs = config.inputs.get(target)
        job = Job(
            target=target,
            location=location,
            qualname=scope,
            findings=sorted(group, key=lambda f: (f.line, f.col, f.code)),
            probes=probes_for(f.code for f in group),
            examples_file=examples_file,
            input_specs=list(specs) if specs else None,
            container_attributes=_container_attributes(group),
            state_names=_state_names(group),
            api_names=_api_names(group),
            tensor_methods=_tensor_methods(group),
            built_types=_built_types(group),
        )
        job.guards, job.retries = _guards(path, scope, group)
        job.instances = _instances(path, scope)
        job.not_run = _not_run(path, scope, group)
        job.host_calls = _host_calls(path, scope, group)
        job.build_retries = _build_retries(path, scope, group)
        job.cache_key = cache_key(job, device, syntax_level, mindspore_version, tool_version, index)
        jobs.append(job)
    return Plan(jobs=jobs, module_level=module_level)


def _guards(path: str, scope: str, findings: list[Finding]) -> tuple[dict[int, dict], list[dict]]:
    """The branch conditions over each finding line that compiles (see ``reach``), per unit."""
    from ms_lint.validate.reach import guards_for, retries_for

    tree = _parse(path)
    if tree is None:
        return {}, []
    by_scope: dict[str, set[int]] = {}
    for finding in findings:
        if expectation_for(finding.code).check in (COMPILE, RANDOMNESS_PROBE):
            by_scope.setdefault(finding.scope, set()).add(finding.line)
    guards: dict[int, dict] = {}
    retries: list[dict] = []
    for name, lines in by_scope.items():
        # A helper function of the module is compiled through the class's construct, under its call's conditions.
        found, wanted = guards_for(tree, name, lines, caller=scope if name != scope else None)
        guards.update(found)
        if name == scope:
            retries = wanted
    if any(name != scope for name in by_scope):
        retries = retries_for(tree, scope, guards) or retries
    return guards, retries


def _instances(path: str, scope: str) -> dict[str, str]:
    """The instance parameter of each method of the unit's class (see ``reach.instance_parameters``)."""
    from ms_lint.validate.reach import instance_parameters

    tree = _parse(path)
    return instance_parameters(tree, scope) if tree is not None else {}


def _not_run(path: str, scope: str, findings: list[Finding]) -> dict[int, str]:
    """The findings that raise while a layer is built (MS604, MS606) in a method that neither building the
    Cell nor construct runs (see ``reach.not_run``)."""
    from ms_lint.validate.reach import not_run

    lines = {f.line for f in findings if expectation_for(f.code).check == CONSTRUCTION}
    tree = _parse(path) if lines else None
    return not_run(tree, scope, lines) if tree is not None else {}


def _host_calls(path: str, scope: str, findings: list[Finding]) -> dict[str, list[int]]:
    """The host methods holding findings that raise eagerly too (see ``reach.host_calls``)."""
    from ms_lint.validate.reach import host_calls

    lines = {f.line for f in findings if f.scope == scope and expectation_for(f.code).shows_eagerly}
    tree = _parse(path) if lines else None
    return host_calls(tree, scope, lines) if tree is not None else {}


def _build_retries(path: str, scope: str, findings: list[Finding]) -> list[dict]:
    """Constructor arguments that run the construction findings' lines the defaults skip."""
    from ms_lint.validate.reach import build_retries

    lines = {f.line for f in findings if f.scope == scope and built_at_its_line(f.code)}
    tree = _parse(path) if lines else None
    return build_retries(tree, scope, lines) if tree is not None else []


def _attach_helpers_to_cells(groups):
    """Findings in a plain module-level function (a helper that construct calls) are validated by compiling a
    class of the same file whose root compiles it, as the model says (each finding's ``compiled_by``): the compile
    goes through the helper and fails at its line."""
    result: "OrderedDict[tuple[str, str], list[Finding]]" = OrderedDict()
    trees: dict[str, ast.Module | None] = {}
    for (path, scope), group in groups.items():
        if path not in trees:
            trees[path] = _parse(path)
        caller = _compiling_class(path, trees[path], scope, group) if trees[path] is not None else None
        key = (path, caller or scope)
        result.setdefault(key, []).extend(group)
    return result


def _roots_compiling(path: str, tree: ast.Module, function: ast.AST) -> list[str]:
    """The roots that compile ``function`` of the module at ``path`` in GRAPH_MODE, as the model finds them."""
    from ms_lint.model import ModuleFacts
    from ms_lint.settings import Settings

    try:
        facts = ModuleFacts(tree, path, Settings(mode="graph", syntax_level="strict"), callers_elsewhere=False)
        found = facts.graph_function_at(function)
    except Exception:  # noqa: BLE001 -- a module the model cannot read compiles as it is
        return []
    return sorted(found.compiled_by) if found is not None and found.node is function else []


def _compiling_class(path: str, tree: ast.Module, scope: str, group: list[Finding]) -> str | None:
    """For findings in the module-level function ``scope`` that is no root itself, the Cell of the same file whose
    ``construct`` (or ``bprop``) the model says compiles them (``Net.construct`` among their ``compiled_by``, or the
    model's answer for the function where they carry none)."""
    function = next((node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                     and node.name == scope), None)
    if function is None:
        return None
    classes = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
    labels = sorted({label for finding in group for label in finding.data.get("compiled_by", ())})
    if not labels:  # findings made elsewhere: the model says what compiles the function, as for its own
        labels = _roots_compiling(path, tree, function)
    if scope in labels:
        return None  # a root itself: a jit function is compiled as it is
    for label in labels:
        owner, _, method = label.partition(".")
        if method in ("construct", "bprop") and owner in classes:
            return owner
    return None


def _examples_file(project_root: str, configured: str | None, override: str | None) -> str | None:
    if override:
        return os.path.abspath(override)
    candidate = os.path.join(project_root, configured or EXAMPLES_FILE_NAME)
    return os.path.abspath(candidate) if os.path.isfile(candidate) else None


def _container_attributes(findings: list[Finding]) -> dict[int, str]:
    """For container findings, the ``self.<attr>`` their line puts elements in (the probe reports by attribute)."""
    result: dict[int, str] = {}
    for finding in findings:
        attribute = finding.data.get("attribute")
        if expectation_for(finding.code).check == PARAMETER_PROBE and attribute:
            result.setdefault(finding.line, attribute)
    return result


def _api_names(findings: list[Finding]) -> list[str]:
    """``module.name`` for each MS607 finding, in order, once each."""
    return list(dict.fromkeys(filter(None, map(missing_name, findings))))


def _tensor_methods(findings: list[Finding]) -> list[str]:
    """The method each MS602 finding calls, in order, once each."""
    return list(dict.fromkeys(filter(None, map(tensor_method, findings))))


def _built_types(findings: list[Finding]) -> dict[str, dict]:
    """For each MS103 finding of a user type built from tensor data, the call that builds the type: the callee's
    dotted name, how many positional arguments and which keywords it passes (keyed by the line, as text for JSON).
    A call that unpacks ``*args``, or whose callee is not a dotted name of the type, is left out."""
    found: dict[str, dict] = {}
    for finding in findings:
        data = finding.data
        built, callee = data.get("built_type"), data.get("callee")
        if finding.code != "MS103" or not built or not callee or data.get("starred") or str(finding.line) in found:
            continue
        if callee.rpartition(".")[2] == built.rpartition(".")[2]:
            found[str(finding.line)] = {"callee": callee, "positional": data.get("positional", 0),
                                        "keywords": list(data.get("keywords") or [])}
    return found


def _state_names(findings: list[Finding]) -> list[str]:
    """For host-written state findings, what the finding's line writes: ``net.scale = ...`` gives ``scale``,
    ``SMOOTHING = ...`` gives ``SMOOTHING``; a setter call (``net.set_scale(t)``) gives nothing, and the probe then
    changes every plain number attribute of the Cell."""
    names: list[str] = []
    for finding in findings:
        if expectation_for(finding.code).check != STATE_PROBE:
            continue
        for name in finding.data.get("written") or ():
            if name not in names:
                names.append(name)
    return names


def _parse(path: str) -> ast.Module | None:
    """The module's tree, parsed once per version of the file (planning asks several times per unit)."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return _parse_version(path, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=64)
def _parse_version(path: str, mtime_ns: int, size: int) -> ast.Module | None:
    from ms_lint.model.source import read_source

    try:
        return ast.parse(read_source(path), filename=path)
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None


# ---------------------------------------------------------------------------------------------------------------
# Cache keys: everything the worker's outcome depends on.

def cache_key(job: Job, device: str, syntax_level: str, mindspore_version: str, tool_version: str,
              index: "DependencyIndex | None" = None) -> str:
    index = index or DependencyIndex()
    digest = hashlib.sha256()
    header = {
        "format": OUTCOME_FORMAT,
        "ms-lint": tool_version,
        "mindspore": mindspore_version,
        "device": device,
        "level": syntax_level,
        "target": job.target,
        "import_root": job.location.import_root,
        "namespace_roots": list(job.location.namespace_roots),
        "probes": job.probes,
        "state": job.state_names,
        "api": job.api_names,
        "tensor_methods": job.tensor_methods,
        "built": job.built_types,
        "host": job.host_calls,
        "build_retries": job.build_retries,
        "inputs": job.input_specs,
    }
    digest.update(json.dumps(header, sort_keys=True).encode())
    location = job.location
    digest.update(index.closure_digest(location.path, location.import_root, location.project_root).encode())
    if job.examples_file:
        digest.update(b"examples\0" + job.examples_file.encode() + b"\0")
        digest.update(index.example_digest(job.examples_file, job.target).encode())
    return digest.hexdigest()


def project_sources(location: ModuleLocation, limit: int = 2000) -> set[str]:
    """The module's file, the ``__init__.py`` files of its packages, and every file of the same import root
    it imports, transitively (all of them run when the worker imports the module)."""
    return set(DependencyIndex(limit).sources(location.path, location.import_root, location.project_root))
