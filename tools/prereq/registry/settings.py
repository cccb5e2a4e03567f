"""A registry repository's own settings: ``prereq.yaml`` at its root.

A team's repository customises prereq here instead of copying prereq's files::

    registry: registry                 # the folder of items (the default)
    site:
      name: Team prerequisites         # the site's title
      url: https://team.example/prereq/   # where the site is published
      repo_url: https://github.com/team/registry
      description: Storage, datasets and tools for our jobs.
      logo: docs/logo.svg              # a picture beside this file
      pages: docs                      # Markdown pages added to the site (a page named as one of
                                       # prereq's own replaces it)
      index_url: https://team.example/prereq/   # what jobs composed on the site record as their
                                       # index (default: the address the site is read from)
    trust:
      allowed_signers: .github/allowed_signers   # who may sign the index (ssh-keygen's ALLOWED
                                       # SIGNERS format): 'prereq job' refuses an index they
                                       # did not sign, and so does the site's composer
    validate:
      strict: true                     # warnings fail (the default): 'prereq validate' (with or
                                       # without --base), the review's verdict, pre-commit and
                                       # 'prereq build' all read it; --no-strict/--strict
                                       # override it for one run
    kit:
      prereq: openpai-prereq==0.2.0    # what the kit's pre-commit hook and workflows install
                                       # prereq from: a requirement, a git URL or a wheel
                                       # ('prereq init --prereq-requirement' writes it)
    composer:
      image: cuda-base                 # the dockerimage item a new job starts with, in the site's
                                       # composer and the portal plugin (published as the index
                                       # root's start_image); 'prereq validate' and 'prereq build'
                                       # refuse a name that is no dockerimage item of the registry

Every key is optional; a repository without the file gets prereq's defaults.  Paths are
relative to the file.  The file is found at the repository root (the git work tree around the
current folder), so every command reads the same settings wherever it runs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prereq.core.errors import PrereqError
from prereq.core.files import link_inside, read_regular, within
from prereq.core.yamlload import LoadedYaml, YamlLoadError, load_yaml
from prereq.registry.loader import SourceItem

SETTINGS_FILE = "prereq.yaml"
SITE_KEYS = ("name", "url", "repo_url", "description", "logo", "pages", "index_url")
TRUST_KEYS = ("allowed_signers",)
VALIDATE_KEYS = ("strict",)
KIT_KEYS = ("prereq",)
COMPOSER_KEYS = ("image",)
_TOP_KEYS = ("registry", "site", "trust", "validate", "kit", "composer")
# A requirement is one pip argument written into workflows: no line break, and no ${{ that GitHub
# would read as an expression.
UNSAFE_REQUIREMENT = re.compile(r"^\s*$|[\x00-\x1f\x7f]|\$\{\{")
REQUIREMENT_HINT = "write a requirement (openpai-prereq==0.2.0), a git URL (git+https://…) or a wheel's path or URL"


@dataclass(frozen=True)
class SiteSettings:
    name: str | None = None
    url: str | None = None
    repo_url: str | None = None
    description: str | None = None
    logo: Path | None = None
    pages: Path | None = None
    index_url: str | None = None


@dataclass(frozen=True)
class StartImage:
    """composer.image: the dockerimage item new jobs start with, and where the file says so."""

    name: str
    where: str  # FILE:LINE:COLUMN of the value, for the error when it names no dockerimage item


@dataclass(frozen=True)
class Settings:
    """What ``prereq.yaml`` says, with paths made absolute; ``file`` is None when there is none."""

    root: Path  # the repository root: where prereq.yaml is, or would be
    file: Path | None = None
    registry: Path | None = None
    site: SiteSettings = field(default_factory=SiteSettings)
    allowed_signers: Path | None = None  # trust.allowed_signers: the keys that may sign the index
    prereq_requirement: str | None = None  # kit.prereq: what the kit installs prereq from
    strict: bool = True  # validate.strict: warnings fail validation, the review and the build alike
    start_image: StartImage | None = None  # composer.image

    def strictness(self, override: bool | None) -> bool:
        """Whether warnings fail this run: ``override`` (--strict/--no-strict) when given, else the
        file's setting.  The check of a pull request, pre-commit and publish all ask this, so that a
        change the review passes is one the build publishes."""
        return self.strict if override is None else override


def repository_root(start: Path) -> Path:
    """The folder of ``prereq.yaml`` at or above ``start``, else the git work tree around it, else ``start``."""
    start = Path(start).resolve()
    for folder in (start, *start.parents):
        if (folder / SETTINGS_FILE).is_file() or (folder / ".git").exists():
            return folder
    return start


def _fail(file: Path, loaded: LoadedYaml, path: tuple[Any, ...], message: str, hint: str) -> PrereqError:
    line, column = loaded.position(path, key=True)
    return PrereqError(f"{file}:{line}:{column}: {message}", hint=hint)


# What reaches every page of the site: one line of text with nothing HTML reads as markup (the
# theme writes some of these into attributes unescaped), and addresses that are plain http(s) URLs.
UNSAFE_TEXT = re.compile(r'[<>"\x00-\x1f\x7f]')
_URL = re.compile(r"https?://[^\s\"'<>`\\]+")
URL_KEYS = ("url", "repo_url", "index_url")


def _text(file: Path, loaded: LoadedYaml, section: dict[str, Any], key: str, path: tuple[Any, ...]) -> str | None:
    value = section.get(key)
    if value is None:
        return None
    where = (*path, key)
    if not isinstance(value, str) or not value.strip():
        raise _fail(file, loaded, where, f"{key} must be a text", hint=f"write {key}: followed by a text")
    if key in URL_KEYS and not _URL.fullmatch(value):
        raise _fail(file, loaded, where, f"{key} is not an http(s) address", hint="write it as https://host/path/")
    if UNSAFE_TEXT.search(value):
        raise _fail(
            file,
            loaded,
            where,
            f'{key} holds a line break, a control character or one of < > "',
            hint="write one line of plain text",
        )
    return value


def _path(
    file: Path, loaded: LoadedYaml, section: dict[str, Any], key: str, path: tuple[Any, ...], *, kind: str
) -> Path | None:
    """A path relative to the file, inside its repository, reached without symbolic links (a link
    could publish any file of the machine that builds the site), of ``kind`` ("file" or "folder")."""
    text = _text(file, loaded, section, key, path)
    if text is None:
        return None
    where, root = (*path, key), file.parent.resolve()
    joined = root / text
    resolved = joined.resolve()
    if not within(resolved, root):
        raise _fail(file, loaded, where, f"{key}: {text} is outside the repository", hint="name a path inside it")
    if not resolved.exists():
        raise _fail(file, loaded, where, f"{key}: {text} does not exist", hint=f"{key} is relative to {file.name}")
    link = link_inside(joined, root)
    if link is not None:
        raise _fail(
            file,
            loaded,
            where,
            f"{key}: {link.relative_to(root)} is a symbolic link",
            hint="name the file or folder itself",
        )
    if (kind == "folder") != resolved.is_dir() or (kind == "file" and not resolved.is_file()):
        raise _fail(file, loaded, where, f"{key}: {text} is not a {kind}", hint=f"name a {kind}")
    return resolved


def _mapping(
    file: Path, loaded: LoadedYaml, value: Any, path: tuple[Any, ...], keys: tuple[str, ...]
) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _fail(file, loaded, path, "expected a mapping of keys", hint="see 'prereq init --help' for the format")
    for key in value:
        if key not in keys:
            raise _fail(file, loaded, (*path, key), f"unknown key '{key}'", hint="allowed keys: " + ", ".join(keys))
    return value


def _requirement(file: Path, loaded: LoadedYaml, kit: Any) -> str | None:
    """kit.prereq: one pip argument, written as it is into the kit's workflows and pre-commit hook."""
    value = _mapping(file, loaded, kit, ("kit",), KIT_KEYS).get("prereq")
    if value is not None and (not isinstance(value, str) or UNSAFE_REQUIREMENT.search(value)):
        raise _fail(file, loaded, ("kit", "prereq"), "prereq must be one line pip installs", REQUIREMENT_HINT)
    return value


def _start_image(file: Path, loaded: LoadedYaml, composer: Any) -> StartImage | None:
    """composer.image: one item's name; whether the registry has it is start_image_problem's to say."""
    section = _mapping(file, loaded, composer, ("composer",), COMPOSER_KEYS)
    name = _text(file, loaded, section, "image", ("composer",))
    if name is None:
        return None
    line, column = loaded.position(("composer", "image"))
    return StartImage(name=name, where=f"{file}:{line}:{column}")


def start_image_problem(settings: Settings, items: Mapping[str, SourceItem]) -> PrereqError | None:
    """Why composer.image cannot be the image new jobs start with (None: it can), given the registry's
    items by name.  'prereq validate' and 'prereq build' both ask."""
    wanted = settings.start_image
    item_types = {name: item.data.get("type") for name, item in items.items()}
    if wanted is None or item_types.get(wanted.name) == "dockerimage":
        return None
    images = sorted(name for name, kind in item_types.items() if kind == "dockerimage")
    hint = "add a dockerimage item to the registry first, or remove composer.image"
    if images:
        hint = f"name one of the registry's dockerimage items: {', '.join(images)}"
    found = item_types.get(wanted.name)
    what = f"is a {found} item, not a dockerimage" if isinstance(found, str) else "is no item of the registry"
    return PrereqError(f"{wanted.where}: composer.image: {wanted.name} {what}", hint=hint, exit_code=1)


def load_settings(start: Path) -> Settings:
    """The settings of the repository around ``start`` (prereq's defaults when it has no prereq.yaml)."""
    root = repository_root(start)
    file = root / SETTINGS_FILE
    if not file.is_file():
        return Settings(root=root)
    try:
        loaded = load_yaml(read_regular(file, what="settings file"))
    except YamlLoadError as exc:
        issue = exc.issues[0]
        raise PrereqError(f"{file}:{issue.line}:{issue.column}: {issue.message}", hint="fix the YAML") from None
    top = _mapping(file, loaded, loaded.data, (), _TOP_KEYS)
    site = _mapping(file, loaded, top.get("site"), ("site",), SITE_KEYS)
    trust = _mapping(file, loaded, top.get("trust"), ("trust",), TRUST_KEYS)
    where = ("site",)
    checks = _mapping(file, loaded, top.get("validate"), ("validate",), VALIDATE_KEYS)
    strict = checks.get("strict", True)
    if not isinstance(strict, bool):
        raise _fail(file, loaded, ("validate", "strict"), "strict must be true or false", hint="write strict: true")
    requirement = _requirement(file, loaded, top.get("kit"))
    return Settings(
        root=root,
        file=file,
        registry=_path(file, loaded, top, "registry", (), kind="folder"),
        site=SiteSettings(
            name=_text(file, loaded, site, "name", where),
            url=_text(file, loaded, site, "url", where),
            repo_url=_text(file, loaded, site, "repo_url", where),
            description=_text(file, loaded, site, "description", where),
            logo=_path(file, loaded, site, "logo", where, kind="file"),
            pages=_path(file, loaded, site, "pages", where, kind="folder"),
            index_url=_text(file, loaded, site, "index_url", where),
        ),
        allowed_signers=_path(file, loaded, trust, "allowed_signers", ("trust",), kind="file"),
        strict=strict,
        prereq_requirement=requirement,
        start_image=_start_image(file, loaded, top.get("composer")),
    )
