"""The execution catalog in the published index: api/v1/execution/catalog.json, in the index schema.
(Its determinism and the schema over every file written are tests/test_index.py's, whose registry has
a catalog.)"""

from __future__ import annotations

import json
from pathlib import Path

from prereq.registry.schemas import index_problems


def _catalog(bundled: Path) -> dict:
    return json.loads((bundled / "api" / "v1" / "execution" / "catalog.json").read_text(encoding="utf-8"))


def test_the_bundled_catalog_is_published_in_the_index_schema(bundled: Path) -> None:
    document = _catalog(bundled)
    assert index_problems(document, "execution") == []
    broken = {**document, "queues": [{**document["queues"][0], "total_slots": "many"}]}
    assert index_problems(broken, "execution") == ["queues[0].total_slots: 'many' is not of type 'integer'"]


def test_what_the_catalog_file_says(bundled: Path) -> None:
    document = _catalog(bundled)
    environments = {f"{e['name']}@{e['version']}": e for e in document["environments"]}
    assert environments["pytorch-gpu@1.0.0"]["queues"] == ["gpu-1d-32g"]
    assert environments["pytorch-gpu@1.0.0"]["image"] == {"item": "pytorch-official"}
    assert "vision-transforms@1.0.0" in environments["pytorch-gpu@1.0.0"]["libraries"]
    assert "hf-datasets@1.0.0" not in environments["python@1.0.0"]["libraries"]
    libraries = {f"{lib['name']}@{lib['version']}": lib for lib in document["libraries"]}
    vision = libraries["vision-transforms@1.0.0"]
    assert vision["closure"] == [
        "array-utils@1.0.0",
        "hf-datasets@1.0.0",
        "experiment-tracking@1.0.0",
        "vision-transforms@1.0.0",
    ]
    assert vision["effective_environments"] == ["pytorch-gpu@1.0.0", "pytorch-ngc@1.0.0"]
    queues = {q["name"]: q for q in document["queues"]}
    assert queues["python-3h-4g"]["title"] == "3 hours/4G on Python"
    assert queues["python-3h-4g"]["machines"] == 4
    assert {"group": "everyone", "slots": 2, "priority": 0} in queues["python-3h-4g"]["rights"]
    assert document["groups"]["everyone"]["everyone"] is True
    assert document["groups"]["vision-team"] == {
        "members": ["carol", "erin", "grace"],
        "everyone": False,
        "from": "owners.yaml",
    }
    assert len(document["rights"]) == 14


def test_a_registry_without_a_catalog_publishes_no_catalog_file(tmp_path: Path) -> None:
    from prereq.marketplace.build import build

    registry = Path(__file__).resolve().parent / "fixtures" / "rules" / "clean"
    result = build(registry, tmp_path / "out", with_site=False)
    assert result.built
    assert not (tmp_path / "out" / "api" / "v1" / "execution").exists()
