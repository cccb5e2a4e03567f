"""``prereq share JOB.yaml NAME``: a prerequisite written by hand in a job, saved as a registry item.

The users' story asks that people "define important components as prerequisites and save/share
them".  The job's entry gives the item its type, plugin, failure policy, callbacks, uri and plugin
parameters as written; what a job does not say (the title, the description, the tags, a dataset's
licence) is marked TODO for the author, the owner is the author (as ``prereq new`` picks one), and
the version starts at 1.0.0.  The file is written, then validated: the result says which
problems, if any, are left for the author.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prereq.core.errors import PrereqError
from prereq.core.files import read_regular
from prereq.core.yamlload import YamlLoadError, dump_yaml, load_yaml
from prereq.registry import schemas, secrets
from prereq.registry.loader import ITEMS_DIR
from prereq.registry.settings import load_settings
from prereq.registry.validate import ValidationResult, validate
from prereq.scaffold.starter import Written, check_item_name, owner_for, schema_ref, write_all

# What a job's entry does not say, for the author to write (in the order authors read an item).
_TODO = {
    "title": "TODO a one-line title people search for",
    "description": "TODO what it does, what it needs and what it exports for the job's commands.\n",
    "tags": ["todo"],
}
_DATA_LICENSE = "TODO-SPDX-id"
_NOT_COPIED = ("name", "type", "version")  # the item says these itself


@dataclass
class Shared:
    """The item file written with its TODO lines, and the registry's validation with only that file's problems."""

    written: Written
    validation: ValidationResult


def _entry(job: Path, name: str) -> dict[str, Any]:
    try:
        data = load_yaml(read_regular(job, what="job file")).data
    except YamlLoadError as exc:
        issue = exc.issues[0]
        raise PrereqError(f"{job}:{issue.line}:{issue.column}: {issue.message}", hint="fix the job's YAML") from None
    entries = data.get("prerequisites") if isinstance(data, dict) else None
    found = [e for e in entries or [] if isinstance(e, dict) and e.get("name") == name]
    if len(found) > 1:
        raise PrereqError(
            f"{job} has {len(found)} prerequisites named {name}", hint="rename one of them in the job first"
        )
    if not found:
        names = [str(e.get("name")) for e in entries or [] if isinstance(e, dict)]
        raise PrereqError(
            f"{job} has no prerequisite named {name}",
            hint="its prerequisites: " + (", ".join(names) if names else "none"),
        )
    return found[0]


def item_from_entry(entry: dict[str, Any], *, name: str, owner: str) -> dict[str, Any]:
    """The item a job's prerequisite entry becomes, blanks marked TODO.  Keys the item format does not
    know are the plugin's parameters in a job (OpenPAI hands every other key to the plugin), so they
    become the item's ``parameters``, where ``<% this.KEY %>`` finds them."""
    kind = entry.get("type", "script")
    item: dict[str, Any] = {"name": name, "version": "1.0.0", "type": kind, **_TODO, "owners": [owner]}
    if kind == "data":
        item["license"] = _DATA_LICENSE
    copied = {key: value for key, value in entry.items() if key not in _NOT_COPIED}
    allowed = schemas.item_keys({**item, **copied})
    parameters = {k: v for k, v in copied.items() if allowed is not None and k not in allowed}
    item.update({k: v for k, v in copied.items() if k not in parameters})
    if parameters:
        item["parameters"] = {**(item.get("parameters") or {}), **parameters}
    return item


def share(job: Path, name: str, *, registry: Path, owner: str | None = None, as_name: str | None = None) -> Shared:
    """Write ``registry/prerequisites/<as_name or name>.yaml`` from the job's entry ``name`` and validate it."""
    entry = _entry(job, name)
    item_name = as_name or name
    check_item_name(registry, item_name)
    leaks = list(secrets.scan_document(entry))
    if leaks:  # never written to a file that a pull request would then carry
        raise PrereqError(
            f"{job}: prerequisite {name} holds {secrets.kinds(leak for _, leak in leaks)}; nothing was written",
            hint="replace each credential in the job with <% $secrets.KEY %> (and the key under secrets:), then share",
        )
    item = item_from_entry(entry, name=item_name, owner=owner_for(registry, owner))
    folder = registry / ITEMS_DIR
    schema = schema_ref(registry, folder, load_settings(registry).site.url)
    header = f"# yaml-language-server: $schema={schema}\n# Shared from {job.name} by 'prereq share'.\n"
    written = write_all(
        {folder / f"{item_name}.yaml": header + dump_yaml(item)}, hint="pass --as NAME to save it under another name"
    )
    rel = f"{ITEMS_DIR}/{item_name}.yaml"
    result = validate(registry)
    return Shared(
        written=written, validation=dataclasses.replace(result, problems=[p for p in result.problems if p.file == rel])
    )
