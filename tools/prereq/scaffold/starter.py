"""What ``prereq init`` and ``prereq new`` write: files from ``kit/`` with their blanks filled in.

Nothing is ever replaced: when a file to write exists (and differs), nothing at all is written and
the error names it; only a README and a ``.gitignore`` that are there already get the kit's lines
appended, once.  Every file is written atomically, so an interrupted run leaves no half file.
"""

from __future__ import annotations

import getpass
import json
import os
import re
import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from prereq import __version__
from prereq.core.errors import PrereqError
from prereq.core.files import DATA_DIR, read_regular, write_atomic
from prereq.registry.checks.schemafile import ITEM_SCHEMA, committed_schema, item_schema_text
from prereq.registry.itemformat import check_name, check_new_name
from prereq.registry.loader import ITEMS_DIR, OWNERS_FILE, Owners, load_registry
from prereq.registry.settings import (
    REQUIREMENT_HINT,
    SETTINGS_FILE,
    UNSAFE_REQUIREMENT,
    UNSAFE_TEXT,
    load_settings,
)

KIT = Path(__file__).with_name("kit")
ITEM_TYPES = ("script", "data", "output", "dockerimage")
_BLANK = re.compile(r"\{\{(\w+)\}\}")
_TODO = re.compile(r"\bTODO\b")
KIT_WORKFLOWS = ("prereq-review.yml", "prereq-publish.yml")  # reusable, called by the repository's own
SCHEMA_PATH = "reference/prerequisite.schema.json"  # where every prereq site publishes the item schema
_BRANCH = re.compile(r"[A-Za-z0-9._+/-]+")
_RENAME = "rename it with letters, digits and . _ + / - (git branch -m NAME), then run prereq init again"
# A requirement that names a distribution (PEP 508): name, [extras], then a version or "@ URL"; anything
# else is a path or a URL of its own.
_NAMED = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[([^\]]*)\])?\s*([=<>!~@;].*)?")
_ARCHIVES = (".whl", ".tar.gz", ".tgz", ".zip")


@dataclass
class Written:
    """The files written (absolute) and, for each, the lines the author must fill in."""

    files: list[Path] = field(default_factory=list)
    appended: list[Path] = field(default_factory=list)  # files that were there, the kit's lines added
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


def default_branch(folder: Path) -> str:
    """The branch the kit publishes: origin's default as the clone knows it, else the current one, else main."""
    for ref, prefix in (("refs/remotes/origin/HEAD", "refs/remotes/origin/"), ("HEAD", "refs/heads/")):
        try:
            run = subprocess.run(
                ["git", "-C", str(folder), "symbolic-ref", "--quiet", ref], capture_output=True, text=True, timeout=60
            )
        except (OSError, subprocess.SubprocessError):  # no git, or no folder yet: nothing to ask
            break
        name = run.stdout.strip()
        if run.returncode == 0 and name.startswith(prefix):
            branch = name.removeprefix(prefix)
            if not _BRANCH.fullmatch(branch):  # it goes into YAML, Markdown and a shell line as it is
                raise PrereqError(f"the branch name {branch!r} cannot be written into a workflow", hint=_RENAME)
            return branch
    return "main"


def site_requirement(requirement: str) -> str:
    """``requirement`` with prereq's ``site`` extra, which the publish workflow needs to build the site."""
    named = _NAMED.fullmatch(requirement)
    if named and not named.group(1).endswith(_ARCHIVES):
        name, extras, rest = named.groups()
        wanted = [extra.strip() for extra in (extras or "").split(",") if extra.strip()]
        wanted += ["site"] * ("site" not in wanted)
        return f"{name}[{','.join(wanted)}]" + (f" {rest}" if rest and rest.startswith("@") else rest or "")
    if "://" in requirement:  # git+https://…, https://…/x.whl: a direct reference names the distribution
        return f"openpai-prereq[site] @ {requirement}"
    return f"{requirement}[site]"  # a local wheel, archive or folder: pip reads extras after a path


def _requirement(folder: Path, requirement: str | None) -> str:
    """The requirement given, else the one a previous ``prereq init`` kept, else this prereq's release."""
    if requirement is None and (folder / SETTINGS_FILE).is_file():
        requirement = load_settings(folder).prereq_requirement
    if requirement is None:
        requirement = f"openpai-prereq=={__version__}"
    if UNSAFE_REQUIREMENT.search(requirement):
        raise PrereqError(f"--prereq-requirement {requirement!r} is not one line pip installs", hint=REQUIREMENT_HINT)
    return requirement.strip()


def init_repository(
    folder: Path, *, name: str | None = None, owner: str | None = None, requirement: str | None = None
) -> Written:
    """A registry repository in ``folder``: settings, owners, one example item, CI, pre-commit, README.

    ``requirement`` is what the kit's pre-commit hook and workflows install prereq from (kept in
    prereq.yaml); the workflows publish the repository's default branch."""
    folder = Path(os.path.abspath(folder))
    _check_folder(folder)
    owner = owner or _login()
    check_name(owner, what="owner")
    title = _site_name(name or f"{folder.name} prerequisites")
    requirement = _requirement(folder, requirement)
    branch = default_branch(folder)
    blanks = {
        "name": title,
        # JSON strings are YAML: whatever the title holds, prereq.yaml stays valid.
        "name_yaml": json.dumps(title, ensure_ascii=False),
        "description_yaml": json.dumps(f"Prerequisites shared by {title}'s users, ready to put into OpenPAI jobs."),
        "owner": owner,
        "team": f"{owner}-team",
        "prereq": requirement,
        "prereq_yaml": json.dumps(requirement, ensure_ascii=False),
        "prereq_site_yaml": json.dumps(site_requirement(requirement), ensure_ascii=False),
        "prereq_site_sh": shlex.quote(site_requirement(requirement)),
        "branch": branch,
        "branch_yaml": json.dumps(branch),
        "base_sh": shlex.quote(f"origin/{branch}"),
    }
    registry = folder / "registry"
    example = "hello-prereq"
    schema = os.path.relpath(folder / ITEM_SCHEMA, registry / ITEMS_DIR)
    planned = {
        folder / SETTINGS_FILE: _fill("prereq.yaml", blanks),
        registry / OWNERS_FILE: _fill("owners.yaml", blanks),
        registry / ITEMS_DIR / f"{example}.yaml": _item_text(example, "script", owner=owner, schema=schema),
        folder / ITEM_SCHEMA: item_schema_text(),
        **_github_kit(folder, blanks),
        folder / ".pre-commit-config.yaml": _fill("pre-commit-config.yaml", blanks),
    }
    readme = _fill("README.md", blanks)
    shared = {  # what a README that is there already gets: the kit's, under its own title
        folder / ".gitignore": (_fill("gitignore", blanks),) * 2,
        folder / "README.md": (readme, readme.split("\n", 1)[1].lstrip("\n")),
    }
    return _write_kit(planned, shared)


def _write_kit(planned: dict[Path, str], shared: dict[Path, tuple[str, str]]) -> Written:
    """Write ``planned`` (a file there already as it would be written is left alone) and ``shared``:
    its whole text to a file that is not there, its addition appended to one that is (once)."""
    new = {path: text for path, text in planned.items() if not _holds(path, text)}
    appended: dict[Path, str] = {}
    for path, (whole, addition) in shared.items():
        if not (path.exists() or path.is_symlink()):
            new[path] = whole
        elif (merged := _appended(path, addition)) is not None:
            appended[path] = merged
    written = write_all(new)  # nothing is appended either when a file is in the way
    for path, text in appended.items():
        write_atomic(path, text)
        written.appended.append(path)
    return written


def _holds(path: Path, text: str) -> bool:
    """Whether ``path`` is a regular file holding ``text`` already (a second ``prereq init`` keeps it)."""
    try:
        return path.is_file() and not path.is_symlink() and path.read_text(encoding="utf-8") == text
    except (OSError, UnicodeDecodeError):  # unreadable: it is in the way, and write_all says so
        return False


def _appended(path: Path, addition: str) -> str | None:
    """``path``'s text with ``addition`` after it, or None when each line of it that is not a comment or
    a heading is there already (so a second run adds nothing)."""
    if path.is_symlink():
        raise PrereqError(f"{path} is a symbolic link; nothing was written", hint="replace it with the file itself")
    try:
        text = read_regular(path, what=path.name).decode("utf-8")
    except UnicodeDecodeError:
        raise PrereqError(f"{path} is not UTF-8 text; nothing was written", hint="save it as UTF-8") from None
    lines = set(text.splitlines())
    if all(line in lines for line in addition.splitlines() if line.strip() and not line.startswith("#")):
        return None
    separator = "\n" * (bool(text) and not text.endswith("\n")) + "\n" * bool(text.strip())
    return text + separator + addition


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
    """The item schema's address for editors: the published site's, else the committed copy's, which
    a fresh clone has (a build's output, ignored by git, it has not)."""
    if site_url:
        return site_url.rstrip("/") + "/" + SCHEMA_PATH
    return os.path.relpath(load_settings(registry).root / ITEM_SCHEMA, item_folder)


def refresh_schema(registry: Path) -> list[Path]:
    """The item schema committed in the repository around ``registry`` (``ITEM_SCHEMA``: new items'
    modelines name it when the site has no address, and a fresh clone has it), written when missing or
    not this prereq's (PRQ115); in prereq's own repository it is the schema's source itself."""
    root = load_settings(registry).root
    if committed_schema(root) is None:
        return []
    path = root / ITEM_SCHEMA
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, item_schema_text())
    return [path]


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
    written = write_all({folder / f"{name}.yaml": text}, hint="choose another name, or edit the item that exists")
    if not site_url:  # the modeline names the committed schema: it must be there, and current
        written.files += refresh_schema(registry)
    return written
