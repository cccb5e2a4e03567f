"""The review of a pull request against its base, on real repositories (a main branch and a pr branch):
what changed, the bump rules, removals, deprecations, ownership, dependents and the verdict."""

from __future__ import annotations

from pathlib import Path

import pytest

from prereq.core.errors import PrereqError
from prereq.review.result import Kind
from prereq.review.review import review
from review_helpers import item, make_pr

STORAGE = item("storage", command="mount server:/share /mnt")
USER = item("user", require=("storage@~1.0",), owners="[carol]")
TOP = item("top", require=("user",), owners="[carol]")


def _review(tmp_path: Path, base: dict, head: dict, *, author: str | None = None, **kwargs):
    repo = make_pr(tmp_path / "repo", base, head, **kwargs)
    return review(repo.root / "registry", base="main", author=author)


def _rules(reviewed) -> list[str]:
    return sorted(p.rule for p in reviewed.review_problems)


def _p(name: str) -> str:
    return f"prerequisites/{name}.yaml"


@pytest.mark.parametrize(
    ("version", "bump"), [("1.0.1", "patch"), ("1.1.0", "minor"), ("2.0.0", "major"), ("1.0.1-rc.1", "patch")]
)
def test_a_higher_version_is_a_bump_of_its_kind(tmp_path: Path, version: str, bump: str) -> None:
    reviewed = _review(tmp_path, {_p("tool"): item("tool")}, {_p("tool"): item("tool", version, command="echo 2")})
    (change,) = reviewed.impact.changes
    assert (change.kind, change.bump, change.changed_keys) == (Kind.MODIFIED, bump, ("version", "callbacks"))
    assert _rules(reviewed) == []


def test_a_change_without_a_higher_version_is_refused(tmp_path: Path) -> None:
    reviewed = _review(
        tmp_path, {_p("tool"): item("tool", "1.2.0")}, {_p("tool"): item("tool", "1.1.9", command="echo 2")}
    )
    assert _rules(reviewed) == ["PRQ200"]
    assert reviewed.failed()
    (problem,) = reviewed.review_problems
    assert "1.1.9 is not higher than 1.2.0" in problem.message and "1.2.1" in problem.hint


def test_docs_only_changes_and_comments_need_no_bump(tmp_path: Path) -> None:
    docs = item("tool", extra="description: Now documented.\ntags: [gpu]\nhomepage: https://example.com\n")
    base = {_p("tool"): item("tool"), _p("other"): item("other")}
    head = {_p("tool"): docs.replace("test item", "better title"), _p("other"): "# a comment\n" + item("other")}
    reviewed = _review(tmp_path, base, head)
    assert _rules(reviewed) == []
    assert [(c.name, c.docs_only) for c in reviewed.impact.changes] == [("other", True), ("tool", True)]
    assert reviewed.impact.changes[0].changed_keys == ()


def test_a_version_published_earlier_never_comes_back_with_other_content(tmp_path: Path) -> None:
    reviewed = _review(
        tmp_path,
        {_p("tool"): item("tool", "1.0.0")},
        {_p("tool"): item("tool", "1.1.0", command="echo new")},
        earlier=({_p("tool"): item("tool", "1.1.0", command="echo withdrawn")},),
    )
    assert _rules(reviewed) == ["PRQ201"]
    assert "1.1.1" in reviewed.review_problems[0].hint


def test_a_version_may_come_back_with_its_old_behaviour_and_new_docs(tmp_path: Path) -> None:
    reviewed = _review(
        tmp_path,
        {_p("tool"): item("tool", "1.0.0")},
        {_p("tool"): item("tool", "1.1.0", command="echo kept", extra="description: docs changed\n")},
        earlier=({_p("tool"): item("tool", "1.1.0", command="echo kept")},),
    )
    assert _rules(reviewed) == []


def test_a_deleted_then_readded_item_cannot_reuse_a_version(tmp_path: Path) -> None:
    reviewed = _review(
        tmp_path,
        {_p("tool"): None},
        {_p("tool"): item("tool", "1.0.0", command="echo different")},
        earlier=({_p("tool"): item("tool", "1.0.0")},),
    )
    assert [c.kind for c in reviewed.impact.changes] == [Kind.ADDED]
    assert _rules(reviewed) == ["PRQ201"]


def test_deleting_a_required_item_names_its_dependents(tmp_path: Path) -> None:
    template = "protocolVersion: 2\nname: job\ntype: job\ntaskRoles:\n  train:\n    prerequisites: [storage]\n"
    reviewed = _review(tmp_path, {_p("storage"): STORAGE, _p("user"): USER, "templates/job.yaml": template},
                       {_p("storage"): None})  # fmt: skip
    assert _rules(reviewed) == ["PRQ202"]
    assert reviewed.review_problems[0].message == "storage is deleted but still required by templates/job and user"
    assert {p.rule for p in reviewed.result.problems} >= {"PRQ140", "PRQ180"}, "the full validation still runs"


def test_deleting_an_unused_item_is_fine(tmp_path: Path) -> None:
    reviewed = _review(tmp_path, {_p("storage"): STORAGE, _p("user"): USER}, {_p("user"): None})
    assert [(c.kind, c.name) for c in reviewed.impact.changes] == [(Kind.DELETED, "user")]
    assert _rules(reviewed) == [] and not reviewed.failed()


def test_a_rename_is_told_apart_and_its_old_name_must_not_be_required(tmp_path: Path) -> None:
    renamed = STORAGE.replace("name: storage", "name: nfs-storage")
    reviewed = _review(tmp_path, {_p("storage"): STORAGE, _p("user"): USER},
                       {_p("storage"): None, _p("nfs-storage"): renamed})  # fmt: skip
    (change,) = reviewed.impact.changes
    assert (change.kind, change.old_name, change.name) == (Kind.RENAMED, "storage", "nfs-storage")
    assert _rules(reviewed) == ["PRQ203"]


def test_a_rename_with_its_dependents_moved_is_fine(tmp_path: Path) -> None:
    renamed = STORAGE.replace("name: storage", "name: nfs-storage")
    moved = USER.replace("storage@", "nfs-storage@").replace("1.0.0", "1.1.0")
    reviewed = _review(tmp_path, {_p("storage"): STORAGE, _p("user"): USER},
                       {_p("storage"): None, _p("nfs-storage"): renamed, _p("user"): moved})  # fmt: skip
    assert _rules(reviewed) == [] and not reviewed.failed()
    assert [d.name for d in reviewed.impact.dependents] == ["user"]


def test_an_unrelated_deletion_and_addition_are_no_rename(tmp_path: Path) -> None:
    other = item("other", "3.0.0", command="wget -q https://example.com/a && tar xf a", extra="tags: [x, y]\n")
    reviewed = _review(tmp_path, {_p("storage"): STORAGE}, {_p("storage"): None, _p("other"): other})
    assert sorted(c.kind for c in reviewed.impact.changes) == [Kind.ADDED, Kind.DELETED]


def test_deprecating_a_required_item_warns_with_the_replacement(tmp_path: Path) -> None:
    deprecated = STORAGE + "deprecated:\n  reason: retired\n  replacement: user\n"
    old_top = TOP + "deprecated:\n  reason: unused\n"
    reviewed = _review(tmp_path, {_p("storage"): STORAGE, _p("user"): USER, _p("top"): old_top},
                       {_p("storage"): deprecated})  # fmt: skip
    assert _rules(reviewed) == ["PRQ204"]
    (problem,) = reviewed.review_problems
    assert problem.message == "storage is deprecated here but still required by user"
    assert "move them to user" in problem.hint
    assert not reviewed.failed() and reviewed.failed(strict=True)


def test_deprecating_what_only_deprecated_items_require_is_quiet(tmp_path: Path) -> None:
    deprecated = STORAGE + "deprecated:\n  reason: retired\n"
    old_user = USER + "deprecated:\n  reason: retired too\n"
    reviewed = _review(tmp_path, {_p("storage"): STORAGE, _p("user"): old_user}, {_p("storage"): deprecated})
    assert _rules(reviewed) == []


def test_the_base_missing_or_unfetched_is_a_clear_error(tmp_path: Path) -> None:
    repo = make_pr(tmp_path / "repo", {_p("tool"): item("tool")}, {}, commit_head=False)
    repo.git("remote", "add", "origin", str(tmp_path / "nowhere"))
    with pytest.raises(PrereqError) as raised:
        review(repo.root / "registry", base="origin/main")
    assert raised.value.exit_code == 2
    assert "'origin/main' is not in this clone" in raised.value.message
    assert "git fetch origin main;" in raised.value.hint and "fetch-depth: 0" in raised.value.hint


def test_the_fetch_hint_quotes_the_ref_and_names_only_remotes_there_are(tmp_path: Path) -> None:
    repo = make_pr(tmp_path / "repo", {_p("tool"): item("tool")}, {}, commit_head=False)

    def hint(ref: str) -> str:
        with pytest.raises(PrereqError) as raised:
            review(repo.root / "registry", base=ref)
        return raised.value.hint

    assert "git fetch origin" not in hint("origin/main"), "this repository has no remote at all"
    assert "has no remote: git remote add NAME URL" in hint("origin/main")
    repo.git("remote", "add", "upstream", str(tmp_path / "nowhere"))
    assert "git fetch origin" not in hint("dev") and "this clone has upstream" in hint("dev")
    assert "git fetch upstream dev;" in hint("upstream/dev")
    repo.git("remote", "add", "origin", str(tmp_path / "nowhere"))
    shown = hint("main;touch /tmp/pwn")
    assert "git fetch origin 'main;touch /tmp/pwn'" in shown and "--base 'origin/main;touch /tmp/pwn'" in shown


def test_a_version_the_base_published_after_the_branch_point_is_not_reused(tmp_path: Path) -> None:
    """The base branch's whole history counts, not only the part before the pull request branched."""
    repo = make_pr(tmp_path / "repo", {_p("tool"): item("tool")}, {_p("tool"): item("tool", "1.1.0", command="x")})
    repo.git("checkout", "-q", "main")
    (repo.root / "registry" / _p("tool")).write_text(item("tool", "1.1.0", command="echo main"), encoding="utf-8")
    repo.commit("main published 1.1.0", date="2026-03-01T00:00:00+00:00")
    repo.git("checkout", "-q", "pr")
    reviewed = review(repo.root / "registry", base="main")
    assert [(c.name, c.base_version) for c in reviewed.impact.changes] == [("tool", "1.0.0")], (
        "diffed with the merge base"
    )
    assert _rules(reviewed) == ["PRQ201"]
    assert "1.1.1" in reviewed.review_problems[0].hint


def test_a_readded_item_continues_above_every_version_it_published(tmp_path: Path) -> None:
    earlier = ({_p("tool"): item("tool", "1.0.0")}, {_p("tool"): item("tool", "2.0.0", command="echo 2")})

    def rules(version: str, command: str, folder: str) -> list[str]:
        head = {_p("tool"): item("tool", version, command=command)}
        return _rules(_review(tmp_path / folder, {_p("tool"): None}, head, earlier=earlier))

    assert rules("1.5.0", "echo old", "lower") == ["PRQ208"]
    assert rules("2.0.1", "echo new", "higher") == []
    assert rules("2.0.0", "echo 2", "undeleted") == [], "the last version, unchanged, undoes the deletion"
    assert rules("2.0.0", "echo other", "changed") == ["PRQ201"], "one finding: the republication"
    reviewed = _review(tmp_path / "message", {_p("tool"): None}, {_p("tool"): item("tool")}, earlier=earlier)
    (problem,) = reviewed.review_problems
    assert problem.message.startswith("tool comes back at 1.0.0, not higher than 2.0.0, which the base branch")
    assert problem.hint.startswith("set version: 2.0.1") and (problem.file, problem.line) == (_p("tool"), 2)


def test_a_rename_to_a_name_used_before_continues_its_versions(tmp_path: Path) -> None:
    renamed = STORAGE.replace("name: storage", "name: nfs")
    reviewed = _review(
        tmp_path,
        {_p("storage"): STORAGE, _p("nfs"): None},
        {_p("storage"): None, _p("nfs"): renamed},
        earlier=({_p("nfs"): item("nfs", "3.0.0", command="echo old nfs")},),
    )
    assert [(c.kind, c.old_name) for c in reviewed.impact.changes] == [(Kind.RENAMED, "storage")]
    assert _rules(reviewed) == ["PRQ208"]


def test_a_shallow_clone_is_refused_with_the_fetch_hint(tmp_path: Path) -> None:
    repo = make_pr(tmp_path / "repo", {_p("tool"): item("tool")}, {_p("tool"): item("tool", "1.0.1")})
    clone = tmp_path / "clone"
    repo.git("clone", "-q", "--depth", "1", "--branch", "pr", f"file://{repo.root}", str(clone))
    with pytest.raises(PrereqError) as raised:
        review(clone / "registry", base="origin/main")
    assert raised.value.exit_code == 2 and "shallow" in raised.value.message
    assert "git fetch --unshallow" in raised.value.hint and "fetch-depth: 0" in raised.value.hint


def test_outside_a_repository_the_review_says_why(tmp_path: Path, make_registry) -> None:
    with pytest.raises(PrereqError, match="not in a git repository"):
        review(make_registry({_p("tool"): item("tool")}), base="main")


def test_the_working_tree_is_reviewed_uncommitted_files_included(tmp_path: Path) -> None:
    reviewed = _review(tmp_path, {_p("tool"): item("tool")}, {_p("new"): item("new")}, commit_head=False)
    assert [(c.kind, c.name) for c in reviewed.impact.changes] == [(Kind.ADDED, "new")]


def test_the_merge_base_is_the_base_not_the_tip_of_main(tmp_path: Path) -> None:
    repo = make_pr(tmp_path / "repo", {_p("tool"): item("tool")}, {_p("tool"): item("tool", "1.0.1", command="x")})
    repo.git("checkout", "-q", "main")
    (repo.root / "registry" / _p("later")).write_text(item("later"), encoding="utf-8")
    repo.commit("main moved on", date="2026-03-01T00:00:00+00:00")
    repo.git("checkout", "-q", "pr")
    reviewed = review(repo.root / "registry", base="main")
    assert [c.name for c in reviewed.impact.changes] == ["tool"], "what main gained since is not this change"
