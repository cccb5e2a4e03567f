"""Deciding an edit: from the old and new ``extras.prereq`` and the index, what the job must hold, and where.

From one state the job's content follows:

- the top-level ``prerequisites`` holds the OpenPAI form of every item of every task
  role's closure, requirements before the items that need them;
- each task role's ``prerequisites`` names its whole closure in that order (OpenPAI's
  runtime runs only what the task role lists, and never expands ``require``);
- a ``dockerimage`` item becomes the task role's ``dockerImage`` when it has none;
- a task role that lists a prereq ``cmd`` item gets the index's load line first in its
  ``commands``, so variables that items export reach the job, and the first callback it runs
  gets the long callback line (``jobs.loadline``).

Where things go (every editor of jobs, the composer included, does the same so that
all give equal jobs): a new entry goes before the first entry that needs it, else at
the end of its list; a new top-level ``prerequisites`` goes before
``parameters``/``secrets``/.../``taskRoles``; a new task role ``prerequisites`` after
``dockerImage``; ``extras`` at the end.  Entries are the index's ``openpai`` forms with
keys in ``openpai.forms.KEY_ORDERS``; the lock is sorted by name.  The user's own
entries keep their place; a prereq item the user's own text names (a ``dockerImage``,
or a task role list that prereq did not write) stays in the job.

The plan is pure: it reads the job and the index and returns edits (``apply.Edit``)
with the changes and warnings to report; nothing here touches the text.

May import: prereq.core, prereq.openpai, prereq.index,
prereq.jobs.records/document/apply/loadline/conflicts/unmet_needs.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from prereq.core.errors import PrereqError
from prereq.core.graph import transitive_requirements
from prereq.core.versions import Requirement
from prereq.index.reader import ClosureItem, Index
from prereq.jobs import conflicts, unmet_needs
from prereq.jobs.apply import Edit, WorkingCopy
from prereq.jobs.document import TASK_ROLE_FIELDS, JobDocument, role_names, top_entries, top_names
from prereq.jobs.loadline import CallbackLines, LoadLines, entry_digest, plan_callback_lines, plan_load_line
from prereq.jobs.records import STATE_KEY, STATE_PATH, ItemChange, JobState, Locked
from prereq.openpai import forms

BINDING_FIELDS = ("data", "script", "output")  # task role fields naming the item ``<% $data... %>`` reads
# Top-level keys that come after ``prerequisites`` in an OpenPAI job.
AFTER_PREREQUISITES = ("parameters", "secrets", "jobRetryCount", "taskRoles", "deployments", "defaults", "extras")


@dataclass
class Plan:
    edits: list[Edit]
    changes: list[ItemChange]
    warnings: list[str]
    closure: dict[str, ClosureItem]  # every item prereq keeps in the job, requirements first
    references: dict[str, str]  # prereq's items that the user's own text names, and where
    needs: list[str] = field(default_factory=list)  # what the user must still supply (resolve checks it itself)


@dataclass
class _Closures:
    """What the new state asks for, worked out from the index."""

    versions: dict[str, ClosureItem]
    needs: dict[str, set[str]]  # item -> everything it requires, transitively
    roles: dict[str, list[str]]  # task role -> its closure, requirements first
    old_roles: dict[str, set[str]]  # task role -> what prereq had put in it
    references: dict[str, str]


def insert_position(names: Sequence[str | None], name: str, needs: Mapping[str, set[str]]) -> int:
    """Where ``name`` goes: before the first entry that needs it, after its own requirements."""
    dependents = [i for i, other in enumerate(names) if other and name in needs.get(other, set())]
    requirements = [i for i, other in enumerate(names) if other and other in needs.get(name, set())]
    position = min(dependents) if dependents else len(names)
    if requirements and position <= max(requirements):
        position = max(requirements) + 1
    return position


def task_role_fields(closure: Sequence[tuple[str, Mapping[str, Any]]], *, load_line: str) -> dict[str, Any]:
    """What the plan gives a task role that runs only ``closure`` (names with their OpenPAI forms,
    requirements first), in the order it writes them: the first image as ``dockerImage``, every name in
    ``prerequisites``, the load line when a cmd item is among them.  The item pages' snippet uses it."""
    role: dict[str, Any] = {}
    images = [name for name, form in closure if form.get("type") == "dockerimage"]
    if images:
        role["dockerImage"] = images[0]
    role["prerequisites"] = [name for name, _ in closure]
    if any(forms.is_cmd(form) for _, form in closure):
        role["commands"] = [load_line]
    return role


def _closure(index: Index, selections: list[str], locked: Mapping[str, str]) -> list[ClosureItem]:
    return index.closure(selections, locked=dict(locked)) if selections else []


def _references(
    job: JobDocument, managed: set[str], old_roles: Mapping[str, set[str]], bound: Mapping[str, list[str]]
) -> dict[str, str]:
    """prereq's items that the user's own text refers to: they stay in the job (a field prereq bound is not
    the user's text)."""
    references: dict[str, str] = {}
    for role, spec in job.roles.items():
        for name in spec.get("prerequisites") or []:
            if name in managed and name not in old_roles.get(role, set()):
                references.setdefault(name, f"task role {role} lists it")
        for field_name in TASK_ROLE_FIELDS:
            name = spec.get(field_name)
            if isinstance(name, str) and name in managed and name not in bound.get(role, []):
                references.setdefault(name, f"the {field_name} of task role {role} names it")
    return references


def _closures(
    job: JobDocument, old: JobState, new: JobState, index: Index, *, upgrade_all: bool, upgrade: Collection[str]
) -> _Closures:
    old_versions = {name: entry.version for name, entry in old.lock.items()}
    old_roles: dict[str, set[str]] = {}
    for role, names in old.selected.items():
        try:
            old_roles[role] = {r.name for r in _closure(index, names, old_versions)}
        except PrereqError:
            old_roles[role] = set(old.lock)
    references = _references(job, set(old.lock), old_roles, old.bound)
    locked = {} if upgrade_all else {name: v for name, v in old_versions.items() if name not in upgrade}
    selections = [text for names in new.selected.values() for text in names]
    versions = {r.name: r for r in _closure(index, selections + sorted(references), locked)}
    deps: dict[str, set[str]] = {name: set() for name in versions}
    for r in versions.values():
        for requirer in r.required_by:
            deps.setdefault(requirer, set()).add(r.name)
    pinned = {name: r.version for name, r in versions.items()}
    roles = {
        role: [r.name for r in index.closure(names, locked=pinned)] for role, names in new.selected.items() if names
    }
    return _Closures(versions, transitive_requirements(deps), roles, old_roles, references)


def _refuse_conflicts(job: JobDocument, old: JobState, wanted: _Closures) -> None:
    # Hand-written prerequisites are the user's: never replaced.
    for position, name in enumerate(job.top_names()):
        if name in wanted.versions and name not in old.lock:
            raise job.error(
                ("prerequisites", position),
                f"the job's own prerequisite '{name}' has the name of a registry item; prereq does not overwrite it",
                hint=f"rename or remove your '{name}' to use the registry's, or keep yours and do not "
                "select the registry item",
            )
    # Docker images: one per task role.
    for role, names in wanted.roles.items():
        images = [n for n in names if wanted.versions[n].openpai.get("type") == "dockerimage"]
        if len(images) > 1:
            raise PrereqError(
                f"task role {role} would get two docker images: {images[0]} and {images[1]}",
                hint="select only one dockerimage item per task role",
            )
        current = job.roles[role].get("dockerImage")
        if images and current is not None and current != images[0]:
            raise job.error(
                ("taskRoles", role, "dockerImage"),
                f"task role {role} already uses dockerImage '{current}'; {images[0]} is another image",
                hint=f"remove its dockerImage line to use {images[0]}, or do not select {images[0]}",
            )


def _refuse_item_conflicts(job: JobDocument, wanted: _Closures) -> None:
    for role, names in wanted.roles.items():
        items = [
            conflicts.Runner(n, n, wanted.versions[n].openpai.get("plugin"), wanted.versions[n].conflicts)
            for n in names
        ]
        new = set(names) - set(job.roles[role].get("prerequisites") or [])
        conflicts.refuse_conflicts(job, role, items, new, conflicts.own_runners(job, role, wanted.versions))


def _plan_top(
    work: WorkingCopy,
    job: JobDocument,
    old: JobState,
    wanted: _Closures,
    warnings: list[str],
    lines: CallbackLines | None,
) -> None:
    """The top-level prerequisites: remove, update, add."""
    for position in reversed(range(len(top_entries(work.data)))):
        name = top_names(work.data)[position]
        if name in old.lock and name not in wanted.versions:
            work.delete(("prerequisites",) if len(top_entries(work.data)) == 1 else ("prerequisites", position))
    for position, name in enumerate(top_names(work.data)):
        if name is None or name not in wanted.versions or name not in old.lock:
            continue
        chosen, before = wanted.versions[name], old.lock[name]
        entry = top_entries(work.data)[position]
        edited = entry_digest(entry, lines) != before.digest
        if (before.version, before.digest) == (chosen.version, chosen.digest):
            if edited:
                warnings.append(
                    f"{job.where_item(name)}: {name} was edited by hand since prereq added it; left as it is"
                )
            continue
        if edited:
            warnings.append(
                f"{job.where_item(name)}: {name} was edited by hand; replaced by {name} {chosen.version} from the index"
            )
        work.set(("prerequisites", position), forms.ordered_form(chosen.openpai))
    for name, chosen in wanted.versions.items():
        names = top_names(work.data)
        if name in names:
            continue
        form = forms.ordered_form(chosen.openpai)
        if work.get(("prerequisites",)) is None:
            work.set(("prerequisites",), [form], before=AFTER_PREREQUISITES)
        else:
            work.insert(("prerequisites", insert_position(names, name, wanted.needs)), form)


def _plan_role(work: WorkingCopy, role: str, old: JobState, wanted: _Closures) -> None:
    """One task role's list and docker image."""
    wanted_names = wanted.roles.get(role, [])
    stale = wanted.old_roles.get(role, set()) & set(old.lock)
    current = role_names(work.data, role)
    for position in reversed(range(len(current))):
        if current[position] in stale and current[position] not in wanted_names:
            path: tuple[Any, ...] = ("taskRoles", role, "prerequisites")
            work.delete(path if len(role_names(work.data, role)) == 1 else path + (position,))
    for name in wanted_names:
        current = role_names(work.data, role)
        if name in current:
            continue
        path = ("taskRoles", role, "prerequisites")
        if not current and work.get(path) is None:
            work.set(path, [name], after=("dockerImage",), before=("resourcePerInstance", "commands"))
        else:
            work.insert(path + (insert_position(current, name, wanted.needs),), name)
    images = [n for n in wanted_names if wanted.versions[n].openpai.get("type") == "dockerimage"]
    if images and work.data["taskRoles"][role].get("dockerImage") is None:
        work.set(
            ("taskRoles", role, "dockerImage"),
            images[0],
            after=("instances",),
            before=("resourcePerInstance", "commands", "prerequisites"),
        )


def _plan_bindings(work: WorkingCopy, role: str, old: JobState, new: JobState, wanted: _Closures) -> None:
    """The task role's data:/script:/output: fields that prereq binds (``add --bind``), and those it unbinds."""
    spec: tuple[Any, ...] = ("taskRoles", role)
    for name in old.bound.get(role, []):
        for field_name in BINDING_FIELDS:
            if name not in new.bound.get(role, []) and work.get(spec + (field_name,)) == name:
                work.delete(spec + (field_name,))
    for name in new.bound.get(role, []):
        kind = wanted.versions[name].openpai.get("type")
        if kind in BINDING_FIELDS and work.get(spec + (kind,)) != name:
            work.set(spec + (kind,), name, after=("dockerImage",), before=("prerequisites", "resourcePerInstance"))


def _plan_record(work: WorkingCopy, new: JobState, wanted: _Closures) -> None:
    """The record in extras.prereq."""
    new.lock = {name: Locked(r.version, r.digest) for name, r in wanted.versions.items()}
    if not new.empty:
        work.set(STATE_PATH, new.as_data())
    elif work.exists(STATE_PATH):
        extras = work.data.get("extras")
        work.delete(("extras",) if isinstance(extras, dict) and list(extras) == [STATE_KEY] else STATE_PATH)


def item_changes(old: JobState, versions: Mapping[str, ClosureItem], present: set[str | None]) -> list[ItemChange]:
    out = []
    for name, r in versions.items():
        required_by = tuple(n for n in r.required_by if n in versions)
        previous = old.lock.get(name)
        if name not in old.lock or name not in present:
            out.append(ItemChange("added", name, r.version, required_by=required_by, selected=r.selected))
        elif previous and previous.version != r.version:
            out.append(
                ItemChange(
                    "updated", name, r.version, previous=previous.version, required_by=required_by, selected=r.selected
                )
            )
    chosen = {Requirement.parse(text).name for names in old.selected.values() for text in names}
    for name in sorted(set(old.lock) - set(versions)):
        out.append(
            ItemChange("removed", name, old.lock[name].version, reason="" if name in chosen else "no longer needed")
        )
    return out


def role_changes(job: JobDocument, new: JobState, wanted: _Closures, changes: Sequence[ItemChange]) -> list[ItemChange]:
    """Items already in the job that a task role now runs too (another task role's ``add``): each once."""
    added = {change.name for change in changes if change.action == "added"}
    out = []
    for role, names in wanted.roles.items():
        listed = set(job.roles[role].get("prerequisites") or [])
        chosen = {Requirement.parse(text).name for text in new.selected.get(role, [])}
        for name in names:
            if name in listed or name in added:
                continue
            required_by = tuple(n for n in wanted.versions[name].required_by if n in names)
            version = wanted.versions[name].version
            out.append(
                ItemChange(
                    "added",
                    name,
                    version,
                    required_by=required_by,
                    selected=name in chosen,
                    reason=f"to task role {role}",
                )
            )
    return out


def plan_edit(
    job: JobDocument,
    old: JobState,
    new: JobState,
    index: Index,
    *,
    upgrade_all: bool = False,
    upgrade: Collection[str] = (),
) -> Plan:
    """The edits that make ``job`` carry exactly what ``new`` selects, with what changed.

    Locked versions are kept while they fit, except for the ``upgrade`` names (or all, with ``upgrade_all``)."""
    wanted = _closures(job, old, new, index, upgrade_all=upgrade_all, upgrade=upgrade)
    _refuse_conflicts(job, old, wanted)
    _refuse_item_conflicts(job, wanted)
    changes = item_changes(old, wanted.versions, set(job.top_names()))
    changes += role_changes(job, new, wanted, changes)
    warnings: list[str] = []
    work = WorkingCopy(job.data)
    lines = CallbackLines.of(index.root)
    _plan_top(work, job, old, wanted, warnings, lines)
    for role in list(job.roles):
        _plan_role(work, role, old, wanted)
        _plan_bindings(work, role, old, new, wanted)
        runs_cmd = any(
            forms.is_cmd(wanted.versions[n].openpai) for n in role_names(work.data, role) if n in wanted.versions
        )
        plan_load_line(work, job, role, runs_cmd, warnings, lines=LoadLines.of(index.root))
    plan_callback_lines(work, lines)
    _plan_record(work, new, wanted)
    notes = unmet_needs.add_notes(
        job.data, work.data, lambda name: wanted.versions[name].needs if name in wanted.versions else None
    )
    return Plan(work.edits, changes, warnings, wanted.versions, wanted.references, notes)
