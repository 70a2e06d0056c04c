"""Values for a Cell's constructor arguments that nothing of the project gives: guessed from the parameters' names
(``in_channels``: 32, ``num_heads``: 2, ``eps``: 1e-5), or read from the constructor's own ``assert p == constant``.
A Cell built with a guessed value is no Cell the project builds: what its compile shows is evidence by probe. A Cell
that takes Cells in a list is given a list of one, of the class its annotation or docstring names
(``element_lists``)."""
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


# ``List[ControlNetModel]``, ``Tuple[X]``, ``Sequence[X]``: the class a list argument holds, in an annotation or in
# the docstring's entry for the parameter (``controlnets (`List[SD3ControlNetModel]`):``)
_LIST_OF = r"\b(?:List|Tuple|Sequence|list|tuple)\[\s*(?:[\w.]+\.)?(\w+)"


def element_lists(target, module, required: list[str]):
    """For a Cell that takes Cells in a list (``MultiControlNetModel(controlnets)``), each required argument a list
    of one element of the class its annotation or its docstring names, built from its own defaults (or from
    arguments guessed from their names: then the recipe says so), as a ``building.Recipe``; None when an argument
    names no such class or its element cannot be built."""
    from ms_lint.validate.building import Recipe, guessed_arguments

    kwargs, shown, guessed = {}, [], {}
    try:
        parameters = inspect.signature(target.__init__).parameters
    except (TypeError, ValueError):
        return None
    doc = inspect.getdoc(target) or ""
    for name in required:
        annotation = parameters[name].annotation if name in parameters else None
        texts = [str(annotation) if annotation is not inspect.Parameter.empty else ""]
        texts += re.findall(rf"^\s*{re.escape(name)}\s*\((.*)\)\s*:", doc, re.MULTILINE)
        names = [match for text in texts for match in re.findall(_LIST_OF, text)]
        namespace = vars(module) if module is not None else {}
        element_class = next((namespace.get(found) or getattr(inspect.getmodule(target), found, None)
                              for found in names), None)
        if not isinstance(element_class, type) or not hasattr(element_class, "construct"):
            return None
        try:
            items = list(inspect.signature(element_class.__init__).parameters.values())[1:]
        except (TypeError, ValueError):
            return None
        element_required = [item.name for item in items
                            if item.default is item.empty and item.kind not in (item.VAR_POSITIONAL, item.VAR_KEYWORD)]
        recipe = guessed_arguments(element_class, element_required) if element_required else Recipe(
            "defaults", f"{element_class.__name__}()")
        if recipe is None:
            return None
        try:
            element = element_class(*recipe.args, **recipe.kwargs)
        except Exception:  # noqa: BLE001 -- the element's own constructor raised: no list to give
            return None
        kwargs[name] = [element]
        guessed.update({f"{element_class.__name__}.{key}": value for key, value in recipe.guessed.items()})
        shown.append(f"{name}=[{recipe.description.split(', arguments guessed')[0]}]")
    return Recipe("element list", f"{target.__name__}({', '.join(shown)}), a list of one element of the class its "
                  f"annotation or docstring names", kwargs=kwargs, guessed=guessed)
