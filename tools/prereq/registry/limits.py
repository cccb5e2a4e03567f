"""The limits that keep a hostile registry file cheap to check, in one list: the loader, the schema
and the checks enforce them, each crossing a problem with a rule id, file and line, and the rule
reference lists them (``limits_markdown``), read from the very constants that are enforced.

May import: prereq.core, prereq.openpai, prereq.registry.schemas.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from prereq.core import versions, yamlload
from prereq.openpai import forms, shellwords
from prereq.registry.schemas import load_schema

MAX_FILE_BYTES = 1 << 20
MAX_LINE_CHARS = 10_000  # counted in bytes: at least as many as characters
# Text a file holds with every alias expanded.  Without aliases a file holds at most its own size;
# aliases can repeat one long string a hundred thousand times.
MAX_EXPANDED_CHARS = 2 * MAX_FILE_BYTES


@dataclass(frozen=True)
class Limit:
    what: str
    value: int
    unit: str
    rule: str  # the rule a crossing is reported as; "" when what lies past the limit is only skipped


def _schema_lengths(node: Any, label: str) -> Iterator[tuple[str, int]]:
    """``(where, maxLength)`` for every bounded string of the item schema, nearest the root first."""
    stack = [(node, label)]
    while stack:
        current, where = stack.pop(0)
        if not isinstance(current, dict):
            continue
        if isinstance(current.get("maxLength"), int):
            yield where, current["maxLength"]
        for key, child in (current.get("properties") or {}).items():
            stack.append((child, f"{where}.{key}" if where else key))
        if "items" in current:
            stack.append((current["items"], f"{where}[]"))
        if "propertyNames" in current:
            stack.append((current["propertyNames"], f"{where}:keys"))


def schema_limits() -> list[Limit]:
    """The item schema's length bounds: names, versions, titles, tags, owners..."""
    schema = load_schema("prerequisite.schema.json")
    found = dict(_schema_lengths(schema, ""))
    for definition in schema["$defs"].values():  # each adds keys to the item's top level
        for where, length in _schema_lengths(definition, ""):
            if where:  # a definition used under some key is listed there
                found.setdefault(where, length)
    shown = {where: f"`{where}`" if ":" not in where else "`{}` {}".format(*where.split(":")) for where in found}
    return [Limit(shown[where], length, "characters", "PRQ110") for where, length in found.items()]


def limits() -> list[Limit]:
    return [
        Limit("a registry file", MAX_FILE_BYTES, "bytes", "PRQ109"),
        Limit("a line", MAX_LINE_CHARS, "bytes", "PRQ109"),
        Limit("the text of a file, every alias expanded", MAX_EXPANDED_CHARS, "characters", "PRQ109"),
        Limit("the values of a file, every alias expanded", yamlload.MAX_VALUES, "values", "PRQ101"),
        Limit("nesting of values", yamlload.MAX_DEPTH, "levels", "PRQ101"),
        Limit("an integer", yamlload.MAX_INT_DIGITS, "digits", "PRQ101"),
        *schema_limits(),
        Limit("a version range", versions.MAX_RANGE_LENGTH, "characters", "PRQ141"),
        Limit("a parameter, rendered", forms.MAX_RENDERED, "characters", "PRQ155"),
        Limit("parameters used through parameters", forms.MAX_NESTING, "levels", "PRQ155"),
        Limit(
            "substitutions nested in a command (deeper ones are not read for variables)",
            shellwords.MAX_NESTING,
            "levels",
            "",
        ),
    ]


def limits_markdown() -> str:
    lines = [
        "## Limits",
        "",
        "What a registry file may hold, so that checking a hostile pull request stays quick. Each crossing "
        "is a problem with the rule id below, at the file and line where it happens.",
        "",
        "| what | at most | rule |",
        "|---|---|---|",
    ]
    for limit in limits():
        rule = f"[{limit.rule}](#{limit.rule.lower()})" if limit.rule else "—"
        lines.append(f"| {limit.what} | {limit.value:,} {limit.unit} | {rule} |")
    return "\n".join(lines) + "\n"
