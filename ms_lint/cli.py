"""``ms-lint``: one console script, one subcommand per job (``check``, ``rules``, ``validate``, ``parity``).

Each subcommand lives in ``ms_lint/commands/<name>.py`` with ``register(subparsers)``, which adds its parser and
sets ``handler`` (a function ``args -> exit status``). Heavy imports happen inside handlers only.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from ms_lint import __version__
from ms_lint.commands import ERROR_PREFIX

SUBCOMMANDS = ("check", "rules", "validate", "parity")


class ArgumentParser(argparse.ArgumentParser):
    """argparse, with every subcommand's usage errors as one line under the one prefix the commands print their
    errors with (no usage line before it: ``--help`` shows that)."""

    def error(self, message: str):
        self.exit(2, f"{ERROR_PREFIX}{message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="ms-lint",
        description="Find MindSpore graph-mode hazards before the code runs, and confirm them on the device.",
    )
    parser.add_argument("--version", action="version", version=f"ms-lint {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=ArgumentParser)
    for name in SUBCOMMANDS:
        try:
            module = importlib.import_module(f"ms_lint.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"ms_lint.commands.{name}":
                raise
            continue
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "handler", None) is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return args.handler(args)
    except KeyboardInterrupt:
        print("ms-lint: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
