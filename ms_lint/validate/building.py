"""How the worker builds a Cell and its inputs when no example is registered (runs in the worker process).

Ways to build, tried in this order after a registered example:

1. a constructor call found in the module with constant arguments (``Net(3, [64, 128])``, a factory function such
   as ``def resnet50(**kw): return ResNet(Bottleneck, [3, 4, 6, 3], **kw)``, a module-level instance); a factory
   parameter with a constant default stands for its default; a call in another class's method that takes a config
   (``Embedding(config.vocab_size, config.hidden_size)``), with that config class built as in 3;
2. the constructor's own defaults (``Net()``);
3. for config-driven models (``Model(config)``, ``__init__(self, config: XConfig)``), the config class built with
   its own defaults, shrunk where it has obvious size fields (layers, hidden size, heads, vocabulary), then
   unshrunk if the shrunk one cannot build the model and the unshrunk one is not far too large to build; a field
   the defaults leave None that the constructor reads as a mapping or a number is filled in (``completed_config``);
4. arguments guessed from their names (``in_channels``, ``dim``, ``num_heads``, ``eps``, ``*_bit``...), or from
   the constructor's ``assert padding == 1`` (``guessing``).

Inputs: each ``construct`` parameter without a default gets a tensor whose dtype and shape come from its name
(``input_ids``, ``attention_mask``: int64 ids; ``pixel_values``: images) or from the first layer it is given to
(``nn.Dense(in, ...)``, ``nn.Conv2d(in, ...)``, ``nn.Embedding``; through an activation without parameters:
``self.proj(self.act(x))``); such a tensor holds data (seeded random floats,
zero ids), so the probes that run the Cell can use it. Otherwise it is a data-less float32 placeholder of any rank.
Optional arguments stay at their defaults, except the first one of a ``construct`` whose arguments are all optional
(``input_ids=None``) when its name or first layer tells its shape.
"""
from __future__ import annotations

import ast
import inspect
import operator
import re
from dataclasses import dataclass, field, replace

from ms_lint.model.syntax import first_argument, self_attribute
from ms_lint.validate.guessing import asserted_values as _asserted_values
from ms_lint.validate.guessing import guess as _guess

_MAX_CALLS = 4


@dataclass
class Recipe:
    """One way to build the instance: ``how`` is shown in the verdict."""

    how: str  # "constructor call", "defaults", "config", "guessed arguments", "element list"
    description: str
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    config: object = None
    guessed_sizes: dict = field(default_factory=dict)  # optional arguments left None, guessed (completed_arguments)
    guessed: dict = field(default_factory=dict)  # required arguments (config fields) guessed from their names


# -- 1. constructor calls in the module ---------------------------------------------------------------------------

def constructor_calls(module, path: str, class_name: str) -> list[Recipe]:
    try:
        with open(path, encoding="utf-8") as handle:
            source = handle.read()
        tree = ast.parse(source, filename=path)
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return []
    namespace = vars(module)
    recipes: list[Recipe] = []
    configs: dict[str, tuple] = {}
    for owner, function, call in _calls(tree, class_name):
        defaults = _constant_defaults(function) if function is not None and owner is None else {}
        names, config, config_text = namespace, None, ""
        if owner is not None:
            # A sub-Cell built in another class's method from that method's config: the config class with its
            # defaults, shrunk, stands for it (``Embedding(config.vocab_size, config.hidden_size)``).
            if owner.name not in configs:
                configs[owner.name] = _owner_config(namespace.get(owner.name), module, function)
            parameter, config, config_text = configs[owner.name]
            if config is None:
                continue
            names = {**namespace, parameter: config}
        try:
            args = tuple(_constant(argument, names, defaults) for argument in call.args)
            kwargs = {keyword.arg: _constant(keyword.value, names, defaults)
                      for keyword in call.keywords if keyword.arg is not None}
        except _NotConstant:
            continue
        where = f"line {call.lineno}" + (f" in {(owner.name + '.') if owner else ''}{function.name}()"
                                         if function is not None else "")
        shown = ast.unparse(call)
        shown = shown if len(shown) <= 80 else shown[:77] + "..."
        recipes.append(Recipe("constructor call", f"{shown} ({where}{config_text})", args, kwargs, config))
        if len(recipes) >= _MAX_CALLS:
            break
    return recipes


def _calls(tree: ast.Module, class_name: str):
    """``(enclosing class or None, enclosing function or None, call)`` for each call of ``class_name``: module
    level first, then in module-level functions, then in the methods of other classes that take a config."""
    found = []
    for statement in tree.body:
        if isinstance(statement, ast.ClassDef):
            for method in statement.body:
                if isinstance(method, ast.FunctionDef) and _config_parameter(method) is not None:
                    found += [(statement, method, node) for node in _calls_of(method, class_name)]
            continue  # elsewhere inside a class the arguments are that class's attributes, not constants
        function = statement if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
        found += [(None, function, node) for node in _calls_of(statement, class_name)]
    found.sort(key=lambda item: (item[0] is not None, item[1] is not None))
    return found


def _calls_of(tree: ast.AST, class_name: str) -> list[ast.Call]:
    calls = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if (func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)) == class_name:
                calls.append(node)
    return calls


def _config_parameter(method: ast.FunctionDef) -> str | None:
    """The parameter of ``method`` that takes a config (named ``config``, or annotated with a ``...Config``)."""
    for argument in method.args.args[1:] + method.args.kwonlyargs:
        annotation = ast.unparse(argument.annotation) if argument.annotation is not None else ""
        if argument.arg == "config" or annotation.strip("'\"").endswith("Config"):
            return argument.arg
    return None


def _owner_config(owner, module, method: ast.FunctionDef) -> tuple:
    """``(parameter, the owner's config class built with its defaults and shrunk, how that reads)``, or
    ``(None, None, "")`` when the class or its config cannot be had."""
    parameter = _config_parameter(method)
    if not isinstance(owner, type) or parameter is None:
        return None, None, ""
    found = _config_class(owner, module, [parameter])
    if found is None:
        return None, None, ""
    try:
        config = found[1]()
    except Exception:  # noqa: BLE001 -- a config without defaults
        return None, None, ""
    changed = shrink(config)
    how = f", {parameter} = {found[1].__name__}() with its defaults" + (", shrunk" if changed else "")
    if _pick_attention(config):
        how += ", _attn_implementation='eager'"
    return parameter, config, how


class _NotConstant(Exception):
    pass


def _constant_defaults(function) -> dict:
    args = function.args
    positional = args.posonlyargs + args.args
    defaults = {}
    for argument, default in zip(positional[len(positional) - len(args.defaults):], args.defaults):
        defaults[argument.arg] = default
    for argument, default in zip(args.kwonlyargs, args.kw_defaults):
        if default is not None:
            defaults[argument.arg] = default
    return defaults


def _constant(node, namespace: dict, defaults: dict):
    """The value of a constant argument: literals, containers of them, and module-level names (classes,
    functions, constants); a factory parameter stands for its default."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _constant(node.operand, namespace, defaults)
        if not isinstance(value, (int, float)):
            raise _NotConstant
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        values = [_constant(item, namespace, defaults) for item in node.elts]
        return {ast.List: list, ast.Tuple: tuple, ast.Set: set}[type(node)](values)
    if isinstance(node, ast.Dict):
        if any(key is None for key in node.keys):
            raise _NotConstant
        return {_constant(key, namespace, defaults): _constant(value, namespace, defaults)
                for key, value in zip(node.keys, node.values)}
    if isinstance(node, ast.Name):
        if node.id in defaults:
            return _constant(defaults[node.id], namespace, {})
        if node.id in namespace:
            return namespace[node.id]
        raise _NotConstant
    if isinstance(node, ast.Attribute):
        base = _constant(node.value, namespace, defaults)
        if not inspect.ismodule(base) and not isinstance(base, type) and not _is_config(base):
            raise _NotConstant
        try:
            return getattr(base, node.attr)
        except AttributeError:
            raise _NotConstant from None
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        left, right = _constant(node.left, namespace, defaults), _constant(node.right, namespace, defaults)
        if not all(isinstance(value, (int, float)) and not isinstance(value, bool) for value in (left, right)):
            raise _NotConstant
        try:
            return _ARITHMETIC[type(node.op)](left, right)
        except ArithmeticError:
            raise _NotConstant from None
    raise _NotConstant


_ARITHMETIC = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
               ast.Div: operator.truediv, ast.Mod: operator.mod}


_NESTING = 2  # levels of nested configs read (``vision_config`` of a model config, its own sub-configs)


def _is_config(value) -> bool:
    return type(value).__name__.endswith("Config")


# -- 3. config classes ----------------------------------------------------------------------------------------------

_SHRINK = {
    # layers
    "num_hidden_layers": 1, "num_layers": 1, "n_layer": 1, "n_layers": 1, "encoder_layers": 1, "decoder_layers": 1,
    "num_encoder_layers": 1, "num_decoder_layers": 1, "depth": 1, "num_blocks": 1,
    # widths
    "hidden_size": 32, "d_model": 32, "n_embd": 32, "embed_dim": 32, "dim": 32, "out_hidden_size": 32,
    "intermediate_size": 37, "encoder_ffn_dim": 37, "decoder_ffn_dim": 37, "ffn_dim": 37, "n_inner": 37,
    # heads
    "num_attention_heads": 4, "n_head": 4, "num_heads": 4, "encoder_attention_heads": 4,
    "decoder_attention_heads": 4, "num_key_value_heads": 2,
    # vocabulary
    "vocab_size": 99,
}


def config_recipes(target, module, required: list[str]) -> list[Recipe]:
    found = _config_class(target, module, required)
    if found is None:
        return []
    name, config_class = found
    try:
        default = config_class()
    except Exception:  # noqa: BLE001 -- a config without defaults: nothing to build from
        return []
    picked = _pick_attention(default) | _pick_attention(shrunk_config := config_class())
    recipes = []
    # The other required arguments (``layer_idx``), guessed from their names.
    others = {other: _guess(other) for other in required if other != name}
    others = others if None not in others.values() else {}
    also = "".join(f", {key}={value!r}" for key, value in others.items())
    if picked:
        also += ", _attn_implementation='eager' (what the model picks when the config names none)"
    changed = shrink(shrunk_config)
    if changed:
        shown = ", ".join(f"{key}={value}" for key, value in list(changed.items())[:6])
        more = ", ..." if len(changed) > 6 else ""
        recipes.append(Recipe("config", f"{config_class.__name__}() with its defaults, shrunk ({shown}{more}){also}",
                              kwargs={name: shrunk_config, **others}, config=shrunk_config, guessed=dict(others)))
    if not changed or estimated_parameters(default) <= _UNSHRUNK_LIMIT:
        recipes.append(Recipe("config", f"{config_class.__name__}() with its defaults{also}",
                              kwargs={name: default, **others}, config=default, guessed=dict(others)))
    return recipes


def _pick_attention(config) -> bool:
    """A transformers-style config whose defaults name no attention implementation gets ``"eager"``, as the
    pretrained model's constructor sets it when it builds the model (``ALL_ATTENTION_FUNCTIONS[None]`` is what a
    sub-cell built from the bare config would look up); whether any config (nested ones too) was changed."""
    changed = False
    for candidate in _configs(config):
        if "_attn_implementation" in dir(type(candidate)) and getattr(candidate, "_attn_implementation", "") is None:
            try:
                candidate._attn_implementation = "eager"
                changed = True
            except Exception:  # noqa: BLE001 -- a read-only property
                continue
    return changed


# A config field the defaults leave None, read as a mapping or as a number by the constructor: the error it raises,
# the value that lets the build go on (an empty mapping keeps the code's own ``.get`` defaults).
_NONE_READ_AS = (
    (re.compile(r"'NoneType' object has no attribute 'get'"), "mapping"),
    (re.compile(r"'NoneType' object (cannot be interpreted as an integer|is not subscriptable|is not iterable)"
                r"|unsupported operand type\(s\) for .*'NoneType'|not supported between instances of .*'NoneType'"
                r"|must be int, but got 'NoneType'"),
     "number"),
)
# ``config.<field>`` or ``<instance>.config.<field>``: the name before ``.config`` is the instance only where it is
# the raising function's first parameter (``instance_of``)
_CONFIG_FIELD = re.compile(r"\b(?:(\w+)\.)?config\.(\w+)(\.get\()?")
MAX_COMPLETIONS = 4


def completed_config(recipe: Recipe, error: BaseException) -> Recipe | None:
    """The config recipe again with the field that made building raise filled in, when the constructor read a field
    the config's defaults leave None as a mapping (``config.rope_scaling.get(...)``: ``{}``) or as a number
    (``range(config.num_patch_transformer_layers)``: a small one, as guessed from its name); the config read is the
    one the raising line names (a nested one: ``text_config`` passed on as ``config``). None otherwise."""
    if recipe.how != "config" or recipe.config is None:
        return None
    if isinstance(error, KeyError):
        return _completed_entries(recipe, error)
    message = str(error)
    kind = next((kind for pattern, kind in _NONE_READ_AS if pattern.search(message)), None)
    if kind is None:
        return None
    for line, names, code in _raising_frames(error):
        instance = instance_of(code)
        reads = [(holder is not None and holder == instance, field, read_with_get)
                 for holder, field, read_with_get in (match.groups() for match in _CONFIG_FIELD.finditer(line))]
        if kind == "number":
            # ``hidden_size % heads`` with ``hidden_size = config.patch_hidden_size`` above in the function (or in a
            # caller that passed it on): the fields behind the None locals the line reads.
            reads += [(holder is not None and holder == instance, field, None)
                      for holder, field in _fields_behind_none_locals(line, names, code)]
        filled, guessed = [], {}
        for on_self, name, read_with_get in reads:
            owner = names.get(instance) if on_self else names
            config = getattr(owner, "config", None) if on_self else names.get("config")
            if config is None or getattr(config, name, 0) is not None or (kind == "mapping") != bool(read_with_get):
                continue
            value = {} if kind == "mapping" else (_guess(name) or 1)
            # The raising frame may hold a copy (``copy.deepcopy(config)``): the field is set on every config of
            # the recipe's of that class, which the next build copies again.
            owners = [candidate for candidate in _configs(recipe.config) if type(candidate) is type(config)
                      and getattr(candidate, name, 0) is None]
            try:
                for candidate in owners or [config]:
                    setattr(candidate, name, value)
            except Exception:  # noqa: BLE001 -- a read-only property
                return None
            filled.append(f"{name}={value!r}")
            guessed.update({f"config.{name}": value} if kind == "number" else {})
        if filled:  # every None field the frame's line reads at once: one rebuild, not one per field
            return replace(recipe, description=f"{recipe.description}, {', '.join(filled)} (None in the defaults)",
                           guessed={**recipe.guessed, **guessed})
    return None


def _completed_entries(recipe: Recipe, error: KeyError) -> Recipe | None:
    """The config recipe again with the key the constructor missed added to every entry of the config's list of
    mappings it was reading (``configuration["name"] for configuration in config.bin_configurations``): a name of
    its own for each (``name0``, ``name1``), else a small number guessed from the key."""
    key = error.args[0] if error.args else None
    if not isinstance(key, str):
        return None
    for _, names, _ in _raising_frames(error):
        read = [value for value in names.values() if isinstance(value, dict) and key not in value]
        for config in _configs(recipe.config):
            for name, entries in list(vars(config).items()):
                if not (isinstance(entries, list) and entries and all(isinstance(e, dict) for e in entries)
                        and any(entry is value for entry in entries for value in read)):
                    continue
                for index, entry in enumerate(entries):
                    entry[key] = f"{key}{index}" if key == "name" else (_guess(key) or 1)
                return replace(recipe, description=f"{recipe.description}, {name}[...][{key!r}] added (not in the "
                                                   f"defaults)")
    return None


_LOCAL_FROM_CONFIG = r"^\s*{}\s*=\s*(?:({})\.)?config\.(\w+)\s*(#.*)?$"  # the local, the instance


def _fields_behind_none_locals(line: str, names: dict, code) -> list[tuple[str | None, str]]:
    """``(the instance parameter or None, field)`` for each local the raising ``line`` reads that holds None and that
    its function bound from a config field on a line of its own (``hidden_size = config.patch_hidden_size``)."""
    import inspect

    wanted = [name for name, value in names.items() if value is None and re.search(rf"\b{re.escape(name)}\b", line)]
    if not wanted or code is None:
        return []
    try:
        source_lines, _ = inspect.getsourcelines(code)
    except (OSError, TypeError):
        return []
    found = []
    instance = instance_of(code)
    for name in wanted:
        pattern = re.compile(_LOCAL_FROM_CONFIG.format(re.escape(name), re.escape(instance) if instance else "(?!)"))
        for text in source_lines:
            match = pattern.match(text)
            if match:
                found.append((match.group(1), match.group(2)))
                break
    return found


def _configs(config, depth: int = 0) -> list:
    """``config`` and the configs it nests (two levels down, as ``shrink`` reads them)."""
    found = [config]
    if depth < _NESTING:
        for _, nested in _nested_configs(config):
            found += _configs(nested, depth + 1)
    return found


def _nested_configs(config) -> list[tuple[str, object]]:
    """``(attribute, config)`` for the configs ``config`` holds directly (``text_config``, ``vision_config``)."""
    return [(key, value) for key, value in list(vars(config).items()) if _is_config(value) and value is not config]


def instance_of(code) -> str | None:
    """The first parameter of the function ``code`` runs (a method's instance), or None: the name its frame's
    locals hold the instance under."""
    return code.co_varnames[0] if code is not None and code.co_argcount + code.co_posonlyargcount > 0 else None


def _raising_frames(error: BaseException) -> list[tuple[str, dict, object]]:
    """``(source line, local names, code object)`` of the frames the error went through, the innermost first."""
    import linecache

    frames = []
    traceback = error.__traceback__
    while traceback is not None:
        frame = traceback.tb_frame
        frames.append((linecache.getline(frame.f_code.co_filename, traceback.tb_lineno), frame.f_locals,
                       frame.f_code))
        traceback = traceback.tb_next
    return frames[::-1]


_UNSHRUNK_LIMIT = 500_000_000  # parameters: 2 GB in float32, half the default memory limit


def estimated_parameters(config, depth: int = 0) -> int:
    """About how many parameters a transformer built from ``config`` holds (12 hidden² per layer, plus the
    embeddings), nested configs included: a model far above the memory limit is not built unshrunk."""
    def number(*names):
        for key in names:
            value = getattr(config, key, None)
            if isinstance(value, int) and not isinstance(value, bool):
                return value
        return 0

    hidden = number("hidden_size", "d_model", "n_embd", "embed_dim", "dim")
    layers = number("num_hidden_layers", "num_layers", "n_layer", "n_layers", "depth") + number("decoder_layers")
    total = 12 * hidden * hidden * layers + number("vocab_size") * hidden
    if depth < _NESTING:
        total += sum(estimated_parameters(nested, depth + 1) for _, nested in _nested_configs(config))
    return total


def _config_class(target, module, required: list[str]):
    try:
        parameters = inspect.signature(target.__init__).parameters
    except (TypeError, ValueError):
        return None
    namespace = vars(module)
    for name in required:
        annotation = parameters[name].annotation if name in parameters else inspect.Parameter.empty
        if isinstance(annotation, str):
            annotation = namespace.get(annotation.split("[")[0].strip("'\""))
        if isinstance(annotation, type) and annotation.__name__.endswith("Config"):
            return name, annotation
    configs = [name for name in required if "config" in name.lower()]
    if len(configs) != 1 or len(required) != 1:
        return None
    declared = getattr(target, "config_class", None)
    if isinstance(declared, type):
        return configs[0], declared
    # The config class of the module whose name shares the longest prefix with the Cell's.
    candidates = [value for key, value in namespace.items()
                  if isinstance(value, type) and key.endswith("Config") and key != "PretrainedConfig"]
    best, length = None, 0
    for candidate in candidates:
        prefix = _common_prefix(candidate.__name__[:-len("Config")], target.__name__)
        if prefix > length:
            best, length = candidate, prefix
    return (configs[0], best) if best is not None and length >= 3 else None


def _common_prefix(first: str, second: str) -> int:
    count = 0
    for a, b in zip(first, second):
        if a != b:
            break
        count += 1
    return count


def shrink(config, depth: int = 0) -> dict:
    """Set the obvious size fields of ``config`` (and of the configs it nests) small; returns what changed."""
    changed = {}
    for key, small in _SHRINK.items():
        value = getattr(config, key, None)
        if isinstance(value, int) and not isinstance(value, bool) and value > small:
            try:
                setattr(config, key, small)
                changed[key] = small
            except Exception:  # noqa: BLE001 -- a read-only property
                continue
    heads = getattr(config, "num_attention_heads", None) or getattr(config, "num_heads", None)
    hidden = getattr(config, "hidden_size", None)
    if isinstance(heads, int) and isinstance(hidden, int) and heads and getattr(config, "head_dim", None):
        try:
            config.head_dim = hidden // heads
            changed["head_dim"] = hidden // heads
        except Exception:  # noqa: BLE001
            pass
    if depth < _NESTING:
        for key, nested in _nested_configs(config):
            inner = shrink(nested, depth + 1)
            changed.update({f"{key}.{name}": small for name, small in inner.items()})
    return changed


# -- 4. arguments guessed from their names --------------------------------------------------------------------------

def guessed_arguments(target, required: list[str]) -> Recipe | None:
    """Each required argument guessed from its name; an argument the constructor asserts a constant value for
    (``assert kernel_size == 3``, ``assert padding == 1``, optional ones too) takes that value instead."""
    asserted = _asserted_values(target)
    how = "their names and the constructor's asserts" if asserted else "their names"
    kwargs, guessed = {}, {}
    for name in required:
        value = asserted.pop(name) if name in asserted else guessed.setdefault(name, _guess(name))
        if value is None:
            return None
        kwargs[name] = value
    kwargs.update(asserted)
    shown = ", ".join(f"{key}={value!r}" for key, value in kwargs.items())
    return Recipe("guessed arguments", f"{target.__name__}({shown}), arguments guessed from {how}", kwargs=kwargs,
                  guessed=guessed)


# A size the constructor was given as None (``nn.Linear(cross_attention_dim, ...)`` with ``cross_attention_dim=None``
# by default), as MindSpore and Python word it.
_NONE_AS_NUMBER = _NONE_READ_AS[1][0]


def completed_arguments(target, recipe: Recipe, error: BaseException) -> Recipe | None:
    """The recipe again with the optional arguments left None that the constructor used as sizes filled in, when
    building raised because a size was None (``TypeError: For 'Linear', the 'in_features' must be int, but got
    'NoneType'``): each parameter of ``__init__`` whose default is None, that the raising line of the constructor
    names and the recipe does not give, guessed from its name as a number (``cross_attention_dim=32``). The recipe
    becomes "guessed arguments" (not the project's own values) and its description names what was guessed. None
    otherwise (a config recipe: ``completed_config``)."""
    if recipe.how == "config" or not _NONE_AS_NUMBER.search(str(error)):
        return None
    text = _constructor_line(target, error)
    if not text:
        return None
    try:
        parameters = inspect.signature(target.__init__).parameters
    except (TypeError, ValueError):
        return None
    guessed = {}
    for name, parameter in parameters.items():
        value = _guess(name)
        if parameter.default is None and name not in recipe.kwargs and isinstance(value, int) \
                and not isinstance(value, bool) and re.search(rf"\b{re.escape(name)}\b", text):
            guessed[name] = value
    if not guessed:
        return None
    shown = ", ".join(f"{key}={value!r}" for key, value in guessed.items())
    return replace(recipe, how="guessed arguments", description=f"{recipe.description}, with {shown} guessed from "
                   f"the names (left None, the constructor used them as sizes)", kwargs={**recipe.kwargs, **guessed},
                   guessed_sizes={**recipe.guessed_sizes, **guessed})


def _constructor_line(target, error: BaseException) -> str | None:
    """The source line of ``target``'s ``__init__`` (a comprehension in it too) innermost in ``error``'s
    traceback."""
    import linecache

    init = getattr(target, "__init__", None)
    code = getattr(init, "__code__", None)
    if code is None:
        return None
    try:
        lines, start = inspect.getsourcelines(init)
    except (OSError, TypeError):
        return None
    found = None
    tb = error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == code.co_filename and start <= tb.tb_lineno < start + len(lines):
            found = tb.tb_lineno
        tb = tb.tb_next
    return linecache.getline(code.co_filename, found).strip() if found else None


# -- inputs -----------------------------------------------------------------------------------------------------

_ID_NAMES = re.compile(r"(^|_)(ids|input_ids|token_type_ids|position_ids|labels|attention_mask|mask_ids|"
                       r"decoder_input_ids|indices|index)$")


def input_placeholders(obj, names: list[str], config=None) -> tuple[tuple, list[str], dict[int, tuple]]:
    """``(placeholders, how, sequences)`` for the ``construct`` parameters ``names``. ``sequences``: for each input
    given ``[2, features]`` because its first layer is a Linear, which takes any number of leading axes, the
    ``(placeholder, how)`` of a sequence of such features, ``[2, length, features]``: what an attention block or a
    transformer layer built without a config takes."""
    import numpy as np

    first_layers = _first_layers(obj, names)
    config = config if config is not None else getattr(obj, "config", None)
    inputs, how, sequences = [], [], {}
    random = np.random.default_rng(0)
    for index, name in enumerate(names):
        dtype, shape, reason = _spec_for(name, first_layers.get(name), config)
        inputs.append(_placeholder(dtype, shape, random))
        how.append(f"{name}: {reason}")
        layer = first_layers.get(name)
        if len(shape) == 2 and dtype == "float32" and type(layer).__name__ in _FEATURE_LAYERS:
            longer = [shape[0], _SEQUENCE, shape[1]]
            sequences[index] = (_placeholder(dtype, longer, random),
                                f"{name}: {longer}, a sequence for its first layer {type(layer).__name__}"
                                f"({shape[1]}, ...)")
    return tuple(inputs), how, sequences


_FEATURE_LAYERS = ("Linear", "Dense")  # layers acting on the last axis, whatever the axes before it


def _placeholder(dtype: str, shape: list[int], random):
    """A data-less placeholder for a shape with unknown sizes; else real data, for the probes that run the Cell
    (ids are zeros)."""
    import mindspore

    import numpy as np

    if -2 in shape or -1 in shape:
        return mindspore.Tensor(shape=shape, dtype=getattr(mindspore, dtype))
    if dtype.startswith("int"):
        return mindspore.Tensor(np.zeros(shape, dtype=dtype))
    return mindspore.Tensor(random.standard_normal(shape).astype(dtype))


_SEQUENCE = 64  # a sequence length most block and patch sizes divide


def with_data(inputs: tuple, rank: int) -> tuple:
    """``inputs`` with each placeholder without data given data of its dtype (as ``_placeholder`` makes it):
    each size of any length ``_EAGER_SIZE``, a shape of any rank given ``rank``; the others as they are."""
    import numpy as np

    random = np.random.default_rng(0)
    given = []
    for value in inputs:
        shape = list(getattr(value, "shape", None) or [])
        if not any(size in (-1, -2) for size in shape):
            given.append(value)
            continue
        shape = [_EAGER_SIZE] * rank if shape == [-2] else [_EAGER_SIZE if size == -1 else size for size in shape]
        given.append(_placeholder(str(value.dtype).lower(), shape, random))
    return tuple(given)


_EAGER_SIZE = 4  # each size of any length, in an input given data to run eagerly


def first_optional_input(obj, config=None) -> list[str]:
    """``[name]`` for ``construct(self, input_ids=None, ...)``, whose inputs are all optional, when the first one
    defaults to None and its name or its first layer tells its shape (ids, images, features); else ``[]``."""
    construct = getattr(type(obj), "construct", None)
    try:
        parameters = list(inspect.signature(construct).parameters.values())[1:]
    except (TypeError, ValueError):
        return []
    if not parameters or parameters[0].kind not in (inspect.Parameter.POSITIONAL_ONLY,
                                                    inspect.Parameter.POSITIONAL_OR_KEYWORD):
        return []
    first = parameters[0]
    if first.default is not None:
        return []
    _, shape, _ = _spec_for(first.name, _first_layers(obj, [first.name]).get(first.name), config)
    return [] if shape == [-2] else [first.name]


def _spec_for(name: str, layer, config) -> tuple[str, list[int], str]:
    lower = name.lower()
    if layer is not None:
        spec = _layer_spec(layer)
        if spec is not None and config is not None and len(spec[1]) == 2 and spec[0] == "float32":
            # A config-driven model works on [batch, sequence, features].
            shape = [2, _SEQUENCE, spec[1][1]]
            return "float32", shape, f"{shape}, as its first layer is {type(layer).__name__}({spec[1][1]}, ...)"
        if spec is not None:
            return spec
    if _ID_NAMES.search(lower) or lower.endswith("_mask") and "attention" in lower:
        return "int64", [2, _SEQUENCE], "ids by its name"
    if "pixel_values" in lower or lower in ("images", "image", "pixel"):
        channels = getattr(config, "num_channels", None) or 3
        size = getattr(config, "image_size", None)
        size = size if isinstance(size, int) and 0 < size <= 512 else 32
        return "float32", [2, channels, size, size], "an image batch by its name"
    if lower in ("hidden_states", "inputs_embeds", "x", "hidden", "embeddings") and config is not None:
        hidden = getattr(config, "hidden_size", None)
        if isinstance(hidden, int):
            return "float32", [2, _SEQUENCE, hidden], "[batch, length, hidden_size] from the config"
    return "float32", [-2], "float32 of any rank"


def _layer_spec(layer):
    kind = type(layer).__name__
    if kind == "Embedding":
        return "int64", [2, _SEQUENCE], f"ids, as its first layer is {kind}"
    channels = getattr(layer, "in_channels", None) or getattr(layer, "in_features", None)
    if isinstance(channels, int):
        rank = {"Conv1d": 3, "Conv2d": 4, "Conv3d": 5, "Conv2dTranspose": 4, "Conv1dTranspose": 3,
                "Conv3dTranspose": 5, "ConvTranspose2d": 4, "ConvTranspose1d": 3}.get(kind)
        if rank is not None:
            shape = [2, channels] + [16] * (rank - 2)
            return "float32", shape, f"{shape}, as its first layer is {kind}({channels}, ...)"
        return "float32", [2, channels], f"[2, {channels}], as its first layer is {kind}({channels}, ...)"
    normalized = getattr(layer, "normalized_shape", None)
    if isinstance(normalized, (tuple, list)) and all(isinstance(dim, int) for dim in normalized):
        shape = [2, 8, *normalized]
        return "float32", shape, f"{shape}, as its first layer is {kind}"
    return None


def _first_layers(obj, names: list[str]) -> dict:
    """For each parameter of ``construct``, the sub-Cell it is first passed to directly (``self.proj(x)``)."""
    construct = getattr(type(obj), "construct", None)
    if construct is None:
        return {}
    try:
        tree = ast.parse(_dedent(inspect.getsource(construct)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return {}
    definition = tree.body[0] if tree.body and isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)) \
        else None
    instance = first_argument(definition) if definition is not None else None
    if instance is None:
        return {}
    layers = {}
    for node in ast.walk(tree):
        layer = _self_layer(obj, node, instance)
        if layer is None:
            continue
        first = node.args[0]
        inner = _self_layer(obj, first, instance)
        if inner is not None and not _has_parameters(inner):
            # self.proj(self.act(x)): an activation keeps the shape, the layer after it tells it.
            first = first.args[0]
        if isinstance(first, ast.Name) and first.id in names and first.id not in layers:
            layers[first.id] = layer
    return layers


def _self_layer(obj, node, instance: str):
    """The sub-Cell a call ``self.name(arg, ...)`` calls (``instance``: the name construct gives the Cell), or None."""
    if not isinstance(node, ast.Call) or not node.args:
        return None
    func = node.func
    if self_attribute(func, instance) is None:
        return None
    layer = getattr(obj, func.attr, None)
    return layer if layer is not None and hasattr(layer, "construct") else None


def _has_parameters(layer) -> bool:
    try:
        return any(True for _ in layer.get_parameters())
    except Exception:  # noqa: BLE001 -- not a Cell after all
        return True


def _dedent(source: str) -> str:
    import textwrap

    return textwrap.dedent(source)
