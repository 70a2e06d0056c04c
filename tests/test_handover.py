"""Which of its application's classes an entry point hands MindSpore to compile (``handover.compiled_classes``): the
values followed through returns, tuple elements, dictionaries and decorator registries; what the classes handed
over build; None wherever the reading cannot follow the code."""
from __future__ import annotations

import textwrap

import pytest

from ms_lint.model.handover import compiled_classes
from ms_lint.target import forget_projects

MODELS = """
from mindspore import nn

_factories = {}


def register(fn):
    _factories[fn.__name__] = fn
    return fn


class Block(nn.Cell):
    def construct(self, x):
        return x


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.block = Block()

    def construct(self, x):
        return self.block(x)


class Post(nn.Cell):
    def __init__(self, backbone):
        super().__init__()
        self.backbone = backbone

    def construct(self, x):
        return self.backbone(x)


class Loss(nn.Cell):
    def construct(self, x):
        return x


@register
def net(cfg):
    network = Net()
    return network, Post(network)


def create(name, cfg=None):
    network, wrapper = _factories[name](cfg)
    return network, wrapper
"""


def _compiled(tmp_path, entry: str, models: str = MODELS):
    forget_projects()
    (tmp_path / "models.py").write_text(textwrap.dedent(models))
    (tmp_path / "entry.py").write_text(textwrap.dedent(entry))
    return compiled_classes(str(tmp_path / "entry.py"))


def test_export_of_a_returned_tuple_element_compiles_that_element_and_what_it_builds(tmp_path):
    compiled = _compiled(tmp_path, """
        import mindspore as ms
        from models import create

        network, _ = create("net")
        ms.export(network, None, file_name="net", file_format="MINDIR")
    """)
    assert compiled is not None
    assert {"Net", "Block"} <= compiled
    assert "Post" not in compiled and "Loss" not in compiled


def test_the_other_element_exported_is_compiled_with_what_it_holds(tmp_path):
    compiled = _compiled(tmp_path, """
        import mindspore as ms
        from models import create

        _, wrapper = create("net")
        ms.export(wrapper, None, file_name="net", file_format="MINDIR")
    """)
    assert {"Post", "Net", "Block"} <= compiled


def test_a_dictionary_of_helpers_is_followed(tmp_path):
    compiled = _compiled(tmp_path, """
        import mindspore as ms
        from models import create


        def default(cfg):
            network, _ = create("net", cfg)
            return network, None


        def helper(name):
            helpers = {"default": default}
            return helpers[name]


        export_helper = helper("default")
        network, inputs = export_helper(None)
        ms.export(network, inputs, file_name="net", file_format="MINDIR")
    """)
    assert compiled is not None and "Net" in compiled and "Post" not in compiled


@pytest.mark.parametrize("use", [
    "ms.Model(network, Loss())",
    "ms.nn.TrainOneStepCell(ms.nn.WithLossCell(network, Loss()), None)",
    "network(None)",
])
def test_what_is_handed_to_a_model_a_training_step_or_called_is_compiled(tmp_path, use):
    compiled = _compiled(tmp_path, f"""
        import mindspore as ms
        from models import Loss, Net, Post

        network = Net()
        _ = Post(network)
        {use}
    """)
    assert compiled is not None and "Net" in compiled and "Post" not in compiled
    assert ("Loss" in compiled) == ("Loss" in use)


def test_a_cell_the_entry_script_keeps_in_a_name_of_its_own_is_taken_to_run(tmp_path):
    compiled = _compiled(tmp_path, """
        from models import create

        network, wrapper = create("net")
    """)
    assert compiled is not None and {"Net", "Post"} <= compiled


def test_an_entry_that_builds_nothing_compiles_nothing(tmp_path):
    compiled = _compiled(tmp_path, """
        import mindspore as ms

        ms.set_context(mode=ms.GRAPH_MODE)
        print("nothing built")
    """)
    assert compiled == frozenset()


@pytest.mark.parametrize("entry", [
    # a class looked up by name
    "import models\nimport mindspore as ms\nnetwork = getattr(models, 'Net')()\nms.export(network, None)\n",
    # a value that is not known handed over (a parameter no call binds)
    "import sys\nimport mindspore as ms\n\ndef main(network):\n    ms.export(network, None)\n\nmain(*sys.argv)\n",
    # a method the application defines, on an object the reading does not know
    "import sys\nimport models\n\ndef main(runner):\n    runner.create('net')\n\nmain(*sys.argv)\n",
    # code run from a text
    "exec(open('run.py').read())\n",
])
def test_what_the_reading_cannot_follow_is_not_known(tmp_path, entry):
    assert _compiled(tmp_path, entry) is None


def test_what_an_imported_module_runs_as_it_is_imported_counts(tmp_path):
    models = MODELS + "\n\nNet()(None)\n\nif __name__ == '__main__':\n    Post(Net())(None)\n"
    compiled = _compiled(tmp_path, "import models\n", models)
    assert compiled is not None and "Net" in compiled and "Post" not in compiled


def test_a_class_kept_or_passed_on_as_a_class_may_be_built_and_run(tmp_path):
    compiled = _compiled(tmp_path, """
        from models import Post

        KINDS = {"post": Post}
        isinstance(None, Post)
    """)
    assert compiled is not None and "Post" in compiled


def test_a_class_only_tested_against_is_not_run(tmp_path):
    compiled = _compiled(tmp_path, """
        from models import Post

        print(isinstance(None, Post))
    """)
    assert compiled == frozenset()


def test_a_dictionary_of_data_read_otherwise_than_by_key_is_no_obstacle(tmp_path):
    compiled = _compiled(tmp_path, """
        import mindspore as ms
        from models import create

        FORMATS = {"png": 1, "jpg": 2}
        KNOWN = list(FORMATS.keys())
        network, _ = create("net")
        ms.export(network, None)
    """)
    assert compiled is not None and "Net" in compiled and "Post" not in compiled


def test_a_registry_used_otherwise_than_by_key_is_not_known(tmp_path):
    models = MODELS + "\n\ndef everything():\n    return list(_factories.values())\n"
    assert _compiled(tmp_path, """
        import mindspore as ms
        from models import create

        network, _ = create("net")
        ms.export(network, None)
    """, models) is None


def test_a_class_built_inside_a_compiled_class_through_a_registry_counts_every_registered_class(tmp_path):
    models = MODELS.replace("        self.block = Block()", "        self.block = _factories['net'](None)[1]")
    compiled = _compiled(tmp_path, """
        import mindspore as ms
        from models import Net

        ms.export(Net(), None)
    """, models)
    assert compiled is not None and {"Net", "Post"} <= compiled
