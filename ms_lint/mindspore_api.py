"""What ms-lint knows about MindSpore's and other libraries' names.

Generated facts (which ``mindspore.nn`` classes are Cells and own parameters, which APIs MindSpore refuses in graph
code) come from ``data/mindspore_api.json``, written by ``python -m ms_lint.tools.generate_tables`` from the
installed MindSpore. Hand-kept facts (host libraries, random functions) are below, each with its reason.
"""
from __future__ import annotations

import ast

import json
from functools import lru_cache
from importlib import resources
from typing import Iterable, NamedTuple

MINDSPORE = "mindspore"
# A table of names asked only ``name in table`` (see _name_set).
NameSet = dict[str, None]

# Libraries whose calls run on the host, in Python: on tensor values they fail to compile under STRICT, and their
# arrays are not tensors. MindSpore's own modules (mindspore.numpy, mindspore.scipy) are graph-capable and excluded.
HOST_LIBRARIES = frozenset({
    "numpy", "scipy", "math", "cmath", "torch", "pandas", "cv2", "PIL", "sklearn", "skimage", "tensorflow",
    "jax", "statistics", "numba", "cupy", "paddle", "imageio",
})

# numpy/scipy calls that build an array from nothing: their result is a host array even from constant arguments.
ARRAY_CONSTRUCTORS = frozenset({
    "array", "asarray", "ascontiguousarray", "ones", "zeros", "full", "empty", "arange", "linspace", "logspace",
    "eye", "identity", "ones_like", "zeros_like", "full_like", "empty_like", "tile", "repeat", "stack",
    "concatenate", "meshgrid", "tril", "triu", "diag", "frombuffer", "fromfunction", "load", "loadtxt",
    "tensor", "from_numpy", "randn", "rand", "randint", "normal", "uniform",
})

# Libraries whose objects are host values that never hold tensor data: symbolic algebra (``sympy.Integer(n)``), what
# is parsed from files and text (``json.load(f)``, ``yaml.safe_load(f)``, ``re.match(...)``), paths and clocks. Graph
# code reads them as constants, whatever they are built from; what their methods return is a host value too.
HOST_VALUE_LIBRARIES = frozenset({
    "sympy", "json", "yaml", "pickle", "csv", "re", "string", "pathlib", "os", "time", "datetime", "argparse",
    "configparser", "shlex", "glob", "fnmatch",
})

# Host random sources: in graph code they run once at compile time, so every step sees the same draw (MS104).
HOST_RANDOM_MODULES = frozenset({"numpy.random", "random", "torch.random", "secrets"})
HOST_RANDOM_FUNCTIONS = frozenset({
    "torch.rand", "torch.randn", "torch.randint", "torch.randperm", "torch.rand_like", "torch.randn_like",
    "torch.randint_like", "torch.normal", "torch.bernoulli", "torch.multinomial", "torch.poisson",
    "os.urandom", "uuid.uuid4",
})

# Host concurrency and processes: started from graph code, they run once while the graph compiles (MS105).
HOST_CONCURRENCY_MODULES = frozenset({"threading", "multiprocessing", "concurrent", "subprocess", "_thread", "asyncio"})
HOST_PROCESS_FUNCTIONS = frozenset({
    "os.system", "os.popen", "os.fork", "os.forkpty", "os.spawnl", "os.spawnv", "os.spawnlp", "os.spawnvp",
    "os.execv", "os.execl", "os.posix_spawn", "os.kill",
})

# Tensor attributes and methods whose value is known at compile time (shapes and types, not data).
STATIC_TENSOR_ATTRIBUTES = frozenset({"shape", "ndim", "dtype", "size", "itemsize", "nbytes", "strides"})
# `size()` is the PyTorch spelling of the shape, kept by many ports.
STATIC_TENSOR_METHODS = frozenset({"dim", "ndimension", "numel", "nelement", "dtype", "is_contiguous", "size"})
# Tensor methods that copy the data to the host.
HOST_CONVERSION_METHODS = frozenset({"asnumpy", "tolist", "numpy"})
# MindSpore functions whose result is static (a shape, a rank, a dtype), not a tensor.
STATIC_MINDSPORE_FUNCTIONS = frozenset({
    "mindspore.ops.shape", "mindspore.ops.rank", "mindspore.ops.dtype", "mindspore.ops.functional.shape",
    "mindspore.ops.functional.rank", "mindspore.ops.functional.dtype", "mindspore.ops.function.shape",
    "mindspore.ops.operations.Shape", "mindspore.ops.size",
})
# Operator classes whose call gives a static value (a shape, a rank, a dtype), not a tensor: ``P.Shape()(x)``.
STATIC_PRIMITIVES = frozenset({"Shape", "Rank", "DType"})
# Common names of the parameters a MindSpore layer owns, read through ``self.layer.<name>`` in graph code.
LAYER_PARAMETER_NAMES = frozenset({
    "weight", "bias", "gamma", "beta", "moving_mean", "moving_variance", "embedding_table", "alpha",
})
# Base classes of MindSpore operators: a subclass is a custom operator, built and called in graph code.
# The names an ``nn.Cell()`` instance has besides the dunder ones (``dir``, 2.7.1 and 2.10.0 together): what a
# Cell's own code may read from ``self`` without setting it (``self.training``, ``self.phase``, ``self.cls_name``).
# tests/test_ground_truth_mapping.py checks the installed MindSpore's Cell has no other.
CELL_INSTANCE_NAMES = frozenset({
    'IGNORE_LIST', 'T_destination', '_add_attr', '_add_init_args', '_add_mixed_precision_flag', '_amp_level',
    '_apply', '_auto_prefix', '_backward_hook', '_backward_pre_hook', '_bprop_debug', '_buffers',
    '_call_custom_bprop', '_call_post_process', '_call_pre_process', '_cell_backward_hook',
    '_cell_backward_pre_hook', '_cell_tag', '_cells', '_check_construct_args', '_check_parameter_consistency',
    '_children_scope_recursive', '_compile_cache', '_compile_phase', '_compiled', '_complex_call', '_construct_sig',
    '_create_time', '_del_attr', '_dynamic_shape_inputs', '_exist_names', '_exist_objs', '_forward_hook',
    '_forward_hook_always_called', '_forward_hook_with_kwargs', '_forward_pre_hook',
    '_forward_pre_hook_with_kwargs', '_get_attr_from_cell', '_get_cell_parallel_mode', '_get_compile_args',
    '_get_name', '_get_prims_recursively', '_has_config_recompute', '_has_mutable_args_list', '_id', '_in_strategy',
    '_init_check', '_init_flag', '_is_check_and_refresh', '_is_recursion_hook', '_jit_backward_hook',
    '_jit_backward_pre_hook', '_jit_config_dict', '_jit_forward_hook', '_jit_forward_pre_hook', '_jit_graph_name',
    '_lazy_backward_hook', '_lazy_backward_pre_hook', '_lazy_construct_sig', '_lazy_forward_hook',
    '_lazy_forward_hook_always_called', '_lazy_forward_hook_with_kwargs', '_lazy_forward_pre_hook',
    '_lazy_forward_pre_hook_with_kwargs', '_lazy_load_state_dict_post_hooks', '_lazy_load_state_dict_pre_hooks',
    '_lazy_non_persistent_buffers_set', '_lazy_state_dict_hooks', '_lazy_state_dict_pre_hooks',
    '_lazy_user_parameters', '_load_from_state_dict', '_load_state_dict_post_hooks', '_load_state_dict_pre_hooks',
    '_mp_comm_recompute', '_named_members', '_no_auto_lazy_inline', '_non_persistent_buffers_set', '_out_strategy',
    '_parallel_optimizer_comm_recompute', '_parallel_parameter_merge_net_dict', '_parallel_parameter_name_list',
    '_param_prefix', '_parameter_layout_dict', '_params', '_params_list', '_phase', '_phase_cache', '_predict',
    '_primitives', '_recompute', '_recompute_cell', '_recompute_slice_activation', '_run_construct',
    '_run_forward_hook', '_run_forward_pre_hook', '_run_grad_construct', '_save_to_state_dict',
    '_saved_tensors_pack_hook', '_saved_tensors_unpack_hook', '_scope', '_self_check', '_set_attr_for_cell',
    '_set_attr_for_object', '_set_attr_for_param_or_param_tuple', '_set_attr_for_parameter_in_list_or_tuple',
    '_set_attr_for_params', '_set_jit_graph_name', '_set_recompute_scope', '_set_scope', '_shard_fn',
    '_state_dict_hooks', '_state_dict_pre_hooks', '_update_local_parameters_name', '_user_parameters', 'add_flags',
    'add_flags_recursive', 'apply', 'arguments_key', 'bprop_debug', 'buffers', 'cast_inputs', 'cell_init_args',
    'cell_type', 'cells', 'cells_and_names', 'check_names', 'check_names_and_refresh_name', 'cls_name', 'compile',
    'compile_and_run', 'compile_cache', 'compile_phase', 'compiled', 'construct', 'create_time',
    'enable_backward_hook', 'exist_names', 'exist_objs', 'extend_repr', 'generate_scope', 'get_buffer',
    'get_extra_state', 'get_flags', 'get_func_graph_proto', 'get_inputs', 'get_mixed_precision_type',
    'get_parameters', 'get_scope', 'get_sub_cell', 'global_cells', 'grad_ops_label', 'has_bprop',
    'init_parameters_data', 'insert_child_to_cell', 'insert_param_to_cell', 'is_top_cell', 'jit_config_dict',
    'load_state_dict', 'mixed_precision_type', 'name_cells', 'named_buffers', 'offload',
    'parallel_parameter_merge_net_dict', 'parallel_parameter_name_list', 'param_prefix', 'parameter_layout_dict',
    'parameters_and_names', 'parameters_broadcast_dict', 'parameters_dict', 'phase', 'phase_cache',
    'pipeline_segment', 'pipeline_stage', 'recompute', 'register_backward_hook', 'register_backward_pre_hook',
    'register_buffer', 'register_forward_hook', 'register_forward_pre_hook', 'register_load_state_dict_post_hook',
    'register_load_state_dict_pre_hook', 'register_parameter_forward_hook', 'register_saved_tensors_hooks',
    'register_state_dict_post_hook', 'register_state_dict_pre_hook', 'remove_redundant_parameters', 'requires_grad',
    'run_construct', 'set_boost', 'set_broadcast_flag', 'set_comm_fusion', 'set_data_parallel', 'set_extra_state',
    'set_grad', 'set_inputs', 'set_jit_config', 'set_mixed_precision_type', 'set_train', 'shard', 'state_dict',
    'to', 'to_empty', 'to_float', 'total_instance_count', 'trainable_params', 'training', 'untrainable_params',
    'update_cell_prefix', 'update_cell_type', 'update_parameters_name', 'update_parameters_nameIGNORE_LIST'
})
PRIMITIVE_BASES = frozenset({"Primitive", "PrimitiveWithInfer", "PrimitiveWithCheck", "Custom"})
CELL_CONTAINERS = frozenset({"CellList", "SequentialCell", "CellDict"})
# The attributes the constructor of a MindSpore class creates as Parameters or ParameterTuples, by class: a subclass's
# graph code may update them (``self.beta1_power *= self.beta1`` in an ``nn.Adam`` subclass). Every optimizer has
# its base's (``Optimizer``); ``Conv*`` and ``Dense`` have ``bias`` when built with it. Read from each class built with
# small arguments on 2.10 and 2.7.1 alike (tests/test_ground_truth_values.py builds them again).
_OPTIMIZER_BASE = ("_parameters", "parameters", "learning_rate", "global_step")
_CONVOLUTION_PARAMETERS = ("weight", "bias")
_NORM_PARAMETERS = ("gamma", "beta")
BASE_PARAMETER_ATTRIBUTES: dict[str, frozenset[str]] = {name: frozenset(attributes) for name, attributes in {
    "Optimizer": _OPTIMIZER_BASE,
    "Adam": (*_OPTIMIZER_BASE, "beta1_power", "beta2_power", "moment1", "moment2"),
    "AdamOffload": (*_OPTIMIZER_BASE, "beta1_power", "beta2_power", "moment1", "moment2", "params"),
    "LazyAdam": (*_OPTIMIZER_BASE, "beta1_power", "beta2_power", "moment1", "moment2"),
    "AdaMax": (*_OPTIMIZER_BASE, "beta1_power", "moment1", "moment2"),
    "AdamWeightDecay": (*_OPTIMIZER_BASE, "moments1", "moments2"),
    "Lamb": (*_OPTIMIZER_BASE, "moments1", "moments2", "params"),
    "Momentum": (*_OPTIMIZER_BASE, "moments", "momentum", "params"),
    "SGD": (*_OPTIMIZER_BASE, "accum", "momentum", "stat"),
    "Adagrad": (*_OPTIMIZER_BASE, "accum"),
    "ProximalAdagrad": (*_OPTIMIZER_BASE, "accum"),
    "Adadelta": (*_OPTIMIZER_BASE, "accum", "accum_update"),
    "ASGD": (*_OPTIMIZER_BASE, "ax", "eta", "mu"),
    "AdaFactor": (*_OPTIMIZER_BASE, "exp_avg", "exp_avg_sq", "exp_avg_sq_col", "exp_avg_sq_row", "step"),
    "FTRL": (*_OPTIMIZER_BASE, "linear", "moments"),
    "RMSProp": (*_OPTIMIZER_BASE, "moment", "ms"),
    "Rprop": (*_OPTIMIZER_BASE, "prev", "step_size"),
    "Dense": _CONVOLUTION_PARAMETERS,
    "Conv1d": _CONVOLUTION_PARAMETERS, "Conv2d": _CONVOLUTION_PARAMETERS, "Conv3d": _CONVOLUTION_PARAMETERS,
    "Conv1dTranspose": _CONVOLUTION_PARAMETERS, "Conv2dTranspose": _CONVOLUTION_PARAMETERS,
    "Conv3dTranspose": _CONVOLUTION_PARAMETERS,
    "BatchNorm1d": (*_NORM_PARAMETERS, "moving_mean", "moving_variance"),
    "BatchNorm2d": (*_NORM_PARAMETERS, "moving_mean", "moving_variance"),
    "LayerNorm": _NORM_PARAMETERS, "GroupNorm": _NORM_PARAMETERS,
    "Embedding": ("embedding_table",),
    "PReLU": ("w",),
}.items()}
PARAMETER_CONTAINERS = frozenset({"ParameterTuple"})


def is_host_random(qualname: str | None) -> bool:
    if not qualname:
        return False
    return qualname in HOST_RANDOM_FUNCTIONS or any(
        qualname.startswith(module + ".") for module in HOST_RANDOM_MODULES)


def is_host_concurrency(qualname: str | None) -> bool:
    return bool(qualname) and (top_package(qualname) in HOST_CONCURRENCY_MODULES or qualname in HOST_PROCESS_FUNCTIONS)


def top_package(qualname: str) -> str:
    return qualname.split(".", 1)[0]


_MINDSPORE_PREFIX = MINDSPORE + "."


def is_mindspore(qualname: str | None) -> bool:
    return bool(qualname) and (qualname == MINDSPORE or qualname.startswith(_MINDSPORE_PREFIX))


def is_host_library(qualname: str | None) -> bool:
    return bool(qualname) and top_package(qualname) in HOST_LIBRARIES


def last_name(qualname: str) -> str:
    return qualname.rsplit(".", 1)[-1]


def is_mindspore_name(qualname: str | None, *names: str) -> bool:
    """``qualname`` is a MindSpore object whose own name is one of ``names``, through any public or private path.

    MindSpore re-exports most objects from several modules (``mindspore.Parameter``,
    ``mindspore.common.parameter.Parameter``), so the last component decides, inside the ``mindspore`` package.
    """
    return is_mindspore(qualname) and last_name(qualname) in names


def is_nn_name(qualname: str | None) -> bool:
    return bool(qualname) and qualname.startswith("mindspore.nn.")


def is_mint_nn_name(qualname: str | None) -> bool:
    return bool(qualname) and qualname.startswith("mindspore.mint.nn.")


# The newest tables, whole; every other version as its differences from them (``apply_difference``).
NEWEST_FILE = "data/mindspore_api.json"
VERSIONS_FILE = "data/mindspore_api_versions.json"


def _read_data(name: str) -> dict:
    with resources.files("ms_lint").joinpath(name).open("r", encoding="utf-8") as handle:
        return json.load(handle)


@lru_cache(maxsize=1)
def _shipped() -> tuple[tuple[tuple[int, ...], str], ...]:
    """The versions tables are shipped for, ``((release numbers, version), ...)`` oldest first."""
    versions = {_newest()["mindspore_version"], *_differences()}
    return tuple(sorted((_release(v), v) for v in versions))


@lru_cache(maxsize=1)
def _newest() -> dict:
    return _arrays_as_tuples(_read_data(NEWEST_FILE))


@lru_cache(maxsize=1)
def _differences() -> dict:
    return _read_optional(VERSIONS_FILE)


def _read_optional(name: str) -> dict:
    """A shipped table that may be absent (empty then), its arrays as tuples."""
    try:
        return _arrays_as_tuples(_read_data(name))
    except FileNotFoundError:
        return {}


@lru_cache(maxsize=256)
def _release(version: str) -> tuple[int, ...]:
    """``2.7.1.post1`` -> ``(2, 7, 1)``, ``2.10`` -> ``(2, 10, 0)``: the release numbers, padded for comparison."""
    from ms_lint.settings import parse_version

    numbers = parse_version(version)
    return numbers + (0,) * (3 - len(numbers))


@lru_cache(maxsize=16)
def at_least(version: str, release: tuple[int, ...]) -> bool:
    """Whether MindSpore ``version`` ("" = the newest shipped tables' version) is ``release`` or newer."""
    return _release(version or tables_version()) >= release


@lru_cache(maxsize=256)
def tables_version(version: str = "") -> str:
    """The shipped tables that answer for MindSpore ``version`` ("" = the newest): its own, else the nearest newer
    ones (a release between two shipped ones), else the newest (a newer release) or the oldest (an older one)."""
    shipped = _shipped()
    wanted = _release(version) if version else ()
    if not wanted:
        return shipped[-1][1]
    for release, name in shipped:
        if release >= wanted:
            return name
    return shipped[-1][1]


def version_note(version: str) -> str | None:
    """A sentence for the user when ``version`` has no tables of its own (checked against another version's), else
    None. Say it once per run, beside the target."""
    if not version:
        return None
    used = tables_version(version)
    if _release(used) == _release(version):
        return None
    oldest, newest = _shipped()[0][1], _shipped()[-1][1]
    if _release(version) > _release(newest):
        why = f"newer than the newest ms-lint knows ({newest})"
    elif _release(version) < _release(oldest):
        why = f"older than the oldest ms-lint knows ({oldest})"
    else:
        why = "not one ms-lint has tables for"
    if _release(version) < _release(oldest):  # see ``answering_tables``
        return (f"MindSpore {version} is {why}: the names, signatures and deprecations it has are unknown, so "
                f"MS607, MS610 and MS612 make no claim about it; other names are checked against MindSpore "
                f"{used}'s API tables")
    return f"MindSpore {version} is {why}: its names are checked against MindSpore {used}'s API tables"


def older_than_tables(version: str) -> bool:
    """Whether ``version`` is older than the oldest version ms-lint ships tables for (those answer for it)."""
    return bool(version) and _release(version) < _shipped()[0][0]


def answering_tables(versions: Iterable[str]) -> tuple[str, ...]:
    """The shipped tables' versions that answer for ``versions`` (a target's judged versions), each once, oldest
    first. A version older than every shipped wheel's tables has none: a name or signature those tables lack may
    well be in it, so what it has is unknown, and a claim about it is not made."""
    return tuple(dict.fromkeys(tables_version(version) for version in versions if not older_than_tables(version)))


def shipped_versions() -> tuple[str, ...]:
    """The MindSpore versions ms-lint ships API tables for, oldest first."""
    return tuple(name for _, name in _shipped())


def tables(version: str = "") -> dict:
    """The generated tables for MindSpore ``version`` ("" = the newest shipped; see ``tables_version``)."""
    return _tables(tables_version(version))


@lru_cache(maxsize=None)  # one entry per shipped version asked for: usually one per run
def _tables(shipped: str) -> dict:
    newest = _newest()
    if shipped == newest["mindspore_version"]:
        return newest
    return _arrays_as_tuples(apply_difference(newest, _differences()[shipped]))


# A difference between two tables (``generate_tables.difference`` writes them): for a dict, the keys it ``removed``,
# the keys ``set`` to a whole new value, and the keys ``changed`` with a difference of their own; for a list of
# names, or a string of space-separated names, the names ``added`` and ``removed``.
def _names(value) -> set[str]:
    return set(value.split()) if isinstance(value, str) else set(value)


def apply_difference(base, change):
    """``base`` with ``change`` (from ``difference``) applied."""
    if not change:
        return base
    if isinstance(base, dict):
        out = {key: value for key, value in base.items() if key not in change.get("removed", ())}
        out.update(change.get("set", {}))
        for key, sub in change.get("changed", {}).items():
            out[key] = apply_difference(base[key], sub)
        return dict(sorted(out.items()))
    names = (_names(base) | set(change.get("added", ()))) - set(change.get("removed", ()))
    return " ".join(sorted(names)) if isinstance(base, str) else sorted(names)


def _name_set(names: Iterable[str]) -> NameSet:
    """``names`` as a dict's keys, which answer ``in`` as fast as a frozenset's: the garbage collector stops tracking
    a dict of strings, never a set, so the large name tables (thousands of names, alive as long as the process) are
    not walked by every full collection of a long flake8 run."""
    return dict.fromkeys(names)


def _arrays_as_tuples(value):
    """The tables with their arrays as tuples: they live as long as the process, and the garbage collector stops
    tracking tuples (and dicts) of strings, never a list or a set, so a long flake8 run's full collections need not
    walk them each time."""
    if isinstance(value, list):
        return tuple(_arrays_as_tuples(item) for item in value)
    if isinstance(value, dict):
        return {key: _arrays_as_tuples(item) for key, item in value.items()}
    return value


def nn_cell_entry(qualname: str | None, version: str = "") -> dict | None:
    """The generated entry for a Cell class of ``mindspore.nn`` or ``mindspore.mint.nn`` (whose layers are Cells
    with the same meaning), or None when ``qualname`` is not one."""
    if is_nn_name(qualname):
        table = "nn_cells"
    elif is_mint_nn_name(qualname):
        table = "mint_nn_cells"
    else:
        return None
    name = last_name(qualname)
    if name == "Cell":
        return {"parameters": False, "optimizer": False}
    return tables(version)[table].get(name)


# Every attribute some MindSpore class creates as a Parameter: only these can be one a base class made.
CREATED_PARAMETER_NAMES = frozenset(name for names in BASE_PARAMETER_ATTRIBUTES.values() for name in names)


def base_parameter_attributes(qualname: str | None, version: str = "") -> frozenset[str]:
    """The attributes an instance of the ``mindspore.nn`` class ``qualname`` holds as Parameters (or
    ParameterTuples) once its constructor ran (``BASE_PARAMETER_ATTRIBUTES``; an optimizer not listed has its base
    ``Optimizer``'s); empty for any other class."""
    entry = nn_cell_entry(qualname, version) if is_nn_name(qualname) else None
    if entry is None:
        return frozenset()
    found = BASE_PARAMETER_ATTRIBUTES.get(last_name(qualname))
    if found is None and entry.get("optimizer"):
        found = BASE_PARAMETER_ATTRIBUTES["Optimizer"]
    return found or frozenset()


def is_mindspore_cell_class(qualname: str | None) -> bool:
    return nn_cell_entry(qualname) is not None


# Where MindSpore keeps its PyTorch-style optimizers (``mint.optim.AdamW``; the classes derive from
# ``experimental.optim.Optimizer``, a Cell without ``zero_grad``: measured 2.10 and 2.7.1).
_OPTIMIZER_PACKAGES = ("mindspore.mint.optim.", "mindspore.experimental.optim.")


def is_optimizer_class(qualname: str | None) -> bool:
    """Whether ``qualname`` is a MindSpore optimizer class: one of ``nn``'s (``nn_cell_entry`` says ``optimizer``)
    or a class of ``mint.optim``/``experimental.optim`` (a capitalised name; ``lr_scheduler`` is a module)."""
    if not qualname:
        return False
    if (nn_cell_entry(qualname) or {}).get("optimizer"):
        return True
    name = last_name(qualname)
    return qualname.startswith(_OPTIMIZER_PACKAGES) and name[:1].isupper() and qualname.count(".") == 3


def tensor_methods(version: str = "") -> NameSet:
    """Every public attribute of MindSpore ``version``'s ``Tensor`` and ``Parameter`` (generated)."""
    return _tensor_methods(tables_version(version))


@lru_cache(maxsize=None)
def _tensor_methods(shipped: str) -> NameSet:
    return _name_set(_tables(shipped).get("tensor_methods", ()))


@lru_cache(maxsize=4096)  # asked for every call of a layer and every dotted read of a MindSpore module
def first_missing(qualname: str, version: str = "") -> tuple[str, str] | None:
    """``(module, name)`` for the first name of the dotted ``qualname`` that its module does not have in MindSpore
    ``version`` (``("mindspore.nn", "transformer")`` for ``mindspore.nn.transformer.TransformerEncoder``, a module
    of older versions), going down from ``mindspore`` while the tables know the module; None when every name read is
    there, or the path leaves what the tables know (a private module)."""
    owner, _, rest = qualname.partition(".")
    for part in rest.split(".") if rest else ():
        names = module_names(owner, version)
        if names is None:
            return None
        if part not in names:
            return owner, part
        owner = f"{owner}.{part}"
    return None


def cell_keywords(qualname: str | None, version: str = "") -> tuple[str, ...] | None:
    """The keyword names the MindSpore Cell ``qualname`` (``mindspore.nn.Dense``) takes in MindSpore ``version``;
    None when it is not one of the generated table's Cells (unknown, or its constructor takes ``**kwargs``), or when
    ``qualname`` names a path that version does not have (``mindspore.nn.transformer.TransformerEncoder`` is an
    older version's class, not ``nn.TransformerEncoder``). Read from the constructor's signature (``signatures``)."""
    if qualname is not None and first_missing(qualname, version) is not None:
        return None
    if is_mint_nn_name(qualname):
        return _cell_keywords(tables_version(version)).get(f"mindspore.mint.nn.{last_name(qualname)}")
    if is_nn_name(qualname):
        return _cell_keywords(tables_version(version)).get(f"mindspore.nn.{last_name(qualname)}")
    return None


def keywords_not_taken(qualname: str | None, call: ast.Call, version: str = "") -> list[str]:
    """The keywords ``call`` of the MindSpore Cell ``qualname`` passes that its constructor does not take in
    ``version`` (building it raises TypeError before anything else is checked); empty when unknown."""
    accepted = cell_keywords(qualname, version) if call.keywords else None
    if accepted is None:
        return []
    return [keyword.arg for keyword in call.keywords if keyword.arg is not None and keyword.arg not in accepted]


@lru_cache(maxsize=1)
def optimizer_names() -> frozenset[str]:
    """The class names of the optimizers of ``mindspore.nn`` and ``mindspore.mint.nn`` (``nn_cell_entry`` says
    ``optimizer``)."""
    return frozenset(name for table in ("nn_cells", "mint_nn_cells") for name, entry in tables()[table].items()
                     if entry.get("optimizer"))


def cell_class_names(version: str = "") -> tuple[str, ...]:
    """The class names of the Cells ``cell_keywords`` knows (``Dense``, ``Linear``...)."""
    return _cell_class_names(tables_version(version))


@lru_cache(maxsize=None)
def _cell_class_names(shipped: str) -> tuple[str, ...]:
    return tuple(sorted({last_name(name) for name in _cell_keywords(shipped)}))


@lru_cache(maxsize=None)
def _cell_keywords(shipped: str) -> dict[str, tuple[str, ...]]:
    """``{"mindspore.nn.Dense": its constructor's keyword names}`` for the Cells of ``mindspore.nn`` and
    ``mindspore.mint.nn`` whose constructor takes no ``**kwargs`` (a few keywords each: a tuple answers ``in`` as
    fast as a set)."""
    table = {}
    for cells, namespace in (("nn_cells", "mindspore.nn"), ("mint_nn_cells", "mindspore.mint.nn")):
        for name in _tables(shipped)[cells]:
            overloads = signatures(f"{namespace}.{name}", shipped)
            if overloads is not None and len(overloads) == 1 and not overloads[0].var_keyword:
                table[f"{namespace}.{name}"] = tuple(sorted(overloads[0].keywords))
    return table


def module_names(module: str, version: str = "") -> NameSet | None:
    """The names MindSpore ``version``'s module ``module`` has, submodules included (generated); None when the
    table does not list that module."""
    return _module_names(tables_version(version)).get(module)


@lru_cache(maxsize=None)
def _module_names(shipped: str) -> dict[str, NameSet]:
    return {module: _name_set(names.split()) for module, names in _tables(shipped).get("module_names", {}).items()}


class JitForbidden(NamedTuple):
    """MindSpore's jit-forbidden registry (generated): what graph code may not call."""

    functions: NameSet  # qualified names of functions
    modules: tuple[str, ...]  # prefixes (``mindspore.context.``) of modules none of whose functions may be called
    methods: dict[str, NameSet]  # owner (``Cell``, ``Tensor``, ``Parameter``) -> its forbidden methods


def jit_forbidden(version: str = "") -> JitForbidden:
    """MindSpore ``version``'s jit-forbidden registry."""
    return _jit_forbidden(tables_version(version))


@lru_cache(maxsize=None)
def _jit_forbidden(shipped: str) -> JitForbidden:
    forbidden = _tables(shipped)["jit_forbidden"]
    return JitForbidden(_name_set(forbidden["functions"]), tuple(name + "." for name in forbidden["modules"]),
                        {owner: _name_set(names) for owner, names in forbidden["methods"].items()})


def mindspore_version(version: str = "") -> str:
    """The MindSpore version of the tables that answer for ``version`` ("" = the newest shipped)."""
    return tables_version(version)


def tensor_properties(version: str = "") -> NameSet:
    """The public properties of MindSpore ``version``'s ``Tensor`` (generated): ``size`` is one."""
    return _tensor_properties(tables_version(version))


@lru_cache(maxsize=None)
def _tensor_properties(shipped: str) -> NameSet:
    return _name_set(_tables(shipped).get("tensor_properties", ()))


# --------------------------------------------------------------------------------------------- signatures
# The generated ``signatures`` table (``ms_lint.tools.signature_tables`` says how it is read): per namespace, per
# public callable, its overloads, each a parameter list as Python writes one; ``name=?`` for a parameter MindSpore's
# argument parser names without saying its default; ``["?"]`` where neither Python nor the parser can say.
UNREADABLE = "?"
TENSOR = "mindspore.Tensor"
# A namespace that stores only where it differs from another's (``signature_tables.SIGNATURE_FALLBACK``).
_SIGNATURE_FALLBACK = {"mindspore.ops.functional": "mindspore.ops"}


class Overload(NamedTuple):
    """One form a callable takes."""

    text: str  # as the table writes it: ``input, dim=None, *, dtype=None``
    positional: tuple[str, ...]  # the parameters a positional argument fills, in order
    positional_only: int  # how many of them take no keyword
    keywords: frozenset[str]  # the names a keyword argument may take
    required: tuple[str, ...]  # the parameters without a default (never those whose default is not said)
    var_positional: bool
    var_keyword: bool
    stated: bool  # False for a form MindSpore's parser lists: its defaults are not said, and it packs a sequence

    @property
    def most_positional(self) -> int | None:
        """How many positional arguments it takes at most; None when any number (``*args``, or a parser's form,
        which packs separate integers into a sequence parameter: ``x.permute(0, 2, 1)``)."""
        return None if self.var_positional or not self.stated else len(self.positional)


def signatures(qualname: str | None, version: str = "") -> tuple[Overload, ...] | None:
    """The forms MindSpore ``version``'s public callable ``qualname`` takes (``mindspore.ops.softmax``,
    ``mindspore.nn.Dense``, ``mindspore.Tensor.sum`` for a Tensor method); None where the tables do not say (not a
    public name of a tabled namespace, or one whose signature cannot be read)."""
    if not qualname:
        return None
    namespace, _, name = qualname.rpartition(".")
    return _signature(tables_version(version), namespace, name)


@lru_cache(maxsize=4096)
def _signature(shipped: str, namespace: str, name: str) -> tuple[Overload, ...] | None:
    table = _tables(shipped).get("signatures", {})
    forms = table.get(namespace, {}).get(name)
    shared = _SIGNATURE_FALLBACK.get(namespace)
    if forms is None and shared is not None and name in (module_names(namespace, shipped) or ()):
        forms = table.get(shared, {}).get(name)
    if not forms or UNREADABLE in forms:
        return None
    return tuple(_overload(text) for text in forms)


@lru_cache(maxsize=4096)
def _overload(text: str) -> Overload:
    positional: list[str] = []
    keywords: list[str] = []
    required: list[str] = []
    positional_only = 0
    var_positional = var_keyword = keyword_only = False
    stated = True
    for part in parameters_text(text):
        if part == "/":
            positional_only = len(positional)
        elif part == "*":
            keyword_only = True
        elif part.startswith("**"):
            var_keyword = True
        elif part.startswith("*"):
            var_positional = keyword_only = True
        else:
            name, has_default, default = part.partition("=")
            name = name.strip()
            if default.strip() == "?":
                stated = False
            elif not has_default:
                required.append(name)
            keywords.append(name)
            if not keyword_only:
                positional.append(name)
    return Overload(text, tuple(positional), positional_only, frozenset(keywords[positional_only:]
                                                                        if positional_only else keywords),
                    tuple(required), var_positional, var_keyword, stated)


def parameters_text(text: str) -> list[str]:
    """``text``'s parameters (or a call's arguments), split at the commas outside brackets and strings (defaults
    hold both)."""
    parts, depth, quote, current = [], 0, "", []
    for character in text:
        if quote:
            if character == quote:
                quote = ""
        elif character in "'\"":
            quote = character
        elif character in "([{":
            depth += 1
        elif character in ")]}":
            depth -= 1
        elif character == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
            continue
        current.append(character)
    parts.append("".join(current).strip())
    return [part for part in parts if part]


# Releases PyPI no longer serves, read from MindSpore's documentation (``generate_tables --documentation``): per
# release, its source, the names its documentation gives a signature, and those signatures as a difference from the
# newest tables'. The pages they come from are written by hand and lag behind the API (2.4.10's give
# ``ops.softmax(x, axis=-1)``, where 2.2 to 2.4's API reference gives ``softmax(input, axis=-1, *, dtype=None)``), so
# a documented signature is used only where the oldest wheel's tables give the same (corroborated): a page that
# agrees with a later release describes the release between them too. They answer one question, whether a call
# failed on the release a project moves from already (MS610 under ``--ms-upgrade-from``); every other question
# about those releases is the oldest wheel's, and a name they do not document is unknown, never missing.
DOCUMENTED_FILE = "data/mindspore_api_documented.json"


@lru_cache(maxsize=1)
def _documented() -> dict:
    return _read_optional(DOCUMENTED_FILE)


def documented_release(version: str) -> str | None:
    """The release whose documentation answers for ``version`` (its own major.minor series: ``2.5`` and ``2.5.0``
    are 2.5.0's, ``2.2.10`` is 2.2.14's, the 2.2 series' last), where ``version`` is older than every shipped wheel's
    tables; else None."""
    if not older_than_tables(version):
        return None
    series = _release(version)[:2]
    return next((release for release in _documented() if _release(release)[:2] == series), None)


def documented_signatures(qualname: str | None, release: str) -> tuple[Overload, ...] | None:
    """The forms ``release``'s documentation (``documented_release``) gives ``qualname``, where the oldest wheel's
    tables give the same; None where it gives none, none that can be read, or others (unknown)."""
    if not qualname:
        return None
    namespace, _, name = qualname.rpartition(".")
    forms = _corroborated(release).get(namespace, {}).get(name)
    return None if forms is None else tuple(_overload(text) for text in forms)


def documented_forms(release: str) -> dict[str, dict[str, tuple[str, ...]]]:
    """Every signature ``release``'s documentation gives, as read (``["?"]`` where it cannot be read)."""
    return _documented_forms(release)


@lru_cache(maxsize=8)
def _documented_forms(release: str) -> dict[str, dict[str, tuple[str, ...]]]:
    entry = _documented().get(release)
    if entry is None:
        return {}
    signatures = _newest().get("signatures", {})
    base = {namespace: {name: signatures[namespace][name] for name in names.split() if name in signatures.get(
        namespace, {})} for namespace, names in entry["names"].items()}
    return _arrays_as_tuples(apply_difference(base, entry["signatures"]))


@lru_cache(maxsize=8)
def _corroborated(release: str) -> dict[str, dict[str, tuple[str, ...]]]:
    """Of ``release``'s documented signatures, those the oldest wheel's tables give too."""
    oldest = _tables(_shipped()[0][1]).get("signatures", {})
    return {namespace: {name: forms for name, forms in entries.items()
                        if UNREADABLE not in forms and oldest.get(namespace, {}).get(name) == forms}
            for namespace, entries in _documented_forms(release).items()}


def documented_note(version: str) -> str | None:
    """A sentence for the user where a project moves from ``version`` and ms-lint knows signatures of that release
    from its documentation (``documented_release``); else None."""
    release = documented_release(version)
    if release is None:
        return None
    used = sum(len(entries) for entries in _corroborated(release).values())
    return (f"MindSpore {release}'s documentation ({_documented()[release]['documentation']}) confirms "
            f"{_shipped()[0][1]}'s signatures of {used} callables: MS610 leaves out a call of them that {release} "
            f"rejected too; whether any other call worked on {release} cannot be told, and all are reported")


class Mismatch(NamedTuple):
    """Why no form of a callable takes a call: ``kind`` is ``keyword`` (``names``: keywords no form takes),
    ``twice`` (``names``: a keyword for a parameter a positional argument fills already), ``together`` (each
    keyword of ``names`` some form takes, but no form all of them with the rest of the call),
    ``arity`` (more positional arguments than any form takes: ``given`` of at most ``most``) or ``missing``
    (``names``: the required parameters the call leaves out)."""

    kind: str
    names: tuple[str, ...] = ()
    given: int = 0
    most: int = 0


class CallShape(NamedTuple):
    """What a call passes, as binding sees it."""

    positional: int
    keywords: tuple[str, ...]
    starred: bool  # ``*args``: any number of positional arguments
    double_starred: bool  # ``**kwargs``: any keyword

    @classmethod
    def of(cls, call: ast.Call, skip_first: bool = False) -> "CallShape":
        starred = any(isinstance(argument, ast.Starred) for argument in call.args)
        positional = sum(1 for argument in call.args if not isinstance(argument, ast.Starred))
        return cls(positional + (1 if skip_first else 0),
                   tuple(keyword.arg for keyword in call.keywords if keyword.arg is not None), starred,
                   any(keyword.arg is None for keyword in call.keywords))

    def renamed(self, names: dict[str, str]) -> "CallShape":
        return self._replace(keywords=tuple(names.get(name, name) for name in self.keywords))


def mismatch(overloads: tuple[Overload, ...], call: CallShape) -> Mismatch | None:
    """Why none of ``overloads`` takes ``call`` (Python would raise TypeError); None when one takes it or binding
    cannot tell (``*args`` and ``**kwargs`` in the call decide nothing they could fill)."""
    failures = []
    for overload in overloads:
        failure = _overload_mismatch(overload, call)
        if failure is None:
            return None
        failures.append(failure)
    unknown = tuple(name for name in dict.fromkeys(call.keywords)
                    if not any(name in o.keywords or o.var_keyword for o in overloads))
    if unknown:
        return Mismatch("keyword", unknown, call.positional)
    kinds = {failure.kind for failure in failures}
    if kinds == {"arity"}:
        return Mismatch("arity", (), call.positional, max(failure.most for failure in failures))
    if len(failures) == 1:
        return failures[0]
    if call.keywords and kinds & {"keyword", "twice"}:
        return Mismatch("together", tuple(dict.fromkeys(call.keywords)), call.positional)
    return None  # forms that fail each for another reason: left unsaid


def _overload_mismatch(overload: Overload, call: CallShape) -> Mismatch | None:
    most = overload.most_positional
    if most is not None and not call.starred and call.positional > most:
        return Mismatch("arity", (), call.positional, most)
    filled = overload.positional[:call.positional] if overload.stated else ()
    for name in call.keywords:
        if not (name in overload.keywords or overload.var_keyword):
            return Mismatch("keyword", (name,), call.positional)
        if name in filled:
            return Mismatch("twice", (name,), call.positional)
    if call.starred or call.double_starred:
        return None
    given = set(overload.positional[:call.positional]) | set(call.keywords)
    missing = tuple(name for name in overload.required if name not in given)
    if missing:
        return Mismatch("missing", missing, call.positional)
    return None


def describe_overloads(overloads: tuple[Overload, ...]) -> str:
    """The forms as a message shows them: ``(input, axis=-1, *, dtype=None)``, several joined by " or " (a form
    MindSpore's parser lists without defaults as it does: ``(dim, keepdim, *, dtype)``)."""
    return describe_forms(overload.text for overload in overloads)


def describe_forms(texts: Iterable[str]) -> str:
    """``describe_overloads`` of the forms' texts (``input, axis=-1, *, dtype=None``)."""
    return " or ".join(f"({text.replace('=' + UNREADABLE, '')})" for text in texts)


def deprecation(qualname: str | None, version: str = "") -> tuple[str, str] | None:
    """``(since, replacement)`` where MindSpore ``version``'s deprecation decorator marks ``qualname`` (replacement
    "" where MindSpore names none); None where it does not."""
    if not qualname:
        return None
    table = _tables(tables_version(version)).get("deprecations", {})
    entry = table.get(qualname)
    namespace, _, name = qualname.rpartition(".")
    shared = _SIGNATURE_FALLBACK.get(namespace)
    if entry is None and shared is not None and name in (module_names(namespace, version) or ()):
        entry = table.get(f"{shared}.{name}")
    return None if entry is None else (entry["since"], entry["use"])


# ---------------------------------------------------------------------------------------- meanings that changed
class SemanticChange(NamedTuple):
    """A Tensor method whose meaning changed between two releases while taking the same arguments (hand-kept:
    each entry is measured on the releases ms-lint has wheels for, and documented for the older ones)."""

    method: str
    last_before: str  # the last release (major.minor: each of its patch releases) with the old meaning
    first_after: str  # the first release with the new meaning
    before: str  # the old meaning, in words
    after: str  # the new meaning
    replacement: str  # the method that keeps the old meaning on every release
    evidence: str  # where each side is known from


SEMANTIC_CHANGES: tuple[SemanticChange, ...] = (
    SemanticChange(
        "repeat", "2.5", "2.7.0",
        "numpy's repeat: each element `repeats` times along `axis` (of the flattened tensor without one)",
        "PyTorch's: the whole tensor tiled `repeats[i]` times along each dimension (`repeat(*repeats)`)",
        "repeat_interleave",
        "numpy's form is documented up to 2.5.0 (https://www.mindspore.cn/docs/en/r2.5.0/api_python/mindspore/"
        "Tensor/mindspore.Tensor.repeat.html); PyTorch's from 2.7.0rc1 (https://www.mindspore.cn/docs/zh-CN/"
        "r2.7.0rc1/api_python/mindspore/Tensor/mindspore.Tensor.repeat.html) and measured on 2.7.0 to 2.10.0",
    ),
)


def semantic_change(method: str) -> SemanticChange | None:
    return next((change for change in SEMANTIC_CHANGES if change.method == method), None)


def meaning_at(change: SemanticChange, version: str) -> str | None:
    """``"before"``/``"after"`` where ``version`` has the old/new meaning of ``change``; None between the two
    releases (unknown)."""
    if not version:
        return "after"
    release = _release(version)
    if release[:2] <= _release(change.last_before)[:2]:
        return "before"
    if release >= _release(change.first_after):
        return "after"
    return None
