"""The item format as data a program can read without the JSON Schema: what ``prereq share`` and the
composer need to turn a job's hand-written prerequisite into a registry item.

The index publishes ``describe()`` as its root's ``item_format`` so the composer's JS turns an entry
into the same item as ``prereq share`` does, from the same table (tests/cases/share/ holds them
equal): which keys an item of each plugin may have (the rest of an entry are the plugin's
parameters), what a name must look like, and the blanks a new item starts with.

May import: the standard library, prereq.core, prereq.openpai and prereq.registry.schemas.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from typing import Any

from prereq.core.errors import PrereqError
from prereq.core.versions import fold_name
from prereq.openpai.runtime import DEFAULT_PLUGIN, PLUGIN_PREFIX
from prereq.registry.schemas import KNOWN_PLUGINS, item_keys, load_schema

# Names a file cannot have on Windows (PRQ122), matched case-insensitively against the whole stem.
WINDOWS_RESERVED = r"(con|prn|aux|nul|com[1-9]|lpt[1-9])(\..*)?"
_WINDOWS_RESERVED = re.compile(WINDOWS_RESERVED, re.IGNORECASE)

# What a job's entry does not say, for the author to write (in the order authors read an item).
TODO: dict[str, Any] = {
    "title": "TODO a one-line title people search for",
    "description": "TODO what it does, what it needs and what it exports for the job's commands.\n",
    "tags": ["todo"],
}
DATA_LICENSE = "TODO-SPDX-id"  # a dataset must name its licence (PRQ131)
FIRST_VERSION = "1.0.0"


def is_windows_reserved(stem: str) -> bool:
    """PRQ122's test, also asked by ``prereq new`` and ``prereq share`` before they write a file."""
    return _WINDOWS_RESERVED.fullmatch(stem) is not None


@cache
def describe() -> dict[str, Any]:
    """The item format as the index publishes it (``item_format`` of the root)."""
    name = load_schema("prerequisite.schema.json")["properties"]["name"]
    plugins = {
        PLUGIN_PREFIX + short: sorted(item_keys({"plugin": PLUGIN_PREFIX + short}) or ()) for short in KNOWN_PLUGINS
    }
    return {
        "name_pattern": name["pattern"],
        "name_max_length": name["maxLength"],
        "windows_reserved": WINDOWS_RESERVED,
        "default_plugin": DEFAULT_PLUGIN,
        "keys": {"dockerimage": sorted(item_keys({"type": "dockerimage"}) or ()), "plugins": plugins},
        "first_version": FIRST_VERSION,
        "todo": [[key, value] for key, value in TODO.items()],  # pairs: the index's JSON sorts keys
        "data_license": DATA_LICENSE,
    }


def check_new_name(name: str, *, taken: Iterable[str], what: str = "name") -> None:
    """A name ``validate`` will accept for a new item: well formed, not reserved on Windows (PRQ122),
    not the name of another item once case and '-'/'_' are folded (PRQ121).  ``taken``: the names of
    the registry's items (its files, or a published index's entries)."""
    check_name(name, what=what)
    if is_windows_reserved(name):
        raise PrereqError(f"{name} cannot be a file name on Windows", hint="choose another name (PRQ122)")
    close = [other for other in taken if fold_name(other) == fold_name(name) and other != name]
    if close:
        raise PrereqError(f"{name} is too close to the item {close[0]}", hint="choose another name (PRQ121)")


def check_name(name: str, *, what: str) -> None:
    """An item's (or an owner's) name as the schema has it: letters, digits, '-' and '_', not too long."""
    form = describe()
    if not re.fullmatch(form["name_pattern"].strip("^$"), name) or len(name) > form["name_max_length"]:
        raise PrereqError(f"{what} {name} is not a valid name", hint="use at most 63 letters, digits, '-' and '_'")
