"""The base of a review: the merge base of a ref, the registry as it was there, and every version its
history ever published.

The base tree is read from git in one ``ls-tree`` and the persistent ``cat-file`` process, written to a
temporary folder and loaded by the ordinary loader, so the base is read exactly as validation reads
the head.  A shallow clone or a missing ref is an error that says how to fetch the history: a review
that silently saw less history would let a republished version through."""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from prereq.core.errors import PrereqError
from prereq.core.gitrepo import Repository
from prereq.core.yamlload import YamlLoadError, load_yaml
from prereq.registry.loader import ITEMS_DIR, OWNERS_FILE, TEMPLATES_DIR, LoadedRegistry, SourceItem, load_registry
from prereq.review.records import DOCS_KEYS

FETCH_HINT = (
    "fetch the whole history: 'git fetch --unshallow origin' (in GitHub Actions, give actions/checkout "
    "'fetch-depth: 0')"
)


@dataclass(frozen=True)
class Published:
    """One version of an item as a commit on the base's history held it."""

    commit: str
    content: str  # the version's behaviour: its keys except the descriptive ones, canonical JSON


@dataclass
class Base:
    ref: str
    commit: str  # the merge base of HEAD and ref
    registry: LoadedRegistry  # the registry as of ``commit``
    items: dict[str, SourceItem]  # by name (the first file claiming a name, as validation does)
    texts: dict[str, bytes]  # registry-relative path -> content as of ``commit``
    published: dict[tuple[str, str], list[Published]] = field(default_factory=dict)  # newest first


def behaviour(data: dict[str, Any]) -> str:
    """What a version does, for comparing two of them: every key but the descriptive ones."""
    return json.dumps({k: v for k, v in data.items() if k not in DOCS_KEYS}, sort_keys=True, default=str)


def _repository(root: Path, ref: str) -> tuple[Repository, str]:
    repo = Repository.find(root)
    if repo is None:
        raise PrereqError(
            f"{root} is not in a git repository, so there is no {ref!r} to compare with",
            hint="run 'prereq validate --base' in a clone of the registry's repository",
        )
    if repo.is_shallow():
        raise PrereqError(
            "this clone is shallow: the base's history, and the versions it published, are not here",
            hint=FETCH_HINT,
        )
    commit = repo.resolve(ref)
    if commit is None:
        raise PrereqError(
            f"the base {ref!r} is not in this clone",
            hint=f"fetch it ('git fetch origin {ref.removeprefix('origin/')}'), or {FETCH_HINT}",
        )
    merge_base = repo.merge_base(commit)
    if merge_base is None:
        raise PrereqError(f"HEAD and {ref!r} share no history", hint=f"check the ref's name; {FETCH_HINT}")
    return repo, merge_base


def _load_tree(files: dict[str, bytes]) -> LoadedRegistry:
    """The base's files, loaded by the ordinary loader from a temporary folder."""
    with tempfile.TemporaryDirectory(prefix="prereq-base-") as temp:
        folder = Path(temp)
        (folder / ITEMS_DIR).mkdir()
        for rel, content in files.items():
            path = folder / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
        return load_registry(folder)


def _published(repo: Repository, root: Path, commit: str) -> dict[tuple[str, str], list[Published]]:
    """Every (name, version) the base's history ever held, with what each looked like, newest first."""
    found: dict[tuple[str, str], list[Published]] = {}
    for revision in repo.history(root / ITEMS_DIR, rev=commit):
        if revision.content is None or not revision.path.endswith(".yaml"):
            continue
        try:
            data = load_yaml(revision.content).data
        except YamlLoadError:
            continue  # never valid, so never published
        stem = PurePosixPath(revision.path).stem
        if isinstance(data, dict) and data.get("name") == stem and isinstance(data.get("version"), str):
            found.setdefault((stem, data["version"]), []).append(Published(revision.commit, behaviour(data)))
    return found


def open_base(root: Path, ref: str) -> Base:
    """The base of a review of the registry folder ``root`` against ``ref``; a PrereqError (exit 2)
    when there is no such base in this clone."""
    repo, commit = _repository(root, ref)
    prefix = repo.relative(root)
    kept = (f"{ITEMS_DIR}/", f"{TEMPLATES_DIR}/")
    texts: dict[str, bytes] = {}
    for path, content in repo.files_at(commit, root).items():
        rel = path if prefix == "." else path.removeprefix(prefix + "/")
        if rel == OWNERS_FILE or (rel.startswith(kept) and rel.count("/") == 1):
            texts[rel] = content
    registry = _load_tree(texts)
    items: dict[str, SourceItem] = {}
    for item in registry.items:
        items.setdefault(item.name, item)
    return Base(
        ref=ref,
        commit=commit,
        registry=registry,
        items=items,
        texts=texts,
        published=_published(repo, root, commit),
    )
