"""The outcome cache: dependencies hashed once per run and by stat across runs, examples keyed per target,
environment failures never stored (no MindSpore)."""
from __future__ import annotations

import os
import textwrap
from pathlib import Path

from ms_lint.findings import Finding
from ms_lint.validate.cache import OutcomeCache, caused_by_environment
from ms_lint.validate.dependencies import DependencyIndex
from ms_lint.validate.outcome import Outcome
from ms_lint.validate.planning import plan_jobs


def write(path: Path, text: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def project(tmp_path):
    write(tmp_path / "pyproject.toml")
    (tmp_path / ".ms_lint_cache").mkdir()  # as a run that compiled something leaves it
    write(tmp_path / "pkg" / "__init__.py")
    write(tmp_path / "pkg" / "helpers.py", "def gelu(x):\n    return x\n")
    write(tmp_path / "pkg" / "models.py", """\
        from pkg.helpers import gelu
        class Net: pass
        class Head: pass
    """)
    return write(tmp_path / "ms_lint_examples.py", """\
        import ms_lint

        @ms_lint.example("pkg.models:Net")
        def net():
            return 1, ()

        @ms_lint.example("pkg.models:Head")
        def head():
            return 2, ()
    """)


def keys(tmp_path, index=None):
    module = str(tmp_path / "pkg" / "models.py")
    findings = [Finding(module, 2, 0, "MS101", "m", "Net"), Finding(module, 3, 0, "MS101", "m", "Head")]
    plan = plan_jobs(findings, mindspore_version="2.10.0", index=index)
    return {job.qualname: job.cache_key for job in plan.jobs}


def test_a_rerun_with_nothing_changed_reads_no_source(tmp_path):
    project(tmp_path)
    first = DependencyIndex()
    before = keys(tmp_path, first)
    assert first.files_read == 3  # models, helpers, the package __init__: read once for both units
    first.save()
    assert (tmp_path / ".ms_lint_cache" / "validate" / "files.json").is_file()

    second = DependencyIndex()
    assert keys(tmp_path, second) == before
    assert second.files_read == 0

    # A changed file (its size or mtime) is read again, and only it.
    helpers = tmp_path / "pkg" / "helpers.py"
    helpers.write_text("def gelu(x):\n    return 2 * x\n")
    third = DependencyIndex()
    after = keys(tmp_path, third)
    assert third.files_read == 1
    assert after["Net"] != before["Net"] and after["Head"] != before["Head"]


def test_a_file_touched_without_a_change_keeps_its_keys(tmp_path):
    project(tmp_path)
    index = DependencyIndex()
    before = keys(tmp_path, index)
    index.save()
    helpers = tmp_path / "pkg" / "helpers.py"
    stat = helpers.stat()
    os.utime(helpers, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10_000_000))
    again = DependencyIndex()
    assert keys(tmp_path, again) == before
    assert again.files_read == 1  # the stat changed: read and hashed again, same content


def test_editing_one_example_reruns_only_its_unit(tmp_path):
    examples = project(tmp_path)
    before = keys(tmp_path)
    examples.write_text(examples.read_text().replace("return 2, ()", "return 3, ()"))
    after = keys(tmp_path)
    assert after["Net"] == before["Net"]
    assert after["Head"] != before["Head"]
    # Shared code (imports, helpers) of the examples file concerns every unit.
    examples.write_text("import os\n" + examples.read_text())
    assert all(keys(tmp_path)[name] != after[name] for name in after)


def test_an_examples_file_that_does_not_parse_keys_every_unit_on_its_whole_text(tmp_path):
    examples = project(tmp_path)
    before = keys(tmp_path)
    examples.write_text(examples.read_text() + "\ndef broken(:\n")
    after = keys(tmp_path)
    assert all(after[name] != before[name] for name in before)


def outcome(kind, text, stage="import"):
    return Outcome(status="error", stage=stage,
                   error={"stage": stage, "type": kind, "first_line": f"{kind}: {text}", "message": text})


def test_environment_failures_are_never_cached(tmp_path):
    cache = OutcomeCache()
    environment = [
        outcome("ModuleNotFoundError", "No module named 'os'"),  # there now: the failure says nothing lasting
        outcome("ImportError", "cannot import name 'x' from 'transformers'"),
        outcome("OSError", "model.ckpt: No such file or directory", stage="construction"),
        outcome("RuntimeError", "Unsupported device target GPU", stage="construction"),
        Outcome(status="ok", compiled=True, retries=[
            {"compiled": False, "error": outcome("ImportError", "cannot import name 'y'").error}]),
    ]
    for index, item in enumerate(environment):
        assert caused_by_environment(item)
        cache.put(str(tmp_path), f"key{index}", item, str(tmp_path))
        assert cache.get(str(tmp_path), f"key{index}", str(tmp_path)) is None
    project_error = outcome("ValueError", "the inputs should be constant", stage="compile")
    assert not caused_by_environment(project_error)
    cache.put(str(tmp_path), "project", project_error)
    assert cache.get(str(tmp_path), "project") == project_error
    # A device without a kernel is a fact of the MindSpore version and device, which the key holds.
    kernel = outcome("RuntimeError", "The kernel Arange unregistered.", stage="construction")
    cache.put(str(tmp_path), "kernel", kernel)
    assert cache.get(str(tmp_path), "kernel") == kernel


def test_a_missing_module_is_reused_only_while_it_is_still_missing(tmp_path):
    cache = OutcomeCache()
    missing = outcome("ModuleNotFoundError", "No module named 'ms_lint_surely_missing.sub'")
    cache.put(str(tmp_path), "key", missing, str(tmp_path))
    stored = cache.get(str(tmp_path), "key", str(tmp_path))
    assert stored.requires_missing == "ms_lint_surely_missing.sub"
    # The package appears but not its submodule: still missing, still reused.
    write(tmp_path / "ms_lint_surely_missing" / "__init__.py")
    assert cache.get(str(tmp_path), "key", str(tmp_path)) == stored
    # The user installs it (here: the module appears on the import root): the stale verdict is not reused.
    write(tmp_path / "ms_lint_surely_missing" / "sub.py")
    assert cache.get(str(tmp_path), "key", str(tmp_path)) is None


def test_a_result_obtained_without_a_failing_parent_package_init_is_reused_only_while_it_fails(tmp_path):
    cache = OutcomeCache()
    parent = outcome("ModuleNotFoundError", "No module named 'ms_lint_never_there'").error
    compiled = Outcome(status="ok", compiled=True, parents_error=parent)
    assert caused_by_environment(compiled)
    cache.put(str(tmp_path), "key", compiled, str(tmp_path))
    assert cache.get(str(tmp_path), "key", str(tmp_path)).requires_missing == "ms_lint_never_there"
    write(tmp_path / "ms_lint_never_there.py")  # installed: the package's __init__ may run now
    assert cache.get(str(tmp_path), "key", str(tmp_path)) is None


def test_a_module_file_that_appears_for_an_existing_import_joins_the_key(tmp_path):
    project(tmp_path)
    models = tmp_path / "pkg" / "models.py"
    models.write_text("from pkg import extra\n" + models.read_text())
    index = DependencyIndex()
    before = keys(tmp_path, index)
    index.save()
    # "from pkg import extra" named nothing on disk; now pkg/extra.py exists and runs at import.
    write(tmp_path / "pkg" / "extra.py", "X = 1\n")
    index = DependencyIndex()
    after = keys(tmp_path, index)
    index.save()
    assert after["Net"] != before["Net"]
    (tmp_path / "pkg" / "extra.py").write_text("X = 2\n")
    assert keys(tmp_path, DependencyIndex())["Net"] != after["Net"]


def test_static_findings_are_reused_until_the_file_or_its_imports_change(tmp_path, monkeypatch):
    from ms_lint import lint
    from ms_lint.validate import runner

    project(tmp_path)
    models = tmp_path / "pkg" / "models.py"
    models.write_text("import numpy as np\nfrom mindspore import nn, Tensor\nfrom pkg.helpers import gelu\n\n\n"
                      "class Net(nn.Cell):\n    def construct(self, x):\n        return Tensor(np.sin(x))\n")
    calls = []
    real = lint.lint_path
    monkeypatch.setattr(lint, "lint_path", lambda path, options: calls.append(path) or real(path, options))
    options = runner.lint_options_for("strict", cwd=str(tmp_path))

    def run():
        index = DependencyIndex()
        findings, _, _ = runner.static_findings([str(models)], options, index)
        runner._save_findings(index)
        index.save()
        return [(finding.line, finding.code, finding.scope) for finding in findings]

    first = run()
    assert first == [(8, "MS101", "Net")] and len(calls) == 1
    assert run() == first and len(calls) == 1  # from the cache
    (tmp_path / "pkg" / "helpers.py").write_text("def gelu(x):\n    return 3 * x\n")
    assert run() == first and len(calls) == 2  # an imported module changed: checked again


def test_a_missing_submodule_of_an_installed_package_is_looked_up_without_importing(tmp_path):
    from ms_lint.validate.cache import _module_exists

    write(tmp_path / "biglib" / "__init__.py", "raise RuntimeError('importing it would run this')\n")
    write(tmp_path / "biglib" / "parallel" / "__init__.py")
    assert _module_exists("biglib.parallel", str(tmp_path))
    assert not _module_exists("biglib.parallel._transformer", str(tmp_path))
    write(tmp_path / "biglib" / "parallel" / "_transformer.py")
    assert _module_exists("biglib.parallel._transformer", str(tmp_path))
