"""The plain version choice settles on chains of any real depth (it stopped after 100 rounds, one a
level, and the build then failed with a KeyError), and says so when requirements never settle; locks
that all fit are taken in one pass, as the plain choice would keep them.  tests/js/resolver.test.js
runs the same chains against the composer's index/resolver.js."""

from __future__ import annotations

import pytest

from prereq.core.errors import PrereqError
from prereq.core.versions import Requirement
from prereq.index import resolver


def _chain(depth: int) -> tuple[dict[str, list[str]], dict[tuple[str, str], list[Requirement]]]:
    versions = {f"n{i}": ["1.0.0", "1.1.0"] for i in range(depth)}
    requires = {
        (f"n{i}", v): [Requirement.parse(f"n{i + 1}@^1.0")] if i + 1 < depth else []
        for i in range(depth)
        for v in versions[f"n{i}"]
    }
    return versions, requires


@pytest.mark.parametrize("depth", [1, 99, 101, 300])
def test_a_chain_of_any_depth_is_chosen_whole(depth: int) -> None:
    versions, requires = _chain(depth)
    choice = resolver.choose_versions(
        [Requirement.parse("n0")], versions_of=versions.__getitem__, requires_of=lambda n, v: requires[(n, v)]
    )
    assert len(choice.order) == depth and choice.order[0] == f"n{depth - 1}" and choice.order[-1] == "n0"
    assert set(choice.versions.values()) == {"1.1.0"}


def test_requirements_that_never_settle_are_said(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(resolver, "PLAIN_ROUNDS", 5)
    versions, requires = _chain(10)
    with pytest.raises(resolver.NoVersionFits, match="did not settle in 5 rounds"):
        resolver.choose_versions(
            [Requirement.parse("n0")], versions_of=versions.__getitem__, requires_of=lambda n, v: requires[(n, v)]
        )


def _counted(requires: dict[tuple[str, str], list[Requirement]], reads: list[str]):
    def requires_of(name: str, version: str) -> list[Requirement]:
        reads.append(name)
        return requires[(name, version)]

    return requires_of


@pytest.mark.parametrize(
    ("locked", "expected", "one_pass"),
    [
        ({f"n{i}": "1.0.0" for i in range(60)}, "1.0.0", True),  # every lock fits: kept, in one pass
        ({f"n{i}": "1.0.0" for i in range(59)}, None, False),  # the last item unlocked: the plain choice
        ({**{f"n{i}": "1.0.0" for i in range(60)}, "n30": "2.0.0"}, None, False),  # a lock not published
    ],
)
def test_locks_that_all_fit_are_taken_in_one_pass_as_the_plain_choice_keeps_them(
    locked: dict[str, str], expected: str | None, one_pass: bool
) -> None:
    """A job's edit reads its closure with its lock: a chain 60 deep read once an item, not once a level."""
    versions, requires = _chain(60)
    reads: list[str] = []
    listed: list[str] = []
    top = [Requirement.parse("n0")]

    def versions_of(name: str) -> list[str]:
        listed.append(name)
        return versions[name]

    choice = resolver.choose_versions(
        top, versions_of=versions_of, requires_of=_counted(requires, reads), locked=locked
    )
    plain = resolver._plain(top, versions.__getitem__, lambda n, v: requires[(n, v)], locked)
    assert choice.versions == plain
    if expected is not None:
        assert set(choice.versions.values()) == {expected}
    assert (max(reads.count(name) for name in set(reads)) <= 4) == one_pass  # the plain choice: one a round
    if one_pass:  # an item's versions are listed once, however often its lock is tested
        assert sorted(listed) == sorted(versions)


def test_a_name_the_index_has_not_leaves_the_locks_to_the_plain_choice() -> None:
    """An index's reader refuses a name it lacks (an item that requires one it does not publish, a lock of
    an older closure): the plain choice, which may never ask for it, says what it said before."""
    versions = {"alpha": ["1.0.0", "2.0.0"], "store": ["1.1.0", "2.0.0"]}
    requires = {("alpha", "1.0.0"): [Requirement.parse("store@^1")], ("alpha", "2.0.0"): [Requirement.parse("ghost")]}
    requires |= {("store", v): [] for v in versions["store"]}

    def versions_of(name: str) -> list[str]:
        if name not in versions:
            raise PrereqError(f"no prerequisite named '{name}' in the index")
        return versions[name]

    def choose(requests: list[str], locked: dict[str, str]) -> dict[str, str]:
        wanted = [Requirement.parse(r) for r in requests]
        return resolver.choose_versions(
            wanted, versions_of=versions_of, requires_of=lambda n, v: requires[(n, v)], locked=locked
        ).versions

    locked = {"alpha": "2.0.0", "store": "2.0.0", "ghost": "1.0.0"}
    assert choose(["alpha@^1"], locked) == {"store": "1.1.0", "alpha": "1.0.0"}
    assert choose(["alpha"], {"alpha": "1.0.0", "store": "1.1.0"}) == {"store": "1.1.0", "alpha": "1.0.0"}
    with pytest.raises(resolver.NoVersionFits, match=r"no published version of alpha meets alpha@\^9 \(your sel"):
        choose(["alpha@^9", "ghost"], {})


def test_a_version_that_requires_its_own_item_takes_only_a_range_it_meets_itself() -> None:
    """A search (the plain choice found no n0 for n2 1.1.0): n2 2.0.0 asks for n2@^1.0.0, which it does
    not meet.  Given that requirement on itself, resolvelib recursed without end (a RecursionError: a
    traceback from a hostile index); resolver.js's search, like this one now, gives n2 1.0.0."""
    versions = {"n0": [], "n1": ["1.0.0"], "n2": ["1.0.0", "1.1.0", "2.0.0"]}
    requires = {
        ("n1", "1.0.0"): [Requirement.parse("n1@<1.1.0")],
        ("n2", "1.0.0"): [],
        ("n2", "1.1.0"): [Requirement.parse("n0@~1.0.0")],
        ("n2", "2.0.0"): [Requirement.parse("n1@<1.1.0"), Requirement.parse("n2@^1.0.0")],
    }
    choice = resolver.choose_versions(
        [Requirement.parse("n2")], versions_of=versions.__getitem__, requires_of=lambda n, v: requires[(n, v)]
    )
    assert choice.versions == {"n2": "1.0.0"}


class _CountingDict(dict):  # type: ignore[type-arg]
    """A dict that counts its lookups."""

    looked = 0

    def get(self, *args: object) -> object:
        type(self).looked += 1
        return super().get(*args)


def test_every_item_s_pulled_by_is_read_in_one_pass_over_the_order() -> None:
    """A closure asks pulled_by of every member: each scanning the whole order made a 150-item
    ``job add`` quadratic.  The items that require a name are as before: in order, each once."""
    versions, requires = _chain(300)
    requires[("n5", "1.1.0")] = [Requirement.parse("n6@^1.0"), Requirement.parse("n6@>=1.0.0"), Requirement.parse("n9")]
    choice = resolver.choose_versions(
        [Requirement.parse("n0"), Requirement.parse("n7")],
        versions_of=versions.__getitem__,
        requires_of=lambda n, v: requires[(n, v)],
    )
    counted = resolver.VersionChoice(choice.order, choice.versions, _CountingDict(choice.requires))
    pulled = {name: counted.pulled_by(name) for name in counted.order}
    assert _CountingDict.looked <= len(counted.order)
    assert pulled["n6"] == ["n5"] and pulled["n9"] == ["n8", "n5"] and pulled["n7"] == ["n6"] and pulled["n0"] == []
    expected = {
        name: [o for o in choice.order if any(r.name == name for r in choice.requires[o])] for name in choice.order
    }
    assert pulled == expected
