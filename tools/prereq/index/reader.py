"""Reading a published index: from a build folder or an http(s) URL.

This is the API that job editing, the CLI's search/show and other programs use:
load the root, fetch per-item files on demand (checked against their sha256),
and resolve a selection of ``name[@range]`` to one ordered closure.  Given a
``trust.Trust``, the root must carry a signature by one of its allowed signers
(``index.json.sig``), and a file the root's sha256 does not match is refused as tampered.
Over http(s) each file arrives within a deadline and a cap for its kind (``fetch``).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from prereq.core.errors import PrereqError
from prereq.core.files import cannot_read, is_there, read_regular
from prereq.core.versions import Requirement, fold_name, is_range, is_version, sort_versions
from prereq.index import search as ranking
from prereq.index import trust as signing
from prereq.index.documents import ItemDocument, Root, RootEntry, VersionDocument
from prereq.index.fetch import Fetching, NotFound, fetch, size_text
from prereq.index.resolver import NoVersionFits, choose_versions
from prereq.openpai.needs import form_needs
from prereq.registry import schemas
from prereq.registry.rules import RULES
from prereq.registry.settings import repository_root

ROOT_FILE = signing.ROOT_FILE


def _api_base(source: str | Path) -> str:
    text = str(source).rstrip("/")
    if text.endswith("/" + ROOT_FILE):
        text = text[: -len(ROOT_FILE) - 1]
    if _is_url(text):
        return text if text.endswith("/api/v1") else text + "/api/v1"
    path = Path(text)
    if is_there(path / ROOT_FILE, folder=False):
        return str(path)
    if is_there(path / "api" / "v1" / ROOT_FILE, folder=False):
        return str(path / "api" / "v1")
    raise PrereqError(
        f"no index found at {source}", hint="run 'prereq build' first, or pass --index with a build folder or URL"
    )


def index_source(explicit: str | None, *, recorded: str | None = None, base_dir: Path | None = None) -> str:
    """Which index to read: ``explicit`` (a --index), else $PREREQ_INDEX, else ``recorded`` (the one a job
    records; a relative folder is looked for from the current folder, then from ``base_dir``), else the
    build/site of the repository around the current folder, wherever in it prereq runs."""
    if explicit:
        return explicit
    if os.environ.get("PREREQ_INDEX"):
        return os.environ["PREREQ_INDEX"]
    if recorded:
        if (
            base_dir is not None
            and not recorded.startswith(("http://", "https://"))
            and not Path(recorded).is_absolute()
            and not Path(recorded).exists()
            and (base_dir / recorded).exists()
        ):
            return str(base_dir / recorded)
        return recorded
    return str(repository_root(Path.cwd()) / "build" / "site")


MAX_FILE_BYTES = 256 << 20  # the root: about 80 MiB at 100,000 items; any index file read from a folder
MAX_ITEM_BYTES = 64 << 20  # one item's file over http(s), every version of it (a registry file is at most 1 MiB)
MAX_SIGNATURE_BYTES = 64 << 10  # index.json.sig over http(s): an armoured SSHSIG, a few KiB
DEADLINE_SECONDS = 60.0  # for one file over http(s), however slowly it arrives ($PREREQ_HTTP_TIMEOUT)


def _is_url(base: str) -> bool:
    return base.startswith(("http://", "https://"))


def _cap(rel: str, fetching: Fetching) -> tuple[int, str]:
    """The most bytes the index file ``rel`` may hold over http(s), and which cap that is."""
    if fetching.max_bytes is not None:
        return fetching.max_bytes, f"{size_text(fetching.max_bytes)}, the cap set for every index file"
    if rel == ROOT_FILE:
        default, what = MAX_FILE_BYTES, "the root index"
    elif rel == signing.SIGNATURE_FILE:
        default, what = MAX_SIGNATURE_BYTES, "its signature"
    else:
        default, what = MAX_ITEM_BYTES, "an index file but the root"
    return default, f"{size_text(default)}, the cap for {what}"


def _read(base: str, rel: str, fetching: Fetching) -> bytes:
    if _is_url(base):
        cap, capped = _cap(rel, fetching)
        return fetch(f"{base}/{rel}", deadline=fetching.deadline or DEADLINE_SECONDS, cap=cap, capped=capped)
    path = Path(base) / rel
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise PrereqError(f"{path} is larger than {size_text(MAX_FILE_BYTES)}", hint="rebuild the index")
        return read_regular(path, what="index file")
    except OSError as exc:
        raise cannot_read(path, exc, otherwise="rebuild the index with 'prereq build'") from None


def _signature(base: str, fetching: Fetching) -> bytes | None:
    """The root's signature file; None when there is none (a local file missing, or an HTTP 404)."""
    if not _is_url(base) and not is_there(Path(base) / signing.SIGNATURE_FILE, folder=False):
        return None
    try:
        return _read(base, signing.SIGNATURE_FILE, fetching)
    except NotFound:
        return None


@dataclass(frozen=True)
class ClosureItem:
    """One entry of a resolved closure."""

    name: str
    version: str
    openpai: dict[str, Any]
    digest: str
    required_by: tuple[str, ...]  # the selected-or-required items that pulled it in
    selected: bool
    deprecated: dict[str, Any] | None = None
    needs: dict[str, list[str]] = field(default_factory=dict)  # what it reads from the job (openpai.needs)
    conflicts: tuple[str, ...] = ()  # items and runtime plugins it must not run beside, as its author wrote


def _parse(base: str, rel: str, kind: str, body: bytes) -> Any:
    """Check one index file, read from ``base``, against the published index schema."""
    where = f"{base}/{rel}"
    try:
        document = json.loads(body)
    except (ValueError, RecursionError):  # RecursionError: nested deeper than any index prereq writes
        raise PrereqError(f"{where} is not JSON", hint="rebuild the index with 'prereq build'") from None
    found = document.get("format") if isinstance(document, dict) else None
    if kind == "root" and found != schemas.INDEX_FORMAT:
        raise PrereqError(
            f"{where} is in format {found if isinstance(found, str) and found else 'unknown'};"
            f" this prereq reads {schemas.INDEX_FORMAT}",
            hint="rebuild the index with this prereq's 'prereq build', or use the prereq that built it",
        )
    try:
        problems = schemas.index_problems(document, kind)
    except UnicodeEncodeError:  # a lone surrogate ("\ud800" in JSON) is no text a build writes
        problems = ["it holds a string that is not Unicode text (a lone surrogate)"]
    if problems:
        raise PrereqError(
            f"{where} is not a valid prereq index file: {problems[0]}",
            hint=f"rebuild it with 'prereq build' (format {schemas.INDEX_FORMAT})",
        )
    return document


@dataclass
class Index:
    """A published index; per-item files are read on demand and kept in a bounded cache."""

    base: str
    root: Root
    cache_size: int = 4096
    signed_by: str | None = None  # the allowed signer that signed the root, when a trust setting asked
    fetching: Fetching = field(default_factory=Fetching)  # over http(s): each file's deadline and cap

    def __post_init__(self) -> None:
        self.entries: dict[str, RootEntry] = {entry["name"]: entry for entry in self.root["items"]}
        self.document = lru_cache(maxsize=self.cache_size)(self._read_document)

    @classmethod
    def load(
        cls,
        source: str | Path,
        *,
        cache_size: int = 4096,
        trust: signing.Trust | None = None,
        fetching: Fetching | None = None,
    ) -> Index:
        """The index at ``source``; with ``trust``, only when one of its allowed signers signed the root.
        Over http(s), each file it reads arrives within ``fetching``'s deadline and cap."""
        base = _api_base(source)
        fetching = (fetching or Fetching()).settled(deadline=DEADLINE_SECONDS) if _is_url(base) else Fetching()
        body = _read(base, ROOT_FILE, fetching)
        signed_by = None if trust is None else signing.check_root(base, body, _signature(base, fetching), trust)
        root = _parse(base, ROOT_FILE, "root", body)
        return cls(base=base, root=root, cache_size=cache_size, signed_by=signed_by, fetching=fetching)

    def read_file(self, rel: str, kind: str) -> Any:
        """Another file of this index (``rel`` below api/v1), checked against the index schema's ``kind``
        (the execution catalog: ``execution/catalog.json``, ``execution``).  No sha256 in the root
        covers it, so a signed index's reader refuses it."""
        if self.signed_by is not None:
            raise signing.not_covered(self.base, rel)
        return _parse(self.base, rel, kind, _read(self.base, rel, self.fetching))

    def _read_document(self, name: str) -> ItemDocument:
        entry = self.entries.get(name)
        if entry is None:
            close = [n for n in self.entries if fold_name(n) == fold_name(name)]
            hint = f"did you mean {close[0]!r}?" if close else "search with 'prereq search WORD'"
            raise PrereqError(f"no prerequisite named {name!r} in the index", hint=hint)
        body = _read(self.base, entry["path"], self.fetching)
        if hashlib.sha256(body).hexdigest() != entry["sha256"]:
            if self.signed_by is not None:
                raise signing.tampered(self.base, entry["path"])
            raise PrereqError(
                f"{entry['path']} does not match the sha256 in {ROOT_FILE}",
                hint="the index changed while reading it; run the command again",
            )
        return _parse(self.base, entry["path"], "item", body)

    def versions(self, name: str) -> list[str]:
        return sort_versions([v["version"] for v in self.document(name)["versions"]])

    def version(self, name: str, version: str | None = None) -> VersionDocument:
        """One published version; the latest when ``version`` is None."""
        documents = {v["version"]: v for v in self.document(name)["versions"]}
        chosen = version or self.versions(name)[-1]
        if chosen not in documents:
            published = "published: " + ", ".join(self.versions(name))
            if not is_version(chosen) and is_range(chosen):  # as 'job add' takes
                raise PrereqError(f"{name}@{chosen}: a version is needed here, not a range", hint=published)
            raise PrereqError(f"{name} has no published version {chosen}", hint=published)
        return documents[chosen]

    def search(self, query: str) -> list[RootEntry]:
        """Items matching every word of ``query``, ranked as the site ranks them (``prereq.index.search``)."""
        return self.find(query).entries  # type: ignore[return-value]  # the root's own entries

    def find(self, query: str) -> ranking.Found:
        """``search`` with the ranking tiers and the words searched instead of a query that found nothing."""
        labels = ranking.labels_of(self.root)
        return ranking.search([ranking.Record.of(entry, labels(entry)) for entry in self.root["items"]], query)

    def closure(self, selections: list[str], *, locked: dict[str, str] | None = None) -> list[ClosureItem]:
        """Expand ``name[@range]`` selections into one ordered closure.

        A requirement shared by several items gets the highest version that
        meets every range; ``locked`` pins versions (a job's lock) when they
        still meet them."""
        requests = [Requirement.parse(text) for text in selections]
        for request in requests:
            if request.range and not is_range(request.range):
                raise PrereqError(f"{request} has an invalid version range", hint=RULES["PRQ141"].hint)
        try:
            resolution = choose_versions(requests, versions_of=self.versions, requires_of=self._requires, locked=locked)
        except NoVersionFits as exc:
            raise PrereqError(exc.message, hint=exc.hint) from None
        selected = {r.name for r in requests}
        resolved = []
        for name in resolution.order:
            version = resolution.versions[name]
            document = self.version(name, version)
            resolved.append(
                ClosureItem(
                    name=name,
                    version=version,
                    openpai=document["openpai"],
                    digest=document["digest"],
                    required_by=tuple(resolution.pulled_by(name)),
                    selected=name in selected,
                    deprecated=document["item"].get("deprecated"),
                    needs=document.get("needs") or form_needs(document["openpai"]),  # an index from before needs
                    conflicts=_names(document["item"].get("conflicts")),
                )
            )
        return resolved

    def _requires(self, name: str, version: str) -> list[Requirement]:
        """A version's ``require``: none, or a list of names (the index schema does not check the item as
        written, and anything else stopped ``job add`` with a traceback)."""
        texts = self.version(name, version)["item"].get("require")
        if texts is None:
            return []
        if not isinstance(texts, list) or not all(isinstance(text, str) for text in texts):
            raise PrereqError(
                f"{self.base}/{self.entries[name]['path']}: {name} {version}'s require is not a list of names",
                hint="rebuild the index with 'prereq build'",
            )
        return [Requirement.parse(text) for text in texts]


def _names(value: Any) -> tuple[str, ...]:
    """A list of names as an index gives it; anything else (the file is not vouched for by its schema) is
    none, as the composer reads it."""
    return tuple(name for name in value if isinstance(name, str)) if isinstance(value, list) else ()
