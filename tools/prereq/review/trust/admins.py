"""Who may change the trust files (PRQ210): an administrator, a member of the team ``owners.yaml`` names
in ``admins:`` as the base has it, or, for an edit of nothing but a self-managed team's member list,
a member of that team on the base.  Also the author granting themselves ownership through an item's
``owners`` (a team of theirs, or their own name), which no rule refuses but no verdict calls safe.

``review_trust`` gathers the trust part of a review for ``review``: the trust changes, PRQ210's
findings, and the suppressions the change adds."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prereq.core.gitrepo import Repository
from prereq.core.yamlload import YamlLoadError, load_yaml
from prereq.execution.catalog_records import Catalog
from prereq.registry.loader import SourceItem
from prereq.registry.owners import Owners
from prereq.registry.rules import Problem
from prereq.review.item_checks import Head, identities, owns
from prereq.review.mergebase import Base
from prereq.review.result import AddedSuppression, Change, Kind, RightsChange, TrustChange
from prereq.review.rules import problem
from prereq.review.trust.grants import (
    OWNERS,
    base_bytes,
    head_bytes,
    registry_path,
    trust_changes,
)
from prereq.review.trust.suppressions import added_suppressions

SHOWN_CHANGES = 3  # of a file's trust changes, named in its PRQ210; the rest counted


@dataclass
class TrustReview:
    changes: list[TrustChange] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    suppressions: list[AddedSuppression] = field(default_factory=list)


def _data(raw: bytes | None) -> dict[str, Any] | None:
    try:
        data = load_yaml(raw).data if raw is not None else None
    except YamlLoadError:
        return None
    return data if isinstance(data, dict) else None


def self_managed_edit(before: bytes | None, after: bytes | None, owners: Owners, names: set[str]) -> bool:
    """Whether owners.yaml changes nothing but the member lists of teams that are self-managed on the base
    (``owners``), each of which has one of the author's ``names`` among its members there."""
    old, new = _data(before), _data(after)
    if old is None or new is None:
        return False
    old_teams, new_teams = old.get("teams"), new.get("teams")
    if not isinstance(old_teams, dict) or not isinstance(new_teams, dict) or set(old_teams) != set(new_teams):
        return False  # adding or removing a team is an administrator's
    if {k: v for k, v in old.items() if k != "teams"} != {k: v for k, v in new.items() if k != "teams"}:
        return False
    edited = [team for team in new_teams if old_teams[team] != new_teams[team]]
    return bool(edited) and all(
        team in owners.self_managed and names & set(owners.teams.get(team, [])) for team in edited
    )


def _what(entries: list[TrustChange]) -> str:
    shown = "; ".join(e.what for e in entries[:SHOWN_CHANGES])
    more = len(entries) - SHOWN_CHANGES
    return shown + (f"; and {more} more" if more > 0 else "")


def check_trust(
    changes: list[TrustChange], base: Base, repo: Repository, registry: Path, *, author: str
) -> Iterator[Problem]:
    """PRQ210 once for each trust file changed by an author who is not an administrator on the base."""
    owners = base.registry.owners
    names = identities(author, owners)
    if names & owners.administrators:
        return
    admins = f"the admins team on the base is {owners.admins}" if owners.admins else "the base names no admins team"
    by_file: dict[str, list[TrustChange]] = {}
    for change in changes:
        if not change.what.startswith("owners of item "):  # an item's owners are PRQ205's
            by_file.setdefault(change.file, []).append(change)
    for path, entries in by_file.items():
        if registry_path(path, base.prefix) == OWNERS and self_managed_edit(
            base_bytes(base, repo, path), head_bytes(repo.root, path), owners, names
        ):
            continue
        lines = [e.line for e in entries if e.line is not None]
        line = min(lines) if lines else None
        full = repo.root / path
        file = os.path.relpath(full, registry) if os.path.lexists(full) else None
        team = f", {owners.admins}" if owners.admins else ""
        yield problem("PRQ210", file=file, line=line, column=1 if line else None, author=author, path=path,
                      what=_what(entries), admins=admins, team=team)  # fmt: skip


def item_self_grants(changes: list[Change], base: Base, head: Head, *, prefix: str, author: str) -> list[TrustChange]:
    """An item whose owners gain the author, or a team of theirs: listed with the trust changes."""
    names = identities(author, base.registry.owners) | identities(author, head.owners)
    found: list[TrustChange] = []
    for change in changes:
        item: SourceItem | None = head.items.get(change.name)
        before = base.items.get(change.old_name or change.name)
        if change.what != "item" or change.kind is Kind.DELETED or item is None:
            continue
        listed = item.data.get("owners")
        old = before.data.get("owners") if before is not None else []
        for index, owner in enumerate(listed if isinstance(listed, list) else []):
            if owner not in (old if isinstance(old, list) else []) and owns(names, [owner], head.owners):
                path = item.rel if prefix == "." else f"{prefix}/{item.rel}"
                line = item.position(("owners", index))[0]
                found.append(TrustChange(path, f"owners of item {change.name} gain {owner}", line, True))
    return found


def review_trust(
    root: Path,
    base: Base,
    head: Head,
    catalog: tuple[Catalog, list[RightsChange]],
    changes: list[Change],
    *,
    author: str | None,
) -> TrustReview:
    """The trust part of the review of the registry folder ``root``: what changes, who may, what is suppressed."""
    repo = Repository.find(root)
    if repo is None:  # open_base found one: only a repository removed meanwhile gets here
        return TrustReview()
    trust = trust_changes(base, repo, (head.owners, catalog[0]), catalog[1], author=author)
    problems = list(check_trust(trust, base, repo, root, author=author)) if author else []
    if author:
        trust += item_self_grants(changes, base, head, prefix=base.prefix, author=author)
    sources = [*base.registry.items, *base.registry.templates]
    added = added_suppressions(sources, [*head.items.values(), *head.templates])
    return TrustReview(trust, problems, added)
