"""Draw a seeded random sample of corpus findings, stratified by code, for reading one by one.

    python benchmarks/corpus.py --json corpus.json
    python benchmarks/sample.py corpus.json --size 120 --seed 7 > sample.md

Each code gets a share of the sample proportional to its findings, and at least ``--min-per-code`` of them (or
all, when it has fewer), so a rare code is read too. ``--per-code N`` instead takes N findings of every code (all,
when it has fewer), ranked by a hash of the seed and the finding's place: the ranking does not depend on the rest of
the corpus, so after a change to ms-lint the same seed draws the same findings wherever they still exist, and only
the new ones need reading. Each finding is printed with the lines around it, ready to be
judged; ``--judgements FILE`` (a JSON list of {"package", "path", "line", "code", "verdict", "why"}) fills in the
verdicts already given and prints the false-finding rate per code.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_SOURCE = HERE / ".corpus" / "src"


def all_findings(summary: dict) -> list[dict]:
    return [{"package": result["package"], "path": result["path"], **finding}
            for result in summary["results"] for finding in result["findings"]]


def stratified(findings: list[dict], size: int, seed: int, min_per_code: int) -> list[dict]:
    by_code: dict[str, list[dict]] = {}
    for finding in sorted(findings, key=lambda f: (f["code"], f["package"], f["path"], f["line"], f["col"])):
        by_code.setdefault(finding["code"], []).append(finding)
    total = len(findings) or 1
    rng = random.Random(seed)
    sample = []
    for code, members in sorted(by_code.items()):
        share = max(min_per_code, round(size * len(members) / total))
        sample.extend(rng.sample(members, min(share, len(members))))
    return sample


def stable_per_code(findings: list[dict], per_code: int, seed: int) -> list[dict]:
    def rank(finding: dict) -> str:
        return hashlib.sha256(repr((seed, *key(finding), finding["col"])).encode()).hexdigest()

    by_code: dict[str, list[dict]] = {}
    for finding in findings:
        by_code.setdefault(finding["code"], []).append(finding)
    return [finding for code in sorted(by_code) for finding in sorted(by_code[code], key=rank)[:per_code]]


def key(finding: dict) -> tuple:
    return finding["package"].split("==")[0], finding["path"], finding["line"], finding["code"]


def source_lines(source_root: Path, finding: dict, context: int) -> str:
    name, _, version = finding["package"].partition("==")
    if version:
        directory = source_root / f"{name}-{version}-py3-none-any"
    else:  # a member of the development corpus: "owner/name" or "owner/name:application/folder"
        directory = HERE / ".corpus" / "development" / name.partition(":")[0].replace("/", "+")
    try:
        lines = (directory / finding["path"]).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return "    (source not found)"
    start = max(0, finding["line"] - 1 - context)
    return "\n".join(f"{'>' if number == finding['line'] else ' '}{number:5d}  {lines[number - 1]}"
                     for number in range(start + 1, min(len(lines), finding["line"] + context) + 1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus_json", type=Path, help="the file `benchmarks/corpus.py --json` wrote")
    parser.add_argument("--size", type=int, default=120)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--min-per-code", type=int, default=3)
    parser.add_argument("--per-code", type=int, default=0,
                        help="take this many findings of every code instead (a stable draw: see above)")
    parser.add_argument("--context", type=int, default=3, help="source lines shown on each side")
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE, help="the unzipped wheels")
    parser.add_argument("--judgements", type=Path, default=None, help="verdicts already given (JSON list)")
    args = parser.parse_args(argv)
    findings = all_findings(json.loads(args.corpus_json.read_text()))
    if args.per_code:
        sample = stable_per_code(findings, args.per_code, args.seed)
    else:
        sample = stratified(findings, args.size, args.seed, args.min_per_code)
    judged = {}
    if args.judgements is not None and args.judgements.exists():
        judged = {key(j): j for j in json.loads(args.judgements.read_text())}
    for number, finding in enumerate(sample, 1):
        verdict = judged.get(key(finding))
        print(f"## {number}. {finding['code']} {finding['package']} {finding['path']}:{finding['line']}")
        print(finding["message"])
        if verdict:
            print(f"verdict: {verdict['verdict']} ({verdict.get('why', '')})")
        print("```\n" + source_lines(args.source, finding, args.context) + "\n```\n")
    if judged:
        totals, false, repeat = Counter(), Counter(), Counter()
        for finding in sample:
            verdict = judged.get(key(finding))
            if verdict is not None:
                totals[finding["code"]] += 1
                false[finding["code"]] += verdict["verdict"].lower() == "false"
                repeat[finding["code"]] += verdict["verdict"].lower() == "repeat"
        print("| code | judged | false | repeat |\n|---|---|---|---|")
        for code in sorted(totals):
            print(f"| {code} | {totals[code]} | {false[code]} | {repeat[code]} |")
        judged_count = max(1, sum(totals.values()))
        false_count, repeat_count = sum(false.values()), sum(repeat.values())
        print(f"| all | {sum(totals.values())} | {false_count} ({100 * false_count / judged_count:.1f}%) "
              f"| {repeat_count} ({100 * repeat_count / judged_count:.1f}%) |")
        unjudged = sum(1 for f in sample if key(f) not in judged)
        if unjudged:
            print(f"\n{unjudged} finding(s) of the sample are not judged yet", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
