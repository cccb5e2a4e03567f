"""An item file's ``item.conflicts`` and ``item.require`` as the CLI reads them, from the case tables
the composer's reader also runs (tests/cases/reader/conflicts.json, require.json): conflicts are a
list of names, anything else none; require is none or a list of names, anything else refused naming
the file.  Before, a string was read as its characters, a mapping as its keys, and a number stopped
``job add`` with a traceback."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from prereq.core.errors import PrereqError
from prereq.index.reader import Index
from prereq.jobs.loadline import CallbackLines, first_callbacks
from prereq.jobs.operations import deprecated_note

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


DEPRECATED = json.loads((CASES / "reader" / "deprecated.json").read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", DEPRECATED, ids=[json.dumps(case["deprecated"]) for case in DEPRECATED])
def test_an_items_deprecation_is_said_from_what_it_holds(case: dict[str, object]) -> None:
    assert deprecated_note("old", "1.0.0", {"item": {"deprecated": case["deprecated"]}}) == case["note"]


def test_a_string_that_is_not_unicode_text_is_refused_naming_the_file(tmp_path: Path) -> None:
    """json.loads takes "\\ud800"; the schema check then raised UnicodeEncodeError (exit 3)."""
    base = tmp_path / "index"
    shutil.copytree(CASES / "indexes" / "story", base)
    api = base / "api" / "v1"
    path = api / "prerequisites" / "apt-proxy.json"
    body = path.read_bytes().replace(b'"version":"0.2.0"', b'"version":"0.2.\\ud800"', 1)
    assert b"ud800" in body
    path.write_bytes(body)
    root = json.loads((api / "index.json").read_text(encoding="utf-8"))
    for entry in root["items"]:
        if entry["name"] == "apt-proxy":
            entry["sha256"] = hashlib.sha256(body).hexdigest()
    (api / "index.json").write_text(json.dumps(root), encoding="utf-8")
    with pytest.raises(PrereqError, match=r"apt-proxy\.json is not a valid prereq index file: .*lone surrogate"):
        Index.load(str(base)).closure(["apt-proxy"])


def test_prereqs_callbacks_of_an_entry_with_an_odd_name_or_no_event_are_passed_over() -> None:
    """A first callback is found by name and event: an entry named by a list (unhashable) or a callback
    without an event stopped 'job add' with a traceback; the composer passed over both (loadline.js)."""
    lines = CallbackLines(first="first", other="other")
    cmd = "com.microsoft.pai.runtimeplugin.cmd"
    data = {
        "prerequisites": [
            {
                "name": ["odd"],
                "type": "script",
                "plugin": cmd,
                "callbacks": [{"event": "taskStarts", "commands": ["other"]}],
            },
            {"name": "a", "type": "script", "plugin": cmd, "callbacks": [{"commands": ["other"]}]},
            {
                "name": "b",
                "type": "script",
                "plugin": cmd,
                "callbacks": [{"event": "taskStarts", "commands": ["other"]}],
            },
        ],
        "taskRoles": {"r": {"prerequisites": ["a", "b"]}},
    }
    assert first_callbacks(data, lines) == {(2, 0)}
