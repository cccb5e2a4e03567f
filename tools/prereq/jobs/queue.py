"""``prereq job add --queue``: an ordinary job's task roles put on a queue of the execution catalog.

As ``execution.placement`` places a block, and with its pieces: each task role gets the queue's virtual
cluster (``defaults.virtualCluster``: a job runs in one, so every task role placed must share it),
``resourcePerInstance`` of slots x the queue's per-slot cores, memory and GPUs, the environment's docker
image when the task role has none (or when asked: ``image``), and what installs the libraries and all
they depend on.  What the user may take is checked as ``prereq queues`` offers queues (a slot there, the
queue serving the environment, every library working in it), an instance takes at most the user's and
one machine's slots, and the job's task roles on the queue together at most the user's slots.

The edit keeps the user's text (the splicing every job edit does) and is recorded per task role under
``extras.prereq.queues`` (``records.QUEUE_KEYS``), so that the other commands behave:

- registry items (the environment's image item, the libraries' install prerequisites) are *selected*
  as ``job add`` selects them: ``job lock`` locks them, ``job remove`` takes one out like any selection.
  The record names the ones the placement selected, so placing the task role again (on this queue or
  another) takes back what the new placement does not need, and never a selection of the user's;
- what is no registry item (a dockerimage made from an image URI, a library's download script) is
  written as the job's own entries, named in the record (``entries``): placing again replaces them, and
  ``job remove`` leaves them alone as it leaves every entry it did not write from the index;
- the dockerImage it set (``image``): placing again replaces it; one the user wrote, only with ``image``.

May import: prereq.core, prereq.registry.owners (the user's teams, for rights), prereq.execution, prereq.index,
prereq.jobs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from prereq.core.errors import PrereqError
from prereq.core.versions import Requirement, version_key
from prereq.execution.catalog_index import read_catalog
from prereq.execution.catalog_records import FULL_REPUTATION, Catalog, Queue, Ref
from prereq.execution.placement import resources
from prereq.execution.rights import (
    environment,
    groups_of,
    incompatible,
    library_closure,
    offered_queues,
    user_rights,
)
from prereq.jobs.apply import WorkingCopy, apply_edits
from prereq.jobs.document import JobDocument
from prereq.jobs.operations import IndexChoice, edit_file, edited, open_index, pick_roles, recorded_index, select
from prereq.jobs.plan import plan_edit
from prereq.jobs.queue_edits import Target, place
from prereq.jobs.records import JobEdit, JobState
from prereq.registry.owners import Owners


@dataclass(frozen=True)
class QueueChoice:
    """What ``--queue`` asks for, and for whom (``--user`` or ``--groups``, as ``prereq queues``)."""

    queue: str
    slots: int = 1
    environment: str | None = None  # NAME@VERSION; default: the queue's one environment the libraries work in
    libraries: tuple[str, ...] = ()  # NAME@VERSION each
    image: bool = False  # replace a dockerImage the user wrote by the environment's
    user: str | None = None
    groups: str | None = None  # "A,B"
    reputation: int = FULL_REPUTATION


@dataclass
class QueueEdit:
    """The edit, and what the placement did, for the CLI to say."""

    edit: JobEdit
    queue: str
    title: str
    virtual_cluster: str
    environment: str
    roles: dict[str, dict[str, int]]  # task role -> its resourcePerInstance
    slots: int  # per instance
    image: dict[str, str | None] = field(default_factory=dict)  # task role -> the dockerImage set (None: its own)

    def describe(self, *, dry_run: bool = False) -> list[str]:
        """A line per task role, as ``prereq job add --queue`` prints it (``dry_run``: what it would do)."""
        lines = []
        for role, given in self.roles.items():
            shown = ", ".join(f"{key} {value}" for key, value in given.items())
            image = self.image.get(role)
            using = f", image {image}" if image else ""
            verb = "would place" if dry_run else "placed"
            lines.append(
                f"{verb} task role {role} on queue {self.queue} ({self.title}; virtual cluster {self.virtual_cluster}):"
                f" {self.slots} slot(s) = {shown}, environment {self.environment}{using}"
            )
        return lines


def _ref(text: str, what: str) -> Ref:
    ref = Ref.parse(text)
    if not ref.name or not ref.version:
        raise PrereqError(f"{what} {text!r} is not NAME@VERSION", hint=f"e.g. --{what} python@1.0.0")
    return ref


def _environment(catalog: Catalog, queue: Queue, choice: QueueChoice, libraries: list[Ref]) -> Ref:
    """The environment asked for, else the queue's one environment the libraries work in (its newest
    version)."""
    if choice.environment is not None:
        ref = _ref(choice.environment, "environment")
        environment(catalog, ref)
        return ref
    served = [ref for ref in queue.environments if ref in catalog.environments]
    fitting = [ref for ref in served if incompatible(catalog, ref, libraries) is None] or served
    if len({ref.name for ref in fitting}) == 1:  # versions of one environment: the newest
        return max(fitting, key=lambda ref: version_key(ref.version))
    if len(fitting) != 1:
        shown = ", ".join(str(ref) for ref in fitting) or "none the catalog has"
        raise PrereqError(
            f"queue {queue.name} serves several environments: {shown}", hint="name one with --environment NAME@VERSION"
        )
    return fitting[0]


def _instances(job: JobDocument, role: str) -> int:
    count = job.roles[role].get("instances", 1)
    return count if isinstance(count, int) and not isinstance(count, bool) and count > 0 else 1


def _fit(catalog: Catalog, owners: Owners, choice: QueueChoice, job: JobDocument, roles: list[str]) -> Target:
    """The queue, environment and libraries, refused (exit 1) unless the user may run the roles there."""
    queue = catalog.queues.get(choice.queue)
    if queue is None:
        raise PrereqError(
            f"no queue {choice.queue!r} in the catalog", hint="queues: " + ", ".join(sorted(catalog.queues))
        )
    if choice.slots < 1:
        raise PrereqError(f"--slots {choice.slots}: a task role takes at least one slot", hint="e.g. --slots 1")
    groups = groups_of(catalog, owners, user=choice.user, groups=choice.groups)
    wanted = [_ref(text, "library") for text in choice.libraries]
    env = _environment(catalog, queue, choice, wanted)
    rights = user_rights(catalog, groups, reputation=choice.reputation)
    offers, refusals = offered_queues(catalog, rights, env=env, libraries=wanted)
    hint = f"'prereq queues --groups {','.join(groups)} --environment {env}' lists the queues you may use"
    why = next((r.reason for r in refusals if r.queue == queue.name), None)
    offer = next((o for o in offers if o.queue == queue.name), None)
    if offer is None:
        raise PrereqError(f"the job cannot run on {queue.name} for {', '.join(groups)}: {why}", hint=hint, exit_code=1)
    if choice.slots > offer.max_slots:
        raise PrereqError(
            f"{choice.slots} slots per instance on {queue.name}, but an instance runs on one machine and takes at most "
            f"{offer.max_slots} there (yours: {next(r.slots for r in rights if r.queue == queue.name)}, one machine's:"
            f" {queue.slots_per_machine})",
            hint=f"pass --slots {offer.max_slots} or fewer",
            exit_code=1,
        )
    others = {role: record for role, record in job.state().queues.items() if role not in roles}
    used = sum(_instances(job, role) * choice.slots for role in roles) + sum(
        _instances(job, role) * record["slots"] for role, record in others.items() if record["queue"] == queue.name
    )
    mine = next(r.slots for r in rights if r.queue == queue.name)
    if used > mine:
        raise PrereqError(
            f"the job's task roles would run {used} slots at once on {queue.name}; your groups give you {mine}",
            hint="take fewer slots (--slots), fewer instances, or put a task role on another queue (--task-role)",
            exit_code=1,
        )
    libraries = [catalog.libraries[ref] for ref in library_closure(catalog, wanted)]
    return Target(queue, catalog.environments[env], libraries, choice.slots)


def _reselect(new: JobState, old: JobState, role: str, wants: list[str]) -> list[str]:
    """The task role's selections with ``wants``: what an earlier placement selected and this one does not
    want goes, what it wants is selected (a selection of the user's stays theirs); what the placement owns."""
    name = lambda text: Requirement.parse(text).name  # noqa: E731
    before = {name(text) for text in old.queues.get(role, {}).get("selected", [])}
    wanted = {name(text): text for text in wants}
    chosen = [wanted.get(name(t), t) if name(t) in before else t for t in new.selected.get(role, [])]
    chosen = [t for t in chosen if name(t) not in before or name(t) in wanted]
    present = {name(t) for t in chosen}
    new.selected[role] = chosen + [text for text in wants if name(text) not in present]
    return [text for text in wants if name(text) in before or name(text) not in present]


def add_queue_to_text(
    text: str,
    choice: QueueChoice,
    *,
    names: Sequence[str] = (),
    catalog: tuple[Catalog, Owners] | None = None,
    index: IndexChoice = None,
    task_role: str | Sequence[str] | None = None,
    source: str = "<job>",
    job_dir: Path | None = None,
) -> QueueEdit:
    """Put the job's task roles (or ``task_role``) on ``choice.queue``; see ``add_queue``."""
    job = JobDocument(text, source)
    old = job.state()
    loaded, used = open_index(index, old, job_dir)
    found, owners = catalog if catalog is not None else read_catalog(loaded)
    roles = pick_roles(job, task_role) if task_role else list(job.roles)
    target = _fit(found, owners, choice, job, roles)
    work = WorkingCopy(job.data)
    load_line = loaded.root["job_load_line"]
    records, wants, changes, warnings = place(
        work, job, found, roles, target, replace=choice.image, load_line=load_line
    )
    apply_edits(job.doc, work.edits)
    placed = JobDocument(job.text, source)
    recorded, told = recorded_index(old.index, used)
    new = old.copy(index=recorded)
    for role in roles:
        records[role]["selected"] = _reselect(new, old, role, wants[role])
        new.queues[role] = records[role]
    notes = select(placed, new, loaded, names, pick_roles(placed, task_role)) if names else []
    plan = plan_edit(placed, old, new, loaded)
    edit = edited(placed, text, plan, changes=[*changes, *plan.changes], notes=[*warnings, *notes], told=told)
    return QueueEdit(
        edit=edit,
        queue=target.queue.name,
        title=target.queue.title,
        virtual_cluster=target.queue.virtual_cluster,
        environment=str(target.env.ref),
        roles={role: resources(target.queue, target.slots) for role in roles},
        slots=target.slots,
        image={role: records[role]["image"] for role in roles},
    )


def add_queue(
    job: str | Path,
    choice: QueueChoice,
    *,
    names: Sequence[str] = (),
    catalog: tuple[Catalog, Owners] | None = None,
    index: IndexChoice = None,
    task_role: str | Sequence[str] | None = None,
    dry_run: bool = False,
) -> QueueEdit:
    """Put a job file's task roles (or ``task_role``) on a queue of the execution catalog, with ``names``
    added as ``add`` adds them.  The catalog is ``catalog`` (a registry's, ``validate.open_catalog``), else
    the one published beside the index (``api/v1/execution/catalog.json``), which is found as ``add``
    finds it.  Refused (exit 1) when the user (``choice.user`` or ``choice.groups``) may not run it there."""
    placed: list[QueueEdit] = []

    def run(text: str, source: str, folder: Path) -> JobEdit:
        placed.append(
            add_queue_to_text(
                text,
                choice,
                names=names,
                catalog=catalog,
                index=index,
                task_role=task_role,
                source=source,
                job_dir=folder,
            )
        )
        return placed[-1].edit

    edit_file(job, dry_run, run)
    return placed[-1]
