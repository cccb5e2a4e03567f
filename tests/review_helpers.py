"""Helpers for the review's tests (tests/test_review*.py): real git repositories with a base branch
(main) and a pull-request branch (pr), made from dictionaries of files or from a review fixture.

A review fixture (``tests/fixtures/rules/PRQ2xx-*``) holds two trees: the head at its top (what the
pull request leaves: ``owners.yaml``, ``prerequisites/``) and the base in ``base/``; an optional
``earlier/`` tree is committed on main before the base (history the base has since changed), an
optional ``intermediate/`` tree is committed on the pull request's branch before its head, and an
optional ``author`` file names the author; an optional ``repository/`` tree goes at the repository's
root in the head (``.github/CODEOWNERS``).  ``expected.json`` lists the review's own findings."""

from __future__ import annotations

import shutil
from pathlib import Path

from gitrepo import GitRepo

OWNERS = "users: [alice, bob, carol]\nteams:\n  data-team: [alice, carol]\n"


def item(
    name: str,
    version: str = "1.0.0",
    *,
    command: str = "echo ready",
    owners: str = "[alice]",
    require: tuple[str, ...] = (),
    extra: str = "",
) -> str:
    """A valid cmd item; ``extra`` (YAML lines) goes before its callbacks."""
    text = f"name: {name}\nversion: {version}\ntype: script\ntitle: {name} test item\nowners: {owners}\n"
    if require:
        text += "require:\n" + "".join(f"  - {r}\n" for r in require)
    return text + extra + f"callbacks:\n  - event: taskStarts\n    commands:\n      - {command}\n"


def commit_trees(repo: GitRepo, *trees: dict[str, str | None]) -> list[str]:
    """Commit each tree of files (relative to registry/, None deletes) on the current branch, in order;
    the commits' ids."""
    commits = []
    for number, files in enumerate(trees):
        _write(repo, files)
        commits.append(repo.commit(f"pr {number}", date=f"2026-02-0{number + 1}T00:00:00+00:00"))
    return commits


def _write(repo: GitRepo, files: dict[str, str | None]) -> None:
    for rel, text in files.items():
        path = repo.root / "registry" / rel
        if text is None:
            path.unlink()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")


def make_pr(
    root: Path,
    base: dict[str, str | None],
    head: dict[str, str | None],
    *,
    earlier: tuple[dict[str, str | None], ...] = (),
    commit_head: bool = True,
) -> GitRepo:
    """main: owners.yaml, then each ``earlier`` change and ``base`` as commits; pr: ``head`` on top
    (a None text deletes the file).  Paths are relative to the registry folder ``registry/``."""
    repo = GitRepo(root)
    _write(repo, {"owners.yaml": OWNERS, "prerequisites/.keep": ""})
    for number, files in enumerate((*earlier, base)):
        _write(repo, files)
        repo.commit(f"main {number}", date=f"2026-01-0{number + 1}T00:00:00+00:00")
    repo.git("checkout", "-q", "-b", "pr")
    _write(repo, head)
    if commit_head:
        repo.commit("the pull request", date="2026-02-01T00:00:00+00:00")
    return repo


def _tree(folder: Path) -> dict[str, str | None]:
    return {p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8") for p in folder.rglob("*.yaml")}


def fixture_repo(fixture: Path, root: Path) -> GitRepo:
    """The fixture's trees as a repository: main holds earlier/ then base/, pr the head."""
    earlier = (fixture / "earlier",) if (fixture / "earlier").is_dir() else ()
    trees = [*earlier, fixture / "base"]
    repo = GitRepo(root)
    for number, folder in enumerate(trees):
        shutil.rmtree(repo.root / "registry", ignore_errors=True)
        shutil.copytree(folder, repo.root / "registry")
        repo.commit(f"main {number}", date=f"2026-01-0{number + 1}T00:00:00+00:00")
    repo.git("checkout", "-q", "-b", "pr")
    if (fixture / "intermediate").is_dir():
        shutil.rmtree(repo.root / "registry")
        shutil.copytree(fixture / "intermediate", repo.root / "registry")
        repo.commit("the pull request's first commit", date="2026-01-31T00:00:00+00:00")
    shutil.rmtree(repo.root / "registry")
    (repo.root / "registry").mkdir()
    for rel, text in _tree(fixture).items():
        if not rel.startswith(("base/", "earlier/", "intermediate/", "repository/")):
            _write(repo, {rel: text})
    if (fixture / "repository").is_dir():
        shutil.copytree(fixture / "repository", repo.root, dirs_exist_ok=True)
    repo.commit("the pull request", date="2026-02-01T00:00:00+00:00")
    return repo


def fixture_author(fixture: Path) -> str | None:
    path = fixture / "author"
    return path.read_text(encoding="utf-8").strip() if path.is_file() else None
