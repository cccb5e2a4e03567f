"""A requested block placed on its queue: the OpenPAI job it becomes, accepted by the rest-server's checks."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from prereq import cli
from prereq.core.errors import PrereqError
from prereq.core.yamlload import load_yaml
from prereq.execution.catalog_validation import open_catalog
from prereq.execution.experiment import check_experiment
from prereq.execution.placement import place_block
from prereq.execution.request import Submitter, build_request
from prereq.execution.rights import user_groups, user_rights
from prereq.index.reader import Index
from prereq.openpai.protocol import validate_job

REPO = Path(__file__).resolve().parents[1]
VISION = REPO / "tests" / "fixtures" / "execution" / "vision.yaml"


@pytest.fixture(scope="module")
def placed(bundled: Path):
    catalog, owners = open_catalog(REPO / "registry")
    groups = user_groups("erin", owners, catalog)
    rights = user_rights(catalog, groups)
    checked = check_experiment(VISION, shown="vision.yaml", catalog=catalog, rights=rights)
    assert checked.experiment is not None, checked.findings
    submitter = Submitter("erin", tuple(groups), 100, datetime(2026, 1, 5, tzinfo=timezone.utc))
    request = build_request(checked.experiment, submitter=submitter, rights=rights, catalog=catalog)
    index = Index.load(bundled)
    return {block: place_block(request, block, catalog=catalog, index=index) for block in ("prepare", "train")}, request


def test_a_gpu_block_becomes_a_task_role_the_rest_server_accepts(placed) -> None:
    jobs, _ = placed
    job = jobs["train"].job
    assert jobs["train"].problems == [] and validate_job(job) == []
    assert job["defaults"] == {"virtualCluster": "gpu"}
    role = job["taskRoles"]["train"]
    # 2 slots of gpu-1d-32g: 8 cores, 32 GiB and one GPU each
    assert role["resourcePerInstance"] == {"cpu": 16, "memoryMB": 65536, "gpu": 2}
    assert role["dockerImage"] == "pytorch-official"
    names = [form["name"] for form in job["prerequisites"]]
    assert names[0] == "pytorch-official"
    assert role["prerequisites"] == names[1:]
    # registry items with their requirements first, then the libraries of files, dependencies first
    assert names.index("hf-hub-cli") < names.index("lib-array-utils-1-0-0")
    assert "mlflow-tracking" in names
    assert names[-2:] == ["lib-array-utils-1-0-0", "lib-vision-transforms-1-0-0"]
    assert role["commands"][0].startswith("export PYTHONPATH=/opt/prereq/libraries/array-utils:")
    assert role["commands"][-1] == "python train.py --data /data/imagenette --gpus 2"
    assert job["extras"]["execution"]["queue"] == "gpu-1d-32g"


def test_an_environment_given_by_uri_gets_its_own_dockerimage_prerequisite(placed) -> None:
    jobs, _ = placed
    job = jobs["prepare"].job
    assert jobs["prepare"].problems == []
    image = job["prerequisites"][0]
    assert image == {
        "name": "python-1-1-0-image",
        "type": "dockerimage",
        "version": "1.1.0",
        "description": "python@1.1.0 image",
        "uri": "python:3.12-slim-bookworm",
    }
    assert job["taskRoles"]["prepare"]["resourcePerInstance"] == {"cpu": 1, "memoryMB": 4096, "gpu": 0}
    assert job["defaults"] == {"virtualCluster": "default"}


def test_the_download_script_survives_the_runtime(placed) -> None:
    from prereq.openpai import forms

    jobs, _ = placed
    script = next(f for f in jobs["train"].job["prerequisites"] if f["name"] == "lib-vision-transforms-1-0-0")
    assert forms.check_round_trip(script) == []
    commands = script["callbacks"][0]["commands"]
    assert "mkdir -p /opt/prereq/libraries/vision-transforms/vision_transforms" in commands


def test_placing_needs_the_index_for_registry_items_and_a_known_block(placed) -> None:
    _, request = placed
    catalog, _ = open_catalog(REPO / "registry")
    with pytest.raises(PrereqError, match="published index"):
        place_block(request, "train", catalog=catalog, index=None)
    with pytest.raises(PrereqError, match="no block 'nope'"):
        place_block(request, "nope", catalog=catalog, index=None)


def test_prereq_place_writes_one_job_per_block(bundled: Path, tmp_path: Path, capsys) -> None:
    request = tmp_path / "erin.json"
    assert cli.main(["request", str(VISION), "--user", "erin", "-o", str(request)]) == 0
    capsys.readouterr()
    assert cli.main(["place", str(request), "--index", str(bundled), "-o", str(tmp_path / "jobs")]) == 0
    assert capsys.readouterr().out.count("wrote ") == 3
    written = sorted(p.name for p in (tmp_path / "jobs").iterdir())
    assert written == ["vision-benchmark-evaluate.yaml", "vision-benchmark-prepare.yaml", "vision-benchmark-train.yaml"]
    for path in (tmp_path / "jobs").iterdir():
        assert validate_job(load_yaml(path.read_bytes()).data) == []
    assert cli.main(["place", str(request), "--block", "evaluate", "--index", str(bundled)]) == 0
    assert load_yaml(capsys.readouterr().out.encode()).data["taskRoles"]["evaluate"]["instances"] == 1
