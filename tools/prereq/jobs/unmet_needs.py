"""What a job must still supply for the items it runs: what ``add`` tells the user, what ``resolve`` refuses.

An item's needs (``openpai.needs``) are published by the index for each version; ``add`` reads
them there for the items it puts in a task role, ``resolve`` reads them from the forms the job
holds (the user's own entries included), for everything the runtime will render.

May import: prereq.core, prereq.openpai, prereq.jobs.records/document.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from prereq.core.errors import PrereqError
from prereq.jobs.document import JobDocument
from prereq.openpai.needs import form_needs, missing_needs, rendered_forms

NeedsOf = Callable[[str], Mapping[str, Sequence[str]] | None]  # None: not an item of the index
HINTS = {
    "secrets": "add the secrets under the job's 'secrets:' with your values (prereq never writes them)",
    "parameters": "add the parameters under the job's 'parameters:'",
    "bindings": "name a prerequisite of that type in the task role's data:, script: or output: field",
}


def describe(name: str, kind: str, keys: Sequence[str], role: str) -> str:
    """One missing need of ``name``, saying what to add (for secrets, the keys: never values)."""
    shown = ", ".join(keys)
    if kind == "secrets":
        return f"{name} reads secrets the job does not define: add under 'secrets:' the keys {shown}"
    if kind == "parameters":
        return f"{name} reads job parameters the job does not define: add under 'parameters:' the keys {shown}"
    if kind == "bindings":
        fields = " and ".join(f"'{field}:'" for field in keys)
        return (
            f"{name} reads {', '.join('$' + field for field in keys)} in task role {role}, which names no "
            f"such prerequisite: set its {fields} to a prerequisite of that type"
        )
    templates = ", ".join(f"<% expression.{key} %>" for key in keys)
    commands = "; ".join(f"prereq expression set {key} VALUE" for key in keys)
    return f"{name} uses {templates}: 'prereq job resolve' fills in your stored values ({commands})"


def _lines(data: dict[str, Any], role: str, name: str, needs: Mapping[str, Sequence[str]]) -> list[tuple[str, str]]:
    """(kind, line) of what ``name`` in task role ``role`` misses; secrets and parameters are the job's,
    bindings the task role's."""
    missing = missing_needs(needs, data, role)
    return [(kind, describe(name, kind, keys, role)) for kind, keys in missing.items()]


def add_notes(before: dict[str, Any], after: dict[str, Any], needs_of: NeedsOf) -> list[str]:
    """What the user must still supply for the index items an edit put into a task role, in order."""
    notes: list[str] = []
    for role in after["taskRoles"]:
        had = {form.get("name") for _, form in rendered_forms(before, role)}
        for _, form in rendered_forms(after, role):
            name = form.get("name")
            needs = needs_of(name) if isinstance(name, str) and name not in had else None
            if needs is None or name is None:
                continue
            notes += [line for _, line in _lines(after, role, name, needs)]
            if needs.get("expressions"):
                notes.append(describe(name, "expressions", needs["expressions"], role))
    return list(dict.fromkeys(notes))


def refuse_missing(job: JobDocument) -> None:
    """Refuse, exit 1, a job whose task roles run items that read secrets, parameters or bindings the job
    does not give (the runtime would fail at start), naming each item and what it misses."""
    lines: list[str] = []
    kinds: list[str] = []
    for role in job.roles:
        for _, form in rendered_forms(job.data, role):
            name = str(form.get("name"))
            for kind, line in _lines(job.data, role, name, form_needs(form)):
                lines.append(f"{job.where_item(name)}: {line}")
                kinds.append(kind)
    if lines:
        raise PrereqError(
            "OpenPAI's runtime could not start the job:\n    " + "\n    ".join(dict.fromkeys(lines)),
            exit_code=1,
            hint="; ".join(HINTS[kind] for kind in dict.fromkeys(kinds)),
        )
