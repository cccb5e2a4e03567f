"""The review rules (PRQ2xx): what a change may do to versions, to what others require, and who may make it.

Each check reads the changes, the base and the head, and yields problems positioned in the head's
files (a deleted item has no file in the head: its problems name it instead).  ``REVIEW_RULES`` is the
family, declared here as the registry's checks declare theirs."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from prereq.core.versions import is_version, sort_versions, version_key
from prereq.openpai import protocol
from prereq.registry.loader import Owners, SourceItem
from prereq.registry.rules import Problem
from prereq.review.mergebase import Base, behaviour
from prereq.review.result import Change, Kind
from prereq.review.rules import at, problem

# PRQ207 (CODEOWNERS out of date) is the review's too, checked in ``codeowners``.
# PRQ316 (an execution catalog entry deleted while in use) is the review's too, checked in ``catalog``.
# PRQ209 (a version only an intermediate commit holds) and PRQ211 (a credential a commit wrote) are the
# review's too, checked in ``commits``.
# PRQ210 (a trust file changed by someone who is not an administrator) is checked in ``trust.admins``.
REVIEW_RULES = (
    "PRQ200",
    "PRQ201",
    "PRQ202",
    "PRQ203",
    "PRQ204",
    "PRQ205",
    "PRQ206",
    "PRQ207",
    "PRQ208",
    "PRQ209",
    "PRQ210",
    "PRQ211",
    "PRQ316",
)


@dataclass
class Head:
    """The registry as the pull request leaves it."""

    items: dict[str, SourceItem]
    templates: list[SourceItem]
    owners: Owners


def _names(names: list[str]) -> str:
    return ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else names[0]


def next_patch(name: str, version: str, base: Base) -> str:
    """The patch version after both ``version`` and the highest version ``name`` ever published."""
    return next_above([v for (n, v) in base.published if n == name and is_version(v)], version)


def next_above(seen: list[str], version: str) -> str:
    """The patch version after both ``version`` and the highest of ``seen`` (valid versions)."""
    highest = sort_versions([*seen, version] if is_version(version) else seen or ["0.0.0"])[-1]
    match = re.match(r"v?(\d+)\.(\d+)\.(\d+)", highest)
    major, minor, patch = (int(part) for part in match.groups()) if match else (0, 0, 0)
    return f"{major}.{minor}.{patch + 1}"


def requirers(name: str, head: Head) -> list[str]:
    """The head's items and job templates that require ``name`` directly (templates as templates/NAME)."""
    found = [other for other, item in head.items.items() if any(r.name == name for r in item.requires)]
    for template in head.templates:
        if any(n == name for _, _, n in protocol.role_references(template.data)):
            found.append(template.rel.removesuffix(".yaml"))
    return sorted(set(found))


def check_versions(changes: list[Change], base: Base, head: Head) -> Iterator[Problem]:
    """PRQ200 (a changed item needs a higher version), PRQ201 (a published version never changes) and
    PRQ208 (a name that comes back continues above its published versions)."""
    for change in changes:
        item = head.items.get(change.name)
        if item is None or change.kind is Kind.DELETED or change.version is None or not is_version(change.version):
            continue  # a missing or invalid version is the schema's finding
        earlier = base.published.get((change.name, change.version), [])
        republished = earlier and all(p.content != behaviour(item.data) for p in earlier)
        suggestion = next_patch(change.name, change.version, base)
        if change.kind is Kind.MODIFIED and not change.docs_only and change.bump is None:
            if republished and change.version != change.base_version:
                yield at(item, ("version",), "PRQ201", name=change.name, version=change.version,
                          commit=earlier[0].commit[:10], suggestion=suggestion)  # fmt: skip
            else:
                keys = ", ".join(change.changed_keys)
                yield at(item, ("version",), "PRQ200", name=change.name, keys=keys, version=change.version,
                          base_version=change.base_version, suggestion=suggestion)  # fmt: skip
        elif republished:
            yield at(item, ("version",), "PRQ201", name=change.name, version=change.version,
                      commit=earlier[0].commit[:10], suggestion=suggestion)  # fmt: skip
        elif change.kind in (Kind.ADDED, Kind.RENAMED):
            yield from _below_published(change.name, change.version, item, base)


def _below_published(name: str, version: str, item: SourceItem, base: Base) -> Iterator[Problem]:
    """PRQ208: a name that comes back (added again, or renamed to) continues its published versions,
    so it needs a version above all of them; the highest one itself, unchanged, undoes a deletion."""
    seen = {v: found for (n, v), found in base.published.items() if n == name and is_version(v)}
    if not seen:
        return
    highest = sort_versions(list(seen))[-1]
    if version_key(version) > version_key(highest):
        return
    if version == highest and any(p.content == behaviour(item.data) for p in seen[highest]):
        return
    yield at(item, ("version",), "PRQ208", name=name, version=version, highest=highest,
              commit=seen[highest][0].commit[:10], suggestion=next_patch(name, version, base))  # fmt: skip


def check_removals(changes: list[Change], head: Head) -> Iterator[Problem]:
    """PRQ202 and PRQ203: nothing in the head may still require a deleted or renamed item."""
    for change in changes:
        if change.kind is Kind.DELETED:
            dependents = requirers(change.name, head)
            if dependents:
                yield problem("PRQ202", file=None, name=change.name, dependents=_names(dependents))
        elif change.kind is Kind.RENAMED and change.old_name is not None:
            dependents = requirers(change.old_name, head)
            if dependents:
                item = head.items[change.name]
                yield at(item, ("name",), "PRQ203", old=change.old_name, name=change.name,
                          dependents=_names(dependents))  # fmt: skip


def check_deprecations(changes: list[Change], base: Base, head: Head) -> Iterator[Problem]:
    """PRQ204: an item newly deprecated while items that are not deprecated still require it."""
    for change in changes:
        item = head.items.get(change.name)
        before = base.items.get(change.old_name or change.name)
        if item is None or not isinstance(item.data.get("deprecated"), dict):
            continue
        if before is not None and isinstance(before.data.get("deprecated"), dict):
            continue  # deprecated already: its dependents were told then (and PRQ144 still tells them)
        dependents = [n for n in requirers(change.name, head) if not _deprecated(n, head)]
        if dependents:
            replacement = item.data["deprecated"].get("replacement")
            fix = (
                f"move them to {replacement} before this is deleted"
                if isinstance(replacement, str)
                else "name a replacement (deprecated.replacement) and move them to it"
            )
            yield at(
                item, ("deprecated",), "PRQ204", on_key=True, name=change.name, dependents=_names(dependents), fix=fix
            )


def _deprecated(name: str, head: Head) -> bool:
    item = head.items.get(name)
    return item is not None and isinstance(item.data.get("deprecated"), dict)


def identities(author: str, owners: Owners) -> set[str]:
    """The users (never a team: a team is no one's identity) that ``author`` is.

    ``@login`` is a GitHub login and nothing else: the user owners.yaml gives that handle, or a user
    without a handle of that name (the only name owners.yaml gives them).  A bare ``NAME`` is that
    login too and, when no handle is that login, also owners.yaml's user ``NAME`` though they have a
    handle: at their own terminal a person names themselves as the file does.  A pull request's check
    gives the author's login with its '@' (the CLI does in GitHub Actions), so that a stranger whose
    login is a user's local name is never taken for that user."""
    login = author.removeprefix("@").casefold()
    users = owners.users - set(owners.teams)
    names = {name for name in users if owners.github.get(name, "").removeprefix("@").casefold() == login}
    local = author.removeprefix("@")
    if local in users and (local not in owners.github or not (names or author.startswith("@"))):
        names.add(local)
    return names


def identity_note(author: str, owners: Owners) -> str | None:
    """What the review says of ``author`` when it is not plainly a login owners.yaml maps: a local name
    taken for a user who has a handle, or a name that is no one."""
    names = identities(author, owners)
    login = author.removeprefix("@")
    if not names:
        return (
            f"--author {author} is no user of owners.yaml: neither a user's name nor a login its github: maps "
            f'(map it: USER: "@{login}")'
        )
    handle = owners.github.get(login, "").removeprefix("@")
    if login in names and handle and handle.casefold() != login.casefold():
        return (
            f"--author {author} is taken as owners.yaml's user {login}, whose GitHub login is "
            f"{handle}: a pull request's check gives that login"
        )
    return None


def author_fix(author: str, names: set[str], *, owners: str | None = None) -> str:
    """The hint of PRQ206, or of PRQ205 when ``owners`` (the item's, as shown) is given: the form
    owners: needs, which is owners.yaml's user for the author (never their login), or, when the file
    knows them by no name, the github: entry that makes the login theirs."""
    login = author.removeprefix("@")
    mapping = f'map the login in owners.yaml\'s github: (USER: "@{login}") and list USER among the owners'
    if owners is None:
        return f"add {' or '.join(sorted(names))} to the item's owners" if names else mapping
    ask = f"ask an owner ({owners}) to make or approve this change, or "
    if names:
        return ask + f"to add {' or '.join(sorted(names))} (or a team of theirs) to its owners in a change of its own"
    return ask + f"if {login} is theirs, {mapping}"


def owns(names: set[str], listed: Any, owners: Owners) -> bool:
    """Whether one of the users ``names`` is among the ``listed`` owners, or a member of a team listed
    there (a team counts only through its members)."""
    if not isinstance(listed, list):
        return False
    return any(owner in names or set(owners.teams.get(owner, [])) & names for owner in listed)


def combined_owners(base: Owners, head: Owners) -> Owners:
    """The base's and the head's owners together, the base's handle winning for a user both know: a
    pull request adds users with their handles, but cannot move a user's name to another login."""
    return Owners(
        users=base.users | head.users,
        teams={**head.teams, **base.teams},
        loaded=base.loaded or head.loaded,
        github={**head.github, **base.github},
    )


def check_ownership(changes: list[Change], base: Base, head: Head, *, author: str) -> Iterator[Problem]:
    """PRQ205 (changing what one does not own, as the base says who owns it) and PRQ206 (a new item
    that does not list its author)."""
    names = identities(author, combined_owners(base.registry.owners, head.owners))
    base_names = identities(author, base.registry.owners)
    for change in changes:
        item = head.items.get(change.name)
        if change.kind is Kind.ADDED:
            listed = item.data.get("owners") if item else None
            if item is not None and not (isinstance(listed, list) and names & set(listed)):
                fix = author_fix(author, names)
                yield at(item, ("owners",), "PRQ206", what="item", name=change.name, author=author, fix=fix)
            continue
        before = base.items.get(change.old_name or change.name)
        if before is None:
            continue
        listed = before.data.get("owners")
        if not owns(base_names, listed, base.registry.owners):
            shown = ", ".join(str(o) for o in listed) if isinstance(listed, list) else "none"
            fix = author_fix(author, base_names, owners=shown)
            if item is None:
                yield problem("PRQ205", file=None, author=author, name=change.name, owners=shown, fix=fix)
            else:
                yield at(item, ("owners",), "PRQ205", author=author, name=change.name, owners=shown, fix=fix)


def review_problems(changes: list[Change], base: Base, head: Head, *, author: str | None) -> list[Problem]:
    """Every review rule's findings over the item changes (job templates have no versions or owners)."""
    changes = [c for c in changes if c.what == "item"]
    found = [
        *check_versions(changes, base, head),
        *check_removals(changes, head),
        *check_deprecations(changes, base, head),
        *(check_ownership(changes, base, head, author=author) if author else ()),
    ]
    return sorted(set(found), key=Problem.sort_key)
