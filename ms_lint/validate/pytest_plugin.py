"""``pytest --ms-validate``: one test item per Cell class or jit function that carries ms-lint findings, compiled
with the installed MindSpore; and the ``ms_compile`` fixture for users' own tests.

An item fails when one of its findings is confirmed (by the compile or a probe), is skipped with the reason when
the validator could not decide (inconclusive, not applicable), and passes when nothing was reproduced. All
selected items are validated together on first use, in worker processes shared by the whole session, with the
validator's cache (``.ms_lint_cache/``). Options: ``--ms-validate-device``, ``--ms-validate-level``,
``--ms-validate-timeout``, ``--ms-validate-jobs``, ``--ms-validate-examples``; defaults come from
``[tool.ms-lint.validate]`` in the project's ``pyproject.toml``. Select only these items with ``-m ms_validate``.

``ms_compile(cell, *inputs)`` compiles a Cell you built (GRAPH_MODE, the configured device and level) in the test
process and fails the test with the compiler's first message line if the compile fails;
``ms_compile.outcome(cell, *inputs)`` returns the result instead of failing.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

MARKER = "ms_validate"
_STATE = pytest.StashKey["_ValidateSession"]()


def pytest_addoption(parser) -> None:
    group = parser.getgroup("ms-validate", "ms-lint runtime validation")
    group.addoption("--ms-validate", action="store_true", dest="ms_validate",
                    help="compile every Cell or jit function with ms-lint findings with MindSpore "
                    "(one test item each; fails when a finding is confirmed)")
    group.addoption("--ms-validate-device", dest="ms_validate_device", default=None,
                    help="device for --ms-validate and the ms_compile fixture: CPU (default), GPU or Ascend")
    group.addoption("--ms-validate-level", dest="ms_validate_level", default=None, choices=("strict", "lax"),
                    help="jit_syntax_level to compile with (default: the project's, as `ms-lint check` infers "
                    "it; strict for the ms_compile fixture)")
    group.addoption("--ms-validate-timeout", dest="ms_validate_timeout", type=float, default=None,
                    help="seconds one compile job may take (default: 120)")
    group.addoption("--ms-validate-jobs", dest="ms_validate_jobs", type=int, default=None,
                    help="worker processes for --ms-validate (default: CPU count, at most 4)")
    group.addoption("--ms-validate-examples", dest="ms_validate_examples", default=None,
                    help="the examples file (default: ms_lint_examples.py at the project root)")


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", f"{MARKER}: ms-lint's runtime validation of one Cell (added by --ms-validate)")
    if config.getoption("ms_validate", default=False):
        config.stash[_STATE] = _ValidateSession(config)


def pytest_collect_file(file_path: Path, parent):
    state = parent.config.stash.get(_STATE, None)
    if state is None or file_path.suffix != ".py" or file_path.name == "ms_lint_examples.py":
        return None
    units = state.units_in(file_path)
    if not units:
        return None
    return MsValidateFile.from_parent(parent, path=file_path, units=units)


def pytest_collection_finish(session) -> None:
    state = session.config.stash.get(_STATE, None)
    if state is not None:
        state.selected = [item for item in session.items if isinstance(item, MsValidateItem)]


def pytest_unconfigure(config) -> None:
    state = config.stash.get(_STATE, None)
    if state is not None:
        state.close()


class _ValidateSession:
    """Options, the static findings per file, and one validation run (with its worker pool) for the session."""

    def __init__(self, config):
        from ms_lint.validate.project import ProjectError, find_project_root, load_config
        from ms_lint.validate.runner import ValidateError, ValidateOptions, lint_options_for

        self.config = config
        try:
            project = load_config(find_project_root(str(config.rootpath)))
            self.lint_options = lint_options_for(
                config.getoption("ms_validate_level") or project.syntax_level, cwd=str(config.rootpath)
            )
            self.options = ValidateOptions(
                device=config.getoption("ms_validate_device") or project.device or "CPU",
                syntax_level=self.lint_options.settings.syntax_level or None,  # none: each file's project's
                jobs=config.getoption("ms_validate_jobs") or project.jobs,
                timeout=config.getoption("ms_validate_timeout") or project.timeout or 120.0,
                memory_limit_mb=project.memory_limit or 4096,
                examples=config.getoption("ms_validate_examples"),
            ).normalized()
        except (ProjectError, ValidateError) as exc:
            raise pytest.UsageError(f"ms-lint validate: {exc}") from None
        self.selected: list[MsValidateItem] = []
        self.verdicts: dict[str, list] | None = None
        self.error: str | None = None
        self.pool = None

    def units_in(self, path: Path) -> dict[str, list]:
        from ms_lint.lint import lint_path
        from ms_lint.validate.expectations import nothing_to_run

        reported, _ = lint_path(str(path.resolve()), self.lint_options)
        units: dict[str, list] = {}
        for item in reported:
            finding = item.finding
            if not nothing_to_run(finding):
                units.setdefault(finding.scope, []).append(finding)
        return units

    def verdicts_for(self, target: str) -> list:
        if self.verdicts is None and self.error is None:
            self._run()
        if self.error is not None:
            raise ValidationFailed([self.error])
        return self.verdicts.get(target, [])

    def _run(self) -> None:
        from ms_lint.validate.pool import WorkerStartError
        from ms_lint.validate.runner import ValidateError, validate_findings

        findings = [finding for item in self.selected for finding in item.findings]
        try:
            if self.pool is None:
                self.pool = _start_pool(self.options, len(self.selected))
            report = validate_findings(findings, self.options, pool=self.pool)
        except (ValidateError, WorkerStartError) as exc:
            self.error = f"ms-lint validate: {exc}"
            return
        self.verdicts = {}
        for verdict in report.verdicts:
            self.verdicts.setdefault(verdict.target, []).append(verdict)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool = None


def _start_pool(options, units: int):
    from ms_lint.validate.pool import PoolConfig, WorkerPool

    size = options.jobs or min(os.cpu_count() or 1, 4)
    return WorkerPool(PoolConfig(
        device=options.device, size=max(1, min(size, units)), timeout=options.timeout,
        memory_limit_mb=options.memory_limit_mb, output_limit_bytes=int(options.output_limit_mb * (1 << 20)),
    ))


class ValidationFailed(Exception):
    def __init__(self, lines: list[str]):
        super().__init__("\n".join(lines))
        self.lines = lines


class MsValidateFile(pytest.File):
    def __init__(self, *, units: dict[str, list], **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def collect(self):
        for scope, findings in self.units.items():
            yield MsValidateItem.from_parent(self, name=scope, findings=findings)


class MsValidateItem(pytest.Item):
    def __init__(self, *, findings: list, **kwargs):
        super().__init__(**kwargs)
        self.findings = findings
        self.add_marker(MARKER)

    @property
    def target(self) -> str:
        from ms_lint.validate.project import locate_module

        return f"{locate_module(str(Path(self.path).resolve())).module}:{self.name}"

    def runtest(self) -> None:
        from ms_lint.validate.verdicts import CONFIRMED_KINDS, NOT_REPRODUCED

        state: _ValidateSession = self.config.stash[_STATE]
        verdicts = state.verdicts_for(self.target)
        confirmed = [verdict for verdict in verdicts if verdict.verdict in CONFIRMED_KINDS]
        if confirmed:
            raise ValidationFailed([self._line(verdict) for verdict in verdicts])
        undecided = [verdict for verdict in verdicts if verdict.verdict != NOT_REPRODUCED]
        if undecided:
            pytest.skip("; ".join(f"{v.finding.code} {v.verdict}: {v.message}" for v in undecided))

    def _line(self, verdict) -> str:
        finding = verdict.finding
        return (f"{self._shown()}:{finding.line}: {finding.code} {verdict.verdict} "
                f"({verdict.device}, {verdict.level}): {verdict.message}")

    def _shown(self) -> str:
        path = Path(self.path).resolve()
        try:
            return path.relative_to(Path(self.config.rootpath).resolve()).as_posix()
        except ValueError:
            return str(path)

    def repr_failure(self, excinfo, style=None):
        if excinfo.errisinstance(ValidationFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return self.path, 0, f"ms-validate {self._shown()}::{self.name}"


# ------------------------------------------------------------------------------------------------ ms_compile


class GraphCompileError(AssertionError):
    """The Cell failed to compile; the message is the compiler's first line and where it points."""


@dataclass
class CompileOutcome:
    ok: bool
    seconds: float
    error_type: str = ""
    first_line: str = ""
    message: str = ""
    locations: list = field(default_factory=list)  # [(path, first line, last line)] named by the compiler


class CellCompiler:
    """Compiles Cells in the test process under GRAPH_MODE on the configured device and syntax level."""

    def __init__(self, device: str, syntax_level: str, workdir: Path):
        self.device = device
        self.syntax_level = syntax_level
        self.workdir = workdir

    def __call__(self, cell, *inputs, syntax_level: str | None = None) -> CompileOutcome:
        outcome = self.outcome(cell, *inputs, syntax_level=syntax_level)
        if not outcome.ok:
            where = f" (at {outcome.locations[0][0]}:{outcome.locations[0][1]})" if outcome.locations else ""
            raise GraphCompileError(f"{type(cell).__name__} does not compile under "
                                    f"{(syntax_level or self.syntax_level).upper()} on {self.device}: "
                                    f"{outcome.first_line}{where}")
        return outcome

    def outcome(self, cell, *inputs, syntax_level: str | None = None) -> CompileOutcome:
        import mindspore

        from ms_lint.validate.locations import parse_locations

        level = (syntax_level or self.syntax_level).upper()
        if level not in ("STRICT", "LAX", "COMPATIBLE"):
            raise ValueError(f"syntax_level must be strict or lax, not {syntax_level!r}")
        self._use_device(mindspore)
        previous_mode = mindspore.get_context("mode")
        previous_level = mindspore.get_context("jit_syntax_level")
        previous_cwd = os.getcwd()
        started = time.monotonic()
        try:
            # A failed compile writes rank_0/ into the working directory.
            os.chdir(self.workdir)
            mindspore.set_context(mode=mindspore.GRAPH_MODE, jit_syntax_level=getattr(mindspore, level))
            cell.compile(*inputs)
        except Exception as exc:  # noqa: BLE001 -- the compile's failure is the result
            message = str(exc)
            lines = [line.strip() for line in message.splitlines() if line.strip()]
            first = f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__
            locations = [(loc.path, loc.start, loc.end) for loc in parse_locations(message)
                         if "/mindspore/" not in loc.path.replace("\\", "/")]
            return CompileOutcome(False, time.monotonic() - started, type(exc).__name__, first, message, locations)
        finally:
            os.chdir(previous_cwd)
            mindspore.set_context(mode=previous_mode, jit_syntax_level=previous_level)
        return CompileOutcome(True, time.monotonic() - started)

    def _use_device(self, mindspore) -> None:
        try:
            from mindspore._c_expression import MSContext

            if not MSContext.get_instance().is_pkg_support_device(self.device):
                supported = [d for d in ("CPU", "GPU", "Ascend") if MSContext.get_instance().is_pkg_support_device(d)]
                pytest.fail(f"ms_compile: device {self.device} is not available: this MindSpore "
                            f"({mindspore.__version__}) supports {', '.join(supported) or 'none'} here",
                            pytrace=False)
        except ImportError:
            pass
        try:
            current = mindspore.get_current_device().device_target
        except Exception:  # noqa: BLE001 -- older MindSpore: fall through to set_device
            current = None
        if current == self.device:
            return
        try:
            mindspore.set_device(self.device)
        except RuntimeError as exc:
            pytest.fail(f"ms_compile: cannot use device {self.device} in this test process (already "
                        f"{current}): {str(exc).splitlines()[0]}", pytrace=False)


@pytest.fixture
def ms_compile(request, tmp_path) -> CellCompiler:
    """Compile a Cell with given inputs on the configured device: ``ms_compile(net, x)``."""
    from ms_lint.validate.project import find_project_root, load_config
    from ms_lint.validate.runner import DEVICES

    config = request.config
    project = load_config(find_project_root(str(config.rootpath)))
    device_name = config.getoption("ms_validate_device", default=None) or project.device or "CPU"
    device = DEVICES.get(device_name.strip().lower())
    if device is None:
        raise pytest.UsageError(f"ms_compile: unknown device {device_name!r}: use one of CPU, GPU, Ascend")
    level = config.getoption("ms_validate_level", default=None) or project.syntax_level or "strict"
    return CellCompiler(device, level.lower(), tmp_path)
