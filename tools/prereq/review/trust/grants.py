"""The trust files in a review: which changed paths decide who owns what and what runs where, and what
each change to them grants, told one by one (team X gains member Y, handle of T changed from A to B).

Every path of the repository but the registry's items is a trust file: ``owners.yaml`` and
``rights.yaml``, the execution catalog, job templates (they run in jobs and have no owners of their
own), ``prereq.yaml`` and the allowed signers it names, ``schema/``, ``.github/`` (the very check), and
the site's sources (a ``mkdocs.yml`` runs hooks in the publish job, which holds the signing key; pages
and scripts reach every user and the portal's plugin).  Items have owners, who review them; the rest is
the administrators'.  Every changed path is known (``Base.paths``); the base's copy of a file comes from
git, the head's from the working tree, never through a symbolic link in the checkout."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prereq.core.files import link_inside
from prereq.core.gitrepo import Repository
from prereq.core.yamlload import YamlLoadError, load_yaml
from prereq.execution.catalog_records import Catalog
from prereq.execution.load import RIGHTS_FILE
from prereq.registry.loader import ITEMS_DIR
from prereq.registry.owners import ADMINS, KEYS, SELF_MANAGED, Owners
from prereq.review.item_checks import identities
from prereq.review.mergebase import CATALOG_FOLDERS, Base
from prereq.review.result import RightsChange, TrustChange

OWNERS = "owners.yaml"  # the loader's OWNERS_FILE, relative to the registry folder


@dataclass(frozen=True)
class Who:
    """The author as the trust changes are judged: the users they are (on the base or in the head) and
    their login, casefolded; both empty without --author."""

    names: frozenset[str] = frozenset()
    login: str = ""

    @classmethod
    def of(cls, author: str | None, base: Owners, head: Owners) -> Who:
        if not author:
            return cls()
        names = identities(author, base) | identities(author, head)
        return cls(frozenset(names), author.removeprefix("@").casefold())

    def is_handle(self, handle: Any) -> bool:
        return bool(self.login) and isinstance(handle, str) and handle.removeprefix("@").casefold() == self.login


def registry_path(path: str, prefix: str) -> str | None:
    """``path`` (repository-relative) relative to the registry folder, or None outside it."""
    if prefix == ".":
        return path
    return path.removeprefix(prefix + "/") if path.startswith(prefix + "/") else None


def is_trust_path(path: str, prefix: str) -> bool:
    """Whether the repository path ``path`` is a trust file of the registry in the folder ``prefix``:
    anything but an item file."""
    inside = registry_path(path, prefix)
    return inside is None or not inside.startswith(f"{ITEMS_DIR}/")


def first_changed_line(before: bytes | None, after: bytes | None) -> int | None:
    """The head's first line that differs from the base's (None for a deleted file)."""
    if after is None:
        return None
    if before is None:
        return 1
    old, new = before.split(b"\n"), after.split(b"\n")
    for number, (a, b) in enumerate(zip(old, new, strict=False), start=1):
        if a != b:
            return number
    return max(1, min(len(old) + 1, len(new)))


def head_bytes(repo_root: Path, path: str) -> bytes | None:
    """The working tree's copy of ``path``; None when it is gone, a link, or reached through one."""
    full = repo_root / path
    if link_inside(full, repo_root) is not None or not full.is_file():
        return None
    try:
        return full.read_bytes()
    except OSError:
        return None


def base_bytes(base: Base, repo: Repository, path: str) -> bytes | None:
    """The base's copy of ``path``: from the texts the base keeps, else from git."""
    inside = registry_path(path, base.prefix)
    if inside is not None and (inside in (OWNERS, RIGHTS_FILE) or inside.startswith(CATALOG_FOLDERS)):
        return base.texts.get(inside)  # the base keeps every one of these
    if link_inside(repo.root / path, repo.root) is not None:
        return None  # a folder that is a link in the head: ls-tree needs a path it can resolve inside
    return repo.files_at(base.commit, repo.root / path).get(path)


def _mapping(loaded: Any, key: str) -> dict[Any, Any]:
    value = loaded.get(key) if isinstance(loaded, dict) else None
    return value if isinstance(value, dict) else {}


def _names(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def _teams(before: dict[str, Any], after: dict[str, Any], who: Who) -> Iterator[tuple[str, tuple[Any, ...], bool]]:
    old, new = _mapping(before, "teams"), _mapping(after, "teams")
    for team in sorted(set(old) | set(new), key=str):
        if team not in new:
            yield f"team {team} removed", ("teams",), False
            continue
        members = _names(new[team])
        if team not in old:
            shown = ", ".join(members) or "no members"
            yield f"team {team} added ({shown})", ("teams", team), bool(who.names & set(members))
            continue
        gained = [m for m in members if m not in _names(old[team])]
        yield from ((f"team {team} gains member {m}", ("teams", team), m in who.names) for m in gained)
        yield from (
            (f"team {team} loses member {m}", ("teams", team), False) for m in _names(old[team]) if m not in members
        )


def _handles(before: dict[str, Any], after: dict[str, Any], who: Who) -> Iterator[tuple[str, tuple[Any, ...], bool]]:
    old, new = _mapping(before, "github"), _mapping(after, "github")
    for name in sorted(set(old) | set(new), key=str):
        a, b = old.get(name), new.get(name)
        if a == b:
            continue
        if name not in new:
            yield f"handle of {name} removed (was {a})", ("github",), False
        elif name not in old:
            yield f"handle of {name} set to {b}", ("github", name), who.is_handle(b)
        else:
            yield f"handle of {name} changed from {a} to {b}", ("github", name), who.is_handle(b)


def owners_changes(before: dict[str, Any], after: dict[str, Any], who: Who) -> list[tuple[str, tuple[Any, ...], bool]]:
    """What an owners.yaml change does, each with where the head says it and whether it grants the author."""
    found: list[tuple[str, tuple[Any, ...], bool]] = []
    old_users, new_users = _names(before.get("users")), _names(after.get("users"))
    found += [(f"user {u} added", ("users",), False) for u in new_users if u not in old_users]
    found += [(f"user {u} removed", ("users",), False) for u in old_users if u not in new_users]
    found += [*_teams(before, after, who), *_handles(before, after, who)]
    if before.get(ADMINS) != after.get(ADMINS):
        admins = after.get(ADMINS)
        grants = isinstance(admins, str) and bool(who.names & set(_names(_mapping(after, "teams").get(admins))))
        found.append((f"admins changed from {before.get(ADMINS) or 'none'} to {admins or 'none'}", (ADMINS,), grants))
    if before.get(SELF_MANAGED) != after.get(SELF_MANAGED):
        shown = [", ".join(_names(side.get(SELF_MANAGED))) or "none" for side in (before, after)]
        found.append((f"self-managed teams changed from {shown[0]} to {shown[1]}", (SELF_MANAGED,), False))
    for key in sorted({*before, *after} - set(KEYS), key=str):
        if before.get(key) != after.get(key):
            found.append((f"{key} changed", (key,), False))
    return found


def _loaded(raw: bytes | None) -> Any:
    if raw is None:
        return None
    try:
        return load_yaml(raw)
    except YamlLoadError:
        return None  # the head's is the loader's finding (PRQ101); a base's is only compared as text


def _owners_file(path: str, before: bytes | None, after: bytes | None, who: Who) -> list[TrustChange]:
    old, new = _loaded(before), _loaded(after)
    if old is None or new is None or not isinstance(old.data, dict) or not isinstance(new.data, dict):
        return []
    return [
        TrustChange(path, what, new.position(where, key=len(where) == 1)[0], grants)
        for what, where, grants in owners_changes(old.data, new.data, who)
    ]


def _group_changes(path: str, base: Catalog, head: Catalog, who: Who) -> Iterator[TrustChange]:
    source = head.rights_source

    def line(group: str) -> int | None:
        return source.position(("groups", group))[0] if source else None

    for group in sorted(set(base.groups) | set(head.groups)):
        if group not in head.groups:
            yield TrustChange(path, f"rights group {group} removed", line(group))
            continue
        old, new = base.groups.get(group, ()), head.groups[group]
        if new is None:  # every user of owners.yaml
            if group not in base.groups or old is not None:
                yield TrustChange(path, f"rights group {group} now holds every user", line(group), bool(who.names))
            continue
        gained = [m for m in new if old is not None and m not in old] if group in base.groups else list(new)
        for member in gained:
            yield TrustChange(path, f"rights group {group} gains member {member}", line(group), member in who.names)
        for member in [m for m in old or () if m not in new]:
            yield TrustChange(path, f"rights group {group} loses member {member}", line(group))


def _rights_file(path: str, base: Catalog, head: Catalog, rights: list[RightsChange], who: Who) -> list[TrustChange]:
    found = list(_group_changes(path, base, head, who))
    source = head.rights_source
    for row in rights:
        index = next((r.index for r in head.rights if (r.queue, r.group) == (row.queue, row.group)), None)
        line = source.position(("rights", index) if index is not None else ("rights",))[0] if source else None
        found.append(TrustChange(path, f"rights of group {row.group} on queue {row.queue}: {row.describe()}", line))
    return found


def trust_changes(
    base: Base,
    repo: Repository,
    head: tuple[Owners, Catalog],
    rights: list[RightsChange],
    *,
    author: str | None,
) -> list[TrustChange]:
    """Every change to a trust file: the details for owners.yaml and rights.yaml (with the file's first
    changed line when they say nothing more), one entry for any other file."""
    owners, catalog = head
    who = Who.of(author, base.registry.owners, owners)
    found: list[TrustChange] = []
    for path in (p for p in base.paths if is_trust_path(p, base.prefix)):
        before = base_bytes(base, repo, path)
        after = head_bytes(repo.root, path)
        inside = registry_path(path, base.prefix)
        detailed: list[TrustChange] = []
        if before is not None and after is not None:  # a file added or deleted whole is said as such
            if inside == OWNERS:
                detailed = _owners_file(path, before, after, who)
            elif inside == RIGHTS_FILE:
                detailed = _rights_file(path, base.catalog, catalog, rights, who)
        if detailed:
            found += detailed
            continue
        state = "added" if before is None else "deleted" if after is None else "modified"
        if after is None and (repo.root / path).is_symlink():
            state = "made a symbolic link"
        found.append(TrustChange(path, state, first_changed_line(before, after)))
    return found
