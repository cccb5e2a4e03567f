"""Who the author is: an owners.yaml user or the GitHub login owners.yaml maps to them resolve to the same
user, ``@login`` is a login only (what a pull request's check gives), and every hint names the form
owners.yaml needs (its user, or a ``github:`` entry), never a login that would then be PRQ160."""

from __future__ import annotations

from pathlib import Path

import pytest

from prereq import cli
from prereq.review.codeowners import registry_codeowners
from prereq.review.review import review
from prereq.review.targets import write_codeowners
from review_helpers import item, make_pr

# alice administers the registry too: the pull request's new CODEOWNERS line is hers to make (PRQ210).
OWNERS = 'users: [alice, bob]\nteams:\n  data-team: [alice]\nadmins: data-team\ngithub:\n  alice: "@alice-gh"\n'
OWNERSHIP = ("PRQ205", "PRQ206")


def _repo(tmp_path: Path, new_owners: str = "[data-team]") -> Path:
    """alice (login alice-gh), through data-team, patches tool and adds extra owned by ``new_owners``."""
    base = {"owners.yaml": OWNERS, "prerequisites/tool.yaml": item("tool", owners="[data-team]")}
    head = {
        "prerequisites/tool.yaml": item("tool", "1.0.1", command="echo fixed", owners="[data-team]"),
        "prerequisites/extra.yaml": item("extra", owners=new_owners),
    }
    repo = make_pr(tmp_path / "repo", base, head, commit_head=False)
    found = registry_codeowners(repo.root / "registry")  # handles: CODEOWNERS kept in step (PRQ207)
    assert found is not None
    write_codeowners(found, repo.root)
    repo.commit("the pull request", date="2026-02-01T00:00:00+00:00")
    return repo.root / "registry"


def _found(registry: Path, author: str) -> list[tuple[str, str | None, str]]:
    reviewed = review(registry, base="main", author=author)
    return [(p.rule, p.file, p.hint) for p in reviewed.review_problems if p.rule in OWNERSHIP]


def test_the_user_and_the_login_get_the_same_verdict_and_hint(tmp_path: Path) -> None:
    registry = _repo(tmp_path)
    by_name, by_login = _found(registry, "alice"), _found(registry, "alice-gh")
    assert by_name == by_login == _found(registry, "@alice-gh")
    # tool is hers through data-team: no PRQ205; extra does not list her, and the hint names the file's user
    assert by_name == [("PRQ206", "prerequisites/extra.yaml", "add alice to the item's owners")]


def test_following_the_hint_leaves_nothing_to_fix(tmp_path: Path) -> None:
    registry = _repo(tmp_path, new_owners="[alice]")
    for author in ("alice", "alice-gh"):
        reviewed = review(registry, base="main", author=author)
        assert reviewed.result.problems == []  # no PRQ160 either
        assert "item extra is added" in reviewed.impact.reasons


def test_a_login_is_never_a_local_name_of_a_user_with_a_handle(tmp_path: Path) -> None:
    """A stranger whose GitHub login is 'alice' is not owners.yaml's alice (she is alice-gh)."""
    found = _found(_repo(tmp_path), "@alice")
    assert {rule for rule, _, _ in found} == {"PRQ205", "PRQ206"}
    hints = {rule: hint for rule, _, hint in found}
    assert 'map the login in owners.yaml\'s github: (USER: "@alice")' in hints["PRQ205"]
    assert hints["PRQ206"].startswith("map the login in owners.yaml's github:")
    assert "add alice" not in hints["PRQ206"]


def test_an_unmapped_login_is_told_to_map_it_not_to_list_it(tmp_path: Path) -> None:
    found = _found(_repo(tmp_path), "carol-gh")
    hints = {rule: hint for rule, _, hint in found}
    assert hints["PRQ205"].startswith("ask an owner (data-team) to make or approve this change, or if carol-gh")
    assert 'github: (USER: "@carol-gh") and list USER among the owners' in hints["PRQ206"]
    assert "add carol-gh" not in " ".join(hints.values())


def test_the_cli_notes_a_local_name_and_github_actions_takes_the_login(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = _repo(tmp_path, new_owners="[alice]")
    monkeypatch.chdir(registry.parent)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    assert cli.main(["validate", "--base", "main", "--author", "alice", "--no-strict"]) == 0
    out = capsys.readouterr().out
    assert "note: --author alice is taken as owners.yaml's user alice, whose GitHub login is alice-gh" in out
    assert cli.main(["validate", "--base", "main", "--author", "alice-gh"]) == 0
    assert "taken as" not in capsys.readouterr().out
    monkeypatch.setenv("GITHUB_ACTIONS", "true")  # the pull request's login, never a local name
    assert cli.main(["validate", "--base", "main", "--author", "alice"]) == 1
    out = capsys.readouterr().out
    assert "PRQ205 error @alice is not among the owners of tool" in out
    assert "note: --author @alice is no user of owners.yaml" in out
