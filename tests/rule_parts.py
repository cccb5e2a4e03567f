"""The parts of a rule, checked, and a rule fixture's expected.json written: what CONTRIBUTING.md's
"Add a rule" relies on.

A rule has an id PRQnnn of its layer's range, in that layer's table (``LAYERS``); a name of its own,
a message, a hint and an explanation; a golden fixture ``tests/fixtures/rules/<id>-<name>/`` whose
``expected.json`` lists it; an entry in the rule reference (``prereq rules`` and the site print the
same page); and a check that declares it.  ``missing_parts`` names what each rule lacks;
tests/test_rule_parts.py holds every rule to it.

Run as a script, it checks the prereq on the path against the repository it lies in
(tests/test_rule_parts.py runs it so in a copy):

    python tests/rule_parts.py parts              what each rule lacks, and fixtures of no rule (JSON)
    python tests/rule_parts.py expected FIXTURE   write FIXTURE/expected.json from what prereq reports
"""

from __future__ import annotations

import importlib
import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
FIXTURES = Path("tests") / "fixtures" / "rules"  # in a repository
# Each layer's table (the module whose RULES it is) and the range of ids it owns.
LAYERS = {"prereq.registry.rules": "PRQ1", "prereq.review.rules": "PRQ2", "prereq.execution.rules": "PRQ3"}
_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def declared() -> list[str]:
    """Every rule id a check declares, once per place that declares it: the registry's checks, its
    loader, history and suppressions, the review's checks and the execution catalog's."""
    from prereq.execution.catalog_validation import EXECUTION_RULES
    from prereq.registry.checks import CHECKS
    from prereq.registry.history import HISTORY_RULES
    from prereq.registry.loader import LOADER_RULES
    from prereq.registry.suppress import SUPPRESS_RULES
    from prereq.review.item_checks import REVIEW_RULES

    ids = [rule for check in CHECKS for rule in check.ids]
    return ids + [*LOADER_RULES, *HISTORY_RULES, *SUPPRESS_RULES, *REVIEW_RULES, *EXECUTION_RULES]


def _fixture_shows(folder: Path, rule_id: str) -> bool:
    """``folder`` is a registry (owners.yaml beside the files) whose expected.json lists ``rule_id`` only."""
    try:
        expected = json.loads((folder / "expected.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    listed = isinstance(expected, list) and bool(expected) and all(row.get("rule") == rule_id for row in expected)
    return listed and (folder / "owners.yaml").is_file()


def missing_parts(repo: Path) -> dict[str, list[str]]:
    """What each rule of any layer's table lacks, by id (a rule that lacks nothing is left out), its
    fixture looked for in ``repo``."""
    from prereq.registry.rules import rule_reference_markdown
    from prereq.review.rules import ALL_RULES

    layer = {rule_id: module for module in LAYERS for rule_id in importlib.import_module(module).RULES}
    reference = rule_reference_markdown(ALL_RULES)
    checked = set(declared())
    names = [rule.name for rule in ALL_RULES.values()]
    missing: dict[str, list[str]] = {}
    for rule_id in sorted(set(ALL_RULES) | set(layer)):
        rule = ALL_RULES.get(rule_id)
        if rule is None:
            missing[rule_id] = ["a place in prereq.review.rules.ALL_RULES"]
            continue
        lacks = [] if re.fullmatch(r"PRQ\d{3}", rule_id) else ["an id PRQnnn"]
        if rule_id not in layer or not rule_id.startswith(LAYERS[layer[rule_id]]):
            lacks.append("the table of the layer its range belongs to")
        if not _NAME.fullmatch(rule.name) or names.count(rule.name) > 1:
            lacks.append("a name of its own (lower case words joined by '-')")
        lacks += [part for part in ("message", "hint", "explanation") if not getattr(rule, part).strip()]
        if not _fixture_shows(repo / FIXTURES / f"{rule_id}-{rule.name}", rule_id):
            lacks.append("a fixture")
        if f"\n## {rule_id}\n" not in reference:
            lacks.append("a reference entry")
        if rule_id not in checked:
            lacks.append("a check")
        if lacks:
            missing[rule_id] = lacks
    return missing


def stray_fixtures(repo: Path) -> list[str]:
    """The rule fixtures of ``repo`` named after no rule (``<id>-<name>``): a rule renamed or removed."""
    from prereq.review.rules import ALL_RULES

    named = {f"{rule.id}-{rule.name}" for rule in ALL_RULES.values()}
    return sorted(p.name for p in (repo / FIXTURES).iterdir() if p.name.startswith("PRQ") and p.name not in named)


def _reported(fixture: Path) -> list[Any]:
    """What prereq reports on ``fixture`` as its test runs it: a review's (a ``base/`` tree) against
    its base, any other as ``prereq validate`` sees it (the execution catalog's problems included)."""
    from prereq.execution.catalog_validation import with_catalog
    from prereq.registry.validate import validate
    from prereq.review.review import review
    from prereq.review.rules import ALL_RULES

    if (fixture / "base").is_dir():
        from review_helpers import fixture_author, fixture_repo

        with tempfile.TemporaryDirectory() as folder:
            repo = fixture_repo(fixture, Path(folder) / "repo")
            return review(repo.root / "registry", base="main", author=fixture_author(fixture)).review_problems
    if any((fixture / tree).is_dir() for tree in ("earlier", "published")):
        raise SystemExit(f"{fixture.name} has a history to commit first: write its expected.json by hand")
    return with_catalog(validate(fixture, rules=ALL_RULES)).problems


def write_expected(fixture: Path) -> str:
    """Write the fixture's expected.json (one problem a line, as the others are); what to tell the author."""
    rule_id = fixture.name.split("-")[0]
    problems = _reported(fixture)
    others = sorted({p.rule for p in problems} - {rule_id})
    if others or not problems:
        shown = ", ".join(others) if others else "nothing"
        raise SystemExit(f"{fixture.name}: prereq reports {shown}; a fixture shows its own rule, and only it")
    rows = []
    for p in sorted(problems, key=lambda p: p.sort_key()):
        row = {"rule": p.rule, "file": p.file, "line": p.line}
        rows.append(json.dumps(row | ({"column": p.column} if p.column is not None else {})))
    (fixture / "expected.json").write_text("[\n  " + ",\n  ".join(rows) + "\n]\n", encoding="utf-8")
    counted = f"{len(rows)} problem{'s' * (len(rows) != 1)}"
    return f"wrote {fixture / 'expected.json'} ({counted}): check each line against the fixture"


if __name__ == "__main__":
    match sys.argv[1:]:
        case ["parts"]:
            print(json.dumps({"missing": missing_parts(REPO), "stray": stray_fixtures(REPO)}))
        case ["expected", fixture]:
            print(write_expected(Path(fixture).resolve()))
        case _:
            raise SystemExit(__doc__)
