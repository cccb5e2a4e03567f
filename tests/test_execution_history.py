"""The catalog's index file publishes every version of an environment or a library its git history held,
as the index does for items: deleted versions stay, each keeps its last content and is dated by its
first commit, broken revisions are left out with a warning, and two builds of one commit are equal."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from execution_helpers import IMAGE, OWNERS, TOOL, environment, library, queue
from gitrepo import GitRepo
from prereq.marketplace.build import build
from prereq.registry.schemas import load_schema

RIGHTS = "rights:\n  - {queue: q1, group: default, slots: 2, priority: 0}\n"
FIRST, SECOND, THIRD = "2026-01-01T00:00:00+00:00", "2026-02-01T00:00:00+00:00", "2026-03-01T00:00:00+00:00"


@pytest.fixture
def history(tmp_path: Path) -> GitRepo:
    """py 1.0.0 changed, then deleted for 1.1.0; lib-a 1.0.0 and lib-b 1.0.0 (on lib-a) deleted for lib-a
    1.1.0; a py 0.9.0 that never matched the schema and a lib-c on a library never published, deleted."""
    repo = GitRepo(tmp_path / "repo")
    reg = "registry/"
    for rel, text in {
        "owners.yaml": OWNERS,
        "prerequisites/base-image.yaml": IMAGE,
        "prerequisites/tool-setup.yaml": TOOL,
        "environments/py/1.0.0.yaml": environment().replace("3.11.9", "3.11.8"),
        "environments/py/0.9.0.yaml": environment(version="0.9.0", extra="colour: blue\n"),
        "queues/q1.yaml": queue(),
        "rights.yaml": RIGHTS,
        "libraries/lib-a/1.0.0.yaml": library("lib-a"),
        "libraries/lib-b/1.0.0.yaml": library("lib-b", depends="[lib-a@1.0.0]"),
        "libraries/lib-c/1.0.0.yaml": library("lib-c", depends="[lib-z@1.0.0]"),
    }.items():
        repo.write(reg + rel, text)
    repo.commit("first", date=FIRST)
    repo.write(reg + "environments/py/1.0.0.yaml", environment())  # its last content: what is published
    repo.commit("second", date=SECOND)
    for rel in ("environments/py/1.0.0.yaml", "environments/py/0.9.0.yaml", "libraries/lib-a/1.0.0.yaml"):
        repo.remove(reg + rel)
    for rel in ("libraries/lib-b/1.0.0.yaml", "libraries/lib-c/1.0.0.yaml"):
        repo.remove(reg + rel)
    repo.write(reg + "environments/py/1.1.0.yaml", environment(version="1.1.0"))
    repo.write(reg + "queues/q1.yaml", queue(envs="[py@1.1.0]"))
    repo.write(reg + "libraries/lib-a/1.1.0.yaml", library("lib-a", envs="[py@1.1.0]").replace("1.0.0\n", "1.1.0\n"))
    repo.commit("third", date=THIRD)
    return repo


def _build(repo: GitRepo, out: Path) -> tuple[dict, list[str]]:
    result = build(repo.root / "registry", out, with_site=False)
    assert result.built, result.problems
    document = json.loads((out / "api" / "v1" / "execution" / "catalog.json").read_text(encoding="utf-8"))
    return document, result.warnings


def _by_ref(entries: list[dict]) -> dict[str, dict]:
    return {f"{e['name']}@{e['version']}": e for e in entries}


def test_deleted_versions_stay_published_with_their_last_content(history: GitRepo, tmp_path: Path) -> None:
    document, _ = _build(history, tmp_path / "out")
    environments = _by_ref(document["environments"])
    assert sorted(environments) == ["py@1.0.0", "py@1.1.0"]
    old, new = environments["py@1.0.0"], environments["py@1.1.0"]
    assert old["packages"] == {"python": "3.11.9"}  # the second commit's, not the first's
    assert old["published"] == FIRST and old["source"] is None and old["queues"] == []
    assert new["published"] == THIRD and new["source"] == "registry/environments/py/1.1.0.yaml"
    assert new["queues"] == ["q1"]


def test_an_old_library_keeps_its_old_chain(history: GitRepo, tmp_path: Path) -> None:
    document, _ = _build(history, tmp_path / "out")
    libraries = _by_ref(document["libraries"])
    assert sorted(libraries) == ["lib-a@1.0.0", "lib-a@1.1.0", "lib-b@1.0.0"]
    assert libraries["lib-b@1.0.0"]["closure"] == ["lib-a@1.0.0", "lib-b@1.0.0"]
    assert libraries["lib-b@1.0.0"]["effective_environments"] == ["py@1.0.0"]
    assert libraries["lib-b@1.0.0"]["source"] is None
    assert environments_of(document, "py@1.0.0") == ["lib-a@1.0.0", "lib-b@1.0.0"]
    assert environments_of(document, "py@1.1.0") == ["lib-a@1.1.0"]


def environments_of(document: dict, ref: str) -> list[str]:
    return _by_ref(document["environments"])[ref]["libraries"]


def test_revisions_that_cannot_be_published_are_left_out_with_a_warning(history: GitRepo, tmp_path: Path) -> None:
    document, warnings = _build(history, tmp_path / "out")
    assert "py@0.9.0" not in _by_ref(document["environments"])
    assert "lib-c@1.0.0" not in _by_ref(document["libraries"])
    catalog = [w for w in warnings if w.startswith("execution catalog: ")]
    assert len(catalog) == 2, warnings
    assert "environments/py/0.9.0.yaml (commit " in catalog[0] and "unknown key 'colour'" in catalog[0]
    assert catalog[1].endswith("library lib-c@1.0.0: depends on lib-z@1.0.0, which was never published, left out")


def test_two_builds_of_one_commit_are_byte_identical(history: GitRepo, tmp_path: Path) -> None:
    _build(history, tmp_path / "a")
    _build(history, tmp_path / "b")
    rel = Path("api") / "v1" / "execution" / "catalog.json"
    assert (tmp_path / "a" / rel).read_bytes() == (tmp_path / "b" / rel).read_bytes()
    document = json.loads((tmp_path / "a" / rel).read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(load_schema("index.schema.json"))
    assert list(validator.iter_errors(document)) == []
    broken = {**document, "environments": [{**document["environments"][0], "published": 2026}]}
    assert list(validator.iter_errors(broken))


def test_an_uncommitted_version_is_published_undated(history: GitRepo, tmp_path: Path) -> None:
    history.write("registry/environments/py/1.2.0.yaml", environment(version="1.2.0"))
    history.write("registry/queues/q1.yaml", queue(envs="[py@1.1.0, py@1.2.0]"))
    document, _ = _build(history, tmp_path / "out")
    entry = _by_ref(document["environments"])["py@1.2.0"]
    assert entry["published"] is None and entry["source"] == "registry/environments/py/1.2.0.yaml"


def test_outside_git_only_the_current_versions_are_published(history: GitRepo, tmp_path: Path) -> None:
    import shutil

    registry = tmp_path / "copy"
    shutil.copytree(history.root / "registry", registry)
    result = build(registry, tmp_path / "out", with_site=False)
    assert result.built, result.problems
    document = json.loads((tmp_path / "out" / "api" / "v1" / "execution" / "catalog.json").read_text())
    assert sorted(_by_ref(document["environments"])) == ["py@1.1.0"]
    assert _by_ref(document["environments"])["py@1.1.0"]["source"] is None


def test_a_credential_a_catalog_version_once_held_is_reported_and_never_published(tmp_path: Path, capsys) -> None:
    """PRQ192 over the catalog's history, as over items': the version is left out of the index, and
    `prereq validate` names it; the catalog as it is now (PRQ318's) is not reported twice."""
    from prereq import cli

    repo = GitRepo(tmp_path / "repo")
    leaked = environment(
        version="1.0.0", extra="description: from https://ci:Hunter2Secret9@pypi.corp.internal/simple\n"
    )
    for rel, text in {
        "owners.yaml": OWNERS,
        "prerequisites/base-image.yaml": IMAGE,
        "prerequisites/tool-setup.yaml": TOOL,
        "environments/py/1.0.0.yaml": leaked,
        "queues/q1.yaml": queue(),
        "rights.yaml": RIGHTS,
    }.items():
        repo.write("registry/" + rel, text)
    first = repo.commit("first", date=FIRST)
    repo.remove("registry/environments/py/1.0.0.yaml")
    repo.write("registry/environments/py/1.1.0.yaml", environment(version="1.1.0"))
    repo.write("registry/queues/q1.yaml", queue(envs="[py@1.1.0]"))
    repo.commit("second", date=SECOND)

    assert cli.main(["validate", str(repo.root / "registry"), "--format", "json"]) == 1
    found = [(p["rule"], p["file"]) for p in json.loads(capsys.readouterr().out)["problems"]]
    assert found == [("PRQ192", "environments/py/1.0.0.yaml")]
    document, warnings = _build(repo, tmp_path / "out")
    assert "py@1.0.0" not in _by_ref(document["environments"]) and "py@1.1.0" in _by_ref(document["environments"])
    assert any(first[:10] in w and "PRQ192" in w for w in warnings), warnings
    assert "Hunter2Secret9" not in (tmp_path / "out" / "api" / "v1" / "execution" / "catalog.json").read_text()
