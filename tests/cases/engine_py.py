"""The Python engine behind the case corpus: the only module here that knows prereq's API.

A step of ``case.yaml`` (``add``, ``remove``, ``lock`` or ``resolve``) runs on a
job text and gives ``{"text", "changes", "warnings"}``, or ``{"error": {"message",
"hint"}}`` when the engine refuses it with a ``PrereqError``.  Indexes are
opened by their path relative to tests/cases, so that ``extras.prereq.index``
records the same string on every machine: run steps inside ``in_cases_folder()``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from prereq import jobs
from prereq.core.errors import PrereqError
from prereq.index.reader import Index

CASES = Path(__file__).resolve().parent
SOURCE = "job.yaml"


@contextmanager
def in_cases_folder() -> Iterator[None]:
    """Run the body with tests/cases as the current folder (indexes are read relative to it)."""
    previous = Path.cwd()
    os.chdir(CASES)
    try:
        yield
    finally:
        os.chdir(previous)


def load_index(name: str) -> Index:
    """The index fixture ``indexes/<name>``; the current folder must be tests/cases."""
    if Path.cwd().resolve() != CASES:
        raise RuntimeError("open the case indexes inside in_cases_folder()")
    return Index.load(f"indexes/{name}")


def _names(argument: Any) -> list[str]:
    return [argument] if isinstance(argument, str) else list(argument)


def _options(argument: Any) -> Mapping[str, Any]:
    return argument or {}


def _edit(text: str, step: Mapping[str, Any], index: Index, source: str) -> jobs.JobEdit | jobs.PreparedJob:
    task_role = step.get("task_role")
    if "add" in step:
        names = _names(step["add"])
        return jobs.add_to_text(
            text, names, index=index, task_role=task_role, bind=bool(step.get("bind")), source=source
        )
    if "remove" in step:
        names = _names(step["remove"])
        unbind = bool(step.get("unbind"))
        return jobs.remove_from_text(text, names, index=index, task_role=task_role, unbind=unbind, source=source)
    if "lock" in step:
        options = _options(step["lock"])
        return jobs.lock_text(
            text,
            upgrade_all=bool(options.get("upgrade_all", False)),
            upgrade=_names(options.get("upgrade") or []),
            index=index,
            source=source,
        )
    if "resolve" in step:
        expressions = dict(_options(step["resolve"]).get("expressions") or {})
        return jobs.prepare_text(text, index=index, expressions=expressions, source=source)
    raise ValueError(f"a step needs add, remove, lock or resolve: {dict(step)}")


def run_step(text: str, step: Mapping[str, Any], *, index: Index, source: str = SOURCE) -> dict[str, Any]:
    """Run one step on ``text``; any error other than ``PrereqError`` propagates."""
    try:
        result = _edit(text, step, index, source)
    except PrereqError as exc:
        return {"error": {"message": exc.message, "hint": exc.hint}}
    after = result.after if isinstance(result, jobs.JobEdit) else result.text
    return {
        "text": after,
        "changes": [change.describe() for change in result.changes],
        "warnings": list(result.warnings),
    }


def run_case(index_name: str, job_text: str, steps: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Every step's outcome, each step on the text the previous one left (a failed step leaves it as it was).

    Each index is opened once per case; a step's own ``index`` names another fixture for that step."""
    outcomes: list[dict[str, Any]] = []
    with in_cases_folder():
        indexes: dict[str, Index] = {}
        text = job_text
        for step in steps:
            name = step.get("index") or index_name
            if name not in indexes:
                indexes[name] = load_index(name)
            outcome = run_step(text, step, index=indexes[name])
            outcomes.append(outcome)
            text = outcome.get("text", text)
    return outcomes
