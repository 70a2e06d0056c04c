"""``ms-lint parity MS_TARGET TORCH_TARGET``: compare a MindSpore Cell with its PyTorch reference.

Exit status: 0 when the outputs match within atol/rtol, 1 when they differ, 2 on usage and load errors.
"""
from __future__ import annotations

import argparse
import json
import sys

from ms_lint.commands import ERROR_PREFIX

EXIT_MATCH, EXIT_MISMATCH, EXIT_USAGE = 0, 1, 2


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "parity",
        help="compare a MindSpore Cell with its PyTorch reference, layer by layer",
        description=(
            "Copy the PyTorch weights into the MindSpore Cell, run both on the same seeded input, and compare the "
            "outputs. When they differ, name the first diverging layer on both sides with a likely cause. "
            "A target is module:Class (no-argument constructor), module:factory (returns the model, or "
            "(model, inputs)), or path/to/file.py:Class."
        ),
        epilog="exit status: 0 outputs match, 1 outputs differ, 2 usage or load error",
    )
    parser.add_argument("ms_target", metavar="MS_TARGET", help="the MindSpore Cell, e.g. port.model:Net")
    parser.add_argument("torch_target", metavar="TORCH_TARGET", help="the PyTorch reference, e.g. ref/model.py:Net")
    parser.add_argument("--input-shape", action="append", type=_shape, metavar="N,C,H,W", dest="input_shapes",
                        help="shape of one input; repeat for several inputs (default: the inputs a factory returns)")
    parser.add_argument("--dtype", action="append", dest="dtypes", metavar="DTYPE",
                        help="input dtype: float32 (default), float16, float64, int32, int64, bool; once for all "
                             "inputs or once per --input-shape (integers are drawn below the smallest Embedding "
                             "vocabulary)")
    parser.add_argument("--atol", type=_non_negative, default=None,
                        help="absolute tolerance (default by output dtype: 1e-5 for float32)")
    parser.add_argument("--rtol", type=_non_negative, default=None,
                        help="relative tolerance (default by output dtype: 1e-4 for float32)")
    parser.add_argument("--map", dest="map_file", metavar="FILE",
                        help='weight map overriding the automatic one: JSON {"ms_param_name": "torch_key"} '
                             "(null leaves a parameter out), or lines 'ms_param_name = torch_key'")
    parser.add_argument("--seed", type=int, default=0, help="seed for the inputs and both frameworks (default 0)")
    parser.add_argument("--train", action="store_true",
                        help="run both models in train mode (default: eval mode; Dropout makes train mode random)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="report format (default text)")
    parser.set_defaults(handler=run)


def _shape(text: str) -> tuple:
    parts = [part.strip() for part in text.split(",")]
    if parts and parts[-1] == "":  # "8," as in a Python one-element tuple
        parts.pop()
    if not parts or not all(part.isdigit() for part in parts):
        raise argparse.ArgumentTypeError(f"invalid shape {text!r}: expected integers like 2,120,12,12")
    return tuple(int(part) for part in parts)


def _non_negative(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number {text!r}") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be a number >= 0")
    return value


def run(args) -> int:
    from ms_lint.parity.report import ParityUsageError
    from ms_lint.parity.runner import load_and_compare, missing_framework

    problem = missing_framework()
    if problem is not None:
        return _usage_error(args, problem)
    try:
        report = load_and_compare(args.ms_target, args.torch_target, input_shapes=args.input_shapes,
                                  dtypes=args.dtypes, seed=args.seed, atol=args.atol,
                                  rtol=args.rtol, map_file=args.map_file, train=args.train)
    except ParityUsageError as exc:
        return _usage_error(args, str(exc))
    if args.format == "json":
        sys.stdout.write(report.to_json() + "\n")
    else:
        sys.stdout.write(report.render_text())
    return EXIT_MATCH if report.passed else EXIT_MISMATCH


def _usage_error(args, message: str) -> int:
    print(f"{ERROR_PREFIX}{message}", file=sys.stderr)
    if getattr(args, "format", "text") == "json":
        sys.stdout.write(json.dumps({"status": "error", "passed": False, "error": message}) + "\n")
    return EXIT_USAGE
