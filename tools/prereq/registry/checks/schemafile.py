"""The item schema a registry repository commits for editors (PRQ115): ``schema/prerequisite.schema.json``
at the repository's root, which ``prereq init`` writes and new items' modelines name, so that a fresh
clone resolves them.  It must be prereq's own (``SCHEMA_DIR``): a copy that differs is reported, and
so is a missing one that an item's modeline names; ``prereq schema`` (and ``prereq new``) rewrite it.
In prereq's own checkout the file is the packaged schema's source: the same text, never reported.

May import: prereq.core, prereq.registry.loader/rules/settings, prereq.registry.checks.context.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

from prereq.core.files import SCHEMA_DIR
from prereq.registry.checks.context import Context, registry_check
from prereq.registry.loader import LoadedRegistry, SourceItem
from prereq.registry.rules import Problem, problem
from prereq.registry.settings import repository_root

ITEM_SCHEMA = "schema/prerequisite.schema.json"  # relative to the repository's root
_MODELINE = re.compile(rb"#\s*yaml-language-server:\s*\$schema=(\S+)")


def item_schema_text() -> str:
    """The item schema as this prereq checks items, for the copy committed at ``ITEM_SCHEMA``."""
    return (SCHEMA_DIR / "prerequisite.schema.json").read_text(encoding="utf-8")


def committed_schema(root: Path) -> str | None:
    """Whether the repository at ``root`` commits this prereq's item schema: None when it does, else
    "missing" or "stale"."""
    try:
        text = (root / ITEM_SCHEMA).read_text(encoding="utf-8", errors="replace")
    except OSError:  # not there, or not a file
        return "missing"
    return None if text == item_schema_text() else "stale"


def _names_schema(item: SourceItem, schema: Path) -> bool:
    """Whether the item's first line is a modeline naming the file ``schema`` (not an address)."""
    found = _MODELINE.match(item.raw.split(b"\n", 1)[0])
    ref = found[1].decode("utf-8", "replace") if found else ""
    return bool(ref) and "://" not in ref and os.path.normpath(item.path.parent / ref) == os.path.normpath(schema)


@registry_check("PRQ115")
def check_committed_schema(registry: LoadedRegistry, ctx: Context) -> Iterator[Problem]:
    root = repository_root(registry.root)
    state = committed_schema(root)
    if state is None:
        return
    schema = root / ITEM_SCHEMA
    shown = Path(os.path.relpath(schema, registry.root)).as_posix()
    if state == "stale":
        yield problem("PRQ115", file=shown, schema=shown, state="is not the item schema this prereq checks")
        return
    naming = [item for item in registry.items if _names_schema(item, schema)]
    if naming:
        state = f"is missing, though the modeline of {len(naming)} item{'s' * (len(naming) != 1)} names it"
        yield problem("PRQ115", file=naming[0].rel, line=1, column=1, schema=shown, state=state)


CHECKS = (check_committed_schema,)
