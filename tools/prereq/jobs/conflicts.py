"""Conflicts: items that must not run in the same task role as others, as their ``conflicts`` say.

An item's ``conflicts`` name items, or runtime plugins in full (``com.microsoft.pai.runtimeplugin.ssh``).
A task role runs its index items, the user's own prerequisites it lists, and the plugins of the
job's ``extras.com.microsoft.pai.runtimeplugin`` that apply to it (all task roles, or those of its
``taskroles`` filter); an edit that puts an item into a task role beside something either of them
declares a conflict with is refused, naming both.  What a task role already ran together is left
alone, so that a remove or a lock can always undo it.

May import: prereq.core, prereq.openpai, prereq.jobs.records/document.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from prereq.core.errors import PrereqError
from prereq.jobs.document import JobDocument
from prereq.openpai.runtime import PLUGIN_PREFIX

EXTRAS_PLUGINS = "com.microsoft.pai.runtimeplugin"  # the key of extras that lists admin-style plugins


@dataclass(frozen=True)
class Runner:
    """Something a task role runs: an index item (with its conflicts), the user's own entry, an extras plugin."""

    label: str
    name: str | None
    plugin: str | None
    conflicts: tuple[str, ...] = ()
    path: tuple[Any, ...] | None = None  # where the user wrote it

    def clashes(self, other: Runner) -> str | None:
        """What of ``other`` this one declares a conflict with (its name or its plugin), if anything."""
        return next((c for c in self.conflicts if c in (other.name, other.plugin)), None)


def extras_plugins(data: Mapping[str, Any], role: str) -> list[Runner]:
    extras = data.get("extras")
    entries = extras.get(EXTRAS_PLUGINS) if isinstance(extras, dict) else None
    found = []
    for position, entry in enumerate(entries if isinstance(entries, list) else []):
        short = entry.get("plugin") if isinstance(entry, dict) else None
        roles = entry.get("taskroles") if isinstance(entry, dict) else None
        if isinstance(short, str) and (not isinstance(roles, list) or role in roles):
            label = f"the {short} plugin of extras.{EXTRAS_PLUGINS}"
            found.append(Runner(label, None, PLUGIN_PREFIX + short, path=("extras", EXTRAS_PLUGINS, position)))
    return found


def own_runners(job: JobDocument, role: str, managed: Collection[str]) -> list[Runner]:
    """The user's own prerequisites that task role ``role`` lists (not index items), with their plugins."""
    plugins: dict[Any, Any] = {}
    for item in job.data.get("prerequisites") or []:
        if isinstance(item, dict) and item.get("type") != "dockerimage":
            plugins.setdefault(item.get("name"), item.get("plugin"))  # the first of a name, as the runtime finds it
    names = job.roles[role].get("prerequisites") or []
    return [
        Runner(f"the job's own {name}", name, plugins.get(name), path=("taskRoles", role, "prerequisites", position))
        for position, name in enumerate(names)
        if name not in managed
    ]


def refuse_conflicts(
    job: JobDocument, role: str, items: Sequence[Runner], new: set[str], own: Sequence[Runner]
) -> None:
    """Refuse the first conflict in task role ``role`` that involves one of the ``new`` index items."""
    others = [*items, *own, *extras_plugins(job.data, role)]
    declaring = [other for other in others if other.conflicts]  # all one declaring none can clash with
    for item in items:
        if item.name not in new:
            continue
        for other in others if item.conflicts else declaring:
            if other is item:
                continue
            declarer, what = (item, item.clashes(other)) if item.clashes(other) else (other, other.clashes(item))
            if what is None:
                continue
            message = (
                f"task role {role} cannot run both {item.label} and {other.label}: "
                f"{declarer.label} conflicts with {what}"
            )
            hint = (
                f"remove {other.label} from the job, or do not select {item.label}"
                if other.name is None
                else "select only one of them"
            )
            if other.path is not None:
                raise job.error(other.path, message, hint=hint)
            raise PrereqError(message, hint=hint)
