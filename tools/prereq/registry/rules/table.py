"""What every layer's rules are written in: ``Rule`` (one entry of a table), ``RuleTable`` (a layer's
entries by id, which builds each ``Problem`` from them, ``at`` a position of a file when given one),
``Severity``, and the rule reference page a table makes (``rule_reference_markdown``).

It sits in the lowest layer that reports problems so that every layer above can write its own table
with it: ``prereq.registry.rules`` holds PRQ1xx, ``prereq.execution.rules`` PRQ3xx and
``prereq.review.rules`` PRQ2xx, and joins the three into the one table ``prereq rules`` and the site
show.

May import: the standard library, prereq.registry.limits (the reference ends with the list of limits).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol

from prereq.registry.limits import limits_markdown


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"


E, W = Severity.ERROR, Severity.WARNING  # the tables' shorthand


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    severity: Severity
    message: str
    hint: str
    explanation: str
    default_fix: str = ""  # what {fix} in the hint says when the finding names no fix of its own
    # Guards identity, integrity or trust: a suppression of it is PRQ182 and silences nothing.
    guard: bool = field(default=False, kw_only=True)
    # More of the reference entry (Markdown), after the fix: how the rule decides, what it lists.
    notes: str = field(default="", kw_only=True)


@dataclass(frozen=True)
class Problem:
    """One finding, positioned in a file relative to the registry root (1-based)."""

    rule: str
    severity: Severity
    file: str | None
    line: int | None
    column: int | None
    message: str
    hint: str
    # The problem this one follows from (an item it cannot find, say), linked after the checks ran:
    # not part of what a problem is, so equal problems stay equal and the kept ones keep their shape.
    consequence_of: Problem | None = field(default=None, compare=False, repr=False)

    def sort_key(self) -> tuple[Any, ...]:
        return (self.file or "", self.line or 0, self.column or 0, self.rule, self.message)

    def as_dict(self) -> dict[str, Any]:
        shown: dict[str, Any] = {
            "rule": self.rule,
            "severity": self.severity.value,
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "message": self.message,
            "hint": self.hint,
        }
        cause = self.consequence_of
        if cause is not None:
            shown["consequence_of"] = {"rule": cause.rule, "file": cause.file, "line": cause.line}
        return shown


_ID = re.compile(r"PRQ\d{3}")


class Positioned(Protocol):
    """A file read with its positions: a registry item (``SourceItem``) or a catalog file (``Source``)."""

    @property
    def rel(self) -> str: ...  # relative to the registry root

    def position(self, path: tuple[Any, ...], *, key: bool = False) -> tuple[int, int]: ...


class RuleTable(Mapping[str, Rule]):
    """Rules by id, in the order written (grouped by concern).  A layer's table holds only ids of its
    range (``owns``: ``"PRQ1"`` for PRQ100-PRQ199); ``joined`` puts several layers' together.  An id
    written twice or outside the range is refused as the table is built: at import, before any test."""

    def __init__(self, rules: Iterable[Rule], *, owns: str) -> None:
        self.owns = owns
        self._rules: dict[str, Rule] = {}
        for rule in rules:
            if not (_ID.fullmatch(rule.id) and rule.id.startswith(owns)):
                raise ValueError(f"{rule.id} ({rule.name}) is not an id of the range {owns}")
            if rule.id in self._rules:
                raise ValueError(f"{rule.id} is in the table twice")
            self._rules[rule.id] = rule

    @classmethod
    def joined(cls, *tables: RuleTable) -> RuleTable:
        return cls((rule for table in tables for rule in table.values()), owns="PRQ")

    def __getitem__(self, rule_id: str) -> Rule:
        return self._rules[rule_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._rules)

    def __len__(self) -> int:
        return len(self._rules)

    def problem(
        self, rule_id: str, *, file: str | None, line: int | None = None, column: int | None = None, **details: Any
    ) -> Problem:
        """A Problem of the rule ``rule_id``, its message and hint filled with ``details``."""
        rule = self._rules[rule_id]
        if rule.default_fix:
            details.setdefault("fix", rule.default_fix)
        return Problem(
            rule=rule.id,
            severity=rule.severity,
            file=file,
            line=line,
            column=column,
            message=rule.message.format(**details),
            hint=rule.hint.format(**details),
        )

    def at(
        self, where: Positioned, path: tuple[Any, ...], rule_id: str, /, *, on_key: bool = False, **details: Any
    ) -> Problem:
        """A Problem of ``rule_id`` at ``path`` in ``where``'s file (at the key itself with ``on_key``)."""
        line, column = where.position(path, key=on_key)
        return self.problem(rule_id, file=where.rel, line=line, column=column, **details)


def rule_reference_markdown(rules: Mapping[str, Rule]) -> str:
    """The rule reference page (``prereq rules``, the site's reference/rules), made from ``rules``."""
    lines = [
        "# Rule reference",
        "",
        "Every problem `prereq validate` reports carries one of these ids. "
        "Errors fail validation; so do warnings, unless `prereq.yaml` says `validate: {strict: false}` (or a run "
        "passes `--no-strict`).",
        "",
        "A problem can be suppressed by a `# prereq: disable=PRQnnn` comment on its line (or alone on the line "
        "above) or by an item's `suppress: [PRQnnn]` (PRQ178), and is still shown in every report, except "
        "where the table says *no*: those rules guard identity, integrity and trust (file names, names and "
        "look-alike names, the schema, owners and the trust files, published versions, the execution "
        "catalog's names), and a pull request must not be able to silence the rule that stops it. A "
        "suppression of one is an error itself (PRQ182) and silences nothing.",
        "",
        "| id | name | severity | suppressible | what it checks |",
        "|---|---|---|---|---|",
    ]
    ordered = sorted(rules.values(), key=lambda rule: rule.id)  # tables are grouped by concern; readers look ids up
    for rule in ordered:
        lines.append(
            f"| [{rule.id}](#{rule.id.lower()}) | `{rule.name}` | {rule.severity.value} | "
            f"{'**no**' if rule.guard else 'yes'} | {rule.explanation} |"
        )
    for rule in ordered:
        lines += [
            "",
            f"## {rule.id}",
            "",
            f"**{rule.name}** ({rule.severity.value}{', cannot be suppressed' if rule.guard else ''})",
            "",
            rule.explanation,
            "",
            f"Message: `{rule.message}`",
            "",
            f"Fix: {rule.hint.format(fix=rule.default_fix) if rule.default_fix else rule.hint}",
        ]
        lines += ["", rule.notes] if rule.notes else []
    return "\n".join(lines) + "\n\n" + limits_markdown()
