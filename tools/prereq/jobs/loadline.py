"""prereq's lines in a job, that hand exported variables on (``openpai.runtime``):

- the load line, the one marked line at the top of a task role's commands (and of its deployments'
  preCommands) that loads what prerequisites exported (``runtime.JOB_LOAD_LINE``, published as the index
  root's ``job_load_line``).  Which lines are load lines (the index's, one its user adapted, one an
  earlier prereq wrote), where the line goes, and the lines an earlier prereq wrote that are replaced,
  or, changed by hand, said to load nothing;
- the callback lines (the index root's ``callback_lines``): the index's forms carry the short one, which
  calls what a task's first callback wrote; the first callback each task role runs gets the long one.  A
  form's digest reads the long one as the short one, so the swap is no edit by hand.

The composer's jobs/plan.js does the same.

May import: prereq.core, prereq.openpai, prereq.jobs.apply/document.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from prereq.jobs.apply import WorkingCopy
from prereq.jobs.document import JobDocument, top_entries
from prereq.openpai import forms, runtime

LOAD_LINE_MARK = "# prereq:"  # where the mark starts in the index's load line; what is after it tells a load line
# How a load line an earlier prereq wrote starts (``if [ -f "${PREREQ_ENV_FILE:-...}" ]; then . ...``).
_EARLIER_LOAD = "if [ -f"


def is_load_line(command: Any, load_line: str) -> bool:
    """``load_line`` (the index's), or a line that starts as it (or as an earlier prereq's did) and keeps
    its mark: a load line its user adapted.  A line of the user's own that only carries the mark is not."""
    if not isinstance(command, str):
        return False
    mark = load_line[load_line.find(LOAD_LINE_MARK) :]
    start = command.lstrip()
    return command == load_line or (mark in command and start.startswith((_load_command(load_line), _EARLIER_LOAD)))


def _load_command(load_line: str) -> str:
    """The load line's first two words (``[[ -O``): what an adapted one still starts with."""
    return " ".join(load_line.split(" ")[:2])


def plan_load_line(
    work: WorkingCopy, job: JobDocument, role: str, needed: bool, warnings: list[str], *, lines: LoadLines
) -> None:
    """The task role's load line (and its deployments'): first when ``needed`` (it runs a cmd item), else none."""
    # A deployment's preCommands run before the task role's commands, in the same shell: load there too.
    deployments = work.get(("deployments",))
    for position in range(len(deployments) if isinstance(deployments, list) else 0):
        pre = ("deployments", position, "taskRoles", role, "preCommands")
        if isinstance(work.get(pre), list):
            _warn_stale(job, pre, _place_load_line(work, pre, needed, lines), lines, warnings)
    path = ("taskRoles", role, "commands")
    if isinstance(work.get(path), list):
        _warn_stale(job, path, _place_load_line(work, path, needed, lines), lines, warnings)
    elif needed:
        warnings.append(
            f"{job.where(('taskRoles', role))}: task role {role} has no list of commands; "
            "variables exported by prerequisites will not reach it"
        )


@dataclass(frozen=True)
class LoadLines:
    """The index's load line, and those earlier versions of prereq wrote (replaced where found)."""

    current: str
    replaced: tuple[str, ...] = ()

    @classmethod
    def of(cls, root: Mapping[str, Any]) -> LoadLines:
        return cls(root["job_load_line"], tuple(root.get("replaced_load_lines") or ()))


def _warn_stale(job: JobDocument, path: tuple[Any, ...], stale: list[int], lines: LoadLines, out: list[str]) -> None:
    for position in stale:
        out.append(
            f"{job.where(path + (position,))}: this load line, changed by hand, reads the file an earlier prereq "
            f"used, which nothing writes now; replace it with: {lines.current}"
        )


def _place_load_line(work: WorkingCopy, path: tuple[Any, ...], needed: bool, lines: LoadLines) -> list[int]:
    """The load line first in the list at ``path`` when ``needed``, else none (the list keeps one entry);
    a line an earlier prereq wrote becomes today's, where it stands.  The positions of those an earlier
    prereq wrote and their user changed: they stay as they are, and load nothing."""
    commands = work.get(path)
    present = [
        i for i, command in enumerate(commands) if command in lines.replaced or is_load_line(command, lines.current)
    ]
    for position in present:
        if needed and commands[position] in lines.replaced:
            work.set(path + (position,), lines.current)
    stale = [i for i in present if needed and work.get(path + (i,)).lstrip().startswith(_EARLIER_LOAD)]
    if needed and not present:
        if commands:
            work.insert(path + (0,), lines.current)
        else:
            work.set(path, [lines.current])
    elif not needed:
        for position in reversed(present):
            if len(work.get(path)) > 1:
                work.delete(path + (position,))
    return stale


@dataclass(frozen=True)
class CallbackLines:
    """The index's callback lines: ``first`` for the first callback a task runs, ``other`` for the rest."""

    first: str
    other: str

    @classmethod
    def of(cls, root: Mapping[str, Any] | None) -> CallbackLines | None:
        """The root's lines; this prereq's without an index; none for an index whose forms carry one
        line for every callback (an earlier prereq's), where there is nothing to place."""
        if root is None:
            return cls(runtime.FIRST_CALLBACK_LINE, runtime.CALLBACK_LINE)
        lines = root.get("callback_lines")
        return cls(lines["first"], lines["other"]) if isinstance(lines, Mapping) else None


def _own_callbacks(entry: Any, lines: CallbackLines) -> list[tuple[int, str | None]]:
    """(position, event) of each callback of a cmd entry that starts with one of prereq's lines."""
    if not forms.is_cmd(entry) or not isinstance(entry.get("callbacks"), list):
        return []
    return [
        (position, callback.get("event"))  # one without an event is prereq's but runs at none
        for position, callback in enumerate(entry["callbacks"])
        if isinstance(callback, dict)
        and isinstance(callback.get("commands"), list)
        and callback["commands"][:1] in ([lines.first], [lines.other])
    ]


def first_callbacks(data: dict[str, Any], lines: CallbackLines) -> set[tuple[int, int]]:
    """(entry, callback) positions of the first of prereq's callbacks each task role runs: the runtime runs
    start callbacks in the order the role lists its prerequisites, then succeed callbacks in reverse."""
    entries = top_entries(data)
    by_name: dict[Any, int] = {}
    for position, entry in enumerate(entries):
        if isinstance(entry, dict) and isinstance(entry.get("name"), str) and _own_callbacks(entry, lines):
            by_name.setdefault(entry["name"], position)  # only a name a task role can list
    firsts = set()
    roles = data.get("taskRoles")
    for spec in roles.values() if isinstance(roles, dict) else []:
        names = spec.get("prerequisites") if isinstance(spec, dict) else None
        listed = [by_name[n] for n in names if isinstance(n, str) and n in by_name] if isinstance(names, list) else []
        runs = [
            (entry, callback)
            for event, order in ((runtime.START, listed), (runtime.SUCCEED, listed[::-1]))
            for entry in order
            for callback, kind in _own_callbacks(entries[entry], lines)
            if kind == event
        ]
        firsts.update(runs[:1])
    return firsts


def plan_callback_lines(work: WorkingCopy, lines: CallbackLines | None) -> None:
    """The long line on the first callback each task role runs, the short one on every other."""
    if lines is None:
        return
    firsts = first_callbacks(work.data, lines)
    for position, entry in enumerate(top_entries(work.data)):
        for callback, _ in _own_callbacks(entry, lines):
            wanted = lines.first if (position, callback) in firsts else lines.other
            path = ("prerequisites", position, "callbacks", callback, "commands", 0)
            if work.get(path) != wanted:
                work.set(path, wanted)


def entry_digest(entry: Any, lines: CallbackLines | None) -> str:
    """The entry's digest as the index gives its form's: the long callback line read as the short one."""
    own = {position for position, _ in _own_callbacks(entry, lines)} if lines else set()
    if lines is None or not own:
        return forms.digest(entry)
    callbacks = list(entry["callbacks"])
    for position in own:
        callbacks[position] = {**callbacks[position], "commands": [lines.other, *callbacks[position]["commands"][1:]]}
    return forms.digest({**entry, "callbacks": callbacks})
