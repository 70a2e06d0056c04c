"""``ms-lint validate`` gives the graph-code rules for tensor habits a compile verdict, and says why the host-side
rules (a dict output indexed by key, state written after the first call) have nothing to compile."""
from __future__ import annotations

import json
import os

import pytest

from ms_lint.cli import main

from .conftest import needs_mindspore


@pytest.mark.mindspore
@needs_mindspore
def test_each_new_code_gets_its_verdict(projects, capsys, monkeypatch):
    project = projects / "tensor_habits"
    monkeypatch.chdir(project)
    capsys.readouterr()
    status = main(["validate", ".", "--format", "json", "--no-cache"])
    document = json.loads(capsys.readouterr().out)
    assert status == 1
    verdicts = {item["code"]: (item["verdict"], item["explanation"]) for item in document["findings"]}
    assert sorted(verdicts) == ["MS114", "MS115", "MS117", "MS118", "MS601", "MS602"]
    for code in ("MS114", "MS115", "MS601", "MS602"):
        assert verdicts[code][0] == "confirmed", (code, verdicts[code])
    assert "should be constant" in verdicts["MS114"][1]
    assert "number of axes" in verdicts["MS601"][1]
    assert "detach" in verdicts["MS602"][1]
    assert verdicts["MS117"][0] == "not applicable"
    assert "indexes a Cell's result by key" in verdicts["MS117"][1]
    assert verdicts["MS118"][0] == "not applicable"
    assert "host-side write" in verdicts["MS118"][1]
    assert all(os.path.basename(item["path"]) == "nets.py" for item in document["findings"])
