"""The worker process: imports MindSpore once, then runs jobs sent by the pool, one at a time.

Started by ``ms_lint.validate.pool`` as ``python -m ms_lint.validate.worker REQUEST_FD RESPONSE_FD CONFIG_JSON``.
Requests and answers are JSON lines on two dedicated pipes, never on stdin/stdout: user code can print, read
stdin (it is /dev/null) or write to fd 1 without disturbing the protocol. Each job runs in its own scratch
directory (a failed compile writes ``rank_0/`` into the cwd) with fds 1 and 2 sent to a file of bounded size.

Messages to the pool: ``{"event": "ready", ...}`` once, ``{"event": "fatal", ...}`` if MindSpore or the device
cannot be used, then per job ``{"event": "stage", "stage": ...}`` before each step (so a hang or crash can be
placed) and ``{"event": "result", "outcome": {...}}``.
"""
from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import os
import shutil
import signal
import sys
import tempfile
import time
import traceback
import types

from ms_lint.validate.expectations import expectation_for
from ms_lint.validate.locations import location_lines, message_line, parse_locations, same_file
from ms_lint.validate.reach import ARGUMENT_RETRY, BPROP, GRADIENT_RETRY

MESSAGE_LIMIT = 16_000
OUTPUT_HEAD = 2_000
NOISY_OUTPUT = 1 << 20  # output above this is worth a note in the verdict
RANKS = (3, 4, 2)  # tried for inputs of any rank that an operator needs the rank of
STAGES = ("import", "examples", "resolve", "instance", "compile", "probe", "retry", "fix")


class Worker:
    def __init__(self, request_fd: int, response_fd: int, config: dict):
        self.requests = os.fdopen(request_fd, "rb")
        self.responses = os.fdopen(response_fd, "wb", buffering=0)
        self.device = config["device"]
        self.memory_limit_mb = config.get("memory_limit_mb") or 0
        self.output_limit = config.get("output_limit_bytes") or (64 << 20)
        self.scratch_root = config["scratch_root"]
        self.pid = os.getpid()
        self.forks = 0
        self.mindspore = None
        self.baseline_modules: set[str] = set()
        self.baseline_path: list[str] = []
        self.baseline_environ: dict[str, str] = {}
        self.user_roots: list[str] = []
        self.current_root: str | None = None
        self.examples_cache: dict[tuple, dict] = {}
        self.capture: "_OutputCapture | None" = None
        # (top package, the modules imported before) when this job imported a package without running its __init__
        self.bare_imports: tuple[str, set[str]] | None = None

    # -- start-up ------------------------------------------------------------------------------------------------

    def start(self) -> bool:
        self._isolate()
        try:
            import mindspore
        except BaseException as exc:  # noqa: BLE001 -- any failure here is reported, never raised
            self.send({"event": "fatal", "kind": "import", "message": _first_line(exc)})
            return False
        self.mindspore = mindspore
        supported = _supported_devices()
        if self.device not in supported:
            self.send({
                "event": "fatal", "kind": "device", "message": f"device {self.device} is not available",
                "supported": supported, "mindspore": mindspore.__version__,
            })
            return False
        try:
            mindspore.set_device(self.device)
            mindspore.set_context(mode=mindspore.GRAPH_MODE)
            self._warm_up()
        except BaseException as exc:  # noqa: BLE001
            self.send({
                "event": "fatal", "kind": "device", "message": _first_line(exc),
                "supported": supported, "mindspore": mindspore.__version__,
            })
            return False
        self.baseline_modules = {name.split(".")[0] for name in sys.modules}
        self.baseline_path = [entry for entry in sys.path if entry not in ("", os.getcwd())]
        self.baseline_environ = dict(os.environ)
        self.send({
            "event": "ready", "pid": self.pid, "mindspore": mindspore.__version__, "device": self.device,
            "supported": supported,
        })
        return True

    def _isolate(self) -> None:
        import resource

        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        try:
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        except (ValueError, OSError):
            pass
        # A user print loop must not fill the disk: writes past the limit fail with EFBIG instead.
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        _set_soft_limit(resource.RLIMIT_FSIZE, self.output_limit)
        _die_with_parent()
        os.register_at_fork(after_in_parent=self._count_fork)

    def _count_fork(self) -> None:
        self.forks += 1

    def _warm_up(self) -> None:
        """Compile one tiny Cell so that the first real job does not pay for MindSpore's lazy start-up."""
        import mindspore
        from mindspore import nn, ops

        class _WarmUp(nn.Cell):
            def construct(self, x):
                return ops.relu(x) + 1

        scratch = tempfile.mkdtemp(prefix="warm-up-", dir=self.scratch_root)
        previous = os.getcwd()
        try:
            os.chdir(scratch)
            _WarmUp().compile(mindspore.Tensor(shape=[-2], dtype=mindspore.float32))
        finally:
            os.chdir(previous)
            shutil.rmtree(scratch, ignore_errors=True)

    def _apply_limits(self, memory_limit_mb: int | None, output_limit: int | None) -> None:
        """Per job: cap the address space at what the worker already maps plus the memory limit (a job that
        allocates beyond it gets MemoryError instead of taking the machine down), and the size of any file
        written (the job's output) at the output limit."""
        import resource

        memory_limit_mb = self.memory_limit_mb if memory_limit_mb is None else memory_limit_mb
        self.output_limit = output_limit or self.output_limit
        _set_soft_limit(resource.RLIMIT_FSIZE, self.output_limit)
        size = _vm_size_bytes()
        if not memory_limit_mb or size is None:
            _set_soft_limit(resource.RLIMIT_AS, resource.RLIM_INFINITY)
            return
        # Thread stacks and allocator arenas reserve address space they never touch; leave room for them.
        _set_soft_limit(resource.RLIMIT_AS, size + memory_limit_mb * (1 << 20) + (1 << 30))

    # -- protocol ------------------------------------------------------------------------------------------------

    def send(self, message: dict) -> None:
        if os.getpid() != self.pid:
            return
        data = memoryview((json.dumps(message, default=str) + "\n").encode())
        while data:
            written = self.responses.write(data)
            data = data[written or 0:]

    def serve(self) -> None:
        while True:
            line = self.requests.readline()
            if not line:
                return
            try:
                request = json.loads(line)
            except ValueError:
                continue
            if request.get("op") == "exit":
                return
            if request.get("op") == "run":
                outcome = self.run_job(request["job"])
                if os.getpid() != self.pid:
                    # A process forked by user code came back up to here: it must not answer or go on.
                    os._exit(0)
                self.send({"event": "result", "outcome": outcome})

    # -- one job -------------------------------------------------------------------------------------------------

    def run_job(self, job: dict) -> dict:
        started = time.monotonic()
        self.forks = 0
        children_before = _child_processes(self.pid)
        self._apply_limits(job.get("memory_limit_mb"), job.get("output_limit_bytes"))
        outcome: dict = {"target": job["target"], "stage": "start", "status": "ok", "notes": [],
                         "memory_limit_mb": job.get("memory_limit_mb", self.memory_limit_mb)}
        scratch = tempfile.mkdtemp(prefix="job-", dir=self.scratch_root)
        previous_cwd = os.getcwd()
        capture = _OutputCapture(os.path.join(scratch, "output.txt"))
        self.capture = capture
        try:
            os.chdir(scratch)
            state = _JobState(job)
            if job.get("api_names"):
                # Whatever the build and compile reach: a name the installed MindSpore lacks is missing everywhere.
                outcome.setdefault("probes", {})["api"] = {name: _has_name(name) for name in job["api_names"]}
            if job.get("tensor_methods"):
                outcome.setdefault("probes", {})["tensor_methods"] = {
                    name: _call_on_tensors(name) for name in job["tensor_methods"]}
            for stage in STAGES:
                if state.stop:
                    break
                outcome["stage"] = stage
                self.send({"event": "stage", "stage": stage, "scratch": scratch})
                if stage == "compile":
                    self._compile_and_record(state, outcome, capture)
                else:
                    getattr(self, f"_stage_{stage}")(state, outcome)
                if stage == "import":
                    # Independent of building and compiling the unit, which may fail or run out of time.
                    self._build_types_alone(state, outcome)
        except BaseException as exc:  # noqa: BLE001 -- SystemExit, KeyboardInterrupt and friends included
            if os.getpid() != self.pid:
                os._exit(0)
            _record_exception(outcome, exc, outcome["stage"])
        finally:
            if os.getpid() != self.pid:
                os._exit(0)
            capture.restore()
            _restore_streams()
            try:
                os.chdir(previous_cwd)
            except OSError:
                os.chdir(self.scratch_root)
            self._restore_process_state()
        outcome["output"] = capture.summary(self.output_limit)
        outcome["output_limit_bytes"] = self.output_limit
        if outcome["output"]["limit_reached"]:
            outcome["notes"].append(
                f"printed more than the {self.output_limit / (1 << 20):g} MB output limit; writes past it failed"
            )
        elif outcome["output"]["bytes"] >= NOISY_OUTPUT:
            outcome["notes"].append(f"printed {outcome['output']['bytes'] / (1 << 20):.1f} MB of output")
        if self.forks:
            outcome["forks"] = self.forks
            outcome["notes"].append(f"forked {self.forks} process(es)")
        leftover = _child_processes(self.pid) - children_before
        if leftover:
            _end_processes(leftover)
            outcome["notes"].append(f"left {len(leftover)} child process(es) behind; ms-lint ended them")
        outcome["seconds"] = round(time.monotonic() - started, 3)
        shutil.rmtree(scratch, ignore_errors=True)
        return outcome

    def _compile_and_record(self, state: "_JobState", outcome: dict, capture: "_OutputCapture") -> None:
        """A compile error is the expected result of most jobs: record it and let the probes still run."""
        start = capture.size()
        try:
            self._stage_compile(state, outcome)
        except Exception as exc:  # noqa: BLE001 -- SystemExit and friends go up to run_job
            _record_exception(outcome, exc, "compile")
            outcome["compiled"] = False
        finally:
            outcome["compile_log"] = location_lines(capture.read_from(start))
        if outcome.get("compiled") and state.arguments is not None:
            outcome["markers"] = self._mark_unknown_lines(
                state, outcome.get("reach"), {}, *state.arguments,
                lambda obj: obj.compile(*state.inputs, **state.extra_arguments))

    def _mark_unknown_lines(self, state: "_JobState", reach: dict | None, sources: dict[str, str], args, kwargs,
                            compile_obj) -> dict:
        """After a compile that passed (of the module's own source, or of ``sources``, fixed copies): the finding
        lines under a condition ms-lint could not evaluate (``attn.shape != (b, n, n)``), each compiled again by
        ``compile_obj`` with its statement replaced by a call that raises when compiled (``fixing.marked``), which
        shows whether MindSpore kept the line in the graph: line -> ``{"in_graph": bool}``, or ``{"error"}``."""
        from ms_lint.model.source import read_source
        from ms_lint.validate import fixing

        unknown = sorted(int(line) for line, entry in (reach or {}).items()
                         if entry.get("reached") is None and entry.get("unknown"))
        if not unknown or not isinstance(state.target, type) or state.module is None:
            return {}
        name, path = state.module.__name__, state.job["path"]
        try:
            source = sources.get(name) or read_source(path)
        except OSError:
            return {}
        markers: dict[str, dict] = {}
        for line in unknown[:_MAX_MARKED_LINES]:
            if not state.time_left_for(time.monotonic() - state.building):
                markers[str(line)] = {"skipped": "the job had no time left"}
                continue
            text = fixing.marked(source, path, line)
            if text is None:
                continue
            try:
                with fixing.fixed_modules({**sources, name: text}, state.module, state.job["import_root"]) as module:
                    target = fixing.resolve(module, state.job["qualname"])
                    compile_obj(self._build(state, lambda: target(*args, **kwargs)))
                markers[str(line)] = {"in_graph": False}
            except Exception as exc:  # noqa: BLE001 -- the marker's own error is the answer
                markers[str(line)] = {"in_graph": True} if fixing.MARKER_MESSAGE in str(exc) \
                    else {"error": _first_line(exc)}
        return markers

    def _restore_process_state(self) -> None:
        if self.bare_imports is not None:
            top, present = self.bare_imports
            self.bare_imports = None
            for name in set(sys.modules) - present:
                if name == top or name.startswith(top + "."):
                    del sys.modules[name]
        if os.environ != self.baseline_environ:
            os.environ.clear()
            os.environ.update(self.baseline_environ)
        try:
            self.mindspore.set_context(mode=self.mindspore.GRAPH_MODE)
        except Exception:  # noqa: BLE001 -- a broken context shows up in the next job's outcome
            pass

    def _stage_import(self, state: "_JobState", outcome: dict) -> None:
        job = state.job
        root = job["import_root"]
        if self.current_root is not None and root != self.current_root:
            self._forget_user_modules()
        self.current_root = root
        if root not in self.user_roots:
            self.user_roots.append(root)
        sys.path[:] = [root] + self.baseline_path
        examples = job.get("examples_file")
        if examples:
            sys.path.insert(1, os.path.dirname(examples))
        importlib.invalidate_caches()
        try:
            state.module = self._import(job["module"], job["path"])
        except ImportError as exc:
            parents = _failing_parent_packages(exc, job["module"], job["path"])
            if not parents:
                raise
            # A package's __init__ importing what this MindSpore lacks (a private module an older release had) need
            # not stop a module that does not use it: import it with its parent packages left unexecuted, for this
            # job only (the next one imports the package as Python does, and says so again).
            self.bare_imports = (parents[0][0], set(sys.modules))
            for name, directory in parents:
                _bare_package(name, directory)
            outcome["notes"].append(
                f"imported with its parent packages' __init__ not run ({', '.join(name for name, _ in parents)}): "
                f"{_first_line(exc)}")
            # What a later install may change: the cache keeps the outcome only while it is so.
            outcome["parents_error"] = {"type": type(exc).__name__, "message": _message(exc),
                                        "first_line": _first_line(exc)}
            state.module = self._import(job["module"], job["path"])

    def _import(self, name: str, path: str):
        top = name.split(".")[0]
        if top in self.baseline_modules and not _module_file_is(sys.modules.get(top), path, top):
            if "." in name:
                raise ImportError(
                    f"package {top!r} has the name of a module MindSpore already imported; rename the package"
                )
            # A script named like a standard module ("random.py") is loaded from its path under another name.
            return _load_from_path(f"_ms_lint_script_{abs(hash(path))}", path)
        module = importlib.import_module(name)
        loaded_from = getattr(module, "__file__", None)
        if loaded_from and not same_file(loaded_from, path):
            raise ImportError(f"'import {name}' loads {loaded_from}, not {path}; is another {top!r} on sys.path?")
        return module

    def _forget_user_modules(self) -> None:
        for name, module in list(sys.modules.items()):
            if name.split(".")[0] in self.baseline_modules:
                continue
            file = getattr(module, "__file__", None) or ""
            if any(file.startswith(root + os.sep) for root in self.user_roots) or name.startswith("_ms_lint_"):
                del sys.modules[name]
        self.examples_cache.clear()

    def _stage_examples(self, state: "_JobState", outcome: dict) -> None:
        path = state.job.get("examples_file")
        if not path:
            return
        if not os.path.isfile(path):
            raise FileNotFoundError(f"examples file {path} does not exist")
        stat = os.stat(path)
        key = (path, stat.st_mtime_ns, stat.st_size)
        if key not in self.examples_cache:
            from ms_lint import examples

            examples.clear()
            _load_from_path(f"_ms_lint_examples_{abs(hash(path))}", path)
            self.examples_cache[key] = examples.registered()
        state.example = self.examples_cache[key].get(state.job["target"])
        outcome["examples_file"] = path

    def _stage_resolve(self, state: "_JobState", outcome: dict) -> None:
        obj = state.module
        for part in state.job["qualname"].split("."):
            if not hasattr(obj, part):
                outcome["status"] = "not_found"
                outcome["message"] = f"{state.job['qualname']} is not defined in {state.job['module']} at import"
                state.stop = True
                return
            obj = getattr(obj, part)
        state.target = obj

    def _stage_instance(self, state: "_JobState", outcome: dict) -> None:
        state.building = time.monotonic()
        try:
            self._build_instance(state, outcome)
        except Exception as exc:
            if outcome.get("stage") == "construction":
                try:
                    self._fix_construction(state, outcome, exc)
                    self._retry_after_construction_fixes(state, outcome)
                except Exception as failure:  # noqa: BLE001 -- the construction error stays the job's result
                    outcome["stage"] = "construction"
                    outcome["notes"].append(f"applying a fix in memory failed: {_first_line(failure)}")
            raise
        if not state.stop and state.obj is not None and state.job.get("guards"):
            outcome["reach"] = self._reach(state, state.obj)
        self._build_with_switches(state, outcome)

    def _build_with_switches(self, state: "_JobState", outcome: dict) -> None:
        """Construction lines building skipped, built again with the argument that runs them (``reach``'s
        ``build_retries``), each build traced and recorded with where it raised."""
        from ms_lint.validate import probes

        skipped = set(state.job.get("construction_lines") or ()) - set(outcome.get("built_lines") or ())
        planned = [retry for retry in state.job.get("build_retries") or () if skipped & set(retry["lines"])]
        if state.arguments is None or not planned or not isinstance(state.target, type):
            return
        results = outcome["build_retries"] = []
        for retry in planned:
            if not state.time_left_for(time.monotonic() - state.building):
                outcome["notes"].append("stopped building again to stay within the job's time limit")
                return
            result = {"description": f"{retry['parameter']}={retry['value']!r}", "lines": retry["lines"],
                      "error": None}
            args, kwargs = _with_argument(state.target, state.arguments, retry["parameter"], retry["value"])
            lines_run = probes.LinesRun(state.job["path"], retry["lines"])
            try:
                with lines_run:
                    self._build(state, lambda: state.target(*args, **kwargs))
            except Exception as exc:  # noqa: BLE001 -- where it raised is the answer
                result["error"] = {"type": type(exc).__name__, "message": _message(exc)[:2000],
                                   "line": lines_run.innermost_line(exc)}
            result["ran"] = sorted(lines_run.ran)
            results.append(result)

    def _retry_after_construction_fixes(self, state: "_JobState", outcome: dict) -> None:
        """The Cell was built and compiled only with the lines that stopped building fixed: the retries (train mode,
        a flag) start from the same failing build, and get past it the same way."""
        recipe = state.failed_recipe
        if not outcome.get("fixes") or recipe is None or not isinstance(state.target, type):
            return
        state.arguments = (recipe.args, dict(recipe.kwargs))
        try:
            self._stage_retry(state, outcome, after_construction_fixes=True)
        finally:
            state.arguments = None
            outcome["stage"] = "construction"

    def _reach(self, state: "_JobState", obj, gradient: bool = False) -> dict:
        from mindspore import nn

        from ms_lint.validate.reach import evaluate, rebound_names, rebound_values

        is_cell = isinstance(obj, nn.Cell)
        entry = getattr(obj, "construct", None) if is_cell else (getattr(obj, "__wrapped__", None) or obj)
        # An argument the function assigns again (return_dict = return_dict or self.config...) is not its default:
        # it holds what that assignment gives, when it reads plain values only.
        rebound = rebound_names(entry)
        given = {**_plain_defaults(entry, given=len(state.inputs), skip_first=False), **state.extra_arguments}
        defaults = {name: value for name, value in given.items() if name not in rebound}
        defaults.update(rebound_values(entry, {**({"self": obj} if is_cell else {}), **given}))
        name = "construct" if is_cell else state.job["qualname"].split(".")[-1]
        tensors = frozenset(_positional_names(entry)[:len(state.inputs)])
        return evaluate(state.job.get("guards") or {}, obj if is_cell else None, defaults, entry=name,
                        tensors=tensors, gradient=gradient)

    def _build_instance(self, state: "_JobState", outcome: dict) -> None:
        from mindspore import nn

        from ms_lint.validate import probes

        target = state.target
        job = state.job
        is_cell_class = isinstance(target, type) and issubclass(target, nn.Cell)
        is_jit_function = callable(target) and getattr(target, "__wrapped_by_jit__", False)
        call_parameters: list[str] | None = None
        if is_cell_class:
            outcome["kind"] = "cell"
            call_parameters = _call_parameters(getattr(target, "construct", None), skip_first=True)
            required = _required_parameters(target.__init__, skip_first=True)
            outcome["signature"] = {"init": required, "call": call_parameters or []}
        elif is_jit_function:
            outcome["kind"] = "jit function"
            outcome["effective_level"] = _jit_level(target)
            call_parameters = _call_parameters(target, skip_first=False)
            required = []
            outcome["signature"] = {"init": [], "call": call_parameters or []}

        if state.example is not None:
            from ms_lint.examples import normalize_example_result

            outcome["instance"] = "example"
            outcome["stage"] = "example"
            with probes.LinesRun(job["path"], job.get("construction_lines") or ()) as lines_run:
                obj, inputs = normalize_example_result(job["target"], state.example())
            outcome["built_lines"] = sorted(lines_run.ran)
            state.obj, state.inputs = obj, inputs
            state.eager = getattr(obj, "__wrapped__", None)
            outcome["inputs"] = [_describe(value) for value in inputs]
            outcome["concrete_inputs"] = all(_is_concrete(value) for value in inputs)
            if getattr(obj, "__wrapped_by_jit__", False):
                outcome["effective_level"] = _jit_level(obj)
            return

        if not (is_cell_class or is_jit_function):
            outcome["status"] = "not_compilable"
            if isinstance(target, nn.Cell):
                outcome["message"] = f"{job['qualname']} is a Cell instance, not a class: register an example for it"
            else:
                kind = "class" if isinstance(target, type) else type(target).__name__
                outcome["message"] = (
                    f"{job['qualname']} is a {kind}, not a Cell subclass or a @jit function: the validator "
                    f"compiles the Cell that uses it, or an example registered for it"
                )
            state.stop = True
            return
        if call_parameters is None:
            outcome["status"] = "needs_example"
            outcome["needs"] = f"{job['qualname']} has keyword-only parameters without defaults"
            state.stop = True
            return
        config = None
        if is_cell_class:
            state.call_parameters = call_parameters
            recipe = self._construct(state, outcome, target, required)
            if recipe is None:
                outcome["status"] = "needs_example"
                outcome["needs"] = f"{job['qualname']}() needs {', '.join(required)}"
                state.stop = True
                return
            config = recipe.config
        else:
            outcome["instance"] = "default"
            outcome["built"] = f"the @jit function {job['qualname']}"
            state.obj = target
            state.eager = getattr(target, "__wrapped__", None)
        self._make_inputs(state, outcome, state.obj, call_parameters, config, is_cell_class)

    def _make_inputs(self, state: "_JobState", outcome: dict, obj, call_parameters: list[str], config,
                     is_cell_class: bool) -> None:
        if state.job.get("input_specs"):
            state.inputs = self._placeholders(call_parameters, state.job.get("input_specs"))
            outcome["inputs_how"] = ["from [tool.ms-lint.validate.inputs]"]
        else:
            from ms_lint.validate.building import first_optional_input, input_placeholders

            if not call_parameters and is_cell_class:
                # construct(self, input_ids=None, ...): without it most models raise before the hazards.
                call_parameters = first_optional_input(obj, config)
            state.inputs, outcome["inputs_how"], state.sequence_inputs = input_placeholders(obj, call_parameters,
                                                                                            config)
        outcome["inputs"] = [_describe(value) for value in state.inputs]
        outcome["concrete_inputs"] = all(_is_concrete(value) for value in state.inputs)
        if is_cell_class:
            # What the compile leaves at None: a None in its error may come from one of them.
            outcome["left_at_none"] = [name for name, value in _plain_defaults(
                obj.construct, given=len(state.inputs), skip_first=False).items() if value is None]

    def _construct(self, state: "_JobState", outcome: dict, target, required: list[str]):
        """Build the Cell the first way that works (see ``building``); None when there is no way to try. When
        every way raises, the first error is raised (a construction error is a result: MS205 raises there)."""
        from ms_lint.validate import building, probes

        job = state.job
        class_name = job["qualname"].split(".")[-1]
        recipes = building.constructor_calls(state.module, job["path"], class_name) if "." not in job["qualname"] \
            else []
        if not required:
            recipes.append(building.Recipe("defaults", f"{job['qualname']}() (no arguments)"))
        else:
            recipes.extend(building.config_recipes(target, state.module, required))
            guessed = building.guessed_arguments(target, required)
            if guessed is not None:
                recipes.append(guessed)
        if not recipes:
            return None
        outcome["stage"] = "construction"
        first_error = None
        tried = []
        for recipe in recipes:
            try:
                with probes.LinesRun(job["path"], job.get("construction_lines") or ()) as lines_run:
                    obj, recipe = self._build_completing_config(state, target, recipe)
            except _BuildFailed as failed:  # the next way may work
                exc, recipe = failed.error, failed.recipe
                tried.append(recipe.description)
                if first_error is None:
                    first_error = (exc, recipe)
                continue
            state.obj = obj
            state.arguments = (recipe.args, dict(recipe.kwargs))
            outcome["built_lines"] = sorted(lines_run.ran)
            outcome["instance"] = "default" if recipe.how == "defaults" else recipe.how
            outcome["built"] = recipe.description + _on_host(state.host_used, self.device)
            if state.host_used:
                outcome["host_operators"] = sorted(state.host_used)
            if tried:
                outcome["notes"].append(f"building it as {tried[0]} raised first")
            return recipe
        exc, recipe = first_error
        state.failed_recipe = recipe
        outcome["instance"] = "default" if recipe.how == "defaults" else recipe.how
        outcome["built"] = recipe.description
        if state.host_kernels:
            outcome["host_operators"] = sorted(state.host_kernels)
        outcome["tried"] = tried
        raise exc

    def _build_completing_config(self, state: "_JobState", target, recipe):
        """``(instance, the recipe that built it)``; a config field the defaults leave None that the constructor
        reads as a mapping or a number is filled in and the build tried again (``building.completed_config``)."""
        from ms_lint.validate import building

        completions = 0
        while True:
            try:
                return self._build(state, lambda: target(*recipe.args, **recipe.kwargs)), recipe
            except Exception as exc:  # noqa: BLE001 -- raised again unless a None field explains it
                completed = building.completed_config(recipe, exc) \
                    if completions < building.MAX_COMPLETIONS else None
                if completed is None:
                    raise _BuildFailed(exc, recipe) from exc
                recipe, completions = completed, completions + 1

    def _build(self, state: "_JobState", build):
        """``build()``; when it raises because the device has no kernel for an operator, again with the functions
        that dispatch to it computed on the host (see ``fallbacks``), only while it runs."""
        from ms_lint.validate.fallbacks import build_with_fallbacks

        return build_with_fallbacks(build, self._user_namespaces, state.host_kernels, state.host_used)

    def _user_namespaces(self) -> list[dict]:
        """The globals of the modules imported since start-up (the user's and their dependencies')."""
        return [vars(module) for name, module in list(sys.modules.items())
                if module is not None and name.split(".")[0] not in self.baseline_modules]

    def _placeholders(self, names: list[str], specs: list[str] | None) -> tuple:
        import mindspore

        from ms_lint.validate.project import parse_input_spec

        inputs = []
        for index, _ in enumerate(names):
            if specs and index < len(specs):
                dtype, shape = parse_input_spec(specs[index])
            else:
                dtype, shape = "float32", None
            inputs.append(mindspore.Tensor(shape=[-2] if shape is None else shape, dtype=getattr(mindspore, dtype)))
        return tuple(inputs)

    def _stage_compile(self, state: "_JobState", outcome: dict) -> None:
        import mindspore

        level = "LAX" if state.lax else state.job.get("syntax_level", "strict").upper()
        mindspore.set_context(mode=mindspore.GRAPH_MODE, jit_syntax_level=getattr(mindspore, level))
        obj = state.obj
        started = time.monotonic()
        if isinstance(obj, mindspore.nn.Cell):
            try:
                obj.compile(*state.inputs)
            except Exception as exc:  # noqa: BLE001 -- raised again unless inputs of a fixed rank get further
                self._compile_with_ranks(state, outcome, exc, time.monotonic() - started)
        elif getattr(obj, "__wrapped_by_jit__", False):
            outcome.setdefault("effective_level", _jit_level(obj))
            # Compile without running, as Cell.compile does: data-less placeholders cannot run.
            os.environ["MS_DEV_PRECOMPILE_ONLY"] = "1"
            try:
                obj(*state.inputs)
            finally:
                os.environ.pop("MS_DEV_PRECOMPILE_ONLY", None)
        else:
            outcome["status"] = "not_compilable"
            outcome["message"] = (
                f"the example for {state.job['target']} returned {type(obj).__name__}, which is neither a Cell "
                f"nor a @jit function"
            )
            state.stop = True
            return
        outcome["compiled"] = True
        outcome["compile_seconds"] = round(time.monotonic() - started, 3)

    def _compile_guessing_ranks(self, state: "_JobState", outcome: dict, compiled) -> None:
        """``compiled.compile`` with the job's inputs, given a rank as ``_compile_with_ranks`` does when an input of
        any rank reaches code that needs one (a retry or a fix compiles code the first compile left out)."""
        started = time.monotonic()
        try:
            compiled.compile(*state.inputs, **state.extra_arguments)
        except Exception as exc:  # noqa: BLE001 -- raised again unless inputs of a fixed rank get further
            self._compile_with_ranks(state, outcome, exc, time.monotonic() - started, compiled)

    def _compile_with_ranks(self, state: "_JobState", outcome: dict, error: Exception, seconds: float,
                            compiled=None) -> None:
        """The compile failed because an input of any rank reached code that needs its rank (``For Chunk, the
        input tensor is with dynamic rank``, see ``_needs_rank``): compile again with the placeholders ms-lint made
        of any rank given rank 3, 4, then 2 (every dimension still of any size). The first rank that compiles is
        kept; else the first that fails with another error that does not show the rank was wrong (``b, c, h, w =
        x.shape`` on rank 3), which is raised; else the first that fails at all; else the original error. Inputs
        made for a Linear get their chance as sequences first (``_compile_as_sequences``)."""
        import mindspore

        error = self._compile_as_sequences(state, outcome, compiled or state.obj, error)
        if error is None:
            return
        guessed = outcome.get("instance") not in (None, "example") and not state.job.get("input_specs")
        loose = [index for index, value in enumerate(state.inputs) if list(getattr(value, "shape", ())) == [-2]]
        if not _needs_rank(error) or not guessed or not loose:
            raise error
        failed = wrong_rank = None
        for rank in RANKS:
            if not state.time_left_for(seconds):
                break
            inputs = tuple(mindspore.Tensor(shape=[-1] * rank, dtype=value.dtype) if index in loose else value
                           for index, value in enumerate(state.inputs))
            try:
                (compiled or state.obj).compile(*inputs, **state.extra_arguments)
            except Exception as exc:  # noqa: BLE001
                if _needs_rank(exc):
                    continue
                if _shows_wrong_rank(exc):
                    wrong_rank = wrong_rank or (rank, inputs, exc)
                    continue
                failed = failed or (rank, inputs, exc)
                continue
            self._keep_rank(state, outcome, rank, inputs, loose)
            return
        failed = failed or wrong_rank
        if failed is None:
            raise error
        rank, inputs, exc = failed
        self._keep_rank(state, outcome, rank, inputs, loose)
        raise exc

    def _compile_as_sequences(self, state: "_JobState", outcome: dict, compiled, error: Exception):
        """The compile failed where the code needs more axes than an input of ``[2, features]`` for a Linear has
        (``x.view(*x.shape[:-1], heads, -1).permute(0, 2, 1, 3)`` on an attention block's input), at a line with no
        finding: compile again with those inputs as sequences, ``[2, length, features]``, kept unless they fail the
        same way at the same line. None when they compiled; else the error to go on with."""
        sequences = state.sequence_inputs
        if not sequences or not _shows_wrong_shape(error):
            return error
        stopped_at = _innermost_line(error, state.job["path"])
        if stopped_at is None or stopped_at in (state.job.get("finding_lines") or ()):
            return error  # the finding's own error, perhaps
        state.sequence_inputs = {}
        inputs = tuple(sequences[index][0] if index in sequences else value
                       for index, value in enumerate(state.inputs))
        try:
            compiled.compile(*inputs, **state.extra_arguments)
        except Exception as exc:  # noqa: BLE001 -- the error past the shape is the compile's result
            if _shows_wrong_shape(exc) and _innermost_line(exc, state.job["path"]) == stopped_at:
                return error
            self._keep_sequences(state, outcome, inputs, sequences)
            return exc
        self._keep_sequences(state, outcome, inputs, sequences)
        return None

    def _keep_sequences(self, state: "_JobState", outcome: dict, inputs: tuple, sequences: dict) -> None:
        self._replace_inputs(state, outcome, inputs, {
            index: f"{described} (rank 2 failed where the code needs more axes)"
            for index, (_, described) in sequences.items()})

    def _keep_rank(self, state: "_JobState", outcome: dict, rank: int, inputs: tuple, loose: list[int]) -> None:
        how = outcome.get("inputs_how") or []
        self._replace_inputs(state, outcome, inputs, {
            index: f"{how[index].split(':')[0]}: float32 of rank {rank}, any size (of any rank, the compile failed "
                   f"with dynamic rank)"
            for index in loose if index < len(how)})

    def _replace_inputs(self, state: "_JobState", outcome: dict, inputs: tuple, described: dict[int, str]) -> None:
        """Compile with ``inputs`` from now on; ``described``: the new line of ``inputs_how`` for each input changed."""
        state.inputs = inputs
        outcome["inputs"] = [_describe(value) for value in inputs]
        how = list(outcome.get("inputs_how") or [])
        for index, line in described.items():
            if index < len(how):
                how[index] = line
        outcome["inputs_how"] = how
        outcome["concrete_inputs"] = all(_is_concrete(value) for value in inputs)

    def _stage_retry(self, state: "_JobState", outcome: dict, after_construction_fixes: bool = False) -> None:
        """A line under a constant condition that was False is not compiled: compile again with it switched on
        (train mode; a boolean constructor argument; both, for a line under both), each retry recorded on its
        own."""
        # After building failed: built with the lines that stopped it fixed, what the last such compile left out.
        last = outcome["fixes"][-1] if after_construction_fixes else outcome
        reach = last.get("reach") or {}
        blocked = [entry.get("condition") or "" for entry in reach.values() if entry.get("reached") is False]
        # Also after a failed compile: the failing line may be one the switched-on instance leaves out.
        if not blocked or not (last.get("compiled") or (last.get("error") or {}).get("stage") == "compile"):
            return
        from mindspore import nn

        planned = state.job.get("retries") or []
        is_cell = isinstance(state.obj, nn.Cell) or (state.obj is None and isinstance(state.target, type)
                                                     and issubclass(state.target, nn.Cell))
        trainable = is_cell and (state.arguments is not None or state.example is not None)
        results: list[dict] = []
        for retry in planned:
            if retry["name"] == GRADIENT_RETRY:
                if not any(condition.startswith(f"{BPROP}()") for condition in blocked) or not trainable:
                    continue
                if not self._retry(state, outcome, results, retry["name"], "the gradient taken (bprop compiled)",
                                   gradient=True):
                    break
            elif retry["name"] == ARGUMENT_RETRY:
                if retry["source"] not in blocked or not trainable:
                    continue
                if not self._retry(state, outcome, results, retry["name"],
                                   f"{retry['parameter']}={retry['value']!r} passed to construct",
                                   argument={retry["parameter"]: retry["value"]}):
                    break
            elif retry["name"] == "train":
                if not any("self.training" in condition for condition in blocked) or not trainable:
                    continue
                if not self._retry(state, outcome, results, retry["name"], "set_train(True)", train=True):
                    break
            else:
                attribute = f"self.{retry['attribute']}"
                if not any(attribute in condition for condition in blocked) or state.arguments is None:
                    continue
                if not self._retry(state, outcome, results, retry["name"],
                                   f"{retry['parameter']}={retry['value']!r}", flag=retry):
                    break
        # A line under a flag and self.training both (if self.training: inside if self.quant_mode:).
        flag = next((retry for retry in planned if retry["name"] == "flag"), None)
        still = [entry.get("condition") or "" for result in results
                 for entry in (result.get("reach") or {}).values() if entry.get("reached") is False]
        if flag and trainable and state.arguments is not None and any(r["name"] == "train" for r in planned) \
                and any("self.training" in c or f"self.{flag['attribute']}" in c for c in still):
            self._retry(state, outcome, results, "both",
                        f"{flag['parameter']}={flag['value']!r} and set_train(True)", train=True, flag=flag)
        if results:
            outcome["retries"] = results

    def _retry(self, state: "_JobState", outcome: dict, results: list, name: str, description: str,
               train: bool = False, flag: dict | None = None, gradient: bool = False,
               argument: dict | None = None) -> bool:
        """One retry, appended to ``results``; False when there was no time left for it. With ``gradient``, what
        is compiled is the Cell's gradient, which compiles its custom ``bprop``; ``argument`` is passed to
        ``construct`` by name besides the inputs."""
        if not state.time_left_for(time.monotonic() - state.building):
            outcome["notes"].append("stopped compiling again to stay within the job's time limit")
            return False
        state.extra_arguments = dict(argument or {})
        try:
            return self._retry_with(state, outcome, results, name, description, train, flag, gradient)
        finally:
            state.extra_arguments = {}

    def _retry_with(self, state: "_JobState", outcome: dict, results: list, name: str, description: str,
                    train: bool, flag: dict | None, gradient: bool) -> bool:
        result = {"name": name, "description": description}
        results.append(result)
        outcome["stage"] = "retry"
        start = self.capture.size() if self.capture else 0
        try:
            result["stage"] = "construction"
            if flag is not None:
                args, kwargs = _with_argument(state.target, state.arguments, flag["parameter"], flag["value"])
                obj = self._build(state, lambda: state.target(*args, **kwargs))
            else:
                # A fresh instance: compile() reuses the graph it built for the same object and inputs.
                obj = self._fresh_instance(state)
            if train:
                obj.set_train(True)
            result["reach"] = self._reach(state, obj, gradient=gradient)
            result["stage"] = "compile"
            self._compile_guessing_ranks(state, outcome, _compiled(obj, gradient))
            result["compiled"] = True
        except Exception as exc:  # noqa: BLE001 -- a failing retry is a result like a failing compile
            _record_exception(result, exc, result.get("stage", "compile"))
            result["compiled"] = False
        finally:
            if self.capture:
                result["compile_log"] = location_lines(self.capture.read_from(start))
        if not result["compiled"] and state.arguments is not None and isinstance(state.target, type):
            # The switched-on lines may stop at a finding of their own: get past it as the default compile does.
            args, kwargs = state.arguments
            if flag is not None:
                args, kwargs = _with_argument(state.target, state.arguments, flag["parameter"], flag["value"])

            def switch_on(obj):
                if train:
                    obj.set_train(True)

            fixes = self._fix_and_rebuild(state, outcome, args, kwargs,
                                          lambda obj, _: self._compile_guessing_ranks(state, outcome,
                                                                                      _compiled(obj, gradient)),
                                          first=result, prepare=switch_on, gradient=gradient)
            outcome["stage"] = "retry"
            if fixes:
                result["fixes"] = fixes
        return True

    def _stage_fix(self, state: "_JobState", outcome: dict) -> None:
        """The compile stopped at a line with a finding whose rule has a fix that keeps the line numbers: compile
        again with that fix applied to the module's source in memory, up to ``MAX_FIXES`` lines, each compile
        recorded with the fixes it had."""
        from ms_lint.validate.fallbacks import backend_kernel_failure

        error = outcome.get("error") or {}
        if outcome.get("compiled") or error.get("stage") != "compile" or state.arguments is None \
                or not isinstance(state.target, type) or backend_kernel_failure(error.get("message") or ""):
            return
        args, kwargs = state.arguments
        results = self._fix_and_rebuild(state, outcome, args, kwargs,
                                        lambda obj, result: self._compile_guessing_ranks(state, outcome, obj))
        if results:
            outcome["fixes"] = results

    def _fix_construction(self, state: "_JobState", outcome: dict, exc: Exception) -> None:
        """Building the Cell raised at a line, in any module of the project, with a finding whose fix keeps the
        line numbers (MS205 raises in the constructor): build and compile again with it fixed in memory, the
        compile-stage fixes following. The job's error stays the construction error: that finding is confirmed
        by it; the attempts decide the others."""
        recipe = state.failed_recipe
        if recipe is None or not isinstance(state.target, type):
            return
        probe = {"error": {"stage": "construction", "type": type(exc).__name__, "message": _message(exc),
                           "traceback": _user_traceback(exc)}}
        inputs_ready = []

        def make_inputs(obj):
            # before the reach conditions are read: they depend on which construct arguments the compile passes
            if not inputs_ready:
                self._make_inputs(state, outcome, obj, state.call_parameters, recipe.config, is_cell_class=True)
                inputs_ready.append(True)

        def build_inputs_and_compile(obj, result):
            state.obj = obj
            # Inputs of any rank are given a rank when the compile needs one, as for a Cell that built.
            result.update(instance=outcome.get("instance"), inputs_how=outcome.get("inputs_how"))
            try:
                self._stage_compile(state, result)
            finally:
                state.obj = None
                outcome["inputs_how"] = result.pop("inputs_how")
                if "inputs" in result:
                    outcome["inputs"] = result.pop("inputs")
                for key in ("instance", "compiled", "compile_seconds"):
                    result.pop(key, None)

        try:
            results = self._fix_and_rebuild(state, outcome, recipe.args, recipe.kwargs, build_inputs_and_compile,
                                            first=probe, prepare=make_inputs)
        finally:
            outcome["stage"] = "construction"
        if results:
            outcome["fixes"] = results

    def _fix_and_rebuild(self, state: "_JobState", outcome: dict, args, kwargs, compile_obj,
                         first: dict | None = None, prepare=None, gradient: bool = False) -> list[dict]:
        """Up to ``MAX_FIXES`` attempts, each with one more line fixed: the line where the last attempt (first
        ``first``, else the outcome) failed, building from the fixed copies (``fixing.fixed_modules``);
        ``prepare(obj)`` runs on each built instance before its reach conditions are read and it is compiled.
        An attempt whose copies fail to run (a module registering a class a second time) ends the attempts and
        decides nothing: its error says nothing of the Cell."""
        level = state.job.get("syntax_level", "strict")
        fixed_sources: dict[str, str] = {}
        results, fixed, last = [], [], first or outcome
        attempt_seconds = time.monotonic() - state.building  # the first build and compile: what one more costs
        try:
            self._apply_fixes(state, outcome, args, kwargs, compile_obj, prepare, gradient, level, fixed_sources,
                              results, fixed, last, attempt_seconds)
        finally:
            if state.lax:
                self._switch_to_lax(state, False)
        return results

    def _switch_to_lax(self, state: "_JobState", on: bool = True) -> None:
        import mindspore

        state.lax = on
        level = "LAX" if on else state.job.get("syntax_level", "strict").upper()
        mindspore.set_context(jit_syntax_level=getattr(mindspore, level))

    def _apply_fixes(self, state: "_JobState", outcome: dict, args, kwargs, compile_obj, prepare, gradient: bool,
                     level: str, fixed_sources: dict, results: list, fixed: list, last: dict,
                     attempt_seconds: float) -> None:
        from ms_lint.validate import fixing

        for _ in range(fixing.MAX_FIXES):
            if not state.time_left_for(attempt_seconds):
                outcome["notes"].append("stopped applying fixes to stay within the job's time limit")
                break
            attempt_started = time.monotonic()
            found = self._next_fix(state, last, fixed_sources, fixed, level)
            if found is None:
                break
            name, path, line, source, codes, skipped, how = found
            fixed_sources[name] = source
            place = {"line": line, **({} if name == state.module.__name__ else {"path": path})}
            if how == LAX_STEP:
                fixed.append({"code": "/".join(codes), "lax": True, **place})
                self._switch_to_lax(state)
            elif how == STAND_IN_STEP:
                fixed.extend({"code": code, "stood_in": True, **place} for code in codes)
            elif skipped is None:
                fixed.extend({"code": code, **place} for code in codes)
            else:
                fixed.append({"code": "/".join(codes) or None, "left_out": True, "skipped": skipped, **place})
            result = {"fixed": list(fixed)}
            results.append(result)
            last = result
            outcome["stage"] = "fix"
            start = self.capture.size() if self.capture else 0
            try:
                result["stage"] = "load"
                with fixing.fixed_modules(fixed_sources, state.module, state.job["import_root"]) as module:
                    result["stage"] = "construction"
                    target = fixing.resolve(module, state.job["qualname"])
                    obj = self._build(state, lambda: target(*args, **kwargs))
                    if prepare is not None:
                        result["stage"] = "inputs"
                        prepare(obj)
                    if state.job.get("guards"):
                        result["reach"] = self._reach(state, obj, gradient=gradient)
                    result["stage"] = "compile"
                    compile_obj(obj, result)
                result["compiled"] = True
            except Exception as exc:  # noqa: BLE001 -- a failing build or compile is a result
                if result["stage"] in ("load", "inputs"):
                    results.pop()
                    doing = "running the fixed modules" if result["stage"] == "load" else "making the inputs"
                    outcome["notes"].append(f"stopped applying fixes: {doing} raised {type(exc).__name__}: "
                                            f"{_message(exc)}")
                    break
                _record_exception(result, exc, result["stage"])
                result["compiled"] = False
            finally:
                if self.capture:
                    result["compile_log"] = location_lines(self.capture.read_from(start))
            attempt_seconds = time.monotonic() - attempt_started
            if result["compiled"]:
                def prepare_and_compile(obj):
                    if prepare is not None:
                        prepare(obj)
                    compile_obj(obj, {})

                result["markers"] = self._mark_unknown_lines(state, result.get("reach"), fixed_sources, args, kwargs,
                                                             prepare_and_compile)
            if result["compiled"] or (result.get("error") or {}).get("stage") not in ("compile", "construction"):
                break

    def _next_fix(self, state: "_JobState", last: dict, fixed_sources: dict, fixed: list, level: str):
        """``(module name, file, line, fixed source, codes, None, FIX_STEP)`` for the first line where ``last``
        failed that a fix changes alone: a compile error's locations in the Cell's file, a construction error's
        frames in any module of the project, from the innermost out; ``(..., STAND_IN_STEP)`` for the first such
        line where a stand-in replaces a name MindSpore lacks (``fixing.stand_in``). Failing both, ``(..., codes on
        the line, the lines no longer compiled, LEFT_OUT_STEP)`` when the innermost of those lines is a statement
        that can be left out without changing what the code after it reads (``fixing.leave_out``): the later lines
        get compiled. Failing that, under STRICT, ``(..., source unchanged, codes, None, LAX_STEP)`` when the
        compile stopped, with that finding's error, at a finding whose rule fails under STRICT only: the next
        compiles run under LAX, which gets past it and still fails where the later findings' rules say it does.
        None when none of these applies."""
        from ms_lint.validate import fixing
        from ms_lint.validate.fallbacks import backend_kernel_failure

        error = last.get("error") or {}
        own_path = state.job["path"]
        if error.get("stage") == "compile":
            if backend_kernel_failure(error.get("message") or ""):
                return None
            text = (error.get("message") or "") + "\n" + "\n".join(last.get("compile_log") or [])
            # The locations run from construct to the innermost call: the first fixable line from the inside.
            places = [(own_path, location.start) for location in reversed(parse_locations(text))
                      if same_file(location.path, own_path)]
        elif error.get("stage") == "construction":
            places = [(frame[0], frame[1]) for frame in reversed(error.get("traceback") or [])
                      if isinstance(frame, (list, tuple)) and len(frame) >= 2 and isinstance(frame[1], int)]
        else:
            return None

        def source_of(name: str, path: str) -> str | None:
            source = fixed_sources.get(name)
            if source is None:
                try:
                    source = fixing.read_source(path)
                except OSError:
                    return None
            return source

        def fixed_already(path: str, line: int) -> bool:
            return any(entry["line"] == line and same_file(entry.get("path") or own_path, path) for entry in fixed)

        innermost = stand_in = None
        missing_name = "has no attribute" in (error.get("message") or "")
        for path, line in dict.fromkeys(places):
            if same_file(path, own_path):
                name, path = state.module.__name__, own_path
            else:
                name = fixing.project_module(path, state.job["import_root"], state.module.__name__)
                if name is None:
                    continue
            source = None if fixed_already(path, line) else source_of(name, path)
            if source is None:
                continue
            innermost = innermost or (name, path, line, source)
            found = fixing.fix_at_line(source, path, line, level)
            if found is not None:
                return name, path, line, found[0], found[1], None, FIX_STEP
            if stand_in is None and missing_name:
                replaced = fixing.stand_in(source, path, line, level)
                if replaced is not None:
                    stand_in = (replaced, name, path, line)
        name = state.module.__name__
        source = source_of(name, own_path) if error.get("stage") == "compile" else None
        if source is not None:
            # A name unbound on some paths, reported at the call that reached the Cell it is read in, or a method
            # whose instance is not named ``self``, reported without a location: the finding is fixed where it is.
            message = error.get("message") or ""
            owner = state.job.get("qualname") or ""
            for line in (fixing.lines_reading_unbound(message, source, own_path, level)
                         + fixing.lines_misnaming_instance(message, source, own_path, level, owner)):
                found = None if fixed_already(own_path, line) else fixing.fix_at_line(source, own_path, line, level)
                if found is not None:
                    return name, own_path, line, found[0], found[1], None, FIX_STEP
        if stand_in is not None:
            (fixed_source, codes), name, path, line = stand_in
            return name, path, line, fixed_source, codes, None, STAND_IN_STEP
        if innermost is None:
            return None
        name, path, line, source = innermost
        left = fixing.leave_out(source, path, line)
        if left is not None:
            return name, path, line, left[0], list(fixing.codes_on_line(source, path, line, level)), left[1], \
                LEFT_OUT_STEP
        if level != "strict" or state.lax or error.get("stage") != "compile" or not same_file(path, own_path) \
                or not set(state.job.get("lax_lines") or ()) - {line}:
            return None  # nothing a compile under LAX could decide
        strict_only = [code for code in fixing.codes_on_line(source, path, line, level)
                       if not expectation_for(code).expected_to_fail("lax")
                       and expectation_for(code).error_matches(error.get("type", ""), error.get("message", ""))]
        return (name, path, line, source, strict_only, None, LAX_STEP) if strict_only else None

    def _fresh_instance(self, state: "_JobState"):
        if state.arguments is not None:
            args, kwargs = state.arguments
            return self._build(state, lambda: state.target(*args, **kwargs))
        from ms_lint.examples import normalize_example_result

        return normalize_example_result(state.job["target"], state.example())[0]

    def _build_types_alone(self, state: "_JobState", outcome: dict) -> None:
        """The user types MS103 says the unit builds from tensor data, each built from a tensor in a Cell of its
        own, once the unit's module is imported."""
        from ms_lint.validate import probes

        built_types = state.job.get("built_types") or {}
        if not built_types or state.module is None or state.job.get("syntax_level", "strict") != "strict":
            return  # under LAX such types are interpreted: building one alone would decide nothing
        alone = outcome.setdefault("probes", {})["built_alone"] = {}
        done: dict[tuple, dict] = {}
        for line, call in built_types.items():
            key = (call["callee"], call["positional"], tuple(call["keywords"]))
            if key not in done:
                done[key] = _run_probe(probes.built_alone_probe, vars(state.module), call["callee"],
                                       call["positional"], call["keywords"], os.getcwd())
            alone[line] = done[key]

    def _stage_probe(self, state: "_JobState", outcome: dict) -> None:
        from mindspore import nn

        from ms_lint.validate import probes

        wanted = state.job.get("probes") or []
        results = outcome.setdefault("probes", {})
        if "parameters" in wanted and isinstance(state.obj, nn.Cell):
            results["parameters"] = _run_probe(probes.parameter_probe, state.obj)
        if "randomness" in wanted:
            if state.example is None and not outcome.get("concrete_inputs"):
                results["randomness"] = {"skipped": "it needs an example with concrete inputs"}
            elif not outcome.get("compiled"):
                results["randomness"] = {"skipped": "the Cell did not compile"}
            elif not outcome.get("concrete_inputs"):
                results["randomness"] = {"skipped": "the example's inputs are placeholders without data"}
            else:
                results["randomness"] = _run_probe(probes.randomness_probe, state.obj, state.inputs, state.eager)
        for name in ("output", "state"):
            if name not in wanted:
                continue
            if state.example is None:
                results[name] = {"skipped": "it needs an example with concrete inputs"}
            elif not outcome.get("compiled"):
                results[name] = {"skipped": "the Cell did not compile"}
            elif not outcome.get("concrete_inputs"):
                results[name] = {"skipped": "the example's inputs are placeholders without data"}
            elif name == "output":
                results[name] = _run_probe(probes.output_probe, state.obj, state.inputs, state.eager)
            else:
                results[name] = _run_probe(probes.state_probe, state.obj, state.inputs,
                                           state.job.get("state_names") or [], state.eager)
        self._call_host_methods(state, results)

    def _call_host_methods(self, state: "_JobState", results: dict) -> None:
        """Each host method holding findings that raise eagerly too, called on an instance of its own (a method
        such as ``switch_to_deploy`` changes the instance the retries still compile)."""
        from ms_lint.validate import probes

        wanted = state.job.get("host_calls") or {}
        if not wanted or state.obj is None:
            return
        called = results["host"] = {}
        for method, lines in wanted.items():
            if not state.time_left_for(_HOST_CALL_SECONDS):
                called[method] = {"skipped": "the job had no time left"}
                continue
            try:
                instance = self._fresh_instance(state)
            except Exception as exc:  # noqa: BLE001 -- building it again is what failed: nothing called
                called[method] = {"skipped": f"building the instance again failed: {_first_line(exc)}"}
                continue
            called[method] = _run_probe(probes.host_method_probe, instance, method, state.job["path"], lines,
                                        _HOST_CALL_SECONDS)


# The most lines ``_mark_unknown_lines`` compiles a marker for, one compile each.
_MAX_MARKED_LINES = 4

# The longest a host method called by ``_call_host_methods`` may run.
_HOST_CALL_SECONDS = 20.0

# How ``_next_fix`` gets past a line: the rule's fix, a stand-in for a missing name, the statement left out, or the
# compiles that follow under LAX.
FIX_STEP, STAND_IN_STEP, LEFT_OUT_STEP, LAX_STEP = "fix", "stand_in", "left_out", "lax"


def _compiled(cell, gradient: bool):
    """What a compile builds for ``cell``: the Cell itself, or with ``gradient`` a Cell taking its gradient with
    respect to every input, which has MindSpore compile the custom ``bprop`` (measured on 2.10: its errors are
    raised at its own lines, as construct's are)."""
    if not gradient:
        return cell
    from mindspore import nn, ops

    class GradientOf(nn.Cell):
        def __init__(self, network):
            super().__init__()
            self.network = network
            self.gradient = ops.GradOperation(get_all=True)

        def construct(self, *inputs):
            return self.gradient(self.network)(*inputs)

    return GradientOf(cell)


def _has_name(dotted: str) -> bool | None:
    """Whether the installed MindSpore has ``module.name`` (an attribute, or a submodule imported or not); None
    when the module cannot be imported."""
    import importlib
    import importlib.util

    owner, _, name = dotted.rpartition(".")
    try:
        module = importlib.import_module(owner)
    except Exception:  # noqa: BLE001 -- the module is not there either: nothing to tell
        return None
    if hasattr(module, name):
        return True
    try:
        return importlib.util.find_spec(dotted) is not None
    except (ImportError, ValueError):
        return False


def _call_on_tensors(method: str) -> dict:
    """``{receiver: {"call", "ran"} | {"call", "type", "message"}}``: ``method`` called with no argument on a
    MindSpore Tensor and on a Parameter, eagerly (an attribute lookup and a Python call: no graph involved)."""
    import numpy as np
    import mindspore

    results = {}
    for receiver in ("Tensor", "Parameter"):
        call = f"{receiver}([1.0, 2.0]).{method}()"
        try:
            value = mindspore.Tensor(np.array([1.0, 2.0], np.float32))
            if receiver == "Parameter":
                value = mindspore.Parameter(value, name="ms_lint_probe")
            getattr(value, method)()
        except Exception as exc:  # noqa: BLE001 -- what the call raises is the result
            results[receiver] = {"call": call, "type": type(exc).__name__, "message": _message(exc)}
        else:
            results[receiver] = {"call": call, "ran": True}
    return results


def _run_probe(probe, *args) -> dict:
    try:
        return probe(*args)
    except Exception as exc:  # noqa: BLE001 -- a probe that fails leaves the finding inconclusive
        return {"error": _first_line(exc)}


class _BuildFailed(Exception):
    """Building raised ``error`` with ``recipe``, the last way tried."""

    def __init__(self, error: Exception, recipe):
        super().__init__(str(error))
        self.error, self.recipe = error, recipe


class _JobState:
    def __init__(self, job: dict):
        self.job = job
        self.stop = False
        self.module = None
        self.example = None
        self.target = None
        self.obj = None
        self.inputs: tuple = ()
        self.eager = None
        self.arguments: tuple | None = None  # (args, kwargs) of the constructor, when ms-lint built the instance
        self.failed_recipe = None  # the way of building it whose error is the job's, when every way raised
        self.lax = False  # compiling under LAX past a line that fails under STRICT only (``_fix_and_rebuild``)
        self.extra_arguments: dict = {}  # passed to construct by name besides the inputs, in a retry
        # inputs made [2, features] for a Linear: the [2, length, features] placeholder to try (``building``)
        self.sequence_inputs: dict[int, tuple] = {}
        self.call_parameters: list[str] = []
        self.started = time.monotonic()
        self.building = self.started  # when building the instance began
        self.host_kernels: set[str] = set()  # operators without a device kernel that building the Cell needed
        self.host_used: set[str] = set()  # those a host fallback computed

    def time_left_for(self, seconds: float) -> bool:
        """Whether a step expected to take ``seconds`` ends within 80% of the job's timeout: extra compiles must
        not turn a job that has its answer into a timeout."""
        timeout = self.job.get("timeout")
        if not timeout:
            return True
        return time.monotonic() - self.started + seconds <= 0.8 * float(timeout)


# What MindSpore 2.10 raises when an input of any rank (shape [-2]) reaches code that needs its rank: an operator
# (Chunk), unpacking its shape (`x.view(*x.shape[:2], -1)`), a two-axis transpose (measured: the same code
# compiles, or fails with the hazard's own error, on an input of rank 3).
_RANK_SYMPTOMS = ("dynamic rank", "dynamic length sequence", "large than the output size")


def _needs_rank(error: BaseException) -> bool:
    return _mentions(error, _RANK_SYMPTOMS)


def _mentions(error: BaseException, symptoms: tuple[str, ...]) -> bool:
    text = _message(error)
    return any(symptom in text for symptom in symptoms)


# A shape unpacked into more or fewer names than the rank given (``b, c, h, w = self.shape(x)`` on rank 3),
# measured on MindSpore 2.10.
_WRONG_RANK_SYMPTOMS = ("TupleGetItem evaluator index should be in range", "not enough values to unpack",
                        "too many values to unpack")


def _shows_wrong_rank(error: BaseException) -> bool:
    return _mentions(error, _WRONG_RANK_SYMPTOMS)


# An input with fewer axes than the code reshapes or permutes it into (measured on 2.10).
_WRONG_SHAPE_SYMPTOMS = _WRONG_RANK_SYMPTOMS + ("the number of axes must be equal to the dimension of Tensor",
                                                "the accumulate of x_shape must be equal to out_shape")


def _innermost_line(error: BaseException, path: str) -> int | None:
    """The innermost line of ``path`` that the compile error ``error`` names."""
    lines = [location.start for location in parse_locations(_message(error)) if same_file(location.path, path)]
    return lines[-1] if lines else None


def _shows_wrong_shape(error: BaseException) -> bool:
    return _mentions(error, _WRONG_SHAPE_SYMPTOMS)


def _on_host(operators: set[str], device: str) -> str:
    if not operators:
        return ""
    return f"; computed on the host while building it (no {device} kernel): {', '.join(sorted(operators))}"


def _record_exception(outcome: dict, exc: BaseException, stage: str) -> None:
    outcome["status"] = "exit" if isinstance(exc, SystemExit) else "error"
    if isinstance(exc, SystemExit):
        outcome["exit_code"] = exc.code if isinstance(exc.code, (int, type(None))) else str(exc.code)
    outcome["error"] = {
        "stage": stage,
        "type": type(exc).__name__,
        "first_line": _first_line(exc),
        "message": _message(exc)[:MESSAGE_LIMIT],
        "traceback": _user_traceback(exc),
    }


def _message(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # noqa: BLE001 -- a broken __str__ in user code
        return repr(exc)


def _first_line(exc: BaseException) -> str:
    text = message_line(_message(exc))
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _user_traceback(exc: BaseException, limit: int = 12) -> list[list]:
    """The frames of the traceback outside MindSpore and ms-lint: where user code raised."""
    frames = []
    for frame in traceback.extract_tb(exc.__traceback__):
        file = frame.filename.replace("\\", "/")
        if "/mindspore/" in file or "/ms_lint/" in file or file.startswith("<frozen"):
            continue
        frames.append([frame.filename, frame.lineno, frame.name])
    return frames[-limit:]


def _required_parameters(function, skip_first: bool) -> list[str]:
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return []
    parameters = list(signature.parameters.values())
    if skip_first and parameters and parameters[0].kind in (
        inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD
    ):
        parameters = parameters[1:]
    return [
        parameter.name for parameter in parameters
        if parameter.default is inspect.Parameter.empty
        and parameter.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    ]


def _positional_names(function) -> list[str]:
    try:
        return [parameter.name for parameter in inspect.signature(function).parameters.values()
                if parameter.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        return []


def _with_argument(target, arguments: tuple, name: str, value) -> tuple:
    """The constructor's ``(args, kwargs)`` with ``name`` set to ``value``, whether it was passed by position,
    by keyword or not at all."""
    args, kwargs = arguments
    try:
        bound = inspect.signature(target).bind_partial(*args, **kwargs)
    except (TypeError, ValueError):
        return args, {**kwargs, name: value}
    bound.arguments[name] = value
    return bound.args, bound.kwargs


def _plain_defaults(function, given: int, skip_first: bool) -> dict:
    """The parameters of ``function`` past the ``given`` inputs that keep a plain default (None, a bool, a
    number, a string): what a condition on them reads when the graph is built."""
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return {}
    if skip_first and parameters:
        parameters = parameters[1:]
    result = {}
    for index, parameter in enumerate(parameters):
        if index < given or parameter.default is inspect.Parameter.empty:
            continue
        if isinstance(parameter.default, (bool, int, float, str, type(None))):
            result[parameter.name] = parameter.default
    return result


def _call_parameters(function, skip_first: bool) -> list[str] | None:
    """Positional parameters without default (each gets an input); None when a keyword-only one needs a value."""
    if function is None:
        return []
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return []
    parameters = list(signature.parameters.values())
    # The instance, whatever its name: a ``construct(ctx, x)`` is called with one input, as Python binds it.
    if skip_first and parameters and parameters[0].kind in (inspect.Parameter.POSITIONAL_ONLY,
                                                            inspect.Parameter.POSITIONAL_OR_KEYWORD):
        parameters = parameters[1:]
    names = []
    for parameter in parameters:
        if parameter.default is not inspect.Parameter.empty:
            continue
        if parameter.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
            names.append(parameter.name)
        elif parameter.kind == inspect.Parameter.KEYWORD_ONLY:
            return None
    return names


def _jit_level(function) -> str:
    """The level a @jit function compiles at: its own ``fullgraph`` decides (True: STRICT, else LAX)."""
    for cell in getattr(function, "__closure__", None) or ():
        try:
            config = cell.cell_contents
        except ValueError:
            continue
        level = getattr(config, "jit_config_dict", {}) if config is not None else {}
        if isinstance(level, dict) and level.get("jit_syntax_level"):
            return str(level["jit_syntax_level"]).lower()
    return "lax"


def _describe(value) -> str:
    shape = getattr(value, "shape", None)
    dtype = getattr(value, "dtype", None)
    if shape is not None and dtype is not None:
        return f"Tensor(shape={list(shape)}, dtype={dtype})"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_concrete(value) -> bool:
    shape = getattr(value, "shape", None)
    if shape is None:
        return True
    return all(isinstance(dim, int) and dim >= 0 for dim in shape)


def _supported_devices() -> list[str]:
    try:
        from mindspore._c_expression import MSContext

        context = MSContext.get_instance()
        return [device for device in ("CPU", "GPU", "Ascend") if context.is_pkg_support_device(device)]
    except Exception:  # noqa: BLE001 -- an older MindSpore without this query: let set_device decide
        return ["CPU", "GPU", "Ascend"]


def _failing_parent_packages(exc: ImportError, name: str, path: str) -> list[tuple[str, str]]:
    """``[(package name, directory)]`` of the parents of module ``name`` (file ``path``), outermost first, when
    ``exc`` was raised while one of their ``__init__.py`` ran; empty otherwise."""
    parts = name.split(".")[:-1]
    directory = os.path.dirname(os.path.abspath(path))
    if os.path.basename(path) == "__init__.py":
        directory = os.path.dirname(directory)  # a package: its folder is its own, the parent's is one up
    parents = []
    for depth in range(len(parts), 0, -1):
        parents.append((".".join(parts[:depth]), directory))
        directory = os.path.dirname(directory)
    parents.reverse()
    inits = {os.path.realpath(os.path.join(folder, "__init__.py")) for _, folder in parents}
    raised_in = {os.path.realpath(frame.filename) for frame in traceback.extract_tb(exc.__traceback__)}
    return parents if inits & raised_in else []


def _bare_package(name: str, directory: str) -> None:
    """``sys.modules[name]``: the package at ``directory`` without its ``__init__`` run; its submodules import."""
    module = types.ModuleType(name)
    module.__path__ = [directory]
    module.__file__ = os.path.join(directory, "__init__.py")
    module.__package__ = name
    sys.modules[name] = module
    parent, _, child = name.rpartition(".")
    if parent in sys.modules:
        setattr(sys.modules[parent], child, module)


def _load_from_path(name: str, path: str):
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def _module_file_is(module, path: str, top: str) -> bool:
    file = getattr(module, "__file__", None)
    if not file:
        return False
    if same_file(file, path):
        return True
    # The top package of path: its __init__.py.
    directory = os.path.dirname(path)
    while directory and os.path.basename(directory) != top:
        parent = os.path.dirname(directory)
        if parent == directory:
            return False
        directory = parent
    return same_file(file, os.path.join(directory, "__init__.py"))


def _set_soft_limit(which: int, value: int) -> None:
    import resource

    try:
        _, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY and (value == resource.RLIM_INFINITY or value > hard):
            value = hard
        resource.setrlimit(which, (value, hard))
    except (ValueError, OSError):
        pass


def _vm_size_bytes() -> int | None:
    try:
        with open("/proc/self/status") as handle:
            for line in handle:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def _child_processes(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (Linux /proc; elsewhere none are tracked)."""
    children = set()
    try:
        entries = os.listdir("/proc")
    except OSError:
        return children
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 1 and fields[1].isdigit() and int(fields[1]) == pid:
            children.add(int(entry))
    return children


def _end_processes(pids: set[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    for pid in pids:
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
        except OSError:
            pass


def _die_with_parent() -> None:
    """Linux: end this worker when the process that started it dies (an interrupted run leaves nothing)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def _restore_streams() -> None:
    for name in ("stdout", "stderr"):
        original = getattr(sys, f"__{name}__")
        if getattr(sys, name) is not original and original is not None:
            setattr(sys, name, original)


class _OutputCapture:
    """Sends fds 1 and 2 (Python's prints and MindSpore's C++ logs alike) to a file for one job."""

    def __init__(self, path: str):
        _flush_streams()
        self.path = path
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o600)
        self.saved = (os.dup(1), os.dup(2))
        os.dup2(self.fd, 1)
        os.dup2(self.fd, 2)
        self.restored = False

    def size(self) -> int:
        _flush_streams()
        try:
            return os.fstat(self.fd).st_size
        except OSError:
            return 0

    def read_from(self, offset: int, limit: int = 1 << 20) -> str:
        _flush_streams()
        try:
            with open(self.path, "rb") as handle:
                handle.seek(offset)
                return handle.read(limit).decode("utf-8", errors="replace")
        except OSError:
            return ""

    def restore(self) -> None:
        if self.restored:
            return
        _flush_streams()
        os.dup2(self.saved[0], 1)
        os.dup2(self.saved[1], 2)
        for fd in (*self.saved, self.fd):
            os.close(fd)
        self.restored = True

    def summary(self, limit: int) -> dict:
        try:
            size = os.path.getsize(self.path)
            with open(self.path, "rb") as handle:
                head = handle.read(OUTPUT_HEAD).decode("utf-8", errors="replace")
        except OSError:
            size, head = 0, ""
        return {"bytes": size, "head": head, "limit_reached": size >= limit}


def _flush_streams() -> None:
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass


def main(argv: list[str]) -> int:
    request_fd, response_fd, config_text = int(argv[0]), int(argv[1]), argv[2]
    if sys.path and sys.path[0] in ("", os.getcwd()):
        del sys.path[0]
    worker = Worker(request_fd, response_fd, json.loads(config_text))
    status = 0 if worker.start() else 3
    if status == 0:
        worker.serve()
    _flush_streams()
    # Nothing is left to save: skip MindSpore's interpreter shutdown, which takes seconds.
    os._exit(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
