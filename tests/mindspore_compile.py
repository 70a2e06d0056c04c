"""Compile small Cells with the real MindSpore, in one subprocess for many cases (importing MindSpore is slow).

Each case is a source file defining ``Net`` and the inputs to compile it with; the result says whether the
GRAPH_MODE compile at the given syntax level raised, and what.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

_RUNNER = r'''
import importlib.util, json, sys, traceback
import numpy as np
import mindspore as ms
results = []
for case in json.load(sys.stdin):
    ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=getattr(ms, case["level"]))
    try:
        spec = importlib.util.spec_from_file_location(case["module"], case["path"])
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        net = module.Net()
        inputs = [ms.Tensor(np.ones(shape, np.float32)) for shape in case["shapes"]]
        first = net(*inputs)
        second = net(*inputs)
        repeated = bool(np.array_equal(first.asnumpy(), second.asnumpy())) if hasattr(first, "asnumpy") else None
        # a case's own look after the two calls (more calls, the Cell's attributes), where it defines state(net)
        state = module.state(net) if hasattr(module, "state") else None
        results.append({"ok": True, "params": [p.name for p in net.trainable_params()], "repeated": repeated,
                        "state": state})
    except BaseException as exc:
        results.append({"ok": False, "error": type(exc).__name__, "message": str(exc)[:2000]})
print("@@RESULTS@@" + json.dumps(results))
'''


def compile_environment() -> dict[str, str]:
    """The environment of a process that compiles with MindSpore: quiet logs, and no ``MS_DEV_JIT_SYNTAX_LEVEL``
    (which overrides the level each case asks ``set_context`` for)."""
    environment = {name: value for name, value in os.environ.items() if name != "MS_DEV_JIT_SYNTAX_LEVEL"}
    environment["GLOG_v"] = "3"
    return environment


@dataclass
class CompileResult:
    ok: bool
    error: str = ""
    message: str = ""
    params: tuple[str, ...] = ()
    repeated: bool | None = None  # two calls on the same input gave the same output
    state: object = None  # what the case's ``state(net)`` returned after the two calls


def compile_at_both_levels(cases, header: str, workdir: Path, shapes: list[list[int]]) -> dict:
    """``cases``: (name, source defining Net, ...) tuples; each compiled after ``header`` at STRICT and at LAX with
    inputs of ``shapes``, in one process. Returns {name: (STRICT result, LAX result)}."""
    sources = [header + textwrap.dedent(case[1]) for case in cases]
    results = compile_cases([(source, level, shapes) for source in sources for level in ("STRICT", "LAX")], workdir)
    return {case[0]: (results[2 * i], results[2 * i + 1]) for i, case in enumerate(cases)}


def compile_cases(cases: list[tuple[str, str, list[list[int]]]], workdir: Path) -> list[CompileResult]:
    """``cases``: (source defining Net, level "STRICT"/"LAX", input shapes). Returns one result per case."""
    payload = []
    for index, (source, level, shapes) in enumerate(cases):
        path = workdir / f"case_{index}.py"
        path.write_text(textwrap.dedent(source))
        payload.append({"module": f"case_{index}", "path": str(path), "level": level, "shapes": shapes})
    completed = subprocess.run(
        [sys.executable, "-c", _RUNNER], input=json.dumps(payload), capture_output=True, text=True,
        cwd=workdir, timeout=600, env=compile_environment(),
    )
    marker = completed.stdout.rfind("@@RESULTS@@")
    assert marker >= 0, f"the MindSpore compile process failed:\n{completed.stderr[-3000:]}"
    raw = json.loads(completed.stdout[marker + len("@@RESULTS@@"):])
    return [
        CompileResult(r["ok"], r.get("error", ""), r.get("message", ""), tuple(r.get("params", ())), r.get("repeated"),
                      r.get("state"))
        for r in raw
    ]


_EXCEPTION_NAMES = re.compile(r"\b(TypeError|NameError|RuntimeError|ValueError|AttributeError|UnboundLocalError)\b")


def names_the_exception(message: str, raised: str) -> bool:
    """Whether a finding's ``message`` that names exceptions names ``raised`` among them (one naming none says
    nothing to check)."""
    named = set(_EXCEPTION_NAMES.findall(message))
    return not named or raised in named


# For runner scripts of other ground-truth tests: each case's module (``{"module", "path"}`` of a JSON list read from
# stdin) loaded under its own name per mode and level, with ``json``, ``sys``, numpy and MindSpore imported.
LOAD_CASE = r'''
import importlib.util, json, sys
import numpy as np
import mindspore as ms

def load(case, suffix):
    spec = importlib.util.spec_from_file_location(case["module"] + suffix, case["path"])
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
'''

# After LOAD_CASE and a ``run(module)`` returning a JSON value: each case run in GRAPH_MODE at STRICT and at LAX and
# in PyNative, the outcomes printed after ``@@RESULTS@@``.
EACH_MODE = r'''
results = []
for case in json.load(sys.stdin):
    outcome = {}
    for level in ("STRICT", "LAX"):
        ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=getattr(ms, level))
        outcome[level] = run(load(case, "_" + level))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    outcome["PYNATIVE"] = run(load(case, "_pynative"))
    results.append(outcome)
print("@@RESULTS@@" + json.dumps(results))
'''


def run_cases(workdir: Path, prefix: str, header: str, sources: list[str], runner: str) -> list:
    """Write each source (after ``header``) as a module ``{prefix}_{index}`` in ``workdir`` and run ``runner`` (a
    script built from ``LOAD_CASE``) on them in one MindSpore process: its outcomes, one per source, in order."""
    payload = []
    for index, source in enumerate(sources):
        path = workdir / f"{prefix}_{index}.py"
        path.write_text(textwrap.dedent(header) + textwrap.dedent(source))
        payload.append({"module": f"{prefix}_{index}", "path": str(path)})
    completed = subprocess.run([sys.executable, "-c", runner], input=json.dumps(payload), capture_output=True,
                               text=True, cwd=workdir, timeout=900, env=compile_environment())
    marker = completed.stdout.rfind("@@RESULTS@@")
    assert marker >= 0, f"the MindSpore process failed:\n{completed.stderr[-3000:]}"
    return json.loads(completed.stdout[marker + len("@@RESULTS@@"):])
