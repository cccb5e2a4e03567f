"""Credentials anywhere in the registry's git history (PRQ192).

A credential removed by a later commit is still readable in the repository, and every version an
item ever had is published from its history, so ``prereq validate`` looks at every revision of every
item and job template: each version that held a credential is reported once, with the commit that
first held it, so that its owners rotate it (the index builder leaves such versions out).  Revisions
the working tree still has byte for byte are left to PRQ190, which points at the line.  One
``git log`` lists the blob each commit left; what a blob holds (a pure function of its content) is
kept by its id across runs, so a run reads from git only the blobs no earlier run scanned.

May import: the standard library, prereq.core, prereq.registry.loader/rules/secretscan/suppress.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prereq.core.files import NO_CACHE, Cache, Shelf
from prereq.core.gitrepo import FileChange, Repository
from prereq.core.yamlload import YamlLoadError, load_yaml
from prereq.registry import secretscan
from prereq.registry.loader import ITEMS_DIR, TEMPLATES_DIR, SourceItem
from prereq.registry.rules import Problem, problem
from prereq.registry.suppress import Suppressed

HISTORY_RULES = ("PRQ192",)  # reported here, beside the checks' (a test holds each rule to one place)


@dataclass
class _Held:
    """One file's version that held credentials, in the oldest commit seen so far."""

    rel: str
    name: str
    version: str
    commit: str = ""
    line: int = 0
    kinds: list[str] = field(default_factory=list)


def revision_leaks(content: bytes) -> list[secretscan.Located]:
    """The credentials of one revision of a file as the build would publish it (none when it is not a
    YAML mapping): in its strings and keys, in its strings with its own parameters filled in, and in the
    comments of a job template (an OpenPAI job, ``taskRoles``: published as written)."""
    try:
        loaded = load_yaml(content)
    except YamlLoadError:
        return []
    if not isinstance(loaded.data, dict):
        return []
    found = list(secretscan.place(loaded, secretscan.scan_document(loaded.data)))
    if "taskRoles" in loaded.data:
        found += secretscan.locate_comments(content.decode("utf-8", errors="replace"), loaded.data)
    return found


def _line_digest(line: str) -> str:
    """What is kept of a line holding a credential: enough to know it again, nothing to read it by."""
    return hashlib.sha256(line.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _findings(content: bytes | None) -> dict[str, Any]:
    """What ``history_problems`` needs of one revision, a pure function of its content (kept by blob id):
    nothing for one without a literal credential; else its name and version, the line of its first
    credential, and each credential's kind beside a digest of the line of text holding it."""
    found = [f for f in revision_leaks(content or b"") if any(leak.literal for leak in f.leaks)]
    if not found:
        return {}
    data = load_yaml(content or b"").data
    leaks = [[_line_digest(leak.text), leak.kind] for each in found for leak in each.leaks if leak.literal]
    name, version = data.get("name"), data.get("version")
    line = min(each.line for each in found)
    return {"name": str(name or ""), "version": str(version or ""), "line": line, "leaks": leaks}


def _scanned(repo: Repository, changes: list[FileChange], shelf: Shelf) -> dict[str, dict[str, Any]]:
    """``_findings`` of each blob the changes left, those ``shelf`` kept read from it, the others from
    git in one pass (and kept)."""
    blobs = {change.blob for change in changes if change.blob}
    scanned = {blob: kept for blob in blobs if (kept := _kept_findings(shelf.get(blob))) is not None}
    contents = repo.blobs(blob for blob in blobs if blob not in scanned)
    for blob in blobs - set(scanned):
        scanned[blob] = _findings(contents.get(blob))
        if blob in contents:  # one git could not give (a partial clone's) may come later
            shelf.put(blob, scanned[blob])
    return scanned


def _kept_findings(kept: Any) -> dict[str, Any] | None:
    """``_findings`` as the cache kept it, or None for anything else (a damaged cache: scanned again)."""
    if kept == {}:
        return kept
    try:
        leaks = [[str(line), str(kind)] for line, kind in kept["leaks"]]
        return {"name": str(kept["name"]), "version": str(kept["version"]), "line": int(kept["line"]), "leaks": leaks}
    except (TypeError, ValueError, KeyError):
        return None


def history_problems(
    root: Path,
    *,
    cleared: Mapping[str, set[str]] | None = None,
    current: Mapping[str, str] | None = None,
    cache: Cache = NO_CACHE,
    rev: str = "HEAD",
    folders: tuple[str, ...] = (ITEMS_DIR, TEMPLATES_DIR),
) -> list[Problem]:
    """PRQ192 for every version in the history of the registry at ``root`` that held a credential;
    none outside a git repository.  ``cleared`` (``cleared_lines``) holds, per item, the lines its
    current file suppresses PRQ190 on: the build publishes older versions whose only findings are
    those, so they are not reported either.  ``current`` holds the blob id of each file as the working
    tree has it, by its path in the registry: a revision still there is PRQ190's.  What each blob holds
    is kept in ``cache``.  ``rev`` limits the history read (a review reads its pull request's commits,
    ``BASE..HEAD``); ``folders`` (or files) are what is read, relative to ``root``: items and job
    templates by default, the execution catalog's for ``prereq.execution``."""
    repo = Repository.find(root)
    if repo is None:
        return []
    root = root.resolve()
    inside = root.relative_to(repo.root).as_posix()  # git names paths from the repository's root
    prefix = "" if inside == "." else inside + "/"
    changes = [
        change
        for folder in folders
        if (root / folder).exists()
        for change in repo.changes(root / folder, rev=rev)
        if change.blob
        and change.path.endswith(".yaml")
        and change.blob != (current or {}).get(change.path.removeprefix(prefix))  # the working tree's: PRQ190's
    ]
    scanned = _scanned(repo, changes, cache.shelf("history-secrets"))
    held: dict[tuple[str, str], _Held] = {}
    for change in changes:  # newest first: the last one seen is the oldest
        found = scanned[change.blob or ""]
        rel = change.path.removeprefix(prefix)
        lines = {_line_digest(line) for line in (cleared or {}).get(Path(rel).stem, set())}
        kinds = [kind for line, kind in found.get("leaks", []) if line not in lines]
        if not kinds:
            continue  # no credential, or only what its owners judged none: published, so not reported
        entry = held.setdefault((rel, found["version"]), _Held(rel, found["name"] or Path(rel).stem, found["version"]))
        entry.commit, entry.line = change.commit, found["line"]
        entry.kinds = list(dict.fromkeys([*entry.kinds, *kinds]))
    return [
        problem(
            "PRQ192",
            file=entry.rel,
            name=entry.name,
            version=f" {entry.version}" if entry.version else "",
            commit=entry.commit[:10],
            at=entry.line,
            kinds=" and ".join(entry.kinds),
        )
        for entry in held.values()
    ]


def cleared_lines(items: Mapping[str, SourceItem], suppressed: Iterable[Suppressed]) -> dict[str, set[str]]:
    """Per item, the lines of text whose credential findings its current file suppresses (PRQ190, by
    ``suppress:`` or a comment): its owners judged them no credential, so an older version holding the
    same line is not withheld for it.  A finding on any other line still withholds the version."""
    lines: dict[str, set[int]] = {}
    for each in suppressed:
        if each.problem.rule == "PRQ190" and each.problem.line is not None:
            lines.setdefault(each.problem.file or "", set()).add(each.problem.line)
    cleared: dict[str, set[str]] = {}
    for name, item in items.items():
        if item.rel not in lines:
            continue
        for found in secretscan.locate(item.yaml):
            if found.line in lines[item.rel]:
                cleared.setdefault(name, set()).update(leak.text for leak in found.leaks)
    return cleared


def withheld_leaks(data: dict[str, Any], cleared: set[str]) -> list[secretscan.Leak]:
    """The credentials an older version holds, but for the lines its item's current file suppresses."""
    return [leak for _, leak in secretscan.scan_document(data) if leak.literal and leak.text not in cleared]
