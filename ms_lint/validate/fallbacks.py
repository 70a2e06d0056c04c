"""Host fallbacks while the worker builds a Cell: operators the device has no kernel for, computed with numpy.

Code written for Ascend often calls, in ``__init__``, operators MindSpore has no CPU kernel for (measured on
MindSpore 2.10 CPU, eagerly: ``mint.arange`` raises "The kernel Arange unregistered", ``mint.zeros_like``
ZerosLikeExt, ``mint.linspace`` LinSpaceExt, ``Tensor.uniform_`` "Create kernelmod for op InplaceUniform
failed"...). Building the Cell then raises and nothing is compiled. When that happens the worker builds it again
with the public functions that dispatch to the missing operator replaced by host computations that return the
same Tensor (shape, dtype and, for the deterministic ones, values; the random ones draw from a seeded numpy
generator). Only in the worker, only while the constructor runs: the originals are back before the graph is
compiled, which therefore sees the user's code unchanged.

Parameter initialisation through ``initializer(Normal(), ...)`` / ``Uniform`` runs on the host already (measured:
it builds on CPU), so only the in-place Tensor methods need a fallback.
"""
from __future__ import annotations

import re
import sys
from contextlib import contextmanager

MAX_ROUNDS = 12  # builds after the first, each adding the operators the previous one lacked

_KERNEL_PATTERNS = (
    r"kernel (\w+) unregistered",
    r"kernelmod for op (\w+) failed",
    r"kernel for op (\w+)",
    r"Unsupported op \[(\w+)\]",
)


def missing_kernel(message: str) -> str | None:
    """The operator a device lacks a kernel for, named by MindSpore's error (``The kernel Arange unregistered``,
    ``Create kernelmod for op InplaceUniform failed``, ``Unsupported op [LinSpaceExt] on CPU``)."""
    for pattern in _KERNEL_PATTERNS:
        match = re.search(pattern, message or "", re.IGNORECASE)
        if match:
            return match.group(1)
    return None


def backend_kernel_failure(message: str) -> str | None:
    """The operator named by a compile error raised at kernel selection, after the frontend (parsing and type
    inference of the whole graph) has passed: ``Kernel select failed: Unsupported op [LinSpaceExt] on CPU``."""
    if "Kernel select failed" not in (message or "") and "Unsupported op [" not in (message or ""):
        return None
    match = re.search(r"Unsupported op \[(\w+)\]", message or "")
    return match.group(1) if match else None


# -- host computations --------------------------------------------------------------------------------------------

def _ms():
    import mindspore

    return mindspore


def _np_dtype(dtype):
    """numpy's dtype for a MindSpore one; bfloat16 (no numpy type) is computed in float32 and cast."""
    mindspore = _ms()
    if dtype == mindspore.bfloat16:
        import numpy as np

        return np.float32
    return mindspore.dtype_to_nptype(dtype)


def _tensor(array, dtype):
    mindspore = _ms()
    import numpy as np

    tensor = mindspore.Tensor(np.asarray(array).astype(_np_dtype(dtype)))
    return tensor if tensor.dtype == dtype else tensor.astype(dtype)


def _host(value):
    """A Tensor's values on the host (bfloat16 read as float32)."""
    mindspore = _ms()
    if isinstance(value, mindspore.Tensor):
        if value.dtype == mindspore.bfloat16:
            value = value.astype(mindspore.float32)
        return value.asnumpy()
    return value


def _scalar(value):
    value = _host(value)
    return value.item() if hasattr(value, "item") else value


def _size(size) -> tuple:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    return tuple(int(_scalar(dim)) for dim in size)


def _kind_dtype(*values):
    """MindSpore's default dtype for Python scalars (as PyTorch's): bool, int64, or float32 once any is a float."""
    mindspore = _ms()
    values = [_scalar(value) for value in values]
    if values and all(isinstance(value, bool) for value in values):
        return mindspore.bool_
    if all(isinstance(value, (bool, int)) for value in values):
        return mindspore.int64
    return mindspore.float32


class _Random:
    """The generator the random fallbacks draw from: seeded, so two builds draw the same values."""

    generator = None

    @classmethod
    def get(cls):
        if cls.generator is None:
            import numpy as np

            cls.generator = np.random.default_rng(0)
        return cls.generator


def _arange(start=0, end=None, step=1, *, dtype=None):
    import numpy as np

    if end is None:
        start, end = 0, start
    start, end, step = _scalar(start), _scalar(end), _scalar(step)
    return _tensor(np.arange(start, end, step), dtype or _kind_dtype(start, end, step))


def _zeros_like(input, *, dtype=None):  # noqa: A002 -- MindSpore's parameter name
    import numpy as np

    return _tensor(np.zeros(tuple(input.shape)), dtype or input.dtype)


def _ones_like(input, *, dtype=None):  # noqa: A002
    import numpy as np

    return _tensor(np.ones(tuple(input.shape)), dtype or input.dtype)


def _full(size, fill_value, *, dtype=None):
    import numpy as np

    return _tensor(np.full(_size((size,)), _scalar(fill_value)), dtype or _kind_dtype(fill_value))


def _full_like(input, fill_value, *, dtype=None):  # noqa: A002
    import numpy as np

    return _tensor(np.full(tuple(input.shape), _scalar(fill_value)), dtype or input.dtype)


def _linspace(start, end, steps, *, dtype=None):
    import numpy as np

    return _tensor(np.linspace(_scalar(start), _scalar(end), int(_scalar(steps))), dtype or _ms().float32)


def _cumsum(input, dim, dtype=None):  # noqa: A002
    import numpy as np

    mindspore = _ms()
    if dtype is None:
        dtype = input.dtype
        if dtype in (mindspore.bool_, mindspore.int8, mindspore.int16, mindspore.int32, mindspore.uint8):
            dtype = mindspore.int64
    return _tensor(np.cumsum(_host(input), axis=int(dim)), dtype)


def _outer(input, vec2):  # noqa: A002
    import numpy as np

    mindspore = _ms()
    dtype = mindspore.float32 if input.dtype != vec2.dtype else input.dtype
    return _tensor(np.outer(_host(input), _host(vec2)), dtype)


def _tril(input, diagonal=0):  # noqa: A002
    import numpy as np

    return _tensor(np.tril(_host(input), int(diagonal)), input.dtype)


def _stack(tensors, dim=0):
    import numpy as np

    tensors = list(tensors)
    return _tensor(np.stack([_host(tensor) for tensor in tensors], axis=int(dim)), tensors[0].dtype)


def _pad(input, pad, mode="constant", value=None):  # noqa: A002
    """Constant padding only (``pad`` pairs from the last dimension backwards); other modes keep MindSpore's."""
    import numpy as np

    if mode != "constant":
        raise NotImplementedError(f"the host fallback of pad computes mode='constant' only, not {mode!r}")
    pad = [int(_scalar(amount)) for amount in pad]
    widths = [(0, 0)] * input.ndim
    for index in range(len(pad) // 2):
        widths[input.ndim - 1 - index] = (pad[2 * index], pad[2 * index + 1])
    array = _host(input)
    if any(before < 0 or after < 0 for before, after in widths):
        raise NotImplementedError("the host fallback of pad does not crop (negative padding)")
    return _tensor(np.pad(array, widths, constant_values=_scalar(value) if value is not None else 0), input.dtype)


def _randn(*size, generator=None, dtype=None, device=None):
    return _tensor(_Random.get().standard_normal(_size(size)), dtype or _ms().float32)


def _rand(*size, generator=None, dtype=None, device=None):
    return _tensor(_Random.get().random(_size(size)), dtype or _ms().float32)


def _randn_like(input, *, dtype=None, device=None):  # noqa: A002
    return _tensor(_Random.get().standard_normal(tuple(input.shape)), dtype or input.dtype)


def _rand_like(input, *, dtype=None, device=None):  # noqa: A002
    return _tensor(_Random.get().random(tuple(input.shape)), dtype or input.dtype)


def _fill_in_place(tensor, array):
    """Write ``array`` into ``tensor``. A view of another tensor (``weight[padding_idx].zero_()``) is left as it
    is: on CPU an in-place write into a view fails or is lost (measured on 2.10), and the values do not change
    what the graph compile sees."""
    if not _is_view(tensor):
        tensor.copy_(_tensor(array, tensor.dtype))
    return tensor


def _is_view(tensor) -> bool:
    try:
        size = int(tensor.size) * tensor.itemsize
        return bool(tensor.storage_offset() or not tensor.is_contiguous()
                    or tensor.untyped_storage().nbytes() != size)
    except Exception:  # noqa: BLE001 -- without the storage queries: treat it as a whole tensor
        return False


def _uniform_(self, from_=0, to=1, *, generator=None):
    return _fill_in_place(self, _Random.get().uniform(_scalar(from_), _scalar(to), tuple(self.shape)))


def _normal_(self, mean=0, std=1, *, generator=None):
    return _fill_in_place(self, _Random.get().normal(_scalar(mean), _scalar(std), tuple(self.shape)))


def _zero_(self):
    import numpy as np

    return _fill_in_place(self, np.zeros(tuple(self.shape)))


def _fill_(self, value):
    import numpy as np

    return _fill_in_place(self, np.full(tuple(self.shape), _scalar(value)))


# (owner, attribute, the operator it dispatches to, host computation): each of these raised a missing-kernel
# error naming that operator when called eagerly on MindSpore 2.10 CPU (mint.randn: "Create kernelmod for op
# InplaceNormal failed", mint.full(size, 1): "The kernel FillScalar unregistered", ...).
FALLBACKS = (
    ("mindspore.mint", "arange", ("Arange",), _arange),
    ("mindspore.mint", "zeros_like", ("ZerosLikeExt",), _zeros_like),
    ("mindspore.mint", "ones_like", ("OnesLikeExt",), _ones_like),
    ("mindspore.mint", "full", ("FillScalar",), _full),
    ("mindspore.mint", "full_like", ("FullLike",), _full_like),
    ("mindspore.mint", "linspace", ("LinSpaceExt",), _linspace),
    ("mindspore.mint", "cumsum", ("CumsumExt",), _cumsum),
    ("mindspore.mint", "outer", ("Outer",), _outer),
    ("mindspore.mint", "tril", ("TrilExt",), _tril),
    ("mindspore.mint", "stack", ("StackExt",), _stack),
    ("mindspore.mint.nn.functional", "pad", ("ConstantPadND",), _pad),
    ("mindspore.mint", "randn", ("InplaceNormal",), _randn),
    ("mindspore.mint", "rand", ("InplaceUniform",), _rand),
    ("mindspore.mint", "randn_like", ("InplaceNormal",), _randn_like),
    ("mindspore.mint", "rand_like", ("InplaceUniform",), _rand_like),
    ("mindspore.Tensor", "uniform_", ("InplaceUniform",), _uniform_),
    ("mindspore.Tensor", "normal_", ("InplaceNormal",), _normal_),
    ("mindspore.Tensor", "zero_", ("InplaceZero",), _zero_),
    ("mindspore.Tensor", "fill_", ("InplaceFillScalar",), _fill_),
)


_INHERITED = object()


def has_fallback(kernel: str) -> bool:
    return any(kernel in kernels for _, _, kernels, _ in FALLBACKS)


def _owner(path: str):
    module_name, _, attribute = path.rpartition(".")
    module = sys.modules.get(path)
    if module is not None:
        return module
    return getattr(sys.modules[module_name], attribute)


@contextmanager
def host_fallbacks(kernels: set[str], namespaces, used: set[str]):
    """Within the block, the functions dispatching to ``kernels`` compute on the host. ``namespaces()``: the module
    dicts where such a function may have been imported by name (``from mindspore.mint import arange``), patched
    too. Each operator a replacement stood in for is added to ``used``."""
    import mindspore  # noqa: F401 -- the owners are MindSpore's modules and classes

    saved = []
    replaced = {}
    try:
        for owner_path, attribute, operators, host in FALLBACKS:
            if not kernels.intersection(operators):
                continue
            owner = _owner(owner_path)
            original = getattr(owner, attribute, None)
            if original is None:
                continue
            replacement = _recording(host, operators, kernels, used)
            # A method inherited from a C++ base class is restored by deleting the override.
            own = not isinstance(owner, type) or attribute in owner.__dict__
            saved.append((owner, attribute, original if own else _INHERITED))
            setattr(owner, attribute, replacement)
            replaced[id(original)] = (original, replacement)
        for namespace in namespaces() if replaced else ():
            for name, value in list(namespace.items()):
                found = replaced.get(id(value))
                if found is not None and found[0] is value:
                    saved.append((namespace, name, value))
                    namespace[name] = found[1]
        yield
    finally:
        for owner, attribute, original in reversed(saved):
            if isinstance(owner, dict):
                owner[attribute] = original
            elif original is _INHERITED:
                delattr(owner, attribute)
            else:
                setattr(owner, attribute, original)


def _recording(host, operators, kernels: set[str], used: set[str]):
    def replacement(*args, **kwargs):
        used.update(operator for operator in operators if operator in kernels)
        return host(*args, **kwargs)

    replacement.__name__ = host.__name__.lstrip("_")
    replacement.__wrapped__ = host
    return replacement


def build_with_fallbacks(build, namespaces, kernels: set[str], used: set[str]):
    """``build()``; when it raises for a missing kernel that has a fallback, again with the fallbacks for every
    operator missed so far (``kernels``, updated in place), up to ``MAX_ROUNDS`` times."""
    rounds = 0
    while True:
        try:
            if not kernels:
                return _flushed(build())
            _Random.generator = None
            with host_fallbacks(kernels, namespaces, used):
                return _flushed(build())
        except Exception as exc:  # noqa: BLE001 -- anything else goes up unchanged
            missing = {missing_kernel(_text(exc))} | _drain()
            missing.discard(None)
            new = {kernel for kernel in missing - kernels if has_fallback(kernel)}
            if not new or rounds >= MAX_ROUNDS:
                raise
            kernels.update(new)
            rounds += 1


def _drain() -> set:
    """The missing kernels of operators still queued after a failure: each later dispatch raises one of them."""
    found = set()
    for _ in range(16):
        try:
            _flushed(None)
            return found
        except Exception as exc:  # noqa: BLE001
            found.add(missing_kernel(_text(exc)))
    return found


def _flushed(result):
    """``result``, once the operators queued while building have run: MindSpore 2.10 launches them
    asynchronously, so a missing kernel raises at the next operator dispatched, not at the call that needs it."""
    import numpy as np

    mindspore = _ms()
    (mindspore.Tensor(np.zeros(1, np.float32)) + 1).asnumpy()
    return result


def _text(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # noqa: BLE001 -- a broken __str__ in user code
        return ""
