"""Choosing versions: one version per item for a set of requests, requirements first.

Used by the index (each published version's closure) and by job editing (a
job's selections), so both put the same versions in the same order: a
requirement shared by several items gets the highest version that meets every
range (npm semantics), a lock keeps a version while it still fits, and the
order is depth-first post-order following each ``require`` list as written.

When every item the requests reach through the locks is locked to a published
version that meets every range asking for it, the locks are what the plain
choice would settle on, and they are taken in one pass, not in one round a level
(a job's edit reads its closure with its lock two or three times).

That plain choice needs no search and settles almost every case.  When it finds
no version meeting two ranges, older versions of the items asking for them may
still fit (A 1.0 and B 1.0 both take C@^1 where B 1.1 takes C@^2), and every
version stays published forever, so resolvelib searches with backtracking: items
in a fixed order (the requests first, as given, then the others by name), each
version newest first (the lock first).  The composer's index/resolver.js
searches the same way.  Only when no choice at all fits is the plain choice's
conflict reported, with the chain of ranges that led to each side.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import Any

import resolvelib

from prereq.core.errors import PrereqError
from prereq.core.graph import post_order
from prereq.core.versions import Requirement, satisfies

SELECTION = "your selection"
MAX_ROUNDS = 10_000  # resolvelib's rounds (one pin each) before a search counts as too deep
PLAIN_ROUNDS = 10_000  # rounds of the plain choice: one per level of the deepest chain of requirements
Constraints = dict[str, list[tuple[str | None, str]]]  # name -> (range, who asks), in the order they were met


class NoVersionFits(Exception):
    """No version fits; ``message`` and ``hint`` say which ranges and what exists."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.sides: list[tuple[str, str | None, str]] = []  # (name, range, who asks) of each range in conflict


@dataclass(frozen=True)
class VersionChoice:
    order: list[str]  # names, each once, requirements before what needs them
    versions: dict[str, str]
    requires: dict[str, list[Requirement]] = field(default_factory=dict)  # of each chosen version, as written

    @property
    def has_cycle(self) -> bool:
        """True when an item requires itself through others (post-order cannot put it after them)."""
        position = {name: index for index, name in enumerate(self.order)}
        return any(position[r.name] >= position[name] for name in self.order for r in self.requires[name])

    def pulled_by(self, name: str) -> list[str]:
        """The items of the resolution that require ``name``, in order."""
        return list(self._pulled.get(name, ()))

    @cached_property
    def _pulled(self) -> dict[str, list[str]]:
        """Each name's ``pulled_by``, in one pass over the order (asked of every name, a scan each was
        quadratic: 40 ms of a 150-item ``job add``)."""
        pulled: dict[str, list[str]] = {}
        for other in self.order:
            for needed in dict.fromkeys(r.name for r in self.requires.get(other, [])):
                pulled.setdefault(needed, []).append(other)
        return pulled


def choose_versions(
    requests: list[Requirement],
    *,
    versions_of: Callable[[str], list[str]],
    requires_of: Callable[[str, str], list[Requirement]],
    locked: Mapping[str, str] | None = None,
) -> VersionChoice:
    """Pick one version per item reachable from ``requests``: the plain choice, else a backtracking search.

    ``versions_of(name)`` lists published versions in ascending order;
    ``requires_of(name, version)`` gives that version's requirements."""
    try:
        chosen = _locks_that_fit(requests, versions_of, requires_of, locked or {})
        if chosen is None:
            chosen = _plain(requests, versions_of, requires_of, locked or {})
    except _Conflict as conflict:
        if all(by == SELECTION for _, _, by in conflict.error.sides):
            raise conflict.error from None  # ranges the selection itself asks for: no other version helps
        chosen = _search(requests, versions_of, requires_of, locked or {}, conflict)

    def required(name: str) -> list[Requirement]:
        return requires_of(name, chosen[name]) if name in chosen else []

    order = post_order([r.name for r in requests], lambda n: [r.name for r in required(n)])
    return VersionChoice(order=order, versions={n: chosen[n] for n in order}, requires={n: required(n) for n in order})


def _locks_that_fit(
    requests: list[Requirement],
    versions_of: Callable[[str], list[str]],
    requires_of: Callable[[str, str], list[Requirement]],
    locked: Mapping[str, str],
) -> dict[str, str] | None:
    """The locked versions of every item the requests reach through them, when each is published and
    meets every range asking for it (the plain choice then keeps each lock in every round); else None,
    also when a name is not in the index: the plain choice says what is wrong, as it did before."""
    ranges: dict[str, list[str | None]] = {}
    for request in requests:
        ranges.setdefault(request.name, []).append(request.range)

    @cache  # asked once while walking and again in the final test: read versions_of once
    def fits(name: str) -> bool:
        return name in locked and locked[name] in versions_of(name)

    def required(name: str) -> list[str]:
        needs = requires_of(name, locked[name]) if fits(name) else []
        for requirement in needs:
            ranges.setdefault(requirement.name, []).append(requirement.range)
        return [r.name for r in needs]

    try:
        reached = post_order([r.name for r in requests], required)
        if all(fits(n) and all(satisfies(locked[n], spec) for spec in ranges[n]) for n in reached):
            return {name: locked[name] for name in reached}
    except PrereqError:  # an index's reader refuses a name it does not have
        pass
    return None


def _plain(
    requests: list[Requirement],
    versions_of: Callable[[str], list[str]],
    requires_of: Callable[[str, str], list[Requirement]],
    locked: Mapping[str, str],
) -> dict[str, str]:
    """The highest version meeting every range of the versions chosen so far, until nothing moves."""
    chosen: dict[str, str] = {}

    def required(name: str) -> list[Requirement]:
        return requires_of(name, chosen[name]) if name in chosen else []

    # Each round only raises constraints and reaches one level deeper: a chain N deep takes N rounds.
    for _ in range(PLAIN_ROUNDS):
        constraints: dict[str, list[tuple[str | None, str]]] = {}
        for request in requests:
            constraints.setdefault(request.name, []).append((request.range, SELECTION))
        for name in post_order([r.name for r in requests], lambda n: [r.name for r in required(n)]):
            for requirement in required(name):
                constraints.setdefault(requirement.name, []).append((requirement.range, f"{name} {chosen[name]}"))
        picked = {}
        for name, ranges in constraints.items():
            try:
                picked[name] = _pick(name, ranges, versions_of(name), locked.get(name))
            except NoVersionFits as exc:
                raise _Conflict(exc, constraints) from None
        if picked == chosen:
            break
        chosen = picked
    else:
        raise NoVersionFits(
            f"the versions did not settle in {PLAIN_ROUNDS:,} rounds (requirements more than {PLAIN_ROUNDS:,} deep?)",
            hint="shorten the chain of requirements",
        )
    return chosen


class _Conflict(Exception):
    """The plain choice's failure: what it would report, and the ranges it had met (for the chains)."""

    def __init__(self, error: NoVersionFits, constraints: Constraints) -> None:
        super().__init__(error.message)
        self.error = error
        self.constraints = constraints


def _pick(name: str, ranges: list[tuple[str | None, str]], versions: list[str], locked: str | None) -> str:
    fitting = [v for v in versions if all(satisfies(v, spec) for spec, _ in ranges)]
    if locked is not None and locked in fitting:
        return locked
    if fitting:
        return fitting[-1]
    for index, (first, first_by) in enumerate(ranges):
        for second, second_by in ranges[index + 1 :]:
            if not any(satisfies(v, first) and satisfies(v, second) for v in versions):
                error = NoVersionFits(
                    f"no version of {name} meets both {first_by} ({name}@{first or '*'}) and "
                    f"{second_by} ({name}@{second or '*'})",
                    hint=f"published versions of {name}: {', '.join(versions)}; relax one of the ranges",
                )
                error.sides = [(name, first, first_by), (name, second, second_by)]
                raise error
    spec, by = ranges[0]
    error = NoVersionFits(
        f"no published version of {name} meets {name}@{spec or '*'} ({by})",
        hint=f"published versions: {', '.join(versions) or 'none'}",
    )
    error.sides = [(name, spec, by)]
    raise error


def chain(constraints: Constraints, name: str, spec: str | None, by: str) -> str:
    """How the plain choice came to ask for ``name@spec``: ``your selection -> A@* -> A 1.0 -> C@^1``."""
    steps = [f"{name}@{spec or '*'}"]
    seen = {name}
    while by != SELECTION:
        parent, version = by.rsplit(" ", 1)
        if parent not in constraints:
            break
        steps[:0] = [f"{parent}@{constraints[parent][0][0] or '*'}", f"{parent} {version}"]
        if parent in seen:
            break  # a cycle: the chain has said enough
        seen.add(parent)
        by = constraints[parent][0][1]
    return " -> ".join([SELECTION, *steps])


@dataclass(frozen=True)
class _Need:
    """A range of an item, and who asks for it (resolvelib's requirement)."""

    name: str
    range: str | None


class _Provider(resolvelib.AbstractProvider):
    """resolvelib's questions, answered from the index: items in a fixed order, versions newest first."""

    def __init__(
        self,
        requests: Sequence[Requirement],
        versions_of: Callable[[str], list[str]],
        requires_of: Callable[[str, str], list[Requirement]],
        locked: Mapping[str, str],
    ) -> None:
        self.order = {r.name: i for i, r in reversed(list(enumerate(requests)))}
        self.versions_of, self.requires_of, self.locked = versions_of, requires_of, locked

    def identify(self, requirement_or_candidate: Any) -> str:
        return str(
            requirement_or_candidate[0]
            if isinstance(requirement_or_candidate, tuple)
            else requirement_or_candidate.name
        )

    def get_preference(self, identifier: str, *_: Any, **__: Any) -> tuple[int, int, str]:
        return (0, self.order[identifier], "") if identifier in self.order else (1, 0, identifier)

    def find_matches(
        self,
        identifier: str,
        requirements: Mapping[str, Iterator[_Need]],
        incompatibilities: Mapping[str, Iterator[Any]],
    ) -> list[tuple[str, str]]:
        ranges = [need.range for need in requirements[identifier]]
        refused = {candidate[1] for candidate in incompatibilities[identifier]}
        fitting = [v for v in reversed(self.versions_of(identifier)) if v not in refused]
        fitting = [v for v in fitting if all(satisfies(v, s) for s in ranges) and self._fits_itself(identifier, v)]
        lock = self.locked.get(identifier)
        if lock in fitting:
            fitting.remove(lock)
            fitting.insert(0, lock)
        return [(identifier, v) for v in fitting]

    def is_satisfied_by(self, requirement: _Need, candidate: tuple[str, str]) -> bool:
        return satisfies(candidate[1], requirement.range)

    def _fits_itself(self, name: str, version: str) -> bool:
        """A version that requires its own item takes only a range it meets itself (resolver.js's search
        checks each pinned version against every range); resolvelib is not given that requirement, whose
        parent would be itself (its route to the root recursed without end)."""
        return all(satisfies(version, r.range) for r in self.requires_of(name, version) if r.name == name)

    def get_dependencies(self, candidate: tuple[str, str]) -> Iterable[_Need]:
        return [_Need(r.name, r.range) for r in self.requires_of(*candidate) if r.name != candidate[0]]


def _search(
    requests: list[Requirement],
    versions_of: Callable[[str], list[str]],
    requires_of: Callable[[str, str], list[Requirement]],
    locked: Mapping[str, str],
    conflict: _Conflict,
) -> dict[str, str]:
    """resolvelib's backtracking search; when nothing fits, the plain choice's conflict with its chains."""
    provider = _Provider(requests, versions_of, requires_of, locked)
    try:
        result = resolvelib.Resolver(provider, resolvelib.BaseReporter()).resolve(
            [_Need(r.name, r.range) for r in requests], max_rounds=MAX_ROUNDS
        )
    except resolvelib.ResolutionTooDeep:
        raise NoVersionFits(
            conflict.error.message + f" (no other choice found within {MAX_ROUNDS} steps)", hint=conflict.error.hint
        ) from None
    except resolvelib.ResolutionImpossible:
        chains = [chain(conflict.constraints, *side) for side in conflict.error.sides]
        raise NoVersionFits(
            conflict.error.message + ", and no other versions fit: " + "; ".join(chains), hint=conflict.error.hint
        ) from None
    return {name: candidate[1] for name, candidate in result.mapping.items()}
