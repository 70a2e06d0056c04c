"""MS501: MindSpore operators and Cells run inside data-pipeline code (dataset workers)."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.model import ClassInfo, FunctionNode, ModuleFacts
from ms_lint.model.syntax import first_argument, self_attribute
from ms_lint.findings import Finding, FindingData
from ms_lint.rules.base import Rule

# Keywords only ``Dataset.map`` takes: a ``.map(...)`` call with one of them is a dataset's (not a HyperMap's or a
# process pool's).
_MAP_KEYWORDS = frozenset({
    "operations", "input_columns", "output_columns", "column_order", "num_parallel_workers",
    "python_multiprocessing", "max_rowsize", "callbacks", "offload", "cache",
})
# Dataset methods that return a dataset, so a name bound to their result still holds one.
_DATASET_METHODS = frozenset({
    "map", "batch", "padded_batch", "shuffle", "repeat", "project", "rename", "zip", "concat", "take", "skip",
    "filter", "split", "bucket_batch_by_length", "sync_wait", "device_que",
})
_SOURCE_METHODS = ("__getitem__", "__next__", "__iter__")
# MindSpore functions that only read static facts or mark functions: no kernel runs.
_NOT_KERNELS = frozenset({
    "shape", "rank", "dtype", "size", "typeof", "constexpr", "add_flags", "isconstant", "is_tensor", "Primitive",
    "PrimitiveWithInfer", "PrimitiveWithCheck", "prim_attr_register",
})
_MAX_DEPTH = 8


@dataclass
class _Entry:
    """A piece of code MindSpore's dataset engine runs per sample."""

    node: ast.AST  # a function, a lambda, or an operator object handed over directly
    owner: ClassInfo | None
    where: str


def operator_name(module: ModuleFacts, qualname: str | None, call: ast.Call | None = None) -> str | None:
    """``mindspore.ops.flip`` -> "ops.flip" when ``qualname`` is a MindSpore operator (function or Primitive) or a
    Cell; None otherwise (``Tensor``, dataset transforms, static queries such as ``ops.shape``)."""
    if not qualname or not api.is_mindspore(qualname):
        return None
    name = api.last_name(qualname)
    if name in _NOT_KERNELS or qualname in api.STATIC_MINDSPORE_FUNCTIONS:
        return None
    if qualname.startswith("mindspore.ops."):
        tables = api.tables()
        if name in tables["ops_functions"] or name in tables["ops_primitives"]:
            return f"ops.{name}"
        return None
    if qualname.startswith("mindspore.mint."):
        return qualname[len("mindspore."):]
    if api.is_mindspore_cell_class(qualname):
        return f"nn.{name}"
    return None


@dataclass(frozen=True, kw_only=True)
class PipelineOperator(FindingData):
    """A MindSpore operator or Cell run by data-pipeline code: the operator, where the pipeline hands the code to
    the dataset engine."""

    template = ("{operator} in data-pipeline code ({pipeline}) runs in dataset workers: MindSpore's migration "
                "guide lists this as a problem (a device backend per worker, a kernel launch per sample); on CPU "
                "(2.10) it runs at first, but a multiprocessing map hangs once the main process has run an "
                "operator (a PyNative training step); use numpy/PIL/cv2 or mindspore.dataset.vision/transforms "
                "operations")
    operator: str
    pipeline: str


class OperatorInDataPipeline(Rule):
    code = "MS501"
    # A hazard MindSpore warns about rather than a certain failure: SARIF and GitHub show it as a warning.
    level = "warning"
    name = "operator-in-data-pipeline"
    summary = "MindSpore operators or Cells called in data-pipeline code run by dataset workers"
    fix_summary = "numpy/PIL/cv2, or `mindspore.dataset.vision`/`transforms` operations"
    what = """
        Reports calls of `mindspore.ops` functions and Primitives, `mindspore.mint` operators and Cells
        (`mindspore.nn` or the project's) inside code the dataset engine runs per sample:
        functions passed to `Dataset.map(operations=...)` (one or a list, positional or keyword, lambdas,
        `functools.partial`, instances of the module's classes with `__call__`) and to `batch(per_batch_map=...)`,
        and the `__getitem__`/`__next__`/`__iter__` of a class whose instance is given to `GeneratorDataset`
        (directly or through a variable). Helpers of the module those call are followed. Creating a `Tensor` and
        static queries (`ops.shape`) are not reported. Only code defined in the same module is read.
    """
    why = """
        The dataset engine runs these functions in worker threads or processes (`python_multiprocessing=True`).
        MindSpore's migration guide lists MindSpore operators there as a problem: every worker process needs a
        device backend, and each call launches a kernel for one sample instead of one batch. Measured on CPU with
        MindSpore 2.10: in a process that has run no operator yet, such a pipeline runs and gives correct results;
        once the main process has run an operator in PyNative mode, a `map` with `python_multiprocessing=True`
        whose function calls an operator hangs for ever when its next iterator starts (a PyNative training loop
        that iterates the dataset anew each epoch hangs at the second epoch), while the same `map` with numpy
        finishes. Reported as a warning: whether it hangs, crashes or only runs slowly depends on the mode, the
        device and how the pipeline is iterated.
    """
    example = """
        def normalize(image):
            return ops.div(Tensor(image), 255.0)

        dataset = dataset.map(operations=normalize, input_columns="image", python_multiprocessing=True)
    """
    use_instead = """
        def normalize(image):
            return image.astype(np.float32) / 255.0

        dataset = dataset.map(operations=normalize, input_columns="image", python_multiprocessing=True)
    """

    records = (PipelineOperator,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        reported: set[int] = set()
        _assigned.clear()
        _calls_assigned.clear()
        try:
            for entry in _pipeline_entries(module):
                for node, name in _operator_calls(module, entry):
                    if id(node) in reported:
                        continue
                    reported.add(id(node))
                    yield self.report(module, node, PipelineOperator(operator=name, pipeline=entry.where))
        finally:
            _assigned.clear()  # nothing of the module's tree outlives its check
            _calls_assigned.clear()


# -- where pipeline code is handed to the dataset engine ---------------------------------------------------------

def _pipeline_entries(module: ModuleFacts) -> Iterator[_Entry]:
    for site in module.calls_written("map", "batch", "GeneratorDataset"):
        call, func = site.node, site.node.func
        scope = site.function if site.function is not None else module.tree
        if isinstance(func, ast.Attribute) and func.attr == "map" and _is_dataset_map(module, call, scope):
            operations = _argument(call, "operations", 0)
            if operations is not None:
                yield from _entries_of(module, operations, site.owner, scope, "map operation", 0)
        elif isinstance(func, ast.Attribute) and func.attr == "batch":
            per_batch_map = _argument(call, "per_batch_map", None)
            if per_batch_map is not None:
                yield from _entries_of(module, per_batch_map, site.owner, scope, "per_batch_map", 0)
        elif api.is_mindspore_name(site.qualname, "GeneratorDataset"):
            source = _argument(call, "source", 0)
            for info in _source_classes(module, source, scope):
                for method_name in _SOURCE_METHODS:
                    found = info.find_method(method_name)
                    if found is not None:
                        yield _Entry(found[1], found[0], f"GeneratorDataset source {info.name}.{method_name}")


def _argument(call: ast.Call, name: str, position: int | None) -> ast.AST | None:
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    if position is not None and position < len(call.args) and not any(
            isinstance(a, ast.Starred) for a in call.args[:position + 1]):
        return call.args[position]
    return None


def _is_dataset_map(module: ModuleFacts, call: ast.Call, scope: ast.AST) -> bool:
    if any(keyword.arg in _MAP_KEYWORDS for keyword in call.keywords):
        return True
    return _is_dataset(module, call.func.value, scope, 0)


def _is_dataset(module: ModuleFacts, expr: ast.AST, scope: ast.AST, depth: int) -> bool:
    if depth > _MAX_DEPTH:
        return False
    if isinstance(expr, ast.Call):
        qualname = module.qualname(expr.func)
        if qualname is not None:
            return qualname.startswith("mindspore.dataset.")
        func = expr.func
        return isinstance(func, ast.Attribute) and func.attr in _DATASET_METHODS and _is_dataset(
            module, func.value, scope, depth + 1)
    if isinstance(expr, ast.Name):
        return any(_is_dataset(module, value, scope, depth + 1) for value in _values_of(expr.id, scope))
    return False


# id(scope) -> (the scope, name -> every value assigned to it there), for the module being checked: a scope is
# walked once however many names are looked up in it
_assigned: dict[int, tuple[ast.AST, dict[str, list[ast.AST]]]] = {}


def _values_of(name: str, scope: ast.AST) -> list[ast.AST]:
    """Every value assigned to ``name`` in ``scope`` (a function, or the module's top level)."""
    known = _assigned.get(id(scope))
    if known is None or known[0] is not scope:
        values: dict[str, list[ast.AST]] = {}
        for node in _walk_scope(scope):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        values.setdefault(target.id, []).append(node.value)
            elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value is not None and isinstance(
                    node.target, ast.Name):
                values.setdefault(node.target.id, []).append(node.value)
        known = _assigned[id(scope)] = (scope, values)
    return list(known[1].get(name, ()))


def _walk_scope(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of ``scope`` itself, not of the functions and classes nested in it."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))


def _entries_of(module: ModuleFacts, expr: ast.AST, owner: ClassInfo | None, scope: ast.AST, role: str,
                depth: int) -> Iterator[_Entry]:
    """The code an ``operations``/``per_batch_map`` argument runs: functions, lambdas, callable objects."""
    if depth > _MAX_DEPTH:
        return
    if isinstance(expr, (ast.List, ast.Tuple)):
        for element in expr.elts:
            yield from _entries_of(module, element, owner, scope, role, depth + 1)
    elif isinstance(expr, ast.Lambda):
        yield _Entry(expr, owner, f"{role} lambda")
    elif isinstance(expr, ast.Name):
        function = module.local_function(expr)
        if function is not None:
            yield _Entry(function, None, f"{role} {expr.id}")
            return
        if operator_name(module, module.qualname(expr)):
            yield _Entry(expr, None, role)
            return
        values = _values_of(expr.id, scope)
        if scope is not module.tree:
            values += _values_of(expr.id, module.tree)
        for value in values:
            yield from _entries_of(module, value, owner, scope, role, depth + 1)
    elif isinstance(expr, ast.Attribute):
        if owner is not None and isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) and self_attribute(
                expr, first_argument(scope)) is not None:
            found = owner.find_method(expr.attr)
            if found is not None:
                yield _Entry(found[1], found[0], f"{role} {found[0].name}.{expr.attr}")
            return
        if operator_name(module, module.qualname(expr)):
            yield _Entry(expr, None, role)
    elif isinstance(expr, ast.Call):
        qualname = module.qualname(expr.func)
        if qualname in ("functools.partial",) and expr.args:
            yield from _entries_of(module, expr.args[0], owner, scope, role, depth + 1)
        elif operator_name(module, qualname) or module.builds_cell(expr):
            yield _Entry(expr, None, role)
        else:
            info = module.local_class(qualname)
            if info is not None and not info.is_cell:
                found = info.find_method("__call__")
                if found is not None:
                    yield _Entry(found[1], found[0], f"{role} {info.name}.__call__")


def _source_classes(module: ModuleFacts, source: ast.AST | None, scope: ast.AST) -> list[ClassInfo]:
    """The module's classes whose instances ``source`` may be."""
    if isinstance(source, ast.Call):
        info = module.local_class(module.qualname(source.func))
        return [info] if info is not None and not info.is_cell else []
    if isinstance(source, ast.Name):
        values = _values_of(source.id, scope)
        if not values and scope is not module.tree:
            values = _values_of(source.id, module.tree)
        return [info for value in values if isinstance(value, ast.Call)
                for info in _source_classes(module, value, scope)]
    return []


# -- what pipeline code calls ----------------------------------------------------------------------------------

def _operator_calls(module: ModuleFacts, entry: _Entry) -> Iterator[tuple[ast.AST, str]]:
    if not isinstance(entry.node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        name = _operator_of_expression(module, entry.node)
        if name:
            yield entry.node, name
        return
    yield from _calls_in(module, entry.node, entry.owner, set())


def _operator_of_expression(module: ModuleFacts, expr: ast.AST) -> str | None:
    if isinstance(expr, ast.Call):
        name = operator_name(module, module.qualname(expr.func))
        if name:
            return name
        if module.builds_cell(expr):
            return f"Cell {module.qualname(expr.func) or ''}".strip()
        return None
    return operator_name(module, module.qualname(expr))


def _calls_in(module: ModuleFacts, function: FunctionNode | ast.Lambda, owner: ClassInfo | None,
              seen: set[int]) -> Iterator[tuple[ast.AST, str]]:
    if id(function) in seen or len(seen) > 64:
        return
    seen.add(id(function))
    self_name = first_argument(function) if owner is not None and not isinstance(function, ast.Lambda) else None
    body = function.body if isinstance(function.body, list) else [function.body]
    for statement in body:
        for node in _walk_code(statement):
            if not isinstance(node, ast.Call):
                continue
            name = _operator_of_expression(module, node)
            if name:
                yield node, name
                continue
            func = node.func
            if isinstance(func, ast.Name):
                held = _operator_held_by_module(module, func.id)
                if held:
                    yield node, held
                elif module.local_function(func) is not None:
                    yield from _calls_in(module, module.local_function(func), None, seen)
            elif self_attribute(func, self_name) is not None:
                found = owner.find_method(func.attr)
                if found is not None:
                    yield from _calls_in(module, found[1], found[0], seen)
                    continue
                held = _operator_held_by_attribute(module, owner, func.attr)
                if held:
                    yield node, held


def _walk_code(node: ast.AST) -> Iterator[ast.AST]:
    """``node`` and what it contains, without entering nested classes."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if not isinstance(current, ast.ClassDef):
            stack.extend(ast.iter_child_nodes(current))


def _operator_held_by_module(module: ModuleFacts, name: str) -> str | None:
    """A module-level name bound to an operator object (``flip = ops.ReverseV2(axis=[0])``)."""
    value = module.module_assignments.get(name)
    return _operator_of_expression(module, value) if isinstance(value, ast.Call) else None


def _operator_held_by_attribute(module: ModuleFacts, owner: ClassInfo, attribute: str) -> str | None:
    """``self.<attribute>`` bound to an operator object or a Cell in one of the class's methods."""
    for info in owner.lineage():
        for node in _calls_assigned_in(info).get(attribute, ()):
            name = _operator_of_expression(module, node.value)
            if name:
                return name
    return None


# id(class) -> attribute -> the assignments ``self.<attribute> = <call>`` of its methods, in order (during a check)
_calls_assigned: dict[int, dict[str, list[ast.Assign]]] = {}


def _calls_assigned_in(info: ClassInfo) -> dict[str, list[ast.Assign]]:
    """The assignments of a call to an attribute of the instance in the methods of ``info``, by attribute, found
    once per class and check."""
    found = _calls_assigned.get(id(info))
    if found is None:
        found = _calls_assigned[id(info)] = {}
        for method in info.methods.values():
            self_name = first_argument(method)
            for node in ast.walk(method):
                if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                    for attribute in dict.fromkeys(self_attribute(target, self_name) for target in node.targets):
                        if attribute is not None:
                            found.setdefault(attribute, []).append(node)
    return found
