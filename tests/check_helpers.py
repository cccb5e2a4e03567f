"""Helpers for the validator's tests (tests/test_checks_*.py): the rule fixtures, a valid item's text,
the problems a result holds, as sets and as (message, hint) pairs, and what a build published."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

RULE_FIXTURES = Path(__file__).resolve().parent / "fixtures" / "rules"
# The execution catalog's (PRQ3xx) need prereq.execution on top of the registry's validation:
# tests/test_execution_rules.py runs those (a PRQ3xx fixture with a base/ tree is a review's).
EXECUTION_FIXTURE_DIRS = sorted(
    p for p in RULE_FIXTURES.iterdir() if p.is_dir() and p.name.startswith("PRQ3") and not (p / "base").is_dir()
)
# A fixture with a base/ tree is a review's (PRQ2xx: a base and a head): tests/test_review_rules.py runs those.
FIXTURE_DIRS = sorted(
    p
    for p in RULE_FIXTURES.iterdir()
    if p.is_dir()
    and p.name.startswith("PRQ")
    and not (p / "base").is_dir()
    and not (p / "earlier").is_dir()
    and p not in EXECUTION_FIXTURE_DIRS
)
REVIEW_FIXTURE_DIRS = sorted(p for p in RULE_FIXTURES.iterdir() if p.is_dir() and (p / "base").is_dir())
# A fixture with earlier/ and no base/ is a history's (PRQ192): earlier/ committed, then the head on top;
# tests/test_secrets_history.py runs those.
HISTORY_FIXTURE_DIRS = sorted(
    p for p in RULE_FIXTURES.iterdir() if p.is_dir() and (p / "earlier").is_dir() and not (p / "base").is_dir()
)


def found(result) -> set[tuple[str, str | None, int | None]]:
    return {(p.rule, p.file, p.line) for p in result.problems}


def item(
    name: str,
    *,
    head: str = "",
    commands: tuple[str, ...] = ("echo ready",),
    type_: str = "script",
    version: str = "1.0.0",
    owners: str = "[alice]",
) -> str:
    """A valid cmd item; ``head`` is inserted before its callbacks."""
    text = f"name: {name}\nversion: {version}\ntype: {type_}\ntitle: {name} item\nowners: {owners}\n"
    if type_ == "data":
        text += "license: MIT\n"
    text += head + "callbacks:\n  - event: taskStarts\n    commands:\n"
    return text + "".join(f"      - {command}\n" for command in commands)


def assert_fixture_result(result, expected: list[dict], root: Path) -> None:
    """``result`` holds exactly the problems a golden fixture's expected.json lists (rule, file, line, and
    column where given), each of its rule's severity, its templates filled, its file under ``root``."""
    from prereq.review.rules import ALL_RULES

    assert found(result) == {(e["rule"], e["file"], e["line"]) for e in expected}
    columns = {(e["rule"], e["file"], e["line"], e["column"]) for e in expected if "column" in e}
    assert columns <= {(p.rule, p.file, p.line, p.column) for p in result.problems}
    for p in result.problems:
        assert p.severity is ALL_RULES[p.rule].severity
        assert p.message and p.hint, p
        assert not re.search(r"\{[a-z_]+(!r)?\}", p.message + p.hint), "templates are filled"
        assert (p.line is None) == (p.column is None)
        if p.file is not None:
            assert (root / p.file).exists(), "paths are relative to the registry root"


def messages(result, rule: str) -> list[tuple[str, str]]:
    return [(p.message, p.hint) for p in result.problems if p.rule == rule]


def published_text(out: Path) -> str:
    """Every file a build wrote under ``out``, as text, gzipped ones (the item packs) inflated: what a
    reader of the published site can see."""
    files = sorted(p for p in out.rglob("*") if p.is_file()) if out.exists() else []
    raw = (gzip.decompress(p.read_bytes()) if p.suffix == ".gz" else p.read_bytes() for p in files)
    return "\n".join(data.decode("utf-8", errors="replace") for data in raw)
