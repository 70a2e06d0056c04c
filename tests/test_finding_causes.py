"""One finding per cause: findings of one code that share a cause in a file (the same misuse of one API in one
function, one module constant several calls read) are reported once, at the first, with the other places in the
data (``related``) and the message; ``--fix`` mends every place, ``# noqa`` works per place, ``--ms-each-line``
reports each line."""
from __future__ import annotations

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
    return np.int(x)
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
    assert places(found, "MS613") == [(7, [8, 9]), (14, [])]  # the other function's is its own
    first = next(f for f in found if f.code == "MS613")
    assert first.message.endswith(" (also at lines 8, 9)")
    assert first.data[RELATED] == [{"line": 8, "col": 8}, {"line": 9, "col": 8}]


def test_one_api_misused_the_same_way_twice_in_construct_is_one_finding_and_another_misuse_its_own():
    found = check(REPEATS)
    # axis=1 twice in Up.construct: one cause; axis=2 is another fact; Down.construct is edited apart
    assert places(found, "MS611") == [(7, [9]), (10, []), (16, [])]


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
    assert result.fixed.count("int(x)") == 4
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
    assert [(f.line, f.data.get(RELATED)) for f in job.findings] == [(7, [{"line": 9, "col": 12}]), (10, None)]


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
