"""The scheduler's first strategy, as a simulation: what runs where and when for a set of requests.

FIFO by submission age (a higher priority first among blocks submitted at the same time): at every
moment something arrives or ends, the pending blocks are visited in that order and each starts when
the blocks it runs after are done, its user's running slots on its queue stay within their rights,
and one machine of the queue has its slots free.  A block that cannot start does not hold back
the ones after it (the first one that fits runs, as BEAT's scheduler assigns).  A user's rights are
those of their latest request submitted so far: a second request updates them.  Nothing running is
ever stopped.  Time is in seconds from the first submission; each block runs for its estimate.

First fit never reaches past as many machines of a queue as blocks run on it (a machine is passed over
only while a block runs on it), so only those are simulated: a queue of 10**12 slots costs what its
blocks cost."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from prereq.core.errors import PrereqError
from prereq.execution.request import submission_time


@dataclass(frozen=True)
class Pending:
    request: int  # position in submission order
    label: str  # user/experiment
    user: str
    submitted: int
    block: str
    after: tuple[str, ...]
    queue: str
    slots: int
    duration: int
    order: int  # position in the toolchain


@dataclass(frozen=True)
class Run:
    request: str
    user: str
    block: str
    queue: str
    machine: int  # 1-based
    slots: int
    submitted: int
    start: int
    end: int


@dataclass(frozen=True)
class Snapshot:
    """Slots in use at ``time``, per queue and per queue and user."""

    time: int
    used: dict[str, int]
    by_user: dict[str, dict[str, int]]


@dataclass(frozen=True)
class Stuck:
    request: str
    block: str
    reason: str


@dataclass(frozen=True)
class Capacity:
    """A queue's machines that are up: each has ``slots_per_machine`` slots but the last, which has the rest."""

    machines: int
    slots_per_machine: int
    total: int  # slots, over the machines up

    def first(self, count: int) -> list[int]:
        """The slots of the first ``count`` machines (or of every machine, when there are fewer)."""
        return [
            min(self.slots_per_machine, self.total - start * self.slots_per_machine)
            for start in range(min(count, self.machines))
        ]


@dataclass
class Schedule:
    start: str  # the first submission, ISO 8601
    capacity: dict[str, Capacity]  # queue -> its machines that are up
    runs: list[Run] = field(default_factory=list)
    occupation: list[Snapshot] = field(default_factory=list)
    never_ran: list[Stuck] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "start": self.start,
            "capacity": {queue: asdict(capacity) for queue, capacity in self.capacity.items()},
            "runs": [asdict(run) for run in self.runs],
            "occupation": [asdict(snapshot) for snapshot in self.occupation],
            "never_ran": [asdict(stuck) for stuck in self.never_ran],
        }


@dataclass
class _State:
    """The simulation's moving parts."""

    free: dict[str, list[int]]
    rights: dict[str, dict[str, tuple[int, int]]] = field(default_factory=dict)  # user -> queue -> (slots, priority)
    use: dict[tuple[str, str], int] = field(default_factory=dict)  # (user, queue) -> running slots
    running: list[Run] = field(default_factory=list)
    done: set[tuple[str, str]] = field(default_factory=set)  # (request, block)
    pending: list[Pending] = field(default_factory=list)


def simulate(requests: Sequence[Mapping[str, Any]], *, machines: Mapping[str, int] | None = None) -> Schedule:
    """The schedule of checked ``requests`` (``request.read_request``); ``machines`` says how many
    machines of a queue are up (default: as many as its total slots fill)."""
    if not requests:
        raise PrereqError("no request to schedule", hint="pass the files 'prereq request' wrote")
    ordered = sorted(enumerate(requests), key=lambda pair: (submission_time(pair[1]["submitted"]), pair[0]))
    origin = submission_time(ordered[0][1]["submitted"])
    capacity = _capacity([request for _, request in ordered], machines or {})
    arrivals = [(_seconds(request, origin), position, request) for position, (_, request) in enumerate(ordered)]
    labels = _labels([request for _, request in ordered])
    blocks = Counter(config["queue"] for _, request in ordered for config in request["configuration"].values())
    state = _State(free={queue: up.first(min(up.machines, blocks[queue])) for queue, up in capacity.items()})
    schedule = Schedule(start=ordered[0][1]["submitted"], capacity=capacity)
    now = 0
    while True:
        _finish(state, now)
        while arrivals and arrivals[0][0] <= now:
            submitted, position, request = arrivals.pop(0)
            state.rights[request["user"]] = {r["queue"]: (r["slots"], r["priority"]) for r in request["rights"]}
            state.pending += _blocks(request, position, labels[position], submitted)
        started = _start(state, now)
        schedule.runs += started
        if started or not schedule.occupation or _snapshot(state, now).used != schedule.occupation[-1].used:
            schedule.occupation.append(_snapshot(state, now))
        following = [run.end for run in state.running] + [arrival[0] for arrival in arrivals[:1]]
        if not following:
            break
        now = min(following)
    schedule.never_ran = [_stuck(state, block) for block in state.pending]
    return schedule


def _seconds(request: Mapping[str, Any], origin: datetime) -> int:
    return int((submission_time(request["submitted"]) - origin).total_seconds())


def _labels(requests: Sequence[Mapping[str, Any]]) -> list[str]:
    """``user/experiment``, numbered when one user submitted the same experiment more than once."""
    plain = [f"{r['user']}/{r['experiment']}" for r in requests]
    seen: dict[str, int] = {}
    labels = []
    for label in plain:
        seen[label] = seen.get(label, 0) + 1
        labels.append(f"{label}#{seen[label]}" if plain.count(label) > 1 else label)
    return labels


def _capacity(requests: Sequence[Mapping[str, Any]], machines: Mapping[str, int]) -> dict[str, Capacity]:
    """The machines up of every queue, as the latest request describes the queue."""
    queues: dict[str, Mapping[str, Any]] = {}
    for request in requests:
        queues.update(request["queues"])
    unknown = sorted(set(machines) - set(queues))
    if unknown:
        raise PrereqError(
            f"the machines file names {', '.join(unknown)}, which no request uses",
            hint=f"name queues the requests use: {', '.join(sorted(queues))}",
        )
    layout: dict[str, Capacity] = {}
    for name, queue in sorted(queues.items()):
        per_machine, total = queue["slots_per_machine"], queue["total_slots"]
        count = -(-total // per_machine)
        up = machines.get(name, count)
        if up < 0:
            raise PrereqError(f"the machines file gives {name} {up} machines", hint="give 0 or more")
        up = min(up, count)
        layout[name] = Capacity(up, per_machine, min(total, up * per_machine))
    return layout


def _blocks(request: Mapping[str, Any], position: int, label: str, submitted: int) -> list[Pending]:
    configuration = request["configuration"]
    return [
        Pending(
            request=position,
            label=label,
            user=request["user"],
            submitted=submitted,
            block=block["name"],
            after=tuple(block["after"]),
            queue=configuration[block["name"]]["queue"],
            slots=configuration[block["name"]]["slots"],
            duration=configuration[block["name"]]["duration_minutes"] * 60,
            order=order,
        )
        for order, block in enumerate(request["toolchain"]["blocks"])
    ]


def _finish(state: _State, now: int) -> None:
    for run in [run for run in state.running if run.end <= now]:
        state.running.remove(run)
        state.free[run.queue][run.machine - 1] += run.slots
        state.use[(run.user, run.queue)] -= run.slots
        state.done.add((run.request, run.block))


def _start(state: _State, now: int) -> list[Run]:
    """Start what can start, oldest submission first (then the higher priority, then the toolchain's order)."""

    def age(block: Pending) -> tuple[int, int, int, int]:
        priority = state.rights.get(block.user, {}).get(block.queue, (0, 0))[1]
        return (block.submitted, -priority, block.request, block.order)

    started: list[Run] = []
    for block in sorted(state.pending, key=age):
        machine = _fits(state, block)
        if machine is None:
            continue
        run = Run(
            block.label,
            block.user,
            block.block,
            block.queue,
            machine + 1,
            block.slots,
            block.submitted,
            now,
            now + block.duration,
        )
        state.pending.remove(block)
        state.running.append(run)
        state.free[block.queue][machine] -= block.slots
        state.use[(block.user, block.queue)] = state.use.get((block.user, block.queue), 0) + block.slots
        started.append(run)
    return started


def _fits(state: _State, block: Pending) -> int | None:
    """The first machine the block can start on now, or None."""
    if any((block.label, other) not in state.done for other in block.after):
        return None
    allowed = state.rights.get(block.user, {}).get(block.queue, (0, 0))[0]
    if state.use.get((block.user, block.queue), 0) + block.slots > allowed:
        return None
    return next((index for index, free in enumerate(state.free.get(block.queue, [])) if free >= block.slots), None)


def _snapshot(state: _State, now: int) -> Snapshot:
    used = {queue: sum(run.slots for run in state.running if run.queue == queue) for queue in state.free}
    by_user: dict[str, dict[str, int]] = {queue: {} for queue in state.free}
    for (user, queue), slots in sorted(state.use.items()):
        if slots:
            by_user[queue][user] = slots
    return Snapshot(now, used, by_user)


def _stuck(state: _State, block: Pending) -> Stuck:
    """Why a block never ran."""
    waiting = [other for other in block.after if (block.label, other) not in state.done]
    allowed = state.rights.get(block.user, {}).get(block.queue, (0, 0))[0]
    biggest = max(state.free.get(block.queue) or [0])
    if waiting:
        reason = f"it runs after {', '.join(waiting)}, which never ran"
    elif allowed < block.slots:
        reason = (
            f"it needs {block.slots} slots on {block.queue} and {block.user}'s rights there are {allowed} "
            "(from their latest request)"
        )
    elif biggest < block.slots:
        reason = f"it needs {block.slots} slots on one machine and {block.queue}'s machines up have at most {biggest}"
    else:
        reason = "it never found room"  # not reached: everything else ends, and frees its slots
    return Stuck(block.label, block.block, reason)


def clock(seconds: int) -> str:
    """Seconds from the first submission as h:mm (d+h:mm past a day)."""
    minutes = seconds // 60
    days, minutes = divmod(minutes, 24 * 60)
    text = f"{minutes // 60}:{minutes % 60:02d}"
    return f"{days}d+{text}" if days else text


def render_text(schedule: Schedule) -> str:
    """The order of the runs and the slot occupation over time, for people."""
    lines = [f"order (FIFO by submission; times from {schedule.start}, h:mm):"]
    width = max([len(run.request) for run in schedule.runs] + [7])
    for run in schedule.runs:
        waited = f", waited {clock(run.start - run.submitted)}" if run.start > run.submitted else ""
        lines.append(
            f"  {clock(run.start):>7}-{clock(run.end):<7} {run.request:<{width}} {run.block:<12} "
            f"{run.queue} machine {run.machine}, {run.slots} slot(s){waited}"
        )
    queues = list(schedule.capacity)
    lines += ["", "occupation (slots in use / up; per user in brackets):"]
    lines.append("  " + f"{'time':>7}  " + "  ".join(f"{q:<22}" for q in queues))
    for snapshot in schedule.occupation:
        cells = []
        for queue in queues:
            users = ", ".join(f"{user} {slots}" for user, slots in snapshot.by_user[queue].items())
            cell = f"{snapshot.used[queue]}/{schedule.capacity[queue].total}" + (f" [{users}]" if users else "")
            cells.append(f"{cell:<22}")
        lines.append("  " + f"{clock(snapshot.time):>7}  " + "  ".join(cells).rstrip())
    for stuck in schedule.never_ran:
        lines.append(f"never ran: {stuck.request} {stuck.block}: {stuck.reason}")
    return "\n".join(lines) + "\n"
