"""What a user may use: rights over groups (issue 15's three users), reputation, and the queues offered
for a block, through the library and ``prereq rights`` / ``prereq queues``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from execution_helpers import environment, library, queue, write_catalog
from prereq import cli
from prereq.core.errors import PrereqError
from prereq.execution.catalog_records import Ref
from prereq.execution.catalog_validation import open_catalog
from prereq.execution.rights import offered_queues, user_groups, user_rights, with_reputation


@pytest.fixture
def catalog(tmp_path: Path):
    return open_catalog(write_catalog(tmp_path / "registry"))


def _rights(catalog, groups: list[str], reputation: int = 100) -> list[tuple[str, int, int]]:
    return [(r.queue, r.slots, r.priority) for r in user_rights(catalog[0], groups, reputation=reputation)]


@pytest.mark.parametrize(
    ("groups", "expected"),
    [
        (["default"], ("q1", 2, 0)),
        (["default", "super"], ("q1", 3, 1)),
        (["default", "special"], ("q1", 2, 1)),
    ],
    ids=["default", "default+super", "default+special"],
)
def test_the_three_users_of_the_issue(catalog, groups: list[str], expected: tuple[str, int, int]) -> None:
    """Over the groups, the most slots and, separately, the highest priority."""
    assert _rights(catalog, groups) == [expected]


def test_a_users_groups_come_from_owners_teams_and_rights_groups(catalog) -> None:
    found, owners = catalog
    assert user_groups("carol", owners, found) == ["default", "super"]
    assert user_groups("bob", owners, found) == ["default", "special"]
    with pytest.raises(PrereqError, match=r"'zoe' is not a user of owners\.yaml"):
        user_groups("zoe", owners, found)


@pytest.mark.parametrize(
    ("groups", "reputation", "slots"),
    [
        (["default"], 50, 1),  # 2 x 0.5
        (["default"], 100, 2),
        (["default"], 200, 4),  # 2 x 2, the queue's total exactly
        (["default", "super"], 200, 4),  # 3 x 2 = 6, capped at the queue's 4
        (["special"], 50, 1),  # 1 x 0.5 rounds down to 0, but a user with a slot keeps one
        (["special"], 0, 1),
    ],
)
def test_reputation_multiplies_rounds_down_caps_and_never_takes_access_away(
    catalog, groups: list[str], reputation: int, slots: int
) -> None:
    assert [r[1] for r in _rights(catalog, groups, reputation)] == [slots]


def test_reputation_rules_alone() -> None:
    assert with_reputation(0, 500, 10) == 0  # no right is no right, whatever the reputation
    assert with_reputation(3, 150, 10) == 4  # 4.5 rounds down
    assert with_reputation(5, 300, 10) == 10


def test_a_negative_reputation_is_refused(catalog) -> None:
    with pytest.raises(PrereqError, match="reputation -1 is negative"):
        user_rights(catalog[0], ["default"], reputation=-1)


def _chain(tmp_path: Path):
    """q1 serves py 1.0.0 and 1.1.0; top -> mid -> deep, and deep works only in 1.1.0."""
    files = {
        "environments/py/1.1.0.yaml": environment(version="1.1.0"),
        "queues/q1.yaml": queue(envs="[py@1.0.0, py@1.1.0]"),
        "queues/q2.yaml": queue("q2", envs="[py@1.0.0, py@1.1.0]", per_machine=1),
        "libraries/top/1.0.0.yaml": library("top", envs="[py@1.0.0, py@1.1.0]", depends="[mid@1.0.0]"),
        "libraries/mid/1.0.0.yaml": library("mid", envs="[py@1.0.0, py@1.1.0]", depends="[deep@1.0.0]"),
        "libraries/deep/1.0.0.yaml": library("deep", envs="[py@1.1.0]"),
        "rights.yaml": "rights:\n  - {queue: q1, group: default, slots: 3, priority: 0}\n"
        "  - {queue: q2, group: super, slots: 2, priority: 2}\n",
    }
    return open_catalog(write_catalog(tmp_path / "registry", files))[0]


def test_a_library_deep_in_a_chain_removes_the_queue_and_is_named_with_its_chain(tmp_path: Path) -> None:
    found = _chain(tmp_path)
    rights = user_rights(found, ["default", "super"])
    offers, refusals = offered_queues(found, rights, env=Ref("py", "1.0.0"), libraries=[Ref("top", "1.0.0")])
    assert offers == []
    reason = "library deep@1.0.0 (used through top@1.0.0 -> mid@1.0.0 -> deep@1.0.0) does not work in py@1.0.0"
    assert {r.queue: r.reason for r in refusals} == dict.fromkeys(("q1", "q2"), reason)
    offers, refusals = offered_queues(found, rights, env=Ref("py", "1.1.0"), libraries=[Ref("top", "1.0.0")])
    assert [(o.queue, o.max_slots, o.priority) for o in offers] == [("q1", 2, 0), ("q2", 1, 2)]  # one machine's slots
    assert refusals == []


def test_queues_without_a_slot_or_not_serving_the_environment_are_not_offered(tmp_path: Path) -> None:
    found = _chain(tmp_path)
    offers, refusals = offered_queues(found, user_rights(found, ["default"]), env=Ref("py", "1.1.0"))
    assert [o.queue for o in offers] == ["q1"]
    assert [(r.queue, r.reason) for r in refusals] == [("q2", "none of these groups has a slot on it")]
    with pytest.raises(PrereqError, match=r"no environment py@9\.0\.0 in the catalog"):
        offered_queues(found, [], env=Ref("py", "9.0.0"))
    with pytest.raises(PrereqError, match=r"no library top@2\.0\.0"):
        offered_queues(found, [], env=Ref("py", "1.1.0"), libraries=[Ref("top", "2.0.0")])


def test_prereq_rights_and_queues(tmp_path: Path, capsys) -> None:
    registry = write_catalog(tmp_path / "registry")
    assert cli.main(["rights", "--registry", str(registry), "--user", "carol", "--format", "json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["groups"] == ["default", "super"]
    assert [(r["queue"], r["slots"], r["priority"], r["groups"]) for r in shown["rights"]] == [
        ("q1", 3, 1, ["default", "super"])
    ]
    assert cli.main(["rights", "--registry", str(registry), "--groups", "special", "--reputation", "50"]) == 0
    assert "q1                 1 slot(s), priority 1" in capsys.readouterr().out
    code = cli.main(["queues", "--registry", str(registry), "--groups", "default", "--environment", "py@1.0.0"])
    assert code == 0
    assert "q1               up to 2 slot(s), priority 0" in capsys.readouterr().out


def test_a_catalog_with_errors_is_refused_with_where_to_look(tmp_path: Path, capsys) -> None:
    registry = write_catalog(tmp_path / "registry", {"queues/q1.yaml": queue(per_machine=8)})
    assert cli.main(["rights", "--registry", str(registry)]) == 1
    err = capsys.readouterr().err
    assert "has 1 error(s), the first at queues/q1.yaml:6: 8 slots per machine" in err
    assert "hint: run 'prereq validate" in err
    (tmp_path / "empty").mkdir()
    assert cli.main(["rights", "--registry", str(tmp_path / "empty")]) == 2  # not a registry
    assert "no registry found at" in capsys.readouterr().err
