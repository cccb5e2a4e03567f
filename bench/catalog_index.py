"""A root index of N entries made from a real one, for measuring the catalog page at scale.

Building a real 100,000-item site takes about half an hour; the catalog page only reads the root
``api/v1/index.json``.  So a small real site is built once and its root index is widened to N
entries: the real entries first, as they are, then renamed copies of them.  A copy keeps its
original's type, summary, license and most tags (real text, so the queries the page is measured
with find what they would), and gets a name, title words, a tag and an individual owner of its
own, so the vocabulary, the tag facet and the owner list grow with N as a real registry's do.
The result must pass the index schema the site is built against (``prereq.registry.schemas``), and
the catalog file made from it (``api/v1/catalog.json``, as the builder makes it) the catalog schema.
"""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta
from typing import Any

import jsonschema_rs

from prereq.index.catalogfile import SCHEMA_FILE, CatalogDocument, catalog_document
from prereq.registry.schemas import index_problems, load_schema

CONSONANTS = "bdfgklmnprstvz"
VOWELS = "aeiou"
SYLLABLES = [c + v for c in CONSONANTS for v in VOWELS]  # 70: "ba" .. "zu"
COPIES_PER_TAG = 40  # each generated tag is carried by about this many copies
COPIES_PER_OWNER = 25  # and each generated owner owns about this many
TEAM_SUFFIX = "-team"  # owners named so are teams and stay; people are renamed


def pseudo_word(number: int) -> str:
    """A pronounceable word for a positive number, distinct for every number ("be", "kalo", ...)."""
    letters = []
    while number:
        number, digit = divmod(number - 1, len(SYLLABLES))
        letters.append(SYLLABLES[digit])
    return "".join(reversed(letters))


def _copy(entry: dict[str, Any], number: int, count: int) -> dict[str, Any]:
    """The `number`-th renamed copy (1, 2, ...) of a real entry, in an index of `count` entries."""
    word = pseudo_word(number)
    out = copy.deepcopy(entry)
    out["name"] = f"{entry['name']}-{word}"
    out["path"] = f"prerequisites/{out['name']}.json"
    out["title"] = f"{entry['title']}, {word} edition"
    tag = pseudo_word(1 + number % max(1, count // COPIES_PER_TAG))
    out["tags"] = [*entry["tags"][:2], tag]
    person = pseudo_word(1 + number * 7 % max(1, count // COPIES_PER_OWNER))
    teams = [owner for owner in entry["owners"] if owner.endswith(TEAM_SUFFIX)]
    out["owners"] = [*teams, person]
    if entry.get("updated"):
        # Spread over two years, so "last updated" sorts copies apart.
        updated = datetime.fromisoformat(entry["updated"]).astimezone(UTC) - timedelta(hours=number * 13 % 17_520)
        out["updated"] = updated.isoformat(timespec="seconds")
    return out


def widen_index(root: dict[str, Any], count: int) -> dict[str, Any]:
    """`root` (a built site's api/v1/index.json) with `count` entries, sorted by name as the builder
    writes them; raises ValueError when the result does not pass the index schema."""
    real = root["items"]
    if count < len(real):
        raise ValueError(f"{count} entries is fewer than the {len(real)} the real index holds")
    entries = list(real)
    number = 0
    while len(entries) < count:
        number += 1
        entries.extend(_copy(entry, number, count) for entry in real[: count - len(entries)])
    entries.sort(key=lambda entry: entry["name"])
    wide = {**root, "items": entries}
    problems = index_problems(wide, "root")
    if problems:
        raise ValueError("the widened index does not pass the index schema: " + "; ".join(problems[:5]))
    return wide


def widened_catalog(wide: dict[str, Any]) -> CatalogDocument:
    """The catalog file of a widened root, as the builder writes it beside the root; raises ValueError
    when it does not pass the catalog schema."""
    catalog = catalog_document(wide)  # type: ignore[arg-type]  # a root that passed the index schema
    errors = [error.message for error in jsonschema_rs.validator_for(load_schema(SCHEMA_FILE)).iter_errors(catalog)]
    if errors:
        raise ValueError("the widened catalog file does not pass the catalog schema: " + "; ".join(errors[:5]))
    return catalog
