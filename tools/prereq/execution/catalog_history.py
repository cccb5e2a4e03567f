"""What the git history of HEAD published of the catalog's environments and libraries, as ``prereq
build`` publishes it: every version, and PRQ314 (a published version never changes).

A version's file (``environments/<name>/<version>.yaml``) may be deleted; what it published stays
published, as a deleted item stays in the index (``index.builder``), since experiments and execution
requests name versions exactly.  So the catalog's index file carries every version the history ever
held (``published_catalog``), each with its last content (the newest commit first) and the date of its
first commit.  A revision that is no YAML mapping, fails today's schema or holds another name or version
than its path is left out with a warning (an older content of the same version may still be published),
and so is an old library whose dependencies were never published: nothing could install it.

Since a path names its version, any content the history of that path held other than today's is a
change to a published version (PRQ314, ``published_problems``); only the description may change.
``versioned_revisions`` is the one walk over those files' history, for both."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from prereq.core.gitrepo import FileRevision, Repository
from prereq.core.versions import is_version
from prereq.core.yamlload import YamlLoadError, load_yaml
from prereq.execution.catalog_records import Catalog, Environment, Library, Ref
from prereq.execution.load import ENVIRONMENTS_DIR, LIBRARIES_DIR, accept
from prereq.execution.rules import problem
from prereq.registry import secretscan
from prereq.registry.rules import Problem

VERSIONED = ((ENVIRONMENTS_DIR, "environment"), (LIBRARIES_DIR, "library"))
Key = tuple[str, Ref]  # ("environment" | "library", its ref): the two kinds may share a name


@dataclass(frozen=True)
class VersionedRevision:
    """One revision of ``<folder>/<name>/<version>.yaml``, with the ref its path gives."""

    kind: str
    ref: Ref
    rel: str  # relative to the registry root
    revision: FileRevision


def versioned_revisions(
    repo: Repository, root: Path, *, rev: str = "HEAD", first_parent: bool = True
) -> Iterator[VersionedRevision]:
    """Every revision of the versioned catalog files under the registry folder ``root`` on the history of
    ``rev`` (the review reads its base's, and every commit of a pull request's range without
    ``first_parent``), newest first per folder; other files there (PRQ302's) are skipped.  By default only
    the states the branch has been in (``Repository.changes``): what publishes."""
    prefix = repo.relative(root)
    for folder, kind in VERSIONED:
        for revision in repo.history(root / folder, rev=rev, first_parent=first_parent):
            rel = revision.path if prefix == "." else revision.path.removeprefix(prefix + "/")
            parts = PurePosixPath(rel).parts
            if len(parts) == 3 and parts[2].endswith(".yaml"):
                yield VersionedRevision(kind, Ref(parts[1], parts[2].removesuffix(".yaml")), rel, revision)


@dataclass
class PublishedCatalog:
    """The catalog as the index publishes it: the working tree's records and every version only the
    history holds (``history_only``), with each version's first commit date."""

    catalog: Catalog
    prefix: str | None = None  # the registry folder relative to the repository (None: not in git)
    dates: dict[Key, str] = field(default_factory=dict)
    history_only: set[Key] = field(default_factory=set)
    warnings: list[str] = field(default_factory=list)

    def source(self, kind: str, ref: Ref, rel: str) -> str | None:
        """The record's file relative to the repository; None when only the history holds it."""
        if self.prefix is None or (kind, ref) in self.history_only:
            return None
        return rel if self.prefix == "." else f"{self.prefix}/{rel}"


def _holds(catalog: Catalog, key: Key) -> bool:
    return key[1] in (catalog.environments if key[0] == "environment" else catalog.libraries)


def _accepted(entry: VersionedRevision, content: bytes) -> tuple[Catalog | None, str | None]:
    """The revision as a record in a catalog of its own, else why it is left out."""
    try:
        loaded = load_yaml(content)
    except YamlLoadError as exc:
        return None, f"not valid YAML ({exc.issues[0].message})"
    if not isinstance(loaded.data, dict):
        return None, "not a YAML mapping"
    leaks = [leak for _, leak in secretscan.scan_document(loaded.data, render=False) if leak.literal]
    if leaks:  # never published (validate: PRQ192)
        return None, f"holds {secretscan.kinds(leaks)} (PRQ192)"
    scratch = Catalog()
    problems = accept(scratch, entry.kind, loaded, entry.rel, (entry.ref.name, entry.ref.version))
    return (None, problems[0].message) if problems else (scratch, None)


def published_catalog(root: Path, catalog: Catalog) -> PublishedCatalog:
    """``catalog`` (the working tree's, checked) with every older version its git history published."""
    found = PublishedCatalog(
        Catalog(
            environments=dict(catalog.environments),
            queues=catalog.queues,
            libraries=dict(catalog.libraries),
            rights=catalog.rights,
            groups=catalog.groups,
            rights_source=catalog.rights_source,
        )
    )
    repo = Repository.find(root)
    if repo is None:
        return found  # the index builder says once that only the current files are published
    found.prefix = repo.relative(root)
    for entry in versioned_revisions(repo, root):
        key = (entry.kind, entry.ref)
        found.dates[key] = entry.revision.date  # newest first: the last one written is the first commit
        if entry.revision.content is None or _holds(found.catalog, key):
            continue
        scratch, why = _accepted(entry, entry.revision.content)
        if scratch is None:
            found.warnings.append(f"{entry.rel} (commit {entry.revision.commit[:10]}): {why}, left out")
            continue
        found.catalog.environments.update(scratch.environments)  # the one record, of either kind
        found.catalog.libraries.update(scratch.libraries)
        found.history_only.add(key)
    _drop_uninstallable(found)
    return found


def _drop_uninstallable(found: PublishedCatalog) -> None:
    """Old libraries depending on a library no version of which was published, until none is left."""
    libraries = found.catalog.libraries
    while True:
        broken = {
            ref: next(d for d in library.depends if d not in libraries)
            for ref, library in sorted(libraries.items())
            if ("library", ref) in found.history_only and any(d not in libraries for d in library.depends)
        }
        if not broken:
            return
        for ref, missing in broken.items():
            found.warnings.append(f"library {ref}: depends on {missing}, which was never published, left out")
            del libraries[ref]
            found.history_only.discard(("library", ref))


DESCRIPTIVE = frozenset({"description"})  # what may change in a published version


def published_problems(root: Path, catalog: Catalog) -> list[Problem]:
    repo = Repository.find(root)
    if repo is None or not (catalog.environments or catalog.libraries):
        return []
    by_file: dict[str, tuple[str, Environment | Library, dict[Ref, Any]]] = {
        record.source.rel: (kind, record, records)
        for kind, records in (("environment", catalog.environments), ("library", catalog.libraries))
        for record in records.values()
    }
    problems: list[Problem] = []
    reported: set[str] = set()
    for entry in versioned_revisions(repo, root):  # newest first: the last commit that held other content
        found = by_file.get(entry.rel)
        if found is None or entry.revision.content is None or entry.rel in reported:
            continue
        kind, record, records = found
        changed = _changed_key(record.data, entry.revision.content)
        if changed is not None:
            reported.add(entry.rel)
            problems.append(_problem(kind, record, changed, entry.revision.commit, records))
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
    kind: str, record: Environment | Library, where: tuple[Any, ...], commit: str, records: dict[Ref, Any]
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
        suggestion=_next_version(record.source.rel.split("/")[0], record.ref, records),
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
