"""A rule in one place: every rule has all its parts (tests/rule_parts.py says which), each layer's
table holds its own range only, and CONTRIBUTING.md's "Add a rule" adds a rule end to end: its
example, applied step by step to a copy of the repository, is a rule that ``prereq rules``, the site
and the validator know, and whose parts are complete only once the last step is done."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from prereq.registry.rules import RULES as REGISTRY_RULES
from prereq.registry.rules import Rule, RuleTable, Severity
from prereq.review.rules import ALL_RULES
from rule_parts import declared, missing_parts, stray_fixtures

REPO = Path(__file__).resolve().parents[1]
# What a newcomer's copy of the repository needs to walk the checklist: the package, what the build
# reads (schema, site, mkdocs.yml), the rule fixtures and the tests the last step runs.
COPIED = ("tools/prereq", "schema", "site", "mkdocs.yml", "pyproject.toml", "tests/fixtures/rules")
COPIED_TESTS = ("conftest.py", "check_helpers.py", "review_helpers.py", "gitrepo.py", "rule_parts.py")
COPIED_TESTS += ("test_checks_rules.py", "test_rule_parts.py")


def test_every_rule_has_all_its_parts() -> None:
    assert missing_parts(REPO) == {}
    assert stray_fixtures(REPO) == [], "a fixture of a rule renamed or removed"


def test_every_declared_id_is_a_rule_declared_in_one_place() -> None:
    ids = declared()
    assert set(ids) == set(ALL_RULES)
    # PRQ170 (unset variables) is checked in items and in job templates alike.
    assert sorted(rule for rule in set(ids) if ids.count(rule) > 1) == ["PRQ170"]


def test_all_rules_are_the_three_layers_tables_joined() -> None:
    from prereq.execution.rules import RULES as EXECUTION_RULES
    from prereq.review.rules import RULES as REVIEW_RULES

    layers = {"PRQ1": REGISTRY_RULES, "PRQ2": REVIEW_RULES, "PRQ3": EXECUTION_RULES}
    assert all(table.owns == owns and all(i.startswith(owns) for i in table) for owns, table in layers.items())
    assert dict(ALL_RULES) == {i: rule for table in layers.values() for i, rule in table.items()}


def _rule(rule_id: str, name: str = "sample") -> Rule:
    return Rule(rule_id, name, Severity.WARNING, "a message", "a hint", "An explanation.")


def test_a_table_refuses_an_id_outside_its_range_or_written_twice() -> None:
    with pytest.raises(ValueError, match=r"PRQ201 \(sample\) is not an id of the range PRQ1"):
        RuleTable([_rule("PRQ201")], owns="PRQ1")
    with pytest.raises(ValueError, match="PRQ1000"):
        RuleTable([_rule("PRQ1000")], owns="PRQ1")
    with pytest.raises(ValueError, match="PRQ199 is in the table twice"):
        RuleTable([_rule("PRQ199"), _rule("PRQ199", "again")], owns="PRQ1")
    with pytest.raises(ValueError, match="PRQ101 is in the table twice"):
        RuleTable.joined(REGISTRY_RULES, RuleTable([_rule("PRQ101")], owns="PRQ1"))


# The checklist's example, as CONTRIBUTING.md shows it.


def _steps() -> tuple[list[tuple[str, str]], list[str]]:
    """The section "Add a rule" of CONTRIBUTING.md: its files to write or add to (a fenced block
    titled with its path, in order) and its commands (its ``sh`` blocks' lines)."""
    text = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    section = text.split("\n### Add a rule\n", 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
    fence = re.compile(r"^( *)```(\w+)( title=\"([^\"]+)\")?\n(.*?)^\1```$", re.M | re.S)
    blocks = [(m[2], m[4], textwrap.dedent(m[5])) for m in fence.finditer(section)]
    files = [(path, body) for _, path, body in blocks if path]
    commands = [line for kind, _, body in blocks if kind == "sh" for line in body.splitlines() if line.strip()]
    return files, commands


def _copy(root: Path) -> Path:
    ignore = shutil.ignore_patterns("__pycache__", ".prereq-cache")
    for rel in COPIED:
        source, target = REPO / rel, root / rel
        if source.is_dir():
            shutil.copytree(source, target, ignore=ignore)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(source, target)
    for name in COPIED_TESTS:
        shutil.copy(REPO / "tests" / name, root / "tests" / name)
    return root


def _apply(root: Path, path: str, body: str) -> None:
    """What a newcomer does with a block: a ``Rule(...)`` goes at the end of the ``RULES`` tuple of its
    file, a check function above the ``CHECKS`` tuple of its module and its name at that tuple's end;
    any other block is a file of its own."""
    target = root / path
    if body.startswith("Rule("):
        text = target.read_text(encoding="utf-8")
        head, tail = text.split("\nRULES = (\n", 1)
        entries, rest = tail.split("\n)\n", 1)
        target.write_text(f"{head}\nRULES = (\n{entries}\n{textwrap.indent(body, '    ')})\n{rest}", encoding="utf-8")
    elif body.startswith("@"):
        name = re.search(r"^def (\w+)\(", body, re.M)
        assert name is not None, body
        head, tail = target.read_text(encoding="utf-8").split("\nCHECKS = (\n", 1)
        listed, rest = tail.split("\n)\n", 1)
        target.write_text(f"{head}\n{body}\n\nCHECKS = (\n{listed}\n    {name[1]},\n)\n{rest}", encoding="utf-8")
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(body, encoding="utf-8")


def _run(root: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """A command as the checklist spells it (``.venv/bin/...``), run in the copy with its prereq."""
    words = {".venv/bin/python": [sys.executable], ".venv/bin/prereq": [sys.executable, "-m", "prereq"]}
    command = words.get(argv[0], [argv[0]]) + list(argv[1:])
    env = {**os.environ, "PYTHONPATH": str(root / "tools"), "PREREQ_CACHE": "off"}
    return subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=600)


def _parts(root: Path) -> dict[str, object]:
    run = _run(root, ".venv/bin/python", "tests/rule_parts.py", "parts")
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_the_checklist_adds_a_rule_end_to_end(tmp_path: Path) -> None:
    files, commands = _steps()
    table, check, *fixture = files
    rule_id = re.search(r'"(PRQ\d{3})"', table[1])
    assert rule_id is not None and rule_id[1] not in ALL_RULES, "the example is a rule prereq does not have"
    sample = rule_id[1]
    root = _copy(tmp_path / "copy")

    _apply(root, *table)  # step 2: the table's entry
    assert _parts(root) == {"missing": {sample: ["a fixture", "a check"]}, "stray": []}
    _apply(root, *check)  # step 3: the check
    assert _parts(root) == {"missing": {sample: ["a fixture"]}, "stray": []}
    for path, body in fixture:  # step 4: the fixture, and its expected.json as the checklist writes it
        _apply(root, path, body)
    for command in commands:
        run = _run(root, *shlex.split(command))
        assert run.returncode == 0, run.stderr
    assert _parts(root) == {"missing": {}, "stray": []}
    item, text = next((path, body) for path, body in fixture if "/prerequisites/" in path)
    folder = root / Path(item).parents[1]  # tests/fixtures/rules/<id>-<name>
    rel = Path(item).relative_to(Path(item).parents[1]).as_posix()
    title_line = next(n for n, line in enumerate(text.splitlines(), start=1) if line.startswith("title:"))
    expected = json.loads((folder / "expected.json").read_text(encoding="utf-8"))
    assert [(e["rule"], e["file"], e["line"]) for e in expected] == [(sample, rel, title_line)]

    _the_reference_shows_it(root, tmp_path, sample, folder.name.split("-", 1)[1])  # step 5
    # Step 6: the fixture's test and the parts' test pass in the copy.
    chosen = f"{sample} or test_every_rule_has_all_its_parts"
    tests = _run(root, ".venv/bin/python", "-m", "pytest", "-v", "-p", "no:cacheprovider", "tests", "-k", chosen)
    passed = set(re.findall(r"::(\S+) PASSED", tests.stdout))
    assert tests.returncode == 0, tests.stdout + tests.stderr
    assert passed == {
        "test_every_rule_has_all_its_parts",
        f"test_rule_fixture_reports_exactly_the_expected_problems[{folder.name}]",
    }


def _the_reference_shows_it(root: Path, tmp_path: Path, sample: str, name: str) -> None:
    """``prereq rules`` lists the sample rule, and the site the build makes has its entry."""
    rules = _run(root, ".venv/bin/prereq", "rules")
    assert rules.returncode == 0, rules.stderr
    assert f"| [{sample}](#{sample.lower()}) | `{name}` | warning | yes |" in rules.stdout
    assert f"\n## {sample}\n" in rules.stdout
    out = tmp_path / "site"
    built = _run(root, ".venv/bin/prereq", "build", "--registry", "tests/fixtures/rules/clean", "--out", str(out))
    assert built.returncode == 0, built.stderr
    page = (out / "reference" / "rules" / "index.html").read_text(encoding="utf-8")
    assert f'id="{sample.lower()}"' in page and name in page
