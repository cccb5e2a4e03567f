"""The load line: the one marked line at the top of a task role's commands (and of its deployments'
preCommands) that loads what prerequisites exported (``openpai.runtime.JOB_LOAD_LINE``, published as the
index root's ``job_load_line``).  Which lines are load lines (the index's, one its user adapted, one an
earlier prereq wrote), where the line goes, and the lines an earlier prereq wrote that are replaced, or,
changed by hand, said to load nothing.  The composer's jobs/plan.js does the same.

May import: prereq.core, prereq.jobs.apply/document.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from prereq.jobs.apply import WorkingCopy
from prereq.jobs.document import JobDocument

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
