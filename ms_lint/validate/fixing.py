"""Getting past an earlier fixable finding (runs in the worker).

When the compile stops at a line that holds a finding whose rule has an automatic fix that keeps every line where
it is (MS601's ``.transpose(a, b)`` -> ``.swapaxes(a, b)``; MS116's ``name = None`` goes on the blank line above
the ``if`` it precedes, or after the statement there), or building the Cell raises at such a line in any
module of the project (MS205's ``pad_mode="pad"``), the worker applies that fix to the module's source in memory
and builds and compiles again, so the findings after that line can be decided. The fixed source is executed as a
copy of the module under the same name and file name, and served to ``inspect`` (which MindSpore's parser reads
the source through) from ``linecache``, so error locations keep naming the user's file and lines; the file on disk
and the imported modules are left as they are.

When the line has no such fix but reads a name the installed MindSpore lacks (MS607), a function returning its
first argument stands in for the name (``stand_in``); failing that, when its statement does nothing the code after
it reads (a discarded call, an ``assert``, a ``with`` header, a write of an attribute nothing reads), the statement
is left out instead (``leave_out``), lines kept in place the same way.
"""
from __future__ import annotations

import ast
import difflib
import importlib.util
import linecache
import os
import re
import sys
import types
from contextlib import ExitStack, contextmanager
from functools import lru_cache

from ms_lint.model.source import read_source, source_lines
from ms_lint.model.syntax import block_holds_line, holds_line, last_line, written_name
from ms_lint.validate.expectations import unbound_name

MAX_FIXES = 16  # compiles after the first, each with one more line fixed
ANY_ATTRIBUTE = "*"  # among the attributes a module reads: one read by a name computed at run time


def fix_at_line(source: str, path: str, line: int, syntax_level: str) -> tuple[str, list[str]] | None:
    """``(fixed source, codes fixed)`` for the findings on ``line`` whose fix changes their statement only, or adds
    lines that fit in place above the statement they go before (``_in_place``); None when there is none. The
    findings are read line by line (``Settings.each_line``): a fix of this line, not of every place of a cause."""
    from ms_lint.fixes import fix_source
    from ms_lint.settings import Settings

    def on_line(findings):
        return [finding for finding in findings if finding.line == line]

    before = codes_on_line(source, path, line, syntax_level)
    if not before:
        return None  # most lines a traceback passes through hold no finding: nothing to fix there
    try:
        result = fix_source(source, path, Settings(syntax_level=syntax_level, each_line=True), accept=on_line)
    except Exception:  # noqa: BLE001 -- a static-analysis failure: nothing to fix
        return None
    if not result.changed:
        return None
    placed = _in_place(source, result.fixed, path)
    if placed is None:
        return None
    fixed, moved_to = placed
    if not _only_statement_changed(source, fixed, path, line, also=moved_to):
        return None
    if moved_to:
        after = set(codes_on_line(fixed, path, line, syntax_level))
    else:
        after = {finding.code for finding in on_line(result.remaining)}
    codes = [code for code in dict.fromkeys(before) if code not in after]
    return (fixed, codes) if codes else None


# What stands in for a name the installed MindSpore lacks (MS607) so that building and compiling go on past it: a
# function that returns its first argument, as the wrappers and element-wise functions ported from PyTorch
# (``nn.utils.weight_norm(conv)``, ``nn.functional.softmax(x, axis=-1)``) return a value of its kind.
STAND_IN = "(lambda value, *args, **kwargs: value)"
# What stands in for a missing name called with no positional argument (``self.resize = nn.ResizeBilinear()``, a
# layer built in the constructor and called in construct): a function building a Cell whose construct returns its
# first input and ignores the rest (``StandInCell``). A lambda built there could not be called from construct:
# MindSpore parses a lambda from its line, and the line's outermost node is then a call (measured on 2.10 and 2.7.1).
STAND_IN_CELL = '__import__("ms_lint.validate.fixing", fromlist=["stand_in_cell"]).stand_in_cell'


def stand_in_cell(*args, **kwargs):
    """A ``StandInCell``, whatever it is built with."""
    return _stand_in_cell_class()()


def _stand_in_cell_class():
    global _STAND_IN_CELL_CLASS
    if _STAND_IN_CELL_CLASS is None:
        from mindspore import nn

        class StandInCell(nn.Cell):
            def construct(self, value, *args, **kwargs):
                return value

        _STAND_IN_CELL_CLASS = StandInCell
    return _STAND_IN_CELL_CLASS


_STAND_IN_CELL_CLASS = None


def stand_in(source: str, path: str, line: int, syntax_level: str) -> tuple[str, list[str], str] | None:
    """``(source with each name on ``line`` that MS607 reports missing replaced by ``STAND_IN``, ["MS607"], what
    stands in)`` when
    each (with the names read from it: ``nn.functional.softmax``) is called there with an argument, bound to a name
    (``weight_norm = nn.utils.weight_norm``) or looked into by ``hasattr``/``getattr`` (a function has none of the
    attributes asked for), or by ``STAND_IN_CELL`` where it is called with no positional argument (a layer built
    with its defaults); None when the line has no such name. Every line keeps its number."""
    from ms_lint.settings import Settings

    try:
        findings = _findings(source, path, Settings(syntax_level=syntax_level, each_line=True))
        tree = _tree(source, path)
    except Exception:  # noqa: BLE001 -- a static-analysis failure: nothing to stand in for
        return None
    reported = {_span(finding.node) for finding in findings if finding.code == "MS607" and finding.line == line
                and isinstance(finding.node, ast.Attribute)}
    if not reported:
        return None
    on_line = [node for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.lineno == line]
    missing = {id(node) for node in on_line if _span(node) in reported}  # the findings' trees are their own
    for node in sorted(on_line, key=lambda node: node.end_col_offset):  # inner reads end first
        if id(node.value) in missing:
            missing.add(id(node))  # ``.softmax`` of ``nn.functional``: the missing name's read goes on
    chains = {}  # the outermost attribute read from each missing name -> how it is used
    built = set()  # of those, the ones called with no positional argument
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and id(node.func) in missing:
            chains[id(node.func)] = node.func
            if not node.args:
                built.add(id(node.func))
        elif isinstance(node, ast.Call) and node.args and isinstance(node.func, ast.Name) \
                and node.func.id in ("hasattr", "getattr") and id(node.args[0]) in missing:
            chains[id(node.args[0])] = node.args[0]
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and id(node.value) in missing:
            chains[id(node.value)] = node.value
    reads = [read for read in chains.values() if read.lineno == read.end_lineno == line]
    if not reads or any(finding.code == "MS607" and finding.line == line and not any(
            _within(finding.node, read) for read in reads) for finding in findings):
        return None  # a name used as a value (a dtype, a class): a function in its place would only move the error
    lines = source_lines(source)
    encoded = lines[line - 1].encode("utf-8")  # AST columns count UTF-8 bytes
    for read in sorted(reads, key=lambda node: node.col_offset, reverse=True):
        replacement = STAND_IN_CELL if id(read) in built else STAND_IN
        encoded = encoded[:read.col_offset] + replacement.encode() + encoded[read.end_col_offset:]
    lines[line - 1] = encoded.decode("utf-8")
    result = "".join(lines)
    try:
        ast.parse(result, filename=path)
    except SyntaxError:
        return None
    kinds = ["a Cell returning its first input" if id(read) in built else "a function returning its first argument"
             for read in reads]
    return result, ["MS607"], " and ".join(dict.fromkeys(kinds))


def _span(node: ast.AST) -> tuple[int, int, int, int]:
    return node.lineno, node.col_offset, node.end_lineno, node.end_col_offset


def _within(node: ast.AST, outer: ast.AST) -> bool:
    return (outer.lineno, outer.col_offset) <= (node.lineno, node.col_offset) \
        and (node.end_lineno, node.end_col_offset) <= (outer.end_lineno, outer.end_col_offset)


def codes_on_line(source: str, path: str, line: int, syntax_level: str) -> tuple[str, ...]:
    """The codes of the findings on ``line`` of ``source``."""
    from ms_lint.settings import Settings

    try:
        return _codes_by_line(source, path, Settings(syntax_level=syntax_level, each_line=True)).get(line, ())
    except Exception:  # noqa: BLE001 -- a static-analysis failure: no finding known there
        return ()


@lru_cache(maxsize=32)
def _codes_by_line(source: str, path: str, settings) -> dict[int, tuple[str, ...]]:
    """The codes of the findings on each line of ``source``: one analysis per module text, however many lines of it
    a job's tracebacks and compile errors point at."""
    by_line: dict[int, list[str]] = {}
    for finding in _findings(source, path, settings):
        by_line.setdefault(finding.line, []).append(finding.code)
    return {line: tuple(codes) for line, codes in by_line.items()}


@lru_cache(maxsize=32)
def _findings(source: str, path: str, settings) -> tuple:
    from ms_lint.engine import analyse

    return tuple(analyse(ast.parse(source, filename=path), source, path, settings)[1])


# What MindSpore says when a method's instance is not named ``self`` (MS119): the counts differ by one, or, with a
# default after it, an argument is missing -- without a location when the Cell is the one compiled.
_INSTANCE_MISCOUNTED = re.compile(r"parameters number of the function is \d+, but the number of provided arguments"
                                  r"|Miss argument input for parameter|number of parameters of bprop")


def lines_misnaming_instance(message: str, source: str, path: str, syntax_level: str, owner: str) -> list[int]:
    """The lines of ``source`` holding an MS119 finding of the class ``owner`` when ``message`` is what MindSpore
    raises for such a method."""
    if not _INSTANCE_MISCOUNTED.search(message):
        return []
    return _lines_of(source, path, syntax_level, lambda finding: finding.code == "MS119" and finding.scope == owner)


def lines_reading_unbound(message: str, source: str, path: str, syntax_level: str) -> list[int]:
    """The lines of ``source`` holding an MS116 finding on the name ``message`` says MindSpore found unbound."""
    name = unbound_name(message)
    if name is None:
        return []
    return _lines_of(source, path, syntax_level,
                     lambda finding: finding.code == "MS116" and getattr(finding.node, "id", None) == name)


def _lines_of(source: str, path: str, syntax_level: str, wanted) -> list[int]:
    """The lines of the findings of ``source`` that ``wanted`` accepts, in order."""
    from ms_lint.settings import Settings

    try:
        findings = _findings(source, path, Settings(syntax_level=syntax_level, each_line=True))
    except Exception:  # noqa: BLE001 -- a static-analysis failure: no finding known there
        return []
    return sorted({finding.line for finding in findings if wanted(finding)})


def _in_place(before: str, after: str, path: str) -> tuple[str, frozenset[int]] | None:
    """``(after, lines it changed besides)`` with every line a fix inserted (MS116's ``name = None`` above an ``if``)
    moved onto a blank line just above it, or before a comment there (``name = None  # comment``), or after the
    simple statement that ends just above it (``a = 1; name = None``), so that every other line keeps its number;
    None when an inserted line has no such place, or the fix also changed lines where it inserted."""
    old, new = source_lines(before), source_lines(after)
    if len(old) == len(new):
        return after, frozenset()
    placed, moved_to = list(old), set()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if tag != "insert" or i1 == 0:
            return None
        inserted = "; ".join(text.strip() for text in new[j1:j2])
        indent = new[j1][:len(new[j1]) - len(new[j1].lstrip())]
        gap = i1 - 1  # the lines between the statement above and the one the lines go before: blank or comments
        while gap >= 0 and (not old[gap].strip() or old[gap].lstrip().startswith("#")):
            gap -= 1
        blank = next((k for k in range(i1 - 1, gap, -1) if not old[k].strip()), None)
        if blank is not None:
            placed[blank] = indent + inserted + (old[blank][len(old[blank].rstrip("\r\n")):] or "\n")
            moved_to.add(blank + 1)
        elif gap < i1 - 1:  # only comments: the nearest one keeps its text after the code
            comment = old[i1 - 1]
            placed[i1 - 1] = indent + inserted + "  " + comment.lstrip()
            moved_to.add(i1)
        else:
            end = _simple_statement_end(before, path, i1, len(indent))
            if end is None:
                return None
            placed[i1 - 1] = old[i1 - 1][:end] + "; " + inserted + old[i1 - 1][end:]
            moved_to.add(i1)
    return "".join(placed), frozenset(moved_to)


def _simple_statement_end(source: str, path: str, line: int, column: int) -> int | None:
    """Where on ``line`` the simple statement that starts at ``column`` of a block and ends on that line ends (as a
    character index of the line); None when no such statement ends there."""
    try:
        tree = _tree(source, path)
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and node.end_lineno == line and node.col_offset == column \
                and not hasattr(node, "body"):
            text = source_lines(source)[line - 1]
            return len(text.encode("utf-8")[:node.end_col_offset].decode("utf-8", errors="ignore"))
    return None


def _only_statement_changed(before: str, after: str, path: str, line: int, also: frozenset[int] = frozenset()) \
        -> bool:
    """Whether ``after`` differs from ``before`` only within the statement at ``line`` (a call written over several
    lines: ``pad_mode`` added to its last one; for a finding on a ``def`` line, the function: MS119 renames its
    instance wherever the body uses it) and on the lines ``also``, with every line where it was."""
    old = [text.rstrip("\r\n") for text in source_lines(before)]
    new = [text.rstrip("\r\n") for text in source_lines(after)]
    if len(old) != len(new):
        return False
    try:
        tree = _tree(before, path)
        statement = _innermost_statement(tree, line)
        if statement is None:
            header = _statement_at(tree, line)
            if isinstance(header, (ast.FunctionDef, ast.AsyncFunctionDef)) and line < header.body[0].lineno:
                statement = header
    except (SyntaxError, ValueError):
        statement = None
    first, last = (statement.lineno, statement.end_lineno) if statement is not None else (line, line)
    return all(a == b for number, (a, b) in enumerate(zip(old, new), start=1)
               if not first <= number <= last and number not in also)


@contextmanager
def served_source(path: str, source: str):
    """Within the block, ``inspect`` and ``linecache`` read ``source`` for ``path`` (an entry without a
    modification time is never checked against the file)."""
    saved = linecache.cache.get(path)
    linecache.cache[path] = (len(source), None, source_lines(source), path)
    try:
        yield
    finally:
        if saved is None:
            linecache.cache.pop(path, None)
        else:
            linecache.cache[path] = saved


@contextmanager
def fixed_modules(fixed: dict[str, str], cell_module, root: str):
    """Within the block: a copy of the Cell's module (yielded) executed after copies of the modules in ``fixed``
    (name -> fixed source) and of every project module between them and the Cell's module. ``from .layers import
    ConvBlock`` bound the original class when the module was imported: only a module executed again while
    ``sys.modules`` names the fixed copy binds the fixed one. Each copy is executed from its file's source (the
    fixed one for ``fixed``) under its real name and file; ``sys.modules`` is restored when the block ends."""
    loaded = _project_modules(root, cell_module.__name__)
    loaded[cell_module.__name__] = cell_module
    order = _between(loaded, set(fixed), cell_module.__name__)
    saved = {name: sys.modules.get(name) for name in order}
    present = set(sys.modules)
    top = cell_module.__name__.split(".", 1)[0]
    with ExitStack() as stack:
        try:
            copy = None
            for name in order:
                path = loaded[name].__file__
                if name in fixed:
                    source = fixed[name]
                    stack.enter_context(served_source(path, source))
                else:
                    source = read_source(path)
                copy = load_copy(name, path, source, register=True)
            yield copy
        finally:
            for name, module in saved.items():
                if module is None:
                    sys.modules.pop(name, None)
                else:
                    sys.modules[name] = module
            # A module of the package first imported while the copies ran bound them: it goes too, so that a later
            # job imports it afresh from the user's code.
            for name in set(sys.modules) - present:
                if name == top or name.startswith(top + "."):
                    del sys.modules[name]


def project_module(path: str, root: str, cell_module_name: str) -> str | None:
    """The name of the imported module of the project (below ``root``) whose file is ``path``."""
    from ms_lint.validate.locations import same_file

    for name, module in _project_modules(root, cell_module_name).items():
        if same_file(module.__file__, path):
            return name
    return None


def _project_modules(root: str, cell_module_name: str) -> dict:
    """The imported modules of the Cell's top-level package below ``root``. The package, not all of ``root``: an
    installed library's root is site-packages, where every other installed package lies too."""
    top = cell_module_name.split(".", 1)[0]
    inside = os.path.realpath(root) + os.sep
    modules = {}
    for name, module in list(sys.modules.items()):
        if name != top and not name.startswith(top + "."):
            continue
        file = getattr(module, "__file__", None)
        if isinstance(module, types.ModuleType) and file and file.endswith(".py") \
                and os.path.realpath(file).startswith(inside):
            modules[name] = module
    return modules


def _between(loaded: dict, fixed: set[str], cell: str) -> list[str]:
    """The modules the Cell's module uses, directly or not, that are fixed or use a fixed one, and the Cell's
    (last): each after the ones it uses, so that its imports bind their copies."""
    if not fixed - {cell}:
        return [cell]  # only the Cell's own module is fixed: nothing else needs a copy
    # Only the modules the Cell's module reaches are read (each read parses its file).
    uses = {cell: _uses(loaded[cell], loaded)}
    reachable, pending = {cell}, [cell]
    while pending:
        for used in uses[pending.pop()]:
            if used not in reachable:
                reachable.add(used)
                uses[used] = _uses(loaded[used], loaded)
                pending.append(used)
    # Only what holds another fixed module's objects runs again: a module that merely uses the Cell's module (a
    # package's __init__ importing every model) needs no copy, and running a whole package again can fail.
    chosen = (fixed - {cell}) & reachable
    changed = True
    while changed:
        changed = False
        for name in reachable - chosen - {cell}:
            if uses[name] & chosen:
                chosen.add(name)
                changed = True
    chosen.add(cell)
    order: list[str] = []

    def visit(name: str, seen: set[str]) -> None:
        if name in seen:
            return
        seen.add(name)
        for used in sorted(uses[name] & chosen):
            visit(used, seen)
        order.append(name)

    visited: set[str] = set()
    for name in sorted(chosen - {cell}):
        visit(name, visited)
    visit(cell, visited)
    if order[-1] != cell:  # a cycle through the Cell's module: it still runs last
        order.remove(cell)
        order.append(cell)
    return order


def _uses(module, loaded: dict) -> set[str]:
    """The project modules the module imports, or whose objects (or which themselves) its globals hold."""
    used = {name for name in _imported(module) if name in loaded and name != module.__name__}
    for value in list(vars(module).values()):
        if isinstance(value, types.ModuleType):
            name = value.__name__
        else:
            name = getattr(value, "__module__", None) if isinstance(value, (type, types.FunctionType)) else None
        if isinstance(name, str) and name in loaded and name != module.__name__:
            used.add(name)
    return used


def _imported(module) -> frozenset[str]:
    return _imported_by(module.__file__, getattr(module, "__package__", None) or "")


@lru_cache(maxsize=4096)
def _imported_by(file: str, package: str) -> frozenset[str]:
    """The module names the module's import statements name; read once per file in a worker."""
    from ms_lint.validate.dependencies import imported_names

    try:
        tree = ast.parse(read_source(file))
    except (OSError, SyntaxError, ValueError):
        return frozenset()
    return frozenset(imported_names(tree, package.split(".") if package else []))


def load_copy(name: str, path: str, source: str, register: bool = False):
    """A new module object for ``name`` executed from ``source`` under the file name ``path`` (relative imports
    resolve as for the original); ``sys.modules`` keeps the original unless ``register``, which maps ``name`` to
    the copy before it runs (the caller restores it), as an import would."""
    package = [os.path.dirname(path)] if os.path.basename(path) == "__init__.py" else None
    spec = importlib.util.spec_from_file_location(name, path, submodule_search_locations=package)
    if spec is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    if register:
        sys.modules[name] = module
    exec(compile(source, path, "exec"), vars(module))  # noqa: S102 -- the user's own module, one line fixed
    return module


def resolve(module, qualname: str):
    obj = module
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def leave_out(source: str, path: str, line: int) -> tuple[str, list[tuple[int, int]]] | None:
    """``(source with the statement at line left out, the line ranges it no longer compiles)`` when the statement
    at ``line`` has no effect the rest of the code can read: a call whose result is discarded (a warning helper,
    ``register_buffer``, ``detach_()``), an ``assert``, a write of an attribute that no graph code of the module
    reads (``ctx.saved = x`` kept for a backward pass), the header of a ``with`` block without ``as`` (its body
    stays, moved out of the block), or a ``try`` statement's handling (its body, and ``finally`` body, stay, moved
    out of it; the ``except`` blocks go, as if nothing were raised). Every line keeps its number. The ranges are
    the statement's and those of the functions of the module it calls, however indirectly: their lines are not
    compiled any more, so a clean compile says nothing of them. None for any other statement: leaving out a value
    the code goes on to use would only move the error."""
    try:
        tree = _tree(source, path)
    except (SyntaxError, ValueError):
        return None
    statement = _statement_at(tree, line)
    if statement is None:
        return None
    lines = source_lines(source)
    indent = lines[statement.lineno - 1][:statement.col_offset]
    if indent.strip():
        return None  # another statement starts the line (``a; b``)
    newline = "\r\n" if lines[statement.lineno - 1].endswith("\r\n") else "\n"
    if isinstance(statement, ast.With):
        if any(item.optional_vars is not None for item in statement.items):
            return None
        end = statement.body[0].lineno - 1
        # The body moves out of the block rather than under ``if True:``: MindSpore reads a name assigned under
        # any ``if`` as undefined on the other branch.
        body = _dedented(lines[end:statement.end_lineno], statement.body[0].col_offset - statement.col_offset)
        if end < statement.lineno or body is None:
            return None  # ``with x: call()`` on one line, or a body line indented less than the block
        removed: list[ast.AST] = [item.context_expr for item in statement.items]
        dropped = []
    elif isinstance(statement, ast.Try) and not statement.orelse and statement.handlers:
        # The body runs as if nothing were raised; the handlers go (MindSpore compiles no ``try``).
        last_handled = statement.finalbody[0].lineno - 2 if statement.finalbody else statement.end_lineno
        handled = (statement.handlers[0].lineno, last_handled)
        width = statement.body[0].col_offset - statement.col_offset
        body = _dedented(lines[statement.body[0].lineno - 1:handled[0] - 1], width)
        final = _dedented(lines[handled[1] + 1:statement.end_lineno], width) if statement.finalbody else []
        if body is None or final is None or statement.body[0].lineno == statement.lineno:
            return None
        body = [newline] * (statement.body[0].lineno - statement.lineno - 1) + body
        body += [newline] * (handled[1] - handled[0] + 1) + ([newline] + final if statement.finalbody else [])
        end, removed, dropped = statement.lineno, list(statement.handlers), [handled]
    elif isinstance(statement, ast.Assert) or (isinstance(statement, ast.Expr)
                                               and isinstance(statement.value, ast.Call)) \
            or _unread_attribute_write(tree, statement):
        end, body, removed, dropped = statement.end_lineno, [], [statement], []
    else:
        return None
    start = statement.lineno
    kept = lines[:start - 1] + [indent + "pass" + newline] + [newline] * (end - start) + body
    result = "".join(kept + lines[len(kept):])
    try:
        ast.parse(result, filename=path)
    except SyntaxError:
        return None
    return result, [(start, end)] + dropped + _called_function_spans(tree, removed)


# What the marker ``marked`` puts in raises when its line is compiled (measured on 2.10: a call of a function that
# raises stops the compile when the line is in the graph, under STRICT and LAX, and not when MindSpore left the
# branch out on a constant condition; an undefined name would stop it either way).
MARKER_FUNCTION = "__ms_lint_marker__"
MARKER_MESSAGE = "ms-lint: the marked line is in the graph"


def marked(source: str, path: str, line: int) -> str | None:
    """``source`` with the simple statement holding ``line`` replaced by a call of a function that raises, every
    line keeping its number (the function is defined after the module's last line); None for a line of a compound
    statement's header, or of a statement that shares its line with another."""
    found = marked_lines(source, path, [line], numbered=False)
    return found[0] if found is not None and found[1] else None


def marked_lines(source: str, path: str, lines, numbered: bool = True) -> tuple[str, dict[int, int]] | None:
    """``(source, marked)``: ``source`` with a call of a function that raises ``MARKER_MESSAGE`` put in the
    simple statement holding each of ``lines``: with ``numbered``, before the statement on its first line, the
    message followed by `` (line N)``, N that line (``marker_line`` reads it back); else in place of the statement.
    Every line keeps its number; ``marked``: each line marked -> that N. A line of a compound statement's header,
    or of a statement sharing its line with another, is not marked. None when ``source`` does not parse."""
    try:
        tree = _tree(source, path)
    except (SyntaxError, ValueError):
        return None
    text_lines = source_lines(source)
    statements: dict[int, ast.stmt] = {}
    marked: dict[int, int] = {}
    for line in sorted(set(lines)):
        statement = _statement_at(tree, line)
        if statement is None or hasattr(statement, "body"):
            continue
        indent = text_lines[statement.lineno - 1][:statement.col_offset]
        end = statement.end_lineno or statement.lineno
        if indent.strip() or text_lines[end - 1][statement.end_col_offset:].strip().startswith(";"):
            continue
        statements[statement.lineno] = statement
        marked[line] = statement.lineno
    if not marked:
        return source, {}
    result = list(text_lines)
    newline = "\r\n" if text_lines and text_lines[0].endswith("\r\n") else "\n"
    definitions = []
    for first, statement in statements.items():
        indent = text_lines[first - 1][:statement.col_offset]
        name = f"{MARKER_FUNCTION}{first}__" if numbered else MARKER_FUNCTION
        end = statement.end_lineno or first
        if numbered:
            # The statement stays, after the call on its first line: what it binds is still bound for the code
            # after it (MindSpore's parser refuses a name bound nowhere before it evaluates the call).
            result[first - 1] = f"{indent}{name}(); {text_lines[first - 1][len(indent):]}"
        else:
            result[first - 1:end] = [f"{indent}{name}(){newline}"] + [newline] * (end - first)
        message = f"{MARKER_MESSAGE} (line {first})" if numbered else MARKER_MESSAGE
        definitions.append(f"{newline}{newline}def {name}():{newline}    raise RuntimeError({message!r}){newline}")
    text = "".join(result)
    if not text.endswith(("\n", "\r")):
        text += newline
    text += "".join(definitions)
    try:
        ast.parse(text, filename=path)
    except SyntaxError:
        return None
    return text, marked


def marker_line(message: str) -> int | None:
    """The statement line a numbered marker (``marked_lines``) names in an error's message; None for none."""
    found = re.search(re.escape(MARKER_MESSAGE) + r" \(line (\d+)\)", message or "")
    return int(found.group(1)) if found else None


def _unread_attribute_write(tree: ast.Module, statement: ast.stmt) -> bool:
    """``obj.name = value`` (or ``+=``, annotated) where nothing in the module reads ``.name`` except ``bprop``, which
    the forward graph never compiles, and, for a write in graph code, constructors, which run before any compile."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
    elif isinstance(statement, (ast.AugAssign, ast.AnnAssign)) and statement.value is not None:
        target = statement.target
    else:
        return False
    if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)):
        return False
    in_constructor = any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "__init__"
                         and holds_line(node, statement.lineno)
                         for node in ast.walk(tree))
    read = _attributes_read(tree, in_constructor)
    return ANY_ATTRIBUTE not in read and target.attr not in read


@lru_cache(maxsize=16)
def _attributes_read(tree: ast.Module, with_constructors: bool) -> frozenset[str]:
    """The attribute names the module reads outside ``bprop`` (and outside constructors, unless
    ``with_constructors``: a write there is read by the rest of the constructor); ``ANY_ATTRIBUTE`` among them when
    it reads one by a name computed at run time (``getattr(self, name)``, ``vars(self)``)."""
    skipped = ("bprop",) if with_constructors else ("__init__", "bprop")
    read: set[str] = set()
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) and child.name in skipped:
                continue
            if isinstance(child, ast.Attribute) and isinstance(child.ctx, ast.Load):
                read.add(child.attr)
            elif isinstance(child, ast.Call) and isinstance(child.func, ast.Name) \
                    and child.func.id in ("getattr", "vars", "hasattr"):
                name = child.args[1] if len(child.args) > 1 else None
                constant = isinstance(name, ast.Constant) and isinstance(name.value, str)
                read.add(name.value if constant else ANY_ATTRIBUTE)
            pending.append(child)
    return frozenset(read)


def _dedented(lines: list[str], width: int) -> list[str] | None:
    """``lines`` moved ``width`` columns left; None when a line that is not blank starts with less white space."""
    moved = []
    for text in lines:
        if not text.strip():
            moved.append(text)
        elif text[:width].strip() or len(text) < width:
            return None
        else:
            moved.append(text[width:])
    return moved


@lru_cache(maxsize=8)
def _tree(source: str, path: str) -> ast.Module:
    return ast.parse(source, filename=path)


def _statement_at(tree: ast.Module, line: int) -> ast.stmt | None:
    """The innermost statement whose lines hold ``line``; a compound statement only by its header."""
    found = None
    body = tree.body
    while body:
        for statement in body:
            if holds_line(statement, line):
                found = statement
                inner = [block for block in (getattr(statement, "body", None), getattr(statement, "orelse", None),
                                             getattr(statement, "finalbody", None)) if isinstance(block, list)]
                inner += [handler.body for handler in getattr(statement, "handlers", ())]
                inner += [case.body for case in getattr(statement, "cases", ())]
                body = next((block for block in inner if block_holds_line(block, line)), [])
                break
        else:
            break
    if found is not None and getattr(found, "body", None) and isinstance(found.body, list) \
            and line >= found.body[0].lineno:
        return None  # a line of a compound statement's body that no statement starts (a blank one)
    return found


def _innermost_statement(tree: ast.Module, line: int) -> ast.stmt | None:
    """The innermost simple statement whose lines hold ``line`` (a compound one has its body's lines too)."""
    statement = _statement_at(tree, line)
    return statement if statement is not None and not hasattr(statement, "body") else None


def _called_function_spans(tree: ast.Module, removed: list[ast.AST]) -> list[tuple[int, int]]:
    """The lines of the module's functions (and methods) that the removed code calls by name, and those they call,
    transitively: ``self.helper(x)`` and ``helper(x)`` both name ``helper``."""
    functions: dict[str, list[ast.AST]] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions.setdefault(node.name, []).append(node)
    spans: list[tuple[int, int]] = []
    pending = list(removed)
    seen: set[str] = set()
    while pending:
        for node in ast.walk(pending.pop()):
            if not isinstance(node, ast.Call):
                continue
            name = written_name(node.func)
            if name in functions and name not in seen:
                seen.add(name)
                for function in functions[name]:
                    spans.append((function.lineno, last_line(function)))
                    pending.append(function)
    return spans
