"""MS103: user-defined types used in graph code the way the compiler rejects."""
from __future__ import annotations

import ast
from typing import Iterator

from ms_lint.model import TENSOR, GraphFunction, ModuleFacts
from ms_lint.findings import Finding
from ms_lint.rules.base import Rule


class UserTypeInGraph(Rule):
    code = "MS103"
    name = "user-type-in-graph"
    summary = "a user object mutated, or a user type built from tensors, in graph code"
    fix_summary = "keep state in Parameters updated with `ops.assign`; return tuples; or use `@mindspore.jit_class`"
    what = """
        Reports, in graph code, a call to a method of a user-class instance that assigns to the instance's
        attributes (`self.counter.bump()`), and a user type (class, dataclass, namedtuple) built from tensor data.
        Reading attributes, calling pure methods, Enum members, `isinstance`, and `@jit_class` classes are
        supported and not reported.
    """
    why = """
        The graph compiler treats user objects as constants. Under STRICT, a method that mutates the object fails
        with TypeError and a namedtuple/class built from tensors fails with ValueError. Under LAX both run through
        the Python interpreter (not exportable to MindIR), so with `--ms-syntax-level=lax` nothing is reported.
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

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        for function in module.graph_functions:
            if not function.strict:
                continue
            for node in function.nodes_of(ast.Call):
                yield from self._mutating_call(module, function, node)
                yield from self._built_from_tensors(module, function, node)

    def _mutating_call(self, module: ModuleFacts, function: GraphFunction, call: ast.Call) -> Iterator[Finding]:
        func = call.func
        if not isinstance(func, ast.Attribute):
            return
        receiver = func.value
        class_name = None
        if isinstance(receiver, ast.Name):
            class_name = function.objects.get(receiver.id)
        elif (isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name)
              and receiver.value.id == function.self_name and function.owner is not None):
            class_name = _object_attribute(function, receiver.attr)
        if class_name and func.attr in module.mutating_methods(class_name):
            yield self.finding(
                module, call,
                f"{class_name}.{func.attr}() changes the state of a user object in graph code ({function.label}): "
                "fails to compile under STRICT (TypeError); keep the state in a Parameter updated with ops.assign, "
                "or return the new value",
            )

    def _built_from_tensors(self, module: ModuleFacts, function: GraphFunction, call: ast.Call) -> Iterator[Finding]:
        class_name = module.user_class_name(module.qualname(call.func))
        if class_name is None:
            return
        if any(function.kind(a) == TENSOR for a in [*call.args, *(k.value for k in call.keywords)]):
            yield self.finding(
                module, call,
                f"user type {class_name} built from tensor data in graph code ({function.label}) fails to compile "
                "under STRICT (ValueError); return a tuple or dict, or decorate the class with "
                "@mindspore.jit_class",
            )


def _object_attribute(function: GraphFunction, attribute: str) -> str | None:
    return next((info.object_attributes[attribute] for info in function.owner.lineage()
                 if attribute in info.object_attributes), None)
