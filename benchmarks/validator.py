#!/usr/bin/env python3
"""How fast ``ms-lint validate`` compiles: jobs per second with 1 and 2 worker processes after warm-up, and the
time of a re-run that finds everything in the cache.

Run it from the repository root, in the environment where ms-lint and MindSpore are installed::

    python benchmarks/validator.py                        # 24 units, 3 repetitions, table on stdout
    python benchmarks/validator.py --units 48 --repeat 5 --json benchmarks/results-validator.json

The project is generated in a temporary directory: ``--units`` / 3 modules of a package, each with three Cells
that the static checks flag: one whose compile fails (numpy on a tensor, MS101: confirmed), one holding a Dense
and a LayerNorm in a plain list (MS201: compiles, then the parameter probe runs), and one holding a PReLU (one
learnable slope) beside a parameter-free Tanh in a plain list (MS201: parameter-free Cells alone are not flagged).
Small Cells on purpose: the figure is the validator's overhead per job (scheduling, import, instance, compile,
probe, verdict), not MindSpore's compile time of a large model.

What is measured:

1. Worker start-up: seconds until every worker of the pool has imported MindSpore and compiled its warm-up Cell.
2. Compile throughput: each worker first runs one job of a separate warm-up module; then all units are validated
   ``--repeat`` times with the cache off, and the median run gives jobs/s. The first repetition also imports the
   generated modules in the workers; later ones find them imported, as a long run does for modules it has seen.
3. Warm re-run from the cache: after one run that fills ``.ms_lint_cache/``, the median of ``--repeat`` in-process
   ``validate_paths`` runs (static checks included, no worker started), and the median wall time of the whole
   ``ms-lint validate`` command in a fresh process (interpreter start included).

``--real`` measures a pinned real corpus instead: the eight model files of mindone 0.5.0 listed in ``REAL_CORPUS``
(install ``mindone==0.5.0`` with its dependencies next to ms-lint and MindSpore), validated with no example
registered: findings decided (confirmed, confirmed by probe, not reproduced, not reached) per file, the first run
with the cache cleared and the median of ``--repeat`` re-runs with nothing changed, each the whole command in a fresh
process::

    python benchmarks/validator.py --real --json benchmarks/results-validator-real.json

``--library PACKAGE`` measures one library package of the development corpus the same way, at the target
``ms-lint check`` infers for it (``--level`` to choose one), its repository copied to a scratch folder first::

    python benchmarks/validator.py --library benchmarks/.corpus/development/mindspore-lab+mindediting/mindediting
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

MODULE = '''\
import numpy as np
from mindspore import Tensor, nn


class Sine{index}(nn.Cell):
    def construct(self, x):
        return Tensor(np.sin(x)) * {index}


class Stages{index}(nn.Cell):
    def __init__(self):
        super().__init__()
        self.stages = [nn.Dense(8, 8), nn.LayerNorm((8,))]

    def construct(self, x):
        for stage in self.stages:
            x = stage(x)
        return x


class Activations{index}(nn.Cell):
    def __init__(self):
        super().__init__()
        self.activations = [nn.PReLU(), nn.Tanh()]

    def construct(self, x):
        return self.activations[0](x) * self.activations[1](x) + {index}
'''


def generate_project(root: Path, modules: int) -> Path:
    project = root / "bench_project"
    package = project / "benchpkg"
    package.mkdir(parents=True)
    (project / "pyproject.toml").write_text('[project]\nname = "bench-project"\nversion = "0"\n')
    (package / "__init__.py").write_text("")
    for index in range(modules):
        (package / f"models_{index}.py").write_text(MODULE.format(index=index))
    warm_up = project / "warmup"
    warm_up.mkdir()
    (warm_up / "__init__.py").write_text("")
    for index in range(2):
        (warm_up / f"warm_{index}.py").write_text(MODULE.format(index=100 + index))
    return project


def findings_under(path: Path, options):
    from ms_lint.validate.runner import static_findings

    findings, files, _ = static_findings([str(path)], options)
    return findings, files


def throughput(findings, warm_up_findings, workers: int, repeat: int) -> dict:
    from ms_lint.validate.pool import PoolConfig, WorkerPool
    from ms_lint.validate.runner import ValidateOptions, validate_findings

    options = ValidateOptions(use_cache=False)
    started = time.perf_counter()
    pool = WorkerPool(PoolConfig(size=workers, timeout=300))
    try:
        pool.wait_all_ready(timeout=600)
        startup = time.perf_counter() - started
        # One job per worker outside the measurement: every worker has compiled a user Cell before timing.
        per_worker = [f for f in warm_up_findings if f.scope.startswith("Sine")][:workers]
        validate_findings(per_worker, options, pool=pool)
        units = len({(f.path, f.scope) for f in findings})
        times = []
        for _ in range(repeat):
            started = time.perf_counter()
            report = validate_findings(findings, options, pool=pool)
            times.append(time.perf_counter() - started)
            assert len(report.units) == units, "every unit must have run"
    finally:
        pool.close()
    median = statistics.median(times)
    return {"workers": workers, "units": units, "startup_s": startup, "runs_s": times, "median_s": median,
            "jobs_per_s": units / median}


def cached_rerun(project: Path, lint_options, repeat: int) -> dict:
    from ms_lint.validate.runner import ValidateOptions, validate_paths

    options = ValidateOptions(use_cache=True, jobs=2)
    cache = project / ".ms_lint_cache"
    shutil.rmtree(cache, ignore_errors=True)
    started = time.perf_counter()
    filled = validate_paths([str(project / "benchpkg")], options, lint_options=lint_options)
    fill = time.perf_counter() - started
    in_process = []
    for _ in range(repeat):
        started = time.perf_counter()
        report = validate_paths([str(project / "benchpkg")], options, lint_options=lint_options)
        in_process.append(time.perf_counter() - started)
        assert all(unit.cached for unit in report.units), "a warm re-run must come from the cache"
    # The same target as the in-process runs (``ValidateOptions``' STRICT on CPU), not the one ``check`` infers.
    command = [sys.executable, "-m", "ms_lint.cli", "validate", str(project / "benchpkg"), "--syntax-level",
               options.syntax_level, "--device", options.device]
    whole = []
    for _ in range(repeat):
        started = time.perf_counter()
        completed = subprocess.run(command, capture_output=True, text=True, cwd=str(project))
        whole.append(time.perf_counter() - started)
        if completed.returncode not in (0, 1) or "(0 run," not in completed.stdout:
            raise SystemExit(f"the cached command run failed: {completed.stderr or completed.stdout}")
    return {"units": len(filled.units), "fill_s": fill, "in_process_s": in_process,
            "in_process_median_s": statistics.median(in_process), "command_s": whole,
            "command_median_s": statistics.median(whole)}


# The real corpus: eight model files of mindone 0.5.0 (transformers- and diffusers-style models), as installed.
REAL_CORPUS = {
    "package": "mindone",
    "version": "0.5.0",
    "files": [
        "diffusers/models/embeddings.py",
        "models/nerfacc/scan.py",
        "transformers/models/big_bird/modeling_big_bird.py",
        "transformers/models/git/modeling_git.py",
        "transformers/models/ibert/quant_modules.py",
        "transformers/models/qwen3_vl/modeling_qwen3_vl.py",
        "transformers/models/speecht5/modeling_speecht5.py",
        "transformers/models/zoedepth/modeling_zoedepth.py",
    ],
}
# Decided: the hazard shown real, shown absent with the line in the graph, or the line shown out of the graph.
DECIDED = ("confirmed", "confirmed by probe", "not reproduced", "not reached")


def real_corpus(repeat: int, jobs: int = 2, timeout: float = 120, level: str | None = None) -> dict:
    """``ms-lint validate`` on the pinned real corpus with no example registered: the first run (cache cleared)
    and re-runs with nothing changed, each a whole command in a fresh process; decided findings per file."""
    import importlib.util
    from importlib.metadata import version

    spec = importlib.util.find_spec(REAL_CORPUS["package"])
    if spec is None or version(REAL_CORPUS["package"]) != REAL_CORPUS["version"]:
        raise SystemExit(f"--real needs {REAL_CORPUS['package']}=={REAL_CORPUS['version']} installed with its "
                         f"dependencies in this environment")
    root = Path(spec.origin).parent
    files = [str(root / name) for name in REAL_CORPUS["files"]]
    project_cache = None
    from ms_lint.validate.cache import STORED_STATUSES
    from ms_lint.validate.project import CACHE_DIR_NAME, locate_module

    project_cache = Path(locate_module(files[0]).project_root) / CACHE_DIR_NAME
    shutil.rmtree(project_cache, ignore_errors=True)
    command = [sys.executable, "-m", "ms_lint.cli", "validate", *files, "--jobs", str(jobs), "--timeout",
               str(timeout), "--format", "json", *(["--syntax-level", level] if level else [])]
    started = time.perf_counter()
    completed = subprocess.run(command, capture_output=True, text=True)
    first = time.perf_counter() - started
    if completed.returncode not in (0, 1):
        raise SystemExit(f"ms-lint validate failed: {completed.stderr[-2000:]}")
    document = json.loads(completed.stdout)
    first_status = {unit["target"]: unit["status"] for unit in document["units"]}
    reruns = []
    # A unit whose first run timed out (a loaded machine) is not kept by the cache, by design: the re-run compiles
    # it again and says so; any other unit compiled again is a cache that failed.
    uncached: dict[str, str] = {}
    for _ in range(repeat):
        started = time.perf_counter()
        again = subprocess.run(command, capture_output=True, text=True)
        reruns.append(time.perf_counter() - started)
        for unit in json.loads(again.stdout)["units"]:
            if not unit["cached"]:
                uncached[unit["target"]] = first_status.get(unit["target"], "new")
        failed = {target: status for target, status in uncached.items() if status in STORED_STATUSES}
        if failed:
            raise SystemExit(f"a re-run with nothing changed compiled something the cache keeps again: {failed}")
    per_file: dict[str, dict] = {}
    for item in document["findings"]:
        name = os.path.relpath(item["path"], root)
        counts = per_file.setdefault(name, {"findings": 0, "decided": 0, "verdicts": {}})
        counts["findings"] += 1
        counts["decided"] += item["verdict"] in DECIDED
        counts["verdicts"][item["verdict"]] = counts["verdicts"].get(item["verdict"], 0) + 1
    total = sum(counts["findings"] for counts in per_file.values())
    decided = sum(counts["decided"] for counts in per_file.values())
    how = Counter(_decided_how(item) for item in document["findings"] if item["verdict"] in DECIDED)
    return {"corpus": REAL_CORPUS, "level": document["syntax_level"], "first_s": first, "reruns_s": reruns,
            "rerun_median_s": statistics.median(reruns),
            "findings": total, "decided": decided, "decided_how": dict(how), "per_file": per_file,
            "summary": document["summary"], "not_kept": uncached,
            "verdicts": sorted((os.path.relpath(item["path"], root), item["line"], item["code"], item["verdict"])
                               for item in document["findings"])}


# How a decided finding was decided, from its explanation: the probes that never compile the finding's line say so.
_DECIDED_HOW = (
    ("a type built alone (the line not compiled)", "in a Cell that does nothing else"),
    ("a name looked up (the line not compiled)", "looked up in the worker"),
    ("a method called on a bare Tensor (the line not compiled)", "and so does the call on a Parameter"),
)


# Evidence that runs the line rather than compiling it, whatever the verdict.
_RUN_HOW = (
    ("a host method called (the line run in PyNative)", "called in PyNative on a"),
    ("a build that ran the line", "building raised at this line"),
    ("a build that ran the line", "building ran line"),
)


def _decided_how(item: dict) -> str:
    explanation = item.get("explanation") or ""
    if item["verdict"] == "not reached":
        return "a line shown out of the graph (not reached)"
    ran = next((how for how, phrase in _RUN_HOW if phrase in explanation), None)
    if ran is not None:
        return ran
    if item["verdict"] == "confirmed by probe":
        return next((how for how, phrase in _DECIDED_HOW if phrase in explanation), "a probe running the Cell")
    return "a compile with the line in the graph"


def library_run(package: str, repeat: int, level: str | None, jobs: int = 2, timeout: float = 120) -> dict:
    """``ms-lint validate`` on a library package of the development corpus (copied to a scratch folder with its
    repository, so that the cache and the corpus stay apart), at the target ``ms-lint check`` infers (or
    ``level``), with no example registered: the first run with an empty cache, then re-runs with nothing changed;
    units, findings, verdicts and the share decided."""
    source = Path(package).resolve()
    repository = source
    while repository.parent != repository and not any((repository / marker).exists() for marker in (
            "setup.py", "pyproject.toml", ".git", "README.md")):
        repository = repository.parent
    with tempfile.TemporaryDirectory(prefix="ms-lint-validator-library-") as scratch:
        copy = Path(scratch) / repository.name
        shutil.copytree(repository, copy, ignore=shutil.ignore_patterns(".ms_lint_cache", "__pycache__"),
                        symlinks=True)
        target = copy / source.relative_to(repository)
        command = [sys.executable, "-m", "ms_lint.cli", "validate", str(target), "--jobs", str(jobs), "--timeout",
                   str(timeout), "--format", "json", *(["--syntax-level", level] if level else [])]
        started = time.perf_counter()
        completed = subprocess.run(command, capture_output=True, text=True, cwd=scratch)
        first = time.perf_counter() - started
        if completed.returncode not in (0, 1):
            raise SystemExit(f"ms-lint validate failed: {completed.stderr[-2000:]}")
        document = json.loads(completed.stdout)
        reruns = []
        for _ in range(repeat):
            started = time.perf_counter()
            subprocess.run(command, capture_output=True, text=True, cwd=scratch)
            reruns.append(time.perf_counter() - started)
    verdicts = Counter(item["verdict"] for item in document["findings"])
    findings = len(document["findings"])
    decided = sum(verdicts[verdict] for verdict in DECIDED)
    return {"package": str(source), "level": document["syntax_level"], "files": document["files"],
            "units": len(document["units"]), "findings": findings, "decided": decided,
            "verdicts": dict(verdicts), "first_s": first, "reruns_s": reruns,
            "rerun_median_s": statistics.median(reruns) if reruns else None,
            "compiled_s": sum(unit["seconds"] or 0 for unit in document["units"])}


def print_library(result: dict) -> None:
    share = result["decided"] / result["findings"] if result["findings"] else 0
    print(f"library: {result['package']} ({result['files']} files), {result['level'].upper()}, 2 workers, no "
          f"example registered")
    print(f"  {result['findings']} findings in {result['units']} units: {result['decided']} decided ({share:.0%}); "
          + ", ".join(f"{count} {verdict}" for verdict, count in sorted(result["verdicts"].items())))
    rerun = f"{result['rerun_median_s']:.2f} s" if result["rerun_median_s"] is not None else "-"
    print(f"  first run {result['first_s']:.1f} s (jobs {result['compiled_s']:.1f} s in all); re-run with nothing "
          f"changed {rerun}")


def print_real(result: dict) -> None:
    print(f"real corpus: {REAL_CORPUS['package']} {REAL_CORPUS['version']}, {len(REAL_CORPUS['files'])} files, "
          f"{result.get('level', '').upper()}, no example registered")
    width = max(len(name) for name in result["per_file"]) if result["per_file"] else 10
    print(f"  {'file'.ljust(width)}  findings  decided  verdicts")
    for name, counts in sorted(result["per_file"].items()):
        verdicts = ", ".join(f"{count} {verdict}" for verdict, count in sorted(counts["verdicts"].items()))
        print(f"  {name.ljust(width)}  {counts['findings']:8d}  {counts['decided']:7d}  {verdicts}")
    share = result["decided"] / result["findings"] if result["findings"] else 0
    ways = sorted(result["decided_how"].items(), key=lambda entry: -entry[1])
    print(f"  decided: {result['decided']} of {result['findings']} ({share:.0%}), by "
          f"{', '.join(f'{count} {how}' for how, count in ways)}")
    print(f"  first run {result['first_s']:.1f} s; re-run with nothing changed {result['rerun_median_s']:.2f} s "
          f"({result['rerun_median_s'] / result['first_s']:.0%} of the first)")
    if result["not_kept"]:
        print(f"  compiled again on re-runs (their first run ended so, which the cache does not keep): "
              f"{', '.join(f'{target} ({status})' for target, status in sorted(result['not_kept'].items()))}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--real", action="store_true",
                        help="measure the pinned real corpus instead (mindone 0.5.0 installed in this environment): "
                        "decided findings per file, first run and re-run times")
    parser.add_argument("--library", metavar="PACKAGE",
                        help="measure one library package instead (a folder of the development corpus, such as "
                        "benchmarks/.corpus/development/mindspore-lab+mindediting/mindediting): findings decided, "
                        "first run and re-run times at its inferred target")
    parser.add_argument("--level", choices=("strict", "lax"),
                        help="with --library or --real: the syntax level to validate at (default: the inferred one)")
    parser.add_argument("--units", type=int, default=24, help="Cells to validate (a multiple of 3; default 24)")
    parser.add_argument("--repeat", type=int, default=3, help="repetitions per measurement (default 3)")
    parser.add_argument("--workers", default="1,2", help="worker counts to measure (default 1,2)")
    parser.add_argument("--json", metavar="PATH", help="write the figures as JSON")
    args = parser.parse_args(argv)
    try:
        import mindspore  # noqa: F401 -- only to fail early with a clear message
        from importlib.metadata import version

        mindspore_version = version("mindspore")
    except ImportError:
        print("benchmarks/validator.py needs MindSpore: pip install 'ms-lint[validate]'", file=sys.stderr)
        return 2
    from ms_lint.validate.runner import lint_options_for

    if args.library:
        result = library_run(args.library, args.repeat, args.level)
        print_library(result)
        if args.json:
            Path(args.json).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        return 0
    if args.real:
        result = real_corpus(args.repeat, level=args.level)
        print_real(result)
        if args.json:
            Path(args.json).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        return 0
    modules = max(1, args.units // 3)
    workers = [int(part) for part in args.workers.split(",") if part.strip()]
    lint_options = lint_options_for("strict")
    with tempfile.TemporaryDirectory(prefix="ms-lint-validator-bench-") as scratch:
        project = generate_project(Path(scratch), modules)
        findings, files = findings_under(project / "benchpkg", lint_options)
        warm_up_findings, _ = findings_under(project / "warmup", lint_options)
        if len({(f.path, f.scope) for f in findings}) != modules * 3:
            raise SystemExit("the static checks did not flag every generated Cell; is ms-lint complete?")
        measured = [throughput(findings, warm_up_findings, count, args.repeat) for count in workers]
        cached = cached_rerun(project, lint_options, args.repeat)

    rows = []
    for result in measured:
        rows.append([f"{result['workers']} worker(s): start-up", f"{result['startup_s']:.2f} s"])
        rows.append([f"{result['workers']} worker(s): {result['units']} jobs after warm-up",
                     f"{result['median_s']:.2f} s, {result['jobs_per_s']:.1f} jobs/s"])
    rows.append([f"re-run from cache, {cached['units']} units (in process)", f"{cached['in_process_median_s']:.2f} s"])
    rows.append(["re-run from cache (whole ms-lint validate command)", f"{cached['command_median_s']:.2f} s"])
    rows.append(["first run that filled the cache (2 workers, start-up included)", f"{cached['fill_s']:.2f} s"])

    width = max(len(label) for label, _ in rows)
    print(f"ms-lint validate benchmark: MindSpore {mindspore_version}, Python {platform.python_version()}, "
          f"{os.cpu_count()} CPU(s), {modules * 3} units in {len(files)} files, median of {args.repeat}")
    for label, value in rows:
        print(f"  {label.ljust(width)}  {value}")
    if args.json:
        document = {
            "mindspore": mindspore_version, "python": platform.python_version(), "cpus": os.cpu_count(),
            "units": modules * 3, "repeat": args.repeat, "throughput": measured, "cache": cached, "rows": rows,
        }
        Path(args.json).write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
