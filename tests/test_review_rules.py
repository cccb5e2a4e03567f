"""The review's rules (PRQ2xx): one golden fixture per rule, each a base and a head made into a real
repository, and the rules' place in the table and the reference."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from check_helpers import REVIEW_FIXTURE_DIRS
from prereq.registry.rules import rule_reference_markdown
from prereq.review.item_checks import REVIEW_RULES
from prereq.review.review import review
from prereq.review.rules import ALL_RULES
from review_helpers import fixture_author, fixture_repo


@pytest.mark.parametrize("fixture", REVIEW_FIXTURE_DIRS, ids=[p.name for p in REVIEW_FIXTURE_DIRS])
def test_review_fixture_reports_exactly_the_expected_problems(fixture: Path, tmp_path: Path) -> None:
    rule_id = fixture.name.split("-")[0]
    expected = json.loads((fixture / "expected.json").read_text(encoding="utf-8"))
    assert expected and all(entry["rule"] == rule_id for entry in expected), "a fixture shows its own rule only"
    repo = fixture_repo(fixture, tmp_path / "repo")

    reviewed = review(repo.root / "registry", base="main", author=fixture_author(fixture))

    assert {(p.rule, p.file, p.line) for p in reviewed.review_problems} == {
        (e["rule"], e["file"], e["line"]) for e in expected
    }
    for p in reviewed.review_problems:
        assert p.severity is ALL_RULES[p.rule].severity
        assert p.message and p.hint
        assert not re.search(r"\{[a-z_]+(!r)?\}", p.message + p.hint), "templates are filled"
        assert (p.line is None) == (p.column is None)
        if p.file is not None:
            assert (repo.root / "registry" / p.file).exists(), "paths are relative to the registry root"
        assert p in reviewed.result.problems, "the review's findings are among the result's"


def test_every_review_rule_has_a_fixture_and_a_reference_entry() -> None:
    assert {p.name.split("-")[0] for p in REVIEW_FIXTURE_DIRS} == set(REVIEW_RULES)
    # the review's own range, and the execution catalog's rule that only a review can tell (PRQ316)
    assert all(re.fullmatch(r"PRQ2\d\d", rule_id) for rule_id in REVIEW_RULES if rule_id != "PRQ316")
    reference = rule_reference_markdown(ALL_RULES)
    for rule_id in REVIEW_RULES:
        assert f"## {rule_id}" in reference
        assert ALL_RULES[rule_id].explanation in reference


def test_the_plain_validation_of_a_review_fixture_head_reports_none_of_its_rules(tmp_path: Path) -> None:
    """The review's rules need a base: plain validation never emits them."""
    from prereq.registry.validate import validate

    for fixture in REVIEW_FIXTURE_DIRS:
        assert not {p.rule for p in validate(fixture).problems} & set(REVIEW_RULES), fixture.name
