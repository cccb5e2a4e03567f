"""Preparing a job for OpenPAI (``prereq job resolve``): what the runtime needs, checked as the rest-server does.

Names that only a task role mentions are filled in from the index, ``<% expression.KEY %>``
is rendered from the user's stored values, the lock is checked against the job and the
index, and the result must pass OpenPAI's protocol schema and the rest-server's checks.

May import: prereq.core, prereq.openpai, prereq.index, prereq.jobs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from prereq.core import placeholders
from prereq.core.errors import PrereqError
from prereq.core.files import write_atomic
from prereq.core.versions import Requirement
from prereq.index.reader import Index
from prereq.index.trust import UntrustedIndex
from prereq.jobs.apply import Edit, WorkingCopy, apply_edits, path_as_written
from prereq.jobs.document import TASK_ROLE_FIELDS, JobDocument, read_job_file
from prereq.jobs.expressions import fill
from prereq.jobs.loadline import CallbackLines, entry_digest, plan_callback_lines
from prereq.jobs.operations import IndexChoice, close_name, deprecated_note, open_index, recorded_index
from prereq.jobs.plan import plan_edit
from prereq.jobs.records import ItemChange, JobState, PreparedJob
from prereq.jobs.unmet_needs import refuse_missing
from prereq.openpai import forms, plainscalars, protocol, runtime


def _referenced_only(job: JobDocument) -> dict[str, list[str]]:
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


def _suggest(index: Index, name: str) -> str:
    close = close_name(name, index.entries)
    return f"did you mean '{close}'?" if close else "search with 'prereq search WORD', or add the item to the job"


def _fill_in(
    job: JobDocument, state: JobState, index: Index, used: str, missing: dict[str, list[str]], edits: list[Edit]
) -> list[ItemChange]:
    """Select, in their task roles, the index items that the task roles name but the job does not define
    (the edits made go into ``edits``)."""
    new = state.copy(index=recorded_index(state.index, state.index or used)[0])
    for role, names in missing.items():
        spec = job.roles[role]
        for name in names:
            if name not in index.entries:
                path: tuple[Any, ...] = ("taskRoles", role)
                if name in (spec.get("prerequisites") or []):
                    path += ("prerequisites", spec["prerequisites"].index(name))
                else:
                    path += (next(f for f in TASK_ROLE_FIELDS if spec.get(f) == name),)
                raise job.error(
                    path,
                    f"task role {role} names '{name}', which is neither among the job's prerequisites nor in the index",
                    hint=_suggest(index, name),
                )
            chosen = new.selected.setdefault(role, [])
            if not any(Requirement.parse(t).name == name for t in chosen):
                chosen.append(name)
    plan = plan_edit(job, state, new, index)
    apply_edits(job.doc, plan.edits)
    job.warnings.extend(plan.warnings)
    edits.extend(plan.edits)
    return plan.changes


def _check_lock(job: JobDocument, state: JobState, index: Index | None, index_error: PrereqError | None) -> None:
    lines = CallbackLines.of(index.root if index else None)
    for position, name in enumerate(job.top_names()):
        entry = job.data["prerequisites"][position]
        if name in state.lock and entry_digest(entry, lines) != state.lock[name].digest:
            job.warnings.append(
                f"{job.where_item(name)}: {name} differs from the locked "
                f"{name} {state.lock[name].version} (edited by hand?)"
            )
    if not state.lock:
        return
    if index is None:
        job.warnings.append(
            f"could not check the locked versions for deprecation: {index_error.message}"
            if index_error
            else "could not check the locked versions for deprecation"
        )
        return
    for name, entry in sorted(state.lock.items()):
        try:
            document = index.version(name, entry.version)
        except PrereqError:
            job.warnings.append(f"{name} {entry.version} is locked but not published in the index")
            continue
        note = deprecated_note(name, entry.version, document)
        if note:
            job.warnings.append(note)
        elif document.get("digest") != entry.digest:
            job.warnings.append(
                f"{name} {entry.version}: the lock's digest differs from the index's; "
                "run 'prereq job lock' to refresh it"
            )


def _expression_where(job: JobDocument, key: str, path: tuple[Any, ...]) -> str:
    value = job.doc.get(path)
    template = (
        next((t.text for t in placeholders.find(value) if t.namespace == "expression" and t.key == key), None)
        if isinstance(value, str)
        else None
    )
    found = job.where_text(template) if template else None
    if found:
        return found
    entry = job.doc.get(path[:2]) if path[:1] == ("prerequisites",) else None
    if isinstance(entry, dict):
        return f"{job.source}: prerequisite {entry.get('name')} (from the index)"
    return job.source


def _render_expressions(job: JobDocument, expressions: Mapping[str, str] | None) -> None:
    """Fill in ``<% expression.KEY %>`` everywhere; a key with no stored value is an error naming its line."""
    values = dict(expressions) if expressions is not None else None
    missing_keys: dict[str, tuple[Any, ...]] = {}
    renders: list[tuple[tuple[Any, ...], str]] = []
    for path, value in placeholders.strings(job.data):
        found = [t for t in placeholders.find(value) if t.namespace == "expression"]
        if not found:
            continue
        if values is None:
            from prereq.jobs.expressions import load_expressions

            values = load_expressions()
        for template in found:
            if not placeholders.is_known(template):
                raise job.error(
                    path, f"{template.text} is not a valid expression reference", hint="write <% expression.KEY %>"
                )
            if template.key not in values:
                missing_keys.setdefault(template.key, path)
        rendered, unquoted = fill(value, path, values)  # quoted for the shell in commands
        renders.append((path, rendered))
        job.warnings.extend(found.describe(_expression_where(job, found.key, path)) for found in unquoted)
    if missing_keys:
        lines = [
            f"{_expression_where(job, key, path)}: <% expression.{key} %> has no stored value"
            for key, path in missing_keys.items()
        ]
        raise PrereqError(
            "\n".join(lines),
            exit_code=1,
            hint="store your value with: " + "; ".join(f"prereq expression set {key} VALUE" for key in missing_keys),
        )
    survived_before = {
        i: runtime.survives_round_trip(forms.runtime_parameters(item))
        for i, item in enumerate(job.data.get("prerequisites") or [])
        if isinstance(item, dict) and "plugin" in item
    }
    for path, rendered in renders:
        job.doc.set(path, rendered)
    for position, item in enumerate(job.data.get("prerequisites") or []):
        if position in survived_before and not runtime.survives_round_trip(forms.runtime_parameters(item)):
            message = (
                f"{job.where_item(item.get('name'))}: {item.get('name')} would reach its runtime "
                "plugin changed or broken (the runtime re-reads plugin parameters from their Python repr)"
            )
            if survived_before[position]:
                raise PrereqError(
                    message + " after your stored expressions were filled in",
                    exit_code=1,
                    hint="avoid stored values that hold both quote kinds or backslashes",
                )
            job.warnings.append(message)


def prepare_text(
    text: str,
    *,
    index: IndexChoice = None,
    expressions: Mapping[str, str] | None = None,
    source: str = "<job>",
    job_dir: Path | None = None,
) -> PreparedJob:
    """The job ready for OpenPAI; see ``prepare``."""
    job = JobDocument(text, source)
    state = job.state()
    changes: list[ItemChange] = []
    loaded: Index | None = None
    index_error: PrereqError | None = None
    missing = _referenced_only(job)
    edits: list[Edit] = []  # prereq's own, which the paths of OpenPAI's problems are read back through
    if missing:
        loaded, used = open_index(index, state, job_dir)
        changes = _fill_in(job, state, loaded, used, missing, edits)
        state = job.state()
    else:
        try:
            loaded, _ = open_index(index, state, job_dir)
        except UntrustedIndex:  # not a missing index to note: one that may have been tampered with
            raise
        except PrereqError as exc:
            index_error = exc
    _check_lock(job, state, loaded, index_error)
    # What runs first in a task role may have moved by hand since prereq placed its callback lines.
    lines = WorkingCopy(job.data)
    plan_callback_lines(lines, CallbackLines.of(loaded.root if loaded else None))
    apply_edits(job.doc, lines.edits)
    edits += lines.edits
    _render_expressions(job, expressions)
    data, written = job.initial.data, job.written
    as_written = plainscalars.plain_timestamps(data, written) + plainscalars.misread_role_names(data, written)
    as_written += plainscalars.changed_parameters(data, written)
    prepared = protocol.validate_job(job.data) + protocol.image_name_problems(job.data)
    found = as_written + [dataclasses.replace(p, path=path_as_written(p.path, edits)) for p in prepared]
    problems = protocol.refusals(found)
    job.warnings += [
        f"{job.where(problem.path)}: {problem.where()}: {problem.message}"
        for problem in found
        if problem not in problems
    ]
    if problems:
        raise _refused(job, problems)
    refuse_missing(job)
    return PreparedJob(text=job.text, data=job.data, warnings=job.warnings, changes=changes)


# The part of OpenPAI that stops a job, by a problem's source, and when the user would find out.
_STOPPED_BY = {
    "schema": "the rest-server refuses it when it is submitted",
    "rest-server": "the rest-server refuses it when it is submitted",
    "runtime": "the runtime fails it when the job starts (the rest-server does not check this)",
    "entrypoint": "the rest-server writes it into the task role's command otherwise than as written",
}


def _refused(job: JobDocument, problems: list[protocol.JobProblem]) -> PrereqError:
    """The refusal: the problems under the part of OpenPAI that would stop the job, earliest first,
    each on the line of the file the user wrote (the nearest value the path shares with it)."""
    parts: dict[str, list[str]] = {}
    for problem in problems:
        line = f"{job.where(problem.path)}: {problem.where()}: {problem.message}"
        parts.setdefault(_STOPPED_BY[problem.source], []).append(line)
    text = "".join(f"\n  {part}:" + "".join(f"\n    {line}" for line in lines) for part, lines in parts.items())
    submitted, changed = _STOPPED_BY["rest-server"] in parts, _STOPPED_BY["entrypoint"] in parts
    return PrereqError(
        f"OpenPAI would {'refuse' if submitted else 'change' if changed else 'fail'} the job:{text}",
        exit_code=1,
        hint="fix the job before submitting it"
        if submitted or changed
        else "fix the job; OpenPAI finds this out only once it starts",
    )


def prepare(
    job: str | Path,
    *,
    index: IndexChoice = None,
    expressions: Mapping[str, str] | None = None,
    output: str | Path | None = None,
) -> PreparedJob:
    """The job file ready for OpenPAI: requirements filled in (from the lock, or from the
    index for names only the task roles mention), ``<% expression.KEY %>`` rendered
    from the stored expressions (or ``expressions``), checked against the OpenPAI
    schema and the rest-server's checks.  Written atomically to ``output`` when given."""
    path = Path(job)
    result = prepare_text(
        read_job_file(path), index=index, expressions=expressions, source=str(path), job_dir=path.resolve().parent
    )
    if output is not None:
        write_atomic(Path(output), result.text)
    return result
