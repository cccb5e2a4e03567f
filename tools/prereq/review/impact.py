"""What a change reaches: every item depending on a changed item, directly or through others, the job
templates using any of them, and whether the change is *trivially safe* to merge.

Trivially safe means: no problem at all, no item added, deleted or renamed, no change to the execution
catalog (a queue or a rights change is as dangerous as a storage change), no change to a trust file
(each listed apart, the author's grants to themselves first), no suppression added, no file changed
outside the registry's item folder (owners.yaml, templates, prereq.yaml, mkdocs.yml, workflows, site pages:
anything else can run code or change who decides), and every change either docs-only or a patch bump
made by an owner (so ``--author`` is needed for a patch) that no dependent's range excludes.  A
repository may auto-merge those."""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from prereq.core.versions import satisfies
from prereq.openpai import protocol
from prereq.registry.checks.published_ranges import Stay, stays
from prereq.registry.loader import SourceItem
from prereq.registry.rules import Problem
from prereq.review.item_checks import Head
from prereq.review.result import (
    AddedSuppression,
    CatalogImpact,
    Change,
    Dependent,
    Impact,
    Kind,
    ReviewResult,
    TrustChange,
)


def _requirers(head: Head) -> dict[str, list[tuple[str, str]]]:
    """Required name -> [(requiring item, its range or '*')], the require graph read backwards."""
    backwards: dict[str, list[tuple[str, str]]] = {}
    for name, item in sorted(head.items.items()):
        for requirement in item.requires:
            backwards.setdefault(requirement.name, []).append((name, requirement.range or "*"))
    return backwards


def _version(head: Head, name: str) -> str | None:
    item = head.items.get(name)
    version = item.data.get("version") if item else None
    return version if isinstance(version, str) else None


def dependents_of(changed: str, head: Head, *, start: Iterable[str] = ()) -> list[Dependent]:
    """Every item depending on ``changed`` (or, for a rename, on its old names ``start``), nearest first,
    each once (at its shortest distance), breadth first so that a cycle cannot loop.  A transitive
    dependent carries the range of its chain's direct dependent on ``changed``: that is the range the
    change must satisfy for it."""
    backwards = _requirers(head)
    found: dict[str, Dependent] = {}
    seen = {changed, *start}
    queue: deque[tuple[str, ...]] = deque((name,) for name in (changed, *start))
    while queue:
        path = queue.popleft()  # from the item just reached to the changed item
        for name, spec in backwards.get(path[0], []):
            if name in seen:
                continue
            seen.add(name)
            chain = (name, *path)
            if len(path) == 1:
                version = _version(head, path[0])
                satisfied = version is not None and satisfies(version, None if spec == "*" else spec)
                on_changed = (spec, version, satisfied)
            else:
                direct = found[chain[-2]]
                on_changed = (direct.range, direct.version, direct.satisfied)
            deprecated = isinstance(head.items[name].data.get("deprecated"), dict)
            found[name] = Dependent(name, changed, chain, *on_changed, requires=spec, deprecated=deprecated)
            queue.append(chain)
    return list(found.values())


def staying(dependents: Sequence[Dependent], root: Path, items: Mapping[str, SourceItem]) -> list[Stay]:
    """The direct dependents whose range the change's version falls outside that keep resolving an older
    version the history of the registry at ``root`` publishes (one the range excludes entirely is PRQ142)."""
    excluded = {(d.name, d.changed) for d in dependents if d.direct and not d.satisfied and d.version}
    if not excluded:
        return []  # the history is read only when a change leaves a range behind
    return [stay for stay in stays(root, items.values()) if (stay.item, stay.name) in excluded]


def templates_using(names: set[str], head: Head) -> dict[str, list[str]]:
    """Job template name -> the ones of ``names`` its task roles use."""
    used: dict[str, list[str]] = {}
    for template in sorted(head.templates, key=lambda t: t.rel):
        hits = sorted({n for _, _, n in protocol.role_references(template.data) if n in names})
        if hits:
            used[template.rel.removeprefix("templates/").removesuffix(".yaml")] = hits
    return used


def _change_reasons(change: Change, owner: bool | None, excluded: list[Dependent]) -> list[str]:
    """Why this one change is not trivially safe; ``owner`` None: the author is unknown."""
    label = f"{change.what} {change.name}"
    if change.kind is not Kind.MODIFIED:
        return [f"{label} is {change.kind.value}"]
    if change.what == "template":
        return [f"{label} changes a job template"]
    if change.docs_only:
        return []
    reasons = []
    if change.bump != "patch":
        reasons.append(f"{label} is a {change.bump or 'missing'} version bump, not a patch")
    if owner is None:
        reasons.append(f"{label}: without --author, who made the change is unknown")
    elif not owner:
        reasons.append(f"{label} is not changed by one of its owners")
    reasons += [f"{d.name} requires {d.through}@{d.range}, which {d.version} is outside" for d in excluded]
    return reasons


SHOWN_PATHS = 10  # of the changed paths outside the item folder, named in the verdict; the rest counted


def _outside_reason(outside: Sequence[str]) -> str:
    """Files beside the items (workflows, site configuration and hooks, prereq.yaml, templates, owners)
    run or decide things no review rule looks at: a person must read them."""
    shown = ", ".join(outside[:SHOWN_PATHS])
    more = f" and {len(outside) - SHOWN_PATHS} more" if len(outside) > SHOWN_PATHS else ""
    files = f"{len(outside)} file{'s' * (len(outside) != 1)}"
    return f"{files} changed outside the item folder (no rule checks them, a person must): {shown}{more}"


def _catalog_reasons(catalog: CatalogImpact) -> list[str]:
    """Where blocks run and who may use how much is never trivially safe: each change is a reason."""
    reasons = [f"{c.what} {c.name} is {c.kind.value}" for c in catalog.changes]
    reasons += [f"group {r.group} {r.describe()} on queue {r.queue}" for r in catalog.rights]
    return reasons + [
        f"group {m.group} changes its members (queue rights with them): "
        + "; ".join(part for part in (_joined(m.joined, "joins"), _joined(m.left, "leaves")) if part)
        for m in catalog.memberships
    ]


def _trust_reasons(trust: Sequence[TrustChange], suppressions: Sequence[AddedSuppression]) -> list[str]:
    """A trust file decides who owns what and what runs where; a suppression silences a rule on the
    change's own say-so; the author granting themselves anything is named apart, even an administrator."""
    reasons = [f"the author grants themselves: {t.what} ({t.file})" for t in trust if t.grants_author]
    reasons += [f"trust file {t.file}: {t.what}" for t in trust if not t.grants_author]
    return reasons + [f"{s.file}: suppression of {s.rule} added ({s.by})" for s in suppressions]


def _joined(names: Sequence[str], verb: str) -> str:
    return f"{', '.join(names)} {verb[:-1] if len(names) > 1 else verb}" if names else ""


def verdict(
    changes: list[Change],
    dependents: list[Dependent],
    problems: list[Problem],
    *,
    owned: set[str] | None,
    owners_changed: bool,
    outside: Sequence[str] = (),
    catalog: CatalogImpact | None = None,
    trust: Sequence[TrustChange] = (),
    suppressions: Sequence[AddedSuppression] = (),
) -> list[str]:
    """Why the change is not trivially safe; empty when it is.  ``owned``: the changed items the author
    owns on the base (None without --author); ``outside``: the changed paths no review rule reads;
    ``catalog``: what the change does to the execution catalog; ``trust``: its changes to trust files
    and the grants the author makes themselves; ``suppressions``: those it adds."""
    reasons: list[str] = []
    catalog = catalog or CatalogImpact()
    if not changes and not owners_changed and not outside and catalog.empty and not (trust or suppressions):
        reasons.append("nothing in the registry changed (the verdict is about registry changes)")
    if problems:
        reasons.append(f"{len(problems)} problem{'s' * (len(problems) != 1)} found")
    reasons += _trust_reasons(trust, suppressions)
    if owners_changed:
        reasons.append("owners.yaml changes who owns what")
    if outside:
        reasons.append(_outside_reason(outside))
    for change in changes:
        excluded = [d for d in dependents if d.changed == change.name and d.direct and not d.satisfied]
        reasons += _change_reasons(change, None if owned is None else change.name in owned, excluded)
    return reasons + _catalog_reasons(catalog)


def impact(
    changes: list[Change],
    head: Head,
    problems: list[Problem],
    *,
    owned: set[str] | None,
    owners_changed: bool,
    outside: Sequence[str] = (),
    catalog: CatalogImpact | None = None,
    trust: Sequence[TrustChange] = (),
    suppressions: Sequence[AddedSuppression] = (),
) -> Impact:
    """What the changes reach and the verdict; ``outside``: the changed repository paths no review rule
    reads, each of which keeps the change from being trivially safe, as every change of the execution
    catalog (``catalog``) does."""
    dependents: list[Dependent] = []
    for change in changes:
        if change.what == "item":
            start = [change.old_name] if change.old_name else []
            dependents += dependents_of(change.name, head, start=start)
    names = {c.name for c in changes if c.what == "item"} | {d.name for d in dependents}
    catalog = catalog or CatalogImpact()
    reasons = verdict(
        changes,
        dependents,
        problems,
        owned=owned,
        owners_changed=owners_changed,
        outside=outside,
        catalog=catalog,
        trust=trust,
        suppressions=suppressions,
    )
    return Impact(
        changes=changes,
        dependents=dependents,
        templates=templates_using(names, head),
        trivially_safe=not reasons,
        reasons=reasons,
        owners_changed=owners_changed,
        outside=list(outside),
        catalog=catalog,
        trust=list(trust),
        suppressions=list(suppressions),
    )


def as_publish_sees_it(reviewed: ReviewResult, *, strict: bool) -> ReviewResult:
    """The review with its verdict held to what publish will do.  One function,
    ``ValidationResult.failed``, decides the check's exit code and whether ``prereq build`` publishes,
    both with prereq.yaml's strictness: when warnings alone fail it, the change cannot be trivially
    safe, or an auto-merged change would stop the publish on main."""
    result = reviewed.result
    if not result.failed(strict=strict) or result.failed(strict=False):
        return reviewed  # it passes, or its errors are among the problems the verdict counts already
    count = len(result.warnings)
    reason = (
        f"{count} warning{'s' * (count != 1)} fail{'s' * (count == 1)} this check and the publish on the base branch "
        "(validation is strict: prereq.yaml's validate.strict, or --strict)"
    )
    held = dataclasses.replace(reviewed.impact, trivially_safe=False, reasons=[*reviewed.impact.reasons, reason])
    return dataclasses.replace(reviewed, impact=held)
