"""An experiment file checked against the catalog and a user's rights, as BEAT checks one before it runs.

Each block names its environment, libraries, queue, slots and commands, falling back to the
experiment's ``globals``; ``after`` lists the blocks it runs after (the toolchain).  Unlike BEAT,
whose toolchain check loops forever on a cycle, a cycle is an error naming its whole path.  Every
finding names the file, the line and the fix."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prereq.core.errors import PrereqError
from prereq.core.graph import build_graph, cycles, post_order
from prereq.core.yamlload import LoadedYaml, format_path
from prereq.execution.catalog_records import Catalog, Ref
from prereq.execution.rights import QueueRight, offered_queues
from prereq.registry import schemas
from prereq.registry.loader import load_mapping

EXPERIMENT_SCHEMA = "execution-experiment.schema.json"
SETTINGS = ("environment", "queue", "slots", "libraries", "duration_minutes")
_REQUIRED = {"environment": "python@1.0.0", "queue": "python-3h-4g"}  # examples for the hints


@dataclass(frozen=True)
class Finding:
    """What is wrong with an experiment, where (1-based; None for the file as a whole) and the fix."""

    file: str
    line: int | None
    column: int | None
    message: str
    hint: str


@dataclass(frozen=True)
class Block:
    name: str
    after: tuple[str, ...]
    environment: Ref
    queue: str
    slots: int
    libraries: tuple[Ref, ...]
    duration_minutes: int | None
    commands: tuple[str, ...]


@dataclass
class Experiment:
    name: str
    toolchain: str
    blocks: list[Block]  # every block after the blocks it runs after
    file: str


@dataclass
class CheckedExperiment:
    experiment: Experiment | None  # None when it has findings
    findings: list[Finding] = field(default_factory=list)


def check_experiment(path: Path, *, shown: str, catalog: Catalog, rights: Sequence[QueueRight]) -> CheckedExperiment:
    """The experiment at ``path`` (``shown`` in messages) checked against ``catalog`` and ``rights``."""
    if not path.is_file():
        raise PrereqError(f"{shown} is not a file", hint="pass the experiment's YAML file")
    loaded, problems = load_mapping(path, shown, "write the experiment as 'name:', 'globals:' and 'blocks:'")
    if loaded is None:
        return CheckedExperiment(None, [Finding(shown, p.line, p.column, p.message, p.hint) for p in problems])
    found = [_schema_finding(shown, loaded, issue) for issue in schemas.document_issues(EXPERIMENT_SCHEMA, loaded.data)]
    if found:
        return CheckedExperiment(None, found)
    blocks, found = _blocks(shown, loaded)
    found += _order(shown, loaded)
    if not found:
        found += [finding for block in blocks for finding in _against_catalog(shown, loaded, block, catalog, rights)]
    if found:
        return CheckedExperiment(None, sorted(found, key=lambda f: (f.line or 0, f.column or 0, f.message)))
    order = post_order([b.name for b in blocks], lambda name: loaded.data["blocks"][name].get("after") or [])
    by_name = {block.name: block for block in blocks}
    data = loaded.data
    experiment = Experiment(data["name"], data.get("toolchain") or data["name"], [by_name[n] for n in order], shown)
    return CheckedExperiment(experiment)


def _at(
    shown: str, loaded: LoadedYaml, where: tuple[Any, ...], message: str, hint: str, *, key: bool = False
) -> Finding:
    line, column = loaded.position(where, key=key)
    return Finding(shown, line, column, message, hint)


def _schema_finding(shown: str, loaded: LoadedYaml, issue: schemas.SchemaIssue) -> Finding:
    if issue.kind == "unknown-key":
        where = format_path(issue.path[:-1], empty="the experiment")
        return _at(shown, loaded, issue.path, f"unknown key {issue.key!r} in {where}", issue.hint, key=True)
    where = format_path(issue.path, empty="the experiment")
    if issue.kind == "missing-key":
        return _at(shown, loaded, issue.path, f"{where} has no {issue.key!r}", f"add '{issue.key}:'")
    return _at(shown, loaded, issue.path, f"{where}: {issue.message}", issue.hint or "see --help for the format")


def _blocks(shown: str, loaded: LoadedYaml) -> tuple[list[Block], list[Finding]]:
    """Each block with its settings, the globals filling what it leaves out."""
    data = loaded.data
    defaults = data.get("globals") or {}
    blocks: list[Block] = []
    found: list[Finding] = []
    for name, spec in data["blocks"].items():
        settings = {key: spec.get(key, defaults.get(key)) for key in SETTINGS}
        missing = [key for key in _REQUIRED if settings[key] is None]
        for key in missing:
            hint = f"write {key}: {_REQUIRED[key]} in the block, or in globals for every block"
            found.append(_at(shown, loaded, ("blocks", name), f"block {name} has no {key}", hint, key=True))
        for index, other in enumerate(spec.get("after") or []):
            if other not in data["blocks"] or other == name:
                known = ", ".join(n for n in data["blocks"] if n != name) or "no other block"
                why = "itself" if other == name else f"{other!r}, which is not a block of the experiment"
                hint = f"name blocks of this experiment: {known}"
                found.append(_at(shown, loaded, ("blocks", name, "after", index), f"{name} runs after {why}", hint))
        if not missing:
            blocks.append(
                Block(
                    name=name,
                    after=tuple(spec.get("after") or ()),
                    environment=Ref.parse(settings["environment"]),
                    queue=settings["queue"],
                    slots=settings["slots"] or 1,
                    libraries=tuple(Ref.parse(text) for text in settings["libraries"] or ()),
                    duration_minutes=settings["duration_minutes"],
                    commands=tuple(spec["commands"]),
                )
            )
    return blocks, found


def _order(shown: str, loaded: LoadedYaml) -> Iterator[Finding]:
    """Each cycle of ``after`` once, whole, at the entry of its first block that leads on around it."""
    blocks = loaded.data["blocks"]
    graph = build_graph({name: [n for n in spec.get("after") or [] if n != name] for name, spec in blocks.items()})
    for cycle in cycles(graph):
        index = blocks[cycle[0]]["after"].index(cycle[1])
        message = f"the blocks run after each other in a cycle: {' -> '.join(cycle)} (no block could start)"
        hint = f"remove one of these, such as this one ({cycle[0]} after {cycle[1]})"
        yield _at(shown, loaded, ("blocks", cycle[0], "after", index), message, hint)


def _setting(loaded: LoadedYaml, block: str, key: str) -> tuple[Any, ...]:
    """Where ``key`` of ``block`` is written: in the block, else in globals."""
    return ("blocks", block, key) if key in loaded.data["blocks"][block] else ("globals", key)


def _against_catalog(
    shown: str, loaded: LoadedYaml, block: Block, catalog: Catalog, rights: Sequence[QueueRight]
) -> Iterator[Finding]:
    """The block's queue must be offered for its environment and libraries, with enough slots."""
    queue = catalog.queues.get(block.queue)
    if queue is None:
        hint = f"name a queue of the catalog: {', '.join(sorted(catalog.queues))}"
        yield _at(
            shown, loaded, _setting(loaded, block.name, "queue"), f"no queue {block.queue!r} in the catalog", hint
        )
        return
    try:
        offers, refusals = offered_queues(catalog, rights, env=block.environment, libraries=block.libraries)
    except PrereqError as exc:
        key = "environment" if "environment" in exc.message else "libraries"
        yield _at(shown, loaded, _setting(loaded, block.name, key), f"block {block.name}: {exc.message}", exc.hint)
        return
    offer = next((o for o in offers if o.queue == block.queue), None)
    if offer is None:
        reason = next(r.reason for r in refusals if r.queue == block.queue)
        others = ", ".join(o.queue for o in offers)
        hint = (
            f"choose a queue offered for it: {others}"
            if others
            else "no queue is offered for it: 'prereq queues' says why"
        )
        message = f"block {block.name} cannot run on {block.queue}: {reason}"
        yield _at(shown, loaded, _setting(loaded, block.name, "queue"), message, hint)
        return
    if block.slots > offer.max_slots:
        why = "the slots of one machine" if offer.max_slots == queue.slots_per_machine else "your slots"
        message = (
            f"block {block.name} asks for {block.slots} slots on {block.queue}, more than {why} ({offer.max_slots})"
        )
        yield _at(shown, loaded, _setting(loaded, block.name, "slots"), message, f"ask for at most {offer.max_slots}")
    if block.duration_minutes is not None and block.duration_minutes > queue.time_limit_minutes:
        limit = queue.time_limit_minutes
        message = f"block {block.name} needs {block.duration_minutes} minutes; {block.queue} stops blocks at {limit}"
        hint = "choose a queue with a longer time limit, or split the block"
        yield _at(shown, loaded, _setting(loaded, block.name, "duration_minutes"), message, hint)
