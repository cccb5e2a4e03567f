"""Base and head compared: which items and job templates were added, modified, renamed or deleted,
which keys changed, and how far each version moved.

A rename is a deleted item and an added one whose contents, names aside, are mostly the same (as
git's own rename detection judges files); a moved name is what dependents notice, so it is told
apart from an unrelated deletion."""

from __future__ import annotations

import difflib
import json
import re
from pathlib import Path
from typing import Any

from prereq.core.versions import is_version, version_key
from prereq.registry.loader import SourceItem
from prereq.review.result import DOCS_KEYS, Change, Kind

_SEMVER = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$")
RENAME_SIMILARITY = 0.6  # of the lines kept (git's default is 50%; items are short, so a little stricter)


def bump_kind(old: str, new: str) -> str | None:
    """``major``, ``minor``, ``patch`` or ``prerelease`` when ``new`` is higher than ``old``; else None."""
    if not (is_version(old) and is_version(new)) or version_key(new) <= version_key(old):
        return None
    a, b = _SEMVER.match(old), _SEMVER.match(new)
    if a is None or b is None:
        return None
    for part, kind in enumerate(("major", "minor", "patch"), start=1):
        if a.group(part) != b.group(part):
            return kind
    return "prerelease"


def _version(item: SourceItem) -> str | None:
    version = item.data.get("version")
    return version if isinstance(version, str) else None


_MISSING = object()  # tells a key that is absent from one that is null


def changed_keys(old: dict[str, Any], new: dict[str, Any]) -> tuple[str, ...]:
    """The top-level keys whose values differ, in the head's order then the base's."""
    keys = list(dict.fromkeys([*new, *old]))
    return tuple(k for k in keys if old.get(k, _MISSING) != new.get(k, _MISSING))


def _text(item: SourceItem, texts: dict[str, bytes] | None) -> bytes:
    if texts is not None:
        return texts.get(item.rel, b"")
    try:
        return item.path.read_bytes()
    except OSError:
        return b""


_NOT_BEHAVIOUR = DOCS_KEYS | {"name", "version", "type", "owners", "license"}


def _lines(data: dict[str, Any]) -> list[str]:
    """What the item does, as ``path=value`` lines: what a rename keeps.  Compared line by line, as git
    compares files; the name, version, descriptive keys and the boilerplate every item has (type,
    owners, license) are left out, so that two short unrelated items are no rename."""
    lines: list[str] = []
    stack: list[tuple[str, Any]] = [(k, v) for k, v in data.items() if k not in _NOT_BEHAVIOUR]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            stack += [(f"{path}.{k}", v) for k, v in value.items()]
        elif isinstance(value, list):
            stack += [(f"{path}.{i}", v) for i, v in enumerate(value)]
        else:
            lines.append(f"{path}={json.dumps(value, default=str)}")
    return sorted(lines)


def _renames(deleted: dict[str, SourceItem], added: dict[str, SourceItem]) -> dict[str, str]:
    """Old name -> new name for each deleted item whose contents reappear under an added name."""
    pairs: list[tuple[float, str, str]] = []
    shapes = {name: _lines(item.data) for name, item in added.items()}
    for old, item in deleted.items():
        before = _lines(item.data)
        for new, after in shapes.items():
            matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
            if matcher.real_quick_ratio() >= RENAME_SIMILARITY and matcher.quick_ratio() >= RENAME_SIMILARITY:
                ratio = matcher.ratio()
                if ratio >= RENAME_SIMILARITY:
                    pairs.append((ratio, old, new))
    renames: dict[str, str] = {}
    for _, old, new in sorted(pairs, key=lambda p: (-p[0], p[1], p[2])):  # best matches first
        if old not in renames and new not in renames.values():
            renames[old] = new
    return renames


def _modified(what: str, name: str, old: SourceItem, new: SourceItem, base_texts: dict[str, bytes]) -> Change | None:
    keys = changed_keys(old.data, new.data)
    if not keys and _text(old, base_texts) == _text(new, None):
        return None
    base_version, version = _version(old), _version(new)
    return Change(
        Kind.MODIFIED,
        what,
        name,
        base_version=base_version,
        version=version,
        changed_keys=keys,
        file=new.rel,
        base_file=old.rel,
        bump=bump_kind(base_version, version) if base_version and version else None,
    )


def compare(
    what: str, base: dict[str, SourceItem], head: dict[str, SourceItem], *, base_texts: dict[str, bytes]
) -> list[Change]:
    """Every change from ``base`` to ``head`` (items or templates by name), sorted by name."""
    changes: list[Change] = []
    for name in sorted(set(base) & set(head)):
        change = _modified(what, name, base[name], head[name], base_texts)
        if change is not None:
            changes.append(change)
    deleted = {n: base[n] for n in sorted(set(base) - set(head))}
    added = {n: head[n] for n in sorted(set(head) - set(base))}
    renames = _renames(deleted, added) if what == "item" else {}
    for old, new in renames.items():
        before, after = deleted.pop(old), added.pop(new)
        base_version, version = _version(before), _version(after)
        changes.append(
            Change(
                Kind.RENAMED,
                what,
                new,
                old_name=old,
                base_version=base_version,
                version=version,
                changed_keys=changed_keys(before.data, after.data),
                file=after.rel,
                base_file=before.rel,
            )
        )
    for name, item in added.items():
        changes.append(Change(Kind.ADDED, what, name, version=_version(item), file=item.rel))
    for name, item in deleted.items():
        changes.append(Change(Kind.DELETED, what, name, base_version=_version(item), base_file=item.rel))
    return sorted(changes, key=lambda c: (c.name, c.kind.value))


def templates_by_name(templates: list[SourceItem]) -> dict[str, SourceItem]:
    return {Path(t.rel).stem: t for t in templates}
