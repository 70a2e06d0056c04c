"""MS117: a Cell whose graph-mode ``construct`` returns a ``dict``, its result indexed by key by the caller."""
from __future__ import annotations

import ast
from typing import Iterator

from ms_lint.model import ClassInfo, FunctionNode, ModuleFacts
from ms_lint.findings import Finding
from ms_lint.rules.base import Rule


class DictOutputIndexedByKey(Rule):
    code = "MS117"
    name = "dict-output-indexed-by-key"
    summary = "the result of a Cell whose graph-mode `construct` returns a `dict`, indexed by key"
    fix_summary = "return a tuple (or a namedtuple-free fixed order) and unpack it, or index by position"
    what = """
        Reports, in host code of the same module (not graph code), `out["key"]` where `out` is what an instance
        of a Cell returns whose `construct` is graph code and returns a `dict` (a dict literal, `dict(...)`, or a
        name bound to one), whether the result is indexed at once (`net(x)["logits"]`) or through a variable.
        Only under STRICT: under LAX the dict survives.
    """
    why = """
        Under GRAPH_MODE with STRICT, a `dict` returned from `construct` comes back to Python as a tuple of its
        values (measured 2.10 CPU): `out["logits"]` raises TypeError ("tuple indices must be integers or slices,
        not str") in the caller, after the compile succeeded. Under LAX and in PyNative the caller gets the dict.
        With `--ms-syntax-level=lax` it is not reported.
    """
    example = """
        class Net(nn.Cell):
            def construct(self, x):
                return {"logits": x * 2, "features": x}

        net = Net()
        logits = net(Tensor(np.ones((2, 3), np.float32)))["logits"]
    """
    use_instead = """
        class Net(nn.Cell):
            def construct(self, x):
                return x * 2, x

        net = Net()
        logits, features = net(Tensor(np.ones((2, 3), np.float32)))
    """

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        if module.target.syntax_level != "strict":
            return
        dict_cells = {name: info for name, info in module.classes.items() if _returns_dict(module, info)}
        if not dict_cells:
            return
        instances: dict[tuple[int, str], ClassInfo] = {}
        for site in module.calls:
            built = module.class_of_constructor(site.node)
            if not (built and isinstance(built[1], ClassInfo) and built[2] is module
                    and built[1].name in dict_cells):
                continue
            assignment = module.assignment_of(site.node)
            if assignment is not None and len(assignment.targets) == 1 and isinstance(assignment.targets[0],
                                                                                      ast.Name):
                instances[(id(site.function), assignment.targets[0].id)] = built[1]
        if not instances:
            return
        functions: dict[int, FunctionNode | None] = {}
        for site in module.calls:
            if isinstance(site.node.func, ast.Name):
                info = instances.get((id(site.function), site.node.func.id)) or instances.get(
                    (id(None), site.node.func.id))
                if info is not None and (site.function is None or not module.is_graph_code(site.function)):
                    functions.setdefault(id(site.function), site.function)
        for function in functions.values():
            yield from self._indexed_results(module, function, instances)

    def _indexed_results(self, module: ModuleFacts, function: FunctionNode | None,
                         instances: dict[tuple[int, str], ClassInfo]) -> Iterator[Finding]:
        nodes = module.index.body(function) if function is not None else _module_level_nodes(module.tree)
        results: dict[str, ClassInfo] = {}

        def called_cell(expr: ast.AST) -> ClassInfo | None:
            if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name):
                return instances.get((id(function), expr.func.id)) or instances.get((id(None), expr.func.id))
            return None

        for node in nodes:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                info = called_cell(node.value)
                if info is not None:
                    results[node.targets[0].id] = info
        for node in nodes:
            if not (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)
                    and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)):
                continue
            value = node.value
            info = called_cell(value) or (results.get(value.id) if isinstance(value, ast.Name) else None)
            if info is None:
                continue
            yield self.finding(
                module, node,
                f"{info.name}.construct returns a dict, which graph mode under STRICT gives back as a tuple of its "
                f"values: [{node.slice.value!r}] raises TypeError here; return a tuple and unpack it, or index by "
                "position",
                scope=info.name,  # the Cell whose output the validator probes
                data={"cell": info.name, "key": node.slice.value},
            )


def _returns_dict(module: ModuleFacts, info: ClassInfo) -> bool:
    if not info.is_cell or "construct" not in info.methods:
        return False
    construct = info.methods["construct"]
    if not module.is_graph_code(construct):
        return False
    nodes = module.index.body_nodes_of(construct, (ast.Assign, ast.Return))
    returns = [node.value for node in nodes if node.__class__ is ast.Return and node.value is not None]
    # the returned values first: most return a tensor or a tuple, and the assignments need not be read
    if not returns or not all(isinstance(value, ast.Name) or _is_dict(module, value) for value in returns):
        return False
    dict_names = {target.id for node in nodes if node.__class__ is ast.Assign and _is_dict(module, node.value)
                  for target in node.targets if isinstance(target, ast.Name)}
    return all(_is_dict(module, value) or value.id in dict_names for value in returns)


def _is_dict(module: ModuleFacts, expr: ast.AST) -> bool:
    return isinstance(expr, (ast.Dict, ast.DictComp)) or (
        isinstance(expr, ast.Call) and module.qualname(expr.func) == "builtins.dict")


def _module_level_nodes(tree: ast.Module) -> list[ast.AST]:
    found = []
    stack = list(reversed(tree.body))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        found.append(node)
        stack.extend(reversed(list(ast.iter_child_nodes(node))))
    return found
