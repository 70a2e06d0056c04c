"""A requirement's range as the versions a project is judged for, and ``ms-lint check --ms-upgrade-from``."""
from __future__ import annotations

import json
import textwrap

import pytest

from ms_lint import target as target_module
from ms_lint.engine import check_file
from ms_lint.rules import RULES_BY_CODE
from ms_lint.settings import Settings, SettingsError
from ms_lint.target import allowed_versions, forget_projects, target_from_settings

MODEL = textwrap.dedent("""
    from mindspore import nn, ops


    def flip(x):
        return ops.transpose(x, input_perm=(1, 0))


    def scores(x):
        return ops.softmax(x, dim=-1)


    class Tile(nn.Cell):
        def construct(self, x):
            return x.repeat(2, 1) + x.reshape(1, 2, 3).expand((2, 2, 3))
""")


@pytest.fixture
def without_mindspore(monkeypatch):
    """As where MindSpore is not installed: the project's requirement decides the versions."""
    monkeypatch.setattr(target_module, "installed_mindspore", lambda: "")
    forget_projects()
    yield
    forget_projects()


def project(root, requirement: str | None, source: str = MODEL):
    root.mkdir(parents=True, exist_ok=True)
    (root / "setup.py").write_text("from setuptools import setup\nsetup(name='app')\n")
    if requirement is not None:
        (root / "requirements.txt").write_text(f"numpy<2\n{requirement}\n")
    (root / "model.py").write_text(source)
    return root / "model.py"


@pytest.mark.parametrize("specification, versions", [
    (">=2.7.1", ("2.7.1", "2.7.2", "2.8.0", "2.9.0", "2.10.0")),
    ("==2.7.1", ("2.7.1",)),
    (">=2.2", ("2.2", "2.7.0", "2.7.1", "2.7.2", "2.8.0", "2.9.0", "2.10.0")),
    (">=2.7.1,<2.9", ("2.7.1", "2.7.2", "2.8.0")),
    ("~=2.7.0", ("2.7.0", "2.7.1", "2.7.2")),
    (">=2.7,!=2.8.0", ("2.7", "2.7.1", "2.7.2", "2.9.0", "2.10.0")),
    ("==2.5.*", ("2.5",)),
    ("<2.8", ()),
])
def test_a_requirement_allows_the_versions_its_specifiers_allow(specification, versions):
    assert allowed_versions(specification) == versions


def test_without_mindspore_a_range_is_every_version_it_allows(tmp_path, without_mindspore):
    model = project(tmp_path / "app", "mindspore>=2.7.1")
    target = target_from_settings(Settings(), str(model))
    assert target.version == "2.7.1" and target.versions == ("2.7.1", "2.7.2", "2.8.0", "2.9.0", "2.10.0")
    assert target.describe().startswith("MindSpore 2.7.1 to 2.10.0 (requirements.txt: mindspore>=2.7.1)")
    assert target.to_dict()["mindspore_versions"] == list(target.versions)
    pinned = target_from_settings(Settings(), str(project(tmp_path / "pinned", "mindspore==2.7.1")))
    assert (pinned.version, pinned.versions, pinned.judged_versions) == ("2.7.1", (), ("2.7.1",))


def test_under_a_range_a_call_is_reported_where_it_breaks_naming_those_versions(tmp_path, without_mindspore):
    model = project(tmp_path / "app", "mindspore>=2.7.0")
    findings = check_file(str(model), Settings(), RULES_BY_CODE)
    by_line = {(f.line, f.code): f for f in findings}
    moved = by_line[(6, "MS610")]
    assert moved.data["versions"] == ["2.7.1", "2.7.2", "2.8.0", "2.9.0", "2.10.0"]
    assert "in MindSpore 2.7.1, 2.7.2, 2.8.0, 2.9.0 and 2.10.0" in moved.message
    assert "it last worked in MindSpore 2.7.0" in moved.message
    assert "renames" not in moved.data  # no keyword works on every version the requirement allows
    softmax = by_line[(10, "MS610")]
    assert softmax.data["versions"][0] == "2.7.0" and softmax.data["renames"] == {"dim": "axis"}
    expand = by_line[(15, "MS603")]
    assert "MindSpore 2.7.0 to 2.10.0 takes only a Tensor of sizes" in expand.message
    # The tile form alone is not numpy's: nothing says the code was written for 2.5's meaning.
    assert (15, "MS611") not in by_line


def test_a_range_reaching_back_to_numpy_s_repeat_reports_it_as_changed(tmp_path, without_mindspore):
    model = project(tmp_path / "app", "mindspore>=2.2")
    findings = [f for f in check_file(str(model), Settings(), RULES_BY_CODE) if f.code == "MS611"]
    assert [f.line for f in findings] == [15]
    assert findings[0].data["old_versions"] == ["2.2"] and findings[0].data["versions"][-1] == "2.10.0"
    assert "runs on MindSpore 2.2, where it repeats the elements" in findings[0].message


def test_an_installed_mindspore_is_one_version_whatever_the_range(tmp_path):
    forget_projects()
    model = project(tmp_path / "app", "mindspore>=2.7.0")
    target = target_from_settings(Settings(), str(model))
    assert target.origin("version") == "installed" and target.versions == ()
    forget_projects()


def test_the_upgrade_setting_is_checked():
    with pytest.raises(SettingsError, match="ms-upgrade-from must be a MindSpore version"):
        Settings(upgrade_from="latest")
    assert Settings(upgrade_from="pinned").upgrade_from == "pinned"


# ------------------------------------------------------------------------------------------------ ms-lint check

def _check(arguments, capsys):
    from ms_lint.cli import main

    status = main(["check", "--isolated", "--no-cache", *arguments])
    captured = capsys.readouterr()
    return status, captured.out, captured.err.splitlines()


def test_upgrade_reports_what_breaks_or_changes_meaning_since_the_old_version(tmp_path, monkeypatch, capsys):
    project(tmp_path / "app", None)
    monkeypatch.chdir(tmp_path / "app")
    status, out, err = _check(["--ms-version", "2.10", "--ms-upgrade-from", "2.7.0", "."], capsys)
    # ops.softmax(x, dim=-1) fails on 2.7.0 already; the keyword ops.transpose lost in 2.7.1 is what the move breaks
    assert status == 1 and [line.split(" ")[1] for line in out.splitlines()] == ["MS610"]
    assert "ops.transpose() takes no keyword input_perm=" in out and "use dims= for input_perm=" in out
    assert "target: moving from MindSpore 2.7.0 (--ms-upgrade-from): only what breaks or changes meaning since then " \
           "is reported" in err
    assert err[-1] == "ms-lint: moving from MindSpore 2.7.0 to 2.10: 1 break (MS610 1), 0 change meaning, " \
                      "0 deprecated"


def test_upgrade_from_numpy_s_repeat_counts_the_changed_meaning(tmp_path, monkeypatch, capsys):
    project(tmp_path / "app", "mindspore==2.5.0")
    monkeypatch.chdir(tmp_path / "app")
    status, out, err = _check(["--ms-version", "2.10.0", "--ms-upgrade-from", "--format", "json", "."], capsys)
    document = json.loads(out)
    # 2.5.0's documentation gives neither signature: what 2.7.0's reject (ops.softmax(x, dim=-1) too) is not known
    # to have failed on 2.5.0, and is reported with the rest
    assert sorted(f["code"] for f in document["findings"]) == ["MS610", "MS610", "MS611"]
    assert document["target"]["upgrade_from"] == "2.5.0"
    status, out, err = _check(["--ms-version", "2.10.0", "--ms-upgrade-from", "."], capsys)
    assert err[-1] == ("ms-lint: moving from MindSpore 2.5.0 to 2.10.0: 2 break (MS610 2), 1 change meaning "
                       "(MS611 1), 0 deprecated")


def test_upgrade_without_a_pinned_version_says_how_to_give_one(tmp_path, monkeypatch, capsys):
    project(tmp_path / "app", None)
    monkeypatch.chdir(tmp_path / "app")
    status, out, err = _check(["--ms-upgrade-from", "."], capsys)
    assert status == 0 and out == ""
    assert ("target: no requirement on MindSpore names the version the project moves from: give it with "
            "--ms-upgrade-from VERSION") in err


def test_the_readme_s_worked_example_is_what_ms_lint_prints(tmp_path, monkeypatch, capsys):
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Upgrading MindSpore", 1)[1].split("\n## ", 1)[0]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    console = section.split("```console\n", 1)[1].split("```", 1)[0].splitlines()
    root = tmp_path / "vocoder"
    (root / "vocoder").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "vocoder"\ndependencies = ["mindspore==2.5.0"]\n')
    (root / "vocoder" / "model.py").write_text("from mindspore import nn, ops\n\n\n" + code)
    monkeypatch.chdir(root)
    command = console[0].removeprefix("$ ms-lint check ").split()
    status, out, err = _check(command, capsys)
    assert status == 1
    assert out.splitlines() == [line for line in console[1:] if line.startswith("./")]
    assert err == [line for line in console[1:] if not line.startswith("./")]


# ------------------------------------------------------------------------------------------- MS607 over a range

NAMES = textwrap.dedent("""
    from mindspore import mint, ops


    def loss(a, b, y):
        return mint.nn.CosineEmbeddingLoss()(a, b, y)


    def chunks(x):
        return ops.chunk_ext(x, 2)
""")


def _missing(tmp_path, requirement):
    model = project(tmp_path / "app", requirement, NAMES)
    return [(f.line, f.data.get("versions"), f.message.split(" (")[0])
            for f in check_file(str(model), Settings(), RULES_BY_CODE) if f.code == "MS607"]


def test_a_name_missing_from_any_version_of_the_range_is_reported_naming_them(tmp_path, without_mindspore):
    # measured on each release: MindSpore 2.7.x lacks mint.nn.CosineEmbeddingLoss (2.8.0 adds it); ops.chunk_ext is
    # in 2.7.0 and 2.7.1 alone
    assert _missing(tmp_path, "mindspore>=2.7.1") == [
        (6, ["2.7.1", "2.7.2"], "mint.nn.CosineEmbeddingLoss: mindspore.mint.nn has no `CosineEmbeddingLoss` in "
                                "MindSpore 2.7.1 and 2.7.2"),
        (10, ["2.7.2", "2.8.0", "2.9.0", "2.10.0"],
         "ops.chunk_ext: mindspore.ops has no `chunk_ext` in MindSpore 2.7.2, 2.8.0, 2.9.0 and 2.10.0"),
    ]


def test_a_pinned_version_is_judged_alone(tmp_path, without_mindspore):
    assert _missing(tmp_path, "mindspore==2.9.0") == [
        (10, None, "ops.chunk_ext: mindspore.ops has no `chunk_ext` in MindSpore 2.9.0")]
    forget_projects()
    assert _missing(tmp_path, "mindspore==2.7.1") == [
        (6, None, "mint.nn.CosineEmbeddingLoss: mindspore.mint.nn has no `CosineEmbeddingLoss` in MindSpore 2.7.1")]


def test_a_version_older_than_every_table_is_not_judged(tmp_path, without_mindspore):
    # 1.8.0's names are unknown: a name 2.7.0 lacks may be in it; a range from it is judged on its versions with tables
    assert _missing(tmp_path, "mindspore==1.8.0") == []
    forget_projects()
    assert [line for line, _, _ in _missing(tmp_path, "mindspore>=1.8.0")] == [6, 10]
