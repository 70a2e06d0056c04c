"""MS702: constant strides, kernel sizes or dilations outside the ranges MindSpore documents for Ascend."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.model import ModuleFacts
from ms_lint.rules.base import Rule
from ms_lint.rules.ms205_conv_padding_without_pad_mode import argument, constant_value
from ms_lint.target import device_names

_AVG_POOL_SOURCE = "the warning on its API page, MindSpore 2.10"
_CONV3D_SOURCE = "the parameter limits on its API page, MindSpore 2.10"


@dataclass(frozen=True)
class Limit:
    parameter: str  # the keyword the API takes
    position: int  # its position among the positional arguments
    ranges: tuple[tuple[int, int], ...]  # per dimension (one entry: every dimension), inclusive
    names: tuple[str, ...] = ()  # the dimensions' names, for the message ("d", "h", "w")


@dataclass(frozen=True)
class Spec:
    """One API: where its documented limits are, and what its stride is when the call leaves it out."""

    label: str
    limits: tuple[Limit, ...]
    source: str
    stride_defaults_to_kernel: bool = False  # mint's pooling: stride=None means the kernel size


def _pooling(label: str, kernel_position: int, stride_name: str = "stride", stride_defaults_to_kernel=False) -> Spec:
    return Spec(label, (Limit("kernel_size", kernel_position, ((1, 255),)),
                        Limit(stride_name, kernel_position + 1, ((1, 63),))), _AVG_POOL_SOURCE,
                stride_defaults_to_kernel)


# The APIs whose MindSpore 2.10 documentation states ranges, by qualified-name prefix and own name. The average
# pooling pages carry a warning ("`kernel_size` is in the range [1, 255]. `stride` is in the range [1, 63].") that
# names no device; the same calls with stride 64 run on CPU (measured, 2.10), so the ranges are the Ascend kernel's.
_SPECS: dict[tuple[str, str], Spec] = {
    ("mindspore.ops", "avg_pool1d"): _pooling("ops.avg_pool1d", 1),
    ("mindspore.ops", "avg_pool2d"): _pooling("ops.avg_pool2d", 1),
    ("mindspore.ops", "avg_pool3d"): _pooling("ops.avg_pool3d", 1),
    ("mindspore.mint", "avg_pool1d"): _pooling("mint.nn.functional.avg_pool1d", 1, stride_defaults_to_kernel=True),
    ("mindspore.nn", "AvgPool3d"): _pooling("nn.AvgPool3d", 0),
    ("mindspore.ops", "AvgPool3D"): _pooling("ops.AvgPool3D", 0, stride_name="strides"),
    ("mindspore.mint", "conv3d"): Spec("mint.nn.functional.conv3d", (
        Limit("stride", 3, ((1, 255), (1, 63), (1, 63)), ("d", "h", "w")),
        Limit("padding", 4, ((0, 255),)),
        Limit("dilation", 5, ((1, 255),)),
    ), _CONV3D_SOURCE),
}
_NAMES = frozenset(name for _, name in _SPECS)


def _spec_of(qualname: str | None) -> Spec | None:
    if not api.is_mindspore(qualname):
        return None
    name = api.last_name(qualname)
    package = "mindspore.mint" if qualname.startswith("mindspore.mint.") else (
        "mindspore.nn" if api.is_nn_name(qualname) else "mindspore.ops")
    return _SPECS.get((package, name))


def _dimensions(value) -> tuple[int, ...] | None:
    """An int, or a tuple/list of ints, as a tuple; None for anything else (a name, a string such as "same")."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return (value,)
    if isinstance(value, (tuple, list)) and value and all(
            isinstance(v, int) and not isinstance(v, bool) for v in value):
        return tuple(value)
    return None


def _outside(limit: Limit, values: tuple[int, ...]) -> list[str]:
    """The dimensions of ``values`` outside ``limit``, described (``"h=64 not in [1, 63]"``)."""
    problems = []
    ranges = limit.ranges
    if len(ranges) > 1 and len(values) not in (1, len(ranges)):
        return []  # a length the API does not take: another error, not this rule's
    for index in range(max(len(values), len(ranges) if len(values) == 1 else 0)):
        value = values[0] if len(values) == 1 else values[index]
        low, high = ranges[index] if len(ranges) > 1 else ranges[0]
        if not low <= value <= high:
            name = limit.names[index] if len(ranges) > 1 else ""
            problems.append(f"{name + '=' if name else ''}{value} not in [{low}, {high}]")
    return list(dict.fromkeys(problems))


@dataclass(frozen=True, kw_only=True)
class OutsideAscendRange(FindingData):
    """Constant strides, kernel sizes or dilations outside the ranges documented for Ascend: the API, each value
    outside by its parameter (every dimension), what is outside as the message says it (``stride w=64 (1..63)``),
    the target's devices it concerns and the documentation's place."""

    api: str
    values: dict[str, list[int]] = fact(for_users=True)
    problems: list[str]
    devices: list[str]
    source: str

    def message(self) -> str:
        return (f"{self.api} with {'; '.join(self.problems)}: outside the range MindSpore documents on "
                f"{device_names(self.devices)} ({self.source}); keep each value within the range, or split the "
                "step in two")


class AscendStrideLimits(Rule):
    code = "MS702"
    name = "ascend-stride-limits"
    summary = ("a constant stride, kernel size or dilation outside the range MindSpore documents for Ascend "
               "(average pooling, `mint` conv3d)")
    fix_summary = "keep each stride within [1, 63] (and kernel sizes within [1, 255]), or reach the size in two steps"
    what = """
        Reports, on an Ascend target (`device = "ascend"`, or `"any"`, where the message says "on Ascend"; silent for
        `cpu` and `gpu`), a call whose constant arguments fall outside the ranges MindSpore's own API documentation
        (2.10) states:

        - `ops.avg_pool1d/2d/3d`, `mint.nn.functional.avg_pool1d`, `nn.AvgPool3d`, `ops.AvgPool3D`: `kernel_size`
          in [1, 255], `stride` in [1, 63] (for mint's `avg_pool1d` an omitted stride is the kernel size);
        - `mint.nn.functional.conv3d`: `stride` d in [1, 255], h and w in [1, 63]; `padding` (an int) in [0, 255];
          `dilation` in [1, 255].

        Only literal values (and constant arithmetic on them) are read: a stride held in a variable or computed at
        run time is not reported. `nn.Conv2d`, `nn.MaxPool2d` and the other layers are not reported: neither their
        MindSpore pages nor CANN's operator pages found for them state a stride range (CANN's `Deconvolution`
        specification states `1 <= stride_h * stride_w < 256` and each stride in [1, 63], but MindSpore's layers do
        not build that operator).
    """
    why = """
        MindSpore's migration guide lists among the problem areas of network authoring: "In the Ascend environment,
        operators with the stride property such as Conv and Pooling have rules about the length of the stride, which
        needs to be mitigated" (Constructing MindSpore Network, "Considerations for MindSpore Network Authoring",
        https://www.mindspore.cn/docs/en/master/migration_guide/model_development/model_development.html). The
        ranges are the ones the API pages state: the average pooling pages warn "`kernel_size` is in the range
        [1, 255]. `stride` is in the range [1, 63]." (mindspore.ops.avg_pool2d, 2.10), and
        mindspore.mint.nn.functional.conv3d lists "stride_h and stride_w are in the range [1, 63]. stride_d is in
        the range [1, 255]", "padding ... in the range [0, 255]", "dilation ... in the range [1, 255]" (CANN's
        Conv3D prototype states the same stride ranges). The average pooling calls with a stride of 64 run on CPU
        (measured, MindSpore 2.10): the ranges belong to the Ascend kernels, so the code works in CPU tests and fails
        or is rejected on the device.
    """
    example = """
        pooled = ops.avg_pool2d(x, kernel_size=2, stride=64)
    """
    use_instead = """
        pooled = ops.avg_pool2d(ops.avg_pool2d(x, kernel_size=2, stride=8), kernel_size=1, stride=8)
    """

    records = (OutsideAscendRange,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        target = module.target
        devices = target.affected(("ascend",))
        if not devices:
            return
        for site in module.calls_to(*_NAMES):
            spec = _spec_of(site.qualname)
            call = site.node
            if spec is None or any(k.arg is None for k in call.keywords) or any(
                    isinstance(a, ast.Starred) for a in call.args):
                continue
            problems, values = [], {}
            for limit in spec.limits:
                expr = argument(call, limit.parameter, limit.position)
                if spec.stride_defaults_to_kernel and limit.parameter == "stride" and (
                        expr is None or (isinstance(expr, ast.Constant) and expr.value is None)):
                    expr = argument(call, "kernel_size", limit.position - 1)
                if expr is None:
                    continue
                value = _dimensions(constant_value(expr))
                if value is None:
                    continue
                outside = _outside(limit, value)
                if outside:
                    values[limit.parameter] = list(value)
                    problems.append(f"{limit.parameter} {', '.join(outside)}")
            if not problems:
                continue
            yield self.report(module, call, OutsideAscendRange(api=spec.label, values=values, problems=problems,
                                                               devices=list(devices), source=spec.source))
