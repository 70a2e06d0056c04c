"""Whether a finding's line is part of the graph a compile builds.

MindSpore folds a branch whose condition is a constant when the graph is built (measured on 2.10 CPU, STRICT and
LAX): under ``if self.training:`` with the Cell in eval mode, or under ``if self.quant_mode:`` with the flag
False, the body is never compiled, whatever it contains. A compile that succeeds therefore says nothing about
such a line. This module finds, for each finding line, the chain of branch conditions that lead to it
(``guards_for``, in the parent, from the source) and evaluates them against the instance that was compiled
(``evaluate``, in the worker): constants, ``self.<attr>`` chains holding plain Python values, and ``construct``
arguments left at their defaults. A condition on anything else (a tensor) is compiled on both sides.

It also finds the retries that would bring an unreached line in: ``set_train(True)`` for ``self.training``,
a boolean constructor argument stored on the attribute a condition reads, a ``construct`` argument a condition
reads (``if not return_dict: return ...``: passed as the line needs it), and the gradient for a custom ``bprop``
(construct never calls it: MindSpore compiles it where a gradient of the Cell is taken).
"""
from __future__ import annotations

import ast
import re
import weakref

from ms_lint.model.syntax import first_argument, holds_line, instance_parameter, last_line, self_attribute
from ms_lint.validate.condition_values import PLAIN as _PLAIN, UNKNOWN as _UNKNOWN, Instance as _Instance
from ms_lint.validate.condition_values import condition_value, is_tensor_condition
from ms_lint.validate.condition_values import show as _show, value_of as _value

TRAIN_RETRY = "train"
GRADIENT_RETRY = "gradient"
ARGUMENT_RETRY = "argument"
BPROP = "bprop"


def guards_for(tree: ast.Module, class_name: str, lines: set[int], caller: str | None = None,
               columns: dict[int, set[int]] | None = None) -> tuple[dict[int, dict], list[dict]]:
    """``(guards, retries)`` for the finding ``lines`` inside class ``class_name`` of ``tree``.

    ``guards[line]``: ``{"function": name, "called": bool | None, "conditions": [[source, wanted], ...]}``,
    ``called`` is whether ``construct`` calls the method (``None`` when the class has no ``construct`` of its own).
    ``retries``: ``{"name": "train"}`` and ``{"name": "flag", "parameter": p, "value": v, "attribute": a}``.
    ``class_name`` may name a module-level function instead: a jit function, or (with ``caller``, the class
    compiled for it) a helper that class's construct calls, under the conditions over its least guarded call.
    ``columns``: the findings' columns on each line (``col_offset``); a finding behind a short-circuit of its own
    line (``self.use_slicing and z.size(0) > 1``, ``a if self.flag else b``) is under that operand too
    (``inline_conditions``).
    """
    cls = _class_named(tree, class_name)
    if cls is None:
        function = next((node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                         and node.name == class_name), None)
        if function is None:
            return {}, []
        guards = _function_guards(function, lines)
        _add_inline(guards, function, columns)
        if caller is not None:
            entries = _helper_entries(tree, caller, function.name)
            for guard in guards.values():
                if not entries:
                    guard["called"] = None  # no call from the class's construct found: nothing shows it either way
                else:
                    own = guard["conditions"]
                    guard["conditions"] = entries[0] + own
                    if len(entries) > 1:  # compiled when the conditions over any of its calls hold
                        guard["alternatives"] = [entry + own for entry in entries[1:]]
        return guards, []
    methods = _own_methods(cls)
    sites = _call_sites(methods) if "construct" in methods else None
    called = set(sites) if sites is not None else None
    entry_conditions: dict[str, list] = {}
    guards: dict[int, dict] = {}
    for name, method in methods.items():
        if name == "__init__":
            continue
        wanted = {line for line in lines if holds_line(method, line)}
        if not wanted:
            continue
        found: dict[int, list] = {}
        # A helper is compiled only where construct calls it: the conditions over that call come first.
        before = _entry_conditions(name, methods, sites, entry_conditions, set()) if sites else []
        _walk_block(method.body, before, wanted, found, name)
        for line in wanted:
            guards[line] = {
                "function": name,
                "called": None if called is None else name in called,
                "conditions": found.get(line, []),
            }
        _add_inline({line: guards[line] for line in wanted}, method, columns)
    return guards, _retries(methods, guards)


def _add_inline(guards: dict[int, dict], function, columns: dict[int, set[int]] | None) -> None:
    """In place: each guard's conditions followed by the short-circuits of its own line over its findings."""
    for line, guard in guards.items():
        inline = inline_conditions(function, line, (columns or {}).get(line) or set(), guard["function"])
        if inline:
            guard["conditions"] = list(guard["conditions"]) + inline


def inline_conditions(function, line: int, columns: set[int], name: str) -> list[list]:
    """The operands a finding at ``line`` and each of ``columns`` sits behind within its own expression: the
    operands before it in ``a and b`` (wanted True) or ``a or b`` (wanted False), the test of ``b if test else c``
    (True for ``b``, False for ``c``). MindSpore folds a constant operand there as it folds an ``if`` (measured on
    2.10 and 2.7.1, CPU, STRICT and LAX: ``self.flag and z.size(0) > 1`` with the flag False compiles, with it True
    it fails at ``z.size``; so do ``z.size(0) if self.flag else 3`` and ``self.flag or z.size(0) > 1``). Only
    the conditions every finding of the line sits behind are given, each marked inline (a fourth element True): an
    operand ms-lint cannot evaluate leaves the line as it was."""
    if not columns:
        return []
    per_column = [_behind(function, line, column, name) for column in sorted(columns)]
    return [condition for condition in per_column[0] if all(condition in other for other in per_column[1:])]


def _behind(function, line: int, column: int, name: str) -> list[list]:
    def holds(node) -> bool:
        start = (node.lineno, node.col_offset)
        end = (getattr(node, "end_lineno", node.lineno) or node.lineno, getattr(node, "end_col_offset", 0) or 0)
        return start <= (line, column) < end

    conditions = []
    for node in ast.walk(function):
        if isinstance(node, ast.BoolOp):
            for index, operand in enumerate(node.values):
                if index and holds(operand):
                    wanted = isinstance(node.op, ast.And)
                    conditions.extend([ast.unparse(before), wanted, name, True] for before in node.values[:index])
                    break
        elif isinstance(node, ast.IfExp):
            for branch, wanted in ((node.body, True), (node.orelse, False)):
                if holds(branch):
                    conditions.append([ast.unparse(node.test), wanted, name, True])
    return conditions


def instance_parameters(tree: ast.Module, class_name: str) -> dict[str, str]:
    """Method name -> the name the method gives its instance (its first parameter: ``self``, ``this``), for the
    methods of class ``class_name`` of ``tree`` that have one; the worker evaluates their conditions with it."""
    cls = _class_named(tree, class_name)
    if cls is None:
        return {}
    methods = _own_methods(cls)
    return {name: instance for name, method in methods.items() if (instance := instance_parameter(method))}


def reads_instance(condition: str, attribute: str, instances: dict[str, str] | None) -> bool:
    """Whether ``condition`` reads ``attribute`` of the instance (any attribute, when empty) through one of the
    instance parameters ``instances`` names (``instance_parameters``)."""
    return any(f"{name}.{attribute}" in condition for name in set((instances or {}).values()))


def retries_for(tree: ast.Module, class_name: str, guards: dict[int, dict]) -> list[dict]:
    """The retries (see ``guards_for``) that switch on the conditions of ``guards``, helpers' lines included."""
    cls = _class_named(tree, class_name)
    if cls is None:
        return []
    methods = _own_methods(cls)
    return _retries(methods, guards)


def _helper_entries(tree: ast.Module, class_name: str, helper: str) -> list[list]:
    """The conditions under which construct of ``class_name`` calls the module-level function ``helper``, one list
    per call (``helper(...)``) in construct or a method construct reaches, the least guarded first; empty when
    there is no such call."""
    cls = _class_named(tree, class_name)
    if cls is None:
        return []
    methods = _own_methods(cls)
    if "construct" not in methods:
        return []
    sites = _call_sites(methods)
    memo: dict[str, list] = {}
    entries: list[list] = []
    for name in sites:
        method = methods.get(name)
        if method is None:
            continue
        for node in ast.walk(method):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == helper):
                continue
            outer = _entry_conditions(name, methods, sites, memo, set())
            found: dict[int, list] = {}
            _walk_block(method.body, outer, {node.lineno}, found, name)
            conditions = found.get(node.lineno, outer)
            if conditions not in entries:
                entries.append(conditions)
    return sorted(entries, key=len)


def _function_guards(function, lines: set[int]) -> dict[int, dict]:
    """A jit function, or a module-level helper a compiled Cell calls: its own conditions only."""
    wanted = {line for line in lines if holds_line(function, line)}
    found: dict[int, list] = {}
    _walk_block(function.body, [], wanted, found, function.name)
    return {line: {"function": function.name, "called": True, "conditions": found.get(line, [])}
            for line in wanted}


def _call_sites(methods: dict, entry: str = "construct") -> dict[str, list[tuple[str, int]]]:
    """Methods reached from ``entry`` -> ``(calling method, line)`` of each use."""
    sites: dict[str, list[tuple[str, int]]] = {entry: []}
    aliases = _method_aliases(methods)
    pending = [entry]
    while pending:
        caller = pending.pop()
        method = methods.get(caller)
        instance = first_argument(method) if method is not None else None  # a static method has none
        if instance is None:
            continue
        for node in ast.walk(method):
            attribute = self_attribute(node, instance)
            # self.helper(...), a bound method handed on (self.helper passed to a loop), or an attribute a
            # method was stored in (self.get_columns = self.get_columns_for_gs, then self.get_columns(...))
            for name in ([attribute] if attribute in methods else []) + sorted(aliases.get(attribute, ())):
                if name == entry:
                    continue
                if name not in sites:
                    sites[name] = []
                    pending.append(name)
                sites[name].append((caller, node.lineno))
    return sites


def _method_aliases(methods: dict) -> dict[str, set[str]]:
    """The attributes that hold one of the class's own methods (``self.get_columns = self.get_columns_for_gs``,
    set in any method) -> those methods."""
    aliases: dict[str, set[str]] = {}
    for method in methods.values():
        instance = first_argument(method)
        if instance is None:
            continue
        for node in ast.walk(method):
            if isinstance(node, ast.Assign) and self_attribute(node.value, instance) in methods:
                for target in node.targets:
                    name = self_attribute(target, instance)
                    if name is not None and name not in methods:
                        aliases.setdefault(name, set()).add(node.value.attr)
    return aliases


# Bases whose ``__init__`` calls no method of the subclass: what the subclass's own methods run is all there is.
_PLAIN_CELL_BASES = frozenset({"Cell", "nn.Cell", "ms.nn.Cell", "mindspore.nn.Cell"})


def not_run(tree: ast.Module, class_name: str, lines: set[int]) -> dict[int, str]:
    """For finding ``lines`` inside a method of ``class_name`` that neither building the instance (``__init__`` and
    the methods it uses) nor ``construct`` (and those it uses) reaches, a host method such as ``switch_to_deploy``:
    line -> the method's name. Only for a class deriving from ``nn.Cell`` alone; else nothing is known."""
    cls = _class_named(tree, class_name)
    if cls is None or not cls.bases or any(ast.unparse(base) not in _PLAIN_CELL_BASES for base in cls.bases):
        return {}
    return {line: method.name for method, found in _host_methods(cls, lines) for line in found}


def called_by_users(tree: ast.Module, class_name: str, lines: set[int]) -> dict[int, str]:
    """As ``not_run``, whatever the class's bases (a base's ``__init__`` calling the method is not seen): the
    lines of host methods that only the class's users call (``apply_weight_norm``)."""
    cls = _class_named(tree, class_name)
    return {line: method.name for method, found in _host_methods(cls, lines) for line in found} if cls else {}


def host_calls(tree: ast.Module, class_name: str, lines: set[int]) -> dict[str, list[int]]:
    """The host methods of ``class_name`` holding finding ``lines`` that its own building and ``construct`` do not
    reach, and that can be called with no argument (``switch_to_deploy()``): method name -> its lines. What its
    callers would do with a built instance: the validator calls each to run those lines (``probes``). Whatever
    the bases, since calling decides, where ``not_run`` has to claim."""
    cls = _class_named(tree, class_name)
    if cls is None:
        return {}
    return {method.name: found for method, found in _host_methods(cls, lines)
            if not method.decorator_list and _callable_bare(method)}


# The list a constructor argument that defaults to an empty one gets, for a loop over it to run once: one size,
# the size the validator guesses for channels and features.
_ONE_SIZE = [32]


def build_retries(tree: ast.Module, class_name: str, lines: set[int]) -> list[dict]:
    """For finding ``lines`` in ``class_name.__init__`` that building with the defaults skips, the constructor
    arguments that run them: a loop over an argument defaulting to an empty list (``for k, dim in
    enumerate(conv_dims)``) gets a list of one size, a branch on an argument defaulting to False (``if use_se:``)
    gets True, a branch comparing an argument with a number (``if down_factor > 8:``) gets a number that passes
    (one the constructor's ``assert down_factor in [2, 4, ...]`` allows, where it has one).
    ``[{"parameter", "value", "lines"}]``."""
    cls = _class_named(tree, class_name)
    init = _own_methods(cls).get("__init__") if cls is not None else None
    if not isinstance(init, ast.FunctionDef):
        return []
    defaults = _defaults(init)
    compared = _numbers_passing(init)
    retries: dict[tuple, dict] = {}
    for line in sorted(lines):
        for parameter, value in _switches_over(init.body, line, defaults, compared):
            retry = retries.setdefault((parameter, repr(value)), {"parameter": parameter, "value": value,
                                                                  "lines": []})
            retry["lines"].append(line)
    return list(retries.values())[:4]


def _switches_over(statements: list, line: int, defaults: dict, compared=None) -> list[tuple[str, object]]:
    """(argument, value) for the loops and branches around ``line`` that the defaults of ``defaults`` skip;
    ``compared(test)``: the (argument, number) that passes a comparison of an argument with a number."""
    for statement in statements:
        if not holds_line(statement, line):
            continue
        found = []
        if isinstance(statement, ast.For) and line in _block_lines(statement.body):
            iterated = statement.iter
            if isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Name) \
                    and iterated.func.id in ("enumerate", "reversed", "list", "tuple") and iterated.args:
                iterated = iterated.args[0]
            default = defaults.get(iterated.id) if isinstance(iterated, ast.Name) else None
            if isinstance(default, (ast.List, ast.Tuple)) and not default.elts:
                found.append((iterated.id, list(_ONE_SIZE)))
        elif isinstance(statement, ast.If) and line in _block_lines(statement.body):
            test = statement.test
            default = defaults.get(test.id) if isinstance(test, ast.Name) else None
            if isinstance(default, ast.Constant) and default.value is False:
                found.append((test.id, True))
            elif compared is not None and compared(test) is not None:
                found.append(compared(test))
        for block in _blocks(statement):
            found.extend(_switches_over(block, line, defaults, compared))
        return found
    return []


def _numbers_passing(init: ast.FunctionDef):
    """For ``init``: a function of a branch's test giving ``(argument, number)`` where the test compares an
    argument of ``init`` with an integer (``down_factor > 8``) and the number passes it: the smallest of the values
    an ``assert argument in [...]`` at the top of ``init`` allows that does, else the nearest number that does,
    for a bound up to ``_LARGEST_BOUND`` (a size beyond it could build layers too large to build here)."""
    arguments = {argument.arg for argument in init.args.args[1:] + init.args.kwonlyargs}
    allowed: dict[str, list[int]] = {}
    for statement in init.body:
        test = statement.test if isinstance(statement, ast.Assert) else None
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.In) \
                and isinstance(test.left, ast.Name) and isinstance(test.comparators[0], (ast.List, ast.Tuple)):
            values = [element.value for element in test.comparators[0].elts if isinstance(element, ast.Constant)]
            if values and all(type(value) is int for value in values):
                allowed[test.left.id] = sorted(values)
    nearest = {ast.Gt: 1, ast.GtE: 0, ast.Eq: 0, ast.Lt: -1, ast.LtE: 0}

    def passing(test) -> tuple[str, int] | None:
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in nearest
                and isinstance(test.left, ast.Name) and test.left.id in arguments
                and isinstance(test.comparators[0], ast.Constant) and type(test.comparators[0].value) is int):
            return None
        name, bound, operator = test.left.id, test.comparators[0].value, type(test.ops[0])
        candidates = allowed.get(name)
        if candidates is None:
            return (name, bound + nearest[operator]) if abs(bound) <= _LARGEST_BOUND else None
        fits = [value for value in candidates if _compares(operator, value, bound)]
        return (name, fits[0]) if fits else None

    return passing


_LARGEST_BOUND = 1024


def _compares(operator, value: int, bound: int) -> bool:
    return {ast.Gt: value > bound, ast.GtE: value >= bound, ast.Eq: value == bound, ast.Lt: value < bound,
            ast.LtE: value <= bound}[operator]


def _block_lines(block: list) -> range:
    if not block:
        return range(0)
    return range(block[0].lineno, last_line(block[-1]) + 1)


def _own_methods(cls: ast.ClassDef) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """The methods ``cls`` defines itself, by name (the last definition of a name wins, as in Python)."""
    return {node.name: node for node in cls.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}


def _class_named(tree: ast.Module, class_name: str) -> ast.ClassDef | None:
    return next((node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == class_name), None)


def _host_methods(cls: ast.ClassDef, lines: set[int]) -> list[tuple[ast.FunctionDef, list[int]]]:
    """The methods of ``cls`` (not dunder) that neither building it nor construct reaches, with the ``lines`` they
    hold."""
    methods = _own_methods(cls)
    run = set(_call_sites(methods, "__init__")) | set(_call_sites(methods, "construct"))
    pending = list(run)
    while pending:  # also what those reach through any receiver: ``Block.make_layer(...)``, ``cls.build(...)``
        method = methods.get(pending.pop())
        for node in ast.walk(method) if method is not None else ():
            if isinstance(node, ast.Attribute) and node.attr in methods and node.attr not in run:
                run.add(node.attr)
                pending.append(node.attr)
    found = []
    for name, method in methods.items():
        if name in run or name.startswith("__"):
            continue
        inside = sorted(line for line in lines if holds_line(method, line))
        if inside:
            found.append((method, inside))
    return found


def _callable_bare(method: ast.FunctionDef) -> bool:
    """Whether ``instance.method()`` binds every parameter: none besides self lacks a default."""
    arguments = method.args
    positional = [*arguments.posonlyargs, *arguments.args]
    if isinstance(method, ast.AsyncFunctionDef) or not positional:
        return False
    required = len(positional) - 1 - len(arguments.defaults)
    return required <= 0 and all(default is not None for default in arguments.kw_defaults)


def _entry_conditions(name: str, methods: dict, sites: dict, memo: dict, visiting: set) -> list:
    """The conditions under which construct reaches method ``name``: those of its least guarded call site."""
    if name == "construct" or name not in sites:
        return []
    if name in memo:
        return memo[name]
    if name in visiting:
        return []
    visiting.add(name)
    best = None
    for caller, line in sites[name]:
        found: dict[int, list] = {}
        outer = _entry_conditions(caller, methods, sites, memo, visiting)
        _walk_block(methods[caller].body, outer, {line}, found, caller)
        conditions = found.get(line, outer)
        if best is None or len(conditions) < len(best):
            best = conditions
    visiting.discard(name)
    memo[name] = best or []
    return memo[name]


def _walk_block(statements: list, conditions: list, wanted: set[int], found: dict[int, list],
                function: str = "") -> None:
    """``found[line]``: the ``[source, wanted truth, function]`` conditions over each wanted line."""
    conditions = list(conditions)
    for statement in statements:
        start = statement.lineno
        end = getattr(statement, "end_lineno", start) or start
        inside = {line for line in wanted if start <= line <= end}
        if inside:
            if isinstance(statement, ast.If):
                test = ast.unparse(statement.test)
                test_end = getattr(statement.test, "end_lineno", start) or start
                for line in inside:
                    if line <= test_end:
                        found.setdefault(line, list(conditions))
                _walk_block(statement.body, conditions + [[test, True, function]], inside, found, function)
                _walk_block(statement.orelse, conditions + [[test, False, function]], inside, found, function)
            elif isinstance(statement, (ast.For, ast.While, ast.With, ast.Try)):
                for line in inside:
                    if not _in_blocks(statement, line):
                        found.setdefault(line, list(conditions))
                for block in _blocks(statement):
                    _walk_block(block, conditions, inside, found, function)
            else:
                for line in inside:
                    found.setdefault(line, list(conditions))
        # if cond: return ...  -- what follows runs only when cond is false.
        if isinstance(statement, ast.If) and _ends(statement.body) and not statement.orelse:
            conditions.append([ast.unparse(statement.test), False, function])


def _blocks(statement) -> list[list]:
    blocks = [getattr(statement, name, None) or [] for name in ("body", "orelse", "finalbody")]
    blocks.extend(handler.body for handler in getattr(statement, "handlers", []) or [])
    return blocks


def _in_blocks(statement, line: int) -> bool:
    for block in _blocks(statement):
        for inner in block:
            if holds_line(inner, line):
                return True
    return False


def _ends(body: list) -> bool:
    """Whether running ``body`` always leaves the function: it ends in ``return``/``raise``, or in an ``if`` whose
    every branch does."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, ast.If):
        return _ends(last.body) and _ends(last.orelse)
    return isinstance(last, (ast.Return, ast.Raise))


def _retries(methods: dict, guards: dict[int, dict]) -> list[dict]:
    """The retries for ``guards`` of a class whose methods are ``methods`` (name -> definition)."""
    init, construct = methods.get("__init__"), methods.get("construct")
    retries: list[dict] = []
    if any(guard["function"] == BPROP and guard.get("called") is False for guard in guards.values()):
        retries.append({"name": GRADIENT_RETRY})
    # each condition, with the instance parameter of the method it sits in (what it reads the instance by)
    instance_of = {name: instance_parameter(method) for name, method in methods.items()}
    readers = [(condition, instance_of.get(condition[2] if len(condition) > 2 else guard["function"]))
               for guard in guards.values() for path in [guard["conditions"], *guard.get("alternatives", ())]
               for condition in path]
    conditions = [condition for condition, _ in readers]

    def read(attribute: str) -> bool:
        return any(instance and f"{instance}.{attribute}" in condition[0] for condition, instance in readers)

    if not conditions:
        return retries
    # ``if not return_dict: return (...)`` in construct: the line after it needs the argument passed.
    switches = _boolean_parameters(construct, with_none=True) if construct is not None else {}
    for condition in conditions:
        source, wanted = condition[0], bool(condition[1])
        negated = source.startswith("not ")
        name = source[4:] if negated else source
        if name in switches and (len(condition) < 3 or condition[2] == "construct"):
            retry = {"name": ARGUMENT_RETRY, "parameter": name, "value": wanted != negated, "source": source}
            if retry not in retries:
                retries.append(retry)
    if read("training"):
        retries.append({"name": TRAIN_RETRY})
    if init is None:
        return retries
    defaults = _boolean_parameters(init)
    stored = _stored_parameters(init, defaults)
    for attribute, parameter in stored.items():
        if read(attribute):
            retries.append({"name": "flag", "parameter": parameter, "value": not defaults[parameter],
                            "attribute": attribute})
    retries.extend(_choice_retries(init, readers))
    return retries[:6]


def _choice_retries(init, readers: list) -> list[dict]:
    """A constructor argument with a string default, kept on ``self``, that the conditions compare with strings
    (``if self.fusion_type == 'channel_add': ... else: <line>``): the value that takes every condition the way the
    line needs -- the compared string itself, or for the ``else`` of such a chain one of the values the
    constructor asserts its argument is among (``assert fusion_type in [...]``) that no condition names.
    ``readers``: (condition, the instance parameter of the method it sits in)."""
    defaults = _parameters_defaulting_to(init, (str,))
    stored = _stored_parameters(init, defaults)
    retries = []
    for attribute, parameter in stored.items():
        comparison = re.compile(rf"^{attribute} (==|!=) (['\"])(.*)\2$")
        equal, different = set(), set()
        for condition, instance in readers:
            match = comparison.match(condition[0][len(instance) + 1:]) if instance and condition[0].startswith(
                f"{instance}.") else None
            if match:
                (equal if (match.group(1) == "==") == bool(condition[1]) else different).add(match.group(3))
        if not equal and not different:
            continue
        if equal:
            value = next(iter(equal)) if len(equal) == 1 and not equal & different else None
        else:
            value = next((choice for choice in _asserted_choices(init, parameter) if choice not in different), None)
        if value is not None and value != defaults[parameter]:
            retries.append({"name": "flag", "parameter": parameter, "value": value, "attribute": attribute})
    return retries


def _stored_parameters(init, parameters: dict) -> dict[str, str]:
    """``self.<attribute> = <parameter>`` in ``init``: attribute -> parameter, for the ``parameters`` named."""
    stored: dict[str, str] = {}
    instance = first_argument(init)
    for node in ast.walk(init):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id in parameters:
            for target in node.targets:
                if self_attribute(target, instance) is not None:
                    stored.setdefault(target.attr, node.value.id)
    return stored


def _asserted_choices(init, parameter: str) -> list[str]:
    """The strings of ``assert <parameter> in [...]`` in ``init``, in order."""
    for node in ast.walk(init):
        test = node.test if isinstance(node, ast.Assert) else None
        if isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == parameter \
                and len(test.ops) == 1 and isinstance(test.ops[0], ast.In) \
                and isinstance(test.comparators[0], (ast.List, ast.Tuple, ast.Set)):
            return [element.value for element in test.comparators[0].elts
                    if isinstance(element, ast.Constant) and isinstance(element.value, str)]
    return []


def _boolean_parameters(function, with_none: bool = False) -> dict[str, bool | None]:
    """The parameters of ``function`` whose default is True or False (or None, ``with_none``), with it."""
    return _parameters_defaulting_to(function, (bool, type(None)) if with_none else (bool,))


def _parameters_defaulting_to(function, kinds: tuple) -> dict:
    return {name: default.value for name, default in _defaults(function).items()
            if isinstance(default, ast.Constant) and isinstance(default.value, kinds)}


def _defaults(function) -> dict[str, ast.expr]:
    """The parameters of ``function`` that have a default, with its expression."""
    args = function.args
    positional = args.posonlyargs + args.args
    pairs = [*zip(positional[len(positional) - len(args.defaults):], args.defaults),
             *zip(args.kwonlyargs, args.kw_defaults)]
    return {argument.arg: default for argument, default in pairs if default is not None}


# ---------------------------------------------------------------------------------------------------------------
# In the worker: evaluate the conditions against the compiled instance.

def rebound_names(function) -> set[str]:
    """The names ``function`` assigns in its body: an argument among them holds its default only until then."""
    definition = _definition(function)
    return set(_stores(definition)) if definition is not None else set()


def kept_defaults(function, given: dict) -> dict:
    """The arguments of ``given`` (name -> the value the compile passes or the default) that ``function`` assigns
    again only in branches that value skips (``if speaker_embeddings is not None: speaker_embeddings =
    normalize(speaker_embeddings)`` with the argument left at None): no assignment of theirs runs, so they hold
    that value wherever the function reads them. A branch counts where its test reads the argument alone (and
    constants) and evaluates on its value; a branch in a loop or under any other statement does not."""
    definition = _definition(function)
    if definition is None:
        return {}
    kept = {}
    for name, value in given.items():
        stores = [node for node in ast.walk(definition)
                  if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, (ast.Store, ast.Del))]
        if stores and all(_skipped(definition.body, store, name, value) for store in stores):
            kept[name] = value
    return kept


def _skipped(statements: list, store: ast.AST, name: str, value) -> bool:
    """Whether the ``if`` around ``store`` among ``statements`` (its branches nested in each other) skips it
    when ``name`` holds ``value``."""
    statement = next((statement for statement in statements
                      if any(node is store for node in ast.walk(statement))), None)
    if not isinstance(statement, ast.If) or any(node is store for node in ast.walk(statement.test)):
        return False
    read = {node.id for node in ast.walk(statement.test) if isinstance(node, ast.Name)}
    if read != {name}:
        return False
    taken = condition_value(ast.unparse(statement.test), {name: value})
    if taken is _UNKNOWN:
        return False
    in_body = any(node is store for part in statement.body for node in ast.walk(part))
    if in_body:
        return not taken or _skipped(statement.body, store, name, value)
    return bool(taken) or _skipped(statement.orelse, store, name, value)


def instance_names(instances: dict[str, str] | None, function: str, instance) -> dict:
    """The names under which ``function`` (a method name) reads ``instance``: its instance parameter, as planning
    found it (``instance_parameters``); none for a function without one, or without an instance."""
    name = (instances or {}).get(function)
    return {name: _Instance(instance)} if name and instance is not None else {}


def rebound_values(function, names: dict, instance=None) -> dict:
    """The values of the arguments ``function`` assigns again before any branch, once, from plain values
    (``return_dict = return_dict if return_dict is not None else self.config.use_return_dict``), evaluated with
    ``names`` (the arguments' defaults) and ``instance`` under the name the method's definition gives it; an
    argument whose new value is not plain is left out."""
    definition = _definition(function)
    if definition is None:
        return {}
    own = instance_parameter(definition) if instance is not None else None
    names = {own: _Instance(instance), **names} if own else names
    stores = _stores(definition)
    values: dict = {}
    for statement in definition.body:
        if not isinstance(statement, ast.Assign):
            if isinstance(statement, (ast.If, ast.For, ast.While, ast.Try, ast.With, ast.Match, ast.Return)):
                break  # a condition may read the argument before it is assigned again
            continue
        target = statement.targets[0] if len(statement.targets) == 1 else None
        if not isinstance(target, ast.Name) or target.id not in names or stores.get(target.id) != 1:
            continue
        try:
            value = _value(statement.value, {**names, **values})
        except Exception:  # noqa: BLE001 -- user objects can raise anything from a property
            continue
        if value is not _UNKNOWN and isinstance(value, _PLAIN):
            values[target.id] = value
    return values


_DEFINITIONS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # function -> its parsed ``def``


def _definition(function):
    """The ``def`` of ``function`` parsed from its source, once while the function lives (each compile of a job
    asks again; a user module forgotten after the job is not kept alive); None when there is no source to read."""
    import inspect
    import textwrap

    function = getattr(function, "__func__", function)
    try:
        return _DEFINITIONS[function]
    except (KeyError, TypeError):
        pass
    try:
        definition = ast.parse(textwrap.dedent(inspect.getsource(function))).body[0]
    except (OSError, TypeError, SyntaxError, IndentationError, ValueError, IndexError):
        definition = None
    if not isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)):
        definition = None
    try:
        _DEFINITIONS[function] = definition
    except TypeError:
        pass  # not weakly referable: parsed again next time
    return definition


def _stores(definition) -> dict[str, int]:
    """How many times ``definition`` binds or deletes each name."""
    stores: dict[str, int] = {}
    for node in ast.walk(definition):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            stores[node.id] = stores.get(node.id, 0) + 1
    return stores


def evaluate(guards: dict, instance, defaults: dict, entry: str = "construct",
             tensors: frozenset = frozenset(), gradient: bool = False,
             instances: dict[str, str] | None = None) -> dict[str, dict]:
    """Per line (as a string, JSON keys): ``{"reached": True | False | None, "condition": source, "value": v}``.

    ``reached`` is False when a condition on the path evaluates against what it needs (``condition`` says which,
    ``value`` what it was); True when the method is called from ``construct`` and every condition holds or is a
    tensor condition (on the ``tensors`` inputs: compiled on both sides); None when nothing shows it either way
    (``construct`` is not the class's own, or a condition could not be evaluated: ``unknown`` names it; a
    constant MindSpore folds, such as a shape, may have kept the line out). With ``gradient`` (the compile took
    the Cell's gradient) a custom ``bprop`` is compiled as construct is. ``instances``: each method's instance
    parameter (``instance_parameters``), the name its conditions read ``instance`` by."""
    result: dict[str, dict] = {}
    for line, guard in (guards or {}).items():
        if gradient and guard.get("function") == BPROP:
            guard = {**guard, "called": True}
        if guard.get("called") is False:
            result[str(line)] = {"reached": False, "condition": f"{guard['function']}() is not called from "
                                 f"construct", "value": None}
            continue
        states = [_path_state(conditions, guard, instance, instances, defaults, entry, tensors)
                  for conditions in [guard.get("conditions") or [], *guard.get("alternatives", ())]]
        # Any path that compiles the line decides it; the first (least guarded) one speaks for the others.
        result[str(line)] = next((state for state in states if state["reached"]), None) \
            or next((state for state in states if state["reached"] is None), states[0])
    return result


def _path_state(conditions: list, guard: dict, instance, instances: dict[str, str] | None, defaults: dict,
                entry: str, tensors: frozenset) -> dict:
    state = {"reached": None if guard.get("called") is None else True}
    for condition in conditions:
        source, wanted = condition[0], condition[1]
        function = condition[2] if len(condition) > 2 else guard.get("function")
        own = instance_names(instances, function, instance)
        value = condition_value(source, {**own, **defaults} if function == entry else own)
        if value is _UNKNOWN:
            if len(condition) > 3 and condition[3]:
                continue  # an operand of the line's own expression ms-lint cannot evaluate: as if it were not there
            if not (function == entry and is_tensor_condition(source, tensors)) and "unknown" not in state:
                state = {"reached": None, "unknown": source}
            continue
        if bool(value) != bool(wanted):
            return {"reached": False, "condition": source, "value": _show(value), "wanted": bool(wanted)}
    return state
