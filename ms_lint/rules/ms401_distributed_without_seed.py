"""MS401: distributed training that never seeds MindSpore."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.model import ModuleFacts
from ms_lint.findings import Finding, FindingData, fact
from ms_lint.rules.base import Rule


def communication_init_calls(module: ModuleFacts):
    return [
        site for site in module.calls_to("init")
        if site.qualname in ("mindspore.communication.init", "mindspore.communication.management.init")
    ]


@dataclass(frozen=True, kw_only=True)
class UnseededDistributed(FindingData):
    """Distributed training without mindspore.set_seed: the communication init call, the training call this path
    makes (``train`` when not known) and its line."""

    init: str = fact(for_users=True)
    training: str
    training_line: int

    def message(self) -> str:
        return (f"distributed training (this path trains: {api.last_name(self.training)} on line "
                f"{self.training_line}) without mindspore.set_seed: every card initialises different parameters; "
                "call mindspore.set_seed(n) before building the network (numpy.random.seed(n), or "
                "set_auto_parallel_context(parameter_broadcast=True), also makes the cards start equal; manual_seed "
                "does not seed parameter initialisation)")


class DistributedWithoutSeed(Rule):
    code = "MS401"
    name = "distributed-without-seed"
    summary = ("data-parallel training (`communication.init` on a path that trains, in a parallel mode) whose cards "
               "do not start from the same weights")
    fix_summary = "call `mindspore.set_seed(n)` before building the network"
    what = """
        Reports the `mindspore.communication.init()` call (any import spelling) on a path that goes on to train:
        the function that calls it, the functions that function calls, or, when those train nothing, the
        functions of the module that call it (not on the other side of an `if` from the call), create an
        optimizer, a `Model` with an optimizer or a `TrainOneStepCell`, call `.train(...)`, `grad` or
        `value_and_grad`. An evaluation or inference entry point that calls `init()` and trains nothing is not
        reported, even when the module trains elsewhere; nor a module that builds an optimizer or a `Model` with
        one but only evaluates or predicts with it (`model.eval(dataset)`, `model.predict(x)`, no `.train(`,
        TrainOneStep cell or gradient function): its weights come from a checkpoint or stay unused (an optimizer it
        hands to anything but a `Model`, such as an adversarial-defence trainer, still trains). Not reported
        either when the module makes the cards start from the same weights:
        `mindspore.set_seed`, `numpy.random.seed` (or `mindspore.dataset.config.set_seed`,
        which calls it) before the path's first training call (MindSpore's initialisers draw from numpy), either
        through a seeding helper, or at the top level of a project module the file imports (that code runs at the
        import, before anything is built), or `set_auto_parallel_context(parameter_broadcast=True)`.
        `mindspore.manual_seed` does not count: it does not seed parameter initialisation. Reported only where
        the module keeps the processes' models in step: it sets a parallel mode other than stand-alone
        (`set_auto_parallel_context(parallel_mode=...)`, data, hybrid, semi-auto or auto parallel, or a mode it
        cannot read) or builds a `DistributedGradReducer`, itself or through a helper of the project. `init()`
        alone leaves MindSpore's default `ParallelMode.STAND_ALONE` ("Only one processor is working",
        https://www.mindspore.cn/docs/en/master/api_python/mindspore/mindspore.ParallelMode.html): each process
        trains its own model, with no gradients averaged that unequal starting weights would spoil.
    """
    why = """
        Without a seed every process initialises different weights. In data-parallel training each card then starts
        from its own parameters: gradients are averaged over models that are not the same model, and runs cannot be
        reproduced. Measured on 2.10 and 2.7.1 CPU (two processes under `msrun`, tests/test_ground_truth_values.py):
        without a seed the two ranks' initial weights differ; `numpy.random.seed(n)` alone (also through
        `mindspore.dataset.config.set_seed(n)`) or `mindspore.set_seed(n)` makes them equal;
        `set_auto_parallel_context(parameter_broadcast=True)` copies rank 0's weights to the other ranks when the
        training network is compiled. `set_context(parameter_broadcast=True)` raises ValueError
        ("the keyword argument parameter_broadcast is not recognized").
    """
    example = """
        import mindspore
        from mindspore.communication import init

        init()
        mindspore.set_auto_parallel_context(parallel_mode=mindspore.ParallelMode.DATA_PARALLEL)
        net = Net()
        opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
    """
    use_instead = """
        import mindspore
        from mindspore.communication import init

        mindspore.set_seed(1)
        init()
        mindspore.set_auto_parallel_context(parallel_mode=mindspore.ParallelMode.DATA_PARALLEL)
        net = Net()
        opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
    """

    records = (UnseededDistributed,)

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        inits = communication_init_calls(module)
        if not inits or not module.training_calls():
            return
        paths = [(site, training) for site in inits if (training := module.training_on_path(site))]
        # the seeds last: they are looked for in the project
        if not paths or module.seeds_mindspore() or module.broadcasts_parameters() or not module.runs_replicas():
            return  # (stand-alone processes: each trains its own model, no replica to keep equal)
        for site, training in paths:
            if module.seeds_numpy(before=training[0].node.lineno):
                continue  # numpy seeded before the path trains: the initialisers drew the same weights
            first = training[0]
            yield self.report(module, site.node, UnseededDistributed(
                init=site.qualname or "", training=first.qualname or "train", training_line=first.node.lineno),
                scope="")
