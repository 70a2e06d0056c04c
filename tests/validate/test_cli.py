"""``ms-lint validate`` end to end: the demo project, the cache, device errors, bad input, an interrupted run."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid

import pytest

from ms_lint.cli import main

from .conftest import REPOSITORY, needs_mindspore

DEMO = REPOSITORY / "sample_projects" / "validator_demo"


@pytest.fixture
def run(capsys):
    def run(*args: str):
        capsys.readouterr()
        try:
            status = main(["validate", *args])
        except SystemExit as exc:  # argparse's usage errors
            status = exc.code if isinstance(exc.code, int) else 2
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    return run


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    root = tmp_path_factory.mktemp("demo") / "validator_demo"
    shutil.copytree(DEMO, root, ignore=shutil.ignore_patterns("__pycache__", ".ms_lint_cache"))
    return root


def test_unknown_paths_and_devices_are_one_line_errors(run, tmp_path):
    status, out, err = run(str(tmp_path / "missing"))
    assert (status, out) == (2, "")
    assert err == f"ms-lint: error: no such file or directory: {tmp_path / 'missing'}\n"
    status, out, err = run(str(tmp_path), "--device", "TPU")
    assert status == 2
    assert err == "ms-lint: error: unknown device 'TPU': use one of CPU, GPU, Ascend\n"


def test_a_project_without_findings_needs_no_mindspore_run(run, tmp_path):
    (tmp_path / "clean.py").write_text("import mindspore\n\ndef f():\n    return 1\n")
    status, out, _ = run(str(tmp_path))
    assert status == 0
    assert "nothing to validate" in out
    assert not (tmp_path / ".ms_lint_cache").exists()


def test_a_file_that_does_not_parse_is_an_error(run, tmp_path):
    (tmp_path / "broken.py").write_text("import mindspore\n\n\ndef f(:\n    pass\n")
    (tmp_path / "latin.py").write_bytes(b"import mindspore\nNAME = 'caf\xe9'\n")
    (tmp_path / "clean.py").write_text("import mindspore\n\ndef f():\n    return 1\n")
    status, out, err = run(str(tmp_path), "--fail-on", "never")
    assert status == 2
    lines = err.splitlines()
    assert f"ms-lint: error: {tmp_path / 'broken.py'}:4: the file does not parse (E999 SyntaxError: invalid " \
           "syntax); nothing in it was validated" in lines
    assert any(line.startswith(f"ms-lint: error: {tmp_path / 'latin.py'}:2: the file does not parse (E902 "
                               "UnicodeDecodeError") for line in lines), err
    assert "the file does not parse: nothing in it can be compiled" in out
    status, out, err = run(str(tmp_path / "clean.py"))
    assert (status, err) == (0, "")


@pytest.mark.mindspore
@needs_mindspore
def test_the_demo_project_shows_every_verdict(run, demo, monkeypatch):
    monkeypatch.chdir(demo)
    status, out, err = run(".", "--format", "json", "--jobs", "2")
    assert status == 1, err
    document = json.loads(out)
    verdicts = {(item["path"].replace(os.sep, "/").split("validator_demo/")[-1], item["code"]): item
                for item in document["findings"]}
    assert {key: item["verdict"] for key, item in verdicts.items()} == {
        ("demo/augment.py", "MS104"): "confirmed by probe",
        ("demo/blocks.py", "MS101"): "confirmed",
        ("demo/blocks.py", "MS102"): "confirmed",
        ("demo/decoder.py", "MS101"): "inconclusive",
        ("demo/heads.py", "MS201"): verdicts[("demo/heads.py", "MS201")]["verdict"],
        ("demo/heads.py", "MS702"): "not reproduced",
        ("train.py", "MS301"): "not applicable",
    }
    heads = sorted((item["line"], item["verdict"]) for item in document["findings"] if item["code"] == "MS201")
    assert [verdict for _, verdict in heads] == ["confirmed", "confirmed by probe"]
    decoder = verdicts[("demo/decoder.py", "MS101")]
    assert '@ms_lint.example("demo.decoder:Decoder")' in decoder["example"]
    assert "cell = Decoder(vocabulary=..., dim=...)" in decoder["example"]
    assert document["summary"] == {"confirmed": 3, "confirmed by probe": 2, "not reproduced": 1,
                                   "not reached": 0, "inconclusive": 1, "not applicable": 1, "not checked": 0}
    # The jit_class method only host code calls: no root reaches it, so the static checks leave it out.
    assert not any(key[0] == "demo/tokens.py" for key in verdicts)
    assert all(not unit["cached"] for unit in document["units"])

    # Nothing changed: every unit comes from .ms_lint_cache, and the text report says so.
    status, out, err = run(".")
    assert status == 1, err
    assert "8 finding(s) in 7 file(s), 7 unit(s) (0 run, 7 from cache)" in out
    assert "demo/blocks.py:17: MS101 confirmed (CPU, strict): ValueError: " in out
    assert "    add this example to ms_lint_examples.py:" in out

    status, _, _ = run(".", "--fail-on", "never")
    assert status == 0


@pytest.mark.mindspore
@needs_mindspore
def test_a_device_this_mindspore_cannot_use_is_one_clear_line(run, demo):
    status, out, err = run(str(demo / "demo" / "blocks.py"), "--device", "ascend", "--no-cache")
    if status != 2:
        pytest.skip("this MindSpore can use Ascend here")
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith("ms-lint: error: device Ascend is not available: this MindSpore (")
    assert "supports CPU" in err


@pytest.mark.mindspore
@needs_mindspore
def test_an_interrupted_run_keeps_its_results_and_says_what_was_not_checked(projects, tmp_path):
    project = projects / "interrupt"
    results = tmp_path / "results.jsonl"
    marker = uuid.uuid4().hex
    environment = dict(os.environ, MS_LINT_TEST_RUN=marker)
    process = subprocess.Popen(
        [sys.executable, "-m", "ms_lint.cli", "validate", str(project), "--jobs", "2", "--no-cache",
         "--results", str(results), "--syntax-level", "strict"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment, cwd=str(REPOSITORY),
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and '"event": "unit"' not in _read(results):
            assert process.poll() is None, process.communicate()
            time.sleep(0.2)
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, err
    assert "a_quick.py:7: MS101 confirmed (CPU, strict)" in out
    assert "b_slow.py:15: MS101 not checked (CPU, strict): the run was interrupted before this was checked" in out
    assert "interrupted: 1 unit(s) not checked: b_slow:Net" in out
    records = [json.loads(line) for line in results.read_text().splitlines()]
    assert records[0]["units"] == ["a_quick:Net", "b_slow:Net"]
    assert [record["target"] for record in records if record["event"] == "unit"] == ["a_quick:Net"]
    assert records[-1] == {"event": "end", "interrupted": True, "not_checked": ["b_slow:Net"]}
    # The workers (and the compile still sleeping in one of them) are gone.
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _processes_with(marker):
        time.sleep(0.2)
    assert _processes_with(marker) == []


def _read(path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _processes_with(marker: str) -> list[int]:
    """Processes whose environment carries ``marker`` (Linux)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as handle:
                if marker.encode() in handle.read():
                    found.append(int(entry))
        except OSError:
            continue
    return found


@needs_mindspore
def test_each_verdict_keeps_the_target_its_finding_was_judged_for_beside_its_unit(run, tmp_path):
    (tmp_path / "net.py").write_text(
        "import numpy as np\nfrom mindspore import nn\n\n\nclass Net(nn.Cell):\n"
        "    def construct(self, x):\n        return x + np.tanh(x)\n")
    status, out, err = run(str(tmp_path), "--format", "json", "--fail-on", "never")
    [verdict] = json.loads(out)["findings"]
    assert verdict["unit"] == "net:Net"
    assert verdict["target"]["mode"] == "graph" and verdict["target"]["mindspore_version"], verdict["target"]
