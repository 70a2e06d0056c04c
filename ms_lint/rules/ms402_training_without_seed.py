"""MS402: a training script that never seeds MindSpore."""
from __future__ import annotations

import ast
from typing import Iterator

from ms_lint import mindspore_api as api
from ms_lint.facts import CallSite, ModuleFacts
from ms_lint.findings import Finding
from ms_lint.rules.base import Rule
from ms_lint.rules.ms401_distributed_without_seed import communication_init_calls

_MAX_DEPTH = 4


def seeds_mindspore(module: ModuleFacts) -> bool:
    """The module calls ``mindspore.set_seed``, directly or through a seeding helper of the project.

    ``mindspore.dataset.config.set_seed`` seeds only the data pipeline and does not count. A helper whose source
    ms-lint cannot read (a third-party ``seed_everything``) is trusted when its name speaks of seeding.
    """
    known: dict[tuple[int, str], bool] = {}
    return any(_seeds(module, site.qualname, 0, known) for site in module.calls)


def _seeds(module: ModuleFacts, qualname: str | None, depth: int, known: dict) -> bool:
    if not qualname or depth > _MAX_DEPTH:
        return False
    if api.is_mindspore(qualname):
        return api.last_name(qualname) == "set_seed" and not qualname.startswith("mindspore.dataset")
    if api.is_host_library(qualname) or qualname.startswith(("builtins.", "random.", "os.", "sys.")):
        return False
    key = (id(module), qualname)
    if key not in known:
        known[key] = False  # a helper that calls itself does not seed through the recursion
        function = _function_of(module, qualname)
        if function is None:
            known[key] = "seed" in api.last_name(qualname).lower() and not qualname.startswith(module.local_prefix)
        else:
            facts, node = function
            known[key] = any(
                _seeds(facts, site.qualname, depth + 1, known) for site in facts.calls if _inside(site.node, node))
    return known[key]


def _function_of(module: ModuleFacts, qualname: str) -> tuple[ModuleFacts, ast.FunctionDef] | None:
    """The module-level function ``qualname`` names, in this module or another module of the project."""
    if qualname.startswith(module.local_prefix):
        node = module.functions.get(qualname[len(module.local_prefix):])
        return (module, node) if node is not None else None
    if "." not in qualname:
        return None
    from ms_lint.project import _module_facts, find_module_file, source_roots

    module_name, function_name = qualname.rsplit(".", 1)
    module_file = find_module_file(module_name, source_roots(module.path))
    other = _module_facts(module_file, module.settings) if module_file else None
    if other is None:
        return None
    node = other.functions.get(function_name)
    if node is not None:
        return other, node
    reexported = other.names.get(function_name)
    if reexported and reexported != qualname and not api.is_mindspore(reexported):
        return _function_of(other, reexported)
    return None


def _inside(node: ast.AST, function: ast.AST) -> bool:
    return function.lineno <= node.lineno <= (function.end_lineno or function.lineno)


def is_script(module: ModuleFacts) -> bool:
    """The module runs as a program: it has an ``if __name__ == "__main__":`` block, or trains at top level."""
    for statement in module.tree.body:
        if isinstance(statement, ast.If) and _is_main_guard(statement.test):
            return True
    return any(site.function is None and site.owner is None for site in module.training_calls())


def _is_main_guard(test: ast.AST) -> bool:
    if not isinstance(test, ast.Compare) or len(test.comparators) != 1:
        return False
    sides = [test.left, test.comparators[0]]
    return any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides) and any(
        isinstance(s, ast.Constant) and s.value == "__main__" for s in sides)


class TrainingWithoutSeed(Rule):
    code = "MS402"
    name = "training-without-seed"
    summary = "a training script that never calls `mindspore.set_seed`"
    fix_summary = "call `mindspore.set_seed(n)` before building the network"
    enabled_by_default = False
    what = """
        Reports the first training call (an optimizer, a `Model` with an optimizer, a `TrainOneStepCell`,
        `.train(...)`, `grad`, `value_and_grad`: the signals MS401 uses) of a script that never calls
        `mindspore.set_seed`. A script is a module with an `if __name__ == "__main__":` block or that trains at top
        level; library modules that only define training helpers are left to the script that calls them. A
        project helper that calls `mindspore.set_seed` counts as seeding (followed across the project's modules),
        and so does a third-party helper named like `seed_everything`; `mindspore.dataset.config.set_seed`,
        `mindspore.manual_seed` and `numpy.random.seed` do not. Distributed scripts (`communication.init`) are left
        to MS401. Off by default: a one-off experiment may not care.
    """
    why = """
        Without a seed every run initialises different weights and draws different random numbers (dropout,
        `ops.rand`, random augmentation): two runs of the same script give different models, and a regression
        cannot be told from noise. `mindspore.set_seed(n)` seeds MindSpore's parameter initialisation, its random
        operators and numpy at once; `manual_seed` alone does not seed parameter initialisation.
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

    def check(self, module: ModuleFacts) -> Iterator[Finding]:
        if communication_init_calls(module):
            return  # a distributed script: MS401 reports it
        training = module.training_calls()
        if not training or not is_script(module) or seeds_mindspore(module):
            return
        first: CallSite = min(training, key=lambda site: (site.node.lineno, site.node.col_offset))
        yield self.finding(
            module, first.node,
            f"training ({api.last_name(first.qualname or 'train')}) in a script that never calls mindspore.set_seed: "
            "every run starts from different weights and random draws, so runs are not reproducible; call "
            "mindspore.set_seed(n) before building the network",
        )
