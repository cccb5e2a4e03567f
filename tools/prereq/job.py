"""Put registry prerequisites into OpenPAI jobs: add, remove, lock, resolve.

A job records what prereq did in ``extras.prereq`` (OpenPAI leaves ``extras``
free-form)::

    extras:
      prereq:
        index: build/site                  # the index used
        selected:                          # what the user chose, per task role
          train: [mnist-data, output-dir@^1.0]
        lock:                              # every item prereq put in the job
          nfs-storage-1: {version: 1.0.2, digest: "sha256:..."}

Entries of the job's ``prerequisites`` whose names are in the lock are
prereq's; everything else is the user's own and is never changed.  Every edit
works on the text (``yamledit``), so comments and layout survive, and files are
replaced atomically.

From one state the job's content follows:

- the top-level ``prerequisites`` holds the OpenPAI form of every item of every
  task role's closure, requirements before the items that need them;
- each task role's ``prerequisites`` names its whole closure in that order
  (OpenPAI's runtime runs only what the task role lists, and never expands
  ``require``);
- a ``dockerimage`` item becomes the task role's ``dockerImage`` when it has none;
- a task role that lists a prereq ``cmd`` item gets ``runtime.JOB_LOAD_LINE``
  first in its ``commands``, so variables that items export reach the job.

Where things go (any other editor of jobs, such as the composer page, should
do the same so that both give equal jobs): a new entry goes before the first
entry that needs it, else at the end of its list; a new top-level
``prerequisites`` goes before ``parameters``/``secrets``/.../``taskRoles``; a
new task role ``prerequisites`` after ``dockerImage``; ``extras`` at the end.
Entries are the index's ``openpai`` forms with keys in ``openpai.FORM_ORDER``; the lock
is sorted by name.  The user's own entries keep their place; a prereq item the
user's own text names (a ``dockerImage``, or a task role list that prereq did
not write) stays in the job.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import openpai, openpai_schema, runtime, templates
from .client import Index, Resolved, index_source
from .errors import PrereqError
from .files import write_atomic
from .rules import RULES
from .versions import Requirement, is_range
from .yamledit import YamlText, load_error
from .yamlio import YamlLoadError, load_yaml

STATE_KEY = "prereq"
STATE_PATH = ("extras", STATE_KEY)
# Top-level keys that come after ``prerequisites`` in an OpenPAI job.
AFTER_PREREQUISITES = ("parameters", "secrets", "jobRetryCount", "taskRoles", "deployments", "defaults", "extras")
CMD_PLUGIN = runtime.DEFAULT_PLUGIN
TASK_ROLE_FIELDS = tuple(openpai_schema.TASK_ROLE_FIELDS)


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Locked:
    version: str
    digest: str


@dataclass
class JobState:
    """What ``extras.prereq`` records."""

    index: str | None = None
    selected: dict[str, list[str]] = field(default_factory=dict)
    lock: dict[str, Locked] = field(default_factory=dict)

    def as_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        if self.index:
            data["index"] = self.index
        data["selected"] = {role: list(names) for role, names in self.selected.items() if names}
        data["lock"] = {name: {"version": entry.version, "digest": entry.digest}
                        for name, entry in sorted(self.lock.items())}
        return data

    @property
    def empty(self) -> bool:
        return not any(self.selected.values()) and not self.lock

    def copy(self, *, index: str | None = None) -> JobState:
        """A copy to edit (its own lists and lock); ``index``, when given, replaces the recorded one."""
        return JobState(index=index or self.index,
                        selected={role: list(names) for role, names in self.selected.items()}, lock=dict(self.lock))


@dataclass(frozen=True)
class ItemChange:
    """What an edit did to one prerequisite."""

    action: str  # "added" | "removed" | "updated" | "kept"
    name: str
    version: str
    previous: str | None = None
    required_by: tuple[str, ...] = ()
    selected: bool = False
    reason: str = ""

    def describe(self) -> str:
        if self.action == "updated":
            text = f"updated {self.name} {self.previous} -> {self.version}"
        else:
            text = f"{self.action} {self.name} {self.version}"
        if self.required_by:
            text += ", required by " + ", ".join(self.required_by)
        elif self.selected and self.action == "added":
            text += ", selected"
        if self.reason:
            text += f" ({self.reason})"
        return text


@dataclass
class JobEdit:
    """The result of ``add``, ``remove`` or ``lock``."""

    path: Path | None
    before: str
    after: str
    changes: list[ItemChange] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    written: bool = False

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        name = str(self.path) if self.path else "job"
        before, after = (name, name) if Path(name).is_absolute() else (f"a/{name}", f"b/{name}")
        return "".join(difflib.unified_diff(self.before.splitlines(keepends=True),
                                            self.after.splitlines(keepends=True), fromfile=before, tofile=after))


@dataclass
class ResolvedJob:
    """The result of ``resolve``: the job ready for OpenPAI."""

    text: str
    data: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
    changes: list[ItemChange] = field(default_factory=list)


# --------------------------------------------------------------------------- the job text


class _Job:
    def __init__(self, text: str, source: str) -> None:
        self.source = source
        self.doc = YamlText(text, source=source)
        self.initial = self.doc.loaded  # positions in the file as the user wrote it
        self._check_shape()

    @property
    def data(self) -> dict[str, Any]:
        return self.doc.data

    @property
    def text(self) -> str:
        return self.doc.text

    def where(self, path: Sequence[Any], *, key: bool = False) -> str:
        """``file:line`` of ``path``'s value (or key) or its nearest ancestor's, in the file as the user wrote it."""
        line, _ = self.initial.position(tuple(path), key=key)
        return f"{self.source}:{line}"

    def where_item(self, name: str) -> str:
        """``file:line`` of the user's file's prerequisite ``name``; just the file when it has none."""
        data = self.initial.data
        items = data.get("prerequisites") if isinstance(data, dict) else None
        for position, item in enumerate(items if isinstance(items, list) else []):
            if isinstance(item, dict) and item.get("name") == name:
                return self.where(("prerequisites", position))
        return self.source

    def where_text(self, needle: str) -> str | None:
        """``file:line`` of the first string of the user's file that contains ``needle``."""
        for path, value in templates.strings(self.initial.data):
            if needle in value:
                return self.where(path)
        return None

    def error(self, path: Sequence[Any], message: str, *, hint: str = "", exit_code: int = 1,
              key: bool = False) -> PrereqError:
        return PrereqError(f"{self.where(path, key=key)}: {message}", hint=hint, exit_code=exit_code)

    def _check_shape(self) -> None:
        if not isinstance(self.data, dict):
            raise PrereqError(f"{self.source}: not an OpenPAI job (the file is not a YAML mapping)", exit_code=1)
        roles = self.data.get("taskRoles")
        if not isinstance(roles, dict) or not roles:
            raise self.error(("taskRoles",) if "taskRoles" in self.data else (),
                             "an OpenPAI job needs 'taskRoles' with at least one task role")
        for role, spec in roles.items():
            if not isinstance(role, str):
                raise self.error(("taskRoles", role), f"task role name {_show(role)} is not a string",
                                 hint="OpenPAI task role names are strings such as 'train'; quote a name that "
                                 "YAML would read as a number, boolean or null", key=True)
            if not isinstance(spec, dict):
                raise self.error(("taskRoles", role), f"task role {role} is not a mapping")
            names = spec.get("prerequisites")
            if names is not None and (not isinstance(names, list) or not all(isinstance(n, str) for n in names)):
                raise self.error(("taskRoles", role, "prerequisites"),
                                 f"taskRoles.{role}.prerequisites must be a list of prerequisite names")
        top = self.data.get("prerequisites")
        if top is not None and not isinstance(top, list):
            raise self.error(("prerequisites",), "'prerequisites' must be a list")
        for position, item in enumerate(top or []):
            if isinstance(item, dict) and "name" in item and not isinstance(item["name"], str):
                raise self.error(("prerequisites", position, "name"),
                                 f"prerequisite name {_show(item['name'])} is not a string",
                                 hint="task roles refer to prerequisites by name: write a string")

    def require_role(self, role: str) -> str:
        """``role``, when the job has that task role."""
        if role not in self.roles:
            raise PrereqError(f"{self.source}: no task role {role!r}", hint="task roles: " + ", ".join(self.roles))
        return role

    @property
    def roles(self) -> dict[str, dict[str, Any]]:
        return self.data["taskRoles"]

    def top(self) -> list[Any]:
        return self.data.get("prerequisites") or []

    def top_names(self) -> list[str | None]:
        """The name of each top-level prerequisite (None for an entry without a string name)."""
        return [item["name"] if isinstance(item, dict) and isinstance(item.get("name"), str) else None
                for item in self.top()]

    def role_names(self, role: str) -> list[str]:
        return list(self.roles[role].get("prerequisites") or [])

    def state(self) -> JobState:
        extras = self.data.get("extras")
        if extras is not None and not isinstance(extras, dict):
            raise self.error(("extras",), "extras must be a mapping",
                             hint="OpenPAI keeps extras free-form, as a mapping; prereq records its items "
                             "under extras.prereq")
        raw = self.doc.get(STATE_PATH)
        if raw is None:
            return JobState()
        hint = "extras.prereq is written by prereq: {index, selected: {ROLE: [NAME[@RANGE]]}, " \
               "lock: {NAME: {version, digest}}}"
        if not isinstance(raw, dict):
            raise self.error(STATE_PATH, "extras.prereq must be a mapping", hint=hint)
        index = raw.get("index")
        if index is not None and not isinstance(index, str):
            raise self.error(STATE_PATH + ("index",), "extras.prereq.index must be a string (a build folder or URL)",
                             hint=hint)
        state = JobState(index=index)
        selected = raw.get("selected") or {}
        if not isinstance(selected, dict):
            raise self.error(STATE_PATH + ("selected",), "extras.prereq.selected must map task roles to lists",
                             hint=hint)
        for role, names in selected.items():
            path = STATE_PATH + ("selected", role)
            if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                raise self.error(path, f"extras.prereq.selected.{role} must be a list of NAME[@RANGE]", hint=hint)
            if role not in self.roles:
                raise self.error(path, f"extras.prereq.selected names task role {role!r}, which the job does not have",
                                 hint="rename it there too when you rename a task role "
                                 f"(task roles: {', '.join(self.roles)})")
            for position, text in enumerate(names):
                requirement = Requirement.parse(text)
                if not requirement.name:
                    raise self.error(path + (position,), f"{text!r} in extras.prereq.selected.{role} is not "
                                     "NAME or NAME@RANGE", hint=hint)
                if requirement.range and not is_range(requirement.range):
                    raise self.error(path + (position,), f"{text} in extras.prereq.selected.{role} has an invalid "
                                     "version range", hint=RULES["PRQ141"].hint)
            state.selected[role] = list(names)
        lock = raw.get("lock") or {}
        if not isinstance(lock, dict):
            raise self.error(STATE_PATH + ("lock",), "extras.prereq.lock must be a mapping", hint=hint)
        for name, entry in lock.items():
            if not isinstance(name, str):
                raise self.error(STATE_PATH + ("lock", name), f"extras.prereq.lock names {_show(name)}, "
                                 "which is not a string", hint="run 'prereq job lock' to rewrite the lock", key=True)
            if not isinstance(entry, dict) or not isinstance(entry.get("version"), str) \
                    or not isinstance(entry.get("digest"), str):
                raise self.error(STATE_PATH + ("lock", name), f"extras.prereq.lock.{name} needs version and digest "
                                 "strings", hint="run 'prereq job lock' to rewrite the lock")
            state.lock[name] = Locked(entry["version"], entry["digest"])
        return state


def _show(value: Any) -> str:
    """A YAML scalar as the user wrote it (1, null, true), for messages about non-string names."""
    return json.dumps(value) if isinstance(value, (int, float, bool)) or value is None else repr(value)


def _read(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise PrereqError(f"no such job file: {path}") from None
    except OSError as exc:
        raise PrereqError(f"cannot read {path}: {exc.strerror}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        load_yaml(raw)  # yamlio's decoding names the line and column of the first bad byte
    except YamlLoadError as exc:
        raise load_error(str(path), exc, hint="save the file as UTF-8") from None
    raise PrereqError(f"{path}: not valid UTF-8", hint="save the file as UTF-8", exit_code=1)


# --------------------------------------------------------------------------- the index


def _open_index(index: Index | str | Path | None, state: JobState, job_dir: Path | None) -> tuple[Index, str]:
    if isinstance(index, Index):
        return index, state.index or index.base
    source = index_source(str(index) if index else None, recorded=state.index, base_dir=job_dir)
    return Index.load(source), source


# --------------------------------------------------------------------------- reconciling


def _transitive(deps: Mapping[str, Collection[str]]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}

    def visit(name: str, trail: tuple[str, ...] = ()) -> set[str]:
        if name in out:
            return out[name]
        found: set[str] = set()
        for dep in deps.get(name, ()):
            if dep in trail:
                continue
            found.add(dep)
            found |= visit(dep, trail + (name,))
        out[name] = found
        return found

    for name in deps:
        visit(name)
    return out


def _position(names: Sequence[str | None], name: str, needs: Mapping[str, set[str]]) -> int:
    """Where ``name`` goes: before the first entry that needs it, after its own requirements."""
    dependents = [i for i, other in enumerate(names) if other and name in needs.get(other, set())]
    requirements = [i for i, other in enumerate(names) if other and other in needs.get(name, set())]
    position = min(dependents) if dependents else len(names)
    if requirements and position <= max(requirements):
        position = max(requirements) + 1
    return position


def _is_cmd(form: Any) -> bool:
    return isinstance(form, dict) and form.get("plugin") == CMD_PLUGIN


def _is_load_line(command: Any) -> bool:
    return isinstance(command, str) and (command == runtime.JOB_LOAD_LINE or
                                         (runtime.ENV_MARK in command and command.lstrip().startswith("if [ -f")))


def _resolve(index: Index, selections: list[str], locked: Mapping[str, str]) -> list[Resolved]:
    return index.resolve(selections, locked=dict(locked)) if selections else []


@dataclass
class _Outcome:
    changes: list[ItemChange]
    warnings: list[str]
    closure: dict[str, Resolved]  # every item prereq keeps in the job, requirements first
    references: dict[str, str]  # prereq's items that the user's own text names, and where


def _reconcile(job: _Job, old: JobState, new: JobState, index: Index, *, upgrade_all: bool = False,
               upgrade: Collection[str] = ()) -> _Outcome:
    """Edit ``job`` so that it carries exactly what ``new`` selects; return what changed.

    Locked versions are kept while they fit, except for the ``upgrade`` names (or all, with ``upgrade_all``)."""
    warnings: list[str] = []
    managed_old = set(old.lock)
    old_versions = {name: entry.version for name, entry in old.lock.items()}

    # What each task role got from prereq before this edit.
    old_closure: dict[str, set[str]] = {}
    for role, names in old.selected.items():
        try:
            old_closure[role] = {r.name for r in _resolve(index, names, old_versions)}
        except PrereqError:
            old_closure[role] = set(managed_old)

    # prereq's items that the user's own text refers to stay in the job.
    references: dict[str, str] = {}
    for role, spec in job.roles.items():
        for name in spec.get("prerequisites") or []:
            if name in managed_old and name not in old_closure.get(role, set()):
                references.setdefault(name, f"task role {role} lists it")
        for field_name in TASK_ROLE_FIELDS:
            name = spec.get(field_name)
            if isinstance(name, str) and name in managed_old:
                references.setdefault(name, f"the {field_name} of task role {role} names it")

    locked = {} if upgrade_all else {name: version for name, version in old_versions.items() if name not in upgrade}
    selections = [text for names in new.selected.values() for text in names]
    closure = _resolve(index, selections + sorted(references), locked)
    versions = {r.name: r for r in closure}
    deps: dict[str, set[str]] = {r.name: set() for r in closure}
    for r in closure:
        for requirer in r.required_by:
            deps.setdefault(requirer, set()).add(r.name)
    needs = _transitive(deps)

    role_closure: dict[str, list[str]] = {}
    for role, names in new.selected.items():
        if names:
            pinned = {n: r.version for n, r in versions.items()}
            role_closure[role] = [r.name for r in index.resolve(names, locked=pinned)]

    # Hand-written prerequisites are the user's: never replaced.
    for position, name in enumerate(job.top_names()):
        if name in versions and name not in managed_old:
            raise job.error(("prerequisites", position),
                            f"the job's own prerequisite {name!r} has the name of a registry item; "
                            "prereq does not overwrite it",
                            hint=f"rename or remove your {name!r} to use the registry's, or keep yours and do not "
                            "select the registry item")

    # Docker images: one per task role.
    for role, names in role_closure.items():
        images = [n for n in names if versions[n].openpai.get("type") == "dockerimage"]
        if len(images) > 1:
            raise PrereqError(f"task role {role} would get two docker images: {images[0]} and {images[1]}",
                              hint="select only one dockerimage item per task role")
        current = job.roles[role].get("dockerImage")
        if images and current is not None and current != images[0]:
            raise job.error(("taskRoles", role, "dockerImage"),
                            f"task role {role} already uses dockerImage {current!r}; {images[0]} is another image",
                            hint=f"remove its dockerImage line to use {images[0]}, or do not select {images[0]}")

    changes = _changes(old, versions, managed_old, set(job.top_names()))

    # 1. The top-level prerequisites: remove, update, add.
    for position in reversed(range(len(job.top()))):
        name = job.top_names()[position]
        if name in managed_old and name not in versions:
            if len(job.top()) == 1:
                job.doc.delete(("prerequisites",))
            else:
                job.doc.delete(("prerequisites", position))
    for position, name in enumerate(job.top_names()):
        if name not in versions or name not in managed_old:
            continue
        chosen = versions[name]
        entry = job.top()[position]
        before = old.lock.get(name)
        if before and (before.version, before.digest) == (chosen.version, chosen.digest):
            if openpai.digest(entry) != before.digest:
                warnings.append(f"{job.where_item(name)}: {name} was edited by hand since prereq "
                                "added it; left as it is")
            continue
        if before and openpai.digest(entry) != before.digest:
            warnings.append(f"{job.where_item(name)}: {name} was edited by hand; "
                            f"replaced by {name} {chosen.version} from the index")
        job.doc.set(("prerequisites", position), openpai.ordered_form(chosen.openpai))
    for name, chosen in versions.items():
        names = job.top_names()
        if name in names:
            continue
        form = openpai.ordered_form(chosen.openpai)
        if not job.doc.exists(("prerequisites",)) or job.data.get("prerequisites") is None:
            job.doc.set(("prerequisites",), [form], before=AFTER_PREREQUISITES)
        else:
            job.doc.insert(("prerequisites", _position(names, name, needs)), form)

    # 2. Each task role: its list, its docker image, the line that loads exported variables.
    final_forms = {name: r.openpai for name, r in versions.items()}
    for role in list(job.roles):
        current = job.role_names(role)
        wanted = role_closure.get(role, [])
        stale = old_closure.get(role, set()) & managed_old
        for position in reversed(range(len(current))):
            if current[position] in stale and current[position] not in wanted:
                if len(job.role_names(role)) == 1:
                    job.doc.delete(("taskRoles", role, "prerequisites"))
                else:
                    job.doc.delete(("taskRoles", role, "prerequisites", position))
        for name in wanted:
            current = job.role_names(role)
            if name in current:
                continue
            path = ("taskRoles", role, "prerequisites")
            if not current and job.doc.get(path) is None:
                job.doc.set(path, [name], after=("dockerImage",), before=("resourcePerInstance", "commands"))
            else:
                job.doc.insert(path + (_position(current, name, needs),), name)
        images = [n for n in wanted if final_forms[n].get("type") == "dockerimage"]
        if images and job.roles[role].get("dockerImage") is None:
            job.doc.set(("taskRoles", role, "dockerImage"), images[0],
                        after=("instances",), before=("resourcePerInstance", "commands", "prerequisites"))
        _load_line(job, role, any(_is_cmd(final_forms.get(n)) for n in job.role_names(role)), warnings)

    # 3. The record in extras.prereq.
    new.lock = {name: Locked(r.version, r.digest) for name, r in versions.items()}
    if new.empty:
        if job.doc.exists(STATE_PATH):
            extras = job.data.get("extras")
            if isinstance(extras, dict) and list(extras) == [STATE_KEY]:
                job.doc.delete(("extras",))
            else:
                job.doc.delete(STATE_PATH)
    else:
        job.doc.set(STATE_PATH, new.as_data())
    return _Outcome(changes, warnings, versions, references)


def _load_line(job: _Job, role: str, needed: bool, warnings: list[str]) -> None:
    path = ("taskRoles", role, "commands")
    commands = job.doc.get(path)
    if not isinstance(commands, list):
        if needed:
            warnings.append(f"{job.where(('taskRoles', role))}: task role {role} has no list of commands; "
                            "variables exported by prerequisites will not reach it")
        return
    present = [i for i, command in enumerate(commands) if _is_load_line(command)]
    if needed and not present:
        if commands:
            job.doc.insert(path + (0,), runtime.JOB_LOAD_LINE)
        else:
            job.doc.set(path, [runtime.JOB_LOAD_LINE])
    elif not needed:
        for position in reversed(present):
            if len(job.doc.get(path)) > 1:
                job.doc.delete(path + (position,))


def _changes(old: JobState, versions: Mapping[str, Resolved], managed_old: set[str],
             present: set[str | None]) -> list[ItemChange]:
    out = []
    for name, r in versions.items():
        required_by = tuple(n for n in r.required_by if n in versions)
        previous = old.lock.get(name)
        if name not in managed_old or name not in present:
            out.append(ItemChange("added", name, r.version, required_by=required_by, selected=r.selected))
        elif previous and previous.version != r.version:
            out.append(ItemChange("updated", name, r.version, previous=previous.version, required_by=required_by,
                                  selected=r.selected))
    chosen = {Requirement.parse(text).name for names in old.selected.values() for text in names}
    for name in sorted(managed_old - set(versions)):
        out.append(ItemChange("removed", name, old.lock[name].version,
                              reason="" if name in chosen else "no longer needed"))
    return out


# --------------------------------------------------------------------------- the operations


def _pick_roles(job: _Job, task_role: str | None) -> list[str]:
    roles = list(job.roles)
    if task_role is not None:
        return [job.require_role(task_role)]
    if len(roles) == 1:
        return roles
    raise PrereqError(f"{job.source} has {len(roles)} task roles: {', '.join(roles)}",
                      hint="name one with --task-role ROLE")


def add_to_text(text: str, names: Sequence[str], *, index: Index | str | Path | None = None,
                task_role: str | None = None, source: str = "<job>", job_dir: Path | None = None) -> JobEdit:
    """Add ``NAME[@RANGE]`` selections to a job's text; see ``add``."""
    job = _Job(text, source)
    old = job.state()
    loaded, used = _open_index(index, old, job_dir)
    roles = _pick_roles(job, task_role)
    new = old.copy(index=used)
    notes: list[str] = []
    for text_name in names:
        requirement = Requirement.parse(text_name)
        if not requirement.name:
            raise PrereqError(f"{text_name!r} is not NAME or NAME@RANGE")
        loaded.document(requirement.name)  # unknown names fail here, with a suggestion
        for role in roles:
            chosen = new.selected.setdefault(role, [])
            same = [i for i, t in enumerate(chosen) if Requirement.parse(t).name == requirement.name]
            if same:
                if chosen[same[0]] == text_name:
                    notes.append(f"{requirement.name} is already selected in task role {role}")
                chosen[same[0]] = text_name
                for extra in reversed(same[1:]):
                    del chosen[extra]
            else:
                chosen.append(text_name)
    outcome = _reconcile(job, old, new, loaded)
    return JobEdit(path=None, before=text, after=job.text, changes=outcome.changes,
                   warnings=notes + outcome.warnings)


def remove_from_text(text: str, names: Sequence[str], *, index: Index | str | Path | None = None,
                     task_role: str | None = None, source: str = "<job>", job_dir: Path | None = None) -> JobEdit:
    """Remove selections (and what only they needed) from a job's text; see ``remove``."""
    job = _Job(text, source)
    old = job.state()
    if task_role is not None:
        job.require_role(task_role)
    new = old.copy()
    for name in names:
        name = Requirement.parse(name).name
        selecting = [role for role, chosen in old.selected.items()
                     if any(Requirement.parse(t).name == name for t in chosen)]
        if task_role is not None:
            selecting = [role for role in selecting if role == task_role]
        if not selecting:
            raise _not_selected(job, old, name, task_role)
        if len(selecting) > 1:
            raise PrereqError(f"{name} is selected in task roles {', '.join(selecting)}",
                              hint="name one with --task-role ROLE")
        role = selecting[0]
        new.selected[role] = [t for t in new.selected[role] if Requirement.parse(t).name != name]
        if not new.selected[role]:
            del new.selected[role]
    loaded, _ = _open_index(index, old, job_dir)
    outcome = _reconcile(job, old, new, loaded)
    changes = list(outcome.changes)
    for name in dict.fromkeys(Requirement.parse(n).name for n in names):
        kept = outcome.closure.get(name)
        if kept is None:
            continue
        if kept.required_by:
            reason = "still required by " + ", ".join(kept.required_by)
        elif name in outcome.references:
            reason = outcome.references[name]
        else:
            reason = "still selected in another task role"
        changes.append(ItemChange("kept", name, kept.version, reason=reason))
    return JobEdit(path=None, before=text, after=job.text, changes=changes, warnings=outcome.warnings)


def _not_selected(job: _Job, state: JobState, name: str, task_role: str | None) -> PrereqError:
    names = job.top_names()
    if name in names and name not in state.lock:
        return job.error(("prerequisites", names.index(name)),
                         f"{name} was written by hand in the job; prereq leaves it alone",
                         hint="delete it from the YAML yourself", exit_code=2)
    if name in state.lock:
        where = f" in task role {task_role}" if task_role else ""
        return PrereqError(f"{name} is not selected{where}: it is in the job because other items require it",
                           hint="remove the items that require it (see extras.prereq.selected)")
    return PrereqError(f"{name} is not in the job", hint="see extras.prereq.selected for what prereq added")


def lock_text(text: str, *, upgrade_all: bool = False, upgrade: Collection[str] = (),
              index: Index | str | Path | None = None, source: str = "<job>", job_dir: Path | None = None) -> JobEdit:
    """Refresh the lock: keep locked versions that still fit; the ``upgrade`` names (or all, with
    ``upgrade_all``) move to the newest versions the ranges allow."""
    job = _Job(text, source)
    old = job.state()
    upgrade = [upgrade] if isinstance(upgrade, str) else list(upgrade)
    unknown = [name for name in upgrade if name not in old.lock]
    if unknown:
        raise PrereqError(f"{', '.join(unknown)} {'is' if len(unknown) == 1 else 'are'} not locked in this job",
                          hint="locked: " + (", ".join(sorted(old.lock)) or "nothing"))
    loaded, used = _open_index(index, old, job_dir)
    new = old.copy(index=old.index or used)
    outcome = _reconcile(job, old, new, loaded, upgrade_all=upgrade_all, upgrade=set(upgrade))
    return JobEdit(path=None, before=text, after=job.text, changes=outcome.changes, warnings=outcome.warnings)


def _edit_file(job: str | Path, dry_run: bool, run) -> JobEdit:
    path = Path(job)
    text = _read(path)
    result: JobEdit = run(text, str(path), path.resolve().parent)
    result.path = path
    if result.changed and not dry_run:
        write_atomic(path, result.after)
        result.written = True
    return result


def add(job: str | Path, names: Sequence[str], *, task_role: str | None = None,
        index: Index | str | Path | None = None, dry_run: bool = False) -> JobEdit:
    """Add registry items (``NAME`` or ``NAME@RANGE``) and everything they require to a job file.

    The items go to ``task_role`` (or the job's only task role).  The index is
    ``index``, else $PREREQ_INDEX, else the one the job records, else build/site."""
    return _edit_file(job, dry_run, lambda text, source, folder: add_to_text(
        text, names, index=index, task_role=task_role, source=source, job_dir=folder))


def remove(job: str | Path, names: Sequence[str], *, task_role: str | None = None,
           index: Index | str | Path | None = None, dry_run: bool = False) -> JobEdit:
    """Remove selected items from a job file, and the requirements nothing selected still needs."""
    return _edit_file(job, dry_run, lambda text, source, folder: remove_from_text(
        text, names, index=index, task_role=task_role, source=source, job_dir=folder))


def lock(job: str | Path, *, upgrade_all: bool = False, upgrade: Collection[str] = (),
         index: Index | str | Path | None = None, dry_run: bool = False) -> JobEdit:
    """Refresh a job file's lock; the ``upgrade`` names (or all, with ``upgrade_all``) move to the newest
    versions allowed."""
    return _edit_file(job, dry_run, lambda text, source, folder: lock_text(
        text, upgrade_all=upgrade_all, upgrade=upgrade, index=index, source=source, job_dir=folder))


# --------------------------------------------------------------------------- resolve


def _referenced_only(job: _Job) -> dict[str, list[str]]:
    """Per task role, the names it refers to that the job's prerequisites do not define."""
    defined = {name for name in job.top_names() if name}
    missing: dict[str, list[str]] = {}
    for role, spec in job.roles.items():
        names = list(spec.get("prerequisites") or [])
        names += [spec[f] for f in TASK_ROLE_FIELDS if isinstance(spec.get(f), str)]
        for name in names:
            if name not in defined and name not in missing.get(role, []):
                missing.setdefault(role, []).append(name)
    return missing


def resolve_text(text: str, *, index: Index | str | Path | None = None,
                 expressions: Mapping[str, str] | None = None, source: str = "<job>",
                 job_dir: Path | None = None) -> ResolvedJob:
    """The job ready for OpenPAI; see ``resolve``."""
    job = _Job(text, source)
    state = job.state()
    warnings: list[str] = []
    changes: list[ItemChange] = []
    loaded: Index | None = None
    index_error: PrereqError | None = None

    missing = _referenced_only(job)
    if missing:
        loaded, used = _open_index(index, state, job_dir)
        new = state.copy(index=state.index or used)
        for role, names in missing.items():
            for name in names:
                if name not in loaded.entries:
                    path = ("taskRoles", role)
                    spec = job.roles[role]
                    if name in (spec.get("prerequisites") or []):
                        path += ("prerequisites", spec["prerequisites"].index(name))
                    else:
                        path += (next(f for f in TASK_ROLE_FIELDS if spec.get(f) == name),)
                    raise job.error(path, f"task role {role} names {name!r}, which is neither among the job's "
                                    "prerequisites nor in the index", hint=_suggest(loaded, name))
                new.selected.setdefault(role, [])
                if not any(Requirement.parse(t).name == name for t in new.selected[role]):
                    new.selected[role].append(name)
        outcome = _reconcile(job, state, new, loaded)
        changes, warnings = outcome.changes, warnings + outcome.warnings
        state = job.state()
    else:
        try:
            loaded, _ = _open_index(index, state, job_dir)
        except PrereqError as exc:
            index_error = exc

    # The lock against the job's entries and the index.
    for position, name in enumerate(job.top_names()):
        if name in state.lock and openpai.digest(job.top()[position]) != state.lock[name].digest:
            warnings.append(f"{job.where_item(name)}: {name} differs from the locked "
                            f"{name} {state.lock[name].version} (edited by hand?)")
    if state.lock:
        if loaded is None:
            warnings.append(f"could not check the locked versions for deprecation: {index_error.message}"
                            if index_error else "could not check the locked versions for deprecation")
        else:
            warnings += _deprecations(loaded, state)

    # Expressions: every string of the job.
    values = dict(expressions) if expressions is not None else None
    missing_keys: dict[str, tuple[Any, ...]] = {}
    renders: list[tuple[tuple[Any, ...], str]] = []
    for path, value in templates.strings(job.data):
        found = [t for t in templates.find(value) if t.namespace == "expression"]
        if not found:
            continue
        if values is None:
            from .expressions import load_expressions

            values = load_expressions()
        for template in found:
            if not templates.is_known(template):
                raise job.error(path, f"{template.text} is not a valid expression reference",
                                hint="write <% expression.KEY %>")
            if template.key not in values:
                missing_keys.setdefault(template.key, path)
        rendered = templates.render(value, "expression", values.get)
        renders.append((path, rendered))
    if missing_keys:
        lines = [f"{_expression_where(job, key, path)}: <% expression.{key} %> has no stored value"
                 for key, path in missing_keys.items()]
        raise PrereqError("\n".join(lines), exit_code=1, hint="store your value with: " + "; ".join(
            f"prereq expression set {key} VALUE" for key in missing_keys))
    survived_before = {i: runtime.survives_round_trip(openpai.runtime_parameters(item))
                       for i, item in enumerate(job.top()) if isinstance(item, dict) and "plugin" in item}
    for path, rendered in renders:
        job.doc.set(path, rendered)
    for position, item in enumerate(job.top()):
        if position in survived_before and not runtime.survives_round_trip(openpai.runtime_parameters(item)):
            message = (f"{job.where_item(item.get('name'))}: {item.get('name')} would reach its runtime "
                       "plugin changed or broken (the runtime re-reads plugin parameters from their Python repr)")
            if survived_before[position]:
                raise PrereqError(message + " after your stored expressions were filled in", exit_code=1,
                                  hint="avoid stored values that hold both quote kinds or backslashes")
            warnings.append(message)

    problems = openpai_schema.validate_job(job.data)
    if problems:
        # Lines of the file the user wrote (the nearest value the path shares with it).
        lines = [f"{job.where(problem.path)}: {problem.where()}: {problem.message}" for problem in problems]
        raise PrereqError("OpenPAI would refuse the job:\n    " + "\n    ".join(lines), exit_code=1,
                          hint="fix the job; the OpenPAI rest-server checks the same")
    return ResolvedJob(text=job.text, data=job.data, warnings=warnings, changes=changes)


def _expression_where(job: _Job, key: str, path: tuple[Any, ...]) -> str:
    value = job.doc.get(path)
    template = next((t.text for t in templates.find(value) if t.namespace == "expression" and t.key == key), None) \
        if isinstance(value, str) else None
    found = job.where_text(template) if template else None
    if found:
        return found
    if path[:1] == ("prerequisites",) and isinstance(job.doc.get(path[:2]), dict):
        name = job.doc.get(path[:2]).get("name")
        return f"{job.source}: prerequisite {name} (from the index)"
    return job.source


def _suggest(index: Index, name: str) -> str:
    close = difflib.get_close_matches(name, list(index.entries), n=1)
    return f"did you mean {close[0]!r}?" if close else "search with 'prereq search WORD', or add the item to the job"


def _deprecations(index: Index, state: JobState) -> list[str]:
    out = []
    for name, entry in sorted(state.lock.items()):
        try:
            document = index.version(name, entry.version)
        except PrereqError:
            out.append(f"{name} {entry.version} is locked but not published in the index")
            continue
        deprecated = document["item"].get("deprecated")
        if deprecated:
            text = f"{name} {entry.version} is deprecated: {deprecated.get('reason', '').strip()}"
            if deprecated.get("replacement"):
                text += f" Use {deprecated['replacement']} instead."
            out.append(text)
        elif document.get("digest") != entry.digest:
            out.append(f"{name} {entry.version}: the lock's digest differs from the index's; "
                       "run 'prereq job lock' to refresh it")
    return out


def resolve(job: str | Path, *, index: Index | str | Path | None = None,
            expressions: Mapping[str, str] | None = None, output: str | Path | None = None) -> ResolvedJob:
    """The job file ready for OpenPAI: requirements filled in (from the lock, or from the
    index for names only the task roles mention), ``<% expression.KEY %>`` rendered
    from the stored expressions (or ``expressions``), checked against the OpenPAI
    schema and the rest-server's checks.  Written atomically to ``output`` when given."""
    path = Path(job)
    result = resolve_text(_read(path), index=index, expressions=expressions, source=str(path),
                          job_dir=path.resolve().parent)
    if output is not None:
        write_atomic(Path(output), result.text)
    return result
