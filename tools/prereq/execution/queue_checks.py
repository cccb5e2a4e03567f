"""Queues and rights (PRQ307-PRQ313, PRQ315): limits and slots that make sense, one right per queue and
group within the queue's slots, GPUs only for environments that use them, and what nothing uses."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from prereq.execution.catalog_checks import CatalogContext
from prereq.execution.rules import at
from prereq.registry.rules import Problem

# Each queue limit and the least it may be (GPUs are optional: a CPU queue has none).
QUEUE_MINIMUMS = {
    "memory_mb": 1,
    "time_limit_minutes": 1,
    "cores_per_slot": 1,
    "gpus_per_slot": 0,
    "slots_per_machine": 1,
    "total_slots": 1,
}
_RIGHTS_MINIMUMS = {"slots": 1, "priority": 0}


def check_limits(ctx: CatalogContext) -> Iterator[Problem]:
    for queue in ctx.catalog.queues.values():
        for key, minimum in QUEUE_MINIMUMS.items():
            value = queue.data.get(key, minimum)
            if value < minimum:
                fix = (
                    f"write {key}: {max(minimum, 1)} or more" if minimum else f"write {key}: 0 for a queue without GPUs"
                )
                yield at(queue.source, (key,), "PRQ307", key=key, value=value, minimum=minimum, fix=fix)
        if queue.slots_per_machine > queue.total_slots >= 1:
            yield at(
                queue.source,
                ("slots_per_machine",),
                "PRQ308",
                per_machine=queue.slots_per_machine,
                total=queue.total_slots,
            )
    source = ctx.catalog.rights_source
    if source is None:
        return
    for row in ctx.catalog.rights:
        for key, minimum in _RIGHTS_MINIMUMS.items():
            value = getattr(row, key)
            if value < minimum:
                why = "remove the row to give no access" if key == "slots" else "0 is the lowest priority"
                fix = f"write {key}: {minimum} or more ({why})"
                yield at(source, ("rights", row.index, key), "PRQ307", key=key, value=value, minimum=minimum, fix=fix)


def check_rights(ctx: CatalogContext) -> Iterator[Problem]:
    source = ctx.catalog.rights_source
    if source is None:
        return
    first: dict[tuple[str, str], int] = {}
    for row in ctx.catalog.rights:
        key = (row.queue, row.group)
        if key in first:
            line = source.position(("rights", first[key]))[0]
            yield at(source, ("rights", row.index), "PRQ309", queue=row.queue, group=row.group, first=line)
            continue
        first[key] = row.index
        queue = ctx.catalog.queues.get(row.queue)
        if queue is not None and row.slots > queue.total_slots:
            yield at(
                source,
                ("rights", row.index, "slots"),
                "PRQ310",
                group=row.group,
                slots=row.slots,
                queue=row.queue,
                total=queue.total_slots,
            )
    for name in ctx.catalog.groups:
        if name in ctx.owners.teams:
            yield at(source, ("groups", name), "PRQ315", group=name)


def check_gpus(ctx: CatalogContext) -> Iterator[Problem]:
    for queue in ctx.catalog.queues.values():
        if queue.gpus_per_slot < 1:
            continue
        for index, ref in enumerate(queue.environments):
            environment = ctx.catalog.environments.get(ref)
            if environment is not None and not environment.gpu:
                yield at(queue.source, ("environments", index), "PRQ311", queue=queue.name, environment=str(ref))


def check_unused(ctx: CatalogContext) -> Iterator[Problem]:
    """Warnings: a queue no group (with at least one user) has rights on; an environment no queue serves."""
    used = {row.queue for row in ctx.catalog.rights if row.slots >= 1 and ctx.groups.get(row.group)}
    for queue in ctx.catalog.queues.values():
        if queue.name not in used:
            yield at(queue.source, ("name",), "PRQ312", queue=queue.name)
    served = {ref for queue in ctx.catalog.queues.values() for ref in queue.environments}
    for ref, environment in ctx.catalog.environments.items():
        if ref not in served:
            yield at(environment.source, ("name",), "PRQ313", environment=str(ref))


CHECKS: tuple[tuple[Callable[[CatalogContext], Iterator[Problem]], tuple[str, ...]], ...] = (
    (check_limits, ("PRQ307", "PRQ308")),
    (check_rights, ("PRQ309", "PRQ310", "PRQ315")),
    (check_gpus, ("PRQ311",)),
    (check_unused, ("PRQ312", "PRQ313")),
)
