"""Suppressions, in the style of yamllint and ShellCheck (PRQ178, PRQ179, PRQ182).

A comment ``# prereq: disable=PRQ170`` (several ids comma-separated) silences those rules on its own
line, and on the next line too when the comment stands alone on its line: a YAML comment after a
value or above a list entry, or a shell comment inside a block of commands.  An item's ``suppress:
[PRQ170]`` silences the rules for the whole file.  Each suppression names its rules; a suppressed
problem is still shown (as suppressed) in every report, a suppression that silences nothing is a
warning, and one that names no rule or an unknown rule is an error.  The rules the table marks
``guard`` (names, files, schema, owners, published versions) cannot be suppressed: a pull request must
not silence the rule that stops it, so a suppression naming one is an error (PRQ182) and silences
nothing.  Which rules a suppression may name, and which of them guard, comes with the call
(``rules``): the layers above the registry own theirs, and their callers pass every layer's table
(``prereq.review.rules.ALL_RULES``).

May import: the standard library, prereq.registry.loader/rules.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from prereq.registry.loader import ITEMS_DIR, SourceItem
from prereq.registry.rules import Problem, Rule, problem

KEY = "suppress"  # the item-level list
SUPPRESS_RULES = ("PRQ178", "PRQ179", "PRQ182")  # reported here (a test holds each rule to one place)
_DIRECTIVE = re.compile(r"#\s*prereq\s*:\s*disable\b(?P<rest>[^#\n]*)")
_IDS = re.compile(r"^\s*=\s*(?P<ids>[A-Za-z0-9]+(?:\s*,\s*[A-Za-z0-9]+)*)\s*(?:(?:--|:).*)?$")


@dataclass(frozen=True)
class Suppression:
    """One rule silenced in one file: on ``lines`` (a comment's), or everywhere (``lines`` empty: the
    item's ``suppress:`` list).  ``line`` is where the suppression itself is written."""

    file: str
    line: int
    column: int
    rule: str
    lines: tuple[int, ...]

    @property
    def by(self) -> str:
        return f"# prereq: disable at line {self.line}" if self.lines else f"suppress: at line {self.line}"

    def covers(self, found: Problem) -> bool:
        if found.file != self.file or found.rule != self.rule:
            return False
        return not self.lines or found.line in self.lines


@dataclass(frozen=True)
class Suppressed:
    problem: Problem
    suppression: Suppression

    def as_dict(self) -> dict[str, object]:
        return {**self.problem.as_dict(), "suppressed_by": self.suppression.by}


def _ids(file: str, line: int, column: int, text: str, rules: Mapping[str, Rule]) -> tuple[list[str], list[Problem]]:
    match = _IDS.match(text)
    if match is None:
        detail = "'# prereq: disable' names no rule"
        return [], [problem("PRQ179", file=file, line=line, column=column, detail=detail)]
    ids, bad = [], []
    for rule in re.split(r"\s*,\s*", match["ids"]):
        if rule in rules and rules[rule].guard:
            bad.append(problem("PRQ182", file=file, line=line, column=column, rule=rule, name=rules[rule].name))
        elif rule in rules and rule not in SUPPRESS_RULES:
            ids.append(rule)
        else:
            detail = f"{rule} is not a rule that can be suppressed"
            bad.append(problem("PRQ179", file=file, line=line, column=column, detail=detail))
    return ids, bad


def comment_suppressions(file: str, text: str, *, rules: Mapping[str, Rule]) -> tuple[list[Suppression], list[Problem]]:
    found: list[Suppression] = []
    malformed: list[Problem] = []
    if "prereq" not in text:
        return found, malformed  # what most files are
    for number, line in enumerate(text.split("\n"), start=1):
        if "prereq" not in line:
            continue
        for match in _DIRECTIVE.finditer(line):
            ids, bad = _ids(file, number, match.start() + 1, match["rest"], rules)
            malformed += bad
            alone = not line[: match.start()].strip()
            lines = (number, number + 1) if alone else (number,)
            found += [Suppression(file, number, match.start() + 1, rule, lines) for rule in ids]
    return found, malformed


def item_suppressions(item: SourceItem, *, rules: Mapping[str, Rule]) -> tuple[list[Suppression], list[Problem]]:
    entries = item.data.get(KEY)
    found: list[Suppression] = []
    malformed: list[Problem] = []
    for index, rule in enumerate(entries if isinstance(entries, list) else []):
        line, column = item.position((KEY, index))
        if not isinstance(rule, str):
            continue  # the schema says what a suppress entry is (PRQ110)
        ids, bad = _ids(item.rel, line, column, f"={rule}", rules)
        malformed += bad
        found += [Suppression(item.rel, line, column, rule, ()) for rule in ids]
    return found, malformed


def apply(
    sources: Iterable[SourceItem], problems: list[Problem], *, judged: set[str], rules: Mapping[str, Rule]
) -> tuple[list[Problem], list[Suppressed]]:
    """The problems left once every suppression of the files of ``sources`` is applied, with PRQ178 for
    each suppression of a ``judged`` rule (one this validation checks) that silenced nothing, PRQ179
    for malformed ones and PRQ182 for each of a guarded rule (``rules``: those a suppression may name);
    and the problems suppressed, each with what suppressed it."""
    suppressions: list[Suppression] = []
    left: list[Problem] = []
    for source in sources:
        for written, malformed in (
            comment_suppressions(source.rel, source.raw.decode("utf-8", errors="replace"), rules=rules),
            item_suppressions(source, rules=rules) if source.rel.startswith(ITEMS_DIR + "/") else ([], []),
        ):
            suppressions += written
            left += malformed
    suppressed: list[Suppressed] = []
    used: set[Suppression] = set()
    for found in problems:
        by = next((s for s in suppressions if s.covers(found)), None)
        if by is None:
            left.append(found)
        else:
            suppressed.append(Suppressed(found, by))
            used.add(by)
    for unused in suppressions:
        if unused not in used and unused.rule in judged:
            left.append(
                problem("PRQ178", file=unused.file, line=unused.line, column=unused.column, silenced=unused.rule)
            )
    return sorted(set(left), key=Problem.sort_key), suppressed
