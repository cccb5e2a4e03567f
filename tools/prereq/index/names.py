"""Names are data, never paths: where a published file named after data may be written.

The build, the index and the site name files after an item's name (``prerequisites/NAME.json``,
``items/NAME/``), a version (``items/NAME/VERSION.yaml``), a tag (``tags/TAG/``) and a job
template's file name (``templates/NAME.yaml``).  Validation refuses a bad one (PRQ110, PRQ120,
PRQ122), but a suppression, or a bug there, must never let a name write outside the folder being
written: ``place`` checks the name again at the point of writing, against the schema's own pattern,
and checks that the path it makes, links resolved, lands inside that folder; ``refusal`` says why a
name cannot be a path, so that a caller can leave its item out and say so before anything is written.

Patterns are matched whole and ASCII only: under Python's ``re``, ``$`` also matches before a final
newline and ``\\d`` matches the digits of every script, which a path must never depend on.

Owns the name kinds and the two checks.  May import: prereq.core and prereq.registry (the schemas'
patterns, the Windows device names).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prereq.core import files
from prereq.core.errors import PrereqError
from prereq.registry.itemformat import is_windows_reserved
from prereq.registry.schemas import load_schema


@dataclass(frozen=True)
class NameKind:
    """A kind of name that becomes a path part: what it is called in messages, and its form."""

    what: str
    pattern: re.Pattern[str]
    max_length: int
    form: str  # the form it must have, for messages
    # Windows' device names (con, nul...) refused, as PRQ122 refuses them for item files.  Tags keep
    # theirs: validation allows a tag "con", whose page folder every host the site is served from can hold.
    no_devices: bool = True


def _from_schema(what: str, *keys: str, form: str, no_devices: bool = True) -> NameKind:
    """A kind whose pattern and length are the item schema's at ``keys`` (one source for both checks)."""
    node: Any = load_schema("prerequisite.schema.json")
    for key in keys:
        node = node[key]
    return NameKind(what, re.compile(node["pattern"], re.ASCII), node["maxLength"], form, no_devices)


ITEM_NAME = _from_schema("item name", "properties", "name", form="made of letters, digits, '-' and '_'")
VERSION = _from_schema("version", "properties", "version", form="a semantic version (1.0.0)")
TAG = _from_schema("tag", "properties", "tags", "items", form="lowercase words joined by '-'", no_devices=False)
# A job template's file name has no schema: a plain file name, never starting with a dot.
FILE_NAME = NameKind(
    "file name", re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*", re.ASCII), 255, "made of letters, digits, '.', '-' and '_'"
)


def shown(value: object) -> str:
    """A name as a message shows it: escapes visible (a newline, a NUL, a right-to-left override)."""
    return json.dumps(value, ensure_ascii=True) if isinstance(value, str) else repr(value)


def refusal(value: object, kind: NameKind) -> str | None:
    """Why ``value`` cannot name a published file as a ``kind`` (None: it can)."""
    if not isinstance(value, str):
        return "it is not a string"
    if not value or len(value) > kind.max_length or kind.pattern.fullmatch(value) is None:
        return f"it is not {kind.form}, of at most {kind.max_length} characters"
    if value in (".", ".."):  # no pattern above allows them; kept for the day one does
        return "it names a folder"
    if kind.no_devices and is_windows_reserved(value):
        return "Windows reserves it for a device"
    return None


def inside(out: Path, rel: str) -> Path:
    """``out/rel`` when it lands inside ``out`` with links resolved; else a PrereqError (a bug in the
    caller or a tampered folder: nothing is written)."""
    target = out / rel
    if not files.within(Path(os.path.realpath(target)), Path(os.path.realpath(out))):
        raise PrereqError(
            f"refusing to write {shown(str(target))}: it lies outside {out}",
            hint="nothing was published; report this with the registry that caused it",
        )
    return target


def place(out: Path, folder: str, name: object, *, kind: NameKind, suffix: str = "") -> Path:
    """``out/folder/NAME+suffix`` once ``name`` passes ``kind`` again and the path lands inside ``out``
    (``inside``); else a PrereqError naming the file, and nothing is written.  ``folder`` is fixed by
    the caller ('/'-separated, '' for ``out`` itself)."""
    reason = refusal(name, kind)
    if reason is not None:
        raise PrereqError(
            f"refusing to write a file named after the {kind.what} {shown(name)} under {out}: {reason}",
            hint=f"nothing was published; make the {kind.what} {kind.form}",
            exit_code=1,  # a problem in the registry, as its errors are
        )
    return inside(out, f"{folder}/{name}{suffix}" if folder else f"{name}{suffix}")
