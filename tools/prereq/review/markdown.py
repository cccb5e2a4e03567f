"""The impact report in Markdown, for a pull request's comment or a workflow's job summary.

Everything from the registry is shown, never obeyed: table cells are escaped so a title cannot
close a table, open HTML or mention (and notify) ``@someone``; tables are capped so a huge change
still fits GitHub's 1 MiB job summary."""

from __future__ import annotations

from prereq.core.terminal import visible
from prereq.registry.rules import Problem
from prereq.review.records import Change, Dependent, ReviewResult

MAX_ROWS = 200  # per table; the annotations and `prereq validate` list everything

_ESCAPES = {"\\": "\\\\", "|": "\\|", "<": "&lt;", ">": "&gt;", "@": "&#64;", "`": "\\`", "*": "\\*", "_": "\\_"}


def cell(text: object) -> str:
    """``text`` as one Markdown table cell: one line, nothing in it read as markup."""
    shown = visible(" ".join(str(text).split()), keep="")
    return "".join(_ESCAPES.get(ch, ch) for ch in shown)


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows[:MAX_ROWS]]
    if len(rows) > MAX_ROWS:
        lines.append(f"\n… and {len(rows) - MAX_ROWS} more")
    return lines


def _version(change: Change) -> str:
    if change.base_version and change.version and change.base_version != change.version:
        return f"{cell(change.base_version)} → {cell(change.version)}"
    return cell(change.version or change.base_version or "")


def _change_row(change: Change) -> list[str]:
    name = f"{cell(change.old_name)} → {cell(change.name)}" if change.old_name else cell(change.name)
    if change.docs_only:
        bump = "none needed (docs only)"
    else:
        bump = cell(change.bump or ("—" if change.kind.value in ("added", "deleted") else "none"))
    keys = ", ".join(cell(k) for k in change.changed_keys) or ("layout or comments" if change.docs_only else "")
    return [change.kind.value, change.what, name, _version(change), bump, keys]


def _dependent_row(dependent: Dependent) -> list[str]:
    through = "directly" if dependent.direct else f"through {cell(dependent.through)} ({dependent.distance} steps)"
    satisfied = "yes" if dependent.satisfied else "**no**"
    version = cell(dependent.version) if dependent.version else "deleted"
    name = cell(dependent.name) + (" (deprecated)" if dependent.deprecated else "")
    return [name, cell(dependent.changed), through, cell(dependent.range), version, satisfied]


def _problem_row(problem: Problem) -> list[str]:
    where = problem.file or "(registry)"
    if problem.line is not None:
        where += f":{problem.line}"
    return [problem.rule, problem.severity.value, cell(where), cell(problem.message), cell(problem.hint)]


def _verdict(review: ReviewResult) -> list[str]:
    impact = review.impact
    if impact.trivially_safe:
        return [
            "**Trivially safe**: every change is docs-only or a patch bump by an owner that no dependent's "
            "range excludes."
        ]
    return ["**Needs a review**: not trivially safe, because", ""] + [f"- {cell(r)}" for r in impact.reasons]


def impact_markdown(review: ReviewResult) -> str:
    """The whole report: verdict, changes, dependents, templates, problems with their fixes."""
    impact = review.impact
    errors = sum(p.severity.value == "error" for p in review.result.problems)
    warnings = len(review.result.problems) - errors
    author = f" · author {cell(review.author)}" if review.author else ""
    lines = [
        "## prereq review",
        "",
        f"Compared with {cell(review.ref)} at merge base {review.base_commit[:10]}{author}: "
        f"{len(impact.changes)} change{'s' * (len(impact.changes) != 1)}, "
        f"{len(impact.dependents)} dependent{'s' * (len(impact.dependents) != 1)}, "
        f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}.",
        "",
        *_verdict(review),
    ]
    if impact.changes:
        header = ["change", "what", "name", "version", "bump", "changed keys"]
        lines += ["", "### Changes", "", *_table(header, [_change_row(c) for c in impact.changes])]
    if impact.owners_changed:
        lines += ["", "`owners.yaml` changes: who may change which items changes with it."]
    if impact.dependents:
        header = ["item", "depends on", "how", "range", "version", "in range"]
        lines += ["", "### Dependents", "", *_table(header, [_dependent_row(d) for d in impact.dependents])]
    if impact.templates:
        lines += ["", "### Job templates using them", ""]
        lines += [f"- {cell(name)}: {', '.join(cell(n) for n in uses)}" for name, uses in impact.templates.items()]
    if review.result.problems:
        header = ["rule", "severity", "where", "problem", "fix"]
        lines += ["", "### Problems", "", *_table(header, [_problem_row(p) for p in review.result.problems])]
    if review.notes:
        lines += ["", *[f"_{cell(note)}_" for note in review.notes]]
    return "\n".join(lines) + "\n"
