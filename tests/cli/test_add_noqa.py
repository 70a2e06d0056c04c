"""``ms-lint check --add-noqa``: each finding's line marked where flake8 reads the comment, the code unchanged."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

HEADER = "import numpy as np\nimport mindspore.nn as nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x):\n"
SUM = "numpy.sum() on tensor data"
# numpy on tensor data fails under STRICT only: the files are checked at STRICT, whatever their project infers.
CHECK = ("check", "--isolated", "--ms-syntax-level=strict")

# name -> (the body of construct, the marked lines it should end with)
SHAPES = {
    "string_opened_on_the_finding_line": (
        '        y = np.sum(x) + len("""a\n# not a comment\n""")\n        return y\n',
        ['        y = np.sum(x) + len("""a', "# not a comment", '""")  # noqa: MS101'],
    ),
    "finding_on_the_closing_line_of_a_string": (
        '        y = max(len("""a\nb"""), np.sum(x))\n        return y\n',
        ['        y = max(len("""a', 'b"""), np.sum(x))  # noqa: MS101'],
    ),
    "backslash_continued_statement": (
        "        y = np.sum(x) + \\\n            1\n        return y\n",
        ["        y = np.sum(x) + \\", "            1  # noqa: MS101"],
    ),
    "multi_line_call_with_the_finding_on_its_first_line": (
        "        y = np.sum(\n            x)\n        return y\n",
        ["        y = np.sum(  # noqa: MS101", "            x)"],
    ),
    "existing_noqa_for_another_code": (
        "        y = np.sum(x)  # noqa: E501\n        return y\n",
        ["        y = np.sum(x)  # noqa: E501, MS101"],
    ),
    "existing_noqa_without_a_space": (
        "        y = np.sum(x)  # noqa:MS102\n        z = np.mean(x)  # noqa:MS101\n        return y + z\n",
        ["        y = np.sum(x)  # noqa:MS102, MS101", "        z = np.mean(x)  # noqa:MS101"],
    ),
    "line_ending_in_a_comment": (
        "        y = np.sum(x)  # the total\n        return y\n",
        ["        y = np.sum(x)  # the total  # noqa: MS101"],
    ),
    "hash_inside_a_string": (
        '        s = "a # b"; y = np.sum(x)\n        return y\n',
        ['        s = "a # b"; y = np.sum(x)  # noqa: MS101'],
    ),
    "form_feed_before_the_finding": (  # str.splitlines would break the line there and miscount every line after
        "\x0c\n        y = np.sum(x)\n        return y\n",
        ["\x0c", "        y = np.sum(x)  # noqa: MS101"],
    ),
    "two_findings_on_one_line": (
        "        y = np.sum(x) + np.mean(x)  \n        return y\n",
        ["        y = np.sum(x) + np.mean(x)  # noqa: MS101"],
    ),
}


def body_lines(text: str) -> list[str]:
    return text.split("\n")[HEADER.count("\n"):]


def add_noqa_to(ms_lint, text: str, *args: str):
    """``net.py`` holding ``text``, marked by ``ms-lint check --add-noqa ARGS``: (path, bytes before, the run)."""
    path = Path("net.py").resolve()
    path.write_text(text)
    before = path.read_bytes()
    return path, before, ms_lint(*CHECK, "--no-cache", "--add-noqa", *args, "net.py")


def assert_marked_safely(ms_lint, path, before: bytes) -> bytes:
    """--add-noqa silences every finding, the file compiles to the same tree, and a second run changes nothing."""
    after = path.read_bytes()
    assert after != before
    compile(after, str(path), "exec")
    assert ast.dump(ast.parse(after)) == ast.dump(ast.parse(before))
    check = ms_lint(*CHECK, "--no-cache", path.name)
    assert (check.status, check.out) == (0, "")
    again = ms_lint(*CHECK, "--no-cache", "--add-noqa", path.name)
    assert again.status == 0
    assert again.said == "Added 0 noqa directives.\nNo findings in 1 file.\n"
    assert path.read_bytes() == after
    return after


@pytest.mark.parametrize("shape", SHAPES)
def test_each_line_shape_is_marked_where_flake8_reads_it(tmp_path, monkeypatch, ms_lint, shape):
    body, expected = SHAPES[shape]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "net.py").write_text(HEADER + body)
    assert SUM in ms_lint(*CHECK, "--no-cache", "net.py").out
    path, before, run = add_noqa_to(ms_lint, HEADER + body)
    assert run.status == 0 and run.out == ""
    after = assert_marked_safely(ms_lint, path, before).decode()
    assert body_lines(after)[:len(expected)] == expected
    marked = sum(1 for old, new in zip(before.decode().split("\n"), after.split("\n")) if old != new)
    assert run.said == f"Added {marked} noqa directive{'' if marked == 1 else 's'}.\nNo findings in 1 file.\n"


def test_crlf_file_keeps_its_line_endings(tmp_path, monkeypatch, ms_lint):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "net.py"
    path.write_bytes((HEADER + "        y = np.sum(x)\n        return y\n").replace("\n", "\r\n").encode())
    before = path.read_bytes()
    ms_lint(*CHECK, "--no-cache", "--add-noqa", "net.py")
    after = assert_marked_safely(ms_lint, path, before)
    assert b"        y = np.sum(x)  # noqa: MS101\r\n" in after
    assert after.count(b"\r\n") == after.count(b"\n") == before.count(b"\n")


def test_latin1_file_with_a_coding_cookie_keeps_its_encoding(tmp_path, monkeypatch, ms_lint):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "net.py"
    source = "# -*- coding: latin-1 -*-\n" + HEADER + '        y = np.sum(x) + len("café")\n        return y\n'
    path.write_bytes(source.encode("latin-1"))
    before = path.read_bytes()
    ms_lint(*CHECK, "--no-cache", "--add-noqa", "net.py")
    after = assert_marked_safely(ms_lint, path, before)
    assert after == source.replace('("café")', '("café")  # noqa: MS101').encode("latin-1")


def test_bare_noqa_already_covers_the_line(tmp_path, monkeypatch, ms_lint):
    monkeypatch.chdir(tmp_path)
    path, before, run = add_noqa_to(ms_lint, HEADER + "        y = np.sum(x)  # NOQA\n        return y\n")
    assert (run.status, run.out, run.said) == (0, "", "Added 0 noqa directives.\nNo findings in 1 file.\n")
    assert path.read_bytes() == before


def test_a_noqa_inside_a_string_cannot_be_extended_and_the_finding_stays(tmp_path, monkeypatch, ms_lint):
    # flake8 reads the first "# noqa" of the line, here inside the string: no comment after it can silence MS101.
    monkeypatch.chdir(tmp_path)
    path, before, run = add_noqa_to(ms_lint, HEADER + '        y = np.sum(x) + len("# noqa: E501")\n        return y\n')
    assert run.status == 1
    assert [code for *_, code in run.findings()] == ["MS101"]
    assert "1 finding could not be marked" in run.said
    assert path.read_bytes() == before


def test_only_the_selected_codes_are_marked(tmp_path, monkeypatch, ms_lint):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "net.py"
    path.write_text(HEADER + "        y = np.sum(x.asnumpy())\n"
                    "        self.cells = [nn.Dense(2, 2)]\n        return y\n")
    codes = {code for *_, code in ms_lint(*CHECK, "--no-cache", "net.py").findings()}
    assert {"MS101", "MS102"} <= codes
    run = ms_lint(*CHECK, "--no-cache", "--add-noqa", "--select=MS101", "net.py")
    assert run.status == 0
    lines = body_lines(path.read_text())
    assert lines[0] == "        y = np.sum(x.asnumpy())  # noqa: MS101"
    assert "noqa" not in lines[1]
    left = {code for *_, code in ms_lint(*CHECK, "--no-cache", "net.py").findings()}
    assert "MS101" not in left and "MS102" in left


def test_fix_first_then_mark_what_is_left(tmp_path, monkeypatch, ms_lint):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "net.py"
    path.write_text("import numpy as np\nimport mindspore.nn as nn\n\n\nclass Net(nn.Cell):\n"
                    "    def __init__(self):\n        super().__init__()\n        self.cells = [nn.Dense(2, 2)]\n\n"
                    "    def construct(self, x):\n        return np.sum(x)\n")
    run = ms_lint(*CHECK, "--no-cache", "--fix", "--add-noqa", "net.py")
    assert run.status == 0, run.out
    text = path.read_text()
    assert "nn.CellList([nn.Dense(2, 2)])\n" in text  # fixed, not marked
    assert "        return np.sum(x)  # noqa: MS101\n" in text
    assert text.count("noqa") == 1


@pytest.mark.parametrize("args, fragment", [
    (["-"], "cannot mark standard input"),
    (["--diff", "net.py"], "--add-noqa changes files and --diff changes none"),
])
def test_refused_combinations(tmp_path, monkeypatch, ms_lint, args, fragment):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "net.py").write_text(HEADER + "        return np.sum(x)\n")
    run = ms_lint(*CHECK, "--add-noqa", *args)
    assert run.status == 2 and run.out == ""
    assert run.err.startswith("ms-lint: error: ") and fragment in run.err


def test_a_file_that_does_not_parse_is_reported_not_silenced(tmp_path, monkeypatch, ms_lint):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "broken.py"
    path.write_text("def f(:\n    pass\n")
    run = ms_lint(*CHECK, "--no-cache", "--add-noqa", "broken.py")
    assert run.status == 1
    assert [code for *_, code in run.findings()] == ["E999"]
    assert path.read_text() == "def f(:\n    pass\n"


def test_flake8_reads_every_mark_where_it_was_put(tmp_path, monkeypatch, ms_lint):
    monkeypatch.chdir(tmp_path)
    for number, (body, _) in enumerate(SHAPES.values()):
        (tmp_path / f"shape_{number}.py").write_text(HEADER + body)

    def flake8() -> str:
        return subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select=MS", "--ms-syntax-level=strict",
                               "."], cwd=tmp_path,
                              capture_output=True, text=True, timeout=300).stdout

    before = flake8()
    assert before.count(": MS101 ") == len(SHAPES) + 1  # one more finding on a line, one already silenced
    assert sorted(ms_lint(*CHECK, "--no-cache", ".").out.splitlines()) == sorted(before.splitlines())
    run = ms_lint(*CHECK, "--no-cache", "--add-noqa", ".")
    assert run.status == 0
    assert flake8() == ""
