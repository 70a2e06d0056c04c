"""Values for a Cell's constructor arguments that nothing of the project gives: guessed from the parameters' names
(``in_channels``: 32, ``num_heads``: 2, ``eps``: 1e-5), or read from the constructor's own ``assert p == constant``.
A Cell built with a guessed value is no Cell the project builds: what its compile shows is evidence by probe."""
from __future__ import annotations

import ast
import inspect
import re
import textwrap

_GUESSES = (
    (re.compile(r"(^|_)(bits?|bit_width)$|_bit$"), 8),
    (re.compile(r"(^|_)eps(ilon)?$"), 1e-5),
    (re.compile(r"head(er)?s?$"), 2),
    (re.compile(r"^(h|w)$"), 8),  # a feature map's height and width
    (re.compile(r"ratio$"), 0.25),  # a reduction (or expansion) ratio of channels
    (re.compile(r"planes$"), 32),
    (re.compile(r"(^|_)(dropout|drop(_path)?(_rate|_prob)?|attn_drop|proj_drop)$"), 0.0),  # a dropout probability
    (re.compile(r"(^|_)(num_)?(layers?|blocks?|depth)$"), 1),
    (re.compile(r"(^|_)(idx|index)$"), 0),
    (re.compile(r"kernel(_size)?$"), 3),
    (re.compile(r"stride$"), 1),
    (re.compile(r"groups$"), 1),
    (re.compile(r"(^|_)factor$"), 2),  # a scale, down- or upsampling factor
    (re.compile(r"filters$"), 32),  # a convolution's output channels
    (re.compile(r"(channels?|dims?|features|size|embeddings|positions|width|hidden|shape|units|tokens|length)$"), 32),
)


def guess(name: str):
    """The value a parameter named ``name`` most likely takes (a size, a count, a rate); None when the name says
    nothing."""
    return next((guess for pattern, guess in _GUESSES if pattern.search(name.lower())), None)


def asserted_values(target) -> dict:
    """``{parameter: value}`` for the ``assert parameter == constant`` statements at the top of ``__init__``."""
    init = getattr(target, "__init__", None)
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(init)))
    except (OSError, TypeError, SyntaxError, ValueError):
        return {}
    function = tree.body[0] if tree.body and isinstance(tree.body[0], ast.FunctionDef) else None
    if function is None:
        return {}
    parameters = {argument.arg for argument in function.args.args[1:] + function.args.kwonlyargs}
    values = {}
    for statement in function.body:
        test = statement.test if isinstance(statement, ast.Assert) else None
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq) \
                and isinstance(test.left, ast.Name) and test.left.id in parameters \
                and isinstance(test.comparators[0], ast.Constant):
            values[test.left.id] = test.comparators[0].value
    return values
