"""The text edits of ``prereq job add --queue`` (``jobs.queue``): what placing task roles on a queue
writes into the job besides the selections, which the plan makes: ``defaults.virtualCluster``, the
dockerImage, ``resourcePerInstance``, the entries that are no registry items (an image from its URI, the
download scripts of libraries of files) and the PYTHONPATH line, an earlier placement's replaced.

May import: prereq.core, prereq.execution, prereq.jobs, prereq.openpai.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from prereq.core.errors import PrereqError
from prereq.core.versions import Requirement
from prereq.execution.catalog_records import Catalog, Environment, Library, Queue
from prereq.execution.placement import PYTHONPATH_LINE, download, python_path, resources, uri_image
from prereq.jobs.apply import WorkingCopy
from prereq.jobs.document import JobDocument, top_entries, top_names
from prereq.jobs.loadline import is_load_line
from prereq.jobs.plan import AFTER_PREREQUISITES
from prereq.jobs.records import ItemChange
from prereq.openpai import forms


@dataclass(frozen=True)
class _Entry:
    """A prerequisite the placement writes that is no registry item, and why it is there."""

    form: dict[str, Any]
    reason: str


@dataclass
class Target:
    """Where the task roles go: what ``jobs.queue`` checked the user may take."""

    queue: Queue
    env: Environment
    libraries: list[Library]  # with all they depend on, dependencies first
    slots: int


def _virtual_cluster(
    work: WorkingCopy, job: JobDocument, catalog: Catalog, roles: list[str], queue: Queue
) -> list[str]:
    """``defaults.virtualCluster`` set to the queue's; refused when another task role's queue has another
    (a job runs in one virtual cluster).  A warning when it replaces one the user wrote."""
    placed = job.state().queues
    for role, record in placed.items():
        other = catalog.queues.get(record["queue"])
        if role not in roles and other is not None and other.virtual_cluster != queue.virtual_cluster:
            raise PrereqError(
                f"task role {role} is on queue {other.name} (virtual cluster {other.virtual_cluster}), and a job "
                f"runs in one virtual cluster: {queue.name} is in {queue.virtual_cluster}",
                hint=f"put every task role on queues of one virtual cluster, or all of them on {queue.name} "
                "(leave out --task-role)",
                exit_code=1,
            )
    defaults = work.get(("defaults",))
    if defaults is None:
        work.set(
            ("defaults",),
            {"virtualCluster": queue.virtual_cluster},
            after=("taskRoles", "deployments"),
            before=("extras",),
        )
        return []
    if not isinstance(defaults, dict):
        raise job.error(("defaults",), "defaults must be a mapping", hint="OpenPAI's defaults: {virtualCluster: NAME}")
    current = defaults.get("virtualCluster")
    if current == queue.virtual_cluster:
        return []
    work.set(("defaults", "virtualCluster"), queue.virtual_cluster)
    if current is None or placed:
        return []
    where = job.where(("defaults", "virtualCluster"))
    return [f"{where}: defaults.virtualCluster was {current}; queue {queue.name} runs in {queue.virtual_cluster}"]


def _image(
    work: WorkingCopy, job: JobDocument, role: str, target: Target, *, replace: bool, entries: dict[str, _Entry]
) -> tuple[str | None, str | None, list[str]]:
    """The task role's image: (the image item to select, the dockerImage the record holds, warnings).  A
    dockerImage the user wrote stays unless ``replace``; one an earlier placement set gives way."""
    env, spec = target.env, ("taskRoles", role, "dockerImage")
    form = uri_image(env) if env.image_item is None else None
    name = form["name"] if form is not None else Requirement.parse(env.image_item or "").name
    current, before = work.get(spec), job.state().queues.get(role, {}).get("image")
    if current is not None and current not in (before, name) and not replace:
        return None, None, []  # the user's own image, kept
    warnings = []
    if current is not None and current != name:
        work.delete(spec)
        if current != before:
            warnings.append(
                f"{job.where(spec)}: task role {role}'s dockerImage {current} gives way to {env.ref}'s image"
            )
    if form is None:
        return env.image_item, name, warnings
    entries[name] = _Entry(form, f"the image of {env.ref}")
    if work.get(spec) != name:
        work.set(spec, name, after=("instances",), before=("resourcePerInstance", "commands", "prerequisites"))
    return None, name, warnings


def _own_entries(work: WorkingCopy, job: JobDocument, roles: list[str], wanted: dict[str, _Entry]) -> list[ItemChange]:
    """The top-level entries the placement writes that are no registry items: those of an earlier placement
    of these task roles that nothing needs any more go, the wanted ones are written or rewritten."""
    state = job.state()
    previous = {name for role in roles for name in state.queues.get(role, {}).get("entries", [])}
    others = {name for role, record in state.queues.items() if role not in roles for name in record["entries"]}
    names = top_names(work.data)
    for name in wanted:
        if name in names and name not in previous | others:
            raise job.error(
                ("prerequisites", names.index(name)),
                f"the job's own prerequisite '{name}' has the name of the entry prereq writes for the queue",
                hint=f"rename or remove your '{name}'",
                exit_code=1,
            )
    changes = []
    for position in reversed(range(len(names))):
        if names[position] in previous - set(wanted) - others:
            entry = top_entries(work.data)[position]
            work.delete(("prerequisites",) if len(top_entries(work.data)) == 1 else ("prerequisites", position))
            changes.append(
                ItemChange("removed", str(names[position]), str(entry.get("version")), reason="no longer needed")
            )
    for name, entry in wanted.items():
        names, form = top_names(work.data), forms.ordered_form(entry.form)
        if name not in names:
            if work.get(("prerequisites",)) is None:
                work.set(("prerequisites",), [form], before=AFTER_PREREQUISITES)
            else:
                work.insert(("prerequisites", len(names)), form)
            changes.append(ItemChange("added", name, form["version"], reason=entry.reason))
        elif top_entries(work.data)[names.index(name)] != form:
            before = top_entries(work.data)[names.index(name)]
            work.set(("prerequisites", names.index(name)), form)
            changes.append(
                ItemChange("updated", name, form["version"], previous=str(before.get("version")), reason=entry.reason)
            )
    return changes


def _role_list(work: WorkingCopy, job: JobDocument, role: str, listed: list[str]) -> None:
    """The task role's prerequisites list names ``listed`` (the download scripts), an earlier placement's gone."""
    path: tuple[Any, ...] = ("taskRoles", role, "prerequisites")
    previous = set(job.state().queues.get(role, {}).get("entries", [])) - set(listed)
    current = work.get(path) or []
    for position in reversed(range(len(current))):
        if current[position] in previous:
            work.delete(path if len(work.get(path)) == 1 else path + (position,))
    for name in listed:
        current = work.get(path)
        if current is None:
            work.set(path, [name], after=("dockerImage",), before=("resourcePerInstance", "commands"))
        elif name not in current:
            work.insert(path + (len(current),), name)


def _resources(work: WorkingCopy, role: str, given: dict[str, int]) -> None:
    """resourcePerInstance's cpu, memoryMB and gpu; its other keys (ports) are the user's."""
    path: tuple[Any, ...] = ("taskRoles", role, "resourcePerInstance")
    if not isinstance(work.get(path), dict):
        work.set(path, given, after=("dockerImage", "prerequisites"), before=("commands",))
        return
    for key, value in given.items():
        if work.get(path + (key,)) != value:
            work.set(path + (key,), value)


def _commands(work: WorkingCopy, job: JobDocument, role: str, wanted: list[str], load_line: str) -> list[str]:
    """The PYTHONPATH line of the libraries of files first (after the load line), an earlier one replaced."""
    path: tuple[Any, ...] = ("taskRoles", role, "commands")
    commands = work.get(path)
    if not isinstance(commands, list):
        return (
            [f"{job.where(('taskRoles', role))}: task role {role} has no list of commands; {wanted[0]} is not run"]
            if wanted
            else []
        )
    present = [i for i, c in enumerate(commands) if isinstance(c, str) and c.startswith(PYTHONPATH_LINE)]
    if wanted and present:
        if commands[present[0]] != wanted[0]:
            work.set(path + (present[0],), wanted[0])
        present = present[1:]
    for position in reversed(present):
        if len(work.get(path)) > 1:
            work.delete(path + (position,))
    if wanted and not any(isinstance(c, str) and c.startswith(PYTHONPATH_LINE) for c in work.get(path)):
        first = work.get(path)
        work.insert(path + (1 if first and is_load_line(first[0], load_line) else 0,), wanted[0])
    return []


def place(
    work: WorkingCopy,
    job: JobDocument,
    catalog: Catalog,
    roles: list[str],
    target: Target,
    *,
    replace: bool,
    load_line: str,
) -> tuple[dict[str, dict[str, Any]], dict[str, list[str]], list[ItemChange], list[str]]:
    """The placement's own edits (everything but the selections, which the plan makes): each task role's
    record (what it selected aside), the registry items it wants selected, the changes, the warnings."""
    warnings = _virtual_cluster(work, job, catalog, roles, target.queue)
    downloads = {
        form["name"]: _Entry(form, f"downloads library {lib.ref}")
        for lib in target.libraries
        if lib.install_files
        for form in [download(lib)]
    }
    entries = dict(downloads)  # and the image of an environment given by its URI, when a role takes it
    installs = list(dict.fromkeys(lib.install_item for lib in target.libraries if lib.install_item is not None))
    records: dict[str, dict[str, Any]] = {}
    wants: dict[str, list[str]] = {}
    for role in roles:
        item, image, told = _image(work, job, role, target, replace=replace, entries=entries)
        _role_list(work, job, role, list(downloads))
        _resources(work, role, resources(target.queue, target.slots))
        warnings += told + _commands(work, job, role, python_path(target.libraries), load_line)
        wants[role] = [item, *installs] if item else installs
        records[role] = {
            "queue": target.queue.name,
            "environment": str(target.env.ref),
            "slots": target.slots,
            "libraries": [str(lib.ref) for lib in target.libraries],
            "selected": [],
            "entries": [*downloads, *([image] if image in entries else [])],
            "image": image,
        }
    return records, wants, _own_entries(work, job, roles, entries), warnings
