"""Credentials in items and job templates (PRQ190, PRQ191, PRQ194): ``registry.secretscan`` finds them,
this module places them at the line of the string, key or comment that holds them.

May import: prereq.core, prereq.openpai, prereq.registry."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from prereq.core import placeholders
from prereq.core.graph import lookup_parameter
from prereq.core.yamlload import format_path
from prereq.registry import secretscan
from prereq.registry.checks.context import Context, file_check, item_check
from prereq.registry.loader import TEMPLATES_DIR, SourceItem
from prereq.registry.rules import Problem, problem


def _where(found: secretscan.Located) -> str:
    if found.on == "comment":
        return "a comment"
    if found.on == "key":  # the key itself is the credential: named by where it is, never shown
        return f"a key of {format_path(found.path[:-1], empty='the file')}"
    return format_path(found.path, empty="the item")


def leak_problems(item: SourceItem) -> Iterator[Problem]:
    image = item.data.get("type") == "dockerimage"
    # The schema holds a docker image's auth to secret references (PRQ110): not said twice.
    located = list(secretscan.locate(item.yaml, skip=lambda path: image and path[:1] == ("auth",)))
    if item.rel.startswith(TEMPLATES_DIR + "/"):  # a job template is published as written, comments and all
        located += secretscan.locate_comments(item.raw.decode("utf-8", errors="replace"), item.data)
    for found in located:
        where, line, column = _where(found), found.line, found.column
        literal = [leak for leak in found.leaks if leak.literal]
        if literal:
            kinds = secretscan.kinds(literal)
            yield problem("PRQ190", file=item.rel, line=line, column=column, where=where, kinds=kinds)
        for leak in found.leaks:
            if not leak.literal:
                yield problem("PRQ191", file=item.rel, line=line, column=column, where=where, name=leak.kind)


@file_check("PRQ190", "PRQ191", templates=True)
def check_secrets(source: SourceItem, ctx: Context) -> Iterator[Problem]:
    """Every item and every job template (one check for both: a rule is declared in one place)."""
    yield from leak_problems(source)


@item_check("PRQ194")
def check_rendered_secrets(item: SourceItem, ctx: Context) -> Iterator[Problem]:
    """What the index publishes of an item: its strings with ``<% this.KEY %>`` filled in from this
    registry (its own parameters, then its requirements'), at the line of the string that uses them."""
    if not ctx.templated(item):
        return  # what most items are

    def lookup(key: str) -> Any:
        found = lookup_parameter(item.name, key, ctx.parameters, ctx.requires_of)
        return found[1] if isinstance(found, tuple) else None

    leaks = (
        (path, leak)
        for path, value in placeholders.strings(item.data)
        if placeholders.OPEN in value
        for leak in secretscan.rendered_leaks(path, value, lookup)
    )
    for found in secretscan.place(item.yaml, leaks):
        where, kinds = format_path(found.path, empty="the item"), secretscan.kinds(found.leaks)
        yield problem("PRQ194", file=item.rel, line=found.line, column=found.column, where=where, kinds=kinds)


CHECKS = (check_secrets, check_rendered_secrets)
