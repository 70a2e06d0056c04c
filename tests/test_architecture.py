"""The package's layering, read from its sources: each module imports only modules below it.

Imports inside functions count (they are how a cycle hides); imports under ``if TYPE_CHECKING:`` do not (they never
run). A cycle means two layers each need the other, and the map in README's "How ms-lint works" would be false.
"""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "ms_lint"


def _modules() -> dict[str, Path]:
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    return modules


def _type_checking_nodes(tree: ast.Module) -> set[int]:
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(inner) for inner in ast.walk(node))
    return skipped


def import_graph() -> dict[str, set[str]]:
    """module -> the modules of the package it imports (at any depth of its code)."""
    modules = _modules()

    def known(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skipped = _type_checking_nodes(tree)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        imported = set()
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            if isinstance(node, ast.Import):
                imported.update(filter(None, (known(alias.name) for alias in node.names)))
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parents = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join(parents + ([node.module] if node.module else []))
                for alias in node.names:
                    full = f"{base}.{alias.name}"
                    imported.add(known(full) if full in modules else known(base))
        graph[name] = {target for target in imported if target and target != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            advanced = False
            for target in targets:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph.get(target, ())))))
                    advanced = True
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_of_the_package_imports_a_module_that_imports_it_back():
    assert cycles(import_graph()) == []


def test_the_model_imports_no_layer_above_it():
    above = ("ms_lint.rules", "ms_lint.engine", "ms_lint.fixes", "ms_lint.commands", "ms_lint.plugin",
             "ms_lint.validate", "ms_lint.output")
    graph = import_graph()
    for name, imported in graph.items():
        if name.startswith("ms_lint.model"):
            assert not [target for target in imported if target.startswith(above)], name


# The worker's stage modules, in the order a job runs them: each imports only the ones before it (``jobs`` hands a
# stage the later one it needs), so a stage can be read, and tested, without the stages after it.
VALIDATOR_STAGES = ("importing", "instances", "compiling", "probes", "retrying", "jobs", "worker")


def test_each_validator_stage_imports_only_the_stages_before_it():
    graph = import_graph()
    stages = [f"ms_lint.validate.{name}" for name in VALIDATOR_STAGES]
    for position, stage in enumerate(stages):
        later = set(stages[position + 1:])
        assert not graph[stage] & later, (stage, sorted(graph[stage] & later))


# The one rule that is about the name ``self`` itself: a first parameter named otherwise, renamed to self by its fix.
_NAMES_SELF = {PACKAGE / "rules" / "ms119_instance_parameter_not_self.py"}


def literal_self_names(tree: ast.AST) -> list[int]:
    """The lines of ``tree`` holding the string ``"self"`` itself, as code that assumes the instance's name would."""
    return [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Constant) and node.value == "self"]


def test_the_self_finder_finds_a_literal_self():
    assert literal_self_names(ast.parse('names.get("self")\nx = "self.x"\n{"self": obj}\n')) == [1, 3]


def test_no_module_assumes_the_instance_parameter_is_named_self():
    # A method's instance is whatever its first parameter is called (``def construct(this, x)``): the model's
    # ``first_argument`` / ``instance_parameter`` answer, carried to the validator's worker in the job's data.
    found = {str(path.relative_to(PACKAGE)): lines for path in sorted(PACKAGE.rglob("*.py")) if path not in _NAMES_SELF
             for lines in [literal_self_names(ast.parse(path.read_text(encoding="utf-8")))] if lines}
    assert found == {}


# The one place that answers "is this expression ``<instance>.<attr>``": the model's ``syntax.self_attribute``.
_ANSWERS_SELF_ATTRIBUTE = PACKAGE / "model" / "syntax.py"


def receiver_name_tests(tree: ast.AST) -> list[int]:
    """The lines of ``tree`` that compare an attribute's receiver name with a name (``x.value.id == self_name``):
    the question ``self_attribute`` answers, asked again."""
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.NotEq))
            and isinstance(node.left, ast.Attribute) and node.left.attr == "id"
            and isinstance(node.left.value, ast.Attribute) and node.left.value.attr == "value"
            and not isinstance(node.comparators[0], ast.Constant)]


def test_the_receiver_finder_finds_a_copy_of_the_self_attribute_question():
    source = "a = f.value.id == self_name\nb = f.value.id in names\nc = f.value.id == 'np'\nd = f.id == s\n"
    assert receiver_name_tests(ast.parse(source)) == [1]


def test_the_self_attribute_question_is_answered_once():
    found = {str(path.relative_to(PACKAGE)): lines for path in sorted(PACKAGE.rglob("*.py"))
             if path != _ANSWERS_SELF_ATTRIBUTE
             for lines in [receiver_name_tests(ast.parse(path.read_text(encoding="utf-8")))] if lines}
    assert found == {}, "ask syntax.self_attribute"


# Rules that read graph code for another claim than "this fails where it is compiled": MS123's misspelt attribute
# and MS602's missing method raise in PyNative too, as does MS132's float size, MS615's call of a Parameter and MS616's
# device move (graph code only changes the error it names); MS605 and MS112 are judged in both modes (or eagerly).
_GRAPH_READERS_JUDGED_IN_BOTH_MODES = {"MS112", "MS123", "MS132", "MS602", "MS605", "MS615", "MS616"}


def test_every_rule_that_reports_graph_code_asks_the_model_s_mode_answer():
    # One answer to "which code is compiled, in which mode": a rule that reports on the model's graph code declares
    # ``compiled_only`` so that findings only GRAPH_MODE compiles are left out where the mode was inferred PyNative.
    import inspect

    from ms_lint.rules import rules_for

    readers = [rule for rule in rules_for() if any(
        word in Path(inspect.getsourcefile(type(rule))).read_text(encoding="utf-8")
        for word in ("graph_functions", "is_graph_code", "graph_function_at"))]
    assert len(readers) > 20
    assert {rule.code for rule in readers if not rule.compiled_only} == _GRAPH_READERS_JUDGED_IN_BOTH_MODES
