"""A rule's data is its contract: each rule declares the shape of its findings' data as records (frozen
``FindingData`` dataclasses beside the rule), renders every message from the record alone, and the validator reads
the same declared fields back through the record. Here: every finding of every fixture is one of its rule's
records (also after a trip through JSON) and its message is that record's; every declared field is read by the
message, by the validator, or is declared as reported for users; every rule has its validator expectation.
"""
from __future__ import annotations

import ast
import dataclasses
import inspect
import json
import string
import textwrap
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pytest

from ms_lint.engine import check_source
from ms_lint.findings import ENGINE_FACTS, RELATED, FindingData, compile_note, fact, is_for_users, is_subject, \
    related_note
from ms_lint.model.source import read_source
from ms_lint.rules import ALL_RULES, RULES_BY_CODE, data_of
from ms_lint.validate import expectations
from ms_lint.validate.expectations import EXPECTATIONS, expectation_for

from tests.test_rules import FIXTURE_FILES, fixture_settings

VALIDATOR = Path(expectations.__file__).parent
# The engine writes MS900's message itself (the rule only declares its data): no message is rendered from it.
_MESSAGE_BY_ENGINE = {"MS900"}


@lru_cache(maxsize=1)
def fixture_findings() -> dict[str, list]:
    """Every finding of every fixture file, reported or left out for another device (``silenced``), by code."""
    by_code: dict[str, list] = {}
    for path in FIXTURE_FILES:
        silenced: list = []
        found = check_source(read_source(str(path)), str(path), fixture_settings(path), RULES_BY_CODE,
                             silenced=silenced)
        for finding in [*found, *silenced]:
            by_code.setdefault(finding.code, []).append(finding)
    return by_code


@pytest.mark.parametrize("rule", [r for r in ALL_RULES if r.code not in _MESSAGE_BY_ENGINE], ids=lambda r: r.code)
def test_every_finding_is_one_of_its_rules_records_and_its_message_is_the_records(rule):
    findings = fixture_findings().get(rule.code)
    assert findings, f"the fixtures give no {rule.code} finding"
    for finding in findings:
        data = json.loads(json.dumps(dict(finding.data), allow_nan=False))  # as JSON and SARIF carry it
        shapes = [record for record in rule.records if record.from_data(data) is not None]
        assert len(shapes) == 1, (f"{finding.path}:{finding.line}: {sorted(data)} fits "
                                  f"{[shape.__name__ for shape in shapes]} of {rule.code}'s records")
        record = shapes[0].from_data(data)
        declared = shapes[0].keys()[1]
        assert record.as_data() == {key: value for key, value in data.items()
                                    if key in declared or key not in ENGINE_FACTS}
        assert record.message() + compile_note(data) + related_note(data.get(RELATED)) == finding.message, (
            f"{finding.path}:{finding.line}")
        assert data_of(finding) == rule.data_of(finding) is not None


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.code)
def test_each_rule_declares_its_records_beside_it(rule):
    assert rule.records, f"{rule.code} declares no record of its data"
    for record in rule.records:
        assert issubclass(record, FindingData) and dataclasses.is_dataclass(record)
        assert record.__dataclass_params__.frozen, record.__name__
        assert record.__module__ == rule.__module__, f"{record.__name__} is not beside {rule.__name__}"
    # one kind of finding, one shape: no data fits two records of the rule
    shapes = [record.keys() for record in rule.records]
    for index, (required, allowed) in enumerate(shapes):
        for other_required, other_allowed in shapes[index + 1:]:
            assert not (required <= other_allowed and other_required <= allowed), (
                f"{rule.code}: two records take the same data")


def test_a_finding_of_an_unknown_code_or_without_data_has_no_record():
    from ms_lint.findings import Finding

    assert data_of(Finding("x.py", 1, 0, "MS999", "", data={"name": "x"})) is None
    assert data_of(Finding("x.py", 1, 0, "MS102", "")) is None  # a finding built by hand, without its data


# ------------------------------------------------------------------------------------ every field is read

def _class_nodes(record: type) -> list[tuple[type, ast.ClassDef]]:
    """The class definitions of ``record`` and of its bases up to ``FindingData``, most derived first."""
    found = []
    for klass in record.__mro__:
        if klass is FindingData or not issubclass(klass, FindingData):
            continue
        tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        found.append((klass, next(node for node in tree.body if isinstance(node, ast.ClassDef))))
    return found


def _template_names(template: str) -> set[str]:
    names = set()
    for _, name, spec, _ in string.Formatter().parse(template):
        if name:
            names.add(name.split(".", 1)[0].split("[", 1)[0])
        if spec:
            names |= _template_names(spec)
    return names


def message_reads(record: type) -> set[str]:
    """The attributes of ``record`` its message reads: from its ``message`` method (or its template), through the
    properties and methods of the record those read."""
    methods: dict[str, ast.AST] = {}
    for _, node in reversed(_class_nodes(record)):  # a derived class's method wins
        methods.update((item.name, item) for item in node.body if isinstance(item, ast.FunctionDef))
    pending = list(methods["message"].body) if "message" in methods else []
    read = set() if "message" in methods else _template_names(record.template)
    pending += [methods[name] for name in read if name in methods]
    seen: set[str] = set(read)
    while pending:
        for node in ast.walk(pending.pop()):
            # super().message(): the base's message, which fills in the template
            inherited = (isinstance(node, ast.Attribute) and node.attr == "message" and isinstance(node.value, ast.Call)
                         and isinstance(node.value.func, ast.Name) and node.value.func.id == "super")
            own = isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"
            if inherited or own:
                name = "template" if inherited else node.attr
                if name == "template":
                    new = _template_names(record.template) - seen
                    seen |= new
                    pending += [methods[item] for item in new if item in methods]
                elif name not in seen:
                    seen.add(name)
                    if name in methods:
                        pending.append(methods[name])
    return seen


def validator_reads() -> dict[str, set[str]]:
    """For each record class a module of the validator names (imports), the attributes that module reads of
    anything (``data.callee``); ``"*subjects*"`` holds those of every module that asks a record's subjects."""
    reads: dict[str, set[str]] = {}
    for path in sorted(VALIDATOR.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        attributes = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
        named = {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                 and (node.module or "").startswith("ms_lint.rules") for alias in node.names}
        for name in named:
            reads.setdefault(name, set()).update(attributes)
        if "subjects" in attributes:
            reads.setdefault("*subjects*", set()).add("subjects")
    return reads


def unread_fields(record: type, validator: dict[str, set[str]]) -> list[str]:
    """The fields of ``record`` that neither its message, nor the validator (through the record or a base of it,
    or as a subject), nor a declaration as reported for users reads."""
    by_message = message_reads(record)
    by_validator = set().union(*(validator.get(klass.__name__, set()) for klass in record.__mro__))
    subjects = "*subjects*" in validator
    return [item.name for item in dataclasses.fields(record)
            if item.name not in by_message and item.name not in by_validator
            and not is_for_users(item) and not (subjects and is_subject(item))]


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.code)
def test_every_declared_field_is_read_by_the_message_the_validator_or_users(rule):
    validator = validator_reads()
    unread = {record.__name__: fields for record in rule.records
              for fields in [unread_fields(record, validator)] if fields}
    assert unread == {}, f"{rule.code}: fields nothing reads; read them, or declare them fact(for_users=True)"


@dataclass(frozen=True)
class _Sample(FindingData):
    template = "{name} in {where}"
    name: str
    function: str
    spare: int
    shown: str = fact(for_users=True)

    @property
    def where(self) -> str:
        return self.function.upper()


@dataclass(frozen=True)
class _Written(FindingData):
    name: str
    lines: list

    def message(self) -> str:
        return f"{self.name} at {self._lines()}"

    def _lines(self) -> str:
        return ", ".join(map(str, self.lines))


@dataclass(frozen=True)
class _Extended(FindingData):
    template = "{name} here"
    name: str
    lines: list

    def message(self) -> str:
        return super().message() + f" (also {self.lines})"


def test_the_field_reader_follows_templates_properties_and_methods():
    assert message_reads(_Sample) >= {"name", "where", "function"} and "spare" not in message_reads(_Sample)
    assert message_reads(_Extended) >= {"name", "lines"}
    assert unread_fields(_Sample, {}) == ["spare"]
    assert unread_fields(_Sample, {"_Sample": {"spare"}}) == []
    assert unread_fields(_Written, {}) == []


def test_the_validators_reads_are_found_through_the_records_it_imports():
    reads = validator_reads()
    assert "subjects" in reads["*subjects*"]
    assert any("callee" in attributes for name, attributes in reads.items() if name != "*subjects*")


# ------------------------------------------------------------------------------ every rule is expected

def test_every_rule_has_a_validator_expectation_and_no_other_code_has_one():
    assert sorted(set(RULES_BY_CODE) - set(EXPECTATIONS)) == [], "rules without an expectation"
    assert sorted(set(EXPECTATIONS) - set(RULES_BY_CODE)) == [], "expectations of no rule"


def test_a_code_without_an_expectation_is_refused_not_taken_for_a_compile():
    with pytest.raises(KeyError):
        expectation_for("MS999")
    assert expectation_for("MS102") is EXPECTATIONS["MS102"]
