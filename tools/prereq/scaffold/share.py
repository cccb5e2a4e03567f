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
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prereq.core.errors import PrereqError
from prereq.core.files import read_regular
from prereq.core.yamledit import load_error
from prereq.core.yamlload import YamlLoadError, load_yaml
from prereq.core.yamlrender import Renderer
from prereq.registry import itemformat, secretscan
from prereq.registry.itemformat import check_new_name
from prereq.registry.loader import ITEMS_DIR
from prereq.registry.settings import load_settings
from prereq.registry.validate import ValidationResult, validate
from prereq.review.rules import ALL_RULES
from prereq.scaffold.starter import Written, owner_for, schema_ref, write_all

_NOT_COPIED = ("name", "type", "version", "owners")  # the item says these itself (the owner is the user's)


@dataclass(frozen=True)
class SharedItem:
    """A job's entry as a registry item: its name, its data and its file's text (without header lines)."""

    name: str
    item: dict[str, Any]
    text: str


@dataclass
class Shared:
    """The item file written with its TODO lines, and the registry's validation with only that file's
    problems; ``others`` counts the rest, which ``prereq validate`` reports too."""

    written: Written
    validation: ValidationResult
    others: int = 0


def _entry(job_text: str | bytes, name: str, *, source: str) -> dict[str, Any]:
    try:
        data = load_yaml(job_text, merge_keys=True).data  # as OpenPAI reads jobs
    except YamlLoadError as exc:
        raise load_error(source, exc, hint="fix the job's YAML") from None
    entries = data.get("prerequisites") if isinstance(data, dict) else None
    entries = entries if isinstance(entries, list) else []
    found = [e for e in entries if isinstance(e, dict) and e.get("name") == name]
    if len(found) > 1:
        raise PrereqError(
            f"{source} has {len(found)} prerequisites named {name}", hint="rename one of them in the job first"
        )
    if not found:
        names = [str(e.get("name")) for e in entries if isinstance(e, dict)]
        raise PrereqError(
            f"{source} has no prerequisite named {name}",
            hint="its prerequisites: " + (", ".join(names) if names else "none"),
        )
    return found[0]


def item_from_entry(entry: dict[str, Any], *, name: str, owner: str, item_format: Mapping[str, Any]) -> dict[str, Any]:
    """The item a job's prerequisite entry becomes, blanks marked TODO.  Keys the item format does not
    know are the plugin's parameters in a job (OpenPAI hands every other key to the plugin), so they
    become the item's ``parameters``, where ``<% this.KEY %>`` finds them; an unknown plugin's item
    keeps every key as written."""
    kind = entry.get("type", "script")
    first: dict[str, Any] = {"name": name, "version": item_format["first_version"], "type": kind}
    item = {**first, **dict(item_format["todo"]), "owners": [owner]}
    if kind == "data":
        item["license"] = item_format["data_license"]
    copied = {key: value for key, value in entry.items() if key not in _NOT_COPIED}
    keys = item_format["keys"]
    plugin = copied.get("plugin", item_format["default_plugin"])
    allowed = (
        keys["dockerimage"]
        if kind == "dockerimage"
        else keys["plugins"].get(plugin)
        if isinstance(plugin, str)
        else None
    )
    parameters = {k: v for k, v in copied.items() if allowed is not None and k not in allowed}
    item.update({k: v for k, v in copied.items() if k not in parameters})
    if parameters:
        held = item.get("parameters")
        item["parameters"] = {**(held if isinstance(held, dict) else {}), **parameters}
    return item


def share_entry(
    job_text: str | bytes,
    name: str,
    *,
    owner: str,
    item_format: Mapping[str, Any],
    taken: Iterable[str] = (),
    as_name: str | None = None,
    source: str = "the job",
) -> SharedItem:
    """The job's hand-written prerequisite ``name`` as a registry item named ``as_name`` (or ``name``),
    refused when the name is not one a new item may have (``taken``: the registry's names) or the entry
    holds a credential.  The composer's jobs/share.js does the same (tests/cases/share/)."""
    entry = _entry(job_text, name, source=source)
    item_name = as_name or name
    check_new_name(item_name, taken=taken)
    leaks = list(secretscan.scan_document(entry))
    if leaks:  # never in a file that a pull request would then carry
        raise PrereqError(
            f"{source}: prerequisite {name} holds {secretscan.kinds(leak for _, leak in leaks)}; it cannot be shared",
            hint="replace each credential in the job with <% $secrets.KEY %> (and the key under secrets:), then share",
        )
    item = item_from_entry(entry, name=item_name, owner=owner, item_format=item_format)
    return SharedItem(name=item_name, item=item, text="\n".join(Renderer().lines(item, 0)) + "\n")


def share(job: Path, name: str, *, registry: Path, owner: str | None = None, as_name: str | None = None) -> Shared:
    """Write ``registry/prerequisites/<as_name or name>.yaml`` from the job's entry ``name`` and validate it."""
    folder = registry / ITEMS_DIR
    shared = share_entry(
        read_regular(job, what="job file"),
        name,
        owner=owner_for(registry, owner),
        item_format=itemformat.describe(),
        taken=[path.stem for path in folder.glob("*.yaml")],
        as_name=as_name,
        source=str(job),
    )
    schema = schema_ref(registry, folder, load_settings(registry).site.url)
    header = f"# yaml-language-server: $schema={schema}\n# Shared from {job.name} by 'prereq share'.\n"
    written = write_all(
        {folder / f"{shared.name}.yaml": header + shared.text}, hint="pass --as NAME to save it under another name"
    )
    rel = f"{ITEMS_DIR}/{shared.name}.yaml"
    result = validate(registry, rules=ALL_RULES)
    own = [p for p in result.problems if p.file == rel]
    return Shared(
        written=written, validation=dataclasses.replace(result, problems=own), others=len(result.problems) - len(own)
    )
