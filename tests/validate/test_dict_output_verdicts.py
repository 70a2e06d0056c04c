"""``ms-lint validate`` settles MS122 by calling the Cell: its output's type in GRAPH_MODE against PyNative's."""
from __future__ import annotations

import json

import pytest

from ms_lint.cli import main

from .conftest import needs_mindspore


def _validate(project, capsys, monkeypatch, *extra: str) -> list[dict]:
    monkeypatch.chdir(project)
    capsys.readouterr()
    main(["validate", ".", "--format", "json", "--no-cache", *extra])
    return json.loads(capsys.readouterr().out)["findings"]


@pytest.mark.mindspore
@needs_mindspore
def test_a_dict_read_by_key_in_another_module_is_confirmed_by_the_output_type(projects, capsys, monkeypatch):
    findings = _validate(projects / "dict_output", capsys, monkeypatch, "--syntax-level", "strict")
    (finding,) = findings
    assert (finding["code"], finding["line"]) == ("MS122", 10)
    assert finding["path"].replace("\\", "/").endswith("dict_output/pkg/model.py")
    assert finding["verdict"] == "confirmed by probe", finding
    assert finding["explanation"] == ("the Cell returns a dict ('logits', 'features') in PyNative and a tuple in "
                                      "GRAPH_MODE under STRICT: indexing its result by key fails in the caller "
                                      "(pkg/train.py:7)")


@pytest.mark.mindspore
@needs_mindspore
def test_at_lax_nothing_is_reported(projects, capsys, monkeypatch):
    assert _validate(projects / "dict_output", capsys, monkeypatch, "--syntax-level", "lax") == []
