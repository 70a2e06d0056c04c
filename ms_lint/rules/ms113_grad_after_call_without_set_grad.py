"""MS113: in PyNative, a Cell called and then differentiated on the same inputs without ``set_grad()``: its forward
runs twice."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.model import ClassInfo, FunctionNode, ModuleFacts
from ms_lint.model.syntax import holds_line
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.rules.base import Rule


_TRANSFORMS = ("grad", "value_and_grad", "GradOperation")
# Before this MindSpore release, set_grad() saves the forward for grad and GradOperation but not for value_and_grad
# and vjp, which run it again (measured on CPU: 2 forwards with set_grad() on 2.7.0-2.8.0, 1 on 2.9.0 and
# 2.10.0; see tests/test_ground_truth_eager.py).
_SET_GRAD_SAVES_EVERY_TRANSFORM_SINCE = (2, 9)
_RUN_AGAIN_BEFORE = ("value_and_grad", "vjp")


@dataclass
class _Scope:
    """One function body, or a module's own code: where a Cell is called, given set_grad, and differentiated."""

    function: FunctionNode | None
    owner: ClassInfo | None
    calls: list[ast.Call]


@dataclass(frozen=True, kw_only=True)
class ForwardRunTwice(FindingData):
    """A Cell called and then differentiated on the same inputs: the Cell as the code names it (``net``,
    ``self.net``), the line of the first call, the transform (``grad``, ``value_and_grad``, ``vjp``,
    ``GradOperation``), the MindSpore version, and whether the Cell had set_grad() (the version then runs the
    forward twice anyway)."""

    name: str = fact(subject=True)
    line: int
    transform: str
    version: str
    set_grad: bool

    def message(self) -> str:
        called = (f"{self.name} is called on line {self.line} and then differentiated on the same inputs")
        if self.set_grad:
            return (f"{called} with {self.transform}: MindSpore {self.version} runs its forward twice even after "
                    "set_grad() (BatchNorm statistics and random ops too); take the output from "
                    f"{'value_and_grad' if self.transform == 'value_and_grad' else 'vjp'} instead of the first call")
        return (f"{called} without {self.name}.set_grad(): PyNative runs its forward twice (BatchNorm statistics and "
                f"random ops too); call {self.name}.set_grad() before the first call, or take the output from "
                "value_and_grad")


class GradAfterCallWithoutSetGrad(Rule):
    code = "MS113"
    name = "grad-after-call-without-set-grad"
    summary = "a PyNative Cell is called, then differentiated on the same inputs, without `set_grad()`"
    fix_summary = "call `net.set_grad()` before the first call, or take the output from `value_and_grad`"
    what = """
        In a PyNative module, reports a gradient run on a Cell instance (`mindspore.grad(net, ...)(x)`,
        `mindspore.value_and_grad(net, ...)(x)`, `grad_fn(x)` for a `grad_fn` made from them,
        `ops.GradOperation(...)(net)(x)`, `mindspore.vjp(net, x)`) that follows a call of the same instance on the
        same inputs (`out = net(x)`) in the same function or module code, when the instance was not given
        `set_grad()` (or `requires_grad = True`, or handed to a `TrainOneStep...` Cell) on the expression that
        created it or before that call. Not reported: differentiating without an earlier call, a `forward_fn`
        wrapper given to `value_and_grad` (the usual training step), or a gradient on other inputs than the call's
        (`set_grad()` would not save that forward). For a target MindSpore older than 2.9, also reported with
        `set_grad()` given when the gradient is `value_and_grad` or `vjp`, which run the forward again there anyway.
        A module is PyNative when it calls `set_context(mode=PYNATIVE_MODE)` or `--ms-mode=pynative` is given.
    """
    why = """
        In PyNative a Cell call records what the gradient needs only when the Cell was given `set_grad()`.
        Without it, the gradient function runs the whole forward again. Measured on MindSpore 2.10 with a counter
        in `construct`: `out = net(x)` then `mindspore.grad(net)(x)` (or `value_and_grad`, `GradOperation`, `vjp`)
        runs the forward 2 times; with `net.set_grad()` before the call, 1 (only for the same input tensors; on
        2.7.1 and 2.8.0, 1 for `grad` and `GradOperation` but still 2 for `value_and_grad` and `vjp`; 1 from
        2.9.0 on). The
        second forward costs a full step's time and runs every side effect again: BatchNorm updates its moving
        statistics twice per step, and Dropout and random ops draw again, so the gradient is not the gradient of
        the output that was just computed.
    """
    example = """
        import mindspore as ms
        from mindspore import nn

        ms.set_context(mode=ms.PYNATIVE_MODE)


        def inspect(x):
            net = nn.Dense(3, 1)
            out = net(x)
            grads = ms.grad(net)(x)
            return out, grads
    """
    use_instead = """
        import mindspore as ms
        from mindspore import nn

        ms.set_context(mode=ms.PYNATIVE_MODE)


        def inspect(x):
            net = nn.Dense(3, 1)
            net.set_grad()
            out = net(x)
            grads = ms.grad(net)(x)
            return out, grads


        def inspect_once(x):  # or take both from one call
            net = nn.Dense(3, 1)
            out, grads = ms.value_and_grad(net)(x)
            return out, grads
    """

    records = (ForwardRunTwice,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        if module.mode != "pynative":
            return
        transforms = [site.node for site in module.calls if self._is_transform(module, site.node)]
        if not transforms:
            return
        # Names (and self attributes) holding a gradient function or a GradOperation: calls through them run it.
        gradient_keys = set()
        for transform in transforms:
            assignment = module.assignment_of(transform)
            for target in assignment.targets if assignment is not None else ():
                gradient_keys.add(_instance_key(target))
        scopes: dict[int, _Scope] = {}
        for site in module.calls:
            if site.function is None and site.owner is not None:
                continue  # class-body code
            key = id(site.function) if site.function is not None else 0
            scopes.setdefault(key, _Scope(site.function, site.owner, [])).calls.append(site.node)
        for scope in scopes.values():
            yield from self._check_scope(module, scope, gradient_keys)

    @staticmethod
    def _is_transform(module: ModuleFacts, call: ast.Call) -> bool:
        """``grad(f, ...)``, ``value_and_grad(f, ...)``, ``GradOperation(...)`` or ``GradOperation(...)(f)``."""
        if api.is_mindspore_name(module.qualname(call.func), *_TRANSFORMS, "vjp"):
            return True
        operation = call.func.func if isinstance(call.func, ast.Call) else None
        return api.is_mindspore_name(module.qualname(operation), "GradOperation")

    def _check_scope(self, module: ModuleFacts, scope: _Scope, gradient_keys: set) -> Iterator[Finding]:
        calls = sorted(scope.calls, key=_position)
        for call in calls:
            if not (isinstance(call.func, ast.Call) or _instance_key(call.func) in gradient_keys
                    or api.is_mindspore_name(module.qualname(call.func), "vjp")):
                continue
            run = self._gradient_run(module, call, scope)
            if run is None:
                continue
            target, inputs, transform = run
            target_key = _instance_key(target)
            earlier = [c for c in calls if target_key is not None and _instance_key(c.func) == target_key
                       and _position(c) < _position(call)]
            if not earlier or module.cell_origin(target, scope.function, scope.owner) is None:
                continue
            forward = earlier[-1]
            if not self._same_inputs(module, forward, inputs, call, scope):
                continue
            set_grad = self._given_set_grad(module, target, target_key, forward, scope)
            if set_grad and not _set_grad_runs_again(module, transform):
                continue
            yield self.report(module, call, ForwardRunTwice(name=target_key, line=forward.lineno, transform=transform,
                                                            version=module.target.version, set_grad=set_grad))

    def _gradient_run(self, module: ModuleFacts, call: ast.Call,
                      scope: _Scope) -> tuple[ast.AST, ast.Call, str] | None:
        """(the differentiated callable, the call carrying the inputs, the transform's name) when ``call`` runs a
        gradient."""
        qualname = module.qualname(call.func)
        if api.is_mindspore_name(qualname, "vjp") and call.args:
            return call.args[0], ast.Call(func=call.func, args=call.args[1:], keywords=[]), "vjp"
        transform = call.func
        if _instance_key(transform) is not None and not api.is_mindspore(qualname):
            transform = module.value_bound_to(transform, scope.function, scope.owner)
        if not isinstance(transform, ast.Call):
            return None
        target = self._differentiated(module, transform, scope)
        name = api.last_name(module.qualname(transform.func) or "") or "GradOperation"
        return (target, call, name if name in _TRANSFORMS else "GradOperation") if target is not None else None

    def _differentiated(self, module: ModuleFacts, transform: ast.Call, scope: _Scope) -> ast.AST | None:
        """What ``grad(f)``, ``value_and_grad(f, ...)`` or ``GradOperation(...)(f)`` differentiates."""
        qualname = module.qualname(transform.func)
        if api.is_mindspore_name(qualname, "grad", "value_and_grad"):
            if transform.args:
                return transform.args[0]
            return next((k.value for k in transform.keywords if k.arg == "fn"), None)
        operation = transform.func
        if _instance_key(operation) is not None and not api.is_mindspore(qualname):
            operation = module.value_bound_to(operation, scope.function, scope.owner)
        if isinstance(operation, ast.Call) and api.is_mindspore_name(module.qualname(operation.func),
                                                                     "GradOperation"):
            return transform.args[0] if transform.args else None
        return None

    @staticmethod
    def _same_inputs(module: ModuleFacts, forward: ast.Call, inputs: ast.Call, run: ast.Call,
                     scope: _Scope) -> bool:
        """The gradient gets the very objects the call got: the same names, none rebound in between. A tensor built
        in the argument list (``net(Tensor(a))``) is a new object each time, which ``set_grad()`` cannot reuse."""
        def spelled(call: ast.Call) -> str:
            return ast.dump(ast.Tuple(elts=list(call.args), ctx=ast.Load())) + ast.dump(
                ast.Tuple(elts=[ast.Tuple(elts=[ast.Constant(k.arg), k.value], ctx=ast.Load())
                                for k in call.keywords], ctx=ast.Load()))

        if spelled(forward) != spelled(inputs):
            return False
        arguments = [*forward.args, *(k.value for k in forward.keywords)]
        if any(isinstance(node, (ast.Call, ast.Await, ast.NamedExpr)) for a in arguments for node in ast.walk(a)):
            return False
        names = {node.id for a in arguments for node in ast.walk(a) if isinstance(node, ast.Name)}
        between = (_position(forward), _position(run))
        for node in module.index.subtree(scope.function or module.tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id in names and (
                    between[0] < _position(node) < between[1]) and _inside(module, node, scope):
                return False
        return True

    def _given_set_grad(self, module: ModuleFacts, instance: ast.AST, key: str, forward: ast.Call,
                        scope: _Scope) -> bool:
        """Whether the instance had set_grad when ``forward`` ran: on the expression that created it, earlier in
        this scope, or, for a global or an attribute, anywhere else it is set up."""
        origin = module.cell_origin(instance, scope.function, scope.owner)
        while isinstance(origin, ast.Call) and isinstance(origin.func, ast.Attribute):
            if origin.func.attr == "set_grad" and _enables(origin):
                return True
            origin = origin.func.value
        bound_here = _binds(module, scope, key)
        # self.<attr> is the same object only in methods of the same class (or the bases it inherits them from).
        classes = _class_and_bases(scope.owner) if "." in key else None
        for node, function, owner in self._set_grad_sites(module, key):
            if function is scope.function and (function is not None or owner is None):
                if _position(node) < _position(forward):
                    return True
            elif not bound_here and (classes is None or any(owner is c for c in classes)):
                return True  # on a global or an attribute, elsewhere: in __init__, at module level
        return False

    def _set_grad_sites(self, module: ModuleFacts,
                        key: str) -> Iterator[tuple[ast.AST, FunctionNode | None, ClassInfo | None]]:
        """Where ``key`` is given set_grad: (the node, its innermost function, its class)."""
        for site in module.calls:
            if self._sets_grad(module, site.node, key):
                yield site.node, site.function, site.owner
        nodes = module.index.nodes
        for position in module.index.positions_of(ast.Assign):
            if self._sets_grad(module, nodes[position], key):
                yield (nodes[position], *module.code_around(position))

    @staticmethod
    def _sets_grad(module: ModuleFacts, node: ast.AST, key: str) -> bool:
        """``key.set_grad()``, ``key.requires_grad = True``, or ``TrainOneStepCell(key, ...)``, which sets it."""
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "set_grad" and _instance_key(func.value) == key:
                return _enables(node)
            qualname = module.qualname(func)
            return bool(api.is_mindspore(qualname) and api.last_name(qualname).startswith("TrainOneStep")
                        and node.args and _instance_key(node.args[0]) == key)
        if isinstance(node, ast.Assign):
            return any(
                isinstance(t, ast.Attribute) and t.attr == "requires_grad" and _instance_key(t.value) == key
                for t in node.targets
            ) and not (isinstance(node.value, ast.Constant) and not node.value.value)
        return False


def _set_grad_runs_again(module: ModuleFacts, transform: str) -> bool:
    """Whether the target's MindSpore runs the forward again for ``transform`` even after set_grad()."""
    version = module.target.version_tuple
    return bool(version) and version < _SET_GRAD_SAVES_EVERY_TRANSFORM_SINCE and transform in _RUN_AGAIN_BEFORE


def _instance_key(expr: ast.AST) -> str | None:
    """``net`` or ``self.net``: the spellings of an instance this rule follows."""
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
        return f"{expr.value.id}.{expr.attr}"
    return None


def _enables(call: ast.Call) -> bool:
    flag = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "requires_grad"), None)
    return not (isinstance(flag, ast.Constant) and not flag.value)


def _position(node: ast.AST) -> tuple[int, int]:
    return getattr(node, "lineno", 0), getattr(node, "col_offset", 0)


def _inside(module: ModuleFacts, node: ast.AST, scope: _Scope) -> bool:
    """Whether ``node`` is in the scope's own code (for module code: outside every function and class)."""
    if scope.function is None:
        return module.scope_name(node) == ""
    return holds_line(scope.function, getattr(node, "lineno", 0))


def _class_and_bases(info: ClassInfo | None) -> list[ClassInfo]:
    return list(info.lineage()) if info is not None else []


def _binds(module: ModuleFacts, scope: _Scope, key: str) -> bool:
    """Whether the instance is a name this scope binds, so that only its own set_grad calls count (a global or an
    attribute may be given set_grad anywhere else, in ``__init__`` or at module level)."""
    if "." in key:
        return False
    if scope.function is None:
        return True
    return any(isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id == key
               for node in module.index.subtree(scope.function))
