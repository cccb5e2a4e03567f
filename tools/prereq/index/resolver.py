"""Choosing versions: one version per item for a set of requests, requirements first.

Used by the index (each published version's closure) and by job editing (a
job's selections), so both put the same versions in the same order: a
requirement shared by several items gets the highest version that meets every
range (npm semantics), a lock keeps a version while it still fits, and the
order is depth-first post-order following each ``require`` list as written.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from prereq.core.graph import post_order
from prereq.core.versions import Requirement, satisfies

SELECTION = "your selection"


class NoVersionFits(Exception):
    """No version fits; ``message`` and ``hint`` say which ranges and what exists."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


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
        return [other for other in self.order if any(r.name == name for r in self.requires.get(other, []))]


def choose_versions(
    requests: list[Requirement],
    *,
    versions_of: Callable[[str], list[str]],
    requires_of: Callable[[str, str], list[Requirement]],
    locked: Mapping[str, str] | None = None,
) -> VersionChoice:
    """Pick one version per item reachable from ``requests``.

    ``versions_of(name)`` lists published versions in ascending order;
    ``requires_of(name, version)`` gives that version's requirements."""
    chosen: dict[str, str] = {}

    def required(name: str) -> list[Requirement]:
        return requires_of(name, chosen[name]) if name in chosen else []

    for _ in range(100):  # each round only raises constraints; real registries settle in a few
        constraints: dict[str, list[tuple[str | None, str]]] = {}
        for request in requests:
            constraints.setdefault(request.name, []).append((request.range, SELECTION))
        for name in post_order([r.name for r in requests], lambda n: [r.name for r in required(n)]):
            for requirement in required(name):
                constraints.setdefault(requirement.name, []).append((requirement.range, f"{name} {chosen[name]}"))
        picked = {
            name: _pick(name, ranges, versions_of(name), (locked or {}).get(name))
            for name, ranges in constraints.items()
        }
        if picked == chosen:
            break
        chosen = picked
    order = post_order([r.name for r in requests], lambda n: [r.name for r in required(n)])
    return VersionChoice(order=order, versions={n: chosen[n] for n in order}, requires={n: required(n) for n in order})


def _pick(name: str, ranges: list[tuple[str | None, str]], versions: list[str], locked: str | None) -> str:
    fitting = [v for v in versions if all(satisfies(v, spec) for spec, _ in ranges)]
    if locked is not None and locked in fitting:
        return locked
    if fitting:
        return fitting[-1]
    for index, (first, first_by) in enumerate(ranges):
        for second, second_by in ranges[index + 1 :]:
            if not any(satisfies(v, first) and satisfies(v, second) for v in versions):
                raise NoVersionFits(
                    f"no version of {name} meets both {first_by} ({name}@{first or '*'}) and "
                    f"{second_by} ({name}@{second or '*'})",
                    hint=f"published versions of {name}: {', '.join(versions)}; relax one of the ranges",
                )
    spec, by = ranges[0]
    raise NoVersionFits(
        f"no published version of {name} meets {name}@{spec or '*'} ({by})",
        hint=f"published versions: {', '.join(versions) or 'none'}",
    )
