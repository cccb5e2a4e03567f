"""A false positive of the secrets scan in older versions: when the item's current file suppresses
it (PRQ190, by ``suppress:`` or a comment on the line), the build publishes the older versions that
hold the same line; a version holding any other credential stays withheld."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from check_helpers import published_text
from gitrepo import GitRepo, item_yaml
from prereq.marketplace.build import build

# Anonymous FTP: user and password are both "anonymous" by convention, which the scan cannot know.
FETCH = "wget -q https://anonymous:anonymous@ftp.gnu.org/gnu/hello/hello-2.12.tar.gz -P /tmp"
TOKEN = "".join(("gh", "p_", "R7tLq2Vx9Kd4Mw8Ns1Pz6Bc3Hf5Jg0Ya2Eu7"))  # put together: no scanner's food
CLONE = f"git clone https://{TOKEN}@github.com/team/tools.git /opt/tools"
SUPPRESSIONS = {
    "item": ("", "suppress: [PRQ190]\n"),
    "comment": ("  # prereq: disable=PRQ190 -- anonymous FTP", ""),
}


def _published(tmp_path: Path, how: str) -> tuple[list[str], list[str]]:
    comment, extra = SUPPRESSIONS[how]
    repo = GitRepo(tmp_path / "repo")
    repo.write("registry/owners.yaml", "users: [alice]\n")
    path = "registry/prerequisites/hello.yaml"
    repo.write(path, item_yaml("hello", "1.0.0", commands=[FETCH]))
    repo.commit("hello", date="2026-01-01T00:00:00+00:00")
    repo.write(path, item_yaml("hello", "1.0.1", commands=[FETCH, CLONE]))
    repo.commit("and the team's tools", date="2026-01-02T00:00:00+00:00")
    repo.write(path, item_yaml("hello", "1.1.0", commands=[FETCH + comment, "ls /tmp"], extra=extra))
    repo.commit("no token; the anonymous FTP login is no credential", date="2026-01-03T00:00:00+00:00")
    out = tmp_path / "out"
    result = build(repo.root / "registry", out, with_site=False)
    assert result.built, result.problems
    assert [p.problem.rule for p in result.validation.suppressed] == ["PRQ190"]
    document = json.loads((out / "api" / "v1" / "prerequisites" / "hello.json").read_text(encoding="utf-8"))
    assert TOKEN not in published_text(out)
    return [v["version"] for v in document["versions"]], result.warnings


@pytest.mark.parametrize("how", sorted(SUPPRESSIONS))
def test_the_current_files_suppression_clears_the_same_line_in_older_versions(tmp_path: Path, how: str) -> None:
    versions, warnings = _published(tmp_path, how)
    assert versions == ["1.0.0", "1.1.0"]
    # 1.0.1 also held a token, on another line: withheld whatever the current file suppresses.
    assert [w for w in warnings if "PRQ192" in w] == [
        next(w for w in warnings if w.startswith("hello 1.0.1 (commit ") and "holds a GitHub token" in w)
    ]


@pytest.mark.parametrize("how", sorted(SUPPRESSIONS))
def test_validate_reports_only_the_versions_the_build_withholds(tmp_path: Path, how: str) -> None:
    """PRQ192 says a version is never published: it names 1.0.1 (the token), not 1.0.0, whose only
    finding is the line today's file suppresses, and which the build publishes."""
    from prereq.registry.validate import validate

    versions, _ = _published(tmp_path, how)
    history = [p for p in validate(tmp_path / "repo" / "registry", history=True).problems if p.rule == "PRQ192"]
    assert "1.0.0" in versions and [p.message.split(" (commit")[0] for p in history] == [
        next(p.message.split(" (commit")[0] for p in history if "1.0.1" in p.message)
    ]
    assert all("1.0.0" not in p.message for p in history)
