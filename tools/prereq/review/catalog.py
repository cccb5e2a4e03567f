"""The execution catalog in a review: what changed between the base and the head, and the review rules
applied to environments, libraries, queues and rights as to items.

- PRQ201: a version of an environment or a library that the base branch published (at any point of its
  history, up to its tip) never comes back with other content: the change goes into a version above
  every published one.  PRQ314 already says so of a file whose own history held other content; the
  review adds the versions the base published that this branch's history never saw.
- PRQ316: an environment, a library or a queue deleted while the head still uses it (queues and
  libraries naming an environment, libraries depending on a library, rights rows naming a queue).
- PRQ205 and PRQ206 (with ``--author``): a modified or deleted environment, library or queue, a new
  version of an existing environment or library, and a changed rights row (by its queue's owners) need
  an owner as the base has them; something new lists its author.
- The impact: every catalog change, each rights row that gives or takes slots or priority, and who
  joins or leaves a group that has rights.
"""

from __future__ import annotations

from collections.abc import Iterator

from prereq.core.versions import is_version, sort_versions
from prereq.execution.catalog_records import Catalog, Environment, Library, Queue, Ref
from prereq.registry.owners import Owners
from prereq.registry.rules import Problem
from prereq.review.changes import changed_keys
from prereq.review.item_checks import combined_owners, identities, next_above, owns
from prereq.review.mergebase import Base, catalog_behaviour
from prereq.review.result import CatalogChange, CatalogImpact, Kind, MembershipChange, RightsChange
from prereq.review.rules import at, problem

Record = Environment | Library | Queue


def _kinds(catalog: Catalog) -> Iterator[tuple[str, dict[str, Record]]]:
    """The catalog's records of each kind, by the name a change shows (NAME@VERSION or the queue's)."""
    yield "environment", {str(ref): env for ref, env in catalog.environments.items()}
    yield "library", {str(ref): lib for ref, lib in catalog.libraries.items()}
    yield "queue", dict(catalog.queues)


def catalog_changes(base: Catalog, head: Catalog) -> list[CatalogChange]:
    """Every environment, library and queue added, modified or deleted, by kind then name."""
    found: list[CatalogChange] = []
    for (what, before), (_, after) in zip(_kinds(base), _kinds(head), strict=True):
        for name in sorted(set(before) | set(after)):
            old, new = before.get(name), after.get(name)
            if old is None and new is not None:
                found.append(CatalogChange(Kind.ADDED, what, name, file=new.source.rel))
            elif new is None and old is not None:
                found.append(CatalogChange(Kind.DELETED, what, name, base_file=old.source.rel))
            elif old is not None and new is not None and changed_keys(old.data, new.data):
                keys = changed_keys(old.data, new.data)
                found.append(CatalogChange(Kind.MODIFIED, what, name, keys, new.source.rel, old.source.rel))
    return found


def _rows(catalog: Catalog) -> dict[tuple[str, str], tuple[int, int]]:
    return {(row.queue, row.group): (row.slots, row.priority) for row in catalog.rights}


def rights_changes(base: Catalog, head: Catalog) -> list[RightsChange]:
    """Each (queue, group) whose slots or priority differ, by queue then group."""
    before, after = _rows(base), _rows(head)
    return [
        RightsChange(queue, group, before.get((queue, group)), after.get((queue, group)))
        for queue, group in sorted(set(before) | set(after))
        if before.get((queue, group)) != after.get((queue, group))
    ]


def _members(owners: Owners, catalog: Catalog) -> dict[str, set[str]]:
    groups = {team: set(members) for team, members in owners.teams.items()}
    for name, members in catalog.groups.items():
        groups.setdefault(name, set(owners.users) if members is None else set(members))
    return groups


def membership_changes(base: Base, head_owners: Owners, head: Catalog) -> list[MembershipChange]:
    """Who joins or leaves each group that has rights on the base or in the head."""
    before, after = _members(base.registry.owners, base.catalog), _members(head_owners, head)
    with_rights = {row.group for row in [*base.catalog.rights, *head.rights]}
    found = []
    for group in sorted(with_rights):
        old, new = before.get(group, set()), after.get(group, set())
        if old != new:
            found.append(MembershipChange(group, tuple(sorted(new - old)), tuple(sorted(old - new))))
    return found


def catalog_impact(base: Base, head_owners: Owners, head: Catalog) -> CatalogImpact:
    return CatalogImpact(
        changes=catalog_changes(base.catalog, head),
        rights=rights_changes(base.catalog, head),
        memberships=membership_changes(base, head_owners, head),
    )


def _versioned(catalog: Catalog, what: str) -> dict[Ref, Environment] | dict[Ref, Library]:
    return catalog.environments if what == "environment" else catalog.libraries


def check_republished(changes: list[CatalogChange], base: Base, head: Catalog) -> Iterator[Problem]:
    """PRQ201 for a version added or changed in the head that the base branch published otherwise."""
    for change in changes:
        if change.kind is Kind.DELETED or change.what == "queue":
            continue
        ref = Ref.parse(change.name)
        record = _versioned(head, change.what)[ref]
        earlier = base.catalog_published.get((change.what, ref), [])
        if earlier and all(p.content != catalog_behaviour(record.data) for p in earlier):
            seen = [r.version for (what, r) in base.catalog_published if what == change.what and r.name == ref.name]
            seen += [r.version for r in _versioned(head, change.what) if r.name == ref.name]
            version = next_above([v for v in seen if is_version(v)], ref.version)
            folder = record.source.rel.split("/")[0]
            suggestion = f"{version} (a new file {folder}/{ref.name}/{version}.yaml)"
            yield at(record.source, ("version",), "PRQ201", name=f"{change.what} {ref.name}", version=ref.version,
                     commit=earlier[0].commit[:10], suggestion=suggestion)  # fmt: skip


def _users(change: CatalogChange, head: Catalog) -> list[str]:
    """What in the head still uses a deleted environment, library or queue."""
    if change.what == "queue":
        groups = sorted({row.group for row in head.rights if row.queue == change.name})
        return [f"the rights rows of {', '.join(groups)}"] if groups else []
    ref = Ref.parse(change.name)
    if change.what == "library":
        return [f"library {lib.ref}" for lib in head.libraries.values() if ref in lib.depends]
    queues = [f"queue {queue.name}" for queue in head.queues.values() if ref in queue.environments]
    return queues + [f"library {lib.ref}" for lib in head.libraries.values() if ref in lib.environments]


def check_deleted_in_use(changes: list[CatalogChange], head: Catalog) -> Iterator[Problem]:
    """PRQ316: nothing in the head may still use what the change deletes."""
    for change in changes:
        users = _users(change, head) if change.kind is Kind.DELETED else []
        if users:
            yield problem("PRQ316", file=None, what=change.what, name=change.name, users=", ".join(users))


def _base_record(change: CatalogChange, base: Catalog) -> Record | None:
    """What the base says owns the changed thing: the same record, or for a new version of an environment
    or a library the base's newest version of that name."""
    if change.what == "queue":
        return base.queues.get(change.name)
    ref = Ref.parse(change.name)
    records = _versioned(base, change.what)
    if ref in records:
        return records[ref]
    versions = sort_versions([r.version for r in records if r.name == ref.name and is_version(r.version)])
    return records[Ref(ref.name, versions[-1])] if versions else None


def _head_record(change: CatalogChange, head: Catalog) -> Record | None:
    if change.what == "queue":
        return head.queues.get(change.name)
    return _versioned(head, change.what).get(Ref.parse(change.name))


def check_catalog_ownership(
    impact: CatalogImpact, base: Base, head: Catalog, head_owners: Owners, *, author: str
) -> Iterator[Problem]:
    """PRQ205 and PRQ206 over the catalog, as over items; a rights row belongs to its queue's owners."""
    owners = base.registry.owners
    names = identities(author, owners)
    for change in impact.changes:
        before, after = _base_record(change, base.catalog), _head_record(change, head)
        label = f"{change.what} {change.name}"
        if before is None and after is not None:  # something new
            if not identities(author, combined_owners(owners, head_owners)) & set(after.owners):
                yield at(
                    after.source, ("owners",), "PRQ206", on_key=True, what=change.what, name=change.name, author=author
                )
        elif before is not None and not owns(names, list(before.owners), owners):
            shown = ", ".join(before.owners) or "none"
            if after is None:
                yield problem("PRQ205", file=None, author=author, name=label, owners=shown)
            else:
                yield at(after.source, ("owners",), "PRQ205", on_key=True, author=author, name=label, owners=shown)
    source = head.rights_source
    for queue in sorted({change.queue for change in impact.rights}):
        before = base.catalog.queues.get(queue)
        if before is None or source is None or owns(names, list(before.owners), owners):
            continue  # a queue new in the head is its own change (PRQ206 above)
        row = next((r for r in head.rights if r.queue == queue), None)
        shown = ", ".join(before.owners) or "none"
        yield at(source, ("rights", row.index) if row else ("rights",), "PRQ205", author=author,
                 name=f"the rights on queue {queue}", owners=shown)  # fmt: skip


def catalog_problems(
    impact: CatalogImpact, base: Base, head: Catalog, head_owners: Owners, *, author: str | None
) -> list[Problem]:
    """Every review rule's findings over the catalog."""
    found = [*check_republished(impact.changes, base, head), *check_deleted_in_use(impact.changes, head)]
    if author:
        found += check_catalog_ownership(impact, base, head, head_owners, author=author)
    return found
