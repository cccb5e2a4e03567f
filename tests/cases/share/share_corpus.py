"""The share corpus: a job's hand-written prerequisite as a registry item, in both engines.

Each case is a job's text, the name of one of its prerequisites, the owner and optionally the
item's other name (``as``), and expects either the item (``name`` and the file's ``text``, without
the header lines ``prereq share`` adds) or the error and hint.  The item format and the names
already taken come from ``indexes/story``'s root, as the composer reads them.  The Python engine
(``prereq.scaffold.share.share_entry``) is the reference (``regen.py``); ``tests/js/share.test.js``
runs the same files against the composer's jobs/share.js.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from prereq.core.errors import PrereqError
from prereq.scaffold.share import share_entry

FOLDER = Path(__file__).resolve().parent
ROOT = FOLDER.parent / "indexes" / "story" / "api" / "v1" / "index.json"


def case_files() -> list[Path]:
    return sorted(FOLDER.glob("[0-9]*.json"))


def outcome(case: dict[str, Any]) -> dict[str, Any]:
    """What the Python engine makes of the case."""
    root = json.loads(ROOT.read_text(encoding="utf-8"))
    try:
        shared = share_entry(
            case["job"],
            case["entry"],
            owner=case["owner"],
            item_format=root["item_format"],
            taken=[entry["name"] for entry in root["items"]],
            as_name=case.get("as"),
            source="job.yaml",
        )
    except PrereqError as error:
        return {"error": error.message, "hint": error.hint}
    return {"name": shared.name, "text": shared.text}
