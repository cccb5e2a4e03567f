"""Problem reports, chosen by name: ``text``, ``json``, ``github`` (workflow annotations) and
``markdown`` (a table for a job summary or a pull request's comment; with ``--base`` the review's
impact report takes its place, built from the same cells and tables).

Every reporter has one signature, ``(result, base) -> str``: the validation result
carries the problems, the item count and the registry root; ``base`` is where the paths
shown start: the current folder for text (so a terminal or an editor opens them), the
repository root for GitHub's annotations.  JSON paths stay relative to the registry.
Reporters only format: the CLI prints what they return.

A problem that follows from another (``Problem.consequence_of``: the items a missing one breaks) is
shown for people once, at its cause, counted with the items it is in; for machines every problem
stays: JSON marks it ``consequence_of``, GitHub gets it as a notice saying "because" (GitHub shows
ten error annotations a step: the causes, not their echoes).  What fails validation is unchanged.

May import: prereq.core, prereq.registry.rules and prereq.registry.validate.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from prereq.core.terminal import visible
from prereq.registry.rules import Problem, Severity
from prereq.registry.validate import ValidationResult

Reporter = Callable[[ValidationResult, Path], str]


def _position(problem: Problem, result: ValidationResult, base: Path) -> str:
    parts = [_shown_path(result.root / problem.file, base) if problem.file else "(registry)"]
    if problem.line is not None:
        parts.append(str(problem.line))
        if problem.column is not None:
            parts.append(str(problem.column))
    return ":".join(parts)


def summary(result: ValidationResult) -> str:
    """``N items checked: E errors, W warnings``."""
    items, errors, warnings = len(result.items), len(result.errors), len(result.warnings)
    silenced = f", {len(result.suppressed)} suppressed" if result.suppressed else ""
    return (
        f"{items} item{'s' * (items != 1)} checked: {errors} error{'s' * (errors != 1)}, "
        f"{warnings} warning{'s' * (warnings != 1)}{silenced}"
    )


def _consequences(problems: list[Problem]) -> dict[Problem, list[Problem]]:
    """The problems shown with each cause that is among ``problems`` itself, by cause."""
    shown = set(problems)
    found: dict[Problem, list[Problem]] = {}
    for p in problems:
        if p.consequence_of is not None and p.consequence_of in shown:
            found.setdefault(p.consequence_of, []).append(p)
    return found


MAX_NAMED = 12  # dependents named at a cause; the rest are counted


def _following(consequences: list[Problem]) -> str:
    """``and 24 problems that follow from it, in 11 items: a, b, … and 1 more``."""
    count = len(consequences)
    names = list(dict.fromkeys(Path(p.file).stem for p in consequences if p.file))
    named = ", ".join(names[:MAX_NAMED]) + (f" and {len(names) - MAX_NAMED} more" if len(names) > MAX_NAMED else "")
    return (
        f"and {count} problem{'s' * (count != 1)} that follow{'s' * (count == 1)} from it, "
        f"in {len(names)} item{'s' * (len(names) != 1)}: {named}"
    )


def _shown_path(path: Path, base: Path) -> str:
    try:
        return os.path.relpath(path, base)
    except ValueError:  # another drive (Windows): no relative path exists
        return str(path)


def report_text(result: ValidationResult, base: Path) -> str:
    """A line a problem (and one for its hint): what the registry wrote is shown, never obeyed."""
    lines = []
    consequences = _consequences(result.problems)
    shown_with = {c for listed in consequences.values() for c in listed}
    for p in result.problems:
        if p in shown_with:
            continue
        lines.append(visible(f"{_position(p, result, base)}: {p.rule} {p.severity.value} {p.message}", keep=""))
        if p.hint:
            lines.append(visible(f"    hint: {p.hint}", keep=""))
        if p in consequences:
            lines.append(visible(f"    {_following(consequences[p])}", keep=""))
    for silenced in result.suppressed:  # shown, so that nothing is silenced out of sight
        p, by = silenced.problem, silenced.suppression.by
        lines.append(visible(f"{_position(p, result, base)}: {p.rule} suppressed ({by}) {p.message}", keep=""))
    collapsed = f"; {len(shown_with)} of them shown at their cause" if shown_with else ""
    lines.append(summary(result) + collapsed)
    return "\n".join(lines)


def report_json(result: ValidationResult, base: Path) -> str:
    report: dict[str, object] = {"items": len(result.items), "problems": [p.as_dict() for p in result.problems]}
    if result.suppressed:
        report["suppressed"] = [silenced.as_dict() for silenced in result.suppressed]
    return json.dumps(report, indent=2)


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _annotation(level: str, p: Problem, title: str, text: str, result: ValidationResult, base: Path) -> str:
    props = []
    if p.file:
        props.append("file=" + _escape_property(_shown_path(result.root / p.file, base)))
    if p.line is not None:
        props.append(f"line={p.line}")
    if p.column is not None:
        props.append(f"col={p.column}")
    props.append("title=" + _escape_property(title))
    return f"::{level} {','.join(props)}::{_escape_data(text)}"


def report_github(result: ValidationResult, base: Path) -> str:
    """``::error file=...,line=...::message`` lines, paths relative to the repository, then a
    ``::notice`` for each suppressed problem (at its line on the diff, so that a reviewer sees what a
    change silences), then the summary."""
    lines = []
    consequences = _consequences(result.problems)
    for p in result.problems:
        cause = p.consequence_of
        if cause is not None and cause in consequences:
            text = f"{p.message} (because {cause.rule} at {_position(cause, result, base)}: {cause.message})"
            lines.append(_annotation("notice", p, f"{p.rule} because {cause.rule}", text, result, base))
            continue
        level = "error" if p.severity is Severity.ERROR else "warning"
        also = f" ({_following(consequences[p])})" if p in consequences else ""
        lines.append(_annotation(level, p, p.rule, f"{p.message} (hint: {p.hint}){also}", result, base))
    for silenced in result.suppressed:
        p, by = silenced.problem, silenced.suppression.by
        text = f"{p.message} (suppressed by {by})"
        lines.append(_annotation("notice", p, f"{p.rule} suppressed", text, result, base))
    lines.append(summary(result))
    return "\n".join(lines)


MAX_ROWS = 200  # per Markdown table, so a huge change still fits GitHub's 1 MiB job summary
_ESCAPES = {"\\": "\\\\", "|": "\\|", "<": "&lt;", ">": "&gt;", "@": "&#64;", "`": "\\`", "*": "\\*", "_": "\\_"}


def markdown_cell(text: object) -> str:
    """``text`` as one Markdown table cell: one line, nothing in it read as markup or as a mention."""
    shown = visible(" ".join(str(text).split()), keep="")
    return "".join(_ESCAPES.get(ch, ch) for ch in shown)


def markdown_table(header: list[str], rows: list[list[str]]) -> list[str]:
    """The lines of a table of ``rows`` (cells already escaped), cut at ``MAX_ROWS`` with a count of the rest."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows[:MAX_ROWS]]
    if len(rows) > MAX_ROWS:
        lines.append(f"\n… and {len(rows) - MAX_ROWS} more")
    return lines


def markdown_problems(problems: list[Problem], base: Path, root: Path) -> list[str]:
    """The problems as a table: rule, severity, where (from ``base``), the problem and its fix; a
    consequence is counted in its cause's row."""
    rows = []
    consequences = _consequences(problems)
    shown_with = {c for listed in consequences.values() for c in listed}
    for p in problems:
        if p in shown_with:
            continue
        where = _shown_path(root / p.file, base) if p.file else "(registry)"
        where += f":{p.line}" if p.line is not None else ""
        also = f" ({_following(consequences[p])})" if p in consequences else ""
        rows.append(
            [p.rule, p.severity.value, markdown_cell(where), markdown_cell(p.message + also), markdown_cell(p.hint)]
        )
    return markdown_table(["rule", "severity", "where", "problem", "fix"], rows)


def report_markdown(result: ValidationResult, base: Path) -> str:
    """A heading, the summary, and the problems as a table (paths from ``base``)."""
    lines = ["## prereq validate", "", markdown_cell(summary(result))]
    if result.problems:
        lines += ["", *markdown_problems(result.problems, base, result.root)]
    return "\n".join(lines) + "\n"


REPORTERS: dict[str, Reporter] = {
    "text": report_text,
    "json": report_json,
    "github": report_github,
    "markdown": report_markdown,
}


def report(result: ValidationResult, *, format: str = "text", base: Path | None = None) -> str:
    """The report of ``result`` in ``format`` (one of ``REPORTERS``), paths from ``base`` (default: the registry)."""
    return REPORTERS[format](result, base or result.root)
