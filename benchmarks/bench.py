#!/usr/bin/env python3
"""How much ms-lint costs on real MindSpore code: flake8 with and without the MS plugin, a peer plugin, the CLI,
the editor latency and the parse floor, measured in one run.

Run it from the repository root, in the environment where ms-lint is installed (``pip install -e .``)::

    python benchmarks/bench.py                      # 5 repetitions, table on stdout, raw runs in results.json
    python benchmarks/bench.py --repeat 3 --skip torchfix --json /tmp/bench.json

The corpus is four wheels of MindSpore projects, fetched by exact version from PyPI (``pip download --no-deps``)
and unpacked into ``benchmarks/.corpus/`` (reused when present): mindcv 0.3.0, mindyolo 0.5.0, mindocr 0.5.0 and
mindnlp 0.5.1, about 1,000 files and 285,000 lines.

What is measured (medians over ``--repeat`` repetitions; the cases of one repetition run one after another and
their order rotates from one repetition to the next, so drift in the machine's load falls on every case alike):

1. flake8 without a plugin (pyflakes, pycodestyle and mccabe, flake8's own bundle) against flake8 with the MS
   plugin, ``--jobs=1`` and ``--jobs=2``, and the ratio of the two.
2. The same with TorchFix's flake8 plugin instead of ours, the peer ratio. TorchFix is installed with
   ``pip install --no-deps --target benchmarks/.venvs/torchfix`` together with the only package it needs that
   flake8 does not bring, libcst, at a version inside TorchFix's pin; PyYAML comes from the environment (installed
   there too if missing). TorchFix declares no dependency on torch, which the script verifies from its metadata,
   so no second torch is pulled and the project's environment is left as it is.
3. ``ms-lint check`` alone (``--jobs 1`` and ``--jobs 2``): files/s, lines/s, peak memory. Where the ``check``
   command is not installed, the engine is timed directly (``ms_lint.engine.check_file`` over the files, in one
   process) and the rows say so.
4. Editor latency for the largest model file (the largest file in a ``models`` folder that defines a
   ``construct``), sent on standard input as editors do (``flake8 --stdin-display-name=PATH -``), with and without
   the plugin. *Cold*: a fresh flake8 process per check, which is how editor integrations run flake8; the added
   latency is the difference of the medians. *Warm*: one long-lived process that imports flake8 and the plugins
   once and then checks the same input again and again through flake8's ``Application`` (what an in-process
   host such as a language server pays per keystroke); its first check is reported apart from the median of
   the following ones. The plugin alone (``MsLintChecker(tree, ...).run()`` on a tree flake8 would hand it) is
   timed in the same process.
5. The runtime validator, through ``benchmarks/validator.py`` when both it and ``ms-lint validate`` exist;
   otherwise the row says why it was skipped.
6. The floor: reading and ``ast.parse``-ing the same files in one process, timed inside the process and as a
   whole process (interpreter start included, as in every other row).
7. ``ms-lint check``'s result cache on mindone 0.5.0 (1,729 files, fetched like the corpus): per repetition, on a
   fresh copy of the project with an empty cache, ``--no-cache``, then a cold run (which fills the cache), a warm
   run (nothing changed, budget: under 5% of the cold run's CPU time), a run after editing one base-class module (a
   comment appended to the project module that the most files' analyses read and that defines a Cell subclass) and
   one after editing a leaf (the largest module defining a Cell subclass that no other file's analysis read; budget:
   under 10%), each ``-v`` so that the report says how many files came from the cache; the edited run is compared
   with the number of files whose cache entries name the edited module. The five runs share their findings
   (checked), and are reported side by side as ratios of the cold run. The corpus cases above run with
   ``--no-cache``: they measure the checks, not the cache.
8. ``ms-lint check`` against its parse floor per package (group ``ratio``): for each of the six wheels of
   ``corpus.py`` (mindone's ``diffusers`` and ``transformers`` and mindone whole among them) and each package of the
   development corpus (the libraries whole, the model zoo's ``official`` and ``research`` folders), the CPU seconds
   (user plus system, whole processes) of ``ms-lint check --no-cache --jobs 1`` and of reading and ``ast.parse``-ing
   the files it checks, best of ``--repeat``, the two alternated in one run; and (group ``scaling``) the CPU seconds
   per line of ``ms-lint check`` on a quarter, a half and all of a package's files (every fourth file, every second
   one, all, in the order it checks them), each with its own floor. Both read the corpus where ``corpus.py`` and
   ``development_corpus.py extract`` unpacked it (``benchmarks/.corpus/src`` and ``benchmarks/.corpus/development``)
   and write nothing there.
9. pylint without and with the MS pylint plugin (``--load-plugins=ms_lint.pylint_plugin``) on mindocr 0.5.0, with
   pylint's default checks as users run it (``--jobs=1``, an empty rcfile), and the ratio of the two; the plugin
   variant also reports the CPU time spent inside the plugin's ``process_module``, its share of the same run.
   pylint loads a plugin only when named, so plain pylint is the same command without it. pylint takes about
   150 s of CPU time for mindocr alone, so this group runs on that one package.

Switching a plugin off. flake8 7 has no option that keeps an installed plugin from running: ``--extend-ignore``
and ``--select`` only filter the codes a plugin reported after it ran, and ``--enable-extensions`` concerns only
plugins that declare ``off_by_default``. So every flake8 run goes through this script's ``flake8`` mode, which
starts flake8 in a fresh process of the same interpreter after narrowing flake8's plugin discovery
(``flake8.plugins.finder._find_importlib_plugins``) to flake8's bundle plus the one plugin under test. Same
interpreter, same installed packages, same files, same options: the plugin is the only difference, and no other
plugin that happens to be installed enters any variant. (A second environment without ms-lint would differ in
more than the plugin: package versions, import paths, bytecode caches.) Before measuring, each variant's plugin
list is checked with ``--version``, and after the first repetition each variant's report is checked: MS codes
only where the MS plugin runs, TOR codes only where TorchFix runs, and as many MS findings from flake8 as from
``ms-lint check``. The process pool is forced to the ``fork``
start method so that workers inherit the narrowed discovery; it is flake8's own fast path on Linux, where it is
the default start method up to Python 3.13.

Timing. Wall time is the child's lifetime seen from this process; CPU time is user plus system time of the child
and of the workers it waited for (``os.wait4``); peak memory is the largest resident set among them. On a shared
machine wall time stretches with the load of other processes while CPU time hardly moves, so both are reported,
with the load averages (``os.getloadavg``) before and after every run. Ratios are medians of the per-repetition
ratios of runs made back to back.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEFAULT_CORPUS = HERE / ".corpus"
DEFAULT_JSON = HERE / "results.json"
TORCHFIX_SITE = HERE / ".venvs" / "torchfix"

CORPUS = (("mindcv", "0.3.0"), ("mindyolo", "0.5.0"), ("mindocr", "0.5.0"), ("mindnlp", "0.5.1"))
TORCHFIX_VERSION = "0.7.0"
LIBCST_FOR_TORCHFIX = "1.5.1"  # TorchFix 0.7.0 pins libcst>=1.5.0,<1.6.0

# The distributions whose flake8 plugins make up "plain flake8": flake8's reporters, pyflakes, pycodestyle, mccabe.
FLAKE8_BUNDLE = frozenset({"flake8", "pyflakes", "pycodestyle", "mccabe"})
VARIANT_PLUGINS = {"plain": frozenset(), "ms": frozenset({"ms-lint"}), "torchfix": frozenset({"torchfix"})}
VARIANT_LABELS = {"plain": "flake8", "ms": "flake8 + MS", "torchfix": "flake8 + TorchFix"}
VARIANT_CODE_PREFIX = {"ms": "MS", "torchfix": "TOR"}

TARGET_FLAKE8_RATIO = 1.10
GOAL_FLAKE8_RATIO = 1.05
TARGET_FLOOR_RATIO = 5.0
TARGET_PACKAGE_FLOOR_RATIO = 3.0  # ms-lint check against the parse floor, on every package of the ratio group
TARGET_SCALING_RATIO = 1.3  # cost per line with all of a package's files against that with a quarter of them

# The packages of the ratio and scaling groups: (label, folder under the corpus the check runs in, what it checks
# there). The wheels are where corpus.py unzips them, the development corpus where development_corpus.py unpacks it.
RATIO_PACKAGES = (
    ("mindcv 0.3.0", "src/mindcv-0.3.0-py3-none-any", "."),
    ("mindyolo 0.5.0", "src/mindyolo-0.5.0-py3-none-any", "."),
    ("mindocr 0.5.0", "src/mindocr-0.5.0-py3-none-any", "."),
    ("mindnlp 0.5.1", "src/mindnlp-0.5.1-py3-none-any", "."),
    ("mindformers 2.1.0", "src/mindformers-2.1.0-py3-none-any", "."),
    ("mindone 0.5.0, diffusers", "src/mindone-0.5.0-py3-none-any", "mindone/diffusers"),
    ("mindone 0.5.0, transformers", "src/mindone-0.5.0-py3-none-any", "mindone/transformers"),
    ("mindone 0.5.0, whole", "src/mindone-0.5.0-py3-none-any", "mindone"),
    ("mindediting", "development/mindspore-lab+mindediting", "."),
    ("mindface", "development/mindspore-lab+mindface", "."),
    ("mindpose", "development/mindspore-lab+mindpose", "."),
    ("mindrl", "development/mindspore-lab+mindrl", "."),
    ("graphlearning", "development/mindspore-ai+graphlearning", "."),
    ("mindarmour", "development/mindspore-ai+mindarmour", "."),
    ("vllm-mindspore", "development/mindspore-ai+vllm-mindspore", "."),
    ("models, official", "development/mindspore-ai+models", "official"),
    ("models, research", "development/mindspore-ai+models", "research"),
)
SCALING_PACKAGES = ("mindone 0.5.0, transformers", "mindone 0.5.0, whole")
SCALING_SHARES = ((4, "a quarter"), (2, "a half"), (1, "all"))
TARGET_ADDED_LATENCY_MS = 150.0

CACHE_CORPUS = ("mindone", "0.5.0")
TARGET_WARM_CACHE_RATIO = 0.05  # a run with nothing changed, against the cold run that filled the cache
TARGET_LEAF_CACHE_RATIO = 0.10  # a run after editing a module no other module's analysis reads

PYLINT_CORPUS = ("mindocr", "0.5.0")
PYLINT_PLUGIN = "ms_lint.pylint_plugin"
TARGET_PYLINT_RATIO = 1.05
# The pylint message ids of the MS rules (ms_lint.pylint_plugin.msgid_for): a level letter, 9, the code's digits.
PYLINT_MS_MSGID = re.compile(r"[CEW]9\d{3}")

GROUPS = ("flake8", "torchfix", "check", "editor", "warm", "floor", "validator", "cache", "pylint", "ratio", "scaling")
# the groups that measure the four packages of CORPUS
CORPUS_GROUPS = frozenset({"flake8", "torchfix", "check", "editor", "warm", "floor"})
REPORT_LINE = re.compile(r":\d+:\d+: ([A-Z]+\d+)\b")
CACHE_LINE = re.compile(r"^ms-lint: (\d+) file\(s\) checked, (\d+) of them from the cache$", re.MULTILINE)


class BenchError(Exception):
    """Something the benchmark cannot work around; the message says what."""


# ------------------------------------------------------------------------------------------------ child modes
# The script runs itself in these modes as the measured child processes, so that one file holds the benchmark.


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def flake8_with_only(variant: str, flake8_argv: list[str]) -> int:
    """Run flake8's command line with plugin discovery narrowed to flake8's bundle plus ``variant``'s plugin."""
    import multiprocessing

    if "fork" in multiprocessing.get_all_start_methods():
        multiprocessing.set_start_method("fork", force=True)
    from flake8.plugins import finder

    allowed = FLAKE8_BUNDLE | VARIANT_PLUGINS[variant]
    discover_all = finder._find_importlib_plugins

    def discover_allowed():
        return (plugin for plugin in discover_all() if _normalized(plugin.package) in allowed)

    finder._find_importlib_plugins = discover_allowed
    if "--jobs=1" in flake8_argv:
        _report_collector_cpu_at_exit()
        if variant == "ms":
            _report_plugin_cpu_at_exit()
    from flake8.main.cli import main

    return main(flake8_argv)


PLUGIN_CPU_MARK = "bench: MS plugin cpu seconds: "
COLLECTOR_CPU_MARK = "bench: garbage collector cpu seconds: "
COLLECTOR_IN_PLUGIN_CPU_MARK = "bench: garbage collector cpu seconds inside the MS plugin: "
# Whether the MS plugin's generator is running: the collections its allocations trigger count in its own time too.
_in_plugin = [False]


def _report_collector_cpu_at_exit() -> None:
    """Add up the CPU time this process spends in the garbage collector and print it on stderr at exit.

    The plugin's allocations and the objects it keeps make flake8's own collections more frequent and longer, a
    cost that lands outside the plugin's ``run``; set against the same figure of a plain flake8 run, it says how
    much of the paired ratio that is."""
    import atexit
    import gc

    spent = [0.0]
    spent_in_plugin = [0.0]
    started = [0.0]

    def timed(phase: str, _info: dict) -> None:
        if phase == "start":
            started[0] = time.process_time()
        else:
            seconds = time.process_time() - started[0]
            spent[0] += seconds
            if _in_plugin[0]:
                spent_in_plugin[0] += seconds

    def report() -> None:
        print(f"{COLLECTOR_CPU_MARK}{spent[0]:.6f}", file=sys.stderr)
        print(f"{COLLECTOR_IN_PLUGIN_CPU_MARK}{spent_in_plugin[0]:.6f}", file=sys.stderr)

    gc.callbacks.append(timed)
    atexit.register(report)


def _report_plugin_cpu_at_exit() -> None:
    """Add up the CPU time this process spends inside the MS plugin's ``run`` and print it on stderr at exit.

    Set against the CPU time of the same run, it gives the plugin's share of that run, which the load of other
    processes cannot skew the way it skews two runs made one after the other. Pool workers (``--jobs=2``) leave
    through ``os._exit`` and print nothing, so only serial runs report it."""
    import atexit

    from ms_lint.plugin import MsLintChecker

    spent = [0.0]
    run = MsLintChecker.run

    def timed_run(self):
        # Only the time inside the plugin's generator counts. While it waits at a yield, flake8 files the finding,
        # and for a file's first report builds the file's noqa table, which plain flake8 builds too at its own first
        # report: in the four packages every file where the plugin reports has other reports (the tables built
        # at the plugin's findings take about 0.15 s). A file with no other report pays for its table in the paired
        # ratio.
        findings = run(self)
        while True:
            start = time.process_time()
            _in_plugin[0] = True
            try:
                finding = next(findings)
            except StopIteration:
                return
            finally:
                _in_plugin[0] = False
                spent[0] += time.process_time() - start
            yield finding

    MsLintChecker.run = timed_run
    atexit.register(lambda: print(f"{PLUGIN_CPU_MARK}{spent[0]:.6f}", file=sys.stderr))


def pylint_with(variant: str, pylint_argv: list[str]) -> int:
    """Run pylint's command line; for the ``ms`` variant with the MS plugin loaded and the CPU time spent inside
    its ``process_module`` printed on stderr at exit (under ``PLUGIN_CPU_MARK``)."""
    import atexit

    if variant == "ms":
        from ms_lint.pylint_plugin import MsLintChecker

        spent = [0.0]
        process_module = MsLintChecker.process_module

        def timed(self, node):
            start = time.process_time()
            try:
                process_module(self, node)
            finally:
                spent[0] += time.process_time() - start

        MsLintChecker.process_module = timed
        atexit.register(lambda: print(f"{PLUGIN_CPU_MARK}{spent[0]:.6f}", file=sys.stderr))
        pylint_argv = [f"--load-plugins={PYLINT_PLUGIN}", *pylint_argv]
    from pylint.lint import Run as run_pylint

    run_pylint(pylint_argv)  # leaves through sys.exit
    return 0


def flake8_warm(variant: str, display_name: str, checks: int) -> int:
    """Check standard input ``checks`` times in one flake8 process; print the timings as JSON."""
    started = time.perf_counter()
    from flake8.plugins import finder

    allowed = FLAKE8_BUNDLE | VARIANT_PLUGINS[variant]
    discover_all = finder._find_importlib_plugins
    finder._find_importlib_plugins = lambda: (p for p in discover_all() if _normalized(p.package) in allowed)
    from flake8.main.application import Application

    app = Application()
    app.initialize(["--isolated", "--jobs=1", f"--output-file={os.devnull}",
                    f"--stdin-display-name={display_name}", "-"])
    ready = time.perf_counter()
    seconds = []
    for _ in range(checks):
        begin = time.perf_counter()
        app.run_checks()  # flake8 keeps standard input after the first read, so every check sees the same text
        app.report()
        seconds.append(time.perf_counter() - begin)
    result = {"startup_s": ready - started, "check_s": seconds, "reported": app.result_count}
    if variant == "ms":
        result["plugin_alone_s"] = _time_plugin_alone(display_name, checks)
    print(json.dumps(result))
    return 0


def _time_plugin_alone(display_name: str, checks: int) -> list[float]:
    import ast

    from flake8 import utils

    from ms_lint.plugin import MsLintChecker

    source = utils.stdin_get_value()
    lines = source.splitlines(keepends=True)
    seconds = []
    for _ in range(checks):
        tree = ast.parse(source)  # flake8 hands every plugin a fresh tree
        begin = time.perf_counter()
        list(MsLintChecker(tree, display_name, lines).run())
        seconds.append(time.perf_counter() - begin)
    return seconds


def parse_floor(file_list: str) -> int:
    """Read and ``ast.parse`` every file of the list in this process; print the timings as JSON (``cpu_s``: the
    process's CPU time for it)."""
    import ast

    paths = Path(file_list).read_text(encoding="utf-8").splitlines()
    read_s = parse_s = 0.0
    cpu_begin = time.process_time()
    for path in paths:
        begin = time.perf_counter()
        with open(path, "rb") as handle:
            data = handle.read()
        middle = time.perf_counter()
        try:
            ast.parse(data, filename=path)
        except (SyntaxError, ValueError):
            pass
        read_s += middle - begin
        parse_s += time.perf_counter() - middle
    print(json.dumps({"files": len(paths), "read_s": read_s, "parse_s": parse_s,
                      "cpu_s": time.process_time() - cpu_begin}))
    return 0


def checked_files(folder: str, paths: list[str]) -> int:
    """Print, one a line, the files ``ms-lint check`` checks for ``paths`` in ``folder`` with its default options."""
    from ms_lint.config import LintOptions
    from ms_lint.lint import discover_files

    os.chdir(folder)
    for path in discover_files(paths, LintOptions()):
        print(path)
    return 0


def engine_in_process(file_list: str) -> int:
    """``ms_lint.engine.check_file`` over every file of the list in this process; print timings and codes."""
    import_begin = time.perf_counter()
    from ms_lint.engine import check_file
    from ms_lint.rules import RULES_BY_CODE
    from ms_lint.settings import Settings

    begin = time.perf_counter()
    paths = Path(file_list).read_text(encoding="utf-8").splitlines()
    settings = Settings()
    codes: dict[str, int] = {}
    for path in paths:
        for finding in check_file(path, settings, RULES_BY_CODE):
            codes[finding.code] = codes.get(finding.code, 0) + 1
    print(json.dumps({"import_s": begin - import_begin, "check_s": time.perf_counter() - begin, "codes": codes}))
    return 0


CHILD_MODES = {
    "flake8": lambda argv: flake8_with_only(argv[0], argv[1:]),
    "flake8-warm": lambda argv: flake8_warm(argv[0], argv[1], int(argv[2])),
    "pylint": lambda argv: pylint_with(argv[0], argv[1:]),
    "floor": lambda argv: parse_floor(argv[0]),
    "files": lambda argv: checked_files(argv[0], argv[1:]),
    "engine": lambda argv: engine_in_process(argv[0]),
}


# ------------------------------------------------------------------------------------------------- preparation


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def pip(*args: str) -> None:
    command = [sys.executable, "-m", "pip", "--disable-pip-version-check", *args]
    completed = subprocess.run(command, capture_output=True, text=True)
    if completed.returncode != 0:
        tail = (completed.stderr or completed.stdout).strip().splitlines()[-3:]
        raise BenchError(f"`pip {' '.join(args)}` failed: {' | '.join(tail)}")


def prepare_corpus(corpus: Path, wanted: list[tuple[str, str]]) -> list[Path]:
    """The unpacked project folders, downloading and unpacking the wheels that are not there yet."""
    wheels = corpus / "wheels"
    folders = []
    for name, version in wanted:
        folder = corpus / f"{name}-{version}"
        done = folder / ".unpacked"
        if not done.exists():
            found = sorted(wheels.glob(f"{name}-{version}-*.whl"))
            if not found:
                log(f"downloading {name}=={version} from PyPI")
                wheels.mkdir(parents=True, exist_ok=True)
                pip("download", "--no-deps", "--only-binary=:all:", "--dest", str(wheels), f"{name}=={version}")
                found = sorted(wheels.glob(f"{name}-{version}-*.whl"))
            if not found:
                raise BenchError(f"pip downloaded no wheel for {name}=={version} into {wheels}")
            shutil.rmtree(folder, ignore_errors=True)
            with zipfile.ZipFile(found[0]) as archive:
                archive.extractall(folder)
            done.write_text(found[0].name + "\n", encoding="utf-8")
        folders.append(folder)
    return folders


def prepare_torchfix() -> dict:
    """TorchFix and libcst in their own site folder; what TorchFix declares it needs, for the record."""
    marker = TORCHFIX_SITE / ".installed"
    if not marker.exists():
        log(f"installing TorchFix {TORCHFIX_VERSION} into {TORCHFIX_SITE.relative_to(REPO)}")
        shutil.rmtree(TORCHFIX_SITE, ignore_errors=True)
        packages = [f"torchfix=={TORCHFIX_VERSION}", f"libcst=={LIBCST_FOR_TORCHFIX}"]
        try:
            import yaml  # noqa: F401 -- TorchFix reads its symbol tables with PyYAML
        except ImportError:
            packages.append("pyyaml")
        pip("install", "--no-deps", "--only-binary=:all:", "--no-compile", "--target", str(TORCHFIX_SITE), *packages)
        marker.write_text(" ".join(packages) + "\n", encoding="utf-8")
    requires = []
    for metadata in TORCHFIX_SITE.glob("[Tt]orch[Ff]ix-*.dist-info/METADATA"):
        for line in metadata.read_text(encoding="utf-8").splitlines():
            if line.startswith("Requires-Dist:") and "extra ==" not in line:
                requires.append(line.split(":", 1)[1].strip())
    if any(re.match(r"torch\b", requirement) for requirement in requires):
        raise BenchError(f"TorchFix now requires torch ({requires}); refusing to install a second torch")
    return {"site": str(TORCHFIX_SITE), "requires": requires, "installed": marker.read_text().split()}


def compile_plugin_sources(torchfix: bool) -> None:
    """Write the bytecode of ms_lint (and TorchFix) as ``pip install`` does for installed packages, so that no
    plugin compiles its sources in every measured process. flake8 and its bundle have theirs from their install;
    an editable install, or an environment with PYTHONDONTWRITEBYTECODE set, would otherwise leave ms-lint without."""
    import compileall

    import ms_lint

    folders = [Path(ms_lint.__file__).parent] + ([TORCHFIX_SITE / "torchfix"] if torchfix else [])
    for folder in folders:
        if not compileall.compile_dir(str(folder), quiet=1):
            raise BenchError(f"could not compile the sources in {folder}")


def corpus_files(folders: list[Path]) -> list[str]:
    """The files flake8 checks in these folders (its default patterns and excludes), in flake8's order."""
    from flake8 import defaults
    from flake8.discover_files import expand_paths

    return list(expand_paths(paths=[str(f) for f in folders], stdin_display_name="stdin",
                             filename_patterns=["*.py"], exclude=list(defaults.EXCLUDE)))


def count_lines(paths: list[str]) -> int:
    total = 0
    for path in paths:
        with open(path, "rb") as handle:
            total += len(handle.read().splitlines())
    return total


def largest_model_file(paths: list[str]) -> str:
    candidates = []
    for path in paths:
        if "models" not in Path(path).parts:
            continue
        text = Path(path).read_text(encoding="utf-8", errors="replace")
        if "def construct(" in text:
            candidates.append((len(text.splitlines()), path))
    if not candidates:
        raise BenchError("no file in a models folder defines construct: is the corpus complete?")
    return max(candidates)[1]


def source_digest() -> str:
    """A digest of the ms_lint sources measured, so that runs of different code are not compared by mistake."""
    import hashlib
    import importlib.util

    package = Path(importlib.util.find_spec("ms_lint").origin).parent
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(str(path.relative_to(package)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def has_module(name: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


# ---------------------------------------------------------------------------------------------------- measuring


@dataclass
class Case:
    key: str
    label: str
    argv: list[str]
    env: dict = field(default_factory=dict)
    stdin: str | None = None
    variant: str | None = None  # the flake8 variant, for checking its report
    captures_json: bool = False  # the child prints one JSON line of its own timings


@dataclass
class Run:
    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    returncode: int
    load_before: list[float]
    load_after: list[float]
    codes: dict[str, int]
    inner: dict | None
    plugin_cpu_s: float | None = None  # CPU time inside the MS plugin, when the child reported it
    cache: list[int] | None = None  # [files checked, of them from the cache], from `ms-lint check -v`
    collector_cpu_s: float | None = None  # CPU time in the garbage collector, when the child reported it
    collector_in_plugin_cpu_s: float | None = None  # of it, the collections made while the MS plugin ran


def measure(case: Case, cwd: Path) -> Run:
    env = {**os.environ, **case.env}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        stdin = open(case.stdin, "rb") if case.stdin else subprocess.DEVNULL
        try:
            load_before = list(os.getloadavg())
            begin = time.perf_counter()
            child = subprocess.Popen(case.argv, cwd=cwd, env=env, stdin=stdin, stdout=out, stderr=err)
            _, status, usage = os.wait4(child.pid, 0)
            wall = time.perf_counter() - begin
            child.returncode = os.waitstatus_to_exitcode(status)
            load_after = list(os.getloadavg())
        finally:
            if case.stdin:
                stdin.close()
        out.seek(0)
        text = out.read().decode("utf-8", errors="replace")
        err.seek(0)
        error_text = err.read().decode("utf-8", errors="replace")
    if child.returncode not in (0, 1):
        tail = " | ".join(error_text.strip().splitlines()[-3:]) or text.strip()[-300:]
        raise BenchError(f"{case.label} exited with {child.returncode}: {tail}")
    codes: dict[str, int] = {}
    inner = None
    if case.captures_json:
        inner = json.loads(text.strip().splitlines()[-1])
        codes = inner.get("codes", {})
    else:
        codes = _codes(text)
    plugin_cpu = _reported_seconds(error_text, PLUGIN_CPU_MARK)
    collector_cpu = _reported_seconds(error_text, COLLECTOR_CPU_MARK)
    collector_in_plugin_cpu = _reported_seconds(error_text, COLLECTOR_IN_PLUGIN_CPU_MARK)
    # ru_maxrss is in kilobytes on Linux and in bytes on macOS.
    rss_mb = usage.ru_maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024)
    cache = CACHE_LINE.findall(error_text)
    return Run(wall, usage.ru_utime + usage.ru_stime, rss_mb, child.returncode, load_before, load_after, codes, inner,
               plugin_cpu, [int(n) for n in cache[-1]] if cache else None, collector_cpu, collector_in_plugin_cpu)


def _reported_seconds(error_text: str, mark: str) -> float | None:
    """The last figure a child printed after ``mark`` on stderr, if any."""
    reported = [float(line[len(mark):]) for line in error_text.splitlines() if line.startswith(mark)]
    return reported[-1] if reported else None


def run_rotating(cases: list[Case], repeat: int, cwd: Path, record: dict, on_rep=None, what: str = "") -> None:
    """Run every case ``repeat`` times; each repetition starts one case later than the previous one."""
    for rep in range(repeat):
        shift = rep % len(cases)
        for case in cases[shift:] + cases[:shift]:
            run = measure(case, cwd)
            record.setdefault(case.key, []).append(run.__dict__)
            log(f"[{what} {rep + 1}/{repeat}] {case.label}: {run.wall_s:.2f} s wall, {run.cpu_s:.2f} s cpu, "
                f"{run.peak_rss_mb:.0f} MB, load {run.load_before[0]:.1f}")
        if on_rep:
            on_rep(rep)


def flake8_case(variant: str, args: list[str], key: str, label: str, env: dict, stdin: str | None = None) -> Case:
    argv = [sys.executable, str(Path(__file__).resolve()), "--child", "flake8", variant, "--isolated", *args]
    return Case(key, label, argv, env=env, stdin=stdin, variant=variant)


def check_plugins(variant: str, env: dict, cwd: Path) -> str:
    """flake8's ``--version`` for the variant, after checking it lists exactly the expected plugins."""
    argv = [sys.executable, str(Path(__file__).resolve()), "--child", "flake8", variant, "--version"]
    completed = subprocess.run(argv, cwd=cwd, env={**os.environ, **env}, capture_output=True, text=True)
    text = completed.stdout.strip()
    listed = re.search(r"\((.*)\)", text)
    names = {_normalized(part.split(":")[0].strip()) for part in listed.group(1).split(",")} if listed else set()
    expected = (FLAKE8_BUNDLE - {"flake8"}) | VARIANT_PLUGINS[variant]
    if names != expected:
        raise BenchError(f"flake8 for '{variant}' loads {sorted(names)}, expected {sorted(expected)}: {text}"
                         f"{completed.stderr.strip()[-300:]}")
    return text


def _count_prefix(codes: dict[str, int], prefix: str) -> int:
    """Findings whose code is ``prefix`` followed by digits (``MS`` counts MS101, not MSX1)."""
    return sum(n for code, n in codes.items() if re.fullmatch(prefix + r"\d+", code))


def verify_reports(record: dict, cases: list[Case]) -> list[str]:
    """Each variant's first report holds its plugin's codes and no other plugin's."""
    problems = []
    for case in cases:
        if case.variant is None or case.key not in record:
            continue
        codes = record[case.key][0]["codes"]
        for variant, prefix in VARIANT_CODE_PREFIX.items():
            present = _count_prefix(codes, prefix)
            if variant != case.variant and present:
                problems.append(f"{case.label} reported {present} {prefix} findings without that plugin")
    # The plugin and the command share the engine, so they must report the same number of MS findings.
    counts = {key: _count_prefix(record[key][0]["codes"], "MS")
              for key in ("flake8-ms-j1", "check-j1") if key in record}
    if len(set(counts.values())) > 1:
        problems.append(f"MS findings differ between flake8 and ms-lint check: {counts}")
    return problems


# ------------------------------------------------------------------------------------------------- summarizing


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def paired_ratio(record: dict, key: str, base: str, metric: str):
    """The median of the per-repetition ratios key/base (runs of one repetition ran back to back)."""
    pairs = zip(record.get(key, []), record.get(base, []))
    return median([a[metric] / b[metric] for a, b in pairs if b[metric] > 0])


def fmt(value, pattern="{:.2f}", missing="-"):
    return missing if value is None else pattern.format(value)


def verdict(value, limit) -> str:
    if value is None:
        return "n/a"
    return "ok" if value <= limit else "MISSED"


def build_table(results: dict) -> str:
    runs = results["runs"]
    meta = results["meta"]
    files, lines = meta["files"], meta["lines"]
    rows: list[tuple[str, ...]] = []

    def add(label, key, base=None, throughput=False, note=""):
        if key not in runs:
            return
        wall = median([r["wall_s"] for r in runs[key]])
        cpu = median([r["cpu_s"] for r in runs[key]])
        rss = max(r["peak_rss_mb"] for r in runs[key])
        ratio = ""
        if base and base in runs:
            ratio = (f"{fmt(paired_ratio(runs, key, base, 'wall_s'), '{:.3f}')} / "
                     f"{fmt(paired_ratio(runs, key, base, 'cpu_s'), '{:.3f}')}")
        speed = f"{files / wall:,.0f} / {lines / wall:,.0f}" if throughput and wall else ""
        rows.append((label, f"{wall:.2f}", f"{cpu:.2f}", ratio, speed, f"{rss:.0f}", note))

    for jobs in (1, 2):
        add(f"flake8 --jobs={jobs}", f"flake8-plain-j{jobs}", throughput=True)
        add(f"flake8 + MS --jobs={jobs}", f"flake8-ms-j{jobs}", f"flake8-plain-j{jobs}", True, "ratio: vs flake8")
        add(f"flake8 + TorchFix --jobs={jobs}", f"flake8-torchfix-j{jobs}", f"flake8-plain-j{jobs}", True,
            "peer ratio: vs flake8")
    check_label = "ms-lint check" if meta.get("check_command") else "ms_lint.engine in one process (no check cmd)"
    add(f"{check_label} --jobs 1", "check-j1", "floor", True, "ratio: vs parse floor process")
    add(f"{check_label} --jobs 2", "check-j2", "floor", True, "ratio: vs parse floor process")
    add("engine in one process (read+parse+rules)", "engine", "floor", True, "process; inner times below")
    add("floor: read + ast.parse, one process", "floor", throughput=True)
    add("stdin, one file: flake8", "stdin-plain")
    add("stdin, one file: flake8 + MS", "stdin-ms", "stdin-plain", note="cold: a process per check")
    add("stdin, one file: flake8 + TorchFix", "stdin-torchfix", "stdin-plain")

    header = ("case", "wall s", "cpu s", "ratio wall / cpu", "files/s / lines/s", "peak MB", "")
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    out = [f"Corpus: {files} files, {lines:,} lines ({', '.join(meta['corpus'])}); {meta['repeat']} repetitions, "
           f"medians; {meta['cpus']} CPUs; load average {fmt(meta['load_start'][0], '{:.1f}')} at start, "
           f"{fmt(meta.get('load_end', [None])[0], '{:.1f}')} at end, "
           f"median {fmt(meta.get('load_median'), '{:.1f}')} during runs"]
    out.append("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    out.append("  ".join("-" * w for w in widths))
    for row in rows:
        out.append("  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip())

    extra = []
    floor_inner = median([r["inner"]["parse_s"] + r["inner"]["read_s"] for r in runs.get("floor", [])])
    engine_inner = median([r["inner"]["check_s"] for r in runs.get("engine", [])])
    if floor_inner and engine_inner:
        extra.append(f"in-process: read+parse {floor_inner:.2f} s ({lines / floor_inner:,.0f} lines/s); engine "
                     f"{engine_inner:.2f} s ({lines / engine_inner:,.0f} lines/s) = {engine_inner / floor_inner:.2f}x "
                     f"the floor")
    editor = results.get("editor", {})
    if editor.get("added_cold_ms") is not None:
        extra.append(f"editor file {meta['editor_file']} ({meta['editor_lines']} lines): added latency cold "
                     f"{editor['added_cold_ms']:.0f} ms (wall) / {editor['added_cold_cpu_ms']:.0f} ms (cpu)")
    warm = results.get("warm", {})
    if warm.get("ms") and warm.get("plain"):
        extra.append(f"warm (one process, check #2..): flake8 {warm['plain']['median_ms']:.1f} ms, flake8 + MS "
                     f"{warm['ms']['median_ms']:.1f} ms, added {warm['added_ms']:.1f} ms; plugin alone "
                     f"{warm['ms']['plugin_alone_median_ms']:.1f} ms; first check in the process: "
                     f"{warm['plain']['first_ms']:.0f} / {warm['ms']['first_ms']:.0f} ms")
    share = results.get("plugin_share")
    if share:
        extra.append(f"inside the flake8 + MS --jobs=1 runs: the plugin's own CPU time {share['plugin_cpu_s']:.2f} s "
                     f"of {share['run_cpu_s']:.2f} s ({share['percent']:.1f}%), the ratio that run implies "
                     f"{share['ratio']:.3f}x (medians; the garbage collector's extra work outside the plugin and "
                     f"the import are not in it)")
    added = results.get("added_time")
    if added:
        extra.append(f"added CPU time, flake8 + MS against flake8 (--jobs=1, medians of the pairs): "
                     f"{added['added_cpu_s']:.2f} s = the plugin's own work {added['plugin_work_cpu_s']:.2f} s "
                     f"(its {added['plugin_cpu_s']:.2f} s less the {added['collector_in_plugin_cpu_s']:.2f} s of "
                     f"collections made while it ran) + the garbage collector's {added['collector_added_cpu_s']:.2f} s "
                     f"({added['collector_cpu_s'][1]:.2f} s with the plugin against "
                     f"{added['collector_cpu_s'][0]:.2f} s without) + the rest {added['rest_cpu_s']:.2f} s "
                     f"(flake8's own work after the plugin's, and the noise between two runs)")
    if results.get("cache"):
        extra.extend(cache_table(results["cache"]))
    if results.get("pylint"):
        extra.extend(pylint_table(results["pylint"]))
    if results.get("ratio"):
        extra.extend(ratio_table(results["ratio"]))
    if results.get("scaling"):
        extra.extend(scaling_table(results["scaling"]))
    validator = results.get("validator", {})
    if validator:
        if validator.get("skipped"):
            extra.append(f"validator: skipped ({validator['skipped']})")
        for row in validator.get("rows", []):
            extra.append(f"validator: {row[0]}: {row[1]}")

    targets = results.get("targets", {})
    if targets:
        extra.append("targets (--jobs=1; wall / cpu):")
        for name, (wall_value, cpu_value, limit, shown) in targets.items():
            extra.append(f"  {name}: {shown.format(wall_value if wall_value is not None else float('nan'))} / "
                         f"{shown.format(cpu_value if cpu_value is not None else float('nan'))} "
                         f"(limit {shown.format(limit)}): {verdict(wall_value, limit)} / {verdict(cpu_value, limit)}")
    for problem in results.get("problems", []):
        extra.append(f"warning: {problem}")
    return "\n".join(out + [""] + extra)


def _added_time(with_plugin: list[dict], plain: list[dict]) -> dict | None:
    """Where the CPU time the plugin adds to a serial flake8 run goes, from the runs of each repetition (medians):
    the plugin's own work, the garbage collector's extra work, and the rest (flake8's own work slowed by what the
    plugin left in the CPU's caches, and the noise between two runs). The collections made while the plugin ran
    are counted with the collector's, not as the plugin's work: most of them plain flake8 makes too, a little later."""
    pairs = [(ms, base) for ms, base in zip(with_plugin, plain)
             if ms.get("plugin_cpu_s") is not None and ms.get("collector_cpu_s") is not None
             and ms.get("collector_in_plugin_cpu_s") is not None and base.get("collector_cpu_s") is not None]
    if not pairs:
        return None
    added = [ms["cpu_s"] - base["cpu_s"] for ms, base in pairs]
    collector = [ms["collector_cpu_s"] - base["collector_cpu_s"] for ms, base in pairs]
    work = [ms["plugin_cpu_s"] - ms["collector_in_plugin_cpu_s"] for ms, _ in pairs]
    return {
        "added_cpu_s": median(added),
        "plugin_cpu_s": median([ms["plugin_cpu_s"] for ms, _ in pairs]),
        "collector_in_plugin_cpu_s": median([ms["collector_in_plugin_cpu_s"] for ms, _ in pairs]),
        "plugin_work_cpu_s": median(work),
        "collector_added_cpu_s": median(collector),
        "collector_cpu_s": [median([base["collector_cpu_s"] for _, base in pairs]),
                            median([ms["collector_cpu_s"] for ms, _ in pairs])],
        "rest_cpu_s": median(added) - median(work) - median(collector),  # what the two named parts leave
    }


def summarize(results: dict) -> None:
    runs = results["runs"]
    loads = [r["load_before"][0] for case in runs.values() for r in case]
    results["meta"]["load_median"] = median(loads)
    editor = results.setdefault("editor", {})
    if "stdin-ms" in runs and "stdin-plain" in runs:
        plain = median([r["wall_s"] for r in runs["stdin-plain"]])
        with_ms = median([r["wall_s"] for r in runs["stdin-ms"]])
        editor["added_cold_ms"] = (with_ms - plain) * 1000
        editor["added_cold_cpu_ms"] = (median([r["cpu_s"] for r in runs["stdin-ms"]])
                                       - median([r["cpu_s"] for r in runs["stdin-plain"]])) * 1000
    shares = [(r["plugin_cpu_s"], r["cpu_s"]) for r in runs.get("flake8-ms-j1", [])
              if r.get("plugin_cpu_s") is not None and r["cpu_s"] > r["plugin_cpu_s"]]
    if shares:
        results["plugin_share"] = {
            "plugin_cpu_s": median([plugin for plugin, _ in shares]),
            "run_cpu_s": median([run for _, run in shares]),
            "percent": median([100 * plugin / run for plugin, run in shares]),
            "ratio": median([run / (run - plugin) for plugin, run in shares]),
        }
    added = _added_time(runs.get("flake8-ms-j1", []), runs.get("flake8-plain-j1", []))
    if added:
        results["added_time"] = added
    targets = {}
    if "flake8-ms-j1" in runs:
        targets[f"flake8 + MS / flake8 (goal {GOAL_FLAKE8_RATIO:.2f}x)"] = (
            paired_ratio(runs, "flake8-ms-j1", "flake8-plain-j1", "wall_s"),
            paired_ratio(runs, "flake8-ms-j1", "flake8-plain-j1", "cpu_s"), TARGET_FLAKE8_RATIO, "{:.3f}x")
    if "check-j1" in runs and "floor" in runs:
        targets["ms-lint check / parse floor"] = (
            paired_ratio(runs, "check-j1", "floor", "wall_s"), paired_ratio(runs, "check-j1", "floor", "cpu_s"),
            TARGET_FLOOR_RATIO, "{:.2f}x")
    if editor.get("added_cold_ms") is not None:
        targets["one-file added latency, cold"] = (
            editor["added_cold_ms"], editor["added_cold_cpu_ms"], TARGET_ADDED_LATENCY_MS, "{:.0f} ms")
    results["targets"] = targets


# ------------------------------------------------------------------------------------------------------- main


def run_validator(results: dict, repeat: int) -> None:
    script = HERE / "validator.py"
    if not has_module("ms_lint.commands.validate"):
        results["validator"] = {"skipped": "ms-lint validate is not installed"}
        return
    if not script.exists():
        results["validator"] = {"skipped": f"{script.relative_to(REPO)} does not exist"}
        return
    with tempfile.TemporaryDirectory() as scratch:
        output = Path(scratch) / "validator.json"
        command = [sys.executable, str(script), "--json", str(output), "--repeat", str(repeat)]
        log(f"running {' '.join(command[1:])}")
        completed = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
        if completed.returncode != 0 or not output.exists():
            said = (completed.stderr or completed.stdout).strip().splitlines()
            first = said[0][:200] if said else "no output"
            results["validator"] = {"skipped": f"benchmarks/validator.py exited with {completed.returncode}: {first}",
                                    "stderr": completed.stderr[-4000:], "stdout": completed.stdout[-4000:]}
            return
        data = json.loads(output.read_text(encoding="utf-8"))
    rows = data.get("rows") if isinstance(data, dict) else None
    results["validator"] = {"raw": data, "rows": rows if isinstance(rows, list) else [["results", "in the JSON"]],
                            "stdout": completed.stdout[-4000:]}


def _cache_dependents(cache_dir: Path, tree: Path) -> dict[str, int]:
    """Per project module (relative to ``tree``): how many files' cache entries say their analysis read it."""
    counts: dict[str, int] = {}
    for entry in cache_dir.glob("*/*.json"):
        try:
            lookups = json.loads(entry.read_text(encoding="utf-8"))["lookups"]
        except (OSError, ValueError, KeyError):
            continue
        for found in {lookup[2] for lookup in lookups if lookup[2]}:
            relative = os.path.relpath(found, tree)
            counts[relative] = counts.get(relative, 0) + 1
    return counts


def _leaf_module(counts: dict[str, int], tree: Path) -> str:
    """The largest module that defines a Cell subclass and that no other file's analysis read."""
    candidates = []
    for path in sorted(tree.rglob("*.py")):
        relative = str(path.relative_to(tree))
        if relative in counts:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if re.search(r"^class \w+\((\w+\.)*Cell\)", text, re.MULTILINE):
            candidates.append((len(text.splitlines()), relative))
    if not candidates:
        raise BenchError("no project module that defines a Cell subclass is a leaf (read by no other analysis)")
    return max(candidates)[1]


def _base_class_module(counts: dict[str, int], tree: Path) -> str:
    """The module the most analyses read that defines a Cell subclass."""
    for relative, _ in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        text = (tree / relative).read_text(encoding="utf-8", errors="replace")
        if re.search(r"^class \w+\((\w+\.)*Cell\)", text, re.MULTILINE):
            return relative
    raise BenchError("no project module that defines a Cell subclass was read by another file's analysis")


def run_cache_bench(results: dict, repeat: int, corpus: Path, jobs: int) -> None:
    """``ms-lint check``'s cache on mindone: --no-cache, cold, warm, one base-class module edited, one leaf module
    edited (see item 7)."""
    (folder,) = prepare_corpus(corpus, [CACHE_CORPUS])
    record = results.setdefault("cache", {"corpus": f"{CACHE_CORPUS[0]}=={CACHE_CORPUS[1]}", "jobs": jobs,
                                          "runs": {}, "problems": []})
    runs = record["runs"]
    edited = None
    for rep in range(repeat):
        with tempfile.TemporaryDirectory() as scratch:
            tree, cache_dir = Path(scratch) / "tree", Path(scratch) / "cache"
            shutil.copytree(folder, tree)
            base = [sys.executable, "-m", "ms_lint.cli", "check", "--isolated", "--exit-zero", "-v", "--jobs",
                    str(jobs)]
            with_cache = [*base, "--cache-dir", str(cache_dir), "tree"]
            steps = [("no-cache", "--no-cache", [*base, "--no-cache", "tree"]), ("cold", "cold cache", with_cache),
                     ("warm", "warm cache, nothing changed", with_cache),
                     ("edited", "one base-class module edited", with_cache),
                     ("leaf", "one leaf module edited", with_cache)]
            for key, label, argv in steps:
                if key == "edited":
                    counts = _cache_dependents(cache_dir, tree)
                    if edited is None:
                        edited = _base_class_module(counts, tree)
                        record["edited_module"] = edited
                        record["leaf_module"] = _leaf_module(counts, tree)
                    record.setdefault("dependents", []).append(counts.get(edited, 0))
                if key in ("edited", "leaf"):
                    with open(tree / record[f"{key}_module"], "a", encoding="utf-8") as handle:
                        handle.write("\n# edited by benchmarks/bench.py\n")
                run = measure(Case(f"cache-{key}", label, argv), Path(scratch))
                runs.setdefault(key, []).append(run.__dict__)
                log(f"[cache {rep + 1}/{repeat}] {label}: {run.wall_s:.2f} s wall, {run.cpu_s:.2f} s cpu, "
                    f"{run.cache[0] if run.cache else '?'} files, {run.cache[1] if run.cache else '?'} from the cache")
            codes = [runs[key][-1]["codes"] for key, _, _ in steps]
            if any(found != codes[0] for found in codes):
                record["problems"].append(f"repetition {rep + 1}: the runs' findings differ: {codes}")
    cold = runs["cold"]
    record["files"] = cold[0]["cache"][0] if cold[0]["cache"] else None
    for key in ("no-cache", "warm", "edited", "leaf"):
        record[f"{key}_ratio"] = {metric: paired_ratio(runs, key, "cold", metric) for metric in ("wall_s", "cpu_s")}
    record["rechecked"] = [run["cache"][0] - run["cache"][1] for run in runs["edited"] if run["cache"]]


def cache_table(record: dict) -> list[str]:
    runs = record["runs"]
    lines = [f"result cache, {record['corpus']} ({record.get('files')} files, --jobs {record['jobs']}), medians of "
             f"{len(runs.get('cold', []))}; ratio: vs the cold run (wall / cpu):"]
    for key, label in (("no-cache", "--no-cache"), ("cold", "cold cache (fills it)"), ("warm", "warm, nothing changed"),
                       ("edited", "one base-class module edited"), ("leaf", "one leaf module edited")):
        if key not in runs:
            continue
        wall = median([r["wall_s"] for r in runs[key]])
        cpu = median([r["cpu_s"] for r in runs[key]])
        hits = median([r["cache"][1] for r in runs[key] if r["cache"]])
        ratio = record.get(f"{key}_ratio")
        shown = f"{fmt(ratio['wall_s'], '{:.3f}')} / {fmt(ratio['cpu_s'], '{:.3f}')}" if ratio else "1 / 1"
        lines.append(f"  {label:<30} {wall:7.2f} s wall {cpu:7.2f} s cpu  ratio {shown:<13}  "
                     f"from the cache: {fmt(hits, '{:.0f}')}")
    if record.get("edited_module"):
        lines.append(f"  edited: {record['edited_module']}; files whose analysis read it: "
                     f"{median(record.get('dependents', []))}; files checked again: "
                     f"{median(record.get('rechecked', []))} (the dependents and the module itself)")
    if record.get("leaf_module"):
        lines.append(f"  leaf edited: {record['leaf_module']}")
    warm = (record.get("warm_ratio") or {}).get("cpu_s")
    lines.append(f"  warm / cold, cpu (limit {TARGET_WARM_CACHE_RATIO:.2f}): {fmt(warm, '{:.3f}')}x: "
                 f"{verdict(warm, TARGET_WARM_CACHE_RATIO)}")
    leaf = (record.get("leaf_ratio") or {}).get("cpu_s")
    lines.append(f"  one leaf edited / cold, cpu (limit {TARGET_LEAF_CACHE_RATIO:.2f}): {fmt(leaf, '{:.3f}')}x: "
                 f"{verdict(leaf, TARGET_LEAF_CACHE_RATIO)}")
    lines.extend(f"  warning: {problem}" for problem in record.get("problems", []))
    return lines


def _ratio_packages(corpus: Path, wanted: str | None) -> list[tuple[str, Path, str]]:
    """(label, folder, path checked in it) of the ratio group's packages present in the corpus (``wanted``: labels,
    separated by semicolons, each matched as the beginning of a package's label)."""
    names = [name.strip() for name in wanted.split(";")] if wanted else None
    found = []
    for label, folder, path in RATIO_PACKAGES:
        if names is not None and not any(label.startswith(name) for name in names if name):
            continue
        if not (corpus / folder / path).exists():
            log(f"ratio: {label} is not in {corpus / folder} (run benchmarks/corpus.py, or development_corpus.py "
                f"extract, first); left out")
            continue
        found.append((label, corpus / folder, path))
    if not found:
        raise BenchError(f"ratio: none of the packages {wanted or ''} is in {corpus}")
    return found


def _check_and_floor(label: str, folder: Path, paths: list[str], scratch: Path, key: str) -> tuple[list[Case], dict]:
    """The two cases that measure ``ms-lint check`` on ``paths`` of ``folder`` against its floor, and what they
    check (files, lines)."""
    listed = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", "files", str(folder), *paths],
                            capture_output=True, text=True, check=True).stdout.splitlines()
    files = [os.path.join(folder, path) for path in listed]
    file_list = scratch / f"{key}.txt"
    file_list.write_text("\n".join(files) + "\n", encoding="utf-8")
    check = Case(f"{key}-check", f"{label}: ms-lint check", [sys.executable, "-m", "ms_lint.cli", "check",
                 "--isolated", "--exit-zero", "--no-cache", "--jobs", "1", *paths])
    floor = Case(f"{key}-floor", f"{label}: floor", [sys.executable, str(Path(__file__).resolve()), "--child", "floor",
                 str(file_list)], captures_json=True)
    return [check, floor], {"files": len(files), "lines": count_lines(files), "listed": listed}


def run_ratio_bench(results: dict, repeat: int, corpus: Path, wanted: str | None, save=None) -> None:
    """``ms-lint check`` against the parse floor per package (see item 8): CPU seconds, best of ``repeat``."""
    record = results.setdefault("ratio", {"packages": {}, "repeat": repeat})
    with tempfile.TemporaryDirectory() as scratch:
        for number, (label, folder, path) in enumerate(_ratio_packages(corpus, wanted)):
            cases, sizes = _check_and_floor(label, folder, [path], Path(scratch), f"p{number}")
            runs: dict = {}
            for rep in range(repeat):  # alternated, the floor first every other time
                for case in (cases if rep % 2 == 0 else cases[::-1]):
                    run = measure(case, folder)
                    runs.setdefault(case.key.rsplit("-", 1)[1], []).append(run.__dict__)
                    log(f"[ratio {rep + 1}/{repeat}] {case.label}: {run.cpu_s:.2f} s cpu, {run.wall_s:.2f} s wall, "
                        f"load {run.load_before[0]:.1f}")
            entry = {"files": sizes["files"], "lines": sizes["lines"], "runs": runs,
                     "check_cpu_s": min(r["cpu_s"] for r in runs["check"]),
                     "floor_cpu_s": min(r["cpu_s"] for r in runs["floor"])}
            entry["ratio"] = entry["check_cpu_s"] / entry["floor_cpu_s"]
            record["packages"][label] = entry
            if save:
                save()


def run_scaling_bench(results: dict, repeat: int, corpus: Path, wanted: str | None, save=None) -> None:
    """Cost per line of ``ms-lint check`` on a quarter, a half and all of a package's files (see item 8)."""
    record = results.setdefault("scaling", {"packages": {}, "repeat": repeat})
    with tempfile.TemporaryDirectory() as scratch:
        for number, (label, folder, path) in enumerate(_ratio_packages(corpus, wanted or ";".join(SCALING_PACKAGES))):
            listed = _check_and_floor(label, folder, [path], Path(scratch), f"s{number}")[1]["listed"]
            entry = record["packages"].setdefault(label, {})
            for stride, share in SCALING_SHARES:
                cases, sizes = _check_and_floor(f"{label}, {share}", folder, listed[::stride], Path(scratch),
                                                f"s{number}-{stride}")
                runs: dict = {}
                for rep in range(repeat):
                    for case in (cases if rep % 2 == 0 else cases[::-1]):
                        run = measure(case, folder)
                        runs.setdefault(case.key.rsplit("-", 1)[1], []).append(run.__dict__)
                        log(f"[scaling {rep + 1}/{repeat}] {case.label}: {run.cpu_s:.2f} s cpu, "
                            f"{run.wall_s:.2f} s wall, load {run.load_before[0]:.1f}")
                check = min(r["cpu_s"] for r in runs["check"])
                floor = min(r["cpu_s"] for r in runs["floor"])
                entry[share] = {"files": sizes["files"], "lines": sizes["lines"], "check_cpu_s": check,
                                "floor_cpu_s": floor, "check_us_per_line": 1e6 * check / max(1, sizes["lines"]),
                                "floor_us_per_line": 1e6 * floor / max(1, sizes["lines"]), "runs": runs}
                if save:
                    save()
            entry["all_vs_quarter"] = entry["all"]["check_us_per_line"] / entry["a quarter"]["check_us_per_line"]


def ratio_table(record: dict) -> list[str]:
    lines = [f"ms-lint check --no-cache --jobs 1 against the parse floor (read + ast.parse of the same files), CPU "
             f"seconds of whole processes, best of {record['repeat']} (limit {TARGET_PACKAGE_FLOOR_RATIO:.1f}x):",
             f"  {'package':<30} {'files':>6} {'lines':>9} {'floor s':>8} {'check s':>8} {'ratio':>6}"]
    for label, entry in record["packages"].items():
        lines.append(f"  {label:<30} {entry['files']:>6,} {entry['lines']:>9,} {entry['floor_cpu_s']:>8.2f} "
                     f"{entry['check_cpu_s']:>8.2f} {entry['ratio']:>5.2f}x  "
                     f"{verdict(entry['ratio'], TARGET_PACKAGE_FLOOR_RATIO)}")
    return lines


def scaling_table(record: dict) -> list[str]:
    lines = [f"cost per line of ms-lint check --no-cache --jobs 1 on part of a package's files (CPU microseconds a "
             f"line, best of {record['repeat']}; limit: all within {TARGET_SCALING_RATIO:.1f}x of a quarter):"]
    for label, entry in record["packages"].items():
        parts = [f"{share} ({entry[share]['files']:,} files) {entry[share]['check_us_per_line']:.1f} "
                 f"(floor {entry[share]['floor_us_per_line']:.1f})" for _, share in SCALING_SHARES if share in entry]
        ratio = entry.get("all_vs_quarter")
        lines.append(f"  {label}: {'; '.join(parts)}; all / a quarter {fmt(ratio, '{:.2f}')}x: "
                     f"{verdict(ratio, TARGET_SCALING_RATIO)}")
    return lines


def run_pylint_bench(results: dict, repeat: int, corpus: Path, save=None) -> None:
    """pylint with its default checks, without and with the MS plugin, on one package (see item 8)."""
    (folder,) = prepare_corpus(corpus, [PYLINT_CORPUS])
    package = folder / PYLINT_CORPUS[0]
    record = results.setdefault("pylint", {"corpus": f"{PYLINT_CORPUS[0]}=={PYLINT_CORPUS[1]}", "runs": {},
                                           "problems": []})
    import pylint

    record["pylint"] = pylint.__version__
    with tempfile.TemporaryDirectory() as scratch:
        rcfile = Path(scratch) / "pylintrc"
        rcfile.write_text("[MAIN]\n", encoding="utf-8")  # no pylintrc around the corpus changes what runs
        me = [sys.executable, str(Path(__file__).resolve()), "--child", "pylint"]
        options = [f"--rcfile={rcfile}", "--jobs=1", "--persistent=n", "--exit-zero",
                   "--msg-template={path}:{line}:{column}: {msg_id} {msg}", str(package)]
        cases = [Case(f"pylint-{variant}", label, [*me, variant, *options])
                 for variant, label in (("plain", "pylint"), ("ms", "pylint + MS"))]
        run_rotating(cases, repeat, corpus, record["runs"], on_rep=save, what="pylint")
        check = subprocess.run([sys.executable, "-m", "ms_lint.cli", "check", "--isolated", "--exit-zero",
                                "--no-cache", str(package)], cwd=corpus, capture_output=True, text=True)
    runs = record["runs"]
    expected = _count_prefix(_codes(check.stdout), "MS")
    found = {key: sum(n for code, n in runs[key][0]["codes"].items() if PYLINT_MS_MSGID.fullmatch(code))
             for key in ("pylint-plain", "pylint-ms")}
    record["ms_findings"] = {"ms-lint check": expected, **found}
    if found["pylint-plain"] or found["pylint-ms"] != expected:
        record["problems"].append(f"MS findings: plain pylint {found['pylint-plain']}, pylint + MS "
                                  f"{found['pylint-ms']}, ms-lint check {expected}")
    for metric in ("wall_s", "cpu_s"):
        record[f"ratio_{metric}"] = paired_ratio(runs, "pylint-ms", "pylint-plain", metric)
    shares = [(r["plugin_cpu_s"], r["cpu_s"]) for r in runs["pylint-ms"] if r.get("plugin_cpu_s") is not None]
    if shares:
        record["plugin_cpu_s"] = median([plugin for plugin, _ in shares])
        record["plugin_percent"] = median([100 * plugin / run for plugin, run in shares])
        record["plugin_ratio"] = median([run / (run - plugin) for plugin, run in shares])


def _codes(report: str) -> dict[str, int]:
    codes: dict[str, int] = {}
    for match in REPORT_LINE.finditer(report):
        codes[match.group(1)] = codes.get(match.group(1), 0) + 1
    return codes


def pylint_table(record: dict) -> list[str]:
    runs = record["runs"]
    lines = [f"pylint {record.get('pylint', '')} with its default checks, {record['corpus']}, --jobs=1, medians of "
             f"{len(runs.get('pylint-plain', []))}:"]
    for key, label in (("pylint-plain", "pylint"), ("pylint-ms", "pylint + MS")):
        if key in runs:
            lines.append(f"  {label:<12} {median([r['wall_s'] for r in runs[key]]):8.2f} s wall "
                         f"{median([r['cpu_s'] for r in runs[key]]):8.2f} s cpu "
                         f"{max(r['peak_rss_mb'] for r in runs[key]):6.0f} MB")
    wall, cpu = record.get("ratio_wall_s"), record.get("ratio_cpu_s")
    lines.append(f"  pylint + MS / pylint (limit {TARGET_PYLINT_RATIO:.2f}; wall / cpu): {fmt(wall, '{:.3f}')}x / "
                 f"{fmt(cpu, '{:.3f}')}x: {verdict(wall, TARGET_PYLINT_RATIO)} / {verdict(cpu, TARGET_PYLINT_RATIO)}")
    if record.get("plugin_cpu_s") is not None:
        lines.append(f"  inside the pylint + MS runs: the plugin's own CPU time {record['plugin_cpu_s']:.2f} s "
                     f"({record['plugin_percent']:.1f}% of the run), the ratio that implies "
                     f"{record['plugin_ratio']:.3f}x: {verdict(record['plugin_ratio'], TARGET_PYLINT_RATIO)}")
    lines.append(f"  MS findings: {record.get('ms_findings')}")
    lines.extend(f"  warning: {problem}" for problem in record.get("problems", []))
    return lines


def warm_latency(results: dict, variants: list[str], editor_file: str, display: str, env: dict, checks: int,
                 cwd: Path) -> None:
    warm = results.setdefault("warm", {})
    for variant in variants:
        case = Case(f"warm-{variant}", f"warm {VARIANT_LABELS[variant]}",
                    [sys.executable, str(Path(__file__).resolve()), "--child", "flake8-warm", variant, display,
                     str(checks)], env=env, stdin=editor_file, captures_json=True)
        run = measure(case, cwd)
        inner = run.inner
        entry = {"process_wall_s": run.wall_s, "startup_s": inner["startup_s"], "check_s": inner["check_s"],
                 "first_ms": inner["check_s"][0] * 1000, "median_ms": median(inner["check_s"][1:]) * 1000}
        if "plugin_alone_s" in inner:
            entry["plugin_alone_s"] = inner["plugin_alone_s"]
            entry["plugin_alone_first_ms"] = inner["plugin_alone_s"][0] * 1000
            entry["plugin_alone_median_ms"] = median(inner["plugin_alone_s"][1:]) * 1000
        warm[variant] = entry
        log(f"[warm] {case.label}: first {entry['first_ms']:.0f} ms, then median {entry['median_ms']:.1f} ms")
    if "ms" in warm and "plain" in warm:
        warm["added_ms"] = warm["ms"]["median_ms"] - warm["plain"]["median_ms"]


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5, help="repetitions of every corpus case (default: 5)")
    parser.add_argument("--editor-repeat", type=int, default=None,
                        help="repetitions of the one-file stdin cases (default: 4 x --repeat)")
    parser.add_argument("--warm-checks", type=int, default=30,
                        help="checks of the editor file in the warm process (default: 30)")
    parser.add_argument("--json", default=str(DEFAULT_JSON), help="where to write the raw numbers "
                        "(default: benchmarks/results.json)")
    parser.add_argument("--corpus", default=str(DEFAULT_CORPUS), help="where the wheels are unpacked "
                        "(default: benchmarks/.corpus)")
    parser.add_argument("--packages", help="comma-separated subset of the corpus, e.g. mindyolo,mindcv "
                        "(default: all four; targets are defined on all four)")
    parser.add_argument("--skip", default="", help=f"comma-separated groups to leave out: {', '.join(GROUPS)}")
    parser.add_argument("--jobs", default="1,2", help="flake8 and ms-lint --jobs values (default: 1,2)")
    parser.add_argument("--ratio-packages", help="labels (or their beginnings) of the ratio group's packages, "
                        "separated by semicolons: 'mindcv;mindone 0.5.0, transformers' (default: all)")
    parser.add_argument("--scaling-packages", help="the same for the scaling group (default: "
                        f"{'; '.join(SCALING_PACKAGES)})")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    unknown = set(filter(None, args.skip.split(","))) - set(GROUPS)
    if unknown:
        parser.error(f"--skip: unknown group(s) {', '.join(sorted(unknown))}; choose from {', '.join(GROUPS)}")
    return args


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        return CHILD_MODES[argv[1]](argv[2:])
    args = parse_args(argv)
    try:
        return bench(args)
    except BenchError as exc:
        print(f"bench: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("bench: interrupted", file=sys.stderr)
        return 130


def bench(args: argparse.Namespace) -> int:
    skip = set(filter(None, args.skip.split(",")))
    if CORPUS_GROUPS <= skip and {"cache", "pylint", "validator"} <= skip:
        return bench_packages(args, skip)
    import flake8

    jobs_values = [int(j) for j in args.jobs.split(",") if j.strip()]
    corpus = Path(args.corpus).resolve()
    wanted = list(CORPUS)
    if args.packages:
        names = {n.strip() for n in args.packages.split(",")}
        wanted = [(n, v) for n, v in CORPUS if n in names]
        if not wanted:
            raise BenchError(f"--packages: none of {sorted(names)} is in the corpus ({[n for n, _ in CORPUS]})")
    if not has_module("ms_lint.plugin"):
        raise BenchError("ms_lint is not importable: run `pip install -e .` in this environment first")

    folders = prepare_corpus(corpus, wanted)
    files = corpus_files(folders)
    lines = count_lines(files)
    editor_file = largest_model_file(files)
    editor_display = os.path.relpath(editor_file, corpus)
    torchfix = None
    if "torchfix" not in skip:
        torchfix = prepare_torchfix()
    # Every flake8 variant runs with the same import path, TorchFix's folder included, so it differs only by plugin.
    flake8_env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(TORCHFIX_SITE) if torchfix else "",
                                                              os.environ.get("PYTHONPATH", "")]))}
    variants = ["plain", "ms"] + (["torchfix"] if torchfix else [])
    check_command = has_module("ms_lint.commands.check")
    compile_plugin_sources(torchfix is not None)

    results: dict = {
        "meta": {
            "corpus": [f"{n}=={v}" for n, v in wanted], "files": len(files), "lines": lines,
            "editor_file": editor_display, "editor_lines": count_lines([editor_file]), "repeat": args.repeat,
            "python": sys.version.split()[0], "platform": platform.platform(), "cpus": os.cpu_count(),
            "flake8": flake8.__version__, "torchfix": torchfix, "check_command": check_command,
            "ms_lint_sources": source_digest(),
            "load_start": list(os.getloadavg()), "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        },
        "runs": {}, "problems": [],
    }
    results["meta"]["flake8_versions"] = {v: check_plugins(v, flake8_env, corpus) for v in variants}
    json_path = Path(args.json)
    json_path.parent.mkdir(parents=True, exist_ok=True)

    def save(_rep=None):
        json_path.write_text(json.dumps(results, indent=1), encoding="utf-8")

    with tempfile.TemporaryDirectory() as scratch:
        file_list = Path(scratch) / "files.txt"
        file_list.write_text("\n".join(files) + "\n", encoding="utf-8")
        folder_args = [os.path.relpath(f, corpus) for f in folders]
        me = [sys.executable, str(Path(__file__).resolve()), "--child"]

        # Editor latency first: it is short, and its first untimed round warms the OS caches and bytecode.
        if "editor" not in skip:
            editor_cases = [
                flake8_case(v, [f"--stdin-display-name={editor_display}", "-"], f"stdin-{v}",
                            f"stdin {VARIANT_LABELS[v]}", flake8_env, stdin=editor_file) for v in variants]
            for case in editor_cases:
                measure(case, corpus)
            run_rotating(editor_cases, args.editor_repeat or 4 * args.repeat, corpus, results["runs"],
                         what="editor")
            save()
        if "warm" not in skip:
            warm_latency(results, [v for v in variants if v != "torchfix"] + (["torchfix"] if torchfix else []),
                         editor_file, editor_display, flake8_env, args.warm_checks, corpus)
            save()

        cases: list[Case] = []
        for jobs in jobs_values:
            if "flake8" not in skip:
                for variant in variants:
                    cases.append(flake8_case(variant, [f"--jobs={jobs}", *folder_args], f"flake8-{variant}-j{jobs}",
                                             f"{VARIANT_LABELS[variant]} --jobs={jobs}", flake8_env))
            if "check" not in skip and check_command:
                cases.append(Case(f"check-j{jobs}", f"ms-lint check --jobs {jobs}",
                                  [sys.executable, "-m", "ms_lint.cli", "check", "--isolated", "--exit-zero",
                                   "--no-cache", "--jobs", str(jobs), *folder_args]))
        if "check" not in skip:
            engine_case = Case("engine", "ms_lint.engine in one process", [*me, "engine", str(file_list)],
                               captures_json=True)
            if not check_command:
                engine_case.key = "check-j1"
            cases.append(engine_case)
        if "floor" not in skip:
            cases.append(Case("floor", "read + ast.parse in one process", [*me, "floor", str(file_list)],
                              captures_json=True))

        def after_rep(rep):
            if rep == 0:
                results["problems"].extend(verify_reports(results["runs"], cases))
                for problem in results["problems"]:
                    log(f"warning: {problem}")
            save()

        if cases:
            run_rotating(cases, args.repeat, corpus, results["runs"], on_rep=after_rep, what="corpus")

    if "cache" not in skip and check_command:
        run_cache_bench(results, args.repeat, corpus, jobs_values[0] if jobs_values else 1)
        save()
    if "pylint" not in skip:
        if has_module("pylint"):
            run_pylint_bench(results, args.repeat, corpus, save)
        else:
            results["pylint"] = {"runs": {}, "problems": ["pylint is not installed (pip install 'ms-lint[pylint]')"],
                                 "corpus": "-"}
        save()
    if "validator" not in skip:
        run_validator(results, args.repeat)
    if "ratio" not in skip:
        run_ratio_bench(results, args.repeat, corpus, args.ratio_packages, save)
    if "scaling" not in skip:
        run_scaling_bench(results, args.repeat, corpus, args.scaling_packages, save)
    results["meta"]["load_end"] = list(os.getloadavg())
    results["meta"]["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    summarize(results)
    save()
    table = build_table(results)
    results["table"] = table
    save()
    print(table)
    return 0


def bench_packages(args: argparse.Namespace, skip: set[str]) -> int:
    """The ratio and scaling groups alone: they need neither flake8 nor the four packages of the other groups."""
    corpus = Path(args.corpus).resolve()
    compile_plugin_sources(False)
    results: dict = {"meta": {"repeat": args.repeat, "python": sys.version.split()[0], "cpus": os.cpu_count(),
                              "ms_lint_sources": source_digest(), "load_start": list(os.getloadavg()),
                              "started": time.strftime("%Y-%m-%dT%H:%M:%S%z")}}
    json_path = Path(args.json)
    json_path.parent.mkdir(parents=True, exist_ok=True)

    def save(_rep=None):
        json_path.write_text(json.dumps(results, indent=1), encoding="utf-8")

    if "ratio" not in skip:
        run_ratio_bench(results, args.repeat, corpus, args.ratio_packages, save)
    if "scaling" not in skip:
        run_scaling_bench(results, args.repeat, corpus, args.scaling_packages, save)
    results["meta"]["load_end"] = list(os.getloadavg())
    lines = [f"load average {results['meta']['load_start'][0]:.1f} at start, {results['meta']['load_end'][0]:.1f} "
             f"at end; {os.cpu_count()} CPUs"]
    if results.get("ratio"):
        lines.extend(ratio_table(results["ratio"]))
    if results.get("scaling"):
        lines.extend(scaling_table(results["scaling"]))
    results["table"] = "\n".join(lines)
    save()
    print(results["table"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
