"""The base of a review: the merge base of a ref, the registry as it was there, and every version its
history ever published.

The base tree is read from git in one ``ls-tree`` and the persistent ``cat-file`` process, written to a
temporary folder and loaded by the ordinary loaders (the execution catalog's too), so the base is read
exactly as validation reads the head.  What was published is read from the base branch's history up to
its tip, along its first parents (the states the branch has been in: what the build publishes).  Every
commit of the pull request itself is read too, for ``commits``.  A shallow clone or a missing ref is an
error that says how to fetch the history: a review that silently saw less history would let a
republished version through."""

from __future__ import annotations

import json
import shlex
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from prereq.core.errors import PrereqError
from prereq.core.gitrepo import FileRevision, Repository
from prereq.core.yamlload import LoadedYaml, YamlLoadError, load_yaml
from prereq.execution.catalog_history import DESCRIPTIVE, VersionedRevision, versioned_revisions
from prereq.execution.catalog_records import Catalog, Ref
from prereq.execution.load import ENVIRONMENTS_DIR, LIBRARIES_DIR, QUEUES_DIR, RIGHTS_FILE, load_catalog
from prereq.registry.loader import ITEMS_DIR, OWNERS_FILE, TEMPLATES_DIR, LoadedRegistry, SourceItem, load_registry
from prereq.review.result import DOCS_KEYS

CATALOG_FOLDERS = (f"{ENVIRONMENTS_DIR}/", f"{LIBRARIES_DIR}/", f"{QUEUES_DIR}/")  # and RIGHTS_FILE

FETCH_HINT = "in GitHub Actions, give actions/checkout 'fetch-depth: 0'"


def fetch_hint(remotes: list[str]) -> str:
    """How to fetch the whole history, naming a remote this clone has (origin when there is one)."""
    remote = "origin" if "origin" in remotes else (remotes[0] if remotes else None)
    if remote is None:
        return f"fetch the whole history into this clone; {FETCH_HINT}"
    return f"fetch the whole history: git fetch --unshallow {shlex.quote(remote)} ({FETCH_HINT})"


def missing_ref_hint(ref: str, remotes: list[str]) -> str:
    """How to fetch ``ref``: quoted for the shell, since the ref is whatever --base was given, and from a
    remote this clone has (a ref 'REMOTE/BRANCH' names its remote; else origin, when there is one)."""
    remote, _, branch = ref.partition("/")
    if not (branch and remote in remotes):
        remote, branch = "origin", ref
    if remote not in remotes:  # no origin to suggest: name the remotes there are, or how to add one
        if remotes:
            return (
                f"fetch it from the remote it lives on (this clone has {', '.join(remotes)}): "
                f"git fetch REMOTE BRANCH, then pass --base REMOTE/BRANCH; {FETCH_HINT}"
            )
        return f"this clone has no remote: git remote add NAME URL, then git fetch NAME; {FETCH_HINT}"
    command = f"git fetch {shlex.quote(remote)} {shlex.quote(branch)}"
    then = "" if ref.startswith(f"{remote}/") else f", then pass --base {shlex.quote(f'{remote}/{branch}')}"
    return f"fetch it: {command}{then}; {FETCH_HINT}"


@dataclass(frozen=True)
class Published:
    """One version of an item as a commit on the base's history held it."""

    commit: str
    content: str  # the version's behaviour: its keys except the descriptive ones, canonical JSON
    whole: str = ""  # every key, canonical JSON: what the index shows of it (descriptions, tags too)


@dataclass
class Base:
    ref: str
    commit: str  # the merge base of HEAD and ref: what the pull request changes is compared with it
    registry: LoadedRegistry  # the registry as of ``commit``
    items: dict[str, SourceItem]  # by name (the first file claiming a name, as validation does)
    texts: dict[str, bytes]  # registry-relative path -> content as of ``commit``
    # Every version the base branch ever published, up to its tip (not only up to the merge base: a
    # version the base published after the branch point must not come back with other content either).
    published: dict[tuple[str, str], list[Published]] = field(default_factory=dict)  # newest first
    tip: str = ""  # the commit ``ref`` names
    prefix: str = "."  # the registry folder relative to the repository root
    paths: list[str] = field(default_factory=list)  # every repository path the working tree changes since ``commit``
    catalog: Catalog = field(default_factory=Catalog)  # the execution catalog as of ``commit``
    # Every version of an environment or a library the base branch published, as ``published`` for items.
    catalog_published: dict[tuple[str, Ref], list[Published]] = field(default_factory=dict)
    # Every file of the registry folder each commit of the pull request (``tip..HEAD``, merges against
    # each parent) wrote, and the versions of the catalog among them: a rebase merge publishes every one
    # of those states.
    pull_files: list[FileRevision] = field(default_factory=list)
    pull_catalog: list[VersionedRevision] = field(default_factory=list)


def canonical(data: dict[str, Any]) -> str:
    """A version as a whole, for telling whether two are the same, descriptions and all."""
    return json.dumps(data, sort_keys=True, default=str)


def behaviour(data: dict[str, Any]) -> str:
    """What a version does, for comparing two of them: every key but the descriptive ones."""
    return json.dumps({k: v for k, v in data.items() if k not in DOCS_KEYS}, sort_keys=True, default=str)


def _repository(root: Path, ref: str) -> tuple[Repository, str, str]:
    """The repository, the commit ``ref`` names and the merge base of HEAD and it."""
    repo = Repository.find(root)
    if repo is None:
        raise PrereqError(
            f"{root} is not in a git repository, so there is no {ref!r} to compare with",
            hint="run 'prereq validate --base' in a clone of the registry's repository",
        )
    if repo.is_shallow():
        raise PrereqError(
            "this clone is shallow: the base's history, and the versions it published, are not here",
            hint=fetch_hint(repo.remotes()),
        )
    tip = repo.resolve(ref)
    if tip is None:
        raise PrereqError(f"the base {ref!r} is not in this clone", hint=missing_ref_hint(ref, repo.remotes()))
    merge_base = repo.merge_base(tip)
    if merge_base is None:
        raise PrereqError(
            f"HEAD and {ref!r} share no history", hint=f"check the ref's name; {fetch_hint(repo.remotes())}"
        )
    return repo, tip, merge_base


def _load_tree(files: dict[str, bytes]) -> tuple[LoadedRegistry, Catalog]:
    """The base's files, loaded by the ordinary loaders (the registry's, the catalog's) from a temporary folder."""
    with tempfile.TemporaryDirectory(prefix="prereq-base-") as temp:
        folder = Path(temp)
        (folder / ITEMS_DIR).mkdir()
        for rel, content in files.items():
            path = folder / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
        return load_registry(folder), load_catalog(folder)[0]


def catalog_behaviour(data: dict[str, Any]) -> str:
    """What a version of an environment or a library is, for comparing two (PRQ314's keys: all but the
    description)."""
    return json.dumps({k: v for k, v in data.items() if k not in DESCRIPTIVE}, sort_keys=True, default=str)


def _catalog_published(repo: Repository, root: Path, tip: str) -> dict[tuple[str, Ref], list[Published]]:
    found: dict[tuple[str, Ref], list[Published]] = {}
    for entry in versioned_revisions(repo, root, rev=tip):
        if entry.revision.content is None:
            continue
        try:
            data = load_yaml(entry.revision.content).data
        except YamlLoadError:
            continue  # never valid, so never published
        if isinstance(data, dict) and data.get("name") == entry.ref.name and data.get("version") == entry.ref.version:
            published = Published(entry.revision.commit, catalog_behaviour(data), canonical(data))
            found.setdefault((entry.kind, entry.ref), []).append(published)
    return found


def item_version(path: str, content: bytes | None) -> tuple[LoadedYaml, str, str] | None:
    """A revision of an item file as the build reads history: (the file loaded, its name, its version)
    when it is a YAML mapping whose name is its file's and whose version is a string; else None (never
    published)."""
    if content is None or not path.endswith(".yaml"):
        return None
    try:
        loaded = load_yaml(content)
    except YamlLoadError:
        return None
    data, stem = loaded.data, PurePosixPath(path).stem
    if not isinstance(data, dict) or data.get("name") != stem or not isinstance(data.get("version"), str):
        return None
    return loaded, stem, data["version"]


def _published(repo: Repository, root: Path, tip: str) -> dict[tuple[str, str], list[Published]]:
    """Every (name, version) the base branch's history ever held, up to its ``tip``, with what each
    looked like, newest first."""
    found: dict[tuple[str, str], list[Published]] = {}
    for revision in repo.history(root / ITEMS_DIR, rev=tip, first_parent=True):
        held = item_version(revision.path, revision.content)
        if held is not None:
            loaded, name, version = held
            published = Published(revision.commit, behaviour(loaded.data), canonical(loaded.data))
            found.setdefault((name, version), []).append(published)
    return found


def open_base(root: Path, ref: str) -> Base:
    """The base of a review of the registry folder ``root`` against ``ref``; a PrereqError (exit 2)
    when there is no such base in this clone."""
    repo, tip, commit = _repository(root, ref)
    prefix = repo.relative(root)
    kept = (f"{ITEMS_DIR}/", f"{TEMPLATES_DIR}/")
    texts: dict[str, bytes] = {}
    for path, content in repo.files_at(commit, root).items():
        rel = path if prefix == "." else path.removeprefix(prefix + "/")
        item_file = rel.startswith(kept) and rel.count("/") == 1
        if rel in (OWNERS_FILE, RIGHTS_FILE) or item_file or rel.startswith(CATALOG_FOLDERS):
            texts[rel] = content
    registry, catalog = _load_tree(texts)
    items: dict[str, SourceItem] = {}
    for item in registry.items:
        items.setdefault(item.name, item)
    return Base(
        ref=ref,
        commit=commit,
        registry=registry,
        items=items,
        texts=texts,
        published=_published(repo, root, tip),
        tip=tip,
        prefix=prefix,
        paths=repo.changed_paths(commit),
        catalog=catalog,
        catalog_published=_catalog_published(repo, root, tip),
        pull_catalog=list(versioned_revisions(repo, root, rev=f"{tip}..HEAD", first_parent=False)),
        pull_files=[revision for revision in repo.history(root, rev=f"{tip}..HEAD") if revision.content is not None],
    )
