"""MS105: threads, processes and shell commands started from graph code."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.model import TENSOR, GraphFunction, ModuleFacts
from ms_lint.model.syntax import self_attribute
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.rules.base import Rule


@dataclass(frozen=True, kw_only=True)
class StartedInGraph(FindingData):
    """A thread, process or command started in graph code: what starts it (``threading.Thread()``), ``tensor
    data`` when it is given tensor data (then STRICT refuses it), the graph function."""

    started: str
    given: str | None = fact(optional=True)
    function: str

    def message(self) -> str:
        if self.given is not None:
            return (f"{self.started} given {self.given} in graph code ({self.function}) fails to compile under "
                    "STRICT (ValueError: the inputs should be constant); start it outside graph code "
                    "(training loop, callback, data pipeline)")
        return (f"{self.started} in graph code ({self.function}) runs once, while the graph compiles, and never on "
                "later steps (all syntax levels); start it outside graph code (training loop, callback, data "
                "pipeline)")


class HostConcurrency(Rule):
    code = "MS105"
    compiled_only = True
    name = "host-concurrency"
    summary = "threads, processes or shell commands started in graph code: they run once, during compilation"
    fix_summary = "start them outside graph code: in the training loop, a callback or the data pipeline"
    what = """
        Reports calls into `threading`, `multiprocessing`, `concurrent.futures`, `subprocess`, `asyncio` and
        `os.system`/`os.popen`/`os.fork` inside graph code, including method calls on such objects kept on the
        Cell (`self.pool.submit(...)` where `self.pool = ThreadPoolExecutor()`).
    """
    why = """
        Graph code runs Python only while compiling (measured on MindSpore 2.10 CPU): a thread or process started
        there without tensor data runs once, during the compile, and never on later steps, at every syntax level
        (also in `@jit` functions). Given tensor data (`Thread(target=f, args=(x,))`, an executor's `submit` of a
        tensor computation) it fails to compile under STRICT (ValueError: the inputs should be constant), while LAX
        runs it in the Python interpreter on every call; with `--ms-syntax-level=lax` those are not reported.
    """
    example = """
        class Net(nn.Cell):
            def construct(self, x):
                threading.Thread(target=log_step).start()
                return x
    """
    use_instead = """
        class Net(nn.Cell):
            def construct(self, x):
                return x

        # in the training loop, outside graph code:
        threading.Thread(target=log_step).start()
    """

    records = (StartedInGraph,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        for function in module.graph_functions:
            for node in function.nodes_of(ast.Call):
                started = _what_it_starts(module, function, node)
                if not started:
                    continue
                if any(function.kind(a) == TENSOR for a in [*node.args, *(k.value for k in node.keywords)]):
                    if function.strict:  # LAX runs it in the interpreter, on every call
                        yield self.report(module, node, StartedInGraph(started=started, given="tensor data",
                                                                       function=function.label))
                    continue
                yield self.report(module, node, StartedInGraph(started=started, function=function.label))


def _what_it_starts(module: ModuleFacts, function: GraphFunction, call: ast.Call) -> str | None:
    qualname = module.qualname(call.func)
    if api.is_host_concurrency(qualname):
        return f"{qualname}()"
    func = call.func
    if (isinstance(func, ast.Attribute) and self_attribute(func.value, function.self_name) is not None
            and function.owner is not None):
        built_by = function.owner.attribute_constructor(func.value.attr)
        if api.is_host_concurrency(built_by):
            return f"{function.self_name}.{func.value.attr}.{func.attr}() on a {built_by}"
    return None
