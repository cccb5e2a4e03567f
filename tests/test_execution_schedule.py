"""The FIFO scheduler's simulation on a case worked by hand, rights updated by a later request, blocks
that never run and why, machines down, and ``prereq schedule``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from prereq import cli
from prereq.core.errors import PrereqError
from prereq.execution.request import REQUEST_FORMAT, request_problems
from prereq.execution.schedule import Capacity, clock, render_text, simulate

QUEUE = {"title": "2 slots a machine", "slots_per_machine": 2, "total_slots": 4, "time_limit_minutes": 180}


def request(user: str, minute: int, slots: int, blocks: list[tuple[str, list[str], int, int]]) -> dict[str, Any]:
    """A request of ``user`` submitted at ``minute`` with ``slots`` on q; blocks are (name, after, slots, minutes)."""
    document = {
        "format": REQUEST_FORMAT,
        "experiment": f"exp-{user}-{minute}",
        "submitted": f"2026-01-05T09:{minute:02d}:00+00:00",
        "user": user,
        "groups": ["default"],
        "reputation": 100,
        "toolchain": {"name": "t", "blocks": [{"name": name, "after": after} for name, after, _, _ in blocks]},
        "configuration": {
            name: {
                "queue": "q",
                "environment": "py@1.0.0",
                "libraries": [],
                "slots": size,
                "duration_minutes": minutes,
                "commands": ["true"],
            }
            for name, _, size, minutes in blocks
        },
        "rights": [{"queue": "q", "slots": slots, "priority": 1 if user == "bob" else 0}],
        "queues": {"q": {**QUEUE, "virtual_cluster": "default"}},
    }
    assert request_problems(document) == []
    return document


# Worked by hand (q: two machines of 2 slots; times in minutes):
#  0  alice's a1 (2 slots) starts on machine 1;                        alice may use 2
# 10  bob's b1 (2) starts on machine 2; b2 (2) waits: no machine free;  bob may use 4
# 20  alice's second request lowers her rights to 1: c1 (1) waits, a1 runs on
# 40  b1 ends: b2, older than c1, takes machine 2
# 60  a1 ends: a2 (after a1, 1 slot) takes machine 1; c1 still waits (alice uses 1 of 1)
# 70  b2 ends;  90  a2 ends: c1 takes machine 1;  100  c1 ends
HAND = [
    request("alice", 0, 2, [("a1", [], 2, 60), ("a2", ["a1"], 1, 30)]),
    request("bob", 10, 4, [("b1", [], 2, 30), ("b2", [], 2, 30)]),
    request("alice", 20, 1, [("c1", [], 1, 10)]),
]


def test_the_case_worked_by_hand() -> None:
    schedule = simulate(list(reversed(HAND)))  # the order of the files does not matter: submission age does
    runs = [(run.block, run.start // 60, run.end // 60, run.machine, run.slots) for run in schedule.runs]
    assert runs == [
        ("a1", 0, 60, 1, 2),
        ("b1", 10, 40, 2, 2),
        ("b2", 40, 70, 2, 2),
        ("a2", 60, 90, 1, 1),
        ("c1", 90, 100, 1, 1),
    ]
    occupation = [(s.time // 60, s.used["q"], s.by_user["q"]) for s in schedule.occupation]
    assert occupation == [
        (0, 2, {"alice": 2}),
        (10, 4, {"alice": 2, "bob": 2}),
        (40, 4, {"alice": 2, "bob": 2}),
        (60, 3, {"alice": 1, "bob": 2}),
        (70, 1, {"alice": 1}),
        (90, 1, {"alice": 1}),
        (100, 0, {}),
    ]
    assert schedule.never_ran == []
    assert schedule.capacity == {"q": Capacity(machines=2, slots_per_machine=2, total=4)}


def test_without_the_second_request_alice_keeps_her_two_slots() -> None:
    schedule = simulate(HAND[:2] + [request("alice", 20, 2, [("c1", [], 1, 10)])])
    starts = {run.block: run.start // 60 for run in schedule.runs}
    assert starts["c1"] == 60  # as soon as a1 frees machine 1, beside a2


def test_blocks_that_never_run_say_why() -> None:
    first = request("alice", 0, 2, [("y", [], 1, 60), ("x", ["y"], 2, 10), ("z", ["x"], 1, 10)])
    lowered = request("alice", 20, 1, [("w", [], 1, 10)])
    schedule = simulate([first, lowered])
    assert [(s.block, s.reason) for s in schedule.never_ran] == [
        ("x", "it needs 2 slots on q and alice's rights there are 1 (from their latest request)"),
        ("z", "it runs after x, which never ran"),
    ]
    down = simulate([request("bob", 0, 4, [("big", [], 2, 10)])], machines={"q": 0})
    assert [s.reason for s in down.never_ran] == ["it needs 2 slots on one machine and q's machines up have at most 0"]


def test_machines_down_and_partial_machines() -> None:
    one = simulate(HAND[:2], machines={"q": 1})
    # a2 comes from the older request, so it goes before b1, and b1 (2 slots) cannot share the machine with it
    assert [(run.block, run.start // 60) for run in one.runs] == [("a1", 0), ("a2", 60), ("b1", 90), ("b2", 120)]
    odd = {**QUEUE, "total_slots": 5, "virtual_cluster": "default"}
    partial = request("bob", 0, 5, [("b", [], 1, 10)])
    partial["queues"]["q"] = odd
    assert simulate([partial]).capacity == {"q": Capacity(machines=3, slots_per_machine=2, total=5)}
    assert Capacity(machines=3, slots_per_machine=2, total=5).first(9) == [2, 2, 1]
    with pytest.raises(PrereqError, match="names gpu, which no request uses"):
        simulate(HAND, machines={"gpu": 1})
    with pytest.raises(PrereqError, match="no request to schedule"):
        simulate([])


def test_clock() -> None:
    assert [clock(s) for s in (0, 59, 60, 3600 * 25 + 120)] == ["0:00", "0:00", "0:01", "1d+1:02"]


def test_prereq_schedule(tmp_path: Path, capsys) -> None:
    paths = []
    for number, document in enumerate(HAND):
        paths.append(tmp_path / f"r{number}.json")
        paths[-1].write_text(json.dumps(document))
    (tmp_path / "machines.yaml").write_text("q: 2\n")
    assert cli.main(["schedule", *map(str, paths), "--machines", str(tmp_path / "machines.yaml")]) == 0
    out = capsys.readouterr().out
    assert "     0:40-1:10    bob/exp-bob-10     b2           q machine 2, 2 slot(s), waited 0:30" in out
    assert "     1:00  3/4 [alice 1, bob 2]" in out
    assert cli.main(["schedule", *map(str, paths), "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert [run["block"] for run in document["runs"]] == ["a1", "b1", "b2", "a2", "c1"]
    assert document["capacity"] == {"q": {"machines": 2, "slots_per_machine": 2, "total": 4}}
    (tmp_path / "bad.json").write_text("{nope")
    assert cli.main(["schedule", str(tmp_path / "bad.json")]) == 2
    assert "bad.json is not JSON" in capsys.readouterr().err


def test_a_queue_of_a_trillion_slots_costs_what_its_blocks_cost() -> None:
    """First fit never passes a machine nothing runs on: only as many machines as blocks are simulated."""
    huge = request("bob", 0, 10**12, [("b1", [], 2, 30), ("b2", [], 2, 30), ("b3", ["b1"], 1, 10)])
    huge["queues"]["q"] = {**QUEUE, "total_slots": 10**12 + 1, "virtual_cluster": "default"}
    schedule = simulate([huge], machines={"q": 10**15})  # more than there are: the queue's own
    assert [(run.block, run.machine, run.start // 60) for run in schedule.runs] == [
        ("b1", 1, 0),
        ("b2", 2, 0),
        ("b3", 1, 30),
    ]
    assert schedule.capacity == {"q": Capacity(machines=5 * 10**11 + 1, slots_per_machine=2, total=10**12 + 1)}
    assert "4/1000000000001" in render_text(schedule)


def _schedule(tmp_path: Path, capsys, document: dict[str, Any]) -> tuple[int, str]:
    """``prereq schedule`` of ``document`` written as 'prereq request' writes it: the exit code and stderr."""
    path = tmp_path / "request.json"
    path.write_text(json.dumps(document, indent=2) + "\n")
    code = cli.main(["schedule", str(path)])
    return code, capsys.readouterr().err


@pytest.mark.parametrize(
    "submitted",
    ["2024-13-45T09:00:00Z", "2024-02-30T09:00:00+00:00", "2024-01-05T09:00:00+99:00", "2024-01-05T25:61:00Z"],
)
def test_a_submission_time_that_does_not_exist_is_a_usage_error(tmp_path: Path, capsys, submitted: str) -> None:
    document = request("alice", 0, 2, [("a1", [], 2, 60)])
    document["submitted"] = submitted
    assert request_problems(document) == []  # the schema's pattern lets it through
    code, err = _schedule(tmp_path, capsys, document)
    assert code == 2, err
    line = json.dumps(document, indent=2).splitlines().index(f'  "submitted": "{submitted}",') + 1
    assert f"request.json:{line}: submitted {submitted!r} is not a real time" in err
    assert "hint: write a date and time that exist" in err and "internal error" not in err


def test_a_block_without_configuration_or_queue_is_a_usage_error(tmp_path: Path, capsys) -> None:
    document = request("alice", 0, 2, [("a1", [], 2, 60), ("a2", ["a1"], 1, 30)])
    del document["configuration"]["a2"]
    assert request_problems(document) == []
    code, err = _schedule(tmp_path, capsys, document)
    line = json.dumps(document, indent=2).splitlines().index('        "name": "a2",') + 1
    assert code == 2 and f"request.json:{line}: block a2 of the toolchain has no configuration" in err, err
    assert "hint: add configuration.a2 (configured blocks: a1)" in err
    document = request("alice", 0, 2, [("a1", [], 2, 60)])
    document["configuration"]["a1"]["queue"] = "gpu"
    code, err = _schedule(tmp_path, capsys, document)
    line = json.dumps(document, indent=2).splitlines().index('      "queue": "gpu",') + 1
    assert code == 2 and f"request.json:{line}: block a1 runs on gpu, which the request's queues" in err, err
    assert "hint: describe gpu under queues" in err
