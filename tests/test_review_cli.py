"""``prereq validate --base REF [--author USER] [--report FILE]`` as a pull request's check runs it:
exit codes, output formats, the report file, and the errors that say how to fetch the history."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prereq import cli
from review_helpers import item, make_pr


@pytest.fixture
def pr(tmp_path: Path):
    """A pull request that bumps tool's patch version and changes tool2 without a bump."""
    base = {"prerequisites/tool.yaml": item("tool"), "prerequisites/tool2.yaml": item("tool2")}
    head = {
        "prerequisites/tool.yaml": item("tool", "1.0.1", command="echo fixed"),
        "prerequisites/tool2.yaml": item("tool2", command="echo changed"),
    }
    return make_pr(tmp_path / "repo", base, head)


def test_problems_found_exit_1_and_the_report_is_written(pr, tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(pr.root)
    out = tmp_path / "impact.md"
    assert cli.main(["validate", "registry", "--base", "main", "--author", "alice", "--report", str(out)]) == 1
    printed = capsys.readouterr().out
    assert "prerequisites/tool2.yaml:2:10: PRQ200 error tool2 changed (callbacks)" in printed
    assert "reviewed against main (" in printed and "2 changed, 0 dependents, needs a review" in printed
    assert printed.rstrip().endswith("2 items checked: 1 error, 0 warnings")
    report = out.read_text(encoding="utf-8")
    assert report.startswith("## prereq review") and "| PRQ200 | error |" in report


def test_github_annotations_and_json(pr, capsys, monkeypatch) -> None:
    monkeypatch.chdir(pr.root / "registry")
    assert cli.main(["validate", "--base", "main", "--format", "github"]) == 1
    assert "::error file=registry/prerequisites/tool2.yaml,line=2,col=10,title=PRQ200::" in capsys.readouterr().out
    assert cli.main(["validate", "--base", "main", "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["items"] == 2 and data["base"]["ref"] == "main" and not data["trivially_safe"]
    assert [(c["name"], c["bump"]) for c in data["changes"]] == [("tool", "patch"), ("tool2", None)]


def test_a_clean_change_exits_0_and_prints_the_report_with_dash(tmp_path: Path, capsys, monkeypatch) -> None:
    repo = make_pr(tmp_path / "repo", {"prerequisites/tool.yaml": item("tool")},
                   {"prerequisites/tool.yaml": item("tool", "1.0.1", command="echo fixed")})  # fmt: skip
    monkeypatch.chdir(repo.root)
    assert cli.main(["validate", "--base", "main", "--author", "alice", "--report", "-"]) == 0
    printed = capsys.readouterr().out
    assert "trivially safe" in printed and "**Trivially safe**" in printed


def test_a_missing_base_exits_2_with_the_fetch_hint(pr, tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(pr.root)
    pr.git("remote", "add", "origin", str(tmp_path / "nowhere"))
    assert cli.main(["validate", "--base", "origin/nope"]) == 2
    err = capsys.readouterr().err
    assert "prereq: error: the base 'origin/nope' is not in this clone" in err
    assert "git fetch origin nope" in err and "fetch-depth: 0" in err


def test_a_shallow_clone_exits_2_with_the_unshallow_hint(pr, tmp_path: Path, capsys, monkeypatch) -> None:
    clone = tmp_path / "clone"
    pr.git("clone", "-q", "--depth", "1", "--branch", "pr", f"file://{pr.root}", str(clone))
    monkeypatch.chdir(clone)
    assert cli.main(["validate", "--base", "origin/main"]) == 2
    err = capsys.readouterr().err
    assert "shallow" in err and "git fetch --unshallow" in err


def test_author_and_report_need_base(pr, capsys, monkeypatch) -> None:
    monkeypatch.chdir(pr.root)
    assert cli.main(["validate", "--author", "alice"]) == 2
    assert "--author and --report need --base REF" in capsys.readouterr().err


def test_plain_validate_is_unchanged(pr, capsys, monkeypatch) -> None:
    monkeypatch.chdir(pr.root)
    assert cli.main(["validate"]) == 0
    assert "reviewed against" not in capsys.readouterr().out


def test_the_help_teaches_the_review_with_an_example(capsys) -> None:
    with pytest.raises(SystemExit):
        cli.main(["validate", "--help"])
    text = capsys.readouterr().out
    assert "--base REF" in text and "fetch-depth: 0" in text
    assert "prereq validate --base origin/main --author alice --report impact.md" in text


def test_publishing_the_registry_a_review_passed_counts_one_item_as_one(tmp_path: Path, capsys) -> None:
    """What the publish workflow prints after a merge: 'published 1 item', not '1 items'."""
    repo = make_pr(tmp_path / "repo", {"prerequisites/tool.yaml": item("tool")}, {}, commit_head=False)
    out = tmp_path / "site"
    assert cli.main(["build", "--registry", str(repo.root / "registry"), "--out", str(out), "--no-site"]) == 0
    assert f"published 1 item to {out} (commit " in capsys.readouterr().out


def test_the_impact_report_names_files_from_the_repository_root_like_the_annotations(
    pr, tmp_path: Path, capsys, monkeypatch
) -> None:
    """Issue 28: the report said prerequisites/tool2.yaml where every other format says registry/...;
    run from inside the registry, so that neither the current folder nor the registry is the base."""
    monkeypatch.chdir(pr.root / "registry" / "prerequisites")
    out = tmp_path / "impact.md"
    assert cli.main(["validate", "--base", "main", "--format", "github", "--report", str(out)]) == 1
    annotated = {
        line.split("file=")[1].split(",")[0] for line in capsys.readouterr().out.splitlines() if "file=" in line
    }
    assert annotated == {"registry/prerequisites/tool2.yaml"}
    rows = [line for line in out.read_text(encoding="utf-8").splitlines() if line.startswith("| PRQ")]
    assert rows and all(f"| {path}:" in row for row in rows for path in annotated), rows
