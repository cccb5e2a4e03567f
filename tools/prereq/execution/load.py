"""The catalog's files → records with positions, and what keeps a file from being one (PRQ300-PRQ302).

Files are read through the registry loader's own helpers, so a link, a pipe or a device is refused
(PRQ107), sizes are bounded (PRQ109) and YAML is strict (PRQ101-PRQ105, PRQ108) as for items.  A
file that fails its schema is left out of the records but remembered in ``Catalog.broken``, so what
refers to it is not reported a second time."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from prereq.core.yamlload import LoadedYaml, format_path
from prereq.execution.catalog_records import Catalog, Environment, Library, Queue, Ref, RightsRow, Source
from prereq.execution.rules import problem
from prereq.registry import schemas
from prereq.registry.loader import entry_problem, load_mapping, unreadable
from prereq.registry.rules import Problem

ENVIRONMENTS_DIR = "environments"
QUEUES_DIR = "queues"
LIBRARIES_DIR = "libraries"
RIGHTS_FILE = "rights.yaml"
CATALOG_SCHEMA = "execution-catalog.schema.json"
LOAD_RULES = ("PRQ300", "PRQ301", "PRQ302")

# What each kind's file holds, for a file that is no mapping at all (PRQ105's hint).
_SHAPES = {
    "environment": "write the environment as 'key: value' lines: name, version, title, os, languages, packages, image",
    "queue": "write the queue as 'key: value' lines: name, title, memory_mb, time_limit_minutes, ...",
    "library": "write the library as 'key: value' lines: name, version, title, language, environments, install",
    "rights": "write rights: [{queue: Q, group: G, slots: N, priority: P}, ...]",
}
_WHAT = {ENVIRONMENTS_DIR: "an environment", LIBRARIES_DIR: "a library", QUEUES_DIR: "a queue"}


def load_catalog(root: Path) -> tuple[Catalog, list[Problem]]:
    """Every catalog file under the registry folder ``root`` (none at all is an empty catalog)."""
    catalog = Catalog()
    problems: list[Problem] = []
    for folder, kind in ((ENVIRONMENTS_DIR, "environment"), (LIBRARIES_DIR, "library")):
        for found in _versioned_files(root, folder):
            if isinstance(found, Problem):
                problems.append(found)
            else:
                problems += _read(catalog, kind, *found)
    for found in _queue_files(root):
        if isinstance(found, Problem):
            problems.append(found)
        else:
            problems += _read(catalog, "queue", *found)
    rights = root / RIGHTS_FILE
    refused = entry_problem(rights, RIGHTS_FILE)
    if refused is not None:
        problems.append(refused)
    elif rights.is_dir():
        fix = "replace the folder with one rights.yaml file"
        problems.append(problem("PRQ302", file=RIGHTS_FILE, detail=RIGHTS_FILE, what="the rights file", fix=fix))
    elif rights.is_file():
        problems += _read(catalog, "rights", rights, RIGHTS_FILE, (None, None))
    return catalog, problems


def _stray(path: Path, rel: str, folder: str, expected: str) -> Problem:
    if path.suffix == ".yml":
        fix = f"rename it to {path.stem}.yaml"
    else:
        fix = f"move it out of {folder}/, or make it {expected} if it is {_WHAT[folder]}"
    return problem("PRQ302", file=rel, detail=rel, what=_WHAT[folder], fix=fix)


def _entries(root: Path, folder: Path) -> Iterator[tuple[Path, str] | Problem]:
    """The visible entries of ``folder``, sorted; links and special files as their problem, and a
    folder that cannot be listed as its own."""
    try:
        listed = sorted(folder.iterdir())
    except OSError as exc:
        yield unreadable(folder.relative_to(root).as_posix(), exc)
        return
    for path in listed:
        if path.name.startswith("."):
            continue
        rel = path.relative_to(root).as_posix()
        try:
            is_folder = path.is_dir()
        except OSError:  # what cannot be looked at (its folder is not searchable): entry_problem says so
            is_folder = False
        refused = entry_problem(path, rel, folder=is_folder)
        yield refused if refused is not None else (path, rel)


def _folder(root: Path, name: str, expected: str) -> Iterator[tuple[Path, str] | Problem]:
    folder = root / name
    refused = entry_problem(folder, name, folder=True)
    if refused is not None:
        yield refused
    elif folder.exists() and not folder.is_dir():
        fix = f"make {name}/ a folder of {expected} files"
        yield problem("PRQ302", file=name, detail=name, what=f"the folder of {_WHAT[name]}'s files", fix=fix)
    elif folder.is_dir():
        yield from _entries(root, folder)


def _versioned_files(root: Path, name: str) -> Iterator[tuple[Path, str, tuple[str | None, str | None]] | Problem]:
    """``<name>/<entry>/<version>.yaml``: (path, rel, (entry, version)) for each, else the problem."""
    expected = f"{name}/<name>/<version>.yaml"
    for found in _folder(root, name, "<name>/<version>.yaml"):
        if isinstance(found, Problem):
            yield found
            continue
        path, rel = found
        if not path.is_dir():
            yield _stray(path, rel, name, expected)
            continue
        for inner in _entries(root, path):
            if isinstance(inner, Problem):
                yield inner
            elif inner[0].suffix != ".yaml" or not inner[0].is_file():
                yield _stray(inner[0], inner[1], name, expected)
            else:
                yield inner[0], inner[1], (path.name, inner[0].stem)


def _queue_files(root: Path) -> Iterator[tuple[Path, str, tuple[str | None, str | None]] | Problem]:
    for found in _folder(root, QUEUES_DIR, "<name>.yaml"):
        if isinstance(found, Problem):
            yield found
        elif found[0].suffix != ".yaml" or not found[0].is_file():
            yield _stray(found[0], found[1], QUEUES_DIR, "queues/<name>.yaml")
        else:
            yield found[0], found[1], (found[0].stem, None)


def _read(catalog: Catalog, kind: str, path: Path, rel: str, expected: tuple[str | None, str | None]) -> list[Problem]:
    """One file into ``catalog``; its problems."""
    loaded, problems = load_mapping(path, rel, _SHAPES[kind])
    if loaded is None:
        catalog.broken.add(_label(kind, expected))
        return problems
    return accept(catalog, kind, loaded, rel, expected)


def _label(kind: str, expected: tuple[str | None, str | None]) -> str:
    return "rights" if kind == "rights" else f"{kind} {expected[0]}" + (f"@{expected[1]}" if expected[1] else "")


def accept(
    catalog: Catalog, kind: str, loaded: LoadedYaml, rel: str, expected: tuple[str | None, str | None]
) -> list[Problem]:
    """A loaded mapping into ``catalog`` when it matches its schema and its path (``expected``: the name
    and version the path gives); else its problems, and its label in ``catalog.broken``.  The published
    history (``catalog_history``) reads old revisions through here too."""
    source = Source(rel=rel, yaml=loaded)
    problems = [
        _schema_problem(source, kind, issue)
        for issue in schemas.document_issues(CATALOG_SCHEMA, loaded.data, definition=kind)
    ]
    problems += _name_problems(source, kind, expected)
    if problems:
        catalog.broken.add(_label(kind, expected))
        return problems
    _add(catalog, kind, loaded.data, source)
    return []


def _schema_problem(source: Source, kind: str, issue: schemas.SchemaIssue) -> Problem:
    shown = format_path(issue.path[:-1] if issue.kind == "unknown-key" else issue.path, empty=f"(the {kind})")
    if issue.kind == "unknown-key":
        detail, fix = f"unknown key {issue.key!r}", issue.hint
    elif issue.kind == "missing-key":
        detail, fix = f"required key {issue.key!r} is missing", f"add '{issue.key}:'"
    else:
        detail, fix = issue.message, issue.hint or RULE_FIX
    line, column = source.position(issue.path, key=issue.kind == "unknown-key")
    return problem("PRQ300", file=source.rel, line=line, column=column, path=shown, detail=detail, fix=fix)


RULE_FIX = "see the execution catalog's format in schema/execution-catalog.schema.json"


def _name_problems(source: Source, kind: str, expected: tuple[str | None, str | None]) -> Iterator[Problem]:
    data = source.yaml.data
    for key, want in zip(("name", "version"), expected, strict=True):
        value = data.get(key)
        if want is None or not isinstance(value, str) or value == want:
            continue
        what = "folder" if key == "name" and kind != "queue" else "file"
        fix = f"set {key}: {want}, or rename the {what} to {value}"
        line, column = source.position((key,))
        yield problem("PRQ301", file=source.rel, line=line, column=column, key=key, value=value, expected=want, fix=fix)


def _refs(values: Any) -> tuple[Ref, ...]:
    return tuple(Ref.parse(text) for text in values or ())


def _add(catalog: Catalog, kind: str, data: dict[str, Any], source: Source) -> None:
    """A record of a file that matched its schema (so every key has its type)."""
    owners = tuple(data.get("owners") or ())
    if kind == "environment":
        ref = Ref(data["name"], data["version"])
        image = data["image"]
        catalog.environments[ref] = Environment(
            ref=ref,
            title=data["title"],
            languages=tuple(data["languages"]),
            capabilities=tuple(data.get("capabilities") or ()),
            packages=dict(data["packages"]),
            image_item=image.get("item"),
            image_uri=image.get("uri"),
            owners=owners,
            data=data,
            source=source,
        )
    elif kind == "library":
        ref = Ref(data["name"], data["version"])
        install = data["install"]
        catalog.libraries[ref] = Library(
            ref=ref,
            title=data["title"],
            language=data["language"],
            environments=_refs(data["environments"]),
            depends=_refs(data.get("depends")),
            install_item=install.get("prerequisite"),
            install_files=tuple(install.get("files") or ()),
            owners=owners,
            data=data,
            source=source,
        )
    elif kind == "queue":
        _add_queue(catalog, data, source, owners)
    else:
        _add_rights(catalog, data, source)


def _add_queue(catalog: Catalog, data: dict[str, Any], source: Source, owners: tuple[str, ...]) -> None:
    catalog.queues[data["name"]] = Queue(
        name=data["name"],
        title=data["title"],
        memory_mb=data["memory_mb"],
        time_limit_minutes=data["time_limit_minutes"],
        cores_per_slot=data["cores_per_slot"],
        gpus_per_slot=data.get("gpus_per_slot", 0),
        slots_per_machine=data["slots_per_machine"],
        total_slots=data["total_slots"],
        environments=_refs(data["environments"]),
        virtual_cluster=data["virtual_cluster"],
        owners=owners,
        data=data,
        source=source,
    )


def _add_rights(catalog: Catalog, data: dict[str, Any], source: Source) -> None:
    catalog.rights_source = source
    catalog.groups = {
        name: None if members == "*" else tuple(members) for name, members in (data.get("groups") or {}).items()
    }
    catalog.rights = [
        RightsRow(queue=row["queue"], group=row["group"], slots=row["slots"], priority=row["priority"], index=index)
        for index, row in enumerate(data["rights"])
    ]
