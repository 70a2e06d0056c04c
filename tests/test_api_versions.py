"""The API tables of each shipped MindSpore version, and the rules that answer for the target's version.

The examples are real differences between the shipped tables (each generated under its MindSpore release):
2.10.0 has ``mindspore.mint.nn.CosineEmbeddingLoss``, ``Cell.to_empty`` (refused in graph code) and ``Tensor.set_``;
2.7.1 has none of them.
"""
from __future__ import annotations

import gc
import json
from importlib import resources

import pytest

from ms_lint import mindspore_api as api
from ms_lint.engine import check_source
from ms_lint.settings import Settings
from ms_lint.tools import generate_tables

NEWEST = json.loads(resources.files("ms_lint").joinpath(api.NEWEST_FILE).read_text(encoding="utf-8"))
VERSIONS_TEXT = resources.files("ms_lint").joinpath(api.VERSIONS_FILE).read_text(encoding="utf-8")
OLD, NEW = "2.7.1", NEWEST["mindspore_version"]


def _findings(source: str, version: str, code: str, mode: str = "graph"):
    return [f for f in check_source(source, "case.py", Settings.from_values(mode=mode, version=version))
            if f.code == code]


def test_the_newest_is_whole_and_the_others_are_differences_from_it():
    shipped = api.shipped_versions()
    assert shipped[-1] == NEW and OLD in shipped
    assert shipped == tuple(sorted(shipped, key=api._release))
    differences = json.loads(VERSIONS_TEXT)
    assert set(differences) == set(shipped) - {NEW}
    # Differences are small: a few KB each, where the whole tables are 140 KB.
    assert all(len(json.dumps(change)) < 20_000 for change in differences.values())
    assert len(json.dumps(NEWEST)) > 100_000


def test_the_shipped_files_are_what_the_generator_writes():
    newest_text, versions_text = generate_tables.render_shipped(generate_tables.shipped_tables())
    assert newest_text == generate_tables.render(NEWEST)
    assert versions_text == VERSIONS_TEXT


def test_each_version_s_tables_have_the_newest_s_shape_and_its_own_version():
    for version in api.shipped_versions():
        tables = api.tables(version)
        assert tables["mindspore_version"] == version
        assert set(tables) == set(NEWEST)
        assert len(tables["nn_cells"]) > 150 and len(tables["tensor_methods"]) > 300


def test_difference_and_apply_difference_round_trip():
    old = {"version": "1", "names": ["a", "b", "c"], "words": "x y z", "table": {"k": ["p"], "gone": ["q"]},
           "flag": {"Dense": {"parameters": True}}}
    new = {"version": "2", "names": ["b", "c", "d"], "words": "x z", "table": {"k": ["p", "r"], "new": []},
           "flag": {"Dense": {"parameters": "wrapped"}}}
    change = generate_tables.difference(new, old)
    assert api.apply_difference(new, change) == old
    assert change["changed"]["names"] == {"added": ["a"], "removed": ["d"]}
    assert change["changed"]["words"] == {"added": ["y"]}
    assert change["changed"]["table"]["removed"] == ["new"] and change["changed"]["table"]["set"] == {"gone": ["q"]}
    assert change["set"] == {"version": "1"}
    assert generate_tables.difference(old, old) is None and api.apply_difference(old, None) is old


@pytest.mark.parametrize("version, used", [
    ("", NEW), (NEW, NEW), ("2.10", NEW), ("2.7.1", OLD), ("2.7.1.post1", OLD), ("2.12.0", NEW),
    ("2.5.0", api.shipped_versions()[0]),
])
def test_a_version_is_answered_by_its_tables_or_the_nearest(version, used):
    assert api.tables_version(version) == used
    assert api.mindspore_version(version) == used


def test_a_version_between_two_shipped_ones_takes_the_next_newer():
    shipped = api.shipped_versions()
    assert api.tables_version("2.7.5") == next(v for v in shipped if api._release(v) > (2, 7, 5))


def test_version_note_says_which_tables_answer_when_not_the_version_s_own():
    assert api.version_note("") is None and api.version_note(NEW) is None and api.version_note("2.7.1.post1") is None
    assert api.version_note("2.12.0") == (f"MindSpore 2.12.0 is newer than the newest ms-lint knows ({NEW}): its "
                                          f"names are checked against MindSpore {NEW}'s API tables")
    assert api.version_note("2.5.0") == (f"MindSpore 2.5.0 is older than the oldest ms-lint knows "
                                         f"({api.shipped_versions()[0]}): the names, signatures and deprecations "
                                         "it has are unknown, so MS607, MS610 and MS612 make no claim about it; "
                                         f"other names are checked against MindSpore {api.shipped_versions()[0]}'s "
                                         "API tables")


def test_the_versions_differ_where_the_examples_say():
    assert "CosineEmbeddingLoss" in api.module_names("mindspore.mint.nn", NEW)
    assert "CosineEmbeddingLoss" not in api.module_names("mindspore.mint.nn", OLD)
    assert "to_empty" in api.jit_forbidden(NEW).methods["Cell"]
    assert "to_empty" not in api.jit_forbidden(OLD).methods["Cell"]
    assert "set_" in api.tensor_methods(NEW) and "set_" not in api.tensor_methods(OLD)
    assert "flags" in api.cell_keywords("mindspore.mint.nn.SELU", NEW)
    assert "flags" not in api.cell_keywords("mindspore.mint.nn.SELU", OLD)


def test_an_old_version_s_tables_leave_the_garbage_collector_alone_too():
    loaded = api.tables(OLD)
    for _ in range(3):
        gc.collect()
    assert not any(gc.is_tracked(loaded[name]) for name in ("ops_functions", "tensor_methods"))
    assert not any(gc.is_tracked(entries) for entries in loaded["signatures"].values())
    forbidden = api.jit_forbidden(OLD)
    tables = [api.module_names("mindspore.nn", OLD), api.tensor_methods(OLD), api.tensor_properties(OLD),
              forbidden.functions, *forbidden.methods.values()]
    assert not any(gc.is_tracked(table) for table in tables)
    # Asked again, the same objects: one load per version.
    assert api.tables(OLD) is loaded and api.tensor_methods("2.7.1.post1") is api.tensor_methods(OLD)


MS607_SOURCE = """
from mindspore import mint


class Head(mint.nn.Linear):
    def build(self):
        return mint.nn.CosineEmbeddingLoss()
"""


def test_ms607_reports_a_name_the_target_version_lacks_and_names_the_version():
    old = _findings(MS607_SOURCE, OLD, "MS607")
    assert [f.line for f in old] == [7]
    assert "mindspore.mint.nn has no `CosineEmbeddingLoss` in MindSpore 2.7.1" in old[0].message
    assert old[0].data == {"written": "mint.nn.CosineEmbeddingLoss", "module": "mindspore.mint.nn",
                           "name": "CosineEmbeddingLoss", "failure": "AttributeError when the line runs",
                           "version": OLD, "target_version": OLD}
    assert _findings(MS607_SOURCE, NEW, "MS607") == []


def test_ms607_import_of_a_name_the_target_version_lacks():
    source = "from mindspore.mint.nn import CosineEmbeddingLoss\n"
    old = _findings(source, "2.7.1.post1", "MS607")
    assert len(old) == 1 and "in MindSpore 2.7.1 (ImportError" in old[0].message
    assert old[0].data["version"] == OLD and old[0].data["target_version"] == "2.7.1.post1"
    assert _findings(source, NEW, "MS607") == []


MS111_SOURCE = """
from mindspore import nn


class Net(nn.Cell):
    def construct(self, x):
        self.to_empty()
        return x
"""


def test_ms111_reads_the_target_version_s_registry():
    new = _findings(MS111_SOURCE, NEW, "MS111")
    assert [f.line for f in new] == [7]
    assert new[0].data == {"name": "to_empty", "module": "Cell", "version": NEW, "target_version": NEW,
                           "function": "Net.construct", "compiled_by": ["Net.construct"]}
    assert _findings(MS111_SOURCE, OLD, "MS111") == []


MS602_SOURCE = """
import mindspore as ms
from mindspore import nn


class Net(nn.Cell):
    def construct(self, x):
        y = ms.ops.abs(x)
        y.set_(x)
        return y
"""


def test_ms602_reports_a_method_only_for_the_versions_whose_tensor_lacks_it():
    old = _findings(MS602_SOURCE, OLD, "MS602")
    assert [f.line for f in old] == [9]
    assert old[0].data == {"name": "set_", "module": "mindspore.Tensor", "version": OLD, "target_version": OLD,
                           "property": False, "function": "Net.construct", "graph": True}
    assert _findings(MS602_SOURCE, NEW, "MS602") == []


MS604_SOURCE = """
from mindspore import mint

act = mint.nn.SELU(flags={})
"""


def test_ms604_reads_the_target_version_s_keywords():
    old = _findings(MS604_SOURCE, OLD, "MS604")
    assert len(old) == 1 and "takes no keyword flags= in MindSpore 2.7.1" in old[0].message
    assert old[0].data == {"name": "mindspore.mint.nn.SELU", "module": "mindspore.mint.nn", "keywords": ["flags"],
                           "version": OLD, "target_version": OLD}
    assert _findings(MS604_SOURCE, NEW, "MS604") == []


def test_ms606_carries_the_layer_and_version():
    source = "from mindspore import nn\n\nconv = nn.Conv2d(3, 8, 3, 1, 1)\n"
    for version in (OLD, NEW):
        found = _findings(source, version, "MS606")
        assert len(found) == 1
        assert found[0].data == {"name": "mindspore.nn.Conv2d", "module": "mindspore.nn", "index": 4,
                                 "parameter": "pad_mode", "pytorch_parameter": "padding", "effect": "raises",
                                 "page": "r2.4.10:pytorch_diff/Conv2d.md", "version": version,
                                 "target_version": version, "value": "1",
                                 "consequence": "refuses it when the layer is built",
                                 "keywords": [["pad_mode", "1"], ["padding", "1"]]}


MS113_SOURCE = """
import mindspore as ms
from mindspore import nn

ms.set_context(mode=ms.PYNATIVE_MODE)


def step(x):
    net = nn.Dense(3, 1).set_grad()
    out = net(x)
    return ms.value_and_grad(net)(x)
"""


def test_ms113_before_2_9_reports_value_and_grad_after_a_call_even_with_set_grad():
    for version in (OLD, "2.8.0"):
        found = _findings(MS113_SOURCE, version, "MS113", mode="pynative")
        assert len(found) == 1 and f"MindSpore {version} runs its forward twice even after set_grad()" in \
            found[0].message
        assert found[0].data == {"name": "net", "line": 10, "transform": "value_and_grad", "version": version,
                                 "set_grad": True}
    assert _findings(MS113_SOURCE, "2.9.0", "MS113", mode="pynative") == []
    assert _findings(MS113_SOURCE, NEW, "MS113", mode="pynative") == []
    # grad reuses the forward after set_grad() on every version.
    grad_source = MS113_SOURCE.replace("ms.value_and_grad(net)(x)", "ms.grad(net)(x)")
    assert _findings(grad_source, OLD, "MS113", mode="pynative") == []


def test_a_prose_string_changes_whole_and_a_string_of_names_by_its_names():
    old = {"deprecations": {"f": {"since": "2.4.0", "use": "ops.unique and ops.pad"}}, "words": "a b c"}
    new = {"deprecations": {"f": {"since": "2.4.0", "use": "ops.pad and ops.unique"}}, "words": "a c d"}
    change = generate_tables.difference(new, old)
    assert change["changed"]["deprecations"]["changed"]["f"] == {"set": {"use": "ops.unique and ops.pad"}}
    assert change["changed"]["words"] == {"added": ["b"], "removed": ["d"]}
    assert api.apply_difference(new, change) == old


def test_the_signatures_of_a_version_are_its_own():
    assert [form.text for form in api.signatures("mindspore.ops.transpose", "2.7.0")] == ["input, input_perm"]
    assert [form.text for form in api.signatures("mindspore.ops.transpose", "2.7.1")] == ["input, dims"]
    assert [form.text for form in api.signatures("mindspore.Tensor.expand", "2.7.0")] == ["size"]
    assert [form.text for form in api.signatures("mindspore.Tensor.expand", NEW)] == ["*size"]
    assert api.signatures("mindspore.ops.no_such_function") is None and api.signatures("numpy.sum") is None
    assert api.deprecation("mindspore.ops.padding", "2.7.1") is None
    assert api.deprecation("mindspore.ops.padding", "2.8.0") == ("2.8.0", "ops.pad")
