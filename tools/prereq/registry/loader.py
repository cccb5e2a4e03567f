"""Files → loaded items with source positions.  Nothing here judges the content
beyond "is this one YAML mapping"; the checks do the rest."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prereq.core.errors import PrereqError
from prereq.core.versions import Requirement
from prereq.core.yamlload import LoadedYaml, YamlLoadError, format_path, load_yaml
from prereq.registry.rules import Problem, problem

ITEMS_DIR = "prerequisites"
TEMPLATES_DIR = "templates"
OWNERS_FILE = "owners.yaml"

_YAML_RULES = {"syntax": "PRQ101", "encoding": "PRQ102", "documents": "PRQ103", "duplicate-key": "PRQ104"}
# The rules the loader itself reports (the checks declare theirs with their functions).
LOADER_RULES = (*_YAML_RULES.values(), "PRQ105", "PRQ106", "PRQ107", "PRQ108", "PRQ109", "PRQ161")
# What each folder of the registry holds, for messages.
_FOLDERS = {ITEMS_DIR: "an item", TEMPLATES_DIR: "a job template"}


@dataclass
class SourceItem:
    """One item file as read: data plus positions for pointing at lines."""

    path: Path
    rel: str  # relative to the registry root, '/'-separated
    data: dict[str, Any]
    yaml: LoadedYaml

    @property
    def stem(self) -> str:
        return self.path.stem

    @property
    def name(self) -> str:
        name = self.data.get("name")
        return name if isinstance(name, str) else self.stem

    @property
    def requires(self) -> list[Requirement]:
        require = self.data.get("require")
        if not isinstance(require, list):
            return []
        return [Requirement.parse(entry) for entry in require if isinstance(entry, str)]

    def position(self, path: tuple[Any, ...], *, key: bool = False) -> tuple[int, int]:
        return self.yaml.position(path, key=key)


@dataclass
class Owners:
    users: set[str] = field(default_factory=set)
    teams: dict[str, list[str]] = field(default_factory=dict)
    loaded: bool = False

    def known(self, name: str) -> bool:
        return name in self.users or name in self.teams


@dataclass
class LoadedRegistry:
    root: Path
    items: list[SourceItem]
    owners: Owners
    problems: list[Problem]
    templates: list[SourceItem] = field(default_factory=list)  # job templates (OpenPAI jobs)


def find_registry(start: Path, *, search_parents: bool = True) -> Path:
    """The ``registry/`` of the repository containing ``start`` (or ``start`` itself).

    With ``search_parents=False`` (a path the user named) only ``start`` and
    ``start/registry`` qualify: a mistyped path must not silently validate
    some other registry further up.
    """
    if not start.exists():
        raise PrereqError(
            f"{start} does not exist",
            hint=f"pass the registry folder (the one holding {ITEMS_DIR}/), e.g. 'prereq validate registry'",
        )
    start = start.resolve()
    if (start / ITEMS_DIR).is_dir():
        return start
    for folder in (start, *start.parents) if search_parents else (start,):
        if (folder / "registry" / ITEMS_DIR).is_dir():
            return folder / "registry"
    raise PrereqError(
        f"no registry found {'at or above' if search_parents else 'at'} {start}",
        hint=f"pass the registry folder (the one holding {ITEMS_DIR}/), e.g. 'prereq validate registry'",
    )


def entry_problem(path: Path, rel: str) -> Problem | None:
    """PRQ107 for a registry entry that is not a regular file or folder (a link, a pipe...); None for
    one that is, or that does not exist (whether it must is the caller's rule)."""
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:
        return problem("PRQ107", file=rel, detail=f"{rel} cannot be read: {exc.strerror}", fix="check its permissions")
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    if stat.S_ISLNK(mode):
        detail = f"{rel} is a symbolic link (to {os.readlink(path)})"
        fix = "commit the file itself instead of a link"
    else:
        kind = "a pipe" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device"
        detail, fix = f"{rel} is {kind}, not a file", "replace it with a regular file, or remove it"
    return problem("PRQ107", file=rel, detail=detail, fix=fix)


MAX_FILE_BYTES = 1 << 20
MAX_LINE_CHARS = 10_000


def read_yaml_file(path: Path, rel: str) -> tuple[LoadedYaml | None, list[Problem]]:
    """Load one YAML file strictly; YAML issues and the size limits become positioned problems."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            detail = f"the file is {size} bytes (at most {MAX_FILE_BYTES})"
            return None, [problem("PRQ109", file=rel, line=1, column=1, detail=detail)]
        raw = path.read_bytes()
        for number, line in enumerate(raw.split(b"\n"), start=1):
            if len(line) > MAX_LINE_CHARS:  # bytes: at least as many as characters
                detail = f"line {number} is {len(line)} bytes long (at most {MAX_LINE_CHARS})"
                return None, [problem("PRQ109", file=rel, line=number, column=1, detail=detail)]
        return load_yaml(raw), []
    except YamlLoadError as exc:
        return None, [
            problem(_YAML_RULES[issue.kind], file=rel, line=issue.line, column=issue.column, detail=issue.message)
            for issue in exc.issues
        ]
    except OSError as exc:
        raise PrereqError(f"cannot read {path}: {exc.strerror}") from None


def _non_string_keys(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """The paths of every mapping key that is not a string (iterative: nesting is capped by the loader)."""
    stack = [(value, path)]
    while stack:
        current, where = stack.pop()
        children = (
            current.items() if isinstance(current, dict) else enumerate(current) if isinstance(current, list) else ()
        )
        for key, child in children:
            if isinstance(current, dict) and not isinstance(key, str):
                yield (*where, key)
            stack.append((child, (*where, key)))


def _show_key(key: Any) -> str:
    return "null" if key is None else str(key).lower() if isinstance(key, bool) else str(key)


def load_mapping(path: Path, rel: str) -> tuple[LoadedYaml | None, list[Problem]]:
    loaded, problems = read_yaml_file(path, rel)
    if loaded is not None:
        for where in sorted(_non_string_keys(loaded.data), key=lambda w: loaded.position(w, key=True)):
            line, column = loaded.position(where, key=True)
            shown = format_path(where[:-1], empty="the top level")
            problems.append(problem("PRQ108", file=rel, line=line, column=column, key=_show_key(where[-1]), path=shown))
        if problems:
            return None, problems
    if loaded is not None and not isinstance(loaded.data, dict):
        kind = "nothing" if loaded.data is None else f"a {type(loaded.data).__name__}"
        line, column = loaded.value_positions.get((), (1, 1))
        problems.append(problem("PRQ105", file=rel, line=line, column=column, detail=kind))
        return None, problems
    return loaded, problems


def _load_owners(root: Path) -> tuple[Owners, list[Problem]]:
    path = root / OWNERS_FILE
    fix = "write users: [name, ...] and teams: {team: [member, ...]}"
    refused = entry_problem(path, OWNERS_FILE)
    if refused is not None:
        return Owners(), [refused]
    if not path.is_file():
        return Owners(), [problem("PRQ161", file=OWNERS_FILE, detail="owners.yaml is missing", fix="create it: " + fix)]
    loaded, problems = load_mapping(path, OWNERS_FILE)
    if loaded is None:
        return Owners(), problems
    data = loaded.data
    users, teams = data.get("users", []), data.get("teams", {})
    trusted = True
    unknown = sorted(set(data) - {"users", "teams"})
    if unknown:
        line, column = loaded.position((unknown[0],), key=True)
        problems.append(
            problem("PRQ161", file=OWNERS_FILE, line=line, column=column, detail=f"unknown key {unknown[0]!r}", fix=fix)
        )
    if not isinstance(users, list) or not all(isinstance(u, str) for u in users):
        line, column = loaded.position(("users",))
        problems.append(
            problem(
                "PRQ161", file=OWNERS_FILE, line=line, column=column, detail="users must be a list of names", fix=fix
            )
        )
        users, trusted = [], False
    if not isinstance(teams, dict) or not all(
        isinstance(m, list) and all(isinstance(u, str) for u in m) for m in teams.values()
    ):
        line, column = loaded.position(("teams",))
        problems.append(
            problem(
                "PRQ161",
                file=OWNERS_FILE,
                line=line,
                column=column,
                detail="teams must map team names to lists of member names",
                fix=fix,
            )
        )
        teams, trusted = {}, False
    # A malformed users or teams list is one problem here, not one on every item's owners.
    owners = Owners(users=set(users), teams={str(k): list(v) for k, v in teams.items()}, loaded=trusted)
    for team, members in owners.teams.items() if trusted else ():
        for index, member in enumerate(members):
            if member not in owners.users:
                line, column = loaded.position(("teams", team, index))
                problems.append(
                    problem(
                        "PRQ161",
                        file=OWNERS_FILE,
                        line=line,
                        column=column,
                        detail=f"team {team!r} lists {member!r}, who is not in users",
                        fix=f"add {member} to users",
                    )
                )
    return owners, problems


def _load_folder(root: Path, name: str) -> tuple[list[SourceItem], list[Problem]]:
    """Every ``<name>/*.yaml`` mapping; anything else in the folder is a problem, never read or skipped
    silently (a link, a pipe, ``x.yml``, a folder)."""
    folder = root / name
    refused = entry_problem(folder, name)
    if refused is not None or not folder.is_dir():
        return [], [refused] if refused else []
    loaded_files: list[SourceItem] = []
    problems: list[Problem] = []
    for path in sorted(folder.iterdir()):
        rel = path.relative_to(root).as_posix()
        refused = entry_problem(path, rel)
        if refused is not None:
            problems.append(refused)
            continue
        if path.suffix != ".yaml" or not path.is_file():
            if not path.name.startswith("."):
                fix = f"move what is in it up into {name}/" if path.is_dir() else f"rename it to {path.stem}.yaml"
                problems.append(problem("PRQ106", file=rel, detail=path.name, what=_FOLDERS[name], fix=fix))
            continue
        loaded, found = load_mapping(path, rel)
        problems += found
        if loaded is not None:
            loaded_files.append(SourceItem(path=path, rel=rel, data=loaded.data, yaml=loaded))
    return loaded_files, problems


def load_registry(root: Path) -> LoadedRegistry:
    """Read every item file and the owners list under ``root``."""
    root = root.resolve()
    items_dir = root / ITEMS_DIR
    if not items_dir.is_dir():
        raise PrereqError(
            f"{root} has no {ITEMS_DIR}/ folder", hint="point at the registry folder, e.g. 'prereq validate registry'"
        )
    owners, problems = _load_owners(root)
    items, found = _load_folder(root, ITEMS_DIR)
    templates, found_in_templates = _load_folder(root, TEMPLATES_DIR)
    problems += found + found_in_templates
    return LoadedRegistry(root=root, items=items, owners=owners, problems=problems, templates=templates)
