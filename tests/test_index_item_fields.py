"""An item file's ``item.conflicts`` and ``item.require`` as the CLI reads them, from the case tables
the composer's reader also runs (tests/cases/reader/conflicts.json, require.json): conflicts are a
list of names, anything else none; require is none or a list of names, anything else refused naming
the file.  Before, a string was read as its characters, a mapping as its keys, and a number stopped
``job add`` with a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prereq.core.errors import PrereqError
from prereq.index.reader import Index

CASES = Path(__file__).parent / "cases"
TABLE = json.loads((CASES / "reader" / "conflicts.json").read_text(encoding="utf-8"))["cases"]
REQUIRE = json.loads((CASES / "reader" / "require.json").read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", TABLE, ids=[json.dumps(case["conflicts"]) for case in TABLE])
def test_an_items_conflicts_are_read_as_a_list_of_names(case: dict[str, object]) -> None:
    index = Index.load(str(CASES / "indexes" / "story"))
    for version in index.document("mnist-data")["versions"]:
        version["item"]["conflicts"] = case["conflicts"]  # type: ignore[typeddict-unknown-key]
    read = next(item for item in index.closure(["mnist-data"]) if item.name == "mnist-data")
    assert list(read.conflicts) == case["read"]


@pytest.mark.parametrize("case", REQUIRE, ids=[json.dumps(case["require"]) for case in REQUIRE])
def test_an_items_require_is_none_or_a_list_of_names(case: dict[str, object]) -> None:
    base = str(CASES / "indexes" / "story")
    index = Index.load(base)
    for version in index.document("mnist-data")["versions"]:
        version["item"]["require"] = case["require"]  # type: ignore[typeddict-unknown-key]
    if "error" in case:
        with pytest.raises(PrereqError) as refused:
            index.closure(["mnist-data"])
        assert refused.value.message == str(case["error"]).replace("{base}", index.base)
        assert refused.value.hint == "rebuild the index with 'prereq build'"
    else:
        assert [item.name for item in index.closure(["mnist-data"])] == case["names"]
