"""The impact report in Markdown, for a pull request's comment or a workflow's job summary.

Everything from the registry is shown, never obeyed: table cells are escaped so a title cannot
close a table, open HTML or mention (and notify) ``@someone``; tables are capped so a huge change
still fits GitHub's 1 MiB job summary."""

from __future__ import annotations

import os
from pathlib import Path

from prereq.core.gitrepo import Repository
from prereq.registry.reporters import markdown_cell, markdown_problems, markdown_table
from prereq.review.impact import staying
from prereq.review.result import AddedSuppression, CatalogImpact, Change, Dependent, ReviewResult, TrustChange


def _version(change: Change) -> str:
    if change.base_version and change.version and change.base_version != change.version:
        return f"{markdown_cell(change.base_version)} → {markdown_cell(change.version)}"
    return markdown_cell(change.version or change.base_version or "")


def _change_row(change: Change) -> list[str]:
    name = (
        f"{markdown_cell(change.old_name)} → {markdown_cell(change.name)}"
        if change.old_name
        else markdown_cell(change.name)
    )
    if change.docs_only:
        bump = "none needed (docs only)"
    else:
        bump = markdown_cell(change.bump or ("—" if change.kind.value in ("added", "deleted") else "none"))
    keys = ", ".join(markdown_cell(k) for k in change.changed_keys) or (
        "layout or comments" if change.docs_only else ""
    )
    return [change.kind.value, change.what, name, _version(change), bump, keys]


def _dependent_row(dependent: Dependent) -> list[str]:
    """One dependent: the range and version columns are about the changed item, for a transitive
    dependent too (the range of its chain's direct dependent), so every row reads the same way."""
    how = "directly" if dependent.direct else " → ".join(markdown_cell(n) for n in dependent.chain)
    satisfied = "yes" if dependent.satisfied else "**no**"
    version = markdown_cell(dependent.version) if dependent.version else "deleted"
    spec = markdown_cell(dependent.range)
    if not dependent.direct:
        spec += f" ({markdown_cell(dependent.direct_dependent)}'s)"
    name = markdown_cell(dependent.name) + (" (deprecated)" if dependent.deprecated else "")
    return [name, markdown_cell(dependent.changed), how, spec, version, satisfied]


def _verdict(review: ReviewResult) -> list[str]:
    impact = review.impact
    if impact.trivially_safe:
        return [
            "**Trivially safe**: every change is docs-only or a patch bump by an owner that no dependent's "
            "range excludes."
        ]
    return ["**Needs a review**: not trivially safe, because", ""] + [f"- {markdown_cell(r)}" for r in impact.reasons]


def _row(values: tuple[int, int] | None) -> str:
    return "—" if values is None else f"{values[0]} slot(s), priority {values[1]}"


def _catalog_lines(catalog: CatalogImpact) -> list[str]:
    """The execution catalog's changes, the rights rows that give or take slots, who joins or leaves a group."""
    lines = ["", "### Execution catalog", ""]
    if catalog.changes:
        rows = [
            [c.kind.value, c.what, markdown_cell(c.name), ", ".join(markdown_cell(k) for k in c.changed_keys)]
            for c in catalog.changes
        ]
        lines += [*markdown_table(["change", "what", "name", "changed keys"], rows), ""]
    if catalog.rights:
        header = ["queue", "group", "on the base", "here", "what its members get"]
        rows = [
            [markdown_cell(r.queue), markdown_cell(r.group), _row(r.before), _row(r.after), markdown_cell(r.describe())]
            for r in catalog.rights
        ]
        lines += ["Queue rights that change:", "", *markdown_table(header, rows), ""]
    for change in catalog.memberships:
        joined = ", ".join(markdown_cell(n) for n in change.joined) or "nobody"
        left = ", ".join(markdown_cell(n) for n in change.left) or "nobody"
        lines.append(f"- group {markdown_cell(change.group)}: {joined} joins, {left} leaves (with its queue rights)")
    return lines[:-1] if lines[-1] == "" else lines


def _trust_lines(trust: list[TrustChange]) -> list[str]:
    """Every trust change apart, above the item changes: who owns what and what runs where."""
    rows = [
        [
            markdown_cell(t.file) + (f":{t.line}" if t.line else ""),
            markdown_cell(t.what),
            "**yes**" if t.grants_author else "",
        ]
        for t in trust
    ]
    intro = "Files that decide who owns what and what runs where (an administrator's to change):"
    return [
        "",
        "### Trust changes",
        "",
        intro,
        "",
        *markdown_table(["file", "what changes", "grants the author"], rows),
    ]


def _suppression_lines(added: list[AddedSuppression], registry: str) -> list[str]:
    """``registry``: the registry's folder from the repository's root, which the suppressions' files are in."""
    rows = [
        [markdown_cell(Path(registry, s.file).as_posix()), str(s.line), markdown_cell(s.rule), markdown_cell(s.by)]
        for s in added
    ]
    intro = "Rules this change silences itself (a reviewer decides whether the finding may stand):"
    return ["", "### Suppressions added", "", intro, "", *markdown_table(["file", "line", "rule", "by"], rows)]


_DEPENDENTS_NOTE = (
    "_The range and version are those of the changed item: for an item depending on it through others, "
    "the range that the chain's direct dependent requires of it._"
)


def impact_markdown(review: ReviewResult) -> str:
    """The whole report: verdict, changes, dependents, templates, problems with their fixes."""
    impact, root = review.impact, review.result.root
    # Paths from the repository's root, as the GitHub annotations and the trust table give them.
    repo = Repository.find(root)
    base = repo.root if repo else root
    errors = sum(p.severity.value == "error" for p in review.result.problems)
    warnings = len(review.result.problems) - errors
    author = f" · author {markdown_cell(review.author)}" if review.author else ""
    moved = len(impact.catalog.changes) + len(impact.catalog.rights)
    catalog = f"{moved} execution catalog change{'s' * (moved != 1)}, " if moved else ""
    lines = [
        "## prereq review",
        "",
        f"Compared with {markdown_cell(review.ref)} at merge base {review.base_commit[:10]}{author}: "
        f"{len(impact.changes)} change{'s' * (len(impact.changes) != 1)}, {catalog}"
        f"{len(impact.dependents)} dependent{'s' * (len(impact.dependents) != 1)}, "
        f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}.",
        "",
        *_verdict(review),
    ]
    lines += _trust_lines(impact.trust) if impact.trust else []
    lines += _suppression_lines(impact.suppressions, os.path.relpath(root, base)) if impact.suppressions else []
    if impact.changes:
        header = ["change", "what", "name", "version", "bump", "changed keys"]
        lines += ["", "### Changes", "", *markdown_table(header, [_change_row(c) for c in impact.changes])]
    if not impact.catalog.empty:
        lines += _catalog_lines(impact.catalog)
    if impact.owners_changed:
        lines += ["", "`owners.yaml` changes: who may change which items changes with it."]
    if impact.dependents:
        header = ["item", "depends on", "how", "range on it", "its version", "in range"]
        lines += ["", "### Dependents", "", *markdown_table(header, [_dependent_row(d) for d in impact.dependents])]
        lines += ["", _DEPENDENTS_NOTE]
        stays = [str(stay) for stay in staying(impact.dependents, root, review.result.items)]
        lines += ["", *[f"- {markdown_cell(stay)}" for stay in stays]] if stays else []
    if impact.templates:
        lines += ["", "### Job templates using them", ""]
        lines += [
            f"- {markdown_cell(name)}: {', '.join(markdown_cell(n) for n in uses)}"
            for name, uses in impact.templates.items()
        ]
    if review.result.problems:
        lines += ["", "### Problems", "", *markdown_problems(review.result.problems, base, root)]
    if review.notes:
        lines += ["", *[f"_{markdown_cell(note)}_" for note in review.notes]]
    return "\n".join(lines) + "\n"
