"""``ms-lint rules``: the rule list; ``ms-lint rules MS101``: one rule's documentation."""
from __future__ import annotations

import argparse
import json
import sys

from ms_lint.commands import ERROR_PREFIX


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "rules",
        help="list the rules, or show one rule's documentation",
        description="Without CODE: every rule with its code, name, whether it is on by default, whether "
        "`ms-lint check --fix` fixes it, and what it reports. With CODE (or a rule name): the rule's "
        "documentation (what it does, why it is a hazard, an example, the fix).",
        epilog="Some findings depend on the target the code runs on: the device (MS601 holds on CPU and GPU, MS110's "
        "dynamic shapes on Ascend), the MindSpore version and the syntax level (the STRICT-only findings of MS101, "
        "MS102, MS103, MS114, MS115, MS117, MS122). `ms-lint check` infers each part from the project unless "
        "--ms-device, --ms-version or --ms-syntax-level set it, and names the target it used on standard error.",
    )
    parser.add_argument("codes", nargs="*", metavar="CODE", help="rule codes or names, e.g. MS101")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    parser.set_defaults(handler=run_rules)


def find_rule(key: str):
    """The rule whose code or name is ``key`` (case-insensitive), or None."""
    from ms_lint.rules import ALL_RULES

    wanted = key.strip().lower()
    for rule in ALL_RULES:
        if rule.code.lower() == wanted or rule.name.lower() == wanted:
            return rule
    return None


def rule_record(rule) -> dict:
    return {
        "code": rule.code,
        "name": rule.name,
        "enabled_by_default": bool(rule.enabled_by_default),
        "autofix": bool(rule.autofix),
        "summary": rule.summary,
        "fix": rule.fix_summary,
        "documentation": rule.documentation(),
    }


def rules_table(rules) -> str:
    """The rules as aligned text columns: code, name, default, autofix, summary."""
    header = ("CODE", "NAME", "DEFAULT", "AUTOFIX", "SUMMARY")
    rows = [header] + [
        (rule.code, rule.name, "on" if rule.enabled_by_default else "off", "yes" if rule.autofix else "no",
         " ".join(rule.summary.split()))
        for rule in rules
    ]
    widths = [max(len(row[column]) for row in rows) for column in range(len(header) - 1)]
    lines = []
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths)] + [row[-1]]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines) + "\n"


def run_rules(args: argparse.Namespace) -> int:
    from ms_lint.rules import ALL_RULES

    if args.codes:
        rules = []
        for key in args.codes:
            rule = find_rule(key)
            if rule is None:
                print(f"{ERROR_PREFIX}unknown rule {key!r}; `ms-lint rules` lists them", file=sys.stderr)
                return 2
            rules.append(rule)
    else:
        rules = list(ALL_RULES)

    if args.format == "json":
        records = [rule_record(rule) for rule in rules]
        sys.stdout.write(json.dumps(records if not args.codes or len(records) > 1 else records[0], indent=2) + "\n")
    elif args.codes:
        sys.stdout.write("\n".join(rule.documentation() for rule in rules))
    else:
        sys.stdout.write(rules_table(rules))
    return 0
