"""What ``prereq init`` and ``prereq new`` write: files from ``kit/`` with their blanks filled in.

Nothing is ever replaced: when a file to write exists, nothing at all is written and the error
names it.  Every file is written atomically, so an interrupted run leaves no half file.
"""

from __future__ import annotations

import getpass
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from prereq import __version__
from prereq.core.errors import PrereqError
from prereq.core.files import DATA_DIR, write_atomic
from prereq.registry.itemformat import check_name, check_new_name
from prereq.registry.loader import ITEMS_DIR, OWNERS_FILE, Owners, load_registry
from prereq.registry.settings import SETTINGS_FILE, UNSAFE_TEXT, load_settings

KIT = Path(__file__).with_name("kit")
ITEM_TYPES = ("script", "data", "output", "dockerimage")
_BLANK = re.compile(r"\{\{(\w+)\}\}")
_TODO = re.compile(r"\bTODO\b")
KIT_WORKFLOWS = ("prereq-review.yml", "prereq-publish.yml")  # reusable, called by the repository's own
SCHEMA_PATH = "reference/prerequisite.schema.json"  # where every prereq site publishes the item schema


@dataclass
class Written:
    """The files written (absolute) and, for each, the lines the author must fill in."""

    files: list[Path] = field(default_factory=list)
    todo: list[tuple[Path, int, str]] = field(default_factory=list)  # file, 1-based line, the line


def _fill(kit_file: str, blanks: dict[str, str]) -> str:
    text = (KIT / kit_file).read_text(encoding="utf-8")
    return _BLANK.sub(lambda m: blanks[m.group(1)], text)


def write_all(planned: dict[Path, str], *, hint: str = "move them away first, or start in an empty folder") -> Written:
    """Write every file of ``planned``, or none when one exists already (``hint`` says what to do then)."""
    existing = [path for path in planned if path.exists() or path.is_symlink()]
    if existing:
        shown = ", ".join(os.path.relpath(p) for p in existing)
        raise PrereqError(f"{shown} already exist{'s' * (len(existing) == 1)}; nothing was written", hint=hint)
    written = Written()
    for path, text in planned.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, text)
        written.files.append(path)
        written.todo.extend(
            (path, n, line.strip()) for n, line in enumerate(text.splitlines(), 1) if _TODO.search(line)
        )
    return written


def _login() -> str:
    try:
        name = getpass.getuser()
    except (KeyError, OSError):  # no user name in the environment or the password database
        name = ""
    name = re.sub(r"[^a-z0-9_-]", "", name.lower())
    return name or "owner"


def _check_folder(folder: Path) -> None:
    """``prereq init`` makes a repository: in a folder (or a new one), never inside another registry."""
    if folder.exists() and not folder.is_dir():
        raise PrereqError(f"{folder} is a file, not a folder", hint="name a new or empty folder")
    for parent in folder.parents:
        if (parent / SETTINGS_FILE).is_file() or (parent / "registry" / ITEMS_DIR).is_dir():
            raise PrereqError(
                f"{folder} is inside the registry repository {parent}",
                hint="start a registry repository in a folder of its own",
            )


def _site_name(name: str) -> str:
    if not name.strip() or UNSAFE_TEXT.search(name):  # what prereq.yaml would refuse for site.name
        raise PrereqError(f"the name {name!r} is not one line of plain text", hint="use letters, digits and spaces")
    return name


def init_repository(folder: Path, *, name: str | None = None, owner: str | None = None) -> Written:
    """A registry repository in ``folder``: settings, owners, one example item, CI, pre-commit, README."""
    folder = Path(os.path.abspath(folder))
    _check_folder(folder)
    owner = owner or _login()
    check_name(owner, what="owner")
    title = _site_name(name or f"{folder.name} prerequisites")
    blanks = {
        "name": title,
        # JSON strings are YAML: whatever the title holds, prereq.yaml stays valid.
        "name_yaml": json.dumps(title, ensure_ascii=False),
        "description_yaml": json.dumps(f"Prerequisites shared by {title}'s users, ready to put into OpenPAI jobs."),
        "owner": owner,
        "team": f"{owner}-team",
        "version": __version__,
    }
    registry = folder / "registry"
    example = "hello-prereq"
    schema = os.path.relpath(folder / "build" / "site" / SCHEMA_PATH, registry / ITEMS_DIR)
    planned = {
        folder / SETTINGS_FILE: _fill("prereq.yaml", blanks),
        registry / OWNERS_FILE: _fill("owners.yaml", blanks),
        registry / ITEMS_DIR / f"{example}.yaml": _item_text(example, "script", owner=owner, schema=schema),
        **_github_kit(folder, blanks),
        folder / ".pre-commit-config.yaml": _fill("pre-commit-config.yaml", blanks),
        folder / ".gitignore": _fill("gitignore", blanks),
        folder / "README.md": _fill("README.md", blanks),
    }
    return write_all(planned)


def _github_kit(folder: Path, blanks: dict[str, str]) -> dict[Path, str]:
    """The kit's reusable workflows as prereq ships them, and this repository's two callers."""
    workflows = folder / ".github" / "workflows"
    shipped = DATA_DIR / ".github" / "workflows"
    kit = {workflows / name: (shipped / name).read_text(encoding="utf-8") for name in KIT_WORKFLOWS}
    return kit | {workflows / name: _fill(name, blanks) for name in ("pull-request.yml", "publish.yml")}


def check_item_name(registry: Path, name: str) -> None:
    """A name ``validate`` will accept for a new item of this registry (see ``itemformat.check_new_name``)."""
    check_new_name(name, taken=[path.stem for path in (registry / ITEMS_DIR).glob("*.yaml")])


def schema_ref(registry: Path, item_folder: Path, site_url: str | None) -> str:
    """The item schema's address for editors: the published site's, else the local build's."""
    if site_url:
        return site_url.rstrip("/") + "/" + SCHEMA_PATH
    built = load_settings(registry).root / "build" / "site" / SCHEMA_PATH
    return os.path.relpath(built, item_folder)


def _item_text(name: str, kind: str, *, owner: str, schema: str) -> str:
    text = _fill(f"item-{kind}.yaml", {"name": name, "owner": owner, "schema": schema})
    if kind == "script" and name == "hello-prereq":  # the example init writes is finished, not a form to fill
        text = text.replace("TODO a one-line title people search for", "Say hello before the job starts")
        text = text.replace(
            "  TODO what the item does on each node, what it needs and what it exports for the job's commands.",
            "  An example item: prints a greeting on every node before the job's commands and exports `GREETING`.",
        )
        text = text.replace("tags: [todo]", "tags: [example]")
        text = text.replace(
            '      - echo "TODO replace with the commands that set things up"',
            '      - export GREETING=hello\n      - echo "$GREETING from $(hostname)"',
        )
    return text


def _default_owner(owners: Owners) -> str:
    """You (your login name) when owners.yaml lists you, else your first team, else its only user."""
    login = _login()
    if login in owners.users:
        return login
    teams = sorted(team for team, members in owners.teams.items() if login in members)
    if teams:
        return teams[0]
    if len(owners.users) == 1:
        return next(iter(owners.users))
    known = ", ".join(sorted(owners.users | set(owners.teams))) or "none"
    raise PrereqError(
        f"{login} is not in {OWNERS_FILE}, so prereq cannot tell who owns the new item",
        hint=f"pass --owner with one of: {known}",
    )


def owner_for(registry: Path, owner: str | None) -> str:
    """``owner`` when owners.yaml lists it, else the default owner; an error naming the file otherwise."""
    loaded = load_registry(registry)
    owners = loaded.owners
    if any(problem.file == OWNERS_FILE for problem in loaded.problems):
        raise PrereqError(f"{registry / OWNERS_FILE} has problems", hint="run 'prereq validate' and fix it first")
    owner = owner or _default_owner(owners)
    if owners.loaded and not owners.known(owner):
        raise PrereqError(
            f"{owner} is not a user or team in {registry / OWNERS_FILE}",
            hint="pass --owner with a name listed there, or add it there first",
        )
    return owner


def new_item(registry: Path, name: str, *, kind: str, owner: str | None = None) -> Written:
    """``registry/prerequisites/NAME.yaml``: a valid starting item of ``kind``, its blanks marked TODO."""
    if kind not in ITEM_TYPES:
        raise PrereqError(f"unknown type {kind}", hint="use one of: " + ", ".join(ITEM_TYPES))
    check_item_name(registry, name)
    owner = owner_for(registry, owner)
    folder = registry / ITEMS_DIR
    site_url = load_settings(registry).site.url
    text = _item_text(name, kind, owner=owner, schema=schema_ref(registry, folder, site_url))
    return write_all({folder / f"{name}.yaml": text}, hint="choose another name, or edit the item that exists")
