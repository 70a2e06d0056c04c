"""MS608: an argument MindSpore's layer takes under PyTorch's name and reads with another meaning."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint import pytorch_mapping as mapping
from ms_lint.edits import Edit, FixContext
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.model import ModuleFacts
from ms_lint.rules.base import Rule


@dataclass(frozen=True, kw_only=True)
class PytorchMeaning(FindingData):
    """A layer keyword given PyTorch's value where MindSpore's parameter of that name means its complement: the
    layer, the parameter, the value as written and as a number, MindSpore's equivalent, what MindSpore's parameter
    does and how far the statistic moves, the layer's full name, the mapping page and the tables' version."""

    template = ("nn.{layer}({parameter}={given}): MindSpore's {parameter} {consequence}, so the running statistic "
                "moves {moved} toward each batch; PyTorch's {parameter}={value} is MindSpore's "
                "{parameter}={equivalent}")
    layer: str
    parameter: str
    given: str
    value: str
    equivalent: str
    consequence: str
    moved: str
    name: str = fact(subject=True)
    page: str = fact(for_users=True)
    version: str = fact(for_users=True)


class PytorchMeaningKeyword(Rule):
    code = "MS608"
    name = "pytorch-meaning-keyword"
    summary = ("an argument MindSpore reads with another meaning than PyTorch's "
               "(`nn.BatchNorm2d(c, momentum=0.1)`: MindSpore's momentum weights the running statistic)")
    fix_summary = "pass MindSpore's equivalent (`momentum=0.1` -> `momentum=0.9`)"
    records = (PytorchMeaning,)
    # one cause: the same parameter given the same value in one function, whichever layer takes it and as written
    place_facts = frozenset({"layer", "name", "given", "page"})
    what = """
        Reports a call of a `mindspore.nn` API that passes, by PyTorch's keyword or at PyTorch's position, a value
        MindSpore's parameter of the same name reads another way, for every such difference of ms-lint's table
        generated from MindSpore's API mapping documentation that ms-lint measured: today the `momentum` of
        `nn.BatchNorm1d`, `nn.BatchNorm2d` and `nn.BatchNorm3d` (PyTorch's `momentum` weights the new batch,
        MindSpore's the running statistic: MindSpore's is one minus PyTorch's), and that of `nn.Conv2dBnAct` and
        `nn.DenseBnAct` built with `has_bn=True`, which hand it to their BatchNorm (without `has_bn=True` they build
        none and never read it). A value reads as PyTorch's when it
        is a number under one half (PyTorch's default is 0.1, MindSpore's 0.9), given as a literal or through a
        name bound to one; `momentum=1 - m` is MindSpore's spelling and not reported. `SyncBatchNorm` has the same
        difference in the table but builds only in a distributed job on a device, so it is not reported.
        `mindspore.mint.nn` layers follow PyTorch's meaning and are not reported. A function that passes the same
        value again (`momentum=0.1` on every norm layer of an `__init__`, or a constant `BN_MOMENTUM = 0.1`) is
        reported once, at the first call, with the lines of the others; the fix rewrites every literal of them.
        Not reported in an application that never trains: where no entry point that runs the module (an eval,
        export, inference or demo script, an attack that only evaluates) trains, on its own path or through a
        function of the project it calls, the running statistics never move. A library's module is reported: its
        users may train.
    """
    why = """
        MindSpore updates `moving_mean = momentum * moving_mean + (1 - momentum) * batch_mean` (measured 2.10 and
        2.7.1, CPU, in PyNative and in graph mode): with `momentum=0.1` one training step on a batch of mean 10
        moves the running mean from 0 to 9.0, where PyTorch's `momentum=0.1` moves it to 1.0; the same holds for the
        BatchNorm of a `Conv2dBnAct` or `DenseBnAct` (tests/test_ground_truth_mapping.py). Nothing raises: the
        running statistics follow the last batches instead of averaging over training, and evaluation (which
        normalises with them) degrades.
    """
    example = """
        class Block(nn.Cell):
            def __init__(self, channels):
                super().__init__()
                self.bn = nn.BatchNorm2d(channels, momentum=0.1)
    """
    use_instead = """
        class Block(nn.Cell):
            def __init__(self, channels):
                super().__init__()
                self.bn = nn.BatchNorm2d(channels, momentum=0.9)
    """
    autofix = """
        Replaces a literal value by MindSpore's equivalent: `momentum=0.1` -> `momentum=0.9`; a value read from a
        name is left to you.
    """

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        version = module.target.version
        reported = _reported(module, version)
        if reported and not module.application_trains():
            return  # the running statistics move only in training, which no entry path of the application runs
        for site, difference, given, value in reported:
            equivalent = 1 - value
            yield self.report(module, given, PytorchMeaning(
                layer=api.last_name(site.qualname), parameter=difference.mindspore,
                given=_given(given, value), value=_text(value), equivalent=_text(equivalent),
                consequence=difference.consequence, moved=f"{1 - value:.0%}", name=site.qualname,
                page=difference.page, version=api.mindspore_version(version)))

    @classmethod
    def cause(cls, module: ModuleFacts, finding: Finding):
        """A value read from a constant the module binds once (``BN_MOMENTUM = 0.1``): every call that reads it is
        one cause, wherever it lies, which one edit of the constant mends."""
        from ms_lint.model.scopes import ASSIGNMENT

        node = finding.node
        if not isinstance(node, ast.Name) or not module.scopes.module_object(node):
            return None
        binding = module.scopes.binding(node)
        if binding is None or binding.kind != ASSIGNMENT or len(module.scopes.module.bindings.get(node.id, ())) != 1:
            return None
        return "constant", node.id, binding.position

    def fix(self, context: FixContext, finding: Finding) -> list[Edit]:
        node = finding.node
        data = self.data_of(finding)
        if not isinstance(data, PytorchMeaning):
            return []
        if not (isinstance(node, ast.Constant) and isinstance(node.value, (int, float))):
            return []
        return [context.replace(node, data.equivalent)]


def _reported(module: ModuleFacts, version: str) -> list[tuple]:
    """The arguments the rule reports, each as (call site, difference, argument, its value)."""
    return list(_arguments(module, version))


def _arguments(module: ModuleFacts, version: str) -> Iterator[tuple]:
    for site in module.calls_to(*mapping.class_names("meaning")):
        if api.keywords_not_taken(site.qualname, site.node, version) or module.in_dead_branch(site.node,
                                                                                              site.function):
            continue  # MS604's: building it raises first; or never built
        function, owner = site.function, site.owner
        for difference in mapping.differences(site.qualname, "meaning", version):
            if difference.equivalent != "1 - x":
                continue  # the only kind of equivalent the table holds for now
            given = _argument(site.node, site.qualname, difference)
            if given is None or (difference.needs and not _given_true(
                    module, site, _argument(site.node, site.qualname, difference, difference.needs))):
                continue  # (a Conv2dBnAct without has_bn=True builds no BatchNorm to read the momentum)
            value = _number(given, lambda name: module.value_bound_to(name, function, owner))
            if value is None or not 0 < value < 0.5:
                continue
            yield site, difference, given, value


def _argument(call: ast.Call, qualname: str, difference: mapping.Difference,
              other: str = "") -> ast.expr | None:
    """The argument the call passes for the parameter: by keyword, or at a place where PyTorch's and MindSpore's
    positional parameters are both this one; with ``other``, what it passes for that parameter of MindSpore's."""
    pytorch, mindspore, _ = mapping.positional_orders(qualname)
    if other:
        given = next((keyword.value for keyword in call.keywords if keyword.arg == other), None)
        return given if given is not None or other not in mindspore else _positional(call, mindspore.index(other))
    for keyword in call.keywords:
        if keyword.arg in (difference.mindspore, difference.pytorch):
            return keyword.value
    if difference.mindspore in mindspore and (difference.pytorch in pytorch or not pytorch):
        # (a layer PyTorch lacks, such as Conv2dBnAct: MindSpore's place)
        index = pytorch.index(difference.pytorch) if pytorch else mindspore.index(difference.mindspore)
        if index == mindspore.index(difference.mindspore):
            return _positional(call, index)
    return None


def _positional(call: ast.Call, index: int) -> ast.expr | None:
    """The argument ``call`` passes at place ``index``, where no ``*args`` comes before it."""
    if index < len(call.args) and not any(isinstance(argument, ast.Starred) for argument in call.args[:index + 1]):
        return call.args[index]
    return None


def _given_true(module: ModuleFacts, site, given: ast.expr | None) -> bool:
    """``given`` is True: the literal, or a name bound to it (a flag the call leaves out keeps its default,
    False)."""
    for _ in range(3):
        if isinstance(given, ast.Name):
            given = module.value_bound_to(given, site.function, site.owner)
    return isinstance(given, ast.Constant) and given.value is True


def _number(value: ast.expr, bound, depth: int = 0) -> float | None:
    """The number ``value`` is: a literal, or a name bound to one."""
    if isinstance(value, ast.Constant) and isinstance(value.value, (int, float)) and not isinstance(value.value, bool):
        return float(value.value)
    if isinstance(value, ast.Name) and depth < 3:
        found = bound(value)
        return _number(found, bound, depth + 1) if found is not None else None
    return None


def _given(node: ast.expr, value: float) -> str:
    return _text(value) if isinstance(node, ast.Constant) else f"{ast.unparse(node)}, which is {_text(value)}"


def _text(value: float) -> str:
    return repr(round(value, 10))
