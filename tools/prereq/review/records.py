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
    """An item that requires a changed item, directly or through other items.

    ``chain`` runs from this item to the changed one (``top, user, storage``: top requires user, which
    requires storage).  ``range``, ``version`` and ``satisfied`` are about the changed item, whatever the
    distance: the range on it of the chain's direct dependent (``user``'s on storage; this item's own
    when it is direct), the changed item's version in the head, and whether that range accepts it, which
    is what decides whether this item still gets a working chain.  ``requires`` is this item's own
    range on the next one of the chain."""

    name: str
    changed: str  # the changed item it depends on (for a rename, its new name)
    chain: tuple[str, ...]  # this item, ..., the changed item as required (a rename's old name, if so)
    range: str  # the direct dependent's range on the changed item ("*" for any version)
    version: str | None  # the changed item's version in the head (None: deleted)
    satisfied: bool  # whether ``range`` accepts ``version``
    requires: str  # this item's own range on ``through``
    deprecated: bool = False

    @property
    def through(self) -> str:
        """The item this one requires on the way (the changed item, for a direct dependent)."""
        return self.chain[1]

    @property
    def distance(self) -> int:
        return len(self.chain) - 1

    @property
    def direct(self) -> bool:
        return self.distance == 1

    @property
    def direct_dependent(self) -> str:
        """The item on the chain that requires the changed item itself, whose range ``range`` is."""
        return self.chain[-2]


@dataclass
class Impact:
    """What the change reaches, and whether it can be merged without a second look."""

    changes: list[Change]
    dependents: list[Dependent]
    templates: dict[str, list[str]]  # template name -> the changed items and dependents it uses
    trivially_safe: bool
    reasons: list[str]  # why it is not trivially safe (empty when it is)
    owners_changed: bool = False
    outside: list[str] = field(default_factory=list)  # changed repository paths outside <registry>/prerequisites/


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
                    "chain": list(d.chain),
                    "through": d.through,
                    "requires": d.requires,
                    "range": d.range,
                    "range_of": d.direct_dependent,
                    "version": d.version,
                    "satisfied": d.satisfied,
                    "distance": d.distance,
                }
                for d in impact.dependents
            ],
            "templates": impact.templates,
            "outside_registry_items": impact.outside,
            "trivially_safe": impact.trivially_safe,
            "reasons": impact.reasons,
            "problems": [p.as_dict() for p in self.result.problems],
        }
