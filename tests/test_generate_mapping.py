"""The generator of the PyTorch mapping table, pinned on a small copy of MindSpore's mapping documentation
(``tests/fixtures/pytorch_mapping``), and the shipped table's shape."""
from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest

from ms_lint import pytorch_mapping as mapping
from ms_lint.tools import generate_mapping as generator

PAGES = Path(__file__).parent / "fixtures" / "pytorch_mapping"
SHIPPED_TEXT = resources.files("ms_lint").joinpath("data/pytorch_mapping.json").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def table() -> dict:
    return generator.compact(generator.build([generator.Source("pages", PAGES)]))


def test_the_mapping_rows_are_read_with_their_pages():
    rows = {row.mindspore: row for row in generator.mapping_rows((PAGES / "pytorch_api_mapping.md").read_text())}
    assert set(rows) == {"mindspore.nn.BatchNorm2d", "mindspore.nn.Dropout", "mindspore.nn.Dropout2d",
                         "mindspore.nn.ELU"}
    assert rows["mindspore.nn.Dropout"].pytorch == "torch.nn.Dropout"
    assert rows["mindspore.nn.Dropout"].page == "Dropout" and rows["mindspore.nn.Dropout"].section == "torch.nn"
    assert rows["mindspore.nn.ELU"].page is None and rows["mindspore.nn.ELU"].description == "Consistent"


def test_both_signatures_of_a_page_are_parsed():
    text = (PAGES / "pytorch_diff" / "BatchNorm2d.md").read_text()
    torch, = generator.signatures(text, "torch.nn.BatchNorm2d")
    mindspore, = generator.signatures(text, "mindspore.nn.BatchNorm2d")
    assert torch.positional == ["num_features", "eps", "momentum", "affine", "track_running_stats"]
    assert torch.defaults["momentum"] == "0.1" and mindspore.defaults["momentum"] == "0.9"
    assert mindspore.positional[4:6] == ["gamma_init", "beta_init"]


def test_dropouts_first_positional_argument_is_keep_prob(table):
    entry = table["apis"]["mindspore.nn.Dropout"]
    assert entry["page"] == "pages:pytorch_diff/Dropout.md" and entry["domain"] == "layers"
    position, = [item for item in entry["differences"] if item["kind"] == "position" and item["index"] == 0]
    assert (position["pytorch"], position["mindspore"], position["mindspore_for_pytorch"]) == ("p", "keep_prob", "p")
    assert position["effect"] == "silent" and position["equivalent"] == "1 - x"  # the measured note
    # Dropout's ``p=None`` is no other default (None: keep_prob decides), so no default difference is made of it
    assert not [item for item in entry["differences"] if item["kind"] == "default"]
    # what the page's table says besides: MindSpore deprecates keep_prob and dtype, and has no inplace
    assert {(item["kind"], item["pytorch"] or item["mindspore"]) for item in entry["differences"]
            if item["kind"] in ("discarded", "missing")} == {
        ("discarded", "keep_prob"), ("discarded", "dtype"), ("missing", "inplace")}


def test_batchnorm_momentum_differs_in_meaning_not_in_default(table):
    entry = table["apis"]["mindspore.nn.BatchNorm2d"]
    kinds = {(item["kind"], item["pytorch"]) for item in entry["differences"]}
    assert ("meaning", "momentum") in kinds
    assert ("default", "momentum") not in kinds  # 0.9 is PyTorch's 0.1 in MindSpore's sense
    assert ("position", "track_running_stats") in kinds  # the fifth positional argument is gamma_init
    assert entry["names"] == {"track_running_stats": "use_batch_statistics"}
    assert ("name", "track_running_stats") in kinds


def test_an_api_without_a_page_is_left_out_and_the_supplements_are_added(table):
    assert "mindspore.nn.ELU" not in table["apis"]
    assert table["apis"]["mindspore.nn.Embedding"]["page"] == "tests/test_ground_truth_mapping.py"


def test_a_measured_difference_the_documentation_no_longer_shows_stops_the_generator(tmp_path):
    (tmp_path / "pytorch_diff").mkdir()
    (tmp_path / "pytorch_api_mapping.md").write_text((PAGES / "pytorch_api_mapping.md").read_text())
    page = (PAGES / "pytorch_diff" / "BatchNorm2d.md").read_text()
    (tmp_path / "pytorch_diff" / "BatchNorm2d.md").write_text(page.replace(
        "the conversion relationship with PyTorch's momentum is 1-momentum", "with the same meaning"))
    (tmp_path / "pytorch_diff" / "Dropout.md").write_text((PAGES / "pytorch_diff" / "Dropout.md").read_text())
    with pytest.raises(generator.MappingError, match="BatchNorm2d.*momentum"):
        generator.build([generator.Source("pages", tmp_path)])


def test_missing_mapping_page_is_an_error(tmp_path):
    with pytest.raises(generator.MappingError, match="pytorch_api_mapping.md"):
        generator.build([generator.Source("pages", tmp_path)])
    assert generator.main(["--pages", str(tmp_path), "--output", str(tmp_path / "out.json")]) == 2


def test_the_command_writes_and_checks(tmp_path):
    output = tmp_path / "table.json"
    assert generator.main(["--pages", str(PAGES), "--output", str(output)]) == 0
    assert generator.main(["--pages", str(PAGES), "--output", str(output), "--check"]) == 0
    output.write_text(output.read_text().replace("keep_prob", "keep"))
    assert generator.main(["--pages", str(PAGES), "--output", str(output), "--check"]) == 1


def test_the_shipped_table_is_in_canonical_form_and_holds_every_measured_note():
    shipped = json.loads(SHIPPED_TEXT)
    assert generator.render(shipped) == SHIPPED_TEXT
    assert set(shipped["sources"]) == set(generator.SOURCES)
    for name, notes in generator.MEASURED.items():
        for note in notes:
            found = [item for item in shipped["apis"][name]["differences"]
                     if item["kind"] == note.kind and item["pytorch"] == note.parameter]
            assert found and all(item["effect"] == note.effect for item in found), (name, note)


def test_the_loader_answers_from_the_shipped_table():
    dropout, = mapping.differences("mindspore.nn.layer.basic.Dropout", "position")
    assert (dropout.api, dropout.index, dropout.mindspore) == ("mindspore.nn.Dropout", 0, "keep_prob")
    assert dropout.pytorch_value_type() is float and dropout.mindspore_value_type() is float
    assert mapping.differences("mindspore.mint.nn.Dropout", "position") == ()
    assert mapping.differences("torch.nn.Dropout", "position") == ()
    assert "Dropout" in mapping.class_names("position") and "BatchNorm2d" in mapping.class_names("meaning")
    # a device-only difference stays in the table and is not reported
    assert mapping.differences("mindspore.nn.SyncBatchNorm", "meaning") == ()
    assert any(item["kind"] == "meaning" for item in mapping.entries()["mindspore.nn.SyncBatchNorm"]["differences"])
