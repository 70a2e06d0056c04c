"""Signatures of the releases PyPI no longer serves (2.2 to 2.6), read from MindSpore's documentation, and what
``ms-lint check --ms-upgrade-from`` makes of them."""
from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import pytest

from ms_lint import mindspore_api as api
from ms_lint.tools import generate_tables
from ms_lint.tools.signature_tables import DOCUMENTED_PAGES, documented_signatures

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "documentation"
DATA = Path(api.__file__).resolve().parent / "data"


def _pages(branch: str) -> list[str]:
    return [path.read_text(encoding="utf-8") for path in sorted((FIXTURES / branch).glob("*.md"))]


def test_the_documented_signatures_of_a_copy_of_r2_4_10_s_pages():
    # Copies of seven pages of mindspore-ai/docs r2.4.10 and r2.5.0 (note/api_mapping/pytorch_diff)
    assert documented_signatures(_pages("r2.4.10")) == {
        "mindspore.Tensor": {
            "shape": ["?"],  # documented as a name alone (a property): unknown, never guessed
            "sum": ["axis=None, dtype=None, keepdims=False, initial=None"],
        },
        "mindspore.nn": {
            "Dense": ["in_channels, out_channels, weight_init=None, bias_init=None, has_bias=True, activation=None"],
        },
        "mindspore.ops": {
            "isclose": ["x1, x2, rtol=1e-05, atol=1e-08, equal_nan=False"],
            "softmax": ["x, axis=-1"],
            "tensor_scatter_elements": ["input_x, indices, updates, axis=0, reduction='none'"],
        },
    }
    # A Primitive's page gives its constructor, then its call: the constructor is the class's signature
    assert documented_signatures(_pages("r2.5.0")) == {"mindspore.ops": {
        "ROIAlign": ["pooled_height, pooled_width, spatial_scale, sample_num=2, roi_end_mode=1"]}}


def test_a_block_that_cannot_be_read_is_unknown_and_other_namespaces_are_left_out():
    page = textwrap.dedent("""
        ## mindspore.ops.broken

        ```python
        mindspore.ops.broken(input, [axis
        ```

        ## mindspore.ops.other_name

        ```python
        mindspore.ops.different(input)
        ```

        ## mindspore.dataset.Cifar10Dataset

        ```python
        class mindspore.dataset.Cifar10Dataset(dataset_dir)
        ```

        ## mindspore.ops.flatten

        ```python
        mindspore.ops.flatten(input, order='C', *, start_dim=1, end_dim=-1) -> Tensor
        ```

        ## Code Example

        ```python
        mindspore.ops.flatten(x)
        ```
    """)
    assert documented_signatures([page]) == {"mindspore.ops": {
        "broken": ["?"], "flatten": ["input, order='C', *, start_dim=1, end_dim=-1"], "other_name": ["?"]}}


def test_the_generator_reads_a_documentation_repository_and_the_tables_give_it_back(tmp_path, monkeypatch):
    repository = tmp_path / "docs"
    pages = repository / DOCUMENTED_PAGES / "pytorch_diff"
    pages.mkdir(parents=True)
    for path in (FIXTURES / "r2.4.10").glob("*.md"):
        (pages / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")

    def git(*args):
        subprocess.run(["git", "-C", str(repository), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                       check=True, capture_output=True)

    git("init", "-q", "-b", "r2.4.10")
    git("add", ".")
    git("commit", "-q", "-m", "pages")
    read = generate_tables.documentation_pages(repository / ".git", "r2.4.10")
    assert sorted(read) == sorted(_pages("r2.4.10"))
    newest = json.loads(generate_tables.DEFAULT_OUTPUT.read_text(encoding="utf-8"))
    signatures = documented_signatures(read)
    stored = generate_tables.documented_tables(signatures, "r2.4.10", newest)
    assert stored["source"] == "documentation" and stored["documentation"] == "mindspore-ai/docs r2.4.10"
    # Stored as a difference from the newest tables' signatures: the reader gives the documented forms back
    base = generate_tables.documented_base(newest, stored["names"])
    assert api.apply_difference(base, stored["signatures"]) == signatures


def test_new_newest_tables_keep_the_documented_signatures():
    # Regenerating the newest tables (or adding a newer release's) re-expresses the documented file against them
    newest = json.loads(generate_tables.DEFAULT_OUTPUT.read_text(encoding="utf-8"))
    text = (DATA / "mindspore_api_documented.json").read_text(encoding="utf-8")
    changed = json.loads(json.dumps(newest))
    changed["signatures"]["mindspore.ops"]["softmax"] = ["input, dim=None"]
    del changed["signatures"]["mindspore.ops"]["isclose"]
    rebased = json.loads(generate_tables.rebased_documented(text, newest, changed))
    shipped = json.loads(text)
    assert rebased != shipped
    for release, entry in rebased.items():
        assert api.apply_difference(generate_tables.documented_base(changed, entry["names"]), entry["signatures"]) \
            == api.apply_difference(generate_tables.documented_base(newest, entry["names"]),
                                    shipped[release]["signatures"])
    assert generate_tables.rebased_documented(text, newest, newest) == text


def test_the_shipped_documented_tables_load_and_are_small():
    path = DATA / "mindspore_api_documented.json"
    assert path.stat().st_size < 60_000
    shipped = json.loads(path.read_text(encoding="utf-8"))
    assert sorted(shipped, key=api._release) == ["2.2.14", "2.3.1", "2.4.10", "2.5.0", "2.6.0"]
    assert all(entry["source"] == "documentation" for entry in shipped.values())
    # read from the documentation, they never become a wheel's tables: MS607's names stay 2.7.0's for 2.5
    assert api.tables_version("2.5") == "2.7.0" and "2.5.0" not in api.shipped_versions()
    assert api.documented_release("2.5") == "2.5.0" and api.documented_release("2.2.10") == "2.2.14"
    assert api.documented_release("2.7.0") is None and api.documented_release("2.8") is None
    assert [form.text for form in api.documented_signatures("mindspore.ops.ROIAlign", "2.5.0")] == [
        "pooled_height, pooled_width, spatial_scale, sample_num=2, roi_end_mode=1"]
    assert api.documented_signatures("mindspore.ops.softmax", "2.5.0") is None  # not documented there: unknown
    assert api.documented_forms("2.4.10")["mindspore.ops"]["softmax"] == ("x, axis=-1",)


UPGRADED = textwrap.dedent("""
    from mindspore import ops


    def close(a, b):
        return ops.isclose(x1=a, x2=b)


    def align():
        return ops.ROIAlign(2, 2, 0.5, sample_num=2, mode=1)


    def scores(x):
        return ops.softmax(x, dim=-1)
""")


def _upgrade(tmp_path, monkeypatch, capsys, old: str):
    from ms_lint.cli import main

    (tmp_path / "model.py").write_text(UPGRADED)
    monkeypatch.chdir(tmp_path)
    status = main(["check", "--isolated", "--no-cache", "--ms-version", "2.10", "--ms-upgrade-from", old, "."])
    captured = capsys.readouterr()
    return status, captured.out.splitlines(), captured.err.splitlines()


@pytest.mark.parametrize("old", ["2.5", "2.4.10"])
def test_upgrading_from_a_documented_release_leaves_out_a_call_it_rejected_too(tmp_path, monkeypatch, capsys, old):
    status, out, err = _upgrade(tmp_path, monkeypatch, capsys, old)
    lines = {line.split(":")[1]: line for line in out}
    # ROIAlign's documented constructor (2.5.0's and 2.4.10's pages) is 2.7.0's: it took no mode= there either, so
    # the call broke before the move and is left out
    assert sorted(lines) == ["14", "6"]
    # 2.4.10's page gives ops.isclose(x1, x2, ...) and ops.softmax(x, axis=-1), 2.7.0's wheel (input, other, ...)
    # and (input, axis=-1, *, dtype=None): a page that disagrees with the wheels is not taken for the release (the
    # release's API reference gives input and other), so whether these worked on it cannot be told: reported
    assert "MS610 ops.isclose() takes no keyword x1=, x2= in MindSpore 2.10.0" in lines["6"]
    assert "MS610 ops.softmax() takes no keyword dim= in MindSpore 2.10.0" in lines["14"]
    release = api.documented_release(old)
    counted = {"2.5.0": 3, "2.4.10": 103}[release]
    assert (f"target: MindSpore {release}'s documentation (mindspore-ai/docs r{release}) confirms 2.7.0's "
            f"signatures of {counted} callables") in "\n".join(err)


def test_a_release_with_wheel_tables_or_none_at_all_is_judged_as_without_documentation(
        tmp_path, monkeypatch, capsys):
    # from 2.7.0 (a wheel's tables) each of the three calls failed already
    status, out, err = _upgrade(tmp_path, monkeypatch, capsys, "2.7.0")
    assert out == []
    # a release ms-lint knows neither from a wheel nor from documentation (2.1): every rejection is reported whole
    status, out, err = _upgrade(tmp_path, monkeypatch, capsys, "2.1")
    assert sorted(line.split(":")[1] for line in out) == ["10", "14", "6"]
    assert not any("documentation" in line for line in err)


def test_only_signatures_the_oldest_wheel_confirms_are_used():
    # read as documented...
    assert api.documented_forms("2.4.10")["mindspore.ops"]["isclose"] == ("x1, x2, rtol=1e-05, atol=1e-08, "
                                                                          "equal_nan=False",)
    # ...but not used: 2.7.0 has (input, other, ...)
    assert api.documented_signatures("mindspore.ops.isclose", "2.4.10") is None
    assert [form.text for form in api.documented_signatures("mindspore.ops.ROIAlign", "2.4.10")] == [
        "pooled_height, pooled_width, spatial_scale, sample_num=2, roi_end_mode=1"]
    assert api.documented_signatures("mindspore.Tensor.shape", "2.4.10") is None  # ["?"]: unknown


def test_without_the_upgrade_question_the_documentation_is_not_asked(tmp_path, monkeypatch, capsys):
    from ms_lint.cli import main

    (tmp_path / "model.py").write_text(UPGRADED)
    monkeypatch.chdir(tmp_path)
    main(["check", "--isolated", "--no-cache", "--ms-version", "2.5", "."])
    out = capsys.readouterr().out
    # no wheel's tables answer for 2.5: what its calls take is unknown, and no call is reported
    assert "MS610" not in out
    main(["check", "--isolated", "--no-cache", "--ms-version", "2.7.0", "."])
    assert "ops.ROIAlign() takes no keyword mode= in MindSpore 2.7.0" in capsys.readouterr().out
