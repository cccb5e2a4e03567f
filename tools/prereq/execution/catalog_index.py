"""The catalog's index file, ``api/v1/execution/catalog.json``: what the site and programs read.

One file, since a page answering "which queues do I get" needs the queues, the rights and the groups
together; ``schema/index.schema.json`` describes it (``$defs/execution``).  Deterministic like the
rest of the index: sorted, no clock.  Written only for a registry that has a catalog.  Like the items'
versions, every version of an environment or a library that the git history of HEAD ever held is
published (``catalog_history``), each dated by its first commit (``published``) and with its file (``source``,
null for a version only the history holds)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from prereq.core.errors import PrereqError
from prereq.core.yamlload import LoadedYaml
from prereq.execution.catalog_checks import effective_environments
from prereq.execution.catalog_history import PublishedCatalog, published_catalog
from prereq.execution.catalog_records import Catalog, Environment, Library, Queue, Ref, RightsRow, Source
from prereq.execution.catalog_validation import open_catalog
from prereq.execution.rights import library_closure
from prereq.index import names
from prereq.index.builder import summary
from prereq.index.reader import Index
from prereq.registry.loader import Owners

CATALOG_FILE = Path("api") / "v1" / "execution" / "catalog.json"
CATALOG_FORMAT = "prereq-execution/1"


def _summary(data: dict[str, Any]) -> str:
    # As the index summarises items; a description of blanks falls back to the title as well.
    return summary(data.get("description"), data["title"]) or data["title"]


def _environment(env: Environment, published: PublishedCatalog) -> dict[str, Any]:
    catalog = published.catalog
    return {
        "name": env.ref.name,
        "version": env.ref.version,
        "title": env.title,
        "summary": _summary(env.data),
        "description": env.data.get("description") or "",
        "os": dict(env.data["os"]),
        "languages": list(env.languages),
        "capabilities": list(env.capabilities),
        "packages": dict(sorted(env.packages.items())),
        "image": dict(env.data["image"]),
        "owners": list(env.owners),
        "queues": sorted(q.name for q in catalog.queues.values() if env.ref in q.environments),
        "libraries": sorted(
            str(lib.ref)
            for lib in catalog.libraries.values()
            if env.ref in effective_environments(lib, catalog.libraries).environments
        ),
        "published": published.dates.get(("environment", env.ref)),
        "source": published.source("environment", env.ref, env.source.rel),
    }


def _queue(queue: Queue, catalog: Catalog) -> dict[str, Any]:
    return {
        "name": queue.name,
        "title": queue.title,
        "summary": _summary(queue.data),
        "memory_mb": queue.memory_mb,
        "time_limit_minutes": queue.time_limit_minutes,
        "cores_per_slot": queue.cores_per_slot,
        "gpus_per_slot": queue.gpus_per_slot,
        "slots_per_machine": queue.slots_per_machine,
        "total_slots": queue.total_slots,
        "machines": queue.machines,
        "environments": [str(ref) for ref in queue.environments],
        "virtual_cluster": queue.virtual_cluster,
        "owners": list(queue.owners),
        "rights": [
            {"group": row.group, "slots": row.slots, "priority": row.priority}
            for row in sorted(catalog.rights, key=lambda row: row.group)
            if row.queue == queue.name
        ],
    }


def _library(library: Library, published: PublishedCatalog) -> dict[str, Any]:
    catalog = published.catalog
    return {
        "name": library.ref.name,
        "version": library.ref.version,
        "title": library.title,
        "summary": _summary(library.data),
        "language": library.language,
        "environments": [str(ref) for ref in library.environments],
        "effective_environments": sorted(
            str(ref) for ref in effective_environments(library, catalog.libraries).environments
        ),
        "depends": [str(ref) for ref in library.depends],
        "closure": [str(ref) for ref in library_closure(catalog, [library.ref])],
        "install": dict(library.data["install"]),
        "owners": list(library.owners),
        "published": published.dates.get(("library", library.ref)),
        "source": published.source("library", library.ref, library.source.rel),
    }


def catalog_document(published: PublishedCatalog, owners: Owners) -> dict[str, Any]:
    """The whole catalog as the index publishes it: every version of an environment or a library that
    the history published (``published.published_catalog``), the rest as the working tree has it."""
    catalog = published.catalog
    groups: dict[str, dict[str, Any]] = {
        team: {"members": sorted(members), "everyone": False, "from": "owners.yaml"}
        for team, members in owners.teams.items()
    }
    for name, members in catalog.groups.items():
        everyone = members is None
        shown = sorted(owners.users) if members is None else sorted(members)
        groups.setdefault(name, {"members": shown, "everyone": everyone, "from": "rights.yaml"})
    return {
        "format": CATALOG_FORMAT,
        "environments": [_environment(catalog.environments[ref], published) for ref in sorted(catalog.environments)],
        "queues": [_queue(catalog.queues[name], catalog) for name in sorted(catalog.queues)],
        "libraries": [_library(catalog.libraries[ref], published) for ref in sorted(catalog.libraries)],
        "groups": dict(sorted(groups.items())),
        "rights": [
            {"queue": row.queue, "group": row.group, "slots": row.slots, "priority": row.priority}
            for row in sorted(catalog.rights, key=lambda row: (row.queue, row.group))
        ],
    }


def write_catalog_index(registry: Path, out: Path) -> list[str]:
    """Write the catalog's index file under ``out`` (a build's staging folder), when the registry has a
    catalog; what was left out of the history, as warnings.  The registry was validated: a catalog with
    errors never gets here."""
    if not any((registry / part).exists() for part in ("environments", "queues", "libraries", "rights.yaml")):
        return []
    catalog, owners = open_catalog(registry)
    published = published_catalog(registry, catalog)
    path = names.inside(out, CATALOG_FILE.as_posix())  # one fixed file: catalog names are never path parts
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(catalog_document(published, owners), sort_keys=True, ensure_ascii=False, indent=1) + "\n"
    path.write_text(text, encoding="utf-8")
    return [f"execution catalog: {warning}" for warning in published.warnings]


def _refs(texts: list[str]) -> tuple[Ref, ...]:
    return tuple(Ref.parse(text) for text in texts)


def _source(entry: dict[str, Any]) -> Source:
    # A published record has no positions: nothing reports problems in it, the index was checked.
    return Source(rel=entry.get("source") or CATALOG_FILE.as_posix(), yaml=LoadedYaml(entry))


def _published_environment(entry: dict[str, Any]) -> Environment:
    image = entry["image"]
    return Environment(
        ref=Ref(entry["name"], entry["version"]),
        title=entry["title"],
        languages=tuple(entry["languages"]),
        capabilities=tuple(entry["capabilities"]),
        packages=dict(entry["packages"]),
        image_item=image.get("item"),
        image_uri=image.get("uri"),
        owners=tuple(entry["owners"]),
        data=entry,
        source=_source(entry),
    )


def _published_queue(entry: dict[str, Any]) -> Queue:
    sizes = ("memory_mb", "time_limit_minutes", "cores_per_slot", "gpus_per_slot", "slots_per_machine", "total_slots")
    return Queue(
        name=entry["name"],
        title=entry["title"],
        **{key: entry[key] for key in sizes},
        environments=_refs(entry["environments"]),
        virtual_cluster=entry["virtual_cluster"],
        owners=tuple(entry["owners"]),
        data=entry,
        source=_source(entry),
    )


def _published_library(entry: dict[str, Any]) -> Library:
    install = entry["install"]
    return Library(
        ref=Ref(entry["name"], entry["version"]),
        title=entry["title"],
        language=entry["language"],
        environments=_refs(entry["environments"]),
        depends=_refs(entry["depends"]),
        install_item=install.get("prerequisite"),
        install_files=tuple(install.get("files") or ()),
        owners=tuple(entry["owners"]),
        data=entry,
        source=_source(entry),
    )


def read_catalog(index: Index) -> tuple[Catalog, Owners]:
    """The catalog an index publishes, for computing with as with a registry's (``validate.open_catalog``):
    its records, and owners whose users are the groups' members and whose teams are owners.yaml's."""
    try:
        document = index.read_file(CATALOG_FILE.relative_to("api/v1").as_posix(), "execution")
    except PrereqError as exc:
        raise PrereqError(
            f"the index {index.base} has no execution catalog ({exc.message})",
            hint="build the index from a registry with a catalog, or name the registry with --registry",
        ) from None
    groups = document["groups"]
    catalog = Catalog(
        environments={env.ref: env for env in map(_published_environment, document["environments"])},
        queues={queue.name: queue for queue in map(_published_queue, document["queues"])},
        libraries={lib.ref: lib for lib in map(_published_library, document["libraries"])},
        rights=[RightsRow(index=at, **row) for at, row in enumerate(document["rights"])],
        groups={
            name: None if group["everyone"] else tuple(group["members"])
            for name, group in groups.items()
            if group["from"] == "rights.yaml"
        },
    )
    owners = Owners(
        users={member for group in groups.values() for member in group["members"]},
        teams={name: list(group["members"]) for name, group in groups.items() if group["from"] == "owners.yaml"},
        loaded=True,
    )
    return catalog, owners
