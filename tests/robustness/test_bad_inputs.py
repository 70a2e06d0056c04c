"""Whatever a repository holds, checking it never aborts the run.

Each case writes a file, checks it through real flake8 (``python -m flake8``, one run over all the files) and
in-process (``check_file`` / ``check_source`` / the plugin class), and asserts what the user sees: the findings,
flake8's exit status, and that nothing is printed on stderr. A file ms-lint cannot check gives one MS900
finding that names the reason; a file Python cannot parse gives flake8's own E999 and no MS finding.
"""
from __future__ import annotations

import ast
import contextlib
import errno
import os
import stat
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from ms_lint.engine import check_file, check_source
from ms_lint.plugin import MsLintChecker
from ms_lint.rules import RULES_BY_CODE
from ms_lint.settings import Settings

SETTINGS = Settings(syntax_level="strict")
ALL_CODES = tuple(RULES_BY_CODE)

# One hazard at a known place: line 6, column 15 (0-based) of this text.
HAZARD = textwrap.dedent("""\
    import mindspore.nn as nn


    class Net(nn.Cell):
        def construct(self, x):
            return x.asnumpy()
""")
HAZARD_LINE = 6
HAZARD_COL = 15


def hazard_after(prefix: str) -> str:
    """HAZARD with ``prefix`` lines above it."""
    return prefix + HAZARD


@dataclass(frozen=True)
class Case:
    name: str
    data: bytes
    flake8: list[tuple[int, str, str]]  # (line, code, text in the message) in output order
    engine: list[tuple[int, str, str]] = field(default_factory=list)


def _hazard_at(line: int) -> list[tuple[int, str, str]]:
    return [(line, "MS102", ".asnumpy() on a tensor in graph code (Net.construct)")]


LATIN1_TEXT = "# -*- coding: latin-1 -*-\n# d\xe9j\xe0 vu, na\xefve caf\xe9\n"
CASES = [
    Case("syntax_error.py", b"import mindspore\n\ndef broken(:\n    pass\n",
         flake8=[(3, "E999", "SyntaxError: invalid syntax")]),
    Case("python2_print.py", b"import mindspore\nprint 'hello'\n",
         flake8=[(2, "E999", "SyntaxError: Missing parentheses in call to 'print'")]),
    Case("python2_except.py", b"import mindspore\ntry:\n    pass\nexcept ValueError, exc:\n    pass\n",
         flake8=[(4, "E999", "SyntaxError: multiple exception types must be parenthesized")]),
    Case("nul_byte.py", hazard_after("x = 1\0\n").encode(),
         flake8=[(1, "E999", "null bytes")]),
    Case("utf16.py", HAZARD.encode("utf-16"), flake8=[(1, "E999", "null bytes")]),
    Case("latin1_with_cookie.py", hazard_after(LATIN1_TEXT).encode("latin-1"),
         flake8=_hazard_at(HAZARD_LINE + 2), engine=_hazard_at(HAZARD_LINE + 2)),
    # Not valid UTF-8 and no cookie: Python refuses it; flake8 reads it as latin-1 and the plugin checks it, the engine
    # too (with replacement characters); `ms-lint check` reports E902 as Python would refuse it.
    Case("latin1_without_cookie.py", hazard_after("# na\xefve caf\xe9\n").encode("latin-1"),
         flake8=_hazard_at(HAZARD_LINE + 1), engine=_hazard_at(HAZARD_LINE + 1)),
    Case("mixed_encodings.py",
         b"# -*- coding: utf-8 -*-\n# caf\xc3\xa9\n# caf\xe9\n" + HAZARD.encode(),
         flake8=_hazard_at(HAZARD_LINE + 3), engine=_hazard_at(HAZARD_LINE + 3)),
    Case("bom.py", b"\xef\xbb\xbf" + HAZARD.encode(), flake8=_hazard_at(HAZARD_LINE),
         engine=_hazard_at(HAZARD_LINE)),
    Case("bom_with_latin1_cookie.py", b"\xef\xbb\xbf# coding: latin-1\n" + HAZARD.encode(),
         flake8=_hazard_at(HAZARD_LINE + 1), engine=_hazard_at(HAZARD_LINE + 1)),
    Case("unknown_cookie.py", b"# -*- coding: no-such-codec -*-\n" + HAZARD.encode(),
         flake8=_hazard_at(HAZARD_LINE + 1), engine=_hazard_at(HAZARD_LINE + 1)),
    Case("crlf.py", HAZARD.replace("\n", "\r\n").encode(), flake8=_hazard_at(HAZARD_LINE),
         engine=_hazard_at(HAZARD_LINE)),
    Case("cr_only.py", HAZARD.replace("\n", "\r").encode(), flake8=_hazard_at(HAZARD_LINE),
         engine=_hazard_at(HAZARD_LINE)),
    # A lone \r ends the cookie's line for Python too: the file is latin-1 (decoded as UTF-8, it would be E902).
    Case("cr_only_latin1_cookie.py", hazard_after(LATIN1_TEXT).replace("\n", "\r").encode("latin-1"),
         flake8=_hazard_at(HAZARD_LINE + 2), engine=_hazard_at(HAZARD_LINE + 2)),
    Case("no_final_newline.py", HAZARD.rstrip("\n").encode(), flake8=_hazard_at(HAZARD_LINE),
         engine=_hazard_at(HAZARD_LINE)),
    Case("form_feed.py", ("\f\n" + HAZARD).encode(), flake8=_hazard_at(HAZARD_LINE + 1),
         engine=_hazard_at(HAZARD_LINE + 1)),
    # A form feed ends no line for Python: the lines after it keep their numbers wherever the rules read the text.
    Case("form_feed_in_graph_code.py", textwrap.dedent("""\
        import mindspore.nn as nn


        class Net(nn.Cell):
            def construct(self, x, flag):
                # \f a page break in a comment
                if flag:
                    y = x + 1
                z = x * 2
                w = z + 1
                return y + w
        """).encode(), flake8=[(11, "MS116", "`y` is read after the `if` at line 7")],
         engine=[(11, "MS116", "`y` is read after the `if` at line 7")]),
    Case("empty.py", b"", flake8=[]),
    Case("bom_only.py", b"\xef\xbb\xbf", flake8=[]),
    Case("blank_lines.py", b"\n\n   \n\t\n", flake8=[]),
    Case("comment_naming_mindspore.py", b"# mindspore construct jit bprop\n", flake8=[]),
    Case("very_long_lines.py",
         ("NAME = '" + "a" * 100_000 + "'\n" + "TABLE = [" + ", ".join(map(str, range(15_000))) + "]\n"
          + HAZARD).encode(),
         flake8=_hazard_at(HAZARD_LINE + 2), engine=_hazard_at(HAZARD_LINE + 2)),
    Case("long_line_in_graph_code.py",
         (HAZARD + "        y = x + " + " + ".join(["x"] * 300) + "\n").encode(),
         flake8=_hazard_at(HAZARD_LINE), engine=_hazard_at(HAZARD_LINE)),
    Case("deep_but_parsable.py",
         (HAZARD + "\nDEEP = " + "[" * 150 + "]" * 150 + "\nCALLS = " + "f(" * 150 + ")" * 150 + "\n").encode(),
         flake8=_hazard_at(HAZARD_LINE), engine=_hazard_at(HAZARD_LINE)),
    Case("too_many_parentheses.py", ("import mindspore\nx = " + "(" * 300 + "1" + ")" * 300 + "\n").encode(),
         flake8=[(2, "E999", "SyntaxError: too many nested parentheses")]),
]
CASES_BY_NAME = {case.name: case for case in CASES}


def run_flake8(*paths: str, cwd: Path, select: str = "MS,E999") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--ms-syntax-level=strict", f"--select={select}", *paths],
        cwd=cwd, capture_output=True, text=True, timeout=300,
    )


def parse_flake8(stdout: str) -> dict[str, list[tuple[int, int, str, str]]]:
    """path -> [(line, column, code, message)] from flake8's default output format."""
    results: dict[str, list[tuple[int, int, str, str]]] = {}
    for output_line in stdout.splitlines():
        path, line, column, text = output_line.split(":", 3)
        code, _, message = text.strip().partition(" ")
        results.setdefault(path, []).append((int(line), int(column), code, message))
    return results


def matches(found: list[tuple], expected: list[tuple[int, str, str]]) -> bool:
    return len(found) == len(expected) and all(
        line == want_line and code == want_code and want_text in message
        for (line, _col, code, message), (want_line, want_code, want_text) in zip(found, expected)
    )


def engine_results(path: Path) -> list[tuple[int, int, str, str]]:
    return [(f.line, f.col, f.code, f.message) for f in check_file(str(path), SETTINGS, ALL_CODES)]


def plugin_results(source: str, filename: str = "module.py", lines: list[str] | None = None) -> list[tuple]:
    """What flake8 receives from the plugin for ``source`` (flake8 builds the tree and lines the same way)."""
    lines = source.splitlines(keepends=True) if lines is None else lines
    checker = MsLintChecker(ast.parse(source), filename, lines)
    return list(checker.run())


@pytest.fixture(scope="module")
def bad_files(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("bad_files")
    for case in CASES:
        (directory / case.name).write_bytes(case.data)
    return directory


@pytest.fixture(scope="module")
def flake8_run(bad_files) -> subprocess.CompletedProcess:
    return run_flake8(*(case.name for case in CASES), cwd=bad_files)


# ------------------------------------------------------------------------------------- one flake8 run, many files

def test_flake8_run_over_every_bad_file_finishes_cleanly(flake8_run):
    assert flake8_run.stderr == ""
    assert flake8_run.returncode == 1  # findings were reported, nothing crashed


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_flake8_reports_each_bad_file_as_expected(case, flake8_run):
    found = parse_flake8(flake8_run.stdout).get(case.name, [])
    assert matches(found, case.flake8), found


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_check_file_reports_each_bad_file_as_expected(case, bad_files):
    found = engine_results(bad_files / case.name)
    assert matches(found, case.engine), found


def test_byte_order_mark_does_not_shift_positions(bad_files, flake8_run):
    by_path = parse_flake8(flake8_run.stdout)
    assert by_path["bom.py"] == by_path["crlf.py"]
    assert engine_results(bad_files / "bom.py") == engine_results(bad_files / "crlf.py")
    assert engine_results(bad_files / "bom.py")[0][:2] == (HAZARD_LINE, HAZARD_COL)


# ------------------------------------------------------------------------------------------------ deep nesting

def _construct_returning(expression: str) -> str:
    return ("import mindspore.nn as nn\n\nclass Net(nn.Cell):\n    def construct(self, x):\n"
            f"        return {expression}\n")


def _construct_computing(expression: str) -> str:
    """A construct whose local is bound to ``expression``: the analysis reads every assignment's value."""
    return ("import mindspore.nn as nn\n\nclass Net(nn.Cell):\n    def construct(self, x):\n"
            f"        y = {expression}\n        return y\n")


def test_code_too_deep_for_the_parser_is_one_ms900_naming_the_reason():
    findings = check_source("import mindspore\nx = " + "+".join(["a"] * 30_000) + "\n", "deep.py", SETTINGS)
    assert [(f.line, f.code) for f in findings] == [(1, "MS900")]
    assert "code nested too deeply to parse" in findings[0].message


def test_parser_running_out_of_memory_is_one_ms900_naming_the_reason():
    # CPython's parser gives up on this with a bare MemoryError rather than a RecursionError.
    findings = check_source(_construct_returning("x if x else " * 10_000 + "x"), "deep.py", SETTINGS)
    assert [(f.line, f.code) for f in findings] == [(1, "MS900")]
    assert "code nested too deeply to parse (the parser ran out of memory)" in findings[0].message


@contextlib.contextmanager
def _default_recursion_limit():
    # Python's default: libraries loaded earlier in the same test session (torch, hypothesis) raise it.
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        yield
    finally:
        sys.setrecursionlimit(previous)


def test_code_too_deep_to_analyse_is_one_ms900_from_the_engine_and_the_plugin():
    with _default_recursion_limit():
        _assert_too_deep_is_ms900()


def _assert_too_deep_is_ms900():
    source = _construct_computing(" + ".join(["x"] * 2000))
    ast.parse(source)  # Python itself accepts it; only the analysis runs out of recursion depth
    findings = check_source(source, "deep.py", SETTINGS, ALL_CODES)
    assert [(f.line, f.code) for f in findings] == [(1, "MS900")]
    assert "code nested too deeply to analyse" in findings[0].message
    reported = plugin_results(source)
    assert [(line, col) for line, col, _text, _type in reported] == [(1, 0)]
    assert reported[0][2].startswith("MS900 ms-lint could not check this file (RecursionError: code nested too deeply")


def test_a_file_after_a_recursion_failure_is_checked_normally():
    with _default_recursion_limit():
        failed = check_source(_construct_computing(" + ".join(["x"] * 2000)), "deep.py", SETTINGS)
    assert [f.code for f in failed] == ["MS900"]
    assert [(f.line, f.code) for f in check_source(HAZARD, "next.py", SETTINGS)] == [(HAZARD_LINE, "MS102")]


def test_flake8_itself_aborts_before_the_plugin_on_code_too_deep_to_parse(tmp_path):
    # flake8 parses the file before any plugin runs and lets the RecursionError escape; ms-lint is not involved.
    (tmp_path / "deep.py").write_text("import mindspore\nx = " + "+".join(["a"] * 30_000) + "\n")
    result = run_flake8("deep.py", cwd=tmp_path)
    assert result.returncode == 1
    assert "RecursionError" in result.stderr
    assert "ms_lint" not in result.stderr


# ----------------------------------------------------------------------------------------------- a 1 MB file

DOCUMENTATION = "A generated block of the network: " + "dense layer, activation, shapes and notes. " * 6


@pytest.mark.slow
def test_one_megabyte_file_of_cells_is_checked_completely(tmp_path):
    cells = []
    size = 0
    while size < 1_000_000:
        # Half of each Cell is documentation, as in real model zoos; the rest is code to analyse.
        cell = textwrap.dedent(f"""
            class Block{len(cells)}(nn.Cell):
                \"\"\"{DOCUMENTATION}\"\"\"

                def __init__(self):
                    super().__init__()
                    self.dense = nn.Dense({len(cells) % 7 + 1}, 4)

                def construct(self, x):
                    return self.dense(x).asnumpy()
        """)
        cells.append(cell)
        size += len(cell)
    path = tmp_path / "generated.py"
    path.write_text("import mindspore.nn as nn\n" + "".join(cells))
    line_count = path.read_text().count("\n")
    findings = check_file(str(path), SETTINGS, ALL_CODES)
    assert {f.code for f in findings} == {"MS102"}
    assert len(findings) == len(cells)
    assert all(1 <= f.line <= line_count for f in findings)
    assert findings[-1].scope == f"Block{len(cells) - 1}"


# ------------------------------------------------------------------------------------- the file system itself

def test_directory_named_like_a_module_is_reported_by_check_file_and_walked_by_flake8(tmp_path):
    (tmp_path / "x.py").mkdir()
    (tmp_path / "x.py" / "inner.py").write_text(HAZARD)
    findings = check_file(str(tmp_path / "x.py"), SETTINGS)
    assert [(f.line, f.code, f.message) for f in findings] == [
        (1, "MS900", "ms-lint could not read this file (IsADirectoryError: Is a directory)")]
    result = run_flake8("x.py", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (1, "")
    by_path = parse_flake8(result.stdout)
    assert list(by_path) == [os.path.join("x.py", "inner.py")]
    assert matches(by_path[os.path.join("x.py", "inner.py")], _hazard_at(HAZARD_LINE))


@pytest.mark.parametrize("links", [{"loop.py": "loop.py"}, {"a.py": "b.py", "b.py": "a.py"}],
                         ids=["self", "pair"])
def test_symlink_loop_is_one_ms900_naming_the_reason(tmp_path, links):
    for name, target in links.items():
        (tmp_path / name).symlink_to(target)
    for name in links:
        findings = check_file(str(tmp_path / name), SETTINGS)
        assert [(f.line, f.code, f.message) for f in findings] == [
            (1, "MS900", "ms-lint could not read this file (OSError: Too many levels of symbolic links)")]
    result = run_flake8(*links, cwd=tmp_path, select="MS,E9")
    assert (result.returncode, result.stderr) == (1, "")
    assert [(code, message) for name in links for _line, _col, code, message in parse_flake8(result.stdout)[name]] == [
        ("E902", f"OSError: [Errno {errno.ELOOP}] Too many levels of symbolic links: '{name}'") for name in links]


def test_dangling_symlink_is_one_ms900_naming_the_reason(tmp_path):
    (tmp_path / "gone.py").symlink_to("nowhere.py")
    findings = check_file(str(tmp_path / "gone.py"), SETTINGS)
    assert [(f.code, f.message) for f in findings] == [
        ("MS900", "ms-lint could not read this file (FileNotFoundError: No such file or directory)")]


def test_unreadable_file_is_one_ms900_naming_the_reason(tmp_path):
    path = tmp_path / "secret.py"
    path.write_text(HAZARD)
    path.chmod(0)
    try:
        if os.access(path, os.R_OK):
            pytest.skip("running with privileges that read any file (root)")
        findings = check_file(str(path), SETTINGS)
        assert [(f.code, f.message) for f in findings] == [
            ("MS900", "ms-lint could not read this file (PermissionError: Permission denied)")]
    finally:
        path.chmod(stat.S_IRUSR | stat.S_IWUSR)


# ------------------------------------------------------------------- base classes from the project's other modules

def write_package(root: Path, files: dict[str, str]) -> Path:
    package = root / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name, text in files.items():
        (package / name).write_text(textwrap.dedent(text))
    return package


def findings_of(path: Path) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in check_file(str(path), SETTINGS, ALL_CODES)]


def test_circular_imports_between_base_classes_terminate_and_keep_the_findings(tmp_path):
    package = write_package(tmp_path, {
        "a.py": """\
            import mindspore.nn as nn
            from pkg.b import B


            class A(B):
                def construct(self, x):
                    return x.asnumpy()
        """,
        "b.py": """\
            import mindspore.nn as nn
            from pkg.a import A


            class B(A, nn.Cell):
                def construct(self, x):
                    return x.asnumpy()
        """,
    })
    assert findings_of(package / "a.py") == [(7, "MS102")]
    assert findings_of(package / "b.py") == [(7, "MS102")]


def test_reexport_loop_between_modules_terminates(tmp_path):
    package = write_package(tmp_path, {
        "first.py": "from pkg.second import Base\n",
        "second.py": "from pkg.first import Base\n",
        "net.py": """\
            import mindspore.nn as nn
            from pkg.first import Base


            class Net(Base):
                def construct(self, x):
                    return x.asnumpy()


            class Known(Base, nn.Cell):
                def construct(self, x):
                    return x.asnumpy()
        """,
    })
    assert findings_of(package / "net.py") == [(12, "MS102")]


BROKEN_BASE_MODULES = {
    "missing": None,
    "syntax_error": b"class Base(:\n",
    "python2": b"print 'base'\nclass Base(object): pass\n",
    "nul_byte": b"import mindspore.nn as nn\nclass Base(nn.Cell):\n    pass\0\n",
    "nul_byte_in_a_method": b"import mindspore.nn as nn\nclass Base(nn.Cell):\n    def f(self):\n        return 1\0\n",
    "latin1": "import mindspore.nn as nn\n# caf\xe9\nclass Base(nn.Cell):\n    pass\n".encode("latin-1"),
    "too_deep": ("import mindspore.nn as nn\nX = " + "+".join(["a"] * 30_000) + "\nclass Base(nn.Cell):\n"
                 "    pass\n").encode(),
    "parser_out_of_memory": ("X = " + "x if x else " * 10_000 + "x\n").encode(),
    "directory": "directory",
    "fifo": "fifo",
    "symlink_loop": "symlink_loop",
    "self_import": b"from pkg.self_import import Base as Other\nBase = Other\nclass Base(Base):\n    pass\n",
}


@pytest.mark.parametrize("kind", BROKEN_BASE_MODULES)
def test_broken_or_odd_base_module_never_aborts_nor_hides_the_files_own_findings(tmp_path, kind):
    package = write_package(tmp_path, {"net.py": """\
        import mindspore.nn as nn
        from pkg.base import Base


        class Unknown(Base):
            def construct(self, x):
                return x.asnumpy()


        class Known(Base, nn.Cell):
            def construct(self, x):
                return x.asnumpy()
    """})
    base = package / "base.py"
    content = BROKEN_BASE_MODULES[kind]
    if content == "directory":
        base.mkdir()
    elif content == "fifo":
        if not hasattr(os, "mkfifo"):
            pytest.skip("no named pipes on this system")
        os.mkfifo(base)  # reading it would block for ever
    elif content == "symlink_loop":
        base.symlink_to("base.py")
    elif content is not None:
        base.write_bytes(content)
    expected = [(12, "MS102")]
    if kind == "latin1":  # readable despite the encoding: Base is a Cell, so Unknown is one too
        expected = [(7, "MS102"), (12, "MS102")]
    assert findings_of(package / "net.py") == expected


def test_base_class_resolved_from_a_sibling_module(tmp_path):
    package = write_package(tmp_path, {
        "base.py": "import mindspore.nn as nn\n\nclass Base(nn.Cell):\n    pass\n",
        "net.py": """\
            from pkg.base import Base


            class Net(Base):
                def construct(self, x):
                    return x.asnumpy()
        """,
    })
    assert findings_of(package / "net.py") == [(6, "MS102")]


# ------------------------------------------------------------------------------ classes, aliases, odd imports

ODD_MODULES = {
    "inherits_itself_through_alias": ("""\
        import mindspore.nn as nn


        class A(B):
            def construct(self, x):
                return x.asnumpy()


        B = A
    """, []),
    "inherits_itself_by_name": ("""\
        import mindspore.nn as nn


        class A(A):
            def construct(self, x):
                return x.asnumpy()
    """, []),
    "alias_cycle": ("""\
        import mindspore.nn as nn

        C = D
        D = C


        class A(C):
            def construct(self, x):
                return x.asnumpy()
    """, []),
    "mutual_inheritance": ("""\
        import mindspore.nn as nn


        class A(B):
            def construct(self, x):
                return x.asnumpy()


        class B(A):
            def construct(self, x):
                return x.asnumpy()
    """, []),
    "cell_rebound_to_subclass_of_itself": ("""\
        import mindspore.nn as nn


        class A(nn.Cell):
            def construct(self, x):
                return x.asnumpy()


        B = A


        class A(B):
            def construct(self, x):
                return x.asnumpy()
    """, None),  # one ClassInfo per name: the second definition shadows the first (no finding is promised)
    "conditional_import": ("""\
        try:
            import mindspore.nn as nn
        except ImportError:
            nn = None

        if nn is not None:
            class Net(nn.Cell):
                def construct(self, x):
                    return x.asnumpy()
    """, [(9, "MS102")]),
    "import_inside_function": ("""\
        def build():
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    return x.asnumpy()

            return Net()
    """, [(6, "MS102")]),
    "star_import": ("""\
        from mindspore.nn import *
        from mindspore import *


        class Net(Cell):
            def construct(self, x):
                return x.asnumpy()
    """, None),  # the names a star import binds are unknown statically: no finding is promised, no failure either
    "type_checking_import": ("""\
        from typing import TYPE_CHECKING

        import mindspore.nn as nn

        if TYPE_CHECKING:
            from mindspore import Tensor


        class Net(nn.Cell):
            def construct(self, x: "Tensor") -> "Tensor":
                return x.asnumpy()
    """, [(11, "MS102")]),
    "relative_import_outside_package": ("""\
        from ..base import Base
        from . import layers
        import mindspore.nn as nn


        class Net(Base, layers.Block, nn.Cell):
            def construct(self, x):
                return x.asnumpy()
    """, [(8, "MS102")]),
    "construct_everywhere": ("""\
        import mindspore

        construct = 1
        def construct(self, x):
            return x.asnumpy()
        lambda construct: construct
        class construct(construct): construct = construct
    """, []),
    "async_and_generators_in_a_cell": ("""\
        import mindspore.nn as nn


        class Net(nn.Cell):
            async def helper(self, x):
                async for item in x:
                    await item
                async with x as y:
                    yield y

            def construct(self, x):
                yield from x
                return x.asnumpy()
    """, None),
    "walrus_match_and_star_targets": ("""\
        import mindspore.nn as nn


        class Net(nn.Cell):
            def construct(self, x, *args, **kwargs):
                match x:
                    case [first, *rest]:
                        x = first
                    case {"k": value, **others}:
                        x = value
                    case Net(a=1) | None:
                        pass
                if (y := x) is not None:
                    *head, tail = args
                return x.asnumpy()
    """, None),
}


@pytest.mark.parametrize("name", ODD_MODULES)
def test_odd_but_valid_module_is_checked_without_internal_error(name):
    source, expected = ODD_MODULES[name]
    findings = check_source(textwrap.dedent(source), f"{name}.py", SETTINGS, ALL_CODES)
    assert all(f.code != "MS900" for f in findings), findings
    if expected is not None:
        assert [(f.line, f.code) for f in findings] == expected


# ---------------------------------------------------------------------------------------- the plugin contract

def _tree_without_positions() -> ast.Module:
    cell = ast.Attribute(value=ast.Name(id="nn", ctx=ast.Load()), attr="Cell", ctx=ast.Load())
    call = ast.Call(func=ast.Attribute(value=ast.Name(id="x", ctx=ast.Load()), attr="asnumpy", ctx=ast.Load()),
                    args=[], keywords=[])
    construct = ast.FunctionDef(
        name="construct", args=ast.arguments(posonlyargs=[], args=[ast.arg("self"), ast.arg("x")], kwonlyargs=[],
                                             kw_defaults=[], defaults=[]),
        body=[ast.Return(value=call)], decorator_list=[], returns=None)
    return ast.Module(body=[
        ast.Import(names=[ast.alias(name="mindspore.nn", asname="nn")]),
        ast.ClassDef(name="Net", bases=[cell], keywords=[], body=[construct], decorator_list=[]),
    ], type_ignores=[])


ODD_PLUGIN_INPUTS = {
    "lines of another file": (ast.parse(HAZARD), ["x = 1\n"]),
    "no lines": (ast.parse(HAZARD), []),
    "lines without newlines": (ast.parse(HAZARD), HAZARD.splitlines()),
    "tree of another file": (ast.parse("import mindspore\n" + "\n" * 50 + "x = 1\n"), HAZARD.splitlines(True)),
    "tree without positions": (_tree_without_positions(), HAZARD.splitlines(True)),
    "expression tree": (ast.parse("x.asnumpy()", mode="eval"), HAZARD.splitlines(True)),
    "no tree": (None, HAZARD.splitlines(True)),
    "empty module": (ast.Module(body=[], type_ignores=[]), HAZARD.splitlines(True)),
}


@pytest.mark.parametrize("name", ODD_PLUGIN_INPUTS)
@pytest.mark.parametrize("filename", ["net.py", "-", "", "stdin", "/nonexistent/dir/net.py"])
def test_plugin_run_never_raises_into_flake8(name, filename):
    tree, lines = ODD_PLUGIN_INPUTS[name]
    reported = list(MsLintChecker(tree, filename, lines).run())
    for line, column, text, checker_type in reported:
        assert isinstance(line, int) and isinstance(column, int)
        assert text.startswith("MS") and "\n" not in text
        assert checker_type is MsLintChecker


def test_plugin_reports_what_check_source_reports():
    assert [(line, col, text.split()[0]) for line, col, text, _ in plugin_results(HAZARD)] == [
        (HAZARD_LINE, HAZARD_COL, "MS102")]


# ----------------------------------------------------------------------------------------------- ms-lint check

def test_ms_lint_check_over_every_bad_file_reports_without_traceback(bad_files):
    result = subprocess.run(
        [sys.executable, "-m", "ms_lint.cli", "check", "--ms-syntax-level=strict", "--select=MS", "."],
        cwd=bad_files, capture_output=True, text=True, timeout=300,
    )
    assert "Traceback" not in result.stderr + result.stdout
    assert result.returncode == 1
    # What Python cannot decode (not UTF-8 and no cookie, or bytes its cookie's codec rejects) is flake8's E902 in
    # `ms-lint check`, on the line of the first bad byte; the plugin, given flake8's latin-1 reading, checks it.
    undecodable = {"latin1_without_cookie.py": 1, "mixed_encodings.py": 3, "utf16.py": 1}
    expected_files = sorted(case.name for case in CASES if case.engine and case.name not in undecodable)
    reported_files = sorted({line.split(":", 1)[0].removeprefix("./") for line in result.stdout.splitlines()
                             if ": MS" in line})
    assert reported_files == expected_files
    decode_errors = {line.split(":", 1)[0].removeprefix("./"): int(line.split(":")[1])
                     for line in result.stdout.splitlines() if ": E902 UnicodeDecodeError: " in line}
    assert decode_errors == undecodable
