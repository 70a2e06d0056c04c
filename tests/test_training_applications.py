"""Findings about what training does (MS608's running statistics, MS609's training-only defaults) in an application
that never trains: asked of the model (``ModuleFacts.application_trains``: does an entry path of the application that
runs the module train, by the training calls MS401 and MS402 read), reported where one does, not where the
application only evaluates, exports or runs a demo; a library's module is reported (its users may train). Why it
holds: a norm layer's running statistics do not move outside training (``test_ground_truth_mapping``)."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from ms_lint.engine import check_file
from ms_lint.settings import Settings
from ms_lint.target import forget_projects

# A ported block: MS608 (momentum), MS609 on the instance norm (training only) and on the layer norm (inference too).
MODEL = textwrap.dedent("""\
    from mindspore import nn


    class Block(nn.Cell):
        def __init__(self, channels):
            super().__init__()
            self.bn = nn.BatchNorm2d(channels, momentum=0.1)
            self.instance = nn.InstanceNorm2d(channels)
            self.norm = nn.LayerNorm((channels,))

        def construct(self, x):
            return self.norm(self.instance(self.bn(x)))
""")
BN, INSTANCE, NORM = 7, 8, 9

EVAL = """\
    import mindspore as ms
    from model import Block

    if __name__ == "__main__":
        net = Block(4)
        ms.load_param_into_net(net, ms.load_checkpoint("block.ckpt"))
        net.set_train(False)
        print(net(ms.ops.ones((1, 4, 8, 8), ms.float32)))
"""
EXPORT = """\
    import numpy as np
    import mindspore as ms
    from model import Block

    if __name__ == "__main__":
        net = Block(4)
        ms.export(net, ms.Tensor(np.ones((1, 4, 8, 8), np.float32)), file_name="block", file_format="MINDIR")
"""
TRAIN = """\
    import mindspore as ms
    from mindspore import nn
    from model import Block

    if __name__ == "__main__":
        ms.set_seed(1)
        net = Block(4)
        optimizer = nn.Momentum(net.trainable_params(), 0.01, 0.9)
        model = ms.Model(net, nn.MSELoss(), optimizer)
        model.train(1, dataset)
"""
# a training entry that trains through a function of another module of the project
DELEGATING_TRAIN = """\
    from src.trainer import run

    if __name__ == "__main__":
        run()
"""
TRAINER = """\
    import mindspore as ms
    from mindspore import nn
    from model import Block


    def run():
        net = Block(4)
        optimizer = nn.Adam(net.trainable_params())
        ms.Model(net, nn.MSELoss(), optimizer).train(1, dataset)
"""
# a training wrapper a module defines and no entry point builds: it trains nothing
WRAPPER = """\
    from mindspore import nn, ops


    class TrainingWrapper(nn.Cell):
        def __init__(self, network, optimizer):
            super().__init__()
            self.network, self.optimizer = network, optimizer
            self.weights = optimizer.parameters
            self.grad = ops.GradOperation(get_by_list=True)

        def construct(self, x):
            return self.optimizer(self.grad(self.network, self.weights)(x))
"""


@pytest.fixture(autouse=True)
def fresh_projects():
    forget_projects()
    yield
    forget_projects()


def application(root: Path, **files: str) -> Path:
    """An application folder (its own ``requirements.txt``) with ``model.py`` and the given files (``/`` in a name
    makes folders); returns the model's path."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "requirements.txt").write_text("mindspore\n")
    (root / "model.py").write_text(MODEL)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root / "model.py"


def found(path: Path) -> list[tuple[str, int]]:
    return sorted((f.code, f.line) for f in check_file(str(path), Settings.from_values(), ["MS608", "MS609"]))


ALL = [("MS608", BN), ("MS609", INSTANCE), ("MS609", NORM)]
INFERENCE = [("MS609", NORM)]  # the layer norm's epsilon changes what evaluation computes too


def test_an_application_that_trains_gets_every_finding(tmp_path):
    assert found(application(tmp_path / "app", **{"train.py": TRAIN, "eval.py": EVAL})) == ALL


@pytest.mark.parametrize("entries", [{"eval.py": EVAL}, {"export.py": EXPORT}, {"eval.py": EVAL, "export.py": EXPORT}],
                         ids=["eval only", "export only", "eval and export"])
def test_an_application_that_never_trains_keeps_only_what_inference_computes(tmp_path, entries):
    assert found(application(tmp_path / "app", **entries)) == INFERENCE


def test_training_through_a_function_of_another_module_counts(tmp_path):
    files = {"train.py": DELEGATING_TRAIN, "src/__init__.py": "", "src/trainer.py": TRAINER, "eval.py": EVAL}
    model = application(tmp_path / "app", **files)
    assert found(model) == ALL


def test_a_training_wrapper_cell_no_entry_point_builds_trains_nothing(tmp_path):
    evaluating = EVAL.replace("from model import Block", "from model import Block\n    import wrapper")
    model = application(tmp_path / "app", **{"eval.py": evaluating, "wrapper.py": WRAPPER})
    assert found(model) == INFERENCE


def test_only_the_entry_points_that_run_the_module_count(tmp_path):
    """A demo's detector in an application whose training script trains another network: the demo never trains."""
    root = tmp_path / "app"
    training = TRAIN.replace("from model import Block", "from other import Block")
    model = application(root, **{"demo.py": EVAL, "train.py": training, "other.py": MODEL})
    assert found(model) == INFERENCE
    assert found(root / "other.py") == ALL


def test_a_library_module_is_reported_whatever_its_examples_do(tmp_path):
    """A package's module: its users may train; an eval script beside it changes nothing."""
    root = tmp_path / "lib"
    root.mkdir()
    (root / "pyproject.toml").write_text('[project]\nname = "lib"\nversion = "0.1.0"\n')
    package = root / "lib"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "model.py").write_text(MODEL)
    assert found(package / "model.py") == ALL


def test_a_source_without_a_file_is_reported(tmp_path):
    from ms_lint.engine import check_source

    assert sorted((f.code, f.line) for f in check_source(MODEL, "<stdin>", Settings.from_values(),
                                                         ["MS608", "MS609"])) == ALL


def checked_with_cache(folder: Path, cache: Path) -> list[str]:
    from ms_lint.config import resolve_options
    from ms_lint.lint import check_files
    from ms_lint.model import project

    forget_projects()  # what a new process knows
    project.INDEX._answers.clear()
    outcome = check_files([str(folder / "model.py")], resolve_options(isolated=True), cache_dir=str(cache))
    assert not outcome.errors
    return sorted(item.finding.code for item in outcome.reported if item.finding.code == "MS608")


@pytest.mark.parametrize("change", ["an entry point gains training", "a training script is added"])
def test_the_result_cache_checks_the_module_again_once_the_application_trains(tmp_path, change):
    folder = tmp_path / "app"
    application(folder, **{"eval.py": EVAL})
    cache = tmp_path / "cache"
    assert checked_with_cache(folder, cache) == []
    if change == "a training script is added":
        (folder / "train.py").write_text(textwrap.dedent(TRAIN))
    else:
        (folder / "eval.py").write_text(textwrap.dedent(TRAIN))
    assert checked_with_cache(folder, cache) == ["MS608"]


# distributed training whose entry seeds nothing itself; the module it imports the network from may
DISTRIBUTED_TRAIN = """\
    import mindspore as ms
    from mindspore import nn
    from mindspore.communication import init
    from mindspore.context import ParallelMode
    from src.parts import UNet

    init()
    ms.set_auto_parallel_context(parallel_mode=ParallelMode.DATA_PARALLEL, gradients_mean=True)
    net = UNet()
    ms.Model(net, nn.MSELoss(), nn.Adam(net.trainable_params())).train(1, dataset)
"""
PARTS = """\
    import mindspore as ms
    from mindspore import nn

    {seed}


    class UNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(2, 2)

        def construct(self, x):
            return self.fc(x)
"""


@pytest.mark.parametrize("seed, reported", [
    ("ms.set_seed(1212)", []),  # runs when train.py imports the module, before the network is built
    ("import numpy as np\nnp.random.seed(1212)", []),  # the initialisers draw from numpy: the cards start equal
    ("if __name__ == '__main__':\n    ms.set_seed(1212)", ["MS401"]),  # an import does not run the main block
    ("def seed():\n    ms.set_seed(1212)", ["MS401"]),  # a function nobody calls seeds nothing
])
def test_a_seed_the_imported_modules_draw_at_import_counts(tmp_path, seed, reported):
    root = tmp_path / "app"
    application(root, **{"train.py": DISTRIBUTED_TRAIN, "src/__init__.py": "",
                         "src/parts.py": PARTS.format(seed=textwrap.indent(seed, "    ").lstrip())})
    codes = [f.code for f in check_file(str(root / "train.py"), Settings.from_values(), ["MS401"])]
    assert codes == reported
