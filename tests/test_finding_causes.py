"""One finding per cause: findings of one code that share a cause in a file (the same misuse of one API in one
function, one module constant several calls read) are reported once, at the first, with the other places in the
data (``related``) and the message; ``--fix`` mends every place, ``# noqa`` works per place, ``--ms-each-line``
reports each line."""
from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.cli.test_sarif import assert_github_requirements, assert_sarif_structure
from ms_lint.engine import check_source
from ms_lint.findings import RELATED
from ms_lint.fixes import fix_source
from ms_lint.rules import RULES_BY_CODE
from ms_lint.settings import Settings

VERSION = "2.10.0"  # the version the messages and differences below were written for

NUMPY_NAMES = """
import mindspore
import numpy as np


def sizes(x):
    a = np.int(x)
    b = np.int(x){noqa_b}
    c = np.int(x)
    return a, b, c


def other(x):
    return np.float(x)
"""

REPEATS = """
from mindspore import nn


class Up(nn.Cell):
    def construct(self, x, n):
        y = x.repeat(n, axis=1)
        z = y + 1
        w = z.repeat(n, axis=1)
        v = w.repeat(n, axis=2)
        return v


class Down(nn.Cell):
    def construct(self, x, n):
        return x.repeat(n, axis=1)
"""

CONSTANT = """
from mindspore import nn

BN_MOMENTUM = 0.1


class Block(nn.Cell):
    def __init__(self, c):
        super().__init__()
        self.bn = nn.BatchNorm2d(c, momentum=BN_MOMENTUM)


class Bottleneck(nn.Cell):
    def __init__(self, c):
        super().__init__()
        self.bn = nn.BatchNorm2d(c, momentum=BN_MOMENTUM)


class Stem(nn.Cell):
    def __init__(self, c):
        super().__init__()
        self.bn = nn.BatchNorm2d(c, momentum=0.1)
"""

LAYERS = """
from mindspore import nn
from mindspore.ops import operations as P


class Head(nn.Cell):
    def __init__(self, config):
        super().__init__()
        self.resize = P.ResizeBilinear((4, 4))
        self.resize2 = P.ResizeBilinear((8, 8))
        self.drop = nn.Dropout(config.hidden_dropout_prob)
        self.attn_drop = nn.Dropout(config.attention_probs_dropout_prob)
        self.low = nn.Dropout(0.1)
        self.high = nn.Dropout(0.2)
"""


def settings(**values) -> Settings:
    return Settings(version=VERSION, syntax_level="strict", **values)


def check(source: str, **values):
    return check_source(textwrap.dedent(source), "case.py", settings(**values), RULES_BY_CODE)


def places(findings, code: str) -> list[tuple[int, list[int]]]:
    return [(f.line, [place["line"] for place in f.data.get(RELATED, ())]) for f in findings if f.code == code]


def test_the_same_misuse_in_one_function_is_one_finding_naming_the_other_lines():
    found = check(NUMPY_NAMES.format(noqa_b=""))
    assert places(found, "MS613") == [(7, [8, 9]), (14, [])]  # np.float: another removed name, its own cause
    first = next(f for f in found if f.code == "MS613")
    assert first.message.endswith(" (also at lines 8, 9)")
    assert first.data[RELATED] == [{"line": 8, "col": 8}, {"line": 9, "col": 8}]


def test_a_changed_api_used_the_old_way_anywhere_in_the_file_is_one_finding():
    found = check(REPEATS)
    # numpy's repeat(n, axis=...) anywhere in the file: one cause, one mechanical edit through the file
    assert places(found, "MS611") == [(7, [9, 10, 16])]


def test_a_module_constant_several_calls_read_is_one_cause_and_a_literal_its_own():
    found = check(CONSTANT)
    assert places(found, "MS608") == [(10, [16]), (22, [])]
    assert "(also at line 16)" in next(f for f in found if f.code == "MS608").message


def test_a_layer_missing_twice_in_one_function_is_one_finding_and_different_facts_stay_apart():
    found = check(LAYERS)
    assert places(found, "MS607") == [(9, [10])]
    # two configuration attributes, two rates: each its own cause
    assert [line for line, _ in places(found, "MS606")] == [11, 12, 13, 14]


def test_each_line_reports_every_place():
    found = check(NUMPY_NAMES.format(noqa_b=""), each_line=True)
    assert places(found, "MS613") == [(7, []), (8, []), (9, []), (14, [])]
    assert places(check(CONSTANT, each_line=True), "MS608") == [(10, []), (16, []), (22, [])]


def test_fix_mends_every_place_of_a_cause():
    source = textwrap.dedent(NUMPY_NAMES.format(noqa_b=""))
    result = fix_source(source, "case.py", settings(), RULES_BY_CODE)
    assert "np.int(" not in result.fixed
    assert result.fixed.count("int(x)") == 3 and "return float(x)" in result.fixed
    assert [f.code for f in result.remaining if f.code == "MS613"] == []


def cli(*arguments: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ms_lint.cli", "check", "--no-cache", "--ms-version", VERSION,
                           *arguments], cwd=cwd, capture_output=True, text=True, timeout=120)


def flake8(*arguments: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select=MS", f"--ms-version={VERSION}",
                           *arguments], cwd=cwd, capture_output=True, text=True, timeout=120)


def reported(output: str) -> list[str]:
    return [line.split(": ", 1)[0].split(":", 1)[1] + " " + line.split(": ", 1)[1].split(" ", 1)[0]
            + (" +" + line.rsplit("(also at ", 1)[1].rstrip(")") if "(also at " in line else "")
            for line in output.splitlines() if ": MS" in line]


@pytest.mark.parametrize("noqa_b, noqa_first, expected", [
    # a noqa on a related line takes only that line from the cause
    ("  # noqa: MS613", "", ["7:9 MS613 +line 9", "14:12 MS613"]),
    # a noqa on the kept line silences the cause
    ("", "  # noqa: MS613", ["14:12 MS613"]),
])
def test_noqa_on_the_kept_line_silences_the_cause_and_on_a_related_line_only_that_place(
        tmp_path, noqa_b, noqa_first, expected):
    source = NUMPY_NAMES.format(noqa_b=noqa_b).replace("a = np.int(x)\n", f"a = np.int(x){noqa_first}\n")
    (tmp_path / "case.py").write_text(textwrap.dedent(source))
    assert reported(cli("case.py", cwd=tmp_path).stdout) == expected
    assert reported(flake8("case.py", cwd=tmp_path).stdout) == expected


def test_noqa_on_a_related_line_keeps_fix_off_that_line(tmp_path):
    (tmp_path / "case.py").write_text(textwrap.dedent(NUMPY_NAMES.format(noqa_b="  # noqa: MS613")))
    cli("--fix", "case.py", cwd=tmp_path)
    fixed = (tmp_path / "case.py").read_text()
    assert fixed.count("np.int(x)") == 1 and "b = np.int(x)  # noqa: MS613" in fixed


def test_the_off_switch_from_the_command_line_flake8_and_configuration(tmp_path):
    (tmp_path / "case.py").write_text(textwrap.dedent(NUMPY_NAMES.format(noqa_b="")))
    assert reported(cli("case.py", cwd=tmp_path).stdout) == ["7:9 MS613 +lines 8, 9", "14:12 MS613"]
    each = ["7:9 MS613", "8:9 MS613", "9:9 MS613", "14:12 MS613"]
    assert reported(cli("--ms-each-line", "case.py", cwd=tmp_path).stdout) == each
    assert reported(flake8("--ms-each-line", "case.py", cwd=tmp_path).stdout) == each
    (tmp_path / "setup.cfg").write_text("[flake8]\nms-each-line = true\n")
    assert reported(cli("case.py", cwd=tmp_path).stdout) == each


def test_json_and_sarif_carry_the_related_places(tmp_path):
    (tmp_path / "case.py").write_text(textwrap.dedent(NUMPY_NAMES.format(noqa_b="")))
    document = json.loads(cli("--format", "json", "case.py", cwd=tmp_path).stdout)
    first = document["findings"][0] if isinstance(document, dict) else document[0]
    assert first["data"][RELATED] == [{"line": 8, "col": 8}, {"line": 9, "col": 8}]
    sarif = json.loads(cli("--format", "sarif", "case.py", cwd=tmp_path).stdout)
    assert_sarif_structure(sarif)
    assert_github_requirements(sarif)
    results = sarif["runs"][0]["results"]
    related = results[0]["relatedLocations"]
    assert [place["physicalLocation"]["region"]["startLine"] for place in related] == [8, 9]
    assert related[0]["physicalLocation"]["artifactLocation"] == results[0]["locations"][0]["physicalLocation"][
        "artifactLocation"]
    assert "relatedLocations" not in results[1]


def test_the_validator_plans_a_cause_on_its_first_line_and_keeps_the_others_in_its_data(tmp_path):
    from ms_lint.engine import check_file
    from ms_lint.validate.planning import plan_jobs

    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    model = tmp_path / "pkg" / "model.py"
    model.write_text(textwrap.dedent(REPEATS))
    found = [f for f in check_file(str(model), settings(), ["MS611"]) if f.code == "MS611"]
    plan = plan_jobs(found, mindspore_version=VERSION)
    job = next(job for job in plan.jobs if job.qualname == "Up")
    assert [(f.line, f.data.get(RELATED)) for f in job.findings] == [
        (7, [{"line": 9, "col": 12}, {"line": 10, "col": 12}, {"line": 16, "col": 15}])]


def test_boolean_masks_are_one_cause_per_mask_in_a_function():
    found = check("""
        from mindspore import nn, ops


        class Head(nn.Cell):
            def construct(self, x, y):
                m = x > 1
                a = x[m]
                b = y[m]
                c = x[x > 0]
                d = x.masked_select(m)
                e = y.masked_select(m)
                f = ops.masked_select(x, m)
                g = ops.masked_select(y, m)
                h = ops.masked_select(y, x > 0)
                return a, b, c, d, e, f, g, h
    """, device="ascend")
    # one mask read by several selections (indexing, a method, a function): one cause; another mask (x > 0) its own
    assert places(found, "MS110") == [(8, [9]), (10, []), (11, [12, 13, 14]), (15, [])]


HABITS = """
from mindspore import nn, ops


class Block(nn.Cell):
    def __init__(self, c):
        super().__init__()
        self.a = nn.Dense(c, c, bias=False)
        self.b = nn.Dense(c, 2 * c, bias=False)
        self.d1 = nn.Dropout(0.1)
        self.d2 = nn.Dropout(0.1)
        self.d3 = nn.Dropout(0.3)
        self.bn1 = nn.BatchNorm2d(c, momentum=0.1)
        self.bn2 = nn.BatchNorm1d(c, momentum=0.1)

    def construct(self, x):
        y = ops.relu(x).transpose(1, 2)
        z = y.transpose(1, 2)
        n = x.size(0) + z.size(1)
        return z.transpose(0, 2).detach() * n
"""


@pytest.mark.parametrize("code, expected", [
    ("MS604", [(8, [9])]),  # the same class and keyword; the other arguments as they may be
    ("MS606", [(10, [11]), (12, [])]),  # another rate is another cause
    ("MS608", [(13, [14])]),  # the same parameter and value, whichever norm layer takes it
    ("MS601", [(17, [18]), (20, [])]),  # the same two axes; other axes another cause
    ("MS602", [(19, [19]), (20, [])]),  # .size() for any dimension; another method another cause
])
def test_the_rules_that_named_their_repeats_themselves_take_the_shared_pass(code, expected):
    found = check(HABITS)
    assert places(found, code) == expected
    for finding in (f for f in found if f.code == code):
        assert "(the same" not in finding.message and "same_on" not in finding.data
        assert finding.message.endswith(")") == bool(finding.data.get(RELATED)), finding.message
    each = places(check(HABITS, each_line=True), code)
    assert sorted(line for line, _ in each) == sorted(
        line for first, others in expected for line in (first, *others)) and not any(others for _, others in each)


def test_fixing_the_rules_that_named_their_repeats_themselves_mends_every_place():
    result = fix_source(textwrap.dedent(HABITS), "case.py", settings(), RULES_BY_CODE)
    fixed = result.fixed
    assert fixed.count("has_bias=False") == 2 and fixed.count("nn.Dropout(p=") == 3, fixed
    assert fixed.count("momentum=0.9") == 2 and ".transpose(" not in fixed and ".size(" not in fixed, fixed
    assert "n = x.shape[0] + z.shape[1]" in fixed, fixed
    assert not [f for f in result.remaining if f.code in ("MS601", "MS602", "MS604", "MS606", "MS608")]


def test_the_findings_held_back_for_another_target_are_counted_per_cause():
    from ms_lint.engine import check_tree

    def held_back(**values):
        source = textwrap.dedent(HABITS)
        silenced = []
        shown = check_tree(ast.parse(source), source, "case.py", settings(device="ascend", **values),
                           RULES_BY_CODE, silenced=silenced)
        assert not [f for f in shown if f.code == "MS601"]  # MindSpore documents the two-axis form for Ascend
        return places(silenced, "MS601")

    assert held_back() == [(17, [18]), (20, [])]
    assert held_back(each_line=True) == [(17, []), (18, []), (20, [])]


def test_the_hidden_count_on_standard_error_is_one_per_cause(tmp_path):
    (tmp_path / "case.py").write_text(textwrap.dedent(HABITS))
    stderr = cli("--ms-device", "ascend", "--select", "MS601", "case.py", cwd=tmp_path).stderr
    assert "target: 2 finding(s) hold only on another device; --ms-device=any shows them" in stderr, stderr
    stderr = cli("--ms-device", "ascend", "--select", "MS601", "--ms-each-line", "case.py", cwd=tmp_path).stderr
    assert "target: 3 finding(s) hold only on another device" in stderr, stderr


@pytest.mark.parametrize("noqa_b, marked", [
    ("", {7: "MS613", 8: "MS613", 9: "MS613", 14: "MS613"}),
    ("  # noqa: MS613", {7: "MS613", 8: "MS613", 9: "MS613", 14: "MS613"}),  # a mark there is kept as it is
])
def test_add_noqa_marks_every_place_of_a_cause_so_that_fixing_the_first_brings_back_none(noqa_b, marked):
    from ms_lint.add_noqa import add_noqa
    from ms_lint.noqa import without_noqa

    source = textwrap.dedent(NUMPY_NAMES.format(noqa_b=noqa_b))
    result = add_noqa(source, without_noqa(check(source), source.splitlines(keepends=True)))
    lines = result.source.splitlines()
    assert {number: line.split("# noqa: ")[1] for number, line in enumerate(lines, 1) if "# noqa" in line} == marked
    assert result.lines_marked == (4 if not noqa_b else 3) and not result.unmarked
    # the first place fixed by hand: the others stay silenced, the cause does not come back from line 8
    edited = result.source.replace("a = np.int(x)  # noqa: MS613", "a = int(x)")
    assert without_noqa(check(edited), edited.splitlines(keepends=True)) == []
    assert add_noqa(result.source, without_noqa(check(result.source), lines)).lines_marked == 0


def test_add_noqa_marks_only_its_own_line_for_a_finding_standing_for_nothing_else():
    from ms_lint.add_noqa import add_noqa

    source = textwrap.dedent(NUMPY_NAMES.format(noqa_b=""))
    result = add_noqa(source, check(source, each_line=True)[3:])
    assert [number for number, line in enumerate(result.source.splitlines(), 1) if "# noqa" in line] == [14]


MIXED_FORMS = """
from mindspore import Parameter, Tensor, nn, ops


class Norm(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor([1.0]))

    def construct(self, x):
        a = max(x.sum(), 1e-6)
        b = max(x.mean(), 1e-6)
        c = max((x.sum(), 1.0))
        self.w.set_data(a)
        self.w.set_data(b)
        self.w.set_data(c, True)
        return x / (a + b + c)
"""


@pytest.mark.parametrize("code, expected", [
    ("MS114", [(11, [12]), (13, [])]),  # max(a, b), which ops.maximum replaces; max((a, b)), left to the author
    ("MS107", [(14, [15]), (16, [])]),  # set_data(v), which ops.assign replaces; set_data(v, slice_shape)
])
def test_two_forms_of_one_misuse_that_need_different_edits_are_two_causes(code, expected):
    assert places(check(MIXED_FORMS), code) == expected
    result = fix_source(textwrap.dedent(MIXED_FORMS), "case.py", settings(), RULES_BY_CODE)
    assert places(result.remaining, code) == [expected[1]]  # the fixable form fixed at every place, the other left


def test_an_api_change_is_one_cause_per_file_and_a_graph_hazard_one_per_function():
    """Rules about an API a MindSpore or numpy version changed (MS607, MS610-MS613: ``Rule.cause_in_file``) name
    the API's use anywhere in the file as one cause, one edit through the file; a graph-code hazard stays one per
    function, where each Cell's code is edited on its own."""
    found = check(NUMPY_NAMES.format(noqa_b="").replace("np.float(x)", "np.int(x)"))
    assert places(found, "MS613") == [(7, [8, 9, 14])]
    found = check("""
        from mindspore import nn


        class A(nn.Cell):
            def construct(self, x):
                return x.view(x.size(0), -1)


        class B(nn.Cell):
            def construct(self, x):
                return x.view(x.size(0), -1)
    """)
    assert [line for line, _ in places(found, "MS602")] == [7, 12]
