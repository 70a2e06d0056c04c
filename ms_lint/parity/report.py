"""What a parity check found, and how it is shown (text or JSON).

Plain data only: this module imports neither MindSpore nor PyTorch, so reports can be built, rendered and
compared anywhere.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

MS = "MindSpore"
PT = "PyTorch"


class ParityUsageError(Exception):
    """A problem with what the user asked for (bad target, bad map file, no inputs): one line, exit status 2."""


Shape = tuple


@dataclass
class TensorDiff:
    """How one tensor of the MindSpore side compares with its PyTorch counterpart."""

    label: str
    ms_shape: Shape | None
    torch_shape: Shape | None
    ms_dtype: str = ""
    torch_dtype: str = ""
    max_abs: float | None = None
    max_rel: float | None = None
    mismatched: int = 0
    total: int = 0
    ok: bool = False

    @property
    def shape_differs(self) -> bool:
        return self.ms_shape != self.torch_shape

    def summary(self) -> str:
        if self.ms_shape is None or self.torch_shape is None:
            missing = MS if self.ms_shape is None else PT
            return f"{self.label}: missing on the {missing} side"
        if self.shape_differs:
            return (f"{self.label}: shape differs: {fmt_shape(self.ms_shape)} ({MS}) vs "
                    f"{fmt_shape(self.torch_shape)} ({PT})")
        verdict = "ok" if self.ok else "MISMATCH"
        text = (f"{self.label}: {fmt_shape(self.ms_shape)} max abs diff {fmt_num(self.max_abs)}, "
                f"max rel diff {fmt_num(self.max_rel)}")
        if not self.ok and self.total:
            text += f", {self.mismatched}/{self.total} elements outside tolerance"
        return f"{text}  [{verdict}]"


@dataclass
class WeightTransfer:
    """One PyTorch tensor copied into one MindSpore parameter."""

    ms_name: str
    torch_key: str
    shape: Shape
    how: str  # "name", "rename", "order", "map"
    note: str = ""


@dataclass
class WeightProblem:
    """A tensor that was not transferred, and why; never silently dropped."""

    kind: str  # "unmapped_ms", "unmapped_torch", "shape_mismatch", "skipped_by_map"
    ms_name: str = ""
    torch_key: str = ""
    ms_shape: Shape | None = None
    torch_shape: Shape | None = None
    hint: str = ""

    def summary(self) -> str:
        if self.kind == "unmapped_ms":
            text = (f"{MS} parameter {self.ms_name} {fmt_shape(self.ms_shape)} has no {PT} tensor "
                    f"(keeps its initial value)")
        elif self.kind == "unmapped_torch":
            text = f"{PT} tensor {self.torch_key} {fmt_shape(self.torch_shape)} has no {MS} parameter (not used)"
        elif self.kind == "skipped_by_map":
            text = f"{MS} parameter {self.ms_name} {fmt_shape(self.ms_shape)} left out by the map file"
        else:
            text = (f"shape mismatch: {MS} {self.ms_name} {fmt_shape(self.ms_shape)} vs {PT} {self.torch_key} "
                    f"{fmt_shape(self.torch_shape)} (not transferred)")
        return f"{text}; {self.hint}" if self.hint else text


@dataclass
class WeightReport:
    transferred: list[WeightTransfer] = field(default_factory=list)
    problems: list[WeightProblem] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)  # PyTorch keys that share storage with a transferred tensor
    enabled: bool = True

    @property
    def complete(self) -> bool:
        return not [p for p in self.problems if p.kind != "skipped_by_map"]


@dataclass
class LayerRef:
    """One call of one layer (a hooked sub-module) on one side."""

    framework: str
    path: str
    type_name: str
    input_shapes: list = field(default_factory=list)
    output_shapes: list = field(default_factory=list)
    call_index: int = 0  # which call of this layer (layers reused in a loop are called more than once)

    @property
    def display_path(self) -> str:
        name = self.path or "<model>"
        return f"{name}#{self.call_index + 1}" if self.call_index else name

    def describe(self) -> str:
        ins = ", ".join(fmt_shape(s) for s in self.input_shapes) or "()"
        outs = ", ".join(fmt_shape(s) for s in self.output_shapes) or "()"
        return f"{self.type_name}  input {ins} -> output {outs}"


@dataclass
class Divergence:
    """The first place, in execution order, where the two models stop agreeing.

    ``where`` is "layer" (same inputs, different outputs: the layer itself), "between" (the previous aligned
    layers agree, these layers' inputs already differ: the code between them), "before" (the first aligned
    layers already get different inputs) or "after" (every aligned layer agrees: the code after the last one
    differs; ``ms``/``torch`` name that last pair).
    """

    where: str
    ms: LayerRef
    torch: LayerRef
    input_diffs: list[TensorDiff] = field(default_factory=list)
    output_diffs: list[TensorDiff] = field(default_factory=list)
    previous_ms: LayerRef | None = None
    previous_torch: LayerRef | None = None
    unaligned_ms: list[LayerRef] = field(default_factory=list)
    unaligned_torch: list[LayerRef] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)

    def headline(self) -> str:
        return f"{self.ms.display_path} ({MS}) <-> {self.torch.display_path} ({PT})"


@dataclass
class ConfigNote:
    """A setting that differs between two aligned layers (reported whether or not the outputs diverge)."""

    ms_path: str
    torch_path: str
    message: str
    affects: str = "outputs"  # "outputs" or "training"


@dataclass
class RunFailure:
    framework: str
    error: str
    layer: LayerRef | None = None


@dataclass
class ParityReport:
    ms_target: str
    torch_target: str
    inputs: list[tuple] = field(default_factory=list)  # (shape, dtype) per input
    seed: int = 0
    mode: str = "eval"
    atol: float = 0.0
    rtol: float = 0.0
    weights: WeightReport = field(default_factory=WeightReport)
    outputs: list[TensorDiff] = field(default_factory=list)
    output_count: tuple[int, int] = (0, 0)  # (MindSpore, PyTorch)
    failures: list[RunFailure] = field(default_factory=list)
    divergence: Divergence | None = None
    layer_counts: tuple[int, int] = (0, 0)
    aligned_layers: int = 0
    notes: list[ConfigNote] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        if self.failures or self.output_count[0] != self.output_count[1] or not self.outputs:
            return False
        return all(diff.ok for diff in self.outputs)

    @property
    def status(self) -> str:
        return "match" if self.passed else "mismatch"

    def to_dict(self) -> dict:
        data = asdict(self)
        data["status"] = self.status
        data["passed"] = self.passed
        data["inputs"] = [{"shape": list(shape), "dtype": dtype} for shape, dtype in self.inputs]
        return _jsonable(data)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def render_text(self) -> str:
        return "\n".join(_text_lines(self)) + "\n"


def fmt_shape(shape) -> str:
    if shape is None:
        return "?"
    return str(tuple(int(d) for d in shape))


def fmt_num(value) -> str:
    if value is None:
        return "-"
    if value == 0:
        return "0"
    if value != value or value in (float("inf"), float("-inf")):
        return str(value)
    return f"{value:.3g}"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _jsonable(value):
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return str(value)
    return value


def _text_lines(report: ParityReport) -> list[str]:
    lines = [f"ms-lint parity: {report.ms_target} ({MS}) vs {report.torch_target} ({PT})"]
    inputs = ", ".join(f"{fmt_shape(shape)} {dtype}" for shape, dtype in report.inputs) or "none"
    lines.append(f"inputs: {inputs}; seed {report.seed}; {report.mode} mode; "
                 f"atol {report.atol:g}, rtol {report.rtol:g}")

    weights = report.weights
    if weights.enabled:
        how = {}
        for item in weights.transferred:
            how[item.how] = how.get(item.how, 0) + 1
        detail = ", ".join(f"{count} by {kind}" for kind, count in how.items())
        line = f"weights: {_count(len(weights.transferred), 'tensor')} transferred"
        if detail:
            line += f" ({detail})"
        problems = [p for p in weights.problems if p.kind != "skipped_by_map"]
        line += f"; {len(problems)} not transferred" if problems else "; every tensor mapped"
        lines.append(line)
        for item in weights.transferred:
            if item.how in ("order", "map") or item.note:
                extra = f", {item.note}" if item.note else ""
                lines.append(f"  {item.ms_name} <- {item.torch_key} {fmt_shape(item.shape)} (by {item.how}{extra})")
        for problem in weights.problems:
            lines.append(f"  ! {problem.summary()}")
        if weights.aliases:
            lines.append(f"  tied {PT} tensors (share storage with a transferred one): {', '.join(weights.aliases)}")
    else:
        lines.append("weights: not transferred (each model keeps its own)")

    for failure in report.failures:
        where = f" in {failure.layer.display_path} ({failure.layer.type_name})" if failure.layer else ""
        lines.append(f"{failure.framework} raised{where}: {failure.error}")

    ms_count, torch_count = report.output_count
    if ms_count != torch_count and not report.failures:
        lines.append(f"outputs: {MS} returned {_count(ms_count, 'tensor')}, {PT} returned {torch_count}")
    for diff in report.outputs:
        lines.append(diff.summary())

    if report.layer_counts != (0, 0):
        lines.append(f"layers: {report.aligned_layers} aligned in execution order ({MS} ran "
                     f"{_count(report.layer_counts[0], 'layer call')}, {PT} {report.layer_counts[1]})")
    if report.divergence is not None:
        lines.extend(_divergence_lines(report.divergence))

    shown = set(report.divergence.hints) if report.divergence is not None else set()
    notes = [note for note in report.notes if note.message not in shown]
    if notes:
        lines.append("settings that differ between aligned layers:")
        for note in notes:
            scope = "" if note.affects == "outputs" else f" [{note.affects} only]"
            lines.append(f"  {note.ms_path} <-> {note.torch_path}: {note.message}{scope}")
    for warning in report.warnings:
        lines.append(f"warning: {warning}")

    verdict = "PASS: outputs match" if report.passed else "FAIL: outputs differ"
    lines.append(f"{verdict} within atol {report.atol:g}, rtol {report.rtol:g}"
                 if report.passed else verdict)
    return lines


def _divergence_lines(div: Divergence) -> list[str]:
    lines = []
    if div.where == "layer":
        lines.append(f"first diverging layer: {div.headline()}")
    elif div.where == "between":
        span = f"{div.previous_ms.display_path} and {div.ms.display_path}"
        torch_span = f"{div.previous_torch.display_path} and {div.torch.display_path}"
        if torch_span != span:
            span = f"{span} ({MS}) / {torch_span} ({PT})"
        lines.append(f"first divergence: between {span}: the layers before agree, the inputs of "
                     f"{div.headline()} differ")
    elif div.where == "after":
        lines.append(f"first divergence: after the last aligned layers {div.headline()}: every aligned layer "
                     f"agrees, the code after them differs")
    else:
        lines.append(f"first divergence: the inputs of the first aligned layer {div.headline()} differ")
    lines.append(f"  {MS:<9}  {div.ms.describe()}")
    lines.append(f"  {PT:<9}  {div.torch.describe()}")
    for diff in div.input_diffs:
        if not diff.ok:
            lines.append(f"  {diff.summary()}")
    if div.where == "layer":
        if all(d.ok for d in div.input_diffs):
            lines.append("  inputs agree")
        for diff in div.output_diffs:
            lines.append(f"  {diff.summary()}")
    for hint in div.hints:
        lines.append(f"  hint: {hint}")
    return lines
