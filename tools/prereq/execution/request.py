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
from prereq.execution.experiment import Experiment
from prereq.execution.records import Catalog
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
    return document
