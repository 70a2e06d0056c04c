"""From findings to jobs: one job per Cell class or jit function that carries findings.

A job says what the worker imports (module, import root), what it compiles (the target's qualified name), with
which inputs (an example, config input specs, or placeholders), which probes it runs, and its cache key.
Module-level findings get no job (there is nothing to compile), except those of a hazard that raises wherever its
line runs, on a line importing the module runs: the module gets a job of its own that imports it.
"""
from __future__ import annotations

import ast
import hashlib
import json
import os
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable

from ms_lint.findings import Finding
from ms_lint.validate.dependencies import DependencyIndex
from ms_lint.validate.own_examples import ProjectFiles
from ms_lint.validate.expectations import (
    COMPILE,
    CONSTRUCTION,
    EXPECTATIONS,
    LOOKED_UP,
    PARAMETER_PROBE,
    RANDOMNESS_PROBE,
    STATE_PROBE,
    built_at_its_line,
    built_call,
    container_attribute,
    expectation_for,
    forward_count,
    judged_eagerly,
    left_out_parameters,
    missing_name,
    rejected_keywords,
    removed_name,
    nothing_to_run,
    probes_for,
    tensor_method,
    written_names,
)
from ms_lint.validate.project import EXAMPLES_FILE_NAME, ModuleLocation, load_config, locate_module

# Bumped when the worker's outcome format or behaviour changes, so old cache entries are not reused.
OUTCOME_FORMAT = 20


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
    # [callee, keywords] of each MS610 finding of a keyword the callee does not take: its signature is read
    keyword_calls: list[list] = field(default_factory=list)
    # [callee, parameters] of each MS610 finding of parameters the call leaves out: whether the callee requires them
    required_calls: list[list] = field(default_factory=list)
    # Methods MS602 says MindSpore's Tensor lacks or has as a property (``detach_``, ``size``): the worker calls each
    # on a Tensor and a Parameter.
    tensor_methods: list[str] = field(default_factory=list)
    # How MS113 says a Cell is differentiated after a call (``{"transform", "set_grad"}``): the worker counts the
    # forwards that pattern runs on a Cell of its own.
    forward_counts: list[dict] = field(default_factory=list)
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
    # a module's own job: its findings lie in code importing it runs, and the import decides them (``imported``)
    module_only: bool = False
    # method -> the name it gives its instance (``reach.instance_parameters``): what the guards read it by
    instances: dict[str, str] = field(default_factory=dict)
    # findings outside any unit whose function this unit may reach: ``(finding, roots.Reach, roots.Unit)``
    reached: list = field(default_factory=list)
    # finding line -> how this unit compiles the helper it sits in (a helper function of the unit's file)
    through: dict[int, str] = field(default_factory=dict)
    # the project's own examples of the Cell (``own_examples``), as dicts, in the order the worker tries them
    own_examples: list[dict] = field(default_factory=list)
    level: str = "strict"  # the syntax level it is compiled at (its file's project's, or the one an option names)
    # "pynative" when every finding of the unit is a PyNative hazard judged in PyNative (``judged_eagerly``): the
    # unit is then built and run eagerly, not compiled; "graph" otherwise
    mode: str = "graph"
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
            "keyword_calls": self.keyword_calls,
            "required_calls": self.required_calls,
            "tensor_methods": self.tensor_methods,
            "forward_counts": self.forward_counts,
            "built_types": self.built_types,
            # The lines a compile under LAX can still decide (``retrying.next_fix``): rules failing at every level.
            "lax_lines": sorted({f.line for f in self.findings if expectation_for(f.code).check == COMPILE
                                 and expectation_for(f.code).expected_to_fail("lax")}),
            "syntax_level": syntax_level,
            "mode": self.mode,
            "finding_lines": sorted({f.line for f in self.findings}),
            # Traced while the instance is built: a line that did not run there was not checked by building it.
            "construction_lines": sorted({f.line for f in self.findings
                                          if built_at_its_line(f.code)}),
            "guards": {str(line): guard for line, guard in self.guards.items()},
            "instances": self.instances,
            "retries": self.retries,
            "host_calls": self.host_calls,
            "build_retries": self.build_retries,
            "reached": sorted({(finding.path, finding.line) for finding, _, _ in self.reached}),
            "own_examples": self.own_examples,
            "project_root": self.location.project_root,
            "module_only": self.module_only,
        }


@dataclass
class Plan:
    jobs: list[Job]
    module_level: list[Finding]  # findings with no Cell or jit function to compile
    # findings outside any unit that no unit of the project reaches, with what ``roots.roots_reaching`` answered
    unreached: list[tuple[Finding, object]] = field(default_factory=list)
    # the tests and scripts read for the units' own examples: ``save`` keeps the answers for the next run
    examples: ProjectFiles | None = None


def plan_jobs(
    findings: list[Finding],
    examples_override: str | None = None,
    device: str = "CPU",
    syntax_level: "str | Callable[[str], str]" = "strict",
    mindspore_version: str = "",
    tool_version: str = "",
    index: DependencyIndex | None = None,
    settings=None,
) -> Plan:
    """Group ``findings`` by the Cell class or jit function they sit in and describe each group as a job.
    ``syntax_level``: the level every job compiles at, or a function giving it for a file's path; ``settings``:
    the static checks' settings, with which the model answers which units reach a finding outside any."""
    level_for = syntax_level if callable(syntax_level) else (lambda path: syntax_level)
    groups: "OrderedDict[tuple[str, str], list[Finding]]" = OrderedDict()
    module_level: list[Finding] = []
    # Jobs run in file and line order, whatever order the files were found in.
    for finding in sorted(findings, key=lambda f: (os.path.abspath(f.path), f.line, f.col, f.code)):
        if nothing_to_run(finding):
            module_level.append(finding)
            continue
        groups.setdefault((os.path.abspath(finding.path), finding.scope), []).append(finding)

    index = index or DependencyIndex()
    from ms_lint.validate.roots import PackageFiles

    package = PackageFiles()  # the package modules, read once for the units of both questions below
    groups, reached, unreached, attached = _route(groups, settings, index, package)
    files = ProjectFiles()
    for key in reached:
        groups.setdefault(key, [])
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
            keyword_calls=_keyword_calls(group),
            required_calls=_calls(map(left_out_parameters, group)),
            tensor_methods=_tensor_methods(group),
            forward_counts=_forward_counts(group),
            built_types=_built_types(group),
        )
        job.guards, job.retries = _guards(path, scope, group)
        job.instances = _instances(path, scope)
        job.not_run = _not_run(path, scope, group)
        job.host_calls = _host_calls(path, scope, group)
        job.build_retries = _build_retries(path, scope, group)
        job.reached = reached.get((path, scope), [])
        job.through = attached.get((path, scope), {})
        job.own_examples = _own_examples(location, scope, files, package)
        job.level = level_for(path)
        job.mode = "pynative" if group and all(judged_eagerly(finding) for finding in group) else "graph"
        job.cache_key = cache_key(job, device, job.level, mindspore_version, tool_version, index)
        jobs.append(job)
    module_level, module_jobs = _module_jobs(module_level, examples_override)
    for job in module_jobs:
        job.level = level_for(job.path)
        job.cache_key = cache_key(job, device, job.level, mindspore_version, tool_version, index)
    return Plan(jobs=jobs + module_jobs, module_level=module_level, unreached=unreached, examples=files)


def _module_jobs(findings: list[Finding], examples_override: str | None) -> tuple[list[Finding], list[Job]]:
    """``(the findings left with nothing to run, one job per module)``: a finding outside any unit, of a hazard
    that raises wherever its line runs (a name this MindSpore lacks, a keyword a callee rejects), on a line that
    importing its module runs (``syntax.runs_at_import``: a module-level import, a decorator) of a package, is
    decided by importing the module; the others stay as they are."""
    from ms_lint.model.syntax import runs_at_import

    left: list[Finding] = []
    groups: "OrderedDict[str, list[Finding]]" = OrderedDict()
    for finding in findings:
        tree = _parse(finding.path) if not finding.scope and finding.code in EXPECTATIONS and expectation_for(
            finding.code).shows_eagerly else None  # (a file that does not parse, E999, has no rule behind it)
        if tree is not None and runs_at_import(tree, finding.line):
            groups.setdefault(os.path.abspath(finding.path), []).append(finding)
        else:
            left.append(finding)
    jobs = []
    for path, group in groups.items():
        location = locate_module(path)
        if "." not in location.module:
            left.extend(group)  # a script outside any package: importing it runs it, training and all
            continue
        config = load_config(location.project_root)
        jobs.append(Job(target=f"{location.module}:", location=location, qualname="", findings=group, probes=[],
                        examples_file=_examples_file(location.project_root, config.examples, examples_override),
                        input_specs=None, module_only=True))
    return left, jobs


def _route(groups, settings, index, package):
    """``(groups, reached, unreached, attached)``: each finding in a unit (a Cell class or jit function) stays in
    its group; the findings of a helper function that a Cell of its file reaches join that Cell's group (compiled
    with the branch conditions over its call; ``attached``: unit -> {line: how}); the other findings outside any
    unit (a ``@jit_class`` method, a helper, a mixin's or a base class's method) go to each unit
    ``roots.roots_reaching`` names, in ``reached`` (unit -> ``[(finding, reach, unit)]``), or, where none reaches
    them, to ``unreached``. A finding of a hazard that raises eagerly too (MS602, MS604-MS607) keeps a group of its
    own: it is real wherever the line runs."""
    from ms_lint.validate.roots import roots_reaching, unit_kind

    result: "OrderedDict[tuple[str, str], list[Finding]]" = OrderedDict()
    reached: dict[tuple[str, str], list[tuple]] = {}
    unreached: list[tuple[Finding, object]] = []
    attached: dict[tuple[str, str], dict[int, str]] = {}
    for (path, scope), group in groups.items():
        kind = unit_kind(path, scope, settings, index)
        if kind == "cell":
            # A method of a base Cell that only other Cells' graph code calls (a subclass's construct): through them.
            for finding in group:
                reach = roots_reaching(path, finding.line, settings, index) \
                    if expectation_for(finding.code).check == COMPILE and not expectation_for(
                        finding.code).shows_eagerly else None
                if reach is not None and reach.roots and scope not in {unit.scope for unit in reach.roots}:
                    for unit in reach.units:
                        reached.setdefault((os.path.abspath(unit.path), unit.scope), []).append((finding, reach, unit))
                else:
                    result.setdefault((path, scope), []).append(finding)
            continue
        if kind in (None, "jit"):
            result.setdefault((path, scope), []).extend(group)
            continue
        if kind == "function":
            reach = roots_reaching(path, group[0].line, settings, index)
            cell = next((unit for unit in reach.roots if unit_kind(unit.path, unit.scope, settings, index) == "cell"
                         and os.path.abspath(unit.path) == path), None)
            if cell is not None:
                result.setdefault((path, cell.scope), []).extend(group)
                attached.setdefault((path, cell.scope), {}).update(
                    {finding.line: f"{reach.function} is compiled through {cell.scope} ({cell.how})"
                     for finding in group})
                continue
        eager = [finding for finding in group if expectation_for(finding.code).shows_eagerly
                 or expectation_for(finding.code).eager]
        if eager:
            result.setdefault((path, scope), []).extend(eager)
        for finding in group:
            if finding in eager:
                continue
            reach = roots_reaching(path, finding.line, settings, index, package)
            units = reach.units
            if not units:
                unreached.append((finding, reach))
            for unit in units:
                reached.setdefault((os.path.abspath(unit.path), unit.scope), []).append((finding, reach, unit))
    return result, reached, unreached, attached


def _guards(path: str, scope: str, findings: list[Finding]) -> tuple[dict[int, dict], list[dict]]:
    """The branch conditions over each finding line that compiles (see ``reach``), per unit."""
    from ms_lint.validate.reach import guards_for, retries_for

    tree = _parse(path)
    if tree is None:
        return {}, []
    by_scope: dict[str, set[int]] = {}
    columns: dict[int, set[int]] = {}
    for finding in findings:
        if expectation_for(finding.code).check in (COMPILE, RANDOMNESS_PROBE):
            by_scope.setdefault(finding.scope, set()).add(finding.line)
            columns.setdefault(finding.line, set()).add(finding.col)
    guards: dict[int, dict] = {}
    retries: list[dict] = []
    for name, lines in by_scope.items():
        # A helper function of the module is compiled through the class's construct, under its call's conditions.
        found, wanted = guards_for(tree, name, lines, caller=scope if name != scope else None, columns=columns)
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
    """The findings that raise while a layer is built (MS604, MS606), and those a lookup decides wherever they
    run (``LOOKED_UP``), in a method that neither building the Cell nor construct runs, which only its users call
    (see ``reach.not_run``, ``reach.called_by_users``)."""
    from ms_lint.validate.reach import called_by_users, not_run

    lines = {f.line for f in findings if expectation_for(f.code).check == CONSTRUCTION}
    looked_up = {f.line for f in findings if f.code in LOOKED_UP}
    tree = _parse(path) if lines or looked_up else None
    if tree is None:
        return {}
    return {**called_by_users(tree, scope, looked_up), **not_run(tree, scope, lines)}


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


def _own_examples(location: ModuleLocation, scope: str, files, package=None) -> list[dict]:
    """The project's own examples of the class ``scope`` (``own_examples``): its docstring examples, the tests
    and the scripts that build it, the Cells that build it, in that order; and a docstring example left out, as
    one that says why."""
    from ms_lint.validate.own_examples import docstring_examples, enclosing_examples, factory_examples, scan_root

    tree = _parse(location.path)
    if tree is None or "." in scope or not any(isinstance(node, ast.ClassDef) and node.name == scope
                                               for node in tree.body):
        return []
    shown = os.path.relpath(location.path, location.project_root)
    found, skipped = docstring_examples(tree, location.path, scope, shown if not shown.startswith("..") else None)
    found += files.stored_examples(scan_root(location.project_root, location.import_root, location.module), scope,
                                   location.path, location.project_root, tree)
    found += enclosing_examples(tree, location.path, scope, package)
    found += factory_examples(tree, location.path, scope,
                              scan_root(location.project_root, location.import_root, location.module), package)
    return [{"kind": "skipped", "why": why} for why in skipped] + [example.to_dict() for example in found]


def _examples_file(project_root: str, configured: str | None, override: str | None) -> str | None:
    if override:
        return os.path.abspath(override)
    candidate = os.path.join(project_root, configured or EXAMPLES_FILE_NAME)
    return os.path.abspath(candidate) if os.path.isfile(candidate) else None


def _container_attributes(findings: list[Finding]) -> dict[int, str]:
    """For container findings, the ``self.<attr>`` their line puts elements in (the probe reports by attribute)."""
    result: dict[int, str] = {}
    for finding in findings:
        attribute = container_attribute(finding)
        if expectation_for(finding.code).check == PARAMETER_PROBE and attribute:
            result.setdefault(finding.line, attribute)
    return result


def _api_names(findings: list[Finding]) -> list[str]:
    """``module.name`` for each MS607 and MS613 finding, in order, once each."""
    return list(dict.fromkeys(name for finding in findings
                              for name in (missing_name(finding), removed_name(finding)) if name))


def _keyword_calls(findings: list[Finding]) -> list[list]:
    """``[callee, keywords]`` for each MS610 finding of keywords the callee does not take, once each."""
    return _calls(map(rejected_keywords, findings))


def _calls(records) -> list[list]:
    """``[callee, names]`` for each record that is not None, once each."""
    found: list[list] = []
    for record in filter(None, records):
        if list(record) not in found:
            found.append(list(record))
    return found


def _tensor_methods(findings: list[Finding]) -> list[str]:
    """The method each MS602 finding calls, in order, once each."""
    return list(dict.fromkeys(filter(None, map(tensor_method, findings))))


def _forward_counts(findings: list[Finding]) -> list[dict]:
    """The differentiation patterns of the MS113 findings (``expectations.forward_count``), once each."""
    found: list[dict] = []
    for pattern in filter(None, map(forward_count, findings)):
        if pattern not in found:
            found.append(pattern)
    return found


def _built_types(findings: list[Finding]) -> dict[str, dict]:
    """For each MS103 finding of a user type built from tensor data, the call that builds the type: the callee's
    dotted name, how many positional arguments and which keywords it passes (keyed by the line, as text for JSON).
    A call that unpacks ``*args``, or whose callee is not a dotted name of the type, is left out."""
    found: dict[str, dict] = {}
    for finding in findings:
        call = built_call(finding) if str(finding.line) not in found else None
        if call is not None:
            found[str(finding.line)] = call
    return found


def _state_names(findings: list[Finding]) -> list[str]:
    """For host-written state findings, what the finding's line writes: ``net.scale = ...`` gives ``scale``,
    ``SMOOTHING = ...`` gives ``SMOOTHING``; a setter call (``net.set_scale(t)``) gives nothing, and the probe then
    changes every plain number attribute of the Cell."""
    names: list[str] = []
    for finding in findings:
        if expectation_for(finding.code).check != STATE_PROBE:
            continue
        for name in written_names(finding):
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
        "mode": job.mode,
        "target": job.target,
        "import_root": job.location.import_root,
        "namespace_roots": list(job.location.namespace_roots),
        "probes": job.probes,
        "state": job.state_names,
        "api": job.api_names,
        "keywords": job.keyword_calls,
        "required": job.required_calls,
        "tensor_methods": job.tensor_methods,
        "forward_counts": job.forward_counts,
        "built": job.built_types,
        "host": job.host_calls,
        "build_retries": job.build_retries,
        "inputs": job.input_specs,
        "reached": job.request("")["reached"],
        "own_examples": job.own_examples,
        "module_only": job.module_only,
    }
    digest.update(json.dumps(header, sort_keys=True).encode())
    location = job.location
    digest.update(index.closure_digest(location.path, location.import_root, location.project_root).encode())
    # The files the project's own examples run (tests with their conftest.py files, scripts) and those of the
    # findings the unit may reach: what they hold changes the outcome too.
    for path in sorted(_example_files(job) | {finding.path for finding, _, _ in job.reached}):
        digest.update(b"file\0" + path.encode() + b"\0" + index.digest(path, location.project_root,
                                                                       location.import_root).encode())
    if job.examples_file:
        digest.update(b"examples\0" + job.examples_file.encode() + b"\0")
        digest.update(index.example_digest(job.examples_file, job.target).encode())
    return digest.hexdigest()


def _example_files(job: Job) -> set[str]:
    """The test and script files the job's own examples run (and the modules of the Cells that build it), with the
    ``conftest.py`` files above each test."""
    files: set[str] = set()
    for example in job.own_examples:
        if example["kind"] not in ("test", "script", "enclosing", "factory"):
            continue
        files.add(example["path"])
        if example.get("config"):
            files.add(example["config"])
        if example["kind"] == "test":
            folder = os.path.dirname(example["path"])
            while folder.startswith(job.location.project_root):
                candidate = os.path.join(folder, "conftest.py")
                if os.path.isfile(candidate):
                    files.add(candidate)
                if folder == job.location.project_root or os.path.dirname(folder) == folder:
                    break
                folder = os.path.dirname(folder)
    return files


def project_sources(location: ModuleLocation, limit: int = 2000) -> set[str]:
    """The module's file, the ``__init__.py`` files of its packages, and every file of the same import root
    it imports, transitively (all of them run when the worker imports the module)."""
    return set(DependencyIndex(limit).sources(location.path, location.import_root, location.project_root))
