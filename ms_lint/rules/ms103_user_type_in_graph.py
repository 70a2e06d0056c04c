"""MS103: user-defined types used in graph code the way the compiler rejects."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint.model import TENSOR, GraphFunction, ModuleFacts
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.rules.base import Rule


@dataclass(frozen=True, kw_only=True)
class UserStateChanged(FindingData):
    """A user object's method changing its state in graph code: the type, the method, what it changes
    (``container``: a list, dict or object it holds; ``attribute``: its own attribute), the graph function."""

    type: str = fact(subject=True)
    method: str = fact(subject=True)
    change: str
    function: str

    def message(self) -> str:
        called = f"{self.type}.{self.method}() changes"
        if self.change == "container":
            return (f"{called} a list, dict or object held by a user object in graph code ({self.function}): graph "
                    "mode does not keep the change: under STRICT the compile fails (TypeError), and under LAX the "
                    "change is lost, silently or with an error where the code reads what was lost (ValueError or "
                    "AttributeError, as the code uses it); a loop that waits for the change (`while len(self.layers) "
                    "<= idx: self.layers.append(...)`) never ends at either level (RuntimeError \"Exceed function "
                    "call depth limit\"); keep the state in Parameters updated with ops.assign, or pass it in and "
                    "return it")
        return (f"{called} the state of a user object in graph code ({self.function}): fails to compile under "
                "STRICT (TypeError); keep the state in a Parameter updated with ops.assign, or return the new value")


@dataclass(frozen=True, kw_only=True)
class UserTypeBuilt(FindingData):
    """A user type (``kind``: ``user type``) or a ``@jit_class`` (``jit_class``) built from tensor data in graph
    code: the type's name, the graph function, and how the call builds it, for the validator to build it alike:
    the callee as written (``outputs.Box``; empty when it is not a dotted name), how many positional arguments and
    which keywords it passes, and whether it unpacks a ``*sequence``."""

    built_type: str = fact(subject=True)
    kind: str
    function: str
    callee: str = fact(subject=True)
    positional: int
    keywords: list[str]
    starred: bool

    def message(self) -> str:
        if self.kind == "user type":
            return (f"user type {self.built_type} built from tensor data in graph code ({self.function}) fails to "
                    "compile under STRICT (ValueError); return a tuple or dict")
        return (f"@jit_class {self.built_type} built from tensor data in graph code ({self.function}) fails to "
                "compile at every syntax level (TypeError: all arguments are required to be constants); build it in "
                "__init__ from constants, or return a tuple or dict")


class UserTypeInGraph(Rule):
    code = "MS103"
    compiled_only = True
    name = "user-type-in-graph"
    summary = "a user object mutated, or a user type built from tensors, in graph code"
    fix_summary = "keep state in Parameters updated with `ops.assign`; return tuples or dicts"
    what = """
        Reports, in graph code, a call to a method of a user-class instance that changes the instance: one that
        assigns to its attributes (`self.counter.bump()`), and one that changes a list, dict or object it holds
        (`self.items.append(x)`, `self.cache[k] = v`, the `past_key_values.update(k, v, layer)` of
        transformers-style caches). The instance may be built in graph code, held by the Cell (`self.counter`), or
        passed in (a parameter annotated with the class, such as `past_key_values: Optional[Cache]`, from this or
        another module of the project). Also reports a user type (class, dataclass, namedtuple, of this or another
        module of the project) built from tensor data, and a `@jit_class` class built from tensor data. Reading
        attributes, calling pure methods, Enum members, `isinstance`, `@jit_class` instances built from constants
        (in `__init__`, or in graph code) and custom operators (`Primitive` subclasses) are supported and not
        reported.
    """
    why = """
        The graph compiler treats user objects as constants (measured on MindSpore 2.10 CPU):
        - a method that rebinds an attribute (`self.steps += 1`) fails under STRICT with TypeError; LAX runs it
          in the Python interpreter;
        - a method that changes a container the object holds is lost at every level: `self.items.append(x)` runs
          without error and the list stays empty after any number of calls; a key/value cache updated this way
          (`self.key_cache.append(k)`, `self.key_cache[i] = ops.cat(...)`) fails under STRICT (TypeError: it
          should be a Parameter); under LAX the update is lost, and what happens next depends on the code: a
          silently stale state, ValueError where a cache list is read still empty, AttributeError where a layer
          object's `keys` is read still None; a loop that appends until the container is long enough
          (`while len(self.layers) <= idx`, a lazily grown cache) never ends, at both levels (RuntimeError
          "Exceed function call depth limit"; measured 2.10 and 2.7.1, tests/test_ground_truth_model.py);
        - a namedtuple or class built from tensors fails under STRICT with ValueError; LAX runs it;
        - a `@jit_class` class built from tensors fails at every level (TypeError: "When creating an instance of
          'Pair', all arguments are required to be constants"); one built in `__init__` from constants is read
          fine.
        With `--ms-syntax-level=lax` only the container changes and the `@jit_class` instances built from tensors
        are reported.
    """
    example = """
        class Counter:
            def __init__(self):
                self.steps = 0

            def bump(self):
                self.steps += 1

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.counter = Counter()

            def construct(self, x):
                self.counter.bump()
                return x
    """
    use_instead = """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.steps = Parameter(Tensor(0, mindspore.int32), requires_grad=False)

            def construct(self, x):
                ops.assign_add(self.steps, Tensor(1, mindspore.int32))
                return x
    """

    records = (UserStateChanged, UserTypeBuilt)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        for function in module.graph_functions:
            for node in function.nodes_of(ast.Call):
                for finding in (self._mutating_call(module, function, node),
                                self._built_from_tensors(module, function, node)):
                    if finding is not None:
                        yield finding

    def _mutating_call(self, module: ModuleFacts, function: GraphFunction, call: ast.Call) -> Finding | None:
        func = call.func
        if not isinstance(func, ast.Attribute):
            return None
        user_type = function.object_type(func.value)
        change = user_type.mutation(func.attr) if user_type is not None else None
        if change == "container" or change == "attribute" and function.strict:
            return self.report(module, call, UserStateChanged(type=user_type.name, method=func.attr, change=change,
                                                              function=function.label))
        return None

    def _built_from_tensors(self, module: ModuleFacts, function: GraphFunction, call: ast.Call) -> Finding | None:
        qualname = module.qualname(call.func)
        # A class of this module or of another module of the project (``BaseModelOutput`` of a shared outputs module).
        # The callee first: most calls in graph code are of sub-cells and MindSpore, which the model tells apart at
        # once, and the arguments' kinds can take a look into helpers.
        user_type = module.user_type(qualname) if function.strict else None
        jit_class = user_type is None and module.is_jit_class(qualname)
        if (user_type is None and not jit_class) or not any(
                function.kind(a) == TENSOR for a in [*call.args, *(k.value for k in call.keywords)]):
            return None
        return self.report(module, call, UserTypeBuilt(
            built_type=user_type.name if user_type is not None else qualname.rsplit('.', 1)[-1],
            kind="user type" if user_type is not None else "jit_class", function=function.label,
            callee=_dotted(call.func) or "", positional=len(call.args),
            keywords=[keyword.arg for keyword in call.keywords if keyword.arg],
            starred=any(isinstance(argument, ast.Starred) for argument in call.args)))


def _dotted(expr: ast.AST) -> str | None:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        inner = _dotted(expr.value)
        return None if inner is None else f"{inner}.{expr.attr}"
    return None
