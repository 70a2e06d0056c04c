"""The development corpus beyond the six wheels: published MindSpore repositories at pinned commits, each split
once, by a seeded hash, into a tuning half (read to find and fix what ms-lint gets wrong) and a checking half (read
only to report precision and recall, never to fix).

    python benchmarks/development_corpus.py extract                     # clone (once) and unpack every repository
    python benchmarks/development_corpus.py extract --mirror DIR        # from local git directories DIR/owner+name/repo
    python benchmarks/development_corpus.py list --half checking        # the members of one half
    python benchmarks/corpus.py --development checking --json checking.json

A library is one member of a half, whole. A repository of many applications (``mindspore-ai/models``: official and
research models, each a folder with its own scripts) is split per application folder (``research/cv/yolov5``), so
both halves hold applications of every domain. The split depends only on ``SEED`` and each member's name: it was
drawn before any member's findings were read, and it does not change when ms-lint does. Each repository is unpacked
whole (the files of the pinned commit, but for data files of 4 MiB and more) into
``benchmarks/.corpus/development/<owner>+<name>/`` and made a git repository of its own (as a clone is), so that each
application is checked inside its repository, as its users meet it; only the files of the chosen half are checked.
"""
from __future__ import annotations

import argparse
import hashlib
import io
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_DESTINATION = HERE / ".corpus" / "development"
SEED = "ms-lint-2026-12-07"
HALVES = ("tuning", "checking")


@dataclass(frozen=True)
class Repository:
    name: str  # owner/name on GitHub
    commit: str
    # the folders whose sub-folders are applications, each one member; none: the repository is one member, whole
    applications: tuple[str, ...] = ()

    @property
    def directory_name(self) -> str:
        return self.name.replace("/", "+")


REPOSITORIES = (
    Repository("mindspore-ai/models", "eab643f51336dbf7d711f02d27e6516e5affee59",
               applications=("official/audio", "official/cv", "official/gnn", "official/lite", "official/nlp",
                             "official/recommend", "research/3d", "research/audio", "research/cv",
                             "research/cvtmodel", "research/gflownets", "research/gnn", "research/hpc",
                             "research/l2o", "research/mm", "research/nlp", "research/recommend", "research/rl")),
    Repository("mindspore-lab/mindediting", "f76f4190736d1f1311fd632b38eccf7736536b7c"),
    Repository("mindspore-lab/mindface", "32970ba1e39e70043357ee5996d8393122371368"),
    Repository("mindspore-lab/mindpose", "85b42778cd65e78f27177809e8bd493364a4e4de"),
    Repository("mindspore-lab/mindrl", "7f55a67f90d248e8c535a2b6e61a6d68ca2c3c2d"),
    Repository("mindspore-ai/graphlearning", "f0375cf4bba03f0cf233eabec246661e2e0bb105"),
    Repository("mindspore-ai/mindarmour", "88285e85e19e3b03b3c3fb221596bb95a4e1f981"),
    Repository("mindspore-ai/vllm-mindspore", "a7b56a427666779a38017b85aec4c585ae0a8208"),
)


def half_of(member: str) -> str:
    """The half a member (a repository's name, or ``name:application/folder``) belongs to."""
    return HALVES[hashlib.sha256(f"{SEED}:{member}".encode()).digest()[0] % 2]


@dataclass(frozen=True)
class Member:
    repository: Repository
    folder: str  # "" for a whole library, else the application's folder in the repository

    @property
    def name(self) -> str:
        return f"{self.repository.name}:{self.folder}" if self.folder else self.repository.name

    @property
    def half(self) -> str:
        # the applications were named by folder alone when the split was drawn
        return half_of(self.folder if self.folder else self.repository.name)


def members(destination: Path = DEFAULT_DESTINATION) -> list[Member]:
    """Every member of the corpus; the application folders are read from the unpacked repositories."""
    found = []
    for repository in REPOSITORIES:
        if not repository.applications:
            found.append(Member(repository, ""))
            continue
        root = destination / repository.directory_name
        if not root.is_dir():
            raise SystemExit(f"development corpus: {root} is missing; run `python {__file__} extract` first")
        for parent in repository.applications:
            for folder in sorted(p for p in (root / parent).iterdir() if p.is_dir()):
                found.append(Member(repository, f"{parent}/{folder.name}"))
    return found


def half(name: str, destination: Path = DEFAULT_DESTINATION) -> list[Member]:
    if name not in HALVES:
        raise SystemExit(f"development corpus: the halves are {', '.join(HALVES)}, not {name!r}")
    return [member for member in members(destination) if member.half == name]


def extract(destination: Path = DEFAULT_DESTINATION, mirror: Path | None = None) -> None:
    """Unpack each repository at its pinned commit into ``destination`` (once): from ``mirror``'s git directories
    where given, else from a clone of GitHub into ``destination/.git-cache``."""
    destination.mkdir(parents=True, exist_ok=True)
    for repository in REPOSITORIES:
        target = destination / repository.directory_name
        marker = target / ".ms-lint-extracted"
        if marker.exists() and marker.read_text() == repository.commit:
            continue
        git_dir = mirror / repository.directory_name / "repo" if mirror else None
        if git_dir is None or not git_dir.is_dir():
            git_dir = destination / ".git-cache" / repository.directory_name
            if not git_dir.is_dir():
                print(f"cloning {repository.name}", file=sys.stderr)
                subprocess.run(["git", "clone", "--bare", "--filter=blob:limit=4m",
                                f"https://github.com/{repository.name}.git", str(git_dir)], check=True)
        skipped = _unpack(git_dir, repository.commit, target)
        # a clone's root: ms-lint (and git) find the repository's root here, not in whatever checkout holds the corpus
        subprocess.run(["git", "init", "-q", str(target)], check=True)
        marker.write_text(repository.commit)
        print(f"unpacked {repository.name} at {repository.commit[:12]} into {target}"
              f"{f' ({skipped} files of 4 MiB or more left out)' if skipped else ''}", file=sys.stderr)


def _unpack(git_dir: Path, commit: str, target: Path) -> int:
    """Write the files of ``commit`` under ``target``, leaving out those whose content the git directory lacks
    (files of 4 MiB and more, which a clone filtered by size does not hold: data and weights, never code). Returns
    how many were left out."""
    listing = subprocess.run(["git", f"--git-dir={git_dir}", "ls-tree", "-r", "-z", commit],
                             check=True, capture_output=True).stdout
    entries = []
    for record in listing.split(b"\0"):
        if not record:
            continue
        meta, _, path = record.partition(b"\t")
        mode, kind, blob = meta.split()
        if kind == b"blob" and mode != b"120000":
            entries.append((blob.decode(), path.decode("utf-8", "surrogateescape")))
    batch = subprocess.run(["git", f"--git-dir={git_dir}", "cat-file", "--batch"],
                           input=b"".join(f"{blob}\n".encode() for blob, _ in entries),
                           check=True, capture_output=True).stdout
    stream = io.BytesIO(batch)
    skipped = 0
    for _, path in entries:
        header = stream.readline().split()
        if header[-1] == b"missing":
            skipped += 1
            continue
        content = stream.read(int(header[2]))
        stream.read(1)  # the newline after each object
        destination = target / path
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_bytes(content)
    return skipped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    unpack = commands.add_parser("extract", help="unpack every repository at its pinned commit")
    unpack.add_argument("--mirror", type=Path, default=None, help="local git directories, DIR/owner+name/repo")
    unpack.add_argument("--destination", type=Path, default=DEFAULT_DESTINATION)
    listing = commands.add_parser("list", help="the members of one half")
    listing.add_argument("--half", choices=HALVES, required=True)
    listing.add_argument("--destination", type=Path, default=DEFAULT_DESTINATION)
    args = parser.parse_args(argv)
    if args.command == "extract":
        extract(args.destination, args.mirror)
    else:
        for member in half(args.half, args.destination):
            print(member.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
