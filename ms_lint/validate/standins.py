"""Stand-ins for the third-party packages a user module imports that this machine does not have (in the worker).

A model file often imports, at its top, packages that building and compiling its Cells never use: a dataset
downloader, a plotting library, a tokenizer. When importing the unit's module raises ``ModuleNotFoundError`` for a
top-level package that is installed nowhere and is not the project's own, the worker imports the module again with
an import hook that gives that package a placeholder module (``StandInModule``), up to ``MAX_STAND_INS`` packages
per job (a worker keeps those its earlier jobs needed: a library's modules share their optional dependencies).
So does a private submodule an installed package lacks (``from mindspore.ops._grad.grad_base import bprop_getters``:
code written for an older MindSpore, which had it), the package itself staying the installed one, and a name an
installed module lacks (``from mindspore.common.api import ms_function``), given to that module until the job ends.
An import the module guards itself (``try: import apex`` / ``except ImportError:``) never fails, so it never gets
a stand-in: the module keeps the path it takes without the package.

Everything a stand-in gives is another stand-in: an attribute, a call, a base class (``class Loader(missing.Base)``
gets a plain base), an iteration (empty). A call with one class or function alone (a decorator: ``@missing.jit``)
gives it back unchanged, except on a decorator line with arguments (``@missing.register(Op)``: the function below
goes to what it returns). Once the module is imported, every use of a stand-in while the Cell is built or compiled
is recorded (``uses``): a Cell whose construction or graph code touches one stays undecided, and the verdict says
which name it touched.
"""
from __future__ import annotations

import abc
import importlib.abc
import importlib.machinery
import importlib.util
import inspect
import os
import re
import sys
import types
from contextlib import contextmanager

MAX_STAND_INS = 12
MARK = "stand-in for the missing package"
# The version a stand-in package gives (``transformers.__version__``, read at a module's top and compared with the
# release a feature came in): newer than any release, so that the module takes the path it takes with a current one.
STAND_IN_VERSION = "9999.0.0"

_state = {"armed": False}
_uses: list[str] = []
_answers: dict[str, str] = {}  # what a stand-in answered in the place of its package (``answers``)


def answers() -> list[str]:
    """What stand-ins answered to the checks a module makes of its dependencies (a version, an availability), in
    order, once each: the verdict names them."""
    return [f"{name} as {value}" for name, value in _answers.items()]


def _answer(name: str, value):
    _answers.setdefault(name, repr(value))
    return value


def uses() -> list[str]:
    """The stand-in names used while armed, in order, once each."""
    return list(dict.fromkeys(_uses))


def clear_uses() -> None:
    _uses.clear()


def arm() -> None:
    """From now on (until ``uninstall``), a use of a stand-in is recorded; what was recorded before is dropped."""
    clear_uses()
    _state["armed"] = True


@contextmanager
def armed(on: bool = True):
    """Within the block, a use of a stand-in is recorded (``on``), or not (``on=False``: an example's own code,
    outside the Cell's construction)."""
    previous = _state["armed"]
    _state["armed"] = on
    try:
        yield
    finally:
        _state["armed"] = previous


def _touch(name: str) -> None:
    if _state["armed"] and not _LOGGING.search(name):
        _uses.append(name)


# A missing package's logger (``logger = transformers.utils.logging.get_logger(__name__)`` at a module's top, then
# ``logger.warning(...)`` while building): what it prints changes nothing that is built or compiled, so using it
# leaves a Cell decidable.
_LOGGING = re.compile(r"(^|\.)(logging|get_logger)(\.|\(|$)")


class StandInBase:
    """The base a class gets in place of a missing package's class: it takes any arguments, and any attribute it
    lacks is a stand-in."""

    def __init__(self, *args, **kwargs):
        pass

    def __getattr__(self, name: str):
        return _attribute(type(self).__name__, name, hidden="__")


class _StandInClass(type):
    """The class of a class whose base is a missing package's class: a class attribute neither defines is a
    stand-in too (``Mixin.push_to_hub`` read at a module's top)."""

    def __getattr__(cls, name: str):
        return _attribute(cls.__name__, name, hidden="_")


def _attribute(owner: str, name: str, hidden: str):
    """The stand-in for ``owner.name``; AttributeError for a name starting with ``hidden`` (the dunder and
    private names Python and MindSpore ask objects for)."""
    if name.startswith(hidden):
        raise AttributeError(name)
    qualified = f"{owner}.{name}"
    _touch(qualified)
    return StandIn(qualified)


class StandInClassBase(StandInBase, metaclass=_StandInClass):
    """``StandInBase`` for a class whose other bases are plain classes (a base with a class of its own, such as a
    Cell, keeps ``StandInBase``: two classes of classes would not combine)."""


class _StandInAbstractClass(_StandInClass, abc.ABCMeta):
    """``_StandInClass`` for a class whose other bases are abstract (``abc.ABC``)."""


class StandInAbstractBase(StandInBase, metaclass=_StandInAbstractClass):
    """``StandInClassBase`` for a class whose other bases are abstract."""


class StandIn:
    """What a name of a missing package stands for."""

    __slots__ = ("_ms_lint_name",)

    def __init__(self, name: str):
        object.__setattr__(self, "_ms_lint_name", name)

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)  # MindSpore and Python ask objects for dunder and private names
        qualified = f"{self._ms_lint_name}.{name}"
        _touch(qualified)
        return StandIn(qualified)

    def __setattr__(self, name: str, value) -> None:
        _touch(f"{self._ms_lint_name}.{name}")

    def __call__(self, *args, **kwargs):
        return _called(self._ms_lint_name, sys._getframe(1), args, kwargs)

    def __mro_entries__(self, bases):
        kinds = {type(base) for base in bases if not isinstance(base, StandIn)}
        if kinds <= {type}:
            return (StandInClassBase,)
        if kinds <= {type, abc.ABCMeta}:
            return (StandInAbstractBase,)  # ``class Pipeline(_ScikitCompat, missing.PushToHubMixin)``
        return (StandInBase,)

    def __iter__(self):
        _touch(f"iter({self._ms_lint_name})")
        return iter(())

    def __len__(self) -> int:
        _touch(f"len({self._ms_lint_name})")
        return 0

    def __bool__(self) -> bool:
        _touch(f"bool({self._ms_lint_name})")
        return False

    def __getitem__(self, key):
        _touch(f"{self._ms_lint_name}[...]")
        return StandIn(f"{self._ms_lint_name}[...]")

    def __repr__(self) -> str:
        return f"<{MARK} {self._ms_lint_name.split('.')[0]}: {self._ms_lint_name}>"

    def __fspath__(self) -> str:
        # A missing package's folder or file name (``os.path.join(HF_HOME, "modules")`` at a module's top): a
        # path of its own in the temporary folder, which nothing of the package's holds.
        import tempfile

        _touch(f"the path {self._ms_lint_name}")
        return os.path.join(tempfile.gettempdir(), "ms-lint-stand-ins", self._ms_lint_name)

    def _operation(self, *_):
        _touch(f"an operation on {self._ms_lint_name}")
        return StandIn(self._ms_lint_name)

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _operation
    __matmul__ = __rmatmul__ = __neg__ = __lt__ = __gt__ = __le__ = __ge__ = _operation


class _Decorator(StandIn):
    """What a stand-in's call on a decorator line gives (``@missing.register(Op)``): applied to the function below,
    it gives the function back."""

    __slots__ = ()

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and not kwargs and (inspect.isclass(args[0]) or inspect.isfunction(args[0])):
            return args[0]
        return super().__call__(*args, **kwargs)


def _called(name: str, frame, args: tuple, kwargs: dict):
    """What calling the stand-in ``name`` from ``frame`` gives."""
    if len(args) == 1 and not kwargs and (inspect.isclass(args[0]) or inspect.isfunction(args[0])):
        if not _decorator_factory_call(frame):
            return args[0]  # a decorator: the decorated class or function stays the user's
        return _Decorator(f"{name}(...)")
    _touch(f"{name}()")
    if _AVAILABILITY_CHECK.fullmatch(name.rpartition(".")[2]) and not args and not kwargs:
        return _answer(f"{name}()", True)
    return StandIn(f"{name}()")


# A missing package's check of what is installed (``transformers.utils.is_vision_available()``): answered yes, so
# that the module takes the path it takes with the package installed (importing ``PIL``, which it then uses
# unguarded), and a package that is missing here too gets its own stand-in.
_AVAILABILITY_CHECK = re.compile(r"is_\w+_available")


def _decorator_factory_call(frame) -> bool:
    """Whether the call being made in ``frame`` is the one of a decorator line with arguments
    (``@missing.register(Op)``: the decorator is what it returns, applied to the function below), not the
    decorator's application (``@missing.jit``)."""
    import linecache

    line = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
    return line.startswith("@") and line.endswith(")")


class StandInModule(types.ModuleType):
    """The placeholder module of a missing package: every attribute is a stand-in (submodules too); its
    ``__version__`` is ``STAND_IN_VERSION``."""

    @property
    def __version__(self) -> str:
        _touch(f"{self.__name__}.__version__")
        return _answer(f"{self.__name__}.__version__", STAND_IN_VERSION)

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)  # MindSpore asks a module for private names (``_fields``) it may lack
        qualified = f"{self.__name__}.{name}"
        _touch(qualified)
        return StandIn(qualified)

    def __call__(self, *args, **kwargs):
        # A private name imported from a missing module (``from missing.layers import _check``) is found as a
        # submodule of it, since the module gives no private names: called, it is a stand-in as any other.
        return _called(self.__name__, sys._getframe(1), args, kwargs)


class _Loader(importlib.abc.Loader):
    def create_module(self, spec):
        module = StandInModule(spec.name)
        module.__path__ = []  # a package: ``import missing.sub`` finds its submodules here too
        module.__ms_lint_stand_in__ = True
        return module

    def exec_module(self, module) -> None:
        pass


class StandInFinder(importlib.abc.MetaPathFinder):
    """Last on ``sys.meta_path``: modules of the ``missing`` packages, which no other finder finds."""

    def __init__(self, missing: list[str]):
        self.missing = missing
        self.names: list[tuple[types.ModuleType, str]] = []  # the names stood in for on installed modules
        self.ahead: set[str] = set()  # the packages stood in for before any import asked for them
        self.served: set[str] = set()  # of those, the ones an import has asked for since

    def add(self, name: str, ahead: bool = False) -> None:
        """Stand in for ``name`` from now on: a package or module, or a name an installed module lacks
        (``mindspore.common.api.ms_function``), which becomes that module's attribute until ``uninstall``.
        ``ahead``: before any import asked for it (a package earlier jobs of the project needed), so that only an
        import that asks for it makes it one the module used (``used``)."""
        self.missing.append(name)
        if ahead:
            self.ahead.add(name)
        parent, _, child = name.rpartition(".")
        module = sys.modules.get(parent)
        if module is not None and not getattr(module, "__ms_lint_stand_in__", False) and not hasattr(module, child):
            setattr(module, child, StandIn(name))
            self.names.append((module, child))

    def used(self) -> list[str]:
        """The packages and names stood in for that the imports used: each one an import asked for."""
        return [name for name in self.missing if name not in self.ahead or name in self.served]

    def find_spec(self, fullname, path, target=None):
        name = next((name for name in self.missing if fullname == name or fullname.startswith(name + ".")), None)
        if name is None:
            return None
        self.served.add(name)
        return importlib.machinery.ModuleSpec(fullname, _Loader(), is_package=True)


def install(missing: list[str]) -> StandInFinder:
    finder = StandInFinder(missing)
    sys.meta_path.append(finder)
    return finder


def uninstall(finder: StandInFinder | None) -> None:
    """The hook removed, and the stand-in modules forgotten."""
    if finder is None:
        return
    if finder in sys.meta_path:
        sys.meta_path.remove(finder)
    for module, child in finder.names:
        if isinstance(module.__dict__.get(child), StandIn):
            delattr(module, child)
    for name, module in list(sys.modules.items()):
        if getattr(module, "__ms_lint_stand_in__", False):
            del sys.modules[name]
            # A stand-in for a submodule of an installed package is also its parent's attribute: taken off.
            parent, _, child = name.rpartition(".")
            if getattr(sys.modules.get(parent), child, None) is module:
                delattr(sys.modules[parent], child)
    _state["armed"] = False
    clear_uses()
    _answers.clear()


def missing_package(exc: BaseException, folders: list[str]) -> str | None:
    """The top-level package whose absence ``exc`` (a ``ModuleNotFoundError``) reports, when it is installed
    nowhere and is not the project's own (a module or package in one of ``folders``: the import root and those
    above it in the project); or the missing private submodule of an installed package (``mindspore.ops._grad``,
    which an older release had); or the name an installed module lacks (``missing_name``); else None."""
    if not isinstance(exc, ModuleNotFoundError):
        return missing_name(exc)
    if not exc.name:
        return None
    top = exc.name.split(".")[0]
    if not top.isidentifier():
        return None
    if any(os.path.exists(os.path.join(folder, top)) or os.path.exists(os.path.join(folder, top + ".py"))
           for folder in folders):
        return None
    if top in sys.modules:
        return missing_submodule(exc.name)
    try:
        if importlib.util.find_spec(top) is not None:
            return None
    except (ImportError, ValueError):
        return None
    return top


def missing_submodule(name: str) -> str | None:
    """``name``'s first missing part, where it is a private submodule (``_grad``) of an installed package that
    the process has imported (a package of the user's own is never installed there); else None."""
    parts = name.split(".")
    for depth in range(2, len(parts) + 1):
        prefix = ".".join(parts[:depth])
        if prefix in sys.modules:
            continue
        parent = sys.modules.get(".".join(parts[:depth - 1]))
        if parent is None or getattr(parent, "__ms_lint_stand_in__", False) or not hasattr(parent, "__path__") \
                or not parts[depth - 1].startswith("_") or not _installed(parent):
            return None
        try:
            if importlib.util.find_spec(prefix) is not None:
                return None
        except (ImportError, ValueError):
            pass
        return prefix
    return None


def missing_name(exc: BaseException) -> str | None:
    """``module.name`` where ``exc`` says an installed module lacks ``name`` (``from mindspore.common.api import
    ms_function``, or ``@ms.ms_function`` at a module's top: code written for an older MindSpore); else None."""
    if isinstance(exc, ImportError):
        match = re.match(r"cannot import name '(?P<name>\w+)' from '(?P<module>[\w.]+)'", str(exc))
    elif isinstance(exc, AttributeError):
        match = re.match(r"module '(?P<module>[\w.]+)' has no attribute '(?P<name>\w+)'", str(exc))
    else:
        return None
    module = sys.modules.get(match.group("module")) if match else None
    if module is None or getattr(module, "__ms_lint_stand_in__", False) or not _installed(module):
        return None
    return f"{match.group('module')}.{match.group('name')}"


def _installed(module) -> bool:
    file = getattr(module, "__file__", None) or ""
    return os.sep + "site-packages" + os.sep in file or os.sep + "dist-packages" + os.sep in file


def names_a_stand_in(text: str) -> bool:
    """Whether an error's message names a stand-in (MindSpore printing the object it could not compile)."""
    return MARK in (text or "")
