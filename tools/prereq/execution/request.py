"""The execution request: what a checked experiment hands the scheduler, as JSON.

It holds the toolchain (the blocks and what each runs after, in an order that runs them), the
configuration of every block (queue, environment, libraries with all they depend on, slots,
commands), the user with their groups and reputation, the rights computed from them, the capacity
of the queues it uses, and when it was submitted; ``schema/execution-request.schema.json``
describes it, and ``prereq schedule`` reads it back."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from prereq.core.errors import PrereqError
from prereq.core.yamlload import format_path
from prereq.execution.catalog_records import Catalog
from prereq.execution.experiment import Experiment
from prereq.execution.rights import QueueRight, library_closure
from prereq.registry import schemas

REQUEST_FORMAT = "prereq-execution-request/1"
REQUEST_SCHEMA = "execution-request.schema.json"


@dataclass(frozen=True)
class Submitter:
    user: str
    groups: tuple[str, ...]
    reputation: int
    submitted: datetime  # with its time zone


def build_request(
    experiment: Experiment, *, submitter: Submitter, rights: Sequence[QueueRight], catalog: Catalog
) -> dict[str, Any]:
    """The request of a checked experiment (``check_experiment`` found nothing wrong)."""
    used = sorted({block.queue for block in experiment.blocks})
    return {
        "format": REQUEST_FORMAT,
        "experiment": experiment.name,
        "submitted": submitter.submitted.isoformat(),
        "user": submitter.user,
        "groups": list(submitter.groups),
        "reputation": submitter.reputation,
        "toolchain": {
            "name": experiment.toolchain,
            "blocks": [{"name": block.name, "after": list(block.after)} for block in experiment.blocks],
        },
        "configuration": {
            block.name: {
                "queue": block.queue,
                "environment": str(block.environment),
                "libraries": [str(ref) for ref in library_closure(catalog, block.libraries)],
                "slots": block.slots,
                "duration_minutes": block.duration_minutes or catalog.queues[block.queue].time_limit_minutes,
                "commands": list(block.commands),
            }
            for block in experiment.blocks
        },
        "rights": [{"queue": r.queue, "slots": r.slots, "priority": r.priority} for r in rights],
        "queues": {
            name: {
                "title": catalog.queues[name].title,
                "slots_per_machine": catalog.queues[name].slots_per_machine,
                "total_slots": catalog.queues[name].total_slots,
                "time_limit_minutes": catalog.queues[name].time_limit_minutes,
                "virtual_cluster": catalog.queues[name].virtual_cluster,
            }
            for name in used
        },
    }


def request_problems(document: Any) -> list[str]:
    """Why ``document`` is not an execution request, as ``path: message`` lines (empty when it is)."""
    return [_issue_line(issue) for issue in schemas.document_issues(REQUEST_SCHEMA, document)]


def _issue_line(issue: schemas.SchemaIssue) -> str:
    where = format_path(issue.path, empty="(request)")
    if issue.kind == "missing-key":
        return f"{where}: required key {issue.key!r} is missing"
    if issue.kind == "unknown-key":
        return f"{where}: unknown key"
    return f"{where}: {issue.message}"


def read_request(path: Path, *, shown: str) -> dict[str, Any]:
    """An execution request file, checked against its schema; a clear error naming the file otherwise."""
    hint = "pass a file 'prereq request EXPERIMENT -o FILE' wrote"
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PrereqError(f"cannot read {shown}: {getattr(exc, 'strerror', None) or exc}", hint=hint) from None
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise PrereqError(f"{shown} is not JSON: {exc}", hint=hint) from None
    found = request_problems(document)
    if found:
        raise PrereqError(f"{shown} is not an execution request: {found[0]}", hint=hint)
    wrong = _inconsistency(document)
    if wrong is not None:
        where, message, fix = wrong
        raise PrereqError(f"{shown}:{_line_of(text, where)}: {message}", hint=fix)
    return document


def submission_time(text: str) -> datetime:
    """The time a request's ``submitted`` names (its schema checked the form; ValueError for a date or
    a time zone that does not exist: 2024-02-30, +99:00)."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _inconsistency(document: dict[str, Any]) -> tuple[tuple[str, ...], str, str] | None:
    """What the schema cannot say of a request that matches it: (where it is: the JSON strings that lead
    to it, what is wrong, the fix), or None: the scheduler reads the submission time, and each block's
    configuration and queue."""
    try:
        submission_time(document["submitted"])
    except ValueError as exc:
        message = f"submitted {document['submitted']!r} is not a real time ({exc})"
        return ("submitted",), message, "write a date and time that exist, with a time zone from -23:59 to +23:59"
    configuration, queues = document["configuration"], document["queues"]
    for block in document["toolchain"]["blocks"]:
        if block["name"] not in configuration:
            known = ", ".join(sorted(configuration)) or "none"
            fix = f"add configuration.{block['name']} (configured blocks: {known}), or write the request again"
            return ("toolchain", block["name"]), f"block {block['name']} of the toolchain has no configuration", fix
    for name, config in configuration.items():
        if config["queue"] not in queues:
            fix = f"describe {config['queue']} under queues, or write the request again with 'prereq request'"
            return (
                ("configuration", name, "queue"),
                f"block {name} runs on {config['queue']}, which the request's queues do not describe",
                fix,
            )
    return None


def _line_of(text: str, where: tuple[str, ...]) -> int:
    """The 1-based line of the last of the JSON strings ``where`` in ``text``, each found after the one
    before (a request is JSON prereq wrote: found well enough without a JSON parser that keeps lines)."""
    at = 0
    for word in where:
        found = text.find(json.dumps(word), at)
        if found < 0:
            break
        at = found
    return text.count("\n", 0, at) + 1
