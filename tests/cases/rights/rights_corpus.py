"""The rights corpus: a user's queue rights over their groups, by each engine.

Each case names a committed index (``index``, a folder under ``tests/cases/indexes/``), the user's
``groups`` and a ``reputation`` (percent), and expects either the rights (``rights``: the fields of
``prereq.execution.rights.QueueRight``, by queue) or the error and hint.  The Python reference is
``user_rights`` on the catalog of the registry the index was built from (``registries/<source>``,
its commit folders laid over each other as ``make_indexes.py`` does); ``tests/js/rights.test.js``
runs the same files against the composer's execution/rights.js, which reads the index's published
``api/v1/execution/catalog.json`` only.  ``regen.py`` writes the expectations.
"""

from __future__ import annotations

import dataclasses
import sys
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

FOLDER = Path(__file__).resolve().parent
CASES = FOLDER.parent
sys.path.insert(0, str(CASES))

import make_indexes  # noqa: E402  (beside this folder: which registry built which index)

from prereq.core.errors import PrereqError  # noqa: E402
from prereq.execution.catalog_records import Catalog  # noqa: E402
from prereq.execution.catalog_validation import open_catalog  # noqa: E402
from prereq.execution.rights import user_rights  # noqa: E402


def case_files() -> list[Path]:
    return sorted(FOLDER.glob("[0-9]*.json"))


@cache
def catalog(index: str) -> Catalog:
    """The catalog of the registry ``index`` was built from, as of the commits it was built after."""
    fixture = next(f for f in make_indexes.FIXTURES if f.name == index)
    with tempfile.TemporaryDirectory(prefix="prereq-rights-cases-") as folder:
        registry = Path(folder) / "registry"
        for commit in make_indexes.commit_folders(fixture.source)[: fixture.commits]:
            make_indexes.overlay(commit, registry)
        return open_catalog(registry)[0]


def outcome(case: dict[str, Any]) -> dict[str, Any]:
    """What the Python engine gives for the case's groups and reputation."""
    try:
        rights = user_rights(catalog(case["index"]), case["groups"], reputation=case["reputation"])
    except PrereqError as error:
        return {"error": error.message, "hint": error.hint}
    return {"rights": [{**dataclasses.asdict(right), "groups": list(right.groups)} for right in rights]}
