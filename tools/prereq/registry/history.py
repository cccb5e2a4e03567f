"""Credentials anywhere in the registry's git history (PRQ192).

A credential removed by a later commit is still readable in the repository, and every version an
item ever had is published from its history, so ``prereq validate`` looks at every revision of every
item and job template: each version that held a credential is reported once, with the commit that
first held it, so that its owners rotate it (the index builder leaves such versions out).  Revisions
the working tree still has byte for byte are left to PRQ190, which points at the line.

May import: the standard library, prereq.core, prereq.registry.loader/rules/secrets/suppress.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prereq.core import placeholders
from prereq.core.gitrepo import FileRevision, Repository
from prereq.core.yamlload import YamlLoadError, load_yaml
from prereq.registry import secrets
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


def revision_leaks(content: bytes) -> list[secrets.Located]:
    """The credentials of one revision of a file (none when it is not a YAML mapping)."""
    try:
        loaded = load_yaml(content)
    except YamlLoadError:
        return []
    return list(secrets.locate(loaded)) if isinstance(loaded.data, dict) else []


def _revisions(repo: Repository, root: Path) -> list[FileRevision]:
    return [
        revision
        for folder in (ITEMS_DIR, TEMPLATES_DIR)
        if (root / folder).is_dir()
        for revision in repo.history(root / folder)
        if revision.content is not None and revision.path.endswith(".yaml")
    ]


def _same_as_working_tree(path: Path, content: bytes) -> bool:
    """The file still holds ``content`` (compared only when the sizes agree: most revisions differ)."""
    try:
        return (
            path.is_file()
            and not path.is_symlink()
            and path.stat().st_size == len(content)
            and (path.read_bytes() == content)
        )
    except OSError:
        return False


def history_problems(root: Path, *, cleared: Mapping[str, set[str]] | None = None) -> list[Problem]:
    """PRQ192 for every version in the history of the registry at ``root`` that held a credential;
    none outside a git repository.  ``cleared`` (``cleared_lines``) holds, per item, the lines its
    current file suppresses PRQ190 on: the build publishes older versions whose only findings are
    those, so they are not reported either."""
    repo = Repository.find(root)
    if repo is None:
        return []
    root = root.resolve()
    held: dict[tuple[str, str], _Held] = {}
    for revision in _revisions(repo, root):  # newest first: the last one seen is the oldest
        assert revision.content is not None
        path = repo.root / revision.path
        rel = path.relative_to(root).as_posix()
        if _same_as_working_tree(path, revision.content):
            continue  # what the working tree holds is PRQ190's
        found = [f for f in revision_leaks(revision.content) if any(leak.literal for leak in f.leaks)]
        if not found:
            continue
        data = load_yaml(revision.content).data
        remaining = withheld_leaks(data, (cleared or {}).get(Path(rel).stem, set()))
        if not remaining:
            continue  # only what its owners judged no credential: published, so not reported
        version = str(data.get("version") or "")
        entry = held.setdefault((rel, version), _Held(rel, str(data.get("name") or Path(rel).stem), version))
        entry.commit, entry.line = revision.commit, found[0].line
        kinds = [leak.kind for leak in remaining]
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
        values = dict(placeholders.strings(item.data))
        for found in secrets.locate(item.yaml):
            if found.line in lines[item.rel]:
                cleared.setdefault(name, set()).update(_leak_line(values[found.path], leak) for leak in found.leaks)
    return cleared


def withheld_leaks(data: dict[str, Any], cleared: set[str]) -> list[secrets.Leak]:
    """The credentials an older version holds, but for the lines its item's current file suppresses."""
    values = dict(placeholders.strings(data)) if cleared else {}
    return [
        leak
        for path, leak in secrets.scan_document(data)
        if leak.literal and not (cleared and _leak_line(values[path], leak) in cleared)
    ]


def _leak_line(value: str, leak: secrets.Leak) -> str:
    return value.split("\n")[leak.line]  # the line of the string that holds it, as scan_text counts
