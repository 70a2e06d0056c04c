"""MS611: a call whose meaning changed between MindSpore versions (numpy's ``Tensor.repeat(n, axis)``, now a tile)."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.edits import Edit, FixContext
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.model import TENSOR, ModuleFacts
from ms_lint.rules.base import Rule
from ms_lint.target import device_names


@dataclass(frozen=True, kw_only=True)
class MeaningChanged(FindingData):
    """A Tensor method call written for the meaning it had before a MindSpore version changed it: the method, its
    arguments as written and as the replacement takes them, whether it passes numpy's ``axis=``, the target's
    versions of the new meaning and those of the old one, the replacement, the last version of the old meaning
    and the first of the new, why the call reads as written for the old one, and the target's devices."""

    method: str = fact(subject=True)
    arguments: str
    replacement_arguments: str
    axis_keyword: bool
    versions: list[str]
    old_versions: list[str] = fact(for_users=True)
    replacement: str
    last_before: str
    changed_in: str
    evidence: str
    devices: list[str]
    fewer_repeats_than_rank: bool = False

    @property
    def outcome(self) -> str:
        if self.axis_keyword:
            return "raises TypeError (unexpected keyword argument 'axis') in PyNative and graph mode alike"
        if self.fewer_repeats_than_rank:
            return ("raises ValueError (number of items of repeats can not be smaller than the number of "
                    "dimensions) in shape inference, before any device kernel (measured on CPU; the check is "
                    "MindSpore's shared shape inference, so Ascend and GPU raise it too)")
        cpu_gpu = [device for device in self.devices if device != "ascend"]
        parts = []
        if cpu_gpu:
            parts.append(f"cannot run on {device_names(cpu_gpu)} (RuntimeError, or ValueError for fewer repeats "
                         "than dimensions; measured on CPU)")
        if "ascend" in self.devices:
            parts.append("on Ascend returns the tile instead of the repeated elements (documented)")
        return " and ".join(parts)

    def message(self) -> str:
        return (f".{self.method}({self.arguments}) is numpy's repeat (MindSpore up to {self.last_before}); from "
                f"{self.changed_in} Tensor.{self.method} tiles the whole tensor (PyTorch's repeat(*repeats)): in "
                f"MindSpore {_listed(self.versions)} it {self.outcome}; use .{self.replacement}("
                f"{self.replacement_arguments}), which gives numpy's result on every version ({self.evidence})")


class CallMeaningChanged(Rule):
    code = "MS611"
    name = "call-meaning-changed"
    summary = ("a call whose meaning changed between MindSpore versions: numpy's `t.repeat(n, axis)`, which "
               "MindSpore 2.7 and later read as PyTorch's tile")
    fix_summary = "repeat each element with `t.repeat_interleave(n, axis)`, which means the same on every version"
    what = """
        Reports a call, on a tensor value in the code a Cell runs (graph code, and `construct` and its helpers
        under PyNative), of a Tensor method whose meaning changed between two
        MindSpore releases while its arguments stayed valid, from a small table of measured changes (`ms-lint`'s
        `mindspore_api.SEMANTIC_CHANGES`): `Tensor.repeat`, numpy's repeat (each element `n` times along `axis`)
        through 2.5, PyTorch's tile (`repeat(*repeats)`) from 2.7.0. Reported where the call was written for the
        other meaning: with `axis=` (numpy's keyword, which 2.7.0 and later refuse) whenever a version checked
        reads the new meaning; with fewer repeats than the tensor evidently has dimensions (`x.repeat(n, 0)` on a
        4-D value: numpy's form, which a tile refuses; the rank may come from another Cell of the module, as when a
        parent passes a sub-cell's 3-D output to the `construct` that repeats it); and with any arguments where the
        versions checked hold both meanings (a requirement allowing 2.5 and 2.10, or `--ms-upgrade-from 2.5`). MS601
        reports the other method whose meaning differs, the two-axis `transpose` in graph code.
    """
    why = """
        The same line computes something else, or fails, after an upgrade. From 2.7.0 `Tensor.repeat` tiles the
        whole tensor: on CPU MindSpore 2.7.0 to 2.10.0 cannot run it at all (measured: PyNative raises
        RuntimeError "'repeat' is not supported on this device", graph mode RuntimeError, or ValueError "number of
        items of repeats can not be smaller than the number of dimensions" for one repeat on a 2-D tensor), with
        `axis=` it raises TypeError ("unexpected keyword argument 'axis'") in both modes, and on Ascend, where it
        runs, it returns the tile, not the repeated elements (documented); fewer repeats than dimensions fail
        on every device, since the check is the shared shape inference (in `libmindspore_ops`, not a kernel).
        `repeat_interleave(n, axis)` gives numpy's result on every version (measured 2.7.1 and 2.10.0, both
        modes).
    """
    example = """
        class Upsample(nn.Cell):
            def construct(self, x):
                return x.repeat(2, axis=2).repeat(2, axis=3)
    """
    use_instead = """
        class Upsample(nn.Cell):
            def construct(self, x):
                return x.repeat_interleave(2, 2).repeat_interleave(2, 3)
    """
    autofix = """
        Calls `repeat_interleave` with the same arguments, `axis=` passed by position (`x.repeat(2, axis=0)` ->
        `x.repeat_interleave(2, 0)`), only for the forms written for numpy's meaning.
    """

    records = (MeaningChanged,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        written = module.written_call_names()
        changes = [change for change in api.SEMANTIC_CHANGES if change.method in written]
        if not changes or module.uses_torch():
            return
        target = module.target
        versions = target.judged_versions + ((target.upgrade_from,) if target.upgrade_from else ())
        for change in changes:
            meanings = {version: api.meaning_at(change, version) for version in versions}
            new = [version for version in target.judged_versions if meanings[version] == "after"]
            if not new:
                continue
            old = [version for version in versions if meanings[version] == "before"]
            reported: set[int] = set()
            for function in module.cell_functions():
                for node in function.nodes_of(ast.Call):
                    func = node.func
                    if not isinstance(func, ast.Attribute) or func.attr != change.method or id(node) in reported \
                            or function.kind(func.value) != TENSOR:
                        continue
                    why = _written_for_the_old_meaning(node, function, old)
                    if why is None:
                        continue
                    reported.add(id(node))
                    yield self._finding(module, node, change, why, new, old, target,
                                        _fewer_repeats_than_rank(node, function) is not None)

    def _finding(self, module: ModuleFacts, call: ast.Call, change: api.SemanticChange, why: str,
                 new: list[str], old: list[str], target, fewer_repeats_than_rank: bool) -> Finding:
        return self.report(module, call, MeaningChanged(
            method=change.method, arguments=_arguments(call), replacement_arguments=_replacement_arguments(call),
            axis_keyword=any(keyword.arg == "axis" for keyword in call.keywords), versions=new, old_versions=old,
            replacement=change.replacement, last_before=change.last_before, changed_in=change.first_after,
            evidence=why, devices=list(target.devices), fewer_repeats_than_rank=fewer_repeats_than_rank))

    def fix(self, context: FixContext, finding: Finding) -> list[Edit]:
        call = finding.node
        changed = self.data_of(finding)
        change = api.semantic_change(changed.method) if changed is not None else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and change is not None):
            return []
        if any(keyword.arg != "axis" for keyword in call.keywords) or len(call.args) != 1 and call.keywords \
                or any(isinstance(argument, ast.Starred) for argument in call.args):
            return []
        edits = [context.rename_attribute(call.func, change.replacement)]
        for keyword in call.keywords:  # axis=a after the repeats: by position, as repeat_interleave's dim
            edits.append(context.replace(keyword, context.text(keyword.value)))
        return edits


def _written_for_the_old_meaning(call: ast.Call, function, old: list[str]) -> str | None:
    """Why the call reads as numpy's repeat, or None when nothing says so."""
    if any(keyword.arg == "axis" for keyword in call.keywords):
        return "axis= is numpy's keyword"
    if any(isinstance(argument, ast.Starred) for argument in call.args) or not call.args:
        return None
    rank = _fewer_repeats_than_rank(call, function)
    if rank is not None:
        return (f"{len(call.args)} repeat{'s' if len(call.args) > 1 else ''} for a tensor of rank {rank.at_least} "
                f"or more (line {rank.shaped_by.lineno}): numpy's form, which a tile refuses")
    if old and len(call.args) <= 2:
        return f"the code also runs on MindSpore {old[0]}, where it repeats the elements"
    return None


def _fewer_repeats_than_rank(call: ast.Call, function):
    """The least rank of the repeated tensor where the call gives one or two repeats, fewer than that rank
    (numpy's per-axis form, which the tile's shape inference refuses), else None."""
    if any(keyword.arg == "axis" for keyword in call.keywords) or not call.args \
            or any(isinstance(argument, ast.Starred) for argument in call.args):
        return None
    rank = function.least_rank(call.func.value)
    return rank if rank is not None and len(call.args) <= 2 and len(call.args) < rank.at_least else None


def _arguments(call: ast.Call) -> str:
    return ast.unparse(call)[len(ast.unparse(call.func)) + 1:-1]


def _replacement_arguments(call: ast.Call) -> str:
    return ", ".join([*(ast.unparse(argument) for argument in call.args),
                      *(ast.unparse(keyword.value) if keyword.arg == "axis" else
                        f"{keyword.arg}={ast.unparse(keyword.value)}" for keyword in call.keywords if keyword.arg)])


def _listed(versions: list[str]) -> str:
    return versions[0] if len(versions) == 1 else f"{versions[0]} to {versions[-1]}"
