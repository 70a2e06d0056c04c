"""Regenerate ms-lint's MindSpore API tables from the installed MindSpore.

ms-lint ships the tables of several MindSpore versions: the newest whole in ``ms_lint/data/mindspore_api.json``,
every other one as its differences from the newest in ``ms_lint/data/mindspore_api_versions.json`` (names added and
removed per table; see ``mindspore_api.apply_difference``). Running the generator under a MindSpore version adds or
replaces that version's tables; a version newer than the newest becomes the whole file and the others are
re-expressed against it.

The tables hold what the installed MindSpore itself says, so that the static rules never guess:

* ``nn_cells``: every public Cell class in ``mindspore.nn``; ``parameters`` tells whether an instance built the
  usual way owns parameters (``true``/``false``), or owns only the parameters of the Cells given to it
  (``"wrapped"``: ``SequentialCell``, ``WithLossCell``, ...); ``optimizer`` tells whether it is an Optimizer.
  Decided by building each class with small arguments and reading ``get_parameters()``; classes that cannot be
  built outside a device or a distributed job are decided from their sources (see ``--explain``).
* ``mint_nn_cells``: the same for ``mindspore.mint.nn``, whose layers are Cells with the meaning of ``mindspore.nn``
  ones (PyTorch-style arguments).
* ``jit_forbidden``: MindSpore's own registry of APIs that graph code refuses (``@jit_forbidden_register``
  methods and functions, plus whole modules), read live after import. ``methods`` maps the class that defines
  a refused method to its names; subclasses inherit the refusal (every Cell subclass; a Parameter instance is
  also a Tensor at run time, so Tensor's entries apply to it). ``functions`` lists the public qualified names
  of every function and class that graph code refuses to call (both the registered ones and everything defined
  in a refused module, under each public name it is exported as); ``modules`` lists the refused modules.
* ``ops_functions`` / ``ops_primitives``: the public operator functions and Primitive classes of
  ``mindspore.ops``; ``dataset_transforms``: the transform classes of ``mindspore.dataset`` (qualified names).
* ``tensor_properties``: the public properties of ``mindspore.Tensor`` (``size`` is one: PyTorch's ``x.size(0)``
  calls it);
* ``module_names``: the names each public MindSpore module has (``mindspore.nn`` has no ``functional``), its
  submodules included, one space-separated string per module;
* ``tensor_methods``: every public attribute of ``mindspore.Tensor`` and ``mindspore.Parameter`` (methods and
  properties), so that a rule can tell a method MindSpore's tensors do not have at all (``.detach()``).
* ``signatures``: the parameters of every public callable of ``mindspore``, ``mindspore.ops`` (and
  ``ops.functional``), ``mindspore.nn``, ``mindspore.mint`` (and ``mint.nn``, ``mint.nn.functional``) and of the
  ``Tensor`` methods, per namespace, each a list of overloads; the keywords a layer's constructor takes
  (``mindspore_api.cell_keywords``: PyTorch's ``nn.Linear(..., bias=False)`` spelled ``nn.Dense`` fails) are read
  from them. ``deprecations``: what MindSpore's deprecation decorator marks, since when, and its replacement. How
  both are read: ``ms_lint.tools.signature_tables``.

Usage::

    python -m ms_lint.tools.generate_tables             # add or rewrite the installed version's shipped tables
    python -m ms_lint.tools.generate_tables --check     # exit 1 when they are stale or not shipped
    python -m ms_lint.tools.generate_tables --output t.json   # write (or --check) one whole file instead
    python -m ms_lint.tools.generate_tables --explain   # print how each Cell's ``parameters`` was decided
"""
from __future__ import annotations

import argparse
import difflib
import importlib
import inspect
import json
import os
import re
import sys
import types
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ms_lint.mindspore_api import _names, _release, apply_difference
from ms_lint.tools.signature_tables import deprecation_table, init_signature, signature_tables

DATA = Path(__file__).resolve().parent.parent / "data"
DEFAULT_OUTPUT = DATA / "mindspore_api.json"
VERSIONS_OUTPUT = DATA / "mindspore_api_versions.json"

# Namespaces imported before the registry is read: importing them runs every ``@jit_forbidden_register`` and
# makes their public aliases visible to the alias scan.
_NAMESPACES = (
    "mindspore",
    "mindspore.nn",
    "mindspore.ops",
    "mindspore.mint",
    "mindspore.train",
    "mindspore.amp",
    "mindspore.common.initializer",
    "mindspore.context",
    "mindspore.log",
)
_DATASET_TRANSFORM_NAMESPACES = (
    "mindspore.dataset.vision",
    "mindspore.dataset.transforms",
    "mindspore.dataset.text",
    "mindspore.dataset.audio",
)


class TablesError(Exception):
    """The tables cannot be generated (no MindSpore, or MindSpore does not look like what this reads)."""


# --------------------------------------------------------------------------------------------------------------
# nn Cells
# --------------------------------------------------------------------------------------------------------------

@dataclass
class CellDecision:
    parameters: bool | str
    how: str


class _CellArguments:
    """Small, valid constructor arguments for ``mindspore.nn`` classes, chosen by parameter name.

    Cells and parameters handed to a constructor are recorded so that parameters an instance merely holds
    (those of the cells given to it) can be told apart from parameters it creates itself.
    """

    # Values for required constructor parameters, by name; anything not listed gets a small int.
    _SCALARS: dict[str, Any] = {
        "learning_rate": 0.1,
        "min_lr": 0.01,
        "max_lr": 0.1,
        "end_learning_rate": 0.01,
        "decay_rate": 0.9,
        "momentum": 0.9,
        "power": 0.5,
        "decay_steps": 4,
        "warmup_steps": 2,
        "loss_scale_value": 1024.0,
        "scale_factor": 2,
        "scale_window": 1000,
        "central_fraction": 0.5,
        "normalized_shape": (4,),
        "padding": 1,
        "paddings": ((1, 1), (1, 1)),
        "value": 0.0,
        "threshold": 0.1,
        "axis": 0,
        "shift": 1,
        "unflattened_size": (2, 2),
        "ksizes": (1, 2, 2, 1),
        "strides": (1, 1, 1, 1),
        "rates": (1, 1, 1, 1),
        "start": 0,
        "scale": 0.5,
        "time_axis": 0,
        "micro_size": 2,
        "num_sampled": 2,
        "num_classes": 4,
        "queue_name": "ms_lint_queue",
    }
    # Classes whose usual construction is not "required arguments only".
    _KNOWN: dict[str, Callable[["_CellArguments"], tuple[tuple, dict]]] = {
        "SequentialCell": lambda a: ((a.weighted_cell(),), {}),
        "CellList": lambda a: (([a.weighted_cell()],), {}),
        "CellDict": lambda a: (({"layer": a.weighted_cell()},), {}),
        "LSTM": lambda a: ((), {"input_size": 2, "hidden_size": 2}),
        "GRU": lambda a: ((), {"input_size": 2, "hidden_size": 2}),
        "RNN": lambda a: ((), {"input_size": 2, "hidden_size": 2}),
        # The defaults build a 512-wide, 12-layer model: the same structure at toy size decides the same.
        "Transformer": lambda a: ((), {"d_model": 4, "nhead": 2, "num_encoder_layers": 1, "num_decoder_layers": 1,
                                       "dim_feedforward": 8}),
    }

    def __init__(self, ms: types.ModuleType, default_int: int) -> None:
        self.ms = ms
        self.nn = ms.nn
        self.default_int = default_int
        self.given: list[Any] = []

    def weighted_cell(self) -> Any:
        cell = self.nn.Dense(2, 2)
        self.given.append(cell)
        return cell

    def parameter_list(self) -> list:
        return list(self.weighted_cell().trainable_params())

    def optimizer(self) -> Any:
        optimizer = self.nn.Momentum(self.parameter_list(), learning_rate=0.1, momentum=0.9)
        self.given.append(optimizer)
        return optimizer

    def value_for(self, name: str) -> Any:
        ms, nn = self.ms, self.nn
        if name in ("network", "backbone", "net", "layer", "fn", "cell"):
            return self.weighted_cell()
        if name == "params":
            return self.parameter_list()
        if name == "parameters":
            return ms.ParameterTuple(self.parameter_list())
        if name == "param":
            param = ms.Parameter(ms.Tensor([1.0, 2.0], ms.float32), name="ms_lint_given")
            self.given.append(param)
            return param
        if name in ("optimizer", "opt"):
            return self.optimizer()
        if name == "loss_fn":
            return nn.MSELoss()
        if name == "scale_sense":
            return ms.Tensor(1024.0, ms.float32)
        if name == "encoder_layer":
            return nn.TransformerEncoderLayer(4, 2, dim_feedforward=8)
        if name == "decoder_layer":
            return nn.TransformerDecoderLayer(4, 2, dim_feedforward=8)
        if name == "dataset_types":
            return [ms.float32]
        if name == "dataset_shapes":
            return [(2,)]
        if name in self._SCALARS:
            return self._SCALARS[name]
        return self.default_int

    def for_class(self, cls: type) -> tuple[tuple, dict]:
        known = self._KNOWN.get(cls.__name__)
        if known is not None:
            return known(self)
        kwargs = {}
        for param in init_signature(cls).parameters.values():
            if param.default is not inspect.Parameter.empty:
                continue
            if param.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
                continue
            kwargs[param.name] = self.value_for(param.name)
        return (), kwargs

    def given_parameter_ids(self) -> set[int]:
        ids: set[int] = set()
        for item in self.given:
            if isinstance(item, self.ms.Parameter):
                ids.add(id(item))
            else:
                ids.update(id(p) for p in item.get_parameters())
        return ids


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0] if text else ''}"


def _build(cls: type, ms: types.ModuleType) -> tuple[Any, _CellArguments | None, list[str]]:
    """An instance built with small arguments (the first way that works), its arguments, and the failures."""
    errors = []
    for default_int in (4, 2):
        arguments = _CellArguments(ms, default_int)
        try:
            args, kwargs = arguments.for_class(cls)
            return cls(*args, **kwargs), arguments, errors
        except Exception as exc:  # any constructor failure means "try the next way", then read the source
            errors.append(_first_line(exc))
    arguments = _CellArguments(ms, default_int=0)
    try:
        return cls(), arguments, errors
    except Exception as exc:
        errors.append(_first_line(exc))
    return None, None, errors


_CREATES_PARAMETER = re.compile(r"\b(Parameter|ParameterTuple|initializer)\s*\(")
_STORES_GIVEN_CELL = re.compile(r"self\.\w+\s*=\s*(network|backbone|net|cell|layer|graph|opt|optimizer)\b")


def _init_sources(cls: type, stop: type) -> list[tuple[str, str]]:
    sources = []
    for klass in cls.__mro__:
        if klass is stop or not issubclass(klass, stop):
            break
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        try:
            sources.append((klass.__name__, inspect.getsource(init)))
        except (OSError, TypeError):
            continue
    return sources


def _decide_from_source(cls: type, cell_base: type, decided: dict[str, CellDecision]) -> CellDecision:
    """For classes that cannot be built here: what their constructors (own and inherited) create."""
    weighted = sorted((name for name, d in decided.items() if d.parameters is True), key=len, reverse=True)
    weighted_call = re.compile(r"\b(" + "|".join(map(re.escape, weighted)) + r")\s*\(") if weighted else None
    sources = _init_sources(cls, cell_base)
    for owner, source in sources:
        match = _CREATES_PARAMETER.search(source)
        if match:
            return CellDecision(True, f"source: {owner}.__init__ calls {match.group(1)}(")
        if weighted_call is not None:
            match = weighted_call.search(source)
            if match:
                return CellDecision(True, f"source: {owner}.__init__ builds weighted {match.group(1)}")
    for owner, source in sources:
        match = _STORES_GIVEN_CELL.search(source)
        if match:
            return CellDecision("wrapped", f"source: {owner}.__init__ keeps the given {match.group(1)!r}")
    return CellDecision(False, "source: no parameter or weighted sub-cell created")


def classify_cells(ms: types.ModuleType, namespace: types.ModuleType | None = None) -> dict[str, CellDecision]:
    """Every public Cell class of ``namespace`` (``mindspore.nn`` by default; also ``mindspore.mint.nn``)."""
    nn = namespace or ms.nn
    names = sorted(
        name for name in dir(nn)
        if not name.startswith("_") and inspect.isclass(getattr(nn, name)) and issubclass(getattr(nn, name), ms.nn.Cell)
    )
    decided: dict[str, CellDecision] = {}
    undecided: list[tuple[str, list[str]]] = []
    for name in names:
        cls = getattr(nn, name)
        instance, arguments, errors = _build(cls, ms)
        if instance is None:
            undecided.append((name, errors))
            continue
        given = arguments.given_parameter_ids()
        owned = list(instance.get_parameters())
        own = [p for p in owned if id(p) not in given]
        passed_through = [p for p in owned if id(p) in given]
        if own:
            decided[name] = CellDecision(True, f"built: owns {len(own)} parameter(s), e.g. {own[0].name!r}")
        elif passed_through:
            decided[name] = CellDecision("wrapped", f"built: only the {len(passed_through)} parameter(s) given to it")
        else:
            decided[name] = CellDecision(False, "built: no parameters")
    # Read after every buildable class is decided: a source that builds one of the weighted ones is weighted too.
    for name, errors in undecided:
        decision = _decide_from_source(getattr(nn, name), ms.nn.Cell, decided)
        decision.how += f" (cannot build: {errors[0]})"
        decided[name] = decision
    return dict(sorted(decided.items()))


# --------------------------------------------------------------------------------------------------------------
# jit-forbidden registry
# --------------------------------------------------------------------------------------------------------------

# Where MindSpore keeps the registry: 2.8 and later, then 2.7.
_REGISTRY_MODULES = ("mindspore.graph._utils.check_jit_forbidden_api", "mindspore._check_jit_forbidden_api")


def _registry(ms: types.ModuleType) -> tuple[set[str], set[str]]:
    problems = []
    for name in _REGISTRY_MODULES:
        try:
            module = importlib.import_module(name)
            return set(module.get_jit_forbidden_method()), set(module.get_jit_forbidden_module())
        except (ImportError, AttributeError) as exc:
            problems.append(f"{name}: {exc}")
    raise TablesError(f"MindSpore {ms.__version__} has no jit-forbidden registry where expected "
                      f"({'; '.join(problems)})")


def _resolve(dotted: str) -> tuple[types.ModuleType, list[str]] | None:
    """Split ``pkg.mod.Class.method`` into its longest importable module and the attribute path after it."""
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        module = sys.modules.get(".".join(parts[:cut]))
        if module is not None:
            return module, parts[cut:]
    return None


def _public_aliases(refused: Callable[[Any], bool]) -> dict[str, set[str]]:
    """Public names of every refused function or class, keyed by its defining name.

    A name is public when it is in a package namespace (``mindspore.set_context``), in a module's ``__all__``,
    or is the object's own defining name; modules with a private component are skipped.
    """
    aliases: dict[str, set[str]] = {}
    for module_name, module in sorted(sys.modules.items()):
        if module is None or not (module_name == "mindspore" or module_name.startswith("mindspore.")):
            continue
        if any(part.startswith("_") for part in module_name.split(".")):
            continue
        exported = set(getattr(module, "__all__", None) or ())
        is_package = hasattr(module, "__path__")
        for attr, obj in list(vars(module).items()):
            if attr.startswith("_") or not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            if not refused(obj):
                continue
            defining = f"{obj.__module__}.{obj.__qualname__}"
            if is_package or attr in exported or obj.__module__ == module_name:
                aliases.setdefault(defining, set()).add(f"{module_name}.{attr}")
    return aliases


def jit_forbidden_tables(ms: types.ModuleType) -> dict[str, Any]:
    methods_registered, modules = _registry(ms)
    methods: dict[str, set[str]] = {}
    functions: set[str] = set()
    for dotted in sorted(methods_registered):
        resolved = _resolve(dotted)
        if resolved is None:
            raise TablesError(f"registered API {dotted!r} is not importable")
        module, path = resolved
        if len(path) == 1:
            functions.add(dotted)
            continue
        owner = module
        for part in path[:-1]:
            owner = getattr(owner, part)
        method = path[-1]
        # Graph code constructs objects at compile time: a registered __init__ does not refuse the
        # construction (``ms.saved_tensors_hooks(...)`` compiles), so only callable methods are recorded.
        if method.startswith("__") and method.endswith("__"):
            continue
        methods.setdefault(owner.__name__, set()).add(method)

    def refused(obj: Any) -> bool:
        return getattr(obj, "__module__", None) in modules or bool(getattr(obj, "__jit_forbidden__", False))

    for defining, names in _public_aliases(refused).items():
        functions.add(defining)
        functions.update(names)
    return {
        "methods": {owner: sorted(names) for owner, names in sorted(methods.items())},
        "functions": sorted(functions),
        "modules": sorted(modules),
    }


# --------------------------------------------------------------------------------------------------------------
# Operators and dataset transforms
# --------------------------------------------------------------------------------------------------------------

def ops_tables(ms: types.ModuleType) -> tuple[list[str], list[str]]:
    ops = ms.ops
    functions, primitives = [], []
    for name in dir(ops):
        if name.startswith("_"):
            continue
        obj = getattr(ops, name)
        if inspect.ismodule(obj):
            continue
        if inspect.isclass(obj):
            if issubclass(obj, ops.Primitive) and name[0].isupper():
                primitives.append(name)
        elif name[0].islower() and callable(obj):
            functions.append(name)
    return sorted(functions), sorted(primitives)


def tensor_methods_table(ms: types.ModuleType) -> list[str]:
    names = set()
    for cls in (ms.Tensor, ms.Parameter):
        names.update(name for name in dir(cls) if not name.startswith("_"))
    return sorted(names)


# The public modules whose names ``module_names`` lists: a name read from one of them (``nn.functional``) that is not
# there raises AttributeError (ImportError in a ``from ... import``).
_NAMED_MODULES = (
    "mindspore", "mindspore.nn", "mindspore.nn.utils", "mindspore.ops", "mindspore.ops.functional",
    "mindspore.ops.operations", "mindspore.mint", "mindspore.mint.nn", "mindspore.mint.nn.functional",
    "mindspore.mint.optim", "mindspore.mint.linalg", "mindspore.mint.special", "mindspore.mint.distributed",
    "mindspore.numpy", "mindspore.common", "mindspore.common.initializer", "mindspore.common.dtype",
    "mindspore.train", "mindspore.communication", "mindspore.amp", "mindspore.context", "mindspore.dataset",
    "mindspore.parallel",
)


def module_names_table() -> dict[str, str]:
    """``{module: its names, space-separated}`` for ``_NAMED_MODULES`` that import and answer every attribute from
    their namespace (no module ``__getattr__``): what ``dir`` lists, and their submodules, imported or not."""
    import pkgutil

    table = {}
    for name in _NAMED_MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        if "__getattr__" in vars(module):
            continue  # a name dir() does not list may still be there
        names = set(dir(module))
        names.update(info.name for info in pkgutil.iter_modules(getattr(module, "__path__", None) or []))
        table[name] = " ".join(sorted(names))
    return table


def tensor_properties_table(ms: types.ModuleType) -> list[str]:
    """The public properties of ``Tensor``: read as values, so calling one (PyTorch's ``x.size(0)``) fails."""
    return sorted(name for name in dir(ms.Tensor)
                  if not name.startswith("_") and isinstance(inspect.getattr_static(ms.Tensor, name, None), property))


def dataset_transform_table() -> list[str]:
    try:
        base = importlib.import_module("mindspore.dataset.transforms.transforms")
        bases = (base.TensorOperation, base.PyTensorOperation)
    except (ImportError, AttributeError):
        return []
    names = []
    for namespace in _DATASET_TRANSFORM_NAMESPACES:
        try:
            module = importlib.import_module(namespace)
        except ImportError:
            continue
        for name in dir(module):
            obj = getattr(module, name)
            if not name.startswith("_") and inspect.isclass(obj) and issubclass(obj, bases):
                names.append(f"{namespace}.{name}")
    return sorted(names)


# --------------------------------------------------------------------------------------------------------------
# Assembly, rendering, command line
# --------------------------------------------------------------------------------------------------------------

def _import_mindspore() -> types.ModuleType:
    # MindSpore's C++ log goes straight to fd 2; errors only, so the table run stays readable.
    os.environ.setdefault("GLOG_v", "3")
    try:
        ms = importlib.import_module("mindspore")
        for namespace in _NAMESPACES:
            importlib.import_module(namespace)
    except ImportError as exc:
        raise TablesError(f"cannot import MindSpore ({exc}); install it with `pip install ms-lint[validate]`") from exc
    return ms


def build_tables(explain: dict[str, CellDecision] | None = None) -> dict[str, Any]:
    """The tables for the installed MindSpore. ``explain`` receives how each Cell was decided."""
    ms = _import_mindspore()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cells = classify_cells(ms)
        mint_cells = classify_cells(ms, importlib.import_module("mindspore.mint.nn"))
        jit_forbidden = jit_forbidden_tables(ms)
        ops_functions, ops_primitives = ops_tables(ms)
        transforms = dataset_transform_table()
        tensor_methods = tensor_methods_table(ms)
        tensor_properties = tensor_properties_table(ms)
        module_names = module_names_table()
        signatures = signature_tables(ms)
        deprecations = deprecation_table(ms)
    if explain is not None:
        explain.update(cells)
    optimizer_base = ms.nn.Optimizer
    return {
        "mindspore_version": ms.__version__,
        "nn_cells": {
            name: {"parameters": d.parameters, "optimizer": issubclass(getattr(ms.nn, name), optimizer_base)}
            for name, d in cells.items()
        },
        "mint_nn_cells": {
            name: {"parameters": d.parameters, "optimizer": False} for name, d in mint_cells.items()
        },
        "jit_forbidden": jit_forbidden,
        "ops_functions": ops_functions,
        "ops_primitives": ops_primitives,
        "dataset_transforms": transforms,
        "tensor_methods": tensor_methods,
        "tensor_properties": tensor_properties,
        "module_names": module_names,
        "signatures": signatures,
        "deprecations": deprecations,
    }


def render(tables: dict[str, Any]) -> str:
    return json.dumps(tables, sort_keys=True, indent=1, ensure_ascii=True) + "\n"


def _flatten(value: Any, prefix: str = "") -> set[str]:
    """Leaf facts as ``path = value`` lines: list items count one by one, so a summary names what changed."""
    if isinstance(value, dict):
        out: set[str] = set()
        for key, item in value.items():
            out |= _flatten(item, f"{prefix}.{key}" if prefix else str(key))
        return out
    if isinstance(value, list):
        return {f"{prefix}[] {json.dumps(item, sort_keys=True)}" for item in value}
    return {f"{prefix} = {json.dumps(value)}"}


def difference_summary(shipped: str, generated: str, limit: int = 40) -> list[str]:
    try:
        old = _flatten(json.loads(shipped))
    except json.JSONDecodeError as exc:
        return [f"shipped file is not valid JSON: {exc}"]
    new = _flatten(json.loads(generated))
    lines = [f"- {fact}" for fact in sorted(old - new)] + [f"+ {fact}" for fact in sorted(new - old)]
    if not lines:
        # Same facts, different bytes (formatting or order): show where.
        lines = list(difflib.unified_diff(shipped.splitlines(), generated.splitlines(), "shipped", "generated",
                                          lineterm="", n=0))
    if len(lines) > limit:
        lines = lines[:limit] + [f"... and {len(lines) - limit} more"]
    return lines


# The differences between two versions' tables: see ``mindspore_api.apply_difference``.
def difference(base, other, names: bool = True):
    """What turns ``base`` into ``other`` (both tables, or parts of them); None when they are equal. ``names``: a
    string holding spaces is a list of names (``module_names``), not prose (a deprecation's replacement)."""
    if base == other:
        return None
    if isinstance(base, dict) and isinstance(other, dict):
        inner = {key: names and key not in _PROSE for key in base.keys() & other.keys()}
        changed = {key: difference(base[key], other[key], inner[key]) for key in inner
                   if base[key] != other[key] and _diffable(base[key], other[key], inner[key])}
        out = {"removed": sorted(base.keys() - other.keys()),
               "set": {key: value for key, value in other.items()
                       if key not in changed and base.get(key, _MISSING) != value},
               "changed": changed}
        return {key: value for key, value in sorted(out.items()) if value}
    old, new = _names(base), _names(other)
    return {key: value for key, value in (("added", sorted(new - old)), ("removed", sorted(old - new))) if value}


_MISSING = object()
# Tables whose strings are prose: a changed one is set whole.
_PROSE = frozenset({"deprecations"})


def _diffable(base, other, names: bool = True) -> bool:
    """Whether ``difference`` says what changed inside (two dicts, two lists of names, two strings of names) rather
    than the new value."""
    if isinstance(base, dict) and isinstance(other, dict):
        return True
    if isinstance(base, list) and isinstance(other, list):
        return all(isinstance(item, str) for item in [*base, *other])
    return names and isinstance(base, str) and isinstance(other, str) and (" " in base or " " in other)


def shipped_tables(newest_path: Path = DEFAULT_OUTPUT, versions_path: Path = VERSIONS_OUTPUT) -> dict[str, dict]:
    """Every shipped version's whole tables, by version."""
    newest = json.loads(newest_path.read_text(encoding="utf-8"))
    versions = json.loads(versions_path.read_text(encoding="utf-8")) if versions_path.exists() else {}
    whole = {version: apply_difference(newest, change) for version, change in versions.items()}
    whole[newest["mindspore_version"]] = newest
    return whole


def render_shipped(whole: dict[str, dict]) -> tuple[str, str]:
    """The two shipped files for ``whole`` (tables by version): the newest version's tables, and the others'
    differences from them."""
    newest = max(whole, key=_release)
    base = whole[newest]
    others = {version: difference(base, tables) for version, tables in whole.items() if version != newest}
    return render(base), render(others)


def _check(generated: str, shipped: str | None, where: str) -> int:
    version = json.loads(generated)["mindspore_version"]
    if shipped is None:
        print(f"{where}: has no tables for MindSpore {version}")
    elif shipped == generated:
        print(f"{where}: up to date with MindSpore {version}")
        return 0
    else:
        print(f"{where}: differs from what the installed MindSpore {version} gives:")
        for line in difference_summary(shipped, generated):
            print(f"  {line}")
    print("regenerate with: python -m ms_lint.tools.generate_tables")
    return 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ms_lint.tools.generate_tables",
        description="Regenerate ms-lint's MindSpore API tables from the installed MindSpore.",
    )
    parser.add_argument("--output", type=Path, default=None,
                        help=f"one whole tables file to write or check (default: the installed version's tables "
                             f"among the shipped ones, {DEFAULT_OUTPUT} and {VERSIONS_OUTPUT.name})")
    parser.add_argument("--check", action="store_true",
                        help="do not write; exit 1 and summarise the differences when the tables are stale")
    parser.add_argument("--explain", action="store_true",
                        help="also print how each nn Cell's 'parameters' value was decided")
    args = parser.parse_args(argv)

    explain: dict[str, CellDecision] = {}
    try:
        tables = build_tables(explain)
    except TablesError as exc:
        print(f"generate_tables: error: {exc}", file=sys.stderr)
        return 2
    generated = render(tables)
    if args.explain:
        for name, decision in explain.items():
            print(f"{name:32} {json.dumps(decision.parameters):10} {decision.how}")

    try:
        if args.output is not None:
            if args.check:
                return _check(generated, args.output.read_text(encoding="utf-8"), str(args.output))
            writes = {args.output: generated}
        else:
            whole = shipped_tables()
            if args.check:
                shipped = whole.get(tables["mindspore_version"])
                return _check(generated, None if shipped is None else render(shipped), str(DATA))
            whole[tables["mindspore_version"]] = json.loads(generated)
            writes = dict(zip((DEFAULT_OUTPUT, VERSIONS_OUTPUT), render_shipped(whole)))
    except OSError as exc:
        print(f"generate_tables: {exc.filename}: cannot read ({exc.strerror})", file=sys.stderr)
        return 1
    for path, text in writes.items():
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            print(f"generate_tables: {path}: cannot write ({exc.strerror})", file=sys.stderr)
            return 2
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
