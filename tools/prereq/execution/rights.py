"""What a user may use: rights over groups, reputation, and the queues offered for a block.

BEAT's public code has neither group rights nor reputation, so they are defined here:

- a user's right on a queue is, over all the user's groups, the most slots and, separately, the
  highest priority (rows ``Q1 default 2 0`` and ``Q1 special 1 1`` give a user of both 2 slots at
  priority 1);
- reputation is a percentage multiplying the slots (100 is x1, 200 is x2), rounded down and capped at
  the queue's total slots; it never takes access away: a user with a slot keeps at least one;
- a queue is offered for a block when the user has a slot on it, it serves the block's environment
  and every library the block uses, with all they depend on, works in that environment; a block takes
  up to the user's slots and the queue's slots per machine (a block runs on one machine)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from prereq.core.errors import PrereqError
from prereq.core.graph import post_order
from prereq.execution.catalog_records import FULL_REPUTATION, Catalog, Library, Queue, Ref
from prereq.registry.loader import Owners


@dataclass(frozen=True)
class QueueRight:
    """A user's right on one queue."""

    queue: str
    slots: int  # with reputation
    priority: int
    group_slots: int  # before reputation: the most any of the user's groups gives
    groups: tuple[str, ...]  # the user's groups with a row for this queue


@dataclass(frozen=True)
class Offer:
    """A queue offered for a block, and how many slots the block may take there."""

    queue: str
    title: str
    max_slots: int
    priority: int


@dataclass(frozen=True)
class Refusal:
    """A queue not offered for a block, and why."""

    queue: str
    title: str
    reason: str


def user_groups(user: str, owners: Owners, catalog: Catalog) -> list[str]:
    """The groups ``user`` is in: owners.yaml's teams, then rights.yaml's groups ('*': everyone)."""
    if user not in owners.users:
        raise PrereqError(f"{user!r} is not a user of owners.yaml", hint="pass a name listed under users: there")
    groups = [team for team, members in owners.teams.items() if user in members]
    groups += [name for name, members in catalog.groups.items() if members is None or user in members]
    return sorted(set(groups))


def groups_of(catalog: Catalog, owners: Owners, *, user: str | None, groups: str | None) -> list[str]:
    """Whose rights: ``groups`` as given (``A,B``), else the groups of ``user``; one of them is needed."""
    if groups:
        return sorted({group.strip() for group in groups.split(",") if group.strip()})
    if user:
        return user_groups(user, owners, catalog)
    raise PrereqError("say whose rights: --user NAME or --groups A,B", hint="e.g. --groups default,super")


def with_reputation(slots: int, reputation: int, total: int) -> int:
    """``slots`` times ``reputation`` percent, rounded down, at most ``total``, and at least 1 when
    ``slots`` is (reputation never takes access away)."""
    if slots < 1:
        return 0
    return max(1, min(slots * reputation // FULL_REPUTATION, total))


def combine(
    rows: Iterable[tuple[str, str, int, int]], groups: Iterable[str]
) -> dict[str, tuple[int, int, tuple[str, ...]]]:
    """Over the rows ``(queue, group, slots, priority)`` of ``groups``: for each queue, the most slots,
    separately the highest priority, and the groups with a row there (the site reads the rows from the
    published index, the commands from the catalog: one rule for both)."""
    chosen = set(groups)
    found: dict[str, tuple[int, int, tuple[str, ...]]] = {}
    for queue, group, slots, priority in rows:
        if group not in chosen:
            continue
        most, highest, given = found.get(queue, (0, 0, ()))
        found[queue] = (max(most, slots), max(highest, priority), tuple(sorted({*given, group})))
    return dict(sorted(found.items()))


def user_rights(catalog: Catalog, groups: Iterable[str], *, reputation: int = FULL_REPUTATION) -> list[QueueRight]:
    """The rights of a user in ``groups`` on every queue they have a slot on, by queue name."""
    if reputation < 0:
        raise PrereqError(f"reputation {reputation} is negative", hint="give a percentage: 100 is x1, 200 is x2")
    chosen = set(groups)
    rows = [(row.queue, row.group, row.slots, row.priority) for row in catalog.rights]
    rights: list[QueueRight] = []
    for name, (most, priority, given) in combine(rows, chosen).items():
        queue = catalog.queues.get(name)
        if queue is None:
            continue  # a row naming no queue is the catalog's problem (PRQ303)
        slots = with_reputation(most, reputation, queue.total_slots)
        if slots >= 1:
            rights.append(QueueRight(name, slots, priority, most, given))
    unknown = sorted(chosen - {row.group for row in catalog.rights} - set(catalog.groups))
    if unknown and not rights:
        raise PrereqError(
            f"no rights for the groups {', '.join(unknown)}: rights.yaml names none of them",
            hint="groups are the teams of owners.yaml and rights.yaml's groups; 'prereq rights' lists every row",
        )
    return rights


def library_closure(catalog: Catalog, libraries: Sequence[Ref]) -> list[Ref]:
    """``libraries`` and everything they depend on, dependencies first (each once)."""
    for ref in libraries:
        _library(catalog, ref)
    return post_order(list(libraries), lambda ref: catalog.libraries[ref].depends if ref in catalog.libraries else ())


def _library(catalog: Catalog, ref: Ref) -> Library:
    if ref not in catalog.libraries:
        versions = sorted(other.version for other in catalog.libraries if other.name == ref.name)
        hint = (
            f"published versions: {', '.join(versions)}" if versions else "'prereq queues --help' says how to list them"
        )
        raise PrereqError(f"no library {ref} in the catalog", hint=hint)
    return catalog.libraries[ref]


def environment(catalog: Catalog, ref: Ref) -> None:
    """Refuses an environment the catalog does not have, saying which versions it has."""
    if ref not in catalog.environments:
        versions = sorted(other.version for other in catalog.environments if other.name == ref.name)
        names = sorted({other.name for other in catalog.environments})
        hint = f"versions of {ref.name}: {', '.join(versions)}" if versions else f"environments: {', '.join(names)}"
        raise PrereqError(f"no environment {ref} in the catalog", hint=hint)


def _chains(catalog: Catalog, libraries: Sequence[Ref]) -> dict[Ref, tuple[Ref, ...]]:
    """For each library reachable from ``libraries``, the shortest chain of dependencies leading to it."""
    chains: dict[Ref, tuple[Ref, ...]] = {}
    layer: list[tuple[Ref, ...]] = [(ref,) for ref in libraries]
    while layer:
        following: list[tuple[Ref, ...]] = []
        for chain in layer:
            if chain[-1] in chains or chain[-1] not in catalog.libraries:
                continue
            chains[chain[-1]] = chain
            following += [(*chain, d) for d in catalog.libraries[chain[-1]].depends]
        layer = following
    return chains


def incompatible(catalog: Catalog, env: Ref, libraries: Sequence[Ref]) -> tuple[Ref, ...] | None:
    """The chain to the first library (closest to the block, then by name) that does not work in
    ``env``; None when all of them do."""
    chains = _chains(catalog, libraries)
    failing = [chain for ref, chain in chains.items() if env not in catalog.libraries[ref].environments]
    return min(failing, key=lambda chain: (len(chain), chain)) if failing else None


def offered_queues(
    catalog: Catalog, rights: Sequence[QueueRight], *, env: Ref, libraries: Sequence[Ref] = ()
) -> tuple[list[Offer], list[Refusal]]:
    """The queues offered for a block in ``env`` using ``libraries``, and every other queue with why not."""
    environment(catalog, env)
    library_closure(catalog, libraries)
    by_queue = {right.queue: right for right in rights}
    offers: list[Offer] = []
    refusals: list[Refusal] = []
    broken = incompatible(catalog, env, libraries)
    for name, queue in sorted(catalog.queues.items()):
        right = by_queue.get(name)
        reason = _refusal(queue, right, env, broken)
        if reason is not None:
            refusals.append(Refusal(name, queue.title, reason))
        elif right is not None:
            offers.append(Offer(name, queue.title, min(right.slots, queue.slots_per_machine), right.priority))
    return offers, refusals


def _refusal(queue: Queue, right: QueueRight | None, env: Ref, broken: tuple[Ref, ...] | None) -> str | None:
    if right is None:
        return "none of these groups has a slot on it"
    if env not in queue.environments:
        return f"it does not serve {env} (it serves {', '.join(str(r) for r in queue.environments)})"
    if broken is not None:
        through = f" (used through {' -> '.join(str(r) for r in broken)})" if len(broken) > 1 else ""
        return f"library {broken[-1]}{through} does not work in {env}"
    return None
