"""A credential anywhere in git history (PRQ192): never published by the build, reported by validate
with the commit, in real repositories.  The history fixture (``PRQ192-*``: an ``earlier/`` tree
committed before the head) is run here; the fake credentials are put together from parts."""

from __future__ import annotations

import json
from pathlib import Path

from check_helpers import HISTORY_FIXTURE_DIRS, published_text
from gitrepo import GitRepo, item_yaml
from prereq import cli
from prereq.marketplace.build import build
from prereq.registry.validate import validate

OWNERS = "users: [alice]\n"
TOKEN = "".join(("gh", "p_", "R7tLq2Vx9Kd4Mw8Ns1Pz6Bc3Hf5Jg0Ya2Eu7"))
CLONE = f"git clone https://{TOKEN}@github.com/team/tools.git /opt/tools"


def _repo(tmp_path: Path) -> tuple[GitRepo, str]:
    """tools 1.0.0 clean, 1.1.0 with a token in its clone URL, 1.1.1 without it: the commit of 1.1.0."""
    repo = GitRepo(tmp_path / "repo")
    repo.write("registry/owners.yaml", OWNERS)
    path = "registry/prerequisites/tools.yaml"
    repo.write(path, item_yaml("tools", "1.0.0", commands=["git clone https://github.com/team/tools.git /opt/tools"]))
    repo.commit("tools", date="2026-01-01T00:00:00+00:00")
    repo.write(path, item_yaml("tools", "1.1.0", commands=[CLONE]))
    leaked = repo.commit("private tools", date="2026-01-02T00:00:00+00:00")
    repo.write(path, item_yaml("tools", "1.1.1", commands=["git clone https://github.com/team/tools.git /opt/tools"]))
    repo.commit("no token", date="2026-01-03T00:00:00+00:00")
    return repo, leaked


def test_a_version_that_held_a_secret_is_left_out_of_the_index_and_the_site(tmp_path: Path) -> None:
    repo, leaked = _repo(tmp_path)
    out = tmp_path / "site"
    result = build(repo.root / "registry", out, with_site=False)
    assert result.built, result.problems
    document = json.loads((out / "api" / "v1" / "prerequisites" / "tools.json").read_text(encoding="utf-8"))
    assert [v["version"] for v in document["versions"]] == ["1.0.0", "1.1.1"]
    assert any(w.startswith(f"tools 1.1.0 (commit {leaked[:10]}) holds a GitHub token") for w in result.warnings)
    published = published_text(out)
    body = (out / "api" / "v1" / "prerequisites" / "tools.json").read_text(encoding="utf-8")
    assert published.count(body) == 2  # the item's file and its pack's line: the packs are read too
    assert TOKEN not in published and "R7tLq2Vx9Kd4" not in published


def test_validate_reports_the_version_and_its_commit_without_the_value(tmp_path: Path) -> None:
    repo, leaked = _repo(tmp_path)
    assert validate(repo.root / "registry").problems == [], "plain validation looks at the working tree"
    result = validate(repo.root / "registry", history=True)
    assert [(p.rule, p.file, p.line) for p in result.problems] == [("PRQ192", "prerequisites/tools.yaml", None)]
    message = result.problems[0].message
    assert (
        message == f"tools 1.1.0 held a GitHub token at line 9 in commit {leaked[:10]}: that version is never published"
    )
    assert TOKEN not in message + result.problems[0].hint


def test_prereq_validate_fails_on_a_secret_in_history(tmp_path: Path, capsys) -> None:
    repo, leaked = _repo(tmp_path)
    assert cli.main(["validate", "--format", "json", str(repo.root / "registry")]) == 1
    problems = json.loads(capsys.readouterr().out)["problems"]
    assert [p["rule"] for p in problems] == ["PRQ192"] and leaked[:10] in problems[0]["message"]


def test_a_secret_still_in_the_working_tree_is_prq190_only(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.write("registry/owners.yaml", OWNERS)
    repo.write("registry/prerequisites/tools.yaml", item_yaml("tools", "1.0.0", commands=[CLONE]))
    repo.commit("leaky")
    result = validate(repo.root / "registry", history=True)
    assert {(p.rule, p.line) for p in result.problems} == {("PRQ190", 9)}


def test_the_history_fixture_reports_exactly_the_expected_problems(tmp_path: Path) -> None:
    assert HISTORY_FIXTURE_DIRS
    for fixture in HISTORY_FIXTURE_DIRS:
        expected = json.loads((fixture / "expected.json").read_text(encoding="utf-8"))
        repo = GitRepo(tmp_path / fixture.name)
        for number, tree in enumerate((fixture / "earlier", fixture)):
            for path in sorted(tree.rglob("*.yaml")):
                rel = path.relative_to(tree).as_posix()
                if not rel.startswith("earlier/"):
                    repo.write(f"registry/{rel}", path.read_text(encoding="utf-8"))
            repo.commit(f"commit {number}", date=f"2026-01-0{number + 1}T00:00:00+00:00")
        result = validate(repo.root / "registry", history=True)
        assert {(p.rule, p.file, p.line) for p in result.problems} == {
            (e["rule"], e["file"], e["line"]) for e in expected
        }
