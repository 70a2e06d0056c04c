"""Running one of the project's own examples (``own_examples``) in the worker, as its user would, and capturing
the unit's Cell: the constructor arguments of the first instance the example builds of exactly that class, and
the inputs of the first call of that instance, at which the example is stopped (nothing after it runs).

The example runs in PyNative (a ``set_context(mode=...)``, ``device_target`` or ``set_device`` it makes is left
out, so that a Cell it calls inside another Cell's ``construct`` is called from Python too), with
``sys.argv`` holding the script alone, within a time limit; a missing package, a download, a file it reads or
``sys.exit`` ends it. Whatever it built before that is kept.
"""
from __future__ import annotations

import inspect
import os
import signal
import sys
import tempfile
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field

from ms_lint.validate.outcome import first_line


class _Captured(BaseException):
    """The captured instance was called: the example stops here (BaseException: no ``except Exception`` of the
    example's own catches it)."""


class _OutOfTime(BaseException):
    pass


@dataclass
class Capture:
    """What an example gave: the instance and its constructor arguments, the inputs of its first call (None when
    it was not called), and why the example stopped early (``error``; None when it ran to the call or its end)."""

    instance: object = None
    arguments: tuple | None = None  # (args, kwargs)
    call: tuple | None = None  # (args, kwargs) of the first call
    error: str | None = None
    notes: list[str] = field(default_factory=list)


def run_example(example: dict, target: type, module, seconds: float, import_root: str) -> Capture:
    """Run ``example`` (an ``OwnExample`` as a dict) and capture ``target``'s first instance and call."""
    import mindspore

    from ms_lint.validate import standins

    capture = Capture()
    with ExitStack() as stack:
        stack.enter_context(_capturing(target, capture))
        stack.enter_context(_pynative(mindspore))
        stack.enter_context(_argv_and_path(example, import_root))
        stack.enter_context(standins.armed(False))
        stack.enter_context(_time_limit(seconds))
        try:
            _RUNNERS[example["kind"]](example, module)
        except _Captured:
            pass
        except _OutOfTime:
            capture.error = f"it ran longer than {seconds:g} s"
        except SystemExit as exc:
            capture.error = f"it called sys.exit({exc.code!r})" + (
                " (a script that needs command-line arguments?)" if exc.code == 2 else "")
        except BaseException as exc:  # noqa: BLE001 -- why the example could not give the Cell is the result
            capture.error = first_line(exc)
    return capture


@contextmanager
def _capturing(target: type, capture: Capture):
    """``target.__init__`` and ``target.__call__`` wrapped while the block runs: the first instance of exactly
    ``target`` is kept with its arguments (its construction counts as the Cell's: a stand-in it uses is
    recorded), and its first call is kept and stops the example."""
    from ms_lint.validate import standins

    own = {name: target.__dict__[name] for name in ("__init__", "__call__") if name in target.__dict__}
    original_init, original_call = target.__init__, target.__call__

    def __init__(self, *args, **kwargs):
        if type(self) is not target or capture.instance is not None:
            return original_init(self, *args, **kwargs)
        with standins.armed(True):
            original_init(self, *args, **kwargs)
        capture.instance, capture.arguments = self, (args, kwargs)

    def __call__(self, *args, **kwargs):
        if self is capture.instance and capture.call is None:
            capture.call = (args, kwargs)
            raise _Captured
        return original_call(self, *args, **kwargs)

    target.__init__, target.__call__ = __init__, __call__
    try:
        yield
    finally:
        for name in ("__init__", "__call__"):
            if name in own:
                setattr(target, name, own[name])
            else:
                delattr(target, name)


@contextmanager
def _pynative(mindspore):
    """PyNative while the example runs, whatever mode, device or context it asks for."""
    context = mindspore.context
    originals = {"set_context": mindspore.set_context, "context_set_context": context.set_context,
                 "set_device": getattr(mindspore, "set_device", None)}

    def set_context(*args, **kwargs):
        for name in ("mode", "device_target", "device_id"):
            kwargs.pop(name, None)
        return originals["set_context"](*args, **kwargs) if kwargs or args else None

    def set_device(*args, **kwargs):
        return None

    mode = mindspore.get_context("mode")
    originals["set_context"](mode=mindspore.PYNATIVE_MODE)
    mindspore.set_context = context.set_context = set_context
    if originals["set_device"] is not None:
        mindspore.set_device = set_device
    try:
        yield
    finally:
        mindspore.set_context = originals["set_context"]
        context.set_context = originals["context_set_context"]
        if originals["set_device"] is not None:
            mindspore.set_device = originals["set_device"]
        originals["set_context"](mode=mode)


@contextmanager
def _argv_and_path(example: dict, import_root: str):
    """``sys.argv`` as a script run with no argument gets it; the example's folder and the project on
    ``sys.path``, as running it from there would have them."""
    saved_argv, saved_path = list(sys.argv), list(sys.path)
    sys.argv = [example["path"]]
    folder = os.path.dirname(example["path"])
    sys.path[:0] = [entry for entry in (folder, import_root) if entry not in sys.path]
    try:
        yield
    finally:
        sys.argv[:] = saved_argv
        sys.path[:] = saved_path


@contextmanager
def _time_limit(seconds: float):
    def out_of_time(_signum, _frame):
        raise _OutOfTime

    previous = signal.signal(signal.SIGALRM, out_of_time)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.1))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# ------------------------------------------------------------------------------------------------ the runners

def _run_docstring(example: dict, module) -> None:
    """The docstring's statements, in the namespace of the class's module (as doctest runs them)."""
    namespace = dict(vars(module))
    namespace["__name__"] = "__ms_lint_example__"
    code = compile(example["code"], f"<the docstring example at {example['path']}:{example['line']}>", "exec")
    exec(code, namespace)  # noqa: S102 -- the project's own example, in the worker's isolation


def _run_script(example: dict, module) -> None:
    """A module's ``__main__`` block in (a copy of) that module's namespace, the module imported first; a script
    outside any package run whole, as ``python script.py`` does."""
    import runpy

    path = example["path"]
    if example.get("main") and _in_package_or_own(path, module):
        owner = module if _same(getattr(module, "__file__", ""), path) else _import_by_path(path)
        namespace = dict(vars(owner))
        namespace["__name__"] = "__main__"
        block = _main_block_code(path)
        if block is None:
            raise RuntimeError("its __main__ block could not be read")
        exec(block, namespace)  # noqa: S102 -- the project's own script, in the worker's isolation
        return
    runpy.run_path(path, run_name="__main__")


def _run_test(example: dict, module) -> None:
    """The test function (or method of a ``Test`` class), its fixtures resolved from its module and the
    ``conftest.py`` files above it; the first parameter set of a ``parametrize`` mark."""
    from ms_lint.validate.importing import load_from_path

    path = example["path"]
    conftests = [load_from_path(f"_ms_lint_conftest_{abs(hash(conftest))}", conftest)
                 for conftest in _conftests(path)]
    test_module = load_from_path(f"_ms_lint_test_{abs(hash(path))}", path)
    owner_name, _, name = example["function"].rpartition(".")
    function = getattr(getattr(test_module, owner_name)(), name) if owner_name else getattr(test_module, name)
    fixtures = {}
    for source in [*conftests, test_module]:
        fixtures.update(_fixtures_of(source))
    with ExitStack() as stack:
        arguments = _parametrized(function)
        for parameter in _parameters(function):
            if parameter not in arguments:
                arguments[parameter] = _fixture_value(parameter, fixtures, stack, set())
        function(**arguments)


def _run_enclosing(example: dict, module) -> None:
    """The project's Cell that builds the class (``own_examples.enclosing_examples``) built the ways the worker
    builds any Cell (``building``: a constructor call of its module, its defaults, a config, arguments guessed
    from their names), then called with inputs made from its ``construct``'s signature: it builds and calls the
    class as the project does."""
    from ms_lint.validate import building

    path = example["path"]
    owner = module if _same(getattr(module, "__file__", "") or "", path) else _import_by_path(path)
    name = example["function"]
    cell = getattr(owner, name)
    required = [parameter.name for parameter in _after_instance(cell.__init__) if parameter.default is parameter.empty
                and parameter.kind not in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD)]
    recipes = building.constructor_calls(owner, path, name)
    if not required:
        recipes.append(building.Recipe("defaults", f"{name}()"))
    else:
        recipes.extend(building.config_recipes(cell, owner, required))
        guessed = building.guessed_arguments(cell, required)
        if guessed is not None:
            recipes.append(guessed)
    if not recipes:
        raise TypeError(f"{name}() needs {', '.join(required)}")
    error = None
    for recipe in recipes:
        try:
            obj = cell(*recipe.args, **recipe.kwargs)
            break
        except Exception as exc:  # noqa: BLE001 -- the next way may build it
            error = error or exc
    else:
        raise error
    names = [parameter.name for parameter in _after_instance(type(obj).construct) if parameter.default is
             parameter.empty and parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD)]
    inputs, _, _ = building.input_placeholders(obj, names)
    obj(*inputs)


def _run_factory(example: dict, module) -> None:
    """The project's function that builds the class from a configuration (``own_examples.factory_examples``),
    called with the configuration file found for it (its first mapping, YAML), read into attributes
    (``cfg.dataset.num_frames``); a checkpoint, or a URL, it names that this machine does not have is None, as
    when none is given."""
    import inspect

    import yaml

    path = example["path"]
    owner = module if _same(getattr(module, "__file__", "") or "", path) else _import_by_path(path)
    function = getattr(owner, example["function"])
    required = [parameter for parameter in inspect.signature(function).parameters.values()
                if parameter.default is parameter.empty
                and parameter.kind not in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD)]
    if len(required) != 1:
        raise TypeError(f"{example['function']}() needs {', '.join(p.name for p in required) or 'no argument'}, "
                        f"not one configuration")
    with open(example["config"], encoding="utf-8") as handle:
        documents = [document for document in yaml.safe_load_all(handle) if isinstance(document, dict)]
    if not documents:
        raise ValueError(f"{example['config']} holds no mapping")
    function(Configuration.of(documents[0]))


_CHECKPOINTS = (".ckpt", ".pth", ".pt", ".bin", ".safetensors", ".om", ".mindir", ".onnx", ".npz")


class Configuration:
    """A configuration file's mapping as an object of attributes (``cfg.dataset.num_frames``), as projects' own
    config classes give it (a plain object: graph code reads its attributes as it reads theirs), read as a mapping
    too (``cfg["model"]``, ``cfg.get("x", default)``, ``"x" in cfg``); a key it lacks raises AttributeError."""

    def __init__(self, mapping: dict):
        self.__dict__.update(mapping)

    @classmethod
    def of(cls, value):
        if isinstance(value, dict):
            return cls({str(key): cls.of(item) for key, item in value.items()})
        if isinstance(value, list):
            return [cls.of(item) for item in value]
        if isinstance(value, str) and (value.startswith(("http://", "https://"))
                                       or value.lower().endswith(_CHECKPOINTS)) and not os.path.exists(value):
            return None
        return value

    def get(self, key: str, default=None):
        return self.__dict__.get(key, default)

    def __getitem__(self, key: str):
        return self.__dict__[key]

    def __contains__(self, key) -> bool:
        return key in self.__dict__

    def keys(self):
        return self.__dict__.keys()

    def items(self):
        return self.__dict__.items()


def _after_instance(method) -> list:
    """The parameters of ``method`` after its instance parameter."""
    import inspect

    return list(inspect.signature(method).parameters.values())[1:]


_RUNNERS = {"docstring": _run_docstring, "script": _run_script, "test": _run_test, "enclosing": _run_enclosing,
            "factory": _run_factory}


def _in_package_or_own(path: str, module) -> bool:
    return _same(getattr(module, "__file__", "") or "", path) or os.path.isfile(
        os.path.join(os.path.dirname(path), "__init__.py"))


def _same(first: str, second: str) -> bool:
    from ms_lint.validate.locations import same_file

    return bool(first) and same_file(first, second)


def _import_by_path(path: str):
    """The imported module whose file is ``path`` (imported by its name under the import root)."""
    import importlib

    from ms_lint.validate.project import locate_module

    location = locate_module(path)
    return importlib.import_module(location.module)


def _main_block_code(path: str):
    import ast

    from ms_lint.model.source import read_source

    source = read_source(path)
    tree = ast.parse(source, filename=path)
    for node in tree.body:
        if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test) and "__name__" in ast.unparse(node.test):
            block = ast.Module(body=node.body, type_ignores=[])
            return compile(block, path, "exec")
    return None


def _conftests(path: str) -> list[str]:
    """The ``conftest.py`` files from the top of the test's project down to its folder, outermost first."""
    from ms_lint.validate.project import find_project_root

    folder = os.path.dirname(os.path.abspath(path))
    top = find_project_root(folder)
    found = []
    while True:
        candidate = os.path.join(folder, "conftest.py")
        if os.path.isfile(candidate) and candidate != os.path.abspath(path):
            found.append(candidate)
        if folder == top or os.path.dirname(folder) == folder:
            break
        folder = os.path.dirname(folder)
    return list(reversed(found))


def _fixtures_of(module) -> dict:
    """Fixture name -> the function behind it, for the ``@pytest.fixture`` functions of ``module``."""
    found = {}
    for value in vars(module).values():
        function = _fixture_function(value)
        if function is not None:
            name = getattr(getattr(value, "_fixture_function_marker", None), "name", None) or getattr(
                value, "name", None) or function.__name__
            found[name] = function
    return found


def _fixture_function(value):
    getter = getattr(value, "_get_wrapped_function", None)
    if callable(getter):  # pytest >= 8.4
        try:
            return getter()
        except Exception:  # noqa: BLE001 -- not a fixture after all
            return None
    wrapped = getattr(value, "__pytest_wrapped__", None)  # older pytest
    if wrapped is not None and getattr(value, "_pytestfixturefunction", None) is not None:
        return getattr(wrapped, "obj", None)
    return None


def _parameters(function) -> list[str]:
    try:
        return [name for name, parameter in inspect.signature(function).parameters.items()
                if parameter.default is inspect.Parameter.empty
                and parameter.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)]
    except (TypeError, ValueError):
        return []


def _parametrized(function) -> dict:
    """The first parameter set of the test's ``parametrize`` marks."""
    arguments = {}
    for mark in getattr(function, "pytestmark", None) or []:
        if getattr(mark, "name", "") != "parametrize" or len(mark.args) < 2:
            continue
        names, values = mark.args[0], list(mark.args[1])
        names = [name.strip() for name in names.split(",")] if isinstance(names, str) else list(names)
        if not values:
            continue
        first = values[0]
        first = getattr(first, "values", first)  # pytest.param(...)
        if len(names) == 1:
            first = first[0] if isinstance(first, tuple) and getattr(values[0], "values", None) else first
            arguments[names[0]] = first
        else:
            arguments.update(zip(names, first))
    return arguments


def _fixture_value(name: str, fixtures: dict, stack: ExitStack, resolving: set):
    """The value fixture ``name`` gives (its own fixtures first; a generator fixture's first value, finished when
    the test has run); ``tmp_path``/``tmpdir`` and ``monkeypatch`` as pytest gives them."""
    if name in ("tmp_path", "tmpdir", "tmp_path_factory"):
        from pathlib import Path

        directory = Path(tempfile.mkdtemp(prefix="ms-lint-example-", dir=os.getcwd()))
        return directory
    if name == "monkeypatch":
        from _pytest.monkeypatch import MonkeyPatch

        patcher = MonkeyPatch()
        stack.callback(patcher.undo)
        return patcher
    function = fixtures.get(name)
    if function is None or name in resolving:
        raise LookupError(f"the test needs the fixture {name!r}, which ms-lint cannot provide")
    resolving = resolving | {name}
    arguments = {parameter: _fixture_value(parameter, fixtures, stack, resolving)
                 for parameter in _parameters(function)}
    value = function(**arguments)
    if inspect.isgenerator(value):
        generator = value
        value = next(generator)
        stack.callback(lambda: next(generator, None))
    return value


def inputs_of(target: type, call: tuple) -> tuple[tuple, dict]:
    """``(positional inputs, inputs passed by name)`` of a captured call ``(args, kwargs)`` of a ``target``
    instance: arguments given by name that ``construct`` takes by position, up to the first it leaves at its
    default, become positional."""
    args, kwargs = call
    try:
        parameters = list(inspect.signature(target.construct).parameters.values())[1:]
    except (TypeError, ValueError, AttributeError):
        return tuple(args), dict(kwargs)
    positional = list(args)
    remaining = dict(kwargs)
    for parameter in parameters[len(args):]:
        if parameter.kind not in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
            break
        if parameter.name not in remaining:
            break
        positional.append(remaining.pop(parameter.name))
    return tuple(positional), remaining


def reason_text(error: str) -> str:
    """Why an example could not give the Cell, said as what it lacked where the error shows it."""
    error = error if len(error) <= 160 else error[:157] + "..."
    if error.startswith("ModuleNotFoundError"):
        return f"it needs a package that is not installed ({error})"
    lowered = error.lower()
    if any(word in lowered for word in ("connection", "resolve host", "urlopen", "offline", "huggingface",
                                        "max retries", "network")):
        return f"it needs a download ({error})"
    if error.startswith(("FileNotFoundError", "OSError: [Errno 2]")):
        return f"it reads a file that is not there ({error})"
    return f"it raised {error}"
