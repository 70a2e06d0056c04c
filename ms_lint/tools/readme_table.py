"""Write the README's rule table and its list of fixes from the rule registry, so the two never disagree.

    python -m ms_lint.tools.readme_table [README.md]           # rewrite them in place
    python -m ms_lint.tools.readme_table [README.md] --check   # exit 1 if one is out of date

The rule table goes between the lines ``<!-- rules-table:start -->`` and ``<!-- rules-table:end -->``, the fixes
``--fix`` makes (each fixable rule's ``autofix``) between ``<!-- fixes-table:start -->`` and
``<!-- fixes-table:end -->``.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

START_MARKER = "<!-- rules-table:start -->"
END_MARKER = "<!-- rules-table:end -->"
FIXES_START_MARKER = "<!-- fixes-table:start -->"
FIXES_END_MARKER = "<!-- fixes-table:end -->"


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


def fixes_table() -> str:
    """The Markdown table of what ``--fix`` rewrites: one row per rule with an autofix."""
    from ms_lint.rules import ALL_RULES

    lines = ["| Code | Name | What `--fix` does |", "|------|------|-------------------|"]
    lines.extend(f"| {rule.code} | `{rule.name}` | {_cell(rule.autofix)} |" for rule in ALL_RULES if rule.autofix)
    return "\n".join(lines) + "\n"


def with_table(readme: str, table: str, start_marker: str = START_MARKER, end_marker: str = END_MARKER) -> str:
    """``readme`` with the text between the markers replaced by ``table``."""
    start = readme.find(start_marker)
    end = readme.find(end_marker)
    if start < 0 or end < 0 or end < start:
        raise MarkersMissing(f"expected a line {start_marker} followed by a line {end_marker}")
    head = readme[: start + len(start_marker)]
    tail = readme[end:]
    return f"{head}\n{table}{tail}"


def with_tables(readme: str) -> str:
    """``readme`` with the rule table and the table of fixes written from the registry."""
    readme = with_table(readme, rules_table())
    return with_table(readme, fixes_table(), FIXES_START_MARKER, FIXES_END_MARKER)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ms_lint.tools.readme_table",
        description="Write the README's rule table and table of fixes from the rules.",
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
        updated = with_tables(current)
    except MarkersMissing as exc:
        print(f"readme_table: error: {path}: {exc}", file=sys.stderr)
        return 2
    if updated == current:
        return 0
    if args.check:
        print(
            f"readme_table: {path}: the rule table or the table of fixes is out of date; run python -m "
            f"ms_lint.tools.readme_table {path}",
            file=sys.stderr,
        )
        return 1
    path.write_text(updated, encoding="utf-8")
    print(f"readme_table: {path}: rule table and table of fixes updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
