"""How graph compile time grows with control flow on tensor conditions (the measurement behind MS130).

    python benchmarks/control_flow.py                      # both levels, 3 repetitions, prints the table
    python benchmarks/control_flow.py --repeat 1 --levels STRICT --json /tmp/control_flow.json

Each case is a Cell whose ``construct`` nests ``if`` (or ``while``) statements on tensor values to a given depth, or
unrolls a ``for i in range(n)`` loop holding an ``if`` on a tensor. Every case is compiled in a fresh process
(``net.compile(*inputs)`` under GRAPH_MODE at the given syntax level; MindSpore's compile cache would otherwise
answer repeats), and only the compile call is timed, not the import of MindSpore. The table gives the median
CPU seconds of the compiling process per case (steadier than wall time on a shared machine), its
ratio to the same family's smallest case, and the median wall seconds.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

_RUNNER = r'''
import importlib.util, json, sys, time
import numpy as np
import mindspore as ms
case = json.loads(sys.argv[1])
ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=getattr(ms, case["level"]))
spec = importlib.util.spec_from_file_location("case", case["path"])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
net = module.Net()
inputs = [ms.Tensor(np.ones((4,), np.float32))]
start, cpu_start = time.perf_counter(), time.process_time()
try:
    net.compile(*inputs)
    error = ""
except BaseException as exc:
    error = type(exc).__name__ + ": " + str(exc).splitlines()[0][:200]
elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
print("@@RESULT@@" + json.dumps({"seconds": elapsed, "cpu": cpu, "error": error}))
'''


def nested_if(depth: int) -> str:
    """``depth`` ``if`` statements on tensor conditions, each inside the one before, each with an ``else``."""
    return _nest(depth, lambda level: f"if x.sum() > {level}:", lambda level: ["else:", f"    x = x - {level + 1}"])


def nested_while(depth: int) -> str:
    """``depth`` ``while`` loops on tensor conditions, each inside the one before."""
    return _nest(depth, lambda level: f"while x.sum() < {10 * (level + 1)}:", lambda level: ["    x = x * 1.5"])


def _nest(depth: int, opening, closing) -> str:
    """``depth`` statements (``opening(level)``), each inside the one before, around ``x = x + 1``; after each
    statement's body, the lines ``closing(level)`` at the statement's indentation."""
    lines, indent = [], "        "
    for level in range(depth):
        lines.append(indent + opening(level))
        indent += "    "
    lines.append(f"{indent}x = x + 1")
    for level in reversed(range(depth)):
        indent = indent[:-4]
        lines.extend(indent + line for line in closing(level))
    return _cell(lines)


def unrolled_for(count: int) -> str:
    """``for i in range(count)`` (unrolled by the compiler) holding an ``if`` on a tensor condition."""
    return _cell([
        f"        for i in range({count}):",
        "            if x.sum() > i:",
        "                x = x + 1",
        "            else:",
        "                x = x - 1",
    ])


def _cell(body: list[str]) -> str:
    return textwrap.dedent("""\
        import mindspore as ms
        from mindspore import nn


        class Net(nn.Cell):
            def construct(self, x):
        """) + "\n".join(body) + "\n        return x\n"


FAMILIES = {
    "nested if": (nested_if, [1, 2, 4, 6, 8, 12]),
    "nested while": (nested_while, [1, 2, 4, 6, 8, 12]),
    "for range(n) + if": (unrolled_for, [1, 4, 8, 16, 32, 64]),
}


def compile_once(source: str, level: str, workdir: Path, python: str) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of the process, error) of one ``net.compile`` in a fresh process. The CPU time
    counts every thread of the process and not the time other processes took: on a shared machine it is the steadier
    figure."""
    path = workdir / "case.py"
    path.write_text(source)
    completed = subprocess.run(
        [python, "-c", _RUNNER, json.dumps({"path": str(path), "level": level})], capture_output=True, text=True,
        cwd=workdir, timeout=900, env={**os.environ, "GLOG_v": "3"})
    marker = completed.stdout.rfind("@@RESULT@@")
    if marker < 0:
        return float("nan"), float("nan"), "process failed: " + completed.stderr.strip()[-300:]
    result = json.loads(completed.stdout[marker + len("@@RESULT@@"):])
    return result["seconds"], result["cpu"], result["error"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3, help="fresh processes per case (the median is reported)")
    parser.add_argument("--levels", default="STRICT,LAX", help="comma-separated jit syntax levels")
    parser.add_argument("--families", default=",".join(FAMILIES), help="comma-separated case families")
    parser.add_argument("--python", default=sys.executable, help="the interpreter that has MindSpore")
    parser.add_argument("--jobs", type=int, default=1,
                        help="compiles run at once (the CPU time of each is still its own)")
    parser.add_argument("--json", help="also write every measurement here")
    args = parser.parse_args(argv)
    levels = [level.strip().upper() for level in args.levels.split(",") if level.strip()]
    families = [name.strip() for name in args.families.split(",") if name.strip()]
    cases = [(family, level, size) for family in families for level in levels for size in FAMILIES[family][1]]
    with tempfile.TemporaryDirectory() as scratch, ThreadPoolExecutor(max(1, args.jobs)) as pool:
        def measure(case, run):
            family, level, size = case
            workdir = Path(scratch) / f"{FAMILIES[family][0].__name__}-{level}-{size}-{run}"
            workdir.mkdir()
            return compile_once(FAMILIES[family][0](size), level, workdir, args.python)

        futures = {case: [pool.submit(measure, case, run) for run in range(args.repeat)] for case in cases}
        rows, base = [], {}
        for case in cases:
            family, level, size = case
            runs = [future.result() for future in futures[case]]
            seconds = statistics.median(run[0] for run in runs)
            cpu = statistics.median(run[1] for run in runs)
            error = next((run[2] for run in runs if run[2]), "")
            first = base.setdefault((family, level), cpu)
            rows.append({"family": family, "level": level, "size": size, "seconds": seconds, "cpu": cpu,
                         "ratio": cpu / first, "runs": [run[:2] for run in runs], "error": error})
            print(f"{family:18} {level:6} {size:3d}  wall {seconds:8.3f} s  cpu {cpu:8.3f} s  x{cpu / first:6.1f}  "
                  f"{error}", file=sys.stderr, flush=True)
    print("| case | size | level | compile CPU s (median) | vs smallest | wall s (median) | error |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for row in rows:
        print(f"| {row['family']} | {row['size']} | {row['level']} | {row['cpu']:.2f} | {row['ratio']:.1f}x | "
              f"{row['seconds']:.2f} | {row['error']} |")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
