"""Checked registry + git history → the static JSON index (``api/v1``).

Layout (like Cargo's sparse index): a small root ``index.json`` listing every
item's latest version, plus one content-addressed file per item holding every
published version with its OpenPAI form, digest, resolved requirements and
closure.  Output is deterministic: sorted keys, no wall-clock time.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prereq.core.gitrepo import FileRevision, Repository
from prereq.core.graph import lookup_parameter
from prereq.core.versions import Requirement, sort_versions
from prereq.core.yamlload import YamlLoadError, load_yaml
from prereq.index import catalogfile, facets, names, packs
from prereq.index.documents import ItemDocument, RequiredVersion, Root, RootEntry, TemplateEntry, VersionDocument
from prereq.index.resolver import NoVersionFits, VersionChoice, choose_versions
from prereq.openpai import forms, needs, protocol, runtime
from prereq.registry import itemformat, schemas, secretscan
from prereq.registry.history import cleared_lines, withheld_leaks
from prereq.registry.loader import ITEMS_DIR
from prereq.registry.rules import RULES
from prereq.registry.validate import ValidationResult

API_DIR = Path("api") / "v1"
JOB_SCHEMA = "openpai/job.schema.json"  # OpenPAI's job schema, resolved, for job editors in the browser
INDEX_SCHEMA = "index.schema.json"  # in schema/, and published beside the root and item files
Node = tuple[str, str]  # (name, version)


@dataclass
class PublishedVersion:
    name: str
    version: str
    data: dict[str, Any]
    commit: str | None  # None: the working tree
    date: str | None = None  # when the version was first committed (None: only in the working tree)


@dataclass
class IndexBuild:
    """Everything the index says, before it is written."""

    root: Root
    items: dict[str, ItemDocument]  # name -> per-item document
    bodies: dict[str, str] = field(default_factory=dict)  # name -> that document as written (its sha256 is in root)
    files: dict[str, str | bytes] = field(default_factory=dict)  # path -> published as is (schemas, packs...)
    warnings: list[str] = field(default_factory=list)


def summary(description: str | None, title: str) -> str:
    """The first paragraph of ``description`` on one line (the title when there is no description)."""
    if not description:
        return title
    paragraph = re.split(r"\n\s*\n", description.strip(), maxsplit=1)[0]
    return " ".join(paragraph.split())


def collect_versions(
    result: ValidationResult, history: list[FileRevision] | None, warnings: list[str]
) -> dict[str, dict[str, PublishedVersion]]:
    """Every version of every item: the working tree first, then git history
    (newest commit first, so each version keeps its last content)."""
    published: dict[str, dict[str, PublishedVersion]] = {}
    for name, item in result.items.items():
        refused = _path_refusal(name, item.data.get("version"))
        if refused is not None:  # only a suppressed PRQ110 or PRQ120 lets one get here
            warnings.append(f"{item.rel}: {refused}, left out whatever its suppressions say")
            continue
        published.setdefault(name, {})[item.data["version"]] = PublishedVersion(
            name, item.data["version"], item.data, None
        )
    if history is None:
        warnings.append("not in a git repository: only the current files are published")
        return published
    withheld: set[tuple[str, str]] = set()  # versions whose last content holds a credential
    cleared = cleared_lines(result.items, result.suppressed)
    first_seen: dict[tuple[str, str], str] = {}  # (name, version) -> its oldest commit's date
    for revision in history:
        if revision.content is None or not revision.path.endswith(".yaml"):
            continue
        stem = Path(revision.path).stem
        try:
            data = load_yaml(revision.content).data
        except YamlLoadError:
            warnings.append(f"{revision.path} at {revision.commit[:10]}: not valid YAML, left out")
            continue
        if not isinstance(data, dict) or data.get("name") != stem:
            continue
        version = data.get("version")
        if isinstance(version, str):  # newest first: the last date written is the version's first commit
            first_seen[(stem, version)] = revision.date
        if not isinstance(version, str) or version in published.get(stem, {}) or (stem, version) in withheld:
            continue
        if schemas.check_item(data):
            warnings.append(f"{stem} {version} (commit {revision.commit[:10]}) fails today's item format, left out")
            continue
        refused = _path_refusal(stem, version)
        if refused is not None:
            warnings.append(f"{revision.path} at {revision.commit[:10]}: {refused}, left out")
            continue
        leaks = withheld_leaks(data, cleared.get(stem, set()))
        if leaks:  # never published, not even an older content of the same version (validate: PRQ192)
            withheld.add((stem, version))
            held = secretscan.kinds(leaks)
            warnings.append(f"{stem} {version} (commit {revision.commit[:10]}) holds {held}, left out (PRQ192)")
            continue
        published.setdefault(stem, {})[version] = PublishedVersion(stem, version, data, revision.commit)
    for name, versions in published.items():
        for version, record in versions.items():
            record.date = first_seen.get((name, version))
    return published


def _path_refusal(name: object, version: object) -> str | None:
    """Why an item version cannot be published under its name and version (``names.refusal``), else None."""
    for value, kind in ((name, names.ITEM_NAME), (version, names.VERSION)):
        reason = names.refusal(value, kind)
        if reason is not None:
            return f"its {kind.what} {names.shown(value)} cannot name a published file ({reason})"
    return None


class VersionTable:
    """Each published version's closure, with the versions job editing would choose."""

    def __init__(self, published: dict[str, dict[str, PublishedVersion]]) -> None:
        self.published = published
        # Asked for again and again while resolving every version: compute each once.
        self._versions = {name: sort_versions(list(versions)) for name, versions in published.items()}
        self._requires = {
            (name, version): [Requirement.parse(text) for text in record.data.get("require") or []]
            for name, versions in published.items()
            for version, record in versions.items()
        }

    def versions(self, name: str) -> list[str]:
        return self._versions.get(name, [])

    def requires(self, name: str, version: str) -> list[Requirement]:
        return self._requires[(name, version)]

    def resolution(self, node: Node) -> VersionChoice:
        return choose_versions([Requirement(node[0], node[1])], versions_of=self.versions, requires_of=self.requires)

    def lookup(self, node: Node, resolution: VersionChoice) -> Callable[[str], Any]:
        """``<% this.KEY %>`` for ``node``: its parameters, then its requirements', nearest first."""
        parameters = {n: self.published[n][v].data.get("parameters") or {} for n, v in resolution.versions.items()}

        def find(key: str) -> Any:
            found = lookup_parameter(node[0], key, parameters, lambda n: [r.name for r in resolution.requires[n]])
            return found[1] if isinstance(found, tuple) else None

        return find


def _version_document(resolver: VersionTable, node: Node, warnings: list[str]) -> VersionDocument | None:
    record = resolver.published[node[0]][node[1]]
    try:
        resolution = resolver.resolution(node)
    except NoVersionFits as exc:
        warnings.append(f"{node[0]} {node[1]}: {exc.message}, left out")
        return None
    if resolution.has_cycle:
        warnings.append(f"{node[0]} {node[1]}: its requirements form a cycle, left out")
        return None
    requires: list[RequiredVersion] = [
        {"name": r.name, "range": r.range or "*", "version": resolution.versions[r.name]}
        for r in resolution.requires[node[0]]
    ]
    try:
        form = forms.compile_item(record.data, lookup=resolver.lookup(node, resolution))
    except forms.PlaceholderError as exc:
        warnings.append(f"{node[0]} {node[1]}: <% this.{exc.key} %> cannot be rendered, left out")
        return None
    broken = forms.check_round_trip(form)
    if broken:
        warnings.append(
            f"{node[0]} {node[1]}: {', '.join(broken)} would not survive the OpenPAI runtime's "
            "repr round trip, left out"
        )
        return None
    return {
        "version": node[1],
        "item": record.data,
        "openpai": form,
        "digest": forms.digest(form),
        "exports": forms.exports(record.data),
        "needs": needs.form_needs(form),
        "requires": requires,
        "closure": [{"name": name, "version": resolution.versions[name]} for name in resolution.order],
        "published": record.date,
    }


def _entries(
    documents: dict[str, ItemDocument], result: ValidationResult, repo: Repository | None, dates: dict[str, str]
) -> tuple[list[RootEntry], dict[str, str]]:
    """The root's entry of each item, and each item file's body (the sha256 is of that body)."""
    entries: list[RootEntry] = []
    bodies: dict[str, str] = {}
    for name, document in documents.items():
        latest = document["versions"][-1]["item"]
        body = bodies[name] = dump_json(document)
        rel = None
        if repo is not None:
            rel = repo.relative(result.root / ITEMS_DIR / f"{name}.yaml")
        entries.append(
            {
                "name": name,
                "version": latest["version"],
                "type": latest["type"],
                "title": latest["title"],
                "summary": summary(latest.get("description"), latest["title"]),
                "tags": latest.get("tags") or [],
                "owners": latest.get("owners") or [],
                "deprecated": latest.get("deprecated"),
                "license": latest.get("license"),
                "exports": document["versions"][-1]["exports"],
                "updated": dates.get(rel) if rel else None,
                "path": f"prerequisites/{name}.json",
                "sha256": hashlib.sha256(body.encode("utf-8")).hexdigest(),
            }
        )
    return entries, bodies


def _templates(
    result: ValidationResult, documents: dict[str, ItemDocument], warnings: list[str]
) -> tuple[list[TemplateEntry], dict[str, str]]:
    """The job templates' root entries, and their files (published as written); a template whose file
    name cannot name a published file is left out."""
    entries: list[TemplateEntry] = []
    files: dict[str, str] = {}
    for template in sorted(result.templates, key=lambda t: t.stem):
        reason = names.refusal(template.stem, names.FILE_NAME)
        if reason is not None:
            warnings.append(
                f"{template.rel}: its name {names.shown(template.stem)} cannot be published ({reason}), left out"
            )
            continue
        path = f"templates/{template.stem}.yaml"
        uses = [n for _, _, n in protocol.role_references(template.data) if n in documents]
        title = str(template.data.get("description") or template.stem).strip().split("\n")[0]
        text = template.path.read_text(encoding="utf-8")
        # Its digest in the (signed) root: a template's commands are code, as an item's are.
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        entries.append(
            {"name": template.stem, "title": title, "path": path, "uses": list(dict.fromkeys(uses)), "sha256": digest}
        )
        files[path] = text
    return entries, files


def build_index(result: ValidationResult, *, repo: Repository | None, start_image: str | None = None) -> IndexBuild:
    """The whole index as data; ``result`` must have no errors.  ``start_image`` (prereq.yaml's
    composer.image, a dockerimage item) is published as the root's start_image only when given, so that
    an index without it stays what older readers of this format accept."""
    warnings: list[str] = []
    # Only the states the branch has been in publish: a merged branch's own commits never do.
    history = repo.history(result.root / ITEMS_DIR, first_parent=True) if repo else None
    published = collect_versions(result, history, warnings)
    resolver = VersionTable(published)
    state = repo.state(result.root) if repo else None
    dates: dict[str, str] = {}
    for revision in history or []:  # newest first: the first date seen is the last change
        dates.setdefault(revision.path, revision.date)

    documents: dict[str, ItemDocument] = {}
    for name in sorted(published):
        versions = []
        for version in resolver.versions(name):
            published_version = _version_document(resolver, (name, version), warnings)
            if published_version is not None:
                versions.append(published_version)
        if versions:
            documents[name] = {"name": name, "versions": versions, "required_by": [], "source": None}
            if repo is not None and name in result.items:  # a deleted item has no file to link to
                documents[name]["source"] = repo.relative(result.root / ITEMS_DIR / f"{name}.yaml")
    _link_dependents(documents)

    entries, bodies = _entries(documents, result, repo, dates)
    template_entries, template_files = _templates(result, documents, warnings)
    pack_files, pack_map = packs.pack_documents(bodies, documents)
    files: dict[str, str | bytes] = {**template_files, **pack_files}
    job_schema = dump_json(protocol.resolve_schema(protocol.load_protocol()), readable=True)
    root: Root = {
        "format": schemas.INDEX_FORMAT,
        "job_load_line": runtime.JOB_LOAD_LINE,
        "replaced_load_lines": list(runtime.REPLACED_LOAD_LINES),
        "callback_lines": {"first": runtime.FIRST_CALLBACK_LINE, "other": runtime.CALLBACK_LINE},
        "key_orders": {part: list(keys) for part, keys in forms.KEY_ORDERS.items()},
        "type_groups": facets.TYPE_GROUPS,
        "type_labels": facets.TYPE_LABELS,
        "lifted_keys": list(runtime.LIFTED_KEYS),
        "range_hint": RULES["PRQ141"].hint,
        "item_format": itemformat.describe(),
        "items_folder": repo.relative(result.root / ITEMS_DIR) if repo else None,
        "job_schema": {"path": JOB_SCHEMA, "sha256": hashlib.sha256(job_schema.encode("utf-8")).hexdigest()},
        "templates": template_entries,
        "commit": state.commit if state else None,
        "date": state.date if state else None,
        "dirty": state.dirty if state else True,
        "items": entries,
    }
    if start_image is not None:
        root["start_image"] = start_image
    files[JOB_SCHEMA] = job_schema
    files[packs.PACK_MAP] = dump_json(pack_map)
    files[catalogfile.CATALOG_FILE] = dump_json(catalogfile.catalog_document(root))
    for schema in (INDEX_SCHEMA, catalogfile.SCHEMA_FILE):  # each beside the files it describes
        files[schema] = dump_json(schemas.load_schema(schema), readable=True)
    return IndexBuild(root=root, items=documents, bodies=bodies, warnings=warnings, files=files)


def _link_dependents(documents: dict[str, ItemDocument]) -> None:
    """Each item's ``required_by``: the items whose latest version requires it, sorted."""
    for name, document in documents.items():
        for requirement in document["versions"][-1]["requires"]:
            target = documents.get(requirement["name"])
            if target is not None and name not in target["required_by"]:
                target["required_by"].append(name)
    for document in documents.values():
        document["required_by"].sort()


def dump_json(value: Any, *, readable: bool = False) -> str:
    """JSON as the index publishes it: sorted keys, UTF-8, and no whitespace, which was a third of every
    item's file; ``readable`` indents the schemas people read."""
    if readable:
        return json.dumps(value, sort_keys=True, ensure_ascii=False, indent=1) + "\n"
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"


def write_index(build: IndexBuild, out: Path) -> None:
    """Write ``api/v1`` under ``out`` (a fresh temporary folder).  Each file named after data is placed
    by ``names.place``: its name is checked again, whatever validation let through, and its path must
    land inside ``out``."""
    api = names.inside(out, API_DIR.as_posix())
    (api / "prerequisites").mkdir(parents=True, exist_ok=True)
    names.inside(api, "index.json").write_text(dump_json(build.root), encoding="utf-8")
    for name, body in build.bodies.items():
        names.place(api, "prerequisites", name, kind=names.ITEM_NAME, suffix=".json").write_text(body, encoding="utf-8")
    for rel, content in build.files.items():
        folder, _, file = rel.rpartition("/")
        path = names.place(api, folder, file, kind=names.FILE_NAME)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
