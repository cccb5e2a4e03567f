"""The execution catalog's rules (PRQ3xx): one fixture registry per rule, run as ``prereq validate`` runs
them (the registry's validation with the catalog's problems added), and the catalog's loading."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from check_helpers import EXECUTION_FIXTURE_DIRS, assert_fixture_result, found
from gitrepo import GitRepo
from prereq import cli
from prereq.execution.catalog_validation import check_catalog, with_catalog
from prereq.registry.rules import rule_reference_markdown
from prereq.registry.validate import validate
from prereq.review.rules import ALL_RULES

REPO = Path(__file__).resolve().parents[1]


def _registry(fixture: Path, tmp_path: Path) -> Path:
    """The fixture as a registry; one with a published/ tree gets it committed first, then itself on top."""
    if not (fixture / "published").is_dir():
        return fixture
    repo = GitRepo(tmp_path / "repo")
    shutil.copytree(fixture / "published", repo.root / "registry")
    repo.commit("published")
    ignore = shutil.ignore_patterns("published", "expected.json")
    shutil.copytree(fixture, repo.root / "registry", dirs_exist_ok=True, ignore=ignore)
    return repo.root / "registry"


@pytest.mark.parametrize("fixture", EXECUTION_FIXTURE_DIRS, ids=[p.name for p in EXECUTION_FIXTURE_DIRS])
def test_rule_fixture_reports_exactly_the_expected_problems(fixture: Path, tmp_path: Path) -> None:
    rule_id = fixture.name.split("-")[0]
    expected = json.loads((fixture / "expected.json").read_text(encoding="utf-8"))
    assert expected and all(entry["rule"] == rule_id for entry in expected), "a fixture shows its own rule only"
    root = _registry(fixture, tmp_path)

    assert_fixture_result(with_catalog(validate(root)), expected, root)


def test_the_bundled_catalog_is_clean_and_realistic() -> None:
    result = validate(REPO / "registry")
    checked = check_catalog(result.root, owners=result.owners, items=result.items)
    assert checked.problems == []
    catalog = checked.catalog
    assert {ref.name for ref in catalog.environments} >= {"python", "pytorch-gpu", "cpp"}
    assert any(env.gpu for env in catalog.environments.values())
    assert "3 hours/4G on Python" in {queue.title for queue in catalog.queues.values()}
    assert any(lib.depends and catalog.libraries[lib.depends[0]].depends for lib in catalog.libraries.values())
    assert {row.group for row in catalog.rights} >= set(result.owners.teams) - {"data-team"} | {"everyone"}


def test_a_registry_without_a_catalog_has_no_catalog_problems() -> None:
    result = validate(REPO / "tests" / "fixtures" / "rules" / "clean")
    assert with_catalog(result) is result


def test_the_rule_reference_documents_every_catalog_rule() -> None:
    reference = rule_reference_markdown(ALL_RULES)
    for fixture in EXECUTION_FIXTURE_DIRS:
        assert f"## {fixture.name.split('-')[0]}" in reference


def test_prereq_validate_reports_the_catalog(capsys, monkeypatch) -> None:
    monkeypatch.chdir(EXECUTION_FIXTURE_DIRS[0].parent)
    code = cli.main(["validate", "PRQ308-slots-per-machine-over-total", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    assert [(p["rule"], p["file"], p["line"]) for p in report["problems"]] == [("PRQ308", "queues/q1.yaml", 6)]


def test_prereq_build_refuses_a_catalog_with_errors(tmp_path: Path) -> None:
    from prereq.marketplace.build import build

    fixture = next(p for p in EXECUTION_FIXTURE_DIRS if p.name.startswith("PRQ304"))
    result = build(fixture, tmp_path / "out", with_site=False)
    assert not result.built
    assert {p.rule for p in result.problems} == {"PRQ304"}


def test_a_link_in_the_catalog_is_refused_as_in_the_registry(tmp_path: Path) -> None:
    fixture = next(p for p in EXECUTION_FIXTURE_DIRS if p.name.startswith("PRQ312"))
    root = tmp_path / "registry"
    shutil.copytree(fixture, root, ignore=shutil.ignore_patterns("expected.json"))
    (root / "queues" / "q2.yaml").unlink()
    (root / "queues" / "q2.yaml").symlink_to(root / "queues" / "q1.yaml")
    (root / "environments" / "py" / "0.9.0.yaml").write_text("- a list\n")
    result = with_catalog(validate(root))
    assert found(result) == {("PRQ107", "queues/q2.yaml", None), ("PRQ105", "environments/py/0.9.0.yaml", 1)}
    hint = next(p.hint for p in result.problems if p.rule == "PRQ105")
    assert hint.startswith("write the environment as 'key: value' lines")


def test_every_version_of_a_look_alike_catalog_name_is_reported(tmp_path: Path) -> None:
    """PRQ317 folds names as items' PRQ121 does; a name that only looks like another is reported at each
    of its versions, the other name's never."""
    fixture = next(p for p in EXECUTION_FIXTURE_DIRS if p.name.startswith("PRQ317"))
    root = tmp_path / "registry"
    shutil.copytree(fixture, root, ignore=shutil.ignore_patterns("expected.json"))
    later = root / "libraries" / "array_utils" / "2.0.0.yaml"
    later.write_text(later.with_name("1.0.0.yaml").read_text().replace("1.0.0\n", "2.0.0\n", 1))
    registry = validate(root)
    result = check_catalog(root, owners=registry.owners, items=registry.items, history=False)
    libraries = [p for p in result.problems if p.rule == "PRQ317" and p.file and p.file.startswith("libraries/")]
    assert [(p.file, p.line) for p in libraries] == [
        ("libraries/array_utils/1.0.0.yaml", 1),
        ("libraries/array_utils/2.0.0.yaml", 1),
    ]
    assert {p.message for p in libraries} == {
        "library name 'array_utils' collides with 'array-utils' (libraries/array-utils/1.0.0.yaml)"
    }


def test_a_credential_in_owners_yaml_or_rights_yaml_is_found_where_it_is(tmp_path: Path) -> None:
    """The catalog publishes owners.yaml's users and teams as groups, and rights.yaml whole: both are
    scanned as the catalog's files are (PRQ318), a key as well as a value, never showing it."""
    fixture = next(p for p in EXECUTION_FIXTURE_DIRS if p.name.startswith("PRQ318"))
    root = tmp_path / "registry"
    shutil.copytree(fixture, root, ignore=shutil.ignore_patterns("expected.json"))
    token = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
    (root / "owners.yaml").write_text(f"users: [alice, {token}]\n", encoding="utf-8")
    rights = (root / "rights.yaml").read_text(encoding="utf-8")
    (root / "rights.yaml").write_text(f"groups:\n  {token}: [alice]\n" + rights, encoding="utf-8")
    registry = validate(root)
    result = check_catalog(root, owners=registry.owners, items=registry.items, history=False)
    found_here = sorted((p.file, p.line) for p in result.problems if p.rule == "PRQ318")
    assert found_here == [("environments/py-base/1.0.0.yaml", 6), ("owners.yaml", 1), ("rights.yaml", 2)]
    assert not any(token in p.message for p in result.problems)
