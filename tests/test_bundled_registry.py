"""The registry shipped in registry/: valid, rich, and accepted by OpenPAI as published."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prereq.marketplace.build import build
from prereq.openpai import forms, runtime
from prereq.openpai.protocol import validate_job
from prereq.registry.validate import validate

REGISTRY = Path(__file__).resolve().parents[1] / "registry"


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    out = tmp_path_factory.mktemp("bundled") / "site"
    assert build(REGISTRY, out, with_site=False).built
    api = out / "api" / "v1"
    return {p.stem: json.loads(p.read_text()) for p in (api / "prerequisites").glob("*.json")}


def test_bundled_registry_passes_strict_validation() -> None:
    result = validate(REGISTRY)
    assert result.problems == []
    assert len(result.items) >= 36
    assert len(result.templates) >= 3


def test_the_proposal_items_are_there_and_wired_as_the_user_story_says() -> None:
    items = validate(REGISTRY).items
    for name in ("covid_data", "mnist-data", "nfs-storage-1", "install-pai-copy", "output-dir", "enable-ssh"):
        assert name in items
    assert "mountPoint" in items["nfs-storage-1"].data["parameters"]
    for name in ("mnist-data", "output-dir"):
        assert "nfs-storage-1" in [r.name for r in items[name].requires]
    assert forms.exports(items["mnist-data"].data) == ["MNIST_DIR"]
    assert "OUTPUT_DIR" in forms.exports(items["output-dir"].data)
    succeed = forms.command_blocks(items["output-dir"].data)[runtime.SUCCEED]
    assert any("OUTPUT_DIR" in command for _, command in succeed)
    assert items["enable-ssh"].data["plugin"] == "com.microsoft.pai.runtimeplugin.ssh"


def test_require_chains_are_several_levels_deep(index: dict[str, dict]) -> None:
    depth = max(len(doc["versions"][-1]["closure"]) for doc in index.values())
    assert depth >= 4


def test_every_published_form_is_accepted_by_openpai_and_survives_the_runtime(index: dict[str, dict]) -> None:
    for name, document in index.items():
        for version in document["versions"]:
            closure = [index[c["name"]]["versions"] for c in version["closure"]]
            closure_forms = [
                next(v["openpai"] for v in versions if v["version"] == c["version"])
                for versions, c in zip(closure, version["closure"], strict=False)
            ]
            runnable = [f["name"] for f in closure_forms if f["type"] != "dockerimage"]
            images = [f["name"] for f in closure_forms if f["type"] == "dockerimage"]
            role = {
                "instances": 1,
                "dockerImage": images[-1] if images else "img",
                "resourcePerInstance": {"cpu": 1, "memoryMB": 1024, "gpu": 0},
                "commands": ["true"],
            }
            if runnable:
                role["prerequisites"] = runnable
            own_image = [] if images else [{"name": "img", "type": "dockerimage", "uri": "ubuntu:22.04"}]
            job = {
                "protocolVersion": 2,
                "name": "check",
                "type": "job",
                "prerequisites": closure_forms + own_image,
                "taskRoles": {"main": role},
            }
            assert validate_job(job) == [], (name, version["version"])
            assert forms.check_round_trip(version["openpai"]) == [], (name, version["version"])
