"""Suppressions (PRQ178, PRQ179): on the line, on the line above, in a block of commands, for the
whole item; used, unused and malformed; always shown in the reports."""

from __future__ import annotations

import json
from pathlib import Path

from check_helpers import found, item
from gitrepo import GitRepo, item_yaml
from prereq import cli
from prereq.registry.validate import validate

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
