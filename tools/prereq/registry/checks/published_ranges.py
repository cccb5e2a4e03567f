"""The versions each item publishes, and the ranges only older ones meet (PRQ142 and its notes).

Every version an item ever had stays published from the git history (the index builder reads it
along first parents), so a range that the working tree's version falls outside is no error while an
older published version still meets it: the dependent keeps resolving that one, and validation says
so as a note (``Stay``).  Only a range that no published version meets is PRQ142.  The history is read
only when some range is unmet, in one ``git log`` over the item folder along first parents; what
each blob holds (its name, version and whether today's item format accepts it: a pure function of
its content) is kept by blob id across runs, so a run reads from git only the blobs no earlier run
read.  Outside git there is no history: the working tree's version is the only one published.

May import: the standard library, prereq.core, prereq.registry.loader/schemas.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path, PurePosixPath
from typing import Any

from prereq.core.files import NO_CACHE, Cache
from prereq.core.gitrepo import Repository
from prereq.core.versions import Requirement, is_range, is_version, satisfies, sort_versions
from prereq.core.yamlload import YamlLoadError, load_yaml
from prereq.registry import schemas
from prereq.registry.loader import ITEMS_DIR, SourceItem

_is_version = cache(is_version)  # asked of a target's version for every item that requires it


@dataclass(frozen=True)
class Unmet:
    """A ``require`` entry whose range the working tree's version of the required item falls outside."""

    item: SourceItem  # the dependent
    index: int  # of the entry in its ``require`` list
    name: str  # the required item
    range: str
    version: str  # the required item's version in the working tree


@dataclass(frozen=True)
class Stay:
    """A dependent that keeps resolving an older published version: its range excludes the new one."""

    item: str
    name: str
    range: str
    version: str  # the working tree's, outside the range
    stays_on: str  # the highest published version the range meets

    def __str__(self) -> str:
        return f"{self.item} stays on {self.name} {self.stays_on}: its range {self.range} excludes {self.version}"


def unmet_ranges(items: Iterable[SourceItem], targets: dict[str, SourceItem]) -> Iterator[Unmet]:
    """Each valid range on an item of ``targets`` (by name) that its valid version does not meet; a
    malformed range (PRQ141), a missing item (PRQ140) or an invalid version (the target's schema
    error) is another rule's, not reported again."""
    for item in items:
        require = item.data.get("require")
        for index, text in enumerate(require if isinstance(require, list) else []):
            if not isinstance(text, str):
                continue
            requirement = Requirement.parse(text)
            spec, target = requirement.range, targets.get(requirement.name)
            if not spec or not is_range(spec) or target is None:
                continue
            version = target.data.get("version")
            if isinstance(version, str) and _is_version(version) and not satisfies(version, spec):
                yield Unmet(item, index, requirement.name, spec, version)


class PublishedVersions:
    """The versions the git history of a registry publishes, by item, read when first asked."""

    def __init__(self, root: Path, *, cache: Cache = NO_CACHE) -> None:
        self.root = root
        self.cache = cache
        self._versions: dict[str, list[str]] | None = None

    def of(self, name: str) -> list[str]:
        """The versions of ``name`` the history publishes, ascending (none outside git)."""
        if self._versions is None:
            self._versions = self._read()
        return self._versions.get(name, [])

    def _read(self) -> dict[str, list[str]]:
        repo = Repository.find(self.root)
        folder = self.root / ITEMS_DIR
        if repo is None or not folder.is_dir():
            return {}
        # Only the states the branch has been in publish: a merged branch's own commits never do.
        changes = [c for c in repo.changes(folder, first_parent=True) if c.blob and c.path.endswith(".yaml")]
        shelf = self.cache.shelf("history-versions")
        blobs = {c.blob for c in changes if c.blob}
        held = {blob: kept for blob in blobs if (kept := _kept(shelf.get(blob))) is not None}
        contents = repo.blobs(blob for blob in blobs if blob not in held)
        for blob, content in contents.items():
            held[blob] = _holds(content)
            shelf.put(blob, held[blob])
        found: dict[str, set[str]] = {}
        for change in changes:
            holds = held.get(change.blob or "")
            if holds and holds["valid"] and holds["name"] == PurePosixPath(change.path).stem:
                found.setdefault(holds["name"], set()).add(holds["version"])
        return {name: sort_versions(sorted(versions)) for name, versions in found.items()}


def _holds(content: bytes) -> dict[str, Any]:
    """What one revision of an item file publishes: its name and version, and whether today's item
    format accepts it (the build leaves out one it does not)."""
    try:
        data = load_yaml(content).data
    except YamlLoadError:
        data = None
    if not isinstance(data, dict) or not isinstance(data.get("name"), str) or not isinstance(data.get("version"), str):
        return {"name": "", "version": "", "valid": False}
    valid = is_version(data["version"]) and not schemas.check_item(data)
    return {"name": data["name"], "version": data["version"], "valid": valid}


def _kept(kept: Any) -> dict[str, Any] | None:
    """``_holds`` as the cache kept it, or None for anything else (a damaged cache: read again)."""
    try:
        return {"name": str(kept["name"]), "version": str(kept["version"]), "valid": bool(kept["valid"])}
    except (TypeError, KeyError):
        return None


def stays_on(unmet: Unmet, published: PublishedVersions) -> Stay | None:
    """The older published version ``unmet``'s dependent keeps resolving, or None when none meets its range."""
    fitting = [v for v in published.of(unmet.name) if satisfies(v, unmet.range)]
    if not fitting:
        return None
    return Stay(unmet.item.name, unmet.name, unmet.range, unmet.version, fitting[-1])


def stays(root: Path, items: Iterable[SourceItem], *, cache: Cache = NO_CACHE) -> list[Stay]:
    """Every dependent of the registry at ``root`` that stays on an older published version, for
    validation's ``ValidationResult.stays``; the history is read only when a range is unmet."""
    items = list(items)
    targets: dict[str, SourceItem] = {}
    for item in items:
        targets.setdefault(item.name, item)
    published = PublishedVersions(root, cache=cache)
    found = (stays_on(unmet, published) for unmet in unmet_ranges(items, targets))
    return [stay for stay in found if stay is not None]
