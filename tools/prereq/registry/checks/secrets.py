"""Credentials in items and job templates (PRQ190, PRQ191): ``registry.secrets`` finds them, this
module places them at the line of the string that holds them.

May import: prereq.core, prereq.openpai, prereq.registry."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from prereq.core import placeholders
from prereq.core.yamlload import format_path
from prereq.registry import secrets
from prereq.registry.checks.base import Context, registry_check
from prereq.registry.loader import LoadedRegistry, SourceItem
from prereq.registry.rules import Problem, problem


def string_line(item: SourceItem, path: tuple[Any, ...], value: str, offset: int) -> tuple[int, int]:
    """The file line of line ``offset`` of the string at ``path``.  A string of several lines is almost
    always a block scalar (``|``), whose text starts on the line after its indicator."""
    line, column = item.position(path)
    if "\n" not in value.rstrip("\n"):
        return line, column
    return line + 1 + offset, 1


def leak_problems(item: SourceItem) -> Iterator[Problem]:
    for path, value in placeholders.strings(item.data):
        if path[:1] == ("auth",) and item.data.get("type") == "dockerimage":
            continue  # the schema holds auth to secret references (PRQ110)
        found = secrets.scan_value(path, value)
        for offset in sorted({leak.line for leak in found}):
            line, column = string_line(item, path, value, offset)
            here = [leak for leak in found if leak.line == offset]
            where = format_path(path, empty="the item")
            literal = [leak for leak in here if leak.literal]
            if literal:
                kinds = secrets.kinds(literal)
                yield problem("PRQ190", file=item.rel, line=line, column=column, where=where, kinds=kinds)
            for leak in here:
                if not leak.literal:
                    yield problem("PRQ191", file=item.rel, line=line, column=column, where=where, name=leak.kind)


@registry_check("PRQ190", "PRQ191")
def check_secrets(registry: LoadedRegistry, ctx: Context) -> Iterator[Problem]:
    """Every item and every job template (one check for both: a rule is declared in one place)."""
    for source in (*registry.items, *registry.templates):
        yield from leak_problems(source)


CHECKS = (check_secrets,)
