"""What one process keeps between files: summaries of the project's other modules, by file version, and nothing
that holds a tree (a flake8 run over a whole project would otherwise drag every tree through each full garbage
collection)."""
from __future__ import annotations

import ast
import gc
import os
import textwrap
import weakref
from pathlib import Path

import pytest

from ms_lint.model import project
from ms_lint.engine import check_file, check_tree
from ms_lint.settings import Settings

HEAD = textwrap.dedent('''
    import numpy as np
    from pkg.blocks import Block


    class Head(Block):
        def construct(self, x):
            return np.sin(x)
''')

CELL_BLOCK = textwrap.dedent('''
    import mindspore.nn as nn


    class Block(nn.Cell):
        pass
''')

PLAIN_BLOCK = textwrap.dedent('''
    class Block:
        pass
''')


@pytest.fixture
def package(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "blocks.py").write_text(CELL_BLOCK)
    (tmp_path / "pkg" / "head.py").write_text(HEAD)
    return tmp_path


def codes(path: Path) -> list[str]:
    return [finding.code for finding in check_file(str(path), Settings(syntax_level="strict"))]


def test_a_base_class_module_edited_between_two_checks_is_read_again(package):
    head = package / "pkg" / "head.py"
    blocks = package / "pkg" / "blocks.py"
    assert codes(head) == ["MS101"]
    blocks.write_text(PLAIN_BLOCK)
    later = os.stat(blocks).st_mtime + 5
    os.utime(blocks, (later, later))
    assert codes(head) == [], "Block is no Cell any more, so Head.construct is plain Python"
    assert len([key for key in project.INDEX._summaries if key[0] == str(blocks)]) == 1, "the old version is forgotten"


def test_only_summaries_outlive_the_file_being_checked(package):
    head = package / "pkg" / "head.py"
    assert codes(head) == ["MS101"]
    assert project.INDEX._full_facts == {}
    blocks = str(package / "pkg" / "blocks.py")
    kept = [value for key, value in project.INDEX._summaries.items() if key[0] == blocks]
    assert len(kept) == 1
    summary = project._kept_summary(kept[0])
    assert summary.project_class("Block").is_cell
    assert "nn" in summary.names


def test_what_outlives_the_file_is_left_alone_by_the_garbage_collector(package):
    # Summaries stay for the whole run: their dicts and tuples of strings and flags leave the collector's lists once
    # it has seen them, and each full collection of a long flake8 run stops walking them (the tuple per file that
    # holds a summary's two dicts stays: CPython never lets go of a tuple holding a dict).
    assert codes(package / "pkg" / "head.py") == ["MS101"]
    for _ in range(3):  # a collection lets go of a tuple once the tuples inside it are let go: one level at a time
        gc.collect()
    kept = [project.INDEX._summaries, project.INDEX._lookups_of, project.INDEX._unverified]
    assert all(len(store) > 0 for store in kept)
    for store in kept:
        for key, value in store.items():
            parts = value if isinstance(value, tuple) else [value]
            assert not gc.is_tracked(key), key
            assert not any(gc.is_tracked(part) for part in parts), (key, value)


def test_a_deeper_question_about_another_module_reads_its_tree_for_that_file_only(package):
    # Whether a Cell built in graph code owns parameters needs the other module's tree (MS106 leaves a
    # parameter-free Cell alone).
    (package / "pkg" / "blocks.py").write_text(CELL_BLOCK + textwrap.dedent('''
        class Dense(nn.Cell):
            def __init__(self):
                super().__init__()
                self.inner = nn.Dense(2, 2)
    '''))
    holder = package / "pkg" / "holder.py"
    holder.write_text(textwrap.dedent('''
        import mindspore.nn as nn
        from pkg.blocks import Block, Dense


        class Holder(nn.Cell):
            def construct(self, x):
                trained = Dense()
                empty = Block()
                return empty(trained(x))
    '''))
    found = check_file(str(holder), Settings(syntax_level="strict"))
    assert [(f.line, f.code) for f in found] == [(8, "MS106")]
    assert project.INDEX._full_facts == {}


def test_the_checked_tree_is_freed_without_waiting_for_the_garbage_collector(package):
    source = (package / "pkg" / "head.py").read_text() + textwrap.dedent('''

        class Other(Head):
            def __init__(self):
                super().__init__()
                self.scale = 2

            def construct(self, x):
                return self.helper(x) * self.scale

            def helper(self, y):
                return y.asnumpy()
    ''')
    gc.collect()
    gc.disable()
    try:
        tree = ast.parse(source)
        alive = weakref.ref(tree)
        findings = check_tree(tree, source, str(package / "pkg" / "head.py"), Settings(syntax_level="strict"))
        assert findings
        del tree, findings
        assert alive() is None, "a reference cycle keeps the tree until a full collection"
    finally:
        gc.enable()


OUTLINED = textwrap.dedent('''\
    import mindspore.nn as nn
    from pkg import layers


    @decorated(option=1)
    def helper(
        x: dict[str, int] = {"a": 1},
    ) -> tuple[
        int, int]:
        value = x["a"]
        # a comment at the function's own level
    # and one at column 0
        return value, value


    def one_line(x): return x


    class Block(layers.Base, nn.Cell):
        size = 3

        async def construct(self, x):
            def inner():
                return 1
            return x
        if size:
            kind = "big"
''')


def test_an_outline_keeps_what_a_module_and_its_classes_define_and_cuts_function_bodies():
    from ms_lint.model.source import outline_text

    outline = outline_text(OUTLINED)
    lines = outline.split("\n")
    assert len(lines) == len(OUTLINED.split("\n"))  # line numbers kept
    assert lines[5:13] == OUTLINED.split("\n")[5:9] + [" pass", "", "", ""]  # comments in a body go with it
    assert lines[15] == "def one_line(x): return x"
    assert lines[21:27] == ["    async def construct(self, x):", "     pass", "", "", "    if size:",
                            '        kind = "big"']  # an inner function goes with its body; the class's code stays
    tree = ast.parse(outline)
    full = ast.parse(OUTLINED)
    assert [ast.dump(node) for node in tree.body[:2]] == [ast.dump(node) for node in full.body[:2]]
    assert [ast.unparse(base) for base in tree.body[-1].bases] == ["layers.Base", "nn.Cell"]
    # Files with \r\n line ends are cut the same way (a blank line's \r does not end a body).
    assert outline_text(OUTLINED.replace("\n", "\r\n")).replace("\r", "") == outline


def test_an_outline_without_class_bodies_keeps_the_classes_headers_only():
    from ms_lint.model.source import outline_text

    outline = outline_text(OUTLINED, class_bodies=False)
    lines = outline.split("\n")
    assert len(lines) == len(OUTLINED.split("\n"))
    assert lines[:19] == outline_text(OUTLINED).split("\n")[:19]  # the module's own code is cut as before
    assert lines[18:] == ["class Block(layers.Base, nn.Cell):", " pass"] + [""] * 8
    block = ast.parse(outline).body[-1]
    assert [ast.unparse(base) for base in block.bases] == ["layers.Base", "nn.Cell"]


def test_a_cell_deriving_from_a_class_inside_a_class_of_another_module_is_a_cell(package):
    (package / "pkg" / "blocks.py").write_text(textwrap.dedent('''
        import mindspore.nn as nn


        class Layers:
            class Base(nn.Cell):
                pass


        class Block(Layers.Base):
            pass
    '''))
    assert codes(package / "pkg" / "head.py") == ["MS101"]  # the outline keeps the class bodies then


def test_a_body_whose_string_runs_back_to_the_margin_ends_where_the_tokenizer_says():
    from ms_lint.model.source import outline_text

    source = textwrap.dedent('''\
        class Block(Cell):
            def usage(self):
                text = f"""
        class Fake(Cell):
            pass
        {self}"""
                return text

            @property
            def size(self):
                return 3
        size = 1
    ''')
    outline = outline_text(source)
    assert outline.split("\n") == ["class Block(Cell):", "    def usage(self):", "     pass", "", "", "", "", "",
                                   "    @property", "    def size(self):", "     pass", "size = 1", ""]
    tree = ast.parse(outline)
    assert [node.name for node in tree.body[0].body] == ["usage", "size"]


def test_a_line_continued_back_to_the_margin_stays_in_the_body_it_continues():
    from ms_lint.model.source import outline_text

    source = 'def f():\n    s = """\n"""  + \\\n"x"; from mindspore.nn import Dense as Net\nclass Other:\n    pass\n'
    assert [type(node).__name__ for node in ast.parse(outline_text(source)).body] == ["FunctionDef", "ClassDef"]


@pytest.mark.parametrize("source", [
    # a string that never closes: the tokenizer cannot end the body
    'def f():\n    text = """\nclass Fake(Cell):\n    pass\n',
    # a def line inside a module's string: the tokenizer would start inside the string
    'DOC = """\ndef f():\n    s = \'\'\'\n"""\nclass Real(Cell):\n    pass\nx = 1  # \'\'\'\ny = 2  # """\n',
    # a header that a multi-line string is part of
    'def f(x="""a\n"""):\n    return x\n',
    # a header that never closes
    "def f(x,\n",
])
def test_an_outline_is_not_cut_where_lines_cannot_be_told_apart_without_tokenizing(source):
    from ms_lint.model.source import outline_text

    assert outline_text(source) is None


def test_a_base_class_module_whose_functions_hold_column_zero_strings_is_still_read(package):
    blocks = package / "pkg" / "blocks.py"
    blocks.write_text(CELL_BLOCK + textwrap.dedent('''
        def usage():
            return """
        usage: blocks
        """
    ''') + "\nclass Other(nn.Cell):\n    pass\n")
    project.INDEX._summaries.clear()
    assert codes(package / "pkg" / "head.py") == ["MS101"]
    summary = project.INDEX._module_summary(str(blocks), Settings(syntax_level="strict"))
    assert {name: summary.project_class(name).is_cell for name in summary.classes} == {"Block": True, "Other": True}


# -- a run of ms-lint check: each module read once, questions answered once, a store for later runs ------------

MIXIN = textwrap.dedent('''
    class Helpers:
        def prepare(self, x, flag=None):
            if flag:
                y = x
            return y
''')


def _net(number: int) -> str:
    return textwrap.dedent(f'''
        import mindspore.nn as nn
        from pkg.helpers import Helpers


        class Net{number}(nn.Cell, Helpers):
            def construct(self, x):
                return self.prepare(x)
    ''')


@pytest.fixture
def mixins(tmp_path: Path, monkeypatch) -> Path:
    """pkg.helpers.Helpers, a mixin whose method reads a name one path leaves unbound, and three Cells that call
    it from graph code (MS116 reports each call)."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "helpers.py").write_text(MIXIN)
    for number in range(3):
        (tmp_path / "pkg" / f"net{number}.py").write_text(_net(number))
    monkeypatch.chdir(tmp_path)
    project.INDEX.reads.clear()
    return tmp_path


NETS = ["pkg/net0.py", "pkg/net1.py", "pkg/net2.py"]


def run(files: list[str], cache_dir: str | None = None) -> list[tuple[str, str]]:
    from ms_lint.config import resolve_options
    from ms_lint.lint import check_files

    outcome = check_files(files, resolve_options(isolated=True), cache_dir=cache_dir)
    assert not outcome.errors
    return sorted((item.finding.path, item.finding.code) for item in outcome.reported)


@pytest.fixture
def parses(monkeypatch) -> list[str]:
    """The names of the files parsed, as each parse names its file."""
    parsed: list[str] = []
    real = ast.parse

    def parse(source, filename="<unknown>", *args, **kwargs):
        parsed.append(os.path.basename(str(filename)))
        return real(source, filename, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", parse)
    return parsed


def test_a_run_reads_a_module_once_however_many_files_ask_about_it(mixins, parses):
    assert run([*NETS, "pkg/helpers.py"]) == [(net, "MS116") for net in NETS]
    # net0's question read the mixin's module (in full: the run checks it), net1's and net2's reused its facts,
    # and its own check reused its tree.
    assert parses.count("helpers.py") == 1
    assert project.INDEX.reads == {str(mixins / "pkg" / "helpers.py"): 1}
    assert project.INDEX._kept == {} and gc.isenabled(), "nothing is kept past the run, the collector runs again"


def test_a_question_about_another_module_is_answered_once_per_run(mixins, monkeypatch):
    from ms_lint.rules import ms116_name_bound_on_one_path as ms116

    walked: list[str] = []
    real = ms116.partially_bound_reads

    def reads(function, *args, **kwargs):
        walked.append(function.name)
        return real(function, *args, **kwargs)

    monkeypatch.setattr(ms116, "partially_bound_reads", reads)
    assert run(NETS) == [(net, "MS116") for net in NETS]
    assert walked.count("prepare") == 1, "the mixin's method is walked for the first Cell only"
    # without a run, as flake8 checks a file at a time, the answer is kept between files all the same
    walked.clear()
    assert [finding.code for finding in check_file("pkg/net0.py", Settings())] == ["MS116"]
    assert walked.count("prepare") == 0


def test_answers_kept_between_files_are_left_alone_by_the_garbage_collector(mixins):
    assert [finding.code for finding in check_file("pkg/net0.py", Settings())] == ["MS116"]
    for _ in range(3):
        gc.collect()
    answers = project.INDEX._answers
    assert answers
    # the answers of every question asked in this process so far, the model's and the rules'
    for key, value in answers.items():
        assert not gc.is_tracked(key) and not gc.is_tracked(value), (key, value)


def test_an_answer_reused_by_a_later_file_counts_the_modules_it_read(mixins):
    # Helpers finds prepare in a base of another module: net1's analysis reuses the answer net0's found, and its
    # cached result must still be checked again when that base changes.
    (mixins / "pkg" / "base.py").write_text(MIXIN.replace("Helpers", "Base"))
    (mixins / "pkg" / "helpers.py").write_text("from pkg.base import Base\n\n\nclass Helpers(Base):\n    pass\n")
    cache = str(mixins / "cache")
    assert run(NETS, cache) == [(net, "MS116") for net in NETS]
    (mixins / "pkg" / "base.py").write_text(MIXIN.replace("Helpers", "Base").replace("return y", "return x"))
    assert run(NETS, cache) == []


def test_a_run_after_an_edit_reads_the_edited_file_alone(mixins, parses):
    cache = str(mixins / "cache")
    assert run([*NETS, "pkg/helpers.py"], cache) == [(net, "MS116") for net in NETS]
    assert list((mixins / "cache" / "summaries").glob("*/*.json"))
    with open(mixins / "pkg" / "net2.py", "a") as handle:
        handle.write("# edited\n")
    parses.clear()
    project.INDEX.reads.clear()
    project.INDEX._summaries.clear()
    project.INDEX._answers.clear()
    assert run([*NETS, "pkg/helpers.py"], cache) == [(net, "MS116") for net in NETS]
    # net2 is checked again; what it asks of pkg.helpers (is it a Cell, where prepare lies, what prepare reads)
    # comes from the summary store: the module is not read
    assert parses == ["net2.py"]
    assert project.INDEX.reads == {}


def test_a_stored_answer_is_not_used_once_a_module_it_read_changed(mixins):
    (mixins / "pkg" / "base.py").write_text(MIXIN.replace("Helpers", "Base"))
    (mixins / "pkg" / "helpers.py").write_text("from pkg.base import Base\n\n\nclass Helpers(Base):\n    pass\n")
    cache = str(mixins / "cache")
    assert run(["pkg/net0.py"], cache) == [("pkg/net0.py", "MS116")]
    (mixins / "pkg" / "base.py").write_text(MIXIN.replace("Helpers", "Base").replace("return y", "return x"))
    project.INDEX._answers.clear()
    # net1 was never checked: its analysis asks where Helpers finds prepare, which the store answered for net0
    # from pkg.base as it was
    assert run(["pkg/net1.py"], cache) == []


@pytest.fixture
def callers(tmp_path: Path, monkeypatch) -> Path:
    """pkg.layer: ``scale``; pkg.blocks: a Cell that calls it, and ``prepare``; pkg.top: a Cell that calls
    ``prepare``. Each helper reads a name one path leaves unbound, and is graph code only through the other module."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "layer.py").write_text(textwrap.dedent('''
        import mindspore.ops as ops


        def scale(x, flag=None):
            if flag:
                y = ops.mul(x, 2)
            return y
    '''))
    (tmp_path / "pkg" / "blocks.py").write_text(textwrap.dedent('''
        import mindspore.nn as nn
        from pkg.layer import scale


        class Block(nn.Cell):
            def construct(self, x):
                return scale(x)


        def prepare(x, flag=None):
            if flag:
                y = x
            return y
    '''))
    (tmp_path / "pkg" / "top.py").write_text(textwrap.dedent('''
        import mindspore.nn as nn
        from pkg.blocks import prepare


        class Top(nn.Cell):
            def construct(self, x):
                return prepare(x)
    '''))
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("order", [["pkg/layer.py", "pkg/blocks.py", "pkg/top.py"],
                                   ["pkg/blocks.py", "pkg/layer.py", "pkg/top.py"],
                                   ["pkg/top.py", "pkg/layer.py", "pkg/blocks.py"]])
def test_a_module_whose_graph_code_was_summarised_first_is_checked_with_its_callers_elsewhere(callers, order):
    # layer's check reads what blocks' graph code calls (a summary of blocks, which asks no other module: made from
    # the facts blocks' own check keeps where it came first); blocks' own check reuses the facts a summary made,
    # and still finds prepare compiled for top's construct
    assert run(order) == [("pkg/blocks.py", "MS116"), ("pkg/layer.py", "MS116")]


def test_a_run_s_store_lets_go_first_of_the_modules_no_other_module_asked_about():
    """Over its limit, the run's store lets go of the modules checked and never asked about (oldest first), and
    only then of the least recently used."""
    index = project.ProjectIndex()
    index.keep_modules(30)

    def keep(name: str, asked: bool) -> None:
        index._keep(name, project.KeptFacts(None, 0.0, {}, 10, 0, asked=asked))

    for name, asked in (("a", True), ("b", False), ("c", True), ("d", False)):
        keep(name, asked)
    assert list(index._kept) == ["a", "c", "d"]
    index._use_kept("d")
    index._use_kept("a")
    keep("e", False)
    assert list(index._kept) == ["c", "a", "e"]  # d, asked about by none, before e
    keep("f", True)
    assert list(index._kept) == ["c", "a", "f"]
    keep("g", True)
    assert list(index._kept) == ["a", "f", "g"]  # none left that no module asked about: the least recently used
    index.keep_modules(0)
    assert list(index._kept) == []
