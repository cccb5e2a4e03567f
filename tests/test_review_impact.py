"""Who may change what (owners and teams from owners.yaml, as the base has them), every dependent a
change reaches, the trivially-safe verdict, and the impact report's content."""

from __future__ import annotations

from pathlib import Path

from prereq.registry.reporters import markdown_cell as cell
from prereq.review.markdown import impact_markdown
from prereq.review.review import review
from review_helpers import OWNERS, item, make_pr

STORAGE = item("storage", command="mount server:/share /mnt", owners="[data-team]")
USER = item("user", require=("storage@~1.0",), owners="[bob]")
TOP = item("top", require=("user@^1",), owners="[bob]")
LOOSE = item("loose", require=("storage",), owners="[bob]")
IMAGE = "name: image\nversion: 1.0.0\ntype: dockerimage\ntitle: An image\nowners: [bob]\nuri: ubuntu:22.04\n"
TEMPLATE = """\
protocolVersion: 2
name: job
type: job
taskRoles:
  train:
    instances: 1
    dockerImage: image
    prerequisites: [top]
    resourcePerInstance: {cpu: 1, memoryMB: 1024, gpu: 0}
    commands: [echo hi]
"""
ITEMS = {"storage": STORAGE, "user": USER, "top": TOP, "loose": LOOSE, "image": IMAGE}
BASE = {**{f"prerequisites/{name}.yaml": text for name, text in ITEMS.items()}, "templates/job.yaml": TEMPLATE}


def _review(tmp_path: Path, head: dict, *, author: str | None = "alice", base: dict | None = None):
    repo = make_pr(tmp_path / "repo", BASE if base is None else base, head)
    return review(repo.root / "registry", base="main", author=author)


def _storage(version: str, command: str = "mount -o ro server:/share /mnt", **kwargs) -> dict[str, str]:
    return {"prerequisites/storage.yaml": item("storage", version, command=command, owners="[data-team]", **kwargs)}


def test_a_team_member_owns_the_teams_items(tmp_path: Path) -> None:
    reviewed = _review(tmp_path, _storage("1.0.1"), author="carol")
    assert reviewed.review_problems == []


def test_someone_outside_the_team_does_not(tmp_path: Path) -> None:
    reviewed = _review(tmp_path, _storage("1.0.1"), author="bob")
    assert [p.rule for p in reviewed.review_problems] == ["PRQ205"]
    assert "bob is not among the owners of storage (data-team)" in reviewed.review_problems[0].message


def test_a_pull_request_cannot_grant_itself_ownership(tmp_path: Path) -> None:
    head = {**_storage("1.0.1"), "owners.yaml": OWNERS.replace("[alice, carol]", "[alice, carol, bob]")}
    reviewed = _review(tmp_path, head, author="bob")
    assert sorted(p.rule for p in reviewed.review_problems) == ["PRQ205", "PRQ210"]  # owners.yaml: an administrator's
    assert reviewed.impact.owners_changed and not reviewed.impact.trivially_safe


def test_deleting_needs_ownership_too(tmp_path: Path) -> None:
    reviewed = _review(tmp_path, {"prerequisites/loose.yaml": None}, author="carol")
    assert [(p.rule, p.file) for p in reviewed.review_problems] == [("PRQ205", None)]


def test_a_new_item_lists_its_author(tmp_path: Path) -> None:
    new = {"prerequisites/new.yaml": item("new", owners="[data-team]")}
    assert [p.rule for p in _review(tmp_path / "a", new, author="carol").review_problems] == ["PRQ206"]
    new = {"prerequisites/new.yaml": item("new", owners="[carol, data-team]")}
    assert _review(tmp_path / "b", new, author="carol").review_problems == []


def test_every_dependent_direct_and_transitive_with_its_range(tmp_path: Path) -> None:
    reviewed = _review(tmp_path, _storage("1.1.0"))
    rows = [(d.name, d.chain, d.range, d.version, d.satisfied, d.requires) for d in reviewed.impact.dependents]
    assert rows == [
        ("loose", ("loose", "storage"), "*", "1.1.0", True, "*"),
        ("user", ("user", "storage"), "~1.0", "1.1.0", False, "~1.0"),
        # top's row is about storage too: user's range on it, which 1.1.0 breaks for top as well
        ("top", ("top", "user", "storage"), "~1.0", "1.1.0", False, "^1"),
    ]
    assert reviewed.impact.templates == {"job": ["top"]}
    # storage 1.0.0 stays published: user keeps resolving it, said, not failed (PRQ142 only when nothing fits)
    assert "PRQ142" not in {p.rule for p in reviewed.result.problems}
    assert "user stays on storage 1.0.0: its range ~1.0 excludes 1.1.0" in reviewed.result.stays
    assert not any("stays on" in note for note in reviewed.notes), "the report says it with the dependents"


def test_a_patch_by_an_owner_that_every_range_accepts_is_trivially_safe(tmp_path: Path) -> None:
    reviewed = _review(tmp_path, _storage("1.0.1"), author="carol")
    assert reviewed.impact.trivially_safe, reviewed.impact.reasons


def test_docs_only_is_trivially_safe(tmp_path: Path) -> None:
    head = _storage("1.0.0", command="mount server:/share /mnt", extra="description: Where the share is.\n")
    reviewed = _review(tmp_path, head, author=None)
    assert reviewed.impact.trivially_safe, reviewed.impact.reasons


def test_what_is_not_trivially_safe_says_why(tmp_path: Path) -> None:
    cases = {
        "minor": (_storage("1.1.0"), "carol", "a minor version bump, not a patch"),
        "no author": (_storage("1.0.1"), None, "without --author"),
        "not an owner": (_storage("1.0.1"), "bob", "not changed by one of its owners"),
        "added": ({"prerequisites/new.yaml": item("new", owners="[carol]")}, "carol", "item new is added"),
        "template": ({"templates/job.yaml": TEMPLATE.replace("echo hi", "echo bye")}, "carol", "job template"),
        "nothing": ({}, "carol", "nothing in the registry changed"),
    }  # fmt: skip
    for number, (label, (head, author, reason)) in enumerate(cases.items()):
        repo = make_pr(tmp_path / f"r{number}", BASE, head, commit_head=bool(head))
        reviewed = review(repo.root / "registry", base="main", author=author)
        assert not reviewed.impact.trivially_safe, label
        assert any(reason in r for r in reviewed.impact.reasons), (label, reviewed.impact.reasons)


def test_a_patch_that_a_dependents_range_excludes_is_not_trivially_safe(tmp_path: Path) -> None:
    base = {**BASE, "prerequisites/user.yaml": USER.replace("storage@~1.0", "storage@1.0.0")}
    reviewed = _review(tmp_path, _storage("1.0.1"), author="carol", base=base)
    assert any("user requires storage@1.0.0, which 1.0.1 is outside" in r for r in reviewed.impact.reasons)


def test_the_report_tells_changes_bumps_dependents_templates_problems_and_verdict(tmp_path: Path) -> None:
    report = impact_markdown(_review(tmp_path, _storage("1.1.0"), author="bob"))
    assert report.startswith("## prereq review\n")
    assert "Compared with main at merge base " in report and "author bob" in report
    assert "| modified | item | storage | 1.0.0 → 1.1.0 | minor | version, callbacks |" in report
    assert "| user | storage | directly | ~1.0 | 1.1.0 | **no** |" in report
    assert "| item | depends on | how | range on it | its version | in range |" in report
    assert "| top | storage | top → user → storage | ~1.0 (user's) | 1.1.0 | **no** |" in report
    assert "the range that the chain's direct dependent requires of it" in report
    assert "- job: top" in report
    assert "| PRQ205 | error | registry/prerequisites/storage.yaml:5 |" in report  # from the repository root
    assert "or to add bob (or a team of theirs) to its owners" in report  # the hint names the owners.yaml user
    assert "- user stays on storage 1.0.0: its range ~1.0 excludes 1.1.0" in report
    assert report.count("user stays on storage 1.0.0") == 1, "said with the dependents, not again as a note"
    assert "**Needs a review**" in report


def test_the_report_of_a_trivially_safe_change(tmp_path: Path) -> None:
    report = impact_markdown(_review(tmp_path, _storage("1.0.1"), author="carol"))
    assert "**Trivially safe**" in report and "### Problems" not in report
    assert "| modified | item | storage | 1.0.0 → 1.0.1 | patch |" in report


def test_a_transitive_dependents_row_says_its_chain_in_markdown_and_json(tmp_path: Path) -> None:
    """A row's range and version are the changed item's, whatever the distance: a deeper item with a
    range of its own on its neighbour must not show that range under the changed item's name."""
    deep = item("deep", require=("top@^1",), owners="[bob]")
    reviewed = _review(tmp_path, _storage("1.0.1"), author="carol", base={**BASE, "prerequisites/deep.yaml": deep})
    report = impact_markdown(reviewed)
    assert "| top | storage | top → user → storage | ~1.0 (user's) | 1.0.1 | yes |" in report
    assert "| deep | storage | deep → top → user → storage | ~1.0 (user's) | 1.0.1 | yes |" in report
    assert "^1" not in report.split("### Dependents")[1].split("###")[0], "no neighbour's range as storage's"
    (deep_row,) = [d for d in reviewed.as_dict()["dependents"] if d["name"] == "deep"]
    assert deep_row == {
        "name": "deep",
        "changed": "storage",
        "chain": ["deep", "top", "user", "storage"],
        "through": "top",
        "requires": "^1",
        "range": "~1.0",
        "range_of": "user",
        "version": "1.0.1",
        "satisfied": True,
        "distance": 3,
    }


def test_report_cells_show_registry_text_without_obeying_it() -> None:
    assert cell("a | b <script> @org/team `x`\n*y*") == "a \\| b &lt;script&gt; &#64;org/team \\`x\\` \\*y\\*"
    assert cell("bell\x07") == "bell\\\\u0007", "visible's backslash, escaped for Markdown"
