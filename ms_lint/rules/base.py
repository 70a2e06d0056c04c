"""What every rule is: a code, its documentation, and a check that reads the module's facts."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, ClassVar, Hashable, Iterator

from ms_lint.findings import Finding, FindingData

if TYPE_CHECKING:
    from ms_lint.model import ModuleFacts
    from ms_lint.edits import Edit, FixContext


class Rule:
    """One hazard. Subclasses fill in the class attributes and ``check``.

    The documentation attributes are the single source of ``ms-lint rules``, the README table, SARIF rule
    metadata and flake8's code list: ``summary`` (one line, what is reported), ``what`` (what the rule does),
    ``why`` (what MindSpore does, per syntax level), ``example`` (code that is reported), ``use_instead``
    (the fixed code) and ``autofix`` (what ``ms-lint check --fix`` does, or ``""`` when there is no fix).
    """

    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    fix_summary: ClassVar[str]
    what: ClassVar[str]
    why: ClassVar[str]
    example: ClassVar[str]
    use_instead: ClassVar[str]
    autofix: ClassVar[str] = ""
    enabled_by_default: ClassVar[bool] = True
    # How SARIF and GitHub annotations show the finding: "error", "warning" or "note".
    level: ClassVar[str] = "error"
    # Codes whose finding on the same node this rule replaces: one root cause gives one finding.
    replaces: ClassVar[tuple[str, ...]] = ()
    # Codes whose findings inside this rule's node are the same root cause: ``Parameter(initializer(Zero(), s))``
    # in construct is one MS106, not also an MS106 for ``initializer`` and an MS111 for ``Zero()``.
    covers_nested: ClassVar[tuple[str, ...]] = ()
    # The shapes of the rule's finding data: frozen ``FindingData`` records declared beside the rule, one per kind
    # of finding; each finding's data is one of them, and its message is rendered from it.
    records: ClassVar[tuple[type[FindingData], ...]] = ()
    # Whether the rule's claim holds only where MindSpore compiles the code (graph code): its findings carry the
    # roots that compile their line (``compiled_by``), and those in code only GRAPH_MODE compiles, where the mode was
    # inferred PyNative, are left out of the report (``ms_lint.target.SILENCED_BY``).
    compiled_only: ClassVar[bool] = False
    # Facts of the rule's data that differ between places of one cause and that the engine's answer of what makes
    # one cause (``engine.cause_of``) leaves out: MS601's evidence of a tensor's rank, read at each call.
    place_facts: ClassVar[frozenset[str]] = frozenset()
    # The facts that name the cause of a finding across its whole file, for rules whose cause is an API the file
    # uses rather than one line's arguments (a name MindSpore removed, a call its version rejects): findings with
    # the same values of these facts in one file are one cause, one edit through the file; empty: the engine's
    # answer (one function) or ``cause``.
    cause_in_file: ClassVar[tuple[str, ...]] = ()

    def check(self, module: "ModuleFacts") -> Iterator[Finding]:
        raise NotImplementedError

    @classmethod
    def cause(cls, module: "ModuleFacts", finding: Finding) -> Hashable | None:
        """What makes findings of this rule in one file one cause beyond the engine's own answer (the same facts in
        one function: ``engine.cause_of``), such as the module's constant several calls read; None: that answer.
        By default the facts ``cause_in_file`` names, where the rule names some."""
        if not cls.cause_in_file:
            return None
        return "file", tuple(repr(finding.data.get(name)) for name in cls.cause_in_file)

    @classmethod
    def cause_facts(cls, module: "ModuleFacts", finding: Finding) -> Hashable | None:
        """What names the misuse beyond the finding's data, for the engine's answer (the mask two boolean-mask
        selections of one function read: the same mask is one cause, another mask another); None: nothing more."""
        return None

    def fix(self, context: "FixContext", finding: Finding) -> list["Edit"]:
        """Source edits that remove ``finding`` (rules with ``autofix`` override this); empty when not fixable."""
        return []

    def finding(self, module: "ModuleFacts", node: ast.AST, message: str, scope: str | None = None,
                data: dict | None = None) -> Finding:
        return Finding(
            path=module.path,
            line=getattr(node, "lineno", 1),
            col=getattr(node, "col_offset", 0),
            code=self.code,
            message=message,
            scope=module.scope_name(node) if scope is None else scope,
            node=node,
            data=data or {},
        )

    def report(self, module: "ModuleFacts", node: ast.AST, data: FindingData, scope: str | None = None) -> Finding:
        """The finding at ``node`` whose data is the record ``data`` and whose message is rendered from it."""
        return self.finding(module, node, data.message(), scope=scope, data=data.as_data())

    @classmethod
    def data_of(cls, finding: Finding) -> FindingData | None:
        """The record of ``finding``'s data: the one of the rule's shapes it has; None when it has none (a finding
        built without the data the rule gives it)."""
        for record in cls.records:
            found = record.from_data(finding.data)
            if found is not None:
                return found
        return None

    @classmethod
    def documentation(cls) -> str:
        """The rule's whole documentation as Markdown, with fixed headings."""
        parts = [
            f"# {cls.code} {cls.name}",
            "",
            cls.summary,
            "",
            "## What it does",
            _dedent(cls.what),
            "",
            "## Why is this bad?",
            _dedent(cls.why),
            "",
            "## Example",
            "```python",
            _dedent(cls.example),
            "```",
            "",
            "## Use instead",
            "```python",
            _dedent(cls.use_instead),
            "```",
            "",
            "## Autofix",
            _dedent(cls.autofix) if cls.autofix else "None: the fix needs a decision only the author can make.",
        ]
        if not cls.enabled_by_default:
            parts += ["", "## Enabling", f"Off by default; enable it with `--extend-select={cls.code}` (flake8, "
                      f"`ms-lint check`; `extend-select = {cls.code}` in `[flake8]`, `extend-select = "
                      f"[\"{cls.code}\"]` in `[tool.ms-lint]`) or `--enable={cls.name}` (pylint). A selection naming "
                      f"a prefix of its code (`select = MS`) turns it on too."]
        return "\n".join(parts).rstrip() + "\n"


def _dedent(text: str) -> str:
    import textwrap

    return textwrap.dedent(text).strip("\n")
