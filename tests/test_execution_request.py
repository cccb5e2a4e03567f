"""Experiments checked and turned into execution requests: the request schema, cycles with their path,
every finding with its line and fix, and ``prereq request``."""

from __future__ import annotations

import json
import textwrap
from datetime import datetime, timezone
from pathlib import Path

import jsonschema
import pytest

from execution_helpers import environment, library, queue, write_catalog
from prereq import cli
from prereq.execution.catalog_validation import open_catalog
from prereq.execution.experiment import check_experiment
from prereq.execution.request import Submitter, build_request, read_request, request_problems
from prereq.execution.rights import user_rights
from prereq.registry.schemas import load_schema

REPO = Path(__file__).resolve().parents[1]
VISION = REPO / "tests" / "fixtures" / "execution" / "vision.yaml"
WHEN = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)


@pytest.fixture
def registry(tmp_path: Path) -> Path:
    files = {
        "environments/py/1.1.0.yaml": environment(version="1.1.0"),
        "queues/q1.yaml": queue(envs="[py@1.0.0, py@1.1.0]"),
        "libraries/top/1.0.0.yaml": library("top", envs="[py@1.0.0, py@1.1.0]", depends="[deep@1.0.0]"),
        "libraries/deep/1.0.0.yaml": library("deep", envs="[py@1.1.0]"),
    }
    return write_catalog(tmp_path / "registry", files)


def _check(registry: Path, text: str, groups: tuple[str, ...] = ("default",)):
    experiment = registry.parent / "experiment.yaml"
    experiment.write_text(textwrap.dedent(text), encoding="utf-8")
    catalog, _ = open_catalog(registry)
    rights = user_rights(catalog, groups) if groups else []
    return check_experiment(experiment, shown="experiment.yaml", catalog=catalog, rights=rights), catalog, rights


def _findings(checked) -> list[tuple[int | None, str]]:
    return [(f.line, f.message) for f in checked.findings]


GOOD = """\
name: small
globals: {environment: py@1.1.0, queue: q1}
blocks:
  train:
    after: [prepare]
    slots: 2
    libraries: [top@1.0.0]
    duration_minutes: 90
    commands: [python train.py]
  prepare:
    commands: [python prepare.py]
"""


def test_a_good_experiment_becomes_a_request_its_schema_accepts(registry: Path) -> None:
    checked, catalog, rights = _check(registry, GOOD)
    assert checked.findings == [] and checked.experiment is not None
    submitter = Submitter("alice", ("default",), 100, WHEN)
    request = build_request(checked.experiment, submitter=submitter, rights=rights, catalog=catalog)
    schema = load_schema("execution-request.schema.json")
    jsonschema.Draft202012Validator.check_schema(schema)
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(request)) == []
    assert request_problems(request) == []
    assert [b["name"] for b in request["toolchain"]["blocks"]] == ["prepare", "train"]  # what it runs after first
    assert request["configuration"]["train"] == {
        "queue": "q1",
        "environment": "py@1.1.0",
        "libraries": ["deep@1.0.0", "top@1.0.0"],  # dependencies first
        "slots": 2,
        "duration_minutes": 90,
        "commands": ["python train.py"],
    }
    assert request["configuration"]["prepare"]["duration_minutes"] == 180  # the queue's limit, without an estimate
    assert request["rights"] == [{"queue": "q1", "slots": 2, "priority": 0}]
    assert request["queues"]["q1"]["slots_per_machine"] == 2
    assert request["submitted"] == "2026-01-05T09:00:00+00:00"
    broken = {**request, "rights": [{"queue": "q1", "slots": 0, "priority": 0}]}
    assert request_problems(broken) == ["rights[0].slots: 0 is less than the minimum of 1"]
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(broken))


def test_a_cycle_is_an_error_with_its_whole_path(registry: Path) -> None:
    text = GOOD.replace("    commands: [python prepare.py]", "    after: [check]\n    commands: [python prepare.py]")
    text += "  check:\n    after: [train]\n    commands: [echo]\n"
    checked, _, _ = _check(registry, text)
    assert checked.experiment is None
    assert _findings(checked) == [
        (14, "the blocks run after each other in a cycle: check -> train -> prepare -> check (no block could start)")
    ]
    assert checked.findings[0].hint == "remove one of these, such as this one (check after train)"


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (("after: [prepare]", "after: [prep]"), (5, "train runs after 'prep', which is not a block of the experiment")),
        (("after: [prepare]", "after: [train]"), (5, "train runs after itself")),
        (
            ("globals: {environment: py@1.1.0, queue: q1}", "globals: {environment: py@1.1.0}"),
            (4, "block train has no queue"),
        ),
        (("slots: 2", "slots: 3"), (6, "block train asks for 3 slots on q1, more than the slots of one machine (2)")),
        (
            ("duration_minutes: 90", "duration_minutes: 200"),
            (8, "block train needs 200 minutes; q1 stops blocks at 180"),
        ),
        (("queue: q1}", "queue: q9}"), (2, "no queue 'q9' in the catalog")),
        (
            ("py@1.1.0", "py@1.0.0"),
            (
                2,
                "block train cannot run on q1: library deep@1.0.0 (used through top@1.0.0 -> "
                "deep@1.0.0) does not work in py@1.0.0",
            ),
        ),
        (("py@1.1.0", "py@2.0.0"), (2, "block prepare: no environment py@2.0.0 in the catalog")),
        (("slots: 2", "slot: 2"), (6, "unknown key 'slot' in blocks.train")),
        (
            ("name: small", "name: small experiment"),
            (1, "name: name 'small experiment' is not letters, digits, '-' and '_'"),
        ),
    ],
)
def test_each_finding_names_its_line(registry: Path, change: tuple[str, str], expected: tuple[int, str]) -> None:
    checked, _, _ = _check(registry, GOOD.replace(*change))
    assert checked.experiment is None
    assert expected in _findings(checked)
    assert all(f.file == "experiment.yaml" and f.hint for f in checked.findings)


def test_a_user_without_a_slot_on_the_queue_is_told_which_queues_they_get(registry: Path) -> None:
    checked, _, _ = _check(registry, GOOD, groups=())
    assert (2, "block prepare cannot run on q1: none of these groups has a slot on it") in _findings(checked)
    assert checked.findings[0].hint == "no queue is offered for it: 'prereq queues' says why"


def test_a_file_that_is_no_experiment(registry: Path) -> None:
    checked, _, _ = _check(registry, "- just\n- a list\n")
    assert _findings(checked) == [(1, "the file holds a list, not a mapping of keys to values")]
    checked, _, _ = _check(registry, "name: x\nblocks: {a: {commands: [1]\n")
    assert checked.findings[0].message.startswith("invalid YAML")


def test_prereq_request_writes_the_request_schedule_reads(tmp_path: Path, capsys) -> None:
    out = tmp_path / "erin.json"
    args = ["request", str(VISION), "--user", "erin", "--submitted", "2026-01-05T09:00:00Z", "-o", str(out)]
    assert cli.main(args) == 0
    printed = capsys.readouterr().out
    assert "train        gpu-1d-32g x2, pytorch-gpu@1.0.0 after prepare" in printed
    request = read_request(out, shown="erin.json")
    assert request["groups"] == ["everyone", "vision-team"]
    assert request["configuration"]["train"]["libraries"] == [
        "array-utils@1.0.0",
        "hf-datasets@1.0.0",
        "experiment-tracking@1.0.0",
        "vision-transforms@1.0.0",
    ]
    assert cli.main([*args[:-2], "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == request


def test_prereq_request_exit_codes(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "name: x\nblocks:\n  a:\n    after: [b]\n    commands: [echo]\n  b:\n    after: [a]\n    commands: [echo]\n"
    )
    assert cli.main(["request", str(bad), "--user", "erin", "--registry", str(REPO / "registry")]) == 1
    out = capsys.readouterr().out
    assert f"{bad}:4:13: error: the blocks run after each other in a cycle: a -> b -> a" in out
    assert cli.main(["request", str(tmp_path / "missing.yaml"), "--user", "erin"]) == 2
    assert "is not a file" in capsys.readouterr().err
    assert cli.main(["request", str(VISION)]) == 2
    assert "--user NAME" in capsys.readouterr().err
    (tmp_path / "not.json").write_text("{}")
    with pytest.raises(Exception, match="is not an execution request"):
        read_request(tmp_path / "not.json", shown="not.json")


@pytest.mark.parametrize(
    ("submitted", "said"),
    [
        ("2024-13-45T09:00:00Z", "is not an ISO 8601 time that exists"),
        ("2024-02-30", "is not an ISO 8601 time that exists"),
        ("2026-01-05T09:00:00+99:00", "is not an ISO 8601 time that exists"),
        ("2026-01-05T09:00:00+05:30:15", "has a time zone of seconds"),
    ],
)
def test_a_submission_time_that_cannot_be_a_request_s_is_a_usage_error(
    tmp_path: Path, capsys, submitted: str, said: str
) -> None:
    out = tmp_path / "erin.json"
    args = ["request", str(VISION), "--user", "erin", "--submitted", submitted, "-o", str(out)]
    assert cli.main(args) == 2
    err = capsys.readouterr().err
    assert f"--submitted {submitted!r} {said}" in err and "hint: " in err and "internal error" not in err
    assert not out.exists()


def test_a_submission_time_far_away_still_schedules(tmp_path: Path, capsys) -> None:
    paths = []
    for number, submitted in enumerate(["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00"]):
        paths.append(tmp_path / f"r{number}.json")
        args = ["request", str(VISION), "--user", "erin", "--submitted", submitted, "-o", str(paths[-1])]
        assert cli.main(args) == 0
    capsys.readouterr()
    assert cli.main(["schedule", *map(str, paths), "--format", "json"]) == 0
    schedule = json.loads(capsys.readouterr().out)
    assert schedule["start"] == "0001-01-01T00:00:00+14:00"
    name = read_request(paths[0], shown="r0.json")["experiment"]
    assert {run["request"] for run in schedule["runs"]} == {f"erin/{name}#1", f"erin/{name}#2"}
