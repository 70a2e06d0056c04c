"""A compile that stops at a statement with no automatic fix, one whose effect nothing after it reads (a `with`
header, a discarded call, an `assert`): the worker compiles again with that statement left out, in memory, and the
findings further on are decided from that compile; lines only the left-out statement reached are never decided by
it. Also what such compiles say when they stop again: a None from an argument left at its default, a retry's stop."""
from __future__ import annotations

import pytest

from ms_lint.validate.fixing import MARKER_FUNCTION, STAND_IN, STAND_IN_CELL, leave_out, marked, stand_in
from ms_lint.validate.verdicts import CONFIRMED, INCONCLUSIVE

from .conftest import finding_at, needs_mindspore, verdicts_by_scope

HAZARDS = [
    ("with ms._no_grad()", "MS109", "NoGradBlock"),
    ("np.sin(", "MS101", "NoGradBlock"),
    ("np.cos(", "MS101", "CheckedArgument"),
    ("np.mean(", "MS101", "CheckedArgument"),
    ("np.tan(", "MS101", "KeptValue"),
    ("np.exp(", "MS101", "SwitchedBlock"),
    ("np.log(", "MS101", "MaskedScores"),
    ("np.random.rand()", "MS104", "TrainOnlyNoise"),
    ("self.saved = x", "MS108", "SavedForBackward"),
    ("np.sinh(", "MS101", "SavedForBackward"),
    ("self.cached = x", "MS108", "CachedValue"),
    ("np.cosh(", "MS101", "CachedValue"),
]


@pytest.fixture(scope="module")
def left_out_module(projects):
    return projects / "cells" / "vcells" / "left_out.py"


@pytest.fixture(scope="module")
def verdicts(left_out_module, worker_pool):
    findings = {text: finding_at(left_out_module, text, code, scope) for text, code, scope in HAZARDS}
    by_key = verdicts_by_scope(list(findings.values()), worker_pool, with_line=True)
    return {text: by_key[finding.scope, finding.code, finding.line] for text, finding in findings.items()}


@pytest.mark.mindspore
@needs_mindspore
def test_a_with_block_is_compiled_without_its_header(verdicts, left_out_module):
    header, sine = verdicts["with ms._no_grad()"], verdicts["np.sin("]
    assert header.verdict == CONFIRMED and "left out" not in header.message
    assert sine.verdict == CONFIRMED, sine.message
    assert sine.message.startswith(f"decided with line {header.finding.line} left out (MS109, which has no "
                                   f"automatic fix): "), sine.message
    assert sine.compiler_location.endswith(f":{sine.finding.line}")
    assert "with ms._no_grad():" in left_out_module.read_text()  # the file on disk is left as it was


@pytest.mark.mindspore
@needs_mindspore
def test_a_discarded_call_failing_on_a_line_without_finding_is_left_out(verdicts):
    cosine = verdicts["np.cos("]
    assert cosine.verdict == CONFIRMED, cosine.message
    assert " left out (no finding there): " in cosine.message


@pytest.mark.mindspore
@needs_mindspore
def test_code_only_the_left_out_call_reached_is_not_decided_by_it(verdicts):
    # report() is called by the left-out statement alone: the compile afterwards never saw its lines.
    mean = verdicts["np.mean("]
    assert mean.verdict == INCONCLUSIVE, mean.message
    assert "left out" not in mean.message


@pytest.mark.mindspore
@needs_mindspore
def test_a_statement_whose_value_is_used_is_not_left_out(verdicts):
    tangent = verdicts["np.tan("]
    assert tangent.verdict == INCONCLUSIVE, tangent.message
    assert "left out" not in tangent.message


@pytest.mark.mindspore
@needs_mindspore
def test_a_retry_that_switches_lines_on_gets_past_them_too(verdicts, left_out_module):
    exponential = verdicts["np.exp("]
    header = next(number for number, text in enumerate(left_out_module.read_text().splitlines(), start=1)
                  if "with ms._no_grad()" in text and number > exponential.finding.line - 3)
    assert exponential.verdict == CONFIRMED, exponential.message
    assert exponential.message.startswith(f"with quantize=True: decided with line {header} left out (MS109, "), \
        exponential.message


@pytest.mark.mindspore
@needs_mindspore
def test_an_attribute_write_nothing_reads_is_left_out(verdicts):
    write, sine = verdicts["self.saved = x"], verdicts["np.sinh("]
    assert write.verdict == CONFIRMED, write.message
    assert sine.verdict == CONFIRMED, sine.message
    assert sine.message.startswith(f"decided with line {write.finding.line} left out (MS108, which has no "
                                   f"automatic fix): "), sine.message
    # Read back after it: the write stays, and what follows is not decided.
    kept, cosine = verdicts["self.cached = x"], verdicts["np.cosh("]
    assert kept.verdict == CONFIRMED, kept.message
    assert cosine.verdict == INCONCLUSIVE and "left out" not in cosine.message, cosine.message


@pytest.mark.mindspore
@needs_mindspore
def test_a_none_from_an_argument_left_at_its_default_is_named(verdicts):
    logarithm = verdicts["np.log("]
    assert logarithm.verdict == INCONCLUSIVE, logarithm.message
    assert "'NoneType'" in logarithm.message
    assert logarithm.message.endswith("(`mask` was left at its default None: register an example that passes it)")


@pytest.mark.mindspore
@needs_mindspore
def test_what_stopped_the_retry_that_compiled_the_line_is_what_the_verdict_says(verdicts):
    # The default compile, fixed, leaves the line out (not training); the train-mode retry, fixed too, reaches it and
    # stops further on: that says more than the default compile's conditions.
    noise = verdicts["np.random.rand()"]
    assert noise.verdict == INCONCLUSIVE, noise.message
    assert noise.message.startswith("with set_train(True): after applying the fix for MS601 at line "), noise.message
    assert "(`mask` was left at its default None" in noise.message
    assert any(note.startswith("not compiled by default: ") for note in noise.notes)


SOURCE = '''\
class Net:
    def construct(self, x):
        with no_grad():
            y = x + 1
            z = helper(y,
                       2)
        self.check(x,
                   y)
        assert x is not None, "message"
        w = self.check(x, y); v = 1
        with open_file() as handle:
            y = handle
        return y + z

    def check(self, x, y):
        return helper(x, y)


def helper(a, b):
    return a
'''


def test_a_with_header_is_left_out_and_its_body_moved_out_of_the_block():
    source, skipped = leave_out(SOURCE, "net.py", 3)
    lines = source.splitlines()
    assert len(lines) == len(SOURCE.splitlines())
    assert lines[2] == "        pass"
    assert lines[3:6] == ["        y = x + 1", "        z = helper(y,", "                   2)"]
    assert lines[6:] == SOURCE.splitlines()[6:]
    assert skipped == [(3, 3)]  # the context manager's call reaches no function of the module


def test_a_discarded_call_is_left_out_with_the_functions_it_reaches():
    for line in (7, 8):  # the statement, whichever of its lines the compiler names
        source, skipped = leave_out(SOURCE, "net.py", line)
        lines = source.splitlines()
        assert lines[6:8] == ["        pass", ""]
        assert lines[:6] + lines[8:] == SOURCE.splitlines()[:6] + SOURCE.splitlines()[8:]
        assert skipped == [(7, 8), (15, 16), (19, 20)]  # check(), then helper() that check() calls


def test_an_assert_is_left_out():
    source, skipped = leave_out(SOURCE, "net.py", 9)
    assert source.splitlines()[8] == "        pass" and skipped == [(9, 9)]


@pytest.mark.parametrize("line, why", [
    (4, "an assignment: the code after it reads its value"),
    (10, "two statements on one line"),
    (11, "a with block that binds a name"),
    (13, "a return"),
    (1, "a class statement"),
    (14, "a blank line"),
    (99, "past the end"),
])
def test_other_statements_are_not_left_out(line, why):
    assert leave_out(SOURCE, "net.py", line) is None, why


WRITES = '''\
class Net:
    def __init__(self):
        self.kept = None

    def construct(self, x):
        self.saved = x
        self.kept = x
        self.count += 1
        self.named = x
        return self.kept + getattr(self, "named")

    def bprop(self, x, out, dout):
        return (dout * self.saved,)
'''


def test_an_attribute_write_is_left_out_when_only_constructors_and_bprop_read_it():
    source, skipped = leave_out(WRITES, "net.py", 6)
    assert source.splitlines()[5] == "        pass" and skipped == [(6, 6)]
    assert leave_out(WRITES, "net.py", 8) is not None  # ``+=`` reads nothing else
    assert leave_out(WRITES, "net.py", 7) is None  # construct reads it back
    assert leave_out(WRITES, "net.py", 9) is None  # getattr reads it by name
    dynamic = WRITES.replace('getattr(self, "named")', "getattr(self, name)")
    assert leave_out(dynamic, "net.py", 6) is None  # a name computed at run time may be any attribute
    # In a constructor, the rest of the constructor reads it too.
    built = WRITES.replace("        self.kept = None\n",
                           "        self.order = make()\n        self.size = len(self.order)\n")
    assert leave_out(built, "net.py", 3) is None
    assert leave_out(built, "net.py", 4) is not None


def test_a_source_that_does_not_parse_leaves_nothing_out():
    assert leave_out("def broken(:\n    pass\n", "net.py", 2) is None


MISSING = '''\
from mindspore import mint, nn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        norm = nn.utils.weight_norm
        self.proj = norm(nn.Dense(4, 4)) if hasattr(nn.utils.parametrizations, "weight_norm") else None

    def construct(self, x):
        y = nn.functional.softmax(x, axis=-1)
        return y.astype(mint.long)
'''


def test_a_missing_name_called_or_bound_gets_a_function_in_its_place():
    source, codes, what = stand_in(MISSING, "net.py", 7, "strict")
    assert codes == ["MS607"] and source.splitlines()[6] == f"        norm = {STAND_IN}"
    assert what == "a function returning its first argument"
    assert source.splitlines()[:6] + source.splitlines()[7:] == MISSING.splitlines()[:6] + MISSING.splitlines()[7:]
    source, _, _ = stand_in(MISSING, "net.py", 11, "strict")  # the whole read: nn.functional.softmax
    assert source.splitlines()[10] == f"        y = {STAND_IN}(x, axis=-1)"
    source, _, _ = stand_in(MISSING, "net.py", 8, "strict")  # hasattr on a function: False, as on a missing module
    assert f"if hasattr({STAND_IN}, " in source.splitlines()[7]


def test_a_missing_layer_built_with_no_positional_argument_gets_a_cell_in_its_place():
    built = MISSING.replace("        norm = nn.utils.weight_norm\n", "        self.resize = nn.ResizeBilinear()\n")
    source, codes, what = stand_in(built, "net.py", 7, "strict")
    assert codes == ["MS607"] and source.splitlines()[6] == f"        self.resize = {STAND_IN_CELL}()"
    assert what == "a Cell returning its first input"
    keywords = built.replace("nn.ResizeBilinear()", "nn.ResizeBilinear(align_corners=True)")
    source, _, _ = stand_in(keywords, "net.py", 7, "strict")
    assert source.splitlines()[6] == f"        self.resize = {STAND_IN_CELL}(align_corners=True)"


def test_a_missing_name_used_as_a_value_is_not_stood_in_for():
    assert stand_in(MISSING, "net.py", 12, "strict") is None  # a dtype: a function would only move the error
    assert stand_in(MISSING, "net.py", 10, "strict") is None  # no missing name on the line


TRIED = '''\
class Net:
    def construct(self, x):
        try:
            conf = [c for c in x if c > 0][0]
        except IndexError:
            raise ValueError("none")
        finally:
            done = True
        return conf
'''


def test_a_try_statement_is_left_out_as_if_nothing_were_raised():
    source, skipped = leave_out(TRIED, "net.py", 3)
    lines = source.splitlines()
    assert len(lines) == len(TRIED.splitlines())
    assert lines[2:8] == ["        pass", "        conf = [c for c in x if c > 0][0]", "", "", "",
                          "        done = True"]
    assert skipped == [(3, 3), (5, 6)]  # the header and the handler: no longer compiled
    assert leave_out(TRIED.replace("        finally:\n            done = True\n", "        else:\n"
                                   "            done = True\n"), "net.py", 3) is None  # an ``else`` runs on success


def test_a_marked_line_raises_when_compiled_and_keeps_every_line_number():
    source = ("class Net:\n"
              "    def construct(self, x):\n"
              "        if x.shape != (2,):\n"
              "            raise ValueError(\n"
              "                x.size())\n"
              "        y = x; z = y\n"
              "        return x")
    text = marked(source, "net.py", 5)
    lines = text.splitlines()
    assert lines[:7] == ["class Net:", "    def construct(self, x):", "        if x.shape != (2,):",
                         f"            {MARKER_FUNCTION}()", "", "        y = x; z = y", "        return x"]
    assert f"def {MARKER_FUNCTION}():" in lines[7:]
    # A compound statement's header, a line shared by two statements, a file that does not parse: nothing marked.
    assert marked(source, "net.py", 3) is None
    assert marked(source, "net.py", 6) is None
    assert marked("def f(:\n", "net.py", 1) is None
