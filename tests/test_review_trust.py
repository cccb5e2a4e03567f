"""Trust files have owners: owners.yaml, rights.yaml, prereq.yaml, schema/, the execution catalog and
.github/ change only by an administrator (owners.yaml's admins team, as the base has it; PRQ210),
a self-managed team's members may edit its member list, the author granting themselves anything is
never trivially safe, and the report lists every trust change and every suppression a pull request
adds.  Real repositories: a base branch main and a pull-request branch pr."""

from __future__ import annotations

from pathlib import Path

import pytest

from prereq.core.errors import PrereqError
from prereq.core.yamlload import load_yaml
from prereq.registry.loader import SourceItem
from prereq.registry.owners import Owners
from prereq.registry.validate import validate
from prereq.review.codeowners import CodeOwners, codeowners, codeowners_text
from prereq.review.markdown import impact_markdown
from prereq.review.review import review
from prereq.review.targets import write_codeowners
from review_helpers import item, make_pr

OWNERS = """\
users: [alice, bob, carol, dave]
teams:
  admin-team: [alice]
  data-team: [carol, dave]
  web-team: [bob]
admins: admin-team
self-managed: [data-team]
"""
RIGHTS = "groups:\n  gpu-users: [carol]\nrights: []\n"
BASE = {"owners.yaml": OWNERS, "rights.yaml": RIGHTS, "prerequisites/tool.yaml": item("tool", owners="[data-team]")}


def _review(tmp_path: Path, head: dict, *, author: str | None, base: dict | None = None, beside: dict | None = None):
    """``beside``: files at the repository's root, committed with the pull request."""
    repo = make_pr(tmp_path / "repo", base or BASE, head, commit_head=False)
    for rel, text in (beside or {}).items():
        repo.write(rel, text)
    repo.commit("the pull request", date="2026-02-01T00:00:00+00:00")
    return review(repo.root / "registry", base="main", author=author)


def _found(reviewed) -> list[tuple[str, str | None, int | None]]:
    """The review's findings but PRQ207 (a base with handles has no CODEOWNERS here: not these tests' concern)."""
    return [(p.rule, p.file, p.line) for p in reviewed.review_problems if p.rule != "PRQ207"]


def test_a_non_administrator_adding_themselves_to_a_team_is_refused(tmp_path: Path) -> None:
    head = {"owners.yaml": OWNERS.replace("web-team: [bob]", "web-team: [bob]\n  data-team-2: [bob]").replace(
        "data-team: [carol, dave]", "data-team: [carol, dave, bob]")}  # fmt: skip
    reviewed = _review(tmp_path, head, author="bob")
    assert _found(reviewed) == [("PRQ210", "owners.yaml", 4)]
    (found,) = reviewed.review_problems
    assert found.message.startswith("bob changes the trust file registry/owners.yaml (team data-team gains member bob")
    assert "not an administrator (the admins team on the base is admin-team)" in found.message
    assert found.hint.startswith("ask an administrator (a member of owners.yaml's admins team, admin-team)")
    grants = [(t.what, t.grants_author) for t in reviewed.impact.trust]
    assert ("team data-team gains member bob", True) in grants and ("team data-team-2 added (bob)", True) in grants
    assert "the author grants themselves: team data-team gains member bob (registry/owners.yaml)" in (
        reviewed.impact.reasons
    )


def test_mapping_a_handle_to_oneself_or_repointing_a_team_handle_is_refused(tmp_path: Path) -> None:
    base = {**BASE, "owners.yaml": OWNERS + 'github:\n  carol: "@carol-gh"\n  data-team: "@org/data"\n'}
    moved = base["owners.yaml"].replace('"@carol-gh"', '"@bob-gh"').replace('"@org/data"', '"@evil/data"')
    reviewed = _review(tmp_path, {"owners.yaml": moved}, author="@bob-gh", base=base)
    assert _found(reviewed) == [("PRQ210", "owners.yaml", 9)]
    trust = [(t.what, t.line, t.grants_author) for t in reviewed.impact.trust]
    assert trust == [
        ("handle of carol changed from @carol-gh to @bob-gh", 9, True),
        ("handle of data-team changed from @org/data to @evil/data", 10, False),
    ]


def test_adding_oneself_to_a_rights_group_is_refused(tmp_path: Path) -> None:
    rights = RIGHTS.replace("[carol]", "[carol, bob]")
    reviewed = _review(tmp_path, {"rights.yaml": rights}, author="bob")
    assert _found(reviewed) == [("PRQ210", "rights.yaml", 2)]
    assert [(t.what, t.grants_author) for t in reviewed.impact.trust] == [
        ("rights group gpu-users gains member bob", True)
    ]


@pytest.mark.parametrize(
    ("beside", "file", "line"),
    [
        ({".github/workflows/ci.yml": "on: push\njobs: {}\n"}, "../.github/workflows/ci.yml", 1),
        ({"prereq.yaml": "title: Registry\n"}, "../prereq.yaml", 1),
        ({"schema/item.schema.json": "{}\n"}, "../schema/item.schema.json", 1),
        # A site of the repository's own: its hooks run in the publish job, which holds the signing key.
        ({"mkdocs.yml": "site_name: x\nhooks: [hooks/x.py]\n"}, "../mkdocs.yml", 1),
        ({"hooks/x.py": "import os\n"}, "../hooks/x.py", 1),
        # prereq.yaml's site.pages: its files replace the site's own scripts (the portal's plugin too).
        ({"docs/assets/composer/ui/start.js": "alert(1)\n"}, "../docs/assets/composer/ui/start.js", 1),
    ],
    ids=["github", "prereq-yaml", "schema", "mkdocs-yml", "mkdocs-hook", "site-pages"],
)
def test_repository_trust_files_need_an_administrator(tmp_path: Path, beside: dict, file: str, line: int) -> None:
    reviewed = _review(tmp_path, {}, author="carol", beside=beside)
    assert _found(reviewed) == [("PRQ210", file, line)]
    (path,) = beside
    assert reviewed.review_problems[0].message == (
        f"carol changes the trust file {path} (added) but is not an administrator "
        "(the admins team on the base is admin-team)"
    )
    assert not reviewed.impact.trivially_safe
    assert _found(review(Path(reviewed.result.root), base="main", author="alice")) == []


def test_a_change_to_a_tracked_trust_file_names_its_first_changed_line(tmp_path: Path) -> None:
    repo = make_pr(tmp_path / "repo", BASE, {}, commit_head=False)
    repo.git("checkout", "-q", "main")
    repo.write("prereq.yaml", "title: Registry\nsite_url: https://example.org\n")
    repo.commit("settings")
    repo.git("checkout", "-q", "pr")
    repo.git("merge", "-q", "--ff-only", "main")
    repo.write("prereq.yaml", "title: Registry\nsite_url: https://evil.example\n")
    repo.commit("the pull request")
    reviewed = review(repo.root / "registry", base="main", author="bob")
    assert _found(reviewed) == [("PRQ210", "../prereq.yaml", 2)]
    (repo.root / "prereq.yaml").unlink()
    gone = review(repo.root / "registry", base="main", author="bob")
    assert _found(gone) == [("PRQ210", None, None)] and "prereq.yaml (deleted)" in gone.review_problems[0].message


def test_an_administrator_adds_a_member_but_adding_themselves_is_never_trivially_safe(tmp_path: Path) -> None:
    added = OWNERS.replace("web-team: [bob]", "web-team: [bob, dave]")
    reviewed = _review(tmp_path / "dave", {"owners.yaml": added}, author="alice")
    assert _found(reviewed) == []
    assert [(t.what, t.grants_author) for t in reviewed.impact.trust] == [("team web-team gains member dave", False)]
    assert not reviewed.impact.trivially_safe
    assert "trust file registry/owners.yaml: team web-team gains member dave" in reviewed.impact.reasons
    themselves = OWNERS.replace("web-team: [bob]", "web-team: [bob, alice]")
    reviewed = _review(tmp_path / "alice", {"owners.yaml": themselves}, author="alice")
    assert _found(reviewed) == [] and not reviewed.impact.trivially_safe
    assert any(
        r.startswith("the author grants themselves: team web-team gains member alice") for r in reviewed.impact.reasons
    )


def test_a_self_managed_teams_member_edits_its_members_and_nothing_else(tmp_path: Path) -> None:
    own = OWNERS.replace("data-team: [carol, dave]", "data-team: [carol, dave, bob]")
    assert _found(_review(tmp_path / "own", {"owners.yaml": own}, author="carol")) == []
    assert _found(_review(tmp_path / "outsider", {"owners.yaml": own}, author="bob")) == [("PRQ210", "owners.yaml", 4)]
    other = OWNERS.replace("web-team: [bob]", "web-team: [bob, carol]")  # not self-managed
    assert _found(_review(tmp_path / "other", {"owners.yaml": other}, author="carol")) == [("PRQ210", "owners.yaml", 5)]
    more = own.replace("admins: admin-team", "admins: data-team")
    assert [r for r, _, _ in _found(_review(tmp_path / "more", {"owners.yaml": more}, author="carol"))] == ["PRQ210"]


def test_a_base_without_admins_has_no_administrator(tmp_path: Path) -> None:
    base = {**BASE, "owners.yaml": OWNERS.replace("admins: admin-team\n", "")}
    head = {"owners.yaml": base["owners.yaml"] + "admins: web-team\n"}
    reviewed = _review(tmp_path, head, author="bob", base=base)
    assert _found(reviewed) == [("PRQ210", "owners.yaml", 7)]
    assert "the base names no admins team" in reviewed.review_problems[0].message


def test_without_an_author_trust_changes_are_listed_never_refused(tmp_path: Path) -> None:
    head = {"owners.yaml": OWNERS.replace("web-team: [bob]", "web-team: [bob, dave]"), "rights.yaml": None}
    reviewed = _review(tmp_path, head, author=None)
    assert _found(reviewed) == []
    assert [(t.file, t.what) for t in reviewed.impact.trust] == [
        ("registry/owners.yaml", "team web-team gains member dave"),
        ("registry/rights.yaml", "deleted"),
    ]
    assert not reviewed.impact.trivially_safe
    report = impact_markdown(reviewed)
    assert "### Trust changes" in report and "| registry/rights.yaml | deleted |  |" in report


def test_the_report_lists_trust_changes_above_item_changes(tmp_path: Path) -> None:
    head = {
        "owners.yaml": OWNERS.replace("web-team: [bob]", "web-team: [bob, carol]"),
        "prerequisites/tool.yaml": item("tool", "1.0.1", owners="[data-team]", command="echo two"),
    }
    report = impact_markdown(_review(tmp_path, head, author="carol"))
    assert report.index("### Trust changes") < report.index("### Changes")
    assert "| registry/owners.yaml:5 | team web-team gains member carol | **yes** |" in report


def test_an_item_whose_owners_gain_the_author_is_never_trivially_safe(tmp_path: Path) -> None:
    head = {"prerequisites/tool.yaml": item("tool", "1.0.1", owners="[data-team, web-team]")}
    reviewed = _review(
        tmp_path, head, author="carol", base={**BASE, "owners.yaml": OWNERS.replace("[bob]", "[bob, carol]")}
    )
    assert _found(reviewed) == []
    assert [(t.what, t.grants_author) for t in reviewed.impact.trust] == [("owners of item tool gain web-team", True)]
    assert not reviewed.impact.trivially_safe


def test_a_suppression_added_by_the_pull_request_is_listed_and_not_trivially_safe(tmp_path: Path) -> None:
    silenced = item("tool", "1.0.1", owners="[data-team]", extra="suppress: [PRQ170]\n")
    commented = "# prereq: disable=PRQ170\n" + item("tool", "1.0.1", owners="[data-team]")
    for name, text in (("key", silenced), ("comment", commented)):
        reviewed = _review(tmp_path / name, {"prerequisites/tool.yaml": text}, author="carol")
        (added,) = reviewed.impact.suppressions
        assert (added.file, added.rule) == ("prerequisites/tool.yaml", "PRQ170")
        assert not reviewed.impact.trivially_safe
        assert any("suppression of" in reason for reason in reviewed.impact.reasons), reviewed.impact.reasons
        report = impact_markdown(reviewed)
        assert "### Suppressions added" in report and f"| {added.rule} |" in report
        assert reviewed.as_dict()["suppressions_added"][0]["rule"] == added.rule
    kept = {**BASE, "prerequisites/tool.yaml": silenced.replace("1.0.1", "1.0.0")}
    same = _review(tmp_path / "kept", {"prerequisites/tool.yaml": silenced}, author="carol", base=kept)
    assert same.impact.suppressions == [], "a suppression the base had is not the pull request's"


def test_owners_yaml_names_its_administrators_and_self_managed_teams(make_registry) -> None:
    result = validate(make_registry({"owners.yaml": OWNERS}))
    assert result.owners.admins == "admin-team" and result.owners.administrators == {"alice"}
    assert result.owners.self_managed == {"data-team"}
    bad = OWNERS.replace("admins: admin-team", "admins: nobody").replace("[data-team]", "[data-team, ghosts]")
    found = sorted((p.rule, p.line, p.message) for p in validate(make_registry({"owners.yaml": bad})).problems)
    assert found == [
        ("PRQ161", 6, "admins must name one team of teams, not 'nobody'"),
        ("PRQ161", 7, "self-managed names 'ghosts', which is not a team of teams"),
    ]
    assert validate(make_registry({"owners.yaml": bad})).owners.admins is None, "a typo makes no one administrator"


def test_codeowners_gives_everything_but_the_items_to_the_administrators(tmp_path: Path) -> None:
    handles = OWNERS + 'github:\n  alice: "@alice-gh"\n  data-team: "@org/data"\n'
    for owners, expected in ((handles, "@alice-gh"), (handles + '  admin-team: "@org/admins"\n', "@org/admins")):
        repo = make_pr(tmp_path / expected.strip("@/"), {**BASE, "owners.yaml": owners}, {}, commit_head=False)
        result = validate(repo.root / "registry")
        found = codeowners(repo.root / "registry", result.items, result.owners)
        assert found is not None
        lines = [line for line in found.text.splitlines() if not line.startswith("#")]
        # The last match wins in CODEOWNERS: the administrators' catch-all first, each item's owners after.
        assert lines == [f"* {expected}", "/registry/prerequisites/tool.yaml @org/data"]


@pytest.mark.parametrize("name", ["a\n* @mallory", "a b", "a#b", "[ab]", "a*", "!a", "a\\b", "a\x00b", "a\x1bb"])
def test_a_path_codeowners_cannot_hold_is_refused_never_written(tmp_path: Path, name: str) -> None:
    rel = f"prerequisites/{name}.yaml"
    evil = SourceItem(path=tmp_path / rel, rel=rel, data={"owners": ["alice"]}, yaml=load_yaml("{}"))
    owners = Owners(users={"alice"}, loaded=True, github={"alice": "@alice-gh"})
    text, refused = codeowners_text({"evil": evil}, owners, registry="registry")
    assert refused == (rel,) and "mallory" not in text and name not in text
    found = CodeOwners(tmp_path / ".github" / "CODEOWNERS", text, None, refused)
    assert not found.up_to_date
    with pytest.raises(PrereqError, match=r"cannot name .* safely"):
        write_codeowners(found, tmp_path)
    assert not (tmp_path / ".github").exists(), "nothing written"


def test_an_old_suppression_silencing_a_credential_the_change_adds_is_listed(tmp_path: Path) -> None:
    """The base's ``suppress: [PRQ190]`` (a false positive its owners judged) would silence any credential
    a later change writes into the same file: the report names each credential finding it silences."""
    judged = item(
        "tool", owners="[data-team]", command="export API_TOKEN=abcd1234efgh5678", extra="suppress: [PRQ190]\n"
    )
    token = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
    leaked = judged.replace("1.0.0", "1.0.1") + f"      - export GH_TOKEN={token}\n"

    reviewed = _review(
        tmp_path, {"prerequisites/tool.yaml": leaked}, author="carol", base={**BASE, "prerequisites/tool.yaml": judged}
    )

    assert not reviewed.result.errors, "the suppression still silences: the reviewer decides"
    silenced = [(s.file, s.rule) for s in reviewed.impact.suppressions]
    assert silenced == [("prerequisites/tool.yaml", "PRQ190")] * 2
    assert not reviewed.impact.trivially_safe
    assert "### Suppressions added" in impact_markdown(reviewed)
    untouched = _review(
        tmp_path / "untouched",
        {"prerequisites/other.yaml": item("other", owners="[data-team]")},
        author="carol",
        base={**BASE, "prerequisites/tool.yaml": judged},
    )
    assert untouched.impact.suppressions == [], "a file the change leaves alone is the base's business"


def test_the_allowed_signers_file_prereq_yaml_names_is_a_trust_file_wherever_it_is(tmp_path: Path) -> None:
    """Who may sign the index decides what jobs trust: the file is the administrators' even outside
    .github/ (prereq.yaml's trust.allowed_signers names it)."""
    repo = make_pr(tmp_path / "repo", BASE, {}, commit_head=False)
    repo.git("checkout", "-q", "main")
    repo.write("prereq.yaml", "trust:\n  allowed_signers: keys/signers\n")
    repo.write("keys/signers", "admin@example.org ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIadmin\n")
    repo.commit("settings")
    repo.git("checkout", "-q", "pr")
    repo.git("merge", "-q", "--ff-only", "main")
    repo.write("keys/signers", "bob@example.org ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIbob\n")
    repo.commit("the pull request")

    reviewed = review(repo.root / "registry", base="main", author="bob")

    assert _found(reviewed) == [("PRQ210", "../keys/signers", 1)]
    assert not reviewed.impact.trivially_safe
    assert _found(review(repo.root / "registry", base="main", author="alice")) == []


def test_job_templates_are_the_administrators_until_they_have_owners(tmp_path: Path) -> None:
    """A job template runs in every job started from it and names no owners: only an administrator
    changes one (a pull request rewriting a team's template with a curl | bash passed before)."""
    template = "protocolVersion: 2\nname: train\ntype: job\ncontributor: data-team\n"
    base = {**BASE, "templates/train.yaml": template}
    head = {"templates/train.yaml": template.replace("name: train", "name: train\ndescription: rewritten")}
    reviewed = _review(tmp_path, head, author="carol", base=base)
    assert [(rule, file) for rule, file, _ in _found(reviewed)] == [("PRQ210", "templates/train.yaml")]
    assert _found(review(Path(reviewed.result.root), base="main", author="alice")) == []
