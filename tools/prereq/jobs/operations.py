"""The job operations: add, remove and lock selections, on a job's text or on a job file.

Each operation works out the new ``extras.prereq`` state, asks the planner for the edits
(``plan.plan_edit``) and applies them to the text (``apply.apply_edits``); the file variants
read the job, and replace it atomically unless it is a dry run.

May import: prereq.core, prereq.registry.rules (hints), prereq.index, prereq.jobs.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from prereq.core.errors import PrereqError
from prereq.core.files import write_atomic
from prereq.core.versions import Requirement, fold_name
from prereq.index.reader import Index, index_source
from prereq.index.trust import trust_setting
from prereq.jobs.apply import apply_edits
from prereq.jobs.document import JobDocument, read_job_file, show_scalar
from prereq.jobs.plan import BINDING_FIELDS, Plan, plan_edit
from prereq.jobs.records import ItemChange, JobEdit, JobState

IndexChoice = Index | str | Path | None  # a loaded index, a build folder or URL, or None (the usual sources)


def open_index(index: IndexChoice, state: JobState, job_dir: Path | None) -> tuple[Index, str]:
    """The index to use and the source to record: ``index``, else $PREREQ_INDEX, else the job's, else build/site;
    one read here is verified when a trust setting ($PREREQ_TRUST, prereq.yaml) names allowed signers."""
    if isinstance(index, Index):
        return index, state.index or index.base
    source = index_source(str(index) if index else None, recorded=state.index, base_dir=job_dir)
    return Index.load(source, trust=trust_setting()), source


def recorded_index(recorded: str | None, used: str) -> tuple[str | None, list[str]]:
    """What the job records as its index, and a note (``JobEdit.notes``) when nothing is: a URL means the
    same on every machine and is recorded; a local folder is not (another machine has another), and a
    recorded index stays when ``used`` is one."""
    if used.startswith(("http://", "https://")) or used == recorded:
        return used, []
    if recorded:
        return recorded, []
    return None, [
        f"the index {used} is a local folder, so the job does not record it; "
        "later commands take it from --index, $PREREQ_INDEX or build/site"
    ]


def close_name(name: str, names: Iterable[str]) -> str | None:
    """The one of ``names`` that ``name`` most likely misspells, else None: difflib's closest (a ratio of
    0.6 or more, ties to the greater name) with case and '-'/'_' folded, as people type them both ways.
    ``prereq show``, ``job add``, ``job remove`` and ``job resolve`` suggest with it (and the composer's
    ``closeName``, the same cases in tests/cases/jobs)."""
    folded: dict[str, str] = {}
    for other in names:
        folded.setdefault(fold_name(other), other)
    close = difflib.get_close_matches(fold_name(name), list(folded), n=1)
    return folded[close[0]] if close else None


def unknown_item(index: Index, name: str) -> PrereqError:
    """The error for a name the index does not have, suggesting the closest one."""
    close = close_name(name, index.entries)
    hint = f"did you mean '{close}'?" if close else "search with 'prereq search WORD'"
    return PrereqError(f"no prerequisite named '{name}' in the index", hint=hint)


def pick_roles(job: JobDocument, task_role: str | Sequence[str] | None) -> list[str]:
    """The task roles named (one, or several: task roles that share a YAML anchor change together), else
    the job's only one."""
    roles = list(job.roles)
    if task_role:
        return list(dict.fromkeys(job.require_role(role) for role in _roles_named(task_role) or []))
    if len(roles) == 1:
        return roles
    raise PrereqError(
        f"{job.source} has {len(roles)} task roles: {', '.join(roles)}", hint="name one with --task-role ROLE"
    )


def edited(
    job: JobDocument,
    text: str,
    plan: Plan,
    *,
    changes: list[ItemChange] | None = None,
    notes: Sequence[str] = (),
    told: Sequence[str] = (),
) -> JobEdit:
    """``plan`` applied to ``job``, as the result of an edit of ``text``: ``notes`` are warnings, shown
    before the plan's; ``told`` what the user should know that is not a problem."""
    apply_edits(job.doc, plan.edits)
    changed = plan.changes if changes is None else changes
    warnings = [*notes, *plan.warnings, *plan.needs]
    return JobEdit(path=None, before=text, after=job.text, changes=changed, warnings=warnings, notes=list(told))


def _bind(job: JobDocument, state: JobState, index: Index, name: str, roles: Sequence[str]) -> None:
    """Bind ``name`` (``add --bind``) in each task role, in the field its type names: another item prereq
    bound there gives way, one the user wrote there is refused."""
    kind = index.entries[name]["type"]
    if kind not in BINDING_FIELDS:
        raise PrereqError(
            f"{name} is a {kind} item: only data, script and output items bind to a task role's field",
            hint=f"add {name} without --bind",
        )
    for role in roles:
        bound = state.bound.setdefault(role, [])
        current = job.roles[role].get(kind)
        if current is not None and current != name and current not in bound:
            raise job.error(
                ("taskRoles", role, kind),
                f"task role {role} already has {kind}: {show_scalar(current)}, which prereq did not bind",
                hint=f"remove that line to bind {name}, or add {name} without --bind",
            )
        kinds = {n: index.entries[n]["type"] for n in bound if n in index.entries}
        bound[:] = [n for n in bound if kinds.get(n) != kind] + [name]


def add_to_text(
    text: str,
    names: Sequence[str],
    *,
    index: IndexChoice = None,
    task_role: str | Sequence[str] | None = None,
    bind: bool = False,
    source: str = "<job>",
    job_dir: Path | None = None,
) -> JobEdit:
    """Add ``NAME[@RANGE]`` selections to a job's text; see ``add``."""
    job = JobDocument(text, source)
    old = job.state()
    loaded, used = open_index(index, old, job_dir)
    roles = pick_roles(job, task_role)
    recorded, told = recorded_index(old.index, used)
    new = old.copy(index=recorded)
    notes = select(job, new, loaded, names, roles, bind=bind)
    plan = plan_edit(job, old, new, loaded)
    for change in plan.changes:  # said now, not only at 'job resolve' (which says it of the lock)
        if change.action in ("added", "updated"):
            note = deprecated_note(change.name, change.version, loaded.version(change.name, change.version))
            notes += [note] if note else []
    return edited(job, text, plan, notes=notes, told=told)


def deprecated_note(name: str, version: str, document: Mapping[str, Any]) -> str | None:
    """'NAME VERSION is deprecated: REASON Use OTHER instead.' for a deprecated version's document."""
    deprecated = document["item"].get("deprecated")
    if not deprecated:
        return None
    said = deprecated if isinstance(deprecated, Mapping) else {"reason": deprecated}  # unchecked by the schema
    reason, replacement = said.get("reason"), said.get("replacement")
    text = f"{name} {version} is deprecated: {reason.strip() if isinstance(reason, str) else ''}"
    return text + f" Use {replacement} instead." if isinstance(replacement, str) and replacement else text


def select(
    job: JobDocument, new: JobState, index: Index, names: Sequence[str], roles: Sequence[str], *, bind: bool = False
) -> list[str]:
    """Select ``NAME[@RANGE]`` texts in ``roles`` of the state ``new`` (a name selected already takes the
    new range); notes of names that were selected as they are."""
    notes: list[str] = []
    for text_name in names:
        requirement = Requirement.parse(text_name)
        if not requirement.name:
            raise PrereqError(f"'{text_name}' is not NAME or NAME@RANGE")
        if requirement.name not in index.entries:
            raise unknown_item(index, requirement.name)
        if bind:
            _bind(job, new, index, requirement.name, roles)
        for role in roles:
            chosen = new.selected.setdefault(role, [])
            same = [i for i, t in enumerate(chosen) if Requirement.parse(t).name == requirement.name]
            if not same:
                chosen.append(text_name)
                continue
            # Binding an item already selected is how one binds: nothing to say about the selection.
            if chosen[same[0]] == text_name and not bind:
                notes.append(f"{requirement.name} is already selected in task role {role}")
            chosen[same[0]] = text_name
            for extra in reversed(same[1:]):
                del chosen[extra]
    return notes


def _roles_named(task_role: str | Sequence[str] | None) -> list[str] | None:
    return ([task_role] if isinstance(task_role, str) else list(task_role)) if task_role else None


def _not_selected(job: JobDocument, state: JobState, name: str, task_role: str | Sequence[str] | None) -> PrereqError:
    names = job.top_names()
    if name in names and name not in state.lock:
        return job.error(
            ("prerequisites", names.index(name)),
            f"{name} was written by hand in the job; prereq leaves it alone",
            hint="delete it from the YAML yourself",
            exit_code=2,
        )
    if name in state.lock:
        named = _roles_named(task_role)
        where = f" in task role {', '.join(named)}" if named else ""
        return PrereqError(
            f"{name} is not selected{where}: it is in the job because other items require it",
            hint="remove the items that require it (see extras.prereq.selected)",
        )
    close = close_name(name, (Requirement.parse(t).name for chosen in state.selected.values() for t in chosen))
    hint = f"did you mean '{close}'?" if close else "see extras.prereq.selected for what prereq added"
    return PrereqError(f"{name} is not in the job", hint=hint)


def _unselect(job: JobDocument, old: JobState, names: Sequence[str], task_role: str | Sequence[str] | None) -> JobState:
    new = old.copy()
    named = _roles_named(task_role)
    # Each name once: "remove alpha alpha" must not look for alpha in a role it already left.
    for name in dict.fromkeys(Requirement.parse(text).name for text in names):
        selecting = [
            role for role, chosen in old.selected.items() if any(Requirement.parse(t).name == name for t in chosen)
        ]
        if named is not None:
            selecting = [role for role in selecting if role in named]
        if not selecting:
            raise _not_selected(job, old, name, task_role)
        if len(selecting) > 1 and named is None:
            raise PrereqError(
                f"{name} is selected in task roles {', '.join(selecting)}",
                hint="name one with --task-role ROLE, or several (--task-role A --task-role B)",
            )
        for role in selecting:
            new.selected[role] = [t for t in new.selected[role] if Requirement.parse(t).name != name]
            if not new.selected[role]:
                del new.selected[role]
            new.bound[role] = [n for n in new.bound.get(role, []) if n != name]
            if not new.bound[role]:
                del new.bound[role]
    return new


def _unbind(
    old: JobState, names: Sequence[str], task_role: str | Sequence[str] | None
) -> tuple[JobState, list[tuple[str, str]]]:
    """``remove --unbind``: the task roles' fields prereq bound ``names`` to are cleared, the items stay
    selected; the (name, task role) pairs unbound."""
    new = old.copy()
    unbound: list[tuple[str, str]] = []
    named = _roles_named(task_role)
    for name in dict.fromkeys(Requirement.parse(text).name for text in names):
        roles = [role for role, bound in old.bound.items() if name in bound and (named is None or role in named)]
        if not roles:
            where = f" in task role {', '.join(named)}" if named else ""
            raise PrereqError(f"{name} is not bound{where}", hint="see extras.prereq.bound for what prereq bound")
        for role in roles:
            new.bound[role] = [n for n in new.bound[role] if n != name]
            if not new.bound[role]:
                del new.bound[role]
            unbound.append((name, role))
    return new, unbound


def remove_from_text(
    text: str,
    names: Sequence[str],
    *,
    index: IndexChoice = None,
    task_role: str | Sequence[str] | None = None,
    unbind: bool = False,
    source: str = "<job>",
    job_dir: Path | None = None,
) -> JobEdit:
    """Remove selections (and what only they needed) from a job's text, or with ``unbind`` only clear
    the fields prereq bound them to; see ``remove``."""
    job = JobDocument(text, source)
    old = job.state()
    for role in _roles_named(task_role) or []:
        job.require_role(role)
    if unbind:
        new, unbound = _unbind(old, names, task_role)
        plan = plan_edit(job, old, new, open_index(index, old, job_dir)[0])
        done = [ItemChange("unbound", n, plan.closure[n].version, reason=f"task role {r}") for n, r in unbound]
        return edited(job, text, plan, changes=[*plan.changes, *done])
    new = _unselect(job, old, names, task_role)
    loaded, _ = open_index(index, old, job_dir)
    plan = plan_edit(job, old, new, loaded)
    changes = list(plan.changes)
    for name in dict.fromkeys(Requirement.parse(n).name for n in names):
        kept = plan.closure.get(name)
        if kept is None:
            continue
        if kept.required_by:
            reason = "still required by " + ", ".join(kept.required_by)
        elif name in plan.references:
            reason = plan.references[name]
        else:
            reason = "still selected in another task role"
        changes.append(ItemChange("kept", name, kept.version, reason=reason))
    return edited(job, text, plan, changes=changes)


def lock_text(
    text: str,
    *,
    upgrade_all: bool = False,
    upgrade: Collection[str] = (),
    index: IndexChoice = None,
    source: str = "<job>",
    job_dir: Path | None = None,
) -> JobEdit:
    """Refresh the lock: keep locked versions that still fit; the ``upgrade`` names (or all, with
    ``upgrade_all``) move to the newest versions the ranges allow."""
    job = JobDocument(text, source)
    old = job.state()
    upgrade = [upgrade] if isinstance(upgrade, str) else list(upgrade)
    unknown = [name for name in upgrade if name not in old.lock]
    if unknown:
        raise PrereqError(
            f"{', '.join(unknown)} {'is' if len(unknown) == 1 else 'are'} not locked in this job",
            hint="locked: " + (", ".join(sorted(old.lock)) or "nothing"),
        )
    loaded, used = open_index(index, old, job_dir)
    recorded, told = recorded_index(old.index, old.index or used)
    new = old.copy(index=recorded)
    plan = plan_edit(job, old, new, loaded, upgrade_all=upgrade_all, upgrade=set(upgrade))
    return edited(job, text, plan, told=told)


def edit_file(job: str | Path, dry_run: bool, run: Callable[[str, str, Path], JobEdit]) -> JobEdit:
    """``run`` (the text, its source, its folder) on the job file ``job``, replacing it unless ``dry_run``."""
    path = Path(job)
    result = run(read_job_file(path), str(path), path.resolve().parent)
    result.path = path
    if result.changed and not dry_run:
        write_atomic(path, result.after)
        result.written = True
    return result


def add(
    job: str | Path,
    names: Sequence[str],
    *,
    task_role: str | Sequence[str] | None = None,
    bind: bool = False,
    index: IndexChoice = None,
    dry_run: bool = False,
) -> JobEdit:
    """Add registry items (``NAME`` or ``NAME@RANGE``) and everything they require to a job file.

    The items go to ``task_role`` (several: each of them; none: the job's only task role); with ``bind``,
    each (a data, script or output item) also fills the task role's field of its type, which
    ``<% $data.uri[0] %>`` reads.  The index is ``index``, else $PREREQ_INDEX, else the one the job
    records, else build/site."""
    return edit_file(
        job,
        dry_run,
        lambda text, source, folder: add_to_text(
            text, names, index=index, task_role=task_role, bind=bind, source=source, job_dir=folder
        ),
    )


def remove(
    job: str | Path,
    names: Sequence[str],
    *,
    task_role: str | Sequence[str] | None = None,
    index: IndexChoice = None,
    dry_run: bool = False,
    unbind: bool = False,
) -> JobEdit:
    """Remove selected items from a job file, and the requirements nothing selected still needs; with
    ``unbind``, only clear the task role fields ``add --bind`` set to them."""
    return edit_file(
        job,
        dry_run,
        lambda text, source, folder: remove_from_text(
            text, names, index=index, task_role=task_role, unbind=unbind, source=source, job_dir=folder
        ),
    )


def lock(
    job: str | Path,
    *,
    upgrade_all: bool = False,
    upgrade: Collection[str] = (),
    index: IndexChoice = None,
    dry_run: bool = False,
) -> JobEdit:
    """Refresh a job file's lock; the ``upgrade`` names (or all, with ``upgrade_all``) move to the newest
    versions allowed."""
    return edit_file(
        job,
        dry_run,
        lambda text, source, folder: lock_text(
            text, upgrade_all=upgrade_all, upgrade=upgrade, index=index, source=source, job_dir=folder
        ),
    )
