"""The validator's rules: one fixture registry per rule, the rule table, and which check may
emit which rule."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from check_helpers import (
    EXECUTION_FIXTURE_DIRS,
    FIXTURE_DIRS,
    HISTORY_FIXTURE_DIRS,
    REVIEW_FIXTURE_DIRS,
    RULE_FIXTURES,
    assert_fixture_result,
)
from prereq.registry.rules import rule_reference_markdown
from prereq.registry.validate import validate
from prereq.review.rules import ALL_RULES as RULES


@pytest.mark.parametrize("fixture", FIXTURE_DIRS, ids=[p.name for p in FIXTURE_DIRS])
def test_rule_fixture_reports_exactly_the_expected_problems(fixture: Path) -> None:
    rule_id = fixture.name.split("-")[0]
    expected = json.loads((fixture / "expected.json").read_text(encoding="utf-8"))
    assert expected and all(entry["rule"] == rule_id for entry in expected), "a fixture shows its own rule only"

    assert_fixture_result(validate(fixture), expected, fixture)


def test_every_rule_has_a_fixture() -> None:
    every = FIXTURE_DIRS + REVIEW_FIXTURE_DIRS + HISTORY_FIXTURE_DIRS + EXECUTION_FIXTURE_DIRS
    fixture_ids = {p.name.split("-")[0] for p in every}
    assert set(RULES) - fixture_ids == set()
    assert fixture_ids - set(RULES) == set(), "no fixture for a rule that no longer exists"
    for folder in every:
        rule = RULES[folder.name.split("-")[0]]
        assert folder.name == f"{rule.id}-{rule.name}"
        assert (folder / "owners.yaml").is_file() and (folder / "prerequisites").is_dir()


def test_clean_fixture_has_no_problems() -> None:
    result = validate(RULE_FIXTURES / "clean")
    assert result.problems == []
    assert sorted(result.items) == ["digits", "nfs-share", "upload-results"]
    assert not result.failed(strict=True)


def test_rule_table_is_well_formed() -> None:
    assert all(re.fullmatch(r"PRQ\d{3}", rule_id) for rule_id in RULES)
    assert len({rule.name for rule in RULES.values()}) == len(RULES)
    reference = rule_reference_markdown(RULES)
    for rule_id in RULES:
        assert f"## {rule_id}" in reference


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


def test_every_rule_is_declared_by_exactly_one_place_and_emitted_only_there() -> None:
    from prereq.execution.validate import EXECUTION_RULES
    from prereq.registry.checks import CHECKS
    from prereq.registry.history import HISTORY_RULES
    from prereq.registry.loader import LOADER_RULES
    from prereq.registry.suppress import SUPPRESS_RULES
    from prereq.review.checks import REVIEW_RULES

    declared = [rule for check in CHECKS for rule in check.ids]
    declared += [*LOADER_RULES, *REVIEW_RULES, *HISTORY_RULES, *EXECUTION_RULES, *SUPPRESS_RULES]
    assert set(declared) == set(RULES)
    # PRQ170 (unset variables) is checked in items and in job templates alike.
    assert sorted(r for r in set(declared) if declared.count(r) > 1) == ["PRQ170"]


def test_a_check_emitting_an_undeclared_rule_is_a_bug(make_registry) -> None:
    from prereq.registry.checks import _declared
    from prereq.registry.checks.items import check_name
    from prereq.registry.rules import problem

    with pytest.raises(RuntimeError, match="check_name emitted PRQ101"):
        _declared(check_name, [problem("PRQ101", file="x.yaml", line=1, detail="bad")])
