"""MS401: distributed training that never seeds MindSpore."""
from __future__ import annotations

from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.model import ModuleFacts
from ms_lint.findings import Finding
from ms_lint.rules.base import Rule


def communication_init_calls(module: ModuleFacts):
    return [
        site for site in module.calls_to("init")
        if site.qualname in ("mindspore.communication.init", "mindspore.communication.management.init")
    ]


class DistributedWithoutSeed(Rule):
    code = "MS401"
    name = "distributed-without-seed"
    summary = "distributed training (`communication.init` + training) without `mindspore.set_seed`"
    fix_summary = "call `mindspore.set_seed(n)` before building the network"
    what = """
        Reports the `mindspore.communication.init()` call (any import spelling) of a module that trains (creates an
        optimizer, a `Model` with an optimizer, a `TrainOneStepCell`, calls `.train(...)`, `grad` or
        `value_and_grad`) and never calls `mindspore.set_seed`. Evaluation scripts that only load a checkpoint are
        not reported. `mindspore.manual_seed` does not count: it does not seed parameter initialisation.
    """
    why = """
        Without a seed every process initialises different weights and draws different random numbers. In
        data-parallel training each card then starts from its own parameters: gradients are averaged over models
        that are not the same model, and runs cannot be reproduced.
    """
    example = """
        from mindspore.communication import init

        init()
        net = Net()
        opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
    """
    use_instead = """
        import mindspore
        from mindspore.communication import init

        mindspore.set_seed(1)
        init()
        net = Net()
        opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
    """

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        inits = communication_init_calls(module)
        if not inits:
            return
        training = module.training_calls()
        if not training or module.seeds_mindspore():  # the seeds last: they are looked for in the project
            return
        first = min(training, key=lambda site: site.node.lineno)
        for site in inits:
            yield self.finding(
                module, site.node,
                f"distributed training (it trains: {api.last_name(first.qualname or 'train')} on line "
                f"{first.node.lineno}) without mindspore.set_seed: every card initialises different parameters; "
                "call mindspore.set_seed(n) before building the network (manual_seed does not seed parameter "
                "initialisation)",
                scope="",
                data={"init": site.qualname or "", "training": first.qualname or "train",
                      "training_line": first.node.lineno},
            )
