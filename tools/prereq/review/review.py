"""The review's library API: a registry folder and a base ref in, a ``ReviewResult`` out.

The head is the working tree as ``prereq validate`` sees it (fully validated, its execution catalog
too: a review adds to the validation, it never replaces it); the base is the merge base of HEAD and
the ref."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from prereq.core.errors import PrereqError
from prereq.core.terminal import Progress, silent
from prereq.execution.catalog_validation import history_credentials, with_catalog
from prereq.execution.load import RIGHTS_FILE, load_catalog
from prereq.registry.checks.causes import link_causes
from prereq.registry.history import cleared_lines, history_problems
from prereq.registry.loader import ITEMS_DIR, OWNERS_FILE
from prereq.registry.rules import Problem, Severity
from prereq.registry.settings import load_settings
from prereq.registry.validate import ValidationResult, validate
from prereq.review.catalog import catalog_impact, catalog_problems
from prereq.review.changes import compare, templates_by_name
from prereq.review.codeowners import codeowners_problem
from prereq.review.commits import commit_secret_problems, intermediate_problems
from prereq.review.impact import as_publish_sees_it, impact
from prereq.review.item_checks import Head, check_removals, identities, owns, review_problems
from prereq.review.mergebase import CATALOG_FOLDERS, Base, open_base
from prereq.review.result import AddedSuppression, Change, Kind, ReviewResult
from prereq.review.rules import ALL_RULES
from prereq.review.trust.admins import review_trust
from prereq.review.trust.suppressions import silenced_credentials


def _owners_text(root: Path) -> bytes | None:
    path = root / OWNERS_FILE
    if path.is_symlink() or not path.is_file():
        return None  # the loader reports it (PRQ107, PRQ161)
    return path.read_bytes()


def _owned(changes: list[Change], base: Base, author: str | None) -> set[str] | None:
    """The changed items the author owns as the base has them; None without an author."""
    if author is None:
        return None
    names = identities(author, base.registry.owners)
    owned = set()
    for change in changes:
        before = base.items.get(change.old_name or change.name)
        if before is not None and owns(names, before.data.get("owners"), base.registry.owners):
            owned.add(change.name)
    return owned


def _removed(changes: list[Change], head: Head) -> dict[str, Problem]:
    """The PRQ202 or PRQ203 of each name a deletion or rename leaves required: its dependents' PRQ140
    (and what follows) are its consequences."""
    gone = (c for c in changes if c.what == "item" and c.kind in (Kind.DELETED, Kind.RENAMED))
    return {change.old_name or change.name: found for change in gone for found in check_removals([change], head)}


def outside_items(base: Base) -> list[str]:
    """The changed repository paths outside the registry's item folder and execution catalog: what no
    review rule reads."""
    read = (f"{ITEMS_DIR}/", *CATALOG_FOLDERS, RIGHTS_FILE)
    prefixes = read if base.prefix == "." else tuple(f"{base.prefix}/{part}" for part in read)
    return [path for path in base.paths if not path.startswith(prefixes)]


def changes_between(base: Base, result: ValidationResult) -> list[Change]:
    """Item changes, then job template changes."""
    items = compare("item", base.items, result.items, base_texts=base.texts)
    base_templates = templates_by_name(base.registry.templates)
    templates = compare("template", base_templates, templates_by_name(result.templates), base_texts=base.texts)
    return items + templates


def commits_problems(root: Path, base: Base, validation: ValidationResult) -> list[Problem]:
    """What the pull request's every commit holds, not only its final tree: versions (PRQ209),
    credentials written anywhere in the registry folder (PRQ211) or in what the history scans (PRQ192)."""
    found = intermediate_problems(base, root=root, head_items=validation.items)
    return found + commit_secret_problems(base, root=root) + pull_history_problems(root, base, validation)


def _suppressions(base: Base, validation: ValidationResult, added: list[AddedSuppression]) -> list[AddedSuppression]:
    """The suppressions the change adds, and those silencing a credential in a file it changes."""
    prefix = f"{base.prefix}/" if base.prefix != "." else ""
    silenced = silenced_credentials(validation.suppressed, {path.removeprefix(prefix) for path in base.paths})
    return sorted({*added, *silenced}, key=lambda s: (s.file, s.line, s.rule))


def pull_history_problems(root: Path, base: Base, validation: ValidationResult) -> list[Problem]:
    """PRQ192 for the credentials any commit of the pull request held, though a later one removed them:
    merged, they stay readable in the base branch's history."""
    sources = [*validation.items.values(), *validation.templates]
    current = {source.rel: source.blob for source in sources}
    cleared = cleared_lines(validation.items, validation.suppressed)
    commits = f"{base.tip}..HEAD"
    return history_problems(root, cleared=cleared, current=current, rev=commits) + history_credentials(
        root, rev=commits
    )


def _strictness(root: Path, strict: bool | None) -> bool:
    """``strict`` when given, else prereq.yaml's; strict when the file cannot be read (the CLI reports
    why; a pull request breaking it changes a trust file, PRQ210's)."""
    if strict is not None:
        return strict
    try:
        return load_settings(root).strictness(None)
    except PrereqError:
        return True


def review(
    root: Path, *, base: str, author: str | None = None, strict: bool | None = None, progress: Progress = silent
) -> ReviewResult:
    """Validate the registry folder ``root`` and review it against the merge base of ``base``.

    Raises PrereqError (exit 2) when there is no such base here: not a git repository, a shallow
    clone, an unknown ref, or no common history."""
    root = root.resolve()
    the_base = open_base(root, base)
    validation = with_catalog(validate(root, progress=progress, rules=ALL_RULES))
    progress(f"reviewing the change against {base}")
    head = Head(items=validation.items, templates=validation.templates, owners=validation.owners)
    changes = changes_between(the_base, validation)
    found = review_problems(changes, the_base, head, author=author)
    found += commits_problems(root, the_base, validation)
    head_catalog = load_catalog(root)[0]
    catalog = catalog_impact(the_base, validation.owners, head_catalog)
    said = {p.file for p in validation.problems if p.rule == "PRQ314"}  # PRQ201 would say it again
    found += [
        p
        for p in catalog_problems(catalog, the_base, head_catalog, validation.owners, author=author)
        if not (p.rule == "PRQ201" and p.file in said)
    ]
    outdated = codeowners_problem(root, validation.items, validation.owners)
    found += [outdated] if outdated else []
    trust = review_trust(root, the_base, head, (head_catalog, catalog.rights), changes, author=author)
    found += trust.problems
    suppressions = _suppressions(the_base, validation, trust.suppressions)
    every = sorted({*validation.problems, *found}, key=Problem.sort_key)
    linked = link_causes(every, validation.items, named=_removed(changes, head))  # a rename: one line, at it
    combined = dataclasses.replace(validation, problems=linked)
    # What keeps a change from being trivially safe: any error, and anything the review itself found.
    gate = sorted({*(p for p in combined.problems if p.severity is Severity.ERROR), *found}, key=Problem.sort_key)
    owners_changed = the_base.texts.get(OWNERS_FILE) != _owners_text(root)
    notes = [*validation.notes, *([] if author else ["ownership not checked: no --author given"])]
    if not any(c.kind is Kind.MODIFIED for c in changes) and not (the_base.published or the_base.catalog_published):
        notes.append("the base's history published no versions yet")
    reviewed = ReviewResult(
        result=combined,
        review_problems=found,
        ref=base,
        base_commit=the_base.commit,
        author=author,
        impact=impact(
            changes,
            head,
            gate,
            owned=_owned(changes, the_base, author),
            owners_changed=owners_changed,
            outside=outside_items(the_base),
            catalog=catalog,
            trust=trust.changes,
            suppressions=suppressions,
        ),
        notes=notes,
    )
    # The verdict as publish sees it: prereq.yaml's strictness, or ``strict`` for this run.
    return as_publish_sees_it(reviewed, strict=_strictness(root, strict))
