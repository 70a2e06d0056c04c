"""``ms-lint check``'s result cache: an unchanged file is not checked again, and a result is never reused once a
project module its analysis read (a Cell base class, directly or through another base) has changed."""
from __future__ import annotations

import json
import os
import shutil
import textwrap
from pathlib import Path

import pytest

from ms_lint.config import resolve_options
from ms_lint.model.project import recording_lookups
from ms_lint.result_cache import ResultCache, entry_key, lookups_record, lookups_unchanged

from .support import SAMPLE_PROJECT, run_process

CELL_BASE = "from mindspore import nn\n\n\nclass Base(nn.Cell):\n    pass\n"
PLAIN_BASE = "class Base:\n    pass\n"
MIDDLE = "from pkg.base import Base\n\n\nclass Middle(Base):\n    pass\n"


def _net(base_module: str, base: str) -> str:
    return textwrap.dedent(f"""\
        import mindspore
        from {base_module} import {base}


        class Net({base}):
            def construct(self, x):
                return x.asnumpy()
        """)


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    """pkg.base.Base (a Cell), pkg.net.Net(Base), pkg.middle.Middle(Base), pkg.deep.Deep(Middle), pkg.other."""
    root = tmp_path / "project"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "base.py").write_text(CELL_BASE)
    (root / "pkg" / "middle.py").write_text(MIDDLE)
    (root / "pkg" / "net.py").write_text(_net("pkg.base", "Base"))
    (root / "pkg" / "deep.py").write_text(_net("pkg.middle", "Middle").replace("Net", "Deep"))
    (root / "pkg" / "other.py").write_text(_net("mindspore.nn", "Cell"))
    monkeypatch.chdir(root)
    return root


def check(root: Path, *args: str):
    """``ms-lint check -v --isolated ARGS``: (findings as (path, code), files from the cache, the run)."""
    run = run_process("check", "-v", "--isolated", "--ms-syntax-level=strict", *args, cwd=root)
    assert run.status in (0, 1), run.err
    found = sorted((line.split(":", 1)[0].removeprefix("./"), line.split(" ")[1]) for line in run.out.splitlines())
    summary = next((line for line in run.err.splitlines() if "from the cache" in line), "")
    assert summary.startswith("ms-lint: "), run.err
    return found, int(summary.split(", ")[1].split()[0]), run


EXPECTED = [("pkg/deep.py", "MS102"), ("pkg/net.py", "MS102"), ("pkg/other.py", "MS102")]


def test_a_warm_run_takes_everything_from_the_cache(project):
    cold, cold_hits, _ = check(project, ".")
    assert cold == EXPECTED and cold_hits == 0
    warm, warm_hits, run = check(project, ".")
    assert warm == cold
    assert warm_hits == 6
    assert "6 file(s) checked" in run.err
    cache_root = project / ".ms_lint_cache"
    assert (cache_root / ".gitignore").read_text().splitlines()[-1] == "*"
    assert list((cache_root / "check").glob("*/*.json"))


def test_an_edited_base_class_changes_the_findings_of_its_dependents(project):
    assert check(project, ".")[0] == EXPECTED
    (project / "pkg" / "base.py").write_text(PLAIN_BASE)
    found, hits, _ = check(project, ".")
    # Net(Base) and Deep(Middle(Base)) are no Cells any more; other.py never read base.py.
    assert found == [("pkg/other.py", "MS102")]
    # __init__.py, other.py and middle.py (which names nothing of MindSpore, so its check reads no other module)
    # come from the cache; base, net and deep were checked again.
    assert hits == 3
    (project / "pkg" / "base.py").write_text(CELL_BASE)
    assert check(project, ".")[0] == EXPECTED


def test_an_edit_two_bases_away_is_seen_when_summaries_were_reused(project):
    # One process, one file after another: the second file's analysis reuses the summary of pkg.middle built
    # during the first one's, and must still count pkg.base, which that summary read, as read.
    (project / "pkg" / "deep2.py").write_text((project / "pkg" / "deep.py").read_text())
    files = ("--jobs", "1", "pkg/deep2.py", "pkg/deep.py")
    assert check(project, *files)[0] == [("pkg/deep.py", "MS102"), ("pkg/deep2.py", "MS102")]
    (project / "pkg" / "base.py").write_text(PLAIN_BASE)
    found, hits, _ = check(project, *files)
    assert found == [] and hits == 0


def test_a_module_that_appears_later_is_seen(project):
    (project / "pkg" / "base.py").unlink()
    assert check(project, "pkg/net.py")[0] == []  # Base is unknown: no Cell, no finding
    (project / "pkg" / "base.py").write_text(CELL_BASE)
    found, hits, _ = check(project, "pkg/net.py")
    assert found == [("pkg/net.py", "MS102")] and hits == 0


def test_options_are_part_of_the_key(project):
    check(project, ".")
    found, _, _ = check(project, "--extend-ignore", "MS102", ".")
    assert found == []
    found, _, _ = check(project, "--ms-mode", "pynative", ".")  # construct is not compiled: no MS102
    assert found and all(code != "MS102" for _, code in found)
    assert check(project, ".")[0] == EXPECTED


def test_corrupt_entries_are_ignored_and_replaced(project):
    check(project, ".")
    entries = list((project / ".ms_lint_cache" / "check").glob("*/*.json"))
    garbage = [b"", b"{not json", b"[]", b'{"format": 1}', b"\xff\xfe", b'{"format": 1, "lookups": 3, "value": []}']
    for number, entry in enumerate(entries):
        entry.write_bytes(garbage[number % len(garbage)])
    found, hits, _ = check(project, ".")
    assert found == EXPECTED and hits == 0
    assert check(project, ".")[1] == 6


def test_an_entry_with_wrong_findings_shape_is_a_miss(project):
    check(project, "pkg/net.py")
    entry = next((project / ".ms_lint_cache" / "check").glob("*/*.json"))
    document = json.loads(entry.read_text())
    document["value"] = [["pkg/net.py", "not a line"]]
    entry.write_text(json.dumps(document))
    found, hits, _ = check(project, "pkg/net.py")
    assert found == [("pkg/net.py", "MS102")] and hits == 0


def test_an_unwritable_cache_is_not_fatal(project):
    blocker = project / "blocker"
    blocker.write_text("a file where the cache directory would be")
    found, hits, run = check(project, "--cache-dir", str(blocker / "check"), ".")
    assert found == EXPECTED and hits == 0 and run.status == 1


def test_no_cache_neither_reads_nor_writes(project):
    found, hits, _ = check(project, "--no-cache", ".")
    assert found == EXPECTED and hits == 0
    assert not (project / ".ms_lint_cache").exists()
    check(project, ".")
    assert check(project, "--no-cache", ".")[1] == 0


def test_cache_dir_and_parallel_jobs(project, tmp_path):
    for number in range(30):
        (project / "pkg" / f"copy{number}.py").write_text(_net("pkg.base", "Base"))
    cache_dir = tmp_path / "elsewhere"
    cold, _, _ = check(project, "--jobs", "2", "--cache-dir", str(cache_dir), ".")
    warm, hits, _ = check(project, "--jobs", "2", "--cache-dir", str(cache_dir), ".")
    assert warm == cold and len(cold) == 33 and hits == 36
    assert not (project / ".ms_lint_cache").exists()
    assert not list(cache_dir.rglob(".tmp-*"))
    (project / "pkg" / "base.py").write_text(PLAIN_BASE)
    edited, hits, _ = check(project, "--jobs", "2", "--cache-dir", str(cache_dir), ".")
    assert edited == [("pkg/other.py", "MS102")] and hits == 3


def test_cached_results_are_those_of_an_uncached_run(tmp_path):
    root = tmp_path / "sample"
    shutil.copytree(SAMPLE_PROJECT, root)
    plain = run_process("check", "--isolated", "--ms-syntax-level=strict", "--no-cache", "--format", "json", ".",
                        cwd=root)
    cold = run_process("check", "--isolated", "--ms-syntax-level=strict", "--format", "json", ".", cwd=root)
    warm = run_process("check", "--isolated", "--ms-syntax-level=strict", "--format", "json", ".", cwd=root)
    assert plain.out == cold.out == warm.out
    assert plain.status == cold.status == warm.status == 1


def test_lookups_are_recorded_without_changing_findings(project):
    from ms_lint.lint import lint_source

    options = resolve_options(isolated=True)
    source = (project / "pkg" / "deep.py").read_text()
    plain = lint_source(source, str(project / "pkg" / "deep.py"), options)
    with recording_lookups() as lookups:
        recorded = lint_source(source, str(project / "pkg" / "deep.py"), options)
    assert [r.finding for r in plain] == [r.finding for r in recorded]
    files = {found for found in lookups.values() if found}
    assert str(project / "pkg" / "middle.py") in files
    assert str(project / "pkg" / "base.py") in files  # through Middle's summary, whether kept or built
    record = lookups_record(lookups)
    assert lookups_unchanged(record)
    (project / "pkg" / "base.py").write_text(PLAIN_BASE + "\n")
    assert not lookups_unchanged(record)


def test_nested_recordings_that_saw_the_same_lookups_each_end_their_own():
    # A check of one module builds the summary of another inside it; both may record nothing (equal dicts).
    from ms_lint.model import project as project_model

    with recording_lookups() as outer:
        with recording_lookups() as inner:
            assert inner == outer and inner is not outer
        assert project_model.INDEX._recorders[-1] is outer
    assert all(recorder is not outer for recorder in project_model.INDEX._recorders)


def test_result_cache_get_and_put(tmp_path):
    cache = ResultCache(str(tmp_path / "c"))
    key = entry_key("a.py", b"x = 1\n", "options")
    assert cache.get(key) is None
    cache.put(key, {}, [["a.py", 1, 0, "MS101", "m", "", None, {}]])
    assert cache.get(key) == [["a.py", 1, 0, "MS101", "m", "", None, {}]]
    assert entry_key("a.py", b"x = 2\n", "options") != key
    assert entry_key("b.py", b"x = 1\n", "options") != key
    assert entry_key("a.py", b"x = 1\n", "other options") != key
    assert os.listdir(tmp_path / "c" / key[:2]) == [key + ".json"]


def test_parallel_jobs_without_a_cache_share_a_store_for_the_run_only(project, tmp_path, monkeypatch):
    for number in range(30):
        (project / "pkg" / f"copy{number}.py").write_text(_net("pkg.base", "Base"))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    found, hits, _ = check(project, "--jobs", "2", "--no-cache", ".")
    assert len(found) == 33 and hits == 0
    assert not (project / ".ms_lint_cache").exists()
    assert list(scratch.iterdir()) == [], "the workers' store goes with the run"
