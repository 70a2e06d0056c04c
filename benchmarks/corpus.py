"""Run every ms-lint rule over published MindSpore projects and report what it finds.

    python benchmarks/corpus.py                        # download (once), unzip, check, print the tables
    python benchmarks/corpus.py --json results.json    # also write every finding as JSON
    python benchmarks/corpus.py --source /path/to/unzipped/wheels --no-download

The wheels are fetched by exact version with ``pip download --no-deps`` into ``benchmarks/.corpus/`` (git-ignored)
and unzipped next to them. Every ``.py`` file is checked with ``ms_lint.engine.check_file`` and all codes, in a
pool of processes. The report gives files, lines and findings per package, findings per code, and every MS900
(ms-lint could not check a file) with its message: the target is none. A file whose check raises, or runs past
``--file-timeout``, is listed too; neither should ever happen.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time
import traceback
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_DESTINATION = HERE / ".corpus"
PACKAGES = [
    "mindcv==0.3.0",
    "mindyolo==0.5.0",
    "mindocr==0.5.0",
    "mindnlp==0.5.1",
    "mindformers==2.1.0",
    "mindone==0.5.0",
]
INTERNAL_ERROR = "MS900"
# What each project would put in its own configuration: packages that only ever run eagerly (per-path-ms-mode).
# mindformers.pynative is the PyNative trainer stack (DTensor dispatch, no jit or GRAPH_MODE in the subpackage);
# mindnlp's mindbnb wraps the bitsandbytes C kernels through ctypes, which no graph can call.
PER_PATH_MODES = {
    "mindformers": ["mindformers/pynative/*: pynative"],
    "mindnlp": ["mindnlp/quant/mindbnb/*: pynative"],
}
# And methods a project adds to Tensor at run time (ms-tensor-methods): mindformers' PyNative Trainer calls
# hyper_parallel's enable_mindspore_backward_compat(), which installs Tensor.detach and Tensor.backward.
TENSOR_METHODS = {
    "mindformers": ["detach", "backward"],
}


class FileTimeout(Exception):
    pass


@dataclass
class FileResult:
    package: str
    path: str  # relative to the package's unzipped directory
    lines: int
    seconds: float
    findings: list[dict] = field(default_factory=list)
    crash: str | None = None  # a traceback: check_file raised (it must not)
    timed_out: bool = False


# ------------------------------------------------------------------------------------------------ the wheels

def wheel_stem(spec: str) -> str:
    name, _, version = spec.partition("==")
    return f"{name.replace('-', '_')}-{version}"


def download(spec: str, wheels: Path) -> Path:
    """The wheel of ``spec`` in ``wheels``, downloaded with pip unless it is there already."""
    stem = wheel_stem(spec)
    found = sorted(wheels.glob(f"{stem}-*.whl"))
    if found:
        return found[0]
    wheels.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--dest", str(wheels),
               spec]
    print(f"downloading {spec}", file=sys.stderr)
    completed = subprocess.run(command, capture_output=True, text=True)
    found = sorted(wheels.glob(f"{stem}-*.whl"))
    if completed.returncode != 0 or not found:
        raise SystemExit(f"corpus: pip could not download {spec}:\n{completed.stderr.strip()}")
    return found[0]


def unzip(wheel: Path, sources: Path) -> Path:
    target = sources / wheel.stem
    marker = target / ".unzipped"
    if not marker.exists():
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(target)
        marker.write_text("")
    return target


def package_directories(args: argparse.Namespace) -> dict[str, Path]:
    """spec -> directory holding the package's unzipped files (with ``--development``: each member of that half of
    the development corpus, named as ``development_corpus`` names it, -> its repository's root)."""
    directories: dict[str, Path] = {}
    if args.development:
        import development_corpus

        return {member.name: args.destination / "development" / member.repository.directory_name
                for member in development_corpus.half(args.development, args.destination / "development")}
    for spec in args.packages:
        stem = wheel_stem(spec)
        local = sorted(args.source.glob(f"{stem}-*")) if args.source else []
        local = [path for path in local if path.is_dir()]
        if local:
            directories[spec] = local[0]
        elif args.no_download:
            print(f"corpus: skipping {spec}: not found under {args.source} and --no-download given", file=sys.stderr)
        else:
            directories[spec] = unzip(download(spec, args.destination / "wheels"), args.destination / "src")
    return directories


# ------------------------------------------------------------------------------------------------- checking

_settings = None
_package_settings: dict = {}  # a package's own settings, where its configuration adds to the run's
_codes = None
_file_timeout = 0


def _start_worker(mode: str, syntax_level: str, file_timeout: int, per_path_modes: tuple, device: str = "",
                  version: str = "", tensor_methods: dict | None = None, upgrade_from: str = "") -> None:
    global _settings, _package_settings, _codes, _file_timeout
    from dataclasses import replace

    from ms_lint.rules import RULES_BY_CODE
    from ms_lint.settings import Settings

    _settings = Settings(mode=_inferred(mode), syntax_level=syntax_level, per_path_modes=per_path_modes, device=device,
                         version=version, upgrade_from=upgrade_from)
    _package_settings = {name: replace(_settings, tensor_methods=tuple(methods))
                         for name, methods in (tensor_methods or {}).items()}
    _codes = tuple(RULES_BY_CODE)
    _file_timeout = file_timeout
    if file_timeout and hasattr(signal, "SIGALRM"):
        signal.signal(signal.SIGALRM, _on_alarm)


def _on_alarm(signum, frame):
    raise FileTimeout()


def check_one(job: tuple[str, str, str]) -> FileResult:
    from ms_lint.engine import check_file

    package, root, relative = job
    path = os.path.join(root, relative)
    try:
        with open(path, "rb") as handle:
            lines = handle.read().count(b"\n")
    except OSError:
        lines = 0
    result = FileResult(package=package, path=relative, lines=lines, seconds=0.0)
    started = time.perf_counter()
    if _file_timeout and hasattr(signal, "SIGALRM"):
        signal.alarm(_file_timeout)
    try:
        settings = _package_settings.get(package.split("==")[0], _settings)
        findings = check_file(path, settings, _codes)
        if settings.upgrade_from:
            findings = _new_since(path, settings, findings)
        result.findings = [{**f.to_dict(), "path": relative} for f in findings]
    except FileTimeout:
        result.timed_out = True
    except BaseException:  # noqa: BLE001 -- the corpus run reports it instead of stopping
        result.crash = traceback.format_exc()
    finally:
        if _file_timeout and hasattr(signal, "SIGALRM"):
            signal.alarm(0)
    result.seconds = time.perf_counter() - started
    return result


def _new_since(path: str, settings, findings: list) -> list:
    """``--ms-upgrade-from``, as ``ms-lint check`` answers it: of ``findings``, those the version moved from does not
    report at the same place (the findings of a version older than every table are not taken as its own)."""
    from dataclasses import replace

    from ms_lint.commands.check import _TABLE_CODES
    from ms_lint.engine import check_file
    from ms_lint.mindspore_api import older_than_tables
    from ms_lint.settings import PINNED
    from ms_lint.target import target_from_settings

    before = replace(settings, version="" if settings.upgrade_from == PINNED else settings.upgrade_from,
                     pinned=settings.upgrade_from == PINNED, upgrade_from="")
    untabled = older_than_tables(target_from_settings(before, path).version)
    known = {(f.line, f.col, f.code) for f in check_file(path, before, _codes)
             if not (untabled and f.code in _TABLE_CODES)}
    return [f for f in findings if (f.line, f.col, f.code) not in known]


def python_files(directory: Path) -> list[str]:
    found = []
    for root, dirs, files in os.walk(directory):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".py"):
                found.append(os.path.relpath(os.path.join(root, name), directory))
    return found


def _inferred(value: str) -> str:
    return "" if value == "infer" else value


def targets_of(directories: dict[str, Path], args: argparse.Namespace) -> tuple[dict[str, dict], dict[str, dict]]:
    """``(each package's target, its projects)``: the target of its first file's project (Target.to_dict()), and
    every project its files belong to (the project's folder relative to the package's directory -> its target), as
    ms-lint resolves them."""
    from ms_lint.settings import Settings
    from ms_lint.target import target_from_settings

    settings = Settings(mode=_inferred(args.mode), syntax_level=_inferred(args.syntax_level),
                        device=_inferred(args.device), version=args.ms_version, upgrade_from=args.ms_upgrade_from)
    targets, projects = {}, {}
    for spec, directory in directories.items():
        files = member_files(spec, directory)
        if not files:
            continue
        mine = projects[spec] = {}
        for relative in files:
            target = target_from_settings(settings, str(directory / relative))
            folder = os.path.relpath(target.project, directory)
            if folder not in mine:
                mine[folder] = target.to_dict()
        targets[spec] = target_from_settings(settings, str(directory / files[0])).to_dict()
    return targets, projects


def project_counts(projects: dict[str, dict]) -> dict[str, tuple[int, int, int]]:
    """Per repository (a member's name before ``:``): (members, projects, distinct targets)."""
    counts: dict[str, tuple[set, set, set]] = {}
    for spec, mine in projects.items():
        members, folders, targets = counts.setdefault(spec.split(":")[0], (set(), set(), set()))
        members.add(spec)
        folders.update(mine)
        targets.update(json.dumps({k: v for k, v in target.items() if k != "origins"}, sort_keys=True)
                       for target in mine.values())
    return {name: (len(members), len(folders), len(targets)) for name, (members, folders, targets) in counts.items()}


def member_files(spec: str, directory: Path) -> list[str]:
    """The files of one member, relative to ``directory``: a development-corpus application's are those under its
    folder of the repository (``name:folder``), checked in place so that the repository around it counts."""
    _, _, folder = spec.partition(":")
    if not folder:
        return python_files(directory)
    return [os.path.join(folder, relative) for relative in python_files(directory / folder)]


def check_all(directories: dict[str, Path], args: argparse.Namespace) -> list[FileResult]:
    jobs = [(spec, str(directory), relative) for spec, directory in directories.items()
            for relative in member_files(spec, directory)]
    per_path_modes: tuple = ()
    if not args.no_project_config:
        from ms_lint.settings import parse_per_path_modes

        per_path_modes = tuple(
            pair for spec, directory in directories.items()
            for pair in parse_per_path_modes(PER_PATH_MODES.get(spec.split("==")[0]), str(directory)))
    initargs = (args.mode, _inferred(args.syntax_level), args.file_timeout, per_path_modes, _inferred(args.device),
                args.ms_version, {} if args.no_project_config else TENSOR_METHODS, args.ms_upgrade_from)
    if args.jobs == 1:
        _start_worker(*initargs)
        return [check_one(job) for job in jobs]
    with multiprocessing.get_context().Pool(args.jobs, initializer=_start_worker, initargs=initargs) as pool:
        return list(pool.imap_unordered(check_one, jobs, chunksize=4))


# -------------------------------------------------------------------------------------------------- report

def summarise(results: list[FileResult], directories: dict[str, Path], seconds: float) -> dict:
    from ms_lint.rules import ALL_RULES

    packages = {}
    for spec in directories:
        mine = [r for r in results if r.package == spec]
        packages[spec] = {
            "files": len(mine),
            "lines": sum(r.lines for r in mine),
            "findings": sum(len(r.findings) for r in mine),
            "per_code": dict(sorted(Counter(f["code"] for r in mine for f in r.findings).items())),
            "seconds": round(sum(r.seconds for r in mine), 2),
        }
    per_code = Counter(f["code"] for r in results for f in r.findings)
    internal_errors = [
        {"package": r.package, "path": r.path, "message": f["message"]}
        for r in results for f in r.findings if f["code"] == INTERNAL_ERROR
    ]
    slowest = sorted(results, key=lambda r: r.seconds, reverse=True)[:10]
    return {
        "settings": {},
        "packages": packages,
        "files": len(results),
        "lines": sum(r.lines for r in results),
        "findings": sum(len(r.findings) for r in results),
        "per_code": {rule.code: per_code.get(rule.code, 0) for rule in ALL_RULES},
        "ms900": internal_errors,
        "crashes": [{"package": r.package, "path": r.path, "traceback": r.crash} for r in results if r.crash],
        "timeouts": [{"package": r.package, "path": r.path} for r in results if r.timed_out],
        "slowest": [{"package": r.package, "path": r.path, "seconds": round(r.seconds, 2)} for r in slowest],
        "seconds": round(seconds, 1),
        "results": [
            {"package": r.package, "path": r.path, "lines": r.lines, "seconds": round(r.seconds, 3),
             "findings": r.findings}
            for r in sorted(results, key=lambda r: (r.package, r.path))
        ],
    }


def print_report(summary: dict) -> None:
    out = sys.stdout
    codes = [code for code, count in summary["per_code"].items() if count]
    settings = summary["settings"]
    print(f"ms-lint corpus run ({settings['mode']} mode, level {settings['syntax_level']}, device "
          f"{settings.get('device', 'any')}): "
          f"{summary['files']} files, {summary['lines']} lines, {summary['findings']} findings, "
          f"{summary['seconds']} s", file=out)
    print(file=out)
    header = ["package", "files", "lines", "findings", *codes]
    rows = [[spec, str(p["files"]), str(p["lines"]), str(p["findings"]),
             *(str(p["per_code"].get(code, 0)) for code in codes)] for spec, p in summary["packages"].items()]
    rows.append(["total", str(summary["files"]), str(summary["lines"]), str(summary["findings"]),
                 *(str(summary["per_code"][code]) for code in codes)])
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, ["-" * w for w in widths], *rows]:
        print("  ".join(cell.ljust(widths[0]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(row)),
              file=out)
    print(file=out)
    for spec, target in summary.get("targets", {}).items():
        origins = target["origins"]
        print(f"target of {spec}: {target['device']} ({origins.get('device')}), {target['syntax_level']} "
              f"({origins.get('syntax_level')}), {target['mode']} ({origins.get('mode')}), MindSpore "
              f"{target['mindspore_version']} ({origins.get('version')})", file=out)
    for name, (members, projects, targets) in project_counts(summary.get("projects", {})).items():
        print(f"{name}: {members} member(s), {projects} project(s), {targets} distinct target(s)", file=out)
    print(f"MS900 (ms-lint could not check the file): {len(summary['ms900'])}", file=out)
    for entry in summary["ms900"]:
        print(f"  {entry['package']}: {entry['path']}: {entry['message']}", file=out)
    if summary["crashes"]:
        print(f"check_file raised on {len(summary['crashes'])} files:", file=out)
        for entry in summary["crashes"]:
            print(f"  {entry['package']}: {entry['path']}\n{entry['traceback']}", file=out)
    if summary["timeouts"]:
        print(f"timed out on {len(summary['timeouts'])} files:", file=out)
        for entry in summary["timeouts"]:
            print(f"  {entry['package']}: {entry['path']}", file=out)
    print("slowest files: " + ", ".join(f"{e['path']} ({e['seconds']} s)" for e in summary["slowest"][:5]),
          file=out)


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--packages", nargs="+", default=PACKAGES, metavar="NAME==VERSION",
                        help="the wheels to check (default: %(default)s)")
    parser.add_argument("--destination", type=Path, default=DEFAULT_DESTINATION,
                        help="where wheels are downloaded and unzipped (default: benchmarks/.corpus)")
    parser.add_argument("--source", type=Path, default=None,
                        help="a directory of already unzipped wheels (NAME-VERSION-*/) to use instead of downloading")
    parser.add_argument("--no-download", action="store_true", help="only use what --source holds")
    parser.add_argument("--development", choices=("tuning", "checking"), default=None,
                        help="check that half of the development corpus (benchmarks/development_corpus.py; run its "
                             "`extract` first) instead of the wheels")
    parser.add_argument("--json", type=Path, default=None, metavar="FILE",
                        help="write the summary and every finding to FILE")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: CPUs)")
    parser.add_argument("--mode", choices=("infer", "graph", "pynative"), default="infer",
                        help="infer (default): the mode each module's entry points select, as ms-lint infers it")
    parser.add_argument("--syntax-level", choices=("infer", "strict", "lax"), default="infer",
                        help="infer (default): the level each package selects, as ms-lint infers it")
    parser.add_argument("--device", choices=("infer", "ascend", "gpu", "cpu", "any"), default="infer",
                        help="infer (default): the device each package's code names, else any")
    parser.add_argument("--ms-version", default="", metavar="VERSION",
                        help="the MindSpore version to check against (default: inferred)")
    parser.add_argument("--ms-upgrade-from", default="", metavar="VERSION",
                        help="report only what breaks or changes meaning since VERSION (`pinned`: each project's "
                             "requirement's), as `ms-lint check --ms-upgrade-from` does")
    parser.add_argument("--no-project-config", action="store_true",
                        help="leave out what each project would configure (PER_PATH_MODES, TENSOR_METHODS)")
    parser.add_argument("--file-timeout", type=int, default=120, metavar="SECONDS",
                        help="report a file whose check runs longer than this as timed out (0: no limit)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_arguments(argv)
    directories = package_directories(args)
    if not directories:
        print("corpus: nothing to check", file=sys.stderr)
        return 2
    started = time.perf_counter()
    results = check_all(directories, args)
    summary = summarise(results, directories, time.perf_counter() - started)
    summary["settings"] = {"mode": args.mode, "syntax_level": args.syntax_level, "device": args.device,
                           "version": args.ms_version or "infer",
                           **({"upgrade_from": args.ms_upgrade_from} if args.ms_upgrade_from else {}),
                           "per_path_modes": {} if args.no_project_config else PER_PATH_MODES,
                           "tensor_methods": {} if args.no_project_config else TENSOR_METHODS}
    summary["targets"], summary["projects"] = targets_of(directories, args)
    print_report(summary)
    if args.json:
        args.json.write_text(json.dumps(summary, indent=1) + "\n")
        print(f"wrote {args.json}", file=sys.stderr)
    return 1 if summary["ms900"] or summary["crashes"] or summary["timeouts"] else 0


if __name__ == "__main__":
    sys.exit(main())
