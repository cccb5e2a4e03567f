"""The catalog file, ``api/v1/catalog.json``: what the site's catalog and header search read of the root.

The root index is the job clients' (the composer, ``prereq job``): every entry with its digest, its
file's path and its exports, as objects.  The catalog page needs a third of that and, at 100,000
items, parsed a 58 MB root before drawing anything.  This file holds only the fields the catalog's
cards, facets and search use (site/assets/catalog*.js, search.js, header-search.js, finding.js's
loadCatalog), as columns of the root's entries in its order: ``items.title[i]`` is the title of the
root's i-th entry.  Strings that repeat (types, tags, owners, license expressions) are written once,
in sorted lists, and the columns hold their positions.  ``schema/catalog.schema.json`` describes it;
the page rebuilds each entry's fields exactly (a test compares them with the root's).  The file also
carries the entries' vocabulary, the words a typo is corrected to: counting them in the page took a
second at 100,000 items before the first typo could be answered.

Owns the file's layout.  May import: prereq.index.documents/search, and prereq.registry (for its schema).
"""

from __future__ import annotations

from typing import TypedDict

from prereq.index import search
from prereq.index.documents import Root, RootEntry, TypeGroup
from prereq.registry import schemas

CATALOG_FILE = "catalog.json"  # in api/v1, beside index.json
SCHEMA_FILE = "catalog.schema.json"  # in schema/, and published beside the file
CATALOG_FORMAT: str = schemas.load_schema(SCHEMA_FILE)["properties"]["format"]["const"]


class CatalogColumns(TypedDict):
    """One list per field, one value per root entry (see the module's docstring)."""

    name: list[str]
    version: list[str]
    type: list[int]  # a position in CatalogDocument.types
    title: list[str]
    summary: list[str | None]  # None: the same as the title (an item without a description)
    tags: list[list[int]]
    owners: list[list[int]]
    license: list[int | None]  # None: the item states no license
    deprecated: list[int]  # 1 when the root's entry is deprecated (the reason stays in the root)
    updated: list[str | None]


class Vocabulary(TypedDict):
    """Every word the entries' search records use (prereq.index.search.vocabulary), in JavaScript's
    order, and how many entries use each: counts[i] is words[i]'s."""

    words: list[str]
    counts: list[int]


class CatalogDocument(TypedDict):
    """``api/v1/catalog.json``."""

    format: str
    type_groups: list[TypeGroup]
    type_labels: dict[str, str]
    types: list[str]
    tags: list[str]
    owners: list[str]
    licenses: list[str]
    items: CatalogColumns
    vocabulary: Vocabulary


def _positions(values: set[str]) -> tuple[list[str], dict[str, int]]:
    """The values sorted, and each one's position in that list."""
    ordered = sorted(values)
    return ordered, {value: at for at, value in enumerate(ordered)}


def catalog_document(root: Root) -> CatalogDocument:
    """The catalog file of a root index (the root is not changed)."""
    entries: list[RootEntry] = root["items"]
    types, type_at = _positions({entry["type"] for entry in entries})
    tags, tag_at = _positions({tag for entry in entries for tag in entry["tags"]})
    owners, owner_at = _positions({owner for entry in entries for owner in entry["owners"]})
    licenses, license_at = _positions({entry["license"] for entry in entries if entry["license"] is not None})
    columns: CatalogColumns = {
        "name": [entry["name"] for entry in entries],
        "version": [entry["version"] for entry in entries],
        "type": [type_at[entry["type"]] for entry in entries],
        "title": [entry["title"] for entry in entries],
        "summary": [None if entry["summary"] == entry["title"] else entry["summary"] for entry in entries],
        "tags": [[tag_at[tag] for tag in entry["tags"]] for entry in entries],
        "owners": [[owner_at[owner] for owner in entry["owners"]] for entry in entries],
        "license": [None if entry["license"] is None else license_at[entry["license"]] for entry in entries],
        "deprecated": [1 if entry["deprecated"] else 0 for entry in entries],
        "updated": [entry["updated"] for entry in entries],
    }
    labels = search.labels_of(root)
    words, counts = search.vocabulary_columns(search.Record.of(entry, labels(entry)) for entry in entries)
    return {
        "format": CATALOG_FORMAT,
        "type_groups": root["type_groups"],
        "type_labels": root["type_labels"],
        "types": types,
        "tags": tags,
        "owners": owners,
        "licenses": licenses,
        "items": columns,
        "vocabulary": {"words": words, "counts": counts},
    }
