"""An item file's ``item.conflicts`` as the CLI reads it, from the case table the composer's reader
also runs (tests/cases/reader/conflicts.json): a list of names; anything else is none.  Before, a
string was read as its characters, a mapping as its keys, and a number stopped ``job add`` with a
traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prereq.index.reader import Index

CASES = Path(__file__).parent / "cases"
TABLE = json.loads((CASES / "reader" / "conflicts.json").read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", TABLE, ids=[json.dumps(case["conflicts"]) for case in TABLE])
def test_an_items_conflicts_are_read_as_a_list_of_names(case: dict[str, object]) -> None:
    index = Index.load(str(CASES / "indexes" / "story"))
    for version in index.document("mnist-data")["versions"]:
        version["item"]["conflicts"] = case["conflicts"]  # type: ignore[typeddict-unknown-key]
    read = next(item for item in index.closure(["mnist-data"]) if item.name == "mnist-data")
    assert list(read.conflicts) == case["read"]
