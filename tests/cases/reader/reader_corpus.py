"""The index reader's corpus: how each engine opens a changed root ``index.json``.

Each case changes the root file of ``indexes/tiny`` (``set`` keys, ``delete`` keys, or
``replace`` the whole document) and expects either the number of items read or the error and
hint the reader gives, with the index's folder written ``BASE``.  The Python reader is the
reference (``regen.py``); ``tests/js/reader.test.js`` runs the same files against the composer's index/reader.js.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from prereq.core.errors import PrereqError
from prereq.index.reader import Index

FOLDER = Path(__file__).resolve().parent
TINY_ROOT = FOLDER.parent / "indexes" / "tiny" / "api" / "v1" / "index.json"


def case_files() -> list[Path]:
    return sorted(FOLDER.glob("[0-9]*.json"))


def changed_root(change: dict[str, Any]) -> Any:
    if "replace" in change:
        return change["replace"]
    root = json.loads(TINY_ROOT.read_text(encoding="utf-8"))
    root.update(change.get("set", {}))
    for key in change.get("delete", []):
        del root[key]
    return root


def outcome(change: dict[str, Any]) -> dict[str, Any]:
    """What the Python reader makes of the changed root."""
    with tempfile.TemporaryDirectory() as tmp:
        api = Path(tmp) / "api" / "v1"
        api.mkdir(parents=True)
        (api / "index.json").write_text(json.dumps(changed_root(change)), encoding="utf-8")
        try:
            index = Index.load(tmp)
        except PrereqError as error:
            return {"error": error.message.replace(str(api), "BASE"), "hint": error.hint}
        return {"items": len(index.entries)}
