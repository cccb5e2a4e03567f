"""PRQ314: a published version of an environment or a library never changes.

Its path names its version (``environments/<name>/<version>.yaml``), so any content the git history of
that path held other than today's is a change to a published version; only the description may change.
The history is HEAD's, as ``prereq build`` publishes it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prereq.core.gitrepo import Repository
from prereq.core.versions import is_version
from prereq.core.yamlload import YamlLoadError, load_yaml
from prereq.execution.load import ENVIRONMENTS_DIR, LIBRARIES_DIR
from prereq.execution.records import Catalog, Environment, Library, Ref
from prereq.registry.rules import Problem, problem

DESCRIPTIVE = frozenset({"description"})  # what may change in a published version


def published_problems(root: Path, catalog: Catalog) -> list[Problem]:
    repo = Repository.find(root)
    if repo is None:
        return []
    problems: list[Problem] = []
    for folder, kind, records in (
        (ENVIRONMENTS_DIR, "environment", catalog.environments),
        (LIBRARIES_DIR, "library", catalog.libraries),
    ):
        if not (root / folder).is_dir():
            continue
        by_path = {repo.relative(root / record.source.rel): record for record in records.values()}
        reported: set[str] = set()
        for revision in repo.history(root / folder):  # newest first: the last commit that held other content
            record = by_path.get(revision.path)
            if record is None or revision.content is None or revision.path in reported:
                continue
            changed = _changed_key(record.data, revision.content)
            if changed is not None:
                reported.add(revision.path)
                problems.append(_problem(kind, record, changed, revision.commit, records, folder))
    return problems


def _changed_key(data: dict[str, Any], content: bytes) -> tuple[Any, ...] | None:
    """The first top-level key where ``content`` differs from ``data`` (descriptions aside); () when the
    file differs as a whole; None when it is the same."""
    try:
        old = load_yaml(content).data
    except YamlLoadError:
        return ()
    if not isinstance(old, dict):
        return ()
    for key in [*data, *(k for k in old if k not in data)]:
        if key not in DESCRIPTIVE and data.get(key) != old.get(key):
            return (key,) if key in data else ()
    return None


def _problem(
    kind: str, record: Environment | Library, where: tuple[Any, ...], commit: str, records: dict[Ref, Any], folder: str
) -> Problem:
    line, column = record.source.position(where, key=bool(where))
    return problem(
        "PRQ314",
        file=record.source.rel,
        line=line,
        column=column,
        kind=kind,
        ref=str(record.ref),
        commit=commit[:10],
        suggestion=_next_version(folder, record.ref, records),
    )


def _next_version(folder: str, ref: Ref, records: dict[Ref, Any]) -> str:
    """The next patch version of ``ref`` that no file holds yet."""
    if not is_version(ref.version):
        return f"{folder}/{ref.name}/<new version>.yaml"
    major, minor, patch = (int(part) for part in ref.version.split("-")[0].split("."))
    while True:
        patch += 1
        candidate = Ref(ref.name, f"{major}.{minor}.{patch}")
        if candidate not in records:
            return f"{folder}/{ref.name}/{candidate.version}.yaml with version: {candidate.version}"
