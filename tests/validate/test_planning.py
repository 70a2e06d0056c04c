"""From findings to jobs: module names, project roots, grouping, configuration and cache keys (no MindSpore)."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from ms_lint.findings import Finding
from ms_lint.validate.planning import plan_jobs, project_sources
from ms_lint.validate.project import (
    ProjectError,
    find_project_root,
    load_config,
    locate_module,
    parse_input_spec,
)

from .conftest import finding_at


def write(path: Path, text: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def test_a_module_inside_packages_is_imported_from_above_its_top_package(tmp_path):
    write(tmp_path / "pyproject.toml")
    write(tmp_path / "src" / "pkg" / "__init__.py")
    write(tmp_path / "src" / "pkg" / "models" / "__init__.py")
    module = write(tmp_path / "src" / "pkg" / "models" / "decoder.py")
    location = locate_module(str(module))
    assert location.module == "pkg.models.decoder"
    assert location.import_root == str(tmp_path / "src")
    assert location.project_root == str(tmp_path)


def test_a_module_of_a_namespace_package_finds_the_project_s_other_namespace_packages(tmp_path):
    # PEP 420: no __init__.py. The module is imported as its directory's (a script's), and its imports of
    # models.base and tools.steps find them from the project's root, as ms-lint's checks do.
    write(tmp_path / "setup.py")
    module = write(tmp_path / "models" / "net.py", """\
        from models.base import Base
        from tools.steps import step
        import numpy
        class Net(Base): pass
    """)
    write(tmp_path / "models" / "base.py", "class Base: pass\n")
    write(tmp_path / "tools" / "steps.py", "def step(x):\n    return x\n")
    write(tmp_path / "tools" / "unrelated.py", "X = 1\n")
    location = locate_module(str(module))
    assert (location.module, location.import_root) == ("net", str(tmp_path / "models"))
    assert location.namespace_roots == (str(tmp_path),)
    assert {Path(path).relative_to(tmp_path).as_posix() for path in project_sources(location)} == {
        "models/net.py", "models/base.py", "tools/steps.py"}
    job = plan_jobs([F(module, 4, "MS101", "Net")]).jobs[0]
    assert job.request("strict")["namespace_roots"] == [str(tmp_path)]


def test_a_package_init_is_the_package_itself(tmp_path):
    init = write(tmp_path / "pkg" / "__init__.py")
    assert locate_module(str(init)).module == "pkg"


def test_a_plain_script_is_imported_from_its_own_directory(tmp_path):
    script = write(tmp_path / "scripts" / "train.py")
    location = locate_module(str(script))
    assert (location.module, location.import_root) == ("train", str(tmp_path / "scripts"))


def test_a_file_name_that_cannot_be_imported_gets_a_safe_module_name(tmp_path):
    script = write(tmp_path / "my-train.py")
    assert locate_module(str(script)).module == "my_train"


def test_without_markers_the_import_root_is_the_project_root(tmp_path):
    directory = tmp_path / "a" / "b"
    directory.mkdir(parents=True)
    root = find_project_root(str(directory))
    # Whatever lies above tmp_path, a directory without markers below one resolves to that one or itself.
    assert root == str(directory) or Path(str(directory)).is_relative_to(root)


def F(path, line, code, scope):
    return Finding(str(path), line, 0, code, "message", scope)


def test_findings_are_grouped_per_cell_and_module_level_ones_get_no_job(tmp_path):
    module = write(tmp_path / "pkg" / "models.py", """\
        class A:
            pass
        class B:
            pass
    """)
    write(tmp_path / "pkg" / "__init__.py")
    findings = [F(module, 5, "MS101", "A"), F(module, 9, "MS102", "B"), F(module, 6, "MS102", "A"),
                F(module, 1, "MS301", ""), F(module, 2, "MS401", "A")]
    plan = plan_jobs(findings)
    assert [job.target for job in plan.jobs] == ["pkg.models:A", "pkg.models:B"]
    assert [f.line for f in plan.jobs[0].findings] == [5, 6]
    assert sorted(f.code for f in plan.module_level) == ["MS301", "MS401"]


def test_a_helper_function_is_validated_through_the_cell_that_calls_it(tmp_path):
    module = write(tmp_path / "net.py", """\
        import numpy as np
        from mindspore import jit, nn

        def soft_threshold(x):
            return np.maximum(x, 0)

        @jit
        def step(x):
            return np.sin(x)

        class Net(nn.Cell):
            def construct(self, x):
                return soft_threshold(x)
    """)
    helper = finding_at(module, "np.maximum", "MS101", "soft_threshold")
    jit = finding_at(module, "np.sin", "MS101", "step")
    assert (helper.data["compiled_by"], jit.data["compiled_by"]) == (["Net.construct"], ["step"])  # the model's
    plan = plan_jobs([helper, jit])
    assert sorted(job.target for job in plan.jobs) == ["net:Net", "net:step"]
    # a finding made elsewhere, without the roots in its data: the model says the same
    assert [job.target for job in plan_jobs([F(module, 5, "MS101", "soft_threshold")]).jobs] == ["net:Net"]
    unused = write(tmp_path / "unused.py", "import numpy as np\n\n\ndef soft(x):\n    return np.maximum(x, 0)\n")
    assert [job.target for job in plan_jobs([F(unused, 5, "MS101", "soft")]).jobs] == ["unused:soft"]


def test_container_findings_know_the_attribute_they_assign(tmp_path):
    module = write(tmp_path / "net.py", """\
        from mindspore import nn

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.layers = [
                    nn.Dense(2, 2),
                ]
                self.extra = []
                self.extra.append(nn.Dense(2, 2))
    """)
    from ms_lint.engine import check_file
    from ms_lint.settings import Settings

    findings = [f for f in check_file(str(module), Settings()) if f.code == "MS201"]
    assert [(f.line, f.data["attribute"]) for f in findings] == [(6, "layers"), (10, "extra")]
    plan = plan_jobs(findings)
    assert plan.jobs[0].container_attributes == {6: "layers", 10: "extra"}
    assert plan.jobs[0].probes == ["parameters"]
    # A finding without the attribute in its data (a local list put on self later) is reported by no attribute.
    assert plan_jobs([F(module, 6, "MS201", "Net")]).jobs[0].container_attributes == {}


def test_probes_follow_the_codes(tmp_path):
    module = write(tmp_path / "net.py", "class Net: pass\n")
    plan = plan_jobs([F(module, 1, "MS104", "Net"), F(module, 1, "MS202", "Net"), F(module, 1, "MS101", "Net")])
    assert plan.jobs[0].probes == ["parameters", "randomness"]


def test_the_examples_file_and_input_specs_come_from_the_project(tmp_path):
    write(tmp_path / "pyproject.toml", """\
        [tool.ms-lint.validate]
        examples = "tests/examples.py"
        [tool.ms-lint.validate.inputs]
        "net:Net" = ["float32[None, 16]", "int32"]
    """)
    examples = write(tmp_path / "tests" / "examples.py")
    module = write(tmp_path / "net.py", "class Net: pass\n")
    load_config.cache_clear()
    job = plan_jobs([F(module, 1, "MS101", "Net")]).jobs[0]
    assert job.examples_file == str(examples)
    assert job.input_specs == ["float32[None, 16]", "int32"]
    override = write(tmp_path / "other.py")
    assert plan_jobs([F(module, 1, "MS101", "Net")], examples_override=str(override)).jobs[0].examples_file == str(
        override)


def test_a_default_examples_file_at_the_project_root_is_found(tmp_path):
    write(tmp_path / "pyproject.toml")
    examples = write(tmp_path / "ms_lint_examples.py")
    module = write(tmp_path / "net.py", "class Net: pass\n")
    load_config.cache_clear()
    assert plan_jobs([F(module, 1, "MS101", "Net")]).jobs[0].examples_file == str(examples)


@pytest.mark.parametrize("text, message", [
    ("[tool.ms-lint.validate]\ndevise = 'CPU'\n", "unknown key"),
    ("[tool.ms-lint.validate]\ntimeout = 'long'\n", "timeout has the wrong type"),
    ("[tool.ms-lint.validate.inputs]\n'net:Net' = ['float33[2]']\n", "not a spec"),
    ("[tool.ms-lint.validate\n", "cannot read it"),
])
def test_bad_configuration_is_one_clear_error(tmp_path, text, message):
    write(tmp_path / "pyproject.toml", text)
    load_config.cache_clear()
    with pytest.raises(ProjectError, match=message):
        load_config(str(tmp_path))


@pytest.mark.parametrize("spec, parsed", [
    ("float32[None, 16]", ("float32", [-1, 16])),
    ("int32[2,3]", ("int32", [2, 3])),
    ("float16", ("float16", None)),
    ("bool[]", ("bool", [])),
    ("float32[-1]", ("float32", [-1])),
])
def test_input_specs(spec, parsed):
    assert parse_input_spec(spec) == parsed


@pytest.mark.parametrize("spec", ["float32[a]", "tensor[2]", 5, "float32[2"])
def test_bad_input_specs_are_refused(spec):
    with pytest.raises(ProjectError):
        parse_input_spec(spec)


def _project(tmp_path):
    write(tmp_path / "pyproject.toml")
    write(tmp_path / "pkg" / "__init__.py")
    write(tmp_path / "pkg" / "helpers.py", "def gelu(x):\n    return x\n")
    write(tmp_path / "pkg" / "unrelated.py", "X = 1\n")
    write(tmp_path / "pkg" / "layers" / "__init__.py", "")
    write(tmp_path / "pkg" / "layers" / "base.py", "class Base: pass\n")
    return write(tmp_path / "pkg" / "models.py", """\
        from pkg.helpers import gelu
        from .layers import base
        import numpy
        class Net: pass
    """)


def test_the_cache_key_covers_the_module_and_the_project_modules_it_imports(tmp_path):
    module = _project(tmp_path)
    sources = {Path(path).relative_to(tmp_path).as_posix() for path in
               project_sources(locate_module(str(module)))}
    assert sources == {"pkg/models.py", "pkg/__init__.py", "pkg/helpers.py", "pkg/layers/__init__.py",
                       "pkg/layers/base.py"}


def _key(module, **kwargs):
    return plan_jobs([F(module, 4, "MS101", "Net")], **kwargs).jobs[0].cache_key


def test_the_cache_key_changes_with_what_the_outcome_depends_on(tmp_path):
    module = _project(tmp_path)
    first = _key(module, mindspore_version="2.10.0")
    assert _key(module, mindspore_version="2.10.0") == first
    (tmp_path / "pkg" / "unrelated.py").write_text("X = 2\n")
    assert _key(module, mindspore_version="2.10.0") == first
    assert _key(module, mindspore_version="2.10.1") != first
    assert _key(module, mindspore_version="2.10.0", device="GPU") != first
    assert _key(module, mindspore_version="2.10.0", syntax_level="lax") != first
    (tmp_path / "pkg" / "helpers.py").write_text("def gelu(x):\n    return 2 * x\n")
    assert _key(module, mindspore_version="2.10.0") != first
