"""MS101: a host library (numpy, scipy, math, torch, ...) computing on tensor data in graph code."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.model import HOST, TENSOR, GraphFunction, ModuleFacts
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.rules.base import Rule


_CONSTANT = 'ValueError "inputs should be constant"'


@dataclass(frozen=True, kw_only=True)
class HostCall(FindingData):
    """A host-library call on tensor data, or on a host copy of it, in graph code: the callee, the graph function,
    what it is given (``tensor``, ``host copy``) and the method that copied it, the library, and the syntax levels
    at which it fails (LAX too for torch, for numpy's reductions, and for a result used as a tensor operand)."""

    callee: str = fact(subject=True)
    function: str
    on: str
    copied_by: str
    library: str
    levels: list[str]

    def message(self) -> str:
        given = f"a host copy of tensor data (.{self.copied_by}())" if self.on == "host copy" else "tensor data"
        return (f"{self.callee}() on {given} in graph code ({self.function}) {self._when()}; use "
                f"{_alternative(self.callee)}")

    def _when(self) -> str:
        name = api.last_name(self.callee)
        if self.library == "torch":
            return "fails at every syntax level (STRICT: compile error; LAX: TypeError when the graph runs)"
        if "lax" in self.levels and self._reduction():
            return (f"fails at every syntax level (STRICT: {_CONSTANT} at compile; LAX: TypeError when the graph "
                    f"runs: numpy calls the Tensor's own {name}() with out=, and MindSpore "
                    "reports it as an unexpected keyword argument 'out' or a failed call)")
        if "lax" in self.levels:
            return (f"fails at every syntax level (STRICT: {_CONSTANT} at compile; LAX: it gives a numpy array, not a "
                    "Tensor, and the tensor operation given it raises TypeError when the graph runs)")
        if self.library in ("numpy", "scipy") and not self.callee.startswith("numpy.random."):
            return (f"fails to compile under STRICT ({_CONSTANT}); LAX runs it in the Python interpreter and gives a "
                    "numpy array, not a Tensor (measured: a tensor operand of `+` refuses it with TypeError, ops.relu "
                    "returns a wrong value)")
        return f"fails to compile under STRICT ({_CONSTANT}); LAX runs it in the Python interpreter"

    def _reduction(self) -> bool:
        """numpy's reductions call the tensor's own method with ``out=``, which MindSpore's Tensor does not take."""
        return self.library == "numpy" and api.last_name(self.callee) in _METHOD_REDUCTIONS and self.on == "tensor"


@dataclass(frozen=True, kw_only=True)
class HostArrayOperand(FindingData):
    """A host array (numpy's) used as an operand of a tensor operation in graph code: the call that builds it
    (empty when it is not a dotted name), its library, ``on`` (``operand``), the graph function."""

    template = ("a {library} array used as an operand of a tensor operation in graph code ({function}) fails at "
                "every syntax level (STRICT: ValueError at compile; LAX: TypeError when it runs); create it once in "
                "__init__ as a Tensor, or build it with mindspore.ops")
    callee: str = fact(subject=True)
    library: str
    on: str = fact(for_users=True)
    function: str


class HostLibraryCall(Rule):
    code = "MS101"
    compiled_only = True
    name = "host-library-call"
    summary = "numpy/scipy/math/torch call on tensor data, or a numpy array used as a tensor operand, in graph code"
    fix_summary = "use `mindspore.ops`/`mindspore.numpy`; build constant arrays once in `__init__` as Tensors"
    what = """
        Reports a call into a host library (numpy, scipy, math, torch, pandas, cv2, PIL, ...) inside graph code
        (`construct`, `bprop`, `@jit` functions and what they call) when an argument is tensor data or a host copy
        of it (`np.tanh(x.asnumpy())`: MS102 reports the copy, MS101 the numpy call left once it is gone), and a host
        array used directly as an operand of a tensor operation (`x + np.ones((2, 3))`). Calls on compile-time
        constants (`np.sqrt(self.dim)`, `np.prod(x.shape)`, `Tensor(np.ones((2, 2)))`) are not reported. Under LAX
        only the calls that fail there are reported: torch, numpy's reductions on a tensor (`np.mean(x)`), and a
        numpy or scipy result used as an operand of a tensor operation (`x + np.sin(x)`).
    """
    why = """
        The graph compiler can only evaluate host-library calls on constants. On tensor data:
        - STRICT (and COMPATIBLE): the compile fails, `ValueError: ... inputs should be constant`.
        - LAX: numpy/scipy/math calls run in the Python interpreter. numpy and scipy give a numpy array, not a
          Tensor: used as an operand of a tensor operation (`x + np.sin(x)`) it raises TypeError when the graph
          runs, and `ops.relu(np.sin(x))` returned a wrong value (measured 2.10 and 2.7.1 CPU). numpy's reductions
          (`np.mean`, `np.sum`, `np.max`, `np.min`, `np.prod`, `np.std`, `np.var`) call the Tensor's own method with
          `out=` and raise TypeError. torch calls raise TypeError when the graph runs. With
          `--ms-syntax-level=lax` only torch calls, numpy reductions and numpy results used as tensor operands are
          reported.
        A raw numpy array as a tensor operand fails at every level (STRICT: ValueError at compile; LAX: TypeError
        when it runs), also when it happens in a helper called from `construct`.
    """
    example = """
        import numpy as np
        from mindspore import nn

        class Net(nn.Cell):
            def construct(self, x):
                return np.sin(x) + np.ones((2, 3))
    """
    use_instead = """
        import mindspore
        import numpy as np
        from mindspore import Tensor, nn, ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.offset = Tensor(np.ones((2, 3)), mindspore.float32)

            def construct(self, x):
                return ops.sin(x) + self.offset
    """

    records = (HostCall, HostArrayOperand)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        if not module.imports_a_host_library():
            return  # every finding is a call of, or an array from, a host library
        for function in module.graph_functions:
            host_arrays = _names_bound_to_host_arrays(module, function)
            for node in function.nodes_of(ast.Call, ast.BinOp):
                if isinstance(node, ast.Call):
                    yield from self._host_call(module, function, node)
                    yield from self._host_operands_of_op(module, function, node, host_arrays)
                elif isinstance(node, ast.BinOp):
                    yield from self._host_operands(module, function, (node.left, node.right), host_arrays)

    def _host_call(self, module: ModuleFacts, function: GraphFunction, call: ast.Call) -> Iterator[Finding]:
        qualname = module.qualname(call.func)
        if not module.is_host_library(qualname):
            return
        arguments = [*call.args, *(k.value for k in call.keywords)]
        copy = None
        if not any(function.kind(a) == TENSOR for a in arguments):
            # On a host copy of tensor data (np.tanh(x.asnumpy())) the call is a hazard of its own: replacing the
            # copy (MS102) leaves a numpy call on a tensor.
            copy = next(filter(None, map(function.host_copy_in, arguments)), None) if function.strict else None
            if copy is None:
                return
        is_torch = api.top_package(qualname) == "torch"
        library = api.top_package(qualname)
        # numpy's reductions call the tensor's own method with ``out=``, which MindSpore's Tensor does not take
        reduction = library == "numpy" and api.last_name(qualname) in _METHOD_REDUCTIONS and copy is None
        operand = library in ("numpy", "scipy") and not qualname.startswith("numpy.random.") and copy is None \
            and _tensor_operand(function, call)
        if not function.strict and not (is_torch or reduction or operand):
            return
        yield self.report(module, call, HostCall(
            callee=qualname, function=function.label, on="host copy" if copy is not None else "tensor",
            copied_by=copy.func.attr if copy is not None else "", library=library,
            levels=["strict", "lax"] if is_torch or reduction or operand else ["strict"]))

    def _host_operands(self, module, function, operands, host_arrays) -> Iterator[Finding]:
        # the sources first: a name or callee look-up each, where a kind can take a look into helpers
        sources = [(operand, source) for operand in operands
                   if (source := _host_array_source(module, operand, host_arrays)) is not None]
        if not sources or not any(function.kind(o) == TENSOR for o in operands):
            return
        for operand, source in sources:
            if not (isinstance(operand, ast.Name) and function.kind(operand) != HOST):
                library = api.top_package(module.qualname(source.func) or 'numpy')
                yield self.report(module, source, HostArrayOperand(
                    callee=module.qualname(source.func) or "", library=library, on="operand",
                    function=function.label))

    def _host_operands_of_op(self, module, function, call, host_arrays) -> Iterator[Finding]:
        qualname = module.qualname(call.func)
        if not (qualname and api.is_mindspore(qualname)) or api.is_mindspore_name(
                qualname, "Tensor", "Parameter", "tensor", "from_numpy"):
            return
        yield from self._host_operands(module, function, [*call.args, *(k.value for k in call.keywords)],
                                       host_arrays)


def _names_bound_to_host_arrays(module: ModuleFacts, function: GraphFunction) -> dict[str, ast.Call]:
    names = {}
    for node in function.nodes_of(ast.Assign):
        # the callee first: a name's kind can take a look into helpers, the callee's name is one look-up
        if isinstance(node.value, ast.Call) and module.is_host_library(module.qualname(node.value.func)):
            if function.kind(node.value) == HOST:
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        names[target.id] = node.value
    return names


def _host_array_source(module: ModuleFacts, operand: ast.AST, host_arrays: dict[str, ast.Call]) -> ast.Call | None:
    if isinstance(operand, ast.Name):
        return host_arrays.get(operand.id)
    if isinstance(operand, ast.Call) and module.is_host_library(module.qualname(operand.func)):
        if api.last_name(module.qualname(operand.func)) in api.ARRAY_CONSTRUCTORS or any(
                isinstance(a, (ast.List, ast.Tuple)) for a in operand.args):
            return operand
    return None


# numpy functions that call the array's own method with ``out=`` (measured on tensors under LAX: TypeError)
_METHOD_REDUCTIONS = frozenset({"mean", "sum", "max", "min", "amax", "amin", "prod", "std", "var"})


def _tensor_operand(function: GraphFunction, call: ast.Call) -> bool:
    """The call's result is an operand of an arithmetic operation with tensor data (``x + np.sin(x)``): LAX gives
    it a numpy array, which the tensor operation refuses."""
    return any(function.kind(node.right if node.left is call else node.left) == TENSOR
               for node in function.nodes_of(ast.BinOp) if call is node.left or call is node.right)


def _alternative(qualname: str) -> str:
    name = api.last_name(qualname)
    if name in api.tables().get("ops_functions", ()):
        return f"mindspore.ops.{name}"
    return "the mindspore.ops or mindspore.numpy equivalent"
