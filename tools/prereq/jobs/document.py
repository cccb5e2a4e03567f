"""A job file as prereq reads it: its text, its shape checked, positions for messages, its ``extras.prereq``.

The accessors at the top (``top_names``, ``role_names``...) read plain job data, so the
planner uses them on its working copy as this class does on the file.

May import: prereq.core, prereq.openpai (placeholders and task role fields), prereq.registry.rules
(hints), and prereq.jobs.records.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from prereq.core import placeholders
from prereq.core.errors import PrereqError
from prereq.core.files import read_regular
from prereq.core.versions import Requirement, is_range
from prereq.core.yamledit import YamlText, load_error
from prereq.core.yamlload import YamlLoadError, load_yaml
from prereq.jobs.records import QUEUE_KEYS, STATE_PATH, JobState, Locked
from prereq.openpai import protocol
from prereq.registry.rules import RULES

TASK_ROLE_FIELDS = tuple(protocol.TASK_ROLE_FIELDS)
_STATE_HINT = (
    "extras.prereq is written by prereq: {index, selected: {ROLE: [NAME[@RANGE]]}, bound: {ROLE: [NAME]}, "
    "lock: {NAME: {version, digest}}}"
)


_QUEUES_HINT = (
    "extras.prereq.queues is written by 'prereq job add --queue': {ROLE: {queue, environment, slots, libraries, "
    "selected, entries, image}}; run it again to rewrite it"
)


# Where a v1 job's keys go in a v2 job (OpenPAI's protocol 2); the composer says the same (jobs/document.js).
_V1_TO_V2 = (
    "write it as a v2 job: 'protocolVersion: 2', 'name' for jobName, 'type: job', and taskRoles as a mapping "
    "from each role's name to its keys (taskNumber as instances, cpuNumber/memoryMB/gpuNumber under "
    "resourcePerInstance as cpu/memoryMB/gpu, command as a list of commands, image as dockerImage naming a "
    "'type: dockerimage' prerequisite)"
)


def _queue_record(record: Any) -> bool:
    """Whether ``record`` has exactly QUEUE_KEYS, each of its type."""
    if not isinstance(record, dict) or set(record) != set(QUEUE_KEYS):
        return False
    names = all(
        isinstance(record[key], list) and all(isinstance(n, str) for n in record[key])
        for key in ("libraries", "selected", "entries")
    )
    slots = record["slots"]
    return (
        names
        and isinstance(record["queue"], str)
        and isinstance(record["environment"], str)
        and isinstance(slots, int)
        and not isinstance(slots, bool)
        and slots >= 1
        and (record["image"] is None or isinstance(record["image"], str))
    )


def top_entries(data: dict[str, Any]) -> list[Any]:
    return data.get("prerequisites") or []


def top_names(data: dict[str, Any]) -> list[str | None]:
    """The name of each top-level prerequisite (None for an entry without a string name)."""
    return [
        item["name"] if isinstance(item, dict) and isinstance(item.get("name"), str) else None
        for item in top_entries(data)
    ]


def role_names(data: dict[str, Any], role: str) -> list[str]:
    return list(data["taskRoles"][role].get("prerequisites") or [])


def show_scalar(value: Any) -> str:
    """A YAML scalar as the user wrote it (1, null, true, 'x'), for messages about names that are not strings."""
    return f"'{value}'" if isinstance(value, str) else json.dumps(value, default=str)


def read_job_file(path: Path) -> str:
    """The text of a job file, refused with a clean message when missing, not a file or not UTF-8."""
    raw = read_regular(path, what="job file")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        load_yaml(raw)  # the loader's decoding names the line and column of the first bad byte
    except YamlLoadError as exc:
        raise load_error(str(path), exc, hint="save the file as UTF-8") from None
    raise PrereqError(f"{path}: not valid UTF-8", hint="save the file as UTF-8", exit_code=1)


class JobDocument:
    """One job's text, edited in place (``doc``), with the positions of the file as the user wrote it."""

    def __init__(self, text: str, source: str) -> None:
        self.source = source
        self.doc = YamlText(text, source=source, merge_keys=True)  # as OpenPAI reads jobs
        self.initial = self.doc.loaded  # positions in the file as the user wrote it
        self.warnings: list[str] = []  # what preparing the job noticed, in order
        self.initial_lines = re.split(r"\r\n|\n|\r", text)  # YAML's line breaks (what positions count)
        self.final_line_end = text == "" or text.endswith("\n")  # a file without one keeps having none
        self._check_shape()

    @property
    def data(self) -> dict[str, Any]:
        return self.doc.data

    @property
    def text(self) -> str:
        text = self.doc.text
        if self.final_line_end:
            return text
        return text.removesuffix("\r\n") if text.endswith("\r\n") else text.removesuffix("\n")

    @property
    def roles(self) -> dict[str, dict[str, Any]]:
        return self.data["taskRoles"]

    def top_names(self) -> list[str | None]:
        return top_names(self.data)

    def where(self, path: Sequence[Any], *, key: bool = False) -> str:
        """``file:line`` of ``path``'s value (or key) or its nearest ancestor's, in the file as the user wrote it."""
        line, _ = self.initial.position(tuple(path), key=key)
        return f"{self.source}:{line}"

    def where_item(self, name: str | None) -> str:
        """``file:line`` of the user's file's prerequisite ``name``; just the file when it has none."""
        data = self.initial.data
        items = data.get("prerequisites") if isinstance(data, dict) else None
        for position, item in enumerate(items if isinstance(items, list) else []):
            if isinstance(item, dict) and item.get("name") == name:
                return self.where(("prerequisites", position))
        return self.source

    def where_text(self, needle: str) -> str | None:
        """``file:line`` of the first string of the user's file that contains ``needle``."""
        for path, value in placeholders.strings(self.initial.data):
            if needle in value:
                return self.where(path)
        return None

    def written(self, path: tuple[Any, ...], *, key: bool = False) -> str | None:
        """The text of ``path``'s value (or key) where the user wrote it plain, up to a blank, a flow indicator
        or a comment (whole for one-word values); None in quotes.  (Columns count code points, as Python's.)"""
        line, column = self.initial.position(path, key=key)
        text = self.initial_lines[line - 1] if 0 < line <= len(self.initial_lines) else ""
        text = re.sub(r"^(?:[&!]\S*[ \t]+)+", "", text.removeprefix("\ufeff" if line == 1 else "")[column - 1 :])
        alias = re.match(r"\*([^\s,\[\]{}]+)", text)  # the value where its anchor is (a scalar's: on that line)
        if alias:
            anchored = re.search(rf"&{re.escape(alias[1])}[ \t]+(.*)", "\n".join(self.initial_lines))
            text = anchored[1] if anchored else ""
        return None if text[:1] in ("'", '"') else re.match(r"[^\s,\[\]{}]*", text)[0]  # type: ignore[index]

    def error(
        self, path: Sequence[Any], message: str, *, hint: str = "", exit_code: int = 1, key: bool = False
    ) -> PrereqError:
        return PrereqError(f"{self.where(path, key=key)}: {message}", hint=hint, exit_code=exit_code)

    def require_role(self, role: str) -> str:
        """``role``, when the job has that task role."""
        if role not in self.roles:
            raise PrereqError(f"{self.source}: no task role '{role}'", hint="task roles: " + ", ".join(self.roles))
        return role

    def _check_shape(self) -> None:
        if not isinstance(self.data, dict):
            raise PrereqError(
                f"{self.source}: not an OpenPAI job (the file is not a YAML mapping)",
                hint="an OpenPAI job is keys and values: 'protocolVersion: 2', 'name: ...', 'taskRoles: ...'",
                exit_code=1,
            )
        roles = self.data.get("taskRoles")
        self._refuse_v1(roles)
        if not isinstance(roles, dict) or not roles:
            raise self.error(
                ("taskRoles",) if "taskRoles" in self.data else (),
                "an OpenPAI job needs 'taskRoles' with at least one task role",
            )
        for role, spec in roles.items():
            if not isinstance(role, str):
                raise self.error(
                    ("taskRoles", role),
                    f"task role name {show_scalar(role)} is not a string",
                    hint="OpenPAI task role names are strings such as 'train'; quote a name that "
                    "YAML would read as a number, boolean or null",
                    key=True,
                )
            if not isinstance(spec, dict):
                raise self.error(
                    ("taskRoles", role),
                    f"task role {role} is not a mapping",
                    hint="write its keys under its name: instances, dockerImage, resourcePerInstance, commands",
                )
            names = spec.get("prerequisites")
            if names is not None and (not isinstance(names, list) or not all(isinstance(n, str) for n in names)):
                raise self.error(
                    ("taskRoles", role, "prerequisites"),
                    f"taskRoles.{role}.prerequisites must be a list of prerequisite names",
                )
        top = self.data.get("prerequisites")
        if top is not None and not isinstance(top, list):
            raise self.error(
                ("prerequisites",), "'prerequisites' must be a list", hint="write each one as an entry: '- name: ...'"
            )
        for position, item in enumerate(top or []):
            if isinstance(item, dict) and "name" in item and not isinstance(item["name"], str):
                raise self.error(
                    ("prerequisites", position, "name"),
                    f"prerequisite name {show_scalar(item['name'])} is not a string",
                    hint="task roles refer to prerequisites by name: write a string",
                )

    def _refuse_v1(self, roles: Any) -> None:
        """An OpenPAI v1 job (``jobName``, ``taskRoles`` a list, no ``protocolVersion``) is said to be one:
        a new user brings one from older clusters, and "needs 'taskRoles'" would not tell them why."""
        if "protocolVersion" in self.data or ("jobName" not in self.data and not isinstance(roles, list)):
            return
        raise self.error(
            ("jobName",) if "jobName" in self.data else ("taskRoles",),
            "this is an OpenPAI v1 job (jobName, taskRoles as a list); prereq edits v2 jobs",
            hint=_V1_TO_V2,
            key=True,
        )

    def state(self) -> JobState:
        """``extras.prereq``, checked: every problem names its line and how to fix it."""
        extras = self.data.get("extras")
        if extras is not None and not isinstance(extras, dict):
            raise self.error(
                ("extras",),
                "extras must be a mapping",
                hint="OpenPAI keeps extras free-form, as a mapping; prereq records its items under extras.prereq",
            )
        raw = self.doc.get(STATE_PATH)
        if raw is None:
            return JobState()
        if not isinstance(raw, dict):
            raise self.error(STATE_PATH, "extras.prereq must be a mapping", hint=_STATE_HINT)
        index = raw.get("index")
        if index is not None and not isinstance(index, str):
            raise self.error(
                STATE_PATH + ("index",),
                "extras.prereq.index must be a string (a build folder or URL)",
                hint=_STATE_HINT,
            )
        selected = self._selected(raw.get("selected") or {})
        return JobState(
            index=index,
            selected=selected,
            lock=self._lock(raw.get("lock") or {}),
            bound=self._bound(raw.get("bound") or {}, selected),
            queues=self._queues(raw.get("queues") or {}),
        )

    def _queues(self, queues: Any) -> dict[str, dict[str, Any]]:
        path = STATE_PATH + ("queues",)
        if not isinstance(queues, dict):
            raise self.error(path, "extras.prereq.queues must map task roles to queues", hint=_QUEUES_HINT)
        for role, record in queues.items():
            if not isinstance(role, str) or role not in self.roles:
                raise self.error(
                    path + (role,),
                    f"extras.prereq.queues names task role {show_scalar(role)}, which the job does not have",
                    hint=f"rename it there too when you rename a task role (task roles: {', '.join(self.roles)})",
                )
            if not _queue_record(record):
                raise self.error(
                    path + (role,), f"extras.prereq.queues.{role} is not what prereq wrote there", hint=_QUEUES_HINT
                )
        return {role: dict(record) for role, record in queues.items()}

    def _bound(self, bound: Any, selected: dict[str, list[str]]) -> dict[str, list[str]]:
        """The bound items by task role; each must be one the task role selects (``job add --bind`` records both)."""
        shaped = isinstance(bound, dict) and all(
            isinstance(role, str)
            and role in self.roles
            and isinstance(names, list)
            and all(isinstance(n, str) for n in names)
            for role, names in bound.items()
        )
        if not shaped:
            raise self.error(
                STATE_PATH + ("bound",),
                "extras.prereq.bound must map the job's task roles to lists of names",
                hint=_STATE_HINT,
            )
        for role, names in bound.items():
            chosen = {Requirement.parse(text).name for text in selected.get(role, [])}
            for position, name in enumerate(names):
                if name not in chosen:
                    raise self.error(
                        STATE_PATH + ("bound", role, position),
                        f"extras.prereq.bound.{role} names {name}, which the task role does not select",
                        hint=f"bind only what extras.prereq.selected.{role} lists (job add --bind records both)",
                    )
        return {role: list(names) for role, names in bound.items()}

    def _selected(self, selected: Any) -> dict[str, list[str]]:
        if not isinstance(selected, dict):
            raise self.error(
                STATE_PATH + ("selected",), "extras.prereq.selected must map task roles to lists", hint=_STATE_HINT
            )
        out: dict[str, list[str]] = {}
        for role, names in selected.items():
            path = STATE_PATH + ("selected", role)
            if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                raise self.error(
                    path, f"extras.prereq.selected.{role} must be a list of NAME[@RANGE]", hint=_STATE_HINT
                )
            if role not in self.roles:
                raise self.error(
                    path,
                    f"extras.prereq.selected names task role {show_scalar(role)}, which the job does not have",
                    hint=f"rename it there too when you rename a task role (task roles: {', '.join(self.roles)})",
                )
            for position, text in enumerate(names):
                requirement = Requirement.parse(text)
                if not requirement.name:
                    raise self.error(
                        path + (position,),
                        f"'{text}' in extras.prereq.selected.{role} is not NAME or NAME@RANGE",
                        hint=_STATE_HINT,
                    )
                if requirement.range and not is_range(requirement.range):
                    raise self.error(
                        path + (position,),
                        f"{text} in extras.prereq.selected.{role} has an invalid version range",
                        hint=RULES["PRQ141"].hint,
                    )
            out[role] = list(names)
        return out

    def _lock(self, lock: Any) -> dict[str, Locked]:
        if not isinstance(lock, dict):
            raise self.error(STATE_PATH + ("lock",), "extras.prereq.lock must be a mapping", hint=_STATE_HINT)
        out: dict[str, Locked] = {}
        for name, entry in lock.items():
            if not isinstance(name, str):
                raise self.error(
                    STATE_PATH + ("lock", name),
                    f"extras.prereq.lock names {show_scalar(name)}, which is not a string",
                    hint="run 'prereq job lock' to rewrite the lock",
                    key=True,
                )
            if (
                not isinstance(entry, dict)
                or not isinstance(entry.get("version"), str)
                or not isinstance(entry.get("digest"), str)
            ):
                raise self.error(
                    STATE_PATH + ("lock", name),
                    f"extras.prereq.lock.{name} needs version and digest strings",
                    hint="run 'prereq job lock' to rewrite the lock",
                )
            out[name] = Locked(entry["version"], entry["digest"])
        return out
