"""What a rule reports."""
from __future__ import annotations

import ast
import string
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, ClassVar, Mapping, TypeVar


@dataclass(frozen=True)
class Finding:
    """One hazard at one place in one file.

    ``scope`` names the graph unit the finding sits in (``"Decoder"`` for a Cell class, ``"train_step"`` for a
    jit function, ``""`` at module level); the validator groups findings by it.
    ``data``: the facts the message is made from (the missing name, the method, the built type, the devices and
    levels the claim holds for), as JSON values: what every consumer (JSON/SARIF output, the validator) reads
    instead of the message text.
    ``target``: the target the finding was judged against, as JSON values (``Target.summary()``: ``device``,
    ``mindspore_version``, ``mode``, ``syntax_level`` and ``project``, the root of the file's project); the lint
    library sets it on every finding it reports (``ms-lint check``, ``ms-lint validate``), empty elsewhere.
    """

    path: str
    line: int
    col: int
    code: str
    message: str
    scope: str = ""
    node: ast.AST | None = field(default=None, compare=False, repr=False, hash=False)
    data: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)
    target: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)
    # The findings of the same cause this one stands for (``RELATED``), each with its node, for ``--fix``: one
    # analysis's, never stored or reported.
    absorbed: tuple["Finding", ...] = field(default=(), compare=False, repr=False, hash=False)

    @property
    def text(self) -> str:
        """The finding as flake8 prints its message: code first."""
        return f"{self.code} {self.message}"

    def to_dict(self) -> dict:
        return {
            "path": self.path,
            "line": self.line,
            "col": self.col,
            "code": self.code,
            "message": self.message,
            "scope": self.scope,
            "data": dict(self.data),
            "target": dict(self.target),
        }


# --------------------------------------------------------------------------------------- the shape of the data

_KEY = "ms_lint.key"
_OPTIONAL = "ms_lint.optional"
_FOR_USERS = "ms_lint.for_users"
_SUBJECT = "ms_lint.subject"

Record = TypeVar("Record", bound="FindingData")


def fact(*, key: str = "", optional: bool = False, for_users: bool = False, subject: bool = False,
         default: Any = MISSING) -> Any:
    """A field of a finding's data that needs saying more than its type: ``key``, its name in the data where that
    cannot be the field's (``global``); ``optional``, a fact only some findings of the shape have, left out of the
    data while it is None; ``for_users``, reported for the people and programs that read the data, though neither
    the message nor the validator reads it; ``subject``, a name the finding is about (the method, attribute,
    callee, type), which the validator matches against the attribute a compile error names."""
    metadata = {_KEY: key, _OPTIONAL: optional, _FOR_USERS: for_users, _SUBJECT: subject}
    if optional and default is MISSING:
        default = None
    return field(metadata=metadata) if default is MISSING else field(default=default, metadata=metadata)


# Facts the engine adds to the data of a finding in code MindSpore compiles (a rule with ``compiled_only``), beside
# the rule's record: the roots that compile its line (``compiled_by``), whether they all lie in the project's other
# modules (``compiled_elsewhere``), the entry points that select GRAPH_MODE for it (``entry_points``), and the
# setting that would show a finding left out where the mode was inferred PyNative (``silenced_by``: a record may
# declare that one itself, for another device).
COMPILE_FACTS = frozenset({"compiled_by", "compiled_elsewhere", "entry_points", "silenced_by"})
# The fact the engine adds to a finding that stands for other findings of the same cause in its file (the same
# misuse in one function, one constant several calls read): their places, ``[{"line": 104, "col": 8}, ...]``.
RELATED = "related"
ENGINE_FACTS = COMPILE_FACTS | {RELATED}


def compile_note(data: Mapping[str, Any]) -> str:
    """What a message adds of the code that compiles its line: the root, where only other modules' roots compile it
    (`` (compiled by Net.construct (model.py))``), or the entry point that selects GRAPH_MODE for it (`` (compiled
    by infer.py and 1 more entry points)``); "" otherwise."""
    if data.get("compiled_elsewhere"):
        roots = data.get("compiled_by") or ()
        return f" (compiled by {roots[0]}" + (f" and {len(roots) - 1} more)" if len(roots) > 1 else ")") \
            if roots else ""
    entry_points = data.get("entry_points") or ()
    if entry_points:
        return f" (compiled by {entry_points[0]}" + (
            f" and {len(entry_points) - 1} more entry points)" if len(entry_points) > 1 else ")")
    return ""


def related_note(related) -> str:
    """What a message adds of the other places of its cause: `` (also at lines 104, 110)``; "" for none."""
    lines = list(dict.fromkeys(place["line"] for place in related or ()))
    if not lines:
        return ""
    return f" (also at line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))})"


def with_related(finding: Finding, absorbed: tuple[Finding, ...]) -> Finding:
    """``finding`` standing for ``absorbed``, the other findings of its cause (none: for itself alone): their places
    in its data (``RELATED``) and its message, their nodes for ``--fix``."""
    from dataclasses import replace

    data = dict(finding.data)
    message = finding.message
    note = related_note(data.pop(RELATED, None))
    if note and message.endswith(note):
        message = message[:-len(note)]
    if absorbed:
        data[RELATED] = [{"line": other.line, "col": other.col} for other in absorbed]
        message += related_note(data[RELATED])
    return replace(finding, message=message, data=data, absorbed=tuple(absorbed))


@dataclass(frozen=True, kw_only=True)
class FindingData:
    """The facts of one kind of finding, declared as a frozen (keyword-only) dataclass beside its rule: a
    finding's ``data`` is this record's fields, in their order (``as_data``), and its message is rendered from them
    alone (``message``: ``template`` filled in with the fields and properties, or a method of its own). Every
    consumer reads the fields back through the record (``from_data``, ``Rule.data_of``), never by string keys."""

    # A ``str.format`` template over the record's fields and properties (``"{cell}.__init__ never calls ..."``).
    template: ClassVar[str] = ""

    def message(self) -> str:
        return string.Formatter().vformat(self.template, (), _Facts(self))

    def as_data(self) -> dict[str, Any]:
        """The finding's data: each field by its key, as JSON values (a tuple becomes a list); an optional fact
        that is None is left out."""
        data = {}
        for item in fields(self):
            value = getattr(self, item.name)
            if value is None and item.metadata.get(_OPTIONAL):
                continue
            data[item.metadata.get(_KEY) or item.name] = _json_value(value)
        return data

    def subjects(self) -> tuple[str, ...]:
        """The names the finding is about (its subject facts that hold a name)."""
        return tuple(value for item in fields(self) if item.metadata.get(_SUBJECT)
                     for value in [getattr(self, item.name)] if isinstance(value, str))

    @classmethod
    def keys(cls) -> tuple[frozenset[str], frozenset[str]]:
        """(the keys every finding of this shape has, every key it may have)."""
        required = {_key(item) for item in fields(cls) if not item.metadata.get(_OPTIONAL)}
        return frozenset(required), frozenset(_key(item) for item in fields(cls))

    @classmethod
    def from_data(cls: type[Record], data: Mapping[str, Any]) -> Record | None:
        """The record whose data is ``data``; None when ``data`` is not of this shape (another kind of finding of
        the rule, a finding built by hand without data)."""
        required, allowed = cls.keys()
        if not required <= data.keys() <= allowed | ENGINE_FACTS:
            return None
        return cls(**{item.name: data.get(_key(item)) for item in fields(cls)})

    @classmethod
    def from_finding(cls: type[Record], finding: Finding) -> Record | None:
        return cls.from_data(finding.data)


def is_for_users(item) -> bool:
    """Whether the dataclass field ``item`` of a record is declared as reported for users."""
    return bool(item.metadata.get(_FOR_USERS))


def is_subject(item) -> bool:
    """Whether the dataclass field ``item`` of a record is declared as a name the finding is about."""
    return bool(item.metadata.get(_SUBJECT))


def _key(item) -> str:
    return item.metadata.get(_KEY) or item.name


def _json_value(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return [_json_value(element) for element in value]
    if isinstance(value, dict):
        return {key: _json_value(element) for key, element in value.items()}
    return value


class _Facts(dict):
    """What a template reads: the record's fields and properties, by name."""

    def __init__(self, record: FindingData):
        super().__init__()
        self.record = record

    def __missing__(self, name: str) -> Any:
        return getattr(self.record, name)
