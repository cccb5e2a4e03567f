"""The plain version choice settles on chains of any real depth (it stopped after 100 rounds, one a
level, and the build then failed with a KeyError), and says so when requirements never settle.
tests/js/resolver.test.js runs the same chains against the composer's index/resolver.js."""

from __future__ import annotations

import pytest

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
