"""The review of a pull request that changes the execution catalog, in real repositories (a base branch
main and a pull-request branch pr): published versions of environments and libraries never come back
otherwise, nothing in use is deleted, owners decide (a rights row by its queue's), and the impact
report says which groups gain or lose slots on which queue."""

from __future__ import annotations

from pathlib import Path

from execution_helpers import IMAGE, OWNERS, TOOL, environment, library, queue
from prereq.review.markdown import impact_markdown
from prereq.review.review import review
from prereq.review.rules import ALL_RULES
from review_helpers import make_pr

RIGHTS = """\
rights:
  - {queue: q1, group: default, slots: 2, priority: 0}
  - {queue: q1, group: super, slots: 3, priority: 1}
"""
ADMINS = OWNERS + "admins: default\n"  # alice, bob and carol administer: the catalog is a trust file (PRQ210)
BASE = {
    "owners.yaml": ADMINS,
    "prerequisites/base-image.yaml": IMAGE,
    "prerequisites/tool-setup.yaml": TOOL,
    "environments/py/1.0.0.yaml": environment(),
    "libraries/lib-a/1.0.0.yaml": library("lib-a"),
    "libraries/lib-b/1.0.0.yaml": library("lib-b", depends="[lib-a@1.0.0]"),
    "queues/q1.yaml": queue(),
    "rights.yaml": RIGHTS,
}


def _review(tmp_path: Path, head: dict, *, author: str | None = None, after_branch: dict | None = None):
    repo = make_pr(tmp_path / "repo", BASE, head)
    if after_branch:  # main moves on after the pull request branched off
        repo.git("checkout", "-q", "main")
        for rel, text in after_branch.items():
            repo.write(f"registry/{rel}", text)
        repo.commit("main after the branch", date="2026-01-20T00:00:00+00:00")
        repo.git("checkout", "-q", "pr")
    return review(repo.root / "registry", base="main", author=author)


def _found(reviewed) -> list[tuple[str, str | None, int | None]]:
    return [(p.rule, p.file, p.line) for p in reviewed.review_problems]


def test_a_version_the_base_published_after_the_branch_point_never_comes_back_otherwise(tmp_path: Path) -> None:
    published = {"environments/py/1.1.0.yaml": environment(version="1.1.0")}
    other = environment(version="1.1.0").replace("3.11.9", "3.12.1")
    head = {"environments/py/1.1.0.yaml": other, "queues/q1.yaml": queue(envs="[py@1.0.0, py@1.1.0]")}
    reviewed = _review(tmp_path, head, after_branch=published)
    assert _found(reviewed) == [("PRQ201", "environments/py/1.1.0.yaml", 2)]
    message = reviewed.review_problems[0]
    assert message.message.startswith("environment py 1.1.0 was published before (commit ")
    assert message.hint == "choose a version never published, such as 1.1.1 (a new file environments/py/1.1.1.yaml)"
    assert not [p for p in reviewed.result.problems if p.rule == "PRQ314"]  # this branch's history never saw it


def test_a_changed_published_file_is_said_once_by_prq314(tmp_path: Path) -> None:
    files = "{files: [{path: a.py, uri: 'https://example.org/a.py'}]}"
    head = {"libraries/lib-a/1.0.0.yaml": library("lib-a", install=files).replace("Library lib-a", "Library A")}
    reviewed = _review(tmp_path, head)
    assert [p.rule for p in reviewed.result.problems if p.file == "libraries/lib-a/1.0.0.yaml"] == ["PRQ314"]
    assert _found(reviewed) == []
    assert [(c.kind.value, c.what, c.name) for c in reviewed.impact.catalog.changes] == [
        ("modified", "library", "lib-a@1.0.0")
    ]
    assert reviewed.impact.catalog.changes[0].changed_keys == ("title", "install")


def test_what_is_still_used_is_not_deleted(tmp_path: Path) -> None:
    head = {"libraries/lib-a/1.0.0.yaml": None, "queues/q2.yaml": queue("q2"), "environments/py/1.0.0.yaml": None}
    reviewed = _review(tmp_path, head)
    messages = sorted(p.message for p in reviewed.review_problems if p.rule == "PRQ316")
    assert messages == [
        "environment py@1.0.0 is deleted but still used by queue q1, queue q2, library lib-b@1.0.0",
        "library lib-a@1.0.0 is deleted but still used by library lib-b@1.0.0",
    ]
    queue_gone = _review(tmp_path / "q", {"queues/q1.yaml": None})
    assert [p.message for p in queue_gone.review_problems] == [
        "queue q1 is deleted but still used by the rights rows of default, super"
    ]
    assert queue_gone.review_problems[0].hint == (
        "keep q1 until nothing uses it: move the rights rows of default, super to another queue first"
    )
    assert {p.rule for p in queue_gone.result.problems} >= {"PRQ303", "PRQ316"}  # the head's validation too


def test_owners_decide_on_the_catalog_and_a_queues_owners_on_its_rights(tmp_path: Path) -> None:
    """Administrators all three (the catalog is a trust file): ownership still decides among them."""
    bigger = queue(total=8)
    more_slots = RIGHTS.replace("slots: 2", "slots: 4")
    newer = environment(version="1.1.0")
    new_queue = queue("q9", envs="[py@1.0.0]")
    head = {"queues/q1.yaml": bigger, "rights.yaml": more_slots, "environments/py/1.1.0.yaml": newer,
            "queues/q9.yaml": new_queue}  # fmt: skip
    by_bob = _review(tmp_path / "bob", head, author="bob")
    assert _found(by_bob) == [
        ("PRQ205", "environments/py/1.1.0.yaml", 8),
        ("PRQ205", "queues/q1.yaml", 10),
        ("PRQ206", "queues/q9.yaml", 10),
        ("PRQ205", "rights.yaml", 2),
    ]
    by_message = {p.file: p.message for p in by_bob.review_problems}
    assert by_message["rights.yaml"] == "bob is not among the owners of the rights on queue q1 (alice) on the base"
    assert by_message["environments/py/1.1.0.yaml"] == (
        "bob is not among the owners of environment py@1.1.0 (alice) on the base"
    )
    assert by_message["queues/q9.yaml"] == "the new queue q9 does not list its author bob among its owners"
    assert all(ALL_RULES[p.rule].severity is p.severity for p in by_bob.review_problems)
    assert _found(_review(tmp_path / "alice", head, author="alice")) == []


def test_the_impact_report_says_who_gains_or_loses_slots_where(tmp_path: Path) -> None:
    rights = """\
groups: {everyone: '*'}
rights:
  - {queue: q1, group: default, slots: 4, priority: 0}
  - {queue: q1, group: special, slots: 1, priority: 2}
  - {queue: q1, group: everyone, slots: 1, priority: 0}
"""
    owners = ADMINS.replace("special: [bob]", "special: [bob, carol]")
    reviewed = _review(tmp_path, {"rights.yaml": rights, "owners.yaml": owners})
    catalog = reviewed.impact.catalog
    assert [(r.queue, r.group, r.describe()) for r in catalog.rights] == [
        ("q1", "default", "gains 2 slot(s) (2 → 4)"),
        ("q1", "everyone", "gets 1 slot(s) at priority 0 (a new row)"),
        ("q1", "special", "gets 1 slot(s) at priority 2 (a new row)"),
        ("q1", "super", "loses its 3 slot(s) (the row is gone)"),
    ]
    assert [(m.group, m.joined, m.left) for m in catalog.memberships] == [
        ("everyone", ("alice", "bob", "carol"), ()),  # a new group: all of owners.yaml's users
        ("special", ("carol",), ()),
    ]
    assert not reviewed.impact.trivially_safe
    assert "group super loses its 3 slot(s) (the row is gone) on queue q1" in reviewed.impact.reasons
    assert "group special changes its members (queue rights with them): carol joins" in reviewed.impact.reasons
    outside = [reason for reason in reviewed.impact.reasons if "outside the item folder" in reason]
    assert outside and "rights.yaml" not in outside[0]  # a rule reads it (owners.yaml is named there)
    assert "trust file registry/owners.yaml: team special gains member carol" in reviewed.impact.reasons
    report = impact_markdown(reviewed)
    assert "### Execution catalog" in report and "Queue rights that change:" in report
    assert "| q1 | default | 2 slot(s), priority 0 | 4 slot(s), priority 0 | gains 2 slot(s) (2 → 4) |" in report
    assert "- group special: carol joins, nobody leaves (with its queue rights)" in report
    shown = reviewed.as_dict()["catalog"]["rights"][0]
    assert shown == {
        "queue": "q1",
        "group": "default",
        "before": {"slots": 2, "priority": 0},
        "after": {"slots": 4, "priority": 0},
        "change": "gains 2 slot(s) (2 → 4)",
    }


def test_catalog_changes_are_listed_and_never_trivially_safe(tmp_path: Path) -> None:
    head = {
        "environments/py/1.1.0.yaml": environment(version="1.1.0"),
        "queues/q1.yaml": queue(envs="[py@1.0.0, py@1.1.0]"),
    }
    reviewed = _review(tmp_path, head, author="alice")
    assert reviewed.review_problems == []
    changes = [(c.kind.value, c.what, c.name, c.changed_keys) for c in reviewed.impact.catalog.changes]
    assert changes == [("added", "environment", "py@1.1.0", ()), ("modified", "queue", "q1", ("environments",))]
    assert reviewed.impact.reasons == [
        "trust file registry/environments/py/1.1.0.yaml: added",  # alice, an administrator, may
        "trust file registry/queues/q1.yaml: modified",
        "environment py@1.1.0 is added",
        "queue q1 is modified",
    ]
    report = impact_markdown(reviewed)
    assert "| added | environment | py&#64;1.1.0 |  |" in report  # an '@' would mention someone on GitHub
    assert "| modified | queue | q1 | environments |" in report
    assert ": 0 changes, 2 execution catalog changes, 0 dependents, " in report
