"""MS105: threads, processes and shell commands started from graph code."""
from __future__ import annotations

import ast
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.model import GraphFunction, ModuleFacts
from ms_lint.findings import Finding
from ms_lint.rules.base import Rule


class HostConcurrency(Rule):
    code = "MS105"
    name = "host-concurrency"
    summary = "threads, processes or shell commands started in graph code: they run once, during compilation"
    fix_summary = "start them outside graph code: in the training loop, a callback or the data pipeline"
    what = """
        Reports calls into `threading`, `multiprocessing`, `concurrent.futures`, `subprocess`, `asyncio` and
        `os.system`/`os.popen`/`os.fork` inside graph code, including method calls on such objects kept on the
        Cell (`self.pool.submit(...)` where `self.pool = ThreadPoolExecutor()`).
    """
    why = """
        Graph code runs Python only while compiling: a thread or process started there runs once, during the
        compile, and never on later steps, at every syntax level. Submitting a tensor computation to an executor
        additionally fails under STRICT (ValueError).
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

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        for function in module.graph_functions:
            for node in function.nodes_of(ast.Call):
                started = _what_it_starts(module, function, node)
                if started:
                    yield self.finding(
                        module, node,
                        f"{started} in graph code ({function.label}) runs once, while the graph compiles, and "
                        "never on later steps (all syntax levels); start it outside graph code (training loop, "
                        "callback, data pipeline)",
                    )


def _what_it_starts(module: ModuleFacts, function: GraphFunction, call: ast.Call) -> str | None:
    qualname = module.qualname(call.func)
    if api.is_host_concurrency(qualname):
        return f"{qualname}()"
    func = call.func
    if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute)
            and isinstance(func.value.value, ast.Name) and func.value.value.id == function.self_name
            and function.owner is not None):
        built_by = function.owner.attribute_constructor(func.value.attr)
        if api.is_host_concurrency(built_by):
            return f"self.{func.value.attr}.{func.attr}() on a {built_by}"
    return None
