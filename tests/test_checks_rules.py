"""The registry's rules: one fixture registry per rule, and a check may emit only the rules it declares
(that every rule has its parts, fixture and check among them: tests/test_rule_parts.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from check_helpers import FIXTURE_DIRS, RULE_FIXTURES, assert_fixture_result
from prereq.registry.validate import validate


@pytest.mark.parametrize("fixture", FIXTURE_DIRS, ids=[p.name for p in FIXTURE_DIRS])
def test_rule_fixture_reports_exactly_the_expected_problems(fixture: Path) -> None:
    rule_id = fixture.name.split("-")[0]
    expected = json.loads((fixture / "expected.json").read_text(encoding="utf-8"))
    assert expected and all(entry["rule"] == rule_id for entry in expected), "a fixture shows its own rule only"

    assert_fixture_result(validate(fixture), expected, fixture)


def test_clean_fixture_has_no_problems() -> None:
    result = validate(RULE_FIXTURES / "clean")
    assert result.problems == []
    assert sorted(result.items) == ["digits", "nfs-share", "upload-results"]
    assert not result.failed(strict=True)


def test_the_fast_schema_check_agrees_with_the_explaining_one() -> None:
    """schemas.check_item trusts jsonschema-rs for 'valid'; it must never call an invalid item valid."""
    import jsonschema

    from prereq.core.yamlload import YamlLoadError, load_yaml
    from prereq.registry import schemas
    from prereq.registry.loader import _non_string_keys

    explaining = jsonschema.Draft202012Validator(schemas.load_schema("prerequisite.schema.json"))
    fast = schemas._fast_validator("prerequisite.schema.json")
    repo = Path(__file__).resolve().parents[1]
    files = sorted(repo.glob("registry/prerequisites/*.yaml")) + sorted(repo.glob("tests/fixtures/**/*.yaml"))
    invalid = 0
    for path in files:
        try:
            data = load_yaml(path.read_bytes()).data
        except YamlLoadError:
            continue
        if any(_non_string_keys(data)):
            continue  # the loader refuses such a file (PRQ108) before any schema sees it
        valid = not any(True for _ in explaining.iter_errors(data))
        assert fast.is_valid(data) == valid, path
        invalid += not valid
    assert invalid >= 15  # the rule fixtures do hold invalid items


def test_a_check_emitting_an_undeclared_rule_is_a_bug(make_registry) -> None:
    from prereq.registry.checks import _declared
    from prereq.registry.checks.items import check_name
    from prereq.registry.rules import problem

    with pytest.raises(RuntimeError, match="check_name emitted PRQ101"):
        _declared(check_name, [problem("PRQ101", file="x.yaml", line=1, detail="bad")])
