"""The catalog file (api/v1/catalog.json): the root's entries as the catalog and the header search
read them, in columns, checked against its schema and against the root it was made from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from prereq.index import search
from prereq.index.catalogfile import catalog_document
from prereq.marketplace.build import build
from prereq.registry.schemas import load_schema

REGISTRY = Path(__file__).resolve().parents[1] / "registry"
FIELDS = ("name", "version", "type", "title", "summary", "tags", "owners", "license", "updated", "path")


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bundled") / "site"
    assert build(REGISTRY, out, with_site=False).built
    return out / "api" / "v1"


def _read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def entries_of(catalog: dict[str, Any]) -> list[dict[str, Any]]:
    """The entries as site/assets/finding.js's catalogEntries rebuilds them."""
    columns = catalog["items"]
    out = []
    for i, name in enumerate(columns["name"]):
        summary, license_at = columns["summary"][i], columns["license"][i]
        out.append(
            {
                "name": name,
                "version": columns["version"][i],
                "type": catalog["types"][columns["type"][i]],
                "title": columns["title"][i],
                "summary": columns["title"][i] if summary is None else summary,
                "tags": [catalog["tags"][at] for at in columns["tags"][i]],
                "owners": [catalog["owners"][at] for at in columns["owners"][i]],
                "license": None if license_at is None else catalog["licenses"][license_at],
                "deprecated": bool(columns["deprecated"][i]),
                "updated": columns["updated"][i],
                "path": f"prerequisites/{name}.json",
            }
        )
    return out


def test_the_catalog_file_holds_what_the_root_says_of_each_item(api: Path) -> None:
    root, catalog = _read(api / "index.json"), _read(api / "catalog.json")
    expected = [
        {**{key: entry[key] for key in FIELDS}, "deprecated": bool(entry["deprecated"])} for entry in root["items"]
    ]
    assert entries_of(catalog) == expected
    assert any(entry["deprecated"] for entry in expected) and any(entry["license"] for entry in expected)
    assert any(entry["summary"] != entry["title"] for entry in expected)
    assert catalog["type_groups"] == root["type_groups"] and catalog["type_labels"] == root["type_labels"]
    assert catalog == catalog_document(root)  # nothing else goes into it
    # Written as the index's documents are: compact, the repeated strings once.
    text = (api / "catalog.json").read_text(encoding="utf-8")
    assert text == json.dumps(catalog, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"
    assert catalog["tags"] == sorted(set(catalog["tags"])) and len(text) < len((api / "index.json").read_text())


def test_the_catalog_file_passes_its_published_schema_which_is_not_vacuous(api: Path) -> None:
    schema = _read(api / "catalog.schema.json")
    assert schema == load_schema("catalog.schema.json")
    validator = jsonschema.Draft202012Validator(schema)
    catalog = _read(api / "catalog.json")
    assert list(validator.iter_errors(catalog)) == []
    for broken in (
        {**catalog, "format": "prereq-catalog/0"},
        {**catalog, "items": {**catalog["items"], "tags": [["vision"]]}},  # a name, not a position
        {key: value for key, value in catalog.items() if key != "owners"},
    ):
        assert list(validator.iter_errors(broken))


def test_the_catalog_file_carries_the_words_a_typo_is_corrected_to(api: Path) -> None:
    root, catalog = _read(api / "index.json"), _read(api / "catalog.json")
    labels = search.labels_of(root)
    counted = search.vocabulary(search.Record.of(entry, labels(entry)) for entry in root["items"])
    shipped = catalog["vocabulary"]
    assert dict(zip(shipped["words"], shipped["counts"], strict=True)) == counted
    assert len(shipped["words"]) == len(counted) > 100
    assert counted["mnist"] >= 2  # a word several entries use counts each once
    validator = jsonschema.Draft202012Validator(load_schema("catalog.schema.json"))
    for broken in ({"words": ["a"]}, {"words": ["a"], "counts": [0]}, {"words": [""], "counts": [1]}):
        assert list(validator.iter_errors({**catalog, "vocabulary": broken}))


def test_the_vocabulary_is_in_javascripts_order_of_strings_not_pythons() -> None:
    # JavaScript compares UTF-16 code units: a letter past U+FFFF is two units from U+D800, below
    # U+FF41; Python compares code points, which would put it after.
    entries = [
        {"name": name, "title": "", "summary": "", "tags": [], "owners": []} for name in ("\uff41x", "😀x", "éa", "za")
    ]
    words, counts = search.vocabulary_columns(search.Record.of(entry) for entry in entries)
    assert words == ["za", "éa", "😀x", "\uff41x"] and counts == [1, 1, 1, 1]
