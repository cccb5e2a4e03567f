"""Files → loaded items with source positions.  Nothing here judges the content
beyond "is this one YAML mapping"; the checks do the rest."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prereq.core.errors import PrereqError
from prereq.core.files import NO_CACHE, Cache, Shelf, is_there, nested_within
from prereq.core.gitrepo import blob_id
from prereq.core.versions import Requirement
from prereq.core.yamlload import MAX_DEPTH, TAG_MESSAGE, LoadedYaml, Reloaded, YamlLoadError, format_path, load_yaml
from prereq.registry.limits import MAX_EXPANDED_CHARS, MAX_FILE_BYTES, MAX_LINE_CHARS
from prereq.registry.owners import OWNERS_FIX, Owners, read_owners
from prereq.registry.rules import Problem, problem

ITEMS_DIR = "prerequisites"
TEMPLATES_DIR = "templates"
OWNERS_FILE = "owners.yaml"

_YAML_RULES = {"syntax": "PRQ101", "encoding": "PRQ102", "documents": "PRQ103", "duplicate-key": "PRQ104"}
# The rules the loader itself reports (the checks declare theirs with their functions).
LOADER_RULES = (*_YAML_RULES.values(), "PRQ105", "PRQ106", "PRQ107", "PRQ108", "PRQ109", "PRQ161")
# What each folder of the registry holds, for messages.
_FOLDERS = {ITEMS_DIR: "an item", TEMPLATES_DIR: "a job template"}
_LINE_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")  # where YAML counts a new line


@dataclass
class SourceItem:
    """One item file as read: data plus positions for pointing at lines."""

    path: Path
    rel: str  # relative to the registry root, '/'-separated
    data: dict[str, Any]
    yaml: LoadedYaml
    raw: bytes = b""  # the bytes read (its comments are read from them, never from the file again)
    digest: str = ""  # their SHA-256: what results kept across runs are keyed by
    blob: str = ""  # git's id of them: the revision in its history the file still is

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

    def written(self, path: tuple[Any, ...]) -> str | None:
        """The text of the plain scalar at ``path`` as the file has it (1.10, where YAML reads 1.1)."""
        line, column = self.yaml.position(path)  # a Reloaded finds its positions here
        lines = _LINE_BREAK.split(self.raw.decode("utf-8", "replace").removeprefix("\ufeff"))
        if tuple(path) not in self.yaml.value_positions or line > len(lines):
            return None
        return re.split(r"[\s,\[\]{}]", lines[line - 1][column - 1 :], maxsplit=1)[0] or None


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
    hint = f"name the registry folder (the one holding {ITEMS_DIR}/): 'prereq validate registry'"
    init = "start a registry with 'prereq init' at the repository's root, or "  # a new user has none yet
    if not start.exists():
        raise PrereqError(f"{start} does not exist", hint=hint)
    start = start.resolve()
    if is_there(start / ITEMS_DIR, folder=True):
        return start
    for folder in (start, *start.parents) if search_parents else (start,):
        if is_there(folder / "registry" / ITEMS_DIR, folder=True):
            return folder / "registry"
    raise PrereqError(f"no registry found {'at or above' if search_parents else 'at'} {start}", hint=init + hint)


def unreadable(rel: str, exc: OSError, *, otherwise: str = "make it a readable folder") -> Problem:
    """PRQ107 for an entry that exists but cannot be read or listed (its permissions, most often);
    ``otherwise``: the fix for another cause."""
    fix = "check its permissions" if exc.errno in (errno.EACCES, errno.EPERM) else otherwise
    return problem("PRQ107", file=rel, detail=f"{rel} cannot be read: {exc.strerror}", fix=fix)


def entry_problem(path: Path, rel: str, *, folder: bool = False) -> Problem | None:
    """PRQ107 for a registry entry that is not a regular file or folder (a link, a pipe...); None for
    one that is, or that does not exist (whether it must is the caller's rule).  ``folder``: the
    entry should be a folder, for the hint."""
    kind = "folder" if folder else "file"
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:
        return unreadable(rel, exc, otherwise=f"make it a regular {kind}")
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    if not stat.S_ISLNK(mode):
        what = "a pipe" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device"
        detail, fix = f"{rel} is {what}, not a {kind}", f"replace it with a regular {kind}, or remove it"
        return problem("PRQ107", file=rel, detail=detail, fix=fix)
    target = os.readlink(path)
    try:
        points_at = "folder" if stat.S_ISDIR(path.stat().st_mode) else "file"
    except OSError as exc:  # the link loops, or points at nothing
        why = "which loops back to itself" if exc.errno == errno.ELOOP else "which does not exist"
        detail = f"{rel} is a symbolic link (to {target}, {why})"
        return problem("PRQ107", file=rel, detail=detail, fix=f"replace the link with a regular {kind}, or remove it")
    detail = f"{rel} is a symbolic link (to {target})"
    return problem(
        "PRQ107", file=rel, detail=detail, fix=f"replace the link with a copy of the {points_at} it points to"
    )


def _read_bytes(path: Path, rel: str) -> bytes | Problem:
    """The file's bytes, opened without following a link or waiting on a pipe (whatever the entry
    became since it was listed) and at most ``MAX_FILE_BYTES`` of them; else the problem."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        descriptor = os.open(path, flags)
        try:
            info = os.fstat(descriptor)
            if not stat.S_ISREG(info.st_mode):
                return entry_problem(path, rel) or problem(
                    "PRQ107", file=rel, detail=f"{rel} is not a regular file", fix="replace it with a regular file"
                )
            # Refused unread when it says it is too large; read no more than the limit when it does not.
            raw = b"" if info.st_size > MAX_FILE_BYTES else _read_at_most(descriptor, MAX_FILE_BYTES + 1)
        finally:
            os.close(descriptor)
    except OSError as exc:  # gone or swapped since it was listed, or not ours to read
        return entry_problem(path, rel) or unreadable(rel, exc, otherwise="make it a readable file")
    if info.st_size > MAX_FILE_BYTES or len(raw) > MAX_FILE_BYTES:
        detail = f"the file is {max(info.st_size, len(raw))} bytes (at most {MAX_FILE_BYTES})"
        return problem("PRQ109", file=rel, line=1, column=1, detail=detail)
    return raw


def _read_at_most(descriptor: int, limit: int) -> bytes:
    """Up to ``limit`` bytes of an open file (``os.read``: a file object cost six times the read itself)."""
    parts: list[bytes] = []
    while (left := limit - sum(map(len, parts))) > 0 and (part := os.read(descriptor, left)):
        parts.append(part)
    return b"".join(parts)


def _yaml_fix(message: str) -> str:
    """What fixes a YAML issue that ``explain`` (a tab, an open quote) did not: most are syntax, some
    are limits the loader sets."""
    if message.startswith("integers have at most"):
        return "quote it if it is text, or shorten it"
    if message.startswith("values are nested more than") or "exceeded maximum nesting depth" in message:  # libyaml's
        return f"flatten it: values nest at most {MAX_DEPTH} levels deep"
    if message.startswith("the document expands to more than"):
        return "write the values out instead of repeating them through aliases (*name)"
    if message.startswith(TAG_MESSAGE):
        return "write the value without its tag: items hold plain strings, numbers, lists and mappings"
    if message.startswith("merge keys"):
        return "write the keys out instead of merging them in with '<<'"
    if "characters are not allowed" in message:
        return "remove the character (in a double-quoted string, write a tab as \\t and a line break as \\n)"
    return "fix the YAML syntax at this position"


def _parse(raw: bytes, rel: str) -> tuple[LoadedYaml | None, list[Problem]]:
    """Load one YAML file strictly; YAML issues and the size limits become positioned problems."""
    for number, text in enumerate(raw.split(b"\n"), start=1):
        if len(text) > MAX_LINE_CHARS:  # bytes: at least as many as characters
            detail = f"line {number} is {len(text)} bytes long (at most {MAX_LINE_CHARS})"
            fix = "break the line: YAML folds a string written over several lines ('>-' keeps it one line)"
            return None, [problem("PRQ109", file=rel, line=number, column=1, detail=detail, fix=fix)]
    try:
        loaded = load_yaml(raw)
    except YamlLoadError as exc:
        found = [(_YAML_RULES[i.kind], i.line, i.column, i.message, f) for i, f in exc.explained(raw)]
        return None, [
            problem(r, file=rel, line=n, column=c, detail=m, fix=f or _yaml_fix(m)) for r, n, c, m, f in found
        ]
    # Without an alias (``*``) the text is at most the file's own: only a large file can pass the limit.
    where = _past_expanded_limit(loaded.data) if b"*" in raw or 2 * len(raw) > MAX_EXPANDED_CHARS else None
    if where is not None:
        line, column = loaded.position(where)
        detail = f"with its aliases expanded, the file holds more than {MAX_EXPANDED_CHARS} characters of text"
        fix = "write the values out instead of repeating a long one through aliases (*name)"
        return None, [problem("PRQ109", file=rel, line=line, column=column, detail=detail, fix=fix)]
    return loaded, []


def _past_expanded_limit(data: Any) -> tuple[Any, ...] | None:
    """The path of the value at which the text of ``data``, every alias expanded, passes
    ``MAX_EXPANDED_CHARS`` (in document order); None if it never does.  Iterative, and the loader
    caps the number of values."""
    total = 0
    stack: list[tuple[Any, tuple[Any, ...]]] = [(data, ())]
    while stack:
        value, path = stack.pop()
        if isinstance(value, dict):
            total += sum(len(key) for key in value if isinstance(key, str))
            stack.extend(reversed([(child, (*path, key)) for key, child in value.items()]))
        elif isinstance(value, list):
            stack.extend(reversed([(child, (*path, index)) for index, child in enumerate(value)]))
        elif isinstance(value, str):
            total += len(value)
        elif isinstance(value, int):
            total += value.bit_length() // 3 + 1  # about its digits
        if total > MAX_EXPANDED_CHARS:
            return path
    return None


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


# What each kind of registry file looks like, for a file that is not a mapping at all.
_SHAPES = {
    ITEMS_DIR: "write the item as 'key: value' lines, starting with 'name:'",
    TEMPLATES_DIR: "write the job template as an OpenPAI job: 'protocolVersion: 2', 'name:', 'taskRoles:'",
    OWNERS_FILE: OWNERS_FIX,
}


def load_mapping(path: Path, rel: str, shape: str) -> tuple[LoadedYaml | None, list[Problem]]:
    """One YAML mapping; ``shape`` is the key of ``_SHAPES`` saying what the file should hold, or, for
    files other packages read through here (the execution catalog), that advice itself."""
    raw = _read_bytes(path, rel)
    return (None, [raw]) if isinstance(raw, Problem) else _mapping(raw, rel, shape)


def _mapping(raw: bytes, rel: str, shape: str) -> tuple[LoadedYaml | None, list[Problem]]:
    loaded, problems = _parse(raw, rel)
    if loaded is None:
        return None, problems
    for where in sorted(_non_string_keys(loaded.data), key=lambda w: loaded.position(w, key=True)):
        line, column = loaded.position(where, key=True)
        shown = format_path(where[:-1], empty="the top level")
        problems.append(problem("PRQ108", file=rel, line=line, column=column, key=_show_key(where[-1]), path=shown))
    if not problems and not isinstance(loaded.data, dict):
        kind, fix = "nothing" if loaded.data is None else f"a {type(loaded.data).__name__}", _SHAPES.get(shape, shape)
        line, column = loaded.value_positions.get((), (1, 1))
        problems.append(problem("PRQ105", file=rel, line=line, column=column, detail=kind, fix=fix))
    return (None, problems) if problems else (loaded, problems)


def _source(path: Path, rel: str, folder: str, shelf: Shelf) -> tuple[SourceItem | None, list[Problem], bool]:
    """One file of ``folder``, its data kept in ``shelf`` by its digest: a file read before is not parsed
    again (only a file without problems is kept, so nothing the loader checks needs checking again);
    and whether it was parsed."""
    raw = _read_bytes(path, rel)
    if isinstance(raw, Problem):
        return None, [raw], False
    digest, blob = hashlib.sha256(raw).hexdigest(), blob_id(raw)  # blob: git's own id of them
    kept = shelf.get(digest)
    parsed = not (isinstance(kept, dict) and nested_within(kept, MAX_DEPTH))
    if parsed:
        fresh, problems = _mapping(raw, rel, folder)
        if fresh is None:
            return None, problems, True
        kept = fresh.data
        shelf.put(digest, kept)
    # Positions are found again only for a file with a problem (kept for all, a fifth of the memory).
    source = SourceItem(path=path, rel=rel, data=kept, yaml=Reloaded(kept, raw), raw=raw, digest=digest, blob=blob)
    return source, [], parsed


def _load_owners(root: Path) -> tuple[Owners, list[Problem]]:
    path = root / OWNERS_FILE
    refused = entry_problem(path, OWNERS_FILE)
    if refused is not None:
        return Owners(), [refused]
    if path.is_dir():
        detail, fix = "owners.yaml is a folder, not the owners file", "replace it with a file: " + OWNERS_FIX
        return Owners(), [problem("PRQ161", file=OWNERS_FILE, detail=detail, fix=fix)]
    if not path.is_file():
        detail = "owners.yaml is missing"
        return Owners(), [problem("PRQ161", file=OWNERS_FILE, detail=detail, fix="create it: " + OWNERS_FIX)]
    loaded, problems = load_mapping(path, OWNERS_FILE, OWNERS_FILE)
    if loaded is None:
        return Owners(), problems
    owners, found = read_owners(loaded)
    return owners, problems + found


def _not_read_fix(path: Path, folder: str) -> str:
    """What to do with an entry of ``folder`` that is not read: a folder, ``x.yml``, a backup, a README."""
    if path.is_dir():
        return f"move what is in it up into {folder}/"
    if path.suffix.lower() in (".yml", ".yaml"):
        target = path.with_name(path.stem + ".yaml")
        if target.exists():
            return f"remove it: {target.name} is the file that is read"
        return f"rename it to {target.name}"
    if ".yaml" in path.name.lower() or ".yml" in path.name.lower():  # x.yaml.bak, x.yaml~, x.yml.orig
        return f"remove it, or move it out of {folder}/: only names ending in .yaml are read"
    return f"move it out of {folder}/, or name it <name>.yaml if it is {_FOLDERS[folder]}"


def _load_folder(
    root: Path, name: str, shelf: Shelf, *, parsed: Callable[[SourceItem], None] | None = None
) -> tuple[list[SourceItem], list[Problem]]:
    """Every ``<name>/*.yaml`` mapping, each given to ``parsed`` as it is read when it was parsed (not
    kept from an earlier run); anything else in the folder is a problem, never read or skipped silently
    (a link, a pipe, ``x.yml``, a folder)."""
    folder = root / name
    refused = entry_problem(folder, name, folder=True)
    if refused is not None:
        return [], [refused]
    if folder.exists() and not folder.is_dir():
        fix = f"make {name}/ a folder of <name>.yaml files"
        return [], [problem("PRQ106", file=name, detail=name, what="the folder of job templates", fix=fix)]
    loaded_files: list[SourceItem] = []
    problems: list[Problem] = []
    try:
        with os.scandir(folder) if folder.is_dir() else contextlib.nullcontext(iter(())) as listing:
            entries = {folder / entry.name: entry for entry in listing}  # what each is, mostly without a stat
    except OSError as exc:  # a folder that cannot be listed (chmod 000)
        return [], [unreadable(name, exc)]
    for path, entry in sorted(entries.items(), key=lambda pair: os.path.normcase(pair[1].name)):  # as Paths sort
        rel = f"{name}/{entry.name}"
        plain = entry.is_file(follow_symlinks=False) or entry.is_dir(follow_symlinks=False)
        refused = None if plain else entry_problem(path, rel)
        if refused is not None:
            problems.append(refused)
            continue
        if path.suffix != ".yaml" or not entry.is_file(follow_symlinks=False):
            if not path.name.startswith("."):
                fix = _not_read_fix(path, name)
                problems.append(problem("PRQ106", file=rel, detail=path.name, what=_FOLDERS[name], fix=fix))
            continue
        source, found, fresh = _source(path, rel, name, shelf)
        problems += found
        if source is not None:
            loaded_files.append(source)
            if fresh and parsed is not None:
                parsed(source)
    return loaded_files, problems


def load_registry(
    root: Path, *, cache: Cache = NO_CACHE, parsed: Callable[[SourceItem], None] | None = None
) -> LoadedRegistry:
    """Read every item file and the owners list under ``root``; what the ``cache`` kept of a file read
    before (its data) is not parsed again.  ``parsed`` hears of each item parsed, as it is (validation
    hands ShellCheck its scripts then, so that it reads while the rest loads)."""
    root = root.resolve()
    items_dir = root / ITEMS_DIR
    if not items_dir.is_dir():
        raise PrereqError(
            f"{root} has no {ITEMS_DIR}/ folder",
            hint="name the registry folder: 'prereq validate registry', 'prereq build --registry registry'",
        )
    owners, problems = _load_owners(root)
    shelf = cache.shelf("files")
    items, found = _load_folder(root, ITEMS_DIR, shelf, parsed=parsed)
    templates, found_in_templates = _load_folder(root, TEMPLATES_DIR, shelf)
    problems += found + found_in_templates
    return LoadedRegistry(root=root, items=items, owners=owners, problems=problems, templates=templates)
