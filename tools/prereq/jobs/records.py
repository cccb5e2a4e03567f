"""What job editing reads and returns: the ``extras.prereq`` record and the results of each operation.

May import: the standard library only.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

STATE_KEY = "prereq"
STATE_PATH = ("extras", STATE_KEY)
PLANNED = {"added": "add", "removed": "remove", "updated": "update", "kept": "keep", "unbound": "unbind"}
# What ``prereq job add --queue`` records per task role under extras.prereq.queues (``jobs.queue`` reads
# it; every job editor keeps it as it is): the queue, the environment and slots, the libraries with what
# they depend on, what it selected, the prerequisites it wrote that are no registry items, and the
# dockerImage it set (None: the task role keeps its own).
QUEUE_KEYS = ("queue", "environment", "slots", "libraries", "selected", "entries", "image")


@dataclass(frozen=True)
class Locked:
    version: str
    digest: str


@dataclass
class JobState:
    """What ``extras.prereq`` records: the index used, each task role's selections, every item prereq put in."""

    index: str | None = None
    selected: dict[str, list[str]] = field(default_factory=dict)
    lock: dict[str, Locked] = field(default_factory=dict)
    # Per task role, the selected items prereq put in its data:/script:/output: field (job add --bind).
    bound: dict[str, list[str]] = field(default_factory=dict)
    queues: dict[str, dict[str, Any]] = field(default_factory=dict)  # per task role: QUEUE_KEYS

    def as_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        if self.index:
            data["index"] = self.index
        data["selected"] = {role: list(names) for role, names in self.selected.items() if names}
        if any(self.bound.values()):
            data["bound"] = {role: list(names) for role, names in self.bound.items() if names}
        if self.queues:
            data["queues"] = {role: _queue_copy(record) for role, record in self.queues.items()}
        data["lock"] = {
            name: {"version": entry.version, "digest": entry.digest} for name, entry in sorted(self.lock.items())
        }
        return data

    @property
    def empty(self) -> bool:
        return not any(self.selected.values()) and not self.lock and not self.queues

    def copy(self, *, index: str | None = None) -> JobState:
        """A copy to edit (its own lists and lock); ``index``, when given, replaces the recorded one."""
        return JobState(
            index=index or self.index,
            selected={role: list(names) for role, names in self.selected.items()},
            lock=dict(self.lock),
            bound={role: list(names) for role, names in self.bound.items()},
            queues={role: _queue_copy(record) for role, record in self.queues.items()},
        )


def _queue_copy(record: dict[str, Any]) -> dict[str, Any]:
    """A queue record in QUEUE_KEYS' order, its lists copied."""
    return {key: list(record[key]) if isinstance(record[key], list) else record[key] for key in QUEUE_KEYS}


@dataclass(frozen=True)
class ItemChange:
    """What an edit did to one prerequisite."""

    action: str  # "added" | "removed" | "updated" | "kept" | "unbound"
    name: str
    version: str
    previous: str | None = None
    required_by: tuple[str, ...] = ()
    selected: bool = False
    reason: str = ""

    def describe(self, *, dry_run: bool = False) -> str:
        """The line ``prereq job`` prints; with ``dry_run``, what it would do (``would add X 1.0``)."""
        verb = f"would {PLANNED[self.action]}" if dry_run else self.action
        if self.action == "updated":
            text = f"{verb} {self.name} {self.previous} -> {self.version}"
        else:
            text = f"{verb} {self.name} {self.version}"
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
    notes: list[str] = field(default_factory=list)  # what the user should know that is not a problem

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        name = str(self.path) if self.path else "job"
        before, after = (name, name) if Path(name).is_absolute() else (f"a/{name}", f"b/{name}")
        return "".join(
            difflib.unified_diff(
                self.before.splitlines(keepends=True),
                self.after.splitlines(keepends=True),
                fromfile=before,
                tofile=after,
            )
        )


@dataclass
class PreparedJob:
    """The result of ``prepare`` (``prereq job resolve``): the job ready for OpenPAI."""

    text: str
    data: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
    changes: list[ItemChange] = field(default_factory=list)
