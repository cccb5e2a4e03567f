"""The review's result as data: the changes, the dependents they reach, and the verdict.

Nothing here computes; ``changes``, ``impact`` and ``review`` fill these records and the CLI and
``markdown`` read them."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from prereq.registry.rules import Problem, Severity
from prereq.registry.validate import ValidationResult

# Keys that describe an item without changing what it does in a job: changing only these needs no
# new version (forcing a bump for a typo is what contributors to other registries complain of).
DOCS_KEYS = frozenset({"description", "title", "tags", "homepage", "deprecated"})


class Kind(str, Enum):
    ADDED = "added"
    MODIFIED = "modified"
    RENAMED = "renamed"
    DELETED = "deleted"


@dataclass(frozen=True)
class Change:
    """One item or job template that differs between the base and the head."""

    kind: Kind
    what: str  # "item" or "template"
    name: str  # the head's name (the base's for a deletion)
    old_name: str | None = None  # a rename's name on the base
    base_version: str | None = None
    version: str | None = None
    changed_keys: tuple[str, ...] = ()  # top-level keys whose values differ (empty: comments or layout only)
    file: str | None = None  # relative to the registry root, in the head
    base_file: str | None = None  # relative to the registry root, on the base
    bump: str | None = None  # major, minor, patch or prerelease; None: no higher version than the base's

    @property
    def docs_only(self) -> bool:
        """A modification touching only descriptive keys (or only comments and layout)."""
        return self.kind is Kind.MODIFIED and set(self.changed_keys) <= DOCS_KEYS


@dataclass(frozen=True)
class Dependent:
    """An item that requires a changed item, directly (``through`` is the changed item) or through
    other items (``through`` is the item it requires on the way)."""

    name: str
    changed: str  # the changed item it depends on
    through: str  # the item this one requires on the path to ``changed``
    range: str  # its range for ``through`` ("*" for any version)
    version: str | None  # ``through``'s version in the head (None: deleted)
    satisfied: bool  # whether that version is in the range
    distance: int  # 1 for a direct dependent
    deprecated: bool = False

    @property
    def direct(self) -> bool:
        return self.distance == 1


@dataclass
class Impact:
    """What the change reaches, and whether it can be merged without a second look."""

    changes: list[Change]
    dependents: list[Dependent]
    templates: dict[str, list[str]]  # template name -> the changed items and dependents it uses
    trivially_safe: bool
    reasons: list[str]  # why it is not trivially safe (empty when it is)
    owners_changed: bool = False


@dataclass
class ReviewResult:
    """The head's full validation plus the review: ``result`` carries every problem, the validation's
    and the review's, so the ordinary reporters show them all."""

    result: ValidationResult
    review_problems: list[Problem]
    ref: str
    base_commit: str
    author: str | None
    impact: Impact
    notes: list[str] = field(default_factory=list)  # what the review could not see, said once

    def failed(self, *, strict: bool = False) -> bool:
        return self.result.failed(strict=strict)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.result.problems if p.severity is Severity.ERROR]

    def as_dict(self) -> dict[str, Any]:
        """The review as JSON-ready data (for ``--format json`` and tools reading the impact)."""
        impact = self.impact
        return {
            "base": {"ref": self.ref, "commit": self.base_commit},
            "author": self.author,
            "changes": [
                {
                    "kind": c.kind.value,
                    "what": c.what,
                    "name": c.name,
                    "old_name": c.old_name,
                    "base_version": c.base_version,
                    "version": c.version,
                    "bump": c.bump,
                    "docs_only": c.docs_only,
                    "changed_keys": list(c.changed_keys),
                }
                for c in impact.changes
            ],
            "dependents": [
                {
                    "name": d.name,
                    "changed": d.changed,
                    "through": d.through,
                    "range": d.range,
                    "version": d.version,
                    "satisfied": d.satisfied,
                    "distance": d.distance,
                }
                for d in impact.dependents
            ],
            "templates": impact.templates,
            "trivially_safe": impact.trivially_safe,
            "reasons": impact.reasons,
            "problems": [p.as_dict() for p in self.result.problems],
        }
