"""Every commit of a pull request, not only its final tree (PRQ209, PRQ211).

The build publishes every version the base branch's first-parent history holds.  A merge commit or a
squash puts only the pull request's final tree on that history, but a rebase merge (or a fast-forward)
puts each of its commits there: a version written in one commit and restored in the next would then be
published although the review, which judges the final tree, never saw it.  So each item version and
each environment or library version that a commit of ``tip..HEAD`` holds must be one the review judges:
the final tree's own (the build keeps the final content of a version the tree holds), or one the base
already publishes, as it publishes it.  Anything else is PRQ209, naming the commit.

A credential a commit wrote stays in the history once merged, whatever a later commit does: every
file of the registry folder a commit wrote is scanned as text (PRQ211), comments and files no loader
reads included; what the value scans already report (PRQ190, PRQ192, PRQ318) is not said again.

May import: prereq.core, prereq.execution, prereq.registry, prereq.review.mergebase/rules.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from prereq.core.files import is_there
from prereq.core.gitrepo import FileRevision, blob_id
from prereq.core.yamlload import LoadedYaml, YamlLoadError, load_yaml
from prereq.execution.catalog_history import VersionedRevision
from prereq.execution.catalog_records import Ref
from prereq.execution.load import RIGHTS_FILE
from prereq.registry import secretscan
from prereq.registry.history import revision_leaks
from prereq.registry.limits import MAX_FILE_BYTES
from prereq.registry.loader import ITEMS_DIR, OWNERS_FILE, TEMPLATES_DIR, SourceItem
from prereq.registry.rules import Problem
from prereq.review.mergebase import CATALOG_FOLDERS, Base, Published, behaviour, canonical, item_version
from prereq.review.rules import problem


@dataclass(frozen=True)
class _Held:
    """One version as one commit of the pull request holds it."""

    what: str  # "item", "environment", "library"
    name: str
    version: str
    rel: str  # the file, relative to the registry folder
    commit: str
    loaded: LoadedYaml


def _loaded(content: bytes | None) -> LoadedYaml | None:
    if content is None:
        return None
    try:
        loaded = load_yaml(content)
    except YamlLoadError:
        return None  # never valid, so never published
    return loaded if isinstance(loaded.data, dict) else None


def _items_held(base: Base) -> Iterator[_Held]:
    """Each item version a commit of the pull request left, as the build would read it from history: a
    mapping whose name is its file's and whose version is a string."""
    for revision in base.pull_files:
        rel = revision.path if base.prefix == "." else revision.path.removeprefix(base.prefix + "/")
        held = item_version(rel, revision.content) if rel.startswith(f"{ITEMS_DIR}/") else None
        if held is not None:
            loaded, name, version = held
            yield _Held("item", name, version, rel, revision.commit, loaded)


def _catalog_held(entries: list[VersionedRevision]) -> Iterator[_Held]:
    for entry in entries:
        loaded = _loaded(entry.revision.content)
        if loaded is not None:
            yield _Held(entry.kind, entry.ref.name, entry.ref.version, entry.rel, entry.revision.commit, loaded)


def _problem(held: _Held, base: Base, *, detail: str) -> Problem:
    line, column = held.loaded.position(("version",)) if "version" in held.loaded.data else (1, 1)
    return problem(
        "PRQ209",
        file=held.rel,
        line=line,
        column=column,
        commit=held.commit[:10],
        what=held.what,
        name=held.name,
        version=held.version,
        detail=detail,
        ref=base.ref,
    )


def intermediate_problems(base: Base, *, root: Path, head_items: dict[str, SourceItem]) -> list[Problem]:
    """PRQ209 for each version a commit of the pull request holds that neither the final tree (the working
    tree at ``root``, whose items are ``head_items``) holds nor the base published as it is there."""
    found: dict[tuple[str, str, str], Problem] = {}  # one a version: the newest commit holding it
    for held in _items_held(base):
        final = head_items.get(held.name)
        content = behaviour(held.loaded.data)
        if final is not None and final.data.get("version") == held.version:
            # The build keeps the final content of this version: its file's newest revision on the first
            # parents is the final tree's.  Another file claiming the name may be read after it.
            if final.rel == held.rel or behaviour(final.data) == content:
                continue
            detail: str | None = "with other content than the final tree's, in another file"
        else:
            detail = _detail(base.published.get((held.name, held.version)), canonical(held.loaded.data), base)
        if detail is not None:
            found.setdefault((held.what, held.name, held.version), _problem(held, base, detail=detail))
    for held in _catalog_held(base.pull_catalog):
        if (root / held.rel).is_file():
            continue  # the final tree holds this version: the head's validation judges it (PRQ314 too)
        published = base.catalog_published.get((held.what, Ref(held.name, held.version)))
        detail = _detail(published, canonical(held.loaded.data), base)
        if detail is not None:
            found.setdefault((held.what, held.name, held.version), _problem(held, base, detail=detail))
    return sorted(found.values(), key=Problem.sort_key)


def _detail(published: list[Published] | None, whole: str, base: Base) -> str | None:
    """Why the version may not be published, or None when it is, whole, what the base publishes of it
    now: its newest content (a commit after it would be newer, and its descriptions would win too)."""
    if published is None:
        return "which the pull request's final tree does not hold"
    if published[0].whole == whole:
        return None
    return f"with other content than {base.ref} publishes"


VALUES_SCANNED = (f"{ITEMS_DIR}/", f"{TEMPLATES_DIR}/", *CATALOG_FOLDERS, RIGHTS_FILE)  # PRQ192's, in history too


def _value_lines(rel: str, revision: FileRevision, root: Path) -> set[int]:
    """The lines of a revision whose credentials a value scan reports: the history's (PRQ192) for the
    registry's YAML files, and the working tree's (PRQ190, PRQ318) for owners.yaml as it is now."""
    current = (
        rel == OWNERS_FILE
        and is_there(root / rel, folder=False)
        and blob_id((root / rel).read_bytes()) == revision.blob
    )
    if not (rel.endswith(".yaml") and (rel.startswith(VALUES_SCANNED) or current)):
        return set()
    return {found.line for found in revision_leaks(revision.content or b"")}


def commit_secret_problems(base: Base, *, root: Path) -> list[Problem]:
    """PRQ211 for each file of the registry folder that a commit of the pull request wrote a credential
    into, at its first line holding one, naming the oldest commit that held it."""
    found: dict[str, Problem] = {}
    for revision in base.pull_files:  # newest first: the last one written is the oldest commit
        content = revision.content or b""
        if len(content) > MAX_FILE_BYTES or b"\0" in content:
            continue  # not text a person wrote (the loaders refuse such files: PRQ109)
        leaks = [leak for leak in secretscan.scan_text(content.decode("utf-8", errors="replace")) if leak.literal]
        if not leaks:
            continue
        rel = revision.path if base.prefix == "." else revision.path.removeprefix(base.prefix + "/")
        covered = _value_lines(rel, revision, root)
        left = [leak for leak in leaks if leak.line + 1 not in covered]
        if left:
            at = left[0].line + 1
            kinds = secretscan.kinds(left)
            commit = revision.commit[:10]
            found[rel] = problem("PRQ211", file=rel, line=at, column=1, commit=commit, kinds=kinds, ref=base.ref, at=at)
    return sorted(found.values(), key=Problem.sort_key)
