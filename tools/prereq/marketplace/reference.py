"""The item format reference page, generated from our own JSON Schema (trusted text).

May import: nothing of prereq; it reads the schema it is given.
"""

from __future__ import annotations

from typing import Any


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _describe_type(prop: dict[str, Any]) -> str:
    if "enum" in prop:
        return "one of " + ", ".join(f"`{v}`" for v in prop["enum"])
    if "const" in prop:
        return f"`{prop['const']}`"
    if "$ref" in prop:
        return prop["$ref"].rsplit("/", 1)[-1]
    kind = prop.get("type")
    if isinstance(kind, list):
        return " or ".join(kind)
    if kind == "array":
        items = prop.get("items") or {}
        inner = _describe_type(items) if items else "values"
        if "$ref" in items:
            inner = "commands" if items["$ref"].endswith("commands") else inner
        return f"list of {inner}" + ("s" if inner in ("string", "object") else "")
    if kind == "object":
        keys = list((prop.get("properties") or {}).keys())
        return "mapping" + (f" ({', '.join(keys)})" if keys else "")
    return kind or "any"


def _property_rows(properties: dict[str, Any], required: list[str]) -> list[str]:
    rows = ["| key | required | value | what |", "|---|---|---|---|"]
    for key, prop in properties.items():
        parts = [prop.get("description") or ""]
        if prop.get("x-hint"):
            parts.append(f"Hint: {prop['x-hint']}.")
        what = " ".join(part for part in parts if part)
        rows.append(f"| `{key}` | {'yes' if key in required else ''} | {_cell(_describe_type(prop))} | {_cell(what)} |")
    return rows


def format_reference_markdown(schema: dict[str, Any], example: str | None = None) -> str:
    defs = schema["$defs"]
    lines = [
        "# Item format",
        "",
        "An item is one YAML file, `registry/prerequisites/<name>.yaml`, whose `name` is the file's stem. "
        "`prereq validate` checks it against this format (the machine-readable form is "
        "[prerequisite.schema.json](prerequisite.schema.json), JSON Schema 2020-12) and against the rest of "
        "the registry: see the [rule reference](rules.md).",
        "",
        "## Every item",
        "",
        *_property_rows(schema["properties"], schema.get("required", [])),
        "",
        "Items of type `data` must state a `license`.",
        "",
        "## Datasets and widgets (`data`, `script`, `output`)",
        "",
        *_property_rows(defs["runnable"]["properties"], []),
        "",
        "`uri` is a list of strings for `data` items and one string for `script` and `output` items.",
    ]
    for key in sorted(k for k in defs if k.startswith("plugin-")):
        plugin = key.removeprefix("plugin-")
        section = defs[key]
        lines += [
            "",
            f"### Plugin `{plugin}`",
            "",
            section.get("description", ""),
            "",
            *_property_rows(section["properties"], section.get("required", [])),
        ]
    image = defs["dockerimage"]
    lines += [
        "",
        "## Docker images (`dockerimage`)",
        "",
        *_property_rows(image["properties"], image.get("required", [])),
        "",
        "`auth` values are secret references such as `<% $secrets.registryPassword %>`: never write "
        "credentials into the registry.",
        "",
    ]
    lines += [
        "## Templates",
        "",
        "- `<% this.NAME %>` is filled from `parameters`: the item's own, then those of the items it "
        "requires (nearest first).",
        "- `<% $secrets.KEY %>` and `<% expression.KEY %>` are left for the job: each user's job carries its "
        "secrets and expressions.",
        "",
    ]
    if example:
        lines += ["## An example", "", "```yaml", example.rstrip("\n"), "```", ""]
    return "\n".join(lines)


FORMAT_EXAMPLE = """\
name: imagenet-subset
version: 1.1.0
type: data
title: A 100-class ImageNet subset on the shared volume
description: |
  Unpacks the subset under `<mountPoint>/imagenet-100` and exports `IMAGENET_DIR`.

  The first paragraph is the summary shown in the catalog; the rest is Markdown too.
tags: [vision, classification]
owners: [vision-team]
license: LicenseRef-imagenet-terms
homepage: https://www.image-net.org/
require:
  - nfs-storage-1@^1.0        # gives <% this.mountPoint %>
  - base-tools
parameters:
  subset: imagenet-100
callbacks:
  - event: taskStarts
    commands:
      - export IMAGENET_DIR=<% this.mountPoint %>/<% this.subset %>
      - test -d $IMAGENET_DIR || tar -xf /datasets/<% this.subset %>.tar -C <% this.mountPoint %>
"""
