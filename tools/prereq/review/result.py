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


@dataclass(frozen=True)
class CatalogChange:
    """A version of an environment or a library, or a queue, that differs between the base and the head."""

    kind: Kind  # added, modified or deleted (a catalog file has no renames: its path names it)
    what: str  # "environment", "library" or "queue"
    name: str  # NAME@VERSION for an environment or a library
    changed_keys: tuple[str, ...] = ()
    file: str | None = None  # relative to the registry root, in the head
    base_file: str | None = None


@dataclass(frozen=True)
class RightsChange:
    """A row of rights.yaml (one queue, one group) that differs: what the group's members gain or lose."""

    queue: str
    group: str
    before: tuple[int, int] | None  # (slots, priority) on the base; None: no row
    after: tuple[int, int] | None  # in the head

    def describe(self) -> str:
        """``gains 2 slots (2 -> 4)``, ``loses its 3 slots (the row is gone)``, ``priority 0 -> 1``..."""
        if self.before is None and self.after is not None:
            return f"gets {self.after[0]} slot(s) at priority {self.after[1]} (a new row)"
        if self.after is None and self.before is not None:
            return f"loses its {self.before[0]} slot(s) (the row is gone)"
        assert self.before is not None and self.after is not None
        parts = []
        moved = self.after[0] - self.before[0]
        if moved:
            verb = "gains" if moved > 0 else "loses"
            parts.append(f"{verb} {abs(moved)} slot(s) ({self.before[0]} → {self.after[0]})")
        if self.after[1] != self.before[1]:
            parts.append(f"priority {self.before[1]} → {self.after[1]}")
        return ", ".join(parts)


@dataclass(frozen=True)
class MembershipChange:
    """A group with queue rights whose members change (owners.yaml's teams, rights.yaml's groups)."""

    group: str
    joined: tuple[str, ...]
    left: tuple[str, ...]


@dataclass(frozen=True)
class TrustChange:
    """One change to a trust file (owners.yaml, rights.yaml, prereq.yaml, schema/, the execution catalog,
    .github/), or an item's owners gaining the author: what it grants, for the report's trust section."""

    file: str  # repository-relative
    what: str  # "team data-team gains member bob", "handle of alice: '@a' → '@b'", "modified"...
    line: int | None = None  # in the head's file, where known
    grants_author: bool = False  # the author adds themselves (or a handle of theirs) where it grants something

    def as_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "what": self.what, "grants_author": self.grants_author}


@dataclass(frozen=True)
class AddedSuppression:
    """A suppression the head has and the base had not: a rule silenced by the pull request itself."""

    file: str  # relative to the registry root
    line: int
    rule: str
    by: str  # "# prereq: disable at line 4" or "suppress: at line 6"

    def as_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "rule": self.rule, "by": self.by}


@dataclass
class CatalogImpact:
    """What the change does to the execution catalog: where blocks run and who may use how much."""

    changes: list[CatalogChange] = field(default_factory=list)
    rights: list[RightsChange] = field(default_factory=list)
    memberships: list[MembershipChange] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.changes or self.rights or self.memberships)

    def as_dict(self) -> dict[str, Any]:
        return {
            "changes": [
                {"kind": c.kind.value, "what": c.what, "name": c.name, "changed_keys": list(c.changed_keys)}
                for c in self.changes
            ],
            "rights": [
                {
                    "queue": r.queue,
                    "group": r.group,
                    "before": None if r.before is None else {"slots": r.before[0], "priority": r.before[1]},
                    "after": None if r.after is None else {"slots": r.after[0], "priority": r.after[1]},
                    "change": r.describe(),
                }
                for r in self.rights
            ],
            "memberships": [
                {"group": m.group, "joined": list(m.joined), "left": list(m.left)} for m in self.memberships
            ],
        }


@dataclass
class Impact:
    """What the change reaches, and whether it can be merged without a second look."""

    changes: list[Change]
    dependents: list[Dependent]
    templates: dict[str, list[str]]  # template name -> the changed items and dependents it uses
    trivially_safe: bool
    reasons: list[str]  # why it is not trivially safe (empty when it is)
    owners_changed: bool = False
    outside: list[str] = field(default_factory=list)  # changed repository paths no review rule reads
    catalog: CatalogImpact = field(default_factory=CatalogImpact)
    trust: list[TrustChange] = field(default_factory=list)  # listed above the item changes
    suppressions: list[AddedSuppression] = field(default_factory=list)  # added by the change


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
            "catalog": impact.catalog.as_dict(),
            "trust": [t.as_dict() for t in impact.trust],
            "suppressions_added": [s.as_dict() for s in impact.suppressions],
            "outside_registry_items": impact.outside,
            "trivially_safe": impact.trivially_safe,
            "reasons": impact.reasons,
            "problems": [p.as_dict() for p in self.result.problems],
        }
