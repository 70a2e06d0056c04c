"""Write the README's rule table from the rule registry, so the two never disagree.

    python -m ms_lint.tools.readme_table [README.md]           # rewrite the table in place
    python -m ms_lint.tools.readme_table [README.md] --check   # exit 1 if the table is out of date

The table goes between the lines ``<!-- rules-table:start -->`` and ``<!-- rules-table:end -->``.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

START_MARKER = "<!-- rules-table:start -->"
END_MARKER = "<!-- rules-table:end -->"


class MarkersMissing(ValueError):
    pass


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def rules_table() -> str:
    """The Markdown table: code, name, what it reports, the fix, default, autofix."""
    from ms_lint.rules import ALL_RULES

    lines = [
        "| Code | Name | What it reports | Fix | On by default | Autofix |",
        "|------|------|-----------------|-----|---------------|---------|",
    ]
    for rule in ALL_RULES:
        lines.append(
            f"| {rule.code} | `{rule.name}` | {_cell(rule.summary)} | {_cell(rule.fix_summary)} | "
            f"{'yes' if rule.enabled_by_default else 'no'} | {'yes' if rule.autofix else 'no'} |"
        )
    return "\n".join(lines) + "\n"


def with_table(readme: str, table: str) -> str:
    """``readme`` with the text between the markers replaced by ``table``."""
    start = readme.find(START_MARKER)
    end = readme.find(END_MARKER)
    if start < 0 or end < 0 or end < start:
        raise MarkersMissing(f"expected a line {START_MARKER} followed by a line {END_MARKER}")
    head = readme[: start + len(START_MARKER)]
    tail = readme[end:]
    return f"{head}\n{table}{tail}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ms_lint.tools.readme_table", description="Write the README's rule table from the rules."
    )
    parser.add_argument("readme", nargs="?", default="README.md", help="the file to update (default: README.md)")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if the table is out of date")
    args = parser.parse_args(argv)
    path = Path(args.readme)
    try:
        current = path.read_text(encoding="utf-8")
    except OSError as exc:
        print(f"readme_table: error: {path}: cannot read it ({exc.strerror or exc})", file=sys.stderr)
        return 2
    try:
        updated = with_table(current, rules_table())
    except MarkersMissing as exc:
        print(f"readme_table: error: {path}: {exc}", file=sys.stderr)
        return 2
    if updated == current:
        return 0
    if args.check:
        print(
            f"readme_table: {path}: the rule table is out of date; run python -m ms_lint.tools.readme_table {path}",
            file=sys.stderr,
        )
        return 1
    path.write_text(updated, encoding="utf-8")
    print(f"readme_table: {path}: rule table updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
