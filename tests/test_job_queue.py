"""``prereq job add --queue``: an ordinary job's task roles put on a queue of the execution catalog (the
bundled registry's, read from its published index or from the registry), accepted by the rest-server's
checks, refused where the user has no slot, and recorded so that placing again, lock and remove behave."""

from __future__ import annotations

from pathlib import Path

import pytest

from prereq import cli, jobs
from prereq.core.errors import PrereqError
from prereq.core.yamlload import load_yaml
from prereq.execution.catalog_validation import open_catalog
from prereq.jobs.queue import QueueChoice, add_queue, add_queue_to_text
from prereq.openpai.protocol import validate_job

REPO = Path(__file__).resolve().parents[1]
JOB = """\
protocolVersion: 2
name: train-resnet
type: job
# my training job
taskRoles:
  train:
    instances: 1
    resourcePerInstance: {cpu: 1, memoryMB: 1024, gpu: 0}  # mine, until the queue's
    commands:
      - python train.py  # the real work
"""
TWO_ROLES = (
    JOB
    + """\
  evaluate:
    instances: 1
    resourcePerInstance: {cpu: 1, memoryMB: 1024, gpu: 0}
    commands:
      - python evaluate.py
"""
)
GPU = "pytorch-gpu@1.0.0"  # gpu-1d-32g serves it and pytorch-ngc@1.0.0: a job names one
VISION = QueueChoice(queue="gpu-1d-32g", slots=2, user="erin", environment=GPU, libraries=("vision-transforms@1.0.0",))


def _place(text: str, choice: QueueChoice, bundled: Path, **options) -> jobs.JobEdit:
    return add_queue_to_text(text, choice, index=bundled, source="job.yaml", **options).edit


def _data(edit: jobs.JobEdit) -> dict:
    return load_yaml(edit.after.encode()).data


def test_a_job_on_a_gpu_queue_gets_its_cluster_resources_image_and_libraries(bundled: Path, tmp_path: Path) -> None:
    placed = add_queue_to_text(JOB, VISION, index=bundled, source="job.yaml")
    job = _data(placed.edit)
    role = job["taskRoles"]["train"]
    assert job["defaults"] == {"virtualCluster": "gpu"}
    assert role["resourcePerInstance"] == {"cpu": 16, "memoryMB": 65536, "gpu": 2}  # 2 x (8 cores, 32 GiB, 1 GPU)
    assert role["dockerImage"] == "pytorch-official"  # pytorch-gpu@1.0.0's image item, selected
    names = [entry["name"] for entry in job["prerequisites"]]
    # the libraries' install items with their requirements, and a download script per library of files
    assert {
        "hf-hub-cli",
        "mlflow-tracking",
        "miniconda",
        "lib-array-utils-1-0-0",
        "lib-vision-transforms-1-0-0",
    } <= set(names)
    assert set(role["prerequisites"]) == set(names)
    assert role["commands"][1].startswith("export PYTHONPATH=/opt/prereq/libraries/array-utils:")
    assert role["commands"][-1] == "python train.py"
    assert "# my training job" in placed.edit.after and "python train.py  # the real work" in placed.edit.after
    record = job["extras"]["prereq"]["queues"]["train"]
    assert record == {
        "queue": "gpu-1d-32g",
        "environment": "pytorch-gpu@1.0.0",
        "slots": 2,
        "libraries": ["array-utils@1.0.0", "hf-datasets@1.0.0", "experiment-tracking@1.0.0", "vision-transforms@1.0.0"],
        "selected": ["pytorch-official", "hf-hub-cli", "mlflow-tracking@^0.5.0"],
        "entries": ["lib-array-utils-1-0-0", "lib-vision-transforms-1-0-0"],
        "image": "pytorch-official",
    }
    assert placed.describe() == [
        "placed task role train on queue gpu-1d-32g (1 day/32G with one GPU per slot on PyTorch; virtual cluster gpu):"
        " 2 slot(s) = cpu 16, memoryMB 65536, gpu 2, environment pytorch-gpu@1.0.0, image pytorch-official"
    ]
    # prereq job resolve takes it, and OpenPAI's schema and rest-server checks accept what it hands over
    path = tmp_path / "job.yaml"
    path.write_text(placed.edit.after, encoding="utf-8")
    ready = jobs.prepare(path, index=bundled)
    assert validate_job(ready.data) == []


def test_the_catalog_of_the_registry_places_as_the_published_one(bundled: Path) -> None:
    from_index = _place(JOB, VISION, bundled)
    from_registry = _place(JOB, VISION, bundled, catalog=open_catalog(REPO / "registry"))
    assert from_index.after == from_registry.after


def test_placing_again_replaces_what_the_last_placement_wrote(bundled: Path) -> None:
    mine = jobs.add_to_text(JOB, ["output-dir"], index=bundled, source="job.yaml").after  # the user's own choice
    first = _place(mine, VISION, bundled)
    again = _place(first.after, QueueChoice(queue="python-3h-4g", user="erin"), bundled)
    job = _data(again)
    role = job["taskRoles"]["train"]
    assert job["defaults"] == {"virtualCluster": "default"}
    assert role["resourcePerInstance"] == {"cpu": 1, "memoryMB": 4096, "gpu": 0}
    assert role["dockerImage"] == "python-1-1-0-image"  # python@1.1.0, the queue's newest Python, by its URI
    image = next(entry for entry in job["prerequisites"] if entry["name"] == "python-1-1-0-image")
    assert (image["type"], image["uri"]) == ("dockerimage", "python:3.12-slim-bookworm")
    names = {entry["name"] for entry in job["prerequisites"]}
    assert not names & {"pytorch-official", "hf-hub-cli", "mlflow-tracking", "lib-vision-transforms-1-0-0"}
    assert job["extras"]["prereq"]["selected"] == {"train": ["output-dir"]}  # the user's selection stays
    assert not any(c.startswith("export PYTHONPATH=") for c in role["commands"])
    assert job["extras"]["prereq"]["queues"]["train"]["entries"] == ["python-1-1-0-image"]
    # the same placement once more changes nothing
    assert _place(again.after, QueueChoice(queue="python-3h-4g", user="erin"), bundled).changed is False


def test_lock_and_remove_keep_the_placement(bundled: Path) -> None:
    placed = _place(JOB, VISION, bundled)
    locked = jobs.lock_text(placed.after, index=bundled, source="job.yaml")
    assert not locked.changed
    removed = jobs.remove_from_text(placed.after, ["mlflow-tracking"], index=bundled, source="job.yaml")
    job = _data(removed)
    assert "mlflow-tracking" not in {entry["name"] for entry in job["prerequisites"]}
    assert job["extras"]["prereq"]["queues"]["train"]["queue"] == "gpu-1d-32g"
    assert job["taskRoles"]["train"]["dockerImage"] == "pytorch-official"
    # placing again puts back what the libraries need
    again = _data(_place(removed.after, VISION, bundled))
    assert "mlflow-tracking" in {entry["name"] for entry in again["prerequisites"]}


def test_a_docker_image_of_the_users_stays_unless_asked(bundled: Path) -> None:
    own = JOB.replace("    instances: 1\n", "    instances: 1\n    dockerImage: my-image\n", 1).replace(
        "# my training job\n", "prerequisites:\n  - {name: my-image, type: dockerimage, uri: 'my/image:1'}\n"
    )
    kept = add_queue_to_text(own, VISION, index=bundled, source="job.yaml")
    assert _data(kept.edit)["taskRoles"]["train"]["dockerImage"] == "my-image"
    assert kept.image == {"train": None}
    replaced = _place(own, QueueChoice(queue="gpu-1d-32g", user="erin", environment=GPU, image=True), bundled)
    assert _data(replaced)["taskRoles"]["train"]["dockerImage"] == "pytorch-official"
    assert (
        replaced.warnings[0]
        == "job.yaml:9: task role train's dockerImage my-image gives way to pytorch-gpu@1.0.0's image"
    )


@pytest.mark.parametrize(
    ("choice", "message", "code"),
    [
        (
            QueueChoice(queue="gpu-1d-32g", groups="everyone", environment=GPU),
            "the job cannot run on gpu-1d-32g for everyone: none of these groups has a slot on it",
            1,
        ),
        (
            QueueChoice(
                queue="python-3h-4g", user="erin", environment="python@1.0.0", libraries=("hf-datasets@1.0.0",)
            ),
            "the job cannot run on python-3h-4g for everyone, vision-team: "
            "library hf-datasets@1.0.0 does not work in python@1.0.0",
            1,
        ),
        (
            QueueChoice(queue="python-3h-4g", user="erin", environment="pytorch-gpu@1.0.0"),
            "the job cannot run on python-3h-4g for everyone, vision-team: it does not serve pytorch-gpu@1.0.0 "
            "(it serves python@1.0.0, python@1.1.0)",
            1,
        ),
        (
            QueueChoice(queue="gpu-1d-32g", user="erin", environment=GPU, slots=5),
            "5 slots per instance on gpu-1d-32g, but an instance runs on one machine and takes at most 4 there "
            "(yours: 8, one machine's: 4)",
            1,
        ),
        (QueueChoice(queue="gpu-1d", user="erin"), "no queue 'gpu-1d' in the catalog", 2),
        (QueueChoice(queue="gpu-1d-32g"), "say whose rights: --user NAME or --groups A,B", 2),
        (
            QueueChoice(queue="gpu-1d-32g", user="erin"),
            "queue gpu-1d-32g serves several environments: pytorch-gpu@1.0.0, pytorch-ngc@1.0.0",
            2,
        ),
        (QueueChoice(queue="gpu-1d-32g", user="erin", slots=0), "--slots 0: a task role takes at least one slot", 2),
    ],
)
def test_what_the_user_may_not_take_is_refused(bundled: Path, choice: QueueChoice, message: str, code: int) -> None:
    with pytest.raises(PrereqError) as refused:
        _place(JOB, choice, bundled)
    assert (refused.value.message, refused.value.exit_code) == (message, code)


def test_an_unknown_queue_lists_the_known_ones(bundled: Path) -> None:
    with pytest.raises(PrereqError) as refused:
        _place(JOB, QueueChoice(queue="nope", user="erin"), bundled)
    assert refused.value.hint == "queues: cpp-3h-4g, gpu-1d-32g, gpu-3d-8x, python-1d-16g, python-3h-4g"


def test_the_task_roles_together_take_no_more_than_the_users_slots(bundled: Path) -> None:
    both = _place(TWO_ROLES, QueueChoice(queue="python-3h-4g", user="erin"), bundled)  # 1 + 1 of erin's 2
    assert set(_data(both)["extras"]["prereq"]["queues"]) == {"train", "evaluate"}
    with pytest.raises(PrereqError, match="would run 4 slots at once on python-3h-4g; your groups give you 2"):
        _place(TWO_ROLES, QueueChoice(queue="python-3h-4g", user="erin", slots=2), bundled)


def test_a_job_runs_in_one_virtual_cluster(bundled: Path) -> None:
    train = _place(TWO_ROLES, VISION, bundled, task_role="train")
    with pytest.raises(PrereqError) as refused:
        _place(train.after, QueueChoice(queue="python-3h-4g", user="erin"), bundled, task_role="evaluate")
    assert refused.value.exit_code == 1
    assert refused.value.message.startswith("task role train is on queue gpu-1d-32g (virtual cluster gpu)")
    written = JOB + "defaults:\n  virtualCluster: mine\n"
    moved = _place(written, VISION, bundled)
    assert _data(moved)["defaults"] == {"virtualCluster": "gpu"}
    assert "job.yaml:12: defaults.virtualCluster was mine; queue gpu-1d-32g runs in gpu" in moved.warnings


def test_an_index_without_a_catalog_says_so() -> None:
    tiny = REPO / "tests" / "cases" / "indexes" / "tiny"
    with pytest.raises(PrereqError, match="has no execution catalog") as refused:
        _place(JOB, VISION, tiny)
    assert refused.value.hint.endswith("or name the registry with --registry")


def test_prereq_job_add_queue(bundled: Path, tmp_path: Path, capsys) -> None:
    path = tmp_path / "job.yaml"
    path.write_text(JOB, encoding="utf-8")
    base = ["job", "add", str(path), "--index", str(bundled)]
    assert cli.main([*base, "--queue", "gpu-1d-32g", "--groups", "everyone", "--environment", GPU]) == 1
    assert "none of these groups has a slot on it" in capsys.readouterr().err
    assert path.read_text(encoding="utf-8") == JOB
    assert cli.main([*base, "--slots", "2"]) == 2
    assert "--slots only go with --queue QUEUE" in capsys.readouterr().err
    assert cli.main(["job", "add", str(path)]) == 2
    capsys.readouterr()
    registry = ["--registry", str(REPO / "registry")]
    assert cli.main([*base, "--queue", "gpu-1d-32g", "--user", "erin", "--environment", GPU, *registry]) == 0
    out = capsys.readouterr().out
    assert out.startswith("placed task role train on queue gpu-1d-32g")
    assert "added pytorch-official 2.3.1, selected" in out
    assert load_yaml(path.read_bytes()).data["defaults"] == {"virtualCluster": "gpu"}


def test_the_file_api_writes_atomically_and_dry_runs_write_nothing(bundled: Path, tmp_path: Path) -> None:
    path = tmp_path / "job.yaml"
    path.write_text(JOB, encoding="utf-8")
    dry = add_queue(path, VISION, index=bundled, dry_run=True)
    assert dry.edit.changed and not dry.edit.written and path.read_text(encoding="utf-8") == JOB
    done = add_queue(path, VISION, index=bundled, names=["output-dir"])
    assert done.edit.written and path.read_text(encoding="utf-8") == done.edit.after
    assert "output-dir" in _data(done.edit)["extras"]["prereq"]["selected"]["train"]
