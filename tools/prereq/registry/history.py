"""Credentials anywhere in the registry's git history (PRQ192).

A credential removed by a later commit is still readable in the repository, and every version an
item ever had is published from its history, so ``prereq validate`` looks at every revision of every
item and job template: each version that held a credential is reported once, with the commit that
first held it, so that its owners rotate it (the index builder leaves such versions out).  Revisions
the working tree still has byte for byte are left to PRQ190, which points at the line.

May import: the standard library, prereq.core, prereq.registry.loader/rules/secrets.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from prereq.core.gitrepo import FileRevision, Repository
from prereq.core.yamlload import YamlLoadError, load_yaml
from prereq.registry import secrets
from prereq.registry.loader import ITEMS_DIR, TEMPLATES_DIR
from prereq.registry.rules import Problem, problem

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


def history_problems(root: Path) -> list[Problem]:
    """PRQ192 for every version in the history of the registry at ``root`` that held a credential;
    none outside a git repository."""
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
        version = str(data.get("version") or "")
        entry = held.setdefault((rel, version), _Held(rel, str(data.get("name") or Path(rel).stem), version))
        entry.commit, entry.line = revision.commit, found[0].line
        kinds = [leak.kind for located in found for leak in located.leaks if leak.literal]
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
