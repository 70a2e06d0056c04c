"""ms-lint: find MindSpore graph-mode hazards before the code runs."""

__version__ = "0.1.0"


def example(target):
    """Register a function that builds ``(cell, inputs)`` for ``target`` ("pkg.module:ClassName").

    Used in the validator's examples file (``ms_lint_examples.py``); importing it costs nothing.
    """
    from ms_lint.examples import register

    return register(target)
