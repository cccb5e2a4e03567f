"""``prereq init`` in the repository a team has: merged into its README and .gitignore, publishing its
default branch, and installing prereq from the requirement it is given (issue 28).  That the kit then
installs for real, from a wheel and with pre-commit, is tests/test_packaging.py's."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml

from gitrepo import ENV, GitRepo
from prereq import __version__
from prereq.cli import main
from prereq.core.errors import PrereqError
from prereq.registry.settings import load_settings
from prereq.scaffold.starter import default_branch, init_repository, site_requirement

README = "# team-registry\n\nOur team's prerequisites.\n"
GITIGNORE = "__pycache__/\n*.pyc"  # no line break at the end, as editors sometimes leave it


def _git(cwd: Path, *args: str) -> str:
    run = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env={**os.environ, **ENV})
    return run.stdout


def _made_on_github(root: Path, branch: str = "master") -> Path:
    """What 'create on GitHub with a README and a .gitignore, then clone' leaves: origin's HEAD is its branch."""
    origin = root / "origin"
    GitRepo(origin).git("checkout", "-q", "-b", branch)
    (origin / "README.md").write_text(README, encoding="utf-8")
    (origin / ".gitignore").write_text(GITIGNORE, encoding="utf-8")
    _git(origin, "add", "-A")
    _git(origin, "commit", "-qm", "Initial commit")
    _git(root, "clone", "-q", str(origin), "clone")
    return root / "clone"


def _files(folder: Path) -> dict[str, bytes]:
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and ".git" not in path.relative_to(folder).parts
    }


def _workflow(repo: Path, name: str) -> dict:
    data = yaml.safe_load((repo / ".github" / "workflows" / name).read_text(encoding="utf-8"))
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads the key `on` as true
    return data


def test_init_merges_into_a_cloned_repository_once_and_publishes_its_branch(tmp_path: Path) -> None:
    repo = _made_on_github(tmp_path)
    _git(repo, "checkout", "-q", "-b", "add-registry")  # the branch a contributor works on is not the one published
    first = init_repository(repo, owner="alice")
    assert sorted(p.name for p in first.appended) == [".gitignore", "README.md"]
    readme = (repo / "README.md").read_text(encoding="utf-8")
    assert readme.startswith(README) and "# clone prerequisites" not in readme  # its title, not a second one
    assert "prereq validate --base origin/master\n" in readme and "`master`" in readme
    gitignore = (repo / ".gitignore").read_text(encoding="utf-8")
    assert gitignore.startswith(GITIGNORE + "\n") and "/build/" in gitignore.splitlines()
    assert _workflow(repo, "publish.yml")["on"]["push"] == {"branches": ["master"]}
    assert repo / "prereq.yaml" in first.files and repo / "README.md" not in first.files

    before = _files(repo)
    second = init_repository(repo, owner="alice")
    assert (second.files, second.appended) == ([], [])
    assert _files(repo) == before


def test_a_file_in_the_way_stops_everything_the_readme_included(tmp_path: Path) -> None:
    repo = _made_on_github(tmp_path)
    (repo / ".pre-commit-config.yaml").write_text("repos: []\n", encoding="utf-8")
    with pytest.raises(PrereqError, match=r"\.pre-commit-config\.yaml already exists; nothing was written"):
        init_repository(repo, owner="alice")
    assert (repo / "README.md").read_text(encoding="utf-8") == README
    assert sorted(p.name for p in repo.iterdir()) == [".git", ".gitignore", ".pre-commit-config.yaml", "README.md"]


def test_a_linked_readme_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    (tmp_path / "elsewhere.md").write_text(README, encoding="utf-8")
    (repo / "README.md").symlink_to(tmp_path / "elsewhere.md")
    with pytest.raises(PrereqError, match="is a symbolic link; nothing was written"):
        init_repository(repo, owner="alice")
    assert [p.name for p in repo.iterdir()] == ["README.md"]


def test_the_default_branch_is_origins_else_the_current_one_else_main(tmp_path: Path) -> None:
    clone = _made_on_github(tmp_path / "a", branch="trunk")
    _git(clone, "checkout", "-q", "-b", "feature")
    assert default_branch(clone) == "trunk"
    local = GitRepo(tmp_path / "b")
    local.git("checkout", "-q", "-b", "develop")  # no commit yet: the branch is still the current one
    assert default_branch(local.root) == "develop"
    (tmp_path / "c").mkdir()
    assert default_branch(tmp_path / "c") == "main"
    assert default_branch(tmp_path / "not-made-yet") == "main"


def test_a_branch_name_that_cannot_go_into_a_workflow_is_refused(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    repo.git("checkout", "-q", "-b", "it's-${{x}}")
    with pytest.raises(PrereqError, match="cannot be written into a workflow"):
        init_repository(repo.root, owner="alice")
    assert [p.name for p in repo.root.iterdir()] == [".git"]


WHEEL = "/srv/wheels/openpai_prereq-0.2.0-py3-none-any.whl"


@pytest.mark.parametrize(
    "requirement",
    [None, WHEEL, "git+https://github.com/team/prereq@0123456789abcdef", "openpai-prereq>=0.2,<0.3"],
)
def test_every_kit_file_installs_prereq_from_the_requirement_kept_in_prereq_yaml(
    tmp_path: Path, requirement: str | None
) -> None:
    init_repository(tmp_path, owner="alice", requirement=requirement)
    expected = requirement or f"openpai-prereq=={__version__}"
    assert load_settings(tmp_path).prereq_requirement == expected
    hooks = yaml.safe_load((tmp_path / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    (hook,) = hooks["repos"][0]["hooks"]
    assert hook["additional_dependencies"] == [expected]
    assert hook["entry"] == "prereq validate"  # strictness is prereq.yaml's, the same for the review and publish
    assert _workflow(tmp_path, "pull-request.yml")["jobs"]["review"]["with"]["prereq"] == expected
    assert _workflow(tmp_path, "publish.yml")["jobs"]["publish"]["with"]["prereq"] == site_requirement(expected)
    assert f"`{expected}`" in (tmp_path / "README.md").read_text(encoding="utf-8")


def test_a_second_init_keeps_the_requirement_prereq_yaml_holds(tmp_path: Path) -> None:
    init_repository(tmp_path, owner="alice", requirement=WHEEL)
    before = _files(tmp_path)
    again = init_repository(tmp_path, owner="alice")
    assert again.files == [] and _files(tmp_path) == before


@pytest.mark.parametrize(
    ("requirement", "with_site"),
    [
        ("openpai-prereq==1.2.0", "openpai-prereq[site]==1.2.0"),
        ("openpai-prereq", "openpai-prereq[site]"),
        ("openpai-prereq[site]>=1", "openpai-prereq[site]>=1"),
        ("openpai-prereq @ https://h/p.whl", "openpai-prereq[site] @ https://h/p.whl"),
        ("git+https://github.com/t/prereq@v1", "openpai-prereq[site] @ git+https://github.com/t/prereq@v1"),
        (WHEEL, WHEEL + "[site]"),
        ("dist/openpai_prereq-1.0.tar.gz", "dist/openpai_prereq-1.0.tar.gz[site]"),
        (".", ".[site]"),
    ],
)
def test_the_publish_installs_the_same_prereq_with_the_site_extra(requirement: str, with_site: str) -> None:
    assert site_requirement(requirement) == with_site


@pytest.mark.parametrize("requirement", ["", "  ", "openpai-prereq\n==1", "openpai-prereq==${{ github.ref }}"])
def test_a_requirement_that_cannot_go_into_the_kit_is_refused_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], requirement: str
) -> None:
    code = main(["init", str(tmp_path / "r"), "--owner", "alice", "--prereq-requirement", requirement])
    err = capsys.readouterr().err
    assert code == 2 and "--prereq-requirement" in err and "Traceback" not in err, err
    assert not (tmp_path / "r").exists()


def test_a_kit_requirement_prereq_yaml_cannot_hold_is_reported_at_its_line(tmp_path: Path) -> None:
    (tmp_path / "prereq.yaml").write_text("kit:\n  prereq: [openpai-prereq]\n", encoding="utf-8")
    with pytest.raises(PrereqError, match=r"prereq\.yaml:2:3: prereq must be one line pip installs"):
        load_settings(tmp_path)


def test_the_cli_says_what_it_appended_and_when_nothing_was_left_to_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _made_on_github(tmp_path)
    assert main(["init", str(repo), "--owner", "alice"]) == 0
    out = capsys.readouterr().out
    assert "added prereq's lines to" in out and "README.md" in out.split("added prereq's lines to")[-1]
    assert main(["init", str(repo), "--owner", "alice"]) == 0
    assert "nothing to write" in capsys.readouterr().out
