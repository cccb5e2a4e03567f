"""The published index's documents as types: what ``builder`` writes and ``reader`` reads.

They mirror ``schema/index.schema.json`` (which the reader checks every file against); the
types say the same for the code, so that a field's name or shape cannot drift between the two.

May import: nothing of prereq.
"""

from __future__ import annotations

from typing import Any, TypedDict


class ClosureNode(TypedDict):
    name: str
    version: str


class RequiredVersion(TypedDict):
    name: str
    range: str  # "*" for any version
    version: str  # the version the range resolved to


class VersionDocument(TypedDict):
    """One published version of an item."""

    version: str
    item: dict[str, Any]  # the item as its author wrote it
    openpai: dict[str, Any]  # its OpenPAI form, placeholders rendered
    digest: str
    exports: list[str]
    needs: dict[str, list[str]]  # what the form reads from the job (openpai.needs.form_needs)
    requires: list[RequiredVersion]
    closure: list[ClosureNode]  # requirements first, the item last
    published: str | None  # the date of the first commit holding this version; None: not committed


class ItemDocument(TypedDict):
    """``api/v1/prerequisites/<name>.json``."""

    name: str
    versions: list[VersionDocument]  # oldest first
    required_by: list[str]
    source: str | None  # the item's file, relative to the repository root; None outside git or once deleted


class RootEntry(TypedDict):
    """An item in the root index: what search, the catalog and the site need without its file."""

    name: str
    version: str
    type: str
    title: str
    summary: str
    tags: list[str]
    owners: list[str]
    deprecated: dict[str, Any] | None
    license: str | None  # the latest version's SPDX expression, as written
    exports: list[str]
    updated: str | None
    path: str
    sha256: str


class PackMap(TypedDict):
    """``api/v1/packs.json`` (``packs.PACK_MAP``), apart from the root so that the root stays what older
    readers of its format accept."""

    format: str
    packs: list[str]  # api/v1/<path> of each pack
    items: dict[str, int]  # item name -> its pack's position in packs
    closures: dict[str, list[int]]  # item name -> the packs of the rest of its closures (none: its own holds them)


class TemplateEntry(TypedDict):
    name: str
    title: str
    path: str
    uses: list[str]
    sha256: str  # of the file's bytes: the root vouches for a template as for an item file


class PublishedFile(TypedDict):
    path: str
    sha256: str


class TypeGroup(TypedDict):
    name: str  # as in the catalog's address (?type=NAME)
    label: str
    types: list[str]


class RootOptions(TypedDict, total=False):
    """What a root holds only when the registry says so."""

    start_image: str  # prereq.yaml's composer.image: the dockerimage item a new job starts with


class Root(RootOptions):
    """``api/v1/index.json``."""

    format: str
    job_load_line: str
    replaced_load_lines: list[str]  # what earlier versions wrote instead (optional in the format)
    callback_lines: dict[str, str]  # "first" and "other" (optional in the format: older builds lack it)
    key_orders: dict[str, list[str]]
    type_groups: list[TypeGroup]  # in display order
    type_labels: dict[str, str]
    lifted_keys: list[str]  # what the runtime takes out of a prerequisite; every other key is a parameter
    range_hint: str  # how to write a version range (rule PRQ141's hint)
    item_format: dict[str, Any]  # registry.itemformat.describe() (optional in the format: older builds lack it)
    items_folder: str | None  # where item files live in the repository (optional in the format too)
    job_schema: PublishedFile
    templates: list[TemplateEntry]
    commit: str | None
    date: str | None
    dirty: bool
    items: list[RootEntry]
