"""MS402: a training script that never seeds MindSpore."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.model import CallSite, ModuleFacts
from ms_lint.model.graph import GRAD_NAMES
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.rules.base import Rule
from ms_lint.rules.ms401_distributed_without_seed import communication_init_calls


def is_script(module: ModuleFacts) -> bool:
    """The module runs as a program: it has an ``if __name__ == "__main__":`` block, or trains at top level. Building
    a gradient function at top level (``grad_op = GradOperation()``) defines a tool for others; it trains nothing."""
    for statement in module.tree.body:
        if isinstance(statement, ast.If) and _is_main_guard(statement.test):
            return True
    return any(site.function is None and site.owner is None and not api.is_mindspore_name(site.qualname, *GRAD_NAMES)
               for site in module.training_calls())


def _is_main_guard(test: ast.AST) -> bool:
    if not isinstance(test, ast.Compare) or len(test.comparators) != 1:
        return False
    sides = [test.left, test.comparators[0]]
    return any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides) and any(
        isinstance(s, ast.Constant) and s.value == "__main__" for s in sides)


@dataclass(frozen=True, kw_only=True)
class UnseededTraining(FindingData):
    """A script that trains without mindspore.set_seed: the training call (``Model.train``; ``train`` when not
    known), and whether numpy is seeded before it (the initial weights then repeat)."""

    training: str
    numpy_seeded: bool
    random_seed: str | None = fact(optional=True, for_users=True)

    def message(self) -> str:
        name = api.last_name(self.training)
        if self.random_seed is not None:
            return (f"training ({name}) in a script whose seed is drawn at random ({self.random_seed}): every run "
                    "starts from different weights and random draws, so runs are not reproducible; call "
                    "mindspore.set_seed(n) with a fixed n before building the network")
        if self.numpy_seeded:
            return (f"training ({name}) in a script that seeds numpy but never calls mindspore.set_seed: the "
                    "initial weights repeat (MindSpore's initialisers draw from numpy), but MindSpore's random "
                    "operators (dropout, ops.rand) draw differently in every run, so runs are not reproducible; "
                    "call mindspore.set_seed(n) before building the network")
        return (f"training ({name}) in a script that never calls mindspore.set_seed: every run starts from "
                "different weights and random draws, so runs are not reproducible; call mindspore.set_seed(n) "
                "before building the network")


class TrainingWithoutSeed(Rule):
    code = "MS402"
    name = "training-without-seed"
    summary = "a training script that never calls `mindspore.set_seed`"
    fix_summary = "call `mindspore.set_seed(n)` before building the network"
    enabled_by_default = False
    what = """
        Reports the first training call (an optimizer, a `Model` with an optimizer other than `None`, a
        `TrainOneStepCell`, `.train(...)` as `Model.train` takes it, `grad` and `value_and_grad` with weights: the
        signals MS401 uses; an optimizer or `Model` of a script that evaluates or predicts, `model.eval(dataset)`,
        `model.predict(x)`, and runs none of the others is no training (unless it hands the optimizer to
        anything but a `Model`),
        nor is the gradient of an input, an attack's perturbation) that a script's
        own top-level code runs,
        directly or through the module's functions it calls (or hands to a launcher: `fire.Fire(main)`), when the
        module never calls `mindspore.set_seed`. A script is a module with an `if __name__ == "__main__":` block or
        that trains at top level; library modules that only define training helpers are left to the script that
        calls them, and a training function the script never runs is not reported. A project helper that calls
        `mindspore.set_seed` counts as seeding (followed across the project's modules), and so does a third-party
        helper named like `seed_everything`, and so does a `set_seed` at the top level of a project module the
        script imports (it runs at the import); `mindspore.dataset.config.set_seed` and `mindspore.manual_seed` do
        not. With `numpy.random.seed` alone (or `mindspore.dataset.config.set_seed`, which calls it) the finding
        says what is left: the initial weights repeat, MindSpore's
        random operators do not. A seed drawn at random (`seed = random.randint(1, 10000)`, `int(time.time())`,
        then `set_seed(seed)`) seeds nothing that repeats: the finding says so. Training on a path that calls
        `communication.init` in a parallel mode is left to MS401 (stand-alone processes are plain training runs).
        Off by default: a one-off experiment may not care.
    """
    why = """
        Without a seed every run initialises different weights and draws different random numbers (dropout,
        `ops.rand`, random augmentation): two runs of the same script give different models, and a regression
        cannot be told from noise. `mindspore.set_seed(n)` seeds MindSpore's parameter initialisation, its random
        operators and numpy at once; `manual_seed` alone does not seed parameter initialisation. `numpy.random.seed(n)`
        alone makes the initial weights repeat (MindSpore's initialisers draw from numpy) but not `ops.rand` or
        dropout (measured 2.10 and 2.7.1 CPU, tests/test_ground_truth_values.py).
    """
    example = """
        import mindspore
        from mindspore import nn

        def main():
            net = Net()
            optimizer = nn.Adam(net.trainable_params())

        if __name__ == "__main__":
            main()
    """
    use_instead = """
        import mindspore
        from mindspore import nn

        def main():
            mindspore.set_seed(1)
            net = Net()
            optimizer = nn.Adam(net.trainable_params())

        if __name__ == "__main__":
            main()
    """

    records = (UnseededTraining,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        if not module.training_calls() or not is_script(module):
            return
        distributed = {id(site) for init in communication_init_calls(module)
                       for site in module.training_on_path(init)} if module.runs_replicas() else set()  # MS401's
        training = [site for site in module.training_from_entry() if id(site) not in distributed]
        if not training or module.seeds_mindspore():
            return
        first: CallSite = training[0]
        yield self.report(module, first.node, UnseededTraining(
            training=first.qualname or "train", numpy_seeded=module.seeds_numpy(before=first.node.lineno),
            random_seed=module.seeded_at_random(before=first.node.lineno)))
